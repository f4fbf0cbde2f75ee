/* SPDX-License-Identifier: Apache-2.0 */
/* The sack guard (sackguard.h): a thread that cuts a credential wait on a stopped daemon. */
#include "util/macro.h"
#include "slurm/sackguard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "proc/proc.h"

#include "util/banned.h"

static const char *const default_paths[] = { "/run/slurm/sack.socket", "/run/slurmctld/sack.socket",
        "/run/slurmdbd/sack.socket" };
/* the daemons that serve each default path (a thread so named, proc_thread_named) */
static const char *const default_daemons[][3] = { { "slurmd", "sackd", NULL }, { "slurmctld", NULL, NULL },
        { "slurmdbd", NULL, NULL } };

size_t sack_track_step(struct sack_track *t, const struct sack_seen *now, size_t n, int64_t now_ms,
        unsigned limit_ms, size_t *due) {
        struct sack_track next = { .n = 0 };
        size_t n_due = 0;
        for (size_t i = 0; i < n && next.n < SACK_TRACK_MAX; i++) {
                int64_t since = now_ms;
                for (size_t j = 0; j < t->n; j++)
                        if (t->v[j].fd == now[i].fd && t->v[j].dev == now[i].dev && t->v[j].ino == now[i].ino) {
                                since = t->v[j].since_ms;
                                break;
                        }
                next.v[next.n] = now[i];
                next.v[next.n].since_ms = since;
                next.n++;
                if (now_ms - since >= (int64_t) limit_ms)
                        due[n_due++] = i;
        }
        *t = next;
        return n_due;
}

bool sack_cut_due(char peer_state, int64_t age_ms, bool recent_cut, unsigned limit_ms, unsigned again_ms,
        unsigned wedged_ms) {
        if (proc_state_stopped(peer_state) || peer_state == '?')
                return age_ms >= (int64_t) (recent_cut ? again_ms : limit_ms);
        return age_ms >= (int64_t) wedged_ms;
}

struct guard {
        const char *const *paths;
        const char *const (*daemons)[3]; /* per path (NULL: the caller's paths, peer pid only) */
        size_t n_paths;
        unsigned tick_ms, limit_ms, again_ms, again_for_ms, wedged_ms;
};

static struct guard guard;
static pid_t started_pid;
static atomic_uint cuts;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned sack_guard_cuts(void) {
        return atomic_load(&cuts);
}

static int64_t mono_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* fd is a socket connected to one of the guard's paths: the path's index + 1 (its identity in
 * *st), else 0 */
static int sack_peer(const struct guard *g, int fd, struct stat *st) {
        if (fstat(fd, st) < 0 || !S_ISSOCK(st->st_mode))
                return 0;
        struct sockaddr_un sa;
        socklen_t len = sizeof sa;
        memset(&sa, 0, sizeof sa);
        if (getpeername(fd, (struct sockaddr *) &sa, &len) < 0 || sa.sun_family != AF_UNIX ||
                len <= offsetof(struct sockaddr_un, sun_path))
                return 0;
        size_t plen = strnlen(sa.sun_path, len - offsetof(struct sockaddr_un, sun_path));
        for (size_t i = 0; i < g->n_paths; i++)
                if (strlen(g->paths[i]) == plen && memcmp(g->paths[i], sa.sun_path, plen) == 0)
                        return (int) i + 1;
        return 0;
}

/* pid's state letter in /proc/PID/stat ('?' when gone or unreadable) */
static char pid_state(pid_t pid) {
        char st;
        return proc_pid_stat(pid, NULL, &st) < 0 ? '?' : st;
}

/* pid is one of names (a thread of it so named: the main thread's is the process's comm) */
static bool named(pid_t pid, const char *const *names) {
        for (size_t i = 0; i < 3 && names[i]; i++)
                if (proc_thread_named(pid, names[i]) == 1)
                        return true;
        return false;
}

/* the state of the daemon serving the connection fd of path index at: 'T' stopped, '?'
 * unknown, else the state of a running one (sackguard.h, "Which daemon") */
static char daemon_state(const struct guard *g, int fd, int at) {
        struct ucred cred;
        socklen_t len = sizeof cred;
        const char *const *names = g->daemons && g->daemons[at][0] ? g->daemons[at] : NULL;
        pid_t peer = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? cred.pid : 0;
        if (peer > 0) {
                char st = pid_state(peer);
                if (st != '?' && (!names || named(peer, names)))
                        return st;
        }
        if (!names)
                return '?';
        /* the listener re-executed (or the pid is another process's now): by name */
        DIR *d = opendir("/proc");
        if (!d)
                return '?';
        char seen = '?';
        struct dirent *de;
        while ((de = readdir(d))) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                if (pid <= 0 || *end || !named((pid_t) pid, names))
                        continue;
                char st = pid_state((pid_t) pid);
                if (st == '?')
                        continue;
                seen = st;
                if (proc_state_stopped(st))
                        break;
        }
        closedir(d);
        return seen;
}

