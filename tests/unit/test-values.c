/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurmconf/values: every settable key has a grammar, Slurm 22.05's value
 * rules case by case (numbers, times, words, plugins, lists), where and why we are stricter
 * than the reader, and the cross-key rules of one line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "slurmconf/keys.h"
#include "slurmconf/options.h"
#include "slurmconf/values.h"
#include "util/strbuf.h"
#include "util/banned.h"

#define G SLURMCONF_GLOBAL
#define P SLURMCONF_PARTITION
#define N SLURMCONF_NODE

struct vcase {
        enum slurmconf_scope scope;
        const char *key, *value;
        const char *refusal; /* NULL: accepted; else a substring of the message */
};

static void run_cases(const struct vcase *c, size_t n) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                int r = slurmconf_value_check(c[i].scope, c[i].key, c[i].value, &err);
                bool ok = c[i].refusal ? r == -EINVAL && strstr(err.buf, c[i].refusal) : r == 0;
                if (!ok)
                        print_error("%s=%s: got %d \"%s\", expected %s%s%s\n", c[i].key, c[i].value, r,
                                err.buf, c[i].refusal ? "\"" : "acceptance", strempty(c[i].refusal),
                                c[i].refusal ? "\"" : "");
                assert_true(ok);
                if (r < 0) {
                        /* one short line for juju status, the key first */
                        assert_null(strchr(err.buf, '\n'));
                        if (err.len > 110)
                                print_error("too long (%zu): %s\n", err.len, err.buf);
                        assert_true(err.len <= 110);
                        assert_true(startswith(err.buf, c[i].key));
                }
        }
}

/* The examples of the issue, refused before anything is written. */
static void test_issue_examples(void **state) {
        static const struct vcase c[] = {
                { P, "MaxTime", "forever",
                        "MaxTime: \"forever\" is not a time (minutes, [D-]HH:MM[:SS] or UNLIMITED)" },
                { P, "PriorityTier", "99999999999999",
                        "PriorityTier: \"99999999999999\" is out of range (0-65535)" },
                { G, "SlurmctldDebug", "loud", "SlurmctldDebug: \"loud\" is not a debug level" },
                { G, "SlurmdTimeout", "abc", "SlurmdTimeout: \"abc\" is not a number (0-65535)" },
        };
        run_cases(c, ELEMENTSOF(c));
}

/* s_p_handle_uint16/32/64 (parse_value.c) and our narrower ranges. */
static void test_numbers(void **state) {
        static const struct vcase c[] = {
                { G, "SlurmdTimeout", "300", NULL },
                { G, "SlurmdTimeout", "0x10", NULL },            /* strtoul base 0: hex */
                { G, "SlurmdTimeout", "010", NULL },             /* octal */
                { G, "SlurmdTimeout", "08", "is not a number" }, /* octal without 8: Slurm refuses */
                { G, "SlurmdTimeout", "+5", NULL },
                { G, "SlurmdTimeout", "-1", "is out of range" },
                { G, "SlurmdTimeout", "65535", NULL },
                { G, "SlurmdTimeout", "65536", "is out of range (0-65535)" },
                { G, "SlurmdTimeout", "5k", "is not a number" }, /* no k for 16 bits */
                { G, "SlurmdTimeout", "1.5", "is not a number" },
                { G, "SlurmdTimeout", "UNLIMITED", NULL }, /* 65535, as for Slurm */
                { G, "ReturnToService", "UNLIMITED", "is not allowed here (a number 0-2)" },
                { G, "EpilogMsgTime", "4k", NULL }, /* k (x1024) for 32 bits */
                { G, "EpilogMsgTime", "4194304k", "is out of range" },
                { G, "EpilogMsgTime", "k", "is not a number" }, /* Slurm: 0 (stricter) */
                { P, "MaxNodes", "UNLIMITED", NULL },
                { P, "MaxNodes", "infinite", NULL },
                { P, "MaxMemPerNode", "UNLIMITED", NULL },
                { P, "MaxMemPerNode", "99999999999999999999", "is out of range" },
                { P, "MaxMemPerNode", "18014398509481984k", "is out of range" }, /* k would wrap */
                { N, "CPUs", "0", "is out of range (1-65535)" },                 /* Slurm: reset to 1 */
                { N, "CPUs", "UNLIMITED", NULL }, /* 65535 CPUs, as for Slurm */
                { N, "RealMemory", "64000", NULL },
                { N, "Weight", "UNLIMITED", NULL },
                { G, "MinJobAge", "1", "is out of range (2-" }, /* Slurm: reset to 2 with an error */
                { G, "SchedulerTimeSlice", "4", "is out of range (5-65535)" },
                { G, "TreeWidth", "0", "is out of range" },
                { G, "MaxArraySize", "4000002", "is out of range" },
                { G, "MaxDBDMsgs", "9999", "is out of range" },
                { G, "FirstJobId", "0", "is out of range" },
                { G, "SlurmdPort", "70000", "is out of range (1-65535)" },
                { G, "ReturnToService", "3", "is out of range (0-2)" },
                { G, "PropagatePrioProcess", "3", "is out of range (0-2)" },
        };
        run_cases(c, ELEMENTSOF(c));
}

