/* SPDX-License-Identifier: Apache-2.0 */
/* juju-sim: the local Juju model simulator's command line. Verbs follow the juju CLI; the state
 * lives in the model directory (--model DIR, $JUJU_SIM_MODEL, ./.juju-sim). */
#include "util/macro.h"

#include <fcntl.h>
#include <signal.h>
#include <time.h>

#include "charm.h"
#include "actionparams.h"
#include "gnuflag.h"
#include "model.h"
#include "runner.h"
#include "simmachine.h"
#include "yamljson.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strv.h"
#include "util/banned.h"

#define LOCK_TIMEOUT_SEC 600

static const char *model_arg;

static int die(int code, const char *fmt, ...) _printf_(2, 3);
static int die(int code, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        fputs("ERROR ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        return code;
}

static int fail_err(int r, const struct strbuf *err) {
        if (err->len)
                return die(1, "%s", err->buf);
        return die(1, "%s", strerror(-r));
}

static void usage(FILE *f) {
        fputs("usage: juju-sim [--model DIR] VERB [ARGS…]\n"
              "  deploy CHARM [APP] [-n N] [--config K=V …] [--share HOSTDIR:PATH …] [--gpus N] [--base B]\n"
              "  add-unit APP [-n N] [--share HOSTDIR:PATH …] [--gpus N]   (--share: HOSTDIR at PATH in "
              "each new "
              "machine)\n"
              "  remove-unit [--force] UNIT…   remove-application APP   integrate A[:EP] B[:EP]   "
              "remove-relation A "
              "B\n"
              "  config APP [KEY | K=V … | --reset K[,K…]]   run UNIT ACTION [K=V …] [--format=json|yaml]\n"
              "  status [--format=json|yaml]   wait [--timeout S] [--update-status]   resolve UNIT\n"
              "  trigger UNIT|APP HOOK (update-status, config-changed, upgrade-charm, "
              "leader-settings-changed)\n"
              "  exec UNIT -- CMD …   debug-log [--replay] [-n N] [--format=json]   destroy\n"
              "  gc   removes what is left on this host of models whose directory was deleted\n"
              "       without destroy (machines, cgroups, bridges); never touches an existing model\n"
              "  model-config [KEY | KEY=V …]   default-base (machines deployed without --base),\n"
              "       automatically-retry-hooks (true: a failed hook runs again after 5, 10, 20 … s),\n"
              "       hook-concurrency (machines, the default, or N: hooks of different machines at\n"
              "       once, at most N, as Juju runs them; serial: one hook at a time in the model)\n"
              "  capacity [--format=json|yaml]   how many more namespace machines this host (and the\n"
              "       model, when there is one) can hold, limit by limit; deploy and add-unit refuse more\n"
              "The model directory: --model DIR, else $JUJU_SIM_MODEL, else ./.juju-sim.\n"
              "A new model's machines: $JUJU_SIM_MACHINES=host|namespace.\n",
                f);
}

/* Opens the model under the lock (creating it when allowed). */
static int open_locked(bool create, struct model **ret) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct model *m = NULL;
        int r = model_open(model_arg, create, &m, &err);
        if (r < 0)
                return fail_err(r, &err);
        r = model_lock(m, LOCK_TIMEOUT_SEC, &err);
        if (r < 0) {
                model_free(m);
                return fail_err(r, &err);
        }
        *ret = m;
        return 0;
}

/* Opens the model for a verb that runs hooks (wait, run, exec), its mode fixed for the whole
 * verb (model_hook_mode_fix): serial mode (model.h) under the model lock, as every verb;
 * concurrent mode without it (the runner takes the locks it needs, and saves). */
static int open_for_hooks(struct model **ret, bool *ret_concurrent) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct model *m = NULL;
        int r = model_open(model_arg, false, &m, &err);
        if (r < 0)
                return fail_err(r, &err);
        model_hook_mode_fix(m);
        *ret_concurrent = m->concurrent;
        if (!*ret_concurrent) {
                r = model_lock(m, LOCK_TIMEOUT_SEC, &err);
                if (r < 0) {
                        model_free(m);
                        return fail_err(r, &err);
                }
        }
        *ret = m;
        return 0;
}

static int save(struct model *m) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = model_save(m, &err);
        return r < 0 ? fail_err(r, &err) : 0;
}

static bool parse_int_arg(const char *s, int *ret) {
        char *end;
        long v = strtol(s, &end, 10);
        if (!*s || *end || v < 0 || v > 100000)
                return false;
        *ret = (int) v;
        return true;
}

/* --- verbs that change the model ---------------------------------------------------------- */

/* SIGINT, SIGTERM and SIGHUP wait while deploy and add-unit make machines: those look for them
 * between two machines and undo what they made (model.h); the signal is delivered after the
 * error message (or after the save), so the exit status still tells it. */
static void stops_block(sigset_t *ret_old) {
        sigset_t stops;
        sigemptyset(&stops);
        sigaddset(&stops, SIGINT);
        sigaddset(&stops, SIGTERM);
        sigaddset(&stops, SIGHUP);
        sigprocmask(SIG_BLOCK, &stops, ret_old);
}

static int stops_restore(const sigset_t *old, int r) {
        sigprocmask(SIG_SETMASK, old, NULL);
        return r;
}

static int cmd_deploy(int argc, char **argv) {
        int n = 1;
        _cleanup_strv_ struct strv pos = STRV_INIT, cfg = STRV_INIT, shares = STRV_INIT;
        const char *base = NULL;
        for (int i = 1; i < argc; i++) {
                if ((streq(argv[i], "-n") || streq(argv[i], "--num-units")) && i + 1 < argc) {
                        if (!parse_int_arg(argv[++i], &n))
                                return die(2, "invalid value \"%s\" for option -n", argv[i]);
                } else if (streq(argv[i], "--config") && i + 1 < argc)
                        strv_push(&cfg, argv[++i]);
                else if (startswith(argv[i], "--config="))
                        strv_push(&cfg, argv[i] + 9);
                else if (streq(argv[i], "--share") && i + 1 < argc)
                        strv_push(&shares, argv[++i]);
                else if (streq(argv[i], "--gpus") && i + 1 < argc)
                        strv_pushf(&shares, "@gpus=%s", argv[++i]);
                else if (streq(argv[i], "--base") && i + 1 < argc)
                        base = argv[++i];
                else if (argv[i][0] == '-' && argv[i][1])
                        return die(2, "option provided but not defined: %s", argv[i]);
                else
                        strv_push(&pos, argv[i]);
        }
        if (pos.n < 1 || pos.n > 2)
                return die(2,
                        "usage: deploy CHARM [APP] [-n N] [--config K=V …] [--share HOSTDIR:PATH …] [--gpus "
                        "N] [--base B]");
        _cleanup_model_ struct model *m = NULL;
        int r = open_locked(true, &m);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *charm = NULL;
        charm = pos.v[0][0] == '/' ? xstrdup(pos.v[0]) : model_dir_resolve(pos.v[0]);
        /* model_dir_resolve makes a relative path absolute against the cwd */
        sigset_t old;
        stops_block(&old);
        r = model_deploy(m, charm, pos.n > 1 ? pos.v[1] : NULL, n, cfg.v, shares.v, base, &err);
        if (r < 0)
                return stops_restore(&old, fail_err(r, &err));
        return stops_restore(&old, save(m));
}

