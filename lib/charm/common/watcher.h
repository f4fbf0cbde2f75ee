/* SPDX-License-Identifier: Apache-2.0 */
/* Service watching (replaces the spec's juju-systemd-notices daemon): a watcher process that
 * follows a daemon's ActiveState over sd-bus and runs the charm's handler in hook context.
 *
 * The pieces:
 * - bin/service-watcher (hooks/common/service-watcher.c) runs service_watch_run(): it opens
 *   the system bus, watches the service (unit_watch: PropertiesChanged, no polling) and, on
 *   each ActiveState change, runs `juju-exec <juju unit> <handler> <service> <ActiveState>`
 *   (lib/proc: argv, no shell, bounded by a timeout). Changes are coalesced: the first change
 *   after a quiet time waits at most window_usec (default 20 ms) for its burst, changes that
 *   arrive while the handler runs give ONE more run after it. A failed handler run is retried
 *   (1 s, 2 s, 4 s) unless a new change comes first. A dropped bus connection is reopened with
 *   backoff (100 ms doubling to 5 s) for at most WATCHER_RECONNECT_USEC; then the watcher exits
 *   non-zero and systemd restarts it (Restart=always). slurmd's watcher also follows its
 *   machine (charm/slurmd/nodefollow.h): a job's start or end, or a new fetched slurm.conf, runs the
 *   handler too, paced; slurmctld's the pending push (charm/slurmctld/pushfollow.h); slurmdbd's a
 *   stop of its main process by a signal, or its continuation (charm/common/stopfollow.h).
 * - bin/service-changed (hooks/common/service-changed.c, built once per charm) is that
 *   handler: it runs in hook context (juju-exec holds the machine lock: it must be quick),
 *   reads the service's CURRENT state over sd-bus (the ActiveState in argv is only a fallback
 *   when the bus cannot be read) and sets the unit's status: a restart pending (SubState
 *   auto-restart) gives maintenance "slurmd restarting (Result=signal, NRestarts=0)", a failed
 *   unit blocked "slurmd failed (Result=…, NRestarts=N)"; a paused unit (charm/common/pause.h) says
 *   so and nothing is restarted; in every other state (active, inactive, …) the charm's own
 *   reconcile runs (handed in by the main: this module knows neither charm, so lib/charm has
 *   no circle), which starts what is stopped and sets the same status as any hook (for
 *   slurmctld after it answers a ping). Each charm watches its daemon and munge.service (a
 *   stopped munge breaks every RPC of the node: "Zero Bytes were transmitted").
 * - watcher_install() installs the watcher as a systemd unit (WATCHER_UNIT_PREFIX<daemon>.service
 *   from templates/juju-service-watcher.service) and the service's restart drop-in when the charm
 *   ships one (templates/<service>.d/WATCHER_RESTART_DROPIN.conf: slurmctld; slurmd's own drop-in
 *   already has Restart=on-failure); watcher_remove() undoes the watcher for the departure path.
 *
 * The watcher unit has KillMode=process: restarting the watcher (an upgraded charm) never kills
 * a handler that is running, even one that is itself restarting the watcher.
 *
 * Invariants: every function returns 0 (or a positive count) or a negative errno with one
 * message appended to err (may be NULL); nothing prints (the loop reports through o->log).
 * Paths written are under paths->root (charm.h), so tests redirect them.
 *
 * Ownership: strings passed in are borrowed for the call; results go to the caller's
 * strbuf/strv/outcome. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "charm/common/charm.h"
#include "systemd/unit.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define WATCHER_UNIT_PREFIX "juju-service-watcher-"
#define WATCHER_TEMPLATE "juju-service-watcher.service"
#define WATCHER_RESTART_DROPIN "20-charm-restart"
#define WATCHER_EXE "bin/service-watcher"
#define WATCHER_HANDLER_EXE "bin/service-changed"

#define WATCHER_WINDOW_USEC_DEFAULT (20 * 1000ULL)
#define WATCHER_HANDLER_TIMEOUT_MS_DEFAULT (300 * 1000)
#define WATCHER_RECONNECT_USEC (30 * 1000 * 1000ULL)
#define WATCHER_RETRIES 3

/* --- coalescing (pure) ---------------------------------------------------------------------- */

