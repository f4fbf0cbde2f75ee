/* SPDX-License-Identifier: Apache-2.0 */
/* Secrets: secret-add, -get, -set, -grant, -revoke, -remove, -ids, -info-get, with content
 * keys checked before any tool runs and JSON output turned into cJSON for the caller. */
#include "util/macro.h"
#include "util/alloc.h"
#include "juju/juju-internal.h"

#include "util/banned.h"

bool juju_secret_key_valid(const char *key) {
        /* ^[a-z](-?[a-z0-9]){2,}$ */
        if (isempty(key) || key[0] < 'a' || key[0] > 'z')
                return false;
        size_t groups = 0;
        for (const char *s = key + 1; *s;) {
                if (*s == '-')
                        s++;
                if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
                        return false;
                s++;
                groups++;
        }
        return groups >= 2;
}

static int check_id(const char *tool, const char *id, struct strbuf *err) {
        if (isempty(id)) {
                if (err)
                        strbuf_addf(err, "%s: no secret id given", tool);
                return -EINVAL;
        }
        return 0;
}

/* Appends KEY=VALUE for each item of content (an object of strings with valid keys). */
static int push_content(struct strv *argv, const char *tool, const cJSON *content, struct strbuf *err) {
        const cJSON *it;
        if (!cJSON_IsObject(content) || cJSON_GetArraySize(content) == 0) {
                if (err)
                        strbuf_addf(err, "%s: content must be a non-empty object", tool);
                return -EINVAL;
        }
        cJSON_ArrayForEach(it, content) {
                if (!juju_secret_key_valid(it->string)) {
                        if (err)
                                strbuf_addf(err, "%s: invalid key \"%s\"", tool, it->string);
                        return -EINVAL;
                }
                if (!cJSON_IsString(it)) {
                        if (err)
                                strbuf_addf(err, "%s: value of \"%s\" is not a string", tool, it->string);
                        return -EINVAL;
                }
                strv_pushf(argv, "%s=%s", it->string, it->valuestring);
        }
        return 0;
}

static void push_meta(struct strv *argv, const char *label, const char *description) {
        if (label)
                strv_pushl(argv, "--label", label, NULL);
        if (description)
                strv_pushl(argv, "--description", description, NULL);
}

int juju_secret_add(struct juju_ctx *ctx, const cJSON *content, const char *label, const char *description,
        enum juju_secret_owner owner, char **ret_id, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        int r;

        strv_push(&argv, "secret-add");
        push_meta(&argv, label, description);
        strv_pushl(&argv, "--owner", owner == JUJU_SECRET_OWNER_UNIT ? "unit" : "application", NULL);
        r = push_content(&argv, "secret-add", content, err);
        if (r < 0)
                return r;
        r = juju_tool_run(ctx, &argv, NULL, 0, &out, err);
        if (r < 0)
                return r;
        strbuf_trim(&out);
        if (out.len == 0 || memchr(out.buf, '\n', out.len) || memchr(out.buf, ' ', out.len)) {
                if (err)
                        strbuf_addstr(err, "secret-add: expected the new secret id");
                return -EBADMSG;
        }
        *ret_id = strbuf_detach(&out, NULL);
        return 0;
}

int juju_secret_get(struct juju_ctx *ctx, const char *id, const char *label, enum juju_secret_fetch fetch,
        cJSON **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;

        if (isempty(id) && isempty(label)) {
                if (err)
                        strbuf_addstr(err, "secret-get: no secret id or label given");
                return -EINVAL;
        }
        strv_push(&argv, "secret-get");
        if (!isempty(label))
                strv_pushl(&argv, "--label", label, NULL);
        if (fetch == JUJU_SECRET_PEEK)
                strv_push(&argv, "--peek");
        else if (fetch == JUJU_SECRET_REFRESH)
                strv_push(&argv, "--refresh");
        strv_push(&argv, "--format=json");
        if (!isempty(id))
                juju_push_positional(&argv, id);
        return juju_tool_object(ctx, &argv, false, ret, err);
}