typedef int (*simple_verb)(struct model *m, const char *arg, struct strbuf *err);

static int verb_remove_unit(struct model *m, const char *a, struct strbuf *err) {
        return model_remove_unit(m, a, err);
}

static int verb_remove_unit_force(struct model *m, const char *a, struct strbuf *err) {
        return model_remove_unit_force(m, a, err);
}

static int verb_remove_app(struct model *m, const char *a, struct strbuf *err) {
        return model_remove_application(m, a, err);
}

static int verb_resolve(struct model *m, const char *a, struct strbuf *err) {
        return model_resolve(m, a, false, err);
}

static int verb_resolve_no_retry(struct model *m, const char *a, struct strbuf *err) {
        return model_resolve(m, a, true, err);
}

static int cmd_each(int argc, char **argv, simple_verb fn, size_t max) {
        _cleanup_strv_ struct strv pos = STRV_INIT;
        for (int i = 1; i < argc; i++) {
                if (argv[i][0] == '-' && !streq(argv[i], "--no-retry"))
                        return die(2, "option provided but not defined: %s", argv[i]);
                if (argv[i][0] != '-')
                        strv_push(&pos, argv[i]);
        }
        if (pos.n < 1 || pos.n > max)
                return die(2, "usage: %s %s", argv[0], max == 1 ? "NAME" : "NAME…");
        _cleanup_model_ struct model *m = NULL;
        int r = open_locked(false, &m);
        if (r)
                return r;
        for (size_t i = 0; i < pos.n; i++) {
                _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
                r = fn(m, pos.v[i], &err);
                if (r < 0)
                        return fail_err(r, &err);
        }
        return save(m);
}

static int cmd_add_unit(int argc, char **argv) {
        int n = 1;
        const char *app = NULL;
        _cleanup_strv_ struct strv shares = STRV_INIT;
        for (int i = 1; i < argc; i++) {
                if ((streq(argv[i], "-n") || streq(argv[i], "--num-units")) && i + 1 < argc) {
                        if (!parse_int_arg(argv[++i], &n))
                                return die(2, "invalid value \"%s\" for option -n", argv[i]);
                } else if (streq(argv[i], "--share") && i + 1 < argc)
                        strv_push(&shares, argv[++i]);
                else if (streq(argv[i], "--gpus") && i + 1 < argc)
                        strv_pushf(&shares, "@gpus=%s", argv[++i]);
                else if (argv[i][0] == '-')
                        return die(2, "option provided but not defined: %s", argv[i]);
                else if (!app)
                        app = argv[i];
                else
                        return die(2, "unrecognized args: [\"%s\"]", argv[i]);
        }
        if (!app)
                return die(2, "usage: add-unit APP [-n N] [--share HOSTDIR:PATH …] [--gpus N]");
        _cleanup_model_ struct model *m = NULL;
        int r = open_locked(false, &m);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        sigset_t old;
        stops_block(&old);
        r = model_add_unit(m, app, n, shares.v, &err);
        if (r < 0)
                return stops_restore(&old, fail_err(r, &err));
        return stops_restore(&old, save(m));
}

static int cmd_pair(int argc, char **argv, bool add) {
        if (argc != 3)
                return die(2, "usage: %s A[:ENDPOINT] B[:ENDPOINT]", argv[0]);
        _cleanup_model_ struct model *m = NULL;
        int r = open_locked(false, &m);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        r = add ? model_integrate(m, argv[1], argv[2], &err)
                : model_remove_relation(m, argv[1], argv[2], &err);
        if (r < 0)
                return fail_err(r, &err);
        return save(m);
}

static void print_config(const cJSON *a, const char *app) {
        const cJSON *charm = jget(a, "charm"), *o;
        _cleanup_json_ cJSON *out = cJSON_CreateObject();
        jset_str(out, "application", app);
        jset_str(out, "charm", jstr(charm, "name"));
        cJSON *settings = jobj(out, "settings");
        cJSON_ArrayForEach(o, jget(charm, "options")) {
                cJSON *s = jobj(settings, o->string);
                const cJSON *def = jget(o, "default"), *set = jget(jget(a, "config"), o->string);
                if (def)
                        jset(s, "default", cJSON_Duplicate(def, true));
                jset_str(s, "description", jstr(o, "description"));
                jset_str(s, "source", set ? "user" : def && !cJSON_IsNull(def) ? "default" : "unset");
                jset_str(s, "type", jstr(o, "type"));
                if (set || (def && !cJSON_IsNull(def)))
                        jset(s, "value", cJSON_Duplicate(set ? set : def, true));
        }
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        json_to_yaml(&sb, out);
        fputs(sb.buf, stdout);
}

