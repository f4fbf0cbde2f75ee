/* SPDX-License-Identifier: Apache-2.0 */
/* Value grammars of the slurm.conf keys option strings can set, derived from Slurm 22.05's
 * reader and daemons, and the cross-key rules of one line (see values.h). */
#include "util/macro.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdlib.h>

#include "slurm/caps.h"
#include "slurmconf/hostlist.h"
#include "slurmconf/pathkeys.h"
#include "slurmconf/subopts.h"
#include "slurmconf/timespec.h"
#include "slurmconf/values.h"
#include "util/strv.h"
#include "util/banned.h"

#define S(x) SLURMCONF_SCOPE_BIT(SLURMCONF_##x)
#define U16MAX UINT64_C(0xffff)
#define U32MAX UINT64_C(0xffffffff)
#define U64MAX UINT64_MAX

/* --- messages ------------------------------------------------------------------------------ */

static void add_quoted(struct strbuf *err, const char *s, size_t len) {
        size_t n = len > 40 ? 40 : len;
        strbuf_addch(err, '"');
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char) s[i];
                strbuf_addch(err, ch >= 0x20 && ch < 0x7f ? (char) ch : '?');
        }
        if (len > n)
                strbuf_addstr(err, "...");
        strbuf_addch(err, '"');
}

/* Appends `Key: "what" <reason>` and returns -EINVAL. */
_printf_(5, 6) static int bad_n(struct strbuf *err, const struct slurmconf_value_info *info,
        const char *what, size_t what_len, const char *fmt, ...) {
        if (err) {
                va_list ap;
                strbuf_addf(err, "%s: ", info->key);
                add_quoted(err, what, what_len);
                strbuf_addch(err, ' ');
                va_start(ap, fmt);
                strbuf_vaddf(err, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

#define bad(err, info, what, ...) bad_n(err, info, what, strlen(what), __VA_ARGS__)

/* --- small parsers shared by the grammars ---------------------------------------------------- */

/* The next item of a list split at any byte of seps, empty items skipped (strtok_r's rule).
 * Returns false at the end. */
static bool next_item(const char **p, const char *seps, const char **ret, size_t *ret_len) {
        const char *s = *p;
        while (*s && strchr(seps, *s))
                s++;
        if (!*s)
                return false;
        const char *e = s;
        while (*e && !strchr(seps, *e))
                e++;
        *ret = s;
        *ret_len = (size_t) (e - s);
        *p = e;
        return true;
}

static bool word_eq(const char *w, const char *s, size_t len, bool case_sensitive) {
        return strlen(w) == len && (case_sensitive ? strncmp(w, s, len) : strncasecmp(w, s, len)) == 0;
}

/* Index of s[0..len) in the NULL-ended words, or -1. */
static int word_index(const char *const *words, const char *s, size_t len, bool case_sensitive) {
        for (int i = 0; words && words[i]; i++)
                if (word_eq(words[i], s, len, case_sensitive))
                        return i;
        return -1;
}

static bool all_digits(const char *s, size_t len) {
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!isdigit((unsigned char) s[i]))
                        return false;
        return true;
}

/* Decimal digits s[0..len) as a number; false when empty, not digits or above max. */
static bool parse_decimal(const char *s, size_t len, uint64_t max, uint64_t *ret) {
        if (!all_digits(s, len))
                return false;
        uint64_t v = 0;
        for (size_t i = 0; i < len; i++) {
                unsigned d = (unsigned) (s[i] - '0');
                if (v > (max - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        *ret = v;
        return true;
}

enum num_result {
        NUM_OK,
        NUM_UNLIMITED,
        NUM_NOT_NUMBER,
        NUM_NEGATIVE,
        NUM_TOO_BIG,
};

/* Slurm's s_p_handle_uint16/32/64(): strtoul(value, 0) (decimal, 0x hex, 0 octal), k/K
 * (x1024) for 32 and 64 bits, UNLIMITED/INFINITE. Stricter only where Slurm reads nonsense: a
 * "k" without digits (0 for Slurm) and a k multiplication that wraps. */
static enum num_result parse_sp_uint(const char *value, unsigned bits, uint64_t *ret) {
        uint64_t max = bits == 16 ? U16MAX : bits == 32 ? U32MAX : U64MAX;
        if (strcaseeq(value, "UNLIMITED") || strcaseeq(value, "INFINITE")) {
                *ret = max;
                return NUM_UNLIMITED;
        }
        const char *d = value;
        if (*d == '+' || *d == '-')
                d++;
        if (!isdigit((unsigned char) *d))
                return NUM_NOT_NUMBER;
        char *end;
        errno = 0;
        unsigned long long num = strtoull(value, &end, 0);
        bool range = errno == ERANGE;
        if (bits > 16 && (*end == 'k' || *end == 'K')) {
                if (num > U64MAX / 1024)
                        range = true;
                num *= 1024;
                end++;
        }
        if (*end != '\0')
                return NUM_NOT_NUMBER;
        if (value[0] == '-')
                return NUM_NEGATIVE;
        if (range || num > max)
                return NUM_TOO_BIG;
        *ret = num;
        return NUM_OK;
}

/* One %d of sscanf() over a string of digits, "-" and ":" only. */
static bool scan_int(const char **p, int64_t *ret, bool *overflow) {
        const char *s = *p;
        bool neg = false;
        if (*s == '-' || *s == '+') {
                neg = *s == '-';
                s++;
        }
        if (!isdigit((unsigned char) *s))
                return false;
        int64_t v = 0;
        while (isdigit((unsigned char) *s)) {
                if (v <= INT_MAX)
                        v = v * 10 + (*s - '0');
                s++;
        }
        if (v > INT_MAX)
                *overflow = true;
        *ret = neg ? -v : v;
        *p = s;
        return true;
}

/* sscanf(s, "%d<sep0>%d<sep1>…") into v (zeroed first); returns the count converted. */
static int scan_ints(const char *s, const char *seps, int64_t v[4], bool *overflow) {
        int n = 0;
        v[0] = v[1] = v[2] = v[3] = 0;
        for (;;) {
                if (!scan_int(&s, &v[n], overflow))
                        return n;
                n++;
                if (n > (int) strlen(seps) || *s != seps[n - 1])
                        return n;
                s++;
        }
}

enum time_result {
        TIME_OK,
        TIME_INFINITE,
        TIME_INVALID,
        TIME_OVERFLOW,
};

/* Slurm's time_str2secs(): seconds in *ret. Stricter only where Slurm's int arithmetic
 * overflows (TIME_OVERFLOW). */
static enum time_result parse_time_secs(const char *s, int64_t *ret) {
        if (streq(s, "-1") || strcaseeq(s, "INFINITE") || strcaseeq(s, "UNLIMITED"))
                return TIME_INFINITE;
        if (!*s || !slurmconf_timespec_valid(s))
                return TIME_INVALID;
        int64_t v[4], secs;
        bool overflow = false;
        if (strchr(s, '-')) {
                scan_ints(s, "-::", v, &overflow);
                secs = v[0] * 86400 + v[1] * 3600 + v[2] * 60 + v[3];
        } else if (scan_ints(s, "::", v, &overflow) == 3)
                secs = v[0] * 3600 + v[1] * 60 + v[2];
        else
                secs = v[0] * 60 + v[1];
        if (overflow || secs > INT_MAX - 59)
                return TIME_OVERFLOW;
        *ret = secs;
        return TIME_OK;
}

/* A host name (RFC 1123 labels) or a dotted IPv4 address. */
static bool valid_host(const char *h, size_t n) {
        if (n == 0 || n > 253)
                return false;
        size_t label = 0;
        for (size_t i = 0; i < n; i++) {
                char c = h[i];
                if (c == '.') {
                        if (label == 0 || h[i - 1] == '-')
                                return false;
                        label = 0;
                        continue;
                }
                if (!isalnum((unsigned char) c) && c != '-' && c != '_')
                        return false;
                if (c == '-' && label == 0)
                        return false;
                if (++label > 63)
                        return false;
        }
        return label > 0;
}

/* A name Slurm keeps as it is: accounts, QOS, partitions, features, users, licenses. */
static bool name_char(unsigned char c) {
        return isalnum(c) || c == '_' || c == '-' || c == '.';
}

static bool valid_name(const char *s, size_t n) {
        if (n == 0 || n > 128)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!name_char((unsigned char) s[i]))
                        return false;
        return true;
}

/* --- word tables (Slurm 22.05 source) -------------------------------------------------------- */

#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define EXAMPLES(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const char *const debug_levels[] = { "quiet", "fatal", "error", "info", "verbose", "debug", "debug2",
        "debug3", "debug4", "debug5", NULL };

/* debug_str2flags() */
static const char *const debug_flags[] = { "Accrue", "Agent", "Backfill", "BackfillMap", "BurstBuffer",
        "cgroup", "CPU_Bind", "CpuFrequency", "Data", "DB_Archive", "DB_Assoc", "DB_Event", "DB_Job",
        "DB_QOS", "DB_Query", "DB_Reservation", "DB_Resource", "DB_Step", "DB_TRES", "DB_Usage", "DB_WCKey",
        "Dependency", "Elasticsearch", "Energy", "ExtSensors", "Federation", "FrontEnd", "Gang", "Gres",
        "Hetjob", "Interconnect", "JAG", "JobAccountGather", "JobContainer", "License", "MPI", "Net",
        "Network", "NetRaw", "NetworkRaw", "NO_CONF_HASH", "NodeFeatures", "Power", "PowerSave", "Priority",
        "Profile", "Protocol", "Reservation", "Route", "Script", "SelectType", "Steps", "Switch", "TimeCray",
        "TraceJobs", "Trigger", "Triggers", "WorkQ", "WorkQueue",
        /* 24.11 only (slurmconf/subopts.h judges per generation) */
        "AuditRPCs", "ConMgr", "DBD_Agent", "GLOB_SILENCE", "JobComp", "Sack", "TLS", NULL };

static const char *const bool_words[] = { "yes", "no", "true", "false", "up", "down", "1", "0", NULL };

/* --- the generic grammars ---------------------------------------------------------------------- */

static int check_uint(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        uint64_t v;
        const char *unl = (info->flags & SLURMCONF_VALUE_F_UNLIMITED) ? " or UNLIMITED" : "";
        switch (parse_sp_uint(value, info->bits, &v)) {
        case NUM_UNLIMITED:
                /* the type's all-ones value (65535, 4294967295, …), as for Slurm */
                if (v <= info->max)
                        return 0;
                return bad(err, info, value, "is not allowed here (a number %" PRIu64 "-%" PRIu64 ")",
                        info->min, info->max);
        case NUM_NOT_NUMBER:
                return bad(err, info, value, "is not a number (%" PRIu64 "-%" PRIu64 "%s)", info->min,
                        info->max, unl);
        case NUM_NEGATIVE:
        case NUM_TOO_BIG:
                return bad(err, info, value, "is out of range (%" PRIu64 "-%" PRIu64 "%s)", info->min,
                        info->max, unl);
        case NUM_OK:
                break;
        }
        if (v < info->min || v > info->max)
                return bad(err, info, value, "is out of range (%" PRIu64 "-%" PRIu64 "%s)", info->min,
                        info->max, unl);
        return 0;
}

static int check_bool(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if (word_index(bool_words, value, strlen(value), false) >= 0)
                return 0;
        return bad(err, info, value, "is not YES or NO");
}

static int check_time(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        bool minutes = info->flags & SLURMCONF_VALUE_F_MINUTES;
        int64_t secs;
        switch (parse_time_secs(value, &secs)) {
        case TIME_INFINITE:
                if (info->min > 0)
                        return bad(err, info, value, "must be a time of at least %" PRIu64 " minute",
                                info->min);
                return 0;
        case TIME_INVALID:
                return bad(err, info, value, "is not a time %s",
                        minutes ? "(minutes, [D-]HH:MM[:SS] or UNLIMITED)"
                                : "(minutes, MM:SS, [D-]HH:MM:SS or UNLIMITED)");
        case TIME_OVERFLOW:
                return bad(err, info, value, "is too long a time");
        case TIME_OK:
                break;
        }
        if (secs < 0)
                return bad(err, info, value, "is a negative time");
        int64_t v = minutes ? (secs + 59) / 60 : secs;
        if ((uint64_t) v < info->min)
                return bad(err, info, value, "must be a time of at least %" PRIu64 " %s", info->min,
                        minutes ? "minute" : "second");
        return 0;
}

static int check_debug_level(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        uint64_t n;
        if (isdigit((unsigned char) value[0])) {
                /* log_string2num() takes atoi(); above LOG_LEVEL_END (10) it is reset with an error */
                if (parse_decimal(value, strlen(value), 10, &n))
                        return 0;
                return bad(err, info, value,
                        "is not a debug level (quiet, fatal, error, info, verbose, debug…debug5, 0-10)");
        }
        if (word_index(debug_levels, value, strlen(value), false) >= 0)
                return 0;
        return bad(
                err, info, value, "is not a debug level (quiet, fatal, error, info, verbose, debug…debug5)");
}

static int check_enum(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if (word_index(info->words, value, strlen(value), info->flags & SLURMCONF_VALUE_F_CASE) >= 0)
                return 0;
        return bad(err, info, value, "is not %s", info->hint);
}

static int check_flags(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n))
                if (word_index(info->words, w, n, info->flags & SLURMCONF_VALUE_F_CASE) < 0)
                        return bad_n(err, info, w, n, "is not %s", info->hint);
        return 0;
}

/* One plugin item: "<name>" (lists, bare keys) or "<type>/<name>". */
static int check_plugin_item(
        const struct slurmconf_value_info *info, const char *w, size_t n, bool list, struct strbuf *err) {
        const char *name = w;
        size_t nl = n, tl = strlen(info->plugin_type);
        bool bare = info->flags & SLURMCONF_VALUE_F_BARE;
        if (!bare && n > tl && strncmp(w, info->plugin_type, tl) == 0 && w[tl] == '/') {
                name = w + tl + 1;
                nl = n - tl - 1;
        } else if (!list && !bare) {
                const char *slash = memchr(w, '/', n);
                if (slash)
                        return bad_n(err, info, w, n, "is not a %s plugin (%s/NAME)", info->plugin_type,
                                info->plugin_type);
                return bad_n(err, info, w, n, "is not a plugin (%s/NAME)", info->plugin_type);
        }
        if (word_index(info->words, name, nl, true) >= 0)
                return 0;
        /* list the names when they fit in the message */
        struct strbuf names = STRBUF_INIT;
        for (size_t i = 0; info->words[i]; i++)
                strbuf_addf(&names, "%s%s", i ? ", " : "", info->words[i]);
        int r;
        /* the names when the message stays within about 100 bytes */
        size_t shown = n > 40 ? 43 : n;
        if (strlen(info->key) + shown + 2 * strlen(info->plugin_type) + names.len + 34 <= 100)
                r = bad_n(err, info, w, n, "is not a Slurm 22.05 %s plugin (%s)", info->plugin_type,
                        names.buf);
        else
                r = bad_n(err, info, w, n, "is not a Slurm 22.05 %s plugin", info->plugin_type);
        strbuf_release(&names);
        return r;
}

static int check_plugin(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        return check_plugin_item(info, value, strlen(value), false, err);
}

static int check_plugin_list(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n)) {
                int r = check_plugin_item(info, w, n, true, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int check_hostlist(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if ((info->flags & SLURMCONF_VALUE_F_ALL) && strcaseeq(value, "ALL"))
                return 0;
        /* with room for no name, a valid non-empty expression gives -E2BIG */
        struct strv none = STRV_INIT;
        int r = hostlist_expand(value, 0, &none);
        strv_clear(&none);
        if (r == -E2BIG)
                return 0;
        return bad(err, info, value, "is not a hostlist (node[1-4],other)");
}

static int check_name_list(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if ((info->flags & SLURMCONF_VALUE_F_ALL) && strcaseeq(value, "ALL"))
                return 0;
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n)) {
                if ((info->flags & SLURMCONF_VALUE_F_ALL) && word_eq("ALL", w, n, false))
                        continue;
                bool ok = n > 0 && n <= 128;
                for (size_t i = 0; ok && i < n; i++)
                        ok = name_char((unsigned char) w[i]) ||
                                (w[i] == ' ' && streq(info->key, "AllowGroups"));
                if (!ok)
                        return bad_n(err, info, w, n, "is not %s", info->hint);
        }
        return 0;
}

