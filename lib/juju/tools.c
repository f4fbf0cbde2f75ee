/* SPDX-License-Identifier: Apache-2.0 */
/* The simple hook tools: config-get, is-leader, status-set, application-version-set, juju-log,
 * action-get/-set/-fail/-log, state-get/-set/-delete, open-/close-port, unit-get, network-get. */
#include "util/macro.h"
#include "util/alloc.h"
#include "juju/juju-internal.h"

#include <stdarg.h>

#include "util/banned.h"

/* Runs argv and discards its output. */
static int run_plain(struct juju_ctx *ctx, const struct strv *argv, struct strbuf *err) {
        return juju_tool_run(ctx, argv, NULL, 0, NULL, err);
}

/* --- config --------------------------------------------------------------------------------- */

/* Runs the tool once per ctx and caches its JSON object output in *slot (no output or null
 * counts as {}); *ret borrows the cached object. */
static int tool_object_cached(
        struct juju_ctx *ctx, cJSON **slot, struct strv *argv, const cJSON **ret, struct strbuf *err) {
        if (!*slot) {
                int r = juju_tool_object(ctx, argv, true, slot, err);
                if (r < 0)
                        return r;
        }
        *ret = *slot;
        return 0;
}

int juju_config(struct juju_ctx *ctx, const cJSON **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        strv_pushl(&argv, "config-get", "--all", "--format=json", NULL);
        return tool_object_cached(ctx, &ctx->config, &argv, ret, err);
}

static int config_item(struct juju_ctx *ctx, const char *key, const cJSON **ret, struct strbuf *err) {
        const cJSON *cfg;
        int r = juju_config(ctx, &cfg, err);
        if (r < 0)
                return r;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
        if (!v || cJSON_IsNull(v)) {
                if (err)
                        strbuf_addf(err, "config \"%s\": not set", key);
                return -ENOENT;
        }
        *ret = v;
        return 0;
}

static int config_type_error(const char *key, const char *type, struct strbuf *err) {
        if (err)
                strbuf_addf(err, "config \"%s\": not %s", key, type);
        return -EINVAL;
}

int juju_config_string(struct juju_ctx *ctx, const char *key, const char **ret, struct strbuf *err) {
        const cJSON *v;
        int r = config_item(ctx, key, &v, err);
        if (r < 0)
                return r;
        if (!cJSON_IsString(v))
                return config_type_error(key, "a string", err);
        *ret = v->valuestring;
        return 0;
}

int juju_config_int(struct juju_ctx *ctx, const char *key, int64_t *ret, struct strbuf *err) {
        const cJSON *v;
        int r = config_item(ctx, key, &v, err);
        if (r < 0)
                return r;
        /* cJSON keeps numbers as double: exact for |n| <= 2^53, which config ints stay within */
        double d = cJSON_IsNumber(v) ? v->valuedouble : 0.5;
        if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || (double) (int64_t) d != d)
                return config_type_error(key, "an integer", err);
        *ret = (int64_t) d;
        return 0;
}

int juju_config_float(struct juju_ctx *ctx, const char *key, double *ret, struct strbuf *err) {
        const cJSON *v;
        int r = config_item(ctx, key, &v, err);
        if (r < 0)
                return r;
        if (!cJSON_IsNumber(v))
                return config_type_error(key, "a number", err);
        *ret = v->valuedouble;
        return 0;
}

int juju_config_bool(struct juju_ctx *ctx, const char *key, bool *ret, struct strbuf *err) {
        const cJSON *v;
        int r = config_item(ctx, key, &v, err);
        if (r < 0)
                return r;
        if (!cJSON_IsBool(v))
                return config_type_error(key, "a boolean", err);
        *ret = cJSON_IsTrue(v);
        return 0;
}

/* --- leadership, status, log ----------------------------------------------------------------- */

int juju_is_leader(struct juju_ctx *ctx, bool *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        cJSON *j = NULL;

        if (ctx->leader < 0) {
                strv_pushl(&argv, "is-leader", "--format=json", NULL);
                int r = juju_tool_json(ctx, &argv, &j, err);
                if (r < 0)
                        return r;
                bool ok = cJSON_IsBool(j);
                ctx->leader = cJSON_IsTrue(j);
                cJSON_Delete(j);
                if (!ok) {
                        ctx->leader = -1;
                        if (err)
                                strbuf_addstr(err, "is-leader: expected true or false");
                        return -EBADMSG;
                }
        }
        *ret = ctx->leader == 1;
        return 0;
}

int juju_unit_dying(struct juju_ctx *ctx, bool *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        cJSON *j = NULL;
        strv_pushl(&argv, "goal-state", "--format=json", NULL);
        int r = juju_tool_json(ctx, &argv, &j, err);
        if (r < 0)
                return r;
        const cJSON *units = cJSON_GetObjectItemCaseSensitive(j, "units");
        if (!cJSON_IsObject(units)) {
                cJSON_Delete(j);
                if (err)
                        strbuf_addstr(err, "goal-state: no units");
                return -EBADMSG;
        }
        const cJSON *me = cJSON_GetObjectItemCaseSensitive(units, ctx->env.unit);
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(me, "status");
        *ret = cJSON_IsString(st) && streq(st->valuestring, "dying");
        cJSON_Delete(j);
        return 0;
}

