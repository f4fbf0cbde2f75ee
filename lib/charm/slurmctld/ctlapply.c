/* SPDX-License-Identifier: Apache-2.0 */
/* The running slurmctld brought to the written slurm.conf (reconfigure or safe restart), the
 * rollback to the last applied file, and the running-versus-file check. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/ctlapply.h"
#include "charm/slurmctld/accounting.h"
#include "charm/common/strand.h"
#include "charm/slurmctld/ctlconf.h"
#include "charm/slurmctld/ctlstart.h"
#include "slurm/client.h"
#include "slurm/jobs.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "slurm/partitions.h"
#include "slurmconf/conf.h"
#include "systemd/unit.h"
#include "util/fileio.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "util/banned.h"

void ctl_apply_result_done(struct ctl_apply_result *r) {
        if (r) {
                strbuf_release(&r->message);
                strbuf_release(&r->push_note);
        }
}

static char *state_file(const struct charm_paths *p, const char *name) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        return xasprintf("%s/%s", dir, name);
}

static int state_store(
        const struct charm_paths *p, const char *name, const char *data, size_t len, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR), *path = state_file(p, name);
        int r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic_if_changed(path, data, len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

int ctl_wait_answer(sd_bus *bus, const char *self_host, int timeout_ms, struct strbuf *err) {
        int64_t deadline = slurm_now_ms() + timeout_ms;
        int delay = SLURM_POLL_FIRST_MS;
        /* the client first: before it, slurm_ctl_index_of() knows no controller, and the first
         * ping went to controller 0 (attack 53 F5: a backup in charge, its primary's link down,
         * spent its whole budget on that connect and called its own slurmctld silent) */
        (void) slurm_client_init(NULL);
        for (;;) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                /* this unit's own slurmctld (a backup in standby answers too); the primary when
                 * the caller names no host */
                int self = self_host ? slurm_ctl_index_of(self_host) : 0;
                int64_t left = deadline - slurm_now_ms();
                int r = slurm_ctl_ping_within(self < 0 ? 0 : self, left > 0 ? (int) left : 1, &e);
                if (r >= 0)
                        return 0;
                if (bus) {
                        struct unit_state st;
                        if (unit_get_state(bus, "slurmctld.service", &st, NULL) >= 0 &&
                                (streq(st.active_state, "failed") || streq(st.sub_state, "auto-restart") ||
                                        streq(st.active_state, "inactive"))) {
                                strbuf_addf(
                                        err, "slurmctld exited (%s, Result=%s)", st.active_state, st.result);
                                return -ESRCH;
                        }
                }
                if (!slurm_poll_sleep(&delay, deadline)) {
                        strbuf_addf(err, "slurmctld: no answer within %d ms%s%s", timeout_ms,
                                e.len ? ": " : "", e.buf);
                        return -ETIMEDOUT;
                }
        }
}

int ctl_wait_started(sd_bus *bus, const char *self_host, int timeout_ms, struct strbuf *err) {
        (void) slurm_client_init(NULL);
        int self = self_host ? slurm_ctl_index_of(self_host) : 0;
        if (self <= 0 && slurm_ctl_count() > 1)
                timeout_ms += slurm_ctl_failback_ms();
        return ctl_wait_answer(bus, self_host, timeout_ms, err);
}

/* The running daemon's plugin types versus the file's (keys the file sets). */
static void compare_running(const char *conf, size_t len, struct strbuf *out) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        if (slurmconf_parse("slurm.conf", conf, len, &c, NULL) < 0 ||
                slurm_ctl_running_values(&kv, NULL) < 0)
                return;
        for (size_t i = 0; i + 1 < kv.n; i += 2) {
                const char *want = slurmconf_get(c, kv.v[i]);
                if (!want || strcaseeq(want, kv.v[i + 1]))
                        continue;
                strbuf_addf(out, "%srunning slurmctld has %s=%s, slurm.conf says %s", out->len ? "; " : "",
                        kv.v[i], kv.v[i + 1], want);
        }
}

/* Whether the running slurmctld last read a file other than conf (its hash differs) and not
 * the one it ran when partition parameters were last set live (CTL_LIVE_HASH_FILE: the file
 * holds them, the daemon has them over RPC, and it never re-read the file). Unknown (no answer)
 * is "no": the next hook looks again. */
