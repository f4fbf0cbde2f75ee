/* SPDX-License-Identifier: Apache-2.0 */
/* Action parameters: `juju run`'s YAML-typed key=value arguments and --params file, and the
 * controller's JSON-schema (draft 4, gojsonschema) validation and defaults (actionparams.h). */
#include "util/macro.h"

#include <math.h>
#include <regex.h>

#include "actionparams.h"
#include "yamljson.h"
#include "util/alloc.h"
#include "util/banned.h"

bool action_name_valid(const char *s) {
        size_t l = strlen(s);
        if (!l || s[0] == '-' || s[l - 1] == '-')
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
                        return false;
        return true;
}

int action_params_check_args(char *const *kv, struct strbuf *err) {
        for (size_t i = 0; kv && kv[i]; i++) {
                const char *eq = strchr(kv[i], '=');
                if (!eq) {
                        strbuf_addf(err, "argument \"%s\" must be of the form key.key.key...=value", kv[i]);
                        return -EINVAL;
                }
                _cleanup_free_ char *key = xstrndup(kv[i], (size_t) (eq - kv[i]));
                char *seg = key, *dot;
                for (size_t guard = 0; guard < 64; guard++, seg = dot + 1) {
                        dot = strchr(seg, '.');
                        if (dot)
                                *dot = '\0';
                        if (!action_name_valid(seg)) {
                                strbuf_addf(err,
                                        "key \"%s\" must start and end with lowercase alphanumeric, and "
                                        "contain only lowercase alphanumeric and hyphens",
                                        seg);
                                return -EINVAL;
                        }
                        if (!dot)
                                break;
                }
        }
        return 0;
}

/* addValueToMap (cmd/juju/action/common.go) */
static void add_value(cJSON *target, char **keys, size_t n, cJSON *value) {
        cJSON *next = target;
        for (size_t i = 0; i + 1 < n; i++) {
                cJSON *v = jget(next, keys[i]);
                if (!cJSON_IsObject(v)) {
                        v = cJSON_CreateObject();
                        jset(next, keys[i], v);
                }
                next = v;
        }
        jset(next, keys[n - 1], value);
}

int action_params_parse(
        const char *params_yaml, char *const *kv, bool string_args, cJSON **ret, struct strbuf *err) {
        _cleanup_json_ cJSON *params = NULL;
        if (params_yaml) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (yaml_to_json(params_yaml, strlen(params_yaml), true, &params, &e) < 0) {
                        strbuf_addf(err, "yaml: %s", e.buf);
                        return -EINVAL;
                }
                if (cJSON_IsNull(params)) {
                        cJSON_Delete(params);
                        params = NULL;
                } else if (!cJSON_IsObject(params)) {
                        strbuf_addstr(err, "params must contain a YAML map with string keys");
                        return -EINVAL;
                }
        }
        if (!params)
                params = cJSON_CreateObject();
        int r = action_params_check_args(kv, err);
        if (r < 0)
                return r;
        for (size_t i = 0; kv && kv[i]; i++) {
                const char *eq = strchr(kv[i], '=');
                _cleanup_free_ char *key = xstrndup(kv[i], (size_t) (eq - kv[i]));
                char *keys[64];
                size_t n = 0;
                for (char *seg = key, *dot; n < ELEMENTSOF(keys); seg = dot + 1) {
                        dot = strchr(seg, '.');
                        if (dot)
                                *dot = '\0';
                        keys[n++] = seg;
                        if (!dot)
                                break;
                }
                cJSON *v = NULL;
                const char *text = eq + 1;
                if (string_args || !*text)
                        v = cJSON_CreateString(text); /* yaml.Unmarshal of "" leaves the string */
                else {
                        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                        if (yaml_to_json(text, strlen(text), true, &v, &e) < 0) {
                                strbuf_addf(err, "yaml: %s", e.buf);
                                return -EINVAL;
                        }
                }
                add_value(params, keys, n, v);
        }
        *ret = TAKE_PTR(params);
        return 0;
}

/* --- gojsonschema, the parts action schemas use -------------------------------------------- */

struct vctx {
        struct strbuf *err;
        unsigned nerr;
};

static void add_error(struct vctx *v, const char *context, const cJSON *value, const char *fmt, ...)
        _printf_(4, 5);
static void add_error(struct vctx *v, const char *context, const cJSON *value, const char *fmt, ...) {
        va_list ap;
        if (v->nerr++)
                strbuf_addstr(v->err, "; ");
        strbuf_addf(v->err, "%s : ", context);
        va_start(ap, fmt);
        strbuf_vaddf(v->err, fmt, ap);
        va_end(ap);
        strbuf_addstr(v->err, ", given ");
        format_value(v->err, value, FORMAT_JSON);
        strbuf_setlen(v->err, v->err->len - 1); /* format_value's newline */
}

static bool is_integer(const cJSON *v) {
        return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble);
}

