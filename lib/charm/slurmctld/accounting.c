/* SPDX-License-Identifier: Apache-2.0 */
/* The controllers' side of accounting (accounting.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/accounting.h"

#include "interfaces/slurmdbd.h"
#include "slurm/ctlstats.h"
#include "util/fileio.h"

#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <time.h>

#include "util/banned.h"

void acct_view_done(struct acct_view *v) {
        strv_clear(&v->rels);
        strv_clear(&v->hosts);
        strbuf_release(&v->refused);
        strbuf_release(&v->waiting);
        strv_clear(&v->waiting_hosts);
        free(v->waiting_state);
        v->waiting_state = NULL;
}

static char *state_path(const struct charm_paths *p) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, ACCT_STATE_FILE);
}

/* The hosts taken last: one "host:port" a line. */
/* The lines of the state file at path (its lines are its fields; none when it cannot be
 * read). Empty lines count: a field may be empty. */
static void read_lines(const char *path, struct strv *ret) {
        _cleanup_free_ char *data = NULL;
        if (read_full_file(path, &data, NULL) < 0)
                return;
        for (char *line = data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
                nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                strv_push(ret, line);
        }
}

static void read_last(const struct charm_paths *p, struct strv *ret) {
        _cleanup_free_ char *path = state_path(p);
        _cleanup_strv_ struct strv lines = STRV_INIT;
        read_lines(path, &lines);
        for (size_t i = 0; i < lines.n; i++)
                if (*lines.v[i])
                        strv_push(ret, lines.v[i]);
}

/* "host:port" → host (caller frees) and port; false when it is not that shape. */
static bool split_host_port(const char *hp, char **ret_host, unsigned *ret_port) {
        const char *colon = strrchr(hp, ':');
        char *end;
        if (!colon || colon == hp)
                return false;
        unsigned long port = strtoul(colon + 1, &end, 10);
        if (*end || port == 0 || port > 65535)
                return false;
        *ret_host = xstrndup(hp, (size_t) (colon - hp));
        *ret_port = (unsigned) port;
        return true;
}

static bool same_hosts(const struct strv *a, const struct strv *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (!streq(a->v[i], b->v[i]))
                        return false;
        return true;
}

bool acct_hosts_answer(const struct strv *hosts, int timeout_ms) {
        for (size_t i = 0; i < hosts->n; i++) {
                _cleanup_free_ char *host = NULL;
                unsigned port;
                if (split_host_port(hosts->v[i], &host, &port) && charm_host_listening(host, port, timeout_ms))
                        return true;
        }
        return false;
}

int acct_read(struct juju_ctx *ctx, const struct charm_paths *p, const struct acct_standby *sb,
        struct acct_view *ret, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_free_ char *remote = NULL;
        const cJSON *bag = NULL;
        /* a relation going away is no relation: accounting off */
        int r = charm_relation_ids_live(ctx, ACCT_ENDPOINT, &ret->rels, err);
        if (r < 0 || ret->rels.n == 0)
                return r;
        r = charm_remote_app_bag(ctx, ret->rels.v[0], &remote, &bag, err);
        if (r < 0)
                return r;
        /* a slurmdbd that cannot serve this slurmctld (older, or another AuthType) is not taken */
        r = charm_generation_check(p, charm_bag_string(bag, "slurm"), false, "slurmctld", "slurmdbd", &e);
        if (r == -EPROTO || r == -EINVAL) {
                strbuf_addf(&ret->refused, "relation with \"%s\": %s%s (accounting stays as it was)",
                        strempty(remote), e.buf,
                        r == -EPROTO ? "; deploy slurmdbd on this application's base" : "");
                read_last(p, &ret->hosts);
                return 0;
        }
        if (r < 0) {
                strbuf_addf(err, "slurm generation: %s", strerror(-r));
                return r;
        }
        r = dbd_hosts_decode(charm_bag_string(bag, "dbd_hosts"), &ret->hosts, &e);
        if (r == -EINVAL) {
                strbuf_addf(&ret->refused, "relation with \"%s\": %s (accounting stays as it was)",
                        strempty(remote), e.buf);
                read_last(p, &ret->hosts);
                return 0;
        }
        acct_take(p, sb, ret);
        return 0;
}

