/* SPDX-License-Identifier: Apache-2.0 */
/* sd-bus calls to org.freedesktop.systemd1: jobs with JobRemoved waits, unit files,
 * daemon-reload, unit state, PropertiesChanged watches and unit drop-ins. */
#include "util/macro.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "systemd/unit.h"
#include "systemd/strays.h"

#include <signal.h>
#include <time.h>

#include "util/banned.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT_IFACE "org.freedesktop.systemd1.Unit"
#define SD_SERVICE_IFACE "org.freedesktop.systemd1.Service"
#define SD_UNIT_PREFIX "/org/freedesktop/systemd1/unit"

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static uint64_t deadline_after(uint64_t timeout_usec) {
        uint64_t now = now_usec();
        return timeout_usec > UINT64_MAX - now ? UINT64_MAX : now + timeout_usec;
}

/* Time left until deadline; 0 when it has passed (sd_bus_call would read 0 as "default"). */
static uint64_t time_left(uint64_t deadline) {
        uint64_t now = now_usec();
        return now >= deadline ? 0 : deadline - now;
}

/* Appends `unit "x": what: message` (or `systemd: what: message`) to err. */
static int fail(struct strbuf *err, const char *unit, const char *what, const sd_bus_error *e, int r) {
        if (r >= 0)
                r = -EIO;
        if (!err)
                return r;
        if (unit)
                strbuf_addf(err, "unit \"%s\": %s: ", unit, what);
        else
                strbuf_addf(err, "systemd: %s: ", what);
        size_t start = err->len;
        if (e && sd_bus_error_is_set(e) && !isempty(e->message))
                strbuf_addstr(err, e->message);
        else if (e && sd_bus_error_is_set(e))
                strbuf_addstr(err, e->name);
        else
                strbuf_addstr(err, strerror(-r));
        /* bus messages often end in a full stop or a newline; the house style has neither */
        while (err->len > start && (err->buf[err->len - 1] == '.' || err->buf[err->len - 1] == '\n'))
                strbuf_setlen(err, err->len - 1);
        return r;
}

int unit_bus_open(sd_bus **ret_bus, struct strbuf *err) {
        sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0)
                return fail(err, NULL, "connect to the system bus", NULL, r);
        *ret_bus = bus;
        return 0;
}

/* Calls method on interface at path of the manager, with the time left to deadline. */
static int callv(sd_bus *bus, const char *path, const char *iface, const char *method, uint64_t deadline,
        sd_bus_error *error, sd_bus_message **ret_reply, char *const *strv, const char *types, va_list ap) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        uint64_t left;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, path, iface, method);
        if (r < 0)
                return r;
        if (strv) {
                r = sd_bus_message_append_strv(m, (char **) strv);
                if (r < 0)
                        return r;
        }
        if (types) {
                r = sd_bus_message_appendv(m, types, ap);
                if (r < 0)
                        return r;
        }
        left = time_left(deadline);
        if (left == 0)
                return -ETIMEDOUT;
        return sd_bus_call(bus, m, left, error, ret_reply);
}

static int manager_call(sd_bus *bus, const char *method, uint64_t deadline, sd_bus_error *error,
        sd_bus_message **ret_reply, char *const *strv, const char *types, ...) {
        va_list ap;
        va_start(ap, types);
        int r = callv(bus, SD_PATH, SD_MANAGER, method, deadline, error, ret_reply, strv, types, ap);
        va_end(ap);
        return r;
}

static int call_at(sd_bus *bus, const char *path, const char *iface, const char *method, uint64_t deadline,
        sd_bus_error *error, sd_bus_message **ret_reply, const char *types, ...) {
        va_list ap;
        va_start(ap, types);
        int r = callv(bus, path, iface, method, deadline, error, ret_reply, NULL, types, ap);
        va_end(ap);
        return r;
}

