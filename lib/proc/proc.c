/* SPDX-License-Identifier: Apache-2.0 */
/* Run a child program: fork + execve with argv only, stdin bytes, captured stdout/stderr
 * polled together, exec errors carried back through a close-on-exec status pipe, timeout. */
#include "util/macro.h"
#include "util/alloc.h"
#include "proc/proc.h"
#include "util/fileio.h"

#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "util/banned.h"

extern char **environ;

#define PROC_IO_CHUNK (64 * 1024)
#define PROC_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

void proc_clear(struct proc *p) {
        if (!p)
                return;
        strv_clear(&p->argv);
        strv_clear(&p->env);
        strbuf_release(&p->out);
        strbuf_release(&p->err);
}

static void close_fd(int *fd) {
        if (*fd >= 0) {
                close(*fd);
                *fd = -1;
        }
}

/* Moves fd to a number >= 3 (keeping O_CLOEXEC), so that the child's dup2() onto 0/1/2
 * never finds its source already sitting on a target. */
static int fd_above_stdio(int fd) {
        if (fd < 0 || fd > 2)
                return fd;
        int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        int saved = errno;
        close(fd);
        errno = saved;
        return nfd;
}

static int pipe_cloexec(int fds[2]) {
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        fds[0] = fd_above_stdio(fds[0]);
        fds[1] = fd_above_stdio(fds[1]);
        if (fds[0] < 0 || fds[1] < 0) {
                int r = -errno;
                close_fd(&fds[0]);
                close_fd(&fds[1]);
                return r;
        }
        return 0;
}

static const char *env_lookup(char *const *envp, const char *name) {
        size_t l = strlen(name);
        for (; envp && *envp; envp++)
                if (strncmp(*envp, name, l) == 0 && (*envp)[l] == '=')
                        return *envp + l + 1;
        return NULL;
}

/* The list of paths the child tries, in order (execvp semantics, computed before fork so
 * the child only calls async-signal-safe functions). */
static void exec_candidates(const char *name, const char *path, struct strv *ret) {
        if (strchr(name, '/')) {
                strv_push(ret, name);
                return;
        }
        if (!path)
                path = PROC_DEFAULT_PATH;
        for (const char *s = path;;) {
                const char *e = strchrnul(s, ':');
                if (e == s)
                        strv_pushf(ret, "./%s", name); /* empty element: current directory */
                else
                        strv_pushf(ret, "%.*s/%s", (int) (e - s), s, name);
                if (!*e)
                        break;
                s = e + 1;
        }
}

struct child_fds {
        int in, out, err, status;
        int max_fd; /* fallback bound when close_range() is missing */
};

static _noreturn_ void child_exec(
        const struct proc *p, char *const *cands, char *const *envp, const struct child_fds *f) {
        struct sigaction sa = { .sa_handler = SIG_DFL };
        sigset_t none;
        int e;

        /* Fresh signal state: default dispositions (exec keeps SIG_IGN otherwise), empty mask. */
        for (int sig = 1; sig < _NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) sigaction(sig, &sa, NULL);
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);

        /* Every source fd is >= 3, so dup2() always makes a new, inheritable descriptor. */
        if (f->in >= 0 && dup2(f->in, STDIN_FILENO) < 0)
                goto fail;
        if (f->out >= 0 && dup2(f->out, STDOUT_FILENO) < 0)
                goto fail;
        if (f->err >= 0 && dup2(f->err, STDERR_FILENO) < 0)
                goto fail;
        /* Nothing but 0/1/2 survives exec; the status pipe is already close-on-exec. */
        if (close_range(3, UINT_MAX, CLOSE_RANGE_CLOEXEC) < 0)
                for (int fd = 3; fd <= f->max_fd; fd++)
                        (void) fcntl(fd, F_SETFD, FD_CLOEXEC);

        if (p->cwd && chdir(p->cwd) < 0)
                goto fail;

        bool eacces = false;
        for (char *const *c = cands; *c; c++) {
                execve(*c, p->argv.v, envp);
                switch (errno) {
                case EACCES:
                        eacces = true;
                        break;
                case ENOENT:
                case ENOTDIR:
                case ESTALE:
                case ELOOP:
                case ENAMETOOLONG:
                case ENODEV:
                case ETIMEDOUT:
                        break;
                default:
                        goto fail;
                }
        }
        errno = eacces ? EACCES : ENOENT;
