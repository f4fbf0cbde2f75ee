/* SPDX-License-Identifier: Apache-2.0 */
/* What a node's departure strands: pending jobs that can only run with a node that is leaving
 * or gone, and reservations that name the leaving node.
 *
 * Slurm 22.05.8 facts (tried in juju-sim machines, issue 12):
 *   - A job submitted with a required node list (`sbatch -w node`, ReqNodeList) that is still
 *     PENDING when that node is deleted stays PENDING for ever ("ReqNodeNotAvail,
 *     UnavailableNodes:slurmd-1"; a multi-node one "PartitionNodeLimit"): its ReqNodeList keeps
 *     naming the deleted node. Worse, the job keeps the node's table INDEX: the next node to
 *     register takes that index and the backfill scheduler starts the job there (seen: a job
 *     submitted with `-w slurmd-1` ran on slurmd-2 a minute after slurmd-1 was deleted and
 *     slurmd-2 registered; a `-w slurmd-[0-1]` job ran on slurmd-[0,2]). Nothing reports it.
 *   - slurm_delete_node() takes the node out of every reservation that names it and deletes a
 *     reservation whose only node it was, silently.
 * So a departure finds both right before it deletes the node and again right after (a job
 * submitted in between): the default path HOLDS the stranded jobs (admin hold, an admin comment
 * naming the departure: they can neither run on a stranger nor vanish; the operator cancels
 * them or fixes their ReqNodeList and releases them) and reports jobs and reservations in the
 * hook log; the controller's status names held stranded jobs until they are gone; the forced
 * path (destroy-jobs) CANCELS them with that comment and takes the node out of the
 * reservations itself (deleting one left empty), reporting each.
 *
 * A pending job is stranded when a node its ReqNodeList names is `leaving` or is not in the
 * node table. Functions call slurm_client_init() and return 0 (or a count) or a negative errno
 * with one message appended to err. struct slurm_stranded owns its strings; free it with
 * slurm_stranded_done() (accepts a zeroed struct). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/strv.h"

struct slurm_stranded_report;

struct slurm_stranded_job {
        uint32_t id;
        char *node; /* the first required node that is leaving or gone */
        bool held;  /* held by an admin or its user (slurm_stranded_held()) */
};

struct slurm_stranded_resv {
        char *name;
        bool only_node; /* the leaving node is its only node: Slurm deletes it with the node */
};

struct slurm_stranded {
        struct slurm_stranded_job *jobs;
        size_t n_jobs;
        struct slurm_stranded_resv *resvs; /* only when a leaving node was given */
        size_t n_resvs;
        struct strv missing;      /* every node an unfinished job requires that has no record, sorted */
        struct strv placeholders; /* the placeholder records there are (below), sorted */
        struct strv required;     /* the leaving nodes an unfinished job's list names, sorted */
};

void slurm_stranded_done(struct slurm_stranded *s);

/* Pure: the first name of the hostlist expression req_nodes that is one of leaving (the nodes
 * whose units are leaving; may be NULL or empty) or is not among the sorted names[0..n) (the
 * node table), as a new string; NULL when none (or req_nodes is empty or not a hostlist). */
char *slurm_stranded_needs(const char *req_nodes, const struct strv *leaving, char *const *names, size_t n);

/* Pure: appends to *missing (kept sorted, no duplicates) every name of the hostlist expression
 * req_nodes that is not among the sorted names[0..n). */
void slurm_stranded_missing(const char *req_nodes, char *const *names, size_t n, struct strv *missing);
/* Pure: appends to *required (kept sorted, no duplicates) every name of the hostlist expression
 * req_nodes that is one of leaving (NULL or empty: none). */
void slurm_stranded_required(const char *req_nodes, const struct strv *leaving, struct strv *required);

/* Placeholders. slurmctld (22.05.8 and 24.11.5: _sync_detail_bitmaps in read_config.c) fails,
 * with NODE_FAIL, every pending job whose ReqNodeList names a node it does not know, at each
 * reading of slurm.conf: a reconfigure, a restart, a backup's takeover. A held stranded job
 * would so be lost at the next one (attack 12c, F6). So a node that left while pending jobs
 * require it gets a placeholder record: a dynamic node of that name in state FUTURE (never
 * given a job, hidden from sinfo and from node loads without SHOW_FUTURE, kept across a
 * reconfigure and a restart like any dynamic node), with the reason below; it also takes the
 * deleted node's table index, which the held jobs still point at. It is deleted once no pending
 * job requires it. */
