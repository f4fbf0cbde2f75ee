/* SPDX-License-Identifier: Apache-2.0 */
/* GPU nodes: the controller's record of device files per node, gres.conf, the slurm.conf stamp,
 * the published coverage, and the compute unit's own device files. See gres.h. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/gres.h"

#include "interfaces/slurmd.h"
#include "slurm/hardware.h"
#include "slurmconf/hostlist.h"
#include "util/fileio.h"

#include "util/banned.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(cJSON *, cJSON_Delete)
#define _cleanup_cjson_ _cleanup_(cJSON_Deletep)

static char *state_path(const struct charm_paths *p, const char *name) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, name);
}

static cJSON *obj(cJSON *st, const char *key) {
        cJSON *o = cJSON_GetObjectItemCaseSensitive(st, key);
        if (!cJSON_IsObject(o)) {
                cJSON_DeleteItemFromObjectCaseSensitive(st, key);
                o = cJSON_AddObjectToObject(st, key);
        }
        return o;
}

int gres_state_load(const struct charm_paths *p, cJSON **ret, struct strbuf *err) {
        _cleanup_free_ char *path = state_path(p, GRES_STATE_FILE), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0 && r != -ENOENT) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        cJSON *st = data ? cJSON_Parse(data) : NULL;
        if (!cJSON_IsObject(st)) {
                /* missing, or broken by hand: rebuilt from the units' next events */
                cJSON_Delete(st);
                st = cJSON_CreateObject();
        }
        obj(st, "nodes");
        obj(st, "refused");
        *ret = st;
        return 0;
}

int gres_state_store(const struct charm_paths *p, const cJSON *st, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR),
                            *path = state_path(p, GRES_STATE_FILE);
        _cleanup_free_ char *text = cJSON_PrintUnformatted(st);
        if (!text)
                return -ENOMEM;
        int r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, text, strlen(text), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

/* Replaces key in o by item (NULL: removes it); 1 when that changed anything. Takes item. */
static int put(cJSON *o, const char *key, cJSON *item) {
        cJSON *old = cJSON_GetObjectItemCaseSensitive(o, key);
        if (!item) {
                if (!old)
                        return 0;
                cJSON_DeleteItemFromObjectCaseSensitive(o, key);
                return 1;
        }
        if (old && cJSON_Compare(old, item, true)) {
                cJSON_Delete(item);
                return 0;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(o, key);
        cJSON_AddItemToObject(o, key, item);
        return 1;
}

int gres_unit_update(cJSON *st, const char *unit, const char *json, bool gone) {
        _cleanup_free_ char *node = charm_node_name(unit);
        _cleanup_strv_ struct strv files = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        cJSON *nodes = obj(st, "nodes"), *refused = obj(st, "refused");
        if (gone)
                return put(nodes, node, NULL) | put(refused, unit, NULL);
        if (gpu_devices_decode(json, &files, &e) < 0) {
                strbuf_addf(&e, ": gres.conf keeps node %s as it was", node);
                return put(refused, unit, cJSON_CreateString(e.buf));
        }
        cJSON *list = NULL;
        if (files.n) {
                list = cJSON_CreateArray();
                for (size_t i = 0; i < files.n; i++)
                        cJSON_AddItemToArray(list, cJSON_CreateString(files.v[i]));
        }
        return put(nodes, node, list) | put(refused, unit, NULL);
}

/* The application of a node or unit name: "<app>-<N>" or "<app>/<N>". */
static bool of_app(const char *name, const char *app) {
        const char *rest = startswith(name, app);
        if (!rest || (*rest != '-' && *rest != '/') || !rest[1])
                return false;
        for (rest++; *rest; rest++)
                if (*rest < '0' || *rest > '9')
                        return false;
        return true;
}

static bool of_any(const char *name, const struct strv *apps) {
        for (size_t i = 0; i < apps->n; i++)
                if (of_app(name, apps->v[i]))
                        return true;
        return false;
}

int gres_prune(cJSON *st, const struct strv *apps) {
        int changed = 0;
        const char *keys[] = { "nodes", "refused" };
        for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                cJSON *o = obj(st, keys[k]), *e = o->child;
                while (e) {
                        cJSON *next = e->next;
                        if (!e->string || !of_any(e->string, apps)) {
                                cJSON_Delete(cJSON_DetachItemViaPointer(o, e));
                                changed = 1;
                        }
                        e = next;
                }
        }
        return changed;
}

