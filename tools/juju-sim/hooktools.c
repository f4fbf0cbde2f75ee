/* SPDX-License-Identifier: Apache-2.0 */
/* The hook tools, served inside the runner: Juju's syntax, output formats and exit codes (0 ok,
 * 1 failed with "ERROR msg", 2 bad flags or arguments). Buffered changes go to ctx->work. */
#include "util/macro.h"

#include <ctype.h>
#include <time.h>
#include <sys/random.h>

#include "actionparams.h"
#include "charm.h"
#include "gnuflag.h"
#include "model.h"
#include "runner.h"
#include "toolflags.h"
#include "yamljson.h"
#include "util/alloc.h"
#include "util/base64.h"
#include "util/strv.h"
#include "util/banned.h"

/* runner.h: the state an immediate write goes to (serial: the model's own, saved at once while
 * the process holds its machine's lock; concurrent: reloaded under the model lock). */
cJSON *hookctx_state_begin(struct hookctx *ctx, struct strbuf *err) {
        if (!ctx->concurrent)
                return ctx->m->state;
        if (model_lock(ctx->m, RUNNER_LOCK_TIMEOUT_SEC, err) < 0)
                return NULL;
        return ctx->m->state;
}

int hookctx_state_end(struct hookctx *ctx, struct strbuf *err) {
        if (!ctx->concurrent)
                return ctx->serial_saves ? model_save(ctx->m, err) : 0;
        int r = model_save(ctx->m, err);
        model_unlock(ctx->m);
        return r;
}

/* --- flags (gnuflag.h, toolflags.h) ------------------------------------------------------ */

struct call {
        struct hookctx *ctx;
        const char *tool;
        const struct toolflags *tf;
        struct strbuf *out;
        struct strbuf *err;
        const char *file;
        const cJSON *files; /* {path: contents} of key#file= arguments, read by the tool */
        struct gnuflag_value values[TF_NSLOTS];
        struct strv args;
        enum out_format format;
        long rel_id; /* -r's relation, checked while parsing (relationIdValue.Set) */
};

static const struct gnuflag_value *flag_value(struct call *c, const char *name) {
        int slot = toolflags_slot(c->tf, name);
        return slot < 0 ? NULL : &c->values[slot];
}

static bool has(struct call *c, const char *name) {
        const struct gnuflag_value *v = flag_value(c, name);
        return v && v->set && v->b;
}

static const char *val(struct call *c, const char *name) {
        const struct gnuflag_value *v = flag_value(c, name);
        return v && v->set ? v->value : NULL;
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

/* Ends an immediate write (hookctx_state_begin): 0, or 1 with "ERROR what: why". */
static int immediate_end(struct call *c, const char *what) {
        _cleanup_strbuf_ struct strbuf lerr = STRBUF_INIT;
        if (hookctx_state_end(c->ctx, &lerr) < 0)
                return fail(c, 1, "%s: %s", what, lerr.buf);
        return 0;
}

/* Juju's %q in a message. */
static const char *q(struct call *c, const char *s, struct strbuf *buf) {
        (void) c;
        strbuf_reset(buf);
        gnuflag_quote(buf, s);
        return buf->buf;
}

/* The relation ids the unit knows in this context (HookContext.relations). */
static bool known_relation(struct call *c, long id) {
        return state_relation(c->ctx->work, id) && unit_rel(c->ctx->work, c->ctx->unit, id);
}

/* Set() of the flags with their own value types: -r (relationIdValue), --format
 * (formatterValue), --revision (intValue). */
static int set_flag(void *ud, const struct gnuflag *f, const char *value, struct strbuf *why) {
        struct call *c = ud;
        if (streq(f->name, "r") || streq(f->name, "relation")) {
                const char *colon = strrchr(value, ':');
                const char *num = colon ? colon + 1 : value;
                char *end;
                errno = 0;
                long id = strtol(num, &end, 10);
                if (!*num || *end || errno || isspace((unsigned char) *num)) {
                        strbuf_addstr(why, "invalid relation id");
                        return -EINVAL;
                }
                if (!known_relation(c, id)) {
                        strbuf_addstr(why, "relation not found");
                        return -EINVAL;
                }
                c->rel_id = id;
                return 0;
        }
        if (streq(f->name, "format") && c->tf->out) {
                enum out_format fmt;
                unsigned bit = streq(value, "smart") ? TF_SMART
                        : streq(value, "yaml")       ? TF_YAML
                        : streq(value, "json")       ? TF_JSON
                                                     : 0;
                if (!(bit & c->tf->formats) || parse_format(value, &fmt) < 0) {
                        strbuf_addstr(why, "unknown format ");
                        gnuflag_quote(why, value);
                        return -EINVAL;
                }
                c->format = fmt;
                return 0;
        }
        if (streq(f->name, "revision")) {
                char *end;
                errno = 0;
                (void) strtoll(value, &end, 0);
                if (!*value || *end || errno) {
                        strbuf_addstr(why,
                                errno == ERANGE ? "strconv.ParseInt: parsing "
                                                : "strconv.ParseInt: parsing ");
                        gnuflag_quote(why, value);
                        strbuf_addstr(why, errno == ERANGE ? ": value out of range" : ": invalid syntax");
                        return -EINVAL;
                }
        }
        return 0;
}

/* Parses argv[1..] for the tool (gnuflag grammar, interspersed). Returns 0, or the exit code
 * with the message written: 2 for a usage error (cmd.Main), 0 after printing help. */
static int parse(struct call *c, char *const *argv) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        c->rel_id = c->ctx->relation_id;
        if (c->tf->out) {
                enum out_format fmt = FORMAT_SMART;
                (void) parse_format(c->tf->out, &fmt);
                c->format = fmt;
        }
        int r = toolflags_parse(c->tf, argv, c->values, set_flag, c, &c->args, &e);
        if (r == GNUFLAG_HELP) {
                strbuf_addf(c->out, "Usage: %s [options]\n", c->tool);
                return -1;
        }
        if (r < 0)
                return fail(c, 2, "%s", e.buf);
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

/* cmd.CheckEmpty(args[from:]): `unrecognized args: ["a" "b"]` (Go's %q of a []string), exit 2. */
static int check_empty(struct call *c, size_t from) {
        if (c->args.n <= from)
                return 0;
        _cleanup_strbuf_ struct strbuf l = STRBUF_INIT;
        for (size_t i = from; i < c->args.n; i++) {
                if (i > from)
                        strbuf_addch(&l, ' ');
                gnuflag_quote(&l, c->args.v[i]);
        }
        return fail(c, 2, "unrecognized args: [%s]", l.buf);
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

/* The relation -r named (checked while parsing) or the hook's. Returns 0 or exit code 2. */
static int relation_arg(struct call *c, long *ret) {
        if (c->rel_id < 0)
                return fail(c, 2, "no relation id specified");
        *ret = c->rel_id;
        return 0;
}

static char *rel_key(struct call *c, long id) {
        const cJSON *rel = state_relation(W(c), id);
        return xasprintf("%s:%ld", strempty(jstr(rel_endpoint(rel, c->ctx->app), "endpoint")), id);
}

/* A []string sorted as Go's sort.Strings (byte order: "a/10" before "a/2"). */
static cJSON *string_list(struct strv *sv) {
        strv_sort(sv);
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; i < sv->n; i++)
                cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
        return a;
}

static bool go_space(char ch) {
        return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

static char *trim_dup(const char *s, size_t n) {
        while (n && go_space(*s))
                s++, n--;
        while (n && go_space(s[n - 1]))
                n--;
        return xstrndup(s, n);
}

/* juju/utils keyvalues.Parse(args[from:], allowEmptyValues=true) into kv (an object of
 * strings): keys and values trimmed, duplicates refused. Returns 0 or exit code 2. */
static int keyvalues(struct call *c, size_t from, cJSON *kv) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        for (size_t i = from; i < c->args.n; i++) {
                const char *a = c->args.v[i], *eq = strchr(a, '=');
                if (!eq)
                        return fail(c, 2, "expected \"key=value\", got %s", q(c, a, &b));
                _cleanup_free_ char *k = trim_dup(a, (size_t) (eq - a));
                _cleanup_free_ char *v = trim_dup(eq + 1, strlen(eq + 1));
                if (!*k)
                        return fail(c, 2, "expected \"key=value\", got \"%s=%s\"", k, v);
                if (jget(kv, k))
                        return fail(c, 2, "key %s specified more than once", q(c, k, &b));
                jset_str(kv, k, v);
        }
        return 0;
}

/* The --file contents as a YAML (or JSON) map of strings, goyaml's map[string]string: a null
 * value is "", a nested one refused. Returns 0 or the exit code given. */
static int file_map(struct call *c, int code, cJSON **ret) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_json_ cJSON *m = NULL;
        if (yaml_to_json(c->file, strlen(c->file), false, &m, &e) < 0)
                return fail(c, code, "yaml: %s", e.buf);
        if (!cJSON_IsObject(m) && !cJSON_IsNull(m))
                return fail(c, code, "yaml: unmarshal errors: cannot unmarshal into map[string]string");
        cJSON *out = cJSON_CreateObject();
        const cJSON *e2;
        cJSON_ArrayForEach(e2, m) {
                if (!cJSON_IsString(e2) && !cJSON_IsNull(e2)) {
                        cJSON_Delete(out);
                        return fail(c, code,
                                "yaml: unmarshal errors: cannot unmarshal !!map or !!seq into string");
                }
                jset_str(out, e2->string, cJSON_IsString(e2) ? e2->valuestring : "");
        }
        *ret = out;
        return 0;
}