/* A path key: absolute, normalised and inside the roots of its use (slurmconf/pathkeys.h). */
static int check_path(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const struct slurmconf_path_key *k = slurmconf_path_key(info->key);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = slurmconf_path_check(k ? k->use : SLURMCONF_PATH_OTHER, value, &e);
        if (r < 0 && err)
                strbuf_addf(err, "%s: %s", info->key, e.buf);
        return r;
}

/* A plain IPv6 address (hex digits and at least two colons). */
static bool valid_ipv6(const char *s) {
        size_t colons = 0, n = strlen(s);
        if (n < 2 || n > 45)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == ':')
                        colons++;
                else if (!isxdigit((unsigned char) s[i]) && s[i] != '.')
                        return false;
        }
        return colons >= 2;
}

static int check_host(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if (valid_host(value, strlen(value)) || valid_ipv6(value))
                return 0;
        return bad(err, info, value, "is not a host name or IPv4 address");
}

static int check_removed(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if (err)
                strbuf_addf(err, "%s: %s", info->key, info->hint);
        return -EINVAL;
}

static int check_text(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        return 0;
}

/* --- grammars of their own ------------------------------------------------------------------- */

/* preempt_mode_num(): one mode (OFF/CLUSTER, CANCEL, REQUEUE, SUSPEND/ON) with GANG or WITHIN
 * (not both); globally SUSPEND needs GANG. */
static int check_preempt_mode(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        static const char *const modes[] = { "off", "cluster", "cancel", "requeue", "on", "suspend", NULL };
        const char *p = value, *w;
        size_t n;
        int nmodes = 0;
        bool gang = false, within = false, suspend = false;
        while (next_item(&p, ",", &w, &n)) {
                int i = word_index(modes, w, n, false);
                if (word_eq("gang", w, n, false))
                        gang = true;
                else if (word_eq("within", w, n, false))
                        within = true;
                else if (i >= 0) {
                        nmodes++;
                        suspend = suspend || i >= 4;
                } else
                        return bad_n(err, info, w, n,
                                "is not a preempt mode (OFF, CANCEL, REQUEUE, SUSPEND, GANG, WITHIN)");
        }
        if (nmodes > 1)
                return bad(err, info, value, "sets more than one mode");
        if (gang && within)
                return bad(err, info, value, "combines GANG and WITHIN");
        if ((info->scopes & S(GLOBAL)) && suspend && !gang && !within && nmodes == 1)
                return bad(err, info, value, "needs GANG too (SUSPEND,GANG)");
        return 0;
}

/* Partition OverSubscribe: EXCLUSIVE, NO, YES[:n] (n >= 2), FORCE[:n] (n >= 1). Slurm ignores
 * a bad count with an error; we refuse it. */
static int check_oversubscribe(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        static const char *const hint = "is not EXCLUSIVE, NO, YES[:N] or FORCE[:N]";
        if (strcaseeq(value, "NO") || strcaseeq(value, "EXCLUSIVE") || strcaseeq(value, "YES") ||
                strcaseeq(value, "FORCE"))
                return 0;
        size_t off;
        uint64_t min;
        if (strncasecmp(value, "YES:", 4) == 0) {
                off = 4;
                min = 2;
        } else if (strncasecmp(value, "FORCE:", 6) == 0) {
                off = 6;
                min = 1;
        } else
                return bad(err, info, value, "%s", hint);
        uint64_t v;
        if (!parse_decimal(value + off, strlen(value) - off, INT_MAX, &v) || v < min)
                return bad(err, info, value, "has a bad job count (%s%" PRIu64 " or more)",
                        min == 2 ? "YES:" : "FORCE:", min);
        return 0;
}

/* Global SelectTypeParameters (parse_select_type_param()). */
static int check_select_params(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        static const char *const base[] = { "CR_Socket", "CR_Socket_Memory", "CR_Core", "CR_Core_Memory",
                "CR_Memory", "CR_CPU", "CR_CPU_Memory", NULL };
        static const char *const extra[] = { "other_cons_res", "other_cons_tres", "CR_ALLOCATE_FULL_SOCKET",
                "CR_ONE_TASK_PER_CORE", "CR_CORE_DEFAULT_DIST_BLOCK", "CR_LLN", "CR_PACK_NODES", NULL };
        const char *p = value, *w;
        size_t n;
        int nbase = 0;
        bool cpu = false, one_task = false;
        while (next_item(&p, ",", &w, &n)) {
                int i = word_index(base, w, n, false);
                if (i >= 0) {
                        nbase++;
                        cpu = cpu || i >= 5;
                } else if ((i = word_index(extra, w, n, false)) >= 0)
                        one_task = one_task || i == 3;
                else
                        return bad_n(
                                err, info, w, n, "is not a SelectTypeParameters word (CR_Core_Memory, …)");
        }
        if (nbase > 1)
                return bad(err, info, value, "sets more than one CR_ type");
        if (cpu && one_task)
                return bad(err, info, value, "combines CR_CPU and CR_ONE_TASK_PER_CORE");
        return 0;
}

/* TaskPluginParam: at most one of none/sockets/cores/threads, verbose, one autobind=, SlurmdOffSpec. */
static int check_task_plugin_param(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        static const char *const units[] = { "none", "sockets", "cores", "threads", NULL };
        static const char *const autos[] = { "none", "threads", "cores", "sockets", NULL };
        const char *p = value, *w;
        size_t n;
        bool unit = false, autob = false;
        while (next_item(&p, ",", &w, &n)) {
                if (word_index(units, w, n, false) >= 0) {
                        if (unit)
                                return bad(err, info, value,
                                        "sets more than one of none, sockets, cores, threads");
                        unit = true;
                } else if (n > 9 && strncasecmp(w, "autobind=", 9) == 0) {
                        if (autob || word_index(autos, w + 9, n - 9, false) < 0)
                                return bad_n(
                                        err, info, w, n, "is not one autobind=none|threads|cores|sockets");
                        autob = true;
                } else if (!word_eq("verbose", w, n, false) && !word_eq("SlurmdOffSpec", w, n, false))
                        return bad_n(err, info, w, n, "is not a TaskPluginParam word (cores, verbose, …)");
        }
        return 0;
}

