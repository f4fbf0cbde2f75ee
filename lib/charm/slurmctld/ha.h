/* SPDX-License-Identifier: Apache-2.0 */
/* Several slurmctld units (high availability): the controller order kept by the leader, the
 * proof that StateSaveLocation is one directory shared by all of them, and who is in charge.
 *
 * Design note (facts of slurmctld 22.05.8, read in its source and measured in juju-sim,
 * HACKING.md "High availability").
 *  - Order. SlurmctldHost lines: the first is the primary, the others backups in turn. The order
 *    lives in the peer application bag ("controller-order": unit names, space-separated),
 *    written by the leader only: a unit keeps its place when others come and go (leaving units
 *    are removed in place, new ones appended by unit number), so a leader change never reorders
 *    (ha_order_next). A takeover (the action, or a backup's claim after a failover) is the one
 *    way to move a unit first; the units it moves past are recorded ("displaced", standby.h).
 *  - Shared state. Two controllers with private state directories lose jobs (a backup taking
 *    over finds no jobs, reuses job ids, and the primary kills what it accepted at failback). So
 *    each unit writes a marker file <StateSaveLocation>/HA_MARKER_DIR/<unit> holding a random
 *    token (created once, kept in the unit's state dir) as SlurmUser (root_squash-proof), publishes
 *    the token in its peer unit bag, and reports in that bag whether it sees every other unit's
 *    marker with the right token ("state-shared"). The leader admits a unit to the order only
 *    when it sees that unit's marker and the unit sees everyone's (ha_admissible), so no unit runs
 *    slurmctld on a private directory next to others. slurmctld itself only ever scans hash.* in
 *    that directory, so the marker directory does not disturb it.
 *  - Who is in charge. A standby backup answers pings too (backup.c:421), so a ping does not
 *    tell; the controller in charge writes <StateSaveLocation>/heartbeat every min(T/4, 30) s
 *    (8 bytes big-endian time, 8 bytes big-endian index into ITS SlurmctldHost list: Slurm
 *    22.05's heartbeat.c), which the backups read themselves (ha_heartbeat_read).
 *  - Failback is automatic in Slurm: the primary, when its slurmctld starts, asks the backups to
 *    hand over before it reads state (controller.c:612, ~70 ms). So a backup that took charge
 *    asks to be made the primary (as a takeover does), and the one that was away returns as its
 *    standby (slurmctld.c claim_first; the units moved past are held while old job steps may ask
 *    them first, charm/slurmctld/standby.h). A takeover (slurm_takeover(i))
 *    shuts down every controller ahead of i with exit status 0, so the charm must not start
 *    them again before the leader has put i first (ha_view.takeover: a takeover not yet in the
 *    order).
 *
 * Ownership: strings returned are the caller's; lists are appended to the caller's strv. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define HA_MARKER_DIR "charm-markers"
#define HA_TOKEN_FILE "state-marker"
/* How long an announced takeover holds the controllers ahead of it down, at most. */
#define HA_TAKEOVER_WAIT_S 600
/* Most controllers (SlurmctldHost lines) the charm renders. */
#define HA_MAX_CONTROLLERS 8

/* The next controller order (pure): the units of order still present, in their places; then
 * the admissible units not in it, by unit number. present and admissible are sets of unit
 * names (the leader included); at most HA_MAX_CONTROLLERS are kept. A unit first (a takeover)
 * moves to the front when not NULL and present. */
void ha_order_next(const struct strv *order, const struct strv *present, const struct strv *admissible,
        const char *first, struct strv *ret);

/* This unit's marker token (hex), made once and kept in <state>/HA_TOKEN_FILE. */
int ha_token(const struct charm_paths *paths, char **ret, struct strbuf *err);
/* Writes <dir>/HA_MARKER_DIR/<unit> (unit with "/" as "-") holding token, owned by uid:gid and
 * only readable by them, durably (fsync, rename, fsync of the directory); 1 written, 0 already
 * there with that token. */
int ha_marker_write(
        const char *dir, const char *unit, const char *token, uid_t uid, gid_t gid, struct strbuf *err);
/* Whether <dir>/HA_MARKER_DIR/<unit> holds token: 1 yes, 0 no (missing or another token). */
int ha_marker_seen(const char *dir, const char *unit, const char *token);

/* The heartbeat slurmctld's controller in charge writes: its time and its index. -ENOENT when
 * there is none (one controller, or never in charge), -EINVAL for a malformed file. The moment
 * of each beat when slurmctld has unlinked heartbeat and not yet linked heartbeat.new to it is
 * read from heartbeat.new. */
