/* SPDX-License-Identifier: Apache-2.0 */
/* The controller sentinel's loop (charm/slurmctld/sentinel.h): each tick, the controller in charge looked
 * at, and a job state save asked for when a job started since the last look. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/sentinel.h"
#include "charm/slurmctld/ctlapply.h"
#include "charm/slurmctld/ctlhang.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <strings.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "charm/slurmctld/fence.h"
#include "charm/slurmctld/ha.h"
#include "charm/slurmctld/standby.h"
#include "charm/common/watcher.h"
#include "proc/proc.h"
#include "systemd/unit.h"
#include "util/fileio.h"
#include "slurm/client.h"
#include "slurm/sackguard.h"

#include "util/banned.h"

static const struct watcher_daemon sentinel_daemon = {
        .unit = SENTINEL_UNIT,
        .template = SENTINEL_TEMPLATE,
        .exe = SENTINEL_EXE,
        .handler = WATCHER_HANDLER_EXE,
        .service = "slurmctld.service",
};

int sentinel_install(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit,
        const char *charm_dir, bool restart, struct strbuf *err) {
        return watcher_daemon_install(paths, bus, &sentinel_daemon, juju_unit, charm_dir, restart, err);
}

int sentinel_remove(const struct charm_paths *paths, sd_bus *bus, struct strbuf *err) {
        return watcher_daemon_remove(paths, bus, SENTINEL_UNIT, err);
}

bool sentinel_nudge_due(struct sentinel_nudge *n, const struct slurm_ctl_stats *now) {
        bool due = !n->have || slurm_ctl_stats_started_since(&n->last, now);
        n->last = *now;
        n->have = true;
        return due;
}

void sentinel_nudge_reset(struct sentinel_nudge *n) {
        n->have = false;
}

static uint64_t mono_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

static void sleep_until(uint64_t usec) {
        struct timespec ts = { .tv_sec = (time_t) (usec / 1000000ULL),
                .tv_nsec = (long) (usec % 1000000ULL) * 1000 };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

struct sentinel {
        const struct sentinel_opts *o;
        char host[HOST_NAME_MAX + 1];
        bool have_conf;      /* conf_st, n_ctl and self hold the configuration read last */
        struct stat conf_st; /* its inode and mtime */
        int n_ctl, self;     /* its controllers, and this host's index among them (-1: none) */
        struct strv hosts;   /* each controller's address (or name), in order */
        struct strv names;   /* each controller's host name, in order */
        unsigned port;       /* SlurmctldPort */
        struct sentinel_nudge nudge;
        struct fence_watch fence; /* charm/slurmctld/fence.h */
        struct fence_relief relief; /* a stopped slurmctld told to save its state and exit */
        time_t lift_not_before;     /* a relieved backup's fence: not lifted for want of a
                                     * controller in charge before this (0: no such wait) */
        uint64_t overslept_usec;  /* the longest late look not yet judged by the fence */
        uint64_t tick_start;      /* when this tick began (CLOCK_MONOTONIC, µs; 0: none yet) */
        uint64_t tick_usec;       /* a tick's length */
        uint64_t looked_at;       /* when the last fence look measured its lateness (0: none) */
        bool fenced_logged;       /* the hold was logged (once per fence) */
        uid_t slurm_uid;          /* owner of what it writes in the shared directory */
        gid_t slurm_gid;
        time_t mark_written;      /* when it last wrote the charge mark (0: not as in charge) */
        time_t conf_since;        /* slurm_ctl_answers_in_charge()'s "no change since" */
        bool sole_confirmed;      /* the only controller of the file read answered as in charge */
        sd_bus *bus;              /* for slurmctld's MainPID (NULL: opened at the next look) */
        long boss;                 /* the index in charge at the last look (-1 none, -2 not looked yet) */
        pid_t poke_pid;            /* the charm's run in flight (0: none) */
        bool poke_again;           /* asked for while one was in flight */
        time_t standby_poked;      /* when the standby hold was last looked at again */
        uint64_t hang_poked;       /* when a run was last asked for a hung reconfigure (0: never) */
        bool held;                 /* the standby hold was on at the last look */
        time_t take_since;         /* the hold ended with no one in charge: take control (0: no) */
        time_t released_beat;      /* the heartbeat's time when the hold ended (0: none) */
        bool early;                /* it ended ahead of SlurmctldTimeout (standby.h) */
        time_t held_since;         /* the hold record's time at the last look (0: none) */
        time_t early_voided;       /* a heartbeat came back after an early end (standby.h backoff) */
        unsigned early_voids;      /* such voids, each within the backoff of the one before */
        bool take_failed;          /* a takeover failed since take_since (logged once) */
        unsigned nudges, failures; /* since the last report */
        bool failing;              /* the last look failed (logged once per streak) */
        uint64_t report_due;
        char published[HOST_NAME_MAX + 1]; /* in_charge_file's content, without its newline */
        time_t published_at;
};

static void logf_(struct sentinel *s, const char *fmt, ...) __attribute__((__format__(printf, 2, 3)));
static void logf_(struct sentinel *s, const char *fmt, ...) {
        if (!s->o->log)
                return;
        _cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
        va_list ap;
        va_start(ap, fmt);
        strbuf_vaddf(&line, fmt, ap);
        va_end(ap);
        s->o->log(s->o->userdata, line.buf);
}

/* "SlurmctldHost=name(addr)" (any case, leading blanks): the name's length, 0 for another line. */
static size_t ctl_host_line(const char *line, const char **ret_name) {
        static const char key[] = "SlurmctldHost=";
        line += strspn(line, " \t");
        if (strncasecmp(line, key, sizeof key - 1) != 0)
                return 0;
        *ret_name = line + sizeof key - 1;
        return strcspn(*ret_name, "( \t\n");
}