static int cmd_config(int argc, char **argv) {
        const char *app = NULL;
        _cleanup_strv_ struct strv kv = STRV_INIT, reset = STRV_INIT, keys = STRV_INIT;
        for (int i = 1; i < argc; i++) {
                const char *rs = NULL;
                if (streq(argv[i], "--reset") && i + 1 < argc)
                        rs = argv[++i];
                else if (startswith(argv[i], "--reset="))
                        rs = argv[i] + 8;
                if (rs) {
                        _cleanup_free_ char *copy = xstrdup(rs);
                        char *p = copy, *comma;
                        while (p) {
                                comma = strchr(p, ',');
                                if (comma)
                                        *comma = '\0';
                                if (*p)
                                        strv_push(&reset, p);
                                p = comma ? comma + 1 : NULL;
                        }
                } else if (argv[i][0] == '-')
                        return die(2, "option provided but not defined: %s", argv[i]);
                else if (!app)
                        app = argv[i];
                else if (strchr(argv[i], '='))
                        strv_push(&kv, argv[i]);
                else
                        strv_push(&keys, argv[i]);
        }
        if (!app || (keys.n && (kv.n || reset.n)) || keys.n > 1)
                return die(2, "usage: config APP [KEY | K=V … | --reset K[,K…]]");
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_model_ struct model *m = NULL;
        int r;
        if (!kv.n && !reset.n) {
                r = model_open(model_arg, false, &m, &err);
                if (r < 0)
                        return fail_err(r, &err);
                const cJSON *a = state_app(m->state, app);
                if (!a)
                        return die(1, "application \"%s\" not found", app);
                if (!keys.n) {
                        print_config(a, app);
                        return 0;
                }
                if (!jget(jget(jget(a, "charm"), "options"), keys.v[0]))
                        return die(1, "unknown option \"%s\"", keys.v[0]);
                _cleanup_json_ cJSON *eff =
                        charm_config_effective(jget(a, "charm"), jget(a, "config"), true);
                _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
                const cJSON *v = jget(eff, keys.v[0]);
                format_value(&sb, v, cJSON_IsString(v) ? FORMAT_SMART : FORMAT_YAML);
                fputs(sb.buf, stdout);
                return 0;
        }
        r = open_locked(false, &m);
        if (r)
                return r;
        r = model_config(m, app, kv.v, reset.v, &err);
        if (r < 0)
                return fail_err(r, &err);
        return save(m);
}

static int cmd_trigger(int argc, char **argv) {
        if (argc != 3)
                return die(2, "usage: trigger UNIT|APP HOOK");
        _cleanup_model_ struct model *m = NULL;
        int r = open_locked(false, &m);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        r = model_trigger(m, argv[1], argv[2], &err);
        if (r < 0)
                return fail_err(r, &err);
        return save(m);
}

/* --- running hooks ------------------------------------------------------------------------ */

static int cmd_wait(int argc, char **argv) {
        int timeout = 600;
        bool update_status = false;
        for (int i = 1; i < argc; i++) {
                const char *t = NULL;
                if (streq(argv[i], "--timeout") && i + 1 < argc)
                        t = argv[++i];
                else if (startswith(argv[i], "--timeout="))
                        t = argv[i] + 10;
                else if (streq(argv[i], "--update-status")) {
                        update_status = true;
                        continue;
                } else
                        return die(2, "usage: wait [--timeout S] [--update-status]");
                size_t l = strlen(t);
                _cleanup_free_ char *num = xstrdup(t);
                if (l && num[l - 1] == 's')
                        num[l - 1] = '\0';
                if (!parse_int_arg(num, &timeout))
                        return die(2, "invalid value \"%s\" for option --timeout", t);
        }
        _cleanup_model_ struct model *m = NULL;
        int r = open_locked(false, &m);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        if (update_status) {
                const cJSON *a;
                cJSON_ArrayForEach(a, jget(m->state, "applications")) {
                        if (streq_ptr(jstr(a, "life"), "alive"))
                                (void) model_trigger(m, a->string, "update-status", &err);
                }
        }
        model_hook_mode_fix(m);
        bool concurrent = m->concurrent;
        if (concurrent) {
                /* the runner takes the model lock only between hooks (model.h) */
                r = save(m);
                model_unlock(m);
                if (r)
                        return r;
        }
        unsigned hooks = 0;
        r = runner_settle(m, timeout, &hooks, &err);
        int sr = concurrent ? 0 : save(m);
        if (r != 0)
                return die(1, "%s", err.buf);
        return sr;
}

/* formatTimestamp(t, false, utc false, false) (cmd/juju/action): Go's Time.String() of the local
 * time, "2006-01-02 15:04:05 -0700 MST" (the controller keeps whole seconds). */
static char *action_time(double t) {
        time_t s = (time_t) t;
        struct tm tm;
        char buf[80];
        localtime_r(&s, &tm);
        strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z %Z", &tm);
        return xstrdup(buf);
}

/* FormatActionResult: the result as `juju run --format=json` prints it, log lines as "TIME message"
 * (none: no log), timing's times as action_time() prints them. */
static cJSON *action_result_formatted(const cJSON *result) {
        cJSON *o = cJSON_Duplicate(result, true);
        cJSON *log = cJSON_CreateArray(), *e;
        cJSON_ArrayForEach(e, jget(result, "log")) {
                _cleanup_free_ char *t = action_time(jnum(e, "timestamp", 0));
                _cleanup_free_ char *line = xasprintf("%s %s", t, strempty(jstr(e, "message")));
                cJSON_AddItemToArray(log, cJSON_CreateString(line));
        }
        if (cJSON_GetArraySize(log))
                jset(o, "log", log);
        else {
                cJSON_Delete(log);
                cJSON_DeleteItemFromObjectCaseSensitive(o, "log");
        }
        cJSON *timing = cJSON_CreateObject();
        cJSON_ArrayForEach(e, jget(result, "timing")) {
                _cleanup_free_ char *t = action_time(e->valuedouble);
                jset_str(timing, e->string, t);
        }
        jset(o, "timing", timing);
        return o;
}

/* `juju run UNIT ACTION [k.k=v …]` (cmd/juju/action/run.go): gnuflag flags --format,
 * --params FILE, --string-args; UNIT may be APP/leader. */
