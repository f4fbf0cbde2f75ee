/* SPDX-License-Identifier: Apache-2.0 */
/* Sub-options of slurm.conf's *Parameters keys and flag lists, per Slurm generation (see
 * subopts.h; the ranges are the readers' own checks, the source functions in the comments). */
#include "util/macro.h"
#include "slurmconf/subopts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slurmconf/timespec.h"
#include "util/alloc.h"

#include "util/banned.h"

enum kind {
        K_FLAG,     /* a word with no value */
        K_INT,      /* "name=N", N a decimal integer in [min, max] (nonzero: 0 refused) */
        K_ENUM,     /* "name=WORD", one of words (any case) */
        K_TIME,     /* "name=TIME", Slurm's time string (minutes, M:S, H:M:S, D-H, …) */
        K_PATH,     /* "name=/absolute/path" (up to the next comma) */
        K_TEXT,     /* "name=anything" (up to the next comma) */
        K_PORTS,    /* "name=MIN-MAX", 1 <= MIN <= MAX <= 65535 */
        K_PERCENT,  /* "name=X", a decimal number >= 0 (strtod) */
        K_NO_EFFECT /* read by no code this generation runs on Debian: refused with note */
};

#define V22 1u
#define V24 2u
#define VB (V22 | V24)

struct subopt {
        const char *name;
        enum kind kind;
        unsigned versions;
        bool exact_case; /* the reader matches it case-sensitively */
        bool nonzero;
        long long min, max;
        const char *const *words;
        const char *note; /* K_NO_EFFECT: why; otherwise what the value means */
};

#define FL(n, v) { .name = n, .kind = K_FLAG, .versions = v }
#define FLC(n, v) { .name = n, .kind = K_FLAG, .versions = v, .exact_case = true }
#define IN(n, v, lo, hi, what) { .name = n, .kind = K_INT, .versions = v, .min = lo, .max = hi, .note = what }
#define NZ(n, v, lo, hi, what) \
        { .name = n, .kind = K_INT, .versions = v, .nonzero = true, .min = lo, .max = hi, .note = what }
#define EN(n, v, ...) { .name = n, .kind = K_ENUM, .versions = v, .words = (const char *const[]){ __VA_ARGS__, NULL } }
#define NOEFF(n, v, why) { .name = n, .kind = K_NO_EFFECT, .versions = v, .note = why }
#define IMAX INT_MAX

/* SchedulerParameters: backfill.c _load_config(), job_scheduler.c _schedule(), job_mgr.c,
 * step_mgr.c, the select plugin, slurmd, srun/salloc. */