int unit_bus_wait(sd_bus *bus, uint64_t timeout_usec, const bool *done) {
        uint64_t deadline = deadline_after(timeout_usec);
        for (;;) {
                if (*done)
                        return 0;
                int r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue; /* more may be queued */
                uint64_t left = time_left(deadline);
                if (left == 0)
                        return -ETIMEDOUT;
                r = sd_bus_wait(bus, left);
                if (r < 0 && r != -EINTR)
                        return r;
        }
}

/* Properties read from an a{sv}: strings into fixed buffers, or uint32, int32 and uint64 values. */
struct prop {
        const char *name;
        char type;  /* 's', 'u', 'i' or 't' */
        void *dest; /* char[UNIT_STATE_STRMAX], uint32_t, int32_t or uint64_t */
        bool seen;
};

static int read_props(sd_bus_message *m, struct prop *props, size_t n) {
        int r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *name;
                struct prop *p = NULL;
                r = sd_bus_message_read(m, "s", &name);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n && !p; i++)
                        if (streq(props[i].name, name))
                                p = &props[i];
                if (!p) {
                        r = sd_bus_message_skip(m, "v");
                } else if (p->type == 's') {
                        const char *s;
                        r = sd_bus_message_read(m, "v", "s", &s);
                        if (r >= 0)
                                snprintf(p->dest, UNIT_STATE_STRMAX, "%s", s);
                } else if (p->type == 'i') {
                        r = sd_bus_message_read(m, "v", "i", (int32_t *) p->dest);
                } else if (p->type == 't') {
                        r = sd_bus_message_read(m, "v", "t", (uint64_t *) p->dest);
                } else {
                        r = sd_bus_message_read(m, "v", "u", (uint32_t *) p->dest);
                }
                if (r < 0)
                        return r;
                if (p)
                        p->seen = true;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int get_all(sd_bus *bus, const char *path, const char *iface, struct prop *props, size_t n,
        sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = call_at(bus, path, "org.freedesktop.DBus.Properties", "GetAll",
                deadline_after(UNIT_CALL_TIMEOUT_USEC), error, &reply, "s", iface);
        if (r < 0)
                return r;
        return read_props(reply, props, n);
}

static bool is_service(const char *unit) {
        size_t l = strlen(unit);
        return l > 8 && streq(unit + l - 8, ".service");
}

struct job_wait {
        char *path;
        char *result;
        bool done;
};

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct job_wait *w = userdata;
        const char *path, *unit, *result;
        uint32_t id;
        if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
                return 0;
        if (w->path && !w->done && streq(path, w->path)) {
                w->result = xstrdup(result);
                w->done = true;
        }
        return 0;
}

/* A service's stop job follows a main-PID hand-over (see unit.h): while the unit is in
 * stop-sigterm, a main PID other than the one that was signalled, and any other process of the
 * unit running the daemon's program (a re-execution under way), gets the unit's KillSignal,
 * once each. */
#define FOLLOW_PIDS_MAX 16
/* how long a copy of the daemon left after its stop, or found before its start, has to go
 * after the unit's KillSignal before SIGKILL */
#define STRAY_GRACE_USEC (2 * 1000 * 1000ULL)
struct stop_follow {
        uint32_t signalled; /* the main PID the stop signal went to (0: none yet) */
        int32_t kill_signal;
        char *program; /* the daemon's program (the main PID's, else ExecStart's); NULL: unknown */
        pid_t sent[FOLLOW_PIDS_MAX]; /* the processes that got the stop signal */
        size_t n_sent;
};

/* how often the stop follow and the wait for an automatic restart look at the unit */
#define LOOK_USEC (50 * 1000ULL)

static int follow_start(sd_bus *bus, const char *unit, struct stop_follow *f) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        int r = sd_bus_path_encode(SD_UNIT_PREFIX, unit, &path);
        if (r < 0)
                return r;
        f->kill_signal = SIGTERM;
        struct prop props[] = {
                { "MainPID", 'u', &f->signalled, false },
                { "KillSignal", 'i', &f->kill_signal, false },
        };
        r = get_all(bus, path, SD_SERVICE_IFACE, props, ELEMENTSOF(props), &error);
        if (r < 0)
                return r;
        /* the stop signal goes to the main PID of this moment (the manager's) */
        if (f->signalled)
                f->sent[f->n_sent++] = (pid_t) f->signalled;
        /* the program the unit names for its daemon's copies; none: no copy is looked for */
        (void) unit_copies_program(bus, unit, &f->program);
        return 0;
}