void acct_take(const struct charm_paths *p, const struct acct_standby *sb, struct acct_view *ret) {
        /* new hosts: taken once slurmdbd answers on one, and not while a start with them that
         * failed for want of slurmdbd is recent (acct_read's comment); on a standby also once
         * the primary runs with them and the shared state lets it take control without them
         * (struct acct_standby) */
        _cleanup_strv_ struct strv last = STRV_INIT;
        read_last(p, &last);
        if (sb && ret->hosts.n) {
                _cleanup_free_ char *joined = strv_join(&ret->hosts, ",");
                ret->primary_runs = streq(joined, strempty(sb->primary_hosts));
        }
        if (ret->hosts.n == 0 || same_hosts(&last, &ret->hosts))
                return;
        _cleanup_free_ char *hosts = strv_join(&ret->hosts, ", "), *why = NULL;
        _cleanup_strbuf_ struct strbuf missing = STRBUF_INIT;
        const char *before = last.n ? "the slurmdbd hosts taken before stay" : "no accounting";
        long left = acct_deferred(p, &ret->hosts, (int64_t) time(NULL), &why);
        if (left > 0) {
                strbuf_addf(&ret->waiting,
                        "accounting waits: slurmctld did not start with slurmdbd %s (%s); %s until it is "
                        "tried again, in %ld s once it answers",
                        hosts, why, before, left);
                ret->waiting_until = (int64_t) time(NULL) + left;
        } else if (acct_hosts_answer(&ret->hosts, ACCT_LOOK_MS)) {
                return;
        } else if (ret->primary_runs && acct_state_ready(p, sb->state_dir, sb->primary_since_ms, &missing)) {
                return; /* the status says slurmdbd does not answer (acct_status_note) */
        } else if (ret->primary_runs) {
                strbuf_addf(&ret->waiting,
                        "accounting waits: slurmdbd %s does not answer here, and %s, which runs with it, "
                        "has not saved what this standby needs to take control without it (%s in "
                        "StateSaveLocation, saved since it took slurmdbd: slurmctld saves them every 5 "
                        "minutes and at its stop); %s until then",
                        hosts, sb->primary, missing.buf, before);
                ret->waiting_state = xstrdup(sb->state_dir);
                ret->waiting_since_ms = sb->primary_since_ms;
        } else if (sb)
                strbuf_addf(&ret->waiting,
                        "accounting waits: slurmdbd %s does not answer here, and %s does not run with it "
                        "yet; %s until one of them does",
                        hosts, strempty(sb->primary), before);
        else
                strbuf_addf(&ret->waiting,
                        "accounting waits: slurmdbd %s does not answer here, and slurmctld cannot start "
                        "with it until it does; %s until then (taken as soon as it answers)",
                        hosts, before);
        ret->waiting_hosts = ret->hosts;
        ret->hosts = last;
        last = (struct strv) STRV_INIT;
}

/* A regular file of more than min_size bytes, not a link (SlurmUser's directory), saved at or
 * after since_ms. */
static bool state_file_there(const char *dir, const char *name, off_t min_size, int64_t since_ms) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= min_size)
                return false;
        int64_t mtime_ms = (int64_t) st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
        return since_ms > 0 && mtime_ms >= since_ms;
}

