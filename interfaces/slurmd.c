/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmd interface: encode and decode both sides' application databags, validating
 * everything the other side sent. */
#include "util/macro.h"
#include "util/alloc.h"
#include "slurmd.h"

#include <ctype.h>
#include <cjson/cJSON.h>

#include "slurmconf/hostlist.h"
#include "slurmconf/pathkeys.h"

#include "util/banned.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(cJSON *, cJSON_Delete)
#define _cleanup_cjson_ _cleanup_(cJSON_Deletep)

bool slurmd_iface_valid_app_name(const char *name) {
        /* Juju's application name grammar (juju/names: [a-z][a-z0-9]*(-[a-z0-9]*[a-z][a-z0-9]*)*):
         * every part after a hyphen holds a letter, so no application name can end in "-<N>",
         * and none equals a node name "<app>-<unit number>" (charm_node_name()) */
        size_t n = name ? strlen(name) : 0;
        bool letter = true;
        if (n == 0 || n > SLURMD_IFACE_MAX_APP_NAME || !islower((unsigned char) name[0]))
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = name[i];
                if (c == '-') {
                        if (!letter)
                                return false;
                        letter = false;
                } else if (islower((unsigned char) c))
                        letter = true;
                else if (!isdigit((unsigned char) c))
                        return false;
        }
        return letter;
}

const char *slurmd_iface_reserved_name(const char *name) {
        static const struct {
                const char *name, *why;
        } reserved[] = {
                { "all", "Nodes=ALL means every node of the cluster" },
                { "default", "PartitionName=DEFAULT and NodeSet=DEFAULT set defaults" },
        };
        for (size_t i = 0; name && i < ELEMENTSOF(reserved); i++)
                if (strcaseeq(name, reserved[i].name))
                        return reserved[i].why;
        return NULL;
}

bool slurmd_iface_usable_app_name(const char *name) {
        return slurmd_iface_valid_app_name(name) && !slurmd_iface_reserved_name(name);
}

static bool valid_hostname(const char *h, size_t n) {
        if (n == 0 || n > 253)
                return false;
        size_t label = 0;
        for (size_t i = 0; i < n; i++) {
                char c = h[i];
                if (c == '.') {
                        if (label == 0 || h[i - 1] == '-')
                                return false;
                        label = 0;
                        continue;
                }
                if (!isalnum((unsigned char) c) && c != '-')
                        return false;
                if (c == '-' && label == 0)
                        return false;
                if (++label > 63)
                        return false;
        }
        return label > 0 && h[n - 1] != '-';
}

bool slurmd_iface_valid_host(const char *s) {
        return s && valid_hostname(s, strlen(s));
}

bool slurmd_iface_valid_cluster_name(const char *s) {
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n > 40 || !(s[0] >= 'a' && s[0] <= 'z'))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
                            s[i] == '-'))
                        return false;
        return true;
}

bool slurmd_iface_valid_controller(const char *s) {
        const char *colon = s ? strrchr(s, ':') : NULL;
        if (!colon || !valid_hostname(s, (size_t) (colon - s)))
                return false;
        const char *p = colon + 1;
        if (!*p || strlen(p) > 5)
                return false;
        unsigned long port = 0;
        for (; *p; p++) {
                if (!isdigit((unsigned char) *p))
                        return false;
                port = port * 10 + (unsigned long) (*p - '0');
        }
        return port >= 1 && port <= 65535;
}

bool slurmd_iface_valid_secret_id(const char *s) {
        if (!s || !startswith(s, "secret:") || strlen(s) > 256 || strlen(s) <= strlen("secret:"))
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr(":/._-", *p))
                        return false;
        return true;
}

static void quote_for_display(struct strbuf *err, const char *s) {
        /* user text in messages: printable ASCII only, cut to 40 bytes */
        size_t i;
        strbuf_addch(err, '"');
        for (i = 0; s[i] && i < 40; i++)
                strbuf_addch(err, isprint((unsigned char) s[i]) ? s[i] : '?');
        if (s[i])
                strbuf_addstr(err, "…");
        strbuf_addch(err, '"');
}

