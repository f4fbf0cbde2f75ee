/* SPDX-License-Identifier: Apache-2.0 */
/* The compute node's --conf parameters, the /etc/default/slurmd that carries them, and a
 * node's status line: pure functions, unit-tested in tests/unit/test-charm-nodeconf.c. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmd/nodeconf.h"
#include "slurm/nodestate.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include "util/banned.h"

int node_conf_build(char *const *hardware, const struct slurm_options *admin, const char *app,
        struct slurm_options *ret, struct strbuf *err) {
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT, e = STRBUF_INIT;
        _cleanup_free_ char *features = NULL;
        int r;

        for (char *const *p = hardware; p && *p; p++) {
                if (p != hardware)
                        strbuf_addch(&s, ' ');
                strbuf_addstr(&s, *p);
        }
        r = slurm_options_parse(s.buf, SLURM_OPTIONS_NODE, &o, &e);
        if (r < 0) {
                strbuf_addf(err, "detected hardware: %s", e.buf);
                return r;
        }
        if (admin) {
                /* the layout is judged when the admin sets a part of it: slurmd -C's own may be
                 * irregular on purpose (hybrid cores: 22.05 xcpuinfo.c), and is Slurm's to read */
                static const char *const layout[] = { "CPUs", "Boards", "SocketsPerBoard", "Sockets",
                        "CoresPerSocket", "ThreadsPerCore", "CoreSpecCount", "CpuSpecList" };
                bool touched = false;
                for (size_t i = 0; i < ELEMENTSOF(layout); i++)
                        touched = touched || slurm_options_get(admin, layout[i]);
                _cleanup_slurm_options_ struct slurm_options hw = SLURM_OPTIONS_INIT;
                slurm_options_copy(&hw, &o);
                slurm_options_merge(&o, admin);
                r = touched ? node_conf_topology_check(&o, &hw, err) : 0;
                if (r < 0)
                        return r;
        }
        const char *f = slurm_options_get(&o, "Features");
        features = isempty(f) || streq(f, app) ? xstrdup(app) : xasprintf("%s,%s", app, f);
        slurm_options_set(&o, "Features", features);

        /* the rendered form is what reaches the unit file: it must parse as NODE options again */
        strbuf_reset(&s);
        slurm_options_render(&o, &s);
        r = slurm_options_parse(s.buf, SLURM_OPTIONS_NODE, ret, &e);
        if (r < 0)
                strbuf_addf(err, "node parameters: %s", e.buf);
        return r;
}

/* A count key's value: 1 with *ret when set (a decimal, else -EINVAL), 0 when not. Zero is
 * refused (Slurm resets it to 1) except for CoreSpecCount (none kept from jobs). */
static int count_of(const struct slurm_options *o, const char *key, unsigned long *ret, struct strbuf *err) {
        const char *v = slurm_options_get(o, key);
        if (isempty(v))
                return 0;
        char *end = NULL;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (errno || !end || *end || *v == '-' || n > 65535) {
                strbuf_addf(err, "%s=%s is not a count", key, v);
                return -EINVAL;
        }
        if (n == 0 && !streq(key, "CoreSpecCount")) {
                strbuf_addf(err, "%s=0: Slurm resets it to 1", key);
                return -EINVAL;
        }
        *ret = n;
        return 1;
}

/* The CPU ids of a CpuSpecList ("0-1,3", the option parser's grammar): how many distinct, the
 * largest; -EINVAL when not a list. */
static int cpu_list(const char *s, unsigned long *ret_n, unsigned long *ret_max) {
        unsigned long n = 0, max = 0;
        _cleanup_free_ uint8_t *seen = xcalloc(65536 / 8, 1);
        for (const char *p = s; *p;) {
                char *end = NULL;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                unsigned long a = strtoul(p, &end, 10), b = a;
                if (*end == '-') {
                        p = end + 1;
                        if (*p < '0' || *p > '9')
                                return -EINVAL;
                        b = strtoul(p, &end, 10);
                }
                if (b < a || b > 65535)
                        return -EINVAL;
                for (unsigned long c = a; c <= b; c++)
                        if (!(seen[c / 8] & (1u << (c % 8)))) {
                                seen[c / 8] |= (uint8_t) (1u << (c % 8));
                                n++;
                        }
                max = b > max ? b : max;
                p = end;
                if (*p == ',' && p[1])
                        p++;
                else if (*p)
                        return -EINVAL;
        }
        *ret_n = n;
        *ret_max = max;
        return n ? 0 : -EINVAL;
}

