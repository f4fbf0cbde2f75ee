/* SPDX-License-Identifier: Apache-2.0 */
/* Where a unit's hooks run: host mode (fork here) or namespace mode (machine.h). The machine
 * functions are weak references, so juju-sim also links and runs (host mode only) without them. */
#include "util/macro.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/close_range.h>

#include "bases.h"
#include "machine.h"
#include "model.h"
#include "simmachine.h"
#include "yamljson.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/banned.h"

#pragma weak machine_create
#pragma weak machine_destroy
#pragma weak machine_destroy_all
#pragma weak machine_spawn
#pragma weak machine_load
#pragma weak machine_net_ensure
#pragma weak machine_info_clear
#pragma weak machine_gc
#pragma weak machine_capacity
#pragma weak machine_capacity_add
#pragma weak machine_capacity_clear
#pragma weak machine_limit_describe
#pragma weak machine_make_private

static bool have_machines(void) {
        return machine_create && machine_destroy && machine_destroy_all && machine_spawn && machine_load &&
                machine_net_ensure && machine_info_clear;
}

const char *sim_machine_default_mode(void) {
        const char *e = getenv("JUJU_SIM_MACHINES");
        if (!isempty(e))
                return e;
        return have_machines() ? "namespace" : "host";
}

static bool ns_mode(const struct model *m) {
        return streq_ptr(jstr(jget(m->state, "model"), "machine-mode"), "namespace");
}

