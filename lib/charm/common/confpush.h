/* SPDX-License-Identifier: Apache-2.0 */
/* A new slurm.conf reaches each compute node once that node is idle, not once the whole cluster
 * is (issue 26, attack atk8 G6; review 10 of a first version kept out in stop 43).
 *
 * Design note. A compute node is configless: slurmd fetches slurm.conf from the controller in
 * charge at its start (and at a reconfigure), and the bytes it gets are those slurmctld read at
 * its own last start or reconfigure. The leader's reconfigure, the only push before, waits until
 * no job holds any node (22.05's reconfigure bugs need running jobs: charm/slurmctld/ctlapply.h), so on a
 * cluster that is never idle a fix to a failing Prolog never reached the nodes. A slurmd restart
 * is a registration, not a reconfigure; so each compute unit restarts its own slurmd for the file
 * the controller in charge runs, once its node is idle:
 *  - what the controller runs is the daemon's own hash of the file it read (HASH_VAL,
 *    slurm_ctl_conf_hash(): the bytes it serves; a live partition change rewrites the charm's
 *    file but not those bytes, and a controller in charge that holds a restart back still serves
 *    the old file, so no node is sent after a file nobody serves); what the node runs is the same
 *    hash (slurmconf_file_hash) of its configless copy CONFPUSH_FETCHED_PATH, never of another
 *    file on a machine shared with a controller;
 *  - the leader publishes that hash (CONFPUSH_KEY, 8 hex digits, every slurmd relation's app
 *    bag) after each reconcile, so that every compute unit looks at once (relation-changed);
 *    a unit whose copy differs asks the controller itself before it acts (the published value
 *    is a hint: a unit never restarts for a value it only read in a bag);
 *  - a node holding a job waits (its unit's service watcher runs the reconcile at each job's
 *    end, charm/slurmd/nodefollow.h), and says so in its status. On a saturated cluster a node is never
 *    seen idle (the next job starts as the epilog ends), so a node behind for
 *    CONFPUSH_DRAIN_AFTER_S is drained (DRAINING: its jobs run on, no new one starts there) and
 *    restarts once they ended, as `scontrol reboot ASAP` would; at most a tenth of the nodes
 *    (at least one) are drained so at once (review 12, F1);
 *  - a node that is DOWN, failed or not responding waits until it is up (a registration would
 *    put an admin's DOWN node back in service, ReturnToService=2); nothing happens while the
 *    unit is paused or leaving, or while the controller's file names a program unsafe on this
 *    machine (charm/common/nodeprogs.h);
 *  - the restart: the node is drained first (a job scheduled in the restart's window would have
 *    its launch fail: a batch job requeued, an srun step refused), recorded with the node's state
 *    before (CONFPUSH_HELD_FILE, nodecfgmark's record), checked again for jobs, slurmd restarted,
 *    its registration awaited (slurmd_start_time after the restart), and the node put back as it
 *    was only while it still has the push's own drain (an admin's drain or DOWN, or a health
 *    check's, that came meanwhile stays); a run killed half way leaves the record, and the next
 *    run goes on from it; a node drained already by someone else is restarted without a drain of
 *    its own and keeps its drain;
 *  - the idle nodes' restarts are staggered (attack atk8 G6's open half): one change made every
 *    idle node drain, restart and register within seconds (a burst of RPCs at slurmctld on a
 *    big cluster, and a file that breaks slurmd took every idle node down at once). The leader
 *    publishes how many waves (CONFPUSH_WAVES_KEY: the compute units it knows, at most
 *    CONFPUSH_WAVES_MAX, so about a tenth of the nodes per wave); each node's wave comes from
 *    its name and the file's hash (FNV-1a: no RPC, no count, the same on every unit), and an idle
 *    node restarts CONFPUSH_WAVE_S × its wave after it was first seen idle and behind
 *    (CONFPUSH_IDLE_FILE: all units see the leader's hash within seconds of each other, and the
 *    nodes one job's end frees are staggered the same way). A node waiting for its turn leaves
 *    its time in CONFPUSH_TURN_FILE; slurmd's service watcher runs the reconcile at that time
 *    (charm/slurmd/nodefollow.h); a busy node with no job step here (a batch job's other nodes)
 *    leaves one CONFPUSH_BUSY_LOOK_S ahead, as no local look sees its jobs end. No value
 *    published (an older leader): one wave, as before; a later wave waits for the earlier waves'
 *    restarts for the file to come back (the canary, confpush_canary_wait below);
 *  - no loop: CONFPUSH_RECORD_FILE keeps, after a restart, the controller's hash it was made for,
 *    that controller's start time and the hash of the copy slurmd fetched then; while all three
 *    are the same again nothing is restarted (the status says so); a change of any tries again
 *    once (review 12b N2: a controller started again, the primary back, may serve the right
 *    bytes under the same hash) (review 12, F2: on 22.05 a
 *    backup in charge serves the bytes it started with while its HASH_VAL is the re-read file's,
 *    so the leader publishes nothing then: slurm_caps.takeover_serves_conf).
 * Ownership: pure functions unless they say otherwise. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"

#define CONFPUSH_KEY "slurm-conf-hash"
#define CONFPUSH_FETCHED_PATH "/run/slurm/conf/slurm.conf"
#define CONFPUSH_RECORD_FILE "slurm-conf-restarted-for"
#define CONFPUSH_HELD_FILE "slurm-conf-push.drain"
#define CONFPUSH_BEHIND_FILE "slurm-conf-behind"
#define CONFPUSH_DRAIN_AFTER_S 600
/* the leader publishes nothing while its own reconfigure is due with no job running, for this
 * long at most (that reconfigure gives every node the file within seconds) */