#define SLURM_STRANDED_PLACEHOLDER_REASON "placeholder of a departed node: pending jobs require it"
/* ... and its one feature: what tells the record when a slurmd of that name registered onto it
 * (24.11 then shows no reason on an idle node and takes the machine's host name) */
#define SLURM_STRANDED_PLACEHOLDER_FEATURE "departed-node-placeholder"
/* Pure: whether a node's features (comma-separated; NULL: none) carry the placeholder's. */
bool slurm_stranded_placeholder_feature(const char *features);

/* Pure: the placeholders to create (names of s->missing without one) and to delete (those of
 * s->placeholders no unfinished job requires), appended to create and drop. */
void slurm_stranded_placeholder_plan(const struct slurm_stranded *s, struct strv *create, struct strv *drop);
/* Creates node's placeholder (NodeName=node State=FUTURE Features=... Reason=...); 0 or a
 * negative errno.
 * Slurm takes a deleted node out of the reservations naming it some seconds after the deletion,
 * but not while a node of that name exists: so first node is taken out of each reservation
 * naming it (one left empty deleted), their names into rep (may be NULL); one that refuses
 * keeps it (the placeholder is created all the same). */
int slurm_stranded_placeholder_create(const char *node, struct slurm_stranded_report *rep, struct strbuf *err);
/* Makes the leaving node's own record its placeholder (State=FUTURE, the placeholder's feature,
 * the reason's text as its Comment: slurmctld clears the reason of a FUTURE node at any update;
 * out of the reservations as above) instead of deleting it and creating one: the
 * name is never unknown to slurmctld, so a reconfigure or restart at any moment of the
 * departure (another machine's hook under Juju, an admin, a failover) finds it. Deleting first
 * left a window between the deletion and the creation in which one failed the jobs (24.11,
 * remove-application under hook-concurrency=machines: "Invalid req_nodes"). The record keeps its
 * table index, CPUs and address; FUTURE nodes get no job and no ping. 0 or a negative errno. */
int slurm_stranded_placeholder_keep(const char *node, struct slurm_stranded_report *rep, struct strbuf *err);

/* Pure: whether a pending job of this priority and state reason is held by an admin or by its
 * user. Priority 0 alone is not: 22.05's scheduler sets it with reason BadConstraints on a job
 * it finds non-runnable (a released job requiring a deleted node), and lifts it by itself when
 * node features change (job_mgr.c), after which the job may start on the node that took the
 * deleted node's index; such a job gets the admin hold and its comment like any other. */
bool slurm_stranded_held(uint32_t priority, uint32_t state_reason);

/* Loads the node table (placeholders included, counted as no record) and the job table (and,
 * with leaving nodes, the reservations naming any of them) once each. leaving: the nodes whose
 * units are leaving (NULL or empty: none; several at once under Juju, issue 28). Returns the
 * number of stranded jobs. */
int slurm_stranded_find(const struct strv *leaving, struct slurm_stranded *ret, struct strbuf *err);

/* "pending job 9 requires node slurmd-1", "pending jobs 9, 10 require node slurmd-1",
 * "pending jobs 9, 12 require nodes slurmd-1, slurmd-3" (jobs only; nothing when none). */
void slurm_stranded_describe_jobs(const struct slurm_stranded *s, struct strbuf *out);

enum slurm_stranded_action {
        SLURM_STRANDED_HOLD,   /* admin hold + comment; reservations left to Slurm */
        SLURM_STRANDED_CANCEL, /* comment + cancel; the node taken out of the reservations */
};

struct slurm_stranded_report {
        uint32_t *done; /* held or cancelled (or already ended) */
        size_t n_done;
        uint32_t *failed;
        size_t n_failed;
        struct strv resv_shrunk;  /* the node taken out of them */
        struct strv resv_deleted; /* deleted: the node was their only one */
};
#define SLURM_STRANDED_REPORT_INIT \
        { .resv_shrunk = STRV_INIT, .resv_deleted = STRV_INIT }
/* Accepts a zeroed or SLURM_STRANDED_REPORT_INIT struct. */
void slurm_stranded_report_done(struct slurm_stranded_report *r);

/* Each stranded job gets the admin comment `why` (appended to one it has) and is held or
 * cancelled; with CANCEL, `node` is taken out of each stranded reservation (deleted when it was
 * its only node). Returns the number of failures (>= 0; err has one line per failure,
 * "; "-separated) with *ret filled. */
int slurm_stranded_act(const struct slurm_stranded *s, enum slurm_stranded_action action, const char *node,
        const char *why, struct slurm_stranded_report *ret, struct strbuf *err);
