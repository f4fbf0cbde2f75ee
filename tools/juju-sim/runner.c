/* SPDX-License-Identifier: Apache-2.0 */
/* The hook runner: environment, spawn through the unit's machine, the tool socket served while
 * the hook runs (poll on the socket, a pidfd and the output pipes), commit on exit 0, debug-log. */
#include "util/macro.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "runner.h"
#include "simmachine.h"
#include "yamljson.h"
#include "util/alloc.h"
#include "util/strv.h"
#include "util/banned.h"

#define JUJU_SIM_VERSION "3.4.2"
#define TOOL_REQUEST_MAX (16u * 1024 * 1024)

/* Juju's hook retry (model config automatically-retry-hooks): a failed hook runs again after
 * 5 s, then twice as long each time up to 5 min, then every 5 min (apiserver retrystrategy:
 * MinRetryTime, RetryTimeFactor 2, MaxRetryTime; Juju adds jitter, juju-sim does not). The
 * time is wall-clock: it outlives the juju-sim command that saw the failure. */
#define RETRY_MIN_MS 5000
#define RETRY_MAX_MS (5 * 60 * 1000)

static int64_t wall_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t runner_retry_delay_ms(unsigned failures) {
        int64_t d = RETRY_MIN_MS;
        for (unsigned i = 1; i < failures && d < RETRY_MAX_MS; i++)
                d *= 2;
        return d < RETRY_MAX_MS ? d : RETRY_MAX_MS;
}

static int listen_socket(const char *path, struct strbuf *err) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(path) >= sizeof(sa.sun_path)) {
                strbuf_addf(err, "socket path \"%s\" too long", path);
                return -ENAMETOOLONG;
        }
        memcpy(sa.sun_path, path, strlen(path) + 1);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        (void) unlink(path); /* stale from a killed juju-sim: we hold the model or the machine lock */
        /* 0600 from the start: hook tools run as root; a machine's other users see the model dir */
        mode_t old_umask = umask(0177);
        int b = bind(fd, (struct sockaddr *) &sa, sizeof(sa));
        umask(old_umask);
        if (b < 0 || listen(fd, 64) < 0) {
                int e = -errno;
                strbuf_addf(err, "socket \"%s\": %s", path, strerror(errno));
                close(fd);
                return e;
        }
        return fd;
}

static void write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return;
                }
                p += w;
                n -= (size_t) w;
        }
}

/* One tool call: read the request to EOF, run the tool, answer. */
static void serve_one(struct hookctx *ctx, int lfd) {
        _cleanup_close_ int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
                return;
        struct timeval tv = { .tv_sec = 30 };
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        (void) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        _cleanup_strbuf_ struct strbuf req = STRBUF_INIT, out = STRBUF_INIT, errout = STRBUF_INIT;
        for (;;) {
                strbuf_grow(&req, 8192);
                ssize_t n = read(fd, req.buf + req.len, req.alloc - req.len - 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                strbuf_setlen(&req, req.len + (size_t) n);
                if (req.len > TOOL_REQUEST_MAX)
                        return;
        }
        _cleanup_json_ cJSON *j = cJSON_Parse(req.buf);
        _cleanup_free_ char *output = NULL;
        int code;
        const cJSON *argv = jget(j, "argv");
        if (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) < 1) {
                strbuf_addstr(&errout, "ERROR bad request\n");
                code = 1;
        } else if (!streq_ptr(jstr(j, "context"), ctx->id)) {
                strbuf_addf(&errout, "ERROR bad context id \"%s\": no such hook is running\n",
                        strempty(jstr(j, "context")));
                code = 1;
        } else {
                _cleanup_strv_ struct strv av = STRV_INIT;
                const cJSON *a;
                cJSON_ArrayForEach(a, argv) strv_push(&av, cJSON_IsString(a) ? a->valuestring : "");
                ctx->tool_calls++;
                code = hooktool_run(ctx, av.v, jget(j, "file") ? jstr(j, "file") : NULL, jget(j, "files"),
                        &out, &errout, &output);
        }
        _cleanup_json_ cJSON *rep = cJSON_CreateObject();
        if (output)
                jset_str(rep, "output", output);
        jset_num(rep, "code", code);
        jset_str(rep, "stdout", out.buf);
        jset_str(rep, "stderr", errout.buf);
        _cleanup_free_ char *s = cJSON_PrintUnformatted(rep);
        write_all(fd, s, strlen(s));
}

static void drain(int *fd, struct strbuf *sb, bool nonblock_until_empty) {
        char buf[8192];
        for (;;) {
                ssize_t n = read(*fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN && nonblock_until_empty)
                        return;
                if (n <= 0) {
                        close(*fd);
                        *fd = -1;
                        return;
                }
                if (sb->len < 1024 * 1024)
                        strbuf_add(sb, buf, (size_t) n);
                if (!nonblock_until_empty)
                        return;
        }
}

struct run_result {
        int status; /* exit status, or 128+signal */
        int64_t duration_ms;
        long maxrss_kb;
        struct strbuf output; /* stdout and stderr, when captured */
};

/* Spawns argv in the unit's machine with envp and serves tool calls until it exits. capture:
 * stdout/stderr to r->output, else the caller's 0/1/2 are the child's. */
