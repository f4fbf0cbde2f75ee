/* SPDX-License-Identifier: Apache-2.0 */
/* The hook tools, served inside the runner: Juju's syntax, output formats and exit codes (0 ok,
 * 1 failed with "ERROR msg", 2 bad flags or arguments). Buffered changes go to ctx->work. */
#include "util/macro.h"

#include <ctype.h>
#include <sys/random.h>

#include "charm.h"
#include "model.h"
#include "runner.h"
#include "yamljson.h"
#include "util/alloc.h"
#include "util/strv.h"
#include "util/banned.h"

/* --- flags -------------------------------------------------------------------------------- */

#define MAX_FLAGS 12

struct flag {
        const char *name;  /* long name; a one-letter name is also accepted with one dash */
        const char *alias; /* second name or NULL */
        bool takes_value;
        bool set;
        const char *value;
};

struct call {
        struct hookctx *ctx;
        const char *tool;
        struct strbuf *out;
        struct strbuf *err;
        const char *file;
        struct flag flags[MAX_FLAGS];
        size_t nflags;
        struct strv args;
        enum out_format format;
};

static void flag(struct call *c, const char *name, const char *alias, bool takes_value) {
        c->flags[c->nflags++] = (struct flag){ .name = name, .alias = alias, .takes_value = takes_value };
}

static struct flag *flag_get(struct call *c, const char *name) {
        for (size_t i = 0; i < c->nflags; i++)
                if (streq(c->flags[i].name, name))
                        return &c->flags[i];
        return NULL;
}

static bool has(struct call *c, const char *name) {
        struct flag *f = flag_get(c, name);
        return f && f->set;
}

static const char *val(struct call *c, const char *name) {
        struct flag *f = flag_get(c, name);
        return f && f->set ? f->value : NULL;
}

static int fail(struct call *c, int code, const char *fmt, ...) _printf_(3, 4);
static int fail(struct call *c, int code, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        strbuf_addstr(c->err, "ERROR ");
        strbuf_vaddf(c->err, fmt, ap);
        strbuf_addch(c->err, '\n');
        va_end(ap);
        return code;
}

/* Parses argv[1..] against the declared flags (gnuflag-like: -x and --x, "=value" or the next
 * argument, flags and arguments interspersed, "--" ends flags). Returns 0 or exit code 2. */
static int parse(struct call *c, char *const *argv) {
        bool dashdash = false;
        for (size_t i = 1; argv[i]; i++) {
                const char *a = argv[i];
                if (dashdash || a[0] != '-' || streq(a, "-")) {
                        strv_push(&c->args, a);
                        continue;
                }
                if (streq(a, "--")) {
                        dashdash = true;
                        continue;
                }
                const char *name = a + 1 + (a[1] == '-');
                _cleanup_free_ char *n = NULL;
                const char *eq = strchr(name, '=');
                n = eq ? xstrndup(name, (size_t) (eq - name)) : xstrdup(name);
                struct flag *f = NULL;
                for (size_t k = 0; k < c->nflags; k++)
                        if (streq(c->flags[k].name, n) || streq_ptr(c->flags[k].alias, n))
                                f = &c->flags[k];
                if (!f)
                        return fail(c, 2, "option provided but not defined: %s", a);
                f->set = true;
                if (!f->takes_value) {
                        if (eq)
                                return fail(c, 2, "invalid value \"%s\" for flag %s", eq + 1, a);
                        continue;
                }
                if (eq)
                        f->value = eq + 1;
                else if (argv[i + 1])
                        f->value = argv[++i];
                else
                        return fail(c, 2, "flag needs an argument: %s", a);
        }
        const char *fmt = val(c, "format");
        if (fmt && parse_format(fmt, &c->format) < 0)
                return fail(
                        c, 2, "invalid value \"%s\" for option --format: unknown format \"%s\"", fmt, fmt);
        return 0;
}

static int print(struct call *c, const cJSON *v) {
        format_value(c->out, v, c->format);
        return 0;
}

static int print_take(struct call *c, cJSON *v) {
        format_value(c->out, v, c->format);
        cJSON_Delete(v);
        return 0;
}

static int want_args(struct call *c, size_t min, size_t max) {
        if (c->args.n < min)
                return fail(c, 2, "%s: missing argument", c->tool);
        if (c->args.n > max)
                return fail(c, 2, "unrecognized args: [\"%s\"]", c->args.v[max]);
        return 0;
}

/* --- context helpers ---------------------------------------------------------------------- */

static cJSON *W(struct call *c) {
        return c->ctx->work;
}

static cJSON *my_unit(struct call *c) {
        return state_unit(W(c), c->ctx->unit);
}

static bool leader(struct call *c) {
        return unit_is_leader(W(c), c->ctx->unit);
}

/* Resolves -r (or the hook's relation) to an id the unit knows. Returns 0 or an exit code. */
static int relation_arg(struct call *c, long *ret) {
        const char *r = val(c, "r");
        if (!r) {
                if (c->ctx->relation_id < 0)
                        return fail(c, 2, "no relation id specified");
                *ret = c->ctx->relation_id;
                return 0;
        }
        const char *colon = strrchr(r, ':');
        const char *num = colon ? colon + 1 : r;
        char *end;
        long id = strtol(num, &end, 10);
        const cJSON *rel = state_relation(W(c), id);
        bool ok = *num && !*end && rel && unit_rel(W(c), c->ctx->unit, id);
        if (ok && colon) {
                _cleanup_free_ char *ep = xstrndup(r, (size_t) (colon - r));
                ok = streq_ptr(jstr(rel_endpoint(rel, c->ctx->app), "endpoint"), ep);
        }
        if (!ok)
                return fail(c, 2, "invalid value \"%s\" for option -r: relation not found", r);
        *ret = id;
        return 0;
}