int sentinel_conf_private(
        const char *conf, const char *host, struct strbuf *ret, int *ret_n, int *ret_self) {
        int n = 0, self = -1;
        for (const char *line = conf; line && *line;) {
                const char *nl = strchr(line, '\n'), *name = NULL;
                size_t len = nl ? (size_t) (nl - line) + 1 : strlen(line);
                size_t nlen = ctl_host_line(line, &name);
                const char *l = line + strspn(line, " \t");
                if (strncasecmp(l, "MessageTimeout=", 15) == 0)
                        ; /* its own, below */
                else if (nlen == 0)
                        strbuf_add(ret, line, len);
                else {
                        if (nlen == strlen(host) && strncmp(name, host, nlen) == 0 && self < 0) {
                                self = n;
                                strbuf_add(ret, line, len);
                        }
                        n++;
                }
                line += len;
        }
        if (ret->len && ret->buf[ret->len - 1] != '\n')
                strbuf_addch(ret, '\n');
        strbuf_addf(ret, "MessageTimeout=%d\n", SENTINEL_MSG_TIMEOUT_S);
        *ret_n = n;
        *ret_self = self;
        return self;
}

/* Each SlurmctldHost's address (the name when it has none), in order, and SlurmctldPort
 * (6817 when not set). */
static void conf_hosts(const char *conf, struct strv *ret, struct strv *ret_names, unsigned *ret_port) {
        strv_clear(ret);
        strv_clear(ret_names);
        *ret_port = 6817;
        for (const char *line = conf; line && *line;) {
                const char *nl = strchr(line, '\n'), *name = NULL;
                size_t len = nl ? (size_t) (nl - line) + 1 : strlen(line);
                size_t nlen = ctl_host_line(line, &name);
                const char *l = line + strspn(line, " \t");
                if (nlen > 0) {
                        const char *open = name[nlen] == '(' ? name + nlen + 1 : NULL;
                        size_t alen = open ? strcspn(open, ")\n") : 0;
                        strv_push_take(ret, open && alen ? xstrndup(open, alen) : xstrndup(name, nlen));
                        strv_push_take(ret_names, xstrndup(name, nlen));
                } else if (strncasecmp(l, "SlurmctldPort=", 14) == 0) {
                        unsigned long v = strtoul(l + 14, NULL, 10);
                        if (v > 0 && v < 65536)
                                *ret_port = (unsigned) v;
                }
                line += len;
        }
}

/* The configuration, read again when the file changed (a new controller order, a state
 * directory moved): the controllers and this host's index from it, and the client set to a
 * private copy naming only this host's controller (SENTINEL_PRIVATE_CONF), so that no call
 * is sent to, or waits on, another controller (libslurm's fail-over remembers the controller
 * that answered last and sleeps SlurmctldTimeout/2 on a standby's answer: found in review).
 * false while there is none to read. */
static bool conf_current(struct sentinel *s) {
        const char *path = s->o->conf_path ? s->o->conf_path : slurm_config_path();
        struct stat st;
        if (!path || stat(path, &st) < 0)
                return s->have_conf; /* keep what was read */
        if (s->have_conf && st.st_ino == s->conf_st.st_ino &&
                st.st_mtim.tv_sec == s->conf_st.st_mtim.tv_sec &&
                st.st_mtim.tv_nsec == s->conf_st.st_mtim.tv_nsec)
                return true;
        _cleanup_free_ char *data = NULL;
        _cleanup_strbuf_ struct strbuf copy = STRBUF_INIT, e = STRBUF_INIT;
        int r = read_full_file(path, &data, NULL);
        if (r < 0) {
                logf_(s, "%s: %s", path, strerror(-r));
                return s->have_conf;
        }
        (void) sentinel_conf_private(data, s->host, &copy, &s->n_ctl, &s->self);
        conf_hosts(data, &s->hosts, &s->names, &s->port);
        const char *private = s->o->private_conf ? s->o->private_conf : SENTINEL_PRIVATE_CONF;
        _cleanup_free_ char *dir = xstrndup(private, strrchr(private, '/') - private);
        if (s->self >= 0) {
                r = mkdir_p(dir, 0755);
                if (r >= 0)
                        r = write_file_atomic(private, copy.buf, copy.len, 0644, (uid_t) -1, (gid_t) -1);
                if (r < 0) {
                        logf_(s, "%s: %s", private, strerror(-r));
                        return s->have_conf;
                }
                r = slurm_client_use(private, &e);
                if (r < 0) {
                        logf_(s, "%s", e.buf);
                        return s->have_conf;
                }
        }
        logf_(s, "%s read: %d controller%s, this host %s", path, s->n_ctl, s->n_ctl == 1 ? "" : "s",
                s->self >= 0 ? "among them" : "not one of them (idle)");
        s->conf_st = st;
        s->have_conf = true;
        s->sole_confirmed = false;
        return true;
}

/* Whether this machine's slurmctld is the one in charge: the only controller, or the writer of
 * a heartbeat fresher than SlurmctldTimeout (a standby answers pings too, ha.h) whose index is
 * this host's, confirmed by asking this host's slurmctld (the client names only it): the index
 * is of the writer's list, and while the order changes another controller's index can be this
 * host's in the file read here (a charge mark written then named the wrong host).
 * The only controller of the file is asked too, until it answered as in charge once for that
 * file: the daemon may still run an older file in which it was a backup (the other controllers
 * removed: the charm restarts it after writing the file; 18 s later in one charm-ha run under
 * Juju's concurrency, issue 28, the sentinel asking the standby for statistics meanwhile). */
static bool in_charge(struct sentinel *s) {
        if (s->self < 0)
                return false;
        if (s->n_ctl <= 1) {
                if (!s->sole_confirmed)
                        s->sole_confirmed = slurm_ctl_answers_in_charge(&s->conf_since) == 1;
                return s->sole_confirmed;
        }
        if (ha_heartbeat_fresh(slurm_client_state_dir(), slurm_client_ctl_timeout()) != s->self)
                return false;
        return slurm_ctl_answers_in_charge(&s->conf_since) == 1;
}

/* The sentinel's own bus connection, opened when it has none: 0, or -ENOTCONN (err). */
static int sentinel_bus(struct sentinel *s, struct strbuf *err) {
        if (!s->bus && unit_bus_open(&s->bus, err) < 0) {
                s->bus = NULL;
                return -ENOTCONN;
        }
        return 0;
}

