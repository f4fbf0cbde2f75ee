/* SPDX-License-Identifier: Apache-2.0 */
/* A candidate slurm.conf judged by libslurm's own reader in a forked child, plus the plugin
 * files the parsed configuration names; the child's messages condensed into one line. */
#include "util/macro.h"
#include "slurm/confcheck.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <slurm/slurm.h>

#include "util/alloc.h"
#include "slurm/compat.h"
#include "slurm/plugfiles.h"

#include "util/banned.h"

/* Exported by libslurm.so.38 but not declared in <slurm/slurm.h>. */
extern slurm_conf_t slurm_conf;
extern int slurm_conf_reinit(const char *file_name);
extern char *slurm_prog_name;

/* Exit codes of the child besides Slurm's own (fatal() exits 1). */
enum {
        CHILD_OK = 0,
        CHILD_PLUGINS_MISSING = 3,
        CHILD_CANNOT_RUN = 125,
};

#define LOG_CAP (64 * 1024)
#define MESSAGE_CAP 200

/* --- the child ---------------------------------------------------------------------------- */

/* Writes all of s to fd (the child's stderr); errors are ignored, the exit code tells. */
static void child_say(const char *s) {
        size_t len = strlen(s);
        while (len > 0) {
                ssize_t n = write(STDERR_FILENO, s, len);
                if (n <= 0) {
                        if (n < 0 && errno == EINTR)
                                continue;
                        return;
                }
                s += n;
                len -= (size_t) n;
        }
}

/* The directory the daemons read the plugins' own files from (slurm_conf_check_opts.conf_dir). */
static const char *child_conf_dir = SLURM_CONF_CHECK_CONF_DIR;

/* Whether <dir>/<type>_<name>.so exists in one directory of the colon-separated dirs. */
static bool plugin_file_exists(const char *dirs, const char *type, const char *name) {
        /* 23.11+: cred/slurm is built into auth_slurm.so (src/plugins/auth/slurm/cred_slurm.c;
         * Debian 13 ships no cred_slurm.so) */
        if (streq(type, "cred") && streq(name, "slurm"))
                type = "auth";
        const char *p = dirs;
        while (p && *p) {
                const char *e = strchr(p, ':');
                size_t dl = e ? (size_t) (e - p) : strlen(p);
                if (dl > 0) {
                        _cleanup_free_ char *path = xasprintf("%.*s/%s_%s.so", (int) dl, p, type, name);
                        if (access(path, R_OK) == 0)
                                return true;
                }
                p = e ? e + 1 : NULL;
        }
        return false;
}

/* Checks each plugin of value (one "<type>/<name>", or a comma list of "<name>" or
 * "<type>/<name>" when list); reports the missing ones. Returns the count missing. */
static int check_plugins(const char *key, const char *type, const char *value, bool list, bool bare) {
        int missing = 0;
        if (isempty(value))
                return 0;
        _cleanup_free_ char *copy = xstrdup(value);
        char *save = NULL;
        for (char *item = strtok_r(copy, list ? "," : "", &save); item; item = strtok_r(NULL, ",", &save)) {
                const char *name = item;
                size_t tl = strlen(type);
                if (!bare && strncmp(item, type, tl) == 0 && item[tl] == '/')
                        name = item + tl + 1;
                else if (!bare && !list) {
                        _cleanup_free_ char *msg =
                                xasprintf("error: %s: \"%s\" is not a %s plugin\n", key, item, type);
                        child_say(msg);
                        missing++;
                        continue;
                }
                if (!*name || strchr(name, '/') || !plugin_file_exists(slurm_conf.plugindir, type, name)) {
                        _cleanup_free_ char *msg = xasprintf(
                                "error: %s: plugin %s/%s is not installed (no %s_%s.so in PluginDir)\n", key,
                                type, name, type, name);
                        child_say(msg);
                        missing++;
                        continue;
                }
                /* a file the plugin reads at its start and cannot run without (plugfiles.h) */
                const char *needs = slurm_plugin_needs_file(type, name);
                _cleanup_free_ char *at = needs ? xasprintf("%s/%s", child_conf_dir, needs) : NULL;
                if (at && access(at, R_OK) < 0) {
                        _cleanup_free_ char *msg = xasprintf(
                                "error: %s: plugin %s/%s needs %s, which is not there (the daemons would exit "
                                "at their start)\n",
                                key, type, name, at);
                        child_say(msg);
                        missing++;
                }
        }
        return missing;
}