/* At most one handler run pending, due at a fixed time: a burst of changes never pushes it
 * later, so the first change of a burst waits at most window_usec. */
struct watcher_coalesce {
        uint64_t window_usec;
        bool pending;
        uint64_t due_usec;              /* when the pending run is due (valid if pending) */
        char latest[UNIT_STATE_STRMAX]; /* the last ActiveState seen */
};

/* initial: the ActiveState when watching starts ("" when unknown); pending when
 * pending (e.g. the daemon is not active when the watcher starts). */
void watcher_coalesce_init(struct watcher_coalesce *c, uint64_t window_usec, const char *initial,
        bool pending, uint64_t now_usec);
/* Records an ActiveState seen at now_usec. Returns true when it differs from the latest one
 * (a change: a run becomes pending, due window_usec after the first change of the burst). */
bool watcher_coalesce_note(struct watcher_coalesce *c, const char *active_state, uint64_t now_usec);
/* Makes a run pending, due delay_usec from now (a retry); an earlier due time is kept. */
void watcher_coalesce_retry(struct watcher_coalesce *c, uint64_t delay_usec, uint64_t now_usec);
/* The due time of the pending run, or 0 when none is pending. */
uint64_t watcher_coalesce_deadline(const struct watcher_coalesce *c);
/* When a run is pending and due at now_usec: clears it, copies the latest ActiveState to
 * ret_state and returns true. */
bool watcher_coalesce_take(struct watcher_coalesce *c, uint64_t now_usec, char ret_state[UNIT_STATE_STRMAX]);

/* --- the watch loop --------------------------------------------------------------------------- */

struct watcher_opts {
        const char *service;    /* "slurmd.service" */
        const char *juju_unit;  /* "slurmd/0" */
        const char *handler;    /* the handler's absolute path (<charm_dir>/bin/service-changed) */
        const char *juju_exec;  /* NULL: "juju-exec" on PATH */
        uint64_t window_usec;   /* 0: WATCHER_WINDOW_USEC_DEFAULT */
        int handler_timeout_ms; /* 0: WATCHER_HANDLER_TIMEOUT_MS_DEFAULT */
        unsigned max_runs;      /* return 0 after this many handler runs; 0: run for ever */
        /* One line per event (a change, a handler run and its result, a reconnect); may be NULL. */
        void (*log)(void *userdata, const char *line);
        /* Called once, when the first watch is in place (the service's READY=1); may be NULL. */
        void (*ready)(void *userdata);
        void *userdata;
};

/* The handler's argv: juju-exec, juju_unit, handler, service, active_state (appended to ret). */
void watcher_handler_argv(const struct watcher_opts *o, const char *active_state, struct strv *ret);

/* Runs until max_runs handler runs were made (0) or the bus cannot be reopened within
 * WATCHER_RECONNECT_USEC (its negative errno, message in err). -EINVAL for missing options. */
int service_watch_run(const struct watcher_opts *o, struct strbuf *err);

/* --- the handler -------------------------------------------------------------------------------- */

/* The status of a daemon that is not running: 1 with *out set for a restart pending
 * (maintenance) or a failed unit (blocked), 0 (out untouched) when the charm decides. */
int watcher_daemon_status(const char *service, const struct unit_state *st, struct charm_outcome *out);

struct watcher_handler_opts {
        struct charm_paths paths;
        const char *service;    /* argv[1]: the daemon, or munge.service */
        const char *hint_state; /* argv[2]: the ActiveState the watcher saw (fallback only) */
        int answer_timeout_ms;  /* slurmctld: wait for a ping answer before reconciling; 0: 20 s */
        const char *daemon;     /* the charm's daemon: "slurmd.service" or "slurmctld.service" */
        /* the charm's reconcile, as an update-status would run it */
        int (*reconcile)(struct juju_ctx *ctx, const struct charm_paths *paths, struct charm_outcome *out,
                struct strbuf *err);
};