/* Drops it after a failed call: opened again at the next use. */
static void sentinel_bus_drop(struct sentinel *s) {
        s->bus = sd_bus_flush_close_unref(s->bus);
}

/* slurmctld's main pid (systemd's MainPID: 24.11 under systemd writes no pid file; checked
 * against /proc; 0: not running) and its state letter. -ENOTCONN when systemd could not be
 * asked (a call that timed out across a freeze): not known, which is not "not running". The
 * bus connection is kept, opened again after a failure. */
static int ctld_process(struct sentinel *s, uint32_t *ret_pid, char *ret_state) {
        *ret_state = 0;
        *ret_pid = 0;
        _cleanup_free_ char *stat = NULL, *comm = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        struct unit_state st;
        if (sentinel_bus(s, &e) < 0)
                return -ENOTCONN;
        if (unit_get_state(s->bus, "slurmctld.service", &st, &e) < 0) {
                sentinel_bus_drop(s);
                return -ENOTCONN;
        }
        unsigned long pid = st.main_pid;
        if (pid == 0)
                return 0;
        _cleanup_free_ char *comm_path = xasprintf("/proc/%lu/comm", pid),
                            *stat_path = xasprintf("/proc/%lu/stat", pid);
        if (read_full_file(comm_path, &comm, NULL) < 0 || strncmp(comm, "slurmctld", 9) != 0)
                return 0;
        if (read_full_file(stat_path, &stat, NULL) >= 0) {
                const char *paren = strrchr(stat, ')');
                if (paren && paren[1] == ' ')
                        *ret_state = paren[2];
        }
        *ret_pid = (uint32_t) pid;
        return 0;
}

/* Stops slurmctld.service on the sentinel's own bus connection (opened when it has none;
 * dropped after a failure, opened again at the next use). */
static int ctld_stop(struct sentinel *s, struct strbuf *err) {
        if (sentinel_bus(s, err) < 0)
                return -ENOTCONN;
        /* stopped, not failed: the service watcher then runs the charm, which says "fenced" */
        int r = unit_stop(s->bus, "slurmctld.service", 30 * 1000000ULL, err);
        if (r >= 0)
                r = unit_reset_failed(s->bus, "slurmctld.service", 10 * 1000000ULL, err);
        if (r < 0)
                sentinel_bus_drop(s);
        return r;
}

/* The charm run now, in hook context (juju-exec <unit> service-changed slurmctld.service, what
 * the service watcher runs), in the background: the loop must not stop for a hook (its lateness
 * is how it tells a frozen machine, fence.h). One run at a time; asked for meanwhile, one more
 * after it. Without a unit or handler (tests) nothing runs. */
static void poke(struct sentinel *s, const char *why) {
        const struct sentinel_opts *o = s->o;
        if (!o->juju_unit || !o->handler)
                return;
        if (s->poke_pid > 0) {
                s->poke_again = true;
                return;
        }
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_pushl(&p.argv, o->juju_exec ? o->juju_exec : "juju-exec", o->juju_unit, o->handler,
                "slurmctld.service", NULL);
        p.timeout_ms = SENTINEL_POKE_TIMEOUT_MS;
        int r = proc_run_background(&p, &s->poke_pid);
        if (r < 0) {
                s->poke_pid = 0;
                logf_(s, "running the charm (%s): %s", why, strerror(-r));
                return;
        }
        s->poke_again = false;
        logf_(s, "the charm runs: %s", why);
}

static void poke_reap(struct sentinel *s) {
        int status = 0;
        if (s->poke_pid <= 0 || proc_reap(s->poke_pid, &status) == 0)
                return;
        if (status != 0)
                logf_(s, "the charm's run ended with status %d", status);
        s->poke_pid = 0;
        if (s->poke_again)
                poke(s, "asked for again while it ran");
}

/* Whether any other controller's machine answers from here (a TCP connect to its
 * SlurmctldPort accepted or refused: charm_host_reachable). */
static bool peers_reachable(struct sentinel *s) {
        for (size_t i = 0; i < s->hosts.n; i++)
                if ((long) i != (long) s->self && charm_host_reachable(s->hosts.v[i], s->port, 1000))
                        return true;
        return false;
}

/* While fenced: lift the hold when fence_lift_due() says so (slurmctld started again). */
static void fence_hold(struct sentinel *s, time_t since) {
        time_t t = 0;
        uint64_t idx = 0;
        const char *dir = slurm_client_state_dir();
        bool have = dir && ha_heartbeat_read(dir, &t, &idx) >= 0;
        /* the heartbeat's index is of its writer's list, and a fenced unit's file may be stale
         * (its reconcile renders nothing): the charge mark names the host in charge itself
         * (its sentinel asked its own slurmctld), so a fresh one of another host decides
         * (attack 3, F3: the index led to a held unit, and the fence stayed for good) */
        _cleanup_free_ char *mark_host = NULL;
        long mark_idx;
        time_t mark_time;
        bool mark_other = dir && ha_charge_mark_read(dir, &mark_idx, &mark_time, &mark_host) >= 0 && mark_host &&
                !streq(mark_host, s->host) && time(NULL) - mark_time <= (time_t) slurm_client_ctl_timeout();
        bool reachable;
        if (mark_other) {
                long at = strv_find(&s->names, mark_host); /* its address when the file has it */
                reachable = charm_host_listening(at >= 0 ? s->hosts.v[at] : mark_host, s->port, 1000);
                if (have && idx == (uint64_t) s->self)
                        idx = (uint64_t) s->self + 1; /* another host's, whatever its index says here */
        } else
                reachable = have && idx < s->hosts.n && charm_host_listening(s->hosts.v[idx], s->port, 1000);
        if (!s->fenced_logged) {
                logf_(s, "fenced since %lld: slurmctld held down until the controller in charge answers here",
                        (long long) since);
                s->fenced_logged = true;
        }
        bool peers = reachable || peers_reachable(s);
        /* a relieved backup waits for the next controller to take over (relief_end): not
         * lifted meanwhile for want of one in charge (attack 53 G1: it started again and took
         * control back 66 s after the stop, on 24.11) */
        bool other_fresh = have && idx != (uint64_t) s->self && time(NULL) - t <= (time_t) slurm_client_ctl_timeout();
        if (!other_fresh && time(NULL) < s->lift_not_before)
                return;
        if (!fence_lift_due(since, have, t, idx, s->self, time(NULL), slurm_client_ctl_timeout(), reachable, peers))
                return;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = fence_record_clear(NULL, &e);
        if (r < 0) {
                logf_(s, "lifting the fence: %s", e.buf);
                return;
        }
        s->fenced_logged = false;
        /* the fence's kill may have left slurmctld.service failed (Result=signal: the process died
         * before the unit's stop came), and a failed unit the charm only reports: cleared here,
         * so that its run below starts slurmctld (charm-refshare on 24.11: blocked for good; with no
         * unit, in tests, no bus is touched) */
        _cleanup_strbuf_ struct strbuf re = STRBUF_INIT;
        if (s->o->juju_unit && (sentinel_bus(s, &re) < 0 ||
                                       unit_reset_failed(s->bus, "slurmctld.service", 10 * 1000000ULL, &re) < 0)) {
                logf_(s, "fence lifted: clearing a failed slurmctld.service: %s", re.buf);
                sentinel_bus_drop(s);
        }
        /* the charm decides what starts: a unit paused meanwhile stays down (pause.h), a primary
         * whose place another controller took waits for the new order (ha.h), a displaced one
         * for the old job steps (standby.h); this loop never starts slurmctld itself */
        logf_(s, "fence lifted (%s)",
                have && idx != (uint64_t) s->self ? "the controller in charge answers" : "no other controller in charge");
        poke(s, "the fence was lifted");
}

