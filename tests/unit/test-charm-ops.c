/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/ops' pure parts: every action's parameter checks (good and bad, each
 * message), ISO-8601 start times, result keys (Slurm's ~200 configuration keys in kebab case,
 * all valid and distinct; node and job fields), node name resolution against a node table with
 * NodeSets (applications refused unless allowed, "ALL" refused, missing names), and the
 * application features node-update keeps. The actions on a real cluster are in
 * tests/cluster/charm-ops.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "util/macro.h"
#include "charm/slurmctld/ops.h"
#include "charm/slurmctld/ops-internal.h"
#include "slurm/nodestate.h"
#include "util/alloc.h"

#include <slurm/slurm.h>

#include "util/banned.h"

static cJSON *J(const char *json) {
        cJSON *j = cJSON_Parse(json);
        if (!j)
                fail_msg("bad test JSON: %s", json);
        return j;
}

/* parse_node(action, json, want_message): want_message NULL for success. */
static void parse_node(
        enum ops_node_action a, const char *json, const char *want, struct ops_node_req *ret) {
        _cleanup_juju_cjson_ cJSON *p = J(json);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct ops_node_req q = { .names = STRV_INIT };
        int r = ops_node_req_parse(a, p, 1700000000, &q, &err);
        if (!want) {
                if (r < 0)
                        fail_msg("%s %s: %s", ops_node_action_name(a), json, err.buf);
                if (ret)
                        *ret = q;
                else
                        ops_node_req_done(&q);
                return;
        }
        if (r >= 0)
                fail_msg("%s %s: accepted", ops_node_action_name(a), json);
        if (!startswith(err.buf, want))
                fail_msg(
                        "%s %s: message \"%s\", want \"%s…\"", ops_node_action_name(a), json, err.buf, want);
        assert_int_equal(q.names.n, 0);
}

static void test_node_params(void **state) {
        struct ops_node_req q;

        parse_node(OPS_NODE_DRAIN, "{\"nodes\":\"cpu-[0-2],cpu-1,gpu-0\",\"reason\":\"PSU\"}", NULL, &q);
        assert_int_equal(q.names.n, 4); /* duplicates dropped, order kept */
        assert_string_equal(q.names.v[3], "gpu-0");
        assert_string_equal(q.reason, "PSU");
        assert_false(q.allow_application);
        ops_node_req_done(&q);
        parse_node(OPS_NODE_DOWN, "{\"nodes\":\"cpu-0\",\"allow-application\":true}", NULL, &q);
        assert_string_equal(q.reason, "node-down action"); /* the default names the action */
        assert_true(q.allow_application);
        ops_node_req_done(&q);
        parse_node(OPS_NODE_GET, "{\"nodes\":\"cpu\"}", NULL, NULL);
        parse_node(OPS_NODE_RESUME, "{\"nodes\":\"a.b_c-1\"}", NULL, NULL);

        parse_node(OPS_NODE_GET, "{}", "nodes: give a node name", NULL);
        parse_node(OPS_NODE_GET, "{\"nodes\":\"\"}", "nodes: give a node name", NULL);
        parse_node(OPS_NODE_GET, "{\"nodes\":5}", "nodes: expected a string", NULL);
        parse_node(OPS_NODE_GET, "{\"nodes\":\"cpu-[0-\"}",
                "nodes: \"cpu-[0-\" is not a hostlist expression", NULL);
        parse_node(
                OPS_NODE_GET, "{\"nodes\":\"cpu-[3-1]\"}", "nodes: \"cpu-[3-1]\" is not a hostlist", NULL);
        parse_node(OPS_NODE_GET, "{\"nodes\":\"n[0-99999]\"}", "nodes: \"n[0-99999]\" names more than 4096",
                NULL);
        parse_node(OPS_NODE_GET, "{\"nodes\":\"cpu-0 cpu-1\"}", "nodes: a hostlist expression has no spaces",
                NULL);
        parse_node(OPS_NODE_GET, "{\"nodes\":\"cpu/0\"}", "nodes: \"cpu/0\" is not a node name", NULL);
        parse_node(OPS_NODE_GET, "{\"nodes\":\"cpu-0\",\"reason\":\"x\"}",
                "unknown parameter \"reason\" (known: nodes)", NULL);
        parse_node(OPS_NODE_DRAIN, "{\"nodes\":\"cpu-0\",\"reason\":\"\"}",
                "reason: give 1 to 128 characters", NULL);
        parse_node(OPS_NODE_DRAIN, "{\"nodes\":\"cpu-0\",\"reason\":\"a\\u0007b\"}",
                "reason: only printable ASCII", NULL);
        parse_node(OPS_NODE_DRAIN, "{\"nodes\":\"cpu-0\",\"reason\":7}", "reason: expected a string", NULL);
        parse_node(OPS_NODE_DRAIN, "{\"nodes\":\"cpu-0\",\"allow-application\":\"yes\"}",
                "allow-application: expected true or false", NULL);
        parse_node(OPS_NODE_RESUME, "{\"nodes\":\"cpu-0\",\"reason\":\"x\"}", "unknown parameter \"reason\"",
                NULL);
        parse_node(OPS_NODE_DRAIN, "[1]", "parameters: not an object", NULL);
}