/* bin/service-changed's whole work, in hook context: fills *out (charm_hook_finish sets it).
 * -EINVAL (message in err) for a service that is neither o->daemon nor munge.service. */
int watcher_service_changed(struct juju_ctx *ctx, const struct watcher_handler_opts *o,
        struct charm_outcome *out, struct strbuf *err);

/* --- installing the watcher ---------------------------------------------------------------------- */

/* A long-running program of the charm's own as a systemd unit (the service watcher's kin: the
 * controller's sentinel, charm/slurmctld/sentinel.h). */
struct watcher_daemon {
        const char *unit;     /* "juju-slurmctld-sentinel.service" */
        const char *template; /* under <charm>/templates */
        const char *exe;      /* @WATCHER@, relative to the charm directory */
        const char *handler;  /* @HANDLER@, relative to the charm directory; NULL: none */
        const char *service;  /* @SERVICE@; NULL: none */
};
/* <root>/etc/systemd/system/<d->unit> rendered from the template (watcher_unit_render) and
 * written when it differs, daemon-reload then, enabled and started (restarted when the file
 * changed or restart is set: an upgraded charm). 1 when anything changed or was (re)started, 0
 * when all was in place. charm_dir NULL: paths->charm_dir. */
int watcher_daemon_install(const struct charm_paths *paths, sd_bus *bus, const struct watcher_daemon *d,
        const char *juju_unit, const char *charm_dir, bool restart, struct strbuf *err);
/* The unit stopped, disabled and its file removed; 1 removed, 0 it was not there. */
int watcher_daemon_remove(
        const struct charm_paths *paths, sd_bus *bus, const char *unit, struct strbuf *err);

/* A daemon with one input file it reads at its start (the event push's URL, the metrics
 * exporter's port): text NULL removes the daemon (watcher_daemon_remove) and the file; else the
 * file is written (mode) when it differs and the daemon installed, restarted when the file
 * changed or restart is set. 1 when anything changed, 0 when all was in place. */
int watcher_daemon_with_file(const struct charm_paths *paths, sd_bus *bus, const struct watcher_daemon *d,
        const char *file, const char *text, mode_t mode, const char *juju_unit, const char *charm_dir, bool restart,
        struct strbuf *err);

/* "juju-service-watcher-slurmd.service" for "slurmd.service" (caller frees). */
char *watcher_unit_name(const char *service);

/* Renders the unit file template: @WATCHER@, @HANDLER@, @JUJU_UNIT@ and @SERVICE@ replaced
 * (appended to out). -EINVAL for an unknown @NAME@, or a value the template uses that is NULL,
 * empty or has characters systemd would interpret in ExecStart= (anything outside
 * [A-Za-z0-9/._+,:=@-]); a value it does not use may be NULL. */
int watcher_unit_render(const char *tmpl, const char *watcher_exe, const char *handler,
        const char *juju_unit, const char *service, struct strbuf *out, struct strbuf *err);

/* Writes <root>/etc/systemd/system/<watcher unit> (0644) from <charm_dir>/templates and the
 * service's restart drop-in when the charm ships its template, each only when it differs.
 * Returns a bit mask: 1 the watcher's unit file changed, 2 the drop-in changed; 0 nothing. */
int watcher_write_files(const struct charm_paths *paths, const char *juju_unit, const char *service,
        const char *charm_dir, struct strbuf *err);

/* watcher_write_files(), daemon-reload when something changed, then enables the watcher and
 * starts it, restarting it when its unit file changed or restart is set (an upgraded charm:
 * the binary changed under the same unit file). Returns 1 when anything changed or the
 * watcher was (re)started, 0 when all was in place. charm_dir NULL: paths->charm_dir. */
int watcher_install(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit, const char *service,
        const char *charm_dir, bool restart, struct strbuf *err);

/* Stops and disables the watcher of service and removes its unit file (daemon-reload after).
 * The restart drop-in stays (harmless). Returns 1 when something was removed, 0 when there was
 * no watcher. */
int watcher_remove(const struct charm_paths *paths, sd_bus *bus, const char *service, struct strbuf *err);