#define CONFPUSH_SOON_S 120
#define CONFPUSH_DRAIN_REASON "slurm.conf push: restarting slurmd"
#define CONFPUSH_WAVES_KEY "slurm-conf-push-waves"
#define CONFPUSH_WAVES_MAX 10
#define CONFPUSH_WAVE_S 5
#define CONFPUSH_TURN_FILE "slurm-conf-push.turn"
/* "<hash> <time>": when this node was first seen idle and behind that file (the turn counts from it) */
#define CONFPUSH_IDLE_FILE "slurm-conf-push.idle"
/* a node behind and busy with no job step of its own here: looked at again after this long */
#define CONFPUSH_BUSY_LOOK_S 30
/* a turn mark further ahead than this is a bad one (a clock set back): due at once */
#define CONFPUSH_TURN_MAX_S (CONFPUSH_WAVES_MAX * CONFPUSH_WAVE_S + CONFPUSH_BUSY_LOOK_S)

/* The published text of a hash ("%08x") and back: 0, or -EINVAL for anything but 8 lowercase
 * hex digits. */
void confpush_hash_text(uint32_t hash, char ret[9]);
int confpush_hash_parse(const char *s, uint32_t *ret);

enum confpush_step {
        CONFPUSH_NONE,      /* this node runs the file the controller runs (or nothing is known) */
        CONFPUSH_RESTART,   /* behind and idle: drain (unless held), restart slurmd, put back */
        CONFPUSH_WAIT_JOBS, /* behind, a job holds the node: at the end of its jobs */
        CONFPUSH_HOLD,      /* behind for CONFPUSH_DRAIN_AFTER_S, busy: drain it now (if the cap
                             * allows), restart once its jobs ended */
        CONFPUSH_WAIT_DOWN, /* behind, the node DOWN, failed or not responding: once it is up */
        CONFPUSH_STUCK,     /* a restart for this very hash fetched this very copy: not again */
        CONFPUSH_RELEASE,   /* held by the push but nothing to restart for: put the node back */
        CONFPUSH_WAIT_TURN, /* behind and idle, its wave not come yet (turn): restart then */
};

/* What a compute unit sees. */
struct confpush_view {
        uint32_t running;     /* the controller in charge's hash of the file it read */
        uint32_t fetched;     /* the hash of this node's configless copy */
        time_t boot;          /* when the controller in charge started (its BOOT_TIME) */
        bool record;          /* a restart was made for record_running of the controller started
                               * at record_boot, and fetched record_fetched */
        uint32_t record_running;
        uint32_t record_fetched;
        time_t record_boot;
        bool held;            /* the node has the push's own drain (its record, its reason) */
        time_t behind_since;  /* when this node first saw itself behind running (0: now) */
        time_t now;
        bool down;            /* DOWN, FAIL or not responding (slurm_state_down/registered) */
        bool busy;            /* ALLOCATED, MIXED or COMPLETING */
        int jobs;             /* jobs with the node in their allocation; < 0: not known */
        time_t turn;          /* an idle node's restart not before this (confpush_turn; 0: now) */
};
enum confpush_step confpush_next(const struct confpush_view *v);