/* The --file map merged under the arguments' kv (relation-set, state-set). Returns 0 or 1. */
static int settings_file(struct call *c, cJSON *kv) {
        if (!c->file)
                return 0;
        _cleanup_json_ cJSON *m = NULL;
        int r = file_map(c, 1, &m);
        if (r)
                return r;
        const cJSON *e;
        cJSON_ArrayForEach(e, m) if (!jget(kv, e->string)) jset_str(kv, e->string, e->valuestring);
        return 0;
}

/* Applies kv to bag: an empty value deletes the key (relation-set, state-set). */
static void apply_kv(cJSON *bag, const cJSON *kv) {
        const cJSON *e;
        cJSON_ArrayForEach(e, kv) {
                if (!*e->valuestring)
                        cJSON_DeleteItemFromObjectCaseSensitive(bag, e->string);
                else
                        jset_str(bag, e->string, e->valuestring);
        }
}

/* The deprecated --format of juju-log, relation-set, open-port, close-port: a warning on
 * stderr, without a newline, as Juju writes it. */
static void deprecated_format(struct call *c) {
        if (c->tf->format_deprecated && !c->tf->out && val(c, "format") && *val(c, "format"))
                strbuf_addf(c->err, "--format flag deprecated for command \"%s\"", c->tool);
}

/* --- relations ------------------------------------------------------------------------------ */

static int t_relation_ids(struct call *c) {
        const char *ep = NULL;
        if (c->ctx->relation_id >= 0)
                ep = jstr(rel_endpoint(state_relation(W(c), c->ctx->relation_id), c->ctx->app), "endpoint");
        if (c->args.n)
                ep = c->args.v[0];
        else if (isempty(ep))
                return fail(c, 2, "no endpoint name specified");
        int r = check_empty(c, 1);
        if (r)
                return r;
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
        return print_take(c, string_list(&ids));
}

