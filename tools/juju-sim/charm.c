/* SPDX-License-Identifier: Apache-2.0 */
/* Reads a charm's metadata.yaml, config.yaml and actions.yaml into one cJSON description and
 * checks config values and action parameters the way Juju does. */
#include "util/macro.h"

#include <math.h>

#include "charm.h"
#include "actionparams.h"
#include "bases.h"
#include "yamljson.h"
#include "util/alloc.h"
#include "util/banned.h"

static int load_endpoints(cJSON *desc, const cJSON *meta, struct strbuf *err) {
        static const char *const roles[] = { "provides", "requires", "peers" };
        cJSON *eps = jobj(desc, "endpoints");
        for (size_t i = 0; i < ELEMENTSOF(roles); i++) {
                const cJSON *sect = jget(meta, roles[i]), *e;
                if (!sect)
                        continue;
                if (!cJSON_IsObject(sect)) {
                        strbuf_addf(err, "metadata.yaml: %s must be a map", roles[i]);
                        return -EINVAL;
                }
                cJSON_ArrayForEach(e, sect) {
                        const char *iface = cJSON_IsString(e) ? e->valuestring : jstr(e, "interface");
                        if (isempty(iface)) {
                                strbuf_addf(
                                        err, "metadata.yaml: endpoint \"%s\" has no interface", e->string);
                                return -EINVAL;
                        }
                        if (jget(eps, e->string)) {
                                strbuf_addf(err, "metadata.yaml: endpoint \"%s\" defined twice", e->string);
                                return -EINVAL;
                        }
                        /* scope: global (the default) or container (internal/charm/meta.go
                         * ifaceSchema) */
                        const char *scope = cJSON_IsObject(e) ? jstr(e, "scope") : NULL;
                        if (scope && !streq(scope, "global") && !streq(scope, "container")) {
                                strbuf_addf(err, "metadata.yaml: endpoint \"%s\": scope: expected \"global\" or "
                                                 "\"container\", got \"%s\"", e->string, scope);
                                return -EINVAL;
                        }
                        cJSON *ep = cJSON_CreateObject();
                        jset_str(ep, "role", roles[i]);
                        jset_str(ep, "interface", iface);
                        jset_str(ep, "scope", scope ? scope : "global");
                        const cJSON *limit = jget(e, "limit");
                        if (cJSON_IsNumber(limit))
                                jset_num(ep, "limit", limit->valuedouble);
                        else if (cJSON_IsString(limit))
                                jset_num(ep, "limit", atof(limit->valuestring));
                        jset(eps, e->string, ep);
                }
        }
        const cJSON *extra = jget(meta, "extra-bindings");
        if (cJSON_IsObject(extra)) {
                cJSON *xb = jobj(desc, "extra-bindings");
                const cJSON *e;
                cJSON_ArrayForEach(e, extra) jset(xb, e->string, cJSON_CreateTrue());
        }
        return 0;
}

static int parse_bool(const char *s, bool *ret) {
        if (streq(s, "true") || streq(s, "True") || streq(s, "TRUE"))
                *ret = true;
        else if (streq(s, "false") || streq(s, "False") || streq(s, "FALSE"))
                *ret = false;
        else
                return -EINVAL;
        return 0;
}

static int typed_value(
        const char *type, const char *key, const char *text, cJSON **ret, struct strbuf *err) {
        if (streq(type, "string") || streq(type, "secret")) {
                *ret = cJSON_CreateString(text);
                return 0;
        }
        if (streq(type, "boolean")) {
                bool b;
                if (parse_bool(text, &b) < 0)
                        goto bad;
                *ret = cJSON_CreateBool(b);
                return 0;
        }
        char *end;
        errno = 0;
        if (streq(type, "int")) {
                long long v = strtoll(text, &end, 10);
                if (errno || end == text || *end)
                        goto bad;
                *ret = cJSON_CreateNumber((double) v);
                return 0;
        }
        double d = strtod(text, &end);
        if (errno || end == text || *end || !isfinite(d))
                goto bad;
        *ret = cJSON_CreateNumber(d);
        return 0;
bad:
        strbuf_addf(err, "option \"%s\" expected %s, got \"%s\"", key, type, text);
        return -EINVAL;
}