fail:
        e = errno;
        (void) !write(f->status, &e, sizeof(e));
        _exit(127);
}

static int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before deadline (-1: none), clamped to >= 0. */
static int remaining_ms(int64_t deadline) {
        if (deadline < 0)
                return -1;
        int64_t left = deadline - now_ms();
        if (left <= 0)
                return 0;
        return left > INT_MAX ? INT_MAX : (int) left;
}

static int wait_blocking(pid_t pid, int *ret_status) {
        for (;;) {
                if (waitpid(pid, ret_status, 0) == pid)
                        return 0;
                if (errno != EINTR)
                        return -errno;
        }
}

/* Waits for the child until deadline; -ETIME when it did not end in time (still running). */
static int wait_deadline(pid_t pid, int pidfd, int64_t deadline, int *ret_status) {
        if (deadline < 0)
                return wait_blocking(pid, ret_status);
        for (;;) {
                pid_t w = waitpid(pid, ret_status, WNOHANG);
                if (w == pid)
                        return 0;
                if (w < 0 && errno != EINTR)
                        return -errno;
                int left = remaining_ms(deadline);
                if (left == 0)
                        return -ETIME;
                if (pidfd >= 0) {
                        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
                        (void) poll(&pfd, 1, left);
                } else {
                        int step = left < 5 ? left : 5;
                        struct timespec ts = { .tv_sec = 0, .tv_nsec = (long) step * 1000000L };
                        (void) nanosleep(&ts, NULL);
                }
        }
}

