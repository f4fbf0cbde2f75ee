/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's metrics endpoint: option, exporter service, prometheus_scrape relation
 * (charm/slurmctld/metricsep.h). */
#include "util/macro.h"
#include "charm/slurmctld/metricsep.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "charm/common/watcher.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/strv.h"

#include "util/banned.h"

int metricsep_port_check(int64_t v, struct strbuf *err) {
        if (v == 0)
                return 0;
        if (v < 1024 || v > 65535) {
                strbuf_addf(err, "%lld is not a port from 1024 to 65535 (the exporter is not root), or 0 to turn it off",
                        (long long) v);
                return -EINVAL;
        }
        static const struct {
                int port;
                const char *who;
        } slurm_ports[] = {
                { 6817, "slurmctld's" }, { 6818, "slurmd's" }, { 6819, "slurmdbd's" }, { 6820, "slurmrestd's" },
        };
        for (size_t i = 0; i < ELEMENTSOF(slurm_ports); i++)
                if (v == slurm_ports[i].port) {
                        strbuf_addf(err, "%lld is %s port", (long long) v, slurm_ports[i].who);
                        return -EINVAL;
                }
        return 0;
}

int metricsep_config(struct juju_ctx *ctx, unsigned *ret, struct strbuf *err) {
        const cJSON *cfg = NULL;
        int r = juju_config(ctx, &cfg, err);
        if (r < 0)
                return r;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, METRICSEP_CONFIG_KEY);
        int64_t port = METRICSEP_PORT_DEFAULT;
        if (v) {
                if (!cJSON_IsNumber(v) || v->valuedouble != (double) (int64_t) v->valuedouble) {
                        strbuf_addstr(err, METRICSEP_CONFIG_KEY ": not a whole number");
                        return -EINVAL;
                }
                port = (int64_t) v->valuedouble;
        }
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (metricsep_port_check(port, &e) < 0) {
                strbuf_addf(err, METRICSEP_CONFIG_KEY ": %s", e.buf);
                return -EINVAL;
        }
        *ret = (unsigned) port;
        return 0;
}

char *metricsep_port_path(const struct charm_paths *paths) {
        return charm_path(paths, CHARM_PATH_STATE_DIR "/" METRICSEP_PORT_FILE);
}

int metricsep_port_read(const char *file, unsigned *ret) {
        _cleanup_free_ char *text = NULL;
        unsigned long v = 0;
        int r = read_full_file(file, &text, NULL);
        if (r == -ENOENT) {
                *ret = 0;
                return 0;
        }
        if (r < 0)
                return r;
        text[strcspn(text, "\n")] = '\0';
        if (!parse_ulong(text, 65535, &v))
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

static const struct watcher_daemon exporter_daemon = {
        .unit = METRICSEP_UNIT,
        .template = METRICSEP_TEMPLATE,
        .exe = METRICSEP_EXE,
};

int metricsep_apply(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit, const char *charm_dir,
        unsigned port, bool restart, struct strbuf *err) {
        _cleanup_free_ char *file = metricsep_port_path(paths);
        _cleanup_free_ char *text = port ? xasprintf("%u\n", port) : NULL;
        return watcher_daemon_with_file(paths, bus, &exporter_daemon, file, text, 0644, juju_unit, charm_dir, restart, err);
}

void metricsep_scrape_jobs(unsigned port, struct strbuf *out) {
        if (!port) {
                strbuf_addstr(out, "[]");
                return;
        }
        strbuf_addf(out, "[{\"metrics_path\": \"" METRICSEP_PATH "\", \"static_configs\": [{\"targets\": [\"*:%u\"]}]}]",
                port);
}

static void add_json(struct strbuf *out, cJSON *j) {
        char *s = cJSON_PrintUnformatted(j);
        if (!s)
                abort();
        strbuf_addstr(out, s);
        cJSON_free(s);
}

void metricsep_scrape_metadata(const struct juju_env *env, const char *charm_name, struct strbuf *out) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "model", strempty(env->model_name));
        cJSON_AddStringToObject(j, "model_uuid", strempty(env->model_uuid));
        cJSON_AddStringToObject(j, "application", strempty(env->app));
        cJSON_AddStringToObject(j, "unit", strempty(env->unit));
        cJSON_AddStringToObject(j, "charm_name", strempty(charm_name));
        add_json(out, j);
        cJSON_Delete(j);
}

