/* SPDX-License-Identifier: Apache-2.0 */
/* The controllers' side of accounting: the `slurmdbd` relation (interfaces/slurmdbd.h). The
 * slurmdbd leader publishes where slurmdbd serves (primary first); the controllers render
 * AccountingStorageType=accounting_storage/slurmdbd, AccountingStorageHost and Port, and
 * AccountingStorageBackupHost for a second unit (charm/slurmctld/ctlconf.h); the slurmctld leader gives
 * slurmdbd the cluster's auth key secret. No relation: no accounting keys, and slurmctld is
 * restarted without them (a global key change, charm/slurmctld/ctlapply.h).
 *
 * Bad relation data changes nothing: the hosts last taken (kept in the controller's state dir,
 * ACCT_STATE_FILE) stay in slurm.conf and the refusal is a note in the status. While slurmdbd
 * is unreachable slurmctld keeps running and queues its records (slurm.conf(5): up to
 * MaxDBDMsgs, by default 10000 + 2 per node), sending them once slurmdbd answers again.
 *
 * Ownership: struct acct_view owns its strings (acct_view_done). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "charm/common/charm.h"
#include "util/strv.h"

#define ACCT_ENDPOINT "slurmdbd"
#define ACCT_STATE_FILE "accounting"

struct acct_view {
        struct strv rels;      /* relation ids on the slurmdbd endpoint (0 or 1) */
        struct strv hosts;     /* "host:port", primary first: what slurm.conf gets (empty: none) */
        struct strbuf refused; /* why the relation's data was not taken (kept the last good) */
        struct strbuf waiting; /* why new hosts wait (kept the last taken): a note, no refusal */
        struct strv waiting_hosts; /* the hosts that wait (empty: none) */
        int64_t waiting_until;     /* Unix s before which they are not tried (0: as soon as one answers) */
        char *waiting_state;       /* a standby's wait that its saved state ends (acct_state_ready): that
                                    * StateSaveLocation, else NULL */
        int64_t waiting_since_ms;  /* and the time the state must be saved after (Unix ms) */
        bool primary_runs;         /* a standby whose primary's slurmctld runs with hosts (acct_standby):
                                    * that daemon met slurmdbd, and its ClusterID is not dropped */
};
#define ACCT_VIEW_INIT \
        { .rels = STRV_INIT, .hosts = STRV_INIT, .refused = STRBUF_INIT, .waiting = STRBUF_INIT, \
          .waiting_hosts = STRV_INIT, .waiting_until = 0, .waiting_state = NULL, .primary_runs = false }

/* A controller unit that is not first in the controllers' order (charm/slurmctld/ha.h) starts
 * its slurmctld as a standby: that daemon meets slurmdbd only when it takes control
 * (backup.c, then ctld_assoc_mgr_init; 22.05 and 24.11), never at its start. Each unit judged
 * by its own look alone, a standby that cannot reach slurmdbd (a route blocked from its machine
 * only, a look at the moment slurmdbd restarted) rendered no accounting while the primary ran
 * with it, and a takeover then ran the cluster without any: the records of every job meanwhile
 * were never made (review of stop 54, left open). Now a standby also takes the hosts the
 * primary's slurmctld runs with (its peer bag, ACCT_PEER_KEY), once the shared
 * StateSaveLocation holds what slurmctld needs to take control while slurmdbd does not answer
 * (acct_state_ready): it then starts, keeps the records in its queue and sends them once
 * slurmdbd answers. Until then it waits, followed by the service watcher (acctfollow.h).
 * The files must have been saved after the primary took the hosts (ACCT_PEER_SINCE_KEY, Unix
 * ms): slurmctld saves them whether or not it has accounting, so the restart that turns it on
 * leaves the ones of the run without it (assoc_mgr_state: its header alone, no users or
 * associations) until the next save. A takeover on those with
 * AccountingStorageEnforce=associations crashed slurmctld at every try and left the cluster
 * without a controller (a helper's attack, 22.05); without enforce, jobs lost their account. */
#define ACCT_PEER_KEY "accounting-hosts"
#define ACCT_PEER_SINCE_KEY "accounting-since"
#define ACCT_SINCE_FILE "accounting.since"
struct acct_standby {
        const char *primary;       /* the first unit of the order (messages) */
        const char *primary_hosts; /* its bag's ACCT_PEER_KEY ("h:p,h:p"; NULL or "": none) */
        int64_t primary_since_ms;  /* its bag's ACCT_PEER_SINCE_KEY (0: unknown: never ready) */
        const char *state_dir;     /* StateSaveLocation as this unit sees it (shared) */
};
/* A standby's view of the first unit of the order (primary) in the peer relation peer_rel:
 * its bag's keys into *ret (strings borrowed from the hook's cache), state_dir borrowed. An
 * order that still names a unit that left the relation (a non-leader's view after a removal)
 * has no bag Juju gives: read as none, the standby waits (a review of this change). */
