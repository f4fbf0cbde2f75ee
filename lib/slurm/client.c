/* SPDX-License-Identifier: Apache-2.0 */
/* The libslurm client: one-time initialisation (without letting libslurm exit the process),
 * controller ping and reconfigure. */
#include "util/macro.h"
#include "slurm/client.h"
#include "util/strv.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proc/proc.h"
#include "slurm/compat.h"
#include "slurm/nodes.h"
#include "slurm/sackguard.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

/* libslurm's parsed local configuration. Not declared in <slurm/slurm.h> but exported by
 * libslurm.so.38, of the public type slurm_conf_t. It is the list slurm_ping(i) indexes, which
 * slurm_load_ctl_conf() (an RPC that fails when every controller is down) cannot replace. */
extern slurm_conf_t slurm_conf;

static bool initialised;

static bool readable(const char *path) {
        return !isempty(path) && access(path, R_OK) == 0;
}

const char *slurm_config_path(void) {
        const char *env = getenv("SLURM_CONF");
        if (!isempty(env))
                return readable(env) ? env : NULL;
        if (readable("/etc/slurm/slurm.conf"))
                return "/etc/slurm/slurm.conf";
        if (readable("/run/slurm/conf/slurm.conf"))
                return "/run/slurm/conf/slurm.conf";
        return NULL;
}

/* slurmd, at each start on a configless node, replaces the /run/slurm/conf symlink: unlink,
 * then symlink (slurmd.c _handle_slash_run, 22.05 and 24.11), so a path found readable a moment
 * ago may be gone when libslurm opens it, and that is fatal() for the hook (seen: a compute
 * unit's hook while slurmd restarted). The file behind the link is only ever replaced by
 * rename (fetch_config.c _write_conf), so the resolved path stays valid. slurmd's gap lasts two
 * system calls; looked for again every 5 ms for up to 1 s (a loaded machine may deschedule the
 * replacer in between), only while /run/slurm exists (a slurmd has run here) and SLURM_CONF
 * names no file of its own. */
char *slurm_config_resolve(void) {
        static bool waited; /* once per process: a hook's later calls do not wait again */
        struct stat st;
        for (int i = 0; i < (waited ? 1 : 200); i++) {
                const char *path = slurm_config_path();
                if (path) {
                        char *real = realpath(path, NULL);
                        if (real && readable(real))
                                return real;
                        free(real);
                }
                if (getenv("SLURM_CONF") || stat("/run/slurm", &st) < 0)
                        return NULL;
                if (!waited)
                        usleep(5000);
        }
        waited = true;
        return NULL;
}

int slurm_client_init(struct strbuf *err) {
        _cleanup_free_ char *path = NULL;
        const char *env;
        if (initialised)
                return 0;
        path = slurm_config_resolve();
        if (!path) {
                env = getenv("SLURM_CONF");
                if (err) {
                        if (!isempty(env))
                                strbuf_addf(err, "slurm configuration \"%s\": not readable", env);
                        else
                                strbuf_addstr(err,
                                        "slurm configuration: none found (SLURM_CONF, "
                                        "/etc/slurm/slurm.conf, /run/slurm/conf/slurm.conf)");
                }
                return -ENOENT;
        }
        /* no credential wait on a stopped local daemon holds this process for ever (sackguard.h);
         * a guard that cannot start leaves the calls as libslurm makes them */
        (void) sack_guard_start(NULL);
        /* libslurm sets SLURM_CONF to it: every later read (reinit, plugins) takes the same file */
        slurm_init(path);
        initialised = true;
        return 0;
}

void slurm_controllers_done(struct slurm_controllers *c) {
        for (size_t i = 0; i < c->n; i++) {
                free(c->v[i].host);
                free(c->v[i].addr);
        }
        free(c->v);
        c->v = NULL;
        c->n = 0;
}

/* Exported by libslurm 22.05 (read_config.c), declared in no public header. */
extern int slurm_conf_reinit(const char *file_name);

int slurm_client_reload(struct strbuf *err) {
        if (!initialised)
                return 0;
        /* a file the charm just wrote, judged by the same reader: reinit cannot hit fatal() here */
        if (slurm_conf_reinit(NULL) != SLURM_SUCCESS) {
                if (err)
                        strbuf_addstr(err, "slurm configuration: could not be read again");
                return -EIO;
        }
        return 0;
}

int slurm_client_use(const char *path, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        if (isempty(path) || access(path, R_OK) < 0) {
                r = isempty(path) ? -EINVAL : -errno;
                if (err)
                        strbuf_addf(err, "%s: %s", strempty(path), strerror(-r));
                return r;
        }
        if (slurm_conf_reinit(path) != SLURM_SUCCESS) {
                if (err)
                        strbuf_addf(err, "%s: could not be read", path);
                return -EIO;
        }
        return 0;
}