/* parse_rlimits(): ALL, NONE or a list of rlimit names with an optional RLIMIT_ prefix, all
 * case-sensitive. */
static int check_rlimits(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        static const char *const names[] = { "CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC",
                "NOFILE", "MEMLOCK", "AS", NULL };
        if (streq(value, "ALL") || streq(value, "NONE"))
                return 0;
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n)) {
                const char *nm = w;
                size_t nl = n;
                if (n > 7 && strncmp(w, "RLIMIT_", 7) == 0) {
                        nm += 7;
                        nl -= 7;
                }
                if (word_index(names, nm, nl, true) < 0)
                        return bad_n(
                                err, info, w, n, "is not ALL, NONE or an rlimit name (CORE, NOFILE, …)");
        }
        return 0;
}

/* xlate_cpu_bind_str(): one of none/sockets/ldoms/cores/threads/off, optionally verbose.
 * Slurm ignores a bad value with an error. */
static int check_cpu_bind(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        static const char *const types[] = { "no", "none", "socket", "sockets", "ldom", "ldoms", "core",
                "cores", "thread", "threads", "off", NULL };
        const char *p = value, *w;
        size_t n;
        bool type = false;
        while (next_item(&p, ",", &w, &n)) {
                if (word_index(types, w, n, false) >= 0) {
                        if (type)
                                return bad(err, info, value, "sets more than one binding");
                        type = true;
                } else if (!word_eq("v", w, n, false) && !word_eq("verbose", w, n, false))
                        return bad_n(err, info, w, n,
                                "is not a binding (none, sockets, ldoms, cores, threads, off)");
        }
        return 0;
}

/* Global SuspendTime: NONE, INFINITE, -1 or seconds (atoi(): Slurm reads junk as 0). */
static int check_suspend_time(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        uint64_t v;
        bool part = info->scopes & S(PARTITION);
        if (strcaseeq(value, "INFINITE") || streq(value, "-1") || (!part && strcaseeq(value, "NONE")))
                return 0;
        if (parse_decimal(value, strlen(value), part ? U32MAX : INT_MAX, &v))
                return 0;
        return bad(err, info, value, "is not seconds, %s or -1", part ? "INFINITE" : "NONE, INFINITE");
}

/* Partition OverTimeLimit: minutes (above 65534 is UNLIMITED) or UNLIMITED/INFINITE; Slurm's
 * strtol() reads junk as 0. */
static int check_part_overtime(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        uint64_t v;
        if (strcaseeq(value, "UNLIMITED") || strcaseeq(value, "INFINITE") ||
                parse_decimal(value, strlen(value), INT_MAX, &v))
                return 0;
        return bad(err, info, value, "is not minutes or UNLIMITED");
}

/* SrunPortRange: MIN-MAX, 0 <= MIN < MAX < 65534 (_parse_srun_ports(); a bad range is
 * silently dropped by Slurm). */
static int check_port_range(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *dash = strchr(value, '-');
        uint64_t lo, hi;
        if (!dash || !parse_decimal(value, (size_t) (dash - value), 65533, &lo) ||
                !parse_decimal(dash + 1, strlen(dash + 1), 65533, &hi) || hi <= lo)
                return bad(err, info, value, "is not a port range MIN-MAX (MIN < MAX < 65534)");
        return 0;
}

/* BcastExclude: NONE or a list of absolute paths. */
static int check_bcast_exclude(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if (strcaseeq(value, "none"))
                return 0;
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n))
                if (w[0] != '/')
                        return bad_n(err, info, w, n, "is not an absolute path");
        return 0;
}

/* Licenses (slurmctld's _build_license_list(), fatal there): NAME[:COUNT] items split at
 * "," or ";", COUNT >= 0. */
static int check_licenses(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",;", &w, &n)) {
                const char *colon = memchr(w, ':', n);
                size_t nl = colon ? (size_t) (colon - w) : n;
                uint64_t c;
                for (size_t i = 0; i < nl; i++)
                        if (w[i] == '=' || w[i] == '(' || w[i] == ')')
                                return bad_n(err, info, w, n, "is not a license (NAME[:COUNT])");
                if (nl == 0)
                        return bad_n(err, info, w, n, "is not a license (NAME[:COUNT])");
                if (colon) {
                        const char *num = colon + 1;
                        size_t cl = n - nl - 1;
                        if (cl > 0 && *num == '+') {
                                num++;
                                cl--;
                        }
                        if (cl > 0 && !parse_decimal(num, cl, INT32_MAX, &c))
                                return bad_n(err, info, w, n, "has a bad count (NAME:COUNT, COUNT >= 0)");
                }
        }
        return 0;
}

/* A TRES name: cpu, mem, energy, node, billing, vmem, pages, or TYPE/NAME with TYPE gres,
 * license, bb, fs, ic (slurmctld's _init_tres()). */
static bool tres_name_ok(const char *w, size_t n, bool *base) {
        static const char *const simple[] = { "cpu", "mem", "energy", "node", "billing", "vmem", "pages",
                NULL };
        static const char *const typed[] = { "gres", "license", "bb", "fs", "ic", NULL };
        *base = true;
        if (word_index(simple, w, n, false) >= 0)
                return true;
        const char *slash = memchr(w, '/', n);
        if (!slash || word_index(typed, w, (size_t) (slash - w), false) < 0)
                return false;
        size_t rest = n - (size_t) (slash - w) - 1;
        if (!valid_name(slash + 1, rest))
                return false;
        *base = word_eq("fs/disk", w, n, false);
        return true;
}

static int check_tres_list(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        bool base;
        while (next_item(&p, ",", &w, &n))
                if (!tres_name_ok(w, n, &base))
                        return bad_n(err, info, w, n,
                                "is not a TRES (cpu, mem, node, gres/NAME, license/NAME, …)");
        return 0;
}

/* TRES weights (slurm_get_tres_weight_array(), fatal in slurmctld): TRES=NUMBER[K|M|G|T|P]. */
static int check_tres_weights(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        bool base;
        while (next_item(&p, ",", &w, &n)) {
                const char *eq = memchr(w, '=', n);
                if (!eq || !tres_name_ok(w, (size_t) (eq - w), &base))
                        return bad_n(err, info, w, n, "is not TRES=WEIGHT (CPU=1.0, Mem=0.25G, …)");
                char num[64];
                size_t nl = n - (size_t) (eq - w) - 1;
                if (nl == 0 || nl >= sizeof(num))
                        return bad_n(err, info, w, n, "has no weight");
                memcpy(num, eq + 1, nl);
                num[nl] = '\0';
                if (!isdigit((unsigned char) num[0]) && num[0] != '.')
                        return bad_n(err, info, w, n, "has a bad weight");
                char *end;
                errno = 0;
                (void) strtod(num, &end);
                if (errno || (*end && (end[1] || !strchr("KMGTPkmgtp", *end))))
                        return bad_n(err, info, w, n, "has a bad weight (NUMBER[K|M|G|T|P])");
        }
        return 0;
}

/* RequeueExit, RequeueExitHold: exit codes and ranges N-M (0-255). */
static int check_exit_codes(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n)) {
                const char *dash = memchr(w, '-', n);
                uint64_t lo, hi;
                bool ok = dash ? parse_decimal(w, (size_t) (dash - w), 255, &lo) &&
                                parse_decimal(dash + 1, n - (size_t) (dash - w) - 1, 255, &hi) && lo <= hi
                               : parse_decimal(w, n, 255, &lo);
                if (!ok)
                        return bad_n(err, info, w, n, "is not an exit code or range (0-255, N-M)");
        }
        return 0;
}

/* GresTypes: GRES names; mps and shard need gpu (gres_init(), fatal). */
static int check_gres_types(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        bool gpu = false, shared = false;
        while (next_item(&p, ",", &w, &n)) {
                for (size_t i = 0; i < n; i++)
                        if (!isalnum((unsigned char) w[i]) && w[i] != '_')
                                return bad_n(err, info, w, n, "is not a GRES name");
                gpu = gpu || word_eq("gpu", w, n, true);
                shared = shared || word_eq("mps", w, n, true) || word_eq("shard", w, n, true);
        }
        if (shared && !gpu)
                return bad(err, info, value, "needs gpu with mps or shard");
        return 0;
}

/* Node Gres (gres.c _get_gres_cnt()): NAME[:TYPE][:COUNT[K|M|G|T|P]][(S:sockets)] items. */
static int check_node_gres(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n)) {
                size_t len = n;
                const char *paren = NULL;
                for (size_t i = 0; i < n; i++)
                        if (w[i] == '(')
                                paren = w + i;
                if (paren) {
                        if (w[n - 1] != ')' || paren[1] != 'S' || paren[2] != ':')
                                return bad_n(err, info, w, n, "has a bad socket list ((S:0-1))");
                        len = (size_t) (paren - w);
                }
                /* fields split at ":"; the last may be a count */
                const char *f = w, *end = w + len;
                int fields = 0;
                while (f <= end) {
                        const char *c = memchr(f, ':', (size_t) (end - f));
                        const char *fe = c ? c : end;
                        size_t fl = (size_t) (fe - f);
                        bool last = !c;
                        if (fl == 0)
                                return bad_n(err, info, w, n, "is not NAME[:TYPE][:COUNT]");
                        if (fields > 0 && last && isdigit((unsigned char) f[0])) {
                                size_t dl = 0;
                                while (dl < fl && isdigit((unsigned char) f[dl]))
                                        dl++;
                                uint64_t cnt;
                                if (!parse_decimal(
                                            f, dl, INT64_MAX / 1024 / 1024 / 1024 / 1024 / 1024, &cnt) ||
                                        (fl - dl > 1) || (fl - dl == 1 && !strchr("KMGTPkmgtp", f[dl])))
                                        return bad_n(err, info, w, n, "has a bad count");
                        } else {
                                for (size_t i = 0; i < fl; i++)
                                        if (!isalnum((unsigned char) f[i]) && f[i] != '_' && f[i] != '-' &&
                                                f[i] != '.')
                                                return bad_n(err, info, w, n, "is not NAME[:TYPE][:COUNT]");
                        }
                        fields++;
                        if (last)
                                break;
                        f = c + 1;
                }
        }
        return 0;
}

/* CpuSpecList (bit_unfmt(), ignored with an error when bad): CPU ids and ranges. */
static int check_cpu_list(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n)) {
                const char *dash = memchr(w, '-', n);
                uint64_t lo, hi;
                bool ok = dash ? parse_decimal(w, (size_t) (dash - w), 65535, &lo) &&
                                parse_decimal(dash + 1, n - (size_t) (dash - w) - 1, 65535, &hi) && lo <= hi
                               : parse_decimal(w, n, 65535, &lo);
                if (!ok)
                        return bad_n(err, info, w, n, "is not a CPU id or range (0-3,8)");
        }
        return 0;
}