static const struct subopt sched_params[] = {
        NZ("bf_interval", VB, -1, 10800, "seconds, -1 turns backfill off"),
        IN("bf_max_time", VB, 1, 3600, "seconds"),
        IN("bf_window", VB, 1, 43200, "minutes"),
        IN("bf_max_job_test", VB, 1, 1000000, "jobs"),
        NOEFF("max_job_bf", VB, "is the old name of bf_max_job_test (fatal under sched/backfill without it)"),
        IN("bf_node_space_size", VB, 2, 2000000, "entries"),
        IN("bf_resolution", VB, 1, 3600, "seconds"),
        IN("bf_max_job_array_resv", VB, 0, 1000, "tasks"),
        IN("bf_max_job_part", VB, 0, IMAX, "jobs, 0 unlimited"),
        IN("bf_max_job_start", VB, 0, 10000, "jobs, 0 unlimited"),
        IN("bf_max_job_user", VB, 0, IMAX, "jobs, 0 unlimited"),
        IN("bf_max_job_user_part", VB, 0, IMAX, "jobs, 0 unlimited"),
        IN("bf_max_job_assoc", VB, 0, IMAX, "jobs, 0 unlimited"),
        IN("bf_job_part_count_reserve", VB, 0, 100000, "jobs"),
        IN("bf_min_age_reserve", VB, 0, 2592000, "seconds"),
        IN("bf_min_prio_reserve", VB, 1, 4294967295LL, "a priority"),
        IN("bf_yield_interval", VB, 1, 10000000, "microseconds"),
        IN("bf_yield_sleep", VB, 1, 10000000, "microseconds"),
        EN("bf_hetjob_prio", VB, "min", "avg", "max"),
        FL("bf_hetjob_immediate", VB),
        FL("bf_continue", VB),
        FL("bf_one_resv_per_job", VB),
        FL("bf_running_job_reserve", VB),
        FL("bf_licenses", VB),
        FL("bf_allow_magnetic_slot", V24),
        FL("bf_topopt_enable", V24),
        IN("bf_topopt_iterations", V24, 2, 30, "iterations"),
        FL("time_min_as_soft_limit", V24),
        IN("max_rpc_cnt", VB, 0, 1000, "RPCs, 0 off"),
        IN("max_rpc_count", VB, 0, 1000, "RPCs, 0 off"),
        FL("assoc_limit_stop", VB),
        IN("batch_sched_delay", VB, 0, IMAX, "seconds"),
        IN("bb_array_stage_cnt", VB, 1, IMAX, "tasks"),
        IN("build_queue_timeout", VB, 100, IMAX, "microseconds"),
        IN("correspond_after_task_cnt", VB, 10, IMAX, "tasks"),
        IN("default_queue_depth", VB, 0, IMAX, "jobs"),
        IN("partition_job_depth", VB, 0, IMAX, "jobs, 0 unlimited"),
        IN("max_sched_time", VB, 1, IMAX, "seconds (at most MessageTimeout/2)"),
        IN("sched_interval", VB, -1, IMAX, "seconds, -1 turns the main scheduler off"),
        IN("sched_min_interval", VB, 0, IMAX, "microseconds"),
        IN("sched_max_job_start", VB, 0, IMAX, "jobs, 0 unlimited"),
        FL("reduce_completing_frag", VB),
        FL("ignore_prefer_validation", VB),
        FL("ignore_constraint_validation", V24),
        FL("defer", VB),
        FL("defer_batch", V24),
        { .name = "delay_boot", .kind = K_TIME, .versions = VB },
        FL("allow_zero_lic", VB),
        IN("max_switch_wait", VB, 0, IMAX, "seconds"),
        IN("max_array_tasks", VB, 1, IMAX, "tasks"),
        IN("max_script_size", VB, 0, 536870912, "bytes, at most 512 MB (fatal above)"),
        IN("max_submit_line_size", V24, 0, 2097152, "bytes, at most 2 MB (fatal above)"),
        FL("extra_constraints", V24),
        FL("enable_job_state_cache", V24),
        FL("whole_hetjob", VB),
        FL("whole_pack", VB),
        FL("sbatch_wait_nodes", VB),
        FL("salloc_wait_nodes", VB),
        FL("enable_user_top", VB),
        FL("disable_job_shrink", VB),
        FL("permit_job_expansion", VB),
        FL("no_backup_scheduling", VB),
        FL("nohold_on_prolog_fail", VB),
        FL("no_env_cache", VB),
        FL("requeue_setup_env_fail", VB),
        FL("disable_hetjob_steps", VB),
        FL("disable_hetero_steps", VB),
        FL("enable_hetjob_steps", VB),
        IN("step_retry_count", VB, 1, IMAX, "retries"),
        IN("step_retry_time", VB, 1, IMAX, "seconds"),
        NOEFF("Ignore_NUMA", VB, "has no effect with hwloc 2, which Debian's Slurm uses"),
        FL("spec_cores_first", VB),
        FL("pack_serial_at_end", VB),
        FL("bf_busy_nodes", VB),
        IN("bf_window_linear", VB, 1, IMAX, "seconds"),
        FL("preempt_strict_order", VB),
        IN("preempt_reorder_count", VB, 0, IMAX, "jobs"),
        FL("preempt_youngest_first", VB),
        IN("interval", VB, 1, IMAX, "seconds (sched/builtin)"),
        IN("jobs_per_user_per_hour", VB, 0, IMAX, "jobs (job_submit/throttle)"),
        { 0 }
};

