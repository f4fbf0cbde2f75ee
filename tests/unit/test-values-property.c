/* SPDX-License-Identifier: Apache-2.0 */
/* Property test of slurmconf/values + slurm/confcheck: random values from Slurm's grammar for
 * each settable key, valid forms and near-misses; what the option parser accepts, Slurm's
 * reader must accept too (a failure otherwise), and what it refuses is counted per key.
 *
 * For each kind (PARTITION → "PartitionName=probe Key=value", NODE → "NodeName=probe
 * Key=value", the parser slurmd applies to its --conf string too, GLOBAL → a global line
 * replacing the template's) and each key the option parser lets an admin set, it draws
 * VALUES_PROPERTY_DRAWS values (default 16), runs slurm_options_parse("Key=value") (and, for
 * GLOBAL, the cross-key rules over the template), renders templates/slurm.conf with the line
 * and asks slurm_conf_check(). Bounded by VALUES_PROPERTY_SECONDS (default 60); the seed is
 * printed and VALUES_PROPERTY_SEED replays it. VALUES_PROPERTY_KEYS_ONLY=1 judges by key names
 * alone (the rule before value checks) to show the test fails then. Exit 77 (skip) without the
 * slurm user, which Slurm's reader needs. */
#include "util/macro.h"

#include <ctype.h>
#include <inttypes.h>
#include <pwd.h>
#include <time.h>

#include "slurm/caps.h"
#include "slurm/confcheck.h"
#include "slurmconf/keys.h"
#include "slurmconf/options.h"
#include "slurmconf/values.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "util/banned.h"

/* --- random ---------------------------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void) {
        uint64_t x = rng_state; /* xorshift64* */
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        rng_state = x;
        return x * UINT64_C(2685821657736338717);
}

static uint64_t below(uint64_t n) {
        return n ? rnd() % n : 0;
}

static bool coin(unsigned percent) {
        return below(100) < percent;
}

static const char *pick(const char *const *list) {
        size_t n = 0;
        while (list[n])
                n++;
        return n ? list[below(n)] : "x";
}

/* s with each letter's case flipped at random */
static void add_mixed_case(struct strbuf *out, const char *s) {
        for (; *s; s++)
                strbuf_addch(out,
                        (char) (isalpha((unsigned char) *s) && coin(50)
                                        ? (islower((unsigned char) *s) ? toupper((unsigned char) *s)
                                                                       : tolower((unsigned char) *s))
                                        : *s));
}

/* a random number in [lo, hi], favouring the ends */
static uint64_t in_range(uint64_t lo, uint64_t hi) {
        switch (below(6)) {
        case 0:
                return lo;
        case 1:
                return hi;
        case 2:
                return lo + below(hi - lo < 10 ? hi - lo + 1 : 10);
        default:
                return hi - lo == UINT64_MAX ? rnd() : lo + below(hi - lo + 1);
        }
}

/* --- generators per grammar ---------------------------------------------------------------------- */

static void gen_uint(const struct slurmconf_value_info *vi, struct strbuf *v) {
        uint64_t type_max = vi->bits == 16 ? 0xffff : vi->bits == 32 ? 0xffffffffu : UINT64_MAX;
        uint64_t x = in_range(vi->min, vi->max);
        switch (below(14)) {
        case 0:
                strbuf_addf(v, "0x%" PRIx64, x);
                return;
        case 1:
                strbuf_addf(v, "0%" PRIo64, x);
                return;
        case 2:
                strbuf_addf(v, "+%" PRIu64, x);
                return;
        case 3:
                add_mixed_case(v, coin(50) ? "UNLIMITED" : "INFINITE");
                return;
        case 4:
                strbuf_addf(v, "%" PRIu64 "k", in_range(0, vi->max / 1024 + 1));
                return;
        case 5: /* just out of range */
                if (vi->max < UINT64_MAX)
                        strbuf_addf(v, "%" PRIu64, vi->max + 1);
                else
                        strbuf_addstr(v, "18446744073709551616");
                return;
        case 6:
                strbuf_addf(v, "%s",
                        pick((const char *const[]){ "-1", "-0", "08", "1.5", "12abc", "k", "0x", "1e3",
                                "unlimitedx", "5K", "0X1F", "099", "", NULL }));
                return;
        case 7:
                if (vi->min > 0)
                        strbuf_addf(v, "%" PRIu64, vi->min - 1);
                else
                        strbuf_addf(v, "%" PRIu64, type_max);
                return;
        default:
                strbuf_addf(v, "%" PRIu64, x);
        }
}

