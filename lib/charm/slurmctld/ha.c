/* SPDX-License-Identifier: Apache-2.0 */
/* Several slurmctld units: the stable controller order, the shared-state markers, the
 * heartbeat of the controller in charge, the role line. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/ha.h"
#include "charm/common/authkey.h"
#include "charm/slurmctld/standby.h"
#include "proc/proc.h"
#include "util/fileio.h"

#include <endian.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/banned.h"

/* a write to the shared directory (a network file system may be slow, never for ever) */
#define MARKER_WRITE_TIMEOUT_MS 10000

static int cmp_unit(const void *a, const void *b) {
        long x = charm_unit_number(*(char *const *) a), y = charm_unit_number(*(char *const *) b);
        return x < y ? -1 : x > y;
}

void ha_order_next(const struct strv *order, const struct strv *present, const struct strv *admissible,
        const char *first, struct strv *ret) {
        _cleanup_strv_ struct strv out = STRV_INIT, extra = STRV_INIT;

        if (first && strv_contains(present, first) &&
                (strv_contains(order, first) || strv_contains(admissible, first)))
                strv_push(&out, first);
        for (size_t i = 0; i < order->n; i++)
                if (strv_contains(present, order->v[i]) && !strv_contains(&out, order->v[i]))
                        strv_push(&out, order->v[i]);
        for (size_t i = 0; i < admissible->n; i++)
                if (strv_contains(present, admissible->v[i]) && !strv_contains(&out, admissible->v[i]) &&
                        !strv_contains(&extra, admissible->v[i]))
                        strv_push(&extra, admissible->v[i]);
        qsort(extra.v, extra.n, sizeof(char *), cmp_unit);
        for (size_t i = 0; i < extra.n && out.n < HA_MAX_CONTROLLERS; i++)
                strv_push(&out, extra.v[i]);
        while (out.n > HA_MAX_CONTROLLERS) {
                free(out.v[--out.n]);
                out.v[out.n] = NULL;
        }
        strv_pushv(ret, out.v);
}

int ha_token(const struct charm_paths *paths, char **ret, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(paths, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, HA_TOKEN_FILE), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r >= 0) {
                data[strcspn(data, "\n")] = '\0';
                if (strlen(data) == 32 && strspn(data, "0123456789abcdef") == 32) {
                        *ret = TAKE_PTR(data);
                        return 0;
                }
        } else if (r != -ENOENT) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        unsigned char b[16];
        r = auth_key_generate(b, sizeof b);
        if (r < 0) {
                strbuf_addf(err, "state marker: getrandom: %s", strerror(-r));
                return r;
        }
        _cleanup_strbuf_ struct strbuf hex = STRBUF_INIT;
        for (size_t i = 0; i < sizeof b; i++)
                strbuf_addf(&hex, "%02x", b[i]);
        r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic(path, hex.buf, hex.len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        *ret = strbuf_detach(&hex, NULL);
        return 0;
}

struct marker_call {
        const char *mdir, *path, *line; /* line NULL: path is removed */
};

/* In the child of proc_call_as(), as SlurmUser (or the caller, in tests). */
static int marker_child(void *userdata, struct strbuf *out) {
        const struct marker_call *c = userdata;
        if (!c->line)
                return unlink(c->path) < 0 && errno != ENOENT ? -errno : 0;
        int r = mkdir_p(c->mdir, 0700);
        if (r >= 0)
                r = write_file_atomic(c->path, c->line, strlen(c->line), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0 && out)
                strbuf_addstr(out, strerror(-r));
        return r;
}

/* line into path, in mdir below the shared state directory, written AS uid:gid: the directory
 * is SlurmUser's, and root resolving a path through it followed the links that user put there
 * (attack atk8 G7: charm-markers made a link to /etc/cron.d, which root chowned to slurm; a
 * cron job as root followed). As that user, a link leads only where it may write anyway. */
static int marker_dir_write(
        const char *mdir, const char *path, const char *line, uid_t uid, gid_t gid, struct strbuf *err) {
        const struct marker_call c = { .mdir = mdir, .path = path, .line = line };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        int r;
        if (geteuid() != 0 || uid == geteuid())
                r = marker_child((void *) &c, &out); /* nobody to become */
        else {
                r = proc_call_as(uid, gid, MARKER_WRITE_TIMEOUT_MS, marker_child, (void *) &c, &out);
                if (r == -ETIME && !out.len)
                        strbuf_addstr(&out, "timed out");
        }
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, out.len ? out.buf : strerror(-r));
        return r;
}