#define CONMGR_TIMEOUT(n)                                                                                   \
        NOEFF(n, V24, "is ignored by Slurm 24.11.0 to 24.11.5 (conmgr_set_params() compares the whole item, " \
                      "fixed in 24.11.6); MessageTimeout applies")

/* SlurmctldParameters: proc_req.c, power_save.c, node_mgr.c, slurmdbd_agent.c, conmgr.c, … */
static const struct subopt ctld_params[] = {
        FL("allow_user_triggers", VB),
        FL("disable_triggers", V24),
        FL("cloud_dns", VB),
        FL("cloud_reg_addrs", V22),
        FL("enable_configless", VB),
        FL("enable_rpc_queue", VB),
        FLC("enable_stepmgr", V24),
        FL("idle_on_node_suspend", VB),
        EN("max_dbd_msg_action", VB, "discard", "exit"),
        IN("max_powered_nodes", V24, 0, IMAX, "nodes"),
        FLC("no_quick_restart", V24),
        { .name = "node_reg_mem_percent", .kind = K_PERCENT, .versions = VB },
        IN("power_save_interval", VB, 0, 65535, "seconds"),
        IN("power_save_min_interval", VB, 0, 65535, "seconds"),
        FL("preempt_send_user_signal", VB),
        FL("reboot_from_controller", VB),
        FL("user_resv_delete", VB),
        FL("rl_enable", V24),
        IN("rl_table_size", V24, 1, IMAX, "entries"),
        IN("rl_bucket_size", V24, 1, IMAX, "tokens"),
        IN("rl_refill_rate", V24, 1, IMAX, "tokens"),
        IN("rl_refill_period", V24, 1, IMAX, "seconds"),
        IN("rl_log_freq", V24, 0, IMAX, "a count"),
        IN("validate_nodeaddr_threads", V24, 1, 64, "threads"),
        IN("conmgr_threads", V24, 2, 1024, "threads (fatal outside)"),
        IN("conmgr_max_connections", V24, 1, IMAX, "connections (fatal below 1)"),
        FL("conmgr_use_poll", V24),
        CONMGR_TIMEOUT("conmgr_connect_timeout"),
        CONMGR_TIMEOUT("conmgr_read_timeout"),
        CONMGR_TIMEOUT("conmgr_write_timeout"),
        CONMGR_TIMEOUT("conmgr_wait_write_delay"),
        { 0 }
};

/* SlurmdParameters: read_config.c, xcpuinfo.c, slurmd req.c, conmgr.c. */
static const struct subopt slurmd_params[] = {
        FL("config_overrides", VB),
        FL("config_override", VB),
        FL("l3cache_as_socket", VB),
        FL("numa_node_as_socket", VB),
        FL("shutdown_on_reboot", VB),
        FL("allow_ecores", V24),
        FL("contain_spank", V24),
        IN("conmgr_threads", V24, 2, 1024, "threads (fatal outside)"),
        IN("conmgr_max_connections", V24, 1, IMAX, "connections (fatal below 1)"),
        FL("conmgr_use_poll", V24),
        CONMGR_TIMEOUT("conmgr_connect_timeout"),
        CONMGR_TIMEOUT("conmgr_read_timeout"),
        CONMGR_TIMEOUT("conmgr_write_timeout"),
        CONMGR_TIMEOUT("conmgr_wait_write_delay"),
        { 0 }
};

/* CommunicationParameters: read_config.c, slurm_protocol_api.c, slurmd.c. */
static const struct subopt comm_params[] = {
        FL("block_null_hash", VB),
        FL("block_zero_hash", VB),
        NOEFF("CheckGhalQuiesce", VB, "has no effect outside Cray systems"),
        FL("DisableIPv4", VB),
        FL("EnableIPv6", VB),
        IN("keepaliveinterval", VB, 0, IMAX, "seconds"),
        IN("keepaliveprobes", VB, 0, IMAX, "probes"),
        IN("keepalivetime", VB, 0, IMAX, "seconds"),
        FL("NoAddrCache", V22),
        FL("NoCtldInAddrAny", VB),
        FL("NoInAddrAny", VB),
        IN("getnameinfo_cache_timeout", V24, 0, IMAX, "seconds, 0 no cache"),
        { 0 }
};