static int read_into(int *fd, struct strbuf *sb) {
        strbuf_grow(sb, PROC_IO_CHUNK);
        ssize_t n = read(*fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
        if (n < 0)
                return errno == EINTR || errno == EAGAIN ? 0 : -errno;
        if (n == 0) {
                close_fd(fd);
                return 0;
        }
        strbuf_setlen(sb, sb->len + (size_t) n);
        return 0;
}

/* Feeds stdin and drains stdout/stderr until all three pipes are closed or the deadline
 * passes (-ETIME). *epipe is set when the child closed its stdin before reading it all. */
static int pump(struct proc *p, int *in_w, int *out_r, int *err_r, int64_t deadline, bool *epipe) {
        size_t off = 0;

        while (*in_w >= 0 || *out_r >= 0 || *err_r >= 0) {
                struct pollfd pfd[3];
                int n = 0, i_in = -1, i_out = -1, i_err = -1;

                if (*in_w >= 0) {
                        i_in = n;
                        pfd[n++] = (struct pollfd){ .fd = *in_w, .events = POLLOUT };
                }
                if (*out_r >= 0) {
                        i_out = n;
                        pfd[n++] = (struct pollfd){ .fd = *out_r, .events = POLLIN };
                }
                if (*err_r >= 0) {
                        i_err = n;
                        pfd[n++] = (struct pollfd){ .fd = *err_r, .events = POLLIN };
                }

                int left = remaining_ms(deadline);
                if (left == 0)
                        return -ETIME;
                int k = poll(pfd, (nfds_t) n, left);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        continue; /* the deadline check above ends the loop */

                if (i_in >= 0 && pfd[i_in].revents) {
                        size_t chunk = p->in_len - off;
                        if (chunk > PROC_IO_CHUNK)
                                chunk = PROC_IO_CHUNK;
                        ssize_t w = write(*in_w, (const char *) p->in + off, chunk);
                        if (w < 0) {
                                if (errno == EPIPE) {
                                        *epipe = true;
                                        close_fd(in_w);
                                } else if (errno != EINTR && errno != EAGAIN)
                                        return -errno;
                        } else {
                                off += (size_t) w;
                                if (off >= p->in_len)
                                        close_fd(in_w);
                        }
                }
                if (i_out >= 0 && pfd[i_out].revents) {
                        int r = read_into(out_r, &p->out);
                        if (r < 0)
                                return r;
                }
                if (i_err >= 0 && pfd[i_err].revents) {
                        int r = read_into(err_r, &p->err);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int proc_run(struct proc *p) {
        int in_p[2] = { -1, -1 }, out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 }, st_p[2] = { -1, -1 };
        _cleanup_strv_ struct strv cands = STRV_INIT;
        sigset_t pipe_set, old_mask, pending;
        bool pipe_was_pending, epipe = false;
        int pidfd = -1, status = 0, r;
        pid_t pid;

        if (!p || p->argv.n == 0)
                return -EINVAL;
        if (isempty(p->argv.v[0]))
                return -ENOENT;

        strbuf_reset(&p->out);
        strbuf_reset(&p->err);

        char *const *envp = p->env_set ? p->env.v : environ;
        exec_candidates(p->argv.v[0], p->env_set ? env_lookup(envp, "PATH") : getenv("PATH"), &cands);

        if (p->in)
                r = pipe_cloexec(in_p);
        else {
                in_p[0] = fd_above_stdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
                r = in_p[0] < 0 ? -errno : 0;
        }
        if (r >= 0 && p->capture_out)
                r = pipe_cloexec(out_p);
        if (r >= 0 && p->capture_err)
                r = pipe_cloexec(err_p);
        if (r >= 0)
                r = pipe_cloexec(st_p);
        if (r < 0)
                goto out_close;

        struct rlimit rl;
        struct child_fds cf = {
                .in = in_p[0],
                .out = out_p[1],
                .err = err_p[1],
                .status = st_p[1],
                .max_fd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int) rl.rlim_cur
                                                                                    : 65536,
        };

        /* A child that closes its stdin early must not kill us with SIGPIPE: block it while
         * we write, and swallow the one our write raised (unless one was pending before). */
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        sigpending(&pending);
        pipe_was_pending = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);

        pid = fork();
        if (pid < 0) {
                r = -errno;
                pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
                goto out_close;
        }
        if (pid == 0)
                child_exec(p, cands.v, envp, &cf);

        close_fd(&in_p[0]);
        close_fd(&out_p[1]);
        close_fd(&err_p[1]);
        close_fd(&st_p[1]);

        /* The status pipe reads EOF once exec succeeded, or the child's errno when it failed. */
        int child_errno = 0;
        ssize_t n;
        do
                n = read(st_p[0], &child_errno, sizeof(child_errno));
        while (n < 0 && errno == EINTR);
        if (n != 0) {
                (void) wait_blocking(pid, &status);
                r = n == (ssize_t) sizeof(child_errno) && child_errno > 0 ? -child_errno : -EIO;
                goto out_mask;
        }

        int64_t deadline = p->timeout_ms > 0 ? now_ms() + p->timeout_ms : -1;
        if (in_p[1] >= 0) {
                if (p->in_len == 0)
                        close_fd(&in_p[1]);
                else
                        (void) fcntl(in_p[1], F_SETFL, fcntl(in_p[1], F_GETFL) | O_NONBLOCK);
        }

        r = pump(p, &in_p[1], &out_p[0], &err_p[0], deadline, &epipe);
        if (r >= 0) {
                if (deadline >= 0)
                        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
                r = wait_deadline(pid, pidfd, deadline, &status);
        }
        if (r < 0) {
                /* Timed out or an I/O error: the child must not outlive the call. */
                (void) kill(pid, SIGKILL);
                (void) wait_blocking(pid, &status);
        } else if (WIFEXITED(status))
                r = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
                r = 128 + WTERMSIG(status);
        else
                r = -EIO;

out_mask:
        if (epipe && !pipe_was_pending) {
                struct timespec zero = { 0, 0 };
                (void) sigtimedwait(&pipe_set, NULL, &zero);
        }
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
out_close:
        close_fd(&pidfd);
        close_fd(&in_p[0]);
        close_fd(&in_p[1]);
        close_fd(&out_p[0]);
        close_fd(&out_p[1]);
        close_fd(&err_p[0]);
        close_fd(&err_p[1]);
        close_fd(&st_p[0]);
        close_fd(&st_p[1]);
        return r;
}

/* --- a function called as another user ------------------------------------------------------- */

/* All of buf to fd (a pipe: short writes and EINTR taken); 0 or a negative errno. */
static int write_all(int fd, const void *buf, size_t len) {
        const char *p = buf;
        while (len) {
                ssize_t k = write(fd, p, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -EIO;
                p += k;
                len -= (size_t) k;
        }
        return 0;
}

/* The child's answer on the pipe: fn's return value, then up to out_max bytes. */
static _noreturn_ void child_call(uid_t uid, gid_t gid, size_t out_max, int (*fn)(void *, struct strbuf *),
        void *userdata, int wfd) {
        struct strbuf out = STRBUF_INIT;
        int32_t r;

        if (uid == PROC_CALL_SAME_USER)
                r = fn(userdata, &out);
        else if (setgroups(1, &gid) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
                r = -EPERM;
        else if (uid != 0 && (setuid(0) == 0 || geteuid() == 0))
                r = -EPERM; /* must not be able to come back */
        else
                r = fn(userdata, &out);
        if (out.len > out_max)
                strbuf_setlen(&out, out_max);
        /* the answer may be larger than the pipe: written in full (the parent reads meanwhile) */
        (void) write_all(wfd, &r, sizeof(r));
        if (out.len)
                (void) write_all(wfd, out.buf, out.len);
        _exit(0);
}

int proc_run_background(struct proc *p, pid_t *ret_pid) {
        if (!p || p->argv.n == 0)
                return -EINVAL;
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                int r = proc_run(p);
                _exit(r < 0 ? 127 : r & 0xff);
        }
        *ret_pid = pid;
        return 0;
}

int proc_reap(pid_t pid, int *ret_status) {
        int status = 0;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r < 0)
                return -errno;
        if (r == 0)
                return 0;
        if (ret_status)
                *ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return 1;
}

int proc_call_as(uid_t uid, gid_t gid, int timeout_ms, int (*fn)(void *userdata, struct strbuf *out),
        void *userdata, struct strbuf *ret_out) {
        return proc_call_max(uid, gid, timeout_ms, PROC_CALL_OUT_MAX, fn, userdata, ret_out);
}

int proc_call_max(uid_t uid, gid_t gid, int timeout_ms, size_t out_max,
        int (*fn)(void *userdata, struct strbuf *out), void *userdata, struct strbuf *ret_out) {
        _cleanup_strbuf_ struct strbuf answer = STRBUF_INIT;
        int p[2] = { -1, -1 }, pidfd = -1, status = 0, r;
        int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : -1;
        pid_t pid;

        if (!fn)
                return -EINVAL;
        if (ret_out)
                strbuf_reset(ret_out);
        r = pipe_cloexec(p);
        if (r < 0)
                return r;
        pid = fork();
        if (pid < 0) {
                r = -errno;
                close_fd(&p[0]);
                close_fd(&p[1]);
                return r;
        }
        if (pid == 0) {
                close_fd(&p[0]);
                child_call(uid, gid, out_max, fn, userdata, p[1]);
        }
        close_fd(&p[1]);
        /* the answer, until EOF (the child exited) or the deadline */
        for (;;) {
                int left = remaining_ms(deadline);
                if (left == 0) {
                        r = -ETIME;
                        break;
                }
                struct pollfd pfd = { .fd = p[0], .events = POLLIN };
                int k = poll(&pfd, 1, left);
                if (k < 0 && errno != EINTR) {
                        r = -errno;
                        break;
                }
                if (k <= 0)
                        continue;
                strbuf_grow(&answer, PROC_IO_CHUNK);
                ssize_t n = read(p[0], answer.buf + answer.len, answer.alloc - answer.len - 1);
                if (n < 0 && errno != EINTR && errno != EAGAIN) {
                        r = -errno;
                        break;
                }
                if (n == 0) {
                        r = 0;
                        break;
                }
                if (n > 0)
                        strbuf_setlen(&answer, answer.len + (size_t) n);
                if (answer.len > sizeof(int32_t) + out_max) {
                        r = -EPROTO;
                        break;
                }
        }
        close_fd(&p[0]);
        if (r < 0) {
                (void) kill(pid, SIGKILL);
                (void) wait_blocking(pid, &status);
                return r;
        }
        if (deadline >= 0)
                pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        r = wait_deadline(pid, pidfd, deadline, &status);
        close_fd(&pidfd);
        if (r < 0) {
                (void) kill(pid, SIGKILL);
                (void) wait_blocking(pid, &status);
                return r;
        }
        if (answer.len < sizeof(int32_t))
                return -ECHILD;
        int32_t v;
        memcpy(&v, answer.buf, sizeof(v));
        if (ret_out)
                strbuf_add(ret_out, answer.buf + sizeof(v), answer.len - sizeof(v));
        return v;
}

int proc_thread_named(pid_t pid, const char *name) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/task", (long) pid);
        _cleanup_closedir_ DIR *d = opendir(path);
        struct dirent *de;
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char comm_path[128], comm[64];
                snprintf(comm_path, sizeof comm_path, "%s/%s/comm", path, de->d_name);
                _cleanup_close_ int fd = open(comm_path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue; /* the thread ended meanwhile */
                ssize_t n = read(fd, comm, sizeof comm - 1);
                if (n <= 0)
                        continue;
                comm[n] = '\0';
                comm[strcspn(comm, "\n")] = '\0';
                if (streq(comm, name))
                        return 1;
        }
        return 0;
}

