/* SPDX-License-Identifier: Apache-2.0 */
/* Running a program inside a machine as a child of the caller: enter the init's namespaces
 * (the PID one only for the fork), join the machine's cgroup, exec; report exec errors back. */
#include "util/macro.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/close_range.h>

#include "machine.h"
#include "machine-internal.h"
#include "util/alloc.h"
#include "proc/proc.h"
#include "util/fileio.h"

#include "util/banned.h"

extern char **environ;

static const struct {
        const char *name;
        int type;
} entered[] = {
        /* the mount namespace last: entering it moves root and cwd to the machine's */
        { "cgroup", CLONE_NEWCGROUP },
        { "ipc", CLONE_NEWIPC },
        { "uts", CLONE_NEWUTS },
        { "net", CLONE_NEWNET },
        { "mnt", CLONE_NEWNS },
};

/* The hierarchies a machine has cgroups in: cgroup2, name=systemd and the v1 controllers. */
#define MAX_CGROUPS 8

/* Opens cgroup.procs of the init's cgroup in every hierarchy where it is a machine's
 * (/jsim-H/mN, as the host sees /proc/PID/cgroup): the child joins them all. */
static int open_init_cgroups(pid_t init, int cgfd[], size_t max) {
        _cleanup_free_ char *file = xasprintf("/proc/%d/cgroup", (int) init), *data = NULL;
        int r = read_full_file(file, &data, NULL);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        const char *bases[2];
        mach_cgroup_bases(bases);
        size_t n = 0;
        for (char *line = data, *next; line && *line && n < max; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                char *c = strchr(line, ':');
                char *p = c ? strchr(c + 1, ':') : NULL;
                if (!p || !strstr(p, "/jsim-"))
                        continue;
                *p = '\0';
                _cleanup_free_ char *mnt = *(c + 1) ? mach_cgroup_mount(c + 1) : xstrdup(strempty(bases[0]));
                _cleanup_free_ char *procs = xasprintf("%s%s/cgroup.procs", mnt, p + 1);
                cgfd[n] = open(procs, O_WRONLY | O_CLOEXEC);
                if (cgfd[n] >= 0)
                        n++;
        }
        return 0;
}

_noreturn_ static void child(int errfd, const int nsfd[], const int cgfd[], int stdio[3], char *const argv[],
        char *const envp[], const char *cwd) {
        int e;
        /* ended with the juju-sim that runs it (simmachine.c host_spawn: the same rule) */
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* the cgroups first, from the host's cgroup namespace */
        for (int i = 0; i < MAX_CGROUPS; i++)
                if (cgfd[i] >= 0)
                        (void) !write(cgfd[i], "0", 1);
        for (size_t i = 0; i < ELEMENTSOF(entered); i++)
                if (setns(nsfd[i], entered[i].type) < 0)
                        goto fail;
        if (chdir(cwd ? cwd : "/") < 0)
                goto fail;
        /* Move the stdio fds out of the way first, so that dup2 cannot clobber one of them. */
        int moved[3];
        for (int i = 0; i < 3; i++) {
                moved[i] = fcntl(stdio[i], F_DUPFD_CLOEXEC, 10);
                if (moved[i] < 0)
                        goto fail;
        }
        for (int i = 0; i < 3; i++)
                if (dup2(moved[i], i) < 0)
                        goto fail;
        (void) close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int s = 1; s < _NSIG; s++)
                signal(s, SIG_DFL);
        if (envp)
                environ = (char **) envp;
        execvp(argv[0], argv);
fail:
        e = errno;
        (void) !write(errfd, &e, sizeof e);
        _exit(127);
}