static int cmd_run(int argc, char **argv) {
        enum out_format f = FORMAT_YAML;
        static const struct gnuflag defs[] = {
                { "format", GNUFLAG_STRING, 0 },
                { "params", GNUFLAG_STRING, 1 },
                { "string-args", GNUFLAG_BOOL, 2 },
        };
        struct gnuflag_value vals[3] = { { 0 } };
        _cleanup_strv_ struct strv pos = STRV_INIT;
        _cleanup_strbuf_ struct strbuf perr = STRBUF_INIT;
        int r = gnuflag_parse(defs, ELEMENTSOF(defs), vals, 3, true, argv + 1, NULL, NULL, &pos, &perr);
        if (r == GNUFLAG_HELP) {
                puts("Usage: juju-sim run <unit> <action-name> [<key>=<value> [<key>[.<key> ...]=<value>]]");
                return 0;
        }
        if (r < 0)
                return die(2, "%s", perr.buf);
        if (vals[0].set && (parse_format(vals[0].value, &f) < 0 || f == FORMAT_SMART))
                return die(2, "invalid value \"%s\" for option --format: unknown format \"%s\"",
                        vals[0].value, vals[0].value);
        if (pos.n < 1)
                return die(2, "no unit specified");
        const char *slash = strchr(pos.v[0], '/');
        if (!slash || !slash[1] ||
                (!streq(slash + 1, "leader") && strspn(slash + 1, "0123456789") != strlen(slash + 1)))
                return die(2, "invalid unit or action name \"%s\"", pos.v[0]);
        if (pos.n < 2)
                return die(2, "no action specified");
        if (!action_name_valid(pos.v[1]))
                return die(2, "invalid unit or action name \"%s\"", pos.v[1]);
        if (action_params_check_args(pos.v + 2, &perr) < 0)
                return die(2, "%s", perr.buf);
        _cleanup_free_ char *params_yaml = NULL;
        if (vals[1].set) {
                r = read_full_file(vals[1].value, &params_yaml, NULL);
                if (r < 0)
                        return die(1, "open %s: %s", vals[1].value, strerror(-r));
        }
        _cleanup_model_ struct model *m = NULL;
        bool concurrent = false;
        r = open_for_hooks(&m, &concurrent);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const char *unit = pos.v[0], *action = pos.v[1];
        _cleanup_free_ char *leader = NULL;
        if (streq(strchr(unit, '/'), "/leader")) {
                _cleanup_free_ char *of = xstrndup(unit, strlen(unit) - strlen("/leader"));
                if (!jstr(state_app(m->state, of), "leader"))
                        return die(1, "could not determine leader for \"%s\"", of);
                unit = leader = xstrdup(jstr(state_app(m->state, of), "leader"));
        }
        const char *app = unit_app(m->state, unit);
        if (!app)
                return die(1, "unit \"%s\" not found", unit);
        _cleanup_json_ cJSON *params = NULL, *result = NULL;
        r = charm_action_params(jget(state_app(m->state, app), "charm"), action, params_yaml, pos.v + 2,
                vals[2].set && vals[2].b, &params, &err);
        if (r < 0)
                return fail_err(r, &err);
        r = runner_run_action(m, unit, action, params, &result, &err);
        if (r < 0)
                return fail_err(r, &err);
        r = concurrent ? 0 : save(m);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        bool failed = !streq_ptr(jstr(result, "status"), "completed");
        cJSON *res = jget(result, "results");
        /* Juju (cmd/juju/action/run.go waitForTasks): the command fails only for a task whose
         * return-code is 1 or more; an action that called action-fail and exited 0 is a
         * "failed" task and a successful command (its status says so) */
        long rc = (long) jnum(res, "return-code", 0);
        if (f == FORMAT_JSON) {
                _cleanup_json_ cJSON *o = cJSON_CreateObject();
                jset(o, unit, action_result_formatted(result));
                format_value(&sb, o, FORMAT_JSON);
        } else {
                /* printPlainOutput: a failed task's id and message first, then the results
                 * without return-code and stdout, then stdout */
                if (failed)
                        strbuf_addf(&sb, "Action id %s failed: %s\n", strempty(jstr(result, "id")),
                                strempty(jstr(result, "message")));
                _cleanup_json_ cJSON *shown = cJSON_Duplicate(res, true);
                cJSON_DeleteItemFromObjectCaseSensitive(shown, "return-code");
                cJSON_DeleteItemFromObjectCaseSensitive(shown, "stdout");
                if (shown && shown->child)
                        json_to_yaml(&sb, shown);
                const char *out = jstr(res, "stdout");
                if (!isempty(out)) {
                        size_t n = strlen(out);
                        while (n > 0 && out[n - 1] == '\n')
                                n--;
                        strbuf_add(&sb, out, n);
                        strbuf_addch(&sb, '\n');
                }
        }
        fputs(sb.buf, stdout);
        fflush(stdout);
        if (rc >= 1)
                return die(1, "the following task failed:\n - id \"%s\" with return code %ld\n\nuse 'juju show-task' to "
                              "inspect the failure",
                        strempty(jstr(result, "id")), rc);
        (void) action;
        return 0;
}

static int cmd_exec(int argc, char **argv) {
        const char *unit = NULL;
        int i = 1;
        for (; i < argc; i++) {
                if (streq(argv[i], "--")) {
                        i++;
                        break;
                }
                if ((streq(argv[i], "--unit") || streq(argv[i], "-u")) && i + 1 < argc)
                        unit = argv[++i];
                else if (argv[i][0] == '-')
                        return die(2, "option provided but not defined: %s", argv[i]);
                else if (!unit)
                        unit = argv[i];
                else
                        break;
        }
        if (!unit || i >= argc)
                return die(2, "usage: exec UNIT -- CMD …");
        _cleanup_model_ struct model *m = NULL;
        bool concurrent = false;
        int r = open_for_hooks(&m, &concurrent);
        if (r)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int status = 0;
        r = runner_exec(m, unit, argv + i, &status, &err);
        if (r < 0)
                return fail_err(r, &err);
        r = concurrent ? 0 : save(m);
        return r ? r : status;
}

/* --- reading the model -------------------------------------------------------------------- */

static const char *unit_status(const cJSON *u) {
        return strempty(jstr(jget(u, "workload"), "status"));
}

/* The application's status: set by its leader, else the most significant of its units'. */
static cJSON *app_status(const cJSON *st, const cJSON *a) {
        const cJSON *s = jget(a, "status");
        if (s)
                return cJSON_Duplicate(s, true);
        static const char *const order[] = { "error", "blocked", "maintenance", "waiting", "active",
                "unknown" };
        const cJSON *x;
        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                cJSON_ArrayForEach(x, jget(a, "units")) {
                        const cJSON *u = state_unit(st, x->valuestring);
                        if (streq(unit_status(u), order[i]))
                                return cJSON_Duplicate(jget(u, "workload"), true);
                }
        }
        cJSON *o = cJSON_CreateObject();
        jset_str(o, "status", "unknown");
        jset_str(o, "message", "");
        return o;
}

/* statusInfoContents: current, message (when not NULL), since (common.FormatTime, local time). */
static void status_contents(cJSON *o, const char *current, const char *message, const char *since) {
        jset_str(o, "current", current);
        if (message)
                jset_str(o, "message", message);
        _cleanup_free_ char *s = status_since_format(since, false);
        if (s)
                jset_str(o, "since", s);
}

/* A unit's entry (processUnit): a subordinate's has no machine but its principal's address. */
static void unit_status_json(const cJSON *st, const char *name, cJSON *uo) {
        const cJSON *u = state_unit(st, name);
        const cJSON *w = jget(u, "workload");
        status_contents(jobj(uo, "workload-status"), unit_status(u), strempty(jstr(w, "message")), jstr(w, "since"));
        status_contents(jobj(uo, "juju-status"), jstr(u, "agent"), jstr(u, "error"), jstr(u, "agent-since"));
        if (unit_is_leader(st, name))
                jset(uo, "leader", cJSON_CreateTrue());
        jset_str(uo, "life", jstr(u, "life"));
        const cJSON *mach = state_machine(st, jstr(u, "machine"));
        jset_str(uo, "public-address", jstr(mach, "address"));
        jset(uo, "open-ports", cJSON_Duplicate(jarr((cJSON *) u, "ports"), true));
        jset_num(uo, "pending-events", cJSON_GetArraySize(jget(u, "queue")));
}

