/* SPDX-License-Identifier: Apache-2.0 */
/* Relations: relation-ids/-list, databags read once per hook and cached, writes buffered per
 * bag and flushed with one relation-set --file - (a YAML map of double-quoted scalars). */
#include "util/macro.h"
#include "util/alloc.h"
#include "juju/juju-internal.h"

#include "util/banned.h"

static struct juju_bag *bag_find(struct juju_ctx *ctx, const char *rel_id, const char *owner) {
        for (size_t i = 0; i < ctx->n_bags; i++)
                if (streq(ctx->bags[i]->rel_id, rel_id) && streq(ctx->bags[i]->owner, owner))
                        return ctx->bags[i];
        return NULL;
}

static struct juju_bag *bag_get(struct juju_ctx *ctx, const char *rel_id, const char *owner) {
        struct juju_bag *b = bag_find(ctx, rel_id, owner);
        if (b)
                return b;
        b = xcalloc(1, sizeof(*b));
        b->rel_id = xstrdup(rel_id);
        b->owner = xstrdup(owner);
        b->app = !strchr(owner, '/');
        ctx->bags = xrealloc(ctx->bags, (ctx->n_bags + 1) * sizeof(*ctx->bags));
        ctx->bags[ctx->n_bags++] = b;
        return b;
}

/* Sets key in obj to a string value, or removes it when value is "". */
static void obj_put(cJSON *obj, const char *key, const char *value, bool empty_deletes) {
        if (empty_deletes && isempty(value)) {
                cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
                return;
        }
        cJSON *v = cJSON_CreateString(strempty(value));
        if (!v)
                abort();
        if (cJSON_GetObjectItemCaseSensitive(obj, key))
                cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
        else
                cJSON_AddItemToObject(obj, key, v);
}

static void apply_pending(cJSON *data, const cJSON *pending) {
        const cJSON *it;
        cJSON_ArrayForEach(it, pending) obj_put(data, it->string, it->valuestring, true);
}

static void argv_relation(struct strv *argv, const char *tool, const char *rel_id, bool app) {
        strv_pushl(argv, tool, "-r", rel_id, NULL);
        if (app)
                strv_push(argv, "--app");
}

int juju_relation_ids(struct juju_ctx *ctx, const char *endpoint, struct strv *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;

        if (isempty(endpoint)) {
                if (err)
                        strbuf_addstr(err, "relation-ids: no endpoint given");
                return -EINVAL;
        }
        strv_pushl(&argv, "relation-ids", "--format=json", NULL);
        juju_push_positional(&argv, endpoint);
        return juju_tool_strv(ctx, &argv, ret, err);
}

int juju_relation_list(struct juju_ctx *ctx, const char *rel_id, struct strv *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;

        const char *rid = juju_rel_id(ctx, rel_id, "relation-list", err);
        if (!rid)
                return -EINVAL;
        argv_relation(&argv, "relation-list", rid, false);
        strv_push(&argv, "--format=json");
        return juju_tool_strv(ctx, &argv, ret, err);
}

int juju_relation_remote_app(struct juju_ctx *ctx, const char *rel_id, char **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        cJSON *j = NULL;
        int r;

        const char *rid = juju_rel_id(ctx, rel_id, "relation-list", err);
        if (!rid)
                return -EINVAL;
        argv_relation(&argv, "relation-list", rid, true);
        strv_push(&argv, "--format=json");
        r = juju_tool_json(ctx, &argv, &j, err);
        if (r < 0)
                return r;
        if (!cJSON_IsString(j) || isempty(j->valuestring)) {
                cJSON_Delete(j);
                if (err)
                        strbuf_addstr(err, "relation-list: expected an application name");
                return -EBADMSG;
        }
        *ret = xstrdup(j->valuestring);
        cJSON_Delete(j);
        return 0;
}

int juju_relation_get(
        struct juju_ctx *ctx, const char *rel_id, const char *owner, const cJSON **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        cJSON *j = NULL;
        const cJSON *it;
        int r;

        const char *rid = juju_rel_id(ctx, rel_id, "relation-get", err);
        if (!rid)
                return -EINVAL;
        if (isempty(owner)) {
                if (err)
                        strbuf_addstr(err, "relation-get: no unit or application given");
                return -EINVAL;
        }
        struct juju_bag *b = bag_find(ctx, rid, owner);
        if (b && b->data) {
                *ret = b->data;
                return 0;
        }

        bool app = !strchr(owner, '/');
        argv_relation(&argv, "relation-get", rid, app);
        strv_pushl(&argv, "--format=json", "-", NULL);
        juju_push_positional(&argv, owner);
        r = juju_tool_json(ctx, &argv, &j, err);
        if (r < 0)
                return r;
        if (!j || cJSON_IsNull(j)) {
                cJSON_Delete(j);
                j = cJSON_CreateObject();
                if (!j)
                        abort();
        }
        if (!cJSON_IsObject(j))
                goto bad;
        cJSON_ArrayForEach(it, j) if (!cJSON_IsString(it)) goto bad;

        b = bag_get(ctx, rid, owner);
        if (b->pending)
                apply_pending(j, b->pending);
        b->data = j;
        *ret = j;
        return 0;
bad:
        cJSON_Delete(j);
        if (err)
                strbuf_addf(err, "relation-get: bag of \"%s\" in %s is not a JSON object of strings", owner,
                        rid);
        return -EBADMSG;
}

