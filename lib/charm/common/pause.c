/* SPDX-License-Identifier: Apache-2.0 */
/* The unit's pause file (the admin's maintenance switch), the reason check and the paused
 * status line. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/pause.h"
#include "systemd/unit.h"
#include "util/fileio.h"

#include "util/banned.h"

static char *pause_path(const struct charm_paths *p) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, PAUSE_FILE);
}

int charm_paused(const struct charm_paths *p, char **ret_reason) {
        _cleanup_free_ char *path = pause_path(p), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        data[strcspn(data, "\n")] = '\0';
        if (ret_reason)
                *ret_reason = TAKE_PTR(data);
        return 1;
}

int charm_reason_check(const char *what, const char *reason, struct strbuf *err) {
        size_t n = reason ? strlen(reason) : 0;
        if (n == 0 || n > PAUSE_REASON_MAX) {
                strbuf_addf(err, "%s: give 1 to %d characters", what, PAUSE_REASON_MAX);
                return -EINVAL;
        }
        for (size_t i = 0; i < n; i++)
                if ((unsigned char) reason[i] < 0x20 || (unsigned char) reason[i] > 0x7e) {
                        strbuf_addf(err, "%s: only printable ASCII characters", what);
                        return -EINVAL;
                }
        return 0;
}

int charm_pause_set(const struct charm_paths *p, const char *reason, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR), *path = pause_path(p);
        _cleanup_free_ char *line = NULL;
        int r = charm_reason_check("reason", reason, err);
        if (r < 0)
                return r;
        line = xasprintf("%s\n", reason);
        r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, line, strlen(line), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r < 0 ? r : 0;
}

int charm_pause_clear(const struct charm_paths *p, struct strbuf *err) {
        _cleanup_free_ char *path = pause_path(p);
        if (unlink(path) < 0) {
                if (errno == ENOENT)
                        return 0;
                strbuf_addf(err, "%s: %s", path, strerror(errno));
                return -errno;
        }
        return 1;
}

void charm_paused_outcome(sd_bus *bus, const char *unit, const char *reason, char *const *services,
        struct charm_outcome *out) {
        charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "paused by admin: %s (resume: juju run %s resume)",
                reason, unit);
        for (size_t i = 0; bus && services && services[i]; i++) {
                struct unit_state st;
                if (unit_get_state(bus, services[i], &st, NULL) >= 0)
                        charm_paused_daemon_note(&out->message, services[i], &st);
        }
}

void charm_paused_daemon_note(struct strbuf *msg, const char *service, const struct unit_state *st) {
        if (streq(st->active_state, "active"))
                return;
        _cleanup_free_ char *daemon = charm_daemon_name(service);
        strbuf_addf(msg, "; %s %s", daemon, st->active_state);
        /* a daemon that died on its way down says how: slurmctld 24.11.5 aborts now and then
         * on SIGTERM ("double free or corruption", 1 stop in ~25 here), and the admin who
         * stopped it should know it did not end cleanly */
        if (streq(st->active_state, "failed") && !isempty(st->result))
                strbuf_addf(msg, " (Result=%s)", st->result);
}

int charm_action_pause(
        struct juju_ctx *ctx, const struct charm_paths *p, char **ret_reason, struct strbuf *err) {
        const cJSON *v;
        int r = juju_action_param(ctx, "reason", &v, err);
        if (r < 0)
                return r;
        if (v && !cJSON_IsString(v)) {
                strbuf_addstr(err, "pause: reason must be a string");
                return -EINVAL;
        }
        const char *reason = v ? v->valuestring : "maintenance";
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        r = charm_pause_set(p, reason, &e);
        if (r < 0) {
                strbuf_addf(err, "pause: %s", e.buf);
                return r;
        }
        *ret_reason = xstrdup(reason);
        return 0;
}

int charm_paused_gate(sd_bus *bus, const struct charm_paths *p, const char *unit, char *const *services,
        struct charm_outcome *out, struct strbuf *err) {
        _cleanup_free_ char *reason = NULL;
        int r = charm_paused(p, &reason);
        if (r < 0) {
                strbuf_addf(err, "pause state: %s", strerror(-r));
                return r;
        }
        if (r == 0)
                return 0;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *own = NULL;
        if (!bus && unit_bus_open(&own, NULL) >= 0)
                bus = own;
        charm_paused_outcome(bus, unit, reason, services, out);
        return 1;
}

int charm_action_pause_unit(
        struct juju_ctx *ctx, const struct charm_paths *p, char *const *services, struct strbuf *err) {
        _cleanup_free_ char *reason = NULL;
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        int r = charm_action_pause(ctx, p, &reason, err);
        if (r >= 0)
                r = juju_action_set(ctx, "paused", "true", err);
        /* the status a reconcile gives now: the gate's */
        if (r >= 0)
                r = charm_paused_gate(NULL, p, juju_env(ctx)->unit, services, &out, err);
        if (r < 0)
                return r;
        return juju_status_set(ctx, false, out.status, out.message.buf, err);
}

int charm_action_reconcile(struct juju_ctx *ctx, const struct charm_paths *p,
        int (*reconcile)(
                struct juju_ctx *, const struct charm_paths *, struct charm_outcome *, struct strbuf *),
        struct strv *kv, struct strbuf *err) {
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        int r = reconcile(ctx, p, &out, err);
        if (r < 0)
                return r;
        if (!out.skip_status) {
                r = juju_status_set(ctx, false, out.status, out.message.buf, err);
                if (r < 0)
                        return r;
        }
        strv_push(kv, "status");
        strv_pushf(kv, "%s: %s", juju_status_name(out.status), out.message.buf);
        return juju_action_set_many(ctx, kv, err);
}

int charm_action_resume(struct juju_ctx *ctx, const struct charm_paths *p,
        int (*reconcile)(
                struct juju_ctx *, const struct charm_paths *, struct charm_outcome *, struct strbuf *),
        char **ret_reason, struct strbuf *err) {
        _cleanup_free_ char *reason = NULL;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        int r = charm_paused(p, &reason);
        if (r < 0) {
                strbuf_addf(err, "resume: pause state: %s", strerror(-r));
                return r;
        }
        r = charm_pause_clear(p, err);
        if (r < 0)
                return r;
        strv_push(&kv, "was-paused");
        strv_push(&kv, reason ? "true" : "false");
        r = charm_action_reconcile(ctx, p, reconcile, &kv, err);
        if (r < 0)
                return r;
        *ret_reason = TAKE_PTR(reason);
        return 0;
}