/* While the standby hold is on (standby.h): the charm looks at the old jobs again every
 * STANDBY_RECHECK_S; when no controller has been in charge for SlurmctldTimeout, the hold ends
 * at once (the record removed, the charm run: its job query then fails and slurmctld starts,
 * to take over as the backup it is). */
static void standby_tick(struct sentinel *s) {
        time_t since = 0;
        bool was_held = s->held;
        s->held = standby_record_read(NULL, &since) != 0;
        time_t now = time(NULL);
        unsigned t = slurm_client_ctl_timeout();
        time_t beat = 0;
        int64_t age = ha_heartbeat_age(slurm_client_state_dir(), now, &beat, NULL);
        bool have = age >= 0;
        if (!s->held) {
                /* ended by the charm's run (its own look found no controller in charge for T) */
                if (was_held && (age < 0 || age > (int64_t) t)) {
                        s->take_since = now;
                        s->released_beat = have ? beat : 0;
                        s->early = false;
                }
                /* an early end this loop did not see (it was restarted since): taken up */
                time_t when = 0, beat_then = 0;
                if (s->take_since == 0 && standby_early_read(NULL, &when, &beat_then) > 0 &&
                        standby_early_valid(now, when, beat_then, have, beat, t)) {
                        s->take_since = when;
                        s->released_beat = beat_then;
                        s->early = true;
                }
                return;
        }
        s->held_since = since;
        /* ahead of SlurmctldTimeout (standby_release_s), unless a late controller's heartbeat
         * voided an early end lately (standby.h: the backoff) */
        bool backoff = s->early_voids >= 2 && now >= s->early_voided &&
                now - s->early_voided < STANDBY_EARLY_BACKOFF(t);
        int64_t limit = backoff ? (int64_t) t : (int64_t) standby_release_s(t);
        if (age < 0 || age > limit) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                /* the record first: the charm's run keeps its hands off the started standby
                 * only while no heartbeat was written since */
                if (standby_early_write(NULL, now, have ? beat : 0, &e) < 0 || standby_record_clear(NULL, &e) < 0) {
                        logf_(s, "standby hold: %s", e.buf);
                        return;
                }
                s->held = false;
                s->take_since = now;
                s->released_beat = have ? beat : 0;
                s->early = age >= 0 && age <= (int64_t) t;
                if (s->early) {
                        char why[128];
                        snprintf(why, sizeof why,
                                "standby hold ended: no heartbeat for %lld s, %u s ahead of SlurmctldTimeout",
                                (long long) age, (unsigned) (t - (unsigned) age));
                        poke(s, why);
                } else
                        poke(s, "standby hold ended: no controller in charge");
                return;
        }
        /* (not while the heartbeat is late: the charm would keep the hold without a look) */
        if ((now - s->standby_poked >= STANDBY_RECHECK_S || now < s->standby_poked) &&
                !standby_heartbeat_late(age, t)) {
                s->standby_poked = now;
                poke(s, "standby hold: the old jobs looked at again");
        }
}

/* After the standby hold ended with no controller in charge (standby_tick: ended by this loop
 * or by the charm's run, which looks too): this unit's
 * slurmctld, once it answers as a standby, is asked to take control at once, rather than wait
 * SlurmctldTimeout more as a backup while old job steps ask for a controller, which they give
 * up after 1.5 SlurmctldTimeout (attack 3, F6: the hook did this after its own restart of
 * slurmctld, only when it ended the hold itself, and too late when that restart waited: jobs
 * stayed RUNNING for good). Only while no controller's heartbeat is fresh, only
 * a backup with no running controller ahead of it (one ahead takes control by Slurm's own
 * order), and for 2 SlurmctldTimeout + 10 s after the hold ended. */