static cJSON *status_json(const cJSON *st) {
        cJSON *o = cJSON_CreateObject();
        const cJSON *model = jget(st, "model");
        cJSON *mo = jobj(o, "model");
        jset_str(mo, "name", jstr(model, "name"));
        jset_str(mo, "uuid", jstr(model, "uuid"));
        jset_str(mo, "type", "iaas");
        jset_str(mo, "machine-mode", jstr(model, "machine-mode"));
        jset_str(mo, "version", "3.4.2");
        cJSON *apps = jobj(o, "applications");
        const cJSON *a, *x;
        cJSON_ArrayForEach(a, jget(st, "applications")) {
                cJSON *ao = jobj(apps, a->string);
                jset_str(ao, "charm", jstr(jget(a, "charm"), "name"));
                jset_str(ao, "charm-dir", jstr(a, "charm-dir"));
                jset_str(ao, "life", jstr(a, "life"));
                jset_str(ao, "version", jstr(a, "version"));
                jset_num(ao, "scale", cJSON_GetArraySize(jget(a, "units")));
                cJSON *as = app_status(st, a);
                cJSON *aso = jobj(ao, "application-status");
                status_contents(aso, jstr(as, "status"), strempty(jstr(as, "message")), jstr(as, "since"));
                cJSON_Delete(as);
                cJSON *rels = jobj(ao, "relations");
                const cJSON *rel;
                cJSON_ArrayForEach(rel, jget(st, "relations")) {
                        const cJSON *ep = rel_endpoint(rel, a->string);
                        if (!ep)
                                continue;
                        cJSON *l = jarr(rels, jstr(ep, "endpoint"));
                        const char *ra = rel_remote_app(rel, a->string);
                        if (jarr_find(l, ra) < 0)
                                cJSON_AddItemToArray(l, cJSON_CreateString(ra));
                }
                /* a subordinate application: no units of its own (they sit under their
                 * principals), the applications it is subordinate to (processApplication,
                 * processApplicationRelations) */
                if (cJSON_IsTrue(jget(jget(a, "charm"), "subordinate"))) {
                        _cleanup_strv_ struct strv to = STRV_INIT;
                        cJSON_ArrayForEach(rel, jget(st, "relations")) {
                                const char *ra = rel_remote_app(rel, a->string);
                                if (rel_endpoint(rel, a->string) && streq_ptr(jstr(rel, "scope"), "container") &&
                                        ra && !strv_contains(&to, ra))
                                        strv_push(&to, ra);
                        }
                        strv_sort(&to);
                        cJSON *l = jarr(ao, "subordinate-to");
                        for (size_t i = 0; i < to.n; i++)
                                cJSON_AddItemToArray(l, cJSON_CreateString(to.v[i]));
                        continue;
                }
                cJSON *units = jobj(ao, "units");
                cJSON_ArrayForEach(x, jget(a, "units")) {
                        const cJSON *u = state_unit(st, x->valuestring);
                        cJSON *uo = jobj(units, x->valuestring);
                        unit_status_json(st, x->valuestring, uo);
                        jset_str(uo, "machine", jstr(u, "machine"));
                        const cJSON *y;
                        cJSON_ArrayForEach(y, jget(u, "subordinates"))
                                unit_status_json(st, y->valuestring, jobj(jobj(uo, "subordinates"), y->valuestring));
                }
        }
        cJSON *machines = jobj(o, "machines");
        const cJSON *mc;
        cJSON_ArrayForEach(mc, jget(st, "machines")) {
                cJSON *mo2 = jobj(machines, mc->string);
                jset_str(mo2, "hostname", jstr(mc, "hostname"));
                jset_str(mo2, "dns-name", jstr(mc, "address"));
                cJSON_AddItemToArray(
                        jarr(mo2, "ip-addresses"), cJSON_CreateString(strempty(jstr(mc, "address"))));
                jset_str(mo2, "unit", jstr(mc, "unit"));
                jset_str(mo2, "instance-id",
                        streq_ptr(jstr(model, "machine-mode"), "namespace") ? "namespace" : "host");
                /* the base as Juju prints it; juju-sim's machine bases are its own (bases.h) */
                const cJSON *ma = state_app(st, jstr(state_unit(st, jstr(mc, "unit")), "application"));
                const char *b = jstr(ma, "base");
                if (b && strchr(b, '@')) {
                        cJSON *bo = jobj(mo2, "base");
                        _cleanup_free_ char *os = xstrndup(b, strcspn(b, "@"));
                        jset_str(bo, "name", os);
                        jset_str(bo, "channel", strchr(b, '@') + 1);
                }
                cJSON *ms = jobj(mo2, "machine-status");
                jset_str(ms, "current", "started");
        }
        cJSON *rels = jarr(o, "relations");
        const cJSON *rel;
        cJSON_ArrayForEach(rel, jget(st, "relations")) {
                cJSON *ro = cJSON_CreateObject();
                jset_num(ro, "id", jnum(rel, "id", 0));
                const cJSON *e, *prov = NULL, *req = NULL;
                cJSON_ArrayForEach(e, jget(rel, "endpoints")) {
                        if (streq_ptr(jstr(e, "role"), "requirer"))
                                req = e;
                        else
                                prov = e;
                }
                if (!req)
                        req = prov;
                _cleanup_free_ char *p = xasprintf("%s:%s", jstr(prov, "app"), jstr(prov, "endpoint"));
                _cleanup_free_ char *q = xasprintf("%s:%s", jstr(req, "app"), jstr(req, "endpoint"));
                jset_str(ro, "provider", p);
                jset_str(ro, "requirer", q);
                jset_str(ro, "interface", jstr(rel, "interface"));
                jset_str(ro, "type", cJSON_IsTrue(jget(rel, "peer")) ? "peer" : "regular");
                jset_str(ro, "life", jstr(rel, "life"));
                cJSON_AddItemToArray(rels, ro);
        }
        return o;
}