static void gen_time(const struct slurmconf_value_info *vi, struct strbuf *v) {
        unsigned d = (unsigned) below(40), h = (unsigned) below(30), m = (unsigned) below(70),
                 s = (unsigned) below(70);
        switch (below(16)) {
        case 0:
                strbuf_addf(v, "%u", (unsigned) below(100000));
                return;
        case 1:
                strbuf_addf(v, "%u:%02u", m, s);
                return;
        case 2:
                strbuf_addf(v, "%u:%02u:%02u", h, m, s);
                return;
        case 3:
                strbuf_addf(v, "%u-%u", d, h);
                return;
        case 4:
                strbuf_addf(v, "%u-%u:%02u", d, h, m);
                return;
        case 5:
                strbuf_addf(v, "%u-%02u:%02u:%02u", d, h, m, s);
                return;
        case 6:
                add_mixed_case(v, pick((const char *const[]){ "UNLIMITED", "INFINITE", NULL }));
                return;
        case 7:
                strbuf_addstr(v, pick((const char *const[]){ "-1", "-0", "0", "5-", NULL }));
                return;
        case 8:
                strbuf_addf(v, "%" PRIu64, in_range(30000000, 99999999999ull));
                return;
        default:
                strbuf_addstr(v,
                        pick((const char *const[]){ "1:", "1::2", "1-2-3", "1:2:3:4", "1h", "5m", "forever",
                                "-5", "1-:2", ":30", "1:2:3:", "1d", "one", "1-2:3:4:5", "-1:00", "+5",
                                NULL }));
        }
}

static void gen_words(const struct slurmconf_value_info *vi, struct strbuf *v, bool list) {
        const char *const *w = vi->words;
        bool cs = vi->flags & SLURMCONF_VALUE_F_CASE;
        size_t n = list ? 1 + below(3) : 1;
        for (size_t i = 0; i < n; i++) {
                if (i > 0)
                        strbuf_addstr(v, coin(10) ? ",," : ",");
                switch (below(10)) {
                case 0:
                        strbuf_addf(v, "%sx", pick(w));
                        break;
                case 1: {
                        const char *word = pick(w);
                        strbuf_add(v, word, strlen(word) > 2 ? strlen(word) - 1 : strlen(word));
                        break;
                }
                case 2:
                        strbuf_addstr(
                                v, pick((const char *const[]){ "bogus", "all", "none", "yes", "1", NULL }));
                        break;
                default:
                        if (cs && !coin(20))
                                strbuf_addstr(v, pick(w));
                        else
                                add_mixed_case(v, pick(w));
                }
        }
        if (list && coin(5))
                strbuf_addch(v, ',');
}

static void gen_plugin(const struct slurmconf_value_info *vi, struct strbuf *v, bool list) {
        size_t n = list ? 1 + below(3) : 1;
        for (size_t i = 0; i < n; i++) {
                if (i > 0)
                        strbuf_addch(v, ',');
                const char *name = pick(vi->words);
                switch (below(10)) {
                case 0:
                        strbuf_addstr(v, name); /* bare */
                        break;
                case 1:
                        strbuf_addf(v, "%s/%s",
                                pick((const char *const[]){
                                        "sched", "task", "priority", "select", "mpi", NULL }),
                                name);
                        break;
                case 2:
                        strbuf_addf(v, "%s/%sx", vi->plugin_type, name);
                        break;
                case 3:
                        strbuf_addf(v, "%s/", vi->plugin_type);
                        add_mixed_case(v, name);
                        break;
                default:
                        if (vi->flags & SLURMCONF_VALUE_F_BARE)
                                strbuf_addstr(v, name);
                        else if (list && coin(50))
                                strbuf_addstr(v, name);
                        else
                                strbuf_addf(v, "%s/%s", vi->plugin_type, name);
                }
        }
}

