/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurmconf/subopts: the *Parameters sub-options and flag lists judged per
 * Slurm generation. Each refusal class once (unknown word, the other generation's word, a value
 * on a flag, a missing value, a number with trailing text or out of the reader's range, 0 where
 * the reader refuses it, an enum word, a time string, a path, a port range, a percentage, a
 * case-sensitive reader, a word given twice, a word with no effect, 22.05's NoAddrCache), the
 * values that pass, and agreement with values.c's word lists (every DebugFlags and PrologFlags
 * word the option parser accepts is known to at least one generation here, and the examples of
 * every key with a table pass on 22.05). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/macro.h"
#include "slurmconf/subopts.h"
#include "slurmconf/values.h"
#include "util/strbuf.h"

#include "util/banned.h"

static int check(const char *key, const char *value, const char *rel, const char *want) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = slurmconf_subopts_check(key, value, rel, &e);
        if (want) {
                if (r != -EINVAL || !strstr(e.buf, want))
                        print_error("%s=%s on %s: r=%d \"%s\", want \"%s\"\n", key, value, rel, r, e.buf, want);
                return r == -EINVAL && strstr(e.buf, want) ? 0 : -1;
        }
        if (r != 0)
                print_error("%s=%s on %s: r=%d \"%s\"\n", key, value, rel, r, e.buf);
        return r;
}
#define OK(k, v, rel) assert_int_equal(check(k, v, rel, NULL), 0)
#define NO(k, v, rel, want) assert_int_equal(check(k, v, rel, want), 0)

static void test_passes(void **state) {
        OK("SchedulerParameters", "bf_continue,bf_window=2880,bf_interval=-1", "22.05");
        OK("schedulerparameters", "BF_CONTINUE,max_script_size=1048576,delay_boot=1-00:00:00", "22.05");
        OK("SchedulerParameters", "bf_hetjob_prio=MAX,sched_interval=-1,,defer", "22.05");
        OK("SchedulerParameters", "defer_batch,bf_topopt_iterations=30", "24.11");
        OK("SlurmctldParameters", "enable_configless,max_dbd_msg_action=exit,node_reg_mem_percent=95.5", "22.05");
        OK("SlurmctldParameters", "conmgr_threads=8,rl_enable,enable_stepmgr", "24.11");
        OK("CommunicationParameters", "keepalivetime=60,EnableIPv6", "22.05");
        OK("CommunicationParameters", "NoAddrCache", "22.05");
        OK("LaunchParameters", "use_interactive_step,enable_nss_slurm", "24.11");
        OK("BcastParameters", "DestDir=/tmp,Compression=lz4,send_libs", "22.05");
        OK("MpiParams", "ports=12000-12999", "22.05");
        OK("DebugFlags", "Backfill,gres,Protocol", "22.05");
        OK("DebugFlags", "ConMgr,Sack", "24.11");
        OK("PrologFlags", "Alloc,Contain,X11", "22.05");
        OK("PrologFlags", "RunInJob", "24.11");
        OK("TopologyParam", "dragonfly", "22.05");
        /* no table: not judged */
        OK("PriorityParameters", "anything=at,all", "22.05");
        OK("SlurmctldHost", "x", "22.05");
        /* a later release is judged as 24.11, an unknown one as 22.05 */
        OK("DebugFlags", "TLS", "25.05");
        NO("DebugFlags", "TLS", "garbage", "only by 24.11");
}