/* manifest.yaml's bases, judged as a Juju 3.x controller does (bases.h): at least one must be
 * a supported machine base. A charm directory without manifest.yaml (juju-sim's test charms) is
 * taken as it is: a deviation, real Juju 3 deploys packed charms. */
static int check_manifest(const char *dir, const char *name, cJSON *desc, struct strbuf *err) {
        _cleanup_json_ cJSON *man = NULL;
        _cleanup_free_ char *p = xasprintf("%s/manifest.yaml", dir);
        int r = yaml_file_to_json(p, false, &man, err);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        const cJSON *b, *bases = jget(man, "bases");
        if (!cJSON_IsArray(bases) || !bases->child) {
                strbuf_addf(err, "charm \"%s\": manifest.yaml: no bases", name);
                return -EINVAL;
        }
        /* juju-sim's own key (charm-pack writes it): the base the executables were built on */
        const char *built = jstr(man, "built-on");
        if (built)
                jset_str(desc, "built-on", built);
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        cJSON_ArrayForEach(b, bases) {
                const char *os = strempty(jstr(b, "name")), *ch = strempty(jstr(b, "channel"));
                if (why.len)
                        strbuf_addstr(&why, "; ");
                if (juju_base_check(os, ch, &why) == 0) {
                        _cleanup_free_ char *base = xasprintf("%s@%s", os, ch);
                        jset_str(desc, "base", base);
                        return 0;
                }
        }
        strbuf_addf(err, "charm \"%s\": no base Juju 3.x deploys a machine charm on: %s", name, why.buf);
        return -EINVAL;
}

static const char *const option_types[] = { "string", "int", "float", "boolean", "secret" };