static int run_process(struct hookctx *ctx, const cJSON *machine, char *const *argv, char *const *envp,
        const char *cwd, bool capture, int64_t deadline_ms, struct run_result *res, struct strbuf *err) {
        const char *sock = ctx->sock;
        _cleanup_close_ int lfd = listen_socket(sock, err);
        if (lfd < 0)
                return lfd;
        int outp[2] = { -1, -1 };
        if (capture && pipe2(outp, O_CLOEXEC) < 0)
                return -errno;
        _cleanup_close_ int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int64_t start = now_ms();
        pid_t pid;
        int r = sim_machine_spawn(ctx->m, machine, argv, envp, cwd, capture ? nullfd : 0,
                capture ? outp[1] : 1, capture ? outp[1] : 2, &pid);
        if (capture)
                close(outp[1]);
        if (r < 0) {
                if (capture)
                        close(outp[0]);
                strbuf_addf(err, "cannot run \"%s\": %s", argv[0], strerror(-r));
                return r;
        }
        int outfd = capture ? outp[0] : -1;
        if (outfd >= 0)
                (void) fcntl(outfd, F_SETFL, O_NONBLOCK);
        _cleanup_close_ int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        bool exited = false, killed = false;
        int wstatus = 0;
        struct rusage ru = {};
        while (!exited) {
                struct pollfd p[3] = {
                        { .fd = lfd, .events = POLLIN },
                        { .fd = pidfd, .events = POLLIN },
                        { .fd = outfd, .events = POLLIN },
                };
                int timeout = 200;
                if (deadline_ms > 0) {
                        int64_t left = deadline_ms - now_ms();
                        if (left <= 0 && !killed) {
                                (void) kill(-pid, SIGKILL);
                                (void) kill(pid, SIGKILL);
                                killed = true;
                        }
                        if (left > 0 && left < timeout)
                                timeout = (int) left;
                }
                int n = poll(p, 3, pidfd >= 0 ? timeout : 10);
                if (n < 0 && errno != EINTR)
                        break;
                if (p[0].revents & POLLIN)
                        serve_one(ctx, lfd);
                if (outfd >= 0 && (p[2].revents & (POLLIN | POLLHUP)))
                        drain(&outfd, &res->output, true);
                if (pidfd < 0 || (p[1].revents & POLLIN)) {
                        pid_t w = wait4(pid, &wstatus, pidfd < 0 ? WNOHANG : 0, &ru);
                        if (w == pid)
                                exited = true;
                }
        }
        /* Output written before the exit; a daemon left holding the pipe is not waited for. */
        if (outfd >= 0) {
                drain(&outfd, &res->output, true);
                if (outfd >= 0)
                        close(outfd);
        }
        res->duration_ms = now_ms() - start;
        res->maxrss_kb = ru.ru_maxrss;
        res->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        (void) unlink(sock);
        if (killed) {
                strbuf_addf(err, "\"%s\" killed: deadline reached", argv[0]);
                res->status = 128 + SIGKILL;
        }
        return 0;
}

static void env_add(struct strv *env, const char *k, const char *v) {
        strv_pushf(env, "%s=%s", k, strempty(v));
}

static void build_env(struct hookctx *ctx, const char *charm_dir, const char *dispatch_path, const cJSON *ev,
        struct strv *env) {
        const cJSON *st = ctx->m->state;
        const cJSON *model = jget(st, "model");
        const cJSON *u = state_unit(st, ctx->unit);
        _cleanup_free_ char *tools = model_tools_dir(ctx->m);
        strv_pushf(env, "PATH=%s:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", tools);
        env_add(env, "LANG", "C.UTF-8");
        env_add(env, "DEBIAN_FRONTEND", "noninteractive");
        env_add(env, "JUJU_CHARM_DIR", charm_dir);
        env_add(env, "CHARM_DIR", charm_dir);
        env_add(env, "JUJU_UNIT_NAME", ctx->unit);
        env_add(env, "JUJU_MODEL_NAME", jstr(model, "name"));
        env_add(env, "JUJU_MODEL_UUID", jstr(model, "uuid"));
        env_add(env, "JUJU_MACHINE_ID", jstr(u, "machine"));
        env_add(env, "JUJU_VERSION", JUJU_SIM_VERSION);
        env_add(env, "JUJU_CONTEXT_ID", ctx->id);
        env_add(env, "JUJU_AGENT_SOCKET_ADDRESS", ctx->sock);
        env_add(env, "JUJU_AGENT_SOCKET_NETWORK", "unix");
        /* HookContext.HookVars exports these always, empty where there is nothing to say */
        env_add(env, "JUJU_HOOK_NAME", ctx->hook);
        /* the principal's name in a subordinate's hooks, empty for a principal (contextfactory) */
        env_add(env, "JUJU_PRINCIPAL_UNIT", strempty(jstr(u, "principal")));
        static const char *const empty[] = { "JUJU_API_ADDRESSES",
                "JUJU_AVAILABILITY_ZONE", "CLOUD_API_VERSION", "JUJU_CHARM_HTTP_PROXY",
                "JUJU_CHARM_HTTPS_PROXY", "JUJU_CHARM_FTP_PROXY", "JUJU_CHARM_NO_PROXY" };
        for (size_t i = 0; i < ELEMENTSOF(empty); i++)
                env_add(env, empty[i], "");
        env_add(env, "JUJU_SLA", "unsupported");
        if (dispatch_path)
                env_add(env, "JUJU_DISPATCH_PATH", dispatch_path);
        if (ctx->relation_id >= 0) {
                const cJSON *rel = state_relation(st, ctx->relation_id);
                const char *ep = jstr(rel_endpoint(rel, ctx->app), "endpoint");
                env_add(env, "JUJU_RELATION", ep);
                strv_pushf(env, "JUJU_RELATION_ID=%s:%ld", strempty(ep), ctx->relation_id);
                env_add(env, "JUJU_REMOTE_APP", ctx->remote_app);
                env_add(env, "JUJU_REMOTE_UNIT", ctx->remote_unit);
                if (jstr(ev, "departing-unit"))
                        env_add(env, "JUJU_DEPARTING_UNIT", jstr(ev, "departing-unit"));
        }
        if (ctx->is_action) {
                env_add(env, "JUJU_ACTION_NAME", ctx->action_name);
                env_add(env, "JUJU_ACTION_UUID", jstr(ev, "action-id"));
                strv_pushf(env, "JUJU_ACTION_TAG=action-%s", strempty(jstr(ev, "action-id")));
        }
        if (jstr(ev, "secret")) {
                env_add(env, "JUJU_SECRET_ID", jstr(ev, "secret"));
                env_add(env, "JUJU_SECRET_LABEL", jstr(ev, "label"));
                if (jnum(ev, "revision", 0) > 0)
                        strv_pushf(env, "JUJU_SECRET_REVISION=%d", (int) jnum(ev, "revision", 0));
        }
}

/* concurrent: the model lock is taken only briefly (runner.h); the context gets a socket of its
 * own, and nothing of it points into m->state (reloaded while the process runs). */