static void test_refusals(void **state) {
        NO("SchedulerParameters", "bf_intervall=30", "22.05", "Slurm would ignore it silently");
        NO("DebugFlags", "Backfill,Bogus", "22.05", "every Slurm program would exit on it");
        NO("SchedulerParameters", "defer_batch", "22.05", "is not read by Slurm 22.05 (only by 24.11)");
        NO("DebugFlags", "TimeCray", "24.11", "only by 22.05");
        NO("PrologFlags", "ForceRequeueOnFail", "22.05", "exit");
        NO("SchedulerParameters", "bf_continue=1", "22.05", "takes no value");
        NO("SchedulerParameters", "bf_window", "22.05", "needs a value");
        NO("SchedulerParameters", "bf_interval=abc", "22.05", "Slurm reads \"abc\" as 0");
        NO("SchedulerParameters", "bf_window=10m", "22.05", "reads \"10m\" as 10");
        NO("SchedulerParameters", "bf_interval=0", "22.05", "not 0");
        NO("SchedulerParameters", "bf_interval=99999", "22.05", "out of range");
        NO("SchedulerParameters", "max_script_size=600000000", "22.05", "out of range");
        NO("SchedulerParameters", "max_submit_line_size=3000000", "24.11", "out of range");
        NO("SchedulerParameters", "bf_hetjob_prio=foo", "22.05", "is not one of min, avg, max");
        NO("SchedulerParameters", "delay_boot=soon", "22.05", "is not a Slurm time");
        NO("SchedulerParameters", "bf_window=60,bf_window=120", "22.05", "given twice");
        NO("SchedulerParameters", "BF_WINDOW=60,bf_window=120", "22.05", "given twice");
        NO("SchedulerParameters", "max_job_bf=50", "22.05", "old name of bf_max_job_test");
        NO("SchedulerParameters", "Ignore_NUMA", "22.05", "hwloc 2");
        NO("SlurmctldParameters", "max_dbd_msg_action=drop", "22.05", "discard, exit");
        NO("SlurmctldParameters", "conmgr_read_timeout=30", "24.11", "24.11.6");
        NO("SlurmctldParameters", "conmgr_threads=1", "24.11", "out of range");
        NO("SlurmctldParameters", "cloud_reg_addrs", "24.11", "only by 22.05");
        NO("SlurmctldParameters", "no_quick_restart", "22.05", "only by 24.11");
        NO("SlurmctldParameters", "NO_QUICK_RESTART", "24.11", "case-sensitively");
        NO("SlurmctldParameters", "node_reg_mem_percent=lots", "22.05", "percentage");
        NO("LaunchParameters", "Use_Interactive_Step", "22.05", "is spelled use_interactive_step");
        NO("LaunchParameters", "cray_net_exclusive", "22.05", "Cray");
        NO("BcastParameters", "DestDir=tmp", "22.05", "absolute path");
        NO("BcastParameters", "destdir=/tmp", "24.11", "case-sensitively");
        NO("BcastParameters", "Compression=zstd", "22.05", "lz4, none");
        NO("MpiParams", "ports=abc", "22.05", "port range");
        NO("MpiParams", "ports=13000-12000", "22.05", "port range");
        NO("MpiParams", "ports=1-70000", "22.05", "port range");
        NO("CommunicationParameters", "EnableIPv6,NoAddrCache", "22.05", "only as the whole value");
        NO("CommunicationParameters", "NoAddrCache", "24.11", "only by 22.05");
        NO("CommunicationParameters", "keepalivetime=-1", "22.05", "out of range");
        NO("JobAcctGatherParams", "NoOverMemoryKill", "22.05", "ignore it silently");
        NO("ScronParameters", "enabled", "22.05", "ignore it silently");
        NO("DependencyParameters", "max_depend_depth=-1", "22.05", "out of range");
        NO("SchedulerParameters", "bf_min_prio_reserve=99999999999999999999999", "22.05", "whole number");
}

struct words_ctx {
        int failures;
};

/* The option parser's words for DebugFlags and PrologFlags are each known to a generation, and
 * every example of a key with a table passes on 22.05. */
static int each_row(const struct slurmconf_value_info *info, void *userdata) {
        struct words_ctx *c = userdata;
        if (!slurmconf_subopts_known_key(info->key))
                return 0;
        if ((strcaseeq(info->key, "DebugFlags") || strcaseeq(info->key, "PrologFlags")) && info->words)
                for (size_t i = 0; info->words[i]; i++) {
                        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                        if (slurmconf_subopts_check(info->key, info->words[i], "22.05", &e) < 0 &&
                                slurmconf_subopts_check(info->key, info->words[i], "24.11", NULL) < 0) {
                                print_error("%s=%s is known to no generation: %s\n", info->key, info->words[i], e.buf);
                                c->failures++;
                        }
                }
        for (size_t i = 0; info->examples && info->examples[i]; i++) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (slurmconf_subopts_check(info->key, info->examples[i], "22.05", &e) < 0) {
                        print_error("example %s=%s: %s\n", info->key, info->examples[i], e.buf);
                        c->failures++;
                }
        }
        return 0;
}

static void test_agrees_with_values(void **state) {
        struct words_ctx c = { 0 };
        slurmconf_value_foreach(each_row, &c);
        assert_int_equal(c.failures, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_passes),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_agrees_with_values),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