static bool type_is(const cJSON *v, const char *t) {
        if (streq(t, "string"))
                return cJSON_IsString(v);
        if (streq(t, "boolean"))
                return cJSON_IsBool(v);
        if (streq(t, "number"))
                return cJSON_IsNumber(v);
        if (streq(t, "integer"))
                return is_integer(v);
        if (streq(t, "array"))
                return cJSON_IsArray(v);
        if (streq(t, "object"))
                return cJSON_IsObject(v);
        if (streq(t, "null"))
                return cJSON_IsNull(v);
        return true;
}

/* The schema's "type" (a name or a list) holds v's type; *names is how gojsonschema prints it. */
static bool type_ok(const cJSON *type, const cJSON *v, struct strbuf *names) {
        if (cJSON_IsString(type)) {
                strbuf_addstr(names, type->valuestring);
                return type_is(v, type->valuestring);
        }
        bool ok = false;
        const cJSON *t;
        strbuf_addch(names, '[');
        cJSON_ArrayForEach(t, type) {
                if (!cJSON_IsString(t))
                        continue;
                if (names->len > 1)
                        strbuf_addch(names, ',');
                strbuf_addstr(names, t->valuestring);
                ok = ok || type_is(v, t->valuestring);
        }
        strbuf_addch(names, ']');
        return ok;
}

static void number_text(struct strbuf *out, double d) {
        _cleanup_json_ cJSON *n = cJSON_CreateNumber(d);
        format_value(out, n, FORMAT_JSON);
        strbuf_setlen(out, out->len - 1);
}

static void validate(struct vctx *v, const cJSON *schema, const cJSON *value, const char *context);

static void validate_object(struct vctx *v, const cJSON *schema, const cJSON *value, const char *context) {
        const cJSON *e;
        const cJSON *mn = jget(schema, "minProperties"), *mx = jget(schema, "maxProperties");
        int n = cJSON_GetArraySize(value);
        if (cJSON_IsNumber(mn) && n < mn->valueint)
                add_error(v, context, value, "must have at least %d properties", mn->valueint);
        if (cJSON_IsNumber(mx) && n > mx->valueint)
                add_error(v, context, value, "must have at the most %d properties", mx->valueint);
        cJSON_ArrayForEach(e, jget(schema, "required")) {
                if (cJSON_IsString(e) && !jget(value, e->valuestring))
                        add_error(v, context, value, "\"%s\" property is missing and required",
                                e->valuestring);
        }
        const cJSON *props = jget(schema, "properties"), *ap = jget(schema, "additionalProperties");
        cJSON_ArrayForEach(e, value) {
                if (jget(props, e->string))
                        continue;
                if (cJSON_IsFalse(ap))
                        add_error(v, context, value, "additional property \"%s\" is not allowed", e->string);
                else if (cJSON_IsObject(ap)) {
                        _cleanup_free_ char *sub = xasprintf("%s.%s", context, e->string);
                        validate(v, ap, e, sub);
                }
        }
}

static void validate_common(struct vctx *v, const cJSON *schema, const cJSON *value, const char *context) {
        const cJSON *en = jget(schema, "enum"), *e;
        if (!cJSON_IsArray(en))
                return;
        cJSON_ArrayForEach(e, en) if (cJSON_Compare(e, value, true)) return;
        _cleanup_strbuf_ struct strbuf list = STRBUF_INIT;
        cJSON_ArrayForEach(e, en) {
                if (list.len)
                        strbuf_addch(&list, ',');
                format_value(&list, e, FORMAT_JSON);
                strbuf_setlen(&list, list.len - 1);
        }
        add_error(v, context, value, "must match one of the enum values [%s]", list.buf);
}

static void validate_scalar(struct vctx *v, const cJSON *schema, const cJSON *value, const char *context) {
        const cJSON *x;
        if (cJSON_IsNumber(value)) {
                _cleanup_strbuf_ struct strbuf lim = STRBUF_INIT;
                double d = value->valuedouble;
                if (cJSON_IsNumber(x = jget(schema, "maximum"))) {
                        number_text(&lim, x->valuedouble);
                        if (cJSON_IsTrue(jget(schema, "exclusiveMaximum")) ? d >= x->valuedouble
                                                                           : d > x->valuedouble)
                                add_error(v, context, value,
                                        cJSON_IsTrue(jget(schema, "exclusiveMaximum"))
                                                ? "must be lower than %s"
                                                : "must be lower than or equal to %s",
                                        lim.buf);
                }
                strbuf_reset(&lim);
                if (cJSON_IsNumber(x = jget(schema, "minimum"))) {
                        number_text(&lim, x->valuedouble);
                        if (cJSON_IsTrue(jget(schema, "exclusiveMinimum")) ? d <= x->valuedouble
                                                                           : d < x->valuedouble)
                                add_error(v, context, value,
                                        cJSON_IsTrue(jget(schema, "exclusiveMinimum"))
                                                ? "must be greater than %s"
                                                : "must be greater than or equal to %s",
                                        lim.buf);
                }
        }
        if (cJSON_IsString(value)) {
                size_t runes = 0;
                for (const unsigned char *p = (const unsigned char *) value->valuestring; *p; p++)
                        runes += (*p & 0xc0) != 0x80;
                if (cJSON_IsNumber(x = jget(schema, "minLength")) && runes < (size_t) x->valueint)
                        add_error(v, context, value, "string length must be greater or equal to %d",
                                x->valueint);
                if (cJSON_IsNumber(x = jget(schema, "maxLength")) && runes > (size_t) x->valueint)
                        add_error(v, context, value, "string length must be lower or equal to %d",
                                x->valueint);
                if (cJSON_IsString(x = jget(schema, "pattern"))) {
                        regex_t re;
                        if (regcomp(&re, x->valuestring, REG_EXTENDED | REG_NOSUB) == 0) {
                                if (regexec(&re, value->valuestring, 0, NULL, 0) != 0)
                                        add_error(v, context, value, "does not match pattern '%s'",
                                                x->valuestring);
                                regfree(&re);
                        }
                }
        }
}