static const char *const status_names[] = {
        [JUJU_STATUS_MAINTENANCE] = "maintenance",
        [JUJU_STATUS_BLOCKED] = "blocked",
        [JUJU_STATUS_WAITING] = "waiting",
        [JUJU_STATUS_ACTIVE] = "active",
};

const char *juju_status_name(enum juju_status status) {
        return (unsigned) status < ELEMENTSOF(status_names) ? status_names[status] : "unknown";
}

int juju_status_set(
        struct juju_ctx *ctx, bool app, enum juju_status status, const char *msg, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;

        if ((unsigned) status >= ELEMENTSOF(status_names)) {
                if (err)
                        strbuf_addf(err, "status-set: invalid status %d", (int) status);
                return -EINVAL;
        }
        strv_push(&argv, "status-set");
        if (app)
                strv_push(&argv, "--application");
        strv_push(&argv, status_names[status]);
        if (msg)
                juju_push_positional(&argv, msg);
        return run_plain(ctx, &argv, err);
}

int juju_application_version_set(struct juju_ctx *ctx, const char *version, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        strv_push(&argv, "application-version-set");
        juju_push_positional(&argv, strempty(version));
        return run_plain(ctx, &argv, err);
}

int juju_log(struct juju_ctx *ctx, enum juju_log_level level, const char *msg, struct strbuf *err) {
        static const char *const names[] = {
                [JUJU_LOG_TRACE] = "TRACE",
                [JUJU_LOG_DEBUG] = "DEBUG",
                [JUJU_LOG_INFO] = "INFO",
                [JUJU_LOG_WARNING] = "WARNING",
                [JUJU_LOG_ERROR] = "ERROR",
                [JUJU_LOG_CRITICAL] = "CRITICAL",
        };
        _cleanup_strv_ struct strv argv = STRV_INIT;

        if ((unsigned) level >= ELEMENTSOF(names)) {
                if (err)
                        strbuf_addf(err, "juju-log: invalid level %d", (int) level);
                return -EINVAL;
        }
        strv_pushl(&argv, "juju-log", "-l", names[level], NULL);
        juju_push_positional(&argv, strempty(msg));
        return run_plain(ctx, &argv, err);
}

int juju_logf(struct juju_ctx *ctx, enum juju_log_level level, struct strbuf *err, const char *fmt, ...) {
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        va_list ap;
        va_start(ap, fmt);
        strbuf_vaddf(&msg, fmt, ap);
        va_end(ap);
        return juju_log(ctx, level, msg.buf, err);
}

/* --- actions -------------------------------------------------------------------------------- */

int juju_action_params(struct juju_ctx *ctx, const cJSON **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        strv_pushl(&argv, "action-get", "--format=json", NULL);
        return tool_object_cached(ctx, &ctx->action_params, &argv, ret, err);
}

int juju_action_param(struct juju_ctx *ctx, const char *path, const cJSON **ret, struct strbuf *err) {
        const cJSON *cur;
        int r = juju_action_params(ctx, &cur, err);
        if (r < 0)
                return r;
        for (const char *s = path; cur && s;) {
                const char *dot = strchr(s, '.');
                _cleanup_free_ char *part = dot ? xstrndup(s, (size_t) (dot - s)) : xstrdup(s);
                cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, part) : NULL;
                s = dot ? dot + 1 : NULL;
        }
        *ret = cur;
        return 0;
}

static bool key_segment_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* action-set.go: every dot-separated segment matches charm.GetActionNameRule() and none is a
 * reserved key ("foo.stdout" is refused too). */
bool juju_action_key_valid(const char *key) {
        static const char *const reserved[] = { "stdout", "stderr", "stdout-encoding", "stderr-encoding" };

        if (isempty(key))
                return false;
        for (const char *s = key;;) {
                const char *e = strchrnul(s, '.');
                if (e == s || !key_segment_char(s[0]) || !key_segment_char(e[-1]))
                        return false;
                for (const char *c = s; c < e; c++)
                        if (!key_segment_char(*c) && *c != '-')
                                return false;
                for (size_t i = 0; i < ELEMENTSOF(reserved); i++)
                        if ((size_t) (e - s) == strlen(reserved[i]) &&
                                strncmp(s, reserved[i], (size_t) (e - s)) == 0)
                                return false;
                if (!*e)
                        return true;
                s = e + 1;
        }
}