static bool runs_other_file(const struct charm_paths *p, const char *conf, size_t len) {
        uint32_t running;
        if (slurm_ctl_conf_hash(&running, NULL, NULL) < 0 || running == slurmconf_file_hash(conf, len))
                return false;
        _cleanup_free_ char *path = state_file(p, CTL_LIVE_HASH_FILE), *data = NULL;
        return !(read_full_file(path, &data, NULL) >= 0 && strtoul(data, NULL, 10) == running);
}

/* After a live change: the hash of the file the running daemon read, which it keeps. */
static void note_live_hash(const struct charm_paths *p) {
        uint32_t running;
        char buf[16];
        if (slurm_ctl_conf_hash(&running, NULL, NULL) < 0)
                return;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        snprintf(buf, sizeof buf, "%" PRIu32 "\n", running);
        (void) state_store(p, CTL_LIVE_HASH_FILE, buf, strlen(buf), &e);
}

/* How a candidate's start is watched: slurmctld's log since the restart, and how long one that
 * is getting on may take. */
struct start_watch {
        const char *log_path;
        off_t from;
        int ceiling_ms;
};

/* slurmctld restarted (or started) and answering within bound_ms of its start job (plus a
 * backup's hand-back, ctl_wait_started), or -ESRCH (it exits at its start) / -ETIMEDOUT (message
 * in err). The stop before a restart is not timed: it saves the state; a stop that fails is
 * -EBUSY, never the new file's fault. A watched candidate (w) whose start got on by its bound
 * (ctl_start_getting_on: a primary's or a backup's line) is slow, not stuck: it gets w->ceiling_ms. A good start's time goes to the record
 * (ctlstart.h). */
/* ctl_apply_opts.may_start asked: true (why in err) when slurmctld must not start now. */
static bool start_held(const struct ctl_apply_opts *o, struct strbuf *err) {
        if (!o->may_start)
                return false;
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        if (o->may_start(o->may_start_data, &why) <= 0)
                return false;
        strbuf_addbuf(err, &why);
        return true;
}

/* Whether this unit's slurmctld runs (its unit active): the placeholders are asked of the
 * controller in charge before a restart, which a stopped or killed daemon is not. With several
 * controllers libslurm then waits for a standby to take over (SlurmctldTimeout and more): a
 * rollback after a candidate that hung the primary (its daemon killed by the bound) waited 120 s
 * and more in that RPC, without a controller, until the backup took over with the refused file
 * (issue 26, G9b's test). */
static bool slurmctld_running(const struct ctl_apply_opts *o) {
        struct unit_state st;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        bool running = unit_get_state(o->bus, "slurmctld.service", &st, &e) >= 0 && streq(st.active_state, "active");
        return running;
}

static int restart_and_wait(const struct ctl_apply_opts *o, bool restart, int bound_ms, const struct start_watch *w,
        struct strbuf *err) {
        int r;
        /* the last look before a start (ctl_apply_opts.may_start): -ECANCELED, nothing done */
        if (start_held(o, err))
                return -ECANCELED;
        /* the charm's own restarts (a new file, a heal) do not count against the unit's start
         * limit, which is for a daemon that keeps dying (templates/slurmctld.service.d); starting
         * a stopped one does, so that a crash loop still ends in "failed" */
        if (restart) {
                /* a job requiring a node slurmctld does not know fails at its start: the departed
                 * nodes' placeholders first (the leader, while its slurmctld answers; charm/common/strand.h) */
                if (o->present_nodes && !o->silent && slurmctld_running(o))
                        strand_placeholders_ensure(o->present_nodes);
                (void) unit_reset_failed(o->bus, "slurmctld.service", o->unit_timeout_usec, NULL);
                r = unit_stop(o->bus, "slurmctld.service", o->unit_timeout_usec, err);
                if (r < 0)
                        /* (a stop job cancelled is no may_start hold either: -ECANCELED is that) */
                        return r == -ETIMEDOUT || r == -ESRCH || r == -ECANCELED ? -EBUSY : r;
                /* and once more after the stop (its state save may take seconds): stopped, it
                 * stays so until the gate lets it start (review F3: a takeover during the stop) */
                if (start_held(o, err))
                        return -ECANCELED;
        }
        int64_t t0 = slurm_now_ms();
        /* the start job (24.11's lasts until READY=1): a candidate's bound, else the unit's timeout */
        r = charm_unit_ensure(
                o->bus, "slurmctld.service", false, w ? (uint64_t) bound_ms * 1000 : o->unit_timeout_usec, err);
        if (r == -ETIMEDOUT) {
                strbuf_addf(err, " (slurmctld's start did not finish within %d ms)", bound_ms);
                return r;
        }
        if (r == -EIO) {
                /* the start failed, and systemd's own restart of it too (lib/systemd): it exits
                 * with this file (24.11 before READY=1: a bad Licenses, job_submit.lua, …) */
                strbuf_addstr(err, " (slurmctld exited at its start)");
                return -ESRCH;
        }
        if (r == -ECANCELED) {
                /* a stop came during the start job (24.11's lasts until READY=1): the sentinel's
                 * fence stops the unit after its kill. Not the may_start hold (-ECANCELED to the
                 * caller) and not the file's doing: -EINTR, and ctl_apply asks start_stopped why
                 * (unexplained, the hook fails and is retried) */
                strbuf_addstr(err, " (slurmctld's start was cancelled: the unit was stopped meanwhile)");
                return -EINTR;
        }
        if (r < 0)
                return r;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int64_t left = bound_ms - (slurm_now_ms() - t0);
        r = ctl_wait_started(o->bus, o->self_host, left > 0 ? (int) left : 1, &e);
        if (r == -ETIMEDOUT && w && w->ceiling_ms > bound_ms && ctl_start_getting_on(w->log_path, w->from)) {
                strbuf_reset(&e);
                left = w->ceiling_ms - (slurm_now_ms() - t0);
                r = ctl_wait_started(o->bus, o->self_host, left > 0 ? (int) left : 1, &e);
        }
        if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        }
        (void) ctl_start_note(o->paths, (long) (slurm_now_ms() - t0), &e);
        return 0;
}