static char *rel_key(struct call *c, long id) {
        const cJSON *rel = state_relation(W(c), id);
        return xasprintf("%s:%ld", strempty(jstr(rel_endpoint(rel, c->ctx->app), "endpoint")), id);
}

static int unit_cmp(const void *a, const void *b) {
        const char *x = *(char *const *) a, *y = *(char *const *) b;
        const char *sx = strrchr(x, '/'), *sy = strrchr(y, '/');
        size_t lx = sx ? (size_t) (sx - x) : strlen(x), ly = sy ? (size_t) (sy - y) : strlen(y);
        int r = strncmp(x, y, lx < ly ? lx : ly);
        if (r || lx != ly)
                return r ? r : (lx < ly ? -1 : 1);
        long nx = sx ? atol(sx + 1) : 0, ny = sy ? atol(sy + 1) : 0;
        return nx < ny ? -1 : nx > ny;
}

static cJSON *string_list(struct strv *sv) {
        qsort(sv->v, sv->n, sizeof(char *), unit_cmp);
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; i < sv->n; i++)
                cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
        return a;
}

/* key=value arguments (and a --file YAML map first) into obj; "" deletes when del. */
static int kv_args(struct call *c, size_t from, cJSON *obj, bool del) {
        if (c->file) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                _cleanup_json_ cJSON *m = NULL;
                if (yaml_to_json(c->file, strlen(c->file), false, &m, &e) < 0)
                        return fail(c, 1, "cannot read --file: %s", e.buf);
                if (!cJSON_IsObject(m) && !cJSON_IsNull(m))
                        return fail(c, 1, "cannot read --file: expected a YAML map");
                const cJSON *e2;
                cJSON_ArrayForEach(e2, m) {
                        const char *v = cJSON_IsString(e2) ? e2->valuestring : "";
                        if (del && !*v)
                                cJSON_DeleteItemFromObjectCaseSensitive(obj, e2->string);
                        else
                                jset_str(obj, e2->string, v);
                }
        }
        for (size_t i = from; i < c->args.n; i++) {
                const char *eq = strchr(c->args.v[i], '=');
                if (!eq || eq == c->args.v[i])
                        return fail(c, 2, "expected \"key=value\", got \"%s\"", c->args.v[i]);
                _cleanup_free_ char *k = xstrndup(c->args.v[i], (size_t) (eq - c->args.v[i]));
                if (del && !eq[1])
                        cJSON_DeleteItemFromObjectCaseSensitive(obj, k);
                else
                        jset_str(obj, k, eq + 1);
        }
        return 0;
}

/* --- relations ------------------------------------------------------------------------------ */

static int t_relation_ids(struct call *c) {
        int r = want_args(c, 0, 1);
        if (r)
                return r;
        const char *ep = c->args.n ? c->args.v[0] : NULL;
        if (!ep && c->ctx->relation_id >= 0)
                ep = jstr(rel_endpoint(state_relation(W(c), c->ctx->relation_id), c->ctx->app), "endpoint");
        if (!ep)
                return fail(c, 2, "no endpoint name specified");
        _cleanup_strv_ struct strv ids = STRV_INIT;
        const cJSON *ur;
        cJSON_ArrayForEach(ur, jget(my_unit(c), "relations")) {
                long id = strtol(ur->string, NULL, 10);
                const cJSON *rel = state_relation(W(c), id);
                if (!rel || cJSON_IsTrue(jget(ur, "broken")))
                        continue;
                if (streq_ptr(jstr(rel_endpoint(rel, c->ctx->app), "endpoint"), ep))
                        strv_push_take(&ids, rel_key(c, id));
        }
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; i < ids.n; i++)
                cJSON_AddItemToArray(a, cJSON_CreateString(ids.v[i]));
        return print_take(c, a);
}

static int t_relation_list(struct call *c) {
        long id;
        int r = want_args(c, 0, 0);
        if (r || (r = relation_arg(c, &id)))
                return r;
        const cJSON *rel = state_relation(W(c), id);
        if (has(c, "app")) {
                cJSON *s = cJSON_CreateString(strempty(rel_remote_app(rel, c->ctx->app)));
                return print_take(c, s);
        }
        _cleanup_strv_ struct strv mem = STRV_INIT;
        const cJSON *m;
        cJSON_ArrayForEach(m, jget(unit_rel(W(c), c->ctx->unit, id), "members"))
                strv_push(&mem, m->valuestring);
        return print_take(c, string_list(&mem));
}