int juju_action_set_many(struct juju_ctx *ctx, const struct strv *kv, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;

        if (kv->n == 0 || kv->n % 2) {
                if (err)
                        strbuf_addstr(err, "action-set: expected key, value pairs");
                return -EINVAL;
        }
        strv_push(&argv, "action-set");
        for (size_t i = 0; i < kv->n; i += 2) {
                if (!juju_action_key_valid(kv->v[i])) {
                        if (err)
                                strbuf_addf(err, "action-set: invalid key \"%s\"", kv->v[i]);
                        return -EINVAL;
                }
                strv_pushf(&argv, "%s=%s", kv->v[i], kv->v[i + 1]);
        }
        return run_plain(ctx, &argv, err);
}

int juju_action_set(struct juju_ctx *ctx, const char *key, const char *value, struct strbuf *err) {
        _cleanup_strv_ struct strv kv = STRV_INIT;
        strv_pushl(&kv, strempty(key), strempty(value), NULL);
        return juju_action_set_many(ctx, &kv, err);
}

int juju_action_fail(struct juju_ctx *ctx, const char *msg, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        strv_push(&argv, "action-fail");
        if (msg)
                juju_push_positional(&argv, msg);
        return run_plain(ctx, &argv, err);
}

int juju_action_log(struct juju_ctx *ctx, const char *msg, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        strv_push(&argv, "action-log");
        juju_push_positional(&argv, strempty(msg));
        return run_plain(ctx, &argv, err);
}

/* --- unit state ------------------------------------------------------------------------------- */

static int check_key(const char *tool, const char *key, struct strbuf *err) {
        if (isempty(key) || strchr(key, '=')) {
                if (err)
                        strbuf_addf(err, "%s: invalid key \"%s\"", tool, strempty(key));
                return -EINVAL;
        }
        return 0;
}

int juju_state_get(struct juju_ctx *ctx, const char *key, char **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        cJSON *j = NULL;
        int r = check_key("state-get", key, err);
        if (r < 0)
                return r;
        strv_pushl(&argv, "state-get", "--format=json", NULL);
        juju_push_positional(&argv, key);
        r = juju_tool_json(ctx, &argv, &j, err);
        if (r < 0)
                return r;
        if (j && !cJSON_IsNull(j) && !cJSON_IsString(j)) {
                cJSON_Delete(j);
                if (err)
                        strbuf_addstr(err, "state-get: expected a JSON string");
                return -EBADMSG;
        }
        /* Juju prints "" for a missing key (state-get.go, without --strict); state-set of ""
         * deletes the key, so "" means missing */
        *ret = cJSON_IsString(j) && *j->valuestring ? xstrdup(j->valuestring) : NULL;
        cJSON_Delete(j);
        return 0;
}

int juju_state_set(struct juju_ctx *ctx, const char *key, const char *value, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        int r = check_key("state-set", key, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *kv = xasprintf("%s=%s", key, strempty(value));
        strv_push(&argv, "state-set");
        juju_push_positional(&argv, kv);
        return run_plain(ctx, &argv, err);
}

int juju_state_delete(struct juju_ctx *ctx, const char *key, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        int r = check_key("state-delete", key, err);
        if (r < 0)
                return r;
        strv_push(&argv, "state-delete");
        juju_push_positional(&argv, key);
        return run_plain(ctx, &argv, err);
}

/* --- ports, network --------------------------------------------------------------------------- */

static int port_tool(
        struct juju_ctx *ctx, const char *tool, unsigned port, const char *proto, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        proto = proto ? proto : "tcp";
        if (port == 0 || port > 65535 || !(streq(proto, "tcp") || streq(proto, "udp"))) {
                if (err)
                        strbuf_addf(err, "%s: invalid port \"%u/%s\"", tool, port, proto);
                return -EINVAL;
        }
        strv_push(&argv, tool);
        strv_pushf(&argv, "%u/%s", port, proto);
        return run_plain(ctx, &argv, err);
}

int juju_open_port(struct juju_ctx *ctx, unsigned port, const char *proto, struct strbuf *err) {
        return port_tool(ctx, "open-port", port, proto, err);
}

int juju_close_port(struct juju_ctx *ctx, unsigned port, const char *proto, struct strbuf *err) {
        return port_tool(ctx, "close-port", port, proto, err);
}

int juju_private_address(struct juju_ctx *ctx, char **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        strv_pushl(&argv, "unit-get", "private-address", NULL);
        int r = juju_tool_run(ctx, &argv, NULL, 0, &out, err);
        if (r < 0)
                return r;
        strbuf_trim(&out);
        if (out.len == 0 || memchr(out.buf, '\n', out.len)) {
                if (err)
                        strbuf_addstr(err, "unit-get: expected one address");
                return -EBADMSG;
        }
        *ret = strbuf_detach(&out, NULL);
        return 0;
}

int juju_network_get(struct juju_ctx *ctx, const char *binding, cJSON **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        if (isempty(binding)) {
                if (err)
                        strbuf_addstr(err, "network-get: no binding given");
                return -EINVAL;
        }
        strv_pushl(&argv, "network-get", "--format=json", NULL);
        juju_push_positional(&argv, binding);
        return juju_tool_object(ctx, &argv, false, ret, err);
}
