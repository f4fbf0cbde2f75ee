/* SPDX-License-Identifier: Apache-2.0 */
/* The node event log: a snapshot of the node table, the difference between the last snapshot
 * and the table now as typed events, and the JSON-lines log those events are appended to.
 *
 * Pure core and files only (no Slurm call, no Juju): charm/slurmctld/nodeevents.h reads Slurm's table and
 * the trigger spool, takes the lock and calls ev_step() then ev_commit().
 *
 * Events (one record per real change of a node, per node in this order):
 *   added, removed                the node appeared in / vanished from the table
 *   down, up                      its base state became / stopped being DOWN
 *   draining, drained, resumed    the DRAIN (or FAIL) flag: set while it still holds work, set and
 *                                 no work left, cleared
 *   reason                        its reason text changed while it stays down or drained
 *   rebooted                      its boot time moved forward (more than EV_BOOT_SLACK_S)
 *   slurmctld-started             the controller's boot time changed (a restart, a takeover, a
 *                                 failover, when the controller's process is another);
 *                                 "controller": the host in charge as the log knows it (below)
 *   control-moved                 another host is in charge now (a failover, takeover or
 *                                 failback: a backup taking control keeps its boot time, so
 *                                 this is the record that tells it); "controller" is the new
 *                                 host, "previous-controller" the one before. Hosts come from the
 *                                 controller trigger (its program writes its host name) and the
 *                                 observation's ctl_host (the charge mark), whichever is newer
 *                                 than the last change the log knows: a stale mark of a lost
 *                                 controller never moves control back. The first host the log
 *                                 learns gives no record.
 * A node added down or drained gets "added" then "down"/"drained". The first step of a new log
 * only takes the snapshot (no record): the log tells changes, not the initial inventory.
 *
 * Sources. A record's source is "trigger" when a Slurm trigger named that node with that event
 * (ev_hint: down, drained, up) before any reconcile saw the change, else "reconcile" (the
 * difference of two snapshots; whoever sees a change first records it); its cause is why the
 * step ran ("trigger:drained,reconfig", "update-status", "poll", …). A trigger that names a node
 * whose snapshots show no such change (it went down and came back between two steps) gives a
 * "transient" record at the trigger's time, unless the log recorded that event for that node
 * within EV_TRIGGER_WINDOW_MS before the trigger ran (a trigger fires up to ~16 s after the
 * event: the same change seen twice is recorded once). Transients of one node are ordered from
 * its last known state (down before: up, down, drained; else down, drained, up), and go before
 * its "removed". A trigger's node name is believed only for a node the snapshot has known for
 * the whole window: slurmctld 22.05 names pending events by node index at its next pass, so a
 * node deleted meanwhile hands its events to the node that takes its index (seen: a leaving
 * node's "drained" reported as the newly registered node's).
 *
 * The record (one JSON object per line, keys in this order; absent keys are omitted):
 *   {"seq":12,"id":"3f9a1c20-12","time":"2026-01-02T03:04:05.678Z","event":"drained",
 *    "node":"compute-0","state":"IDLE+DRAIN+DYNAMIC_NORM","reason":"disk","source":"trigger",
 *    "cause":"trigger:drained,reconfig","transient":true,"boot-time":"…","controller":"host",
 *    "previous-controller":"host"}
 * seq: 1, 2, 3, … per log, never reused (also across rotation and a lost snapshot); id: the
 * log's random id and seq, unique across the controller units' logs and log resets, never
 * changed; time: when the change was seen (a transient's: when its trigger ran), UTC.
 *
 * Files in the log directory dir (created 0700; the caller's, e.g. <state>/events):
 *   .lock                  flock(2): one writer at a time (hooks, the watcher, actions), also
 *                          on NFS (ev_lock; `lock` and the directory: older versions')
 *   state.json             the snapshot (0600, atomic): log id, next seq, nodes, the records of
 *                          the last step ("pending") until they are surely in the log
 *   node-events.jsonl      the log, oldest first; node-events.1.jsonl the part before it
 * Durability: ev_commit() writes state.json (new snapshot + the step's records) atomically
 * FIRST, then appends those records to the log (write, fsync). A crash between the two leaves
 * them pending: the next ev_commit()/ev_state_load() appends what the log lacks (by seq). So no
 * record is lost and none is written twice. A partial last line (crash inside a write) is cut
 * before the next append. Rotation: when an append would take the log past cap/2 bytes, the
 * log becomes node-events.1.jsonl (replacing the older part) and a new log starts; the two
 * files hold at most about cap bytes.
 *
 * Functions return 0 (or a count) or a negative errno with one message appended to err (may be
 * NULL). Ownership: every struct owns its strings; the *_done() functions free them and accept
 * zeroed structs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/strv.h"

#define EV_LOG_FILE "node-events.jsonl"
#define EV_LOG_OLD_FILE "node-events.1.jsonl"
#define EV_STATE_FILE "state.json"
#define EV_LOCK_FILE "lock"
#define EV_DIRLOCK_FILE ".lock" /* the log's lock (flock on this regular file) */
#define EV_LOG_CAP_DEFAULT ((size_t) 4 * 1024 * 1024)
#define EV_LOG_CAP_MIN ((size_t) 4096)
#define EV_TRIGGER_WINDOW_MS (20 * 1000)
#define EV_BOOT_SLACK_S 10
#define EV_LOG_ID_LEN 8
#define EV_REASON_MAX 256
#define EV_HOST_MAX 255
#define EV_LOCK_TIMEOUT_MS (60 * 1000)

