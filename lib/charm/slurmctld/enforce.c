/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmctld option accounting-enforce (charm/slurmctld/enforce.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/enforce.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "slurmconf/conf.h"
#include "slurmconf/options.h"

#include "util/banned.h"

/* Slurm's words (slurm.conf(5), 22.05 and 24.11 alike; the numeric 1 and 2 of old releases are
 * left out of the option) */
static const char *const words[] = { "associations", "limits", "qos", "safe", "wckeys", "all", "nojobs",
        "nosteps" };

static bool known_word(const char *w) {
        for (size_t i = 0; i < ELEMENTSOF(words); i++)
                if (streq(words[i], w))
                        return true;
        return false;
}

int enforce_parse(const char *value, char **ret, struct strbuf *err) {
        if (isempty(value)) {
                *ret = NULL;
                return 0;
        }
        _cleanup_strv_ struct strv got = STRV_INIT;
        const char *p = value;
        for (;;) {
                size_t n = strcspn(p, ",");
                /* spaces around a word are the admin's layout; inside one, a mistake */
                const char *s = p, *e = p + n;
                while (s < e && isspace((unsigned char) *s))
                        s++;
                while (e > s && isspace((unsigned char) e[-1]))
                        e--;
                if (s == e) {
                        strbuf_addf(err, "\"%.60s\" has an empty word (words: associations, limits, qos, "
                                         "safe, wckeys, all, nojobs, nosteps)",
                                value);
                        return -EINVAL;
                }
                _cleanup_free_ char *w = xstrndup(s, (size_t) (e - s));
                for (char *c = w; *c; c++)
                        *c = (char) tolower((unsigned char) *c);
                if (!known_word(w)) {
                        strbuf_addf(err, "\"%.40s\" is not one of Slurm's words (associations, limits, qos, "
                                         "safe, wckeys, all, nojobs, nosteps)",
                                w);
                        return -EINVAL;
                }
                if (strv_contains(&got, w)) {
                        strbuf_addf(err, "\"%.40s\" is given twice", w);
                        return -EINVAL;
                }
                strv_push(&got, w);
                if (!p[n])
                        break;
                p += n + 1;
        }
        *ret = strv_join(&got, ",");
        return 0;
}

void enforce_choose(const char *value, const char *last, char **ret, struct strbuf *refused) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (enforce_parse(value, ret, &e) == 0)
                return;
        strbuf_addf(refused, ENFORCE_CONFIG_KEY ": %s (nothing changed)", e.buf);
        *ret = isempty(last) ? NULL : xstrdup(last);
}

bool enforce_accounting_live(const char *live_data, size_t live_len) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        if (!live_data || slurmconf_parse("slurm.conf", live_data, live_len, &c, NULL) < 0)
                return false;
        return streq_ptr(slurmconf_get(c, "AccountingStorageType"), "accounting_storage/slurmdbd");
}

bool enforce_params_set(const char *params) {
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        if (isempty(params) || slurm_options_parse(params, SLURM_OPTIONS_GLOBAL, &o, NULL) < 0)
                return false;
        return slurm_options_get(&o, ENFORCE_SLURM_KEY) != NULL;
}

void enforce_waiting_done(struct enforce_waiting *w) {
        strv_clear(&w->users);
        w->n = 0;
}

void enforce_waiting_count(const struct slurm_jobinfo_list *jobs, struct enforce_waiting *ret) {
        for (size_t i = 0; i < jobs->n; i++) {
                const struct slurm_jobinfo *j = &jobs->v[i];
                if (!slurm_job_state_is(j->state, "PENDING") || !j->state_reason)
                        continue;
                if (streq(j->state_reason, "InvalidQOS")) {
                        ret->n_qos++;
                        continue;
                }
                if (!streq(j->state_reason, "InvalidAccount"))
                        continue;
                ret->n++;
                _cleanup_free_ char *who = isempty(j->user) ? xasprintf("uid %u", j->user_id) : xstrdup(j->user);
                if (!strv_contains(&ret->users, who))
                        strv_push(&ret->users, who);
        }
}

int enforce_waiting_load(struct enforce_waiting *ret, struct strbuf *err) {
        static char *const pending[] = { "PENDING", NULL };
        const struct slurm_job_filter f = { .states = pending };
        _cleanup_(slurm_jobinfo_list_done) struct slurm_jobinfo_list jobs = { 0 };
        int r = slurm_jobs_find(&f, &jobs, err);
        if (r < 0)
                return r;
        enforce_waiting_count(&jobs, ret);
        return 0;
}

#define NAMED_USERS 5

/* Whether the normalised comma list value holds word. */
static bool has_word(const char *value, const char *word) {
        size_t n = strlen(word);
        for (const char *p = value; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
                if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
                        return true;
        return false;
}

void enforce_status_note(
        const char *value, enum enforce_stage stage, const struct enforce_waiting *w, struct strbuf *msg) {
        if (isempty(value))
                return;
        if (stage == ENFORCE_NO_ACCOUNTING) {
                strbuf_addf(msg, "; " ENFORCE_CONFIG_KEY "=%s waits for slurmdbd (integrate with slurmdbd)", value);
                return;
        }
        if (stage == ENFORCE_FIRST_START) {
                strbuf_addf(msg, "; " ENFORCE_CONFIG_KEY "=%s follows slurmctld's first start with slurmdbd", value);
                return;
        }
        /* Slurm's words that turn accounting off rather than on: said, not silently taken */
        if (has_word(value, "nojobs"))
                strbuf_addf(msg, "; " ENFORCE_CONFIG_KEY "=%s: slurmdbd records no jobs and no steps (nojobs)", value);
        else if (has_word(value, "nosteps"))
                strbuf_addf(msg, "; " ENFORCE_CONFIG_KEY "=%s: slurmdbd records no job steps (nosteps)", value);
        if (!w)
                return;
        if (w->n > 0) {
                strbuf_addf(msg, "; %zu pending job%s of ", w->n, w->n == 1 ? "" : "s");
                for (size_t i = 0; i < w->users.n && i < NAMED_USERS; i++)
                        strbuf_addf(msg, "%s%s", i == 0 ? "" : ", ", w->users.v[i]);
                if (w->users.n > NAMED_USERS)
                        strbuf_addf(msg, " and %zu more", w->users.n - NAMED_USERS);
                strbuf_addf(msg,
                        " %s no association (" ENFORCE_CONFIG_KEY "=%s): %s once %s added (slurmdbd's user-add)",
                        w->n == 1 ? "has" : "have", value, w->n == 1 ? "it runs" : "they run",
                        w->users.n == 1 ? "the user is" : "the users are");
        }
        if (w->n_qos > 0)
                strbuf_addf(msg, "; %zu pending job%s ask%s for a QOS %s association does not allow (" ENFORCE_CONFIG_KEY "=%s)",
                        w->n_qos, w->n_qos == 1 ? "" : "s", w->n_qos == 1 ? "s" : "", w->n_qos == 1 ? "its" : "their",
                        value);
}