int node_conf_topology_check(const struct slurm_options *conf, const struct slurm_options *hw, struct strbuf *err) {
        unsigned long cpus = 0, boards = 1, spb = 1, sockets = 0, cores = 1, threads = 1, spec = 0;
        int has_cpus = count_of(conf, "CPUs", &cpus, err), has_sockets = 0, has_spb = 0, r = 0;
        if (has_cpus < 0 || (r = count_of(conf, "Boards", &boards, err)) < 0 ||
                (has_spb = count_of(conf, "SocketsPerBoard", &spb, err)) < 0 ||
                (has_sockets = count_of(conf, "Sockets", &sockets, err)) < 0 ||
                (r = count_of(conf, "CoresPerSocket", &cores, err)) < 0 ||
                (r = count_of(conf, "ThreadsPerCore", &threads, err)) < 0 ||
                (r = count_of(conf, "CoreSpecCount", &spec, err)) < 0)
                return -EINVAL;
        /* read_config.c (22.05, 24.11): SocketsPerBoard wins over Sockets; else Sockets; else
         * what CPUs implies; else one per board */
        unsigned long tot_sockets = has_spb                                              ? boards * spb
                : has_sockets                                                            ? sockets
                : has_cpus && cpus / (cores * threads) && !(cpus % (cores * threads)) ? cpus / (cores * threads)
                                                                                         : boards;
        if (!has_cpus)
                cpus = tot_sockets * cores * threads;
        if (tot_sockets < boards) {
                strbuf_addf(err, "%lu sockets on %lu boards: Slurm resets Boards to 1", tot_sockets, boards);
                return -EINVAL;
        }
        unsigned long tot_cores = tot_sockets * cores;
        if (cpus != tot_cores && cpus != tot_cores * threads) {
                strbuf_addf(err,
                        "CPUs=%lu matches neither sockets x cores (%lu) nor sockets x cores x threads (%lu): "
                        "slurmctld 22.05 exits on such a node, 24.11 resets its count (to keep CPUs from jobs, "
                        "use CoreSpecCount or CpuSpecList)",
                        cpus, tot_cores, tot_cores * threads);
                return -EINVAL;
        }
        unsigned long hw_cpus = 0, hw_threads = 0;
        if (hw && count_of(hw, "CPUs", &hw_cpus, NULL) > 0 &&
                (tot_cores * threads > hw_cpus || cpus > hw_cpus)) {
                strbuf_addf(err, "%lu CPUs (%lu sockets x %lu cores x %lu threads) claimed; slurmd detected %lu here",
                        tot_cores * threads > cpus ? tot_cores * threads : cpus, tot_sockets, cores, threads,
                        hw_cpus);
                return -EINVAL;
        }
        if (hw && count_of(hw, "ThreadsPerCore", &hw_threads, NULL) > 0 && threads > hw_threads) {
                strbuf_addf(err, "ThreadsPerCore=%lu claimed; slurmd detected %lu here", threads, hw_threads);
                return -EINVAL;
        }
        if (spec && spec >= tot_cores) {
                strbuf_addf(err, "CoreSpecCount=%lu leaves none of the %lu cores for jobs (Slurm resets it to 1)",
                        spec, tot_cores);
                return -EINVAL;
        }
        const char *list = slurm_options_get(conf, "CpuSpecList");
        if (!isempty(list)) {
                unsigned long n = 0, max = 0;
                if (cpu_list(list, &n, &max) < 0) {
                        strbuf_addf(err, "CpuSpecList=%s is not a list of CPU ids (0-1,3)", list);
                        return -EINVAL;
                }
                if (max >= cpus) {
                        strbuf_addf(err, "CpuSpecList=%s names CPU %lu; the node has CPUs 0-%lu", list, max, cpus - 1);
                        return -EINVAL;
                }
                if (n >= cpus) {
                        strbuf_addf(err, "CpuSpecList=%s leaves none of the %lu CPUs for jobs", list, cpus);
                        return -EINVAL;
                }
        }
        return 0;
}

/* The Feature= value of a "NodeSet=… Feature=…" line (any case, leading blanks), or NULL;
 * malloc'd. */