static void ctx_init(struct hookctx *ctx, struct model *m, const char *unit, bool concurrent) {
        *ctx = (struct hookctx){
                .m = m, .unit = unit, .relation_id = -1, .concurrent = concurrent, .serial_mfd = -1
        };
        ctx->app = ctx->app_owned = xstrdup(strempty(unit_app(m->state, unit)));
        long n = (long) jnum(jget(m->state, "counters"), "context", 0);
        jset_num(jobj(m->state, "counters"), "context", (double) (n + 1));
        ctx->id = xasprintf("%s-%ld", unit, n);
        ctx->sock = concurrent ? xasprintf("%s/agent-%ld.sock", m->dir, n) : model_socket_path(m);
        ctx->logs = cJSON_CreateArray();
}

static void ctx_clear(struct hookctx *ctx) {
        closep(&ctx->serial_mfd);
        free(ctx->id);
        free(ctx->sock);
        free(ctx->app_owned);
        cJSON_Delete(ctx->base);
        cJSON_Delete(ctx->logs);
        cJSON_Delete(ctx->work);
        cJSON_Delete(ctx->action_results);
        cJSON_Delete(ctx->action_log);
        free(ctx->action_message);
        *ctx = (struct hookctx){ .serial_mfd = -1 };
}

static void debug_log(struct model *m, struct hookctx *ctx, const char *what, const char *status,
        const struct run_result *res, const cJSON *ev) {
        _cleanup_json_ cJSON *rec = cJSON_CreateObject();
        char ts[64];
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        struct tm tm;
        gmtime_r(&now.tv_sec, &tm);
        strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
        char full[96];
        snprintf(full, sizeof(full), "%s.%03ldZ", ts, now.tv_nsec / 1000000);
        jset_str(rec, "time", full);
        jset_str(rec, "unit", ctx->unit);
        jset_str(rec, "hook", what);
        jset_str(rec, "status", status);
        jset_str(rec, "context", ctx->id);
        if (ctx->relation_id >= 0) {
                jset_num(rec, "relation", (double) ctx->relation_id);
                jset_str(rec, "remote-unit", ctx->remote_unit);
                if (jstr(ev, "departing-unit"))
                        jset_str(rec, "departing-unit", jstr(ev, "departing-unit"));
        }
        if (res) {
                jset_num(rec, "rc", res->status);
                jset_num(rec, "duration-ms", (double) res->duration_ms);
                jset_num(rec, "maxrss-kb", (double) res->maxrss_kb);
                jset_str(rec, "output", res->output.buf);
        }
        jset_num(rec, "tool-calls", ctx->tool_calls);
        jset(rec, "log", cJSON_Duplicate(ctx->logs, true));
        _cleanup_free_ char *s = cJSON_PrintUnformatted(rec);
        _cleanup_free_ char *p = xasprintf("%s/debug-log.jsonl", m->dir);
        _cleanup_close_ int fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return;
        _cleanup_free_ char *line = xasprintf("%s\n", s);
        write_all(fd, line, strlen(line));
}

/* The executable for hook/action `name` (dir "hooks" or "actions"): dispatch first. */
static char *find_entry(const char *charm_dir, const char *dir, const char *name) {
        _cleanup_free_ char *d = xasprintf("%s/dispatch", charm_dir);
        struct stat st;
        if (stat(d, &st) == 0 && S_ISREG(st.st_mode) && access(d, X_OK) == 0)
                return TAKE_PTR(d);
        char *h = xasprintf("%s/%s/%s", charm_dir, dir, name);
        if (stat(h, &st) == 0 && S_ISREG(st.st_mode) && access(h, X_OK) == 0)
                return h;
        free(h);
        return NULL;
}

static void set_agent(struct model *m, cJSON *work, const char *unit, const char *agent) {
        cJSON *u = state_unit(m->state, unit), *wu = state_unit(work, unit);
        unit_agent_set(u, agent);
        if (wu) {
                jset_str(wu, "agent", agent);
                jset_str(wu, "agent-since", jstr(u, "agent-since"));
        }
}

/* --- concurrent mode's locking (runner.h) ------------------------------------------------ */

/* The unit's machine id (it never changes), copied. NULL when the unit is not in m->state. */
static char *unit_machine(const struct model *m, const char *unit) {
        const cJSON *u = state_unit(m->state, unit);
        return u ? xstrdup(strempty(jstr(u, "machine"))) : NULL;
}

/* Seconds left before deadline_ms (CLOCK_MONOTONIC; 0: none), at least 1, at most the runner's
 * lock timeout. */
static int lock_timeout(int64_t deadline_ms) {
        if (deadline_ms <= 0)
                return RUNNER_LOCK_TIMEOUT_SEC;
        int64_t left = (deadline_ms - now_ms() + 999) / 1000;
        return left < 1 ? 1 : left > RUNNER_LOCK_TIMEOUT_SEC ? RUNNER_LOCK_TIMEOUT_SEC : (int) left;
}

/* Takes the unit's machine lock, then the model lock (the state reloaded). */
static int conc_enter(
        struct model *m, const char *unit, int64_t deadline_ms, int *ret_mfd, struct strbuf *err) {
        _cleanup_free_ char *machine = unit_machine(m, unit);
        if (!machine) {
                strbuf_addf(err, "unit \"%s\" not found", unit);
                return -ENOENT;
        }
        _cleanup_close_ int mfd = -1;
        int r = model_machine_lock(m, machine, lock_timeout(deadline_ms), &mfd, err);
        if (r < 0)
                return r;
        r = model_lock(m, lock_timeout(deadline_ms), err);
        if (r < 0)
                return r;
        model_machine_clear_stale(m, machine);
        *ret_mfd = TAKE_FD(mfd);
        return 0;
}

/* The process is about to start: its context is recorded on its unit (a killed one is undone at
 * the next load, model.h), its view (work) and its origin (base) are taken, what was prepared is
 * saved and the model lock released. */
static int conc_started(struct hookctx *ctx, struct strbuf *err) {
        jset_str(state_unit(ctx->m->state, ctx->unit), "context", ctx->id);
        ctx->work = cJSON_Duplicate(ctx->m->state, true);
        ctx->base = cJSON_Duplicate(ctx->m->state, true);
        int r = model_save(ctx->m, err);
        model_unlock(ctx->m);
        return r;
}

/* The model lock again after the process ended (the state reloaded); its context is forgotten. */
static int conc_relock(struct hookctx *ctx, struct strbuf *err) {
        int r = model_lock(ctx->m, RUNNER_LOCK_TIMEOUT_SEC, err);
        if (r < 0)
                return r;
        cJSON *u = state_unit(ctx->m->state, ctx->unit);
        if (streq_ptr(jstr(u, "context"), ctx->id))
                cJSON_DeleteItemFromObjectCaseSensitive(u, "context");
        return 0;
}