static void gen_debug(const struct slurmconf_value_info *vi, struct strbuf *v) {
        switch (below(5)) {
        case 0:
                strbuf_addf(v, "%u", (unsigned) below(14));
                return;
        case 1:
                strbuf_addstr(v,
                        pick((const char *const[]){ "65535", "5x", "debug6", "loud", "-1", "0x5", NULL }));
                return;
        default:
                add_mixed_case(v, pick(vi->words));
        }
}

/* a mutation of a valid example: the near misses of free-form grammars */
static void gen_example(const struct slurmconf_value_info *vi, struct strbuf *v) {
        const char *ex = vi->examples ? pick(vi->examples) : "x";
        switch (below(12)) {
        case 0:
                strbuf_addf(v, "%sx", ex);
                return;
        case 1:
                strbuf_add(v, ex, strlen(ex) > 1 ? strlen(ex) - 1 : 1);
                return;
        case 2:
                for (const char *s = ex; *s; s++)
                        strbuf_addch(v, isdigit((unsigned char) *s) && coin(50) ? 'z' : *s);
                return;
        case 3:
                add_mixed_case(v, ex);
                return;
        case 4:
                strbuf_addf(v, "%s,%s", ex, ex);
                return;
        case 5:
                strbuf_addf(v, "%s:%u", ex, (unsigned) below(10));
                return;
        case 6:
                strbuf_addf(v, ",%s", ex);
                return;
        case 7:
                strbuf_addstr(v,
                        pick((const char *const[]){ "1", "-1", "a=b", "/x", "x/y", "[", "ALL", ":", NULL }));
                return;
        default:
                strbuf_addstr(v, ex);
        }
}

static void gen_value(const struct slurmconf_value_info *vi, struct strbuf *v) {
        switch (vi->type) {
        case SLURMCONF_VALUE_UINT:
                gen_uint(vi, v);
                break;
        case SLURMCONF_VALUE_BOOL:
                if (coin(80))
                        add_mixed_case(v, pick(vi->words));
                else
                        strbuf_addstr(
                                v, pick((const char *const[]){ "y", "2", "on", "off", "yess", "-1", NULL }));
                break;
        case SLURMCONF_VALUE_TIME:
                gen_time(vi, v);
                break;
        case SLURMCONF_VALUE_DEBUG_LEVEL:
                gen_debug(vi, v);
                break;
        case SLURMCONF_VALUE_ENUM:
                gen_words(vi, v, false);
                break;
        case SLURMCONF_VALUE_FLAGS:
                gen_words(vi, v, true);
                break;
        case SLURMCONF_VALUE_PLUGIN:
                gen_plugin(vi, v, false);
                break;
        case SLURMCONF_VALUE_PLUGIN_LIST:
                gen_plugin(vi, v, true);
                break;
        case SLURMCONF_VALUE_HOSTLIST:
                strbuf_addstr(v,
                        pick((const char *const[]){ "n[1-4]", "a,b", "ALL", "n[01-10],m[3]", "n[4-1]",
                                "n[1-", "n]", "n[a-b]", "n[1-2]x", "all", NULL }));
                break;
        case SLURMCONF_VALUE_NAME_LIST:
                if (coin(40))
                        gen_example(vi, v);
                else
                        strbuf_addstr(v,
                                pick((const char *const[]){ "a", "a,b", "ALL", "x.y-z_1", "a=b", "a/b",
                                        "a:b", "a(b)", "a,,b", NULL }));
                break;
        case SLURMCONF_VALUE_PATH:
                strbuf_addstr(v,
                        pick((const char *const[]){ "/etc/slurm/x", "/var/log/slurm/%n.log", "x/y", "/a,b",
                                "relative", "/", "//x", NULL }));
                break;
        case SLURMCONF_VALUE_HOST:
                strbuf_addstr(v,
                        pick((const char *const[]){ "db1", "10.0.0.5", "db.example.org", "-db", "db..x",
                                "a_b", "db:", "[::1]", NULL }));
                break;
        default:
                gen_example(vi, v);
        }
}