/* time_str2mins()/time_str2secs() (parse_time.c). */
static void test_times(void **state) {
        static const struct vcase c[] = {
                { P, "MaxTime", "60", NULL }, { P, "MaxTime", "30:00", NULL },
                { P, "MaxTime", "1:30:00", NULL }, { P, "MaxTime", "2-12", NULL },
                { P, "MaxTime", "2-12:30", NULL }, { P, "MaxTime", "2-12:30:15", NULL },
                { P, "MaxTime", "5-", NULL }, { P, "MaxTime", "UNLIMITED", NULL },
                { P, "MaxTime", "infinite", NULL }, { P, "MaxTime", "-1", NULL },
                { P, "MaxTime", "-0", NULL }, /* "-0" days: 0 for Slurm too */
                { P, "MaxTime", "-2", "is a negative time" }, { P, "MaxTime", "1:", "is not a time" },
                { P, "MaxTime", "1::2", "is not a time" }, { P, "MaxTime", "1-2-3", "is not a time" },
                { P, "MaxTime", "1:2:3:4", "is not a time" }, { P, "MaxTime", "1h", "is not a time" },
                { P, "MaxTime", "99999999999", "is too long a time" },
                { P, "MaxTime", "35791394", "is too long a time" }, /* minutes*60 overflows an int */
                { P, "DefaultTime", "01:00:00", NULL },
                { G, "PriorityCalcPeriod", "0:30", NULL }, /* 30 s rounds up to 1 minute */
                { G, "PriorityCalcPeriod", "0", "at least 1 minute" },
                { G, "PriorityCalcPeriod", "UNLIMITED", "at least 1 minute" },
                { G, "PriorityDecayHalfLife", "7-0", NULL }, { G, "PreemptExemptTime", "00:05:00", NULL },
                { G, "PreemptExemptTime", "-5", "is a negative time" }, /* Slurm: wraps to a huge uint32 */
        };
        run_cases(c, ELEMENTSOF(c));
}