static int t_relation_get(struct call *c) {
        long id;
        int r = want_args(c, 0, 2);
        if (r || (r = relation_arg(c, &id)))
                return r;
        const char *key = c->args.n > 0 ? c->args.v[0] : "-";
        const char *target = c->args.n > 1 ? c->args.v[1] : NULL;
        bool app = has(c, "app");
        const cJSON *rel = state_relation(W(c), id);
        bool peer = cJSON_IsTrue(jget(rel, "peer"));
        const char *remote_app = rel_remote_app(rel, c->ctx->app);
        if (!target)
                target = app ? (c->ctx->relation_id == id ? c->ctx->remote_app : remote_app)
                             : (c->ctx->relation_id == id ? c->ctx->remote_unit : NULL);
        if (isempty(target))
                return fail(c, 2, "no unit or application specified");
        _cleanup_free_ char *rk = rel_key(c, id);
        const cJSON *bag = NULL;
        if (app || !strchr(target, '/')) {
                /* an application bag (a unit name with --app means its application) */
                _cleanup_free_ char *an = strchr(target, '/')
                        ? xstrndup(target, (size_t) (strchr(target, '/') - target))
                        : xstrdup(target);
                if (streq(an, c->ctx->app)) {
                        if (!peer && !leader(c))
                                return fail(c, 1,
                                        "cannot read application settings of \"%s\" in relation \"%s\": "
                                        "permission denied",
                                        an, rk);
                } else if (!streq_ptr(an, remote_app))
                        return fail(c, 1, "application \"%s\" is not in relation \"%s\"", an, rk);
                bag = jget(jget(rel, "app-data"), an);
        } else {
                const char *tapp = unit_app(W(c), target);
                _cleanup_free_ char *an = xstrndup(target, (size_t) (strchr(target, '/') - target));
                if (!streq(target, c->ctx->unit)) {
                        if (streq(an, c->ctx->app) && !peer)
                                return fail(c, 1,
                                        "cannot read settings of unit \"%s\" in relation \"%s\": "
                                        "permission denied",
                                        target, rk);
                        if (!streq_ptr(an, remote_app) || (tapp && !streq(tapp, an)))
                                return fail(c, 1, "unit \"%s\" is not in relation \"%s\"", target, rk);
                }
                bag = jget(jget(rel, "unit-data"), target);
                if (!bag)
                        return fail(c, 1,
                                "cannot read settings for unit \"%s\" in relation \"%s\": settings not "
                                "found",
                                target, rk);
        }
        if (streq(key, "-")) {
                cJSON *all = bag ? cJSON_Duplicate(bag, true) : cJSON_CreateObject();
                return print_take(c, all);
        }
        const cJSON *v = jget(bag, key);
        if (!v && c->format == FORMAT_SMART)
                return 0;
        _cleanup_json_ cJSON *null = cJSON_CreateNull();
        return print(c, v ? v : null);
}

static int t_relation_set(struct call *c) {
        long id;
        int r = relation_arg(c, &id);
        if (r)
                return r;
        const cJSON *ur = unit_rel(W(c), c->ctx->unit, id);
        _cleanup_free_ char *rk = rel_key(c, id);
        if (cJSON_IsTrue(jget(ur, "broken")))
                return fail(c, 1, "cannot write relation settings of \"%s\": relation is broken", rk);
        cJSON *rel = state_relation(W(c), id);
        cJSON *bag;
        if (has(c, "app")) {
                if (!leader(c))
                        return fail(c, 1,
                                "cannot write application settings of \"%s\" in relation \"%s\": "
                                "permission denied (not the leader)",
                                c->ctx->app, rk);
                bag = jobj(jobj(rel, "app-data"), c->ctx->app);
        } else
                bag = jobj(jobj(rel, "unit-data"), c->ctx->unit);
        /* Check every argument before changing anything. */
        for (size_t i = 0; i < c->args.n; i++)
                if (!strchr(c->args.v[i], '=') || c->args.v[i][0] == '=')
                        return fail(c, 2, "expected \"key=value\", got \"%s\"", c->args.v[i]);
        return kv_args(c, 0, bag, true);
}

/* --- config, leadership, status, logging -------------------------------------------------- */

static int t_config_get(struct call *c) {
        int r = want_args(c, 0, 1);
        if (r)
                return r;
        const cJSON *a = state_app(W(c), c->ctx->app);
        _cleanup_json_ cJSON *eff =
                charm_config_effective(jget(a, "charm"), jget(a, "config"), has(c, "all"));
        if (c->args.n) {
                const cJSON *v = jget(eff, c->args.v[0]);
                if (!v && c->format == FORMAT_SMART)
                        return 0;
                _cleanup_json_ cJSON *null = cJSON_CreateNull();
                return print(c, v ? v : null);
        }
        return print(c, eff);
}

static int t_is_leader(struct call *c) {
        int r = want_args(c, 0, 0);
        if (r)
                return r;
        return print_take(c, cJSON_CreateBool(leader(c)));
}

static const char *const settable[] = { "maintenance", "blocked", "waiting", "active" };

static int t_status_set(struct call *c) {
        int r = want_args(c, 1, 2);
        if (r)
                return r;
        bool ok = false;
        for (size_t i = 0; i < ELEMENTSOF(settable); i++)
                ok = ok || streq(c->args.v[0], settable[i]);
        if (!ok)
                return fail(c, 2,
                        "invalid status \"%s\", expected one of [maintenance blocked waiting active]",
                        c->args.v[0]);
        const char *msg = c->args.n > 1 ? c->args.v[1] : "";
        bool app = has(c, "application");
        if (app && !leader(c))
                return fail(c, 1, "setting application status: this unit is not the leader");
        /* At once: in the committed state and in the hook's view. */
        cJSON *states[2] = { c->ctx->m->state, W(c) };
        for (int i = 0; i < 2; i++) {
                cJSON *s = app ? jobj(state_app(states[i], c->ctx->app), "status")
                               : jobj(state_unit(states[i], c->ctx->unit), "workload");
                jset_str(s, "status", c->args.v[0]);
                jset_str(s, "message", msg);
        }
        return 0;
}

static cJSON *status_obj(const cJSON *s, bool data) {
        cJSON *o = cJSON_CreateObject();
        jset_str(o, "message", jstr(s, "message"));
        jset_str(o, "status", jstr(s, "status") ? jstr(s, "status") : "unknown");
        if (data)
                jobj(o, "status-data");
        return o;
}