enum ev_kind {
        EV_ADDED,
        EV_REMOVED,
        EV_DOWN,
        EV_UP,
        EV_DRAINING,
        EV_DRAINED,
        EV_RESUMED,
        EV_REASON,
        EV_REBOOTED,
        EV_SLURMCTLD_STARTED,
        EV_CONTROL_MOVED,
        EV_ACTION, /* an operator action of the charm changed nodes (source "action") */
        EV_KIND_MAX,
};
/* "added", …, "slurmctld-started"; NULL out of range. */
const char *ev_kind_name(enum ev_kind k);

/* What a trigger said (a spool record, charm/slurmctld/eventspool.h). */
enum ev_hint_kind {
        EV_HINT_DOWN,      /* nodes went DOWN */
        EV_HINT_DRAINED,   /* nodes became drained (no work left) */
        EV_HINT_UP,        /* nodes left DOWN */
        EV_HINT_RECONFIG,  /* a reconfigure, node update or delete: no node names */
        EV_HINT_SLURMCTLD, /* a controller took control (start, takeover) */
        EV_HINT_MAX,
};
/* "down", "drained", "up", "reconfig", "slurmctld"; NULL out of range. */
const char *ev_hint_name(enum ev_hint_kind k);
/* The kind of a name above; -EINVAL for anything else. */
int ev_hint_parse(const char *name, enum ev_hint_kind *ret);

struct ev_hint {
        enum ev_hint_kind kind;
        int64_t time_ms;   /* when the trigger program ran (ms since the epoch) */
        struct strv nodes; /* down, drained, up: the node names (expanded) */
        char *host;        /* slurmctld: the host the trigger ran on (the one taking control), or NULL */
};
void ev_hint_done(struct ev_hint *h);

/* The per-node memory of a snapshot. */
#define EV_CLS_DOWN 1U  /* base state DOWN */
#define EV_CLS_DRAIN 2U /* DRAIN or FAIL flag */
#define EV_CLS_BUSY 4U  /* still holds work (kept only with EV_CLS_DRAIN: draining) */
enum { EV_SEEN_DOWN, EV_SEEN_DRAINED, EV_SEEN_UP, EV_SEEN_N };

struct ev_node {
        char *name;
        uint32_t state;             /* Slurm's state bits now (a table); not kept in snapshots */
        unsigned cls;               /* EV_CLS_* of state */
        char *reason;               /* NULL when none (at most EV_REASON_MAX bytes) */
        int64_t reason_time;        /* s */
        int64_t boot_time;          /* s; 0 unknown */
        int64_t seen_ms[EV_SEEN_N]; /* when this log last recorded it down, drained, up */
        int64_t since_ms;           /* when the snapshot first had it */
};

struct ev_table {
        struct ev_node *v;
        size_t n;
};
void ev_table_done(struct ev_table *t);
/* Appends a node (strings copied; cls computed from state; reason cut to EV_REASON_MAX). */
void ev_table_add(struct ev_table *t, const char *name, uint32_t state, const char *reason,
        int64_t reason_time, int64_t boot_time);
/* EV_CLS_* of Slurm state bits (pure). */
unsigned ev_state_class(uint32_t state);