int ha_heartbeat_read(const char *dir, time_t *ret_time, uint64_t *ret_index);
/* Writes it as slurmctld does (16 bytes, big-endian time and index; owner uid:gid, mode 0600),
 * atomically. Only the fence's rewind (fence.h) writes it, after this unit's slurmctld exited. */
int ha_heartbeat_write(const char *dir, time_t t, uint64_t index, uid_t uid, gid_t gid);

/* The heartbeat's age at now in seconds (0 when it is from the future: a writer's clock ahead),
 * with its time and writer when ret_* are given; -1 when there is none (dir NULL, unreadable). */
int64_t ha_heartbeat_age(const char *dir, time_t now, time_t *ret_time, uint64_t *ret_index);

/* The index in charge: the heartbeat's writer when the heartbeat is at most timeout_s old, else
 * -1 (none, stale, unreadable; dir NULL). */
long ha_heartbeat_fresh(const char *dir, int64_t timeout_s);

/* The controller in charge as its sentinel saw it (charm/slurmctld/fence.h), in the shared directory
 * (<dir>/HA_MARKER_DIR/charge: "<index> <time> <host>"): written by the sentinels only, so that a
 * machine frozen whole can tell, when it continues, whether another controller took charge
 * meanwhile, even after its own stale slurmctld wrote the heartbeat again. */
int ha_charge_mark_write(
        const char *dir, long index, const char *host, time_t t, uid_t uid, gid_t gid, struct strbuf *err);
/* 0 with the mark's index, time and writer's host (*ret_host malloc'd, NULL in a mark from
 * before the host was written; ret_host may be NULL), -ENOENT when there is none, -EINVAL when
 * malformed. The host is what tells: an index means another controller once the order changed. */
int ha_charge_mark_read(const char *dir, long *ret_index, time_t *ret_time, char **ret_host);
/* Whether charge_host (the charge mark's writer, another controller in charge) comes after
 * self_host in controllers ("host(addr)" entries, primary first): then this unit's slurmctld must
 * not start before the leader has moved that one first, since a primary's start (and a backup's
 * takeover) takes control from every controller behind it (a fence lifted before the new primary's
 * claim landed: fresh-clone CI, charm-fence-debian13, the returning primary took control back).
 * False when either is not in the list. Pure. */
bool ha_charge_behind(const struct strv *controllers, const char *self_host, const char *charge_host);

/* Taking charge, told to the compute units. A controller that takes charge (a failover, a
 * failback, a takeover) may have read state saved before the last dynamic node registrations
 * (saved only by slurmctld's 5-minute checkpoint; 24.11's failback reads the backup's state
 * before the backup's last save, HACKING.md): those nodes are unknown to it and get no job
 * until their slurmd registers again. So a controller unit whose hook finds its slurmctld newly
 * in charge sets HA_IN_CHARGE_KEY (the time, decimal) in its unit bag of every slurmd relation;
 * the change runs slurmctld-relation-changed on the compute units, whose reconcile finds its node
 * unknown and restarts slurmd to register it (the check update-status does). */
#define HA_IN_CHARGE_KEY "in-charge-since"
#define HA_IN_CHARGE_FILE "in-charge"
/* Records in <state_dir>/HA_IN_CHARGE_FILE ("1 <activation>" or "0 <activation>") whether this
 * unit's slurmctld is in charge, and which activation of slurmctld.service that is (its
 * ActiveEnterTimestampMonotonic: a restart, also systemd's own or a paused unit's resume, is a
 * new one; 24.11's re-exec on a reconfigure is not). Returns 1 when it is in charge and the last
 * record said it was not, or was of another activation (none or an unreadable one counts as not
 * in charge), else 0. A controller that lost charge and took it back between two hooks of its
 * unit, in one activation, is not seen (HACKING.md). */
int ha_charge_note(const char *state_dir, bool in_charge, uint64_t activation, struct strbuf *err);

/* The controller a leaving unit hands control to (slurm_takeover) before it stops slurmctld:
 * when this unit is the primary (self 0), or a backup whose own slurmctld answers that it is in
 * charge (self_in_charge: slurm_ctl_self_in_charge, asked directly; a heartbeat's index names an
 * entry of its writer's list, which a reorder makes another unit's: a first version that took it
 * for this unit's index handed nothing over from a primary whose running daemon still had the
 * old order, and the new primary was fenced, found in a fresh-clone charm-ha), the first other
 * backup that answers (up[i], index ≥ 1: REQUEST_TAKEOVER is a backup's to serve; a primary
 * that runs takes control by itself). -1 when none. Pure. */