static int t_status_get(struct call *c) {
        int r = want_args(c, 0, 0);
        if (r)
                return r;
        bool data = has(c, "include-data");
        if (has(c, "application")) {
                if (!leader(c))
                        return fail(c, 1, "finding application status: this unit is not the leader");
                const cJSON *a = state_app(W(c), c->ctx->app);
                cJSON *o = cJSON_CreateObject();
                cJSON *as = status_obj(jget(a, "status"), true);
                cJSON *units = jobj(as, "units");
                const cJSON *u;
                cJSON_ArrayForEach(u, jget(a, "units")) jset(units, u->valuestring,
                        status_obj(jget(state_unit(W(c), u->valuestring), "workload"), true));
                jset(o, "application-status", as);
                return print_take(c, o);
        }
        cJSON *s = status_obj(jget(my_unit(c), "workload"), data);
        if (!data && c->format == FORMAT_SMART) {
                cJSON *st = cJSON_CreateString(jstr(s, "status"));
                cJSON_Delete(s);
                return print_take(c, st);
        }
        return print_take(c, s);
}

static int t_application_version_set(struct call *c) {
        int r = want_args(c, 1, 1);
        if (r)
                return r;
        jset_str(state_app(c->ctx->m->state, c->ctx->app), "version", c->args.v[0]);
        jset_str(state_app(W(c), c->ctx->app), "version", c->args.v[0]);
        return 0;
}

static int t_juju_log(struct call *c) {
        if (c->args.n == 0)
                return fail(c, 2, "no message specified");
        const char *level = val(c, "log-level");
        if (!level)
                level = has(c, "debug") ? "DEBUG" : "INFO";
        _cleanup_strv_ struct strv words = STRV_INIT;
        for (size_t i = 0; i < c->args.n; i++)
                strv_push(&words, c->args.v[i]);
        _cleanup_free_ char *msg = strv_join(&words, " ");
        _cleanup_free_ char *line = xasprintf("%s %s", level, msg);
        for (char *p = line; *p && *p != ' '; p++)
                *p = (char) toupper((unsigned char) *p);
        cJSON_AddItemToArray(c->ctx->logs, cJSON_CreateString(line));
        return 0;
}

/* --- actions ------------------------------------------------------------------------------ */

static int need_action(struct call *c) {
        return c->ctx->is_action ? 0 : fail(c, 1, "not running an action");
}

static int t_action_get(struct call *c) {
        int r = want_args(c, 0, 1);
        if (r || (r = need_action(c)))
                return r;
        if (!c->args.n)
                return print(c, c->ctx->action_params);
        _cleanup_free_ char *path = xstrdup(c->args.v[0]);
        const cJSON *v = c->ctx->action_params;
        char *seg = path, *dot;
        for (;;) {
                dot = strchr(seg, '.');
                if (dot)
                        *dot = '\0';
                v = jget(v, seg);
                if (!dot || !v)
                        break;
                seg = dot + 1;
        }
        if (!v)
                return 0;
        return print(c, v);
}

static bool valid_key(const char *k) {
        size_t l = strlen(k);
        if (!l || !isalnum((unsigned char) k[0]) || !isalnum((unsigned char) k[l - 1]))
                return false;
        for (const char *p = k; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || isdigit((unsigned char) *p) || *p == '-'))
                        return false;
        return true;
}

static int t_action_set(struct call *c) {
        int r = need_action(c);
        if (r)
                return r;
        if (!c->args.n)
                return fail(c, 2, "no key=value pairs specified");
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < c->args.n; i++) {
                        const char *eq = strchr(c->args.v[i], '=');
                        if (!eq)
                                return fail(
                                        c, 2, "argument \"%s\" must be of the form key=value", c->args.v[i]);
                        _cleanup_free_ char *key = xstrndup(c->args.v[i], (size_t) (eq - c->args.v[i]));
                        cJSON *parent = c->ctx->action_results;
                        char *seg = key, *dot;
                        bool top = true;
                        for (;;) {
                                dot = strchr(seg, '.');
                                if (dot)
                                        *dot = '\0';
                                if (!valid_key(seg))
                                        return fail(c, 2,
                                                "key \"%s\" must start and end with lowercase "
                                                "alphanumeric, and contain only lowercase "
                                                "alphanumeric, hyphens and periods",
                                                seg);
                                if (top && !dot &&
                                        (streq(seg, "stdout") || streq(seg, "stderr") ||
                                                streq(seg, "stdout-encoding")))
                                        return fail(c, 2, "cannot set reserved action key \"%s\"", seg);
                                if (!dot)
                                        break;
                                if (pass)
                                        parent = jobj(parent, seg);
                                seg = dot + 1;
                                top = false;
                        }
                        if (pass)
                                jset_str(parent, seg, eq + 1);
                }
        return 0;
}

static int t_action_fail(struct call *c) {
        int r = need_action(c);
        if (r || (r = want_args(c, 0, 1)))
                return r;
        c->ctx->action_failed = true;
        free(c->ctx->action_message);
        c->ctx->action_message = xstrdup(c->args.n ? c->args.v[0] : "action failed without reason given");
        return 0;
}

static int t_action_log(struct call *c) {
        int r = need_action(c);
        if (r)
                return r;
        if (!c->args.n)
                return fail(c, 2, "no message specified");
        _cleanup_free_ char *msg = strv_join(&c->args, " ");
        cJSON_AddItemToArray(c->ctx->action_log, cJSON_CreateString(msg));
        _cleanup_free_ char *line = xasprintf("ACTION %s", msg);
        cJSON_AddItemToArray(c->ctx->logs, cJSON_CreateString(line));
        return 0;
}

/* --- secrets ------------------------------------------------------------------------------ */

static char *secret_norm(const char *s) {
        const char *p = strrchr(s, '/');
        if (p)
                return xasprintf("secret:%s", p + 1);
        if (startswith(s, "secret:"))
                return xstrdup(s);
        return xasprintf("secret:%s", s);
}