/* Features of a node: names, no constraint operators. */
static int check_features(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        while (next_item(&p, ",", &w, &n))
                if (!valid_name(w, n))
                        return bad_n(err, info, w, n, "is not a feature name (letters, digits, _ - .)");
        return 0;
}

/* JobAcctGatherFrequency: SECONDS, or task=, energy=, network=, filesystem= SECONDS items. */
static int check_acct_freq(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        static const char *const types[] = { "task", "energy", "network", "filesystem", NULL };
        const char *p = value, *w;
        size_t n;
        uint64_t v;
        if (parse_decimal(value, strlen(value), INT_MAX, &v))
                return 0;
        while (next_item(&p, ",", &w, &n)) {
                const char *eq = memchr(w, '=', n);
                if (!eq || word_index(types, w, (size_t) (eq - w), false) < 0 ||
                        !parse_decimal(eq + 1, n - (size_t) (eq - w) - 1, INT_MAX, &v))
                        return bad_n(
                                err, info, w, n, "is not SECONDS or task|energy|network|filesystem=SECONDS");
        }
        return 0;
}

/* GpuFreqDef: [memory=]low|medium|high|highm1|MHZ items, verbose. */
static int check_gpu_freq(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        static const char *const levels[] = { "low", "medium", "high", "highm1", NULL };
        const char *p = value, *w;
        size_t n;
        uint64_t v;
        while (next_item(&p, ",", &w, &n)) {
                if (word_eq("verbose", w, n, false))
                        continue;
                const char *val = w;
                size_t vl = n;
                if (n > 7 && strncasecmp(w, "memory=", 7) == 0) {
                        val += 7;
                        vl -= 7;
                }
                if (word_index(levels, val, vl, false) < 0 && !parse_decimal(val, vl, U32MAX, &v))
                        return bad_n(err, info, w, n, "is not [memory=]low|medium|high|highm1|MHZ");
        }
        return 0;
}

/* SuspendExcNodes: hostlists with an optional :COUNT after a set. */
static int check_suspend_exc_nodes(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        struct strbuf hl = STRBUF_INIT;
        int depth = 0;
        for (const char *s = value; *s; s++) {
                if (*s == '[')
                        depth++;
                else if (*s == ']')
                        depth--;
                if (*s == ':' && depth == 0) {
                        const char *e = s + 1;
                        while (isdigit((unsigned char) *e))
                                e++;
                        if (e == s + 1 || (*e && *e != ',')) {
                                strbuf_release(&hl);
                                return bad(err, info, value, "is not a hostlist with optional :COUNT");
                        }
                        s = e - 1;
                        continue;
                }
                strbuf_addch(&hl, *s);
        }
        struct strv none = STRV_INIT;
        int r = hl.len ? hostlist_expand(hl.buf, 0, &none) : -EINVAL;
        strv_clear(&none);
        strbuf_release(&hl);
        if (r == -E2BIG)
                return 0;
        return bad(err, info, value, "is not a hostlist with optional :COUNT");
}

/* AccountingStorageExternalHost: HOST[:PORT] items. */
static int check_host_ports(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        uint64_t port;
        while (next_item(&p, ",", &w, &n)) {
                const char *colon = memchr(w, ':', n);
                size_t hl = colon ? (size_t) (colon - w) : n;
                if (!valid_host(w, hl) ||
                        (colon && (!parse_decimal(colon + 1, n - hl - 1, 65535, &port) || port == 0)))
                        return bad_n(err, info, w, n, "is not HOST[:PORT]");
        }
        return 0;
}

/* Partition QOS: one QOS name. */
static int check_qos(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if (valid_name(value, strlen(value)))
                return 0;
        return bad(err, info, value, "is not a QOS name");
}

/* A user of this system, by name or uid, as the reader's uid_from_string() requires. */
static int check_user(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        uint64_t uid;
        if (!valid_name(value, strlen(value)) || value[0] == '-')
                return bad(err, info, value, "is not a user name");
        if (getpwnam(value))
                return 0;
        if (parse_decimal(value, strlen(value), INT_MAX, &uid) && getpwuid((uid_t) uid))
                return 0;
        return bad(err, info, value, "is not a user of this system");
}

/* PluginDir: colon-separated absolute directories (checked to exist by the reader). */
static int check_dir_list(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        bool any = false;
        while (next_item(&p, ":", &w, &n)) {
                struct stat st;
                char dir[PATH_MAX];
                if (w[0] != '/' || n >= sizeof(dir))
                        return bad_n(err, info, w, n, "is not an absolute directory");
                /* the reader's _is_valid_path(): each one must be a directory here */
                memcpy(dir, w, n);
                dir[n] = '\0';
                if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
                        return bad_n(err, info, w, n, "is not a directory on this machine");
                any = true;
        }
        return any ? 0 : bad(err, info, value, "is not an absolute directory");
}

/* DebugFlags (debug_str2flags()): the words of every generation are in the row; the ones the
 * Slurm this library was built for (and runs with) knows are slurmconf/subopts.h's (an unknown
 * one makes every Slurm program exit). */
static int check_debug_flags(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        int r = check_flags(info, value, err);
        if (r < 0)
                return r;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurmconf_subopts_check(info->key, value, slurm_caps_built()->release, &e) < 0)
                return bad(err, info, value, "has %s", e.buf);
        return 0;
}

/* PrologFlags (prolog_str2flags()): NoHold cannot be combined with Contain or X11 (or 24.11's
 * RunInJob, which implies Contain). Which words a generation knows: slurmconf/subopts.h. */
static int check_prolog_flags(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        int r = check_flags(info, value, err);
        if (r < 0)
                return r;
        const char *p = value, *w;
        size_t n;
        bool nohold = false, contain = false;
        while (next_item(&p, ",", &w, &n)) {
                nohold = nohold || word_eq("NoHold", w, n, false);
                contain = contain || word_eq("Contain", w, n, false) || word_eq("X11", w, n, false) ||
                        word_eq("RunInJob", w, n, false);
        }
        if (nohold && contain)
                return bad(err, info, value, "combines NoHold with Contain or X11");
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurmconf_subopts_check(info->key, value, slurm_caps_built()->release, &e) < 0)
                return bad(err, info, value, "has %s", e.buf);
        return 0;
}

/* CpuFreqGovernors: at least one governor. */
static int check_governors(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *p = value, *w;
        size_t n;
        if (!next_item(&p, ",", &w, &n))
                return bad(err, info, value, "names no governor");
        return check_flags(info, value, err);
}

/* Case-insensitive substring, as Slurm's xstrcasestr(). */
static const char *find_nocase(const char *hay, const char *needle) {
        size_t n = strlen(needle);
        for (const char *s = hay; *s; s++)
                if (strncasecmp(s, needle, n) == 0)
                        return s;
        return NULL;
}

/* Parameter lists: Slurm takes most words as they come; these rules make the reader or the
 * daemons fail or ignore a value. */
static int check_params(const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        const char *s;
        if (streq(info->key, "SchedulerParameters") && (s = find_nocase(value, "max_script_size="))) {
                uint64_t v;
                const char *num = s + 16;
                size_t dl = strspn(num, "0123456789");
                if (!parse_decimal(num, dl, 512 * 1024 * 1024, &v))
                        return bad(err, info, value, "has max_script_size above 512 MB (536870912)");
        }
        if (streq(info->key, "LaunchParameters") && find_nocase(value, "enable_nss_slurm") &&
                find_nocase(value, "disable_send_gids"))
                return bad(err, info, value, "combines enable_nss_slurm and disable_send_gids");
        if (streq(info->key, "JobAcctGatherParams") && find_nocase(value, "UsePSS") &&
                find_nocase(value, "NoShared"))
                return bad(err, info, value, "combines UsePSS and NoShared");
        if (streq(info->key, "CommunicationParameters")) {
                if (find_nocase(value, "DisableIPv4") && !find_nocase(value, "EnableIPv6"))
                        return bad(err, info, value, "disables IPv4 without EnableIPv6");
                static const char *const ka[] = {
                        "keepaliveinterval=", "keepaliveprobes=", "keepalivetime=", NULL
                };
                for (size_t i = 0; ka[i]; i++)
                        if ((s = find_nocase(value, ka[i]))) {
                                uint64_t v;
                                const char *num = s + strlen(ka[i]);
                                if (!parse_decimal(num, strspn(num, "0123456789"), INT_MAX, &v))
                                        return bad(err, info, value, "has a bad %.*s value",
                                                (int) strlen(ka[i]) - 1, ka[i]);
                        }
        }
        /* otherwise free text: Slurm ignores the words it does not know */
        return 0;
}

/* Node Reason: free text, but slurmd -Z refuses a --conf string holding "NodeName=" or "Port="
 * anywhere (_validate_dynamic_conf(), fatal). */
static int check_node_reason(
        const struct slurmconf_value_info *info, const char *value, struct strbuf *err) {
        if (find_nocase(value, "NodeName=") || find_nocase(value, "Port="))
                return bad(err, info, value, "holds NodeName= or Port=, which slurmd --conf refuses");
        return 0;
}

/* --- the table ----------------------------------------------------------------------------- */