int compute_data_encode(
        const char *app, const struct slurm_options *params, char **ret_partition, char **ret_nodeset) {
        if (!slurmd_iface_usable_app_name(app))
                return -EINVAL;
        if (slurm_options_get(params, "PartitionName") || slurm_options_get(params, "Nodes"))
                return -EINVAL;

        _cleanup_cjson_ cJSON *part = cJSON_CreateObject();
        _cleanup_cjson_ cJSON *ns = cJSON_CreateObject();
        if (!part || !ns)
                return -ENOMEM;
        cJSON_AddStringToObject(part, "PartitionName", app);
        cJSON_AddStringToObject(part, "Nodes", app);
        for (size_t i = 0; i < params->n; i++)
                cJSON_AddStringToObject(part, params->items[i].key, params->items[i].value);
        cJSON_AddStringToObject(ns, "NodeSet", app);
        cJSON_AddStringToObject(ns, "Feature", app);

        char *p = cJSON_PrintUnformatted(part);
        char *n = cJSON_PrintUnformatted(ns);
        if (!p || !n) {
                free(p);
                free(n);
                return -ENOMEM;
        }
        *ret_partition = p;
        *ret_nodeset = n;
        return 0;
}

/* Parses a JSON value published by the other side: present, bounded, well-formed. */
static int parse_field(const char *field, const char *json, int type, cJSON **ret, struct strbuf *err) {
        if (isempty(json))
                return -ENODATA;
        if (strlen(json) > SLURMD_IFACE_MAX_VALUE) {
                strbuf_addf(err, "relation data: %s larger than %d bytes", field, SLURMD_IFACE_MAX_VALUE);
                return -EINVAL;
        }
        /* cJSON would cut a string at an escaped NUL without saying so */
        if (strstr(json, "\\u0000")) {
                strbuf_addf(err, "relation data: %s holds a NUL character", field);
                return -EINVAL;
        }
        cJSON *v = cJSON_ParseWithOpts(json, NULL, true);
        if (!v) {
                strbuf_addf(err, "relation data: %s is not valid JSON", field);
                return -EINVAL;
        }
        if ((v->type & 0xff) != type) {
                cJSON_Delete(v);
                strbuf_addf(err, "relation data: %s is not a JSON %s", field,
                        type == cJSON_Object ? "object" : "list");
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

static int check_name_field(
        const cJSON *obj, const char *field, const char *key, const char *want, struct strbuf *err) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
        if (!cJSON_IsString(v)) {
                strbuf_addf(err, "relation data: %s has no %s", field, key);
                return -EINVAL;
        }
        if (!streq(v->valuestring, want)) {
                strbuf_addf(err, "relation data: %s %s ", field, key);
                quote_for_display(err, v->valuestring);
                strbuf_addf(err, " is not the application name \"%s\"", want);
                return -EINVAL;
        }
        return 0;
}

int compute_data_decode(const char *remote_app, const char *partition_json, const char *nodeset_json,
        struct compute_data *ret, struct strbuf *err) {
        _cleanup_cjson_ cJSON *part = NULL, *ns = NULL;
        _cleanup_strbuf_ struct strbuf opts = STRBUF_INIT;
        struct slurm_options params = SLURM_OPTIONS_INIT;
        int r;

        if (!slurmd_iface_valid_app_name(remote_app)) {
                strbuf_addstr(err, "relation data: remote application name ");
                quote_for_display(err, strempty(remote_app));
                strbuf_addstr(err, " is not usable as a partition name");
                return -EINVAL;
        }
        if (slurmd_iface_reserved_name(remote_app)) {
                strbuf_addf(err, "application name \"%s\" is a Slurm keyword (%s)", remote_app,
                        slurmd_iface_reserved_name(remote_app));
                return -EINVAL;
        }
        /* Missing fields first: an incomplete bag means "not yet", whatever else is there. */
        if (isempty(partition_json) || isempty(nodeset_json))
                return -ENODATA;
        r = parse_field("partition", partition_json, cJSON_Object, &part, err);
        if (r < 0)
                return r;
        r = parse_field("nodeset", nodeset_json, cJSON_Object, &ns, err);
        if (r < 0)
                return r;

        r = check_name_field(part, "partition", "PartitionName", remote_app, err);
        if (r < 0)
                return r;
        r = check_name_field(part, "partition", "Nodes", remote_app, err);
        if (r < 0)
                return r;
        r = check_name_field(ns, "nodeset", "NodeSet", remote_app, err);
        if (r < 0)
                return r;
        r = check_name_field(ns, "nodeset", "Feature", remote_app, err);
        if (r < 0)
                return r;
        if (cJSON_GetArraySize(ns) != 2) {
                strbuf_addstr(err, "relation data: nodeset has keys other than NodeSet and Feature");
                return -EINVAL;
        }

        /* The other keys are partition parameters: run them through the one option parser, so
         * that relation data obeys exactly the rules of partition-config. */
        const cJSON *item;
        cJSON_ArrayForEach(item, part) {
                if (streq(item->string, "PartitionName") || streq(item->string, "Nodes"))
                        continue;
                if (!cJSON_IsString(item)) {
                        strbuf_addstr(err, "relation data: partition key ");
                        quote_for_display(err, item->string);
                        strbuf_addstr(err, " is not a string");
                        return -EINVAL;
                }
                if (opts.len)
                        strbuf_addch(&opts, ' ');
                bool quote = strchr(item->valuestring, ' ') != NULL;
                strbuf_addf(&opts, quote ? "%s=\"%s\"" : "%s=%s", item->string, item->valuestring);
        }
        _cleanup_strbuf_ struct strbuf perr = STRBUF_INIT;
        r = slurm_options_parse(opts.buf, SLURM_OPTIONS_PARTITION, &params, &perr);
        if (r < 0) {
                strbuf_addf(err, "relation data: partition: %s", perr.buf);
                return -EINVAL;
        }

        compute_data_clear(ret);
        ret->name = xstrdup(remote_app);
        ret->partition = params;
        return 0;
}

void compute_data_clear(struct compute_data *d) {
        free(d->name);
        d->name = NULL;
        slurm_options_clear(&d->partition);
}

int controllers_encode(char *const *controllers, char **ret) {
        size_t n = strv_length(controllers);
        if (n == 0 || n > SLURMD_IFACE_MAX_CONTROLLERS)
                return -EINVAL;
        _cleanup_cjson_ cJSON *list = cJSON_CreateArray();
        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (!slurmd_iface_valid_controller(controllers[i]))
                        return -EINVAL;
                cJSON_AddItemToArray(list, cJSON_CreateString(controllers[i]));
        }
        char *s = cJSON_PrintUnformatted(list);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int hostport_list_decode(const char *field, const char *what, const char *json, size_t max, struct strv *ret,
        struct strbuf *err) {
        _cleanup_cjson_ cJSON *list = NULL;
        _cleanup_strv_ struct strv l = STRV_INIT;
        int r = parse_field(field, json, cJSON_Array, &list, err);
        if (r < 0)
                return r;
        int n = cJSON_GetArraySize(list);
        if (n == 0) {
                strbuf_addf(err, "relation data: %s is empty", field);
                return -EINVAL;
        }
        if ((size_t) n > max) {
                strbuf_addf(err, "relation data: more than %zu %ss", max, what);
                return -EINVAL;
        }
        const cJSON *item;
        cJSON_ArrayForEach(item, list) {
                if (!cJSON_IsString(item) || !slurmd_iface_valid_controller(item->valuestring)) {
                        strbuf_addf(err, "relation data: %s ", what);
                        if (cJSON_IsString(item))
                                quote_for_display(err, item->valuestring);
                        else
                                strbuf_addstr(err, "entry");
                        strbuf_addstr(err, " is not host:port");
                        return -EINVAL;
                }
                if (strv_contains(&l, item->valuestring)) {
                        strbuf_addf(err, "relation data: %s ", what);
                        quote_for_display(err, item->valuestring);
                        strbuf_addstr(err, " listed twice");
                        return -EINVAL;
                }
                strv_push(&l, item->valuestring);
        }
        strv_clear(ret);
        *ret = l;
        l = (struct strv) STRV_INIT;
        return 0;
}

bool slurmd_iface_check_secret_id(const char *field, const char *id, struct strbuf *err) {
        if (slurmd_iface_valid_secret_id(id))
                return true;
        strbuf_addf(err, "relation data: %s ", field);
        quote_for_display(err, id);
        strbuf_addstr(err, " is not a secret id");
        return false;
}

int controller_data_decode(const char *auth_key_id, const char *controllers_json,
        struct controller_data *ret, struct strbuf *err) {
        _cleanup_strv_ struct strv ctls = STRV_INIT;
        int r;

        if (isempty(auth_key_id) || isempty(controllers_json))
                return -ENODATA;
        if (!slurmd_iface_check_secret_id("auth_key_id", auth_key_id, err))
                return -EINVAL;
        r = hostport_list_decode(
                "controllers", "controller", controllers_json, SLURMD_IFACE_MAX_CONTROLLERS, &ctls, err);
        if (r < 0)
                return r;

        controller_data_clear(ret);
        ret->auth_key_id = xstrdup(auth_key_id);
        ret->controllers = ctls;
        ctls = (struct strv) STRV_INIT;
        return 0;
}

void controller_data_clear(struct controller_data *d) {
        free(d->auth_key_id);
        d->auth_key_id = NULL;
        strv_clear(&d->controllers);
}

/* --- GPUs -------------------------------------------------------------------------------------------- */

bool slurmd_iface_valid_device(const char *s) {
        size_t n = s ? strlen(s) : 0;
        if (!startswith(strempty(s), "/dev/") || n <= 5 || n > SLURMD_IFACE_MAX_DEVICE_PATH)
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr("._/-", *p))
                        return false;
        /* every component after /dev: not empty, not "." or ".." */
        for (const char *c = s + 5; *c;) {
                size_t len = strcspn(c, "/");
                if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c += len;
                if (*c == '/' && !*++c)
                        return false; /* trailing "/" */
        }
        return true;
}

