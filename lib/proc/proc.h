/* SPDX-License-Identifier: Apache-2.0 */
/* Run a child program (git's run-command): argv only, never a shell; optional stdin bytes;
 * stdout and stderr captured (polled together, so a full pipe cannot block the other).
 *
 * Return rule of proc_run(), written once here:
 *   < 0      the child could not be run: fork/pipe failure, or exec failed (-ENOENT: not found
 *            on PATH, -EACCES: not executable, …), or -ETIME when timeout_ms expired (the child
 *            was killed with SIGKILL and reaped);
 *   0..255   the child's exit status;
 *   128 + N  the child was killed by signal N.
 * Exec errors travel back through a close-on-exec status pipe, so "could not exec" (< 0) is never
 * confused with a program that ran and exited 127. argv[0] without a '/' is searched on PATH as
 * execvp() does (but never through a shell, and no ENOEXEC fallback); with env_set the PATH comes
 * from env. The child gets only fds 0/1/2, an empty signal mask and default signal dispositions.
 * SIGPIPE raised by writing stdin to a child that stopped reading is swallowed, not delivered.
 * A timeout covers the whole run (I/O and exit) and kills only the child, not its descendants;
 * without one, a descendant that keeps a captured pipe open makes proc_run() wait for it.
 * proc_run() empties out and err first.
 * Ownership: struct proc owns argv, env, out and err; proc_clear() frees them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/strbuf.h"
#include "util/strv.h"

struct proc {
        struct strv argv; /* argv[0] is searched on PATH unless it contains a '/' */
        struct strv env;  /* the child's whole environment when env_set, else the caller's */
        bool env_set;
        const char *cwd; /* NULL: inherit */
        const void *in;  /* bytes written to the child's stdin; NULL: /dev/null */
        size_t in_len;
        bool capture_out; /* capture stdout into out, else inherit */
        bool capture_err; /* capture stderr into err, else inherit */
        int timeout_ms;   /* 0: wait for ever */
        struct strbuf out;
        struct strbuf err;
};

#define PROC_INIT \
        { .argv = STRV_INIT, .env = STRV_INIT, .out = STRBUF_INIT, .err = STRBUF_INIT }

int proc_run(struct proc *p);
void proc_clear(struct proc *p);

/* proc_run(p) in a forked child, without waiting: for a loop that must not stop while the
 * program runs (a daemon asking the charm to run, charm/slurmctld/sentinel.h). The child runs p (its
 * timeout_ms bounds it) and exits with proc_run's status (0..255; 127 when it could not run it
 * at all); nothing is captured back. *ret_pid is the child's; reap it with proc_reap(). Returns
 * 0 or a negative errno (fork). */
int proc_run_background(struct proc *p, pid_t *ret_pid);
/* Whether the background child pid ended (reaped then, its exit status in *ret_status when not
 * NULL): 1 ended, 0 still running, negative errno (-ECHILD: no such child). Never waits. */
int proc_reap(pid_t pid, int *ret_status);
/* Calls fn(userdata, out) in a forked child that first becomes uid:gid (supplementary groups
 * set to gid alone, then setgid, then setuid; a child that could regain root afterwards
 * gives up). For work that must be done AS another user, not merely with its files: Slurm
 * accepts a trigger only from SlurmUser, and its munge credential names the caller's uid.
 * What fn appends to out (at most PROC_CALL_OUT_MAX bytes) comes back in ret_out (may be NULL;
 * emptied first). The child never returns into the caller's code: it _exit()s, so atexit
 * handlers and stdio buffers stay the parent's.
 * Returns fn's return value (0, a positive count or a negative errno), -EPERM when the child
 * could not become uid:gid, -ETIME when timeout_ms (> 0) expired (the child is killed), -ECHILD
 * when the child died without an answer, another negative errno when fork or pipe failed. */
#define PROC_CALL_OUT_MAX (64 * 1024)
int proc_call_as(uid_t uid, gid_t gid, int timeout_ms, int (*fn)(void *userdata, struct strbuf *out),
        void *userdata, struct strbuf *ret_out);
/* proc_call_as() with the answer's cap out_max (more is cut there), and uid
 * PROC_CALL_SAME_USER: the child stays the caller's user (for work that must only not hold the
 * caller: a libslurm call a controller may never answer, the metrics exporter's scrape). */
#define PROC_CALL_SAME_USER ((uid_t) -1)
int proc_call_max(uid_t uid, gid_t gid, int timeout_ms, size_t out_max,
        int (*fn)(void *userdata, struct strbuf *out), void *userdata, struct strbuf *ret_out);

/* Whether process pid has a thread whose name (/proc/<pid>/task/<tid>/comm, what
 * prctl(PR_SET_NAME) / pthread_setname_np set, at most 15 bytes) is name: 1 yes, 0 no,
 * -ENOENT when there is no such process, another negative errno when it cannot be read. */
int proc_thread_named(pid_t pid, const char *name);
/* Field 22 of /proc/<pid>/stat (the start time, clock ticks since boot) and the state letter:
 * 0, -ESRCH when there is no such process, -EIO when the file cannot be parsed. */
int proc_pid_stat(pid_t pid, unsigned long long *ret_start, char *ret_state);
/* A state letter of proc_pid_stat() that is a stopped process: T (a signal) or t (a tracer). */
static inline bool proc_state_stopped(char state) {
        return state == 'T' || state == 't';
}
/* When process pid started, in milliseconds since the epoch (its start time in clock ticks on
 * the boot-time clock, against that clock and the wall clock now: the tick's precision, and a
 * wall clock stepped since its start moves it too): 0, or -ESRCH / -EIO as proc_pid_stat(). */
int proc_pid_started(pid_t pid, int64_t *ret_ms);
/* Field 4 of /proc/<pid>/stat, the parent's PID (in the reader's PID namespace; 0 when the
 * parent is outside it): 0, -ESRCH, -EIO as proc_pid_stat(). */
int proc_pid_parent(pid_t pid, pid_t *ret);
/* The program a process runs: where /proc/<pid>/exe leads (a replaced binary's " (deleted)"
 * dropped). NULL when it cannot be read (the process is gone or a zombie). */
char *proc_pid_program(pid_t pid);
/* Whether pid still is the process that started at starttime, and not a zombie (a pid reused by
 * another process is not). */
bool proc_pid_alive(pid_t pid, unsigned long long starttime);
/* A pidfd of process pid (pidfd_open(2), close-on-exec): it names that very process from now
 * on, a pid reused later is not it. The fd, or a negative errno (-ESRCH: no such process,
 * -ENOSYS: a kernel before 5.3). */
int proc_pidfd_open(pid_t pid);
/* Sends sig to the process of pidfd fd (pidfd_send_signal(2)): 0 (a zombie too), -ESRCH once
 * it has been waited for, another negative errno. */
int proc_pidfd_kill(int fd, int sig);

static inline void proc_clearp(struct proc *p) {
        proc_clear(p);
}
#define _cleanup_proc_ __attribute__((__cleanup__(proc_clearp)))