static void test_update_params(void **state) {
        struct ops_node_req q;
        parse_node(OPS_NODE_UPDATE,
                "{\"nodes\":\"cpu-0\",\"weight\":7,\"features\":\"big,ssd\",\"gres\":\"gpu:2\","
                "\"comment\":\"\",\"active-features\":\"big\"}",
                NULL, &q);
        assert_true(q.has_weight);
        assert_int_equal(q.weight, 7);
        assert_string_equal(q.features, "big,ssd");
        assert_string_equal(q.features_active, "big");
        assert_string_equal(q.gres, "gpu:2");
        assert_string_equal(q.comment, "");
        ops_node_req_done(&q);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"features\":\"\"}", NULL, &q);
        assert_string_equal(q.features, "");
        assert_false(q.has_weight);
        assert_null(q.gres);
        ops_node_req_done(&q);

        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\"}", "give at least one of weight, features", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"weight\":0}",
                "weight: expected a whole number from 1 to 4294967293", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"weight\":1.5}",
                "weight: expected a whole number", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"weight\":4294967295}",
                "weight: expected a whole number", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"weight\":\"5\"}",
                "weight: expected a whole number", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"weight\":1e300}",
                "weight: expected a whole number", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"weight\":-1e300}",
                "weight: expected a whole number", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"features\":\"a b\"}",
                "features: Features: \"a b\" is not a feature name", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"active-features\":\"x=1\"}",
                "active-features: Features: ", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"gres\":\"gpu::2\"}", "gres: Gres: \"gpu::2\"",
                NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"comment\":\"a\\nb\"}",
                "comment: give 0 to 256 printable", NULL);
        parse_node(OPS_NODE_UPDATE, "{\"nodes\":\"cpu-0\",\"reason\":\"x\",\"weight\":1}",
                "unknown parameter \"reason\"", NULL);
}

static void test_reserve_params(void **state) {
        struct ops_node_req q;
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\"}", NULL, &q);
        assert_string_equal(q.resv_name, OPS_RESV_DEFAULT_NAME);
        assert_false(q.has_start || q.has_duration || q.has_flags);
        assert_int_equal(q.start, 0);
        assert_int_equal(q.duration_min, OPS_RESV_DEFAULT_MINUTES); /* always sent */
        assert_true(q.flags == (RESERVE_FLAG_MAINT | RESERVE_FLAG_IGN_JOBS | RESERVE_FLAG_OVERLAP));
        assert_null(q.users);
        ops_node_req_done(&q);
        parse_node(OPS_NODE_RESERVE,
                "{\"nodes\":\"cpu-0\",\"name\":\"fw-upgrade\",\"start\":\"now\",\"duration\":90,"
                "\"users\":\"root,alice,root\",\"flags\":\"maint,daily\"}",
                NULL, &q);
        assert_true(q.has_start && q.has_duration && q.has_flags);
        assert_int_equal(q.start, 0);
        assert_int_equal(q.duration_min, 90);
        assert_string_equal(q.users, "root,alice");
        assert_true(q.flags == (RESERVE_FLAG_MAINT | RESERVE_FLAG_DAILY));
        ops_node_req_done(&q);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"start\":\"2030-01-02T03:04:05Z\"}", NULL, &q);
        assert_int_equal(q.start, 1893553445);
        ops_node_req_done(&q);
        parse_node(OPS_NODE_UNRESERVE, "{\"nodes\":\"cpu-0\",\"name\":\"x\"}", NULL, &q);
        assert_string_equal(q.resv_name, "x");
        ops_node_req_done(&q);

        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"duration\":0}",
                "duration: expected a whole number from 1 to 527040", NULL);
        parse_node(
                OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"duration\":527041}", "duration: expected", NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"start\":\"tomorrow\"}",
                "start: \"tomorrow\" is not \"now\" or an ISO-8601", NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"start\":\"2001-01-01\"}",
                "start: \"2001-01-01\" is in the past", NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"flags\":\"\"}", "flags: give at least one flag",
                NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"flags\":\"MAINT,BOGUS\"}",
                "flags: unknown reservation flag \"BOGUS\"", NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"flags\":\"PART_NODES\"}",
                "flags: \"PART_NODES\" is not offered here", NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"users\":\"a b\"}",
                "users: \"a b\" is not a name", NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"users\":\"a,,b\"}", "users: \"\" is not a name",
                NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"name\":\"\"}",
                "name: \"\" is not a reservation name", NULL);
        parse_node(OPS_NODE_RESERVE, "{\"nodes\":\"cpu-0\",\"name\":\"a/b\"}",
                "name: \"a/b\" is not a reservation name", NULL);
        parse_node(OPS_NODE_UNRESERVE, "{\"nodes\":\"cpu-0\",\"duration\":5}",
                "unknown parameter \"duration\"", NULL);
}