static bool follow_sent(const struct stop_follow *f, pid_t pid) {
        for (size_t i = 0; i < f->n_sent; i++)
                if (f->sent[i] == pid)
                        return true;
        return false;
}

static void follow_note(struct stop_follow *f, pid_t pid) {
        if (!follow_sent(f, pid) && f->n_sent < FOLLOW_PIDS_MAX)
                f->sent[f->n_sent++] = pid;
}

/* The copies of the daemon that got no stop signal from the stop: another process of the
 * unit running its program (a re-execution's child or grandchild, before or without its
 * MAINPID=) gets the unit's KillSignal now (strays.h). */
static void follow_copies(sd_bus *bus, const char *unit, struct stop_follow *f) {
        pid_t pids[FOLLOW_PIDS_MAX];
        int n = f->program ? unit_program_pids(bus, unit, f->program, pids, ELEMENTSOF(pids)) : 0;
        for (int i = 0; i < n; i++) {
                if (follow_sent(f, pids[i]))
                        continue;
                if (kill(pids[i], f->kill_signal) == 0)
                        follow_note(f, pids[i]);
        }
}

/* After a stop (or before a start, with no main PID): the copies of the daemon still in the
 * unit's cgroup, which the manager no longer watches, are ended (KillSignal, then SIGKILL after
 * STRAY_GRACE_USEC). Returns how many there were. */
static int end_strays(sd_bus *bus, const char *unit, const char *program, int kill_signal) {
        pid_t pids[FOLLOW_PIDS_MAX];
        int n = program ? unit_program_pids(bus, unit, program, pids, ELEMENTSOF(pids)) : 0;
        if (n <= 0)
                return 0;
        (void) pids_end(pids, (size_t) n, program, kill_signal, STRAY_GRACE_USEC);
        return n;
}

/* Before a start: a service with no main PID whose cgroup still holds a copy of its program
 * (left by a stop this library did not run, or by a start whose re-executed daemon the manager
 * never took as main) has it ended first: the new daemon would meet it on its port. */
/* Whether the manager runs no process of the service as its daemon: no main PID, and stopped
 * (inactive, failed) or waiting for its automatic restart. */
static bool unit_without_daemon(sd_bus *bus, const char *unit) {
        struct unit_state st;
        if (unit_get_state(bus, unit, &st, NULL) < 0 || st.main_pid != 0 || streq(st.load_state, "not-found"))
                return false;
        return streq(st.active_state, "inactive") || streq(st.active_state, "failed") ||
                streq(st.sub_state, "auto-restart");
}

static void start_clear_strays(sd_bus *bus, const char *unit) {
        _cleanup_free_ char *program = NULL;
        if (!unit_without_daemon(bus, unit) || unit_copies_program(bus, unit, &program) <= 0)
                return;
        int32_t kill_signal = SIGTERM;
        _cleanup_free_ char *path = NULL;
        if (sd_bus_path_encode(SD_UNIT_PREFIX, unit, &path) >= 0) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                struct prop props[] = { { "KillSignal", 'i', &kill_signal, false } };
                (void) get_all(bus, path, SD_SERVICE_IFACE, props, ELEMENTSOF(props), &error);
        }
        (void) end_strays(bus, unit, program, kill_signal);
}

/* One look: a new main PID during stop-sigterm gets the stop signal. Errors are left to the
 * job wait (the job's own result says how the stop ended). */
