/* SPDX-License-Identifier: Apache-2.0 */
/* The node event log's consumer (issue 29): every record of the controllers' one log
 * (charm/slurmctld/events.h, evshare.h) POSTed to an HTTP receiver set by the config option
 * event-endpoint, at least once, in order, each with its stable id, so that a receiver that
 * drops the ids it has seen gets each record exactly once.
 *
 * Delivery. One pusher for the cluster: each controller unit runs the service
 * juju-node-event-push.service (bin/node-event-push) while event-endpoint is set, and the one
 * that holds the flock on EVPUSH_LOCK_FILE in the shared log directory pushes (the others wait
 * for it: a controller machine that is lost frees it, and another unit goes on from the same
 * cursor). A round reads the records after the cursor (at most EVPUSH_BATCH_MAX records and
 * EVPUSH_BATCH_BYTES, whole lines, under the log's lock so that a rotation cannot cut the
 * page), POSTs them as one body of JSON lines (application/x-ndjson, oldest first; header
 * X-Slurm-Charm-Seq: FIRST-LAST; a batch may span a change of the log's id), and moves the cursor past
 * them only on a 2xx answer. Anything else (no answer, refused, 4xx, 5xx) keeps the cursor:
 * the same records go again after a back-off (1 s doubling to 60 s), so a receiver sees a
 * batch again when its answer was lost (hence "at least once", ids to drop duplicates).
 *
 * Backlog. The log itself: it lives in the state save location (survives restarts, failovers,
 * upgrades) and is capped (EV_LOG_CAP_DEFAULT for its two parts). Records rotated out before the
 * receiver took them are counted in the cursor ("lost", the seq span named in the service's
 * log) and said in every controller unit's status for EVPUSH_LOST_SHOWN_MS: never silent. A new
 * endpoint (or a cursor that cannot be read) starts from the oldest record kept, counting
 * nothing lost. The cursor keeps the id of the last record delivered: when the record of that
 * seq is still kept under another id, or the log's newest seq is below it, the log was started
 * anew and is sent from its first record (a snapshot lost midway gives new ids with seq going
 * on: no restart there).
 *
 * The push lock and the cursor. Each round checks that the lock it holds is the push lock of the
 * log directory it works in (a state save location moved, a lock file replaced: -ESTALE, the
 * loop takes the lock again), and reads and writes the cursor in the directory the log's lock
 * holds (ev_lock_path), as the log's writers do. The service re-reads its endpoint file before
 * each round and ends when it changed (systemd starts it again with the new one).
 *
 * Files (in the shared log directory, root's, 0600): EVPUSH_CURSOR_FILE (JSON: endpoint, log
 * id, delivered seq, lost count, last error and since when, last delivery time),
 * EVPUSH_LOCK_FILE. In the unit's state directory: EVPUSH_ENDPOINT_FILE, the URL the service
 * reads at its start (the hook writes it and restarts the service when it changes).
 *
 * Functions return 0 (or a count) or a negative errno with one message appended to err. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include "charm/common/charm.h"
#include "juju/juju.h"
#include "util/http.h"
#include "util/strbuf.h"

#define EVPUSH_CONFIG_KEY "event-endpoint"
#define EVPUSH_UNIT "juju-node-event-push.service"
#define EVPUSH_TEMPLATE "juju-node-event-push.service"
#define EVPUSH_EXE "bin/node-event-push"
#define EVPUSH_CURSOR_FILE "push.json"
#define EVPUSH_LOCK_FILE "push.lock"
#define EVPUSH_ENDPOINT_FILE "event-endpoint" /* under CHARM_PATH_STATE_DIR */
#define EVPUSH_BATCH_MAX 500
#define EVPUSH_BATCH_BYTES ((size_t) 256 * 1024)
#define EVPUSH_TIMEOUT_MS (10 * 1000)
#define EVPUSH_BACKOFF_MIN_MS 1000
#define EVPUSH_BACKOFF_MAX_MS (60 * 1000)
#define EVPUSH_POLL_MS 1000
#define EVPUSH_LOST_SHOWN_MS ((int64_t) 24 * 3600 * 1000)
#define EVPUSH_WAITING_SHOWN_MS (30 * 1000) /* a failure younger than this is not in the status */

struct evpush_cursor {
        char *endpoint;       /* the URL the cursor is for */
        char *last_id;        /* the id of the record at `delivered` (NULL: none delivered yet) */
        uint64_t delivered;   /* the last seq the receiver took */
        uint64_t lost;        /* records rotated out before the receiver took them */
        int64_t lost_ms;      /* when the last such loss was found */
        char *error;          /* the last failed round's reason; NULL after a delivery */
        int64_t error_since_ms; /* first failure of the current run of failures */
        int64_t delivered_ms; /* the last delivery */
        uint64_t latest;      /* the log's newest seq at the last round */
};
void evpush_cursor_done(struct evpush_cursor *c);
/* dir: the log directory. -ENOENT when there is none (a zeroed cursor is returned). A cursor
 * that cannot be read is reported and a zeroed one returned (the receiver gets the oldest
 * kept records again: duplicates, not gaps). */