/* In the child of proc_call_as(): a client of the one controller private_conf names. */
static int ask_self(void *userdata, struct strbuf *out) {
        time_t since = 0;
        if (slurm_client_use(userdata, out) < 0)
                return -ECONNREFUSED;
        return slurm_ctl_answers_in_charge(&since);
}

int slurm_ctl_self_in_charge(const char *private_conf, int timeout_ms) {
        int r = proc_call_as(0, 0, timeout_ms > 0 ? timeout_ms : 5000, ask_self, (void *) private_conf, NULL);
        return r == -ETIME ? -ETIMEDOUT : r;
}

int slurm_ctl_answers_in_charge(time_t *since) {
        slurm_conf_t *c = NULL;
        if (slurm_load_ctl_conf(*since, &c) == SLURM_SUCCESS) {
                *since = c->last_update;
                slurm_free_ctl_conf(c);
                return 1;
        }
        int e = slurm_last_errno();
        if (e == SLURM_NO_CHANGE_IN_DATA)
                return 1;
        if (e == ESLURM_IN_STANDBY_MODE || e == ESLURM_IN_STANDBY_USE_BACKUP)
                return 0;
        return -ECONNREFUSED;
}

int slurm_ctl_index_of(const char *host) {
        if (!initialised || isempty(host))
                return -ENOENT;
        for (uint32_t i = 0; i < slurm_conf.control_cnt && slurm_conf.control_machine; i++)
                if (streq_ptr(slurm_conf.control_machine[i], host))
                        return (int) i;
        return -ENOENT;
}

int slurm_ctl_count(void) {
        return initialised ? (int) slurm_conf.control_cnt : 0;
}

const char *slurm_client_state_dir(void) {
        return initialised ? slurm_conf.state_save_location : NULL;
}

unsigned slurm_client_ctl_timeout(void) {
        return initialised ? slurm_conf.slurmctld_timeout : 0;
}

int slurm_ctl_failback_ms(void) {
#if SLURM_AT_LEAST(24, 11)
        return 30 * 1000;
#else
        return 0;
#endif
}

int slurm_ctl_ping_one(int index, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        if (index < 0 || (uint32_t) index >= slurm_conf.control_cnt)
                return -ENOENT;
        r = slurm_ping(index);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "ping %s", slurm_conf.control_machine[index]);
        return 0;
}

/* A bounded ping's child gets this beyond its MessageTimeout's deadline, so that libslurm's own
 * timeout is the one reported when it comes. */
#define PING_CHILD_SLACK_MS 300

/* Lowers libslurm's MessageTimeout to seconds (at least 1), never raises it; the value before. */
static uint16_t msg_timeout_cap(long seconds) {
        uint16_t was = slurm_conf.msg_timeout;
        if (seconds < 1)
                seconds = 1;
        if (seconds < was)
                slurm_conf.msg_timeout = (uint16_t) seconds;
        return was;
}

/* In the child of proc_call_as(). */
static int ping_child(void *userdata, struct strbuf *out) {
        return slurm_ctl_ping_one(*(const int *) userdata, out);
}

int slurm_ctl_ping_within(int index, int timeout_ms, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        if (timeout_ms < 1)
                timeout_ms = 1;
        uint16_t was = msg_timeout_cap(((long) timeout_ms + 999) / 1000);
        /* in a child killed at the deadline: auth/slurm (24.11) takes a client's credential from
         * a sack socket (slurmctld's own on a controller) and reads its answer with no timeout,
         * so a stopped slurmctld held the caller for ever (update-status killed at the hook
         * deadline); MessageTimeout bounds only the RPC after it */
        /* the child stays the caller's user: a tool (the metrics exporter runs as nobody) is
         * bounded the same, its credential from the same sack socket */
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        r = proc_call_as(PROC_CALL_SAME_USER, 0, timeout_ms + PING_CHILD_SLACK_MS, ping_child, &index, &out);
        slurm_conf.msg_timeout = was;
        if (r == -ETIME) {
                if (err)
                        strbuf_addf(err, "ping %s: no answer within %d ms (not even a credential)",
                                (uint32_t) index < slurm_conf.control_cnt ? slurm_conf.control_machine[index]
                                                                          : "?",
                                timeout_ms);
                return -ETIMEDOUT;
        }
        if (r < 0 && err)
                strbuf_addbuf(err, &out);
        return r;
}

int slurm_client_cap_msg_timeout(int seconds, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        if (seconds > 0)
                (void) msg_timeout_cap(seconds);
        return 0;
}

int slurm_client_cap_standby_wait(int seconds, uint16_t *ret_was, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        *ret_was = slurm_conf.slurmctld_timeout;
        if (seconds < 2)
                seconds = 2; /* its half is the sleep: never 0, a busy loop */
        if (seconds < slurm_conf.slurmctld_timeout)
                slurm_conf.slurmctld_timeout = (uint16_t) seconds;
        return 0;
}