static int t_relation_list(struct call *c) {
        long id = -1;
        int r = relation_arg(c, &id);
        if (r || (r = check_empty(c, 0)))
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

/* names.IsValidApplication / names.IsValidUnit (juju/names application.go, unit.go): an
 * application name is lowercase letters, digits and hyphens, starts with a letter, and every
 * part after a hyphen holds a letter; a unit is "<application>/<number>". */
static bool valid_application(const char *s, size_t n) {
        if (n == 0 || !(s[0] >= 'a' && s[0] <= 'z'))
                return false;
        bool letter = false;
        for (size_t i = 0; i < n; i++) {
                char ch = s[i];
                if (ch == '-') {
                        if (!letter || i + 1 == n)
                                return false;
                        letter = false;
                } else if (ch >= 'a' && ch <= 'z')
                        letter = true;
                else if (!(ch >= '0' && ch <= '9'))
                        return false;
        }
        return letter;
}

static bool valid_unit(const char *s) {
        const char *slash = strchr(s, '/');
        if (!slash || !valid_application(s, (size_t) (slash - s)) || !slash[1])
                return false;
        if (slash[1] == '0' && slash[2])
                return false;
        for (const char *p = slash + 1; *p; p++)
                if (!(*p >= '0' && *p <= '9'))
                        return false;
        return true;
}

static int t_relation_get(struct call *c) {
        long id = -1;
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        int r = relation_arg(c, &id);
        if (r)
                return r;
        const char *key = c->args.n > 0 ? c->args.v[0] : "";
        if (streq(key, "-"))
                key = "";
        bool app = has(c, "app");
        _cleanup_free_ char *target = NULL;
        /* RelationGetCommand.determineUnitOrAppName */
        if (c->args.n > 1) {
                const char *s = c->args.v[1];
                if (app) {
                        if (valid_application(s, strlen(s)))
                                target = xstrdup(s);
                        else if (valid_unit(s))
                                target = xstrndup(s, (size_t) (strchr(s, '/') - s));
                        else
                                target = xstrdup("");
                } else {
                        if (!valid_unit(s)) {
                                if (valid_application(s, strlen(s)))
                                        return fail(c, 2, "expected unit name, got application name %s",
                                                q(c, s, &b));
                                return fail(c, 2, "invalid unit name %s", q(c, s, &b));
                        }
                        target = xstrdup(s);
                }
        } else if (app) {
                if (isempty(c->ctx->remote_app))
                        return fail(c, 2, "no unit or application specified");
                target = xstrdup(c->ctx->remote_app);
        } else if (!isempty(c->ctx->remote_unit))
                target = xstrdup(c->ctx->remote_unit);
        else if (!isempty(c->ctx->remote_app)) {
                target = xstrdup(c->ctx->remote_app);
                app = true;
        } else
                return fail(c, 2, "no unit or application specified");
        if ((r = check_empty(c, 2)))
                return r;
        const cJSON *rel = state_relation(W(c), id);
        bool peer = cJSON_IsTrue(jget(rel, "peer"));
        const char *remote_app = rel_remote_app(rel, c->ctx->app);
        _cleanup_free_ char *rk = rel_key(c, id);
        const cJSON *bag = NULL;
        if (app) {
                if (streq(target, c->ctx->app)) {
                        if (!peer && !leader(c))
                                return fail(c, 1, "permission denied");
                } else if (!streq_ptr(target, remote_app))
                        return fail(c, 1, "application \"%s\" is not in relation \"%s\"", target, rk);
                bag = jget(jget(rel, "app-data"), target);
        } else {
                const char *tapp = unit_app(W(c), target);
                _cleanup_free_ char *an = xstrndup(target, (size_t) (strchr(target, '/') - target));
                if (!streq(target, c->ctx->unit)) {
                        if (streq(an, c->ctx->app) && !peer)
                                return fail(c, 1, "permission denied");
                        if (!streq_ptr(an, remote_app) || (tapp && !streq(tapp, an)))
                                return fail(c, 1, "unit \"%s\" is not in relation \"%s\"", target, rk);
                }
                bag = jget(jget(rel, "unit-data"), target);
                if (!bag)
                        return fail(c, 1,
                                "cannot read settings for unit \"%s\" in relation \"%s\": unit \"%s\": "
                                "settings not found",
                                target, rk, target);
        }
        if (!*key) {
                cJSON *all = bag ? cJSON_Duplicate(bag, true) : cJSON_CreateObject();
                return print_take(c, all);
        }
        return print(c, jget(bag, key));
}

static int t_relation_set(struct call *c) {
        long id = -1;
        int r = relation_arg(c, &id);
        if (r)
                return r;
        _cleanup_json_ cJSON *kv = cJSON_CreateObject();
        if ((r = keyvalues(c, 0, kv)))
                return r;
        deprecated_format(c);
        if ((r = settings_file(c, kv)))
                return r;
        const cJSON *ur = unit_rel(W(c), c->ctx->unit, id);
        _cleanup_free_ char *rk = rel_key(c, id);
        if (cJSON_IsTrue(jget(ur, "broken")))
                return fail(c, 1, "cannot write relation settings of \"%s\": relation is broken", rk);
        cJSON *rel = state_relation(W(c), id);
        cJSON *bag;
        if (has(c, "app")) {
                if (!leader(c))
                        return fail(c, 1, "cannot write relation settings");
                bag = jobj(jobj(rel, "app-data"), c->ctx->app);
        } else
                bag = jobj(jobj(rel, "unit-data"), c->ctx->unit);
        apply_kv(bag, kv);
        return 0;
}

/* --- config, leadership, status, logging -------------------------------------------------- */

static int t_config_get(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        const char *key = c->args.n ? c->args.v[0] : "";
        if (*key && has(c, "all"))
                return fail(c, 2, "cannot use argument --all together with key %s", q(c, key, &b));
        int r = check_empty(c, 1);
        if (r)
                return r;
        const cJSON *a = state_app(W(c), c->ctx->app);
        _cleanup_json_ cJSON *eff =
                charm_config_effective(jget(a, "charm"), jget(a, "config"), has(c, "all"));
        if (*key)
                return print(c, jget(eff, key));
        return print(c, eff);
}

static int t_is_leader(struct call *c) {
        int r = check_empty(c, 0);
        if (r)
                return r;
        return print_take(c, cJSON_CreateBool(leader(c)));
}

static const char *const settable[] = { "maintenance", "blocked", "waiting", "active" };

static int t_status_set(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        if (!c->args.n)
                return fail(c, 2, "invalid args, require <status> [message]");
        bool ok = false;
        for (size_t i = 0; i < ELEMENTSOF(settable); i++)
                ok = ok || streq(c->args.v[0], settable[i]);
        if (!ok)
                return fail(c, 2, "invalid status %s, expected one of [maintenance blocked waiting active]",
                        q(c, c->args.v[0], &b));
        int r = check_empty(c, 2);
        if (r)
                return r;
        const char *msg = c->args.n > 1 ? c->args.v[1] : "";
        bool app = has(c, "application");
        if (app && !leader(c))
                return fail(c, 1, "this unit is not the leader"); /* status-set.go: unannotated */
        /* At once: in the committed state and in the hook's view. */
        const char *key = app ? "status" : "workload";
        _cleanup_strbuf_ struct strbuf lerr = STRBUF_INIT;
        cJSON *st = hookctx_state_begin(c->ctx, &lerr);
        if (!st)
                return fail(c, 1, "cannot set status: %s", lerr.buf);
        cJSON *owner = app ? state_app(st, c->ctx->app) : state_unit(st, c->ctx->unit);
        cJSON *view = app ? state_app(W(c), c->ctx->app) : state_unit(W(c), c->ctx->unit);
        if (owner) { /* (gone only when removed by force while the hook ran) */
                status_record_set(jobj(owner, key), c->args.v[0], msg);
                jset(view, key, cJSON_Duplicate(jget(owner, key), true));
        }
        return immediate_end(c, "cannot set status");
}

/* toDetails(): status, plus message and status-data with --include-data. */
static cJSON *status_obj(const cJSON *s, bool data) {
        cJSON *o = cJSON_CreateObject();
        if (data)
                jset_str(o, "message", strempty(jstr(s, "message")));
        jset_str(o, "status", jstr(s, "status") ? jstr(s, "status") : "unknown");
        if (data)
                jobj(o, "status-data");
        return o;
}

static int t_status_get(struct call *c) {
        int r = check_empty(c, 0);
        if (r)
                return r;
        bool data = has(c, "include-data");
        if (has(c, "application")) {
                if (!leader(c))
                        return fail(c, 1, "finding application status: this unit is not the leader");
                const cJSON *a = state_app(W(c), c->ctx->app);
                const cJSON *st = jget(a, "status");
                if (!data && c->format == FORMAT_SMART)
                        return print_take(
                                c, cJSON_CreateString(jstr(st, "status") ? jstr(st, "status") : "unknown"));
                cJSON *o = cJSON_CreateObject();
                cJSON *as = status_obj(st, data);
                cJSON *units = jobj(as, "units");
                const cJSON *u;
                cJSON_ArrayForEach(u, jget(a, "units")) jset(units, u->valuestring,
                        status_obj(jget(state_unit(W(c), u->valuestring), "workload"), data));
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
        if (!c->args.n)
                return fail(c, 2, "no version specified");
        int r = check_empty(c, 1);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf lerr = STRBUF_INIT;
        cJSON *st = hookctx_state_begin(c->ctx, &lerr);
        if (!st)
                return fail(c, 1, "cannot set application version: %s", lerr.buf);
        cJSON *a = state_app(st, c->ctx->app);
        if (a)
                jset_str(a, "version", c->args.v[0]);
        jset_str(state_app(W(c), c->ctx->app), "version", c->args.v[0]);
        return immediate_end(c, "cannot set application version");
}

/* loggo.ParseLevel: case-insensitive names, WARN for WARNING. NULL when unknown. */
static const char *log_level(const char *s) {
        static const char *const levels[] = { "TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL" };
        if (strcasecmp(s, "WARN") == 0)
                return "WARNING";
        for (size_t i = 0; i < ELEMENTSOF(levels); i++)
                if (strcasecmp(s, levels[i]) == 0)
                        return levels[i];
        return NULL;
}

static int t_juju_log(struct call *c) {
        if (c->args.n == 0)
                return fail(c, 2, "no message specified");
        deprecated_format(c);
        const char *level = "INFO";
        if (has(c, "debug"))
                level = "DEBUG";
        else if (!isempty(val(c, "log-level"))) {
                level = log_level(val(c, "log-level"));
                if (!level) {
                        _cleanup_free_ char *w = xasprintf(
                                "WARNING Specified log level of \"%s\" is not valid", val(c, "log-level"));
                        cJSON_AddItemToArray(c->ctx->logs, cJSON_CreateString(w));
                        level = "INFO";
                }
        }
        _cleanup_free_ char *msg = strv_join(&c->args, " ");
        _cleanup_free_ char *prefix = c->ctx->relation_id >= 0 ? rel_key(c, c->ctx->relation_id) : NULL;
        _cleanup_free_ char *line =
                prefix ? xasprintf("%s %s: %s", level, prefix, msg) : xasprintf("%s %s", level, msg);
        cJSON_AddItemToArray(c->ctx->logs, cJSON_CreateString(line));
        return 0;
}

/* --- actions ------------------------------------------------------------------------------ */

static int need_action(struct call *c) {
        return c->ctx->is_action ? 0 : fail(c, 1, "not running an action");
}

static int t_action_get(struct call *c) {
        int r = check_empty(c, 1);
        if (r || (r = need_action(c)))
                return r;
        if (!c->args.n)
                return print(c, c->ctx->action_params);
        /* recurseMapOnKeys over strings.Split(key, ".") */
        _cleanup_free_ char *path = xstrdup(c->args.v[0]);
        const cJSON *v = c->ctx->action_params;
        char *seg = path, *dot;
        for (size_t guard = 0; guard < 256; guard++) {
                dot = strchr(seg, '.');
                if (dot)
                        *dot = '\0';
                if (!cJSON_IsObject(v)) {
                        v = NULL;
                        break;
                }
                v = jget(v, seg);
                if (!dot || !v)
                        break;
                seg = dot + 1;
        }
        return print(c, v);
}

static const char *const reserved_keys[] = { "stdout", "stdout-encoding", "stderr", "stderr-encoding" };

static int t_action_set(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        for (int pass = 0; pass < 2; pass++) {
                if (pass == 1) {
                        int r = need_action(c);
                        if (r)
                                return r;
                }
                for (size_t i = 0; i < c->args.n; i++) {
                        const char *eq = strchr(c->args.v[i], '=');
                        if (!eq)
                                return fail(c, 2, "argument %s must be of the form key...=value",
                                        q(c, c->args.v[i], &b));
                        _cleanup_free_ char *key = xstrndup(c->args.v[i], (size_t) (eq - c->args.v[i]));
                        cJSON *parent = c->ctx->action_results;
                        char *seg = key, *dot;
                        for (size_t guard = 0; guard < 256; guard++) {
                                dot = strchr(seg, '.');
                                if (dot)
                                        *dot = '\0';
                                if (!action_name_valid(seg)) /* charm.GetActionNameRule() */
                                        return fail(c, 2,
                                                "key %s must start and end with lowercase alphanumeric, and "
                                                "contain only lowercase alphanumeric, hyphens and periods",
                                                q(c, seg, &b));
                                for (size_t k = 0; k < ELEMENTSOF(reserved_keys); k++)
                                        if (streq(seg, reserved_keys[k]))
                                                return fail(
                                                        c, 2, "cannot set reserved action key \"%s\"", seg);
                                if (!dot)
                                        break;
                                if (pass)
                                        parent = jobj(parent, seg);
                                seg = dot + 1;
                        }
                        if (pass)
                                jset_str(parent, seg, eq + 1);
                }
        }
        return 0;
}

static int t_action_fail(struct call *c) {
        int r = check_empty(c, 1);
        if (r || (r = need_action(c)))
                return r;
        c->ctx->action_failed = true;
        free(c->ctx->action_message);
        c->ctx->action_message = xstrdup(
                c->args.n ? c->args.v[0] : "action failed without reason given, check action for errors");
        return 0;
}

static int t_action_log(struct call *c) {
        if (!c->args.n)
                return fail(c, 2, "no message specified");
        int r = need_action(c);
        if (r)
                return r;
        _cleanup_free_ char *msg = strv_join(&c->args, " ");
        cJSON *entry = cJSON_CreateObject();
        jset_num(entry, "timestamp", (double) time(NULL));
        jset_str(entry, "message", msg);
        cJSON_AddItemToArray(c->ctx->action_log, entry);
        _cleanup_free_ char *line = xasprintf("ACTION %s", msg);
        cJSON_AddItemToArray(c->ctx->logs, cJSON_CreateString(line));
        return 0;
}

static bool endswith(const char *s, const char *suffix) {
        size_t l = strlen(s), n = strlen(suffix);
        return l >= n && streq(s + l - n, suffix);
}

/* --- secrets ------------------------------------------------------------------------------ */

/* secrets.ParseURI (juju/juju core/secrets/secret.go): "secret:ID", "secret://MODEL/ID" or a bare
 * ID, ID being an xid (20 characters of 0-9a-v). Returns "secret:ID" or NULL. */
static char *secret_uri(const char *s) {
        const char *id = s;
        if (startswith(s, "secret://")) {
                id = strrchr(s, '/') + 1;
        } else if (startswith(s, "secret:"))
                id = s + strlen("secret:");
        else if (strchr(s, ':'))
                return NULL;
        if (strlen(id) != 20)
                return NULL;
        for (const char *p = id; *p; p++)
                if (!(*p >= '0' && *p <= '9') && !(*p >= 'a' && *p <= 'v'))
                        return NULL;
        return xasprintf("secret:%s", id);
}

/* args[0] as a secret URI (secrets.ParseURI); *ret NULL when absent and not required. Returns
 * 0 or exit code 2. */
static int uri_arg(struct call *c, bool required, char **ret) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        *ret = NULL;
        if (!c->args.n)
                return required ? fail(c, 2, "missing secret URI") : 0;
        *ret = secret_uri(c->args.v[0]);
        if (!*ret)
                return fail(c, 2, "secret URI %s not valid", q(c, c->args.v[0], &b));
        return 0;
}

static const char *label_arg(struct call *c) {
        return isempty(val(c, "label")) ? NULL : val(c, "label");
}

static bool secret_owner_side(struct call *c, const cJSON *s) {
        const char *kind = jstr(s, "owner-kind"), *owner = jstr(s, "owner");
        return streq_ptr(kind, "application") ? streq_ptr(owner, c->ctx->app)
                                              : streq_ptr(owner, c->ctx->unit);
}

/* In SecretMetadata(): the unit's own secrets, and the application's for its leader. */
static bool secret_listed(struct call *c, const cJSON *s) {
        return secret_owner_side(c, s) && (streq_ptr(jstr(s, "owner-kind"), "unit") || leader(c));
}

static bool secret_granted(struct call *c, const cJSON *s) {
        const cJSON *g;
        cJSON_ArrayForEach(g, jget(s, "grants")) {
                if (streq_ptr(jstr(g, "app"), c->ctx->app) || streq_ptr(jstr(g, "unit"), c->ctx->unit))
                        return true;
        }
        return false;
}

/* Finds the secret by URI or label; *ret_uri is its key. */
static int secret_find(struct call *c, const char *uri, const char *label, cJSON **ret, char **ret_uri) {
        cJSON *secrets = jobj(W(c), "secrets");
        if (uri) {
                cJSON *s = jget(secrets, uri);
                if (!s)
                        return fail(c, 1, "secret \"%s\" not found", uri + strlen("secret:"));
                *ret = s;
                *ret_uri = xstrdup(uri);
                return 0;
        }
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

/* keyRegExp of core/secrets: ^([a-z](?:-?[a-z0-9]){2,})$ */
static bool secret_key_ok(const char *k) {
        if (!(k[0] >= 'a' && k[0] <= 'z'))
                return false;
        size_t units = 0;
        for (const char *p = k + 1; *p;) {
                if (*p == '-')
                        p++;
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
                        return false;
                p++;
                units++;
        }
        return units >= 2;
}

/* One key/value into content as encodeBase64() judges it: "#base64" keys hold base64 (kept
 * decoded here), other values are plain. Returns 0 or exit code 1 (Init errors are exit 2). */
static int secret_put(struct call *c, cJSON *content, const char *key0, const char *value, int code) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        _cleanup_free_ char *key = xstrdup(key0);
        _cleanup_strbuf_ struct strbuf decoded = STRBUF_INIT;
        if (endswith(key, "#base64")) {
                key[strlen(key) - strlen("#base64")] = '\0';
                size_t bad = 0;
                /* base64.StdEncoding.DecodeString: its error names the first bad byte */
                if (base64_decode_at(value, BASE64_SKIP_NEWLINES, &decoded, &bad) < 0)
                        return fail(c, code, "illegal base64 data at input byte %zu", bad);
                /* juju-sim keeps secret values as strings */
                if (memchr(decoded.buf, '\0', decoded.len))
                        return fail(c, code,
                                "juju-sim: secret content of key %s holds NUL bytes (not supported)",
                                q(c, key, &b));
                value = decoded.buf;
        }
        if (!secret_key_ok(key))
                return fail(c, code, "key %s not valid", q(c, key, &b));
        jset_str(content, key, value);
        return 0;
}

/* secrets.CreateSecretData(args[from:]) then ReadSecretData(--file): key=value,
 * key#base64=..., key#file=PATH (read by the tool: the request's "files"). Exit 2 on errors. */
static int secret_content(struct call *c, size_t from, cJSON *content) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        int r;
        for (size_t i = from; i < c->args.n; i++) {
                const char *a = c->args.v[i];
                size_t l = strlen(a);
                while (l && a[l - 1] == '=') /* base64 padding is not the separator */
                        l--;
                const char *eq = memchr(a, '=', l);
                if (!eq || eq == a)
                        return fail(c, 2, "key value %s not valid", q(c, a, &b));
                _cleanup_free_ char *key = xstrndup(a, (size_t) (eq - a));
                const char *value = eq + 1;
                if (endswith(key, "#file")) {
                        key[strlen(key) - strlen("#file")] = '\0';
                        const cJSON *f = jget(c->files, value);
                        if (!cJSON_IsString(f)) {
                                const char *e = jstr(f, "error");
                                return fail(c, 2, "reading content for secret key %s: %s", q(c, key, &b),
                                        e ? e : "juju-sim: the file was not sent by the tool");
                        }
                        value = f->valuestring;
                }
                if ((r = secret_put(c, content, key, value, 2)))
                        return r;
        }
        if (c->file && val(c, "file") && *val(c, "file")) { /* ReadSecretData: JSON or YAML */
                _cleanup_json_ cJSON *m = NULL;
                if ((r = file_map(c, 2, &m)))
                        return r;
                const cJSON *e;
                cJSON_ArrayForEach(
                        e, m) if ((r = secret_put(c, content, e->string, e->valuestring, 2))) return r;
        }
        return 0;
}