int gpu_devices_encode(char *const *files, char **ret) {
        size_t n = strv_length(files);
        if (n > SLURMD_IFACE_MAX_GPUS)
                return -EINVAL;
        _cleanup_cjson_ cJSON *list = cJSON_CreateArray();
        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (!slurmd_iface_valid_device(files[i]))
                        return -EINVAL;
                for (size_t j = 0; j < i; j++)
                        if (streq(files[i], files[j]))
                                return -EINVAL;
                cJSON_AddItemToArray(list, cJSON_CreateString(files[i]));
        }
        char *s = cJSON_PrintUnformatted(list);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int gpu_devices_decode(const char *json, struct strv *ret, struct strbuf *err) {
        _cleanup_cjson_ cJSON *list = NULL;
        _cleanup_strv_ struct strv out = STRV_INIT;
        const cJSON *v;
        if (isempty(json))
                return 0;
        if (strlen(json) > SLURMD_IFACE_MAX_VALUE) {
                strbuf_addstr(err, "gpu-devices: too long");
                return -EINVAL;
        }
        list = cJSON_Parse(json);
        if (!cJSON_IsArray(list)) {
                strbuf_addstr(err, "gpu-devices: not a JSON list");
                return -EINVAL;
        }
        if (cJSON_GetArraySize(list) > SLURMD_IFACE_MAX_GPUS) {
                strbuf_addf(err, "gpu-devices: more than %d devices", SLURMD_IFACE_MAX_GPUS);
                return -EINVAL;
        }
        cJSON_ArrayForEach(v, list) {
                if (!cJSON_IsString(v) || !slurmd_iface_valid_device(v->valuestring)) {
                        strbuf_addstr(err, "gpu-devices: ");
                        if (cJSON_IsString(v))
                                quote_for_display(err, v->valuestring);
                        else
                                strbuf_addstr(err, "an item");
                        strbuf_addstr(err, " is not a device file path under /dev");
                        return -EINVAL;
                }
                if (strv_contains(&out, v->valuestring)) {
                        strbuf_addstr(err, "gpu-devices: ");
                        quote_for_display(err, v->valuestring);
                        strbuf_addstr(err, " listed twice");
                        return -EINVAL;
                }
                strv_push(&out, v->valuestring);
        }
        for (size_t i = 0; i < out.n; i++)
                strv_push(ret, out.v[i]);
        return 0;
}