/* "%%juju_topology%%" and a "," right after it removed. */
static char *expr_untopology(const char *expr) {
        static const char mark[] = "%%juju_topology%%";
        struct strbuf sb = STRBUF_INIT;
        const char *p = expr, *q;
        while ((q = strstr(p, mark))) {
                strbuf_add(&sb, p, (size_t) (q - p));
                p = q + strlen(mark);
                if (*p == ',')
                        p++;
        }
        strbuf_addstr(&sb, p);
        return strbuf_detach(&sb, NULL);
}

static bool is_string_member(const cJSON *o, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        return cJSON_IsString(v) && !isempty(v->valuestring);
}

int metricsep_alert_rules(const char *rules_json, const struct juju_env *env, const char *charm_name,
        struct strbuf *out, struct strbuf *err) {
        cJSON *root = cJSON_Parse(rules_json);
        cJSON *groups = root ? cJSON_GetObjectItemCaseSensitive(root, "groups") : NULL;
        int r = 0;
        if (!cJSON_IsArray(groups)) {
                strbuf_addstr(err, "alert rules: not {\"groups\": [...]}");
                cJSON_Delete(root);
                return -EINVAL;
        }
        char uuid8[9] = "";
        snprintf(uuid8, sizeof(uuid8), "%s", strempty(env->model_uuid));
        _cleanup_free_ char *prefix = xasprintf("%s_%s_%s", strempty(env->model_name), uuid8, strempty(env->app));
        const struct {
                const char *key, *value;
        } topo[] = {
                { "juju_model", env->model_name },
                { "juju_model_uuid", env->model_uuid },
                { "juju_application", env->app },
                { "juju_charm", charm_name },
        };
        cJSON *g;
        cJSON_ArrayForEach(g, groups) {
                cJSON *rules = cJSON_GetObjectItemCaseSensitive(g, "rules");
                if (!is_string_member(g, "name") || !cJSON_IsArray(rules)) {
                        strbuf_addstr(err, "alert rules: a group without a name or rules");
                        r = -EINVAL;
                        break;
                }
                const char *name = cJSON_GetObjectItemCaseSensitive(g, "name")->valuestring;
                struct strbuf gn = STRBUF_INIT;
                strbuf_addf(&gn, "%s_%s", prefix, name);
                size_t n = strlen(name);
                if (n < 6 || !streq(name + n - 6, "_rules"))
                        strbuf_addstr(&gn, "_rules");
                for (size_t i = 0; i < gn.len; i++) {
                        char c = gn.buf[i];
                        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                                    c == ':'))
                                gn.buf[i] = '_';
                }
                cJSON_ReplaceItemInObjectCaseSensitive(g, "name", cJSON_CreateString(gn.buf));
                strbuf_release(&gn);
                cJSON *rule;
                cJSON_ArrayForEach(rule, rules) {
                        if (!cJSON_IsObject(rule) || !is_string_member(rule, "expr") ||
                                (!is_string_member(rule, "alert") && !is_string_member(rule, "record"))) {
                                strbuf_addstr(err, "alert rules: a rule without alert (or record) and expr");
                                r = -EINVAL;
                                break;
                        }
                        _cleanup_free_ char *expr =
                                expr_untopology(cJSON_GetObjectItemCaseSensitive(rule, "expr")->valuestring);
                        cJSON_ReplaceItemInObjectCaseSensitive(rule, "expr", cJSON_CreateString(expr));
                        cJSON *labels = cJSON_GetObjectItemCaseSensitive(rule, "labels");
                        if (!labels) {
                                labels = cJSON_CreateObject();
                                cJSON_AddItemToObject(rule, "labels", labels);
                        }
                        if (!cJSON_IsObject(labels)) {
                                strbuf_addstr(err, "alert rules: labels is not an object");
                                r = -EINVAL;
                                break;
                        }
                        for (size_t i = 0; i < ELEMENTSOF(topo); i++)
                                if (!isempty(topo[i].value) && !cJSON_GetObjectItemCaseSensitive(labels, topo[i].key))
                                        cJSON_AddStringToObject(labels, topo[i].key, topo[i].value);
                }
                if (r < 0)
                        break;
        }
        if (r == 0)
                add_json(out, root);
        cJSON_Delete(root);
        return r;
}

/* The unit's address on the relation's binding (network-get), else its private address. */
static char *unit_address(struct juju_ctx *ctx) {
        cJSON *net = NULL;
        char *addr = NULL;
        if (juju_network_get(ctx, METRICSEP_ENDPOINT, &net, NULL) >= 0) {
                const cJSON *ing = cJSON_GetObjectItemCaseSensitive(net, "ingress-addresses");
                const cJSON *first = cJSON_IsArray(ing) ? cJSON_GetArrayItem(ing, 0) : NULL;
                if (cJSON_IsString(first) && !isempty(first->valuestring))
                        addr = xstrdup(first->valuestring);
        }
        cJSON_Delete(net);
        if (!addr)
                (void) juju_private_address(ctx, &addr, NULL);
        return addr;
}