/* Saves and releases the model lock. */
static int conc_done(struct model *m, struct strbuf *err) {
        int r = model_save(m, err);
        model_unlock(m);
        return r;
}

/* The end of what a process of unit did under its machine lock (committed, or not): a
 * leadership handover its unit's removal deferred happens (model.h), then conc_done. */
static int conc_end(struct model *m, const char *unit, struct strbuf *err) {
        model_leader_handover(m->state, unit);
        return conc_done(m, err);
}

/* Serial mode (the caller holds the model lock): when the unit's machine runs a process of a
 * concurrent verb now (model.h: its lock is held; it began before hook-concurrency was set to
 * serial), the model lock is let go until that machine's lock is ours (*ret_mfd), as the lock
 * order wants; else nothing is taken. */
static int serial_machine_gate(struct model *m, const char *unit, int *ret_mfd, struct strbuf *err) {
        _cleanup_free_ char *machine = unit_machine(m, unit);
        if (!machine || !model_machine_busy(m, machine))
                return 0;
        model_unlock(m);
        _cleanup_close_ int mfd = -1;
        int r = model_machine_lock(m, machine, RUNNER_LOCK_TIMEOUT_SEC, &mfd, err);
        if (r >= 0)
                r = model_lock(m, RUNNER_LOCK_TIMEOUT_SEC, err);
        if (r < 0)
                return r;
        *ret_mfd = TAKE_FD(mfd);
        return 0;
}

/* The start of an action or exec: concurrent mode takes the unit's machine lock (*ret_mfd) and
 * the model lock (the caller holds none); serial mode keeps off a machine whose lock another
 * holds (serial_machine_gate); the unit must exist (-ENOENT, unlocked); *ret_ctx is its new
 * context. */
static int process_enter(
        struct model *m, const char *unit, struct hookctx *ret_ctx, int *ret_mfd, struct strbuf *err) {
        bool conc = m->concurrent;
        int r = conc ? conc_enter(m, unit, 0, ret_mfd, err) : serial_machine_gate(m, unit, ret_mfd, err);
        if (r < 0)
                return r;
        if (!state_unit(m->state, unit)) { /* (concurrent: removed while we waited) */
                strbuf_addf(err, "unit \"%s\" not found", unit);
                if (conc)
                        model_unlock(m);
                return -ENOENT;
        }
        ctx_init(ret_ctx, m, unit, conc);
        return 0;
}

/* Serial mode, the process is about to start: its machine's lock is taken (when the caller
 * holds it already, machine_locked, nothing more is needed: the machine is busy) and what was
 * prepared is saved ("executing", the event's effects before its hook), so that `status` shows
 * the process as it runs and its immediate writes at once, as concurrent mode does
 * (hookctx_state_begin). A killed process leaves its unit executing under a free lock: undone
 * at the next load (clear_stale), its event still queued. When the lock cannot be had at once
 * (a concurrent process began there meanwhile: it waits for the model lock we hold), nothing is
 * saved before the hook's end, as before. */
static int serial_started(struct hookctx *ctx, bool machine_locked, struct strbuf *err) {
        if (!machine_locked) {
                _cleanup_free_ char *machine = unit_machine(ctx->m, ctx->unit);
                _cleanup_strbuf_ struct strbuf lerr = STRBUF_INIT;
                if (!machine || model_machine_lock(ctx->m, machine, 0, &ctx->serial_mfd, &lerr) < 0)
                        return 0;
        }
        ctx->serial_saves = true;
        return model_save(ctx->m, err);
}

/* The process is about to start: its view of the state (work) is taken; concurrent mode saves
 * what was prepared and releases the model lock (conc_started), serial mode saves it under the
 * machine's lock (serial_started; machine_locked: the caller holds that lock already). */
static int process_start(struct hookctx *ctx, bool machine_locked, struct strbuf *err) {
        if (ctx->concurrent)
                return conc_started(ctx, err);
        ctx->work = cJSON_Duplicate(ctx->m->state, true);
        return serial_started(ctx, machine_locked, err);
}

/* The process ended: concurrent mode takes the model lock again (the state reloaded). */
static int process_end(struct hookctx *ctx, struct strbuf *err) {
        return ctx->concurrent ? conc_relock(ctx, err) : 0;
}

/* A failed hook: the unit in error, its automatic retry scheduled. */
static void unit_hook_failed(
        struct model *m, cJSON *uu, const char *unit, const char *hook, struct strbuf *err) {
        unit_agent_set(uu, "error");
        /* the head is the failed hook: it runs again first (resolve, a retry), as Juju's
         * localState.Hook does, never reordered or dropped meanwhile (model.h) */
        cJSON *head = jget(uu, "queue") ? jget(uu, "queue")->child : NULL;
        if (head && !jget(head, "failed"))
                cJSON_AddItemToObject(head, "failed", cJSON_CreateTrue());
        _cleanup_free_ char *msg = xasprintf("hook failed: \"%s\"", hook);
        jset_str(uu, "error", msg);
        jset(uu, "workload-before-error", cJSON_Duplicate(jobj(uu, "workload"), true));
        status_record_set(jobj(uu, "workload"), "error", msg);
        strbuf_addf(err, "unit \"%s\": %s", unit, msg);
        if (model_retry_hooks(m->state)) {
                unsigned n = (unsigned) jnum(uu, "retry-count", 0) + 1;
                jset_num(uu, "retry-count", n);
                jset_num(uu, "retry-at", (double) (wall_ms() + runner_retry_delay_ms(n)));
        }
}

/* A successful process's writes land: serial, its view replaces the state; concurrent, they
 * are merged into the state as it is now (model_commit_merge). False when the unit is gone. */
static bool hook_commit(struct hookctx *ctx, const char *unit) {
        if (ctx->concurrent)
                return model_commit_merge(ctx->m, ctx->base, ctx->work, unit);
        model_commit(ctx->m, TAKE_PTR(ctx->work), unit);
        return true;
}

/* Drops the event that ran (or was skipped) from the unit's queue: its head (serial), or the
 * first equal event (concurrent: the queue may have changed meanwhile, never before it). */
