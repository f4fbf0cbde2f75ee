/* SPDX-License-Identifier: Apache-2.0 */
/* A new slurm.conf reaches each compute node once that node is idle, not once the whole cluster
 * is (issue 26, attack atk8 G6; review 10 of a first version kept out in stop 43).
 *
 * Design note. A compute node is configless: slurmd fetches slurm.conf from the controller in
 * charge at its start (and at a reconfigure), and the bytes it gets are those slurmctld read at
 * its own last start or reconfigure. The leader's reconfigure, the only push before, waits until
 * no job holds any node (22.05's reconfigure bugs need running jobs: charm/ctlapply.h), so on a
 * cluster that is never idle a fix to a failing Prolog never reached the nodes. A slurmd restart
 * is a registration, not a reconfigure; so each compute unit restarts its own slurmd for the file
 * the controller in charge runs, once its node is idle:
 *  - what the controller runs is the daemon's own hash of the file it read (HASH_VAL,
 *    slurm_ctl_conf_hash(): the bytes it serves; a live partition change rewrites the charm's
 *    file but not those bytes, and a controller in charge that holds a restart back still serves
 *    the old file, so no node is sent after a file nobody serves); what the node runs is the same
 *    hash (ctl_conf_slurm_hash) of its configless copy CONFPUSH_FETCHED_PATH, never of another
 *    file on a machine shared with a controller;
 *  - the leader publishes that hash (CONFPUSH_KEY, 8 hex digits, every slurmd relation's app
 *    bag) after each reconcile, so that every compute unit looks at once (relation-changed);
 *    a unit whose copy differs asks the controller itself before it acts (the published value
 *    is a hint: a unit never restarts for a value it only read in a bag);
 *  - a node holding a job waits (its unit's service watcher runs the reconcile at each job's
 *    end, charm/nodefollow.h), and says so in its status; a node that is DOWN or not responding
 *    waits until it is up (a registration would put an admin's DOWN node back in service,
 *    ReturnToService=2); nothing happens while the unit is paused or leaving, or while the
 *    controller's file names a program unsafe on this machine (charm/nodeprogs.h);
 *  - the restart: the node is drained first (a job scheduled in the restart's window would have
 *    its launch fail: a batch job requeued, an srun step refused), recorded as node-config's
 *    drain is (charm/nodecfgmark.h, so a hook killed half way has its drain undone by the next
 *    reconcile), checked again for jobs, slurmd restarted, its fresh fetch and registration
 *    awaited, and the node put back as it was (a node already drained, by an admin or the
 *    charm, is not drained again and stays drained);
 *  - no loop: CONFPUSH_RECORD_FILE keeps the hash a restart was made for and when; a restart
 *    that fetched another file is not tried again for the same hash before CONFPUSH_RETRY_S,
 *    and the status says so.
 * The leader's cluster-wide reconfigure stays (charm/ctlapply.h: it also carries the other
 * files and sets partition membership again); with every node already on the new file it is
 * one reconfigure more, nothing else. Neither side counts the other's nodes: no relation reads
 * grow with the cluster.
 *
 * Ownership: pure functions unless they say otherwise. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "charm/charm.h"
#include "util/strbuf.h"

#define CONFPUSH_KEY "slurm-conf-hash"
#define CONFPUSH_FETCHED_PATH "/run/slurm/conf/slurm.conf"
#define CONFPUSH_RECORD_FILE "slurm-conf-restarted-for"
#define CONFPUSH_RETRY_S 600
#define CONFPUSH_DRAIN_REASON "slurm.conf push: restarting slurmd"

/* The published text of a hash ("%08x") and back: 0, or -EINVAL for anything but 8 lowercase
 * hex digits. */
void confpush_hash_text(uint32_t hash, char ret[9]);
int confpush_hash_parse(const char *s, uint32_t *ret);

enum confpush_step {
        CONFPUSH_NONE,      /* this node runs the file the controller runs (or nothing is known) */
        CONFPUSH_RESTART,   /* behind and idle: drain, restart slurmd, put the node back */
        CONFPUSH_WAIT_JOBS, /* behind, a job holds the node: at the end of its jobs */
        CONFPUSH_WAIT_DOWN, /* behind, the node DOWN, failed or not responding: once it is up */
        CONFPUSH_STUCK,     /* a restart for this very hash fetched another file: not again yet */
};

/* What a compute unit sees. */
struct confpush_view {
        uint32_t running;     /* the controller in charge's hash of the file it read */
        uint32_t fetched;     /* the hash of this node's configless copy */
        bool record;          /* a restart was made for record_hash at record_time */
        uint32_t record_hash;
        time_t record_time;
        time_t now;
        bool down;            /* DOWN, FAIL or not responding (slurm_state_down/registered) */
        bool busy;            /* ALLOCATED, MIXED or COMPLETING */
        int jobs;             /* jobs with the node in their allocation; < 0: not known */
};
enum confpush_step confpush_next(const struct confpush_view *v);

/* The record's text ("<hash> <time>\n") and back (0, or -EINVAL). */
char *confpush_record_format(uint32_t hash, time_t when);
int confpush_record_parse(const char *text, uint32_t *ret_hash, time_t *ret_when);

/* Impure: the hash of the configless copy under p's root. -ENOENT when there is none. */
int confpush_fetched_hash(const struct charm_paths *p, uint32_t *ret);