int gres_served_covers(const char *json, const char *node, char *const *files, struct strbuf *err) {
        _cleanup_cjson_ cJSON *obj = NULL;
        _cleanup_strv_ struct strv mine = STRV_INIT;
        const cJSON *v;
        if (isempty(json))
                return 0;
        if (strlen(json) > SLURMD_IFACE_MAX_VALUE || !cJSON_IsObject(obj = cJSON_Parse(json))) {
                strbuf_addstr(err, "relation data: gres is not a JSON object");
                return -EINVAL;
        }
        strv_pushv(&mine, files);
        _cleanup_free_ char *key = strv_join(&mine, ",");
        cJSON_ArrayForEach(v, obj) {
                _cleanup_strv_ struct strv nodes = STRV_INIT;
                if (!cJSON_IsString(v) || hostlist_expand(v->valuestring, 100000, &nodes) < 0) {
                        strbuf_addstr(err, "relation data: gres holds a value that is not a hostlist");
                        return -EINVAL;
                }
                if (strv_contains(&nodes, node))
                        return streq(v->string, key);
        }
        return 0;
}

/* --- the Slurm generation ------------------------------------------------------------------------ */

/* "N.N.N", each part 1 to 6 digits */
static bool valid_version(const char *s) {
        if (isempty(s) || strlen(s) > SLURMD_IFACE_MAX_VERSION)
                return false;
        int parts = 0;
        for (const char *p = s; *p;) {
                size_t n = strspn(p, "0123456789");
                if (n == 0 || n > 6)
                        return false;
                parts++;
                p += n;
                if (*p == '.' && p[1])
                        p++;
                else if (*p)
                        return false;
        }
        return parts == 3;
}