static void queue_done(struct model *m, const char *unit, const cJSON *ev, bool concurrent) {
        cJSON *uu = state_unit(m->state, unit);
        if (concurrent)
                model_unit_queue_pop(uu, ev);
        else
                cJSON_DeleteItemFromArray(jget(uu, "queue"), 0);
}

int runner_run_event(struct model *m, const char *unit_name, int64_t deadline_ms, struct strbuf *err) {
        _cleanup_free_ char *unit = xstrdup(unit_name);
        bool conc = m->concurrent;
        _cleanup_close_ int mfd = -1;
        if (conc) {
                int r = conc_enter(m, unit, deadline_ms, &mfd, err);
                if (r == -ENOENT)
                        return 0; /* removed meanwhile: nothing to run */
                if (r < 0)
                        return r;
        }
        cJSON *u = state_unit(m->state, unit);
        cJSON *q = jget(u, "queue");
        if (!u || !q || !q->child || (conc && jget(u, "error")))
                return conc ? conc_end(m, unit, err) : 0;
        model_unit_queue_sort_joins(u);
        _cleanup_json_ cJSON *ev = cJSON_Duplicate(q->child, true);
        if (!model_event_runnable(m->state, unit, ev)) {
                cJSON_DeleteItemFromArray(q, 0);
                return conc ? conc_end(m, unit, err) : 0;
        }
        model_event_pre(m->state, unit, ev);
        struct hookctx ctx;
        ctx_init(&ctx, m, unit, conc);
        ctx.hook = jstr(ev, "hook");
        ctx.kind = jstr(ev, "kind");
        if (jget(ev, "relation")) {
                ctx.relation_id = (long) jnum(ev, "relation", -1);
                ctx.remote_unit = jstr(ev, "remote-unit");
                ctx.remote_app = jstr(ev, "remote-app");
        }
        const cJSON *app = state_app(m->state, ctx.app);
        _cleanup_free_ char *charm_dir = xstrdup(strempty(jstr(app, "charm-dir")));
        _cleanup_free_ char *entry = find_entry(charm_dir, "hooks", ctx.hook);
        int ret = 0;
        if (!entry) {
                debug_log(m, &ctx, ctx.hook, "skipped", NULL, ev);
                queue_done(m, unit, ev, conc);
                model_event_post(m, unit, ev, true);
                ctx_clear(&ctx);
                return conc ? conc_end(m, unit, err) : 0;
        }
        _cleanup_free_ char *dispatch_path = xasprintf("hooks/%s", ctx.hook);
        _cleanup_strv_ struct strv env = STRV_INIT;
        build_env(&ctx, charm_dir, dispatch_path, ev, &env);
        set_agent(m, NULL, unit, "executing");
        _cleanup_json_ cJSON *machine = cJSON_Duplicate(state_machine(m->state, jstr(u, "machine")), true);
        int r = process_start(&ctx, false, err);
        if (r < 0) {
                ctx_clear(&ctx);
                return r;
        }
        struct run_result res = { .output = STRBUF_INIT };
        char *argv[] = { entry, NULL };
        _cleanup_strbuf_ struct strbuf rerr = STRBUF_INIT;
        r = run_process(&ctx, machine, argv, env.v, charm_dir, true, deadline_ms, &res, &rerr);
        if (r < 0) {
                res.status = 127;
                strbuf_addf(&res.output, "juju-sim: %s\n", rerr.buf);
        } else if (rerr.len)
                strbuf_addf(&res.output, "juju-sim: %s\n", rerr.buf);
        bool ok = res.status == 0;
        r = process_end(&ctx, err);
        if (r < 0) {
                strbuf_release(&res.output);
                ctx_clear(&ctx);
                return r;
        }
        debug_log(m, &ctx, ctx.hook, ok ? "ok" : "failed", &res, ev);
        bool present = true;
        if (ok) {
                present = hook_commit(&ctx, unit);
                if (present) {
                        set_agent(m, NULL, unit, "idle");
                        queue_done(m, unit, ev, conc);
                        model_unit_retry_clear(state_unit(m->state, unit));
                }
        } else {
                cJSON *uu = state_unit(m->state, unit);
                present = uu != NULL;
                if (present)
                        unit_hook_failed(m, uu, unit, ctx.hook, err);
                ret = 1;
        }
        if (present)
                model_event_post(m, unit, ev, ok);
        strbuf_release(&res.output);
        ctx_clear(&ctx);
        if (conc) {
                r = conc_end(m, unit, err);
                if (r < 0)
                        return r;
        }
        return ret;
}

/* The earliest automatic retry of a unit in error (wall-clock ms), or 0 when none is due. */
static int64_t next_retry(const cJSON *state) {
        int64_t next = 0;
        const cJSON *u;
        cJSON_ArrayForEach(u, jget(state, "units")) {
                int64_t at = model_unit_retry_at(state, u);
                if (at > 0 && (next == 0 || at < next))
                        next = at;
        }
        return next;
}

/* The end of a settle: 1 and err naming every unit in error (with its automatic retry), or 0. */
static int settle_report(struct model *m, unsigned hooks, unsigned *ret_hooks, struct strbuf *err) {
        if (ret_hooks)
                *ret_hooks = hooks;
        _cleanup_strv_ struct strv errs = STRV_INIT;
        const cJSON *u;
        int64_t wall = wall_ms();
        cJSON_ArrayForEach(u, jget(m->state, "units")) {
                if (!jstr(u, "error"))
                        continue;
                int64_t at = model_unit_retry_at(m->state, u);
                if (at > 0)
                        strv_pushf(&errs, "unit \"%s\" is in error: %s (automatic retry %u in %lld s)",
                                u->string, jstr(u, "error"), (unsigned) jnum(u, "retry-count", 0),
                                (long long) ((at > wall ? at - wall : 0) + 999) / 1000);
                else
                        strv_pushf(&errs, "unit \"%s\" is in error: %s", u->string, jstr(u, "error"));
        }
        if (errs.n) {
                _cleanup_free_ char *j = strv_join(&errs, "; ");
                strbuf_addstr(err, j);
                return 1;
        }
        return 0;
}

/* Nothing can run: sleeps until the next automatic retry is due. False when none is scheduled
 * or it is not due before the deadline (CLOCK_MONOTONIC ms; 0: none). */