static void follow_step(sd_bus *bus, const char *unit, struct stop_follow *f) {
        struct unit_state st;
        if (unit_get_state(bus, unit, &st, NULL) < 0 || !streq(st.sub_state, "stop-sigterm"))
                return;
        if (st.main_pid != 0 && st.main_pid != f->signalled) {
                if (follow_sent(f, (pid_t) st.main_pid))
                        f->signalled = st.main_pid; /* a copy signalled before its hand-over */
                else if (unit_kill(bus, unit, "main", f->kill_signal, UNIT_CALL_TIMEOUT_USEC, NULL) == 0) {
                        f->signalled = st.main_pid;
                        follow_note(f, (pid_t) st.main_pid);
                }
        }
        follow_copies(bus, unit, f);
}

/* A service whose start job failed and that systemd starts again itself (Restart=: SubState
 * auto-restart): waits until deadline for that one automatic start. 0 when it made the unit
 * active; else -EIO (or -ETIMEDOUT), with its outcome appended to err. */
static int wait_auto_restart(sd_bus *bus, const char *unit, uint64_t deadline, struct strbuf *err) {
        struct unit_state st;
        if (unit_get_state(bus, unit, &st, NULL) < 0 || !streq(st.sub_state, "auto-restart"))
                return -EIO;
        uint32_t n0 = st.n_restarts;
        /* a re-executed copy of the daemon from the failed start (its MAINPID= never taken)
         * would meet the automatic start's daemon on its port */
        start_clear_strays(bus, unit);
        for (;;) {
                if (time_left(deadline) == 0) {
                        if (err)
                                strbuf_addstr(err, "; its automatic restart did not end in time");
                        return -ETIMEDOUT;
                }
                struct timespec ts = { 0, (long) LOOK_USEC * 1000 };
                nanosleep(&ts, NULL);
                if (unit_get_state(bus, unit, &st, NULL) < 0)
                        continue;
                if (streq(st.active_state, "active"))
                        return 0;
                /* NRestarts counts a restart when systemd queues it: one more than n0 is the
                 * start waited for, two more the one after it (that start failed too) */
                if (st.n_restarts > n0 && !streq(st.active_state, "activating")) {
                        if (err)
                                strbuf_addf(err, "; its automatic restart too (%s, Result=%s)",
                                        st.active_state, st.result);
                        return -EIO;
                }
                if (st.n_restarts > n0 + 1) {
                        if (err)
                                strbuf_addstr(err, "; its automatic restart too");
                        return -EIO;
                }
        }
}

/* Enqueues a job with method (StartUnit, …) and waits for its JobRemoved. */
static int run_job(sd_bus *bus, const char *method, const char *what, const char *unit,
        uint64_t timeout_usec, struct strbuf *err) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        struct job_wait w = { 0 };
        struct stop_follow f = { 0 };
        uint64_t deadline = deadline_after(timeout_usec);
        const char *path;
        bool follow = false;
        int r;

        if (is_service(unit) && streq(method, "StopUnit"))
                /* an unknown unit (no Service properties) is left to the job call's error */
                follow = follow_start(bus, unit, &f) >= 0;
        if (is_service(unit) && streq(method, "StartUnit"))
                start_clear_strays(bus, unit);

        /* the match is in place before the job exists: its JobRemoved cannot be missed */
        r = sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, &w);
        if (r < 0)
                return fail(err, unit, what, NULL, r);
        r = manager_call(bus, method, deadline, &error, &reply, NULL, "ss", unit, "replace");
        if (r < 0)
                return fail(err, unit, what, &error, r);
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return fail(err, unit, what, NULL, r);
        w.path = xstrdup(path);

        for (;;) {
                uint64_t left = time_left(deadline);
                r = unit_bus_wait(bus, follow && left > LOOK_USEC ? LOOK_USEC : left, &w.done);
                if (r != -ETIMEDOUT || !follow || time_left(deadline) == 0)
                        break;
                follow_step(bus, unit, &f);
        }
        /* the stop is over: no copy of the daemon stays behind, outside the manager's view */
        if (follow && r != -ETIMEDOUT && unit_without_daemon(bus, unit))
                (void) end_strays(bus, unit, f.program, f.kill_signal);
        free(f.program);
        if (r == -ETIMEDOUT) {
                if (err)
                        strbuf_addf(err, "unit \"%s\": %s: job %s did not finish within %llu ms", unit, what,
                                w.path, (unsigned long long) (timeout_usec / 1000));
        } else if (r < 0)
                fail(err, unit, what, NULL, r);
        else if (streq(w.result, "done") || streq(w.result, "skipped"))
                r = 0;
        else {
                r = streq(w.result, "canceled") ? -ECANCELED : streq(w.result, "timeout") ? -ETIME : -EIO;
                size_t mark = err ? err->len : 0;
                if (err)
                        strbuf_addf(err, "unit \"%s\": %s: job finished with result \"%s\"", unit, what,
                                w.result);
                /* a start that systemd's Restart= takes up again: its outcome is the start's (a
                 * 24.11 daemon re-executed by a reconfigure before READY=1 fails its start with
                 * Result=protocol; the next start runs) */
                if (streq(method, "StartUnit") && streq(w.result, "failed") && is_service(unit)) {
                        r = wait_auto_restart(bus, unit, deadline, err);
                        if (r == 0 && err)
                                strbuf_setlen(err, mark);
                }
        }
        free(w.path);
        free(w.result);
        return r;
}