static bool valid_auth(const char *s) {
        if (!startswith(strempty(s), "auth/") || strlen(s) <= 5 || strlen(s) > 32)
                return false;
        for (const char *p = s + 5; *p; p++)
                if (*p < 'a' || *p > 'z')
                        return false;
        return true;
}

int slurm_generation_encode(const char *version, const char *auth, char **ret) {
        if (!valid_version(version) || !valid_auth(auth))
                return -EINVAL;
        _cleanup_cjson_ cJSON *o = cJSON_CreateObject();
        if (!o)
                return -ENOMEM;
        cJSON_AddStringToObject(o, "version", version);
        cJSON_AddStringToObject(o, "auth", auth);
        char *s = cJSON_PrintUnformatted(o);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int slurm_generation_decode(const char *json, struct slurm_generation *ret, struct strbuf *err) {
        _cleanup_cjson_ cJSON *o = NULL;
        int r = parse_field("slurm", json, cJSON_Object, &o, err);
        if (r < 0)
                return r;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "version");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "auth");
        if (!cJSON_IsString(v) || !valid_version(v->valuestring)) {
                strbuf_addstr(err, "relation data: slurm has no version of the form 24.11.5");
                if (cJSON_IsString(v)) {
                        strbuf_addstr(err, " (");
                        quote_for_display(err, v->valuestring);
                        strbuf_addch(err, ')');
                }
                return -EINVAL;
        }
        if (!cJSON_IsString(a) || !valid_auth(a->valuestring)) {
                strbuf_addstr(err, "relation data: slurm has no auth of the form auth/<name>");
                if (cJSON_IsString(a)) {
                        strbuf_addstr(err, " (");
                        quote_for_display(err, a->valuestring);
                        strbuf_addch(err, ')');
                }
                return -EINVAL;
        }
        slurm_generation_clear(ret);
        ret->version = xstrdup(v->valuestring);
        ret->auth = xstrdup(a->valuestring);
        return 0;
}

