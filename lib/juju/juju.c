/* SPDX-License-Identifier: Apache-2.0 */
/* The hook context (JUJU_* environment) and the one path by which every hook tool runs:
 * lib/proc with the ctx's environment, stderr turned into the caller's message. */
#include "util/macro.h"
#include "util/alloc.h"
#include "juju/juju-internal.h"
#include "proc/proc.h"

#include <signal.h>

#include "util/banned.h"

extern char **environ;

#define JUJU_TOOL_TIMEOUT_MS 120000

static const char *envp_get(const struct strv *envv, const char *name) {
        size_t l = strlen(name);
        for (size_t i = 0; i < envv->n; i++)
                if (strncmp(envv->v[i], name, l) == 0 && envv->v[i][l] == '=')
                        return isempty(envv->v[i] + l + 1) ? NULL : envv->v[i] + l + 1;
        return NULL;
}

static bool unit_name_valid(const char *unit) {
        const char *slash = strchr(unit, '/');
        if (!slash || slash == unit || !slash[1])
                return false;
        for (const char *s = slash + 1; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        for (const char *s = unit; s < slash; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
                        return false;
        return true;
}

int juju_ctx_from_envp(char *const *envp, struct juju_ctx **ret, struct strbuf *err) {
        struct juju_ctx *ctx = xcalloc(1, sizeof(*ctx));
        struct juju_env *e = &ctx->env;

        strv_init(&ctx->envv);
        strv_pushv(&ctx->envv, envp);
        ctx->timeout_ms = JUJU_TOOL_TIMEOUT_MS;
        ctx->leader = -1;

        e->unit = envp_get(&ctx->envv, "JUJU_UNIT_NAME");
        if (!e->unit) {
                if (err)
                        strbuf_addstr(err, "JUJU_UNIT_NAME: not set (not running in a juju hook context)");
                juju_ctx_free(ctx);
                return -ENXIO;
        }
        if (!unit_name_valid(e->unit)) {
                if (err)
                        strbuf_addf(err, "JUJU_UNIT_NAME: invalid unit name \"%s\"", e->unit);
                juju_ctx_free(ctx);
                return -EINVAL;
        }
        ctx->app = xstrndup(e->unit, (size_t) (strchr(e->unit, '/') - e->unit));
        e->app = ctx->app;

        e->model_name = envp_get(&ctx->envv, "JUJU_MODEL_NAME");
        e->model_uuid = envp_get(&ctx->envv, "JUJU_MODEL_UUID");
        e->machine_id = envp_get(&ctx->envv, "JUJU_MACHINE_ID");
        e->charm_dir = envp_get(&ctx->envv, "JUJU_CHARM_DIR");
        if (!e->charm_dir)
                e->charm_dir = envp_get(&ctx->envv, "CHARM_DIR");
        e->version = envp_get(&ctx->envv, "JUJU_VERSION");
        e->context_id = envp_get(&ctx->envv, "JUJU_CONTEXT_ID");
        e->hook_name = envp_get(&ctx->envv, "JUJU_HOOK_NAME");
        e->dispatch_path = envp_get(&ctx->envv, "JUJU_DISPATCH_PATH");
        e->relation = envp_get(&ctx->envv, "JUJU_RELATION");
        e->relation_id = envp_get(&ctx->envv, "JUJU_RELATION_ID");
        e->remote_unit = envp_get(&ctx->envv, "JUJU_REMOTE_UNIT");
        e->remote_app = envp_get(&ctx->envv, "JUJU_REMOTE_APP");
        e->departing_unit = envp_get(&ctx->envv, "JUJU_DEPARTING_UNIT");
        e->action_name = envp_get(&ctx->envv, "JUJU_ACTION_NAME");
        e->action_uuid = envp_get(&ctx->envv, "JUJU_ACTION_UUID");
        e->secret_id = envp_get(&ctx->envv, "JUJU_SECRET_ID");
        e->secret_label = envp_get(&ctx->envv, "JUJU_SECRET_LABEL");
        e->secret_revision = envp_get(&ctx->envv, "JUJU_SECRET_REVISION");

        const char *name = NULL, *dp = e->dispatch_path;
        if (dp && (name = startswith(dp, "actions/")))
                e->is_action = true;
        else if (dp)
                name = startswith(dp, "hooks/");
        if (!name && !dp) {
                name = e->action_name ? e->action_name : e->hook_name;
                e->is_action = e->action_name != NULL;
        }
        if (isempty(name))
                name = dp ? dp : NULL;
        if (name) {
                ctx->event = xstrdup(name);
                e->event = ctx->event;
        }

        /* "<endpoint>-relation-<kind>" */
        if (e->relation && e->hook_name) {
                const char *p = startswith(e->hook_name, e->relation);
                if (p)
                        p = startswith(p, "-relation-");
                if (!isempty(p)) {
                        ctx->relation_event = xstrdup(p);
                        e->relation_event = ctx->relation_event;
                }
        }

        *ret = ctx;
        return 0;
}

int juju_ctx_from_env(struct juju_ctx **ret, struct strbuf *err) {
        /* libslurm ignores SIGPIPE only around some of its sends, and only for that call */
        (void) signal(SIGPIPE, SIG_IGN);
        return juju_ctx_from_envp(environ, ret, err);
}

static void bag_free(struct juju_bag *b) {
        if (!b)
                return;
        free(b->rel_id);
        free(b->owner);
        cJSON_Delete(b->data);
        cJSON_Delete(b->pending);
        free(b);
}

void juju_ctx_free(struct juju_ctx *ctx) {
        if (!ctx)
                return;
        for (size_t i = 0; i < ctx->n_bags; i++)
                bag_free(ctx->bags[i]);
        free(ctx->bags);
        cJSON_Delete(ctx->config);
        cJSON_Delete(ctx->action_params);
        free(ctx->app);
        free(ctx->event);
        free(ctx->relation_event);
        strv_clear(&ctx->envv);
        free(ctx);
}

const struct juju_env *juju_env(const struct juju_ctx *ctx) {
        return &ctx->env;
}

void juju_set_tool_timeout(struct juju_ctx *ctx, int timeout_ms) {
        ctx->timeout_ms = timeout_ms < 0 ? 0 : timeout_ms;
}

unsigned juju_tool_calls(const struct juju_ctx *ctx) {
        return ctx->n_calls;
}

/* The tool's stderr as one line: trimmed, inner line breaks turned into "; ". */
static void add_stderr(struct strbuf *err, struct strbuf *text) {
        strbuf_trim(text);
        for (size_t i = 0; i < text->len; i++) {
                char c = text->buf[i];
                if (c == '\r')
                        continue;
                if (c == '\n') {
                        strbuf_addstr(err, "; ");
                        while (i + 1 < text->len && (text->buf[i + 1] == '\n' || text->buf[i + 1] == '\r'))
                                i++;
                } else
                        strbuf_addch(err, c);
        }
}

int juju_tool_run(struct juju_ctx *ctx, const struct strv *argv, const char *in, size_t in_len,
        struct strbuf *ret_out, struct strbuf *err) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        int r;

        if (argv->n == 0)
                return -EINVAL;
        const char *tool = argv->v[0];

        strv_pushv(&p.argv, argv->v);
        strv_pushv(&p.env, ctx->envv.v);
        p.env_set = true;
        p.in = in;
        p.in_len = in ? in_len : 0;
        p.capture_out = true;
        p.capture_err = true;
        p.timeout_ms = ctx->timeout_ms;

        ctx->n_calls++;
        r = proc_run(&p);
        if (r == -ETIME) {
                if (err)
                        strbuf_addf(err, "%s: timed out after %d ms", tool, ctx->timeout_ms);
                return r;
        }
        if (r < 0) {
                if (err)
                        strbuf_addf(err, "could not run %s: %s", tool, strerror(-r));
                return r;
        }
        if (r != 0) {
                if (err) {
                        strbuf_addf(err, "%s: ", tool);
                        size_t before = err->len;
                        add_stderr(err, &p.err);
                        if (err->len == before) {
                                if (r > 128)
                                        strbuf_addf(err, "killed by signal %d", r - 128);
                                else
                                        strbuf_addf(err, "exited with status %d", r);
                        }
                }
                return -EREMOTEIO;
        }
        if (ret_out) {
                strbuf_reset(ret_out);
                strbuf_addbuf(ret_out, &p.out);
        }
        return 0;
}

int juju_tool_json(struct juju_ctx *ctx, const struct strv *argv, cJSON **ret, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        int r = juju_tool_run(ctx, argv, NULL, 0, &out, err);
        if (r < 0)
                return r;
        strbuf_trim(&out);
        if (out.len == 0) {
                *ret = NULL;
                return 0;
        }
        cJSON *j = cJSON_ParseWithLength(out.buf, out.len);
        if (!j) {
                if (err)
                        strbuf_addf(err, "%s: output is not valid JSON", argv->v[0]);
                return -EBADMSG;
        }
        *ret = j;
        return 0;
}

const char *juju_rel_id(struct juju_ctx *ctx, const char *rel_id, const char *tool, struct strbuf *err) {
        if (!isempty(rel_id))
                return rel_id;
        if (ctx->env.relation_id)
                return ctx->env.relation_id;
        if (err)
                strbuf_addf(err, "%s: no relation id given and JUJU_RELATION_ID is not set", tool);
        return NULL;
}

void juju_push_positional(struct strv *argv, const char *arg) {
        if (arg[0] == '-' && !strv_contains(argv, "--"))
                strv_push(argv, "--");
        strv_push(argv, arg);
}

bool juju_utf8_valid(const char *s) {
        const unsigned char *p = (const unsigned char *) s;
        while (*p) {
                unsigned c = *p;
                size_t n;
                uint32_t cp;
                if (c < 0x80) {
                        p++;
                        continue;
                } else if ((c & 0xe0) == 0xc0) {
                        n = 1;
                        cp = c & 0x1f;
                } else if ((c & 0xf0) == 0xe0) {
                        n = 2;
                        cp = c & 0x0f;
                } else if ((c & 0xf8) == 0xf0) {
                        n = 3;
                        cp = c & 0x07;
                } else
                        return false;
                for (size_t i = 1; i <= n; i++) {
                        if ((p[i] & 0xc0) != 0x80)
                                return false;
                        cp = (cp << 6) | (p[i] & 0x3f);
                }
                /* no overlong forms, no surrogates, nothing past U+10FFFF */
                if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
                        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
                        return false;
                p += n + 1;
        }
        return true;
}

int juju_tool_strv(struct juju_ctx *ctx, const struct strv *argv, struct strv *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv l = STRV_INIT;
        cJSON *json = NULL;
        const cJSON *it;

        int r = juju_tool_json(ctx, argv, &json, err);
        if (r < 0)
                return r;
        if (json && !cJSON_IsArray(json))
                goto bad;
        cJSON_ArrayForEach(it, json) {
                if (!cJSON_IsString(it))
                        goto bad;
                strv_push(&l, it->valuestring);
        }
        cJSON_Delete(json);
        for (size_t i = 0; i < l.n; i++)
                strv_push(ret, l.v[i]);
        return (int) l.n;
bad:
        cJSON_Delete(json);
        if (err)
                strbuf_addf(err, "%s: expected a JSON list of strings", argv->v[0]);
        return -EBADMSG;
}

int juju_tool_object(
        struct juju_ctx *ctx, const struct strv *argv, bool empty_ok, cJSON **ret, struct strbuf *err) {
        cJSON *j = NULL;

        int r = juju_tool_json(ctx, argv, &j, err);
        if (r < 0)
                return r;
        if (empty_ok && (!j || cJSON_IsNull(j))) {
                cJSON_Delete(j);
                j = cJSON_CreateObject();
                if (!j)
                        abort();
        }
        if (!cJSON_IsObject(j)) {
                cJSON_Delete(j);
                if (err)
                        strbuf_addf(err, "%s: expected a JSON object", argv->v[0]);
                return -EBADMSG;
        }
        *ret = j;
        return 0;
}