static bool secret_owner_side(struct call *c, const cJSON *s) {
        const char *kind = jstr(s, "owner-kind"), *owner = jstr(s, "owner");
        return streq_ptr(kind, "application") ? streq_ptr(owner, c->ctx->app)
                                              : streq_ptr(owner, c->ctx->unit);
}

static bool secret_manager(struct call *c, const cJSON *s) {
        if (!secret_owner_side(c, s))
                return false;
        return streq_ptr(jstr(s, "owner-kind"), "unit") || leader(c);
}

static bool secret_granted(struct call *c, const cJSON *s) {
        const cJSON *g;
        cJSON_ArrayForEach(g, jget(s, "grants")) {
                if (streq_ptr(jstr(g, "app"), c->ctx->app) || streq_ptr(jstr(g, "unit"), c->ctx->unit))
                        return true;
        }
        return false;
}

/* Finds the secret by id (argument) or --label; *ret_uri is its key. */
static int secret_find(struct call *c, const char *id, cJSON **ret, char **ret_uri) {
        cJSON *secrets = jobj(W(c), "secrets");
        const char *label = val(c, "label");
        if (id) {
                _cleanup_free_ char *uri = secret_norm(id);
                cJSON *s = jget(secrets, uri);
                if (!s)
                        return fail(c, 1, "secret \"%s\" not found", id);
                *ret = s;
                *ret_uri = TAKE_PTR(uri);
                return 0;
        }
        if (!label)
                return fail(c, 2, "require either a secret URI or label");
        cJSON *s;
        cJSON_ArrayForEach(s, secrets) {
                if (secret_owner_side(c, s) && streq_ptr(jstr(s, "label"), label)) {
                        *ret = s;
                        *ret_uri = xstrdup(s->string);
                        return 0;
                }
        }
        const cJSON *t;
        cJSON_ArrayForEach(t, jget(my_unit(c), "secrets")) {
                if (streq_ptr(jstr(t, "label"), label) && jget(secrets, t->string)) {
                        *ret = jget(secrets, t->string);
                        *ret_uri = xstrdup(t->string);
                        return 0;
                }
        }
        return fail(c, 1, "secret with label \"%s\" not found", label);
}

static int secret_content(struct call *c, size_t from, cJSON *content) {
        int r = kv_args(c, from, content, false);
        if (r)
                return r;
        const cJSON *e;
        cJSON_ArrayForEach(e, content) {
                if (strlen(e->string) < 3 || !valid_key(e->string))
                        return fail(c, 2, "invalid key \"%s\" in secret content", e->string);
        }
        return 0;
}

static int t_secret_add(struct call *c) {
        const char *owner = val(c, "owner");
        if (owner && !streq(owner, "application") && !streq(owner, "unit"))
                return fail(c, 2, "secret owner \"%s\" not valid", owner);
        bool unit_owned = owner && streq(owner, "unit");
        _cleanup_json_ cJSON *content = cJSON_CreateObject();
        int r = secret_content(c, 0, content);
        if (r)
                return r;
        if (!content->child)
                return fail(c, 2, "missing secret value");
        if (!unit_owned && !leader(c))
                return fail(c, 1, "cannot create an application-owned secret: this unit is not the leader");
        cJSON *secrets = jobj(W(c), "secrets");
        const char *label = val(c, "label");
        if (label) {
                const cJSON *s;
                cJSON_ArrayForEach(s, secrets) if (secret_owner_side(c, s) &&
                        streq_ptr(jstr(s, "label"), label)) return fail(c, 1,
                        "secret with label \"%s\" already exists", label);
        }
        static const char alphabet[] = "0123456789abcdefghijklmnopqrstuv";
        unsigned char rnd[20];
        if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t) sizeof(rnd))
                return fail(c, 1, "no randomness");
        char xid[21];
        for (size_t i = 0; i < 20; i++)
                xid[i] = alphabet[rnd[i] & 31];
        xid[20] = '\0';
        _cleanup_free_ char *uri = xasprintf("secret:%s", xid);
        cJSON *s = cJSON_CreateObject();
        jset_str(s, "owner", unit_owned ? c->ctx->unit : c->ctx->app);
        jset_str(s, "owner-kind", unit_owned ? "unit" : "application");
        if (label)
                jset_str(s, "label", label);
        if (val(c, "description"))
                jset_str(s, "description", val(c, "description"));
        jset_num(s, "latest", 1);
        jset(jobj(s, "revisions"), "1", TAKE_PTR(content));
        jarr(s, "grants");
        jset(secrets, uri, s);
        strbuf_addf(c->out, "%s\n", uri);
        return 0;
}

static bool looks_like_secret_id(const char *s) {
        if (startswith(s, "secret:"))
                return true;
        if (strlen(s) != 20)
                return false;
        for (const char *p = s; *p; p++)
                if (!isdigit((unsigned char) *p) && !(*p >= 'a' && *p <= 'v'))
                        return false;
        return true;
}