static void take_tick(struct sentinel *s) {
        if (s->take_since == 0)
                return;
        time_t now = time(NULL);
        unsigned t = slurm_client_ctl_timeout();
        /* the hold may have ended ahead of T (standby_release_s): a heartbeat written since
         * says a controller is in charge after all (a late one, or one ahead that took
         * control), and the charm looks at the hold again at once (this standby would refuse
         * the old steps' completions while it runs); control is taken once no controller
         * wrote the heartbeat for T, as Slurm's own backup would */
        time_t beat = 0;
        uint64_t writer = 0;
        bool have = ha_heartbeat_age(slurm_client_state_dir(), now, &beat, &writer) >= 0 && writer <= LONG_MAX;
        enum standby_take next = standby_take_next(now, s->take_since, t, s->self, s->n_ctl, have, beat,
                have ? (long) writer : -1, s->released_beat);
        if (next == STANDBY_TAKE_WAIT)
                return;
        if (next != STANDBY_TAKE_NOW) {
                (void) standby_early_clear(NULL, NULL);
                if (next == STANDBY_TAKE_RECHECK && s->early) {
                        bool recent = s->early_voided && now >= s->early_voided &&
                                now - s->early_voided < STANDBY_EARLY_BACKOFF(t);
                        s->early_voids = recent ? s->early_voids + 1 : 1;
                        s->early_voided = now;
                        /* the standby started early stops at once, held again, rather than wait
                         * for the charm's run (the hook lock, its job query: review 11, F3);
                         * that run then looks at the old jobs and may start it again */
                        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                        int r = s->held_since ? standby_record_write(NULL, s->held_since, 1, 0, &e) : 0;
                        if (r >= 0)
                                r = ctld_stop(s, &e);
                        logf_(s, "standby hold: a controller writes the heartbeat again (late, not lost): "
                                 "slurmctld stopped, held again%s%s",
                                r < 0 ? ", but " : "", r < 0 ? e.buf : "");
                }
                if (next == STANDBY_TAKE_RECHECK)
                        poke(s, "standby hold: a controller writes the heartbeat again");
                s->take_since = 0;
                s->take_failed = false;
                return;
        }
        for (int i = 0; i < s->self && (size_t) i < s->hosts.n; i++)
                if (charm_host_listening(s->hosts.v[i], s->port, 500))
                        return;
        /* (a late look reads as a frozen machine to the fence only for a process that wrote the
         * heartbeat before, and this one is a standby that never did: charm/slurmctld/fence.h) 22.05's
         * slurm_takeover() answers after about 2 s, and after each unreachable controller's 2 s
         * connect timeout more (its handler first stops the others); a client killed before the
         * answer left the standby a standby (attack 4, F-F, at 2.5 s): 10 s for it */
        const char *private = s->o->private_conf ? s->o->private_conf : SENTINEL_PRIVATE_CONF;
        if (slurm_ctl_self_in_charge(private, 3000) != 0)
                return; /* not answering yet (starting), or in charge already */
        const char *conf = s->o->conf_path ? s->o->conf_path : slurm_config_path();
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = slurm_ctl_takeover_bounded(conf, s->self, 10000, &e);
        if (r < 0) {
                if (!s->take_failed)
                        logf_(s, "standby hold over with no controller in charge: taking control failed: %s "
                                 "(tried again every tick; logged once)",
                                e.buf);
                s->take_failed = true;
                return;
        }
        s->take_failed = false;
        logf_(s, "standby hold over with no controller in charge: took control at once");
        (void) standby_early_clear(NULL, NULL);
        s->take_since = 0;
}

/* Who is in charge (a fresh heartbeat's index, -1 none): a change runs the charm, so that every
 * controller unit's role line follows, and a backup that took charge asks to be first. */
static void boss_tick(struct sentinel *s) {
        long boss = ha_heartbeat_fresh(slurm_client_state_dir(), slurm_client_ctl_timeout());
        if (boss >= s->n_ctl)
                boss = -1;
        if (s->boss != -2 && boss != s->boss && boss >= 0) {
                char why[64];
                snprintf(why, sizeof why, "controller %ld took charge", boss);
                poke(s, why);
        }
        s->boss = boss;
}

/* SIGCONT to every process of slurmctld.service (systemd's KillUnit, "all"): `systemctl kill -s
 * STOP` stops its slurmscriptd too, and the main process's exit waits for that one (a relief
 * hung so, charm-fence A). Without systemd: the main process and its process group. */
static int ctld_continue(struct sentinel *s, uint32_t pid) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (sentinel_bus(s, &e) >= 0) {
                if (unit_kill(s->bus, "slurmctld.service", "all", SIGCONT, 5 * 1000000ULL, &e) >= 0)
                        return 0;
                sentinel_bus_drop(s);
        }
        logf_(s, "fence: SIGCONT to slurmctld.service: %s; to its process group instead", e.buf);
        (void) kill(-(pid_t) pid, SIGCONT);
        return kill((pid_t) pid, SIGCONT) < 0 ? -errno : 0;
}

/* A relieved backup (it was in charge: the primary was lost before) hands control on: the next
 * controller in the order whose machine answers is asked to take over now (it stops the ones
 * ahead of it, this one's slurmctld is gone), instead of waiting SlurmctldTimeout from an answer
 * this one gave it during its exit; and this unit's fence is not lifted for want of a controller
 * in charge for 2 x SlurmctldTimeout, so that it does not start again (as a standby listed
 * first, it would take control back) before that one took over (attack 53 G1). */
static void relief_hand_on(struct sentinel *s) {
        unsigned t = slurm_client_ctl_timeout();
        s->lift_not_before = time(NULL) + 2 * (time_t) t;
        const char *conf = s->o->conf_path ? s->o->conf_path : slurm_config_path();
        for (size_t i = (size_t) s->self + 1; i < s->hosts.n; i++) {
                if (!charm_host_reachable(s->hosts.v[i], s->port, 1000))
                        continue;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                int r = slurm_ctl_takeover_bounded(conf, (int) i, 10000, &e);
                logf_(s, "fence: controller %zu (%s) asked to take over: %s", i,
                        i < s->names.n ? s->names.v[i] : s->hosts.v[i], r < 0 ? e.buf : "done");
                if (r >= 0)
                        return;
        }
}

/* The relief is over (the process gone or killed): its record removed, and either the fence
 * lifted (this is the primary and another controller's machine answers: slurmctld starts again
 * here and reads what it saved) or the beats its exit wrote rewound (cut off, or a backup: the
 * next controller takes over on time). */