void gres_refusals(const cJSON *st, struct strv *out) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(st, "refused")) {
                if (cJSON_IsString(e))
                        strv_pushf(out, "%s: %s", e->string, e->valuestring);
        }
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The node names of the state that satisfy app (NULL: all), sorted. */
static void node_names(const cJSON *st, const char *app, struct strv *out) {
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(st, "nodes")) {
                if (e->string && cJSON_IsArray(e) && (!app || of_app(e->string, app)))
                        strv_push(out, e->string);
        }
        if (out->n > 1)
                qsort(out->v, out->n, sizeof(char *), cmp_str);
}

void gres_render(const cJSON *st, const char *tmpl, struct strbuf *out) {
        _cleanup_strv_ struct strv nodes = STRV_INIT;
        const cJSON *all = cJSON_GetObjectItemCaseSensitive(st, "nodes");
        strbuf_addstr(out, strempty(tmpl));
        if (out->len && out->buf[out->len - 1] != '\n')
                strbuf_addch(out, '\n');
        node_names(st, NULL, &nodes);
        for (size_t i = 0; i < nodes.n; i++) {
                const cJSON *f;
                cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(all, nodes.v[i])) {
                        /* decoded before it was stored; checked again: this goes in a file */
                        if (cJSON_IsString(f) && slurmd_iface_valid_device(f->valuestring))
                                strbuf_addf(
                                        out, "NodeName=%s Name=gpu File=%s\n", nodes.v[i], f->valuestring);
                }
        }
}

char *gres_served_json(const cJSON *st, const char *app) {
        _cleanup_strv_ struct strv nodes = STRV_INIT, keys = STRV_INIT;
        _cleanup_cjson_ cJSON *out = cJSON_CreateObject();
        const cJSON *all = cJSON_GetObjectItemCaseSensitive(st, "nodes");
        node_names(st, app, &nodes);
        /* group the nodes by their file list */
        _cleanup_strv_ struct strv per_node = STRV_INIT;
        for (size_t i = 0; i < nodes.n; i++) {
                _cleanup_strv_ struct strv files = STRV_INIT;
                const cJSON *f;
                cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(all, nodes.v[i])) {
                        if (cJSON_IsString(f))
                                strv_push(&files, f->valuestring);
                }
                strv_push_take(&per_node, strv_join(&files, ","));
                if (!strv_contains(&keys, per_node.v[i]))
                        strv_push(&keys, per_node.v[i]);
        }
        for (size_t k = 0; k < keys.n; k++) {
                _cleanup_strv_ struct strv group = STRV_INIT;
                _cleanup_strbuf_ struct strbuf hl = STRBUF_INIT;
                for (size_t i = 0; i < nodes.n; i++)
                        if (streq(per_node.v[i], keys.v[k]))
                                strv_push(&group, nodes.v[i]);
                if (hostlist_compress(group.v, &hl) < 0)
                        continue; /* node names are <app>-<N>: always compressible */
                cJSON_AddStringToObject(out, keys.v[k], hl.buf);
        }
        char *s = cJSON_PrintUnformatted(out);
        return s ? s : xstrdup("{}");
}

int gres_local_devices(const struct charm_paths *p, struct strv *ret, struct strbuf *err) {
        _cleanup_free_ char *path = state_path(p, "gpu-devices"), *data = NULL, *dev = charm_path(p, "/dev");
        _cleanup_strv_ struct strv files = STRV_INIT;
        int r = read_full_file(path, &data, NULL);
        if (r >= 0) {
                char *save = NULL;
                for (char *w = strtok_r(data, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
                        strv_push(ret, w);
                return 0;
        }
        if (r != -ENOENT) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        r = slurm_detect_gpu_files(dev, &files, err);
        if (r < 0)
                return r;
        /* the record holds the machine's own paths (tests redirect the root) */
        _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
        for (size_t i = 0; i < files.n; i++) {
                const char *f = files.v[i] + strlen(dev) - strlen("/dev");
                strbuf_addf(&line, "%s%s", i ? " " : "", f);
                strv_push(ret, f);
        }
        strbuf_addch(&line, '\n');
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, line.buf, line.len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r < 0 ? r : 0;
}