int unit_start(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        return run_job(bus, "StartUnit", "start", unit, timeout_usec, err);
}

int unit_stop(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        return run_job(bus, "StopUnit", "stop", unit, timeout_usec, err);
}

/* A service's restart is a stop job, followed (run_job), then a start job. One RestartUnit job
 * goes on to its start as soon as the old process is gone: a look of the follow under way then
 * could read the new process as the main PID and signal it. */
static int stop_then_start(
        sd_bus *bus, const char *what, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        uint64_t deadline = deadline_after(timeout_usec);
        int r = run_job(bus, "StopUnit", what, unit, timeout_usec, err);
        if (r < 0)
                return r;
        return run_job(bus, "StartUnit", what, unit, time_left(deadline), err);
}

int unit_restart(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        if (!is_service(unit))
                return run_job(bus, "RestartUnit", "restart", unit, timeout_usec, err);
        return stop_then_start(bus, "restart", unit, timeout_usec, err);
}

int unit_try_restart(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        if (!is_service(unit))
                return run_job(bus, "TryRestartUnit", "try-restart", unit, timeout_usec, err);
        struct unit_state st;
        int r = unit_get_state(bus, unit, &st, err);
        if (r < 0)
                return r;
        if (streq(st.load_state, "not-found")) /* the manager's own error */
                return run_job(bus, "TryRestartUnit", "try-restart", unit, timeout_usec, err);
        /* TryRestartUnit's "running": active, activating or reloading */
        if (!streq(st.active_state, "active") && !streq(st.active_state, "activating") &&
                !streq(st.active_state, "reloading"))
                return 0;
        return stop_then_start(bus, "try-restart", unit, timeout_usec, err);
}

int unit_reload(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        return run_job(bus, "ReloadUnit", "reload", unit, timeout_usec, err);
}

int unit_daemon_reload(sd_bus *bus, uint64_t timeout_usec, struct strbuf *err) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = manager_call(bus, "Reload", deadline_after(timeout_usec), &error, NULL, NULL, NULL);
        if (r < 0)
                return fail(err, NULL, "daemon-reload", &error, r);
        return 0;
}

/* Counts the a(sss) changes of an EnableUnitFiles/DisableUnitFiles reply. */
static int count_changes(sd_bus_message *reply) {
        const char *type, *file, *dest;
        int r, n = 0;
        r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "(sss)", &type, &file, &dest)) > 0)
                n++;
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(reply);
        return r < 0 ? r : n;
}