/* --- the candidate file -------------------------------------------------------------------------- */

static struct strv template_lines;            /* templates/slurm.conf, names filled in */
static struct slurm_options template_globals; /* its global Key=Value lines (the base) */

static void load_template(void) {
        const char *top = getenv("TOP_SRCDIR");
        _cleanup_free_ char *path = xasprintf("%s/templates/slurm.conf", top ? top : ".");
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (read_full_file(path, &text, &len) < 0) {
                fprintf(stderr, "cannot read %s\n", path);
                exit(1);
        }
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (streq(line, "ClusterName=unset"))
                        line = "ClusterName=probe";
                else if (streq(line, "SlurmctldHost=unset"))
                        line = "SlurmctldHost=probe-ctl";
                strv_push(&template_lines, line);
                const char *eq = strchr(line, '=');
                if (line[0] != '#' && eq) {
                        _cleanup_free_ char *k = xstrndup(line, (size_t) (eq - line));
                        slurm_options_set(&template_globals, k, eq + 1);
                }
        }
}

static void render(enum slurm_options_kind kind, const char *key, const char *value, struct strbuf *out) {
        for (size_t i = 0; i < template_lines.n; i++) {
                const char *l = template_lines.v[i];
                const char *eq = strchr(l, '=');
                if (kind == SLURM_OPTIONS_GLOBAL && eq && (size_t) (eq - l) == strlen(key) &&
                        strncasecmp(l, key, strlen(key)) == 0)
                        continue; /* the admin's value replaces the template's */
                strbuf_addf(out, "%s\n", l);
        }
        bool quote = strchr(value, ' ') != NULL;
        if (kind == SLURM_OPTIONS_PARTITION)
                strbuf_addstr(out, "PartitionName=probe ");
        else if (kind == SLURM_OPTIONS_NODE)
                strbuf_addstr(out, "NodeName=probe ");
        strbuf_addf(out, quote ? "%s=\"%s\"\n" : "%s=%s\n", key, value);
}

/* --- the run ------------------------------------------------------------------------------------- */

struct key_stats {
        char *key;
        enum slurm_options_kind kind;
        int draws, accepted, refused, too_strict_logged, too_strict_silent;
        char *strict_example, *strict_log;
};

static struct key_stats *stats;
static size_t n_stats;

static struct key_stats *stat_for(enum slurm_options_kind kind, const char *key) {
        for (size_t i = 0; i < n_stats; i++)
                if (stats[i].kind == kind && streq(stats[i].key, key))
                        return &stats[i];
        stats = xrealloc(stats, (n_stats + 1) * sizeof(*stats));
        stats[n_stats] = (struct key_stats){ .key = xstrdup(key), .kind = kind };
        return &stats[n_stats++];
}

struct collect {
        struct strv keys[_SLURM_OPTIONS_KIND_MAX];
};

/* The keys an admin may set for kind: the option parser takes the key with a valid value or
 * refuses the value, not the key. */
static int collect_key(const struct slurmconf_value_info *vi, void *userdata) {
        struct collect *c = userdata;
        for (int kind = 0; kind < _SLURM_OPTIONS_KIND_MAX; kind++) {
                if (!(vi->scopes &
                            SLURMCONF_SCOPE_BIT(slurm_options_kind_scope((enum slurm_options_kind) kind))))
                        continue;
                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                _cleanup_free_ char *s = xasprintf("%s=1", vi->key);
                slurm_options_parse(s, (enum slurm_options_kind) kind, &o, &err);
                if (strstr(err.buf, "managed by the charm") || strstr(err.buf, "not supported") ||
                        strstr(err.buf, "unknown ") || strstr(err.buf, "default-partition"))
                        continue;
                /* a key this Slurm no longer reads: the controller refuses it (charm/ctlconf) */
                if (kind == SLURM_OPTIONS_GLOBAL && slurm_caps_key_gone(slurm_caps_built(), vi->key))
                        continue;
                strv_push(&c->keys[kind], vi->key);
        }
        return 0;
}