static void test_time(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
        const time_t now = 1893456000; /* 2030-01-01T00:00:00Z */
        time_t t = 5;
        assert_int_equal(ops_time_parse("now", now, &t, &err), 0);
        assert_int_equal(t, 0);
        assert_int_equal(ops_time_parse("NOW", now, &t, &err), 0);
        assert_int_equal(ops_time_parse("2030-01-02T03:04:05Z", now, &t, &err), 0);
        assert_int_equal(t, 1893553445);
        assert_int_equal(ops_time_parse("2030-01-02T05:04:05+02:00", now, &t, &err), 0);
        assert_int_equal(t, 1893553445);
        assert_int_equal(ops_time_parse("2030-01-02T01:04:05-0200", now, &t, &err), 0);
        assert_int_equal(t, 1893553445);
        assert_int_equal(ops_time_parse("2030-01-02 03:04Z", now, &t, &err), 0);
        assert_int_equal(t, 1893553440);
        assert_int_equal(ops_time_parse("2030-01-02Z", now, &t, &err), 0);
        assert_int_equal(t, 1893542400);
        /* no zone: local time, as Slurm reads it; round trip through the formatter */
        assert_int_equal(ops_time_parse("2030-06-15T12:30:00", now, &t, &err), 0);
        ops_time_format(t, &out);
        assert_string_equal(out.buf, "2030-06-15T12:30:00");
        /* a minute of slack for "now-ish" starts, then the past is refused */
        assert_int_equal(ops_time_parse("2029-12-31T23:59:30Z", now, &t, &err), 0);
        const struct {
                const char *in, *msg;
        } bad[] = {
                { "2029-12-31T23:58:00Z", "start: \"2029-12-31T23:58:00Z\" is in the past" },
                { "2041-01-01T00:00Z", "start: \"2041-01-01T00:00Z\" is more than 10 years ahead" },
                { "2030-02-30T00:00", "start: \"2030-02-30T00:00\" is not" },
                { "2030-13-01", "start: \"2030-13-01\" is not" },
                { "2030-01-01T24:00", "start: \"2030-01-01T24:00\" is not" },
                { "2030-01-01T10:60", "start: \"2030-01-01T10:60\" is not" },
                { "2030-01-01T10", "start: \"2030-01-01T10\" is not" },
                { "2030-01-01T10:00:00+25:00", "start: " },
                { "2030-1-1", "start: " },
                { "20300101", "start: " },
                { "2030-01-01T10:00:00 ", "start: " },
                { "", "start: \"\" is not" },
                { "+5min", "start: " },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                t = 5;
                assert_int_equal(ops_time_parse(bad[i].in, now, &t, &err), -EINVAL);
                assert_int_equal(t, 5);
                if (!startswith(err.buf, bad[i].msg))
                        fail_msg("\"%s\": \"%s\", want \"%s…\"", bad[i].in, err.buf, bad[i].msg);
        }
}