void slurm_generation_clear(struct slurm_generation *g) {
        free(g->version);
        free(g->auth);
        g->version = g->auth = NULL;
}

/* --- the programs slurmd runs (issue 26 item 1) ------------------------------------------------ */

const char *slurmd_iface_node_prog_key(const char *key) {
        if (isempty(key))
                return NULL;
        if (strcaseeq(key, "SlurmdUser"))
                return "SlurmdUser";
        const struct slurmconf_path_key *k = slurmconf_path_key(key);
        return k && k->host == SLURMCONF_PATH_NODE ? k->key : NULL;
}

static bool prog_value_ok(const char *v) {
        size_t n = v ? strlen(v) : 0;
        if (n == 0 || n > SLURMD_IFACE_MAX_PROG_VALUE)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isgraph((unsigned char) v[i]))
                        return false;
        return true;
}

static int cmp_option_key(const void *a, const void *b) {
        const struct slurm_option *x = *(const struct slurm_option *const *) a,
                                  *y = *(const struct slurm_option *const *) b;
        return strcmp(x->key, y->key);
}

/* A SET as a JSON object, keys sorted (NULL: a key or value it may not hold, or no memory). */
static cJSON *set_to_json(const struct slurm_options *s) {
        _cleanup_free_ const struct slurm_option **v = xcalloc(s->n + 1, sizeof *v);
        for (size_t i = 0; i < s->n; i++) {
                if (!streq_ptr(slurmd_iface_node_prog_key(s->items[i].key), s->items[i].key) ||
                        !prog_value_ok(s->items[i].value))
                        return NULL;
                v[i] = &s->items[i];
        }
        qsort(v, s->n, sizeof *v, cmp_option_key);
        cJSON *o = cJSON_CreateObject();
        for (size_t i = 0; o && i < s->n; i++) {
                if (i > 0 && streq(v[i]->key, v[i - 1]->key)) {
                        cJSON_Delete(o);
                        return NULL;
                }
                cJSON_AddItemToObject(o, v[i]->key, cJSON_CreateString(v[i]->value));
        }
        return o;
}

/* A SET from JSON (what names it in messages): -EINVAL with one message, ret untouched. */
static int set_from_json(const char *what, const cJSON *o, struct slurm_options *ret, struct strbuf *err) {
        _cleanup_(slurm_options_clearp) struct slurm_options s = SLURM_OPTIONS_INIT;
        const cJSON *v;
        if (!cJSON_IsObject(o)) {
                strbuf_addf(err, "%s: not a JSON object", what);
                return -EINVAL;
        }
        cJSON_ArrayForEach(v, o) {
                const char *key = slurmd_iface_node_prog_key(v->string);
                if (!key || !streq(key, v->string)) {
                        strbuf_addf(err, "%s: ", what);
                        quote_for_display(err, strempty(v->string));
                        strbuf_addstr(err, " is not a slurmd program or file key");
                        return -EINVAL;
                }
                if (!cJSON_IsString(v) || !prog_value_ok(v->valuestring)) {
                        strbuf_addf(err, "%s: the value of %s is not a path", what, key);
                        return -EINVAL;
                }
                if (slurm_options_get(&s, key)) {
                        strbuf_addf(err, "%s: %s given twice", what, key);
                        return -EINVAL;
                }
                slurm_options_set(&s, key, v->valuestring);
        }
        slurm_options_clear(ret);
        *ret = s;
        s = (struct slurm_options) SLURM_OPTIONS_INIT;
        return 0;
}