int machine_spawn(const struct machine_info *m, char *const argv[], char *const envp[], const char *cwd,
        int in_fd, int out_fd, int err_fd, pid_t *ret_pid) {
        if (!argv || !argv[0])
                return -EINVAL;
        if (!proc_pid_alive(m->pid, m->starttime))
                return -ESRCH;
        int nsfd[ELEMENTSOF(entered)];
        int cgfd[MAX_CGROUPS];
        for (int i = 0; i < MAX_CGROUPS; i++)
                cgfd[i] = -1;
        for (size_t i = 0; i < ELEMENTSOF(entered); i++)
                nsfd[i] = -1;
        _cleanup_close_ int pidns = -1, selfns = -1, null = -1, errpipe_r = -1, errpipe_w = -1;
        int r = 0;

        char path[128];
        for (size_t i = 0; i < ELEMENTSOF(entered); i++) {
                snprintf(path, sizeof path, "/proc/%d/ns/%s", (int) m->pid, entered[i].name);
                nsfd[i] = open(path, O_RDONLY | O_CLOEXEC);
                if (nsfd[i] < 0) {
                        r = errno == ENOENT ? -ESRCH : -errno;
                        goto out;
                }
        }
        snprintf(path, sizeof path, "/proc/%d/ns/pid", (int) m->pid);
        pidns = open(path, O_RDONLY | O_CLOEXEC);
        selfns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
        if (pidns < 0 || selfns < 0) {
                r = -errno;
                goto out;
        }
        /* Check again, now that the namespaces are pinned: the pid may have been reused. */
        if (!proc_pid_alive(m->pid, m->starttime)) {
                r = -ESRCH;
                goto out;
        }
        r = open_init_cgroups(m->pid, cgfd, ELEMENTSOF(cgfd));
        if (r < 0)
                goto out;
        null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0) {
                r = -errno;
                goto out;
        }
        int stdio[3] = { in_fd >= 0 ? in_fd : null, out_fd >= 0 ? out_fd : null,
                err_fd >= 0 ? err_fd : null };
        int ep[2];
        if (pipe2(ep, O_CLOEXEC) < 0) {
                r = -errno;
                goto out;
        }
        errpipe_r = ep[0];
        errpipe_w = ep[1];

        if (setns(pidns, CLONE_NEWPID) < 0) {
                r = -errno;
                goto out;
        }
        pid_t pid = fork();
        if (pid == 0)
                child(errpipe_w, nsfd, cgfd, stdio, argv, envp, cwd);
        int fork_errno = errno;
        if (setns(selfns, CLONE_NEWPID) < 0)
                abort(); /* the caller would fork its later children into the machine */
        if (pid < 0) {
                r = -fork_errno;
                goto out;
        }
        close(errpipe_w);
        errpipe_w = -1;
        int e = 0;
        ssize_t n;
        do
                n = read(errpipe_r, &e, sizeof e);
        while (n < 0 && errno == EINTR);
        if (n == (ssize_t) sizeof e) {
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                r = -(e > 0 ? e : EIO);
                goto out;
        }
        *ret_pid = pid;
out:
        for (size_t i = 0; i < ELEMENTSOF(entered); i++)
                if (nsfd[i] >= 0)
                        close(nsfd[i]);
        for (int i = 0; i < MAX_CGROUPS; i++)
                if (cgfd[i] >= 0)
                        close(cgfd[i]);
        return r;
}

int machine_run(const struct machine_info *m, char *const argv[], char *const envp[], int in_fd, int out_fd,
        int err_fd, int timeout_ms) {
        pid_t pid;
        int r = machine_spawn(m, argv, envp, NULL, in_fd, out_fd, err_fd, &pid);
        if (r < 0)
                return r;
        _cleanup_close_ int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (timeout_ms > 0 && pidfd >= 0) {
                struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
                int pr;
                do
                        pr = poll(&pfd, 1, timeout_ms);
                while (pr < 0 && errno == EINTR);
                if (pr == 0) {
                        (void) kill(pid, SIGKILL);
                        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                                ;
                        return -ETIME;
                }
        }
        int st;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (WIFEXITED(st))
                return WEXITSTATUS(st);
        return 128 + WTERMSIG(st);
}