static void relief_end(struct sentinel *s, const struct fence_look *l, bool killed) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        const char *dir = slurm_client_state_dir();
        /* the primary (index 0) takes control at its start, asking the others first; a
         * backup would start as a standby and wait SlurmctldTimeout: it stays fenced, and the
         * next in the order takes over on time */
        if (!killed && s->self == 0 && peers_reachable(s)) {
                if (fence_record_clear(NULL, &e) < 0)
                        logf_(s, "fence: lifting after the relief: %s", e.buf);
                else {
                        logf_(s, "fence lifted: slurmctld (pid %" PRIu32 ") saved its state and exited within %lld s, "
                                 "and another controller's machine answers: slurmctld starts again here",
                                s->relief.pid, (long long) (l->now - s->relief.since));
                        poke(s, "the relieved slurmctld exited");
                }
        } else {
                bool rewind = fence_rewind_due(&s->relief, l->have_beat, l->beat_time, l->beat_index, s->self);
                /* (the takeover request below needs the heartbeat put back first) */
                int w = rewind ? ha_heartbeat_write(dir, s->relief.beat_before, (uint64_t) s->self, s->slurm_uid,
                                         s->slurm_gid)
                               : 0;
                logf_(s, "fence: slurmctld (pid %" PRIu32 ") %s within %lld s%s%s%s", s->relief.pid,
                        killed ? "killed" : "saved its state and exited", (long long) (l->now - s->relief.since),
                        rewind && w >= 0 ? "; its heartbeat put back to its last beat before the stop" : "",
                        w < 0 ? "; putting its heartbeat back: " : "", w < 0 ? strerror(-w) : "");
                if (!killed && s->self > 0)
                        relief_hand_on(s);
        }
        strbuf_reset(&e);
        if (fence_relief_clear(NULL, &e) < 0)
                logf_(s, "fence: %s", e.buf);
        s->relief = (struct fence_relief){ 0 };
}

/* While a relieved slurmctld exits (fence.h, the relief): true while it runs (killed after
 * all when fence_relief_judge() says so); once it is gone, systemd's restart cancelled,
 * relief_end(), and false. */
static bool relief_tick(struct sentinel *s) {
        char state = 0;
        uint32_t pid = 0;
        if (ctld_process(s, &pid, &state) < 0)
                return true; /* not known: looked at again next tick */
        struct fence_look l = { .pid = pid, .state = state, .self = s->self, .n_ctl = s->n_ctl,
                .timeout_s = slurm_client_ctl_timeout() };
        const char *dir = slurm_client_state_dir();
        l.have_beat = dir && ha_heartbeat_read(dir, &l.beat_time, &l.beat_index) >= 0;
        l.now = time(NULL);
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT, e = STRBUF_INIT;
        if (pid == s->relief.pid) {
                if (fence_relief_judge(&s->relief, &l, &why) != FENCE_KILL)
                        return true;
                if (kill((pid_t) pid, SIGKILL) < 0 && errno != ESRCH)
                        logf_(s, "fence: kill %" PRIu32 ": %s", pid, strerror(errno));
                int r = ctld_stop(s, &e);
                logf_(s, "fenced: %s; slurmctld killed%s%s", why.buf, r < 0 ? ", but " : "", r < 0 ? e.buf : "");
                if (l.have_beat)
                        l.have_beat = ha_heartbeat_read(dir, &l.beat_time, &l.beat_index) >= 0;
                relief_end(s, &l, true);
                return true;
        }
        /* gone (or started again by systemd after a failed exit: stopped now, and what it
         * read is what the relieved one saved) */
        int r = ctld_stop(s, &e);
        if (r < 0)
                logf_(s, "fence: stopping slurmctld.service after the exit: %s", e.buf);
        relief_end(s, &l, false);
        return false;
}

/* The fence look (charm/slurmctld/fence.h); true when slurmctld must not be asked anything this tick
 * and no charge mark be written (not running, stopped, hung, killed, relieved, or held down). */