static char *nodeset_feature(const char *line, size_t len) {
        _cleanup_free_ char *l = xstrndup(line, len);
        char *p = l + strspn(l, " \t");
        if (strncasecmp(p, "NodeSet=", 8) != 0)
                return NULL;
        char *save = NULL;
        for (char *w = strtok_r(p, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save))
                if (strncasecmp(w, "Feature=", 8) == 0 && w[8])
                        return xstrdup(w + 8);
        return NULL;
}

int node_features_check(const char *features, const char *app, const char *conf_text, struct strbuf *err) {
        for (const char *line = strempty(conf_text); *line;) {
                size_t len = strcspn(line, "\n");
                _cleanup_free_ char *f = nodeset_feature(line, len);
                line += len;
                if (*line == '\n')
                        line++;
                if (!f || streq_ptr(f, app))
                        continue;
                for (const char *p = strempty(features); *p;) {
                        size_t n = strcspn(p, ",");
                        if (n == strlen(f) && strncmp(p, f, n) == 0) {
                                strbuf_addf(err,
                                        "Features: \"%s\" is the feature by which partition nodes of "
                                        "another application are chosen (NodeSet=%s): this node stays in its "
                                        "own application's partition (%s)",
                                        f, f, strempty(app));
                                return -EPERM;
                        }
                        p += n;
                        if (*p == ',')
                                p++;
                }
        }
        return 0;
}

int node_conf_effective_check(
        const struct slurm_options *asked, uint16_t cpus, uint64_t real_memory, struct strbuf *err) {
        const char *c = slurm_options_get(asked, "CPUs");
        const char *m = slurm_options_get(asked, "RealMemory");
        if (!isempty(c) && strtoull(c, NULL, 10) != cpus) {
                strbuf_addf(err,
                        "slurmctld registered the node with CPUs=%u, not CPUs=%s: Slurm keeps a count that "
                        "matches the node's sockets, cores and threads",
                        cpus, c);
                return -EINVAL;
        }
        if (!isempty(m) && strtoull(m, NULL, 10) != real_memory) {
                strbuf_addf(err, "slurmctld registered the node with RealMemory=%llu, not RealMemory=%s",
                        (unsigned long long) real_memory, m);
                return -EINVAL;
        }
        return 0;
}

static bool word_safe(const char *s) {
        if (isempty(s))
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char) *s) && !strchr("-_.:,", *s))
                        return false;
        return true;
}

int node_defaults_render(const struct slurm_options *node_conf, const char *node_name,
        char *const *controllers, struct strbuf *out) {
        _cleanup_strbuf_ struct strbuf conf = STRBUF_INIT;

        slurm_options_render(node_conf, &conf);
        if (conf.len == 0 || strpbrk(conf.buf, "'\"\\$%`\n"))
                return -EINVAL;
        if (!word_safe(node_name) || !controllers || !controllers[0])
                return -EINVAL;
        for (char *const *c = controllers; *c; c++)
                if (!word_safe(*c))
                        return -EINVAL;

        strbuf_addstr(out,
                "# Written by the slurmd charm; changes are overwritten. slurmd runs as a dynamic node "
                "(-Z),\n"
                "# with its node parameters in --conf and its configuration fetched from the "
                "controllers.\n");
        strbuf_addf(out, "SLURMD_OPTIONS=\"-Z --conf '%s' -N %s --conf-server ", conf.buf, node_name);
        for (char *const *c = controllers; *c; c++)
                strbuf_addf(out, "%s%s", c == controllers ? "" : ",", *c);
        strbuf_addstr(out, "\"\n");
        return 0;
}

void node_status_message(uint32_t state, const char *reason, struct strbuf *out) {
        const char *word;
        enum slurm_drain d = slurm_state_drain(state);

        if (!slurm_state_registered(state))
                word = "not responding";
        else if (d != SLURM_DRAIN_NONE && !streq(slurm_state_base_name(state), "DOWN"))
                word = d == SLURM_DRAIN_DRAINED ? "drained" : "draining";
        else
                word = NULL;

        if (word)
                strbuf_addstr(out, word);
        else {
                const char *base = slurm_state_base_name(state);
                for (const char *p = base; *p; p++)
                        strbuf_addch(out, (char) tolower((unsigned char) *p));
        }
        if (!isempty(reason) && (d != SLURM_DRAIN_NONE || slurm_state_down(state) || word))
                strbuf_addf(out, " (%.60s)", reason);
}