static void test_words(void **state) {
        static const struct vcase c[] = {
                { G, "SlurmctldDebug", "debug5", NULL },
                { G, "SlurmctldDebug", "DEBUG2", NULL },
                { G, "SlurmctldDebug", "7", NULL },
                { G, "SlurmctldDebug", "11", "is not a debug level" }, /* Slurm: reset with an error */
                { G, "SlurmctldDebug", "5x", "is not a debug level" },
                { G, "DebugFlags", "Backfill,gres,NO_CONF_HASH", NULL },
                { G, "DebugFlags", "Gres,Bogus", "DebugFlags: \"Bogus\" is not a debug flag" },
                { G, "DebugFlags", "Task", "is not a debug flag" }, /* removed: Slurm logs an error */
                { G, "DebugFlags", ",", NULL },                     /* strtok_r: no flag */
                { P, "OverSubscribe", "FORCE:4", NULL },
                { P, "OverSubscribe", "yes:2", NULL },
                { P, "OverSubscribe", "EXCLUSIVE", NULL },
                { P, "OverSubscribe", "YES:1", "bad job count" }, /* Slurm: ignored with an error */
                { P, "OverSubscribe", "FORCE:0", "bad job count" },
                { P, "OverSubscribe", "MAYBE", "is not EXCLUSIVE, NO, YES[:N] or FORCE[:N]" },
                { P, "State", "inactive", NULL },
                { P, "State", "UPPER", "is not UP, DOWN, DRAIN or INACTIVE" }, /* Slurm: prefix "UP" */
                { G, "PreemptMode", "SUSPEND,GANG", NULL },
                { G, "PreemptMode", "SUSPEND", "needs GANG" },
                { G, "PreemptMode", "REQUEUE,CANCEL", "more than one mode" },
                { G, "PreemptMode", "GANG,WITHIN", "combines GANG and WITHIN" },
                { P, "PreemptMode", "SUSPEND", NULL },
                { P, "PreemptMode", "pause", "is not a preempt mode" },
                { G, "SelectTypeParameters", "CR_Core_Memory,CR_ONE_TASK_PER_CORE", NULL },
                { G, "SelectTypeParameters", "CR_CPU,CR_Core", "more than one CR_ type" },
                { G, "SelectTypeParameters", "CR_CPU,CR_ONE_TASK_PER_CORE", "combines CR_CPU" },
                { P, "SelectTypeParameters", "CR_Socket_Memory", NULL },
                { P, "SelectTypeParameters", "CR_CPU", "is not CR_Core" }, /* partitions take four */
                { G, "PropagateResourceLimits", "CORE,RLIMIT_NOFILE", NULL },
                { G, "PropagateResourceLimits", "core",
                        "is not ALL, NONE or an rlimit" }, /* case-sensitive */
                { G, "PropagateResourceLimits", "all", "is not ALL, NONE" },
                { G, "TaskPluginParam", "cores,verbose,autobind=threads", NULL },
                { G, "TaskPluginParam", "cores,threads", "more than one" },
                { G, "PriorityFlags", "MAX_TRES,NO_FAIR_TREE", NULL },
                { G, "PriorityFlags", "FAIRNESS", "is not a priority flag" }, /* Slurm: substring match */
                { G, "PrivateData", "jobs,usage", NULL },
                { G, "PrivateData", "secrets", "is not a PrivateData word" },
                { G, "LogTimeFormat", "rfc5424_ms", NULL },
                { G, "LogTimeFormat", "unix", "is not a log time format" }, /* Slurm: silently the default */
                { G, "EnforcePartLimits", "ALL", NULL },
                { G, "EnforcePartLimits", "some", "is not ALL, ANY or NO" },
                { G, "AccountingStorageEnforce", "limits,qos,safe", NULL },
                { G, "PrologFlags", "Alloc,Contain", NULL },
                { G, "PrologFlags", "NoHold,Contain", "combines NoHold" },
                { G, "CpuFreqGovernors", ",", "names no governor" },
                { P, "CpuBind", "cores,verbose", NULL },
                { P, "CpuBind", "cores,threads", "more than one binding" }, /* Slurm: ignored */
                { P, "Hidden", "YES", NULL },
                { P, "Hidden", "maybe", "is not YES or NO" },
                { P, "Default", "YES", "default-partition" },
                { G, "FastSchedule", "1", "removed" },
        };
        run_cases(c, ELEMENTSOF(c));
}

static void test_plugins(void **state) {
        static const struct vcase c[] = {
                { G, "SchedulerType", "sched/backfill", NULL },
                { G, "SchedulerType", "backfill",
                        "is not a plugin (sched/NAME)" }, /* the loader needs the type */
                { G, "SchedulerType", "priority/basic", "is not a sched plugin" },
                { G, "SchedulerType", "sched/fifo",
                        "is not a Slurm 22.05 sched plugin (backfill, builtin)" },
                { G, "SchedulerType", "sched/Backfill", "is not a Slurm 22.05 sched plugin" }, /* case */
                { G, "JobSubmitPlugins", "lua,job_submit/throttle", NULL },
                { G, "JobSubmitPlugins", "lua,nosuch", "\"nosuch\" is not a Slurm 22.05 job_submit plugin" },
                { G, "TaskPlugin", "task/affinity,cgroup", NULL },
                { G, "TaskPlugin", "task/affinity,proctrack/cgroup", "is not a Slurm 22.05 task plugin" },
                { G, "MpiDefault", "pmi2", NULL },
                { G, "MpiDefault", "mpi/pmi2", "is not a Slurm 22.05 mpi plugin" }, /* bare names only */
                { G, "AccountingStorageType", "accounting_storage/mysql",
                        "is not a Slurm 22.05" }, /* slurmdbd only */
                { G, "AcctGatherEnergyType", "acct_gather_energy/rapl,ipmi", NULL },
        };
        run_cases(c, ELEMENTSOF(c));
        assert_string_equal(slurmconf_value_plugin_type(G, "SchedulerType"), "sched");
        assert_string_equal(slurmconf_value_plugin_type(G, "PriorityType"), "priority");
        assert_string_equal(slurmconf_value_plugin_type(G, "JobSubmitPlugins"), "job_submit");
        assert_string_equal(slurmconf_value_plugin_type(G, "mpidefault"), "mpi");
        assert_null(slurmconf_value_plugin_type(G, "SlurmdTimeout"));
        assert_int_equal(slurmconf_value_type(G, "TaskPlugin"), SLURMCONF_VALUE_PLUGIN_LIST);
        assert_int_equal(slurmconf_value_type(P, "MaxTime"), SLURMCONF_VALUE_TIME);
        assert_int_equal(slurmconf_value_type(G, "MaxTime"), SLURMCONF_VALUE_UNKNOWN);
}

