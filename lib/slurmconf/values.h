/* SPDX-License-Identifier: Apache-2.0 */
/* The value grammar of every slurm.conf key an option string can set (GLOBAL, PARTITION and
 * NODE keys of Slurm 22.05), so a value Slurm would refuse, ignore or misread is refused first.
 *
 * Design note: where each rule comes from (Slurm 22.05.8 source).
 *  - The reader (src/common/read_config.c) stores each key with an s_p type
 *    (src/common/parse_value.c): UINT16/32/64 take strtoul(…, 0) (so "0x10" and "010" are hex
 *    and octal, "08" is refused), an optional k/K suffix (x1024) for 32/64 bits only, and
 *    UNLIMITED or INFINITE (any case) for the type's all-ones value; BOOLEAN takes
 *    yes/up/true/1 and no/down/false/0 (any case). We accept exactly that, and narrow it
 *    where the daemons later refuse, reset or misread a value (CPUs=0, MinJobAge=1,
 *    TreeWidth=0, UNLIMITED as a CPU count, a "k" without digits, a k that overflows): those
 *    refusals are listed in tests/unit/test-values.c and counted by the property test.
 *  - Times: time_str2mins()/time_str2secs() (src/common/parse_time.c): minutes, MM:SS,
 *    HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or -1/INFINITE/UNLIMITED. Minutes keys: MaxTime,
 *    DefaultTime (partition), PriorityDecayHalfLife, PriorityCalcPeriod (at least 1 minute),
 *    PriorityMaxAge. Seconds key: PreemptExemptTime. A time whose seconds overflow an int
 *    (Slurm's arithmetic) is refused.
 *  - Words: the enums and flag lists Slurm checks in _validate_and_set_defaults(), the
 *    partition and node parsers and their helpers (log_string2num, preempt_mode_num,
 *    debug_str2flags, prolog_str2flags, parse_select_type_param, parse_rlimits,
 *    xlate_cpu_bind_str, …). Words are case-insensitive except the rlimit names, as in Slurm.
 *    Lists split at "," and skip empty items (strtok_r), as Slurm does. Where Slurm matches a
 *    prefix or a substring (partition State=UPPER, PriorityFlags, PrivateData, LogTimeFormat)
 *    or ignores an unknown word with an error, we require the documented words.
 *  - Plugins: "<type>/<name>" with the type of the key (SchedulerType → sched); list keys
 *    (TaskPlugin, JobSubmitPlugins, …) take "<name>" or "<type>/<name>" items, as their
 *    loaders do; MpiDefault takes a bare name. Names are the plugins of the 22.05 source
 *    tree (case-sensitive, as plugin files are); whether one is installed is checked on the
 *    complete file by slurm/confcheck.h.
 *  - Grammars checked later by slurmctld and fatal there: Licenses, TRESBillingWeights,
 *    AccountingStorageTRES, GresTypes, node Gres, SrunPortRange, RequeueExit, ….
 *  - Free text (the reader takes any string and nothing in 22.05 parses it further, or the
 *    parser is a plugin's): *Parameters keys other than those above, passwords, Reason,
 *    InteractiveStepOptions, JobCompLoc, … Only the option parser's character rules apply.
 *  - Paths: the reader takes any string; we require an absolute path.
 *  - Two keys consult this machine as the reader does: SlurmUser/SlurmdUser must be a user
 *    (getpwnam(), or a uid getpwuid() knows) and each PluginDir entry a directory (stat()).
 * Cross-key rules (PreemptMode needs a PreemptType, FirstJobId <= MaxJobId, MCSParameters
 * needs MCSPlugin, …) are checked by slurmconf_values_check_set() over the effective values.
 *
 * Messages: one line, at most about 100 bytes, the key first, the value in quotes (cut to 40
 * bytes, non-printable bytes as "?"): `MaxTime: "forever" is not a time limit (minutes,
 * [D-]HH:MM[:SS] or UNLIMITED)`.
 *
 * Ownership: every pointer returned points into static tables. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "slurmconf/keys.h"
#include "util/strbuf.h"

enum slurmconf_value_type {
        SLURMCONF_VALUE_UNKNOWN,     /* no grammar (key not settable through an option string) */
        SLURMCONF_VALUE_UINT,        /* Slurm's unsigned integer within [min, max] */
        SLURMCONF_VALUE_BOOL,        /* yes/no/true/false/up/down/1/0 */
        SLURMCONF_VALUE_TIME,        /* time_str2mins()/time_str2secs() forms */
        SLURMCONF_VALUE_DEBUG_LEVEL, /* quiet … debug5 or 0-10 */
        SLURMCONF_VALUE_ENUM,        /* one of words */
        SLURMCONF_VALUE_FLAGS,       /* comma list of words */
        SLURMCONF_VALUE_PLUGIN,      /* "<type>/<name>", name from words */
        SLURMCONF_VALUE_PLUGIN_LIST, /* comma list of "<name>" or "<type>/<name>" */
        SLURMCONF_VALUE_HOSTLIST,    /* Slurm hostlist expression */
        SLURMCONF_VALUE_NAME_LIST,   /* comma list of names (accounts, QOS, groups, partitions) */
        SLURMCONF_VALUE_PATH,        /* absolute path */
        SLURMCONF_VALUE_HOST,        /* host name or IPv4 address */
        SLURMCONF_VALUE_SPECIAL,     /* a grammar of its own (examples show it) */
        SLURMCONF_VALUE_TEXT,        /* free text: Slurm 22.05 does not parse it further */
        SLURMCONF_VALUE_REMOVED,     /* Slurm 22.05 refuses the key whatever its value */
        _SLURMCONF_VALUE_TYPE_MAX,
};