/* LaunchParameters: read_config.c, slurm_cred.c/cred.c, srun, salloc, slurmstepd. */
static const struct subopt launch_params[] = {
        FL("batch_step_set_cpu_freq", VB),
        NOEFF("cray_net_exclusive", VB, "has no effect outside Cray systems"),
        NOEFF("lustre_no_flush", VB, "has no effect outside Cray systems"),
        FL("enable_nss_slurm", VB),
        FL("disable_send_gids", VB),
        FLC("mem_sort", VB),
        FL("mpir_use_nodeaddr", VB),
        FLC("slurmstepd_memlock", VB),
        FLC("slurmstepd_memlock_all", VB),
        FLC("test_exec", VB),
        FLC("use_interactive_step", VB),
        FL("ulimit_pam_adopt", V24),
        { 0 }
};

/* JobAcctGatherParams: read_config.c, common_jag.c. */
static const struct subopt jag_params[] = {
        FL("OverMemoryKill", VB),
        FL("NoShared", VB),
        FL("UsePss", VB),
        FL("DisableGPUAcct", V24),
        { 0 }
};

static const struct subopt depend_params[] = {
        FL("disable_remote_singleton", VB),
        FL("kill_invalid_depend", VB),
        IN("max_depend_depth", VB, 0, IMAX, "levels"),
        { 0 }
};

static const struct subopt scron_params[] = {
        FL("enable", VB),
        FL("explicit_scancel", V24),
        { 0 }
};

/* BcastParameters (and its old name SbcastParameters): sbcast, srun --bcast; 24.11 matches
 * DestDir= and Compression= case-sensitively */
static const struct subopt bcast_params[] = {
        { .name = "DestDir", .kind = K_PATH, .versions = VB, .exact_case = true },
        { .name = "Compression",
                .kind = K_ENUM,
                .versions = VB,
                .exact_case = true,
                .words = (const char *const[]){ "lz4", "none", NULL } },
        FL("send_libs", VB),
        { 0 }
};

static const struct subopt mpi_params[] = {
        { .name = "ports", .kind = K_PORTS, .versions = VB, .exact_case = true },
        FLC("disable_slurm_hydra_bootstrap", V24),
        { 0 }
};

static const struct subopt x11_params[] = {
        FL("home_xauthority", VB),
        { 0 }
};

static const struct subopt topo_params[] = {
        FL("Dragonfly", VB),
        FL("TopoOptional", VB),
        FL("NoInAddrAny", VB),
        FL("NoCtldInAddrAny", VB),
        FL("RouteTree", V24),
        FL("RoutePart", V24),
        FL("SwitchAsNodeRank", V24),
        IN("TopoMaxSizeUnroll", V24, 0, IMAX, "nodes (topology/block)"),
        { 0 }
};

/* AccountingStorageParameters: the mysql client's SSL options (mysql_common.c), 24.11's
 * max_step_records (accounting_storage.c) */
static const struct subopt acct_params[] = {
        { .name = "SSL_CERT", .kind = K_PATH, .versions = VB },
        { .name = "SSL_CA", .kind = K_PATH, .versions = VB },
        { .name = "SSL_CAPATH", .kind = K_PATH, .versions = VB },
        { .name = "SSL_KEY", .kind = K_PATH, .versions = VB },
        { .name = "SSL_CIPHER", .kind = K_TEXT, .versions = VB },
        IN("max_step_records", V24, 0, IMAX, "steps"),
        { 0 }
};