static bool fence_tick(struct sentinel *s) {
        if (s->relief.pid && relief_tick(s))
                return true;
        time_t since = 0;
        int r = fence_record_read(NULL, &since, NULL, NULL);
        if (r != 0) {
                s->overslept_usec = 0; /* held down: the process that slept is gone */
                /* never lifted while a slurmctld runs here: one that runs under the fence (a
                 * relieved one a restarted sentinel did not know of, an admin's start) is
                 * stopped, and the fence looked at again once it is gone (attack 53 F1) */
                char state = 0;
                uint32_t pid = 0;
                if (ctld_process(s, &pid, &state) < 0)
                        return true;
                if (pid != 0) {
                        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                        int rr = ctld_stop(s, &e);
                        logf_(s, "fence: slurmctld (pid %" PRIu32 ") ran while fenced: stopped%s%s", pid,
                                rr < 0 ? ", but " : "", rr < 0 ? e.buf : "");
                        return true;
                }
                fence_hold(s, r > 0 ? since : 0);
                return true;
        }
        char state = 0;
        uint32_t pid = 0;
        /* systemd not asked: this look is skipped, and what the watch knows (the process, its
         * last beat, a freeze) stays for the next one */
        if (ctld_process(s, &pid, &state) < 0)
                return true;
        struct fence_look l = {
                .pid = pid,
                .self = s->self,
                .n_ctl = s->n_ctl,
                .timeout_s = slurm_client_ctl_timeout(),
        };
        l.state = state;
        const char *dir = slurm_client_state_dir();
        l.have_beat = dir && ha_heartbeat_read(dir, &l.beat_time, &l.beat_index) >= 0;
        _cleanup_free_ char *mark_host = NULL;
        l.have_mark = dir && ha_charge_mark_read(dir, &l.mark_index, &l.mark_time, &mark_host) >= 0;
        l.mark_host = mark_host;
        l.mark_other = l.have_mark && (mark_host ? !streq(mark_host, s->host) : l.mark_index != (long) s->self);
        _cleanup_free_ char *taker = NULL;
        time_t taken = 0;
        /* announced for this unit (the takeover action, a claim) or this host (a leaving
         * primary's hand-over) */
        l.takeover_self = dir && ha_takeover_read(dir, &taker, &taken) >= 0 &&
                (streq_ptr(taker, s->o->juju_unit) || streq(taker, s->host)) &&
                time(NULL) - taken < 2 * (time_t) l.timeout_s + 10;
        /* the time of the look and how late it comes, taken after what it read: a freeze inside
         * this tick, after the loop measured the gap since the last one, is counted here, not
         * one tick later (charm-fence 24.11 under Juju's concurrency: frozen between the two,
         * the look saw another machine's fresh heartbeat and charge mark with no freeze known,
         * and judged by another rule; the outcome was the same kill, the reason not) */
        uint64_t at = mono_usec(), late = sentinel_late_usec(s->tick_start, at, s->tick_usec);
        if (late > s->overslept_usec)
                s->overslept_usec = late;
        s->looked_at = at; /* the loop's next gap counts from here: one freeze counted once */
        l.now = time(NULL);
        l.overslept_usec = s->overslept_usec;
        s->overslept_usec = 0; /* the watch keeps it now */
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT, e = STRBUF_INIT;
        enum fence_verdict v = fence_judge(&s->fence, &l, &why);
        if (v == FENCE_KEEP)
                /* nothing asked of, and no charge mark for, a slurmctld that is not running
                 * (none, stopped, hung, a zombie): the mark says a live one is in charge */
                return l.pid == 0 || state == 'T' || state == 't' || state == 'D' || state == 'Z';
        if (v == FENCE_RELIEVE) {
                /* the record first: nothing may start slurmctld again once it exited; then
                 * SIGTERM while it is stopped, so that it runs its shutdown (and its state
                 * save) first thing when SIGCONT lets it go on */
                const struct fence_relief rel = { .pid = l.pid, .since = l.now, .beat_before = l.beat_time };
                r = fence_record_write(NULL, l.now, -1, why.buf, &e);
                if (r >= 0)
                        r = fence_relief_write(NULL, &rel, &e);
                if (r >= 0 && kill((pid_t) l.pid, SIGTERM) >= 0 && ctld_continue(s, l.pid) >= 0) {
                        s->relief = rel;
                        logf_(s, "fenced: %s; SIGTERM and SIGCONT sent", why.buf);
                        s->fence = (struct fence_watch){ 0 };
                        return true;
                }
                logf_(s, "fence: relieving slurmctld (pid %" PRIu32 "): %s; killed instead", l.pid,
                        r < 0 ? e.buf : strerror(errno));
                strbuf_reset(&e);
                (void) fence_relief_clear(NULL, &e); /* no relief to take up again */
                strbuf_reset(&e);
                strbuf_addf(&why, " (that failed: killed instead)");
        }
        /* first the kill: a stopped process gets nothing else (systemd's stop would continue it
         * with SIGCONT after its SIGTERM, and it would save its stale state on the way out) */
        if (kill((pid_t) l.pid, SIGKILL) < 0 && errno != ESRCH) {
                logf_(s, "fence: kill %" PRIu32 ": %s", l.pid, strerror(errno));
                return true;
        }
        long in_charge = l.have_beat && l.beat_index != (uint64_t) s->self ? (long) l.beat_index : -1;
        r = fence_record_write(NULL, l.now, in_charge, why.buf, &e);
        if (r >= 0)
                r = ctld_stop(s, &e);
        logf_(s, "fenced: %s; slurmctld killed%s%s", why.buf, r < 0 ? ", but " : "", r < 0 ? e.buf : "");
        s->fence = (struct fence_watch){ 0 };
        return true;
}

/* The charge mark (ha_charge_mark_write), renewed every 2 s while this unit's slurmctld is in
 * charge: what a frozen machine's sentinel reads when it continues (charm/slurmctld/fence.h). */
static void charge_mark(struct sentinel *s) {
        time_t now = time(NULL);
        if (s->n_ctl < 2 || (s->mark_written && now - s->mark_written < 2 && now >= s->mark_written))
                return;
        const char *dir = slurm_client_state_dir();
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (!dir || ha_charge_mark_write(dir, s->self, s->host, now, s->slurm_uid, s->slurm_gid, &e) < 0) {
                if (s->mark_written >= 0)
                        logf_(s, "charge mark: %s (retried every tick)", e.len ? e.buf : "no state directory");
                s->mark_written = -1;
                return;
        }
        s->mark_written = now;
}

uint64_t sentinel_late_usec(uint64_t from, uint64_t at, uint64_t tick_usec) {
        return from && at > from + tick_usec ? at - from - tick_usec : 0;
}

const char *sentinel_charge_who(const struct strv *names, long self, bool mine, long boss, const char *mark_host,
        bool mark_fresh) {
        if (self < 0 || (size_t) self >= names->n)
                return "";
        if (mine)
                return names->v[self];
        if (names->n < 2)
                return "";
        if (mark_host && mark_fresh && !streq(mark_host, names->v[self]) && strv_find(names, mark_host) >= 0)
                return mark_host;
        if (boss >= 0 && boss != self && (size_t) boss < names->n)
                return names->v[boss];
        return "";
}

/* The controller in charge as this sentinel knows it, for the metrics exporter
 * (sentinel_charge_who; the mark read only when this host's slurmctld is not in charge). */
static void charge_publish(struct sentinel *s, bool mine) {
        if (!s->o->in_charge_file)
                return;
        _cleanup_free_ char *mark_host = NULL;
        long mark_idx;
        time_t mark_time = 0;
        const char *dir = slurm_client_state_dir();
        bool mark_fresh = !mine && s->self >= 0 && s->n_ctl > 1 && dir &&
                ha_charge_mark_read(dir, &mark_idx, &mark_time, &mark_host) >= 0 && mark_host &&
                llabs((long long) (time(NULL) - mark_time)) <= (long long) slurm_client_ctl_timeout();
        const char *who = s->n_ctl > 1 || mine ? sentinel_charge_who(&s->names, s->self, mine, s->boss, mark_host,
                                                         mark_fresh)
                                               : "";
        time_t now = time(NULL);
        if (s->published_at && streq(who, s->published) && now >= s->published_at &&
                now - s->published_at < SENTINEL_PUBLISH_S)
                return;
        _cleanup_free_ char *line = xasprintf("%s\n", who);
        if (write_file_atomic(s->o->in_charge_file, line, strlen(line), 0644, (uid_t) -1, (gid_t) -1) < 0)
                return;
        snprintf(s->published, sizeof s->published, "%s", who);
        s->published_at = now;
}