void acct_standby_read(struct juju_ctx *ctx, const char *peer_rel, const char *primary, const char *state_dir,
        struct acct_standby *ret);
/* This unit's ACCT_PEER_KEY and ACCT_PEER_SINCE_KEY in its own peer bag (peer_self: as read),
 * once the file with the hosts was taken. 0 or a negative errno. */
int acct_peer_publish(struct juju_ctx *ctx, const struct charm_paths *p, const char *peer_rel,
        const cJSON *peer_self, struct strbuf *err);

/* What a slurmctld taking control without slurmdbd answering reads from state_dir, all regular
 * files (not links) saved at or after since_ms (Unix ms; the file system's mtime against the
 * primary's clock: machines whose clocks disagree by more than the restart's time, a second or
 * a few, can be misjudged; 0: never ready), assoc_mgr_state more than its bare header
 * (ACCT_ASSOC_STATE_BARE: the controller in charge that saved it need not be the unit whose
 * time since_ms is, and one without accounting saves no users or associations): last_tres and assoc_mgr_state (assoc_mgr.c dump_assoc_mgr_state, written
 * every PERIODIC_CHECKPOINT = 300 s by the controller in charge and at its stop: 22.05's
 * _init_tres exits without the TRES, and with AccountingStorageEnforce=associations without
 * the associations), and on a generation that keeps the ClusterID in state
 * (slurm_caps.cluster_id_in_state, 24.11) clustername with "|<id>" (else _retry_init_db_conn
 * waits for slurmdbd for ever). True when all are there; else false and, when missing is not
 * NULL, what is not (appended). */
#define ACCT_ASSOC_STATE_BARE 64 /* bytes: assoc_mgr_state no larger holds no users, no associations */
bool acct_state_ready(const struct charm_paths *p, const char *state_dir, int64_t since_ms, struct strbuf *missing);
/* This unit's value of ACCT_PEER_KEY: the hosts taken last (acct_store), "," between them
 * (caller frees; "" none). */
char *acct_taken_joined(const struct charm_paths *p);
/* And of ACCT_PEER_SINCE_KEY: when acct_store first stored those hosts (Unix ms, ACCT_SINCE_FILE;
 * 0 none). A unit that took them before this record existed records the time it is first
 * stored again: its standbys then wait for the next save after that. */
int64_t acct_taken_since(const struct charm_paths *p);

/* Reads the relation; bad data, or a slurmdbd whose Slurm (`slurm`, published by its leader)
 * cannot serve this slurmctld (charm_generation_check: older, too new, another AuthType),
 * leaves the hosts taken last (state file) with a reason.
 * Hosts other than those taken last are taken only when one of them accepts a connection
 * (ACCT_LOOK_MS each); else the last stay, and why is in ret->waiting, tried again at the next
 * hook. A slurmctld started with slurmdbd hosts it cannot reach waits for them without
 * answering anyone when its state holds no ClusterID, no last_tres or no assoc_mgr_state
 * (24.11, controller.c _retry_init_db_conn: for ever, every 2 s; and the charm drops the
 * ClusterID for new hosts, acct_cluster_id_release), or exits (22.05, no TRES: acct_start_fault):
 * the cluster would be without a controller for the start's bound, at every hook. */
#define ACCT_LOOK_MS 1000
/* Hosts slurmctld did not start with for want of slurmdbd (acct_defer) stay out the same way,
 * without a start, for ACCT_DEFER_S: else every hook (and the service watcher's run right after
 * each rollback) would try that start again, each one an outage (review of stop 54, 1). */
#define ACCT_DEFER_FILE "accounting.deferred"
#define ACCT_DEFER_S 300
/* While hosts wait: what slurmctld's service watcher follows (charm/slurmctld/acctfollow.h) */
#define ACCT_WAIT_FILE "accounting.waiting"
/* sb: this unit is a standby in an order of several (NULL: the primary, or alone). */
int acct_read(struct juju_ctx *ctx, const struct charm_paths *p, const struct acct_standby *sb,
        struct acct_view *ret, struct strbuf *err);
/* acct_read's rule for ret->hosts, read from the relation, other than those taken last
 * (acct_store): taken, or moved to ret->waiting_hosts with the last ones back in ret->hosts and
 * why in ret->waiting. */