#define ROW(k, sc, t, ...) \
        { .key = k, .scopes = sc, .type = SLURMCONF_VALUE_##t, __VA_ARGS__ }
#define UINT_ROW(k, sc, b, lo, hi, fl, ...) \
        ROW(k, sc, UINT, .bits = b, .min = lo, .max = hi, .flags = fl, .check = check_uint, __VA_ARGS__)
#define U16(k, sc, lo, hi, fl) UINT_ROW(k, sc, 16, lo, hi, fl, .hint = "a number")
#define U32(k, sc, lo, hi, fl) \
        UINT_ROW(k, sc, 32, lo, hi, (fl) | SLURMCONF_VALUE_F_KSUFFIX, .hint = "a number")
#define U64(k, sc, lo, hi, fl) \
        UINT_ROW(k, sc, 64, lo, hi, (fl) | SLURMCONF_VALUE_F_KSUFFIX, .hint = "a number")
#define BOOL(k, sc) ROW(k, sc, BOOL, .check = check_bool, .words = bool_words, .hint = "YES or NO")
#define TIME(k, sc, unit, lo) \
        ROW(k, sc, TIME, .flags = SLURMCONF_VALUE_F_##unit, .min = lo, .check = check_time, .hint = "a time")
#define ENUM(k, sc, w, h) ROW(k, sc, ENUM, .words = w, .check = check_enum, .hint = h)
#define FLAGS(k, sc, w, h) ROW(k, sc, FLAGS, .words = w, .check = check_flags, .hint = h)
#define PLUGIN(k, type, w) \
        ROW(k, S(GLOBAL), PLUGIN, .plugin_type = type, .words = w, .check = check_plugin, .hint = "a plugin")
#define PLUGINS(k, type, w)                                                                         \
        ROW(k, S(GLOBAL), PLUGIN_LIST, .plugin_type = type, .words = w, .check = check_plugin_list, \
                .hint = "plugins")
#define PATH_EX(k, h, ...) \
        ROW(k, S(GLOBAL), PATH, .check = check_path, .hint = h, .examples = EXAMPLES(__VA_ARGS__))
/* the use of each is in slurmconf/pathkeys.c's table; the examples follow it */
#define LOGFILE(k) PATH_EX(k, "a log file in " SLURMCONF_LOG_DIR, SLURMCONF_LOG_DIR "/x.log")
#define PROGRAM(k) \
        PATH_EX(k, "a program in " SLURMCONF_SITE_SCRIPTS_DIR, SLURMCONF_SITE_SCRIPTS_DIR "/x", "/usr/bin/true")
#define PATH(k) PATH_EX(k, "an absolute path", "/etc/slurm/x")
#define TEXT(k, sc, ...) ROW(k, sc, TEXT, .check = check_text, .hint = "text", __VA_ARGS__)
#define PARAMS(k, ...) ROW(k, S(GLOBAL), TEXT, .check = check_params, .hint = "parameters", __VA_ARGS__)
#define SPECIAL(k, sc, fn, ...) ROW(k, sc, SPECIAL, .check = fn, __VA_ARGS__)
#define REMOVED(k, sc, why) ROW(k, sc, REMOVED, .check = check_removed, .hint = why)
#define HOST(k)                                                        \
        ROW(k, S(GLOBAL), HOST, .check = check_host, .hint = "a host", \
                .examples = EXAMPLES("db1", "10.0.0.5"))
#define NAMES(k, sc, fl, h, ...) \
        ROW(k, sc, NAME_LIST, .flags = fl, .check = check_name_list, .hint = h, __VA_ARGS__)

#define G S(GLOBAL)
#define P S(PARTITION)
#define N S(NODE)
#define GP (S(GLOBAL) | S(PARTITION))
#define NP (S(NODE) | S(PARTITION))
#define UNL SLURMCONF_VALUE_F_UNLIMITED

static const struct slurmconf_value_info value_table[] = {
        /* --- accounting --- */
        HOST("AccountingStorageBackupHost"),
        FLAGS("AccountingStorageEnforce", G,
                WORDS("1", "2", "associations", "limits", "safe", "wckeys", "qos", "all", "nojobs",
                        "nosteps"),
                "an enforcement (associations, limits, qos, safe, wckeys, all, nojobs, nosteps)"),
        SPECIAL("AccountingStorageExternalHost", G, check_host_ports, .hint = "HOST[:PORT] list",
                .examples = EXAMPLES("db1:6819", "db1,db2:6820")),
        HOST("AccountingStorageHost"),
        REMOVED("AccountingStorageLoc", G, "removed from Slurm (slurmctld refuses it)"),
        PARAMS("AccountingStorageParameters", .examples = EXAMPLES("SSL_CERT=/etc/ssl/x.pem")),
        TEXT("AccountingStoragePass", G, .examples = EXAMPLES("/var/run/munge/munge.socket.2")),
        U16("AccountingStoragePort", G, 1, 65535, 0),
        SPECIAL("AccountingStorageTRES", G, check_tres_list, .hint = "TRES list",
                .examples = EXAMPLES("cpu,mem,node", "gres/gpu,license/matlab", "billing")),
        PLUGIN("AccountingStorageType", "accounting_storage", WORDS("none", "slurmdbd")),
        TEXT("AccountingStorageUser", G, .examples = EXAMPLES("slurm")),
        FLAGS("AccountingStoreFlags", G, WORDS("job_comment", "job_env", "job_script"),
                "job_comment, job_env or job_script"),
        REMOVED("AccountingStoreJobComment", G, "removed from Slurm (use AccountingStoreFlags=job_comment)"),
        PLUGINS("AcctGatherEnergyType", "acct_gather_energy",
                WORDS("gpu", "ibmaem", "ipmi", "none", "pm_counters", "rapl", "rsmi", "xcc")),
        PLUGIN("AcctGatherFilesystemType", "acct_gather_filesystem", WORDS("lustre", "none")),
        PLUGINS("AcctGatherInfinibandType", "acct_gather_infiniband", WORDS("none", "ofed", "sysfs")),
        PLUGINS("AcctGatherInterconnectType", "acct_gather_interconnect", WORDS("none", "ofed", "sysfs")),
        U16("AcctGatherNodeFreq", G, 0, 65535, 0),
        PLUGIN("AcctGatherProfileType", "acct_gather_profile", WORDS("hdf5", "influxdb", "none")),
        BOOL("AllowSpecResourcesUsage", G),
        TEXT("AuthAltParameters", G, .examples = EXAMPLES("jwt_key=/etc/slurm/jwt.key")),
        PLUGINS("AuthAltTypes", "auth", WORDS("jwt", "munge", "none")),
        TEXT("AuthInfo", G, .examples = EXAMPLES("socket=/run/munge/munge.socket.2")),
        PLUGIN("AuthType", "auth", WORDS("munge", "none", "jwt")),
        HOST("BackupAddr"),
        HOST("BackupController"),
        U16("BatchStartTimeout", G, 0, 65535, 0),
        SPECIAL("BcastExclude", G, check_bcast_exclude, .hint = "paths",
                .examples = EXAMPLES("none", "/lib,/usr/lib")),
        PARAMS("BcastParameters", .examples = EXAMPLES("DestDir=/tmp,Compression=lz4", "send_libs")),
        PARAMS("BurstBufferParameters"),
        PLUGINS("BurstBufferType", "burst_buffer", WORDS("datawarp", "lua")),
        PLUGINS("CliFilterPlugins", "cli_filter", WORDS("lua", "none", "syslog", "user_defaults")),
        TEXT("ClusterName", G, .examples = EXAMPLES("cluster")),
        PARAMS("CommunicationParameters",
                .examples = EXAMPLES("NoAddrCache", "keepalivetime=60,EnableIPv6")),
        U16("CompleteWait", G, 0, 65535, 0),
        HOST("ControlAddr"),
        HOST("ControlMachine"),
        PLUGINS("CoreSpecPlugin", "core_spec", WORDS("cray_aries", "none")),
        ENUM("CpuFreqDef", G, WORDS("Conservative", "OnDemand", "Performance", "PowerSave", "SchedUtil"),
                "a governor (Conservative, OnDemand, Performance, PowerSave, SchedUtil)"),
        ROW("CpuFreqGovernors", G, FLAGS, .check = check_governors,
                .words = WORDS(
                        "Conservative", "OnDemand", "Performance", "PowerSave", "SchedUtil", "UserSpace"),
                .hint = "a governor (Conservative, OnDemand, Performance, PowerSave, UserSpace, …)"),
        PLUGIN("CredType", "cred", WORDS("munge", "none")),
        PLUGIN("CryptoType", "crypto", WORDS("munge", "none")),
        ROW("DebugFlags", G, FLAGS, .words = debug_flags, .check = check_debug_flags,
                .hint = "a debug flag (Backfill, Gres, Protocol, … see slurm.conf(5))"),
        REMOVED("Default", P, "is set by the slurmctld option default-partition"),
        TIME("DefaultTime", P, MINUTES, 0),
        U64("DefCpuPerGPU", GP, 0, U64MAX, 0),
        U64("DefMemPerCPU", GP, 0, U64MAX, UNL),
        U64("DefMemPerGPU", GP, 0, U64MAX, UNL),
        U64("DefMemPerNode", GP, 0, U64MAX, UNL),
        NAMES("DenyAccounts", P, 0, "an account name", .examples = EXAMPLES("guest", "a1,a2")),
        NAMES("DenyQos", P, 0, "a QOS name", .examples = EXAMPLES("low", "low,debug")),
        PARAMS("DependencyParameters", .examples = EXAMPLES("kill_invalid_depend", "max_depend_depth=5")),
        BOOL("DisableRootJobs", GP),
        U16("EioTimeout", G, 0, 65535, 0),
        ENUM("EnforcePartLimits", G,
                WORDS("yes", "up", "true", "1", "any", "no", "down", "false", "0", "all"), "ALL, ANY or NO"),
        PROGRAM("Epilog"),
        U32("EpilogMsgTime", G, 0, U32MAX, 0),
        PROGRAM("EpilogSlurmctld"),
        BOOL("ExclusiveUser", P),
        U16("ExtSensorsFreq", G, 0, 65535, 0),
        PLUGIN("ExtSensorsType", "ext_sensors", WORDS("none", "rrd")),
        U16("FairShareDampeningFactor", G, 1, 65535, 0),
        REMOVED("FastSchedule", G, "removed from Slurm (use SlurmdParameters=config_overrides)"),
        SPECIAL("Features", N, check_features, .hint = "feature names",
                .examples = EXAMPLES("gpu", "a100,ib")),
        PARAMS("FederationParameters", .examples = EXAMPLES("fed_display")),
        U32("FirstJobId", G, 1, U32MAX, 0),
        U16("GetEnvTimeout", G, 0, 65535, 0),
        SPECIAL("GpuFreqDef", G, check_gpu_freq, .hint = "GPU frequencies",
                .examples = EXAMPLES("high,memory=high", "medium", "1000,verbose")),
        U32("GraceTime", P, 0, U32MAX, 0),
        SPECIAL("Gres", N, check_node_gres, .hint = "GRES",
                .examples = EXAMPLES("gpu:2", "gpu:a100:4", "gpu:h100:4(S:0-1)")),
        SPECIAL("GresTypes", G, check_gres_types, .hint = "GRES names",
                .examples = EXAMPLES("gpu", "gpu,mps,nic")),
        U16("GroupUpdateForce", G, 0, 65535, 0),
        U16("GroupUpdateTime", G, 0, 65535, 0),
        U16("HealthCheckInterval", G, 0, 65535, 0),
        FLAGS("HealthCheckNodeState", G, WORDS("ANY", "ALLOC", "CYCLE", "IDLE", "MIXED"),
                "a node state (ANY, ALLOC, CYCLE, IDLE, MIXED)"),
        PROGRAM("HealthCheckProgram"),
        BOOL("Hidden", P),
        U16("InactiveLimit", G, 0, 65535, 0),
        TEXT("InteractiveStepOptions", G, .examples = EXAMPLES("--interactive", "--pty")),
        SPECIAL("JobAcctGatherFrequency", G, check_acct_freq, .hint = "intervals",
                .examples = EXAMPLES("30", "task=30,energy=60")),
        PARAMS("JobAcctGatherParams", .examples = EXAMPLES("OverMemoryKill", "UsePss,OverMemoryKill")),
        PLUGIN("JobAcctGatherType", "jobacct_gather", WORDS("cgroup", "linux", "none")),
        HOST("JobCompHost"),
        TEXT("JobCompLoc", G, .examples = EXAMPLES("/var/log/slurm/jobcomp.log")),
        PARAMS("JobCompParams"),
        TEXT("JobCompPass", G, .examples = EXAMPLES("secret")),
        U32("JobCompPort", G, 1, 65535, 0),
        PLUGIN("JobCompType", "jobcomp",
                WORDS("elasticsearch", "filetxt", "lua", "mysql", "none", "script")),
        TEXT("JobCompUser", G, .examples = EXAMPLES("slurm")),
        PLUGINS("JobContainerType", "job_container", WORDS("cncu", "none", "tmpfs")),
        PATH("JobCredentialPrivateKey"),
        PATH("JobCredentialPublicCertificate"),
        U16("JobFileAppend", G, 0, 1, 0),
        U16("JobRequeue", G, 0, 1, 0),
        PLUGINS("JobSubmitPlugins", "job_submit",
                WORDS("all_partitions", "cray_aries", "defaults", "logging", "lua", "partition", "pbs",
                        "require_timelimit", "throttle")),
        U32("KeepAliveTime", G, 0, INT_MAX, 0),
        U16("KillOnBadExit", G, 0, 1, 0),
        U16("KillWait", G, 0, 65535, 0),
        PARAMS("LaunchParameters",
                .examples = EXAMPLES("use_interactive_step", "enable_nss_slurm,slurmstepd_memlock")),
        PLUGIN("LaunchType", "launch", WORDS("slurm")),
        SPECIAL("Licenses", G, check_licenses, .hint = "licenses",
                .examples = EXAMPLES("matlab:4,ansys", "fluent:10")),
        BOOL("LLN", P),
        ENUM("LogTimeFormat", G,
                WORDS("iso8601", "iso8601_ms", "rfc5424", "rfc5424_ms", "clock", "short", "thread_id"),
                "a log time format (iso8601[_ms], rfc5424[_ms], clock, short, thread_id)"),
        HOST("MailDomain"),
        PROGRAM("MailProg"),
        U32("MaxArraySize", G, 0, 4000001, 0),
        U32("MaxCPUsPerNode", P, 0, U32MAX, UNL),
        U32("MaxDBDMsgs", G, 10000, U32MAX, 0),
        U32("MaxJobCount", G, 1, U32MAX, 0),
        U32("MaxJobId", G, 1, 0x03FFFFFF, 0),
        U64("MaxMemPerCPU", GP, 0, U64MAX, UNL),
        U64("MaxMemPerNode", GP, 0, U64MAX, UNL),
        U32("MaxNodeCount", G, 0, U32MAX, 0),
        U32("MaxNodes", P, 0, U32MAX, UNL),
        U32("MaxStepCount", G, 1, U32MAX, 0),
        U16("MaxTasksPerNode", G, 0, 65535, 0),
        TIME("MaxTime", P, MINUTES, 0),
        PARAMS("MCSParameters", .examples = EXAMPLES("enforced,select,privatedata")),
        PLUGIN("MCSPlugin", "mcs", WORDS("account", "group", "none", "user")),
        U64("MemSpecLimit", N, 0, U64MAX, 0),
        U16("MessageTimeout", G, 1, 65535, 0),
        U32("MinJobAge", G, 2, U32MAX, 0),
        U32("MinNodes", P, 0, U32MAX, 0),
        ROW("MpiDefault", G, PLUGIN, .flags = SLURMCONF_VALUE_F_BARE, .plugin_type = "mpi",
                .words = WORDS(
                        "cray_shasta", "none", "openmpi", "pmi2", "pmix", "pmix_v2", "pmix_v3", "pmix_v4"),
                .check = check_plugin, .hint = "an MPI plugin"),
        PARAMS("MpiParams", .examples = EXAMPLES("ports=12000-12999")),
        PLUGINS("NodeFeaturesPlugins", "node_features", WORDS("helpers", "knl_cray", "knl_generic")),
        SPECIAL("OverSubscribe", P, check_oversubscribe, .hint = "EXCLUSIVE, NO, YES[:N] or FORCE[:N]",
                .examples = EXAMPLES("NO", "EXCLUSIVE", "YES:4", "FORCE:1", "force")),
        U16("OverTimeLimit", G, 0, 65535, UNL),
        SPECIAL("OverTimeLimit", P, check_part_overtime, .hint = "minutes or UNLIMITED",
                .examples = EXAMPLES("5", "UNLIMITED", "70000")),
        SPECIAL("PluginDir", G, check_dir_list, .hint = "directories",
                .examples = EXAMPLES("/usr/lib", "/usr/lib/x86_64-linux-gnu/slurm-wlm:/usr/lib")),
        PATH_EX("PlugStackConfig", "a file in /etc/slurm", "/etc/slurm/plugstack.conf"),
        PARAMS("PowerParameters", .examples = EXAMPLES("balance_interval=60")),
        PLUGINS("PowerPlugin", "power", WORDS("cray_aries", "none")),
        TIME("PreemptExemptTime", G, SECONDS, 0),
        SPECIAL("PreemptMode", G, check_preempt_mode, .hint = "preempt modes",
                .examples = EXAMPLES("OFF", "REQUEUE", "SUSPEND,GANG", "CANCEL,WITHIN", "gang")),
        SPECIAL("PreemptMode", P, check_preempt_mode, .hint = "preempt modes",
                .examples = EXAMPLES("OFF", "REQUEUE", "SUSPEND", "CANCEL,GANG")),
        PLUGIN("PreemptType", "preempt", WORDS("none", "partition_prio", "qos")),
        PARAMS("PrEpParameters"),
        PLUGINS("PrEpPlugins", "prep", WORDS("script")),
        U16("Priority", P, 0, 65535, 0),
        TIME("PriorityCalcPeriod", G, MINUTES, 1),
        TIME("PriorityDecayHalfLife", G, MINUTES, 0),
        BOOL("PriorityFavorSmall", G),
        FLAGS("PriorityFlags", G,
                WORDS("ACCRUE_ALWAYS", "CALCULATE_RUNNING", "DEPTH_OBLIVIOUS", "NO_FAIR_TREE", "INCR_ONLY",
                        "MAX_TRES", "NO_NORMAL_ALL", "NO_NORMAL_ASSOC", "NO_NORMAL_PART", "NO_NORMAL_QOS",
                        "NO_NORMAL_TRES", "SMALL_RELATIVE_TO_TIME"),
                "a priority flag (MAX_TRES, NO_FAIR_TREE, … see slurm.conf(5))"),
        U16("PriorityJobFactor", P, 0, 65535, 0),
        TIME("PriorityMaxAge", G, MINUTES, 0),
        PARAMS("PriorityParameters"),
        PARAMS("PrioritySiteFactorParameters"),
        PLUGIN("PrioritySiteFactorPlugin", "site_factor", WORDS("none")),
        U16("PriorityTier", P, 0, 65535, 0),
        PLUGIN("PriorityType", "priority", WORDS("basic", "multifactor")),
        ENUM("PriorityUsageResetPeriod", G,
                WORDS("none", "now", "daily", "weekly", "monthly", "quarterly", "yearly"),
                "a period (NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY)"),
        U32("PriorityWeightAge", G, 0, U32MAX, 0),
        U32("PriorityWeightAssoc", G, 0, U32MAX, 0),
        U32("PriorityWeightFairshare", G, 0, U32MAX, 0),
        U32("PriorityWeightJobSize", G, 0, U32MAX, 0),
        U32("PriorityWeightPartition", G, 0, U32MAX, 0),
        U32("PriorityWeightQOS", G, 0, U32MAX, 0),
        SPECIAL("PriorityWeightTRES", G, check_tres_weights, .hint = "TRES weights",
                .examples = EXAMPLES("CPU=1000,Mem=2000", "billing=5")),
        FLAGS("PrivateData", G,
                WORDS("account", "accounts", "all", "cloud", "event", "events", "job", "jobs", "node",
                        "nodes", "partition", "partitions", "reservation", "reservations", "usage", "user",
                        "users"),
                "a PrivateData word (accounts, jobs, nodes, usage, users, … see slurm.conf(5))"),
        PLUGIN("ProctrackType", "proctrack", WORDS("cgroup", "cray_aries", "linuxproc", "pgid")),
        PROGRAM("Prolog"),
        U16("PrologEpilogTimeout", G, 0, 65535, 0),
        ROW("PrologFlags", G, FLAGS, .check = check_prolog_flags,
                .words = WORDS("Alloc", "Contain", "DeferBatch", "NoHold", "Serial", "X11", "ForceRequeueOnFail",
                        "RunInJob"),
                .hint = "a prolog flag (Alloc, Contain, DeferBatch, NoHold, Serial, X11; 24.11: "
                        "ForceRequeueOnFail, RunInJob)"),
        PROGRAM("PrologSlurmctld"),
        U16("PropagatePrioProcess", G, 0, 2, 0),
        SPECIAL("PropagateResourceLimits", G, check_rlimits, .hint = "rlimits",
                .examples = EXAMPLES("ALL", "NONE", "CORE,NOFILE", "RLIMIT_STACK")),
        SPECIAL("PropagateResourceLimitsExcept", G, check_rlimits, .hint = "rlimits",
                .examples = EXAMPLES("MEMLOCK", "CORE,AS")),
        ROW("QOS", P, NAME_LIST, .check = check_qos, .hint = "a QOS name",
                .examples = EXAMPLES("normal", "high")),
        U64("RealMemory", N, 1, U64MAX, 0),
        SPECIAL("Reason", N, check_node_reason, .hint = "text", .examples = EXAMPLES("burn-in")),
        PROGRAM("RebootProgram"),
        FLAGS("ReconfigFlags", G, WORDS("KeepPartInfo", "KeepPartState"), "KeepPartInfo or KeepPartState"),
        SPECIAL("RequeueExit", G, check_exit_codes, .hint = "exit codes",
                .examples = EXAMPLES("1-9,18", "255")),
        SPECIAL("RequeueExitHold", G, check_exit_codes, .hint = "exit codes",
                .examples = EXAMPLES("10-12,16")),
        BOOL("ReqResv", P),
        PROGRAM("ResumeFailProgram"),
        PROGRAM("ResumeProgram"),
        U16("ResumeRate", G, 0, 65535, 0),
        U16("ResumeTimeout", GP, 0, 65535, 0),
        PROGRAM("ResvEpilog"),
        U16("ResvOverRun", G, 0, 65535, UNL),
        PROGRAM("ResvProlog"),
        U16("ReturnToService", G, 0, 2, 0),
        BOOL("RootOnly", P),
        PLUGIN("RoutePlugin", "route", WORDS("default", "topology")),
        REMOVED("SallocDefaultCommand", G, "removed from Slurm (use LaunchParameters=use_interactive_step)"),
        PARAMS("SbcastParameters", .examples = EXAMPLES("DestDir=/tmp")),
        REMOVED("SchedulerAuth", G, "is defunct in Slurm 22.05"),
        PARAMS("SchedulerParameters",
                .examples = EXAMPLES("bf_continue,bf_window=2880", "max_script_size=1048576")),
        U16("SchedulerTimeSlice", G, 5, 65535, 0),
        PLUGIN("SchedulerType", "sched", WORDS("backfill", "builtin")),
        PARAMS("ScronParameters", .examples = EXAMPLES("enable")),
        PLUGIN("SelectType", "select", WORDS("cons_res", "cons_tres", "cray_aries", "linear")),
        SPECIAL("SelectTypeParameters", G, check_select_params, .hint = "CR_ parameters",
                .examples = EXAMPLES("CR_Core_Memory", "CR_CPU,CR_LLN", "CR_Socket,CR_PACK_NODES")),
        ENUM("SelectTypeParameters", P, WORDS("CR_Core", "CR_Core_Memory", "CR_Socket", "CR_Socket_Memory"),
                "CR_Core, CR_Core_Memory, CR_Socket or CR_Socket_Memory"),
        HOST("SlurmctldAddr"),
        ROW("SlurmctldDebug", G, DEBUG_LEVEL, .words = debug_levels, .check = check_debug_level,
                .hint = "a debug level"),
        TEXT("SlurmctldHost", G, .examples = EXAMPLES("ctl(10.0.0.1)")),
        LOGFILE("SlurmctldLogFile"),
        PARAMS("SlurmctldParameters", .examples = EXAMPLES("enable_configless")),
        PATH("SlurmctldPidFile"),
        PLUGINS("SlurmctldPlugstack", "slurmctld", WORDS("nonstop")),
        TEXT("SlurmctldPort", G, .examples = EXAMPLES("6817")),
        PROGRAM("SlurmctldPrimaryOffProg"),
        PROGRAM("SlurmctldPrimaryOnProg"),
        ROW("SlurmctldSyslogDebug", G, DEBUG_LEVEL, .words = debug_levels, .check = check_debug_level,
                .hint = "a debug level"),
        U16("SlurmctldTimeout", G, 0, 65535, 0),
        ROW("SlurmdDebug", G, DEBUG_LEVEL, .words = debug_levels, .check = check_debug_level,
                .hint = "a debug level"),
        LOGFILE("SlurmdLogFile"),
        PARAMS("SlurmdParameters", .examples = EXAMPLES("config_overrides", "shutdown_on_reboot")),
        PATH("SlurmdPidFile"),
        U32("SlurmdPort", G, 1, 65535, 0),
        PATH("SlurmdSpoolDir"),
        ROW("SlurmdSyslogDebug", G, DEBUG_LEVEL, .words = debug_levels, .check = check_debug_level,
                .hint = "a debug level"),
        U16("SlurmdTimeout", G, 0, 65535, 0),
        SPECIAL("SlurmdUser", G, check_user, .hint = "a user", .examples = EXAMPLES("root", "0")),
        LOGFILE("SlurmSchedLogFile"),
        U16("SlurmSchedLogLevel", G, 0, 1, 0),
        SPECIAL("SlurmUser", G, check_user, .hint = "a user", .examples = EXAMPLES("root")),
        PROGRAM("SrunEpilog"),
        SPECIAL("SrunPortRange", G, check_port_range, .hint = "MIN-MAX",
                .examples = EXAMPLES("60001-63000")),
        PROGRAM("SrunProlog"),
        ENUM("State", P, WORDS("UP", "DOWN", "DRAIN", "INACTIVE"), "UP, DOWN, DRAIN or INACTIVE"),
        PATH("StateSaveLocation"),
        SPECIAL("SuspendExcNodes", G, check_suspend_exc_nodes, .hint = "hostlist",
                .examples = EXAMPLES("node[1-4]", "nid[10-20]:4,nid[80-90]")),
        NAMES("SuspendExcParts", G, 0, "a partition name", .examples = EXAMPLES("debug", "p1,p2")),
        PROGRAM("SuspendProgram"),
        U16("SuspendRate", G, 0, 65535, 0),
        SPECIAL("SuspendTime", G, check_suspend_time, .hint = "seconds",
                .examples = EXAMPLES("600", "NONE", "-1")),
        SPECIAL("SuspendTime", P, check_suspend_time, .hint = "seconds",
                .examples = EXAMPLES("600", "INFINITE", "-1")),
        U16("SuspendTimeout", GP, 0, 65535, 0),
        PARAMS("SwitchParameters"),
        PLUGIN("SwitchType", "switch", WORDS("cray_aries", "hpe_slingshot", "none")),
        PROGRAM("TaskEpilog"),
        PLUGINS("TaskPlugin", "task", WORDS("affinity", "cgroup", "cray_aries", "none")),
        SPECIAL("TaskPluginParam", G, check_task_plugin_param, .hint = "task parameters",
                .examples = EXAMPLES("cores", "Sockets,verbose", "autobind=threads", "SlurmdOffSpec")),
        PROGRAM("TaskProlog"),
        U16("TCPTimeout", G, 0, 65535, 0),
        PATH_EX("TmpFS", "an absolute path", "/tmp", "/var/tmp"),
        PARAMS("TopologyParam", .examples = EXAMPLES("dragonfly", "TopoOptional")),
        PLUGIN("TopologyPlugin", "topology", WORDS("3d_torus", "hypercube", "none", "tree")),
        BOOL("TrackWCKey", G),
        U16("TreeWidth", G, 1, 65535, UNL),
        SPECIAL("TRESBillingWeights", P, check_tres_weights, .hint = "TRES weights",
                .examples = EXAMPLES("CPU=1.0,Mem=0.25G", "billing=2", "cpu=0.5")),
        SPECIAL("TRESWeights", N, check_tres_weights, .hint = "TRES weights",
                .examples = EXAMPLES("CPU=1.0")),
        PROGRAM("UnkillableStepProgram"),
        U16("UnkillableStepTimeout", G, 0, 65535, 0),
        BOOL("UsePAM", G),
        U16("VSizeFactor", G, 0, 65535, 0),
        U16("WaitTime", G, 0, 65535, 0),
        PARAMS("X11Parameters", .examples = EXAMPLES("home_xauthority")),

        /* --- partition keys (names, hostlists, CPU binding, memory, …) --- */
        ROW("AllocNodes", P, HOSTLIST, .flags = SLURMCONF_VALUE_F_ALL, .check = check_hostlist,
                .hint = "a hostlist", .examples = EXAMPLES("ALL", "login[1-2]", "login1,login2")),
        NAMES("AllowAccounts", P, SLURMCONF_VALUE_F_ALL, "an account name",
                .examples = EXAMPLES("ALL", "physics,chem")),
        NAMES("AllowGroups", P, SLURMCONF_VALUE_F_ALL, "a group name",
                .examples = EXAMPLES("ALL", "hpc", "wheel,hpc")),
        NAMES("AllowQos", P, SLURMCONF_VALUE_F_ALL, "a QOS name",
                .examples = EXAMPLES("ALL", "normal,high")),
        NAMES("Alternate", P, 0, "a partition name", .examples = EXAMPLES("other")),
        ROW("Nodes", P, HOSTLIST, .flags = SLURMCONF_VALUE_F_ALL, .check = check_hostlist,
                .hint = "a hostlist", .examples = EXAMPLES("ALL", "node[1-4]")),
        SPECIAL("CpuBind", NP, check_cpu_bind, .hint = "a CPU binding",
                .examples = EXAMPLES("cores", "threads,verbose", "none")),

        /* --- node keys --- */
        ROW("BcastAddr", N, HOST, .check = check_host, .hint = "a host", .examples = EXAMPLES("10.1.0.5")),
        U16("Boards", N, 1, 65535, 0),
        U16("CoreSpecCount", N, 0, 65535, 0),
        U16("CoresPerSocket", N, 1, 65535, 0),
        U16("CPUs", N, 1, 65535, 0),
        SPECIAL("CpuSpecList", N, check_cpu_list, .hint = "CPU ids", .examples = EXAMPLES("0,1", "0-3,8")),
        TEXT("NodeAddr", N),
        TEXT("NodeHostname", N),
        U16("Port", N, 1, 65535, 0),
        U16("Sockets", N, 1, 65535, 0),
        U16("SocketsPerBoard", N, 1, 65535, 0),
        ENUM("State", N, WORDS("CLOUD", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "UNKNOWN"),
                "a node state (CLOUD, DOWN, DRAIN, FAIL, FAILING, FUTURE, UNKNOWN)"),
        U16("ThreadsPerCore", N, 1, 65535, 0),
        U32("TmpDisk", N, 0, U32MAX, 0),
        U32("Weight", N, 0, U32MAX, UNL),
};

static const struct slurmconf_value_info *lookup(enum slurmconf_scope scope, const char *key) {
        if (!key || (unsigned) scope >= _SLURMCONF_SCOPE_MAX)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(value_table); i++)
                if ((value_table[i].scopes & SLURMCONF_SCOPE_BIT(scope)) &&
                        strcaseeq(value_table[i].key, key))
                        return &value_table[i];
        return NULL;
}

const struct slurmconf_value_info *slurmconf_value_info(enum slurmconf_scope scope, const char *key) {
        return lookup(scope, key);
}

enum slurmconf_value_type slurmconf_value_type(enum slurmconf_scope scope, const char *key) {
        const struct slurmconf_value_info *i = lookup(scope, key);
        return i ? i->type : SLURMCONF_VALUE_UNKNOWN;
}

const char *slurmconf_value_plugin_type(enum slurmconf_scope scope, const char *key) {
        const struct slurmconf_value_info *i = lookup(scope, key);
        return i ? i->plugin_type : NULL;
}

const char *slurmconf_value_type_name(enum slurmconf_value_type type) {
        static const char *const names[_SLURMCONF_VALUE_TYPE_MAX] = {
                [SLURMCONF_VALUE_UNKNOWN] = "unknown",
                [SLURMCONF_VALUE_UINT] = "uint",
                [SLURMCONF_VALUE_BOOL] = "bool",
                [SLURMCONF_VALUE_TIME] = "time",
                [SLURMCONF_VALUE_DEBUG_LEVEL] = "debug-level",
                [SLURMCONF_VALUE_ENUM] = "enum",
                [SLURMCONF_VALUE_FLAGS] = "flags",
                [SLURMCONF_VALUE_PLUGIN] = "plugin",
                [SLURMCONF_VALUE_PLUGIN_LIST] = "plugin-list",
                [SLURMCONF_VALUE_HOSTLIST] = "hostlist",
                [SLURMCONF_VALUE_NAME_LIST] = "name-list",
                [SLURMCONF_VALUE_PATH] = "path",
                [SLURMCONF_VALUE_HOST] = "host",
                [SLURMCONF_VALUE_SPECIAL] = "special",
                [SLURMCONF_VALUE_TEXT] = "text",
                [SLURMCONF_VALUE_REMOVED] = "removed",
        };
        return (unsigned) type < _SLURMCONF_VALUE_TYPE_MAX ? names[type] : "unknown";
}

int slurmconf_value_check(
        enum slurmconf_scope scope, const char *key, const char *value, struct strbuf *err) {
        const struct slurmconf_value_info *info = lookup(scope, key);
        if (!info) {
                if (err)
                        strbuf_addf(err, "%s: no value grammar for a %s line", key ? key : "(null)",
                                slurmconf_scope_name(scope));
                return -EINVAL;
        }
        if (!value || !*value) {
                if (err)
                        strbuf_addf(err, "%s: empty value", info->key);
                return -EINVAL;
        }
        return info->check(info, value, err);
}

int slurmconf_value_foreach(
        int (*fn)(const struct slurmconf_value_info *info, void *userdata), void *userdata) {
        for (size_t i = 0; i < ELEMENTSOF(value_table); i++) {
                int r = fn(&value_table[i], userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}

/* --- cross-key rules --------------------------------------------------------------------------- */

static const char *get(slurmconf_value_get_fn fn, void *userdata, const char *key) {
        const char *v = fn(key, userdata);
        return isempty(v) ? NULL : v;
}

static uint64_t get_uint(
        slurmconf_value_get_fn fn, void *userdata, const char *key, unsigned bits, uint64_t dflt) {
        const char *v = get(fn, userdata, key);
        uint64_t n;
        if (!v)
                return dflt;
        enum num_result r = parse_sp_uint(v, bits, &n);
        return r == NUM_OK || r == NUM_UNLIMITED ? n : dflt;
}

static bool has_word(const char *list, const char *word) {
        const char *p = list, *w;
        size_t n;
        while (list && next_item(&p, ",", &w, &n))
                if (word_eq(word, w, n, false))
                        return true;
        return false;
}

/* A plugin key's name without its "<type>/" ("preempt/qos" → "qos"). */
static const char *plugin_name(const char *v) {
        const char *slash = v ? strchr(v, '/') : NULL;
        return slash ? slash + 1 : v;
}

static int check_set_global(slurmconf_value_get_fn fn, void *u, struct strbuf *err) {
        /* JobCompLoc: a path for the plugins that open or run it (slurmconf/pathkeys.h) */
        const char *loc = get(fn, u, "JobCompLoc");
        enum slurmconf_path_use use;
        const char *what = NULL;
        if (!isempty(loc) && slurmconf_path_jobcomp(get(fn, u, "JobCompType"), &use, &what) > 0) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (slurmconf_path_check(use, loc, &e) < 0) {
                        if (err)
                                strbuf_addf(err, "JobCompLoc: %s", e.buf);
                        return -EINVAL;
                }
        } else if (!isempty(loc) && loc[0] == '/' && what && streq(what, "a URL")) {
                if (err)
                        strbuf_addstr(err, "JobCompLoc: jobcomp/elasticsearch takes a URL, not a path");
                return -EINVAL;
        }

        /* FirstJobId, MaxJobId (default 0x03ff0000) */
        uint64_t first = get_uint(fn, u, "FirstJobId", 32, 1);
        uint64_t maxid = get_uint(fn, u, "MaxJobId", 32, 0x03ff0000);
        if (first > maxid) {
                if (err)
                        strbuf_addf(err, "FirstJobId (%" PRIu64 ") is above MaxJobId (%" PRIu64 ")", first,
                                maxid);
                return -EINVAL;
        }

        /* PreemptMode and PreemptType (_validate_and_set_defaults()) */
        const char *mode = get(fn, u, "PreemptMode");
        const char *ptype = plugin_name(get(fn, u, "PreemptType"));
        bool any_mode = false, only_gang_or_within = true;
        const char *p = mode, *w;
        size_t n;
        while (mode && next_item(&p, ",", &w, &n)) {
                if (word_eq("off", w, n, false) || word_eq("cluster", w, n, false))
                        continue;
                any_mode = true;
                if (!word_eq("gang", w, n, false) && !word_eq("within", w, n, false))
                        only_gang_or_within = false;
        }
        bool real_mode = any_mode && !only_gang_or_within; /* a mode other than OFF, GANG, WITHIN */
        bool within = has_word(mode, "within");
        if ((!ptype || streq(ptype, "none")) && (real_mode || within)) {
                if (err)
                        strbuf_addf(err,
                                "PreemptMode \"%s\" needs PreemptType=preempt/qos or preempt/partition_prio",
                                mode);
                return -EINVAL;
        }
        if (ptype && (streq(ptype, "qos") || streq(ptype, "partition_prio")) && !real_mode) {
                if (err)
                        strbuf_addf(err,
                                "PreemptType=preempt/%s needs PreemptMode CANCEL, REQUEUE or SUSPEND,GANG",
                                ptype);
                return -EINVAL;
        }

        /* PriorityDecayHalfLife=0 needs PriorityUsageResetPeriod */
        const char *hl = get(fn, u, "PriorityDecayHalfLife");
        int64_t secs;
        if (hl && !get(fn, u, "PriorityUsageResetPeriod") && parse_time_secs(hl, &secs) == TIME_OK &&
                (secs + 59) / 60 == 0) {
                if (err)
                        strbuf_addstr(err, "PriorityDecayHalfLife=0 needs PriorityUsageResetPeriod");
                return -EINVAL;
        }

        /* MCSParameters and MCSPlugin */
        const char *mcs = plugin_name(get(fn, u, "MCSPlugin"));
        if (get(fn, u, "MCSParameters") && !mcs) {
                if (err)
                        strbuf_addstr(err, "MCSParameters needs MCSPlugin");
                return -EINVAL;
        }
        if (mcs && streq(mcs, "group") && !get(fn, u, "MCSParameters")) {
                if (err)
                        strbuf_addstr(err, "MCSPlugin=mcs/group needs MCSParameters");
                return -EINVAL;
        }

        /* SlurmSchedLogLevel needs SlurmSchedLogFile */
        if (get_uint(fn, u, "SlurmSchedLogLevel", 16, 0) && !get(fn, u, "SlurmSchedLogFile")) {
                if (err)
                        strbuf_addstr(err, "SlurmSchedLogLevel needs SlurmSchedLogFile");
                return -EINVAL;
        }

        /* PrologFlags: X11 not with proctrack/linuxproc; job_container/tmpfs needs Contain */
        const char *pf = get(fn, u, "PrologFlags");
        const char *proctrack = plugin_name(get(fn, u, "ProctrackType"));
        if (has_word(pf, "X11") && proctrack && streq(proctrack, "linuxproc")) {
                if (err)
                        strbuf_addstr(err,
                                "PrologFlags=X11 cannot be used with ProctrackType=proctrack/linuxproc");
                return -EINVAL;
        }
        const char *jc = get(fn, u, "JobContainerType");
        if (jc && strstr(jc, "tmpfs") && !has_word(pf, "Contain") && !has_word(pf, "X11")) {
                if (err)
                        strbuf_addstr(err, "JobContainerType=job_container/tmpfs needs PrologFlags=Contain");
                return -EINVAL;
        }

        /* TaskPluginParam=SlurmdOffSpec not with task/cray_aries */
        const char *tp = get(fn, u, "TaskPlugin");
        if (has_word(get(fn, u, "TaskPluginParam"), "SlurmdOffSpec") && tp && strstr(tp, "cray_aries")) {
                if (err)
                        strbuf_addstr(
                                err, "TaskPluginParam=SlurmdOffSpec cannot be used with task/cray_aries");
                return -EINVAL;
        }

        /* MaxNodeCount needs select/cons_tres */
        const char *sel = get(fn, u, "SelectType");
        if (get_uint(fn, u, "MaxNodeCount", 32, 0) && (!sel || !strstr(sel, "cons_tres"))) {
                if (err)
                        strbuf_addstr(err, "MaxNodeCount needs SelectType=select/cons_tres");
                return -EINVAL;
        }

        /* select/cons_res and cons_tres need a CR_CPU, CR_Core or CR_Socket type */
        const char *stp = get(fn, u, "SelectTypeParameters");
        if (sel && (strstr(sel, "cons_res") || strstr(sel, "cons_tres")) && stp &&
                !find_nocase(stp, "CR_CPU") && !find_nocase(stp, "CR_Core") &&
                !find_nocase(stp, "CR_Socket")) {
                if (err)
                        strbuf_addstr(err,
                                "SelectTypeParameters needs CR_CPU, CR_Core or CR_Socket with cons_tres");
                return -EINVAL;
        }

        /* TRES other than the built-in ones need slurmdbd (slurmctld's _init_tres()) */
        const char *ast = plugin_name(get(fn, u, "AccountingStorageType"));
        const char *tres = get(fn, u, "AccountingStorageTRES");
        if (tres && (!ast || !streq(ast, "slurmdbd"))) {
                p = tres;
                bool base;
                while (next_item(&p, ",", &w, &n))
                        if (tres_name_ok(w, n, &base) && !base) {
                                if (err) {
                                        strbuf_addstr(err, "AccountingStorageTRES: ");
                                        add_quoted(err, w, n);
                                        strbuf_addstr(err,
                                                " needs AccountingStorageType=accounting_storage/slurmdbd");
                                }
                                return -EINVAL;
                        }
        }

        /* JobAcctGatherParams=OverMemoryKill with task/cgroup memory enforcement is fatal only
         * with cgroup.conf's ConstrainRAMSpace: not decidable here. */
        return 0;
}

static int check_set_partition(slurmconf_value_get_fn fn, void *u, struct strbuf *err) {
        static const char *const pairs[][2] = {
                { "DefMemPerCPU", "DefMemPerNode" },
                { "MaxMemPerCPU", "MaxMemPerNode" },
                { "AllowAccounts", "DenyAccounts" },
                { "AllowQos", "DenyQos" },
        };
        for (size_t i = 0; i < ELEMENTSOF(pairs); i++)
                if (get(fn, u, pairs[i][0]) && get(fn, u, pairs[i][1])) {
                        if (err)
                                strbuf_addf(err, "%s and %s exclude each other (Slurm ignores one)",
                                        pairs[i][0], pairs[i][1]);
                        return -EINVAL;
                }
        uint64_t minn = get_uint(fn, u, "MinNodes", 32, 0), maxn = get_uint(fn, u, "MaxNodes", 32, U32MAX);
        if (minn > maxn) {
                if (err)
                        strbuf_addf(
                                err, "MinNodes (%" PRIu64 ") is above MaxNodes (%" PRIu64 ")", minn, maxn);
                return -EINVAL;
        }
        return 0;
}

static int check_set_node(slurmconf_value_get_fn fn, void *u, struct strbuf *err) {
        const char *rm = get(fn, u, "RealMemory");
        uint64_t real = get_uint(fn, u, "RealMemory", 64, 1), spec = get_uint(fn, u, "MemSpecLimit", 64, 0);
        if (rm && spec >= real) {
                if (err)
                        strbuf_addf(err, "MemSpecLimit (%" PRIu64 ") must be below RealMemory (%" PRIu64 ")",
                                spec, real);
                return -EINVAL;
        }
        if (get(fn, u, "Sockets") && get(fn, u, "SocketsPerBoard")) {
                if (err)
                        strbuf_addstr(err,
                                "Sockets and SocketsPerBoard exclude each other (Slurm ignores Sockets)");
                return -EINVAL;
        }
        if (get(fn, u, "CoreSpecCount") && get(fn, u, "CpuSpecList")) {
                if (err)
                        strbuf_addstr(err, "CoreSpecCount and CpuSpecList exclude each other");
                return -EINVAL;
        }
        return 0;
}

int slurmconf_values_check_set(
        enum slurmconf_scope scope, slurmconf_value_get_fn get_fn, void *userdata, struct strbuf *err) {
        switch (scope) {
        case SLURMCONF_GLOBAL:
                return check_set_global(get_fn, userdata, err);
        case SLURMCONF_PARTITION:
                return check_set_partition(get_fn, userdata, err);
        case SLURMCONF_NODE:
                return check_set_node(get_fn, userdata, err);
        default:
                return 0;
        }
}
