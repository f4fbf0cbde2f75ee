/* SPDX-License-Identifier: Apache-2.0 */
/* The trigger actions of the controller (issue 29, the operations pack's slurm.trigger.*):
 * trigger-set, trigger-list, trigger-unset, each a thin main in actions/slurmctld/.
 *
 *   trigger-set event program [nodes] [job-id] [offset] [permanent]
 *       node events up, down, drained, reconfig (nodes "*", the default: every node);
 *       job events fini, time (job-id); controller events primary_slurmctld_failure, … (the
 *       strigger names). The trigger runs program as SlurmUser on the controller in charge.
 *   trigger-list                 every trigger, the charm's own marked (owner charm / site)
 *   trigger-unset ids | user     ids (comma- or space-separated) or every trigger of user
 *
 * Refused, changing nothing, each with the reason (Slurm 22.05 and 24.11 facts, read in
 * src/slurmctld/trigger_mgr.c and strigger's opts.c):
 *  - a node trigger naming nodes (anything but "*"): slurmctld saves the names and, once a
 *    named node is gone (every node of this cluster is dynamic: a departure deletes it), its
 *    next start or takeover dies in fatal("Incomplete trigger data checkpoint file");
 *  - event fail (nothing in slurmctld raises it: it never fires; drained covers
 *    `state=fail`), idle (on every node, the only set taken, it fires at each 15 s pass
 *    whether or not a node is idle), burst_buffer (no burst buffer plugin here), and any name
 *    strigger does not know;
 *  - a negative offset but for time (the others fire at event + offset: a negative one runs
 *    at once), a positive one for fini (a trigger still waiting once the ended job was purged,
 *    MinJobAge, is fatal at restore), an offset outside ±SLURM_TRIGGER_OFFSET_MAX; permanent
 *    on a job event (a job ends once); job-id for a node or controller event, or none for a
 *    job event; a job slurmctld does not know, or one of an array (the array's id names one
 *    record, which becomes its last task to start);
 *  - more than TRIGOPS_SITE_MAX site triggers (Slurm's only bound, MaxJobCount, would keep
 *    the charm from putting its own back);
 *  - a program outside the roots a Slurm daemon may run programs from (slurmconf/pathkeys.h,
 *    PROGRAM: /etc/slurm/scripts/, /usr/bin, /usr/sbin), or one this machine does not show
 *    as safe there (root's, not writable by group or others, nor any directory above it), or
 *    that SlurmUser cannot execute; arguments after it are words of [A-Za-z0-9._,:=@%+/-]
 *    (slurmctld splits the string at spaces, no quoting), at most TRIGOPS_ARGS_MAX;
 *  - unset: an id that is no trigger, or one of the charm's own (its node event triggers run
 *    EVSPOOL_HOME's program: removing them would blind the event log); by user, the charm's
 *    are kept and named in the result.
 * The program is checked on the machine the action runs on; the trigger runs on whichever
 * controller is in charge when it fires, so the result says to install it on every controller
 * machine (and names this one as checked).
 *
 * Results: trigger-set: id, trigger.<field>, checked-on; trigger-list: count,
 * triggers.<id>.<field> (event, resource-type, resource, offset, program, user, permanent,
 * owner); trigger-unset: removed-count, removed, kept, already-gone (ids, comma-separated;
 * kept: the charm's own, by user; already-gone: fired and purged since the list).
 *
 * Invariants: the parse functions are pure (params is action-get's object); nothing is changed
 * before every check passed. Ownership: request structs own their strings (…_done()). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "charm/common/charm.h"
#include "juju/juju.h"
#include "slurm/triggers.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define TRIGOPS_PROGRAM_MAX 1024 /* the whole program string */
#define TRIGOPS_ARGS_MAX 16      /* words after the program */
#define TRIGOPS_IDS_MAX 1000
#define TRIGOPS_SITE_MAX 100 /* site triggers: the charm's own must always fit */

int trigops_set(struct juju_ctx *ctx, struct strbuf *err);
int trigops_list(struct juju_ctx *ctx, struct strbuf *err);
int trigops_unset(struct juju_ctx *ctx, struct strbuf *err);

struct trigops_set_req {
        unsigned res_type; /* enum slurm_trigger_res */
        uint32_t event;    /* one bit */
        char *event_name;
        char *program;  /* the whole string */
        char *path;     /* its first word */
        char *resource; /* "*" or the job id */
        int offset;
        bool permanent;
};
void trigops_set_req_done(struct trigops_set_req *q);
/* trigger-set's parameters, every rule above but the machine's look at the program. */
int trigops_set_parse(const cJSON *params, struct trigops_set_req *ret, struct strbuf *err);

/* The program's path on this machine (root: "" or NULL for "/", a directory in tests): safe to
 * run as a Slurm daemon's program and executable by uid:gid (SlurmUser). 0, or -EINVAL /
 * -ENOENT / -EACCES with one line in err. */
int trigops_program_check(const char *root, const char *path, uid_t uid, gid_t gid, struct strbuf *err);

struct trigops_unset_req {
        uint32_t *ids; /* NULL when by user */
        size_t n_ids;
        char *user;
};
void trigops_unset_req_done(struct trigops_unset_req *q);
/* trigger-unset's parameters: ids or user, exactly one. */
int trigops_unset_parse(const cJSON *params, struct trigops_unset_req *ret, struct strbuf *err);

/* Whether t is one of the charm's own triggers (its program is EVSPOOL_HOME's). */
bool trigops_is_charm(const struct slurm_trigger *t);
/* How many of have are the site's (not the charm's). */
size_t trigops_site_count(const struct slurm_trigger_list *have);

/* What trigger-unset removes from have (user's uid when by user): the ids to clear into
 * ret_clear, the charm's kept ones (by user) into ret_kept. -ENOENT for an id that is no
 * trigger, -EPERM for a charm's one, with the message; nothing appended then. */
int trigops_unset_plan(const struct slurm_trigger_list *have, const struct trigops_unset_req *q, uid_t user_uid,
        struct strv *ret_clear, struct strv *ret_kept, struct strbuf *err);

/* Each site trigger's program (the first word) judged on this machine as trigger-set judges
 * it (root: "" or NULL for "/"), uid:gid SlurmUser's: 0 when all pass, else the number that
 * fail, with "trigger N: <why> (…)" for the first one and "+K more" in note. The controller's
 * hooks put it in the unit's status: a trigger fires on whichever controller is in charge. */
int trigops_programs_note(const struct slurm_trigger_list *have, const char *root, uid_t uid, gid_t gid,
        struct strbuf *note);

/* The status part of trigops_programs_note() for this machine: lists the triggers (one RPC)
 * and appends "; trigger N: …" to message when a site program fails here; nothing when all
 * pass or the list cannot be read (the next hook says it). Both the controller's full reconcile
 * and its quick status refresh call it, so that no status drops the note. */
void trigops_status_note(const struct charm_paths *paths, struct strbuf *message);

/* Appends the result fields of t under prefix ("triggers.12." or "trigger.") to kv. */
void trigops_fields(const struct slurm_trigger *t, const char *prefix, struct strv *kv);
