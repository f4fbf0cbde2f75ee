/* SPDX-License-Identifier: Apache-2.0 */
/* The sack guard: no libslurm call waits for ever on a stopped local daemon's credential.
 *
 * auth/slurm (23.11+, the charms' 24.11) gives a client no key: each request's credential comes
 * from a local daemon's sack socket (/run/slurm, /run/slurmctld, /run/slurmdbd: Slurm's
 * sack_api.c sack_create: connect, write the request, then read the answer with no timeout, in
 * a loop that retries on EINTR, so no signal ends it either). A daemon stopped after its
 * listening socket was made (SIGSTOP, a debugger, a frozen cgroup) accepts the connection into
 * its backlog and never answers: the hook that asked waits for ever, holding its machine's hook
 * lock (CI: a status refresh on the controller's machine waited 120 s, until the test resumed
 * slurmctld; slurmctld then refused every late request, its token expired). MessageTimeout
 * bounds only the RPC after the credential.
 *
 * sack_guard_start() starts one thread per process (a forked child that calls it again gets its
 * own: the parent's thread is not in the child) that looks at the process's open sockets every
 * tick; one connected to a sack socket for longer than the limit, whose daemon is stopped, is
 * shut down: the read sees its end, sack_create fails, and the libslurm call returns an
 * authentication error to its caller, who says so as for any failed call. After a cut the calls
 * of the next minute to a stopped daemon are cut after the short limit (a hook's later calls
 * would each wait the full one); a daemon process (the sentinel, the watchers) is back on the
 * full limit after that. A daemon that runs is left its time (a slurmctld that starts, or takes
 * over, under load: cutting it would fail a hook that only had to wait): its wait is cut only
 * after the wedged limit, two minutes of a running daemon that does not answer (a deadlock, a
 * frozen cgroup, whose tasks show S or D).
 *
 * Which daemon: the socket's peer (SO_PEERCRED) is the process that called listen(), as it was
 * then. 24.11 keeps the listening socket across a reconfigure's re-exec (sack.c
 * SACK_RECONFIG_FD), whose new process has another pid: so for Slurm's own paths the daemons of
 * that path are looked up by name (proc_thread_named: slurmctld; slurmdbd; slurmd or sackd) and
 * the peer pid counts only while it is one of them; a path of the caller's (tests) takes the
 * peer pid as it is. Stopped: any of them in state T or t. None found: unknown, and an unknown
 * daemon is cut at the limit as a stopped one is (the guard's first rule: no wait for ever).
 * A sack exchange with a running daemon takes milliseconds.
 *
 * The thread only reads /proc, fstat()s, getpeername()s, getsockopt()s, dup()s and shutdown()s:
 * no libslurm state. A descriptor is cut only when it is still the same socket (device and
 * inode) that was seen connected since the limit began; the shutdown goes through a duplicate
 * checked again, so a number closed and reused meanwhile is never touched. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SACK_GUARD_TICK_MS 200
#define SACK_GUARD_LIMIT_MS 15000 /* the first wait cut */
#define SACK_GUARD_AGAIN_MS 1500  /* each one soon after a cut, the daemon found silent */
#define SACK_GUARD_AGAIN_FOR_MS 60000 /* how soon */
#define SACK_GUARD_WEDGED_MS 120000   /* a daemon that runs (not stopped) and does not answer */
#define SACK_TRACK_MAX 64

struct sack_guard_opts {
        const char *const *paths; /* the sack sockets (NULL: Slurm's three, with their daemons) */
        const char *const (*daemons)[3]; /* per path, up to 3 comm names (NULL: the peer pid only) */
        size_t n_paths;
        unsigned tick_ms, limit_ms, again_ms, again_for_ms, wedged_ms; /* 0: the defaults above */
};

/* Starts the guard (o NULL: the defaults) once per process; 0 or negative errno. */
int sack_guard_start(const struct sack_guard_opts *o);
/* How many waits this process's guard has cut. */
unsigned sack_guard_cuts(void);

/* --- the bookkeeping, pure (the unit test's) --------------------------------------------------- */

/* A sack connection seen: its descriptor, its identity, since when. */
struct sack_seen {
        int fd;
        uint64_t dev, ino;
        int64_t since_ms;
};
struct sack_track {
        struct sack_seen v[SACK_TRACK_MAX];
        size_t n;
};

/* Whether a wait of age_ms on a daemon in /proc state peer_state is cut now: 'T'/'t' stopped,
 * '?' unknown (both at the limit, or the short one when recent_cut: the last cut was within
 * again_for_ms), any other state at wedged_ms. */
bool sack_cut_due(char peer_state, int64_t age_ms, bool recent_cut, unsigned limit_ms, unsigned again_ms,
        unsigned wedged_ms);

/* Takes the sack connections open now (now[0..n)), keeping the time each was first seen (a
 * descriptor that now names another socket starts again; those gone are dropped); stores in
 * due[] the indices into now of those open for limit_ms or longer and returns their count. */
size_t sack_track_step(struct sack_track *t, const struct sack_seen *now, size_t n, int64_t now_ms,
        unsigned limit_ms, size_t *due);