/* DebugFlags: debug_str2flags() (exact tokens, any case; an unknown one is fatal) */
static const struct subopt debug_flags[] = {
        FL("Accrue", VB), FL("Agent", VB), FL("Backfill", VB), FL("BackfillMap", VB),
        FL("BurstBuffer", VB), FL("cgroup", VB), FL("CPU_Bind", VB), FL("CpuFrequency", VB),
        FL("Data", VB), FL("DB_Archive", VB), FL("DB_Assoc", VB), FL("DB_Event", VB),
        FL("DB_Job", VB), FL("DB_QOS", VB), FL("DB_Query", VB), FL("DB_Reservation", VB),
        FL("DB_Resource", VB), FL("DB_Step", VB), FL("DB_TRES", VB), FL("DB_Usage", VB),
        FL("DB_WCKey", VB), FL("Dependency", VB), FL("Elasticsearch", VB), FL("Energy", VB),
        FL("Federation", VB), FL("FrontEnd", VB), FL("Gang", VB), FL("Gres", VB), FL("Hetjob", VB),
        FL("Interconnect", VB), FL("JobAccountGather", VB), FL("JAG", VB), FL("JobContainer", VB),
        FL("License", VB), FL("MPI", VB), FL("Network", VB), FL("Net", VB), FL("NetworkRaw", VB),
        FL("NetRaw", VB), FL("NO_CONF_HASH", VB), FL("NodeFeatures", VB), FL("Power", VB),
        FL("PowerSave", VB), FL("Priority", VB), FL("Profile", VB), FL("Protocol", VB),
        FL("Reservation", VB), FL("Route", VB), FL("Script", VB), FL("SelectType", VB),
        FL("Steps", VB), FL("Switch", VB), FL("TraceJobs", VB), FL("Trigger", VB),
        FL("Triggers", VB), FL("WorkQueue", VB), FL("WorkQ", VB),
        NOEFF("Task", VB, "was removed from Slurm (use CPU_Bind)"),
        FL("ExtSensors", V22), FL("TimeCray", V22),
        FL("AuditRPCs", V24), FL("ConMgr", V24), FL("DBD_Agent", V24), FL("GLOB_SILENCE", V24),
        FL("JobComp", V24), FL("Sack", V24), FL("TLS", V24),
        { 0 }
};

/* PrologFlags: prolog_str2flags() (exact tokens, any case; an unknown one is fatal) */
static const struct subopt prolog_flags[] = {
        FL("Alloc", VB),
        FL("Contain", VB),
        FL("DeferBatch", VB),
        FL("NoHold", VB),
        FL("Serial", VB),
        FL("X11", VB),
        FL("ForceRequeueOnFail", V24),
        FL("RunInJob", V24),
        { 0 }
};

struct key_table {
        const char *key;
        const struct subopt *opts;
        bool fatal; /* an unknown item makes every process exit, rather than being ignored */
};

static const struct key_table tables[] = {
        { "SchedulerParameters", sched_params, false },
        { "SlurmctldParameters", ctld_params, false },
        { "SlurmdParameters", slurmd_params, false },
        { "CommunicationParameters", comm_params, false },
        { "LaunchParameters", launch_params, false },
        { "JobAcctGatherParams", jag_params, false },
        { "DependencyParameters", depend_params, false },
        { "ScronParameters", scron_params, false },
        { "BcastParameters", bcast_params, false },
        { "SbcastParameters", bcast_params, false },
        { "MpiParams", mpi_params, false },
        { "X11Parameters", x11_params, false },
        { "TopologyParam", topo_params, false },
        { "AccountingStorageParameters", acct_params, false },
        { "DebugFlags", debug_flags, true },
        { "PrologFlags", prolog_flags, true },
};

static const struct key_table *table_of(const char *key) {
        for (size_t i = 0; key && i < ELEMENTSOF(tables); i++)
                if (strcaseeq(tables[i].key, key))
                        return &tables[i];
        return NULL;
}

bool slurmconf_subopts_known_key(const char *key) {
        return table_of(key) != NULL;
}

/* 22.05 and everything before 24.11 -> V22; 24.11 and later -> V24. */
static unsigned generation_of(const char *release) {
        unsigned major = 0, minor = 0;
        if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
                return V22;
        return major * 100 + minor >= 2411 ? V24 : V22;
}

static const char *release_of(unsigned gen) {
        return gen == V24 ? "24.11" : "22.05";
}