static uint64_t env_u64(const char *name, uint64_t dflt) {
        const char *v = getenv(name);
        return isempty(v) ? dflt : strtoull(v, NULL, 0);
}

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int main(void) {
        if (!getpwnam("slurm")) {
                printf("SKIP: no slurm user (Slurm's reader needs it)\n");
                return 77;
        }
        uint64_t seed = env_u64("VALUES_PROPERTY_SEED", (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 32));
        uint64_t draws_per_key = env_u64("VALUES_PROPERTY_DRAWS", 16);
        double limit = (double) env_u64("VALUES_PROPERTY_SECONDS", 60);
        bool keys_only = !isempty(getenv("VALUES_PROPERTY_KEYS_ONLY"));
        rng_state = seed ? seed : 1;
        printf("values property test: seed %" PRIu64 " (replay: VALUES_PROPERTY_SEED=%" PRIu64 "), %" PRIu64
               " draws a key, %.0f s at most%s\n",
                seed, seed, draws_per_key, limit, keys_only ? ", KEYS ONLY (value checks ignored)" : "");
        fflush(stdout);

        load_template();
        struct collect c = { 0 };
        for (int k = 0; k < _SLURM_OPTIONS_KIND_MAX; k++)
                strv_init(&c.keys[k]);
        slurmconf_value_foreach(collect_key, &c);

        double start = now_s();
        int draws = 0, accepted = 0, refused = 0, failures = 0, agree_refused = 0, not_installed = 0;
        bool out_of_time = false;
        for (uint64_t round = 0; round < draws_per_key && !out_of_time; round++)
                for (int kind = 0; kind < _SLURM_OPTIONS_KIND_MAX && !out_of_time; kind++)
                        for (size_t i = 0; i < c.keys[kind].n; i++) {
                                if (now_s() - start > limit) {
                                        out_of_time = true;
                                        break;
                                }
                                const char *key = c.keys[kind].v[i];
                                const struct slurmconf_value_info *vi = slurmconf_value_info(
                                        slurm_options_kind_scope((enum slurm_options_kind) kind), key);
                                _cleanup_strbuf_ struct strbuf v = STRBUF_INIT, s = STRBUF_INIT,
                                                               err = STRBUF_INIT, file = STRBUF_INIT,
                                                               serr = STRBUF_INIT, log = STRBUF_INIT;
                                gen_value(vi, &v);
                                if (v.len == 0)
                                        strbuf_addch(&v, '0');
                                struct key_stats *st = stat_for((enum slurm_options_kind) kind, key);
                                st->draws++;
                                draws++;

                                /* ours: the option parser, then (global) the rules over the template */
                                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                                strbuf_addf(&s, strchr(v.buf, ' ') ? "%s=\"%s\"" : "%s=%s", key, v.buf);
                                bool ours = slurm_options_parse(
                                                    s.buf, (enum slurm_options_kind) kind, &o, &err) == 0;
                                if (ours && kind == SLURM_OPTIONS_GLOBAL)
                                        ours = slurm_options_check_set(SLURM_OPTIONS_GLOBAL, &o,
                                                       &template_globals, &err) == 0;
                                /* an item this Slurm no longer knows: the controller refuses it
                                 * (charm/ctlconf) */
                                if (ours && kind == SLURM_OPTIONS_GLOBAL &&
                                        slurm_caps_item_gone(slurm_caps_built(), key, v.buf))
                                        ours = false;
                                if (keys_only) {
                                        /* the old rule: any value the characters allow */
                                        _cleanup_slurm_options_ struct slurm_options k = SLURM_OPTIONS_INIT;
                                        _cleanup_free_ char *probe = xasprintf(
                                                "%s=%s", key, vi->examples ? vi->examples[0] : "1");
                                        ours = strspn(v.buf,
                                                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789"
                                                       "_-.,:/=+*@()[]%") == v.len;
                                }

                                /* Slurm's reader alone, then with the plugin files */
                                render((enum slurm_options_kind) kind, key, v.buf, &file);
                                struct slurm_conf_check_opts reader = { .no_plugin_check = 1, .log = &log };
                                int rr = slurm_conf_check_opts(file.buf, file.len, &reader, &serr);
                                if (rr != 0 && rr != -EINVAL) {
                                        printf("FAIL: the check could not run (%d): %s\n", rr, serr.buf);
                                        return 1;
                                }
                                bool slurm = rr == 0;
                                bool installed = true;
                                if (slurm && vi->plugin_type) {
                                        _cleanup_strbuf_ struct strbuf perr = STRBUF_INIT;
                                        installed = slurm_conf_check(file.buf, file.len, &perr) == 0;
                                }

                                if (ours) {
                                        accepted++;
                                        st->accepted++;
                                        if (!slurm) {
                                                failures++;
                                                printf("FAIL: %s key %s=%s accepted by the option parser, "
                                                       "refused by "
                                                       "Slurm: %s (seed %" PRIu64 ")\n",
                                                        slurm_options_kind_name(
                                                                (enum slurm_options_kind) kind),
                                                        key, v.buf, serr.buf, seed);
                                        } else if (!installed)
                                                not_installed++;
                                } else {
                                        refused++;
                                        st->refused++;
                                        if (!slurm || !installed)
                                                agree_refused++;
                                        else if (log.len) {
                                                st->too_strict_logged++;
                                                if (!st->strict_log) {
                                                        st->strict_log = xstrdup(log.buf);
                                                        st->strict_log[strcspn(st->strict_log, "\n")] = '\0';
                                                }
                                        } else {
                                                st->too_strict_silent++;
                                                if (!st->strict_example)
                                                        st->strict_example = xstrdup(v.buf);
                                        }
                                }
                        }
        double elapsed = now_s() - start;

        int logged = 0, silent = 0, keys = 0;
        for (size_t i = 0; i < n_stats; i++) {
                logged += stats[i].too_strict_logged;
                silent += stats[i].too_strict_silent;
                keys++;
        }
        printf("keys: %zu partition, %zu node, %zu global (%d in all)\n", c.keys[SLURM_OPTIONS_PARTITION].n,
                c.keys[SLURM_OPTIONS_NODE].n, c.keys[SLURM_OPTIONS_GLOBAL].n, keys);
        printf("draws: %d in %.1f s%s; accepted %d (Slurm's reader accepted all but %d; %d named a plugin "
               "not "
               "installed here, refused by slurm_conf_check); refused %d (Slurm refuses %d too)\n",
                draws, elapsed, out_of_time ? " (time cap reached)" : "", accepted, failures, not_installed,
                refused, agree_refused);
        printf("refused by us, accepted by Slurm: %d where Slurm logs an error (reset, ignored, "
               "deprecated), "
               "%d silently\n",
                logged, silent);
        for (size_t i = 0; i < n_stats; i++) {
                struct key_stats *st = &stats[i];
                if (st->too_strict_silent)
                        printf("  stricter (silent in Slurm) %s %s: %d of %d draws, e.g. \"%s\"\n",
                                slurm_options_kind_name(st->kind), st->key, st->too_strict_silent, st->draws,
                                st->strict_example);
        }
        for (size_t i = 0; i < n_stats; i++) {
                struct key_stats *st = &stats[i];
                if (st->too_strict_logged)
                        printf("  stricter (Slurm logs: %s) %s %s: %d of %d draws\n", st->strict_log,
                                slurm_options_kind_name(st->kind), st->key, st->too_strict_logged,
                                st->draws);
        }
        printf("%d passed, %d failed\n", draws - failures, failures);
        for (size_t i = 0; i < n_stats; i++) {
                free(stats[i].key);
                free(stats[i].strict_example);
                free(stats[i].strict_log);
        }
        free(stats);
        for (int k = 0; k < _SLURM_OPTIONS_KIND_MAX; k++)
                strv_clear(&c.keys[k]);
        strv_clear(&template_lines);
        slurm_options_clear(&template_globals);
        return failures ? 1 : 0;
}