static int unit_file_op(
        sd_bus *bus, const char *unit, bool enable, uint64_t timeout_usec, struct strbuf *err) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *what = enable ? "enable" : "disable";
        char *names[] = { (char *) unit, NULL };
        uint64_t deadline = deadline_after(timeout_usec);
        int r, n;

        if (enable)
                r = manager_call(bus, "EnableUnitFiles", deadline, &error, &reply, names, "bb", 0, 0);
        else
                r = manager_call(bus, "DisableUnitFiles", deadline, &error, &reply, names, "b", 0);
        if (r < 0)
                return fail(err, unit, what, &error, r);
        if (enable) {
                int carries_install_info;
                r = sd_bus_message_read(reply, "b", &carries_install_info);
                if (r < 0)
                        return fail(err, unit, what, NULL, r);
        }
        n = count_changes(reply);
        if (n < 0)
                return fail(err, unit, what, NULL, n);
        if (n > 0) {
                sd_bus_error_free(&error);
                r = manager_call(bus, "Reload", deadline, &error, NULL, NULL, NULL);
                if (r < 0)
                        return fail(err, unit, "daemon-reload", &error, r);
        }
        return n;
}

int unit_enable(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        return unit_file_op(bus, unit, true, timeout_usec, err);
}

int unit_disable(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        return unit_file_op(bus, unit, false, timeout_usec, err);
}

int unit_reset_failed(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = manager_call(
                bus, "ResetFailedUnit", deadline_after(timeout_usec), &error, NULL, NULL, "s", unit);
        if (r < 0)
                return fail(err, unit, "reset-failed", &error, r);
        return 0;
}

int unit_kill(sd_bus *bus, const char *unit, const char *whom, int signo, uint64_t timeout_usec,
        struct strbuf *err) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = manager_call(bus, "KillUnit", deadline_after(timeout_usec), &error, NULL, NULL, "ssi", unit,
                whom, (int32_t) signo);
        if (r < 0)
                return fail(err, unit, "kill", &error, r);
        return 0;
}

int unit_get_state(sd_bus *bus, const char *unit, struct unit_state *ret, struct strbuf *err) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        struct unit_state st = { 0 };
        int r;

        r = sd_bus_path_encode(SD_UNIT_PREFIX, unit, &path);
        if (r < 0)
                return fail(err, unit, "get state", NULL, r);
        struct prop unit_props[] = {
                { "LoadState", 's', st.load_state, false },
                { "ActiveState", 's', st.active_state, false },
                { "SubState", 's', st.sub_state, false },
                { "ActiveEnterTimestampMonotonic", 't', &st.active_enter_usec, false },
        };
        r = get_all(bus, path, SD_UNIT_IFACE, unit_props, ELEMENTSOF(unit_props), &error);
        if (r < 0)
                return fail(err, unit, "get state", &error, r);
        if (is_service(unit) && !streq(st.load_state, "not-found")) {
                struct prop service_props[] = {
                        { "Result", 's', st.result, false },
                        { "NRestarts", 'u', &st.n_restarts, false },
                        { "MainPID", 'u', &st.main_pid, false },
                };
                r = get_all(bus, path, SD_SERVICE_IFACE, service_props, ELEMENTSOF(service_props), &error);
                if (r < 0)
                        return fail(err, unit, "get state", &error, r);
        }
        *ret = st;
        return 0;
}

struct watch {
        char *unit;
        char *path;
        unit_watch_fn fn;
        void *userdata;
};

static void watch_free(void *userdata) {
        struct watch *w = userdata;
        if (!w)
                return;
        free(w->unit);
        free(w->path);
        free(w);
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        struct watch *w = userdata;
        char active[UNIT_STATE_STRMAX] = "", sub[UNIT_STATE_STRMAX] = "";
        struct prop props[] = {
                { "ActiveState", 's', active, false },
                { "SubState", 's', sub, false },
        };
        const char *iface;
        int r;

        r = sd_bus_message_read(m, "s", &iface);
        if (r < 0 || !streq(iface, SD_UNIT_IFACE))
                return 0;
        r = read_props(m, props, ELEMENTSOF(props));
        if (r < 0)
                return 0;
        if (!props[0].seen || !props[1].seen) {
                /* only invalidated: read the values */
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                props[0].seen = props[1].seen = false;
                r = get_all(
                        sd_bus_message_get_bus(m), w->path, SD_UNIT_IFACE, props, ELEMENTSOF(props), &error);
                if (r < 0 || !props[0].seen)
                        return 0;
        }
        return w->fn(w->unit, active, sub, w->userdata);
}