static int t_secret_get(struct call *c) {
        int r = want_args(c, 0, 2);
        if (r)
                return r;
        const char *id = c->args.n ? c->args.v[0] : NULL;
        const char *key = c->args.n > 1 ? c->args.v[1] : NULL;
        if (id && val(c, "label") && c->args.n == 1 && !looks_like_secret_id(id)) {
                /* secret-get --label L KEY */
                key = id;
                id = NULL;
        }
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        r = secret_find(c, id, &s, &uri);
        if (r)
                return r;
        long rev;
        if (secret_owner_side(c, s)) {
                rev = (long) jnum(s, "latest", 1);
        } else {
                if (!secret_granted(c, s))
                        return fail(c, 1, "permission denied");
                cJSON *track = jget(jobj(my_unit(c), "secrets"), uri);
                if (has(c, "peek"))
                        rev = (long) jnum(s, "latest", 1);
                else if (!track || has(c, "refresh")) {
                        rev = (long) jnum(s, "latest", 1);
                        if (!track)
                                track = jobj(jobj(my_unit(c), "secrets"), uri);
                        jset_num(track, "revision", (double) rev);
                } else
                        rev = (long) jnum(track, "revision", 1);
                if (id && val(c, "label"))
                        jset_str(track ? track : jobj(jobj(my_unit(c), "secrets"), uri), "label",
                                val(c, "label"));
        }
        char rk[32];
        snprintf(rk, sizeof(rk), "%ld", rev);
        const cJSON *content = jget(jget(s, "revisions"), rk);
        if (!content)
                return fail(c, 1, "secret \"%s\" revision %ld not found", uri, rev);
        if (key) {
                const cJSON *v = jget(content, key);
                if (!v)
                        return fail(c, 1, "secret \"%s\" has no key \"%s\"", uri, key);
                return print(c, v);
        }
        return print(c, content);
}

static int manage(struct call *c, cJSON **ret, char **ret_uri) {
        int r = secret_find(c, c->args.n ? c->args.v[0] : NULL, ret, ret_uri);
        if (r)
                return r;
        if (!secret_manager(c, *ret))
                return fail(c, 1, "permission denied: %s",
                        secret_owner_side(c, *ret) ? "this unit is not the leader"
                                                   : "not the secret's owner");
        return 0;
}

static int t_secret_set(struct call *c) {
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        if (!c->args.n)
                return fail(c, 2, "missing secret URI");
        int r = manage(c, &s, &uri);
        if (r)
                return r;
        _cleanup_json_ cJSON *content = cJSON_CreateObject();
        r = secret_content(c, 1, content);
        if (r)
                return r;
        if (val(c, "label"))
                jset_str(s, "label", val(c, "label"));
        if (val(c, "description"))
                jset_str(s, "description", val(c, "description"));
        if (!content->child)
                return 0;
        long latest = (long) jnum(s, "latest", 1);
        char k[32];
        snprintf(k, sizeof(k), "%ld", latest);
        if (cJSON_Compare(jget(jget(s, "revisions"), k), content, true))
                return 0;
        snprintf(k, sizeof(k), "%ld", latest + 1);
        jset(jobj(s, "revisions"), k, TAKE_PTR(content));
        jset_num(s, "latest", (double) (latest + 1));
        return 0;
}

static int t_secret_grant(struct call *c) {
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        int r = want_args(c, 1, 1);
        if (r || (r = manage(c, &s, &uri)))
                return r;
        if (!val(c, "r"))
                return fail(c, 2, "missing relation id (-r)");
        long id;
        if ((r = relation_arg(c, &id)))
                return r;
        const char *rapp = rel_remote_app(state_relation(W(c), id), c->ctx->app);
        const char *unit = val(c, "unit");
        if (unit && !streq_ptr(unit_app(W(c), unit), rapp))
                return fail(c, 1, "unit \"%s\" is not in relation %ld", unit, id);
        cJSON *g = cJSON_CreateObject();
        jset_num(g, "relation", (double) id);
        jset_str(g, unit ? "unit" : "app", unit ? unit : rapp);
        cJSON *grants = jarr(s, "grants");
        const cJSON *e;
        cJSON_ArrayForEach(e, grants) if (cJSON_Compare(e, g, true)) {
                cJSON_Delete(g);
                return 0;
        }
        cJSON_AddItemToArray(grants, g);
        return 0;
}

static int t_secret_revoke(struct call *c) {
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        int r = want_args(c, 1, 1);
        if (r || (r = manage(c, &s, &uri)))
                return r;
        long id = -1;
        if (val(c, "r") && (r = relation_arg(c, &id)))
                return r;
        const char *app = val(c, "app"), *unit = val(c, "unit");
        cJSON *grants = jarr(s, "grants");
        for (int i = cJSON_GetArraySize(grants) - 1; i >= 0; i--) {
                const cJSON *g = cJSON_GetArrayItem(grants, i);
                if ((id < 0 || (long) jnum(g, "relation", -1) == id) &&
                        (!app || streq_ptr(jstr(g, "app"), app)) &&
                        (!unit || streq_ptr(jstr(g, "unit"), unit)))
                        cJSON_DeleteItemFromArray(grants, i);
        }
        return 0;
}