/* Go's time.ParseDuration for the forms a charm writes ("24h", "1h30m", "90s", "1.5h"); returns
 * seconds or -1. */
static double go_duration(const char *s) {
        static const struct {
                const char *u;
                double sec;
        } units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "µs", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
                { "m", 60 }, { "h", 3600 } };
        double total = 0, sign = 1;
        if (*s == '-' || *s == '+')
                sign = *s++ == '-' ? -1 : 1;
        if (streq(s, "0"))
                return 0;
        if (!*s)
                return -1;
        for (size_t guard = 0; *s && guard < 64; guard++) {
                char *end;
                if (!(isdigit((unsigned char) *s) || *s == '.'))
                        return -1;
                double v = strtod(s, &end);
                if (end == s)
                        return -1;
                s = end;
                size_t best = 0, bi = 0;
                for (size_t i = 0; i < ELEMENTSOF(units); i++)
                        if (startswith(s, units[i].u) && strlen(units[i].u) > best)
                                best = strlen(units[i].u), bi = i;
                if (!best)
                        return -1;
                total += v * units[bi].sec;
                s += best;
        }
        return sign * total;
}

/* --expire: RFC 3339, "2006-01-02T15:04:05" (UTC) or a positive Go duration, into an RFC 3339
 * UTC time. Returns 0 or exit code 2. */