static int print_json(cJSON *o, char **ret) {
        char *s = o ? cJSON_PrintUnformatted(o) : NULL;
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int node_progs_encode(const struct slurm_options *want, const struct slurm_options *live, char **ret) {
        _cleanup_cjson_ cJSON *o = cJSON_CreateObject();
        cJSON *w = set_to_json(want), *l = set_to_json(live);
        if (!w || !l) {
                cJSON_Delete(w);
                cJSON_Delete(l);
                return -EINVAL;
        }
        cJSON_AddItemToObject(o, "live", l);
        cJSON_AddItemToObject(o, "want", w);
        return print_json(o, ret);
}

/* The object of a databag value: -ENODATA empty, -EINVAL not one (message). */
static int parse_object(const char *field, const char *json, cJSON **ret, struct strbuf *err) {
        if (isempty(json))
                return -ENODATA;
        if (strlen(json) > SLURMD_IFACE_MAX_VALUE) {
                strbuf_addf(err, "%s: too long", field);
                return -EINVAL;
        }
        cJSON *o = cJSON_ParseWithOpts(json, NULL, true);
        if (!cJSON_IsObject(o)) {
                cJSON_Delete(o);
                strbuf_addf(err, "%s: not a JSON object", field);
                return -EINVAL;
        }
        *ret = o;
        return 0;
}

int node_progs_decode(const char *json, struct slurm_options *want, struct slurm_options *live, struct strbuf *err) {
        _cleanup_cjson_ cJSON *o = NULL;
        _cleanup_(slurm_options_clearp) struct slurm_options w = SLURM_OPTIONS_INIT, l = SLURM_OPTIONS_INIT;
        int r = parse_object(SLURMD_IFACE_NODE_PROGS_KEY, json, &o, err);
        if (r < 0)
                return r;
        r = set_from_json(SLURMD_IFACE_NODE_PROGS_KEY ".want", cJSON_GetObjectItemCaseSensitive(o, "want"), &w, err);
        if (r >= 0)
                r = set_from_json(
                        SLURMD_IFACE_NODE_PROGS_KEY ".live", cJSON_GetObjectItemCaseSensitive(o, "live"), &l, err);
        if (r < 0)
                return r;
        slurm_options_clear(want);
        slurm_options_clear(live);
        *want = w;
        *live = l;
        w = l = (struct slurm_options) SLURM_OPTIONS_INIT;
        return 0;
}

int node_progs_set_encode(const struct slurm_options *set, char **ret) {
        _cleanup_cjson_ cJSON *o = set_to_json(set);
        if (!o)
                return -EINVAL;
        return print_json(o, ret);
}

int node_progs_set_decode(const char *json, struct slurm_options *ret, struct strbuf *err) {
        _cleanup_cjson_ cJSON *o = NULL;
        int r = parse_object(SLURMD_IFACE_NODE_RELEASED_KEY, json, &o, err);
        if (r < 0)
                return r;
        return set_from_json(SLURMD_IFACE_NODE_RELEASED_KEY, o, ret, err);
}

int node_verdict_encode(const struct slurm_options *judged, const char *why, char **ret) {
        _cleanup_cjson_ cJSON *o = cJSON_CreateObject();
        cJSON *j = set_to_json(judged);
        if (!j)
                return -EINVAL;
        cJSON_AddItemToObject(o, "judged", j);
        _cleanup_free_ char *w = xstrndup(strempty(why), SLURMD_IFACE_MAX_VERDICT_WHY);
        cJSON_AddItemToObject(o, "why", cJSON_CreateString(w));
        return print_json(o, ret);
}

int node_verdict_decode(const char *json, struct slurm_options *judged, char **why, struct strbuf *err) {
        _cleanup_cjson_ cJSON *o = NULL;
        _cleanup_(slurm_options_clearp) struct slurm_options j = SLURM_OPTIONS_INIT;
        int r = parse_object(SLURMD_IFACE_NODE_VERDICT_KEY, json, &o, err);
        if (r < 0)
                return r;
        r = set_from_json(SLURMD_IFACE_NODE_VERDICT_KEY ".judged", cJSON_GetObjectItemCaseSensitive(o, "judged"), &j,
                err);
        if (r < 0)
                return r;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "why");
        bool bad = w && (!cJSON_IsString(w) || strlen(w->valuestring) > SLURMD_IFACE_MAX_VERDICT_WHY);
        for (const char *c = !bad && w ? w->valuestring : ""; *c && !bad; c++)
                bad = iscntrl((unsigned char) *c);
        if (bad) {
                strbuf_addstr(err, SLURMD_IFACE_NODE_VERDICT_KEY ".why: not a short line of text");
                return -EINVAL;
        }
        slurm_options_clear(judged);
        *judged = j;
        j = (struct slurm_options) SLURM_OPTIONS_INIT;
        *why = xstrdup(w ? w->valuestring : "");
        return 0;
}