static char *marker_path(const char *dir, const char *unit) {
        _cleanup_free_ char *name = charm_node_name(unit);
        return xasprintf("%s/%s/%s", dir, HA_MARKER_DIR, name);
}

int ha_marker_seen(const char *dir, const char *unit, const char *token) {
        _cleanup_free_ char *path = marker_path(dir, unit), *data = NULL;
        if (isempty(token) || read_untrusted_file(path, 4096, &data, NULL, NULL) < 0)
                return 0;
        data[strcspn(data, "\n")] = '\0';
        return streq(data, token);
}

int ha_marker_write(
        const char *dir, const char *unit, const char *token, uid_t uid, gid_t gid, struct strbuf *err) {
        _cleanup_free_ char *mdir = xasprintf("%s/%s", dir, HA_MARKER_DIR), *path = marker_path(dir, unit);
        _cleanup_free_ char *line = xasprintf("%s\n", token);
        int r;

        if (ha_marker_seen(dir, unit, token))
                return 0;
        r = marker_dir_write(mdir, path, line, uid, gid, err);
        return r < 0 ? r : 1;
}

/* <dir>/HA_MARKER_DIR/<name> holding line, owned by uid:gid, replaced atomically. */
static int shared_note_write(
        const char *dir, const char *name, const char *line, uid_t uid, gid_t gid, struct strbuf *err) {
        _cleanup_free_ char *mdir = xasprintf("%s/%s", dir, HA_MARKER_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", mdir, name);
        int r = marker_dir_write(mdir, path, line, uid, gid, err);
        return r < 0 ? r : 0;
}

int ha_takeover_mark(const char *dir, const char *unit, uid_t uid, gid_t gid, struct strbuf *err) {
        _cleanup_free_ char *line = xasprintf("%s %lld\n", unit, (long long) time(NULL));
        return shared_note_write(dir, "takeover", line, uid, gid, err);
}

int ha_charge_mark_write(
        const char *dir, long index, const char *host, time_t t, uid_t uid, gid_t gid, struct strbuf *err) {
        _cleanup_free_ char *line = xasprintf("%ld %lld %s\n", index, (long long) t, strempty(host));
        return shared_note_write(dir, "charge", line, uid, gid, err);
}

int ha_charge_mark_read(const char *dir, long *ret_index, time_t *ret_time, char **ret_host) {
        _cleanup_free_ char *path = xasprintf("%s/%s/charge", dir, HA_MARKER_DIR), *data = NULL;
        long idx;
        long long t;
        char host[256] = "";
        int r = read_untrusted_file(path, 4096, &data, NULL, NULL);
        if (r < 0)
                return r;
        int n = sscanf(data, "%ld %lld %255s", &idx, &t, host);
        if (n < 2 || idx < 0)
                return -EINVAL;
        *ret_index = idx;
        *ret_time = (time_t) t;
        if (ret_host)
                *ret_host = n == 3 ? xstrdup(host) : NULL;
        return 0;
}

/* the index of host in "host(addr)" entries, -1 when absent */
static long controller_pos(const struct strv *controllers, const char *host) {
        for (size_t i = 0; i < controllers->n; i++) {
                const char *rest = startswith(controllers->v[i], host);
                if (rest && (*rest == '(' || *rest == '\0'))
                        return (long) i;
        }
        return -1;
}

bool ha_charge_behind(const struct strv *controllers, const char *self_host, const char *charge_host) {
        if (isempty(self_host) || isempty(charge_host) || streq(self_host, charge_host))
                return false;
        long self = controller_pos(controllers, self_host), boss = controller_pos(controllers, charge_host);
        return self >= 0 && boss > self;
}

int ha_takeover_unmark(const char *dir, const char *unit, uid_t uid, gid_t gid) {
        _cleanup_free_ char *who = NULL, *mdir = xasprintf("%s/%s", dir, HA_MARKER_DIR);
        _cleanup_free_ char *path = xasprintf("%s/takeover", mdir);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        time_t when;
        if (ha_takeover_read(dir, &who, &when) < 0 || !streq(who, unit))
                return 0;
        /* as SlurmUser, as it was written: root never unlinks through that user's links (R7) */
        return marker_dir_write(mdir, path, NULL, uid, gid, &e) == 0 ? 1 : 0;
}

int ha_takeover_read(const char *dir, char **ret_unit, time_t *ret_time) {
        _cleanup_free_ char *path = xasprintf("%s/%s/takeover", dir, HA_MARKER_DIR), *data = NULL;
        char unit[128];
        long long t;
        int r = read_untrusted_file(path, 4096, &data, NULL, NULL);
        if (r < 0)
                return r;
        if (sscanf(data, "%127s %lld", unit, &t) != 2)
                return -EINVAL;
        *ret_unit = xstrdup(unit);
        *ret_time = (time_t) t;
        return 0;
}

int ha_charge_note(const char *state_dir, bool in_charge, uint64_t activation, struct strbuf *err) {
        _cleanup_free_ char *path = xasprintf("%s/%s", state_dir, HA_IN_CHARGE_FILE), *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0 && r != -ENOENT) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        int was = -1;
        unsigned long long act = 0;
        if (r >= 0 && sscanf(data, "%d %llu", &was, &act) != 2)
                was = -1;
        if (was == (int) in_charge && act == activation)
                return 0;
        _cleanup_free_ char *line = xasprintf("%d %llu\n", (int) in_charge, (unsigned long long) activation);
        r = mkdir_p(state_dir, 0700);
        if (r >= 0)
                r = write_file_atomic(path, line, strlen(line), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        return in_charge && (was != 1 || act != activation);
}

static uint64_t be64(const unsigned char *b) {
        uint64_t v;
        memcpy(&v, b, sizeof v);
        return be64toh(v);
}

/* One of the beat's two names: 16 bytes, a regular file that is no link. Its writer's own
 * second name is the one link allowed: between slurmctld's link of heartbeat.new to heartbeat
 * and its unlink of heartbeat.new, both name one file (st_nlink 2; read_untrusted_file refuses
 * that, -EMLINK, which read as "none in charge" too: review of stop 60), and a slurmctld killed
 * there leaves it so until the next beat. Any other second link is refused. */
static int beat_file_read(int dfd, const char *name, const char *other, time_t *ret_time, uint64_t *ret_index) {
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        struct stat st, ost;
        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        if (st.st_nlink == 2) {
                if (fstatat(dfd, other, &ost, AT_SYMLINK_NOFOLLOW) < 0 || ost.st_dev != st.st_dev ||
                        ost.st_ino != st.st_ino)
                        return -EMLINK;
        } else if (st.st_nlink != 1)
                return -EMLINK;
        if (st.st_size != 16)
                return -EINVAL;
        unsigned char data[16];
        ssize_t n = pread(fd, data, sizeof data, 0);
        if (n < 0)
                return -errno;
        if (n != (ssize_t) sizeof data)
                return -EINVAL;
        *ret_time = (time_t) be64(data);
        *ret_index = be64(data + 8);
        return 0;
}

int ha_heartbeat_read(const char *dir, time_t *ret_time, uint64_t *ret_index) {
        /* slurmctld's beat is no rename: heartbeat.new written and synced, then heartbeat
         * unlinked, heartbeat.new linked to it and unlinked (heartbeat.c; its own reader tries
         * the open 3 times, 100 ms apart). Between the unlink and the link there is no
         * heartbeat, and heartbeat.new holds the beat whole: read there, then again here if the
         * link came meanwhile, without sleeping. Before, that moment read as "none in charge",
         * and a unit's status said so until its next hook (charm-ha, 24.11, once). */
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        int r = -ENOENT;
        for (int i = 0; i < 3 && r == -ENOENT; i++) {
                r = beat_file_read(dfd, "heartbeat", "heartbeat.new", ret_time, ret_index);
                if (r != -ENOENT)
                        break;
                r = beat_file_read(dfd, "heartbeat.new", "heartbeat", ret_time, ret_index);
                if (r != 0)
                        r = -ENOENT; /* gone (linked meanwhile) or being written: look again */
        }
        return r;
}

int ha_heartbeat_write(const char *dir, time_t t, uint64_t index, uid_t uid, gid_t gid) {
        const uint64_t data[2] = { htobe64((uint64_t) t), htobe64(index) };
        _cleanup_free_ char *path = xasprintf("%s/heartbeat", dir);
        return write_file_atomic(path, data, sizeof data, 0600, uid, gid);
}

int64_t ha_heartbeat_age(const char *dir, time_t now, time_t *ret_time, uint64_t *ret_index) {
        time_t t = 0;
        uint64_t idx = 0;
        if (!dir || ha_heartbeat_read(dir, &t, &idx) < 0)
                return -1;
        if (ret_time)
                *ret_time = t;
        if (ret_index)
                *ret_index = idx;
        return now > t ? (int64_t) (now - t) : 0;
}

long ha_heartbeat_fresh(const char *dir, int64_t timeout_s) {
        time_t t;
        uint64_t idx;
        if (!dir || ha_heartbeat_read(dir, &t, &idx) < 0 || time(NULL) - t > timeout_s || idx > LONG_MAX)
                return -1;
        return (long) idx;
}

long ha_leave_successor(long self, bool self_in_charge, const bool *up, size_t n) {
        if (self < 0 || (size_t) self >= n || !(self == 0 || self_in_charge))
                return -1;
        for (size_t i = 1; i < n; i++)
                if ((long) i != self && up[i])
                        return (long) i;
        return -1;
}

void ha_role_message(long self, long in_charge, char *const *hosts, size_t n_hosts, struct strbuf *out) {
        const char *boss = in_charge >= 0 && (size_t) in_charge < n_hosts ? hosts[in_charge] : NULL;
        if (self < 0) {
                strbuf_addstr(out, "not a controller yet");
                return;
        }
        if (self == 0)
                strbuf_addstr(out, "primary");
        else
                strbuf_addf(out, "backup %ld", self);
        if (in_charge == self)
                strbuf_addstr(out, ", in charge");
        else if (boss)
                strbuf_addf(out, ", %s in charge", boss);
        else
                strbuf_addstr(out, ", none in charge");
}

void ha_app_message(long in_charge, char *const *hosts, size_t n_hosts, struct strbuf *out) {
        strbuf_addf(out, "%zu controller%s, ", n_hosts, n_hosts == 1 ? "" : "s");
        if (in_charge >= 0 && (size_t) in_charge < n_hosts)
                strbuf_addf(out, "%s in charge", hosts[in_charge]);
        else
                strbuf_addstr(out, "none in charge");
}

/* --- the peer relation ------------------------------------------------------------------------ */

void ha_view_done(struct ha_view *v) {
        strv_clear(&v->order);
        strv_clear(&v->controllers);
        free(v->not_shared_with);
        free(v->takeover);
        free(v->first_serving);
        v->not_shared_with = v->takeover = v->first_serving = NULL;
        v->self = -1;
}

static bool word_ok(const char *s) {
        return !isempty(s) && !strpbrk(s, " ()=#\"'\t\n");
}

/* "host(addr)" of a peer bag, or NULL. */
static char *host_addr(const cJSON *bag) {
        const char *h = charm_bag_string(bag, "hostname");
        const char *a = charm_bag_string(bag, "ingress-address");
        if (isempty(a))
                a = charm_bag_string(bag, "private-address");
        return word_ok(h) && word_ok(a) ? xasprintf("%s(%s)", h, a) : NULL;
}

static void split_words(const char *s, struct strv *ret) {
        _cleanup_free_ char *copy = xstrdup(strempty(s));
        char *save = NULL;
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
                strv_push(ret, w);
}

/* The time of the last takeover the leader put first ("takeover-done": "<unit> <time>"). */
static long long takeover_done_at(const cJSON *app) {
        const char *done = charm_bag_string(app, "takeover-done");
        const char *sp = done ? strchr(done, ' ') : NULL;
        return sp ? atoll(sp + 1) : 0;
}

int ha_request_first(struct juju_ctx *ctx, const char *peer_rel, struct strbuf *err) {
        char now[32];
        snprintf(now, sizeof now, "%lld", (long long) time(NULL));
        return juju_relation_set(ctx, peer_rel, false, "takeover-request", now, err);
}

int ha_peers_sync(
        struct juju_ctx *ctx, const struct ha_peers_input *in, struct ha_view *ret, struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_strv_ struct strv peers = STRV_INIT, present = STRV_INIT, admissible = STRV_INIT;
        _cleanup_free_ char *token = NULL, *self_ha = NULL;
        _cleanup_free_ const cJSON **bags = NULL;
        struct ha_view v = HA_VIEW_INIT;
        int r;

        r = ha_token(in->paths, &token, err);
        if (r < 0)
                return r;
        r = ha_marker_write(in->state_dir, env->unit, token, in->slurm_uid, in->slurm_gid, err);
        if (r < 0)
                return r;
        r = juju_relation_list(ctx, in->peer_rel, &peers, err);
        if (r < 0)
                return r;
        bags = xcalloc(peers.n + 1, sizeof *bags);
        for (size_t i = 0; i < peers.n; i++) {
                r = juju_relation_get(ctx, in->peer_rel, peers.v[i], &bags[i], err);
                if (r < 0) {
                        ha_view_done(&v);
                        return r;
                }
                const char *t = charm_bag_string(bags[i], "state-marker");
                if (!v.not_shared_with && !ha_marker_seen(in->state_dir, peers.v[i], t))
                        v.not_shared_with = xstrdup(peers.v[i]);
        }
        r = charm_bag_update(ctx, in->peer_rel, false, in->peer_self, "hostname", in->hostname, err);
        if (r >= 0)
                r = charm_bag_update(ctx, in->peer_rel, false, in->peer_self, "state-marker", token, err);
        if (r >= 0) {
                _cleanup_free_ char *shared =
                        v.not_shared_with ? xasprintf("no: %s", v.not_shared_with) : xstrdup("yes");
                r = charm_bag_update(ctx, in->peer_rel, false, in->peer_self, "state-shared", shared, err);
        }
        if (r < 0) {
                ha_view_done(&v);
                return r;
        }

        if (in->leader) {
                /* who may run slurmctld: the leader when it sees everyone (or is alone), each
                 * other unit whose marker the leader sees and who sees everyone's */
                _cleanup_strv_ struct strv order = STRV_INIT;
                const char *first = NULL;
                long long done_at = takeover_done_at(in->peer_app), best = 0;
                strv_push(&present, env->unit);
                if (!v.not_shared_with)
                        strv_push(&admissible, env->unit);
                for (size_t i = 0; i < peers.n; i++) {
                        const char *t = charm_bag_string(bags[i], "state-marker");
                        strv_push(&present, peers.v[i]);
                        _cleanup_free_ char *ha = host_addr(bags[i]);
                        if (ha && ha_marker_seen(in->state_dir, peers.v[i], t) &&
                                streq_ptr(charm_bag_string(bags[i], "state-shared"), "yes"))
                                strv_push(&admissible, peers.v[i]);
                }
                /* the newest takeover request not handled yet (requests are times: one newer than
                 * the last handled one is pending) */
                const char *self_req = charm_bag_string(in->peer_self, "takeover-request");
                for (size_t i = 0; i <= peers.n; i++) {
                        const char *unit = i < peers.n ? peers.v[i] : env->unit;
                        const char *req =
                                i < peers.n ? charm_bag_string(bags[i], "takeover-request") : self_req;
                        long long at = req ? atoll(req) : 0;
                        if (at > done_at && at > best) {
                                best = at;
                                first = unit;
                        }
                }
                if (in->claim && !first) {
                        /* announced in the shared directory as the takeover action does, so that
                         * no other controller starts with the new list before this one runs it
                         * (two running lists disagree on what the heartbeat's index means) */
                        r = ha_takeover_mark(in->state_dir, env->unit, in->slurm_uid, in->slurm_gid, err);
                        if (r < 0) {
                                ha_view_done(&v);
                                return r;
                        }
                        first = env->unit;
                        best = (long long) time(NULL);
                }
                split_words(charm_bag_string(in->peer_app, "controller-order"), &order);
                ha_order_next(&order, &present, &admissible, first, &v.order);
                _cleanup_free_ char *joined = strv_join(&v.order, " ");
                r = charm_bag_update(ctx, in->peer_rel, true, in->peer_app, "controller-order", joined, err);
                if (r >= 0 && first) {
                        _cleanup_free_ char *d = xasprintf("%s %lld", first, best);
                        r = charm_bag_update(ctx, in->peer_rel, true, in->peer_app, "takeover-done", d, err);
                }
                /* the units the new first one moved past, from now on held while job steps that
                 * started with them ahead may run (charm/slurmctld/standby.h) */
                if (r >= 0) {
                        _cleanup_strbuf_ struct strbuf disp = STRBUF_INIT;
                        bool moved = first && v.order.n > 0 && streq(v.order.v[0], first) &&
                                order.n > 0 && !streq(order.v[0], first);
                        standby_displaced_next(charm_bag_string(in->peer_app, STANDBY_DISPLACED_KEY), &order,
                                moved ? first : NULL, &present, time(NULL), &disp);
                        r = charm_bag_update(ctx, in->peer_rel, true, in->peer_app, STANDBY_DISPLACED_KEY,
                                disp.buf ? disp.buf : "", err);
                        if (r >= 0)
                                v.displaced_since = standby_displaced_of(disp.buf, env->unit);
                }
                /* when each unit joined the order: a takeover onto a unit that running job steps
                 * do not list is refused (standby.h, STANDBY_JOINED_KEY) */
                if (r >= 0) {
                        _cleanup_strbuf_ struct strbuf jn = STRBUF_INIT;
                        standby_joined_next(charm_bag_string(in->peer_app, STANDBY_JOINED_KEY), &order,
                                &v.order, time(NULL), &jn);
                        r = charm_bag_update(ctx, in->peer_rel, true, in->peer_app, STANDBY_JOINED_KEY,
                                jn.buf ? jn.buf : "", err);
                }
                for (size_t i = 0; r >= 0 && i < v.order.n; i++) {
                        const cJSON *bag = NULL;
                        if (streq(v.order.v[i], env->unit)) {
                                self_ha = xasprintf("%s(%s)", in->hostname, in->address);
                                strv_push(&v.controllers, self_ha);
                                continue;
                        }
                        for (size_t k = 0; k < peers.n; k++)
                                if (streq(peers.v[k], v.order.v[i]))
                                        bag = bags[k];
                        _cleanup_free_ char *ha = bag ? host_addr(bag) : NULL;
                        if (ha)
                                strv_push(&v.controllers, ha);
                }
                if (r >= 0) {
                        _cleanup_free_ char *ctls = strv_join(&v.controllers, " ");
                        r = charm_bag_update(
                                ctx, in->peer_rel, true, in->peer_app, "controllers", ctls, err);
                }
                if (r < 0) {
                        ha_view_done(&v);
                        return r;
                }
        } else {
                split_words(charm_bag_string(in->peer_app, "controller-order"), &v.order);
                split_words(charm_bag_string(in->peer_app, "controllers"), &v.controllers);
                v.displaced_since = standby_displaced_of(
                        charm_bag_string(in->peer_app, STANDBY_DISPLACED_KEY), env->unit);
                /* a takeover the leader has not put first yet: a request newer than the last
                 * one handled */
                long long done_at = takeover_done_at(in->peer_app);
                for (size_t i = 0; i <= peers.n && !v.takeover; i++) {
                        const char *unit = i < peers.n ? peers.v[i] : env->unit;
                        const char *req = i < peers.n ? charm_bag_string(bags[i], "takeover-request")
                                                      : charm_bag_string(in->peer_self, "takeover-request");
                        if (req && atoll(req) > done_at)
                                v.takeover = xstrdup(unit);
                }
        }
        for (size_t i = 0; i < v.order.n; i++)
                if (streq(v.order.v[i], env->unit))
                        v.self = (long) i;
        for (size_t k = 0; v.order.n > 0 && k < peers.n; k++)
                if (streq(peers.v[k], v.order.v[0])) {
                        const char *sv = charm_bag_string(bags[k], "serving");
                        v.first_serving = sv ? xstrdup(sv) : NULL;
                }
        *ret = v;
        return 0;
}

int ha_publish_serving(struct juju_ctx *ctx, const char *peer_rel, const cJSON *peer_self,
        const struct strv *order, struct strbuf *err) {
        _cleanup_free_ char *joined = strv_join(order, " ");
        int r = charm_bag_update(ctx, peer_rel, false, peer_self, "serving", joined, err);
        return r < 0 ? r : 0;
}