static bool retry_wait(const cJSON *state, int64_t deadline) {
        int64_t at = next_retry(state);
        if (at == 0)
                return false;
        int64_t wait_ms = at - wall_ms();
        if (deadline && now_ms() + (wait_ms > 0 ? wait_ms : 0) >= deadline)
                return false;
        if (wait_ms > 0) {
                struct timespec ts = { .tv_sec = wait_ms / 1000, .tv_nsec = (wait_ms % 1000) * 1000000 };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
        }
        return true;
}

#define RESCAN_MS 250

static int settle_serial(struct model *m, int timeout_sec, unsigned *ret_hooks, struct strbuf *err) {
        int64_t deadline = timeout_sec > 0 ? now_ms() + (int64_t) timeout_sec * 1000 : 0;
        unsigned hooks = 0;
        int r;
        for (unsigned pass = 0;; pass++) {
                bool progress = false;
                _cleanup_strv_ struct strv names = STRV_INIT;
                const cJSON *u;
                cJSON_ArrayForEach(u, jget(m->state, "units")) strv_push(&names, u->string);
                for (size_t i = 0; i < names.n; i++) {
                        cJSON *uu = state_unit(m->state, names.v[i]);
                        int64_t due = uu ? model_unit_retry_at(m->state, uu) : 0;
                        if (due > 0 && due <= wall_ms())
                                /* its automatic retry is due: the failed hook runs again */
                                model_unit_error_clear(uu, true);
                        if (!uu || jget(uu, "error") || !jget(uu, "queue") || !jget(uu, "queue")->child)
                                continue;
                        /* a concurrent verb's process runs on its machine (model.h): maybe its
                         * head; not beside it */
                        if (model_machine_busy(m, jstr(uu, "machine")))
                                continue;
                        if (deadline && now_ms() >= deadline) {
                                strbuf_addf(
                                        err, "wait: timed out after %d s with hooks pending", timeout_sec);
                                if (ret_hooks)
                                        *ret_hooks = hooks;
                                return -ETIME;
                        }
                        _cleanup_strbuf_ struct strbuf herr = STRBUF_INIT;
                        r = runner_run_event(m, names.v[i], deadline, &herr);
                        if (r < 0) {
                                strbuf_addbuf(err, &herr);
                                return r;
                        }
                        hooks++;
                        progress = true;
                        r = model_save(m, err);
                        if (r < 0)
                                return r;
                }
                if (progress)
                        continue;
                /* a concurrent verb's process still runs (model.h): its commit, which needs the
                 * model lock, may queue more; the lock is let go until it has ended */
                _cleanup_free_ char *busy = model_machine_busy_any(m);
                if (busy) {
                        if (deadline && now_ms() >= deadline) {
                                strbuf_addf(err,
                                        "wait: timed out after %d s while machine %s runs a hook, action or "
                                        "exec",
                                        timeout_sec, busy);
                                if (ret_hooks)
                                        *ret_hooks = hooks;
                                return -ETIME;
                        }
                        r = model_save(m, err);
                        if (r < 0)
                                return r;
                        model_unlock(m);
                        usleep(RESCAN_MS * 1000);
                        r = model_lock(m, RUNNER_LOCK_TIMEOUT_SEC, err);
                        if (r < 0)
                                return r;
                        continue;
                }
                /* nothing runnable: time passes until the next automatic retry, within the
                 * deadline (the retry's wait counts against it, as in Juju) */
                if (!retry_wait(m->state, deadline))
                        break;
        }
        return settle_report(m, hooks, ret_hooks, err);
}

/* --- concurrent settle: forked workers, one a machine (runner.h) -------------------------- */

#define WORKER_ERR_MAX 4096

struct worker {
        pid_t pid;
        int fd; /* read end of its error pipe: hung up when it exits */
        char *unit;
        char *machine;
};

static void worker_clear(struct worker *w) {
        if (w->fd >= 0)
                close(w->fd);
        free(w->unit);
        free(w->machine);
        *w = (struct worker){ .fd = -1 };
}

/* The worker: runs one event of unit (runner_run_event takes the locks), reports a failure's text
 * on fd, exits 0 (ran, skipped or nothing to run), 1 (the hook failed) or 3 (could not run it). */
static _noreturn_ void worker_main(struct model *m, const char *unit, int64_t deadline, int fd) {
        model_forget_lock(m); /* the parent's open file description: not ours to lock */
        signal(SIGPIPE, SIG_IGN);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = runner_run_event(m, unit, deadline, &e);
        if (r < 0 && e.len == 0)
                strbuf_addf(&e, "unit \"%s\": %s", unit, strerror(-r));
        if (r < 0)
                write_all(fd, e.buf, e.len < WORKER_ERR_MAX ? e.len : WORKER_ERR_MAX);
        _exit(r < 0 ? 3 : r == 1 ? 1 : 0);
}

static int worker_start(struct model *m, struct worker *ws, size_t nw, const char *unit, const char *machine,
        int64_t deadline, struct worker *ret) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                int e = -errno;
                close(p[0]);
                close(p[1]);
                return e;
        }
        if (pid == 0) {
                /* a worker ends with its wait (and its hook with it: host_spawn) */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(p[0]);
                for (size_t i = 0; i < nw; i++)
                        close(ws[i].fd);
                worker_main(m, unit, deadline, p[1]);
        }
        close(p[1]);
        *ret = (struct worker){ .pid = pid, .fd = p[0], .unit = xstrdup(unit), .machine = xstrdup(machine) };
        return 0;
}

/* Reaps worker w (it hung up its pipe): its exit code (0, 1, 3; 3 too when it died of a signal),
 * what it reported appended to err. */