/* slurmctld in charge here did not answer: a 24.11.5 reconfigure stuck after its state save
 * (charm/slurmctld/ctlhang.h; a log read) asks the charm to run, whose reconcile cures it; at
 * most once a minute. Any reconfigure counts (an admin's, the leader's push from another unit:
 * this unit's hooks may be minutes away, and the hung daemon's heartbeat keeps every backup
 * waiting). */
#define SENTINEL_HANG_AGAIN_USEC (60 * 1000 * 1000ULL)
static void hang_tick(struct sentinel *s) {
        uint64_t now = mono_usec();
        if (s->hang_poked && now < s->hang_poked + SENTINEL_HANG_AGAIN_USEC)
                return;
        if (!ctl_hang_look(CTL_SLURMCTLD_LOG, time(NULL)))
                return;
        s->hang_poked = now;
        poke(s, "slurmctld hangs in a reconfigure after saving its state");
}

static void tick(struct sentinel *s, uint64_t overslept_usec) {
        /* kept until a fence look takes it: a tick that skips the look must not lose a freeze */
        if (overslept_usec > s->overslept_usec)
                s->overslept_usec = overslept_usec;
        poke_reap(s);
        if (conf_current(s) && s->self >= 0 && s->n_ctl > 1) {
                boss_tick(s);
                standby_tick(s);
        }
        bool down = !conf_current(s) || (s->self >= 0 && fence_tick(s));
        if (!down)
                take_tick(s);
        bool mine = !down && in_charge(s);
        charge_publish(s, mine);
        if (!mine) {
                sentinel_nudge_reset(&s->nudge);
                if (s->mark_written > 0)
                        s->mark_written = 0;
                return;
        }
        charge_mark(s);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        struct slurm_ctl_stats st;
        int r = slurm_ctl_stats_get(&st, &e);
        if (r >= 0 && sentinel_nudge_due(&s->nudge, &st)) {
                r = slurm_ctl_save_nudge(&e);
                if (r >= 0)
                        s->nudges++;
        }
        if (r < 0) {
                s->failures++;
                /* the next look is a first one: a save is asked for once slurmctld answers */
                sentinel_nudge_reset(&s->nudge);
                if (!s->failing)
                        logf_(s, "slurmctld: %s (retried every tick; logged once)", e.buf);
                hang_tick(s);
        } else if (s->failing)
                logf_(s, "slurmctld answers again");
        s->failing = r < 0;
}

static void report(struct sentinel *s, uint64_t now) {
        if (now < s->report_due)
                return;
        if (s->nudges || s->failures)
                logf_(s, "last minute: %u job state save%s asked for, %u failed look%s", s->nudges,
                        s->nudges == 1 ? "" : "s", s->failures, s->failures == 1 ? "" : "s");
        s->nudges = s->failures = 0;
        s->report_due = now + SENTINEL_REPORT_USEC;
}

int sentinel_run(const struct sentinel_opts *o, struct strbuf *err) {
        struct sentinel s = { .o = o, .hosts = STRV_INIT, .names = STRV_INIT, .boss = -2 };
        uint64_t tick_usec = o->tick_usec ? o->tick_usec : SENTINEL_TICK_USEC_DEFAULT;

        if (o->host)
                snprintf(s.host, sizeof s.host, "%s", o->host);
        else if (gethostname(s.host, sizeof s.host) < 0) {
                int r = -errno;
                strbuf_addf(err, "gethostname: %s", strerror(errno));
                return r;
        }
        /* a look must not wait on a stopped slurmctld's credential socket (24.11's auth/slurm,
         * sackguard.h): a statistics call that met the stop waited there 15 s (the guard's
         * default), the looks of the fence's relief window with it, and the stopped slurmctld
         * was killed instead of told to save its state (CI, charm-fence-debian13). This
         * process cuts such a wait after SENTINEL_SACK_LIMIT_MS, one on a slurmctld that runs
         * after SENTINEL_SACK_WEDGED_MS; its own calls are bounded so anyway (MessageTimeout) */
        static const struct sack_guard_opts guard = { .tick_ms = 100,
                .limit_ms = SENTINEL_SACK_LIMIT_MS,
                .again_ms = SENTINEL_SACK_LIMIT_MS,
                .wedged_ms = SENTINEL_SACK_WEDGED_MS };
        (void) sack_guard_start(&guard);
        uint64_t next = mono_usec();
        s.report_due = next + SENTINEL_REPORT_USEC;
        logf_(&s, "watching slurmctld on %s: a job state save asked for when a job started (every %llu ms)",
                s.host, (unsigned long long) (tick_usec / 1000));
        struct passwd *pw = getpwnam("slurm");
        s.slurm_uid = pw ? pw->pw_uid : 0;
        s.slurm_gid = pw ? pw->pw_gid : 0;
        /* a relief under way when this sentinel was (re)started: watched on (fence.h) */
        int rr = fence_relief_read(NULL, &s.relief);
        if (rr > 0)
                logf_(&s, "fence: slurmctld (pid %" PRIu32 ") was told to save its state and exit at %lld: watched on",
                        s.relief.pid, (long long) s.relief.since);
        else if (rr < 0) {
                s.relief = (struct fence_relief){ 0 };
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                (void) fence_relief_clear(NULL, &e);
                logf_(&s, "fence: an unreadable relief record removed");
        }
        uint64_t prev = 0;
        for (unsigned n = 0; !o->max_ticks || n < o->max_ticks; n++) {
                /* how late this look comes after the last one, beyond a tick: this process
                 * (the machine) was frozen, wherever in the loop it was */
                uint64_t start = mono_usec();
                uint64_t late = sentinel_late_usec(prev && s.looked_at > prev ? s.looked_at : prev, start, tick_usec);
                prev = start;
                s.tick_start = start;
                s.tick_usec = tick_usec;
                tick(&s, late);
                uint64_t now = mono_usec();
                report(&s, now);
                next += tick_usec;
                if (next < now) /* the loop fell behind (a slow RPC): no burst of ticks to catch up */
                        next = now;
                sleep_until(next);
        }
        strv_clear(&s.hosts);
        strv_clear(&s.names);
        s.bus = sd_bus_flush_close_unref(s.bus);
        return 0;
}