long ha_leave_successor(long self, bool self_in_charge, const bool *up, size_t n);

/* The role line for the status: "primary, in charge", "backup 1 of juju-m-0 (in charge)", … from
 * this unit's index in the order (-1: not in it), the index in charge (-1: unknown) and the
 * controller host names in order. Appended to out. */
void ha_role_message(long self, long in_charge, char *const *hosts, size_t n_hosts, struct strbuf *out);
/* The application's line: "3 controllers, juju-m-1 in charge" ("…, none in charge" when
 * in_charge is not an index of hosts). Appended to out. */
void ha_app_message(long in_charge, char *const *hosts, size_t n_hosts, struct strbuf *out);

/* --- the peer relation ------------------------------------------------------------------------ */

/* What ha_peers_sync() needs of the unit. */
struct ha_peers_input {
        const struct charm_paths *paths;
        const char *peer_rel;
        const cJSON *peer_app;  /* the peer app bag (read) */
        const cJSON *peer_self; /* this unit's peer bag (read) */
        bool leader;
        const char *hostname, *address; /* this unit's */
        const char *state_dir;          /* StateSaveLocation as this unit sees it (exists, SlurmUser's) */
        uid_t slurm_uid;
        gid_t slurm_gid;
        /* the leader's own slurmctld took charge as a backup (a failover): it moves itself
         * first, as a takeover request would (it gets no hook for its own request) */
        bool claim;
};

/* The controllers as this unit sees them after ha_peers_sync(). */
struct ha_view {
        struct strv order;       /* unit names, primary first */
        struct strv controllers; /* "host(addr)" of each unit of order whose bag says both */
        long self;               /* this unit's index in order, -1 when not in it */
        char *not_shared_with;   /* a unit whose marker this unit does not see (NULL: all seen) */
        char *takeover;          /* a unit that took over and is not first yet (NULL: none) */
        char *first_serving;     /* what the first unit says it runs ("serving": its order), or NULL */
        time_t displaced_since;  /* when a takeover moved another unit ahead of this one (charm/slurmctld/standby.h); 0 */
};
#define HA_VIEW_INIT \
        { .order = STRV_INIT, .controllers = STRV_INIT, .self = -1 }
void ha_view_done(struct ha_view *v);

/* Every unit: writes its marker, publishes hostname, token ("state-marker") and whether it sees
 * every other unit's marker ("state-shared": "yes", or the unit it does not see) in its peer
 * bag. The leader: the order (ha_order_next over the units present and admissible: whose marker
 * it sees and who see everyone's; a unit asking for a takeover, "takeover-request" in its bag
 * newer than the app bag's "takeover-done", moves first) and the "controllers" list, in the app
 * bag. Others read them. Fills *ret. */
int ha_peers_sync(
        struct juju_ctx *ctx, const struct ha_peers_input *in, struct ha_view *ret, struct strbuf *err);

/* A takeover announced in the shared state directory (<dir>/HA_MARKER_DIR/takeover: "<unit>
 * <time>"), written by the takeover action BEFORE it takes control: the other controllers'
 * hooks (the watcher's, right when their slurmctld stops) see it at once, where the request in
 * the peer bag only shows after the action ends. */
int ha_takeover_mark(const char *dir, const char *unit, uid_t uid, gid_t gid, struct strbuf *err);
/* Removes the announcement when it names unit (a takeover that failed after announcing), as
 * uid:gid (SlurmUser: the directory is that user's); 1 removed, 0 it names another, there is
 * none or it could not be removed. */
int ha_takeover_unmark(const char *dir, const char *unit, uid_t uid, gid_t gid);
/* The announced takeover: 0 and *ret_unit (caller frees) and *ret_time, -ENOENT when none. */
int ha_takeover_read(const char *dir, char **ret_unit, time_t *ret_time);

/* After this unit's slurmctld took the file: publishes the order it runs ("serving"), which
 * tells the others (a displaced primary waits for the new one, ha_view.first_serving). */
int ha_publish_serving(struct juju_ctx *ctx, const char *peer_rel, const cJSON *peer_self,
        const struct strv *order, struct strbuf *err);

/* Action takeover's peer part: writes "takeover-request" (the time) into this unit's peer bag,
 * for the leader to put the unit first. */
int ha_request_first(struct juju_ctx *ctx, const char *peer_rel, struct strbuf *err);