static int secret_expire(struct call *c, const char *spec, char **ret) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        struct tm tm = { 0 };
        const char *end = strptime(spec, "%Y-%m-%dT%H:%M:%S", &tm);
        time_t t = 0;
        if (end) {
                long off = 0;
                if (*end == '.')
                        for (end++; isdigit((unsigned char) *end); end++)
                                ;
                if (*end == 'Z' && !end[1])
                        off = 0;
                else if ((*end == '+' || *end == '-') && strlen(end) == 6 && end[3] == ':')
                        off = (end[0] == '-' ? -1 : 1) * (atol(end + 1) * 3600 + atol(end + 4) * 60);
                else if (*end)
                        end = NULL;
                if (end)
                        t = timegm(&tm) - off;
        }
        if (!end) {
                double d = go_duration(spec);
                if (d < 0 && spec[0] == '-')
                        return fail(c, 2, "negative expire duration %s not valid", q(c, spec, &b));
                if (d < 0)
                        return fail(c, 2, "expire time or duration %s not valid", q(c, spec, &b));
                if (d <= 0)
                        return fail(c, 2, "negative expire duration %s not valid", q(c, spec, &b));
                t = time(NULL) + (time_t) d;
        }
        struct tm u;
        char buf[64];
        gmtime_r(&t, &u);
        strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &u);
        *ret = xstrdup(buf);
        return 0;
}

static const char *const rotate_policies[] = { "never", "hourly", "daily", "weekly", "monthly", "quarterly",
        "yearly" };

/* secretUpsertCommand.Init: --expire, --rotate, --owner checked, then the content. */
static int secret_upsert_init(struct call *c, size_t from, cJSON *content, char **ret_expire) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        int r;
        if (!isempty(val(c, "expire")) && (r = secret_expire(c, val(c, "expire"), ret_expire)))
                return r;
        const char *rot = val(c, "rotate");
        if (!isempty(rot)) {
                bool ok = false;
                for (size_t i = 0; i < ELEMENTSOF(rotate_policies); i++)
                        ok = ok || streq(rot, rotate_policies[i]);
                if (!ok)
                        return fail(c, 2, "rotate policy %s not valid", q(c, rot, &b));
        }
        const char *owner = val(c, "owner") ? val(c, "owner") : "application";
        if (!streq(owner, "application") && !streq(owner, "unit"))
                return fail(c, 2, "secret owner %s not valid", q(c, owner, &b));
        return secret_content(c, from, content);
}

/* The metadata flags into the secret (marshallArg: only the non-empty ones). */
static void secret_meta(struct call *c, cJSON *s, const char *expire) {
        if (!isempty(val(c, "label")))
                jset_str(s, "label", val(c, "label"));
        if (!isempty(val(c, "description")))
                jset_str(s, "description", val(c, "description"));
        if (!isempty(val(c, "rotate")))
                jset_str(s, "rotation", val(c, "rotate"));
        if (expire)
                jset_str(s, "expiry", expire);
}

static int t_secret_add(struct call *c) {
        if (!c->args.n && isempty(val(c, "file")))
                return fail(c, 2, "missing secret value or filename");
        _cleanup_json_ cJSON *content = cJSON_CreateObject();
        _cleanup_free_ char *expire = NULL;
        int r = secret_upsert_init(c, 0, content, &expire);
        if (r)
                return r;
        bool unit_owned = streq_ptr(val(c, "owner"), "unit");
        if (!content->child)
                return fail(c, 1, "empty secret value not valid");
        if (!unit_owned && !leader(c))
                return fail(c, 1, "this unit is not the leader");
        cJSON *secrets = jobj(W(c), "secrets");
        const char *label = val(c, "label");
        if (!isempty(label)) {
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
        secret_meta(c, s, expire);
        jset_num(s, "latest", 1);
        jset(jobj(s, "revisions"), "1", TAKE_PTR(content));
        jarr(s, "grants");
        jset(secrets, uri, s);
        strbuf_addf(c->out, "%s\n", uri);
        return 0;
}

/* The revision a consumer sees, updating its tracking as --peek/--refresh say. */
static long consumer_revision(struct call *c, cJSON *s, const char *uri, const char *label) {
        cJSON *track = jget(jobj(my_unit(c), "secrets"), uri);
        long rev;
        if (has(c, "peek"))
                rev = (long) jnum(s, "latest", 1);
        else if (!track || has(c, "refresh")) {
                rev = (long) jnum(s, "latest", 1);
                if (!track)
                        track = jobj(jobj(my_unit(c), "secrets"), uri);
                jset_num(track, "revision", (double) rev);
        } else
                rev = (long) jnum(track, "revision", 1);
        if (label)
                jset_str(track ? track : jobj(jobj(my_unit(c), "secrets"), uri), "label", label);
        return rev;
}

static int t_secret_get(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        _cleanup_free_ char *uri0 = NULL;
        int r = uri_arg(c, false, &uri0);
        if (r)
                return r;
        const char *label = label_arg(c);
        if (!uri0 && !label)
                return fail(c, 2, "require either a secret URI or label");
        if (has(c, "peek") && has(c, "refresh"))
                return fail(c, 2, "specify one of --peek or --refresh but not both");
        const char *key = c->args.n > 1 ? c->args.v[1] : NULL;
        r = check_empty(c, 2);
        if (r)
                return r;
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        if ((r = secret_find(c, uri0, label, &s, &uri)))
                return r;
        long rev;
        if (secret_owner_side(c, s)) {
                rev = (long) jnum(s, "latest", 1);
                if (uri0 && label)
                        jset_str(s, "label", label);
        } else {
                if (!secret_granted(c, s))
                        return fail(c, 1, "permission denied");
                rev = consumer_revision(c, s, uri, uri0 ? label : NULL);
        }
        char rk[32];
        snprintf(rk, sizeof(rk), "%ld", rev);
        const cJSON *content = jget(jget(s, "revisions"), rk);
        if (!content)
                return fail(c, 1, "secret \"%s\" revision %ld not found", uri + strlen("secret:"), rev);
        if (!key)
                return print(c, content);
        /* SecretValue.KeyValue: "key#base64" gives the encoded value */
        _cleanup_free_ char *k = xstrdup(key);
        bool enc = endswith(k, "#base64");
        if (enc)
                k[strlen(k) - strlen("#base64")] = '\0';
        const cJSON *v = jget(content, k);
        if (!v)
                return fail(c, 1, "secret key %s not found", q(c, k, &b));
        if (!enc)
                return print(c, v);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        base64_encode(v->valuestring, strlen(v->valuestring), &e);
        return print_take(c, cJSON_CreateString(e.buf));
}

/* The secret named by args[0] (a URI), for its manager: the owner unit, or the leader for an
 * application-owned one. Returns 0 or an exit code. */
static int manage(struct call *c, cJSON **ret, char **ret_uri) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        if (!c->args.n)
                return fail(c, 2, "missing secret URI");
        _cleanup_free_ char *uri = secret_uri(c->args.v[0]);
        if (!uri)
                return fail(c, 2, "secret URI %s not valid", q(c, c->args.v[0], &b));
        int r = secret_find(c, uri, NULL, ret, ret_uri);
        if (r)
                return r;
        if (!secret_owner_side(c, *ret))
                return fail(c, 1, "permission denied");
        if (streq_ptr(jstr(*ret, "owner-kind"), "application") && !leader(c))
                return fail(c, 1, "this unit is not the leader");
        return 0;
}