/* Every key name slurm_ctl_conf_2_key_pairs() of 22.05 emits (src/api/config_info.c). */
static const char *const slurm_keys[] = {
        "AccountingStorageBackupHost",
        "AccountingStorageEnforce",
        "AccountingStorageExternalHost",
        "AccountingStorageHost",
        "AccountingStorageParameters",
        "AccountingStoragePort",
        "AccountingStorageTRES",
        "AccountingStorageType",
        "AccountingStorageUser",
        "AccountingStoreFlags",
        "AcctGatherEnergyType",
        "AcctGatherFilesystemType",
        "AcctGatherInterconnectType",
        "AcctGatherNodeFreq",
        "AcctGatherProfileType",
        "AllowSpecResourcesUsage",
        "AuthAltParameters",
        "AuthAltTypes",
        "AuthInfo",
        "AuthType",
        "BOOT_TIME",
        "BatchStartTimeout",
        "BcastExclude",
        "BcastParameters",
        "BurstBufferType",
        "CliFilterPlugins",
        "ClusterName",
        "CommunicationParameters",
        "CompleteWait",
        "CoreSpecPlugin",
        "CpuFreqDef",
        "CpuFreqGovernors",
        "CredType",
        "DebugFlags",
        "DefMemPerCPU",
        "DefMemPerNode",
        "DependencyParameters",
        "DisableRootJobs",
        "EioTimeout",
        "EnforcePartLimits",
        "Epilog",
        "EpilogMsgTime",
        "EpilogSlurmctld",
        "ExtSensorsFreq",
        "ExtSensorsType",
        "FairShareDampeningFactor",
        "FederationParameters",
        "FirstJobId",
        "GetEnvTimeout",
        "GpuFreqDef",
        "GresTypes",
        "GroupUpdateForce",
        "GroupUpdateTime",
        "HASH_VAL",
        "HealthCheckInterval",
        "HealthCheckNodeState",
        "HealthCheckProgram",
        "InactiveLimit",
        "InteractiveStepOptions",
        "JobAcctGatherFrequency",
        "JobAcctGatherParams",
        "JobAcctGatherType",
        "JobCompHost",
        "JobCompLoc",
        "JobCompPort",
        "JobCompType",
        "JobCompUser",
        "JobContainerType",
        "JobCredentialPrivateKey",
        "JobCredentialPublicCertificate",
        "JobDefaults",
        "JobFileAppend",
        "JobRequeue",
        "JobSubmitPlugins",
        "KillOnBadExit",
        "KillWait",
        "LaunchParameters",
        "LaunchType",
        "Licenses",
        "LogTimeFormat",
        "MCSParameters",
        "MCSPlugin",
        "MULTIPLE_SLURMD",
        "MailDomain",
        "MailProg",
        "MaxArraySize",
        "MaxDBDMsgs",
        "MaxJobCount",
        "MaxJobId",
        "MaxMemPerCPU",
        "MaxMemPerNode",
        "MaxNodeCount",
        "MaxStepCount",
        "MaxTasksPerNode",
        "MessageTimeout",
        "MinJobAge",
        "MpiDefault",
        "MpiParams",
        "NEXT_JOB_ID",
        "NodeFeaturesPlugins",
        "OverTimeLimit",
        "PlugStackConfig",
        "PluginDir",
        "PowerParameters",
        "PowerPlugin",
        "PrEpParameters",
        "PrEpPlugins",
        "PreemptExemptTime",
        "PreemptMode",
        "PreemptType",
        "PriorityCalcPeriod",
        "PriorityDecayHalfLife",
        "PriorityFavorSmall",
        "PriorityFlags",
        "PriorityMaxAge",
        "PriorityParameters",
        "PrioritySiteFactorParameters",
        "PrioritySiteFactorPlugin",
        "PriorityType",
        "PriorityUsageResetPeriod",
        "PriorityWeightAge",
        "PriorityWeightAssoc",
        "PriorityWeightFairShare",
        "PriorityWeightJobSize",
        "PriorityWeightPartition",
        "PriorityWeightQOS",
        "PriorityWeightTRES",
        "PrivateData",
        "ProctrackType",
        "Prolog",
        "PrologEpilogTimeout",
        "PrologFlags",
        "PrologSlurmctld",
        "PropagatePrioProcess",
        "PropagateResourceLimits",
        "PropagateResourceLimitsExcept",
        "RebootProgram",
        "ReconfigFlags",
        "RequeueExit",
        "RequeueExitHold",
        "ResumeFailProgram",
        "ResumeProgram",
        "ResumeRate",
        "ResumeTimeout",
        "ResvEpilog",
        "ResvOverRun",
        "ResvProlog",
        "ReturnToService",
        "RoutePlugin",
        "SLURM_CONF",
        "SLURM_VERSION",
        "SchedulerParameters",
        "SchedulerTimeSlice",
        "SchedulerType",
        "ScronParameters",
        "SelectType",
        "SelectTypeParameters",
        "SlurmSchedLogFile",
        "SlurmSchedLogLevel",
        "SlurmUser",
        "SlurmctldAddr",
        "SlurmctldDebug",
        "SlurmctldLogFile",
        "SlurmctldParameters",
        "SlurmctldPidFile",
        "SlurmctldPlugstack",
        "SlurmctldPort",
        "SlurmctldPrimaryOffProg",
        "SlurmctldPrimaryOnProg",
        "SlurmctldSyslogDebug",
        "SlurmctldTimeout",
        "SlurmdDebug",
        "SlurmdLogFile",
        "SlurmdParameters",
        "SlurmdPidFile",
        "SlurmdPort",
        "SlurmdSpoolDir",
        "SlurmdSyslogDebug",
        "SlurmdTimeout",
        "SlurmdUser",
        "SrunEpilog",
        "SrunPortRange",
        "SrunProlog",
        "StateSaveLocation",
        "SuspendExcNodes",
        "SuspendExcParts",
        "SuspendProgram",
        "SuspendRate",
        "SuspendTime",
        "SuspendTimeout",
        "SwitchParameters",
        "SwitchType",
        "TCPTimeout",
        "TaskEpilog",
        "TaskPlugin",
        "TaskPluginParam",
        "TaskProlog",
        "TmpFS",
        "TopologyParam",
        "TopologyPlugin",
        "TrackWCKey",
        "TreeWidth",
        "UnkillableStepProgram",
        "UnkillableStepTimeout",
        "UsePam",
        "VSizeFactor",
        "WaitTime",
        "X11Parameters",
        "SlurmctldHost",
};

