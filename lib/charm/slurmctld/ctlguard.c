/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's slurm.conf from each input's new value where Slurm accepts it and its last
 * good value where not: option checks, the judge (Slurm's reader), culprit search. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/ctlguard.h"
#include "slurmconf/conf.h"
#include "slurmconf/options.h"

#include "util/banned.h"

void ctl_guard_result_done(struct ctl_guard_result *r) {
        if (!r)
                return;
        strbuf_release(&r->conf);
        free(r->params_applied);
        r->params_applied = NULL;
        strv_clear(&r->refused);
        strv_clear(&r->rendered);
}

/* The items of an applied parameter string that the option parser still takes, one at a time
 * (an older charm wrote it under rules since tightened: a path now confined): a new string,
 * NULL when every item still passes. Items split at spaces outside double quotes. */
static char *params_salvage(const char *s) {
        _cleanup_slurm_options_ struct slurm_options all = SLURM_OPTIONS_INIT;
        if (slurm_options_parse(s, SLURM_OPTIONS_GLOBAL, &all, NULL) >= 0)
                return NULL;
        _cleanup_strbuf_ struct strbuf kept = STRBUF_INIT;
        for (const char *p = s; *p;) {
                while (*p == ' ')
                        p++;
                const char *start = p;
                bool quoted = false;
                for (; *p && (quoted || *p != ' '); p++)
                        if (*p == '"')
                                quoted = !quoted;
                if (p == start)
                        break;
                _cleanup_free_ char *item = xstrndup(start, (size_t) (p - start));
                _cleanup_slurm_options_ struct slurm_options one = SLURM_OPTIONS_INIT;
                if (slurm_options_parse(item, SLURM_OPTIONS_GLOBAL, &one, NULL) < 0)
                        continue;
                _cleanup_slurm_options_ struct slurm_options with = SLURM_OPTIONS_INIT;
                _cleanup_free_ char *candidate = xasprintf("%s%s%s", kept.buf, kept.len ? " " : "", item);
                if (slurm_options_parse(candidate, SLURM_OPTIONS_GLOBAL, &with, NULL) < 0)
                        continue; /* given twice */
                strbuf_reset(&kept);
                strbuf_addstr(&kept, candidate);
        }
        return strbuf_detach(&kept, NULL);
}

/* One input's two values. For the parameters, new_/old_params; for an application, the
 * compute data (NULL: none). */
struct choice {
        const struct compute_data *new_data, *old_data;
        bool use_new;
};

struct guard {
        const struct ctl_guard_input *in;
        const char *new_params, *old_params;
        bool params_new;
        struct choice *apps;
        struct compute_data *old_parts; /* owned: last good lines from the live file */
        size_t n_old_parts;
        unsigned n_judged;
};

static void guard_done(struct guard *g) {
        for (size_t i = 0; i < g->n_old_parts; i++)
                compute_data_clear(&g->old_parts[i]);
        free(g->old_parts);
        free(g->apps);
}

/* Renders the candidate of the current choices into out (reset first). */
static int render(struct guard *g, struct strbuf *out, struct strv *rendered, struct strbuf *err) {
        const struct ctl_guard_input *in = g->in;
        _cleanup_free_ struct compute_data *parts = xcalloc(in->n_apps + 1, sizeof *parts);
        struct ctl_conf_input ci = in->conf;
        size_t n = 0;

        for (size_t i = 0; i < in->n_apps; i++) {
                const struct compute_data *d =
                        g->apps[i].use_new ? g->apps[i].new_data : g->apps[i].old_data;
                if (!d)
                        continue;
                parts[n++] = *d; /* shallow: ctl_conf_render only reads */
                if (rendered)
                        strv_push(rendered, d->name);
        }
        ci.extra_params = g->params_new ? g->new_params : g->old_params;
        ci.partitions = parts;
        ci.n_partitions = n;
        strbuf_reset(out);
        return ctl_conf_render(&ci, out, err);
}

static int judge(struct guard *g, const struct strbuf *conf, struct strbuf *err) {
        g->n_judged++;
        strbuf_reset(err);
        return g->in->judge(conf->buf, conf->len, err, g->in->judge_userdata);
}

/* The candidate of the current choices rendered and judged: 0 accepted, -EINVAL refused (by the
 * renderer or the judge), another negative errno from the judge; err holds why. */
static int try_current(struct guard *g, struct strbuf *cand, struct strbuf *err) {
        strbuf_reset(err);
        int r = render(g, cand, NULL, err);
        return r < 0 ? r : judge(g, cand, err);
}

/* The application's PartitionName line in the live file as compute data (Nodes and Default
 * left out: the renderer sets them). NULL when there is none. */
static const struct compute_data *old_line(struct guard *g, const struct slurmconf *old, const char *name) {
        _cleanup_slurm_options_ struct slurm_options opts = SLURM_OPTIONS_INIT;
        if (!old || slurmconf_lookup(old, SLURMCONF_PARTITION, name, &opts) < 0)
                return NULL;
        struct compute_data *d = &g->old_parts[g->n_old_parts++];
        *d = (struct compute_data) COMPUTE_DATA_INIT;
        d->name = xstrdup(name);
        for (size_t i = 0; i < opts.n; i++)
                if (!strcaseeq(opts.items[i].key, "Nodes") && !strcaseeq(opts.items[i].key, "Default"))
                        slurm_options_set(&d->partition, opts.items[i].key, opts.items[i].value);
        return d;
}

static bool same_data(const struct compute_data *a, const struct compute_data *b) {
        if (!a || !b)
                return a == b;
        if (a->partition.n != b->partition.n)
                return false;
        for (size_t i = 0; i < a->partition.n; i++) {
                const char *v = slurm_options_get(&b->partition, a->partition.items[i].key);
                if (!v || !streq(v, a->partition.items[i].value))
                        return false;
        }
        return true;
}

struct global_collect {
        const struct slurmconf *c;
        struct slurm_options *out;
};

static int collect_global(const struct slurmconf_key *k, void *userdata) {
        struct global_collect *gc = userdata;
        const char *v;
        if ((k->scopes & SLURMCONF_SCOPE_BIT(SLURMCONF_GLOBAL)) && !k->alias_of &&
                (v = slurmconf_get(gc->c, k->name)))
                slurm_options_set(gc->out, k->name, v);
        return 0;
}

/* The rules that tie global keys together (PreemptMode needs PreemptType, PrologFlags=X11 not
 * with proctrack/linuxproc, …), for the parameters over the template's own values. */
static int check_over_template(
        const struct ctl_guard_input *in, const struct slurm_options *params, struct strbuf *err) {
        _cleanup_slurmconf_ struct slurmconf *t = NULL;
        _cleanup_slurm_options_ struct slurm_options base = SLURM_OPTIONS_INIT;
        if (slurmconf_parse(
                    in->conf.template_path, in->conf.template_data, in->conf.template_len, &t, NULL) < 0)
                return 0; /* the render says what is wrong with the template */
        struct global_collect gc = { .c = t, .out = &base };
        (void) slurmconf_key_foreach(collect_global, &gc);
        /* keys every slurmd reads only when it starts (slurm.conf(5) of 22.05, slurmd.c): the
         * compute units would go on with the old value after the push, so they are refused
         * until the charms restart slurmd for them */
        static const char *const slurmd_start_keys[] = { "TaskPlugin", "TaskPluginParam", "ProctrackType",
                "JobAcctGatherType", "SlurmdSpoolDir", "SlurmdUser", "GresTypes", "PluginDir", "SwitchType",
                "CoreSpecPlugin", "JobContainerType" };
        for (size_t i = 0; i < ELEMENTSOF(slurmd_start_keys); i++) {
                const char *want = slurm_options_get(params, slurmd_start_keys[i]);
                const char *has = slurm_options_get(&base, slurmd_start_keys[i]);
                if (want && !streq_ptr(want, has)) {
                        strbuf_addf(err,
                                "%s: every slurmd reads it only when it starts, and this charm does not "
                                "restart "
                                "slurmd for it yet",
                                slurmd_start_keys[i]);
                        return -EINVAL;
                }
        }
        return slurm_options_check_set(SLURM_OPTIONS_GLOBAL, params, &base, err);
}

/* "slurm-conf-parameters: why", once (the renderer's messages carry the prefix already: the
 * status said it twice, attack atk7). */
static void params_refusal(struct strv *refused, const char *why) {
        const char *rest = startswith(why, "slurm-conf-parameters: ");
        strv_pushf(refused, "slurm-conf-parameters: %s", rest ? rest : why);
}

int ctl_guard_render(const struct ctl_guard_input *in, struct ctl_guard_result *ret, struct strbuf *err) {
        _cleanup_(guard_done) struct guard g = { .in = in };
        _cleanup_slurmconf_ struct slurmconf *old = NULL;
        _cleanup_(ctl_guard_result_done) struct ctl_guard_result res = CTL_GUARD_RESULT_INIT;
        _cleanup_slurm_options_ struct slurm_options probe = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, cand = STRBUF_INIT;
        int r;

        if (!in->judge)
                return -EINVAL;
        if (in->old_data && slurmconf_parse("slurm.conf", in->old_data, in->old_len, &old, NULL) < 0)
                old = NULL; /* a broken live file has no last good lines */
        g.apps = xcalloc(in->n_apps + 1, sizeof *g.apps);
        g.old_parts = xcalloc(in->n_apps + 1, sizeof *g.old_parts);
        for (size_t i = 0; i < in->n_apps; i++) {
                g.apps[i].new_data = in->apps[i].data;
                g.apps[i].old_data = old_line(&g, old, in->apps[i].name);
                g.apps[i].use_new = in->apps[i].data != NULL;
        }

        /* the parameters: refused at once when the option parser refuses them */
        g.new_params = strempty(in->params);
        g.old_params = strempty(in->params_applied);
        /* the last applied string under today's rules: what they refuse is dropped (and says
         * so), so that an upgrade never leaves the controller with no good settings at all */
        _cleanup_free_ char *salvaged = params_salvage(g.old_params);
        if (salvaged) {
                strv_pushf(&res.refused,
                        "slurm-conf-parameters: the applied \"%.60s\" is refused now; kept: \"%.60s\"",
                        g.old_params, salvaged);
                res.params_refused = true;
                g.old_params = salvaged;
        }
        g.params_new = true;
        if (slurm_options_parse(g.new_params, SLURM_OPTIONS_GLOBAL, &probe, &e) < 0 ||
                check_over_template(in, &probe, &e) < 0) {
                params_refusal(&res.refused, e.buf);
                res.params_refused = true;
                g.params_new = false;
        }

        /* all new (where there is a new value); nothing to judge when that is the live file */
        strbuf_reset(&e);
        r = render(&g, &cand, NULL, &e);
        bool unchanged = r >= 0 && !in->judge_live && in->old_data && cand.len == in->old_len &&
                memcmp(cand.buf, in->old_data, cand.len) == 0;
        if (r >= 0 && !unchanged)
                r = judge(&g, &cand, &e);
        if (r < 0 && r != -EINVAL) {
                strbuf_addbuf(err, &e);
                return r;
        }
        if (r < 0) {
                /* someone is to blame: start from the last good values… */
                bool params_was_new = g.params_new;
                g.params_new = false;
                for (size_t i = 0; i < in->n_apps; i++)
                        g.apps[i].use_new = false;
                r = try_current(&g, &cand, &e);
                if (r < 0) {
                        if (r == -EINVAL)
                                strbuf_addstr(
                                        err, "slurm.conf: Slurm refuses even the last good settings: ");
                        strbuf_addbuf(err, &e);
                        return r;
                }
                /* …then add each new value, keeping those Slurm accepts */
                bool *flags[1 + in->n_apps];
                const char *names[1 + in->n_apps];
                size_t n = 0;
                if (params_was_new && !streq(g.new_params, g.old_params)) {
                        flags[n] = &g.params_new;
                        names[n++] = NULL;
                }
                for (size_t i = 0; i < in->n_apps; i++)
                        if (g.apps[i].new_data && !same_data(g.apps[i].new_data, g.apps[i].old_data)) {
                                flags[n] = &g.apps[i].use_new;
                                names[n++] = in->apps[i].name;
                        }
                for (size_t i = 0; i < n; i++) {
                        *flags[i] = true;
                        r = try_current(&g, &cand, &e);
                        if (r < 0 && r != -EINVAL) {
                                strbuf_addbuf(err, &e);
                                return r;
                        }
                        if (r == 0)
                                continue;
                        *flags[i] = false;
                        if (names[i])
                                strv_pushf(&res.refused, "relation with \"%s\": %s", names[i], e.buf);
                        else {
                                params_refusal(&res.refused, e.buf);
                                res.params_refused = true;
                        }
                }
        }

        strbuf_reset(&e);
        r = render(&g, &res.conf, &res.rendered, &e);
        if (r < 0) { /* cannot happen: this set was rendered (and judged) above */
                strbuf_addbuf(err, &e);
                return r;
        }
        res.params_applied = xstrdup(g.params_new ? g.new_params : g.old_params);
        res.n_judged = g.n_judged;
        *ret = res;
        res = (struct ctl_guard_result) CTL_GUARD_RESULT_INIT;
        return 0;
}