static int t_secret_remove(struct call *c) {
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        int r = want_args(c, 1, 1);
        if (r || (r = manage(c, &s, &uri)))
                return r;
        const char *rev = val(c, "revision");
        if (rev) {
                if (!jget(jget(s, "revisions"), rev))
                        return fail(c, 1, "secret \"%s\" revision %s not found", uri, rev);
                cJSON_DeleteItemFromObjectCaseSensitive(jget(s, "revisions"), rev);
                if (jget(s, "revisions")->child)
                        return 0;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(jget(W(c), "secrets"), uri);
        return 0;
}

static int t_secret_ids(struct call *c) {
        int r = want_args(c, 0, 0);
        if (r)
                return r;
        cJSON *a = cJSON_CreateArray();
        const cJSON *s;
        cJSON_ArrayForEach(s, jget(W(c), "secrets")) if (secret_owner_side(c, s))
                cJSON_AddItemToArray(a, cJSON_CreateString(s->string));
        return print_take(c, a);
}

static int t_secret_info_get(struct call *c) {
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        int r = want_args(c, 0, 1);
        if (r || (r = manage(c, &s, &uri)))
                return r;
        cJSON *o = cJSON_CreateObject();
        cJSON *i = jobj(o, uri + strlen("secret:"));
        jset_num(i, "revision", jnum(s, "latest", 1));
        if (jstr(s, "label"))
                jset_str(i, "label", jstr(s, "label"));
        jset_str(i, "owner", jstr(s, "owner-kind"));
        jset_str(i, "rotation", "never");
        if (jstr(s, "description"))
                jset_str(i, "description", jstr(s, "description"));
        return print_take(c, o);
}

/* --- state, ports, network ---------------------------------------------------------------- */

static int t_state_get(struct call *c) {
        int r = want_args(c, 0, 1);
        if (r)
                return r;
        const cJSON *st = jget(my_unit(c), "state");
        if (!c->args.n)
                return print(c, st);
        const cJSON *v = jget(st, c->args.v[0]);
        if (!v) {
                if (has(c, "strict"))
                        return fail(c, 1, "state key \"%s\" not found", c->args.v[0]);
                if (c->format == FORMAT_SMART)
                        return 0;
                _cleanup_json_ cJSON *null = cJSON_CreateNull();
                return print(c, null);
        }
        return print(c, v);
}

static int t_state_set(struct call *c) {
        return kv_args(c, 0, jobj(my_unit(c), "state"), true);
}

static int t_state_delete(struct call *c) {
        int r = want_args(c, 1, 1);
        if (r)
                return r;
        cJSON_DeleteItemFromObjectCaseSensitive(jobj(my_unit(c), "state"), c->args.v[0]);
        return 0;
}

/* "80", "80/tcp", "8000-8010/udp", "icmp" into the canonical "80/tcp" form. */
static char *port_norm(const char *s) {
        if (streq(s, "icmp"))
                return xstrdup("icmp");
        _cleanup_free_ char *p = xstrdup(s);
        char *slash = strchr(p, '/');
        const char *proto = "tcp";
        if (slash) {
                *slash = '\0';
                proto = slash + 1;
                if (!streq(proto, "tcp") && !streq(proto, "udp"))
                        return NULL;
        }
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (*end == '-')
                b = strtol(end + 1, &end, 10);
        if (*end || end == p || a < 1 || b > 65535 || b < a)
                return NULL;
        return a == b ? xasprintf("%ld/%s", a, proto) : xasprintf("%ld-%ld/%s", a, b, proto);
}

static int t_port(struct call *c, bool open) {
        int r = want_args(c, 1, 1);
        if (r)
                return r;
        _cleanup_free_ char *p = port_norm(c->args.v[0]);
        if (!p)
                return fail(c, 2, "invalid port range \"%s\"", c->args.v[0]);
        cJSON *ports = jarr(my_unit(c), "ports");
        jarr_remove_str(ports, p);
        if (open)
                cJSON_AddItemToArray(ports, cJSON_CreateString(p));
        return 0;
}

static int t_opened_ports(struct call *c) {
        int r = want_args(c, 0, 0);
        if (r)
                return r;
        return print(c, jarr(my_unit(c), "ports"));
}

static const char *my_address(struct call *c) {
        return strempty(jstr(state_machine(W(c), jstr(my_unit(c), "machine")), "address"));
}

static int t_unit_get(struct call *c) {
        int r = want_args(c, 1, 1);
        if (r)
                return r;
        if (!streq(c->args.v[0], "private-address") && !streq(c->args.v[0], "public-address"))
                return fail(c, 2, "unknown setting \"%s\"", c->args.v[0]);
        return print_take(c, cJSON_CreateString(my_address(c)));
}

static int t_network_get(struct call *c) {
        int r = want_args(c, 0, 1);
        if (r)
                return r;
        const char *binding = c->args.n ? c->args.v[0] : NULL;
        if (val(c, "r")) {
                long id;
                if ((r = relation_arg(c, &id)))
                        return r;
                if (!binding)
                        binding = jstr(rel_endpoint(state_relation(W(c), id), c->ctx->app), "endpoint");
        }
        if (!binding)
                return fail(c, 2, "no arguments specified");
        const cJSON *charm = jget(state_app(W(c), c->ctx->app), "charm");
        if (!jget(jget(charm, "endpoints"), binding) && !jget(jget(charm, "extra-bindings"), binding))
                return fail(c, 1, "no network config found for binding \"%s\"", binding);
        const char *addr = my_address(c);
        bool lo = startswith(addr, "127.") != NULL;
        _cleanup_free_ char *subnet = xasprintf("%s/32", addr);
        if (has(c, "bind-address") || has(c, "ingress-address") || has(c, "primary-address"))
                return print_take(c, cJSON_CreateString(addr));
        if (has(c, "egress-subnets"))
                return print_take(c, cJSON_CreateString(subnet));
        cJSON *o = cJSON_CreateObject();
        cJSON *ba = cJSON_CreateObject();
        jset_str(ba, "mac-address", "");
        jset_str(ba, "interface-name", lo ? "lo" : "eth0");
        cJSON *a = cJSON_CreateObject();
        jset_str(a, "hostname", "");
        jset_str(a, "address", addr);
        _cleanup_free_ char *cidr = lo ? xstrdup("127.0.0.0/8") : NULL;
        if (!cidr) {
                _cleanup_free_ char *net = xstrdup(addr);
                char *dot = strrchr(net, '.');
                if (dot)
                        *dot = '\0';
                cidr = xasprintf("%s.0/24", net);
        }
        jset_str(a, "cidr", cidr);
        jset_str(a, "value", addr);
        cJSON_AddItemToArray(jarr(ba, "addresses"), a);
        jset_str(ba, "macaddress", "");
        jset_str(ba, "interfacename", lo ? "lo" : "eth0");
        cJSON_AddItemToArray(jarr(o, "bind-addresses"), ba);
        cJSON_AddItemToArray(jarr(o, "egress-subnets"), cJSON_CreateString(subnet));
        cJSON_AddItemToArray(jarr(o, "ingress-addresses"), cJSON_CreateString(addr));
        if (c->format == FORMAT_SMART)
                c->format = FORMAT_YAML;
        return print_take(c, o);
}

/* --- dispatch ----------------------------------------------------------------------------- */

int hooktool_run(struct hookctx *ctx, char *const *argv, const char *file, struct strbuf *out,
        struct strbuf *errout) {
        const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        struct call c = {
                .ctx = ctx, .tool = name, .out = out, .err = errout, .file = file, .args = STRV_INIT
        };
        int r;
        flag(&c, "format", NULL, true);
        flag(&c, "o", "output", true);
        int (*fn)(struct call *) = NULL;
        bool open_port = false, close_port = false;

        if (streq(name, "relation-ids"))
                fn = t_relation_ids;
        else if (streq(name, "relation-list")) {
                flag(&c, "r", "relation", true);
                flag(&c, "app", NULL, false);
                fn = t_relation_list;
        } else if (streq(name, "relation-get")) {
                flag(&c, "r", "relation", true);
                flag(&c, "app", NULL, false);
                fn = t_relation_get;
        } else if (streq(name, "relation-set")) {
                flag(&c, "r", "relation", true);
                flag(&c, "app", NULL, false);
                flag(&c, "file", NULL, true);
                fn = t_relation_set;
        } else if (streq(name, "config-get")) {
                flag(&c, "all", "a", false);
                fn = t_config_get;
        } else if (streq(name, "is-leader"))
                fn = t_is_leader;
        else if (streq(name, "status-set")) {
                flag(&c, "application", NULL, false);
                fn = t_status_set;
        } else if (streq(name, "status-get")) {
                flag(&c, "application", NULL, false);
                flag(&c, "include-data", NULL, false);
                fn = t_status_get;
        } else if (streq(name, "application-version-set"))
                fn = t_application_version_set;
        else if (streq(name, "juju-log")) {
                flag(&c, "log-level", "l", true);
                flag(&c, "debug", NULL, false);
                flag(&c, "key", NULL, true);
                fn = t_juju_log;
        } else if (streq(name, "action-get"))
                fn = t_action_get;
        else if (streq(name, "action-set"))
                fn = t_action_set;
        else if (streq(name, "action-fail"))
                fn = t_action_fail;
        else if (streq(name, "action-log"))
                fn = t_action_log;
        else if (streq(name, "secret-add")) {
                flag(&c, "label", NULL, true);
                flag(&c, "description", NULL, true);
                flag(&c, "owner", NULL, true);
                flag(&c, "expire", NULL, true);
                flag(&c, "rotate", NULL, true);
                flag(&c, "file", NULL, true);
                fn = t_secret_add;
        } else if (streq(name, "secret-get")) {
                flag(&c, "label", NULL, true);
                flag(&c, "peek", NULL, false);
                flag(&c, "refresh", NULL, false);
                fn = t_secret_get;
        } else if (streq(name, "secret-set")) {
                flag(&c, "label", NULL, true);
                flag(&c, "description", NULL, true);
                flag(&c, "expire", NULL, true);
                flag(&c, "rotate", NULL, true);
                flag(&c, "file", NULL, true);
                fn = t_secret_set;
        } else if (streq(name, "secret-grant")) {
                flag(&c, "r", "relation", true);
                flag(&c, "unit", NULL, true);
                fn = t_secret_grant;
        } else if (streq(name, "secret-revoke")) {
                flag(&c, "r", "relation", true);
                flag(&c, "unit", NULL, true);
                flag(&c, "app", NULL, true);
                fn = t_secret_revoke;
        } else if (streq(name, "secret-remove")) {
                flag(&c, "revision", NULL, true);
                fn = t_secret_remove;
        } else if (streq(name, "secret-ids"))
                fn = t_secret_ids;
        else if (streq(name, "secret-info-get")) {
                flag(&c, "label", NULL, true);
                fn = t_secret_info_get;
        } else if (streq(name, "state-get")) {
                flag(&c, "strict", NULL, false);
                fn = t_state_get;
        } else if (streq(name, "state-set")) {
                flag(&c, "file", NULL, true);
                fn = t_state_set;
        } else if (streq(name, "state-delete"))
                fn = t_state_delete;
        else if ((open_port = streq(name, "open-port")) || (close_port = streq(name, "close-port"))) {
                flag(&c, "endpoints", NULL, true);
        } else if (streq(name, "opened-ports")) {
                flag(&c, "endpoints", NULL, false);
                fn = t_opened_ports;
        } else if (streq(name, "unit-get"))
                fn = t_unit_get;
        else if (streq(name, "network-get")) {
                flag(&c, "r", "relation", true);
                flag(&c, "bind-address", NULL, false);
                flag(&c, "ingress-address", NULL, false);
                flag(&c, "egress-subnets", NULL, false);
                flag(&c, "primary-address", NULL, false);
                fn = t_network_get;
        } else {
                r = fail(&c, 1, "juju-sim: hook tool \"%s\" is not supported", name);
                strv_clear(&c.args);
                return r;
        }
        r = parse(&c, argv);
        if (r == 0 && val(&c, "o"))
                r = fail(&c, 2, "--output is not supported by juju-sim");
        if (r == 0)
                r = open_port || close_port ? t_port(&c, open_port) : fn(&c);
        strv_clear(&c.args);
        return r;
}