static void test_kebab(void **state) {
        const struct {
                const char *in, *want;
        } cases[] = {
                { "TopologyPlugin", "topology-plugin" },
                { "SLURM_CONF", "slurm-conf" },
                { "BOOT_TIME", "boot-time" },
                { "DefMemPerCPU", "def-mem-per-cpu" },
                { "X11Parameters", "x11-parameters" },
                { "TCPTimeout", "tcp-timeout" },
                { "MCSPlugin", "mcs-plugin" },
                { "AccountingStorageTRES", "accounting-storage-tres" },
                { "PrEpPlugins", "pr-ep-plugins" },
                { "SlurmctldPidFile", "slurmctld-pid-file" },
                { "MULTIPLE_SLURMD", "multiple-slurmd" },
                { "CpuFreqGovernors", "cpu-freq-governors" },
                { "GpuFreqDef", "gpu-freq-def" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                ops_kebab_key(cases[i].in, &out);
                assert_string_equal(out.buf, cases[i].want);
        }
        /* every Slurm key gives a valid action-set key, and no two give the same */
        _cleanup_strv_ struct strv seen = STRV_INIT;
        for (size_t i = 0; i < ELEMENTSOF(slurm_keys); i++) {
                _cleanup_strbuf_ struct strbuf key = STRBUF_INIT;
                strbuf_addstr(&key, "config.");
                ops_kebab_key(slurm_keys[i], &key);
                if (!juju_action_key_valid(key.buf))
                        fail_msg("%s: invalid key \"%s\"", slurm_keys[i], key.buf);
                if (strv_contains(&seen, key.buf))
                        fail_msg("%s: \"%s\" twice", slurm_keys[i], key.buf);
                strv_push(&seen, key.buf);
        }
        assert_true(seen.n > 200);
}

static void test_key_segment(void **state) {
        const struct {
                const char *in, *want;
        } cases[] = { { "cpu-0", "cpu-0" }, { "Node_1.local", "node-1-local" }, { "--x--", "x" },
                { "...", "x" }, { "", "x" }, { "A--B", "a-b" } };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                ops_key_segment(cases[i].in, &out);
                assert_string_equal(out.buf, cases[i].want);
        }
}

static void other_params(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ struct slurm_jobid *ids = NULL;
        const char *item = "x";
        {
                _cleanup_juju_cjson_ cJSON *p = J("{\"jobids\":\"12, 13 14_3,15+1,12\"}");
                assert_int_equal(ops_jobids_parse(p, &ids, &err), 4);
                assert_int_equal(ids[2].kind, SLURM_JOBID_ARRAY_TASK);
                assert_int_equal(ids[3].kind, SLURM_JOBID_HET);
        }
        {
                /* juju run … jobids=12 sends YAML's integer 12 */
                _cleanup_juju_cjson_ cJSON *p = J("{\"jobids\":12}");
                _cleanup_free_ struct slurm_jobid *one = NULL;
                assert_int_equal(ops_jobids_parse(p, &one, &err), 1);
        }
        const struct {
                const char *json, *msg;
        } bad_ids[] = {
                { "{}", "jobids: give job ids" },
                { "{\"jobids\":\" , \"}", "jobids: give job ids" },
                { "{\"jobids\":\"12;13\"}", "jobids: \"12;13\" is not a job id" },
                { "{\"jobids\":1.5}", "jobids: expected a string or a whole number" },
                { "{\"jobids\":true}", "jobids: expected a string" },
                { "{\"jobids\":\"1\",\"x\":1}", "unknown parameter \"x\" (known: jobids)" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_ids); i++) {
                _cleanup_juju_cjson_ cJSON *p = J(bad_ids[i].json);
                _cleanup_free_ struct slurm_jobid *none = NULL;
                strbuf_reset(&err);
                assert_true(ops_jobids_parse(p, &none, &err) < 0);
                assert_null(none);
                if (!startswith(err.buf, bad_ids[i].msg))
                        fail_msg("%s: \"%s\"", bad_ids[i].json, err.buf);
        }
        {
                /* OPS_JOBIDS_MAX distinct ids, then one more */
                _cleanup_strbuf_ struct strbuf many = STRBUF_INIT;
                _cleanup_free_ struct slurm_jobid *none = NULL;
                strbuf_addstr(&many, "{\"jobids\":\"");
                for (int i = 1; i <= OPS_JOBIDS_MAX + 1; i++)
                        strbuf_addf(&many, "%d,", i);
                strbuf_addstr(&many, "\"}");
                _cleanup_juju_cjson_ cJSON *p = J(many.buf);
                strbuf_reset(&err);
                assert_int_equal(ops_jobids_parse(p, &none, &err), -E2BIG);
        }
        {
                _cleanup_juju_cjson_ cJSON *p = J("{\"item\":\"topology_plugin\"}");
                assert_int_equal(ops_config_item_parse(p, &item, &err), 0);
                assert_string_equal(item, "topology_plugin");
                _cleanup_juju_cjson_ cJSON *none = J("{}");
                assert_int_equal(ops_config_item_parse(none, &item, &err), 0);
                assert_null(item);
                _cleanup_juju_cjson_ cJSON *bad = J("{\"item\":\"a.b\"}");
                strbuf_reset(&err);
                assert_int_equal(ops_config_item_parse(bad, &item, &err), -EINVAL);
                assert_string_equal(
                        err.buf, "item: \"a.b\" is not a configuration key (letters, digits, '_', '-')");
                _cleanup_juju_cjson_ cJSON *extra = J("{\"items\":\"x\"}");
                assert_int_equal(ops_config_item_parse(extra, &item, &err), -EINVAL);
        }
}