/* A table with left-aligned columns separated by two spaces. */
static void table_print(struct strv *cells, size_t ncol) {
        size_t w[16] = {};
        for (size_t i = 0; i < cells->n; i++)
                if (strlen(cells->v[i]) > w[i % ncol])
                        w[i % ncol] = strlen(cells->v[i]);
        for (size_t i = 0; i < cells->n; i++) {
                bool last = i % ncol == ncol - 1;
                if (last)
                        printf("%s\n", cells->v[i]);
                else
                        printf("%-*s  ", (int) w[i % ncol], cells->v[i]);
        }
}

static void unit_row(struct strv *t, const char *name, const cJSON *u, const char *indent) {
        strv_pushf(t, "%s%s%s", indent, name, cJSON_IsTrue(jget(u, "leader")) ? "*" : "");
        strv_push(t, strempty(jstr(jget(u, "workload-status"), "current")));
        strv_push(t, strempty(jstr(jget(u, "juju-status"), "current")));
        strv_push(t, strempty(jstr(u, "machine")));
        strv_push(t, strempty(jstr(u, "public-address")));
        _cleanup_strv_ struct strv ports = STRV_INIT;
        const cJSON *p;
        cJSON_ArrayForEach(p, jget(u, "open-ports")) strv_push(&ports, p->valuestring);
        strv_push_take(t, strv_join(&ports, ","));
        const char *msg = jstr(jget(u, "juju-status"), "message");
        strv_push(t, msg ? msg : strempty(jstr(jget(u, "workload-status"), "message")));
}

static void status_tabular(const cJSON *st) {
        _cleanup_json_ cJSON *s = status_json(st);
        const cJSON *model = jget(s, "model");
        char ts[32];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(ts, sizeof(ts), "%H:%M:%SZ", &tm);
        _cleanup_strv_ struct strv t = STRV_INIT;
        strv_pushl(&t, "Model", "Controller", "Cloud/Region", "Version", "Machines", "Timestamp", NULL);
        strv_pushl(&t, jstr(model, "name"), "juju-sim", "local", "3.4.2", jstr(model, "machine-mode"), ts,
                NULL);
        table_print(&t, 6);
        strv_clear(&t);
        const cJSON *a, *u;
        strv_pushl(&t, "App", "Version", "Status", "Scale", "Charm", "Message", NULL);
        cJSON_ArrayForEach(a, jget(s, "applications")) {
                strv_push(&t, a->string);
                strv_push(&t, strempty(jstr(a, "version")));
                strv_push(&t, strempty(jstr(jget(a, "application-status"), "current")));
                strv_pushf(&t, "%d", (int) jnum(a, "scale", 0));
                strv_push(&t, strempty(jstr(a, "charm")));
                strv_push(&t, strempty(jstr(jget(a, "application-status"), "message")));
        }
        putchar('\n');
        table_print(&t, 6);
        strv_clear(&t);
        strv_pushl(&t, "Unit", "Workload", "Agent", "Machine", "Public address", "Ports", "Message", NULL);
        cJSON_ArrayForEach(a, jget(s, "applications")) {
                cJSON_ArrayForEach(u, jget(a, "units")) {
                        unit_row(&t, u->string, u, "");
                        const cJSON *sub;
                        /* subordinates under their principal, one level in (recurseUnits) */
                        cJSON_ArrayForEach(sub, jget(u, "subordinates")) unit_row(&t, sub->string, sub, "  ");
                }
        }
        putchar('\n');
        table_print(&t, 7);
        strv_clear(&t);
        strv_pushl(&t, "Machine", "State", "Address", "Hostname", "Inst id", "Base", NULL);
        cJSON_ArrayForEach(u, jget(s, "machines")) {
                const cJSON *b = jget(u, "base");
                _cleanup_free_ char *base = b
                        ? xasprintf("%s@%s", strempty(jstr(b, "name")), strempty(jstr(b, "channel")))
                        : xstrdup("");
                strv_pushl(&t, u->string, "started", strempty(jstr(u, "dns-name")),
                        strempty(jstr(u, "hostname")), strempty(jstr(u, "instance-id")), base, NULL);
        }
        putchar('\n');
        table_print(&t, 6);
        strv_clear(&t);
        strv_pushl(&t, "Integration provider", "Requirer", "Interface", "Type", "Message", NULL);
        cJSON_ArrayForEach(u, jget(s, "relations")) {
                strv_pushl(&t, jstr(u, "provider"), jstr(u, "requirer"), jstr(u, "interface"),
                        jstr(u, "type"), streq_ptr(jstr(u, "life"), "alive") ? "" : "removing", NULL);
        }
        if (t.n > 5) {
                putchar('\n');
                table_print(&t, 5);
        }
}

/* [--format=tabular|json|yaml] of a verb that prints a table: 0 and *ret, or the exit code of a
 * usage error (already reported). */
static int parse_table_format(int argc, char **argv, const char *verb, enum out_format *ret) {
        for (int i = 1; i < argc; i++) {
                const char *fmt = NULL;
                if (streq(argv[i], "--format") && i + 1 < argc)
                        fmt = argv[++i];
                else if (startswith(argv[i], "--format="))
                        fmt = argv[i] + 9;
                else
                        return die(2, "usage: %s [--format=tabular|json|yaml]", verb);
                if (streq(fmt, "tabular"))
                        *ret = FORMAT_SMART;
                else if (parse_format(fmt, ret) < 0 || *ret == FORMAT_SMART)
                        return die(2, "invalid value \"%s\" for option --format", fmt);
        }
        return 0;
}

static int cmd_status(int argc, char **argv) {
        enum out_format f = FORMAT_SMART;
        int r = parse_table_format(argc, argv, "status", &f);
        if (r != 0)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_model_ struct model *m = NULL;
        r = model_open(model_arg, false, &m, &err);
        if (r < 0)
                return fail_err(r, &err);
        if (f == FORMAT_SMART) {
                status_tabular(m->state);
                return 0;
        }
        _cleanup_json_ cJSON *s = status_json(m->state);
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        format_value(&sb, s, f);
        fputs(sb.buf, stdout);
        return 0;
}