/* The row named name (n bytes): *ret_case_miss set when it matches only ignoring case. */
static const struct subopt *find_opt(const struct subopt *opts, const char *name, size_t n, bool *ret_case_miss) {
        *ret_case_miss = false;
        for (const struct subopt *o = opts; o->name; o++) {
                if (strlen(o->name) != n || strncasecmp(o->name, name, n) != 0)
                        continue;
                if (o->exact_case && strncmp(o->name, name, n) != 0)
                        *ret_case_miss = true;
                return o;
        }
        return NULL;
}

/* A decimal integer filling [s, s+n), an optional '-' first. */
static bool parse_int(const char *s, size_t n, long long *ret) {
        if (n == 0 || n > 20)
                return false;
        char buf[24];
        memcpy(buf, s, n);
        buf[n] = '\0';
        size_t i = buf[0] == '-' ? 1 : 0;
        if (!buf[i])
                return false;
        for (size_t k = i; buf[k]; k++)
                if (buf[k] < '0' || buf[k] > '9')
                        return false;
        errno = 0;
        char *end = NULL;
        long long v = strtoll(buf, &end, 10);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

/* What atoi() makes of the value (for the message): its leading sign and digits, 0 when none. */
static int atoi_prefix(const char *v, size_t n) {
        size_t i = 0;
        bool neg = false;
        if (i < n && (v[i] == '-' || v[i] == '+'))
                neg = v[i++] == '-';
        long long x = 0;
        for (; i < n && v[i] >= '0' && v[i] <= '9' && x < INT_MAX; i++)
                x = x * 10 + (v[i] - '0');
        if (x > INT_MAX)
                x = INT_MAX;
        return (int) (neg ? -x : x);
}

static int bad_item(struct strbuf *err, const char *item, size_t n, const char *fmt, ...)
        __attribute__((__format__(printf, 4, 5)));
static int bad_item(struct strbuf *err, const char *item, size_t n, const char *fmt, ...) {
        if (err) {
                strbuf_addf(err, "\"%.*s\" ", (int) n, item);
                va_list ap;
                va_start(ap, fmt);
                strbuf_vaddf(err, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

static int check_value(const struct subopt *o, const char *item, size_t n, const char *v, size_t vn, unsigned gen,
        struct strbuf *err) {
        long long x;
        switch (o->kind) {
        case K_INT:
                if (!parse_int(v, vn, &x))
                        return bad_item(err, item, n, "is not a whole number (%s: %lld to %lld; Slurm reads \"%.*s\" as %d)",
                                o->note ? o->note : "a count", o->min, o->max, (int) vn, v, atoi_prefix(v, vn));
                if (x < o->min || x > o->max || (o->nonzero && x == 0))
                        return bad_item(err, item, n, "is out of range (%s: %lld to %lld%s; Slurm %s would use its default)",
                                o->note ? o->note : "a count", o->min, o->max, o->nonzero ? ", not 0" : "",
                                release_of(gen));
                return 0;
        case K_ENUM:
                for (size_t i = 0; o->words[i]; i++)
                        if (strlen(o->words[i]) == vn &&
                                (o->exact_case ? strncmp(o->words[i], v, vn) : strncasecmp(o->words[i], v, vn)) == 0)
                                return 0;
                {
                        _cleanup_strbuf_ struct strbuf w = STRBUF_INIT;
                        for (size_t i = 0; o->words[i]; i++)
                                strbuf_addf(&w, "%s%s", i ? ", " : "", o->words[i]);
                        return bad_item(err, item, n, "is not one of %s", w.buf);
                }
        case K_TIME: {
                _cleanup_free_ char *t = xstrndup(v, vn);
                if (!slurmconf_time_spec_ok(t))
                        return bad_item(err, item, n,
                                "is not a Slurm time (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or INFINITE)");
                return 0;
        }
        case K_PATH:
                if (vn == 0 || v[0] != '/')
                        return bad_item(err, item, n, "is not an absolute path");
                return 0;
        case K_TEXT:
                if (vn == 0)
                        return bad_item(err, item, n, "has an empty value");
                return 0;
        case K_PORTS: {
                const char *dash = memchr(v, '-', vn);
                long long lo, hi;
                if (!dash || !parse_int(v, (size_t) (dash - v), &lo) ||
                        !parse_int(dash + 1, vn - (size_t) (dash - v) - 1, &hi) || lo < 1 || hi < lo || hi > 65535)
                        return bad_item(err, item, n, "is not a port range MIN-MAX (1 <= MIN <= MAX <= 65535)");
                return 0;
        }
        case K_PERCENT: {
                char buf[32];
                if (vn == 0 || vn >= sizeof buf)
                        return bad_item(err, item, n, "is not a percentage");
                memcpy(buf, v, vn);
                buf[vn] = '\0';
                char *end = NULL;
                errno = 0;
                double d = strtod(buf, &end);
                if (errno || *end || end == buf || !(d >= 0.0) || d > 1000000.0)
                        return bad_item(err, item, n, "is not a percentage (a number >= 0)");
                return 0;
        }
        case K_FLAG:
        case K_NO_EFFECT:
                break;
        }
        return 0;
}

int slurmconf_subopts_check(const char *key, const char *value, const char *release, struct strbuf *err) {
        const struct key_table *t = table_of(key);
        if (!t || !value)
                return 0;
        const unsigned gen = generation_of(release);
        const char *rel = release_of(gen);
        const char *p = value;
        size_t n_items = 0;
        while (*p) {
                size_t n = strcspn(p, ",");
                const char *item = p;
                p += n;
                if (*p == ',')
                        p++;
                if (n == 0)
                        continue; /* ",," : Slurm's readers skip it too */
                n_items++;
                const char *eq = memchr(item, '=', n);
                size_t name_n = eq ? (size_t) (eq - item) : n;
                bool case_miss;
                const struct subopt *o = find_opt(t->opts, item, name_n, &case_miss);
                if (!o)
                        return bad_item(err, item, n, "is not a %s item Slurm %s knows (%s)", key, rel,
                                t->fatal ? "every Slurm program would exit on it" : "Slurm would ignore it silently");
                if (!(o->versions & gen))
                        return bad_item(err, item, n, "is not read by Slurm %s (only by %s)%s", rel,
                                release_of(o->versions & ~gen),
                                t->fatal ? ": every Slurm program would exit on it" : "");
                if (o->kind == K_NO_EFFECT)
                        return bad_item(err, item, n, "%s", o->note);
                if (case_miss)
                        return bad_item(err, item, n, "is spelled %s (Slurm %s matches it case-sensitively)", o->name, rel);
                if (o->kind == K_FLAG) {
                        if (eq)
                                return bad_item(err, item, n, "takes no value");
                } else {
                        if (!eq)
                                return bad_item(err, item, n, "needs a value (%s=…)", o->name);
                        int r = check_value(o, item, n, eq + 1, n - name_n - 1, gen, err);
                        if (r < 0)
                                return r;
                }
                /* the same item twice: the readers take the first and never see the second */
                for (const char *q = value; q < item;) {
                        size_t m = strcspn(q, ",");
                        const char *qeq = memchr(q, '=', m);
                        size_t qn = qeq ? (size_t) (qeq - q) : m;
                        if (qn == name_n && strncasecmp(q, item, name_n) == 0)
                                return bad_item(err, item, n, "is given twice (Slurm reads only the first)");
                        q += m;
                        if (*q == ',')
                                q++;
                }
        }
        /* 22.05 reads NoAddrCache only when it is the whole value (its search has its
         * arguments the wrong way round) */
        if (gen == V22 && strcaseeq(key, "CommunicationParameters") && n_items > 1) {
                const char *w = strcasestr(value, "NoAddrCache");
                if (w && (w == value || w[-1] == ',') && (w[11] == ',' || w[11] == '\0'))
                        return bad_item(err, "NoAddrCache", 11,
                                "works in Slurm 22.05 only as the whole value (with other items it is ignored)");
        }
        return 0;
}