enum {
        SLURMCONF_VALUE_F_UNLIMITED = 1u << 0, /* UINT: UNLIMITED/INFINITE accepted */
        SLURMCONF_VALUE_F_KSUFFIX = 1u << 1,   /* UINT: the k/K suffix is accepted (32/64 bits) */
        SLURMCONF_VALUE_F_MINUTES = 1u << 2,   /* TIME: stored in minutes */
        SLURMCONF_VALUE_F_SECONDS = 1u << 3,   /* TIME: stored in seconds */
        SLURMCONF_VALUE_F_CASE = 1u << 4,      /* words are case-sensitive */
        SLURMCONF_VALUE_F_BARE = 1u << 5,      /* PLUGIN: a bare name, no "<type>/" */
        SLURMCONF_VALUE_F_ALL = 1u << 6,       /* NAME_LIST, HOSTLIST: "ALL" accepted */
};

struct slurmconf_value_info {
        const char *key; /* canonical spelling (keys.h) */
        unsigned scopes; /* SLURMCONF_SCOPE_BIT() of the scopes this grammar is for */
        enum slurmconf_value_type type;
        unsigned flags;              /* SLURMCONF_VALUE_F_* */
        unsigned bits;               /* UINT: 16, 32 or 64 (the s_p type) */
        uint64_t min, max;           /* UINT: accepted range; TIME: minimum (minutes or seconds) */
        const char *const *words;    /* ENUM, FLAGS: the words; PLUGIN*: the plugin names */
        const char *plugin_type;     /* PLUGIN*: "sched", "task", …; NULL otherwise */
        const char *const *examples; /* valid values (documentation, generators); NULL-ended */
        const char *hint;            /* what a value should be, for messages */
        int (*check)(const struct slurmconf_value_info *info, const char *value, struct strbuf *err);
};

/* The grammar of key (canonical name, case-insensitive) in scope, or NULL. */
const struct slurmconf_value_info *slurmconf_value_info(enum slurmconf_scope scope, const char *key);
/* Its type (SLURMCONF_VALUE_UNKNOWN when there is no grammar). */
enum slurmconf_value_type slurmconf_value_type(enum slurmconf_scope scope, const char *key);
/* The plugin type of a plugin key ("sched" for SchedulerType, "job_submit" for
 * JobSubmitPlugins, "mpi" for MpiDefault, …), NULL for other keys. */
const char *slurmconf_value_plugin_type(enum slurmconf_scope scope, const char *key);
/* "uint", "bool", "time", … */
const char *slurmconf_value_type_name(enum slurmconf_value_type type);

/* Checks value for key in scope with Slurm 22.05's rules (DebugFlags and PrologFlags: the words
 * of the generation this library was built for, slurmconf/subopts.h). 0 when valid; -EINVAL with one
 * message appended to err (may be NULL) when not, or when the key has no grammar in that
 * scope. */
int slurmconf_value_check(
        enum slurmconf_scope scope, const char *key, const char *value, struct strbuf *err);

/* The effective value of key, or NULL when it is not set (Slurm's default then applies). */
typedef const char *(*slurmconf_value_get_fn)(const char *key, void *userdata);

/* Checks the rules that tie keys of one line together (GLOBAL: PreemptMode and PreemptType,
 * FirstJobId and MaxJobId, MCSParameters and MCSPlugin, PrologFlags and ProctrackType, …;
 * PARTITION: DefMemPerCPU and DefMemPerNode, …; NODE: MemSpecLimit and RealMemory, …) with
 * Slurm's defaults for unset keys. Each value is assumed to have passed
 * slurmconf_value_check(). 0 or -EINVAL with one message. */
int slurmconf_values_check_set(
        enum slurmconf_scope scope, slurmconf_value_get_fn get, void *userdata, struct strbuf *err);

/* Calls fn for each grammar row (tests, generators); stops at a non-zero return. */
int slurmconf_value_foreach(
        int (*fn)(const struct slurmconf_value_info *info, void *userdata), void *userdata);