/* The partition changes of ctl_conf_live_changes() over RPC, one call per partition. */
static int apply_live(const struct strv *triples, struct strbuf *err) {
        for (size_t i = 0; i + 2 < triples->n;) {
                _cleanup_strv_ struct strv kv = STRV_INIT;
                const char *part = triples->v[i];
                for (; i + 2 < triples->n && streq(triples->v[i], part); i += 3) {
                        strv_push(&kv, triples->v[i + 1]);
                        strv_push(&kv, triples->v[i + 2]);
                }
                int r = slurm_partition_update(part, kv.v, kv.n, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* After a reconfigure: every partition's Nodes= again over RPC. slurmctld 22.05 computes
 * partition membership from the feature list of the OLD node table during a reconfigure, so
 * a dynamic node can land in the wrong partition or none (fixed in 23.02.2); setting Nodes=
 * live recomputes it from the current one. */
static void refresh_membership(const char *conf, size_t len) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strv_ struct strv names = STRV_INIT;
        if (slurmconf_parse("slurm.conf", conf, len, &c, NULL) < 0)
                return;
        slurmconf_names(c, SLURMCONF_PARTITION, &names);
        for (size_t i = 0; i < names.n; i++) {
                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                const char *nodes;
                if (slurmconf_lookup(c, SLURMCONF_PARTITION, names.v[i], &o) >= 0 &&
                        (nodes = slurm_options_get(&o, "Nodes")))
                        (void) slurm_partition_set_nodes(names.v[i], nodes, NULL);
        }
}

/* A restart held (ctl_apply_opts.hold_restart): nothing is touched and the file is not recorded
 * as applied, so every later hook tries again until the hold ends. */
static int defer_restart(struct ctl_apply_result *ret) {
        ret->action = CTL_APPLY_DEFERRED;
        strbuf_addf(&ret->message,
                "%sthe new slurm.conf waits: this unit's slurmctld is in charge as a backup, and a "
                "restart would leave the cluster without a controller for SlurmctldTimeout; it "
                "applies when this unit is made the primary",
                ret->message.len ? "; " : "");
        return 0;
}

/* A file change a running slurmctld cannot take live: a restart (SIGTERM: the state is saved
 * first; running jobs keep running under their slurmstepd). Not a reconfigure: slurmctld 22.05
 * double-counts the running jobs of dynamic nodes at a reconfigure, so such a node stays
 * ALLOCATED after its last job (fixed in 23.02.3); it computes partition membership from the
 * old node table (fixed in 23.02.2); and what its reader accepts but its own checks refuse
 * (an unknown partition QOS, Licenses, …) makes a reconfigure fatal(), with the state of the
 * last seconds unsaved, where a refused start loses nothing and is rolled back. The slurmd
 * units get the new file at a later reconfigure of this same file (push_update). */
static int restart_for_file(const struct ctl_apply_opts *o, int bound_ms, const struct start_watch *w,
        enum ctl_apply_action *action, bool *ret_push_pending, struct strbuf *why) {
        *action = CTL_APPLY_RESTARTED;
        *ret_push_pending = true;
        return restart_and_wait(o, true, bound_ms, w, why);
}

/* Nodes ALLOCATED (or MIXED) with no job on them: the reconfigure bug's leftovers (from a
 * reconfigure this charm did not guard: an older charm's, an admin's). Only a slurmctld restart
 * clears such a node while it stays in the cluster. A node must be seen so on two full
 * reconciles at least CTL_STALE_CONFIRM_S apart (states settle for a moment after a restart,
 * and the service watcher reconciles right then), and slurmctld is restarted for this at most
 * once per CTL_STALE_PAUSE_S. The first sightings are kept in <state>/CTL_STALE_FILE ("node
 * epoch" lines). Returns 1 when slurmctld was restarted. */
static int heal_stale(const struct ctl_apply_opts *o, struct ctl_apply_result *ret, struct strbuf *err) {
        _cleanup_free_ char *path = state_file(o->paths, CTL_STALE_FILE), *seen = NULL;
        _cleanup_strv_ struct strv stale = STRV_INIT, confirmed = STRV_INIT;
        _cleanup_strbuf_ struct strbuf next = STRBUF_INIT;
        struct slurm_node_list l = { 0 };
        time_t now = time(NULL), last_heal = 0;
        int r;

        if (slurm_node_list(NULL, &l, NULL) < 0)
                return 0;
        for (size_t i = 0; i < l.n; i++) {
                struct slurm_job_list jobs = { 0 };
                uint32_t state;
                if (!slurm_state_busy(l.v[i].state))
                        continue;
                /* busy, no job in the table read after, and still busy after that: not a job
                 * that ended between the two reads */
                if (slurm_jobs_on_node(l.v[i].name, &jobs, NULL) == 0 &&
                        slurm_node_get_state(l.v[i].name, &state, NULL) >= 0 && slurm_state_busy(state))
                        strv_push(&stale, l.v[i].name);
                slurm_job_list_done(&jobs);
        }
        slurm_node_list_done(&l);

        (void) read_full_file(path, &seen, NULL);
        for (char *line = seen, *nl; line && *line; line = nl ? nl + 1 : NULL) {
                char name[256];
                long long t;
                nl = strchr(line, '\n');
                if (sscanf(line, "%255s %lld", name, &t) != 2)
                        continue;
                if (streq(name, "healed")) {
                        last_heal = (time_t) t;
                        continue;
                }
                if (!strv_contains(&stale, name))
                        continue; /* not stale any more */
                strbuf_addf(&next, "%s %lld\n", name, t);
                if (now - (time_t) t >= CTL_STALE_CONFIRM_S)
                        strv_push(&confirmed, name);
        }
        for (size_t i = 0; i < stale.n; i++) {
                _cleanup_free_ char *prefix = xasprintf("%s ", stale.v[i]);
                if (!next.buf || !strstr(next.buf, prefix))
                        strbuf_addf(&next, "%s %lld\n", stale.v[i], (long long) now);
        }
        bool heal = confirmed.n > 0 && now - last_heal >= CTL_STALE_PAUSE_S;
        if (heal) {
                strbuf_reset(&next);
                last_heal = now;
        }
        if (last_heal)
                strbuf_addf(&next, "healed %lld\n", (long long) last_heal);
        r = state_store(o->paths, CTL_STALE_FILE, next.buf ? next.buf : "", next.len, err);
        if (r < 0)
                return r;
        if (!heal) {
                /* only what was seen twice: right after a restart states settle for a moment */
                if (confirmed.n > 0) {
                        _cleanup_free_ char *names = strv_join(&confirmed, ",");
                        strbuf_addf(&ret->message,
                                "%snodes allocated with no job: %s (slurmctld restart pending)",
                                ret->message.len ? "; " : "", names);
                }
                return 0;
        }
        _cleanup_free_ char *names = strv_join(&confirmed, ",");
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        const time_t began = time(NULL);
        r = restart_and_wait(o, true, o->answer_timeout_ms, NULL, &why);
        if (r == -ECANCELED ||
                (r == -EINTR && o->start_stopped && o->start_stopped(o->may_start_data, began, &why) > 0)) {
                /* held at the last look (may_start), or the start stopped by the fence: the heal
                 * waits for its next turn (CTL_STALE_PAUSE_S) */
                strbuf_addf(&ret->message, "%s%s", ret->message.len ? "; " : "", why.buf);
                return 0;
        }
        if (r < 0) {
                strbuf_addbuf(err, &why);
                return r;
        }
        strbuf_addf(&ret->message, "%sslurmctld restarted to clear stale allocations of %s",
                ret->message.len ? "; " : "", names);
        return 1;
}

/* The slurmd units learn a new file at a reconfigure (configless push) only. After a restart
 * that push waits (<state>/CTL_PUSH_FILE) until no job holds a node, when a reconfigure of the
 * very file slurmctld runs is safe (the 22.05 bugs above need running jobs, or a file it has not
 * checked at its start); partition membership is set again after it. */
static int push_update(const struct ctl_apply_opts *o, const char *conf, size_t len,
        struct ctl_apply_result *ret, bool now_pending, struct strbuf *err) {
        _cleanup_free_ char *path = state_file(o->paths, CTL_PUSH_FILE);
        if (!o->push) {
                /* another controller unit does it (the leader); a file left from when this one
                 * was the leader would have its watcher ask for runs for ever (review R2) */
                (void) unlink(path);
                return 0;
        }
        if (now_pending) {
                int r = state_store(o->paths, CTL_PUSH_FILE, "", 0, err);
                if (r < 0)
                        return r;
        } else if (access(path, F_OK) < 0)
                return 0;
        _cleanup_strbuf_ struct strbuf jerr = STRBUF_INIT;
        int busy = slurm_jobs_holding_nodes(&jerr);
        if (busy > 0) {
                strbuf_addf(&ret->push_note,
                        "slurm.conf reaches each busy compute node once its jobs end (%d job%s holding nodes)",
                        busy, busy == 1 ? "" : "s");
                return 0;
        }
        if (busy < 0) {
                /* not known whether a job runs: the push waits, and the status says why */
                strbuf_addf(&ret->push_note, "slurm.conf push to the compute nodes pending: %s",
                        jerr.len ? jerr.buf : strerror(-busy));
                return 0;
        }
        if (now_pending)
                return 0; /* the next run pushes (slurmctld's service watcher: charm/slurmctld/pushfollow.h) */
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        /* a job requiring a node slurmctld does not know fails at the reconfigure: the
         * departed nodes' placeholders first (charm/common/strand.h; one deleted since the last
         * reconcile cost two held jobs: attack on the placeholders, F4) */
        if (o->present_nodes)
                strand_placeholders_ensure(o->present_nodes);
        int r = slurm_ctl_reconfigure(&e);
        if (r < 0 && r != -ESTALE)
                return 0; /* a later hook tries again */
        /* 23.11+ re-execs slurmctld at a reconfigure: its RPCs wait for the new process */
        if (charm_caps(o->paths)->reconfigure_reexecs) {
                strbuf_reset(&e);
                (void) ctl_wait_answer(o->bus, o->self_host, o->answer_timeout_ms, &e);
        }
        refresh_membership(conf, len);
        (void) unlink(path);
        return 0;
}

/* Whether a start with conf does the work of the starts on record (ctlstart.h): not when the
 * accounting settings, the state directory or the cluster's name changed, as the first
 * registration with a slurmdbd takes its own time (on 24.11 slurmctld waits for slurmdbd at a
 * start with no association state: _retry_init_db_conn in its controller.c), which the record
 * knows nothing of. */
static bool start_on_record(const char *applied, size_t applied_len, const char *conf, size_t len) {
        static const char *const keys[] = { "AccountingStorageType", "AccountingStorageHost",
                "AccountingStorageBackupHost", "AccountingStoragePort", "AccountingStorageEnforce",
                "StateSaveLocation", "ClusterName" };
        _cleanup_slurmconf_ struct slurmconf *a = NULL, *c = NULL;
        if (slurmconf_parse("slurm.conf", applied, applied_len, &a, NULL) < 0 ||
                slurmconf_parse("slurm.conf", conf, len, &c, NULL) < 0)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                const char *x = slurmconf_get(a, keys[i]), *y = slurmconf_get(c, keys[i]);
                if (!streq_ptr(x, y))
                        return false;
        }
        return true;
}

/* Why a candidate's start was given up: its bound, the record behind it, and the fatal line
 * slurmctld logged since (had: the last error line, borrowed), if any. */
static char *timeout_reason(const struct charm_paths *p, int bound_ms, const char *had) {
        long ms[CTL_START_KEEP];
        size_t n;
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        ctl_start_read(p, ms, &n);
        long worst = ctl_start_worst(ms, n);
        strbuf_addf(&s, "no answer within %.1f s of its start", bound_ms / 1000.0);
        if (n)
                strbuf_addf(&s, "; its last %zu good starts took at most %.1f s", n, worst / 1000.0);
        /* a fatal() is the reason; an error line is what the daemon said before it stopped
         * talking, most often routine ("MPI: Cannot create context …"), not the cause */
        if (had && strstr(had, "fatal"))
                strbuf_addf(&s, "; %s", had);
        return strbuf_detach(&s, NULL);
}

/* A candidate's slurmctld that did not answer in time. One that has not logged CTL_PRIMARY_LINE
 * served no RPC and has no state-save thread, and 22.05 blocks SIGTERM until its signal thread
 * runs (after that line): killed at once, the state on disk and slurmdbd's queue file
 * (dbd.messages, only read at its start) untouched. One past it is stopped the normal way:
 * SIGTERM, and the unit's TimeoutStopSec (a kill in the middle of its state save, or of the
 * rewrite of dbd.messages, would lose what they hold). */
static void stop_hung(const struct ctl_apply_opts *o, const struct start_watch *w) {
        if (!charm_log_has(w->log_path, w->from, CTL_PRIMARY_LINE))
                (void) unit_kill(o->bus, "slurmctld.service", "all", SIGKILL, o->unit_timeout_usec, NULL);
        (void) unit_stop(o->bus, "slurmctld.service", o->unit_timeout_usec, NULL);
}

/* Whether conf's slurmdbd is the one the charm rendered: AccountingStorageHost:Port is the first
 * of hosts. */
static bool rendered_acct(const struct strv *hosts, const char *conf, size_t len) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        if (!hosts || hosts->n == 0 || slurmconf_parse("slurm.conf", conf, len, &c, NULL) < 0)
                return false;
        const char *host = slurmconf_get(c, "AccountingStorageHost");
        const char *port = slurmconf_get(c, "AccountingStoragePort");
        if (!host || !port)
                return false;
        _cleanup_free_ char *hp = xasprintf("%s:%s", host, port);
        return streq(hp, hosts->v[0]);
}