int juju_secret_get_value(struct juju_ctx *ctx, const char *id, const char *label,
        enum juju_secret_fetch fetch, const char *key, char **ret, struct strbuf *err) {
        cJSON *j = NULL;
        int r = juju_secret_get(ctx, id, label, fetch, &j, err);
        if (r < 0)
                return r;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
        if (!cJSON_IsString(v)) {
                if (err)
                        strbuf_addf(err, "secret \"%s\": no key \"%s\"", !isempty(id) ? id : label, key);
                cJSON_Delete(j);
                return -ENOENT;
        }
        *ret = xstrdup(v->valuestring);
        cJSON_Delete(j);
        return 0;
}

int juju_secret_set(struct juju_ctx *ctx, const char *id, const cJSON *content, const char *label,
        const char *description, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        int r = check_id("secret-set", id, err);
        if (r < 0)
                return r;
        strv_push(&argv, "secret-set");
        push_meta(&argv, label, description);
        juju_push_positional(&argv, id);
        if (content) {
                r = push_content(&argv, "secret-set", content, err);
                if (r < 0)
                        return r;
        } else if (!label && !description) {
                if (err)
                        strbuf_addstr(err, "secret-set: nothing to set");
                return -EINVAL;
        }
        return juju_tool_run(ctx, &argv, NULL, 0, NULL, err);
}

static int grant_revoke(struct juju_ctx *ctx, const char *tool, const char *id, const char *rel_id,
        const char *unit, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        int r = check_id(tool, id, err);
        if (r < 0)
                return r;
        const char *rid = juju_rel_id(ctx, rel_id, tool, err);
        if (!rid)
                return -EINVAL;
        strv_pushl(&argv, tool, "-r", rid, NULL);
        if (!isempty(unit))
                strv_pushl(&argv, "--unit", unit, NULL);
        juju_push_positional(&argv, id);
        return juju_tool_run(ctx, &argv, NULL, 0, NULL, err);
}

int juju_secret_grant(
        struct juju_ctx *ctx, const char *id, const char *rel_id, const char *unit, struct strbuf *err) {
        return grant_revoke(ctx, "secret-grant", id, rel_id, unit, err);
}

int juju_secret_revoke(
        struct juju_ctx *ctx, const char *id, const char *rel_id, const char *unit, struct strbuf *err) {
        return grant_revoke(ctx, "secret-revoke", id, rel_id, unit, err);
}

int juju_secret_remove(struct juju_ctx *ctx, const char *id, unsigned revision, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        int r = check_id("secret-remove", id, err);
        if (r < 0)
                return r;
        strv_push(&argv, "secret-remove");
        if (revision > 0) {
                strv_push(&argv, "--revision");
                strv_pushf(&argv, "%u", revision);
        }
        juju_push_positional(&argv, id);
        return juju_tool_run(ctx, &argv, NULL, 0, NULL, err);
}

int juju_secret_ids(struct juju_ctx *ctx, struct strv *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        strv_pushl(&argv, "secret-ids", "--format=json", NULL);
        return juju_tool_strv(ctx, &argv, ret, err);
}

int juju_secret_info_get(
        struct juju_ctx *ctx, const char *id, const char *label, cJSON **ret, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        cJSON *j = NULL;

        if (isempty(id) && isempty(label)) {
                if (err)
                        strbuf_addstr(err, "secret-info-get: no secret id or label given");
                return -EINVAL;
        }
        if (!isempty(id) && !isempty(label)) { /* Juju refuses both (secret-info-get.go) */
                if (err)
                        strbuf_addstr(err, "secret-info-get: give a secret id or a label, not both");
                return -EINVAL;
        }
        strv_push(&argv, "secret-info-get");
        if (!isempty(label))
                strv_pushl(&argv, "--label", label, NULL);
        strv_push(&argv, "--format=json");
        if (!isempty(id))
                juju_push_positional(&argv, id);
        int r = juju_tool_json(ctx, &argv, &j, err);
        if (r < 0)
                return r;
        /* {ID: {...}} with exactly one entry */
        if (!cJSON_IsObject(j) || cJSON_GetArraySize(j) != 1 || !cJSON_IsObject(j->child)) {
                cJSON_Delete(j);
                if (err)
                        strbuf_addstr(err, "secret-info-get: expected one {id: info} object");
                return -EBADMSG;
        }
        *ret = cJSON_DetachItemViaPointer(j, j->child);
        cJSON_Delete(j);
        return 0;
}