bool acct_state_ready(const struct charm_paths *p, const char *state_dir, int64_t since_ms, struct strbuf *missing) {
        static const char *const names[] = { "last_tres", "assoc_mgr_state" };
        /* the associations' file of a slurmctld without accounting is its header and empty
         * lists (assoc_mgr.c dump_assoc_mgr_state: version, time; no users, no associations):
         * never enough, whoever saved it and when (the controller in charge need not be the
         * unit whose time since_ms is: a standby in charge without accounting saves it too) */
        static const off_t min_size[] = { 0, ACCT_ASSOC_STATE_BARE };
        bool ready = state_dir != NULL && since_ms > 0;
        if (state_dir && since_ms <= 0 && missing)
                strbuf_addf(missing, "the time the primary took slurmdbd (not published)");
        for (size_t i = 0; state_dir && since_ms > 0 && i < ELEMENTSOF(names); i++)
                if (!state_file_there(state_dir, names[i], min_size[i], since_ms)) {
                        ready = false;
                        if (missing)
                                strbuf_addf(missing, "%s%s", missing->len ? ", " : "", names[i]);
                }
        if (state_dir && charm_caps(p)->cluster_id_in_state) {
                _cleanup_free_ char *path = xasprintf("%s/clustername", state_dir), *data = NULL;
                size_t n = 0;
                struct stat st;
                const char *bar = read_untrusted_file(path, 4096, &data, &n, &st) >= 0 ? memchr(data, '|', n) : NULL;
                if (!bar || bar + 1 >= data + n || bar[1] < '1' || bar[1] > '9') {
                        ready = false;
                        if (missing)
                                strbuf_addf(missing, "%sthe ClusterID in clustername", missing->len ? ", " : "");
                }
        }
        return ready;
}

char *acct_taken_joined(const struct charm_paths *p) {
        _cleanup_strv_ struct strv last = STRV_INIT;
        read_last(p, &last);
        return strv_join(&last, ",");
}

static char *since_path(const struct charm_paths *p) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, ACCT_SINCE_FILE);
}

int64_t acct_taken_since(const struct charm_paths *p) {
        _cleanup_free_ char *path = since_path(p), *data = NULL;
        if (read_full_file(path, &data, NULL) < 0)
                return 0;
        char *end;
        long long ms = strtoll(data, &end, 10);
        return (*end && *end != '\n') || ms <= 0 ? 0 : (int64_t) ms;
}

static char *defer_path(const struct charm_paths *p) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, ACCT_DEFER_FILE);
}

int acct_store(const struct charm_paths *p, const struct acct_view *v, struct strbuf *err) {
        _cleanup_free_ char *path = state_path(p), *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *deferred = defer_path(p);
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        for (size_t i = 0; i < v->hosts.n; i++)
                strbuf_addf(&s, "%s\n", v->hosts.v[i]);
        /* when these hosts were first taken (acct_taken_since): before the file changes */
        _cleanup_strv_ struct strv last = STRV_INIT;
        read_last(p, &last);
        _cleanup_free_ char *since = since_path(p);
        bool new_since = v->hosts.n > 0 && (!same_hosts(&last, &v->hosts) || acct_taken_since(p) == 0);
        int r = mkdir_p(dir, 0700);
        if (r >= 0 && new_since) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                _cleanup_free_ char *ms = xasprintf("%lld\n", (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
                r = write_file_atomic(since, ms, strlen(ms), 0600, (uid_t) -1, (gid_t) -1);
        } else if (r >= 0 && v->hosts.n == 0 && unlink(since) < 0 && errno != ENOENT)
                r = -errno;
        if (r >= 0)
                r = write_file_atomic_if_changed(path, s.buf, s.len, 0600, (uid_t) -1, (gid_t) -1);
        /* a deferral ends when nothing waits any more (the hosts taken, or none wanted): not
         * when the last hosts are stored again while the deferred ones wait (review of stop 54's
         * follow-up, 1: the run after the rollback did that, and the next hook restarted again) */
        if (r >= 0 && v->waiting_hosts.n == 0 && unlink(deferred) < 0 && errno != ENOENT)
                r = -errno;
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r < 0 ? r : 0;
}

int acct_wait_record(const struct charm_paths *p, const struct acct_view *v, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, ACCT_WAIT_FILE);
        int r;
        if (v->waiting_hosts.n == 0) {
                r = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
        } else {
                _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
                strbuf_addf(&s, "%lld\n", (long long) v->waiting_until);
                for (size_t i = 0; i < v->waiting_hosts.n; i++)
                        strbuf_addf(&s, "%s\n", v->waiting_hosts.v[i]);
                if (v->waiting_state && v->waiting_state[0] == '/' && !strchr(v->waiting_state, '\n'))
                        strbuf_addf(&s, "%s\n@%lld\n", v->waiting_state, (long long) v->waiting_since_ms);
                r = mkdir_p(dir, 0700);
                if (r >= 0)
                        r = write_file_atomic_if_changed(path, s.buf, s.len, 0600, (uid_t) -1, (gid_t) -1);
        }
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r < 0 ? r : 0;
}