int ctl_apply(const struct ctl_apply_opts *o, const char *conf, size_t len, struct ctl_apply_result *ret,
        struct strbuf *err) {
        _cleanup_free_ char *applied_path = state_file(o->paths, CTL_APPLIED_FILE), *applied = NULL;
        _cleanup_free_ char *conf_path = charm_path(o->paths, CHARM_PATH_SLURM_CONF);
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        size_t applied_len = 0;
        struct unit_state st;
        int r;

        /* slurmctld's own words on a refused file are what it logs from now on */
        _cleanup_free_ char *log_path = charm_path(o->paths, CTL_SLURMCTLD_LOG);
        off_t log_start = charm_log_size(log_path);

        r = read_full_file(applied_path, &applied, &applied_len);
        if (r == -ENOENT && o->previous) {
                applied = xstrndup(o->previous, o->previous_len);
                applied_len = o->previous_len;
        } else if (r < 0 && r != -ENOENT) {
                strbuf_addf(err, "%s: %s", applied_path, strerror(-r));
                return r;
        }
        r = unit_get_state(o->bus, "slurmctld.service", &st, err);
        if (r < 0)
                return r;
        bool active = streq(st.active_state, "active") || streq(st.active_state, "activating") ||
                streq(st.active_state, "reloading");
        bool same = applied && applied_len == len && memcmp(applied, conf, len) == 0;

        /* a backup that becomes the primary takes control first (with the list the running
         * daemons have), so that no two controllers are in charge while the others still run
         * the old list (charm/slurmctld/ha.h) */
        if (!same && active && !o->silent && o->self_host && applied && access(applied_path, R_OK) == 0) {
                long was = ctl_conf_controller_index(applied, applied_len, o->self_host);
                long now = ctl_conf_controller_index(conf, len, o->self_host);
                if (was > 0 && now == 0) {
                        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                        r = slurm_ctl_takeover_bounded(applied_path, (int) was, o->answer_timeout_ms, &e);
                        strbuf_addf(&ret->message, "%stook control as the new primary%s%s",
                                ret->message.len ? "; " : "", r < 0 ? " (takeover: " : "",
                                r < 0 ? e.buf : "");
                        if (r < 0)
                                strbuf_addch(&ret->message, ')');
                }
        }

        /* the client reads the file the caller just wrote (a new controller list, first) */
        if (!same)
                (void) slurm_client_reload(NULL);

        /* a file slurmctld never ran gets a few seconds to answer, by its record (ctlstart.h);
         * one that did not answer in those once gets the ceiling at the next try */
        _cleanup_free_ char *refused_why = NULL;
        bool retry = !same && ctl_refused_match(o->paths, conf, len, &refused_why) == CTL_REFUSED_RETRY;
        int bound_ms = !same && applied && !retry && start_on_record(applied, applied_len, conf, len)
                ? ctl_start_bound_for(o->paths, o->answer_timeout_ms)
                : o->answer_timeout_ms;
        const struct start_watch watch = { .log_path = log_path, .from = log_start, .ceiling_ms = o->answer_timeout_ms };
        const struct start_watch *w = !same && applied ? &watch : NULL;
        _cleanup_strv_ struct strv live = STRV_INIT;
        bool push_pending = false;
        /* a fence since this second explains a failed start (start_stopped) */
        const time_t began = time(NULL);
        ret->action = CTL_APPLY_NONE;
        if (!active) {
                ret->action = CTL_APPLY_STARTED;
                r = restart_and_wait(o, false, bound_ms, w, &why);
        } else if (same && (!o->in_charge || !runs_other_file(o->paths, conf, len)))
                /* the file a daemon runs is asked of the controller in charge: for a backup in
                 * standby that is another daemon's, and its hash never matched this unit's file
                 * (attack atk8 G9: a backup restarted every second, for ever) */
                r = 0;
        else if (same && o->hold_restart)
                return defer_restart(ret);
        else if (same)
                /* slurmctld read another file (an admin's reconfigure after a hand edit), or
                 * cgroup.conf changed: ours again, whatever kind of change that is */
                r = restart_for_file(o, o->answer_timeout_ms, NULL, &ret->action, &push_pending, &why);
        else if (applied && !o->silent &&
                ctl_conf_live_changes(applied, applied_len, conf, len, slurm_partition_key_live, &live) >
                        0 &&
                apply_live(&live, &why) >= 0) {
                /* partition parameters only: set on the running daemon, the file keeps them */
                ret->action = CTL_APPLY_LIVE;
                note_live_hash(o->paths);
                r = 0;
        } else if (o->hold_restart) {
                return defer_restart(ret);
        } else {
                strbuf_reset(&why);
                r = restart_for_file(o, bound_ms, w, &ret->action, &push_pending, &why);
        }
        if (r == -ECANCELED) {
                /* held at the last look (may_start): the daemon as it was, the file waits */
                ret->action = CTL_APPLY_DEFERRED;
                strbuf_addf(&ret->message, "%s%s", ret->message.len ? "; " : "", why.buf);
                return 0;
        }
        _cleanup_strbuf_ struct strbuf hold = STRBUF_INIT;
        if ((r == -EINTR || ((r == -ESRCH || r == -ETIMEDOUT) && !same)) && o->start_stopped &&
                o->start_stopped(o->may_start_data, began, &hold) > 0) {
                /* not the file's doing (ctl_apply_opts.start_stopped): it stays in place,
                 * unrefused, and the next hook applies it (the sentinel runs the charm when it
                 * lifts its fence); a start of the same file the fence cancelled is no failure
                 * either. One that hangs is stopped all the same (a takeover hold kills nothing) */
                if (r == -ETIMEDOUT)
                        stop_hung(o, &watch);
                ret->action = CTL_APPLY_DEFERRED;
                ret->start_stopped = true;
                strbuf_addf(&ret->message, "%sslurmctld stopped while it started (%s): %s",
                        ret->message.len ? "; " : "", why.len ? why.buf : "no answer", hold.buf);
                return 0;
        }
        if ((r == -ESRCH || r == -ETIMEDOUT) && !same) {
                /* slurmctld does not run with this new file: back to the applied one (a file it
                 * ran with before is not blamed: then the hook fails and is retried) */
                _cleanup_free_ char *line = charm_log_last_error(log_path, log_start);
                /* a timeout under the ceiling may be a slow machine: the next hook tries once more
                 * with the ceiling, and only a file that misses that too is refused for good */
                bool again = r == -ETIMEDOUT && bound_ms < o->answer_timeout_ms;
                if (r == -ETIMEDOUT && applied) {
                        /* a daemon that hangs says nothing: the bound and the record are the reason */
                        char *had = line;
                        line = timeout_reason(o->paths, bound_ms, had);
                        free(had);
                        stop_hung(o, &watch);
                }
                /* slurmctld exited for want of slurmdbd's TRES (its database down, slurmdbd out of
                 * reach, at a start with no state file that holds them; 22.05), or waited for
                 * slurmdbd past its bound (24.11): not the file's doing.
                 * It is rolled back all the same (a controller now, without accounting) and
                 * its hosts wait (acct_defer, by the caller), never remembered: remembered, its settings were
                 * refused for good, and with them every later file, the last good one included
                 * (seen on 22.05: "Slurm refuses even the last good settings") */
                bool outside = ((r == -ESRCH && acct_start_fault(line)) ||
                                       (r == -ETIMEDOUT &&
                                               charm_log_has(log_path, log_start, ACCT_START_WAIT_LINE))) &&
                        rendered_acct(o->acct_hosts, conf, len);
                if (!applied) {
                        strbuf_addf(err, "slurmctld does not start: %s", line ? line : why.buf);
                        return r;
                }
                /* remembered as this file now; for its settings only once the rollback shows the
                 * rest runs (a rollback that fails too says nothing of them: review R1) */
                r = outside ? 0 : ctl_refused_store(o->paths, conf, len, NULL, 0, line ? line : why.buf, again, err);
                if (r < 0)
                        return r;
                r = write_file_atomic(conf_path, applied, applied_len, 0644, 0, 0);
                if (r < 0) {
                        strbuf_addf(err, "%s: %s", conf_path, strerror(-r));
                        return r;
                }
                /* the client pings what the applied file names (its port, its controllers) */
                (void) slurm_client_reload(NULL);
                (void) unit_reset_failed(o->bus, "slurmctld.service", o->unit_timeout_usec, NULL);
                strbuf_reset(&why);
                r = restart_and_wait(o, true, o->answer_timeout_ms, NULL, &why);
                /* held by the takeover check (may_start), or the rollback's start stopped by the
                 * fence: the previous file is in place, the daemon stopped until the gate or the
                 * fence lets it start; the refusal stands */
                bool held = r == -ECANCELED || r == -EINTR;
                if (r < 0 && !held) {
                        strbuf_addf(err,
                                "slurmctld refused the new slurm.conf (%s) and does not run with the "
                                "previous one either: %s",
                                line ? line : "no reason logged", why.buf);
                        return r;
                }
                if (!held && !outside) {
                        r = ctl_refused_store(o->paths, conf, len, applied, applied_len, line ? line : why.buf,
                                again, err);
                        if (r < 0)
                                return r;
                }
                if (outside) {
                        ret->action = CTL_APPLY_DEFERRED;
                        ret->acct_fault = true;
                        strbuf_addf(&ret->message,
                                "%sslurmctld cannot start with the new slurm.conf until slurmdbd answers with "
                                "its database (%s): the previous one runs%s%s",
                                ret->message.len ? "; " : "", line, held ? "; " : "", held ? why.buf : "");
                        return push_update(o, applied, applied_len, ret, false, err);
                }
                ret->action = CTL_APPLY_ROLLED_BACK;
                strbuf_addf(&ret->message,
                        "slurmctld refused the new slurm.conf (%s): the previous one is back%s%s%s",
                        line ? line : "no reason logged",
                        again ? "; tried once more, with the full 20 s, in 10 minutes" : "",
                        held ? "; " : "", held ? why.buf : "");
                /* a push owed from before is still owed, and said (attack atk8 G8: the note was
                 * gone until the next hook) */
                return push_update(o, applied, applied_len, ret, false, err);
        }
        if (r < 0) {
                strbuf_addbuf(err, &why);
                return r;
        }
        if (!same || !applied) {
                r = state_store(o->paths, CTL_APPLIED_FILE, conf, len, err);
                if (r < 0)
                        return r;
        }
        r = push_update(o, conf, len, ret, push_pending, err);
        if (r < 0)
                return r;
        if (o->in_charge && (ret->action == CTL_APPLY_NONE || ret->action == CTL_APPLY_LIVE)) {
                r = heal_stale(o, ret, err);
                if (r < 0)
                        return r;
        }
        /* asked of this unit's own slurmctld only when it is the one in charge: a backup's
         * question goes to whichever controller libslurm finds in charge, and while the primary
         * restarts (a candidate it then refuses) libslurm sleeps SlurmctldTimeout / 2 between
         * tries of a standby: the backup's hook took 60 s, holding the refused file for that
         * long (attack of stop 52 on G9b) */
        if (o->in_charge)
                compare_running(conf, len, &ret->message);
        return 0;
}
