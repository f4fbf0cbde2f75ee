/* SPDX-License-Identifier: Apache-2.0 */
/* The controller sentinel: bin/slurmctld-sentinel, a systemd unit on every controller unit
 * (SENTINEL_UNIT, from templates/SENTINEL_TEMPLATE), a loop beside slurmctld that does, every
 * tick, what no hook comes often enough for. It needs no Juju: it reads slurm.conf (again when
 * the file changes), the shared state directory and slurmctld's statistics.
 *
 * Saved state kept fresh (issue 25, "no job killed and re-run after a failover"). slurmctld
 * writes its job state only when something asked for a save, at most every 5 s, and at its
 * 300 s checkpoint; a job the backfill scheduler starts asks for none (slurm/ctlstats.h). A
 * controller lost before the next save leaves its successor (a backup, or itself restarted by
 * systemd) a state in which that job is still PENDING: the successor kills the running job as it
 * registers and runs it again. So the controller in charge is looked at every tick (one
 * statistics RPC, small and read-only, to this unit's own slurmctld only: a private copy of
 * slurm.conf names no other controller, so no call follows libslurm's fail-over to a standby,
 * which sleeps SlurmctldTimeout/2 on its answer), and when a job started since the last look (by either
 * scheduler, or the counters were reset) the sentinel asks for a save (slurm_ctl_save_nudge),
 * which lands within slurmctld's 5 s spacing: a started job is on disk within about
 * tick + 5 s, where it was up to 300 s. Only the unit whose slurmctld is in charge asks (the
 * only controller, or the writer of a fresh heartbeat, ha.h), so that several sentinels do not
 * ask one controller.
 *
 * Fencing (issue 25, "a returning controller never wins with stale state"): each tick first
 * looks at slurmctld's process, the heartbeat, the charge mark and its own lateness, and kills a
 * stale slurmctld and holds it down, or lifts that hold (charm/slurmctld/fence.h); while its slurmctld is
 * in charge it renews the charge mark (charm/slurmctld/ha.h) every 2 s; a stopped slurmctld is asked
 * nothing.
 *
 * Invariants: the loop never prints (o->log), every wait is bounded, a failed look is retried
 * at the next tick. Ownership: none. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include "charm/common/charm.h"
#include "slurm/ctlstats.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define SENTINEL_UNIT "juju-slurmctld-sentinel.service"
#define SENTINEL_TEMPLATE "juju-slurmctld-sentinel.service"
#define SENTINEL_EXE "bin/slurmctld-sentinel"
#define SENTINEL_TICK_USEC_DEFAULT (1000 * 1000ULL)
/* Its RPCs' MessageTimeout: a look that meets a stopped slurmctld (a look in flight when it
 * was frozen) returns after this, not after the cluster's 10 s or more (libslurm tries twice),
 * so that the fence (charm/slurmctld/fence.h) is not late by that much. */
#define SENTINEL_MSG_TIMEOUT_S 2
/* the sentinel's sack guard (slurm/sackguard.h): a credential wait on a stopped slurmctld is cut
 * after this, one on a slurmctld that runs after the second */
#define SENTINEL_SACK_LIMIT_MS 500
#define SENTINEL_SACK_WEDGED_MS 5000
/* The client configuration it uses: slurm.conf with this host's SlurmctldHost line only and
 * MessageTimeout=SENTINEL_MSG_TIMEOUT_S (the unit's RuntimeDirectory). */
#define SENTINEL_PRIVATE_CONF "/run/slurmctld-sentinel/slurm.conf"
/* How often the loop summarises its save requests in its log. */
#define SENTINEL_REPORT_USEC (60 * 1000 * 1000ULL)
/* The most one run of the charm it starts may take (killed then). */
#define SENTINEL_POKE_TIMEOUT_MS (300 * 1000)

/* The sentinel's unit installed (written when it differs), enabled and running; restarted when
 * its file changed or restart is set (an upgraded charm). 1 changed, 0 all in place. */
int sentinel_install(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit,
        const char *charm_dir, bool restart, struct strbuf *err);
/* The unit stopped and removed (a leaving controller unit); 1 removed, 0 none there. */
int sentinel_remove(const struct charm_paths *paths, sd_bus *bus, struct strbuf *err);