struct ev_record {
        uint64_t seq;
        int64_t time_ms;
        enum ev_kind kind;
        char *node;     /* NULL for slurmctld-started */
        uint32_t state; /* the node's state bits when seen (0 for removed and controller records) */
        bool has_state;
        char *reason; /* down, draining, drained, reason, added: the node's reason */
        bool from_trigger;
        bool transient;
        bool inferred; /* a transient change no trigger reported, implied by the others (close_transients) */
        char *cause;
        int64_t boot_time; /* slurmctld-started: the new boot time (s) */
        char *controller;  /* slurmctld-started, control-moved: the host in charge, when known */
        char *previous;    /* control-moved: the host in charge before */
        char *action;      /* action: the action's name ("node-drain") */
        char *by;          /* action: who ran it ("slurmctld/0 action 12") */
        char *detail;      /* action: what it set besides the reason ("weight=10"), or NULL */
};
struct ev_records {
        struct ev_record *v;
        size_t n;
};
void ev_records_done(struct ev_records *r);

struct ev_state {
        bool exists;                    /* a snapshot was taken before */
        char log_id[EV_LOG_ID_LEN + 1]; /* hex */
        uint64_t next_seq;              /* >= 1 */
        int64_t table_time;             /* Slurm's update time of the last table read (s) */
        int64_t ctl_boot, ctl_update;   /* the controller's boot time, its config time (s) */
        char ctl_host[EV_HOST_MAX + 1]; /* the host in charge as last learned ("" unknown) */
        int64_t ctl_host_ms;            /* when that was learned (its source's time) */
        struct ev_table nodes;          /* sorted by name */
        struct strv pending;            /* the last step's records as log lines */
        struct strv unit_noted;         /* "<unit> <log> <seq>": the last of a compute unit's own
                                         * actions recorded (interfaces/nodeactions.h), the most
                                         * recently moved last, at most EV_UNIT_NOTED_MAX */
};
void ev_state_done(struct ev_state *s);

#define EV_UNIT_NOTED_MAX 1024
/* A list of "<unit> <log> <seq>" entries (the snapshot's unit_noted, the leader's seen file,
 * charm/slurmctld/unitacts.h): the seq of unit's list log (0 none); set it, moved last, the
 * oldest entries dropped beyond max. Pure. */
uint64_t ev_noted_get(const struct strv *l, const char *unit, const char *log);
void ev_noted_set(struct strv *l, const char *unit, const char *log, uint64_t seq, size_t max);
/* The seq of unit's list log (nodeactions.h) recorded last; 0 none. */
uint64_t ev_unit_noted(const struct ev_state *s, const char *unit, const char *log);
/* Records that seq of unit's list log is recorded (moved last; the oldest entry dropped beyond
 * EV_UNIT_NOTED_MAX). */
void ev_unit_noted_set(struct ev_state *s, const char *unit, const char *log, uint64_t seq);

/* One look at Slurm. */
struct ev_observation {
        const struct ev_table *table; /* NULL: unchanged since the snapshot (no-change answer) */
        int64_t table_time;
        int64_t ctl_boot, ctl_update; /* 0: not read (unchanged) */
        const char *ctl_host;         /* the host in charge when known otherwise, or NULL */
        int64_t ctl_host_ms;          /* since when ctl_host says so (its source's time, ms) */
        const struct ev_hint *hints;  /* the spool records of this step */
        size_t n_hints;
        const char *cause;
        int64_t now_ms;
};

/* The next snapshot and the new records (numbered from prev->next_seq; also formatted into
 * ret_next->pending when there are any). Pure. Returns 1 when ret_next must be committed
 * (records, or a snapshot that differs in what it keeps), 0 when prev stays as it is. */
int ev_step(const struct ev_state *prev, const struct ev_observation *obs, struct ev_state *ret_next,
        struct ev_records *ret_new);

/* What an operator action did (issue 29: the log says who changed a node, not only that it
 * changed): one "action" record per node (one without a node when nodes is empty). */
struct ev_note {
        const char *action;      /* "node-drain", … */
        const char *by;          /* "slurmctld/0 action 12" */
        char *const *nodes;      /* the nodes it changed */
        size_t n_nodes;
        const char *reason;      /* or NULL */
        const char *detail;      /* or NULL */
};
/* Adds note's records to s (numbered from s->next_seq, which moves on; s->pending becomes
 * their lines, what ev_commit() appends) and to ret (may be NULL); the snapshot itself is
 * untouched, so the next reconcile still records the state change the action made. Strings
 * are cut to EV_REASON_MAX. Pure. Returns the number of records. */