int charm_load(const char *dir, cJSON **ret, struct strbuf *err) {
        _cleanup_json_ cJSON *desc = cJSON_CreateObject();
        _cleanup_json_ cJSON *meta = NULL, *config = NULL, *actions = NULL;
        _cleanup_free_ char *p = xasprintf("%s/metadata.yaml", dir);
        int r = yaml_file_to_json(p, true, &meta, err);
        if (r == -ENOENT)
                strbuf_addf(err, "charm \"%s\": no metadata.yaml", dir);
        if (r < 0)
                return r;
        const char *name = jstr(meta, "name");
        if (isempty(name)) {
                strbuf_addf(err, "charm \"%s\": metadata.yaml has no name", dir);
                return -EINVAL;
        }
        jset_str(desc, "name", name);
        /* a subordinate runs beside a principal unit, on its machine, created by a
         * container-scoped relation (subordinates.md) */
        const cJSON *sub = jget(meta, "subordinate");
        bool subordinate = cJSON_IsTrue(sub) || (cJSON_IsString(sub) && streq(sub->valuestring, "true"));
        if (subordinate)
                jset(desc, "subordinate", cJSON_CreateTrue());
        r = load_endpoints(desc, meta, err);
        if (r < 0)
                return r;
        /* Meta.Check: a subordinate needs a container-scoped requires endpoint; the juju- prefix
         * is reserved except for such an endpoint of a subordinate (juju-info) */
        bool container_req = false;
        const cJSON *ep;
        cJSON_ArrayForEach(ep, jget(desc, "endpoints")) {
                bool sub_container_req = subordinate && streq_ptr(jstr(ep, "role"), "requires") &&
                        streq_ptr(jstr(ep, "scope"), "container");
                container_req = container_req || sub_container_req;
                if (startswith(ep->string, "juju-") && !sub_container_req) {
                        strbuf_addf(err, "charm \"%s\" using a reserved relation name: \"%s\"", name, ep->string);
                        return -EINVAL;
                }
        }
        if (subordinate && !container_req) {
                strbuf_addf(err, "subordinate charm \"%s\" lacks \"requires\" relation with container scope", name);
                return -EINVAL;
        }

        free(p);
        p = xasprintf("%s/config.yaml", dir);
        r = yaml_file_to_json(p, true, &config, err);
        if (r < 0 && r != -ENOENT)
                return r;
        cJSON *opts = jobj(desc, "options");
        const cJSON *o;
        cJSON_ArrayForEach(o, jget(config, "options")) {
                const char *type = jstr(o, "type");
                bool ok = false;
                for (size_t i = 0; type && i < ELEMENTSOF(option_types); i++)
                        ok = ok || streq(type, option_types[i]);
                if (!ok) {
                        strbuf_addf(err, "config.yaml: option \"%s\" has bad type \"%s\"", o->string,
                                strempty(type));
                        return -EINVAL;
                }
                cJSON *opt = cJSON_Duplicate(o, true);
                /* A default is typed by the option's type, as Juju reads it. */
                cJSON *def = jget(opt, "default");
                if (def && !cJSON_IsNull(def)) {
                        _cleanup_strbuf_ struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
                        if (cJSON_IsString(def))
                                strbuf_addstr(&text, def->valuestring);
                        else {
                                json_to_yaml(&text, def);
                                strbuf_rtrim(&text);
                        }
                        cJSON *v = NULL;
                        if (typed_value(type, o->string, text.buf, &v, &e) < 0) {
                                cJSON_Delete(opt);
                                strbuf_addf(err, "config.yaml: default: %s", e.buf);
                                return -EINVAL;
                        }
                        jset(opt, "default", v);
                }
                jset(opts, o->string, opt);
        }

        free(p);
        p = xasprintf("%s/actions.yaml", dir);
        r = yaml_file_to_json(p, true, &actions, err);
        if (r < 0 && r != -ENOENT)
                return r;
        cJSON *acts = jobj(desc, "actions");
        const cJSON *a;
        if (cJSON_IsObject(actions))
                cJSON_ArrayForEach(a, actions) jset(acts, a->string, cJSON_Duplicate(a, true));
        if ((r = check_manifest(dir, name, desc, err)) < 0)
                return r;
        *ret = TAKE_PTR(desc);
        return 0;
}

int charm_config_value(
        const cJSON *charm, const char *key, const char *text, cJSON **ret, struct strbuf *err) {
        const cJSON *opt = jget(jget(charm, "options"), key);
        if (!opt) {
                strbuf_addf(err, "unknown option \"%s\"", key);
                return -EINVAL;
        }
        return typed_value(strempty(jstr(opt, "type")), key, text, ret, err);
}

cJSON *charm_config_effective(const cJSON *charm, const cJSON *set, bool all) {
        cJSON *eff = cJSON_CreateObject();
        const cJSON *o;
        cJSON_ArrayForEach(o, jget(charm, "options")) {
                const cJSON *v = jget(set, o->string);
                if (!v)
                        v = jget(o, "default");
                if (v && !cJSON_IsNull(v))
                        jset(eff, o->string, cJSON_Duplicate(v, true));
                else if (all)
                        jset(eff, o->string, cJSON_CreateNull());
        }
        return eff;
}

int charm_action_params(const cJSON *charm, const char *action, const char *params_yaml, char *const *kv,
        bool string_args, cJSON **ret, struct strbuf *err) {
        const cJSON *def = jget(jget(charm, "actions"), action);
        if (!def) {
                strbuf_addf(err, "action \"%s\" not defined", action);
                return -ENOENT;
        }
        _cleanup_json_ cJSON *params = NULL;
        int r = action_params_parse(params_yaml, kv, string_args, &params, err);
        if (r < 0)
                return r;
        return action_params_validate(def, params, ret, err);
}