/* the sack connections open now, at most max */
static size_t scan(const struct guard *g, struct sack_seen *out, size_t max) {
        DIR *d = opendir("/proc/self/fd");
        size_t n = 0;
        if (!d)
                return 0;
        int self = dirfd(d);
        struct dirent *de;
        while (n < max && (de = readdir(d))) {
                char *end;
                long fd = strtol(de->d_name, &end, 10);
                struct stat st;
                if (*de->d_name == '.' || *end || fd < 0 || fd == self)
                        continue;
                if (sack_peer(g, (int) fd, &st))
                        out[n++] = (struct sack_seen){ .fd = (int) fd, .dev = st.st_dev, .ino = st.st_ino };
        }
        closedir(d);
        return n;
}

/* the caller still holds the socket s names: the judgement above takes a while (a walk of
 * /proc), and a wait that ended meanwhile (the caller closed it; our duplicate keeps the socket)
 * is no cut: counting it would shorten the next wait's limit (CI: a connection closed as its
 * daemon stopped was "cut", and the next one cut after the short limit) */
static bool still_open(const struct sack_seen *s) {
        struct stat st;
        return fstat(s->fd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino;
}

static void *guard_loop(void *arg) {
        const struct guard *g = arg;
        struct sack_track t = { .n = 0 };
        struct sack_seen now[SACK_TRACK_MAX];
        size_t due[SACK_TRACK_MAX];
        int64_t last_cut = 0;
        for (;;) {
                struct timespec ts = { .tv_sec = g->tick_ms / 1000, .tv_nsec = (long) (g->tick_ms % 1000) * 1000000 };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
                size_t n = scan(g, now, ELEMENTSOF(now));
                int64_t at = mono_ms();
                bool recent = last_cut && at - last_cut < (int64_t) g->again_for_ms;
                /* the shortest limit names the candidates; each is then judged by its daemon */
                unsigned least = g->again_ms < g->limit_ms ? g->again_ms : g->limit_ms;
                if (g->wedged_ms < least)
                        least = g->wedged_ms;
                size_t n_due = sack_track_step(&t, now, n, at, least, due);
                for (size_t i = 0; i < n_due; i++) {
                        struct stat st;
                        const struct sack_seen *s = &now[due[i]];
                        /* (t.v follows now's order: sack_track_step keeps every one open) */
                        int64_t age = at - t.v[due[i]].since_ms;
                        /* a duplicate, checked to be the very socket: a number closed and reused
                         * meanwhile is someone else's, and the duplicate keeps ours while we look */
                        int dfd = fcntl(s->fd, F_DUPFD_CLOEXEC, 0);
                        if (dfd < 0)
                                continue;
                        int at_path = sack_peer(g, dfd, &st);
                        if (at_path && st.st_dev == s->dev && st.st_ino == s->ino &&
                                sack_cut_due(daemon_state(g, dfd, at_path - 1), age, recent, g->limit_ms,
                                        g->again_ms, g->wedged_ms) &&
                                still_open(s)) {
                                /* counted first: the caller woken by the shutdown sees its cut */
                                atomic_fetch_add(&cuts, 1);
                                if (shutdown(dfd, SHUT_RDWR) == 0)
                                        last_cut = mono_ms();
                                else
                                        atomic_fetch_sub(&cuts, 1);
                        }
                        close(dfd);
                }
        }
        return NULL;
}

int sack_guard_start(const struct sack_guard_opts *o) {
        int r = 0;
        pthread_mutex_lock(&start_lock);
        if (started_pid == getpid())
                goto out;
        guard = (struct guard){
                .paths = o && o->paths ? o->paths : default_paths,
                .daemons = o && o->paths ? o->daemons : default_daemons,
                .n_paths = o && o->paths ? o->n_paths : ELEMENTSOF(default_paths),
                .tick_ms = o && o->tick_ms ? o->tick_ms : SACK_GUARD_TICK_MS,
                .limit_ms = o && o->limit_ms ? o->limit_ms : SACK_GUARD_LIMIT_MS,
                .again_ms = o && o->again_ms ? o->again_ms : SACK_GUARD_AGAIN_MS,
                .again_for_ms = o && o->again_for_ms ? o->again_for_ms : SACK_GUARD_AGAIN_FOR_MS,
                .wedged_ms = o && o->wedged_ms ? o->wedged_ms : SACK_GUARD_WEDGED_MS,
        };
        atomic_store(&cuts, 0);
        /* every signal stays the other threads' (a hook's SIGCHLD, SIGPIPE, its timers) */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        pthread_attr_t attr;
        pthread_t th;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        r = -pthread_create(&th, &attr, guard_loop, &guard);
        pthread_attr_destroy(&attr);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r == 0)
                started_pid = getpid();
out:
        pthread_mutex_unlock(&start_lock);
        return r;
}