static void test_lists_and_specials(void **state) {
        static const struct vcase c[] = {
                { G, "Licenses", "matlab:4,ansys;fluent:0", NULL },
                { G, "Licenses", "matlab:-1", "bad count" },
                { G, "Licenses", "matlab:four", "bad count" },
                { P, "TRESBillingWeights", "CPU=1.0,Mem=0.25G,GRES/gpu=2.0", NULL },
                { P, "TRESBillingWeights", "CPU=1.0,Mem=0.25X", "bad weight" },
                { P, "TRESBillingWeights", "disk=1", "is not TRES=WEIGHT" },
                { G, "AccountingStorageTRES", "gres/gpu,license/iop1", NULL },
                { G, "AccountingStorageTRES", "gpu", "is not a TRES" },
                { G, "GresTypes", "gpu,mps", NULL },
                { G, "GresTypes", "mps", "needs gpu" },
                { N, "Gres", "gpu:a100:4,nic:2", NULL },
                { N, "Gres", "gpu:h100:4(S:0-1)", NULL },
                { N, "Gres", "gpu:4Z", "bad count" },
                { N, "Gres", "gpu::4", "is not NAME[:TYPE][:COUNT]" },
                { N, "Reason", "burn-in", NULL },
                { N, "Reason", "x,port=1", "slurmd --conf refuses" },
                { N, "Features", "gpu,a100", NULL },
                { N, "Features", "gpu|a100", "is not a feature name" },
                { N, "CpuSpecList", "0-3,8", NULL },
                { N, "CpuSpecList", "3-0", "is not a CPU id" },
                { P, "AllocNodes", "login[1-4],gw", NULL },
                { P, "AllocNodes", "login[4-1]", "is not a hostlist" },
                { P, "AllowGroups", "ALL", NULL },
                { P, "AllowAccounts", "physics,chem", NULL },
                { P, "AllowAccounts", "a=b", "is not an account name" },
                { G, "SuspendExcNodes", "nid[10-20]:4,nid[80-90]", NULL },
                { G, "SuspendExcNodes", "nid[10-20]:x", "is not a hostlist" },
                { G, "SrunPortRange", "60001-63000", NULL },
                { G, "SrunPortRange", "63000-60001", "is not a port range" }, /* Slurm: silently dropped */
                { G, "RequeueExit", "1-9,18", NULL },
                { G, "RequeueExit", "256", "is not an exit code" },
                { G, "BcastExclude", "/lib,/usr/lib", NULL },
                { G, "BcastExclude", "lib", "is not an absolute path" },
                { G, "SuspendTime", "NONE", NULL },
                { G, "SuspendTime", "abc", "is not seconds" },  /* Slurm: atoi() gives 0 */
                { P, "SuspendTime", "NONE", "is not seconds" }, /* partitions: INFINITE or -1 only */
                { P, "OverTimeLimit", "UNLIMITED", NULL },
                { P, "OverTimeLimit", "soon", "is not minutes" },
                { G, "SlurmdLogFile", "/var/log/slurm/slurmd.log", NULL },
                { G, "SlurmdLogFile", "/var/log/slurm/slurmd.%n.log", "has \"%\"" }, /* expanded by Slurm */
                { G, "SlurmdLogFile", "/etc/passwd", "is outside /var/log/slurm" },
                { G, "SlurmdLogFile", "slurmd.log", "is not an absolute path" },
                { G, "PluginDir", "/usr:/tmp", NULL },
                { G, "PluginDir", "/usr:/nonexistent", "is not a directory on this machine" },
                { G, "SlurmdUser", "no-such-user-x", "is not a user of this system" },
                { G, "SlurmdUser", "0", NULL },
                { G, "JobAcctGatherFrequency", "task=30,energy=60", NULL },
                { G, "JobAcctGatherFrequency", "cpu=30", "is not SECONDS" },
                { G, "SchedulerParameters", "bf_continue,bf_window=2880", NULL },
                { G, "SchedulerParameters", "max_script_size=999999999", "above 512 MB" },
                { G, "CommunicationParameters", "DisableIPv4", "without EnableIPv6" },
                { G, "LaunchParameters", "enable_nss_slurm,disable_send_gids", "combines" },
                { G, "MailDomain", "example.org", NULL },
                { G, "SlurmdUser", "root", NULL },
        };
        run_cases(c, ELEMENTSOF(c));
}