static int worker_reap(struct worker *w, struct strbuf *err) {
        char buf[WORKER_ERR_MAX];
        ssize_t n;
        while ((n = read(w->fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
                if (n > 0)
                        strbuf_add(err, buf, (size_t) n);
        int st = 0;
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
                ;
        if (WIFSIGNALED(st)) {
                strbuf_addf(err, "unit \"%s\": the hook worker died of signal %d", w->unit, WTERMSIG(st));
                return 3;
        }
        return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

static bool worker_busy(const struct worker *ws, size_t nw, const char *unit, const char *machine) {
        for (size_t i = 0; i < nw; i++)
                if (streq(ws[i].unit, unit) || streq(ws[i].machine, machine))
                        return true;
        return false;
}

/* Under the model lock: units whose automatic retry is due leave the error state (their failed
 * hook runs again); *ret_units: those with events to run and no error, in the model's order. */
static int settle_scan(
        struct model *m, struct strv *ret_units, struct strv *ret_machines, struct strbuf *err) {
        int r = model_lock(m, RUNNER_LOCK_TIMEOUT_SEC, err);
        if (r < 0)
                return r;
        bool changed = false;
        cJSON *u;
        cJSON_ArrayForEach(u, jget(m->state, "units")) {
                int64_t due = model_unit_retry_at(m->state, u);
                if (due > 0 && due <= wall_ms()) {
                        model_unit_error_clear(u, true);
                        changed = true;
                }
                if (jget(u, "error") || !jget(u, "queue") || !jget(u, "queue")->child)
                        continue;
                strv_push(ret_units, u->string);
                strv_push(ret_machines, strempty(jstr(u, "machine")));
        }
        r = changed ? model_save(m, err) : 0;
        model_unlock(m);
        return r;
}

static int settle_concurrent(struct model *m, int timeout_sec, unsigned *ret_hooks, struct strbuf *err) {
        int64_t deadline = timeout_sec > 0 ? now_ms() + (int64_t) timeout_sec * 1000 : 0;
        struct worker ws[HOOK_WORKERS_MAX];
        size_t nw = 0, cursor = 0;
        unsigned hooks = 0;
        int ret = 0;
        bool stop = false, timed_out = false;
        _cleanup_free_ char *busy = NULL; /* the machine a timed-out wait waited for */
        _cleanup_strbuf_ struct strbuf werr = STRBUF_INIT;
        for (;;) {
                _cleanup_strv_ struct strv units = STRV_INIT, machines = STRV_INIT;
                free(busy);
                busy = NULL;
                if (!stop) {
                        int r = settle_scan(m, &units, &machines, err);
                        if (r < 0) {
                                ret = r;
                                stop = true;
                        }
                }
                if (!stop && units.n > 0 && deadline && now_ms() >= deadline) {
                        timed_out = stop = true;
                }
                unsigned limit = model_hook_workers(m->state);
                if (limit == 0)
                        limit = 1; /* switched to serial meanwhile: finish one at a time */
                /* start workers, taking units in turn from the one after the last started */
                size_t next = cursor;
                for (size_t k = 0; !stop && k < units.n && nw < limit; k++) {
                        size_t i = (cursor + k) % units.n;
                        if (worker_busy(ws, nw, units.v[i], machines.v[i]))
                                continue;
                        int r = worker_start(m, ws, nw, units.v[i], machines.v[i], deadline, &ws[nw]);
                        if (r < 0) {
                                strbuf_addf(err, "wait: cannot start a hook worker: %s", strerror(-r));
                                ret = r;
                                stop = true;
                                break;
                        }
                        nw++;
                        next = i + 1;
                }
                cursor = next;
                if (nw == 0) {
                        if (stop)
                                break;
                        if (units.n > 0)
                                continue; /* (not reached: a free worker takes one) */
                        /* an exec, run or another wait's hook in flight (its machine's lock
                         * held): its commit may queue more, so it is waited for */
                        busy = model_machine_busy_any(m);
                        if (busy) {
                                if (deadline && now_ms() >= deadline) {
                                        timed_out = true;
                                        break;
                                }
                                usleep(RESCAN_MS * 1000);
                                continue;
                        }
                        /* nothing runnable: time passes until the next automatic retry, within
                         * the deadline (as settle_serial) */
                        if (!retry_wait(m->state, deadline))
                                break;
                        continue;
                }
                /* a worker ends, or the state is read again (events queued meanwhile) */
                struct pollfd pfds[HOOK_WORKERS_MAX];
                for (size_t i = 0; i < nw; i++)
                        pfds[i] = (struct pollfd){ .fd = ws[i].fd, .events = POLLIN };
                int n = poll(pfds, nw, stop ? -1 : RESCAN_MS);
                if (n < 0 && errno != EINTR) {
                        ret = -errno;
                        stop = true;
                }
                for (size_t i = nw; n > 0 && i-- > 0;) {
                        if (!(pfds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                                continue;
                        int code = worker_reap(&ws[i], &werr);
                        if (code == 0 || code == 1)
                                hooks++;
                        else if (code == 3 && ret == 0) {
                                ret = -EIO;
                                stop = true;
                        }
                        worker_clear(&ws[i]);
                        ws[i] = ws[nw - 1];
                        ws[nw - 1] = (struct worker){ .fd = -1 };
                        nw--;
                }
        }
        if (ret < 0) {
                if (werr.len)
                        strbuf_addbuf(err, &werr);
                if (ret_hooks)
                        *ret_hooks = hooks;
                return ret;
        }
        if (timed_out) {
                if (busy)
                        strbuf_addf(err,
                                "wait: timed out after %d s while machine %s runs a hook, action or exec",
                                timeout_sec, busy);
                else
                        strbuf_addf(err, "wait: timed out after %d s with hooks pending", timeout_sec);
                if (ret_hooks)
                        *ret_hooks = hooks;
                return -ETIME;
        }
        int r = model_lock(m, RUNNER_LOCK_TIMEOUT_SEC, err);
        if (r < 0)
                return r;
        model_unlock(m);
        return settle_report(m, hooks, ret_hooks, err);
}

int runner_settle(struct model *m, int timeout_sec, unsigned *ret_hooks, struct strbuf *err) {
        if (m->concurrent)
                return settle_concurrent(m, timeout_sec, ret_hooks, err);
        return settle_serial(m, timeout_sec, ret_hooks, err);
}

int runner_run_action(struct model *m, const char *unit, const char *action, cJSON *params,
        cJSON **ret_result, struct strbuf *err) {
        struct hookctx ctx;
        _cleanup_close_ int mfd = -1;
        int r = process_enter(m, unit, &ctx, &mfd, err);
        if (r < 0)
                return r;
        bool conc = ctx.concurrent;
        cJSON *u = state_unit(m->state, unit);
        ctx.is_action = true;
        ctx.action_name = action;
        ctx.action_params = params;
        ctx.action_results = cJSON_CreateObject();
        ctx.action_log = cJSON_CreateArray();
        long aid = (long) jnum(jget(m->state, "counters"), "action", 0) + 1;
        jset_num(jobj(m->state, "counters"), "action", (double) aid);
        _cleanup_json_ cJSON *ev = event_new("action");
        char ids[32];
        snprintf(ids, sizeof(ids), "%ld", aid);
        jset_str(ev, "action-id", ids);
        _cleanup_free_ char *charm_dir = xstrdup(strempty(jstr(state_app(m->state, ctx.app), "charm-dir")));
        _cleanup_free_ char *entry = find_entry(charm_dir, "actions", action);
        _cleanup_json_ cJSON *result = cJSON_CreateObject();
        jset_str(result, "id", ids);
        jset_str(result, "unit", unit);
        cJSON *timing = jobj(result, "timing");
        jset_num(timing, "enqueued", (double) time(NULL));
        jset_num(timing, "started", (double) time(NULL));
        struct run_result res = { .output = STRBUF_INIT };
        if (!entry) {
                jset_str(result, "status", "failed");
                jset_str(result, "message", "action not implemented on unit");
                jset_num(timing, "completed", (double) time(NULL));
                *ret_result = TAKE_PTR(result);
                ctx_clear(&ctx);
                return conc ? conc_end(m, unit, err) : 0;
        }
        _cleanup_free_ char *dispatch_path = xasprintf("actions/%s", action);
        _cleanup_strv_ struct strv env = STRV_INIT;
        ctx.hook = "";
        build_env(&ctx, charm_dir, dispatch_path, ev, &env);
        ctx.hook = NULL;
        _cleanup_json_ cJSON *machine = cJSON_Duplicate(state_machine(m->state, jstr(u, "machine")), true);
        set_agent(m, NULL, unit, "executing");
        r = process_start(&ctx, mfd >= 0, err);
        if (r < 0) {
                ctx_clear(&ctx);
                return r;
        }
        char *argv[] = { entry, NULL };
        _cleanup_strbuf_ struct strbuf rerr = STRBUF_INIT;
        /* The action's stdout and stderr, together, become results.stdout. */
        r = run_process(&ctx, machine, argv, env.v, charm_dir, true, 0, &res, &rerr);
        if (r < 0) {
                res.status = 127;
                strbuf_addf(&res.output, "juju-sim: %s\n", rerr.buf);
        }
        r = process_end(&ctx, err);
        if (r < 0) {
                strbuf_release(&res.output);
                ctx_clear(&ctx);
                return r;
        }
        u = state_unit(m->state, unit);
        if (u)
                set_agent(m, conc ? NULL : ctx.work, unit, jstr(u, "error") ? "error" : "idle");
        _cleanup_free_ char *what = xasprintf("action %s", action);
        debug_log(m, &ctx, what, res.status == 0 && !ctx.action_failed ? "ok" : "failed", &res, ev);
        bool failed = res.status != 0 || ctx.action_failed;
        jset_str(result, "status", failed ? "failed" : "completed");
        if (ctx.action_message)
                jset_str(result, "message", ctx.action_message);
        else if (res.status != 0) {
                _cleanup_free_ char *msg = xasprintf("exit status %d", res.status);
                jset_str(result, "message", msg);
        }
        cJSON *results = cJSON_Duplicate(ctx.action_results, true);
        jset_num(results, "return-code", res.status);
        if (res.output.len)
                jset_str(results, "stdout", res.output.buf);
        jset(result, "results", results);
        jset(result, "log", cJSON_Duplicate(ctx.action_log, true));
        jset_num(timing, "completed", (double) time(NULL));
        if (res.status == 0)
                hook_commit(&ctx, unit);
        strbuf_release(&res.output);
        ctx_clear(&ctx);
        *ret_result = TAKE_PTR(result);
        return conc ? conc_end(m, unit, err) : 0;
}

static void shell_quote(struct strbuf *sb, const char *s) {
        strbuf_addch(sb, '\'');
        for (; *s; s++) {
                if (*s == '\'')
                        strbuf_addstr(sb, "'\\''");
                else
                        strbuf_addch(sb, *s);
        }
        strbuf_addch(sb, '\'');
}

int runner_exec(struct model *m, const char *unit, char *const *cmd, int *ret_status, struct strbuf *err) {
        if (!state_unit(m->state, unit)) {
                strbuf_addf(err, "unit \"%s\" not found", unit);
                return -ENOENT;
        }
        if (!cmd || !cmd[0]) {
                strbuf_addstr(err, "exec: no command");
                return -EINVAL;
        }
        _cleanup_strbuf_ struct strbuf script = STRBUF_INIT;
        if (!cmd[1])
                strbuf_addstr(&script, cmd[0]);
        else
                for (size_t i = 0; cmd[i]; i++) {
                        if (i)
                                strbuf_addch(&script, ' ');
                        shell_quote(&script, cmd[i]);
                }
        struct hookctx ctx;
        _cleanup_close_ int mfd = -1;
        int r = process_enter(m, unit, &ctx, &mfd, err);
        if (r < 0)
                return r;
        bool conc = ctx.concurrent;
        cJSON *u = state_unit(m->state, unit);
        _cleanup_free_ char *charm_dir = xstrdup(strempty(jstr(state_app(m->state, ctx.app), "charm-dir")));
        _cleanup_strv_ struct strv env = STRV_INIT;
        build_env(&ctx, charm_dir, NULL, NULL, &env);
        _cleanup_json_ cJSON *machine = cJSON_Duplicate(state_machine(m->state, jstr(u, "machine")), true);
        r = process_start(&ctx, mfd >= 0, err);
        if (r < 0) {
                ctx_clear(&ctx);
                return r;
        }
        char *argv[] = { (char *) "/bin/bash", (char *) "-c", script.buf, NULL };
        struct run_result res = { .output = STRBUF_INIT };
        r = run_process(&ctx, machine, argv, env.v, charm_dir, false, 0, &res, err);
        if (r >= 0)
                r = process_end(&ctx, err);
        if (r < 0) {
                strbuf_release(&res.output);
                ctx_clear(&ctx);
                return r;
        }
        debug_log(m, &ctx, "exec", res.status == 0 ? "ok" : "failed", &res, NULL);
        if (res.status == 0)
                hook_commit(&ctx, unit);
        *ret_status = res.status;
        strbuf_release(&res.output);
        ctx_clear(&ctx);
        return conc ? conc_end(m, unit, err) : 0;
}
