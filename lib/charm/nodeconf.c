/* SPDX-License-Identifier: Apache-2.0 */
/* The compute node's --conf parameters, the /etc/default/slurmd that carries them, and a
 * node's status line: pure functions, unit-tested in tests/unit/test-charm-nodeconf.c. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/nodeconf.h"
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
        if (admin)
                slurm_options_merge(&o, admin);
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