/* Reads the state (field 3), the parent (field 4) and the start time (field 22) of
 * /proc/PID/stat; each return pointer may be NULL. */
static int pid_stat_fields(pid_t pid, char *ret_state, pid_t *ret_ppid, unsigned long long *ret_start) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        const char *p = strrchr(data, ')');
        if (!p || p[1] != ' ')
                return -EIO;
        p += 2; /* field 3: state */
        char state = *p;
        char *end;
        long ppid = 0;
        unsigned long long start = 0;
        for (int field = 3; field < 22; field++) {
                p = strchr(p, ' ');
                if (!p)
                        return -EIO;
                p++;
                if (field + 1 == 4) {
                        errno = 0;
                        ppid = strtol(p, &end, 10);
                        if (errno || end == p)
                                return -EIO;
                }
        }
        errno = 0;
        start = strtoull(p, &end, 10);
        if (errno || end == p)
                return -EIO;
        if (ret_state)
                *ret_state = state;
        if (ret_ppid)
                *ret_ppid = (pid_t) ppid;
        if (ret_start)
                *ret_start = start;
        return 0;
}

int proc_pid_stat(pid_t pid, unsigned long long *ret_start, char *ret_state) {
        return pid_stat_fields(pid, ret_state, NULL, ret_start);
}