static void test_find_params(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        {
                _cleanup_juju_cjson_ cJSON *p =
                        J("{\"user\":\"alice,0\",\"state\":\"running,PENDING\",\"node\":\"cpu-[0-1]\","
                          "\"name\":\"a, b\",\"batch-host\":\"cpu-0\",\"partition\":\"cpu\","
                          "\"account\":\"phys\"}");
                _cleanup_(ops_find_req_done) struct ops_find_req q = { STRV_INIT, STRV_INIT, STRV_INIT,
                        STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT };
                assert_int_equal(ops_find_req_parse(p, &q, &err), 0);
                assert_int_equal(q.users.n, 2);
                assert_int_equal(q.states.n, 2);
                assert_int_equal(q.nodes.n, 2);
                assert_int_equal(q.names.n, 1);
                assert_string_equal(q.names.v[0], "a, b"); /* one exact name, commas and all */
        }
        const struct {
                const char *json, *msg;
        } bad[] = {
                { "{}", "give at least one criterion" },
                { "{\"state\":\"RUNNIN\"}", "state: \"RUNNIN\" is not a job state" },
                { "{\"user\":\"a b\"}", "user: \"a b\" is not a name" },
                { "{\"user\":\"\"}", "user: \"\" is not a name" },
                { "{\"node\":\"cpu-[\"}", "node: \"cpu-[\" is not a hostlist expression" },
                { "{\"name\":\"\"}", "name: give a job name" },
                { "{\"partition\":5}", "partition: expected a string" },
                { "{\"jobid\":\"5\"}", "unknown parameter \"jobid\"" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_juju_cjson_ cJSON *p = J(bad[i].json);
                _cleanup_(ops_find_req_done) struct ops_find_req q = { STRV_INIT, STRV_INIT, STRV_INIT,
                        STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT };
                strbuf_reset(&err);
                assert_int_equal(ops_find_req_parse(p, &q, &err), -EINVAL);
                if (!startswith(err.buf, bad[i].msg))
                        fail_msg("%s: \"%s\", want \"%s…\"", bad[i].json, err.buf, bad[i].msg);
        }
}

/* A node table: cpu-0 and cpu-1 of application cpu, gpu-0 of gpu, an application "empty" with
 * no node yet. */
static void table(struct slurm_node_list *t) {
        static const struct {
                const char *name, *features;
        } nodes[] = { { "cpu-0", "cpu" }, { "cpu-1", "cpu,big" }, { "gpu-0", "gpu,big" } };
        *t = (struct slurm_node_list){ .v = xcalloc(ELEMENTSOF(nodes), sizeof(struct slurm_node)) };
        for (size_t i = 0; i < ELEMENTSOF(nodes); i++)
                t->v[t->n++] = (struct slurm_node){ .name = xstrdup(nodes[i].name),
                        .features = xstrdup(nodes[i].features),
                        .state = NODE_STATE_IDLE,
                        .cpus = 4 };
        _cleanup_strv_ struct strv sets = STRV_INIT;
        strv_pushl(&sets, "cpu", "gpu", "empty", NULL);
        t->nodesets = strv_detach(&sets);
}

static void resolve(const char *const *names, bool allow, const char *want_nodes, const char *want_missing,
        const char *want_err) {
        _cleanup_(slurm_node_list_done) struct slurm_node_list t = { 0 };
        _cleanup_strv_ struct strv nodes = STRV_INIT, missing = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        table(&t);
        int r = ops_resolve_nodes((char *const *) names, &t, allow, &nodes, &missing, &err);
        if (want_err) {
                assert_int_equal(r, -EINVAL);
                if (!startswith(err.buf, want_err))
                        fail_msg("\"%s\", want \"%s…\"", err.buf, want_err);
                assert_int_equal(nodes.n + missing.n, 0);
                return;
        }
        assert_int_equal(r, 0);
        _cleanup_free_ char *n = strv_join(&nodes, ","), *m = strv_join(&missing, ",");
        assert_string_equal(n, want_nodes);
        assert_string_equal(m, want_missing);
}

static void test_resolve(void **state) {
        const char *a[] = { "cpu-1", "cpu-0", "cpu-1", "nope", NULL };
        resolve(a, false, "cpu-1,cpu-0", "nope", NULL);
        const char *app[] = { "gpu-0", "cpu", NULL };
        resolve(app, false, NULL, NULL,
                "nodes: \"cpu\" is an application (a NodeSet of 2 nodes that Slurm would all change)");
        resolve(app, true, "gpu-0,cpu-0,cpu-1", "", NULL);
        const char *empty[] = { "empty", NULL };
        resolve(empty, false, NULL, NULL, "nodes: \"empty\" is an application (a NodeSet of 0 nodes");
        resolve(empty, true, "", "empty", NULL);
        const char *all[] = { "cpu-0", "All", NULL };
        resolve(all, true, NULL, NULL, "nodes: \"ALL\" names every node");
        /* a feature that is no NodeSet is no application */
        const char *big[] = { "big", NULL };
        resolve(big, true, "", "big", NULL);
}

static void test_features(void **state) {
        _cleanup_(slurm_node_list_done) struct slurm_node_list t = { 0 };
        table(&t);
        _cleanup_free_ char *a = ops_node_app_features(&t.v[1], &t), *none = NULL;
        assert_string_equal(a, "cpu");
        t.v[2].features[0] = 'x'; /* "xpu,big": in no application */
        none = ops_node_app_features(&t.v[2], &t);
        assert_string_equal(none, "");
        const struct {
                const char *features, *keep, *want;
        } k[] = { { "big,ssd", "cpu", "cpu,big,ssd" }, { "big,cpu", "cpu", "big,cpu" }, { "", "cpu", "cpu" },
                { "big", "", "big" }, { "", "", "" }, { "a", "cpu,gpu", "cpu,gpu,a" },
                { "cpux", "cpu", "cpu,cpux" } };
        for (size_t i = 0; i < ELEMENTSOF(k); i++) {
                _cleanup_free_ char *got = ops_features_keep(k[i].features, k[i].keep);
                assert_string_equal(got, k[i].want);
        }
        assert_true(ops_features_subset("cpu,big", "big,cpu,ssd"));
        assert_true(ops_features_subset("", "cpu"));
        assert_false(ops_features_subset("cpu,huge", "cpu,big"));
        assert_false(ops_features_subset("cp", "cpu"));
}

static bool kv_has(const struct strv *kv, const char *key, const char *value) {
        for (size_t i = 0; i + 1 < kv->n; i += 2)
                if (streq(kv->v[i], key))
                        return !value || streq(kv->v[i + 1], value);
        return false;
}

static void assert_keys_valid(const struct strv *kv) {
        assert_int_equal(kv->n % 2, 0);
        for (size_t i = 0; i < kv->n; i += 2)
                if (!juju_action_key_valid(kv->v[i]))
                        fail_msg("invalid result key \"%s\"", kv->v[i]);
}

static void test_fields(void **state) {
        _cleanup_strv_ struct strv kv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf st = STRBUF_INIT;
        const struct slurm_node n = {
                .name = (char *) "Cpu_0.rack2",
                .state = NODE_STATE_ALLOCATED | NODE_STATE_DRAIN | NODE_STATE_DYNAMIC_NORM,
                .reason = (char *) "PSU",
                .reason_time = 1893456000,
                .reason_uid = 0,
                .cpus = 4,
                .alloc_cpus = 2,
                .real_memory = 1000,
                .free_memory = UINT64_MAX,
                .features = (char *) "cpu",
                .partitions = (char *) "cpu",
                .weight = 1,
        };
        ops_node_state_format(&n, &st);
        assert_string_equal(st.buf, "MIXED+DRAIN+DYNAMIC_NORM"); /* as scontrol shows it */
        ops_node_fields(&n, &kv);
        assert_keys_valid(&kv);
        assert_true(kv_has(&kv, "nodes.cpu-0-rack2.name", "Cpu_0.rack2"));
        assert_true(kv_has(&kv, "nodes.cpu-0-rack2.state", "MIXED+DRAIN+DYNAMIC_NORM"));
        assert_true(kv_has(&kv, "nodes.cpu-0-rack2.reason-user", "root"));
        assert_true(kv_has(&kv, "nodes.cpu-0-rack2.alloc-cpus", "2"));
        assert_false(kv_has(&kv, "nodes.cpu-0-rack2.free-memory", NULL)); /* unknown: left out */
        assert_false(kv_has(&kv, "nodes.cpu-0-rack2.gres", NULL));

        strv_clear(&kv);
        const struct slurm_jobinfo j = { .job_id = 25,
                .display_id = (char *) "20_4",
                .array_job_id = 20,
                .array_task_id = 4,
                .user = (char *) "alice",
                .state = JOB_RUNNING,
                .time_limit = UINT32_MAX,
                .exit_code = 2 << 8,
                .start_time = 1893456000,
                .batch = true };
        ops_job_fields(&j, &kv);
        assert_keys_valid(&kv);
        assert_true(kv_has(&kv, "jobs.25.job-id", "20_4"));
        assert_true(kv_has(&kv, "jobs.25.array-task-id", "4"));
        assert_true(kv_has(&kv, "jobs.25.time-limit", "UNLIMITED"));
        assert_true(kv_has(&kv, "jobs.25.exit-code", "2:0"));
        assert_true(kv_has(&kv, "jobs.25.state", "RUNNING"));
        assert_false(kv_has(&kv, "jobs.25.end-time", NULL));

        const struct {
                uint32_t step, het;
                const char *want;
        } steps[] = { { SLURM_BATCH_SCRIPT, UINT32_MAX, "batch" },
                { SLURM_EXTERN_CONT, UINT32_MAX, "extern" },
                { SLURM_INTERACTIVE_STEP, UINT32_MAX, "interactive" },
                { SLURM_PENDING_STEP, UINT32_MAX, "tdb" }, { 0, UINT32_MAX, "0" }, { 3, 1, "3-het-1" } };
        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                _cleanup_strbuf_ struct strbuf key = STRBUF_INIT;
                const struct slurm_step s = { .step_id = steps[i].step, .het_comp = steps[i].het };
                ops_step_key(&s, &key);
                assert_string_equal(key.buf, steps[i].want);
        }
}