/* Every key an option string may name has a grammar; count the real ones. */
struct coverage {
        int keys, real, text, removed;
};

static int cover(const struct slurmconf_key *k, void *userdata) {
        struct coverage *cv = userdata;
        static const enum slurmconf_scope scopes[] = { G, P, N };
        if (!slurmconf_key_supported(k) || k->alias_of || (k->flags & SLURMCONF_KEY_LINE))
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(scopes); i++) {
                if (!(k->scopes & SLURMCONF_SCOPE_BIT(scopes[i])))
                        continue;
                const struct slurmconf_value_info *vi = slurmconf_value_info(scopes[i], k->name);
                if (!vi)
                        print_error("no grammar for %s key %s\n", slurmconf_scope_name(scopes[i]), k->name);
                assert_non_null(vi);
                assert_non_null(vi->check);
                cv->keys++;
                if (vi->type == SLURMCONF_VALUE_TEXT)
                        cv->text++;
                else if (vi->type == SLURMCONF_VALUE_REMOVED)
                        cv->removed++;
                else
                        cv->real++;
        }
        return 0;
}

static int examples_valid(const struct slurmconf_value_info *vi, void *userdata) {
        for (size_t i = 0; vi->examples && vi->examples[i]; i++) {
                for (enum slurmconf_scope s = 0; s < _SLURMCONF_SCOPE_MAX; s++) {
                        if (!(vi->scopes & SLURMCONF_SCOPE_BIT(s)))
                                continue;
                        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                        if (slurmconf_value_check(s, vi->key, vi->examples[i], &err) < 0)
                                print_error("example %s=%s: %s\n", vi->key, vi->examples[i], err.buf);
                        assert_int_equal(slurmconf_value_check(s, vi->key, vi->examples[i], NULL), 0);
                }
        }
        return 0;
}

static void test_coverage(void **state) {
        struct coverage cv = { 0 };
        slurmconf_key_foreach(cover, &cv);
        print_message("value grammars: %d keys (global, partition, node), %d with a grammar, %d free text, "
                      "%d removed from Slurm\n",
                cv.keys, cv.real, cv.text, cv.removed);
        assert_true(cv.keys > 220);
        assert_true(cv.real > 4 * cv.text);
        slurmconf_value_foreach(examples_valid, NULL);
        assert_int_equal(slurmconf_value_check(G, "NoSuchKey", "1", NULL), -EINVAL);
        assert_int_equal(slurmconf_value_check(G, "SlurmdTimeout", "", NULL), -EINVAL);
}

/* Cross-key rules, through the option parser (Slurm's defaults) and with a base list. */
static void expect_set(enum slurm_options_kind kind, const char *s, const char *refusal) {
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = slurm_options_parse(s, kind, &o, &err);
        bool ok = refusal ? r == -EINVAL && strstr(err.buf, refusal) : r == 0;
        if (!ok)
                print_error("%s: got %d \"%s\"\n", s, r, err.buf);
        assert_true(ok);
}