static void print_log_record(const cJSON *rec) {
        printf("%s %s %s", strempty(jstr(rec, "time")), strempty(jstr(rec, "unit")),
                strempty(jstr(rec, "hook")));
        if (jget(rec, "relation")) {
                printf(" relation=%d", (int) jnum(rec, "relation", 0));
                if (!isempty(jstr(rec, "remote-unit")))
                        printf(" remote=%s", jstr(rec, "remote-unit"));
                if (jstr(rec, "departing-unit"))
                        printf(" departing=%s", jstr(rec, "departing-unit"));
        }
        printf(" %s", strempty(jstr(rec, "status")));
        if (jget(rec, "rc"))
                printf(" rc=%d %dms rss=%dkB", (int) jnum(rec, "rc", 0), (int) jnum(rec, "duration-ms", 0),
                        (int) jnum(rec, "maxrss-kb", 0));
        printf(" tools=%d\n", (int) jnum(rec, "tool-calls", 0));
        const cJSON *l;
        cJSON_ArrayForEach(l, jget(rec, "log")) printf("    %s\n", l->valuestring);
        const char *out = jstr(rec, "output");
        if (!isempty(out)) {
                _cleanup_free_ char *copy = xstrdup(out);
                char *p = copy, *nl;
                while (p && *p) {
                        nl = strchr(p, '\n');
                        if (nl)
                                *nl = '\0';
                        printf("    | %s\n", p);
                        p = nl ? nl + 1 : NULL;
                }
        }
}

static int cmd_debug_log(int argc, char **argv) {
        bool replay = false, json = false;
        int lines = 10;
        for (int i = 1; i < argc; i++) {
                if (streq(argv[i], "--replay"))
                        replay = true;
                else if ((streq(argv[i], "-n") || streq(argv[i], "--lines")) && i + 1 < argc) {
                        if (!parse_int_arg(argv[++i], &lines))
                                return die(2, "invalid value \"%s\" for option -n", argv[i]);
                } else if (streq(argv[i], "--format=json") ||
                        (streq(argv[i], "--format") && i + 1 < argc && streq(argv[++i], "json")))
                        json = true;
                else
                        return die(2, "usage: debug-log [--replay] [-n N] [--format=json]");
        }
        _cleanup_free_ char *dir = model_dir_resolve(model_arg);
        _cleanup_free_ char *p = xasprintf("%s/debug-log.jsonl", dir), *sp = xasprintf("%s/state.json", dir);
        if (access(sp, F_OK) < 0)
                return die(1, "model \"%s\": no such model", dir);
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        int r = read_full_file(p, &data, &len);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return die(1, "%s: %s", p, strerror(-r));
        _cleanup_strv_ struct strv recs = STRV_INIT;
        char *s = data, *nl;
        while (s && *s) {
                nl = strchr(s, '\n');
                if (nl)
                        *nl = '\0';
                if (*s)
                        strv_push(&recs, s);
                s = nl ? nl + 1 : NULL;
        }
        size_t from = replay || recs.n <= (size_t) lines ? 0 : recs.n - (size_t) lines;
        for (size_t i = from; i < recs.n; i++) {
                if (json) {
                        puts(recs.v[i]);
                        continue;
                }
                _cleanup_json_ cJSON *rec = cJSON_Parse(recs.v[i]);
                if (rec)
                        print_log_record(rec);
        }
        return 0;
}

static int cmd_destroy(int argc, char **argv) {
        if (argc > 1 && !streq(argv[1], "--force") && !streq(argv[1], "-y"))
                return die(2, "usage: destroy");
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = model_destroy(model_arg, &err);
        return r < 0 ? fail_err(r, &err) : 0;
}

/* model-config [KEY | KEY=V …]: the model keys juju-sim keeps. default-base: the base deploy
 * gives machines without --base (V empty resets it); automatically-retry-hooks: true (Juju's
 * default) or false, whether a failed hook runs again by itself (runner.h); hook-concurrency:
 * machines (default), N or serial, how hooks run (model.h). */
static const char *const model_keys[] = { "automatically-retry-hooks", "default-base", "hook-concurrency" };

static void print_model_key(const cJSON *state, const char *key, bool named) {
        const char *v = NULL;
        if (streq(key, "default-base"))
                v = jstr(jget(state, "model"), "default-base");
        else if (streq(key, "hook-concurrency"))
                v = model_hook_concurrency(state);
        else
                v = model_retry_hooks(state) ? "true" : "false";
        if (v)
                printf("%s%s%s\n", named ? key : "", named ? ": " : "", v);
}

static int cmd_model_config(int argc, char **argv) {
        bool set = false;
        for (int i = 1; i < argc; i++) {
                bool known = false;
                for (size_t k = 0; k < ELEMENTSOF(model_keys); k++) {
                        size_t l = strlen(model_keys[k]);
                        known = known ||
                                (strncmp(argv[i], model_keys[k], l) == 0 &&
                                        (argv[i][l] == '\0' || argv[i][l] == '='));
                }
                if (!known)
                        return die(2,
                                "usage: model-config [KEY | KEY=V …] (KEY: automatically-retry-hooks, "
                                "default-base, hook-concurrency)");
                set = set || strchr(argv[i], '=');
        }
        for (int i = 1; set && i < argc; i++)
                if (!strchr(argv[i], '='))
                        return die(2, "model-config: cannot set and retrieve values simultaneously");
        if (!set && argc > 2)
                return die(2, "model-config: can only retrieve a single value, or all values");
        _cleanup_model_ struct model *m = NULL;
        int r = open_locked(set, &m);
        if (r)
                return r;
        if (!set) {
                if (argc == 2)
                        print_model_key(m->state, argv[1], false);
                else
                        for (size_t k = 0; k < ELEMENTSOF(model_keys); k++)
                                print_model_key(m->state, model_keys[k], true);
                return 0;
        }
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        for (int i = 1; i < argc && r >= 0; i++) {
                const char *v = strchr(argv[i], '=') + 1;
                r = startswith(argv[i], "default-base=")           ? model_set_default_base(m, v, &err)
                        : startswith(argv[i], "hook-concurrency=") ? model_set_hook_concurrency(m, v, &err)
                                                                   : model_set_retry_hooks(m, v, &err);
        }
        return r < 0 ? fail_err(r, &err) : save(m);
}