int proc_pid_started(pid_t pid, int64_t *ret_ms) {
        unsigned long long start;
        int r = proc_pid_stat(pid, &start, NULL);
        if (r < 0)
                return r;
        /* the start time counts clock ticks on the boot-time clock (not /proc/uptime, which a
         * container's lxcfs rewrites) */
        struct timespec boot, real;
        long hz = sysconf(_SC_CLK_TCK);
        if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) < 0 || clock_gettime(CLOCK_REALTIME, &real) < 0)
                return -EIO;
        int64_t boot_ms = (int64_t) boot.tv_sec * 1000 + boot.tv_nsec / 1000000;
        int64_t start_ms = (int64_t) (start / (unsigned long long) hz) * 1000 +
                (int64_t) (start % (unsigned long long) hz) * 1000 / hz;
        int64_t age = boot_ms > start_ms ? boot_ms - start_ms : 0;
        *ret_ms = (int64_t) real.tv_sec * 1000 + real.tv_nsec / 1000000 - age;
        return 0;
}

int proc_pid_parent(pid_t pid, pid_t *ret) {
        return pid_stat_fields(pid, NULL, ret, NULL);
}

#define DELETED_SUFFIX " (deleted)"

char *proc_pid_program(pid_t pid) {
        char link[64], buf[PATH_MAX];
        snprintf(link, sizeof(link), "/proc/%d/exe", (int) pid);
        ssize_t n = readlink(link, buf, sizeof(buf) - 1);
        if (n <= 0)
                return NULL;
        buf[n] = '\0';
        size_t sl = strlen(DELETED_SUFFIX);
        if ((size_t) n > sl && streq(buf + n - sl, DELETED_SUFFIX))
                buf[n - sl] = '\0';
        return xstrdup(buf);
}

/* True when pid still is the process recorded with that start time, and not a zombie. */
bool proc_pid_alive(pid_t pid, unsigned long long starttime) {
        unsigned long long s;
        char state;
        if (pid <= 1 || proc_pid_stat(pid, &s, &state) < 0)
                return false;
        return s == starttime && state != 'Z' && state != 'X';
}

int proc_pidfd_open(pid_t pid) {
        int fd = (int) syscall(SYS_pidfd_open, pid, 0);
        return fd < 0 ? -errno : fd; /* (pidfd_open's fds are close-on-exec) */
}

int proc_pidfd_kill(int fd, int sig) {
        return syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) < 0 ? -errno : 0;
}