size_t ev_note_records(struct ev_state *s, const struct ev_note *note, int64_t now_ms, struct ev_records *ret);

/* One log line (no newline) for r in the log log_id. */
void ev_record_format(const struct ev_record *r, const char *log_id, struct strbuf *out);
/* "2026-01-02T03:04:05.678Z" */
void ev_time_format(int64_t ms, struct strbuf *out);

/* --- files ------------------------------------------------------------------------------------ */

struct ev_log_opts {
        size_t cap; /* bytes for both parts; 0: EV_LOG_CAP_DEFAULT (at least EV_LOG_CAP_MIN) */
};

/* The log's lock, held: the directory opened (every step of the run goes through it) and the
 * lock file's descriptor. ev_unlock() (or the cleanup) releases both. */
struct ev_held {
        int dir;
        int lock;
};
#define EV_HELD_INIT { .dir = -1, .lock = -1 }
/* Creates dir (0700) and takes its lock, waiting at most timeout_ms (0: EV_LOCK_TIMEOUT_MS;
 * -ETIMEDOUT). The lock is flock(2) on the regular file EV_DIRLOCK_FILE in dir, opened for
 * writing: a shared state save location on NFS takes it too (the client emulates flock as a
 * whole-file byte-range lock, which needs a file open for writing: a directory cannot be). The
 * directory itself is flock'ed as well where the file system allows it, the lock of earlier
 * versions of the charm (a unit not yet upgraded), never failing on it (NFS: EBADF).
 * ret->dir is the directory dir names when it returns (a directory replaced by a link while it
 * waited: it takes the new one). As root, dir is reached through root's links only and must be
 * a directory of root's that nobody else writes (-EPERM), the lock file a regular file. The run
 * then works in that very directory through ev_lock_path(ret->dir), whatever is renamed or
 * linked at dir meanwhile. (EV_LOCK_FILE is the lock of older versions still: left alone.) */
int ev_lock(const char *dir, int timeout_ms, struct ev_held *ret, struct strbuf *err);
void ev_unlock(struct ev_held *h);
static inline void ev_unlockp(struct ev_held *h) {
        ev_unlock(h);
}
/* The path of the directory ev_lock() holds as dir_fd (ret->dir; "/proc/self/fd/N"; caller
 * frees): the directory opened, not what its name leads to now. */
char *ev_lock_path(int dir_fd);
/* The snapshot, or a new one (exists false, random log id) when there is none. A snapshot that
 * cannot be read is moved to state.json.bad and a new one started. next_seq is never below the
 * log's last seq + 1; pending records the log lacks are appended. Call it under the lock. */
int ev_state_load(const char *dir, const struct ev_log_opts *o, struct ev_state *ret, struct strbuf *err);
/* Writes next (durably), then appends its pending records the log lacks. Under the lock.
 * Returns the number of records appended. */
int ev_commit(const char *dir, const struct ev_log_opts *o, const struct ev_state *next, struct strbuf *err);
/* The seq of the log's last complete record (0 when empty). */
int ev_log_last_seq(const char *dir, uint64_t *ret, struct strbuf *err);
/* Appends lines (each one record, no newline) to the log, rotating first when needed. */
int ev_log_append(
        const char *dir, const struct ev_log_opts *o, char *const *lines, size_t n, struct strbuf *err);

/* A page of the log. */
struct ev_page {
        struct strv lines;    /* the records, oldest first */
        uint64_t first, last; /* seq of the first and last line (0 when none) */
        uint64_t oldest;      /* the oldest record kept (0: empty log) */
        uint64_t latest;      /* the newest record */
        bool more;            /* has_since: records after `last` are left; else: older ones */
        uint64_t rotated_out; /* has_since: records after `since` no longer kept (rotation) */
};
void ev_page_done(struct ev_page *p);
/* has_since: the first `limit` records with seq > since; else the last `limit` records; in
 * both cases no more records than fit in max_bytes (0: no bound; the lines and their newlines;
 * at least one record). Only whole lines are read; hold the lock for a view that a rotation
 * cannot cut. Returns the number of records. */
int ev_log_read(const char *dir, bool has_since, uint64_t since, size_t limit, size_t max_bytes,
        struct ev_page *ret, struct strbuf *err);