int evpush_cursor_load(const char *dir, struct evpush_cursor *ret, struct strbuf *err);
int evpush_cursor_save(const char *dir, const struct evpush_cursor *c, struct strbuf *err);

struct evpush_round {
        size_t sent;        /* records the receiver took */
        uint64_t first, last;
        bool more;          /* records after `last` wait */
        uint64_t lost_now;  /* records found rotated out this round */
        uint64_t lost_from, lost_to;
        int status;         /* the receiver's answer; 0 none */
        size_t tried;       /* records in the POST (also when it failed) */
};
/* One round (above) to url (already parsed as u), at most max_records records (0:
 * EVPUSH_BATCH_MAX). lock_fd: the push lock held (evpush_lock), checked to be dir's own
 * (-ESTALE otherwise); -1 skips the check. Returns the records delivered (0: nothing new), or a
 * negative errno with the reason in err (the cursor keeps it as its error; -EMSGSIZE: the
 * receiver answered 413). */
int evpush_round(const char *dir, int lock_fd, const char *url, const struct http_url *u, size_t max_records,
        int timeout_ms, struct evpush_round *ret, struct strbuf *err);

/* The push lock (flock on dir/EVPUSH_LOCK_FILE, LOCK_NB): 1 taken (*ret_fd holds it), 0 another
 * process holds it, negative errno. */
int evpush_lock(const char *dir, int *ret_fd, struct strbuf *err);

/* The service's loop: waits for the push lock, then rounds (at once while records wait, every
 * poll_ms when caught up and the log file did not change, with a back-off after a failure;
 * a 413 halves the batch, down to one record, full again once caught up), until *stop or the
 * endpoint file changed. log() gets one line per news (lock taken, a failure when its reason changes,
 * delivery again, losses). Returns 0 on stop, negative errno when the directory is unusable. */
struct evpush_loop_opts {
        const char *dir;
        const char *url;
        const char *endpoint_file; /* NULL: not re-read; else the loop ends when it no longer says url */
        int poll_ms;    /* 0: EVPUSH_POLL_MS */
        int timeout_ms; /* 0: EVPUSH_TIMEOUT_MS */
        int backoff_max_ms; /* 0: EVPUSH_BACKOFF_MAX_MS */
        void (*log)(void *userdata, const char *line);
        void *userdata;
        volatile sig_atomic_t *stop;
        /* NULL: none; else evpush_metrics_of() written there (0644) while this process holds
         * the push lock, removed while another unit pushes */
        const char *metrics_file;
};
int evpush_loop(const struct evpush_loop_opts *o, struct strbuf *err);

/* --- the endpoint file (the hook writes it, the service reads it) ---------------------------------- */

/* <root><state>/EVPUSH_ENDPOINT_FILE (caller frees). */
char *evpush_endpoint_path(const struct charm_paths *paths);
/* The URL the file holds (its first line; caller frees), or a negative errno. */
int evpush_endpoint_read(const char *file, char **ret_url);

/* --- the hook's side ----------------------------------------------------------------------------- */

/* The option's value: 1 a URL to push to (*ret_url, caller frees), 0 empty (no pushing), or
 * -EINVAL with the reason in err (refused: what is installed stays). */
int evpush_config(struct juju_ctx *ctx, char **ret_url, struct strbuf *err);
/* Brings the service to url: NULL keeps what is installed (a refused value), "" removes the
 * service and the endpoint file, a URL writes the endpoint file and installs and (re)starts the
 * service (restarted when the URL changed or restart: an upgraded charm). 1 when anything
 * changed. */
int evpush_apply(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit, const char *charm_dir,
        const char *url, bool restart, struct strbuf *err);
/* The push's figures for the metrics exporter, as exposition text (metricsd.h appends the
 * files of METRICSD_FRAGMENT_DIR to its answers): slurm_events_last_seq (the log's newest seq
 * at the last round), slurm_events_delivered_seq, slurm_events_waiting, slurm_events_lost_total
 * (rotated out before the receiver took them), slurm_events_push_failing_seconds (0 while
 * deliveries work), slurm_events_push_timestamp_seconds (when written: the loop writes after
 * every round and every EVPUSH_METRICS_REFRESH_MS when idle, so an old stamp means no pusher).
 * now_ms: wall clock. Pure. */
#define EVPUSH_METRICS_NAME "node-event-push.prom"
#define EVPUSH_METRICS_REFRESH_MS (30 * 1000)
void evpush_metrics_of(const struct evpush_cursor *c, int64_t now_ms, struct strbuf *out);

/* "; event push: …" appended to message when deliveries have failed for EVPUSH_WAITING_SHOWN_MS
 * or more, or records were lost within EVPUSH_LOST_SHOWN_MS; nothing when no endpoint is set. */
void evpush_status_note(const struct charm_paths *paths, int64_t now_ms, struct strbuf *message);
/* The pure part of that note, from a cursor (tests). */
void evpush_note_of(const struct evpush_cursor *c, int64_t now_ms, struct strbuf *message);