static void test_cross_keys(void **state) {
        expect_set(SLURM_OPTIONS_GLOBAL, "PreemptMode=REQUEUE", "needs PreemptType");
        expect_set(SLURM_OPTIONS_GLOBAL, "PreemptMode=REQUEUE PreemptType=preempt/qos", NULL);
        expect_set(SLURM_OPTIONS_GLOBAL, "PreemptType=preempt/partition_prio", "needs PreemptMode");
        expect_set(SLURM_OPTIONS_GLOBAL, "PreemptMode=GANG", NULL);
        expect_set(SLURM_OPTIONS_GLOBAL, "FirstJobId=100 MaxJobId=99", "above MaxJobId");
        expect_set(SLURM_OPTIONS_GLOBAL, "FirstJobId=67043329", "above MaxJobId");
        expect_set(SLURM_OPTIONS_GLOBAL, "PriorityDecayHalfLife=0", "needs PriorityUsageResetPeriod");
        expect_set(SLURM_OPTIONS_GLOBAL, "PriorityDecayHalfLife=0 PriorityUsageResetPeriod=WEEKLY", NULL);
        expect_set(SLURM_OPTIONS_GLOBAL, "MCSParameters=enforced", "needs MCSPlugin");
        expect_set(SLURM_OPTIONS_GLOBAL, "MCSPlugin=mcs/group", "needs MCSParameters");
        expect_set(SLURM_OPTIONS_GLOBAL, "SlurmSchedLogLevel=1", "needs SlurmSchedLogFile");
        expect_set(SLURM_OPTIONS_GLOBAL, "JobContainerType=tmpfs", "needs PrologFlags=Contain");
        expect_set(SLURM_OPTIONS_GLOBAL, "JobContainerType=tmpfs PrologFlags=Contain", NULL);
        expect_set(SLURM_OPTIONS_GLOBAL, "AccountingStorageTRES=gres/gpu", "needs AccountingStorageType");
        expect_set(SLURM_OPTIONS_PARTITION, "DefMemPerCPU=100 DefMemPerNode=1000", "exclude each other");
        expect_set(SLURM_OPTIONS_PARTITION, "MinNodes=4 MaxNodes=2", "above MaxNodes");
        expect_set(SLURM_OPTIONS_NODE, "RealMemory=1000 MemSpecLimit=1000", "below RealMemory");
        expect_set(SLURM_OPTIONS_NODE, "MemSpecLimit=1000", NULL); /* slurmd adds RealMemory */

        /* with a base that has proctrack/linuxproc (the charm's template has proctrack/cgroup,
         * which takes X11): X11 is refused */
        _cleanup_slurm_options_ struct slurm_options base = SLURM_OPTIONS_INIT, admin = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(slurm_options_parse("ProctrackType=proctrack/linuxproc SelectType=select/cons_tres "
                                             "SelectTypeParameters=CR_Core_Memory MaxNodeCount=1024",
                                 SLURM_OPTIONS_GLOBAL, &base, &err),
                -EINVAL); /* owned keys: build the base by hand */
        slurm_options_set(&base, "ProctrackType", "proctrack/linuxproc");
        slurm_options_set(&base, "SelectType", "select/cons_tres");
        assert_int_equal(slurm_options_parse("PrologFlags=X11", SLURM_OPTIONS_GLOBAL, &admin, &err), 0);
        assert_int_equal(slurm_options_check_set(SLURM_OPTIONS_GLOBAL, &admin, &base, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "proctrack/linuxproc"));
        strbuf_reset(&err);
        slurm_options_set(&base, "ProctrackType", "proctrack/cgroup"); /* the template's */
        assert_int_equal(slurm_options_check_set(SLURM_OPTIONS_GLOBAL, &admin, &base, &err), 0);
        slurm_options_set(&base, "ProctrackType", "proctrack/linuxproc");
        assert_int_equal(
                slurm_options_parse("SelectTypeParameters=CR_Memory", SLURM_OPTIONS_GLOBAL, &admin, &err),
                0);
        assert_int_equal(slurm_options_check_set(SLURM_OPTIONS_GLOBAL, &admin, &base, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "CR_CPU, CR_Core or CR_Socket"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_issue_examples),
                cmocka_unit_test(test_numbers),
                cmocka_unit_test(test_times),
                cmocka_unit_test(test_words),
                cmocka_unit_test(test_plugins),
                cmocka_unit_test(test_lists_and_specials),
                cmocka_unit_test(test_coverage),
                cmocka_unit_test(test_cross_keys),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