static int cmd_capacity(int argc, char **argv) {
        enum out_format f = FORMAT_SMART;
        int r = parse_table_format(argc, argv, "capacity", &f);
        if (r != 0)
                return r;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_model_ struct model *m = NULL;
        /* The model's machine ids count too when there is a model (read only: no lock). */
        _cleanup_free_ char *dir = model_dir_resolve(model_arg);
        _cleanup_free_ char *sp = xasprintf("%s/state.json", dir);
        if (access(sp, F_OK) == 0) {
                r = model_open(model_arg, false, &m, &err);
                if (r < 0)
                        return fail_err(r, &err);
        }
        _cleanup_(sim_capacity_clear) struct machine_capacity c = { 0 };
        r = sim_capacity(m, &c, &err);
        if (r < 0)
                return fail_err(r, &err);
        if (f != FORMAT_SMART) {
                _cleanup_json_ cJSON *o = cJSON_CreateObject();
                if (c.n > 0) {
                        jset_num(o, "machines", c.machines);
                        jset_str(o, "limit", c.limits[c.binding].name);
                }
                cJSON *ls = jarr(o, "limits");
                for (size_t i = 0; i < c.n; i++) {
                        const struct machine_limit *l = &c.limits[i];
                        cJSON *lo = cJSON_CreateObject();
                        jset_str(lo, "name", l->name);
                        jset_str(lo, "scope", l->model_scope ? "model" : "host");
                        jset_str(lo, "setting", l->setting);
                        jset_str(lo, "unit", l->unit);
                        jset_num(lo, "max", (double) l->max);
                        jset_num(lo, "used", (double) l->used);
                        jset_num(lo, "reserve", (double) l->reserve);
                        jset_num(lo, "per-machine", (double) l->per_machine);
                        jset_num(lo, "machines", l->machines);
                        cJSON_AddItemToArray(ls, lo);
                }
                _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
                format_value(&sb, o, f);
                fputs(sb.buf, stdout);
                return 0;
        }
        if (c.n == 0)
                return die(1, "capacity: no limit could be read on this host");
        const struct machine_limit *b = &c.limits[c.binding];
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        machine_limit_describe(b, &why);
        printf("this %s can hold %u more machine%s: %s (%s)\n\n", b->model_scope ? "model" : "host",
                c.machines, c.machines == 1 ? "" : "s", b->name, why.buf);
        _cleanup_strv_ struct strv t = STRV_INIT;
        strv_pushl(&t, "Limit", "Setting", "Max", "In use", "Kept", "Per machine", "Machines", NULL);
        for (size_t i = 0; i < c.n; i++) {
                const struct machine_limit *l = &c.limits[i];
                const char *sp2 = *l->unit ? " " : "";
                strv_push(&t, l->name);
                strv_push(&t, l->setting);
                strv_pushf(&t, "%llu%s%s", (unsigned long long) l->max, sp2, l->unit);
                strv_pushf(&t, "%llu%s%s", (unsigned long long) l->used, sp2, l->unit);
                strv_pushf(&t, "%llu%s%s", (unsigned long long) l->reserve, sp2, l->unit);
                strv_pushf(&t, "%llu%s%s", (unsigned long long) l->per_machine, sp2, l->unit);
                strv_pushf(&t, "%u", l->machines);
        }
        table_print(&t, 7);
        return 0;
}

static int cmd_gc(int argc, char **argv) {
        if (argc > 1)
                return die(2, "usage: gc");
        _cleanup_strv_ struct strv removed = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = sim_machines_gc(&removed, &err);
        for (size_t i = 0; i < removed.n; i++)
                printf("removed %s\n", removed.v[i]);
        if (r < 0)
                return fail_err(r, &err);
        if (removed.n == 0)
                puts("nothing to remove");
        return 0;
}

int main(int argc, char **argv) {
        int i = 1;
        for (; i < argc; i++) {
                if ((streq(argv[i], "--model") || streq(argv[i], "-m")) && i + 1 < argc)
                        model_arg = argv[++i];
                else if (startswith(argv[i], "--model="))
                        model_arg = argv[i] + 8;
                else if (streq(argv[i], "-h") || streq(argv[i], "--help")) {
                        usage(stdout);
                        return 0;
                } else
                        break;
        }
        if (i >= argc) {
                usage(stderr);
                return 2;
        }
        /* --model after the verb too (before any "--"). */
        _cleanup_strv_ struct strv av = STRV_INIT;
        bool dashdash = false;
        for (int k = i; k < argc; k++) {
                if (!dashdash && (streq(argv[k], "--model") || streq(argv[k], "-m")) && k + 1 < argc &&
                        k > i) {
                        model_arg = argv[++k];
                        continue;
                }
                if (!dashdash && startswith(argv[k], "--model=") && k > i) {
                        model_arg = argv[k] + 8;
                        continue;
                }
                if (streq(argv[k], "--"))
                        dashdash = true;
                strv_push(&av, argv[k]);
        }
        int n = (int) av.n;
        char **v = av.v;
        const char *verb = v[0];
        signal(SIGPIPE, SIG_IGN);
        if (streq(verb, "deploy"))
                return cmd_deploy(n, v);
        if (streq(verb, "add-unit"))
                return cmd_add_unit(n, v);
        if (streq(verb, "remove-unit")) {
                /* --force [--no-wait]: the unit's machine is gone, its hooks never run */
                bool force = false;
                _cleanup_free_ char **rest = xcalloc((size_t) n + 1, sizeof(char *));
                int k = 0;
                for (int j = 0; j < n; j++) {
                        if (j > 0 && (streq(v[j], "--force") || streq(v[j], "--no-wait"))) {
                                force = force || streq(v[j], "--force");
                                continue;
                        }
                        rest[k++] = v[j];
                }
                return cmd_each(k, rest, force ? verb_remove_unit_force : verb_remove_unit, 1000);
        }
        if (streq(verb, "remove-application"))
                return cmd_each(n, v, verb_remove_app, 1000);
        if (streq(verb, "resolve") || streq(verb, "resolved")) {
                bool no_retry = false;
                for (int a = 1; a < n; a++)
                        no_retry = no_retry || streq(v[a], "--no-retry");
                return cmd_each(n, v, no_retry ? verb_resolve_no_retry : verb_resolve, 1000);
        }
        if (streq(verb, "integrate") || streq(verb, "relate") || streq(verb, "add-relation"))
                return cmd_pair(n, v, true);
        if (streq(verb, "remove-relation"))
                return cmd_pair(n, v, false);
        if (streq(verb, "config"))
                return cmd_config(n, v);
        if (streq(verb, "trigger"))
                return cmd_trigger(n, v);
        if (streq(verb, "wait"))
                return cmd_wait(n, v);
        if (streq(verb, "run"))
                return cmd_run(n, v);
        if (streq(verb, "exec"))
                return cmd_exec(n, v);
        if (streq(verb, "status"))
                return cmd_status(n, v);
        if (streq(verb, "debug-log"))
                return cmd_debug_log(n, v);
        if (streq(verb, "destroy") || streq(verb, "destroy-model"))
                return cmd_destroy(n, v);
        if (streq(verb, "gc"))
                return cmd_gc(n, v);
        if (streq(verb, "capacity"))
                return cmd_capacity(n, v);
        if (streq(verb, "model-config"))
                return cmd_model_config(n, v);
        if (streq(verb, "help")) {
                usage(stdout);
                return 0;
        }
        usage(stderr);
        return die(2, "unknown verb \"%s\"", verb);
}