static int t_secret_set(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        _cleanup_free_ char *uri0 = NULL;
        int r = uri_arg(c, true, &uri0);
        if (r)
                return r;
        _cleanup_json_ cJSON *content = cJSON_CreateObject();
        _cleanup_free_ char *expire = NULL;
        r = secret_upsert_init(c, 1, content, &expire);
        if (r)
                return r;
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        if ((r = manage(c, &s, &uri)))
                return r;
        /* --owner is checked (application|unit) but, as in Juju, does not move the secret */
        secret_meta(c, s, expire);
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
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        _cleanup_free_ char *uri0 = NULL;
        int r = uri_arg(c, true, &uri0);
        if (r)
                return r;
        if (c->rel_id < 0)
                return fail(c, 2, "no relation id specified");
        long id = c->rel_id;
        const char *rapp = rel_remote_app(state_relation(W(c), id), c->ctx->app);
        const char *unit = isempty(val(c, "unit")) ? NULL : val(c, "unit");
        if (unit) {
                if (!valid_unit(unit))
                        return fail(c, 2, "unit %s not valid", q(c, unit, &b));
                _cleanup_free_ char *ua = xstrndup(unit, (size_t) (strchr(unit, '/') - unit));
                if (!streq_ptr(ua, rapp))
                        return fail(c, 2, "cannot specify unit \"%s\" in relation to application \"%s\"",
                                unit, strempty(rapp));
        }
        r = check_empty(c, 1);
        if (r)
                return r;
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        if (!jget(jobj(W(c), "secrets"), uri0) || !secret_owner_side(c, jget(jobj(W(c), "secrets"), uri0)))
                return fail(c, 1, "secret \"%s\" not found", uri0 + strlen("secret:"));
        if ((r = manage(c, &s, &uri)))
                return r;
        cJSON *g = cJSON_CreateObject();
        jset_num(g, "relation", (double) id);
        jset_str(g, unit ? "unit" : "app", unit ? unit : rapp);
        cJSON *grants = jarr(s, "grants");
        const cJSON *e;
        cJSON_ArrayForEach(e, grants) if (cJSON_Compare(e, g, true) ||
                (streq_ptr(jstr(e, "app"), rapp) && (long) jnum(e, "relation", -1) == id)) {
                cJSON_Delete(g);
                return 0;
        }
        cJSON_AddItemToArray(grants, g);
        return 0;
}

static int t_secret_revoke(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        _cleanup_free_ char *uri0 = NULL;
        int r = uri_arg(c, true, &uri0);
        if (r)
                return r;
        const char *app = isempty(val(c, "app")) ? NULL : val(c, "app");
        const char *unit = isempty(val(c, "unit")) ? NULL : val(c, "unit");
        if (app && !valid_application(app, strlen(app)))
                return fail(c, 2, "application %s not valid", q(c, app, &b));
        if (unit && !valid_unit(unit))
                return fail(c, 2, "unit %s not valid", q(c, unit, &b));
        if (app && unit)
                return fail(c, 2, "specify only one of application or unit");
        long id = -1;
        if (c->rel_id >= 0) {
                if (app)
                        return fail(c, 2, "do not specify both relation and app");
                id = c->rel_id;
                app = rel_remote_app(state_relation(W(c), id), c->ctx->app);
        }
        if (!app && !unit)
                return fail(c, 2, "missing relation or application or unit");
        r = check_empty(c, 1);
        if (r)
                return r;
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        if ((r = manage(c, &s, &uri)))
                return r;
        cJSON *grants = jarr(s, "grants");
        for (int i = cJSON_GetArraySize(grants) - 1; i >= 0; i--) {
                const cJSON *g = cJSON_GetArrayItem(grants, i);
                bool hit = unit ? streq_ptr(jstr(g, "unit"), unit)
                                : streq_ptr(jstr(g, "app"), app) ||
                                (jstr(g, "unit") && startswith(jstr(g, "unit"), app) &&
                                        jstr(g, "unit")[strlen(app)] == '/');
                if (hit)
                        cJSON_DeleteItemFromArray(grants, i);
        }
        return 0;
}

