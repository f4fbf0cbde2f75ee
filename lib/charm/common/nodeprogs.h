/* SPDX-License-Identifier: Apache-2.0 */
/* The programs and files slurm.conf names for slurmd (Prolog, Epilog, HealthCheckProgram, …:
 * the NODE keys of slurmconf/pathkeys.h) reach the compute nodes only once every compute unit
 * has judged them safe on its own machine (issue 26 item 1).
 *
 * Design note (why). slurmd runs these as root. The controller can judge a path only on paper
 * and on its own machine; the compute unit's guard (charm/common/nodepaths.h) judges the file slurmd
 * already fetched, so a program missing, or writable by others, on a compute machine was run by
 * any job that started in the seconds between the push and the guard's drain, and by every
 * slurmd at its first start. So the change is two-phase:
 *  1. The controller's leader publishes the admin's set ("want") beside the live one
 *     (interfaces/slurmd.h, node-programs). A want item that differs from the live one is held
 *     back: slurm.conf keeps the live value (or none), the rest of slurm-conf-parameters applies.
 *  2. Each compute unit judges the want set on its machine (node_progs_judge: the checks of
 *     nodepaths.h, with the roots) and answers in its unit bag (node-programs-verdict), in every
 *     hook, paused or not (a verdict starts no daemon).
 *  3. Once every unit of every related slurmd application answered "safe" for exactly that set,
 *     the controller renders it (node_progs_gate). A unit that refuses blocks the controller
 *     with its reason; one that has not answered yet is named in the status.
 * Removing an item, or putting back the live value, needs no verdict. With several controllers
 * the leader decides: it puts the set it released in the peer app bag (node-programs-released),
 * and the other controller units render that set, not a gate of their own (each unit's last
 * render differs, and a new unit has none: review R1); a new leader takes it as the live set
 * until it has rendered one itself. A unit that joins later
 * judges the live set before slurmd's first start and does not start slurmd while it fails.
 * Left as it was: the guard on the fetched file (a program broken after the verdict), and
 * a unit of a charm from before the verdict key holds every change back (named in the status).
 *
 * Ownership: inputs are borrowed; results are the caller's (node_progs_gate_done()). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "charm/common/charm.h"
#include "slurmconf/options.h"
#include "util/strbuf.h"
#include "util/strv.h"

/* The NODE program items (and SlurmdUser) of a slurm-conf-parameters string, in canonical
 * spelling (ret replaced). params NULL or "": none. -EINVAL (message) when params does not parse
 * as global options. */
int node_progs_of_params(const char *params, struct slurm_options *ret, struct strbuf *err);

/* Whether two sets hold the same items (order aside). */
bool node_progs_same(const struct slurm_options *a, const struct slurm_options *b);

/* Whether params (as configured) has an item for slurmd that live_params (as last rendered, or
 * the set the leader released) has not: only then are the compute units' verdicts read. */
bool node_progs_pending(const char *params, const char *live_params);

/* One compute unit's answer, as its unit bag holds it. */
struct node_progs_vote {
        const char *unit;    /* "cpu/1" */
        const char *verdict; /* node-programs-verdict (NULL: none yet) */
};

struct node_progs_gate {
        char *params;        /* what to render: params as given, or with held items set back */
        bool held;           /* some want items are held back */
        char *pending;       /* the want items that need verdicts, "Prolog=/… Epilog=/…" (held) */
        struct strv refused; /* "cpu/1 refuses Prolog=…: why", one per refusing unit */
        struct strv waiting; /* units that have not judged the want set */
        struct slurm_options want, live; /* the sets (live: params_applied's) */
};
#define NODE_PROGS_GATE_INIT                                                                \
        {                                                                                   \
                .refused = STRV_INIT, .waiting = STRV_INIT, .want = SLURM_OPTIONS_INIT, \
                .live = SLURM_OPTIONS_INIT                                                  \
        }
void node_progs_gate_done(struct node_progs_gate *g);

/* The gate (see above): params is slurm-conf-parameters as configured, params_applied as last
 * rendered (NULL: never), votes one per related compute unit. ret->params is params itself when
 * nothing is held (also when params does not parse: the option parser refuses it later), else
 * params with each want item that differs from live set back to live's value (or dropped). 0, or
 * a negative errno (no memory). */
int node_progs_gate(const char *params, const char *params_applied, const struct node_progs_vote *votes,
        size_t n_votes, struct node_progs_gate *ret);

/* The set's message form: "Prolog=/etc/slurm/scripts/p Epilog=…" (caller frees). */
char *node_progs_text(const struct slurm_options *set);

/* A compute unit's judgement of set on this machine (p->root), with the roots of each use
 * (slurmconf/pathkeys.h): 0 safe, 1 not (first failure "Prolog: …" in why). */
int node_progs_judge(const struct charm_paths *p, const struct slurm_options *set, struct strbuf *why);

/* The want set last answered, as slurm.conf lines, in the unit's state directory: slurmd's
 * service watcher judges it at each look too (charm/slurmd/nodefollow.h), so a program put right or
 * broken on this machine while a change is held back is answered within seconds, no hook. */
#define NODE_PROGS_WANT_FILE "node-programs.want"

/* The verdict on that file on this machine: 0 safe or no file, 1 not (why). */
int node_progs_want_judge(const struct charm_paths *p, struct strbuf *why);

struct juju_ctx;

/* A compute unit's side, in every hook: judges the controller's want set (node-programs, the
 * remote application's bag value json) on this machine and puts the verdict in this unit's bag
 * of relation rel when it changed; judges the live set too. 0 the live set is safe here (or
 * nothing is published: a controller from before the key), 1 it is not (first failure in
 * live_why), -EINVAL the controller's data is bad (message in live_why, no verdict), another
 * negative errno (err). */
int node_progs_answer(struct juju_ctx *ctx, const struct charm_paths *p, const char *rel, const char *json,
        struct strbuf *live_why, struct strbuf *err);