static int child_check_plugins(void) {
        const slurm_conf_t *c = &slurm_conf;
        int m = 0;
        m += check_plugins(
                "AccountingStorageType", "accounting_storage", c->accounting_storage_type, false, false);
        m += check_plugins(
                "AcctGatherEnergyType", "acct_gather_energy", c->acct_gather_energy_type, true, false);
        m += check_plugins("AcctGatherFilesystemType", "acct_gather_filesystem",
                c->acct_gather_filesystem_type, false, false);
        m += check_plugins("AcctGatherInterconnectType", "acct_gather_interconnect",
                c->acct_gather_interconnect_type, true, false);
        m += check_plugins(
                "AcctGatherProfileType", "acct_gather_profile", c->acct_gather_profile_type, false, false);
        m += check_plugins("AuthType", "auth", c->authtype, false, false);
        m += check_plugins("AuthAltTypes", "auth", c->authalttypes, true, false);
        m += check_plugins("BurstBufferType", "burst_buffer", c->bb_type, true, false);
        m += check_plugins("CliFilterPlugins", "cli_filter", c->cli_filter_plugins, true, false);
#if !SLURM_AT_LEAST(23, 11)
        m += check_plugins("CoreSpecPlugin", "core_spec", c->core_spec_plugin, true, false);
#endif
        m += check_plugins("CredType", "cred", c->cred_type, false, false);
#if !SLURM_AT_LEAST(23, 11)
        m += check_plugins("ExtSensorsType", "ext_sensors", c->ext_sensors_type, false, false);
#endif
        m += check_plugins("JobAcctGatherType", "jobacct_gather", c->job_acct_gather_type, false, false);
        m += check_plugins("JobCompType", "jobcomp", c->job_comp_type, false, false);
        m += check_plugins("JobContainerType", "job_container", c->job_container_plugin, true, false);
        m += check_plugins("JobSubmitPlugins", "job_submit", c->job_submit_plugins, true, false);
#if !SLURM_AT_LEAST(23, 11)
        m += check_plugins("LaunchType", "launch", c->launch_type, false, false);
#endif
        m += check_plugins("MCSPlugin", "mcs", c->mcs_plugin, false, false);
        m += check_plugins("MpiDefault", "mpi", c->mpi_default, false, true);
        m += check_plugins("NodeFeaturesPlugins", "node_features", c->node_features_plugins, true, false);
#if !SLURM_AT_LEAST(23, 11)
        m += check_plugins("PowerPlugin", "power", c->power_plugin, true, false);
#endif
        m += check_plugins("PreemptType", "preempt", c->preempt_type, false, false);
        m += check_plugins("PrEpPlugins", "prep", c->prep_plugins, true, false);
        m += check_plugins("PriorityType", "priority", c->priority_type, false, false);
        m += check_plugins("PrioritySiteFactorPlugin", "site_factor", c->site_factor_plugin, false, false);
        m += check_plugins("ProctrackType", "proctrack", c->proctrack_type, false, false);
#if !SLURM_AT_LEAST(23, 11)
        m += check_plugins("RoutePlugin", "route", c->route_plugin, false, false);
#endif
        m += check_plugins("SchedulerType", "sched", c->schedtype, false, false);
        m += check_plugins("SelectType", "select", c->select_type, false, false);
#if !SLURM_AT_LEAST(23, 11)
        m += check_plugins("SlurmctldPlugstack", "slurmctld", c->slurmctld_plugstack, true, false);
#endif
        m += check_plugins("SwitchType", "switch", c->switch_type, false, false);
        m += check_plugins("TaskPlugin", "task", c->task_plugin, true, false);
        m += check_plugins("TopologyPlugin", "topology", c->topology_plugin, false, false);
        return m;
}

