/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's slurm.conf guarded: a bad input (slurm-conf-parameters, one application's
 * partition data) never reaches the file, and never stops the others from applying.
 *
 * Design note. ctl_conf_render() is a pure function of all inputs; one bad input would make
 * the whole render fail (and before this module, the controller blocked every change and, for
 * values the key check missed, wrote a file that killed slurmctld). ctl_guard_render() renders
 * from each input's NEW value where that is good, and its LAST GOOD value otherwise:
 *  - slurm-conf-parameters: last good = params_applied (the string last written, kept by the
 *    caller in its state directory); a string the option parser refuses (unknown key, bad
 *    value for that key, the rules tying keys together over the template's values:
 *    slurmconf/options.h) is refused at once, and so is a new value for a key that every
 *    slurmd reads only when it starts (TaskPlugin, ProctrackType, …: the compute units would
 *    keep the old one, and no charm restarts slurmd for it yet);
 *  - each related application: its new data is what it published, already decoded and checked
 *    key by key by interfaces/slurmd.h (NULL: nothing usable: waiting, or refused there); its
 *    last good is its PartitionName line in the live slurm.conf (old_data), kept as it is. An
 *    application with neither is left out. So a partition with jobs never vanishes because its
 *    application sent something bad or nothing yet (a re-related application that has not
 *    published again keeps its old, maybe INACTIVE, line).
 * The candidate is then judged by Slurm's own reader (the judge: slurm/confcheck.h in the
 * charm, a fake in unit tests) unless it equals the live file. When it is rejected, the guard
 * finds the culprits: it judges the all-last-good candidate (if even that is rejected, nothing
 * can be written: -EINVAL with Slurm's message), then adds the new inputs one at a time in
 * input order (parameters first, then applications oldest relation first), keeping each one
 * Slurm accepts and refusing each one it rejects. At most 2 + n_inputs judgements, and only
 * when something was rejected; the usual hook judges once, or never when nothing changed.
 *
 * Ownership: inputs are borrowed; the result owns its strings (ctl_guard_result_done()). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "charm/slurmctld/ctlconf.h"
#include "util/strbuf.h"
#include "util/strv.h"

/* 0: the candidate is accepted; -EINVAL: rejected (one message in err); another negative
 * errno: it could not be judged (the guard returns that error). */
typedef int (*ctl_judge_fn)(const char *data, size_t len, struct strbuf *err, void *userdata);

struct ctl_guard_app {
        const char *name;                /* the related application (a usable name) */
        const struct compute_data *data; /* what it published, decoded; NULL: nothing usable */
};

struct ctl_guard_input {
        /* template, cluster name, controllers, default partition, leaving partitions; its
         * extra_params, partitions and n_partitions are ignored (the guard sets them) */
        struct ctl_conf_input conf;
        const char *old_data; /* the live slurm.conf; NULL: none yet */
        size_t old_len;
        const char *params;         /* slurm-conf-parameters as configured now */
        const char *params_applied; /* as last written (NULL: never) */
        const struct ctl_guard_app *apps;
        size_t n_apps;
        ctl_judge_fn judge;
        void *judge_userdata;
        /* the candidate is judged even when it equals the live file: the live file is one that
         * another controller unit's slurmctld refused (charm/slurmctld/ctlrefshare.h) */
        bool judge_live;
};

struct ctl_guard_result {
        struct strbuf conf;   /* the slurm.conf to write */
        char *params_applied; /* the slurm-conf-parameters string rendered into conf */
        struct strv refused;  /* one message per refused input, for the status */
        bool params_refused;  /* slurm-conf-parameters was one of them */
        struct strv rendered; /* the applications with a PartitionName line in conf */
        unsigned n_judged;    /* candidates the judge saw */
};
#define CTL_GUARD_RESULT_INIT \
        { .conf = STRBUF_INIT, .refused = STRV_INIT, .rendered = STRV_INIT }
void ctl_guard_result_done(struct ctl_guard_result *r);

/* Renders the guarded slurm.conf (see above). 0 with *ret filled (ret->refused may list
 * refusals); -EINVAL when nothing acceptable can be rendered (err: why); another negative
 * errno from the judge. *ret must be CTL_GUARD_RESULT_INIT; it is filled only on success. */
int ctl_guard_render(const struct ctl_guard_input *in, struct ctl_guard_result *ret, struct strbuf *err);