int unit_watch(sd_bus *bus, const char *unit, unit_watch_fn fn, void *userdata, sd_bus_slot **ret_slot,
        struct strbuf *err) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        struct watch *w;
        int r;

        /* without a subscriber the manager sends no PropertiesChanged on the bus; a
         * connection may subscribe more than once (tracked per connection) */
        r = manager_call(bus, "Subscribe", deadline_after(UNIT_CALL_TIMEOUT_USEC), &error, NULL, NULL, NULL);
        if (r < 0 && !sd_bus_error_has_name(&error, "org.freedesktop.systemd1.AlreadySubscribed"))
                return fail(err, unit, "watch", &error, r);

        w = xcalloc(1, sizeof(*w));
        w->unit = xstrdup(unit);
        w->fn = fn;
        w->userdata = userdata;
        r = sd_bus_path_encode(SD_UNIT_PREFIX, unit, &w->path);
        if (r < 0) {
                watch_free(w);
                return fail(err, unit, "watch", NULL, r);
        }
        r = sd_bus_match_signal(bus, &slot, SD_DEST, w->path, "org.freedesktop.DBus.Properties",
                "PropertiesChanged", on_properties_changed, w);
        if (r < 0) {
                watch_free(w);
                return fail(err, unit, "watch", NULL, r);
        }
        /* from here the slot owns w */
        sd_bus_slot_set_destroy_callback(slot, watch_free);
        *ret_slot = TAKE_PTR(slot);
        return 0;
}

static bool valid_component(const char *s) {
        return !isempty(s) && !strchr(s, '/') && !streq(s, ".") && !streq(s, "..");
}

static int dropin_path(
        const char *root, const char *unit, const char *name, char **ret_dir, char **ret_path) {
        size_t rl;
        size_t nl = strlen(name ? name : "");
        if (!valid_component(unit) || !valid_component(name))
                return -EINVAL;
        root = strempty(root);
        rl = strlen(root);
        while (rl > 0 && root[rl - 1] == '/')
                rl--;
        bool has_conf = nl > 5 && streq(name + nl - 5, ".conf");
        char *dir = xasprintf("%.*s/etc/systemd/system/%s.d", (int) rl, root, unit);
        *ret_path = xasprintf("%s/%s%s", dir, name, has_conf ? "" : ".conf");
        *ret_dir = dir;
        return 0;
}

int unit_install_dropin(
        const char *root, const char *unit, const char *name, const char *content, struct strbuf *err) {
        _cleanup_free_ char *dir = NULL, *path = NULL;
        int r = dropin_path(root, unit, name, &dir, &path);
        if (r < 0) {
                if (err)
                        strbuf_addf(err, "drop-in \"%s\" of unit \"%s\": invalid name", strempty(name),
                                strempty(unit));
                return r;
        }
        r = mkdir_p(dir, 0755);
        if (r >= 0)
                r = write_file_atomic_if_changed(
                        path, content, strlen(content), 0644, (uid_t) -1, (gid_t) -1);
        if (r < 0 && err)
                strbuf_addf(err, "drop-in \"%s\": %s", path, strerror(-r));
        return r;
}

int unit_remove_dropin(const char *root, const char *unit, const char *name, struct strbuf *err) {
        _cleanup_free_ char *dir = NULL, *path = NULL;
        int r = dropin_path(root, unit, name, &dir, &path);
        if (r < 0) {
                if (err)
                        strbuf_addf(err, "drop-in \"%s\" of unit \"%s\": invalid name", strempty(name),
                                strempty(unit));
                return r;
        }
        if (unlink(path) < 0) {
                if (errno == ENOENT)
                        return 0;
                r = -errno;
                if (err)
                        strbuf_addf(err, "drop-in \"%s\": %s", path, strerror(-r));
                return r;
        }
        return 1;
}