/* --- node resources (issue 30 §4) ------------------------------------------------------------- */

static bool node_resources_ok(const struct node_resources *r) {
        return r->cpus >= 1 && r->real_memory >= 1 && r->real_memory <= SLURMD_IFACE_MAX_MEMORY_MB &&
                r->mem_spec_limit < r->real_memory;
}

int node_resources_encode(const struct node_resources *r, char **ret) {
        if (!node_resources_ok(r))
                return -EINVAL;
        *ret = xasprintf("{\"cpus\":%u,\"real-memory\":%llu,\"mem-spec-limit\":%llu}", (unsigned) r->cpus,
                (unsigned long long) r->real_memory, (unsigned long long) r->mem_spec_limit);
        return 0;
}

/* A whole number in [lo, hi] (JSON numbers are doubles: exact below 2^53). */
static bool json_count(const cJSON *v, double lo, double hi, uint64_t *ret) {
        if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi ||
                v->valuedouble != (double) (uint64_t) v->valuedouble)
                return false;
        *ret = (uint64_t) v->valuedouble;
        return true;
}

int node_resources_decode(const char *json, struct node_resources *ret, struct strbuf *err) {
        _cleanup_cjson_ cJSON *o = NULL;
        const cJSON *v;
        uint64_t cpus = 0, mem = 0, spec = 0;
        if (isempty(json))
                return -ENODATA;
        if (strlen(json) > SLURMD_IFACE_MAX_VALUE) {
                strbuf_addstr(err, SLURMD_UNIT_RESOURCES_KEY ": too long");
                return -EINVAL;
        }
        o = cJSON_Parse(json);
        if (!cJSON_IsObject(o)) {
                strbuf_addstr(err, SLURMD_UNIT_RESOURCES_KEY ": not a JSON object");
                return -EINVAL;
        }
        cJSON_ArrayForEach(v, o) {
                bool ok;
                if (streq(v->string, "cpus"))
                        ok = json_count(v, 1, UINT16_MAX, &cpus);
                else if (streq(v->string, "real-memory"))
                        ok = json_count(v, 1, (double) SLURMD_IFACE_MAX_MEMORY_MB, &mem);
                else if (streq(v->string, "mem-spec-limit"))
                        ok = json_count(v, 0, (double) SLURMD_IFACE_MAX_MEMORY_MB, &spec);
                else {
                        strbuf_addstr(err, SLURMD_UNIT_RESOURCES_KEY ": unknown key ");
                        quote_for_display(err, v->string);
                        return -EINVAL;
                }
                if (!ok) {
                        strbuf_addf(err, SLURMD_UNIT_RESOURCES_KEY ": %s is not a whole number in range", v->string);
                        return -EINVAL;
                }
        }
        if (!cpus || !mem) {
                strbuf_addstr(err, SLURMD_UNIT_RESOURCES_KEY ": cpus and real-memory are required");
                return -EINVAL;
        }
        if (spec >= mem) {
                strbuf_addstr(err, SLURMD_UNIT_RESOURCES_KEY ": mem-spec-limit is not below real-memory");
                return -EINVAL;
        }
        *ret = (struct node_resources){ .cpus = (uint16_t) cpus, .real_memory = mem, .mem_spec_limit = spec };
        return 0;
}