void slurm_client_standby_wait_restore(uint16_t was) {
        if (initialised && was > 0)
                slurm_conf.slurmctld_timeout = was;
}

int slurm_ctl_takeover_with(const char *conf_path, int index, struct strbuf *err) {
        int r;
        if (isempty(conf_path) || access(conf_path, R_OK) < 0)
                return -ENOENT;
        /* initialised the usual way first: slurm_init(path) would also set SLURM_CONF=path in
         * the environment, and every later read of the configuration would keep the old list */
        r = slurm_client_init(err);
        if (r < 0)
                return r;
        (void) slurm_conf_reinit(conf_path);
        r = slurm_ctl_takeover(index, err);
        /* back to the configuration every other call reads */
        (void) slurm_conf_reinit(NULL);
        return r;
}

struct takeover_call {
        const char *conf_path;
        int index;
};

/* In the child of proc_call_as(). */
static int takeover_child(void *userdata, struct strbuf *out) {
        const struct takeover_call *c = userdata;
        return c->conf_path ? slurm_ctl_takeover_with(c->conf_path, c->index, out)
                            : slurm_ctl_takeover(c->index, out);
}

int slurm_ctl_takeover_bounded(const char *conf_path, int index, int timeout_ms, struct strbuf *err) {
        struct takeover_call c = { .conf_path = conf_path, .index = index };
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        int r = proc_call_as(0, 0, timeout_ms > 0 ? timeout_ms : 10000, takeover_child, &c, &out);
        if (r == -ETIME) {
                r = -ETIMEDOUT;
                if (err)
                        strbuf_addf(err, "takeover by controller %d: no answer within %d ms", index, timeout_ms);
        } else if (r < 0 && err)
                strbuf_addf(err, "%s", out.len ? out.buf : strerror(-r));
        return r;
}

int slurm_ctl_takeover(int index, struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        if (index < 1 || (uint32_t) index >= slurm_conf.control_cnt) {
                if (err)
                        strbuf_addf(err, "takeover: no backup controller %d", index);
                return -EINVAL;
        }
        r = slurm_takeover(index);
        if (r != SLURM_SUCCESS)
                return slurm_fail(
                        err, slurm_rc_code(r), "takeover by %s", slurm_conf.control_machine[index]);
        return 0;
}

/* The client initialised and the configuration naming at least one controller: 0, or a
 * negative errno (message in err). */
static int controllers_known(struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        if (slurm_conf.control_cnt == 0 || !slurm_conf.control_machine) {
                if (err)
                        strbuf_addstr(err, "slurm configuration: no SlurmctldHost");
                return -ENOENT;
        }
        return 0;
}

/* Pings every controller of the configuration: each with libslurm's MessageTimeout
 * (timeout_ms 0), or bounded by slurm_ctl_ping_within(). */
static int ping_all(struct slurm_controllers *ret, int timeout_ms, struct strbuf *err) {
        struct slurm_controllers c = { 0 };
        int up = 0, r = controllers_known(err);
        if (r < 0)
                return r;
        c.n = slurm_conf.control_cnt;
        c.v = xcalloc(c.n, sizeof(*c.v));
        for (size_t i = 0; i < c.n; i++) {
                c.v[i].host = xstrdup(strempty(slurm_conf.control_machine[i]));
                if (slurm_conf.control_addr && slurm_conf.control_addr[i])
                        c.v[i].addr = xstrdup(slurm_conf.control_addr[i]);
        }
        for (size_t i = 0; i < c.n; i++) {
                if (timeout_ms > 0)
                        r = slurm_ctl_ping_within((int) i, timeout_ms, NULL);
                else {
                        r = slurm_ping((int) i);
                        if (r != SLURM_SUCCESS) {
                                r = slurm_code_to_errno(slurm_rc_code(r));
                                if (r == 0)
                                        r = -EIO;
                        }
                }
                if (r == 0) {
                        c.v[i].up = true;
                        up++;
                } else
                        c.v[i].error = r;
        }
        *ret = c;
        return up;
}

int slurm_ctl_ping(struct slurm_controllers *ret, struct strbuf *err) {
        return ping_all(ret, 0, err);
}

int slurm_ctl_ping_bounded(struct slurm_controllers *ret, int timeout_ms, struct strbuf *err) {
        return ping_all(ret, timeout_ms > 0 ? timeout_ms : 1, err);
}