void acct_take(const struct charm_paths *p, const struct acct_standby *sb, struct acct_view *ret);
/* Keeps ACCT_WAIT_FILE while v's hosts wait ("<waiting_until>\n<host>\n…", and a line with
 * v->waiting_state when its saved state ends the wait: a path, which no host:port is, then
 * "@<waiting_since_ms>"), removes it when
 * none do (every full reconcile: a file left from another hook is replaced). 0 or a negative
 * errno (err). */
int acct_wait_record(const struct charm_paths *p, const struct acct_view *v, struct strbuf *err);
/* Whether ACCT_WAIT_FILE is there: true with its time (*ret_until), hosts (appended) and the
 * state directory whose readiness ends the wait (*ret_state, caller frees; NULL: none) with the
 * time it must be saved after (*ret_since_ms, acct_state_ready). */
bool acct_wait_load(const struct charm_paths *p, int64_t *ret_until, struct strv *ret_hosts, char **ret_state,
        int64_t *ret_since_ms);
/* Whether one of hosts ("host:port") accepts a connection within timeout_ms each. */
bool acct_hosts_answer(const struct strv *hosts, int timeout_ms);
/* Records the hosts taken (after slurm.conf was written with them); forgets a deferral. */
int acct_store(const struct charm_paths *p, const struct acct_view *v, struct strbuf *err);
/* slurmctld did not start with v's hosts for want of slurmdbd (acct_start_fault): remembered
 * with why, now, so that acct_read keeps them out for ACCT_DEFER_S. 0 or a negative errno. */
int acct_defer(const struct charm_paths *p, const struct acct_view *v, const char *why, struct strbuf *err);
/* Whether hosts are deferred at now (Unix s): seconds left (> 0) and *ret_why (caller frees),
 * or 0. Reads ACCT_DEFER_FILE ("<time>\n<why>\n<host>\n…"). */
long acct_deferred(const struct charm_paths *p, const struct strv *hosts, int64_t now, char **ret_why);
/* Leader: the auth key secret granted to and named in every slurmdbd relation, the cluster
 * name and the controllers (JSON list of "host:port", as the slurmd interface has it). */
int acct_publish(struct juju_ctx *ctx, const struct acct_view *v, const char *auth_key_id,
        const char *cluster_name, const char *controllers_json, struct strbuf *err);
/* Before slurmctld starts with slurmdbd hosts other than those taken last (accounting turned
 * on, another slurmdbd), unless the primary already runs with them (v->primary_runs: its
 * daemon has slurmdbd's id, and a standby taking control without slurmdbd needs it): on a generation that keeps the ClusterID in StateSaveLocation
 * (slurm_caps.cluster_id_in_state), drops that id from state_dir/clustername, keeping the
 * name, so slurmctld takes the id slurmdbd has or gives the cluster instead of exiting on the
 * mismatch. The id slurmctld made up alone (no accounting) names nothing outside this
 * cluster. 1 rewritten, 0 nothing to do, or a negative errno (message in err). */
int acct_cluster_id_release(
        const struct charm_paths *p, const struct acct_view *v, const char *state_dir, struct strbuf *err);
/* Whether slurmctld's last words at a failed start (one log line, NULL: none) say it exited for
 * want of what only slurmdbd and its database give: the TRES, which a controller that never
 * stopped cleanly with accounting has in no state file (controller.c _init_tres: "we have no
 * TRES from it. This should only happen if the database is down …", 22.05 and 24.11 alike),
 * the associations it must enforce ("slurmdbd and/or database must be up at slurmctld start
 * time"), or a cache without TRES (assoc_mgr.c). Not the file's fault: such a start is rolled
 * back and tried again at the next hook, never remembered as a refusal
 * (charm/slurmctld/ctlapply.h). Pure. */
bool acct_start_fault(const char *line);
/* What 24.11's slurmctld logs every 2 s while its start waits for slurmdbd (no ClusterID,
 * last_tres or assoc_mgr_state in its state: _retry_init_db_conn); a start that did not answer
 * in time and logged it is not the file's fault either. */
#define ACCT_START_WAIT_LINE "Retrying initial connection to slurmdbd"
/* The controller's status note on accounting: when slurmdbd (every host of v) does not accept
 * a connection, "; accounting: slurmdbd H:P not answering, N records held by slurmctld" (N from
 * slurmctld's statistics, "its queue unknown" when it does not answer either), and when it
 * answers but slurmctld holds ACCT_QUEUE_NOTE or more records, "; accounting: N records waiting
 * for slurmdbd". Nothing without accounting or when all is well. Appended to msg. */
#define ACCT_QUEUE_NOTE 500
void acct_status_note(const struct acct_view *v, struct strbuf *msg);
void acct_view_done(struct acct_view *v);