static void validate(struct vctx *v, const cJSON *schema, const cJSON *value, const char *context) {
        const cJSON *type = jget(schema, "type");
        if (type) {
                _cleanup_strbuf_ struct strbuf names = STRBUF_INIT;
                if (!type_ok(type, value, &names)) {
                        add_error(v, context, value, "must be of type %s", names.buf);
                        return;
                }
        }
        if (cJSON_IsArray(value)) {
                const cJSON *x;
                int n = cJSON_GetArraySize(value);
                if (cJSON_IsNumber(x = jget(schema, "minItems")) && n < x->valueint)
                        add_error(v, context, value, "array must have at least %d items", x->valueint);
                if (cJSON_IsNumber(x = jget(schema, "maxItems")) && n > x->valueint)
                        add_error(v, context, value, "array must have at the most %d items", x->valueint);
                const cJSON *items = jget(schema, "items"), *e;
                int i = 0;
                if (cJSON_IsObject(items))
                        cJSON_ArrayForEach(e, value) {
                                _cleanup_free_ char *sub = xasprintf("%s.%d", context, i++);
                                validate(v, items, e, sub);
                        }
                validate_common(v, schema, value, context);
                return;
        }
        if (cJSON_IsObject(value)) {
                validate_object(v, schema, value, context);
                validate_common(v, schema, value, context);
                const cJSON *p;
                cJSON_ArrayForEach(p, jget(schema, "properties")) {
                        const cJSON *sub = jget(value, p->string);
                        if (!sub)
                                continue;
                        _cleanup_free_ char *c = xasprintf("%s.%s", context, p->string);
                        validate(v, p, sub, c);
                }
                return;
        }
        validate_scalar(v, schema, value, context);
        validate_common(v, schema, value, context);
}

/* gojsonschema InsertDefaults: iterateAndInsert */
static void insert_defaults(cJSON *into, const cJSON *properties) {
        const cJSON *p;
        cJSON_ArrayForEach(p, properties) {
                cJSON *have = jget(into, p->string);
                if (have) {
                        if (cJSON_IsObject(have) && cJSON_IsObject(jget(p, "properties")))
                                insert_defaults(have, jget(p, "properties"));
                        continue;
                }
                const cJSON *d = jget(p, "default");
                if (d) {
                        jset(into, p->string, cJSON_Duplicate(d, true));
                        continue;
                }
                if (cJSON_IsObject(jget(p, "properties"))) {
                        cJSON *tmp = cJSON_CreateObject();
                        insert_defaults(tmp, jget(p, "properties"));
                        if (tmp->child)
                                jset(into, p->string, tmp);
                        else
                                cJSON_Delete(tmp);
                }
        }
}

int action_params_validate(const cJSON *def, const cJSON *params, cJSON **ret, struct strbuf *err) {
        /* ReadActionsYaml: the action's schema */
        _cleanup_json_ cJSON *schema = cJSON_CreateObject();
        jset_str(schema, "type", "object");
        jset(schema, "properties", cJSON_CreateObject());
        jset(schema, "additionalProperties", cJSON_CreateFalse());
        const cJSON *e;
        cJSON_ArrayForEach(e, def) {
                if (streq(e->string, "params"))
                        jset(schema, "properties", cJSON_Duplicate(e, true));
                else if (!streq(e->string, "parallel") && !streq(e->string, "execution-group"))
                        jset(schema, e->string, cJSON_Duplicate(e, true));
        }
        _cleanup_strbuf_ struct strbuf msgs = STRBUF_INIT;
        struct vctx v = { .err = &msgs };
        validate(&v, schema, params, "(root)");
        if (v.nerr) {
                strbuf_addf(err, "validation failed: %s", msgs.buf);
                return -EINVAL;
        }
        cJSON *out = cJSON_Duplicate(params, true);
        insert_defaults(out, jget(schema, "properties"));
        *ret = out;
        return 0;
}