/* The waves the leader publishes for n_nodes compute nodes: n_nodes, at least 1, at most
 * CONFPUSH_WAVES_MAX. */
unsigned confpush_waves(size_t n_nodes);
/* The published text of waves and back: 1..CONFPUSH_WAVES_MAX in decimal; anything else (NULL,
 * empty, out of range) reads as 1 (no stagger: an older leader publishes nothing). */
unsigned confpush_waves_parse(const char *s);
/* The wave of node for the file running: 0..waves-1 (0 when waves is 1 or less). */
unsigned confpush_wave(const char *node, uint32_t running, unsigned waves);
/* When an idle node restarts for the file running, having seen itself behind it since
 * behind_since: behind_since + CONFPUSH_WAVE_S × its wave (0..waves-1, from node and running);
 * 0 when behind_since is 0 (no time known: now). */
time_t confpush_turn(const char *node, uint32_t running, unsigned waves, time_t behind_since);

/* The record's text ("<running> <fetched> <boot> <time>\n") and back (0, or -EINVAL). */
char *confpush_record_format(uint32_t running, uint32_t fetched, time_t boot, time_t when);
int confpush_record_parse(
        const char *text, uint32_t *ret_running, uint32_t *ret_fetched, time_t *ret_boot, time_t *ret_when);
/* The behind note ("<running> <since>\n") and back (0, or -EINVAL). */
char *confpush_behind_format(uint32_t running, time_t since);
int confpush_behind_parse(const char *text, uint32_t *ret_running, time_t *ret_since);

/* How many nodes may be drained by the push at once in a cluster of n_nodes: a tenth, at least
 * one. */
size_t confpush_hold_cap(size_t n_nodes);

/* A node the push holds drained: its name and when slurmctld set its drain reason. */
struct confpush_holder {
        const char *name;
        time_t since;
};
/* Wait before a new hold counts the holders again (ms): the holds other compute units' hooks
 * made in the same second (slurmctld's reason times are whole seconds) are seen by both. */
#define CONFPUSH_HOLD_SETTLE_MS 1100
/* Whether the hold of node self (held since self_since) must yield: at least cap of the holders
 * come before it, the earlier hold first and the lower name between holds of one second, one
 * order for every unit (issue 28's attack, F4: units' hooks at once each counted room and
 * drained; a name order alone let a later, lower-named hold stay beside an earlier one). The
 * holders may include self. */
bool confpush_hold_yields(const char *self, time_t self_since, const struct confpush_holder *h, size_t n, size_t cap);

/* The canary: a node of a later wave restarts only once the restarts of the earlier waves for
 * this file came back (a file that breaks slurmd takes the first wave's idle nodes out, not
 * every idle node within a minute: the waves' attack left that open). A node the push holds
 * idle (its drain reason, no job left on it: its restart for the file under way, or failed;
 * down or not responding included, as a broken slurmd ends there) in an earlier wave than this
 * node's for running, held since this node's behind_since less CONFPUSH_CANARY_SLACK_S (an older
 * hold is another file's): this node waits for it, and so does a busy one's drain after
 * CONFPUSH_DRAIN_AFTER_S. The waiting node looks again CONFPUSH_WAVE_S later while that restart
 * may still be under way (held under CONFPUSH_CANARY_SLOW_S), CONFPUSH_BUSY_LOOK_S later after. */
#define CONFPUSH_CANARY_SLACK_S 60
#define CONFPUSH_CANARY_SLOW_S 30
struct confpush_peer {
        const char *name;
        bool held_idle; /* the push's drain reason and DRAINED (no job left), down or not */
        time_t since;   /* its reason time */
};
/* The first peer (in the order given; self skipped) this node waits for, NULL when none (wave
 * 0, one wave, no such hold). */
const struct confpush_peer *confpush_canary_wait(const char *self, uint32_t running, unsigned waves,
        time_t behind_since, const struct confpush_peer *p, size_t n);

/* Impure: the hash of the configless copy under p's root. -ENOENT when there is none. */
int confpush_fetched_hash(const struct charm_paths *p, uint32_t *ret);
