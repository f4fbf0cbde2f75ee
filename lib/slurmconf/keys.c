/* SPDX-License-Identifier: Apache-2.0 */
/* The slurm.conf(5) key table of Slurm 22.05 (plus newer keys marked with their version) and
 * its case-insensitive lookup through a small hash index built on first use. */
#include "util/macro.h"

#include <ctype.h>
#include <stdint.h>

#include "slurmconf/keys.h"
#include "util/banned.h"

#define S(x) SLURMCONF_SCOPE_BIT(SLURMCONF_##x)

/* Sorted by name for the reader; the lookup does not depend on the order. */
static const struct slurmconf_key key_table[] = {
        { "AccountingStorageBackupHost", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStorageEnforce", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStorageExternalHost", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStorageHost", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStorageLoc", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "AccountingStorageParameters", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStoragePass", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStoragePort", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStorageTRES", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStorageType", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStorageUser", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStoreFlags", S(GLOBAL), NULL, NULL, 0 },
        { "AccountingStoreJobComment", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "AcctGatherEnergyType", S(GLOBAL), NULL, NULL, 0 },
        { "AcctGatherFilesystemType", S(GLOBAL), NULL, NULL, 0 },
        { "AcctGatherInfinibandType", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "AcctGatherInterconnectType", S(GLOBAL), NULL, NULL, 0 },
        { "AcctGatherNodeFreq", S(GLOBAL), NULL, NULL, 0 },
        { "AcctGatherProfileType", S(GLOBAL), NULL, NULL, 0 },
        { "AllocNodes", S(PARTITION), NULL, NULL, 0 },
        { "AllowAccounts", S(PARTITION), NULL, NULL, 0 },
        { "AllowGroups", S(PARTITION) | S(FRONTEND), NULL, NULL, 0 },
        { "AllowQos", S(PARTITION), NULL, NULL, 0 },
        { "AllowSpecResourcesUsage", S(GLOBAL), NULL, NULL, 0 },
        { "AllowUsers", S(FRONTEND), NULL, NULL, 0 },
        { "Alternate", S(PARTITION), NULL, NULL, 0 },
        { "AuthAltParameters", S(GLOBAL), NULL, NULL, 0 },
        { "AuthAltTypes", S(GLOBAL), NULL, NULL, 0 },
        { "AuthInfo", S(GLOBAL), NULL, NULL, 0 },
        { "AuthType", S(GLOBAL), NULL, NULL, 0 },
        { "BackupAddr", S(GLOBAL), NULL, NULL, 0 },
        { "BackupController", S(GLOBAL), NULL, NULL, 0 },
        { "BatchStartTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "BcastAddr", S(NODE), NULL, NULL, 0 },
        { "BcastExclude", S(GLOBAL), NULL, NULL, 0 },
        { "BcastParameters", S(GLOBAL), NULL, NULL, 0 },
        { "Boards", S(NODE), NULL, NULL, 0 },
        { "BurstBufferParameters", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "BurstBufferType", S(GLOBAL), NULL, NULL, 0 },
        { "CertmgrType", S(GLOBAL), "25.05", NULL, 0 },
        { "CliFilterPlugins", S(GLOBAL), NULL, NULL, 0 },
        { "ClusterName", S(GLOBAL), NULL, NULL, 0 },
        { "Comment", S(NODE), "23.02", NULL, 0 },
        { "CommunicationParameters", S(GLOBAL), NULL, NULL, 0 },
        { "CompleteWait", S(GLOBAL), NULL, NULL, 0 },
        { "ControlAddr", S(GLOBAL), NULL, NULL, 0 },
        { "ControlMachine", S(GLOBAL), NULL, NULL, 0 },
        { "CoreSpecCount", S(NODE), NULL, NULL, 0 },
        { "CoreSpecPlugin", S(GLOBAL), NULL, NULL, 0 },
        { "CoresPerSocket", S(NODE), NULL, NULL, 0 },
        { "CpuBind", S(NODE) | S(PARTITION), NULL, NULL, 0 },
        { "CpuFreqDef", S(GLOBAL), NULL, NULL, 0 },
        { "CpuFreqGovernors", S(GLOBAL), NULL, NULL, 0 },
        { "CPUs", S(NODE), NULL, NULL, 0 },
        { "CpuSpecList", S(NODE), NULL, NULL, 0 },
        { "CredType", S(GLOBAL), NULL, NULL, 0 },
        { "CryptoType", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "DataParserParameters", S(GLOBAL), "24.05", NULL, 0 },
        { "DebugFlags", S(GLOBAL), NULL, NULL, 0 },
        { "Default", S(PARTITION), NULL, NULL, 0 },
        { "DefaultTime", S(PARTITION), NULL, NULL, 0 },
        { "DefCpuPerGPU", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "DefMemPerCPU", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "DefMemPerGPU", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "DefMemPerNode", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "DenyAccounts", S(PARTITION), NULL, NULL, 0 },
        { "DenyGroups", S(FRONTEND), NULL, NULL, 0 },
        { "DenyQos", S(PARTITION), NULL, NULL, 0 },
        { "DenyUsers", S(FRONTEND), NULL, NULL, 0 },
        { "DependencyParameters", S(GLOBAL), NULL, NULL, 0 },
        { "DisableRootJobs", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "DownNodes", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_LINE },
        { "EioTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "EnforcePartLimits", S(GLOBAL), NULL, NULL, 0 },
        { "Epilog", S(GLOBAL), NULL, NULL, 0 },
        { "EpilogMsgTime", S(GLOBAL), NULL, NULL, 0 },
        { "EpilogSlurmctld", S(GLOBAL), NULL, NULL, 0 },
        { "ExclusiveUser", S(PARTITION), NULL, NULL, 0 },
        { "Extra", S(NODE), "23.02", NULL, 0 },
        { "ExtSensorsFreq", S(GLOBAL), NULL, NULL, 0 },
        { "ExtSensorsType", S(GLOBAL), NULL, NULL, 0 },
        { "FairShareDampeningFactor", S(GLOBAL), NULL, NULL, 0 },
        { "FastSchedule", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "Feature", S(NODE), NULL, "Features", 0 },
        { "Feature", S(NODESET), NULL, NULL, 0 },
        { "Features", S(NODE), NULL, NULL, 0 },
        { "FederationParameters", S(GLOBAL), NULL, NULL, 0 },
        { "FirstJobId", S(GLOBAL), NULL, NULL, 0 },
        { "FrontendAddr", S(FRONTEND), NULL, NULL, 0 },
        { "FrontendName", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_LINE },
        { "GetEnvTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "GpuFreqDef", S(GLOBAL), NULL, NULL, 0 },
        { "GraceTime", S(PARTITION), NULL, NULL, 0 },
        { "Gres", S(NODE), NULL, NULL, 0 },
        { "GresTypes", S(GLOBAL), NULL, NULL, 0 },
        { "GroupUpdateForce", S(GLOBAL), NULL, NULL, 0 },
        { "GroupUpdateTime", S(GLOBAL), NULL, NULL, 0 },
        { "HashPlugin", S(GLOBAL), "23.11", NULL, 0 },
        { "HealthCheckInterval", S(GLOBAL), NULL, NULL, 0 },
        { "HealthCheckNodeState", S(GLOBAL), NULL, NULL, 0 },
        { "HealthCheckProgram", S(GLOBAL), NULL, NULL, 0 },
        { "Hidden", S(PARTITION), NULL, NULL, 0 },
        { "InactiveLimit", S(GLOBAL), NULL, NULL, 0 },
        { "InteractiveStepOptions", S(GLOBAL), NULL, NULL, 0 },
        { "JobAcctGatherFrequency", S(GLOBAL), NULL, NULL, 0 },
        { "JobAcctGatherParams", S(GLOBAL), NULL, NULL, 0 },
        { "JobAcctGatherType", S(GLOBAL), NULL, NULL, 0 },
        { "JobCompHost", S(GLOBAL), NULL, NULL, 0 },
        { "JobCompLoc", S(GLOBAL), NULL, NULL, 0 },
        { "JobCompParams", S(GLOBAL), NULL, NULL, 0 },
        { "JobCompPass", S(GLOBAL), NULL, NULL, 0 },
        { "JobCompPort", S(GLOBAL), NULL, NULL, 0 },
        { "JobCompType", S(GLOBAL), NULL, NULL, 0 },
        { "JobCompUser", S(GLOBAL), NULL, NULL, 0 },
        { "JobContainerType", S(GLOBAL), NULL, NULL, 0 },
        { "JobCredentialPrivateKey", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "JobCredentialPublicCertificate", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "JobFileAppend", S(GLOBAL), NULL, NULL, 0 },
        { "JobRequeue", S(GLOBAL), NULL, NULL, 0 },
        { "JobSubmitPlugins", S(GLOBAL), NULL, NULL, 0 },
        { "KeepAliveTime", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "KillOnBadExit", S(GLOBAL), NULL, NULL, 0 },
        { "KillWait", S(GLOBAL), NULL, NULL, 0 },
        { "LaunchParameters", S(GLOBAL), NULL, NULL, 0 },
        { "LaunchType", S(GLOBAL), NULL, NULL, 0 },
        { "Licenses", S(GLOBAL), NULL, NULL, 0 },
        { "LLN", S(PARTITION), NULL, NULL, 0 },
        { "LogTimeFormat", S(GLOBAL), NULL, NULL, 0 },
        { "MailDomain", S(GLOBAL), NULL, NULL, 0 },
        { "MailProg", S(GLOBAL), NULL, NULL, 0 },
        { "MaxArraySize", S(GLOBAL), NULL, NULL, 0 },
        { "MaxBatchRequeue", S(GLOBAL), "24.11", NULL, 0 },
        { "MaxCPUsPerNode", S(PARTITION), NULL, NULL, 0 },
        { "MaxCPUsPerSocket", S(PARTITION), "23.02", NULL, 0 },
        { "MaxDBDMsgs", S(GLOBAL), NULL, NULL, 0 },
        { "MaxJobCount", S(GLOBAL), NULL, NULL, 0 },
        { "MaxJobId", S(GLOBAL), NULL, NULL, 0 },
        { "MaxMemPerCPU", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "MaxMemPerNode", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "MaxNodeCount", S(GLOBAL), NULL, NULL, 0 },
        { "MaxNodes", S(PARTITION), NULL, NULL, 0 },
        { "MaxStepCount", S(GLOBAL), NULL, NULL, 0 },
        { "MaxTasksPerNode", S(GLOBAL), NULL, NULL, 0 },
        { "MaxTime", S(PARTITION), NULL, NULL, 0 },
        { "MCSParameters", S(GLOBAL), NULL, NULL, 0 },
        { "MCSPlugin", S(GLOBAL), NULL, NULL, 0 },
        { "MemSpecLimit", S(NODE), NULL, NULL, 0 },
        { "MessageTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "MinJobAge", S(GLOBAL), NULL, NULL, 0 },
        { "MinNodes", S(PARTITION), NULL, NULL, 0 },
        { "MpiDefault", S(GLOBAL), NULL, NULL, 0 },
        { "MpiParams", S(GLOBAL), NULL, NULL, 0 },
        { "NodeAddr", S(NODE), NULL, NULL, 0 },
        { "NodeFeaturesPlugins", S(GLOBAL), NULL, NULL, 0 },
        { "NodeHostname", S(NODE), NULL, NULL, 0 },
        { "NodeName", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_LINE },
        { "Nodes", S(NODESET) | S(PARTITION), NULL, NULL, 0 },
        { "NodeSet", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_LINE },
        { "OverSubscribe", S(PARTITION), NULL, NULL, 0 },
        { "OverTimeLimit", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "Parameters", S(NODE), "24.11", NULL, 0 },
        { "PartitionName", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_LINE },
        { "PluginDir", S(GLOBAL), NULL, NULL, 0 },
        { "PlugStackConfig", S(GLOBAL), NULL, NULL, 0 },
        { "Port", S(NODE) | S(FRONTEND), NULL, NULL, 0 },
        { "PowerDownOnIdle", S(PARTITION), "23.02", NULL, 0 },
        { "PowerParameters", S(GLOBAL), NULL, NULL, 0 },
        { "PowerPlugin", S(GLOBAL), NULL, NULL, 0 },
        { "PreemptExemptTime", S(GLOBAL), NULL, NULL, 0 },
        { "PreemptMode", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "PreemptParameters", S(GLOBAL), "24.05", NULL, 0 },
        { "PreemptType", S(GLOBAL), NULL, NULL, 0 },
        { "PrEpParameters", S(GLOBAL), NULL, NULL, 0 },
        { "PrEpPlugins", S(GLOBAL), NULL, NULL, 0 },
        { "Priority", S(PARTITION), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "PriorityCalcPeriod", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityDecayHalfLife", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityFavorSmall", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityFlags", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityJobFactor", S(PARTITION), NULL, NULL, 0 },
        { "PriorityMaxAge", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityParameters", S(GLOBAL), NULL, NULL, 0 },
        { "PrioritySiteFactorParameters", S(GLOBAL), NULL, NULL, 0 },
        { "PrioritySiteFactorPlugin", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityTier", S(PARTITION), NULL, NULL, 0 },
        { "PriorityType", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityUsageResetPeriod", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityWeightAge", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityWeightAssoc", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityWeightFairshare", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityWeightJobSize", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityWeightPartition", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityWeightQOS", S(GLOBAL), NULL, NULL, 0 },
        { "PriorityWeightTRES", S(GLOBAL), NULL, NULL, 0 },
        { "PrivateData", S(GLOBAL), NULL, NULL, 0 },
        { "Procs", S(NODE), NULL, "CPUs", 0 },
        { "ProctrackType", S(GLOBAL), NULL, NULL, 0 },
        { "Prolog", S(GLOBAL), NULL, NULL, 0 },
        { "PrologEpilogTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "PrologFlags", S(GLOBAL), NULL, NULL, 0 },
        { "PrologSlurmctld", S(GLOBAL), NULL, NULL, 0 },
        { "PropagatePrioProcess", S(GLOBAL), NULL, NULL, 0 },
        { "PropagateResourceLimits", S(GLOBAL), NULL, NULL, 0 },
        { "PropagateResourceLimitsExcept", S(GLOBAL), NULL, NULL, 0 },
        { "QOS", S(PARTITION), NULL, NULL, 0 },
        { "RealMemory", S(NODE), NULL, NULL, 0 },
        { "Reason", S(NODE) | S(DOWNNODES) | S(FRONTEND), NULL, NULL, 0 },
        { "RebootProgram", S(GLOBAL), NULL, NULL, 0 },
        { "ReconfigFlags", S(GLOBAL), NULL, NULL, 0 },
        { "ReqResv", S(PARTITION), NULL, NULL, 0 },
        { "RequeueExit", S(GLOBAL), NULL, NULL, 0 },
        { "RequeueExitHold", S(GLOBAL), NULL, NULL, 0 },
        { "RestrictedCoresPerGPU", S(NODE), "24.05", NULL, 0 },
        { "ResumeFailProgram", S(GLOBAL), NULL, NULL, 0 },
        { "ResumeProgram", S(GLOBAL), NULL, NULL, 0 },
        { "ResumeRate", S(GLOBAL), NULL, NULL, 0 },
        { "ResumeTimeout", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "ResvEpilog", S(GLOBAL), NULL, NULL, 0 },
        { "ResvOverRun", S(GLOBAL), NULL, NULL, 0 },
        { "ResvProlog", S(GLOBAL), NULL, NULL, 0 },
        { "ReturnToService", S(GLOBAL), NULL, NULL, 0 },
        { "RootOnly", S(PARTITION), NULL, NULL, 0 },
        { "RoutePlugin", S(GLOBAL), NULL, NULL, 0 },
        { "SallocDefaultCommand", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "SbcastParameters", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "SchedulerAuth", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "SchedulerParameters", S(GLOBAL), NULL, NULL, 0 },
        { "SchedulerTimeSlice", S(GLOBAL), NULL, NULL, 0 },
        { "SchedulerType", S(GLOBAL), NULL, NULL, 0 },
        { "ScronParameters", S(GLOBAL), NULL, NULL, 0 },
        { "SelectType", S(GLOBAL), NULL, NULL, 0 },
        { "SelectTypeParameters", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "Shared", S(PARTITION), NULL, "OverSubscribe", SLURMCONF_KEY_DEPRECATED },
        { "SlurmctldAddr", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldDebug", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldHost", S(GLOBAL), NULL, NULL, SLURMCONF_KEY_MULTI },
        { "SlurmctldLogFile", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldParameters", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldPidFile", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldPlugstack", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldPort", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldPrimaryOffProg", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldPrimaryOnProg", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldSyslogDebug", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmctldTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdDebug", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdLogFile", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdParameters", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdPidFile", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdPort", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdSpoolDir", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdSyslogDebug", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmdUser", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmSchedLogFile", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmSchedLogLevel", S(GLOBAL), NULL, NULL, 0 },
        { "SlurmUser", S(GLOBAL), NULL, NULL, 0 },
        { "Sockets", S(NODE), NULL, NULL, 0 },
        { "SocketsPerBoard", S(NODE), NULL, NULL, 0 },
        { "SrunEpilog", S(GLOBAL), NULL, NULL, 0 },
        { "SrunPortRange", S(GLOBAL), NULL, NULL, 0 },
        { "SrunProlog", S(GLOBAL), NULL, NULL, 0 },
        { "State", S(NODE) | S(PARTITION) | S(DOWNNODES) | S(FRONTEND), NULL, NULL, 0 },
        { "StateSaveLocation", S(GLOBAL), NULL, NULL, 0 },
        { "SuspendExcNodes", S(GLOBAL), NULL, NULL, 0 },
        { "SuspendExcParts", S(GLOBAL), NULL, NULL, 0 },
        { "SuspendExcStates", S(GLOBAL), "23.02", NULL, 0 },
        { "SuspendProgram", S(GLOBAL), NULL, NULL, 0 },
        { "SuspendRate", S(GLOBAL), NULL, NULL, 0 },
        { "SuspendTime", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "SuspendTimeout", S(GLOBAL) | S(PARTITION), NULL, NULL, 0 },
        { "SwitchParameters", S(GLOBAL), NULL, NULL, 0 },
        { "SwitchType", S(GLOBAL), NULL, NULL, 0 },
        { "TaskEpilog", S(GLOBAL), NULL, NULL, 0 },
        { "TaskPlugin", S(GLOBAL), NULL, NULL, 0 },
        { "TaskPluginParam", S(GLOBAL), NULL, NULL, 0 },
        { "TaskProlog", S(GLOBAL), NULL, NULL, 0 },
        { "TCPTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "ThreadsPerCore", S(NODE), NULL, NULL, 0 },
        { "TLSType", S(GLOBAL), "25.05", NULL, 0 },
        { "TmpDisk", S(NODE), NULL, NULL, 0 },
        { "TmpFS", S(GLOBAL), NULL, NULL, 0 },
        { "Topology", S(NODE) | S(PARTITION), "25.05", NULL, 0 },
        { "TopologyParam", S(GLOBAL), NULL, NULL, 0 },
        { "TopologyPlugin", S(GLOBAL), NULL, NULL, 0 },
        { "TrackWCKey", S(GLOBAL), NULL, NULL, 0 },
        { "TreeWidth", S(GLOBAL), NULL, NULL, 0 },
        { "TRESBillingWeights", S(PARTITION), NULL, NULL, 0 },
        { "TRESWeights", S(NODE), NULL, NULL, SLURMCONF_KEY_DEPRECATED },
        { "UnkillableStepProgram", S(GLOBAL), NULL, NULL, 0 },
        { "UnkillableStepTimeout", S(GLOBAL), NULL, NULL, 0 },
        { "UsePAM", S(GLOBAL), NULL, NULL, 0 },
        { "VSizeFactor", S(GLOBAL), NULL, NULL, 0 },
        { "WaitTime", S(GLOBAL), NULL, NULL, 0 },
        { "Weight", S(NODE), NULL, NULL, 0 },
        { "X11Parameters", S(GLOBAL), NULL, NULL, 0 },
};

/* Open addressing over lowercase-name hashes; several rows may share a name (different scopes
 * or versions), so a lookup walks the probe sequence until an empty slot. */
#define INDEX_SIZE 1024u /* power of two, > 2 * ELEMENTSOF(key_table) */
static int16_t key_index[INDEX_SIZE];
static bool key_index_ready;

static uint32_t hash_nocase(const char *s, size_t len) {
        uint32_t h = 2166136261u; /* FNV-1a over the lowercased bytes */
        for (size_t i = 0; i < len; i++) {
                h ^= (uint8_t) tolower((unsigned char) s[i]);
                h *= 16777619u;
        }
        return h;
}

static void key_index_build(void) {
        _Static_assert(INDEX_SIZE > 2 * ELEMENTSOF(key_table), "key index too small");
        for (size_t i = 0; i < INDEX_SIZE; i++)
                key_index[i] = -1;
        for (size_t i = 0; i < ELEMENTSOF(key_table); i++) {
                const char *n = key_table[i].name;
                uint32_t slot = hash_nocase(n, strlen(n)) & (INDEX_SIZE - 1);
                while (key_index[slot] >= 0)
                        slot = (slot + 1) & (INDEX_SIZE - 1);
                key_index[slot] = (int16_t) i;
        }
        key_index_ready = true;
}

const struct slurmconf_key *slurmconf_key_lookup_n(
        enum slurmconf_scope scope, const char *name, size_t len) {
        if (!name || len == 0 || len > 64 || (unsigned) scope >= _SLURMCONF_SCOPE_MAX)
                return NULL;
        if (!key_index_ready)
                key_index_build();

        const struct slurmconf_key *newer = NULL;
        uint32_t slot = hash_nocase(name, len) & (INDEX_SIZE - 1);
        for (size_t probes = 0; probes < INDEX_SIZE && key_index[slot] >= 0; probes++) {
                const struct slurmconf_key *k = &key_table[key_index[slot]];
                if ((k->scopes & SLURMCONF_SCOPE_BIT(scope)) && strlen(k->name) == len &&
                        strncasecmp(k->name, name, len) == 0) {
                        if (!k->since)
                                return k;
                        if (!newer)
                                newer = k;
                }
                slot = (slot + 1) & (INDEX_SIZE - 1);
        }
        return newer;
}

const struct slurmconf_key *slurmconf_key_lookup(enum slurmconf_scope scope, const char *name) {
        return name ? slurmconf_key_lookup_n(scope, name, strlen(name)) : NULL;
}

const char *slurmconf_scope_line_key(enum slurmconf_scope scope) {
        switch (scope) {
        case SLURMCONF_NODE:
                return "NodeName";
        case SLURMCONF_NODESET:
                return "NodeSet";
        case SLURMCONF_PARTITION:
                return "PartitionName";
        case SLURMCONF_DOWNNODES:
                return "DownNodes";
        case SLURMCONF_FRONTEND:
                return "FrontendName";
        default:
                return NULL;
        }
}

const char *slurmconf_scope_name(enum slurmconf_scope scope) {
        static const char *const names[_SLURMCONF_SCOPE_MAX] = {
                [SLURMCONF_GLOBAL] = "global",
                [SLURMCONF_NODE] = "node",
                [SLURMCONF_NODESET] = "nodeset",
                [SLURMCONF_PARTITION] = "partition",
                [SLURMCONF_DOWNNODES] = "downnodes",
                [SLURMCONF_FRONTEND] = "frontend",
        };
        return (unsigned) scope < _SLURMCONF_SCOPE_MAX ? names[scope] : "unknown";
}

int slurmconf_key_foreach(int (*fn)(const struct slurmconf_key *k, void *userdata), void *userdata) {
        for (size_t i = 0; i < ELEMENTSOF(key_table); i++) {
                int r = fn(&key_table[i], userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}