void metricsep_publish(struct juju_ctx *ctx, const char *charm_dir, unsigned port, bool leader, struct strbuf *note) {
        _cleanup_strv_ struct strv ids = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (juju_relation_ids(ctx, METRICSEP_ENDPOINT, &ids, &e) < 0) {
                strbuf_addf(note, "; " METRICSEP_ENDPOINT ": %s", e.buf);
                return;
        }
        if (!ids.n)
                return;
        const struct juju_env *env = juju_env(ctx);
        _cleanup_free_ char *addr = unit_address(ctx);
        _cleanup_strbuf_ struct strbuf jobs = STRBUF_INIT, meta = STRBUF_INIT, rules = STRBUF_INIT;
        metricsep_scrape_jobs(port, &jobs);
        metricsep_scrape_metadata(env, "slurmctld", &meta);
        if (leader && !port)
                strbuf_addstr(&rules, "{}"); /* no exporter: no rule to fire on its absence */
        else if (leader) {
                _cleanup_free_ char *file = xasprintf("%s/templates/" METRICSEP_RULES_FILE, strempty(charm_dir));
                _cleanup_free_ char *text = NULL;
                int r = read_full_file(file, &text, NULL);
                if (r < 0)
                        strbuf_addf(&e, "%s: %s", file, strerror(-r));
                else
                        r = metricsep_alert_rules(text, env, "slurmctld", &rules, &e);
                if (r < 0) {
                        strbuf_addf(note, "; " METRICSEP_ENDPOINT ": %s", e.buf);
                        strbuf_reset(&rules);
                        strbuf_addstr(&rules, "{}");
                }
        }
        size_t live = 0;
        for (size_t i = 0; i < ids.n; i++) {
                /* relation-broken: that relation is going, whatever relation-ids says (and a
                 * write to it fails) */
                if (streq_ptr(env->relation_event, "broken") && streq_ptr(env->relation_id, ids.v[i]))
                        continue;
                live++;
                strbuf_reset(&e);
                int r = juju_relation_set(ctx, ids.v[i], false, "prometheus_scrape_unit_address", addr, &e);
                if (r >= 0)
                        r = juju_relation_set(ctx, ids.v[i], false, "prometheus_scrape_unit_name", env->unit, &e);
                if (r >= 0)
                        r = juju_relation_set(ctx, ids.v[i], false, "prometheus_scrape_unit_path", "", &e);
                if (r >= 0 && leader) {
                        r = juju_relation_set(ctx, ids.v[i], true, "scrape_metadata", meta.buf, &e);
                        if (r >= 0)
                                r = juju_relation_set(ctx, ids.v[i], true, "scrape_jobs", jobs.buf, &e);
                        if (r >= 0)
                                r = juju_relation_set(ctx, ids.v[i], true, "alert_rules", rules.buf, &e);
                }
                if (r < 0)
                        strbuf_addf(note, "; " METRICSEP_ENDPOINT ": %s", e.buf);
        }
        if (live && !port)
                strbuf_addstr(note, "; " METRICSEP_ENDPOINT " related but " METRICSEP_CONFIG_KEY
                                    " is 0: nothing to scrape");
}

void metricsep_status_note(sd_bus *bus, unsigned port, int wait_ms, struct strbuf *message) {
        if (!port)
                return;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t deadline = (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + wait_ms;
        struct unit_state st = { 0 };
        bool known = false;
        for (;;) {
                /* the service running, and something listening: a port another process holds
                 * answers the probe while the exporter fails to bind and restarts */
                known = bus && unit_get_state(bus, METRICSEP_UNIT, &st, NULL) >= 0;
                bool running = !bus || (known && streq(st.active_state, "active") && streq(st.sub_state, "running"));
                if (running && charm_tcp_listening("127.0.0.1", port, 200))
                        return;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                if ((int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000 >= deadline)
                        break;
                usleep(200 * 1000);
        }
        if (known && !(streq(st.active_state, "active") && streq(st.sub_state, "running")))
                strbuf_addf(message,
                        "; metrics exporter not running (%s/%s, %u restart%s: port %u taken by another process?"
                        " journalctl -u " METRICSEP_UNIT ")",
                        st.active_state, st.sub_state, st.n_restarts, st.n_restarts == 1 ? "" : "s", port);
        else
                strbuf_addf(message, "; metrics exporter not listening on port %u (journalctl -u " METRICSEP_UNIT ")",
                        port);
}