bool acct_wait_load(const struct charm_paths *p, int64_t *ret_until, struct strv *ret_hosts, char **ret_state,
        int64_t *ret_since_ms) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, ACCT_WAIT_FILE);
        _cleanup_strv_ struct strv f = STRV_INIT;
        if (access(path, F_OK) < 0)
                return false;
        read_lines(path, &f);
        *ret_until = f.n > 0 ? (int64_t) strtoll(f.v[0], NULL, 10) : 0;
        *ret_state = NULL;
        *ret_since_ms = 0;
        for (size_t i = 1; i < f.n; i++)
                if (f.v[i][0] == '@')
                        *ret_since_ms = (int64_t) strtoll(f.v[i] + 1, NULL, 10);
                else if (f.v[i][0] == '/') {
                        free(*ret_state);
                        *ret_state = xstrdup(f.v[i]);
                } else if (*f.v[i])
                        strv_push(ret_hosts, f.v[i]);
        return true;
}

int acct_defer(const struct charm_paths *p, const struct acct_view *v, const char *why, struct strbuf *err) {
        _cleanup_free_ char *path = defer_path(p), *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        const int64_t now = (int64_t) time(NULL);
        /* one line of why, never empty: the file's lines are its fields */
        const char *reason = isempty(why) ? "-" : why;
        strbuf_addf(&s, "%lld\n%.*s\n", (long long) now, (int) strcspn(reason, "\n"), reason);
        for (size_t i = 0; i < v->hosts.n; i++)
                strbuf_addf(&s, "%s\n", v->hosts.v[i]);
        int r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic(path, s.buf, s.len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        /* and the watcher follows it from its end (acctfollow.h): this hook's acct_read saw
         * the hosts answer and left no wait file */
        struct acct_view w = { .waiting_hosts = v->hosts, .waiting_until = now + ACCT_DEFER_S };
        return acct_wait_record(p, &w, err);
}

long acct_deferred(const struct charm_paths *p, const struct strv *hosts, int64_t now, char **ret_why) {
        _cleanup_free_ char *path = defer_path(p);
        _cleanup_strv_ struct strv f = STRV_INIT;
        *ret_why = NULL;
        read_lines(path, &f);
        if (f.n < 3)
                return 0;
        char *end;
        long long at = strtoll(f.v[0], &end, 10);
        if (*end || at <= 0)
                return 0;
        struct strv h = { .v = f.v + 2, .n = f.n - 2 };
        long left = (long) (at + ACCT_DEFER_S - now);
        if (!same_hosts(&h, hosts) || left <= 0 || left > ACCT_DEFER_S)
                return 0;
        *ret_why = xstrdup(f.v[1]);
        return left;
}

int acct_cluster_id_release(
        const struct charm_paths *p, const struct acct_view *v, const char *state_dir, struct strbuf *err) {
        _cleanup_strv_ struct strv last = STRV_INIT;
        if (!charm_caps(p)->cluster_id_in_state || v->hosts.n == 0 || v->primary_runs)
                return 0;
        read_last(p, &last);
        if (same_hosts(&last, &v->hosts))
                return 0;
        _cleanup_free_ char *path = xasprintf("%s/clustername", state_dir), *data = NULL;
        size_t n = 0;
        struct stat st;
        /* slurmctld's file, in SlurmUser's directory: never through that user's link, never a
         * FIFO, and written back with the owner and mode of the file read, not of what a link
         * led to (review R7) */
        int r = read_untrusted_file(path, 4096, &data, &n, &st);
        if (r == -ENOENT)
                return 0; /* a first start: slurmctld takes slurmdbd's id */
        char *bar = r < 0 ? NULL : memchr(data, '|', n);
        if (r >= 0 && !bar)
                return 0;
        if (r >= 0)
                r = write_file_atomic(
                        path, data, (size_t) (bar - data), st.st_mode & 07777, st.st_uid, st.st_gid);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        return 1;
}

int acct_publish(struct juju_ctx *ctx, const struct acct_view *v, const char *auth_key_id,
        const char *cluster_name, const char *controllers_json, struct strbuf *err) {
        for (size_t i = 0; i < v->rels.n; i++) {
                const cJSON *mine;
                int r = juju_relation_get(ctx, v->rels.v[i], juju_env(ctx)->app, &mine, err);
                if (r < 0)
                        return r;
                if (!streq_ptr(charm_bag_string(mine, "auth_key_id"), auth_key_id)) {
                        r = juju_secret_grant(ctx, auth_key_id, v->rels.v[i], NULL, err);
                        if (r >= 0)
                                r = juju_relation_set(
                                        ctx, v->rels.v[i], true, "auth_key_id", auth_key_id, err);
                }
                if (r >= 0)
                        r = charm_bag_update(
                                ctx, v->rels.v[i], true, mine, "cluster_name", cluster_name, err);
                if (r >= 0)
                        r = charm_bag_update(
                                ctx, v->rels.v[i], true, mine, "controllers", controllers_json, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

bool acct_start_fault(const char *line) {
        /* slurmctld's own words, 22.05 and 24.11 (controller.c, assoc_mgr.c) */
        static const char *const words[] = {
                "we have no TRES from it",
                "we have less TRES than should be here",
                "slurmdbd and/or database must be up at slurmctld start time", /* 22.05 */
                "slurmdbd must be up at slurmctld start time", /* 24.11, a stop while it waits */
                "Unable to run cache without TRES",
        };
        if (!line || !strstr(line, "fatal"))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (strstr(line, words[i]))
                        return true;
        return false;
}

void acct_status_note(const struct acct_view *v, struct strbuf *msg) {
        if (v->hosts.n == 0)
                return;
        bool answers = false;
        answers = acct_hosts_answer(&v->hosts, 500);
        struct slurm_ctl_stats st;
        bool known = slurm_ctl_stats_get(&st, NULL) >= 0;
        if (!answers) {
                _cleanup_free_ char *hosts = strv_join(&v->hosts, ", ");
                strbuf_addf(msg, "; accounting: slurmdbd %s not answering", hosts);
                if (known)
                        strbuf_addf(msg, ", %u record%s held by slurmctld", st.dbd_queue,
                                st.dbd_queue == 1 ? "" : "s");
                else
                        strbuf_addstr(msg, ", slurmctld's queue unknown");
        } else if (known && st.dbd_queue >= ACCT_QUEUE_NOTE)
                strbuf_addf(msg, "; accounting: %u records waiting for slurmdbd", st.dbd_queue);
}

void acct_standby_read(struct juju_ctx *ctx, const char *peer_rel, const char *primary, const char *state_dir,
        struct acct_standby *ret) {
        const cJSON *bag = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (juju_relation_get(ctx, peer_rel, primary, &bag, &e) < 0)
                bag = NULL;
        *ret = (struct acct_standby){
                .primary = primary,
                .primary_hosts = charm_bag_string(bag, ACCT_PEER_KEY),
                .primary_since_ms = (int64_t) strtoll(strempty(charm_bag_string(bag, ACCT_PEER_SINCE_KEY)), NULL, 10),
                .state_dir = state_dir,
        };
}

int acct_peer_publish(struct juju_ctx *ctx, const struct charm_paths *p, const char *peer_rel,
        const cJSON *peer_self, struct strbuf *err) {
        _cleanup_free_ char *taken = acct_taken_joined(p);
        int64_t since = acct_taken_since(p);
        _cleanup_free_ char *since_s = since > 0 ? xasprintf("%lld", (long long) since) : xstrdup("");
        int r = charm_bag_update(ctx, peer_rel, false, peer_self, ACCT_PEER_SINCE_KEY, since_s, err);
        return r < 0 ? r : charm_bag_update(ctx, peer_rel, false, peer_self, ACCT_PEER_KEY, taken, err);
}