static int t_secret_remove(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        _cleanup_free_ char *uri0 = NULL;
        int r = uri_arg(c, true, &uri0);
        if (r)
                return r;
        r = check_empty(c, 1);
        if (r)
                return r;
        cJSON *s;
        _cleanup_free_ char *uri = NULL;
        if ((r = manage(c, &s, &uri)))
                return r;
        long rev = val(c, "revision") ? strtol(val(c, "revision"), NULL, 0) : 0;
        if (rev > 0) {
                char rk[32];
                snprintf(rk, sizeof(rk), "%ld", rev);
                if (!jget(jget(s, "revisions"), rk))
                        return fail(
                                c, 1, "secret \"%s\" revision %ld not found", uri + strlen("secret:"), rev);
                cJSON_DeleteItemFromObjectCaseSensitive(jget(s, "revisions"), rk);
                if (jget(s, "revisions")->child)
                        return 0;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(jget(W(c), "secrets"), uri);
        return 0;
}

/* SecretMetadata(): the secrets this unit may manage or see as owner (the application's for
 * every unit of it, the unit's own). */
static int t_secret_ids(struct call *c) {
        int r = check_empty(c, 0);
        if (r)
                return r;
        _cleanup_strv_ struct strv ids = STRV_INIT;
        const cJSON *s;
        cJSON_ArrayForEach(s, jget(W(c), "secrets")) if (secret_listed(c, s))
                strv_push(&ids, s->string + strlen("secret:"));
        return print_take(c, string_list(&ids));
}

/* The relation's tag (names.NewRelationTag of its key: the endpoints "app:name", requirer
 * before provider, joined by a space): "relation-b.backend#a.db". */
static char *relation_tag(struct call *c, long id) {
        const cJSON *rel = state_relation(W(c), id), *e;
        _cleanup_strbuf_ struct strbuf k = STRBUF_INIT;
        for (int pass = 0; pass < 2; pass++)
                cJSON_ArrayForEach(e, jget(rel, "endpoints")) {
                        bool provider = streq_ptr(jstr(e, "role"), "provider");
                        if ((pass == 0) == provider)
                                continue;
                        if (k.len)
                                strbuf_addch(&k, '#');
                        strbuf_addf(&k, "%s.%s", strempty(jstr(e, "app")), strempty(jstr(e, "endpoint")));
                }
        return xasprintf("relation-%s", k.buf);
}

/* names tags: "application-b", "unit-b-0" */
static char *tag_of(const cJSON *g) {
        if (jstr(g, "unit")) {
                _cleanup_free_ char *u = xstrdup(jstr(g, "unit"));
                char *slash = strchr(u, '/');
                if (slash)
                        *slash = '-';
                return xasprintf("unit-%s", u);
        }
        return xasprintf("application-%s", strempty(jstr(g, "app")));
}

static int t_secret_info_get(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        _cleanup_free_ char *uri0 = NULL;
        int r = uri_arg(c, false, &uri0);
        if (r)
                return r;
        const char *label = label_arg(c);
        if (!uri0 && !label)
                return fail(c, 2, "require either a secret URI or label");
        if (uri0 && label)
                return fail(c, 2, "specify either a secret URI or label but not both");
        r = check_empty(c, 1);
        if (r)
                return r;
        const cJSON *s = NULL;
        const cJSON *e;
        cJSON_ArrayForEach(e, jget(W(c), "secrets")) {
                if (secret_listed(c, e) &&
                        (uri0 ? streq(e->string, uri0) : streq_ptr(jstr(e, "label"), label))) {
                        s = e;
                        break;
                }
        }
        if (!s)
                return fail(c, 1, "secret %s not found", q(c, uri0 ? uri0 + strlen("secret:") : label, &b));
        /* metadataDisplay, in its field order */
        cJSON *o = cJSON_CreateObject();
        cJSON *i = jobj(o, s->string + strlen("secret:"));
        jset_num(i, "revision", jnum(s, "latest", 1));
        jset_str(i, "label", strempty(jstr(s, "label")));
        jset_str(i, "owner", jstr(s, "owner-kind"));
        if (!isempty(jstr(s, "description")))
                jset_str(i, "description", jstr(s, "description"));
        if (!isempty(jstr(s, "rotation")))
                jset_str(i, "rotation", jstr(s, "rotation"));
        if (!isempty(jstr(s, "expiry")))
                jset_str(i, "expiry", jstr(s, "expiry"));
        const cJSON *g;
        cJSON_ArrayForEach(g, jget(s, "grants")) {
                cJSON *a = cJSON_CreateObject();
                _cleanup_free_ char *t = tag_of(g);
                jset_str(a, "target", t);
                _cleanup_free_ char *scope = relation_tag(c, (long) jnum(g, "relation", -1));
                jset_str(a, "scope", scope);
                jset_str(a, "role", "view");
                cJSON_AddItemToArray(jarr(i, "access"), a);
        }
        format_struct(c->out, o, c->format);
        cJSON_Delete(o);
        return 0;
}

/* --- state, ports, network ---------------------------------------------------------------- */

static int t_state_get(struct call *c) {
        const char *key = c->args.n ? c->args.v[0] : "";
        if (streq(key, "-"))
                key = "";
        int r = check_empty(c, 1);
        if (r)
                return r;
        const cJSON *st = jget(my_unit(c), "state");
        if (!*key) /* GetCharmState: nil when empty */
                return print(c, cJSON_GetArraySize(st) ? st : NULL);
        const cJSON *v = jget(st, key);
        if (!v) {
                if (has(c, "strict")) {
                        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
                        return fail(c, 1, "%s not found", q(c, key, &b));
                }
                _cleanup_json_ cJSON *empty = cJSON_CreateString("");
                return print(c, empty);
        }
        return print(c, v);
}

static int t_state_set(struct call *c) {
        _cleanup_json_ cJSON *kv = cJSON_CreateObject();
        int r = keyvalues(c, 0, kv);
        if (r || (r = settings_file(c, kv)))
                return r;
        apply_kv(jobj(my_unit(c), "state"), kv);
        return 0;
}

static int t_state_delete(struct call *c) {
        if (!c->args.n)
                return fail(c, 2, "specify a key");
        int r = check_empty(c, 1);
        if (r)
                return r;
        cJSON_DeleteItemFromObjectCaseSensitive(jobj(my_unit(c), "state"), c->args.v[0]);
        return 0;
}

/* network.ParsePortRange(strings.ToLower(s)): "80", "80/tcp", "8000-8010/udp", "icmp" into
 * the canonical "80/tcp" form; NULL when it is not one. */
static char *port_norm(const char *s0) {
        _cleanup_free_ char *p = xstrdup(s0);
        for (char *x = p; *x; x++)
                *x = (char) tolower((unsigned char) *x);
        if (streq(p, "icmp"))
                return xstrdup("icmp");
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
        if (!c->args.n)
                return fail(c, 2, "no port or range specified");
        _cleanup_free_ char *p = port_norm(c->args.v[0]);
        if (!p)
                return fail(c, 2, "invalid port range \"%s\"", c->args.v[0]);
        int r = check_empty(c, 1);
        if (r)
                return r;
        deprecated_format(c);
        cJSON *ports = jarr(my_unit(c), "ports");
        jarr_remove_str(ports, p);
        if (open)
                cJSON_AddItemToArray(ports, cJSON_CreateString(p));
        return 0;
}

static int t_open_port(struct call *c) {
        return t_port(c, true);
}

static int t_close_port(struct call *c) {
        return t_port(c, false);
}

static int t_opened_ports(struct call *c) {
        int r = check_empty(c, 0);
        if (r)
                return r;
        return print(c, jarr(my_unit(c), "ports"));
}

static const char *my_address(struct call *c) {
        return strempty(jstr(state_machine(W(c), jstr(my_unit(c), "machine")), "address"));
}

static int t_unit_get(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        if (!c->args.n)
                return fail(c, 2, "no setting specified");
        if (!streq(c->args.v[0], "private-address") && !streq(c->args.v[0], "public-address"))
                return fail(c, 2, "unknown setting %s", q(c, c->args.v[0], &b));
        int r = check_empty(c, 1);
        if (r)
                return r;
        return print_take(c, cJSON_CreateString(my_address(c)));
}

static int t_network_get(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        if (!c->args.n)
                return fail(c, 2, "no arguments specified");
        const char *binding = c->args.v[0];
        if (!*binding)
                return fail(c, 2, "no binding name specified");
        int r = check_empty(c, 1);
        if (r)
                return r;
        const cJSON *charm = jget(state_app(W(c), c->ctx->app), "charm");
        if (!jget(jget(charm, "endpoints"), binding) && !jget(jget(charm, "extra-bindings"), binding))
                return fail(c, 1, "no network config found for binding %s", q(c, binding, &b));
        const char *addr = my_address(c);
        bool lo = startswith(addr, "127.") != NULL;
        _cleanup_free_ char *subnet = xasprintf("%s/32", addr);
        bool bind = has(c, "bind-address"), ingress = has(c, "ingress-address"),
             egress = has(c, "egress-subnets");
        if (has(c, "primary-address")) {
                if (bind || ingress || egress)
                        return fail(c, 1, "--primary-address must be the only flag specified");
                return print_take(c, cJSON_CreateString(addr));
        }
        if (bind + ingress + egress == 1) {
                if (egress) {
                        cJSON *l = cJSON_CreateArray();
                        cJSON_AddItemToArray(l, cJSON_CreateString(subnet));
                        return print_take(c, l);
                }
                return print_take(c, cJSON_CreateString(addr));
        }
        if (bind + ingress + egress > 1) {
                cJSON *o = cJSON_CreateObject();
                if (egress)
                        cJSON_AddItemToArray(jarr(o, "egress-subnets"), cJSON_CreateString(subnet));
                if (ingress)
                        jset_str(o, "ingress-address", addr);
                if (bind)
                        jset_str(o, "bind-address", addr);
                return print_take(c, o);
        }
        /* networkInfoResultDisplay: struct order; the X copies only in YAML */
        bool yaml = c->format != FORMAT_JSON;
        _cleanup_free_ char *cidr = lo ? xstrdup("127.0.0.0/8") : NULL;
        if (!cidr) {
                _cleanup_free_ char *net = xstrdup(addr);
                char *dot = strrchr(net, '.');
                if (dot)
                        *dot = '\0';
                cidr = xasprintf("%s.0/24", net);
        }
        cJSON *o = cJSON_CreateObject();
        cJSON *ba = cJSON_CreateObject();
        jset_str(ba, "mac-address", "");
        jset_str(ba, "interface-name", lo ? "lo" : "eth0");
        cJSON *a = cJSON_CreateObject();
        jset_str(a, "hostname", "");
        jset_str(a, "value", addr);
        jset_str(a, "cidr", cidr);
        if (yaml)
                jset_str(a, "address", addr);
        cJSON_AddItemToArray(jarr(ba, "addresses"), a);
        if (yaml) {
                jset_str(ba, "macaddress", "");
                jset_str(ba, "interfacename", lo ? "lo" : "eth0");
        }
        cJSON_AddItemToArray(jarr(o, "bind-addresses"), ba);
        cJSON_AddItemToArray(jarr(o, "egress-subnets"), cJSON_CreateString(subnet));
        cJSON_AddItemToArray(jarr(o, "ingress-addresses"), cJSON_CreateString(addr));
        format_struct(c->out, o, c->format);
        cJSON_Delete(o);
        return 0;
}

/* --- leadership settings, goal state, reboot, relation model -------------------------------- */

static int t_leader_get(struct call *c) {
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        const char *key = c->args.n ? c->args.v[0] : "";
        if (streq(key, "-"))
                key = "";
        else if (strchr(key, '='))
                return fail(c, 2, "invalid key %s", q(c, key, &b));
        int r = check_empty(c, c->args.n ? 1 : 0);
        if (r)
                return r;
        const cJSON *ls = jget(state_app(W(c), c->ctx->app), "leader-settings");
        if (!*key) {
                _cleanup_json_ cJSON *all = ls ? cJSON_Duplicate(ls, true) : cJSON_CreateObject();
                return print(c, all);
        }
        return print(c, jget(ls, key));
}

/* leader-set: written at once (not at the hook's end), the other units told with
 * leader-settings-changed. Leadership is checked at each write in the state as it is now (Juju's
 * leadershipContext.WriteLeaderSettings: ensureLeader, i.e. the tracker's ClaimLeader, then the
 * controller's Merge); the hook's own view learns the answer (refused once, a context stays a
 * minion: isMinion). */
static int t_leader_set(struct call *c) {
        _cleanup_json_ cJSON *kv = cJSON_CreateObject();
        int r = keyvalues(c, 0, kv);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf lerr = STRBUF_INIT;
        cJSON *st = hookctx_state_begin(c->ctx, &lerr);
        if (!st)
                return fail(c, 1, "cannot write leadership settings: %s", lerr.buf);
        const char *now = jstr(state_app(st, c->ctx->app), "leader");
        cJSON *view = state_app(W(c), c->ctx->app);
        if (view && !streq_ptr(jstr(view, "leader"), now)) {
                if (now)
                        jset_str(view, "leader", now);
                else
                        cJSON_DeleteItemFromObjectCaseSensitive(view, "leader");
        }
        if (!streq_ptr(now, c->ctx->unit)) {
                (void) immediate_end(c, "cannot write leadership settings");
                return fail(c, 1, "cannot write leadership settings: cannot write settings: not the leader");
        }
        bool changed = false;
        const cJSON *e;
        cJSON_ArrayForEach(e, kv) {
                const cJSON *old = jget(jget(state_app(st, c->ctx->app), "leader-settings"), e->string);
                changed = changed ||
                        (*e->valuestring ? !old || !streq_ptr(old->valuestring, e->valuestring) : !!old);
        }
        if (!changed)
                return immediate_end(c, "cannot write leadership settings");
        cJSON *states[2] = { st, W(c) };
        for (int i = 0; i < 2; i++) {
                cJSON *app = state_app(states[i], c->ctx->app);
                if (!app)
                        continue;
                apply_kv(jobj(app, "leader-settings"), kv);
                const cJSON *u;
                cJSON_ArrayForEach(u, jget(app, "units")) if (!streq(u->valuestring, c->ctx->unit))
                        queue_event(states[i], u->valuestring, event_new("leader-settings-changed"));
        }
        return immediate_end(c, "cannot write leadership settings");
}

/* A goal-state entry: goalStateStatusContents, since as common.FormatTime(t, true). */
static void goal_entry(cJSON *into, const char *key, const char *status, const char *since) {
        cJSON *e = cJSON_CreateObject();
        jset_str(e, "status", status);
        _cleanup_free_ char *s = status_since_format(since, true);
        if (s)
                jset_str(e, "since", s);
        jset(into, key, e);
}

/* goalStateUnits: every unit of app that is not dead, with its workload status ("dying" for a
 * dying unit) and that status's since; a subordinate unit only when its principal is the calling
 * unit (principalName is the caller's own name: a subordinate's own units map is empty, a
 * principal sees only its own subordinate). */
static void goal_units(struct call *c, const char *app, cJSON *into) {
        const cJSON *x;
        cJSON_ArrayForEach(x, jget(state_app(W(c), app), "units")) {
                const cJSON *u = state_unit(W(c), x->valuestring);
                const cJSON *w = jget(u, "workload");
                const char *life = jstr(u, "life");
                if (!u || streq_ptr(life, "dead"))
                        continue;
                const char *p = jstr(u, "principal");
                if (p && !streq(p, c->ctx->unit))
                        continue;
                goal_entry(into, x->valuestring,
                        streq_ptr(life, "dying") ? "dying" : strempty(jstr(w, "status")), jstr(w, "since"));
        }
}

/* formattedGoalState (oneGoalState): the units of this application; per endpoint of each of its
 * relations that is not a peer relation (in id order, as app.Relations()), the remote application
 * with the relation's status and all its units (goalStateRelations). As there, the entries are
 * gathered in the map result[remote endpoint name] when one exists (else a new one) and copied
 * into result[local endpoint name]. */
static int t_goal_state(struct call *c) {
        int r = check_empty(c, 0);
        if (r)
                return r;
        _cleanup_json_ cJSON *o = cJSON_CreateObject();
        cJSON *units = jobj(o, "units"), *rels = jobj(o, "relations");
        goal_units(c, c->ctx->app, units);
        const cJSON *rel, *e;
        cJSON_ArrayForEach(rel, jget(W(c), "relations")) {
                const char *local = jstr(rel_endpoint(rel, c->ctx->app), "endpoint");
                if (cJSON_IsTrue(jget(rel, "peer")) || !local)
                        continue;
                cJSON_ArrayForEach(e, jget(rel, "endpoints")) {
                        const char *rapp = jstr(e, "app");
                        if (streq_ptr(rapp, c->ctx->app))
                                continue;
                        cJSON *alias = jget(rels, jstr(e, "endpoint"));
                        _cleanup_json_ cJSON *fresh = alias ? NULL : cJSON_CreateObject();
                        cJSON *gathered = alias ? alias : fresh;
                        const cJSON *st = jget(rel, "status");
                        goal_entry(gathered, rapp, strempty(jstr(st, "status")), jstr(st, "since"));
                        goal_units(c, rapp, gathered);
                        cJSON *into = jobj(rels, local);
                        const cJSON *x;
                        if (into != gathered)
                                cJSON_ArrayForEach(x, gathered)
                                        jset(into, x->string, cJSON_Duplicate(x, true));
                }
        }
        json_sort_members(units);
        json_sort_members(rels);
        cJSON *x;
        cJSON_ArrayForEach(x, rels) json_sort_members(x);
        format_struct(c->out, o, c->format);
        return 0;
}

static int t_juju_reboot(struct call *c) {
        int r = check_empty(c, 0);
        if (r)
                return r;
        if (c->ctx->is_action)
                return fail(c, 1, "juju-reboot is not supported when running an action.");
        _cleanup_free_ char *line =
                xasprintf("INFO juju-sim: juju-reboot%s requested (machines are not rebooted)",
                        has(c, "now") ? " --now" : "");
        cJSON_AddItemToArray(c->ctx->logs, cJSON_CreateString(line));
        return 0;
}

static int t_relation_model_get(struct call *c) {
        long id = -1;
        int r = relation_arg(c, &id);
        if (r || (r = check_empty(c, 0)))
                return r;
        cJSON *o = cJSON_CreateObject();
        jset_str(o, "uuid", strempty(jstr(jget(W(c), "model"), "uuid")));
        format_struct(c->out, o, c->format);
        cJSON_Delete(o);
        return 0;
}

/* --- dispatch ----------------------------------------------------------------------------- */

static const struct {
        const char *name;
        int (*fn)(struct call *);
} tools[] = {
        { "action-fail", t_action_fail },
        { "action-get", t_action_get },
        { "action-log", t_action_log },
        { "action-set", t_action_set },
        { "application-version-set", t_application_version_set },
        { "close-port", t_close_port },
        { "config-get", t_config_get },
        { "goal-state", t_goal_state },
        { "is-leader", t_is_leader },
        { "juju-log", t_juju_log },
        { "juju-reboot", t_juju_reboot },
        { "leader-get", t_leader_get },
        { "leader-set", t_leader_set },
        { "network-get", t_network_get },
        { "open-port", t_open_port },
        { "opened-ports", t_opened_ports },
        { "relation-get", t_relation_get },
        { "relation-ids", t_relation_ids },
        { "relation-list", t_relation_list },
        { "relation-model-get", t_relation_model_get },
        { "relation-set", t_relation_set },
        { "secret-add", t_secret_add },
        { "secret-get", t_secret_get },
        { "secret-grant", t_secret_grant },
        { "secret-ids", t_secret_ids },
        { "secret-info-get", t_secret_info_get },
        { "secret-remove", t_secret_remove },
        { "secret-revoke", t_secret_revoke },
        { "secret-set", t_secret_set },
        { "state-delete", t_state_delete },
        { "state-get", t_state_get },
        { "state-set", t_state_set },
        { "status-get", t_status_get },
        { "status-set", t_status_set },
        { "unit-get", t_unit_get },
};

int hooktool_run(struct hookctx *ctx, char *const *argv, const char *file, const cJSON *files,
        struct strbuf *out, struct strbuf *errout, char **ret_output) {
        const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        struct call c = { .ctx = ctx,
                .tool = name,
                .out = out,
                .err = errout,
                .file = file,
                .files = files,
                .args = STRV_INIT,
                .format = FORMAT_SMART };
        int (*fn)(struct call *) = NULL;
        for (size_t i = 0; i < ELEMENTSOF(tools); i++)
                if (streq(tools[i].name, name))
                        fn = tools[i].fn;
        c.tf = toolflags_find(name);
        if (!fn || !c.tf)
                return fail(&c, 1, "juju-sim: hook tool \"%s\" is not supported", name);
        int r = parse(&c, argv);
        if (r < 0)
                r = 0; /* help printed */
        else if (r == 0) {
                r = fn(&c);
                if (r == 0 && val(&c, "output") && *val(&c, "output"))
                        *ret_output = xstrdup(val(&c, "output"));
        }
        strv_clear(&c.args);
        return r;
}