static bool sack_answers(void) {
        static const char *const paths[] = { "/run/slurm/sack.socket", "/run/slurmctld/sack.socket",
                "/run/slurmdbd/sack.socket" };
        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                snprintf(sa.sun_path, sizeof sa.sun_path, "%s", paths[i]);
                /* non-blocking: a stopped daemon's full backlog answers EAGAIN, never blocks */
                int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                if (fd < 0)
                        return false;
                bool ok = connect(fd, (struct sockaddr *) &sa, sizeof sa) == 0;
                close(fd);
                if (ok)
                        return true;
        }
        return false;
}

int slurm_sack_wait(int timeout_ms) {
        int64_t deadline = slurm_now_ms() + timeout_ms;
        int delay = SLURM_POLL_FIRST_MS;
        while (!sack_answers())
                if (!slurm_poll_sleep(&delay, deadline))
                        return -ETIMEDOUT;
        return 0;
}

int slurm_ctl_reachable(struct strbuf *why) {
        int r = controllers_known(why);
        if (r < 0)
                return r;
        _cleanup_strbuf_ struct strbuf all = STRBUF_INIT;
        for (uint32_t i = 0; i < slurm_conf.control_cnt; i++) {
                r = slurm_ping((int) i);
                if (r == SLURM_SUCCESS)
                        return 1;
                int e = slurm_code_to_errno(slurm_rc_code(r));
                strbuf_addf(&all, "%s%s: %s", i ? ", " : "", strempty(slurm_conf.control_machine[i]),
                        e ? strerror(-e) : "no answer");
        }
        if (why)
                strbuf_addbuf(why, &all);
        return 0;
}

int slurm_ctl_reconfigure(struct strbuf *err) {
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_reconfigure();
        if (r != SLURM_SUCCESS) {
                int code = slurm_rc_code(r);
                switch (code) {
                case ESLURM_INVALID_AUTHTYPE_CHANGE:
                case ESLURM_INVALID_SCHEDTYPE_CHANGE:
                case ESLURM_INVALID_SELECTTYPE_CHANGE:
                case ESLURM_INVALID_SWITCHTYPE_CHANGE:
                case ESLURM_INVALID_CRED_TYPE_CHANGE:
                case ESLURM_INVALID_BURST_BUFFER_CHANGE:
                        (void) slurm_fail(err, code, "reconfigure");
                        return -ESTALE;
                default:
                        return slurm_fail(err, code, "reconfigure");
                }
        }
        return 0;
}

int slurm_ctl_conf_hash(uint32_t *ret, time_t *ret_boot, struct strbuf *err) {
        slurm_conf_t *c = NULL;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_ctl_conf((time_t) 0, &c);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load the controller's configuration");
        *ret = c->hash_val;
        if (ret_boot)
                *ret_boot = c->boot_time;
        slurm_free_ctl_conf(c);
        return 0;
}

int slurm_ctl_running_values(struct strv *ret, struct strbuf *err) {
        slurm_conf_t *c = NULL;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_ctl_conf((time_t) 0, &c);
        if (r != SLURM_SUCCESS)
                return slurm_fail(err, slurm_rc_code(r), "load the controller's configuration");
        const struct {
                const char *key, *value;
        } kv[] = {
                { "AuthType", c->authtype },
                { "BurstBufferType", c->bb_type },
                { "CredType", c->cred_type },
                { "JobAcctGatherType", c->job_acct_gather_type },
                { "JobCompType", c->job_comp_type },
#if !SLURM_AT_LEAST(23, 11)
                { "LaunchType", c->launch_type }, /* gone in 23.11 */
#endif
                { "MpiDefault", c->mpi_default },
                { "PreemptType", c->preempt_type },
                { "PriorityType", c->priority_type },
                { "ProctrackType", c->proctrack_type },
                { "SchedulerType", c->schedtype },
                { "SelectType", c->select_type },
                { "SwitchType", c->switch_type },
                { "TaskPlugin", c->task_plugin },
                { "TopologyPlugin", c->topology_plugin },
        };
        for (size_t i = 0; i < ELEMENTSOF(kv); i++)
                if (!isempty(kv[i].value)) {
                        strv_push(ret, kv[i].key);
                        strv_push(ret, kv[i].value);
                }
        strv_push(ret, "MaxNodeCount");
        strv_pushf(ret, "%u", c->max_node_cnt);
        slurm_free_ctl_conf(c);
        return 0;
}

int64_t slurm_now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool slurm_poll_sleep(int *delay_ms, int64_t deadline_ms) {
        int64_t left = deadline_ms - slurm_now_ms();
        int64_t d = *delay_ms;
        struct timespec ts;
        if (left <= 0)
                return false;
        if (d > left)
                d = left;
        ts.tv_sec = (time_t) (d / 1000);
        ts.tv_nsec = (long) (d % 1000) * 1000000;
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
        *delay_ms = *delay_ms * 3 / 2;
        if (*delay_ms > SLURM_POLL_MAX_MS)
                *delay_ms = SLURM_POLL_MAX_MS;
        return true;
}
