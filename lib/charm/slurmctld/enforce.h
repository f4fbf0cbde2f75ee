/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmctld option accounting-enforce: Slurm's AccountingStorageEnforce, so that only users
 * with an association (slurmdbd's user-add action) can submit (issue 30 §3).
 *
 * Design note. What Slurm does with it (measured on 22.05 with slurmdbd on MariaDB, the test
 * charm-accounting): with associations enforced a user without one is refused at submission
 * ("Invalid account or account/partition combination specified"); jobs that user submitted
 * before stay PENDING with reason InvalidAccount ("_load_job_state: JobId=… ineligible due to
 * invalid association" at the restart that applies the change) and run once the option is
 * cleared or the user is added (slurmctld takes the new association from slurmdbd and finds it
 * when it next tries the job: a job held for its begin time shows InvalidAccount until then);
 * running jobs are not touched. Every word but nojobs and nosteps
 * implies associations in Slurm (limits, safe, qos and wckeys set it too). The rules:
 *  - the value is a comma-separated list of Slurm's words (associations, limits, qos, safe,
 *    wckeys, all, nojobs, nosteps), any case, each once; it is rendered lower case, in the order
 *    given. A bad value is refused in the status and the option's last good value stays
 *    (nothing changed; kept in ENFORCE_APPLIED_FILE, never read back from slurm.conf, where
 *    slurm-conf-parameters may have put the key);
 *  - it is rendered only while slurmdbd is related: enforcement without accounting has no
 *    associations to check (the status says the option waits for slurmdbd); and not in the
 *    first file with slurmdbd (enforce_accounting_live);
 *  - while the option is set, an AccountingStorageEnforce in slurm-conf-parameters is left out
 *    of the file and named in the status (the option comes first); without the option the
 *    parameter applies as any other;
 *  - pending jobs held by it (reason InvalidAccount or InvalidQOS) are counted in the status
 *    of the controller in charge, with their users: nothing is lost silently, and the admin sees
 *    whom to add. The note is kept with the unit's notes, so a compute unit's event that
 *    refreshes the status keeps it.
 * Ownership: *ret strings are malloc'd for the caller; struct enforce_waiting owns its strv. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "slurm/jobquery.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define ENFORCE_CONFIG_KEY "accounting-enforce"
#define ENFORCE_SLURM_KEY "AccountingStorageEnforce"
#define ENFORCE_APPLIED_FILE "accounting-enforce.applied" /* the option's last good value taken */

/* The option's value checked and normalised (lower case, no spaces around the commas). "" or
 * NULL: 0 and *ret NULL (Slurm's default, nothing enforced). Good: 0 and *ret. Bad: -EINVAL,
 * one message in err (without the option's name), *ret untouched. */
int enforce_parse(const char *value, char **ret, struct strbuf *err);

/* The value to use: the option's when it is good, else the option's last good value (last, as
 * recorded in ENFORCE_APPLIED_FILE when a file with it was taken; NULL: none) with
 * "accounting-enforce: WHY (nothing changed)" appended to refused. Never a value that
 * slurm-conf-parameters put in the live file. *ret: malloc'd, NULL for none. Pure. */
void enforce_choose(const char *value, const char *last, char **ret, struct strbuf *refused);

/* Whether the live slurm.conf already has accounting (AccountingStorageType=
 * accounting_storage/slurmdbd): slurmctld has then registered with slurmdbd and keeps the
 * associations in its state directory, so a start with enforcement works while slurmdbd is
 * down. The first start with slurmdbd goes without enforcement (22.05 exits on "slurmdbd and/or
 * database must be up at slurmctld start time" when it enforces associations with no cache and
 * slurmdbd does not answer); the charm run that follows that start (the service watcher's)
 * adds it. NULL or an unreadable file: false. Pure. */
bool enforce_accounting_live(const char *live_data, size_t live_len);

/* Whether the slurm-conf-parameters string sets AccountingStorageEnforce (any case; a string
 * the parser refuses sets nothing). */
bool enforce_params_set(const char *params);

/* Pending jobs that enforcement holds: reason InvalidAccount (the user has no association:
 * counted with the users) or InvalidQOS (the association does not allow the job's QOS). A
 * pending array's meta record counts as one job. */
struct enforce_waiting {
        size_t n;          /* InvalidAccount */
        struct strv users; /* theirs, distinct, in the jobs' order ("uid N" when slurmctld sent no name) */
        size_t n_qos;      /* InvalidQOS */
};
#define ENFORCE_WAITING_INIT \
        { .n = 0, .users = STRV_INIT, .n_qos = 0 }
void enforce_waiting_done(struct enforce_waiting *w);
/* Counts them in a job list. Pure. */
void enforce_waiting_count(const struct slurm_jobinfo_list *jobs, struct enforce_waiting *ret);
/* The same from slurmctld (slurm_jobs_find): 0, or a negative errno (message in err). */
int enforce_waiting_load(struct enforce_waiting *ret, struct strbuf *err);

enum enforce_stage {
        ENFORCE_NO_ACCOUNTING, /* no slurmdbd related: the option waits */
        ENFORCE_FIRST_START,   /* accounting is new in this file: the option follows its start */
        ENFORCE_APPLIED,
};
/* The controller's status note, appended to msg: "; accounting-enforce=V waits for slurmdbd
 * (integrate with slurmdbd)" (ENFORCE_NO_ACCOUNTING), "; accounting-enforce=V follows
 * slurmctld's first start with slurmdbd" (ENFORCE_FIRST_START); applied: "; N pending jobs of
 * USERS have no association (accounting-enforce=V): they run once the users are added
 * (slurmdbd's user-add)" when w counts some (at most 5 users named, "and K more"), and "; N
 * pending jobs ask for a QOS their association does not allow (accounting-enforce=V)"; nothing
 * otherwise; applied with nojobs or nosteps, first "; accounting-enforce=V: slurmdbd records no
 * jobs and no steps (nojobs)" or "… records no job steps (nosteps)" (Slurm's nojobs implies
 * nosteps: job accounting is off, which an admin reading "enforce" would not guess). w may be
 * NULL. */
void enforce_status_note(
        const char *value, enum enforce_stage stage, const struct enforce_waiting *w, struct strbuf *msg);