/* Runs in the forked child; never returns. */
_noreturn_ static void child_run(const char *data, size_t len, int out_fd, bool plugin_check) {
        if (dup2(out_fd, STDERR_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0)
                _exit(CHILD_CANNOT_RUN);
        if (out_fd > STDERR_FILENO)
                close(out_fd);

        int fd = memfd_create("slurm.conf", 0);
        if (fd < 0) {
                child_say("cannot-run: memfd_create failed\n");
                _exit(CHILD_CANNOT_RUN);
        }
        for (size_t off = 0; off < len;) {
                ssize_t n = write(fd, data + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        child_say("cannot-run: writing the memfd failed\n");
                        _exit(CHILD_CANNOT_RUN);
                }
                off += (size_t) n;
        }
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        if (access(path, R_OK) < 0) {
                child_say("cannot-run: /proc/self/fd is not readable\n");
                _exit(CHILD_CANNOT_RUN);
        }

        /* the reader applies the controller's rules when it believes it runs in slurmctld */
        slurm_prog_name = xstrdup("slurmctld");
        if (slurm_conf_reinit(path) != 0) {
                child_say("fatal: Unable to process configuration file\n");
                _exit(1);
        }
        if (plugin_check && child_check_plugins() > 0)
                _exit(CHILD_PLUGINS_MISSING);
        _exit(CHILD_OK);
}

/* --- the parent --------------------------------------------------------------------------- */

static int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The text of a Slurm log line after "error: " or "fatal: " (with or without the program
 * name before it), or NULL for other lines. */
static const char *log_text(const char *line, bool *fatal) {
        static const char *const tags[] = { "error: ", "fatal: " };
        for (size_t i = 0; i < ELEMENTSOF(tags); i++) {
                const char *t = strstr(line, tags[i]);
                if (t && (t == line || (t >= line + 2 && t[-1] == ' ' && t[-2] == ':'))) {
                        *fatal = i == 1;
                        return t + strlen(tags[i]);
                }
        }
        return NULL;
}

/* Appends text to msg, "; " between items, the memfd path shown as "slurm.conf", cut at
 * MESSAGE_CAP. */
static void add_condensed(struct strbuf *msg, const char *text) {
        if (msg->len >= MESSAGE_CAP)
                return;
        if (msg->len)
                strbuf_addstr(msg, "; ");
        const char *p = strstr(text, "/proc/self/fd/");
        struct strbuf t = STRBUF_INIT;
        if (p) {
                strbuf_add(&t, text, (size_t) (p - text));
                strbuf_addstr(&t, "slurm.conf");
                p += strlen("/proc/self/fd/");
                while (*p >= '0' && *p <= '9')
                        p++;
                strbuf_addstr(&t, p);
        } else
                strbuf_addstr(&t, text);
        for (size_t i = 0; i < t.len; i++) {
                unsigned char c = (unsigned char) t.buf[i];
                strbuf_addch(msg, c >= 0x20 && c < 0x7f ? (char) c : '?');
        }
        strbuf_release(&t);
        if (msg->len > MESSAGE_CAP) {
                strbuf_setlen(msg, MESSAGE_CAP);
                strbuf_addstr(msg, "...");
        }
}

int slurm_conf_check_opts(
        const char *data, size_t len, const struct slurm_conf_check_opts *opts, struct strbuf *err) {
        unsigned timeout = opts && opts->timeout_ms ? opts->timeout_ms : SLURM_CONF_CHECK_TIMEOUT_MS;
        bool plugin_check = !(opts && opts->no_plugin_check);
        int pfd[2];

        if (!data && len > 0)
                return -EINVAL;
        if (pipe2(pfd, O_CLOEXEC) < 0) {
                int r = -errno;
                if (err)
                        strbuf_addf(err, "slurm.conf check: pipe: %s", strerror(-r));
                return r;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(pfd[0]);
                close(pfd[1]);
                if (err)
                        strbuf_addf(err, "slurm.conf check: fork: %s", strerror(-r));
                return r;
        }
        if (pid == 0) {
                close(pfd[0]);
                if (opts && opts->conf_dir)
                        child_conf_dir = opts->conf_dir; /* (the child's own copy) */
                child_run(data, len, pfd[1], plugin_check);
        }
        close(pfd[1]);

        /* read the child's output until EOF or the deadline */
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        int64_t deadline = now_ms() + timeout;
        bool timed_out = false;
        for (;;) {
                int64_t left = deadline - now_ms();
                if (left <= 0) {
                        timed_out = true;
                        break;
                }
                struct pollfd p = { .fd = pfd[0], .events = POLLIN };
                int n = poll(&p, 1, (int) left);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        timed_out = n == 0;
                        break;
                }
                char buf[4096];
                ssize_t got = read(pfd[0], buf, sizeof(buf));
                if (got < 0 && errno == EINTR)
                        continue;
                if (got <= 0)
                        break;
                if (out.len < LOG_CAP)
                        strbuf_add(&out, buf, (size_t) got);
        }
        close(pfd[0]);

        /* reap it: it closed its output, so it ends at once unless it hangs */
        int status = 0;
        for (;;) {
                pid_t w = waitpid(pid, &status, timed_out ? 0 : WNOHANG);
                if (w == pid)
                        break;
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        int r = -errno;
                        if (err)
                                strbuf_addf(err, "slurm.conf check: waitpid: %s", strerror(-r));
                        return r;
                }
                if (timed_out || now_ms() >= deadline) {
                        kill(pid, SIGKILL);
                        timed_out = true;
                        continue;
                }
                struct timespec ts = { 0, 1000000 };
                nanosleep(&ts, NULL);
        }
        if (timed_out) {
                if (err)
                        strbuf_addf(err, "slurm.conf check: Slurm's reader did not finish within %u ms",
                                timeout);
                return -ETIMEDOUT;
        }

        /* condense the messages: errors and fatals, not the generic closing line */
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        bool cannot_run = WIFEXITED(status) && WEXITSTATUS(status) == CHILD_CANNOT_RUN;
        char *save = NULL;
        for (char *line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                bool fatal = false;
                const char *text = log_text(line, &fatal);
                if (cannot_run && startswith(line, "cannot-run: "))
                        text = line + strlen("cannot-run: ");
                if (!text)
                        continue;
                if (opts && opts->log)
                        strbuf_addf(opts->log, "%s: %s\n", fatal ? "fatal" : "error", text);
                /* the generic closing line, and a note about a key given twice (the last wins) */
                if ((fatal && streq(text, "Unable to process configuration file")) ||
                        strstr(text, "specified more than once, latest value used"))
                        continue;
                add_condensed(&msg, text);
        }

        if (cannot_run) {
                if (err)
                        strbuf_addf(err, "slurm.conf check could not run: %s",
                                msg.len ? msg.buf : "unknown reason");
                return -EIO;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OK)
                return 0;
        if (err) {
                strbuf_addstr(err, "slurm.conf refused by Slurm: ");
                if (msg.len)
                        strbuf_addbuf(err, &msg);
                else if (WIFSIGNALED(status))
                        strbuf_addf(err, "its reader died of signal %d", WTERMSIG(status));
                else
                        strbuf_addf(err, "its reader exited with status %d", WEXITSTATUS(status));
        }
        return -EINVAL;
}

int slurm_conf_check(const char *data, size_t len, struct strbuf *err) {
        return slurm_conf_check_opts(data, len, NULL, err);
}