/* --- the save nudge (pure) ---------------------------------------------------------------------- */

struct sentinel_nudge {
        bool have;                   /* last holds a look of this controller in charge */
        struct slurm_ctl_stats last; /* the last look */
};
/* Records a look at the controller in charge; true when a save should be asked for: the first
 * look (a controller newly in charge, or the sentinel new: what happened before is unknown) or
 * a job started since the last one (slurm_ctl_stats_started_since). */
bool sentinel_nudge_due(struct sentinel_nudge *n, const struct slurm_ctl_stats *now);
/* This unit's slurmctld is not in charge (any more): the next look is a first one. */
void sentinel_nudge_reset(struct sentinel_nudge *n);

/* How late something comes at `at` (CLOCK_MONOTONIC µs) that was due a tick (tick_usec) after
 * `from`: the time this process did not run (a frozen machine, fence.h), 0 when on time. The
 * loop asks it at each tick's start (from: the last tick's start, or the last fence look's
 * time when later: a freeze already counted is not counted again); the fence look asks it
 * once more right before it judges (from: its tick's start), so that a freeze inside the tick,
 * after the loop's measure, is known to that very look. */
uint64_t sentinel_late_usec(uint64_t from, uint64_t at, uint64_t tick_usec);

/* The host the in-charge file names for the metrics exporter (metricsd.h), of names (each
 * controller's host name, in order; self: this host's index, -1 none): names[self] when this
 * host's slurmctld is in charge (mine); else, with several controllers, mark_host when it is
 * another host of names and its charge mark is fresh (the mark names a host: its sentinel asked
 * its own slurmctld), else names[boss] when boss (the fresh heartbeat's index, -1 none) is
 * another; else "" (unknown). The heartbeat's index is of its writer's list, wrong while the
 * order changes: the mark comes first (CI: a takeover's displaced unit said nobody for 30 s).
 * Pure. */
const char *sentinel_charge_who(const struct strv *names, long self, bool mine, long boss, const char *mark_host,
        bool mark_fresh);

/* --- the loop ---------------------------------------------------------------------------------- */

/* conf without the SlurmctldHost lines of other hosts and with the sentinel's MessageTimeout
 * (appended to ret, ending in a newline),
 * the number of SlurmctldHost lines in *ret_n and host's index among them in *ret_self (-1:
 * none, and then no SlurmctldHost line is kept). Returns *ret_self. Pure. */
int sentinel_conf_private(const char *conf, const char *host, struct strbuf *ret, int *ret_n, int *ret_self);

struct sentinel_opts {
        const char *conf_path;    /* the slurm.conf watched for changes; NULL: the client's own */
        const char *private_conf; /* NULL: SENTINEL_PRIVATE_CONF */
        const char *host;         /* this machine's SlurmctldHost name; NULL: gethostname() */
        uint64_t tick_usec;       /* 0: SENTINEL_TICK_USEC_DEFAULT */
        unsigned max_ticks;       /* 0: for ever */
        /* the charm run in hook context when control moves, a fence is lifted, or a standby hold
         * is to be looked at again: juju-exec (NULL: "juju-exec" on PATH) <juju_unit> <handler>
         * slurmctld.service; NULL unit or handler: never */
        const char *juju_unit, *handler, *juju_exec;
        void (*log)(void *userdata, const char *line);
        void *userdata;
        /* NULL: none; else the SlurmctldHost name of the controller in charge as this sentinel
         * knows it, one line ("" unknown: no fresh heartbeat, or one naming this host that its
         * slurmctld does not confirm), rewritten when it changes and every
         * SENTINEL_PUBLISH_S (its time says it is current), 0644: the metrics exporter, which
         * runs as nobody and cannot read the heartbeat, takes it (charm/slurmctld/metricsd.h) */
        const char *in_charge_file;
};
#define SENTINEL_IN_CHARGE_FILE "/run/slurm-charm-metrics/in-charge"
#define SENTINEL_PUBLISH_S 5

/* Runs the loop. Returns 0 after max_ticks, or a negative errno when it cannot start (message
 * in err); for ever otherwise. */
int sentinel_run(const struct sentinel_opts *o, struct strbuf *err);