/* node-update's gres against what the node proved (issue 26, item 2) */
static void test_gres_claims(void **state) {
        struct {
                const char *want, *have;
                int r;
        } cases[] = {
                /* the example: gpu:8 on a node without GPUs */
                { "gpu:8", "(null)", -EPERM },
                { "gpu:1", "", -EPERM },
                { "gpu:8", "gpu:2", -EPERM },
                { "GPU:1", "gpu:2", -EPERM }, /* another name to Slurm: none proven */
                /* lower, keep, remove */
                { "gpu:1", "gpu:2", 0 },
                { "gpu:2", "gpu:2(S:0-1)", 0 },
                { "gpu:0", "gpu:2", 0 },
                { "", "gpu:2", 0 },
                /* types: a type is a claim too (a --gres=gpu:a100:1 job would run there) */
                { "gpu:a100:2", "gpu:2(S:0)", -EPERM },
                { "gpu:a100:1", "gpu:tesla:2,gpu:a100:1", 0 },
                { "gpu:a100:3", "gpu:tesla:2,gpu:a100:1", -EPERM },
                { "gpu:2", "gpu:tesla:2,gpu:a100:1", 0 },
                { "gpu:4", "gpu:tesla:2,gpu:a100:1", -EPERM },
                { "gpu:tesla:2,gpu:1", "gpu:tesla:2,gpu:a100:1", 0 },
                /* no_consume: any number of jobs would share the GPUs */
                { "gpu:no_consume:2", "gpu:2", -EPERM },
                { "gpu:NO_CONSUME:1", "gpu:2", -EPERM },
                { "gpu:no_consume:1", "gpu:no_consume:2", 0 },
                /* other names: the record */
                { "shard:4", "gpu:2,shard:8", 0 },
                { "shard:9", "gpu:2,shard:8", -EPERM },
                { "mps:100", "gpu:2", -EPERM },
                { "bandwidth:4K", "bandwidth:4096", 0 },
                { "bandwidth:5K", "bandwidth:4096", -EPERM },
                /* malformed */
                { "gpu:2x", "gpu:2", -EINVAL },
                { ":1", "gpu:2", -EINVAL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                int r = ops_gres_claims_check("cpu-0", cases[i].want, cases[i].have, &e);
                if (r != cases[i].r)
                        fail_msg("want %s have %s: %d (%s)", cases[i].want, cases[i].have, r, strempty(e.buf));
                if (r < 0)
                        assert_non_null(strstr(e.buf, r == -EPERM ? "node \"cpu-0\"" : "gres:"));
        }
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(ops_gres_claims_check("cpu-0", "gpu:8", "(null)", &e), -EPERM);
        assert_non_null(strstr(e.buf, "would have 8 gpu, and it has proven 0"));
        assert_non_null(strstr(e.buf, "node-config"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_gres_claims),
                cmocka_unit_test(test_node_params),
                cmocka_unit_test(test_update_params),
                cmocka_unit_test(test_reserve_params),
                cmocka_unit_test(test_time),
                cmocka_unit_test(test_kebab),
                cmocka_unit_test(test_key_segment),
                cmocka_unit_test(other_params),
                cmocka_unit_test(test_find_params),
                cmocka_unit_test(test_resolve),
                cmocka_unit_test(test_features),
                cmocka_unit_test(test_fields),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