int juju_relation_get_value(struct juju_ctx *ctx, const char *rel_id, const char *owner, const char *key,
        const char **ret, struct strbuf *err) {
        const cJSON *bag;
        int r = juju_relation_get(ctx, rel_id, owner, &bag, err);
        if (r < 0)
                return r;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(bag, key);
        *ret = cJSON_IsString(v) ? v->valuestring : NULL;
        return 0;
}

int juju_relation_set(struct juju_ctx *ctx, const char *rel_id, bool app, const char *key, const char *value,
        struct strbuf *err) {
        const char *rid = juju_rel_id(ctx, rel_id, "relation-set", err);
        if (!rid)
                return -EINVAL;
        if (isempty(key)) {
                if (err)
                        strbuf_addstr(err, "relation-set: empty key");
                return -EINVAL;
        }
        if (!juju_utf8_valid(key) || (value && !juju_utf8_valid(value))) {
                if (err)
                        strbuf_addf(err, "relation-set: key or value of \"%s\" is not valid UTF-8", key);
                return -EILSEQ;
        }

        struct juju_bag *b = bag_get(ctx, rid, app ? ctx->app : ctx->env.unit);
        if (!b->pending) {
                b->pending = cJSON_CreateObject();
                if (!b->pending)
                        abort();
        }
        obj_put(b->pending, key, strempty(value), false);
        if (b->data)
                obj_put(b->data, key, value, true);
        return 0;
}

bool juju_has_pending(const struct juju_ctx *ctx) {
        for (size_t i = 0; i < ctx->n_bags; i++)
                if (ctx->bags[i]->pending && cJSON_GetArraySize(ctx->bags[i]->pending) > 0)
                        return true;
        return false;
}

/* Appends s as a YAML double-quoted scalar. Everything YAML could fold, strip or refuse as
 * unprintable is escaped: '"', '\', C0 controls and DEL, C1 controls (incl. U+0085 NEL),
 * U+2028/U+2029 (YAML 1.1 line breaks), U+FEFF, U+FFFE/U+FFFF. Other UTF-8 passes as is. */
static int yaml_quote(struct strbuf *out, const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        if (!juju_utf8_valid(s))
                return -EILSEQ;
        strbuf_addch(out, '"');
        while (*p) {
                unsigned c = *p;
                if (c < 0x80) {
                        switch (c) {
                        case '"':
                                strbuf_addstr(out, "\\\"");
                                break;
                        case '\\':
                                strbuf_addstr(out, "\\\\");
                                break;
                        case '\n':
                                strbuf_addstr(out, "\\n");
                                break;
                        case '\t':
                                strbuf_addstr(out, "\\t");
                                break;
                        case '\r':
                                strbuf_addstr(out, "\\r");
                                break;
                        default:
                                if (c < 0x20 || c == 0x7f)
                                        strbuf_addf(out, "\\x%02x", c);
                                else
                                        strbuf_addch(out, (char) c);
                        }
                        p++;
                        continue;
                }
                size_t n = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;
                uint32_t cp = n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
                for (size_t i = 1; i < n; i++)
                        cp = (cp << 6) | (p[i] & 0x3f);
                if (cp < 0xa0 || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff || cp == 0xfffe ||
                        cp == 0xffff)
                        strbuf_addf(out, "\\u%04x", (unsigned) cp);
                else
                        strbuf_add(out, p, n);
                p += n;
        }
        strbuf_addch(out, '"');
        return 0;
}

int juju_yaml_map(const cJSON *map, struct strbuf *out, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf y = STRBUF_INIT;
        const cJSON *it;

        if (!cJSON_IsObject(map))
                return -EINVAL;
        cJSON_ArrayForEach(it, map) {
                if (!cJSON_IsString(it)) {
                        if (err)
                                strbuf_addf(
                                        err, "relation-set: value of \"%s\" is not a string", it->string);
                        return -EINVAL;
                }
                int r = yaml_quote(&y, it->string);
                if (r >= 0) {
                        strbuf_addstr(&y, ": ");
                        r = yaml_quote(&y, it->valuestring);
                }
                if (r < 0) {
                        if (err)
                                strbuf_addf(err, "relation-set: key or value of \"%s\" is not valid UTF-8",
                                        it->string);
                        return r;
                }
                strbuf_addch(&y, '\n');
        }
        if (y.len == 0)
                strbuf_addstr(&y, "{}\n");
        strbuf_addbuf(out, &y);
        return 0;
}

int juju_flush(struct juju_ctx *ctx, struct strbuf *err) {
        int ret = 0;

        for (size_t i = 0; i < ctx->n_bags; i++) {
                struct juju_bag *b = ctx->bags[i];
                _cleanup_strbuf_ struct strbuf yaml = STRBUF_INIT;
                _cleanup_strv_ struct strv argv = STRV_INIT;
                _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
                int r;

                if (!b->pending || cJSON_GetArraySize(b->pending) == 0)
                        continue;
                r = juju_yaml_map(b->pending, &yaml, &msg);
                if (r >= 0) {
                        argv_relation(&argv, "relation-set", b->rel_id, b->app);
                        strv_pushl(&argv, "--file", "-", NULL);
                        r = juju_tool_run(ctx, &argv, yaml.buf, yaml.len, NULL, &msg);
                }
                if (r < 0) {
                        if (err) {
                                if (ret < 0)
                                        strbuf_addstr(err, "; ");
                                strbuf_addbuf(err, &msg);
                        }
                        if (ret == 0)
                                ret = r;
                        continue;
                }
                cJSON_Delete(b->pending);
                b->pending = NULL;
        }
        return ret;
}