/* What juju-exec reads inside a machine (/var/lib/juju/juju-sim.json there). */
static int write_locator(const struct model *m, const char *path, const char *unit, struct strbuf *err) {
        _cleanup_json_ cJSON *loc = cJSON_CreateObject();
        jset_str(loc, "model", m->dir);
        jset_str(loc, "juju-sim", jstr(jget(m->state, "model"), "juju-sim"));
        jset_str(loc, "unit", unit);
        _cleanup_free_ char *s = cJSON_Print(loc);
        int r = write_file_atomic(path, s, strlen(s), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

int sim_machine_create(struct model *m, cJSON *rec, struct strbuf *err) {
        const char *id = jstr(rec, "id");
        if (!ns_mode(m)) {
                char host[256] = "localhost";
                (void) gethostname(host, sizeof(host) - 1);
                jset_str(rec, "hostname", host);
                jset_str(rec, "address", "127.0.0.1");
                jobj(rec, "instance");
                return 0;
        }
        if (!have_machines()) {
                strbuf_addstr(err, "machines: this juju-sim was built without namespace machines");
                return -EOPNOTSUPP;
        }
        /* A machine has its own /tmp and /run: the model dir must be outside them to be seen. */
        if (startswith(m->dir, "/tmp/") || startswith(m->dir, "/run/") || startswith(m->dir, "/proc/")) {
                strbuf_addf(err,
                        "model \"%s\": namespace machines have their own /tmp and /run; put the model "
                        "elsewhere (e.g. /var/tmp)",
                        m->dir);
                return -EINVAL;
        }
        int r = machine_net_ensure(m->dir, err);
        if (r < 0)
                return r;
        /* juju-exec on the machine's PATH: DIR/bin is bound over /usr/local/sbin there. */
        _cleanup_free_ char *bin = xasprintf("%s/bin", m->dir),
                            *link = xasprintf("%s/bin/juju-exec", m->dir);
        (void) mkdir(bin, 0755);
        (void) unlink(link);
        if (symlink(jstr(jget(m->state, "model"), "juju-sim-tool"), link) < 0 && errno != EEXIST) {
                strbuf_addf(err, "%s: %s", link, strerror(errno));
                return -errno;
        }
        /* the unit's application's base: another one than the host's is a root file system */
        const char *base = jstr(rec, "base"); /* (model.c: the unit's application's) */
        _cleanup_free_ char *rootfs = NULL;
        if (base) {
                r = sim_base_rootfs(base, &rootfs, err);
                if (r < 0)
                        return r;
        }
        _cleanup_strv_ struct strv shares = STRV_INIT;
        strv_pushf(&shares, "%s:/usr/local/sbin", bin);
        /* a machine writes nothing of the host but what is bound: the model dir (the charm,
         * agent.sock) at its path, and juju-sim's directories (below); a machine of another
         * base sees nothing else of the host either */
        if (rootfs)
                strv_pushf(&shares, MACH_ROOTFS_PREFIX "%s", rootfs);
        strv_pushf(&shares, "%s:%s", m->dir, m->dir);
        /* juju-sim and juju-sim-tool must be reachable inside (hook tools, juju-exec): when they
         * live under a path the machine has its own of (a build tree under /tmp), bind it in. */
        static const char *const exes[] = { "juju-sim", "juju-sim-tool" };
        for (size_t i = 0; i < ELEMENTSOF(exes); i++) {
                _cleanup_free_ char *dir = xstrdup(strempty(jstr(jget(m->state, "model"), exes[i])));
                char *slash = strrchr(dir, '/');
                if (!slash || slash == dir)
                        continue;
                *slash = '\0';
                /* a machine of the host's base reads them through its lower layer (or a host
                 * submount bound in: machine-init.c); only /tmp and /run are its own there */
                if (!rootfs && !startswith(dir, "/tmp/") && !startswith(dir, "/run/"))
                        continue;
                _cleanup_free_ char *share = xasprintf("%s:%s", dir, dir);
                if (!strv_contains(&shares, share))
                        strv_push(&shares, share);
        }
        const cJSON *sh;
        cJSON_ArrayForEach(sh, jget(rec, "shares")) {
                if (cJSON_IsString(sh))
                        strv_push(&shares, sh->valuestring);
        }
        _cleanup_machine_info_ struct machine_info info = {};
        r = machine_create(m->dir, (unsigned) strtoul(id, NULL, 10), shares.v, &info, err);
        if (r < 0)
                return r; /* machine_create() removed what it made */
        jset_str(rec, "hostname", info.hostname);
        jset_str(rec, "address", info.address);
        cJSON *inst = jobj(rec, "instance");
        jset_str(inst, "dir", info.dir);
        jset_num(inst, "pid", info.pid);
        _cleanup_free_ char *loc = xasprintf("%s/root/var/lib/juju/juju-sim.json", info.dir);
        _cleanup_free_ char *locdir = xasprintf("%s/root/var/lib/juju", info.dir);
        (void) mkdir_p(locdir, 0755);
        r = write_locator(m, loc, jstr(rec, "unit"), err);
        if (r < 0)
                (void) machine_destroy(m->dir, info.id, NULL); /* the caller never saw it */
        return r;
}

int sim_machine_destroy(struct model *m, cJSON *rec, struct strbuf *err) {
        if (!ns_mode(m) || !have_machines())
                return 0;
        return machine_destroy(m->dir, (unsigned) strtoul(strempty(jstr(rec, "id")), NULL, 10), err);
}

static int host_spawn(char *const argv[], char *const envp[], const char *cwd, int in_fd, int out_fd,
        int err_fd, pid_t *ret_pid) {
        int errpipe[2];
        if (pipe2(errpipe, O_CLOEXEC) < 0)
                return -errno;
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
                int e = -errno;
                close(errpipe[0]);
                close(errpipe[1]);
                return e;
        }
        if (pid == 0) {
                int fds[3] = { in_fd, out_fd, err_fd }, moved[3];
                (void) setpgid(0, 0);
                /* ended with the juju-sim that runs it (a wait, run or exec killed, or stopped
                 * with Ctrl-C: its own process group does not get the terminal's signal), as
                 * Juju's uniter ends a hook it stops; the event stays queued and runs again */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(127);
                for (int i = 0; i < 3; i++) {
                        if (fds[i] < 0)
                                fds[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
                        moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
                }
                for (int i = 0; i < 3; i++)
                        (void) dup2(moved[i], i);
                (void) close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                signal(SIGPIPE, SIG_DFL);
                if (cwd && chdir(cwd) < 0)
                        goto fail;
                execve(argv[0], argv, envp);
        fail:;
                int e = errno;
                (void) !write(errpipe[1], &e, sizeof(e));
                _exit(127);
        }
        close(errpipe[1]);
        int e = 0;
        ssize_t n = read(errpipe[0], &e, sizeof(e));
        close(errpipe[0]);
        if (n == (ssize_t) sizeof(e)) {
                (void) waitpid(pid, NULL, 0);
                return -e;
        }
        *ret_pid = pid;
        return 0;
}

int sim_machine_spawn(struct model *m, const cJSON *rec, char *const argv[], char *const envp[],
        const char *cwd, int in_fd, int out_fd, int err_fd, pid_t *ret_pid) {
        if (!ns_mode(m))
                return host_spawn(argv, envp, cwd, in_fd, out_fd, err_fd, ret_pid);
        if (!have_machines())
                return -EOPNOTSUPP;
        /* juju-exec run inside this very machine (e.g. by a service there): the machine's init is
         * not visible from its own PID namespace, and there is nothing to enter: spawn here. */
        char host[256] = "";
        if (gethostname(host, sizeof(host) - 1) == 0 && streq_ptr(host, jstr(rec, "hostname")))
                return host_spawn(argv, envp, cwd, in_fd, out_fd, err_fd, ret_pid);
        _cleanup_machine_info_ struct machine_info info = {};
        int r = machine_load(m->dir, (unsigned) strtoul(strempty(jstr(rec, "id")), NULL, 10), &info);
        if (r < 0)
                return r;
        return machine_spawn(&info, argv, envp, cwd, in_fd, out_fd, err_fd, ret_pid);
}

void sim_machines_cleanup(const char *dir, const cJSON *state) {
        if (!have_machines())
                return;
        /* Also when the state is unreadable: machine_destroy_all works from the files. */
        if (state && !streq_ptr(jstr(jget(state, "model"), "machine-mode"), "namespace"))
                return;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *machines = xasprintf("%s/machines", dir);
        if (access(machines, F_OK) < 0)
                return;
        if (machine_destroy_all(dir, &err) < 0)
                fprintf(stderr, "WARNING %s\n", err.buf);
}

int sim_machines_gc(struct strv *removed, struct strbuf *err) {
        if (!machine_gc) {
                strbuf_addstr(err, "gc: this juju-sim was built without namespace machines");
                return -EOPNOTSUPP;
        }
        return machine_gc(removed, err);
}

void sim_capacity_clear(struct machine_capacity *c) {
        if (machine_capacity_clear)
                machine_capacity_clear(c);
}

int sim_capacity(const struct model *m, struct machine_capacity *ret, struct strbuf *err) {
        if (!machine_capacity || !machine_capacity_add) {
                strbuf_addstr(err, "capacity: this juju-sim was built without namespace machines");
                return -EOPNOTSUPP;
        }
        int r = machine_capacity(ret);
        if (r < 0) {
                strbuf_addf(err, "capacity: %s", strerror(-r));
                return r;
        }
        if (m && ns_mode(m)) {
                /* ids are never reused within a model: one address each on its /24 */
                double next = jnum(jget(m->state, "counters"), "machine", 0);
                uint64_t used = next < 0 ? 0 : (uint64_t) next;
                machine_capacity_add(ret, "machine ids", "machine ids per model", NULL, true,
                        (uint64_t) MACHINE_ID_MAX + 1, used, 0, 1);
        }
        return 0;
}

int sim_capacity_check(const struct model *m, int n, const char *verb, struct strbuf *err) {
        if (n <= 0 || !ns_mode(m))
                return 0;
        _cleanup_(sim_capacity_clear) struct machine_capacity c = { 0 };
        int r = sim_capacity(m, &c, err);
        if (r < 0)
                return r;
        if ((unsigned) n <= c.machines)
                return 0;
        const struct machine_limit *l = &c.limits[c.binding];
        strbuf_addf(err, "%s: %d machine%s asked, this %s can hold %u more (", verb, n, n == 1 ? "" : "s",
                l->model_scope ? "model" : "host", c.machines);
        machine_limit_describe(l, err);
        strbuf_addstr(err, "); see juju-sim capacity");
        return -ENOSPC;
}

int sim_machines_make_private(const struct model *m, struct strbuf *err) {
        if (!machine_make_private)
                return 0;
        _cleanup_free_ char *machines = xasprintf("%s/machines", m->dir);
        if (access(machines, F_OK) < 0)
                return 0;
        int r = machine_make_private(m->dir);
        const cJSON *rec;
        cJSON_ArrayForEach(rec, jget(m->state, "machines")) {
                if (r < 0)
                        break;
                const char *dir = jstr(jget(rec, "instance"), "dir");
                if (isempty(dir))
                        continue;
                _cleanup_free_ char *loc = xasprintf("%s/root/var/lib/juju/juju-sim.json", dir);
                int k = chmod_private(loc);
                r = k < 0 ? k : r | k;
        }
        if (r < 0)
                strbuf_addf(err, "model \"%s\": cannot make its machines' files private: %s", m->dir,
                        strerror(-r));
        return r;
}
