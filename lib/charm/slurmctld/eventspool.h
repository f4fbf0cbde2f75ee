/* SPDX-License-Identifier: Apache-2.0 */
/* The trigger spool: what bin/node-event-trigger (run by slurmctld as SlurmUser, once per
 * trigger) leaves for the node event watcher, and how the watcher picks it up.
 *
 * Layout (EVSPOOL_HOME on each controller host, the same path on every one: with several
 * controllers slurmctld runs the program on whichever host is in charge):
 *   EVSPOOL_HOME/                  root 0755
 *   EVSPOOL_HOME/node-event-trigger  the trigger program, root 0755 (the path slurmctld runs)
 *   EVSPOOL_HOME/spool/            SlurmUser 0700: only SlurmUser (and root) may write there
 *   EVSPOOL_HOME/spool/ev-<ns>-<pid>  one record per trigger run (SlurmUser 0600)
 *   EVSPOOL_HOME/spool/.doorbell   a FIFO (SlurmUser 0600): one byte wakes the watcher
 * The program finds the spool next to itself (/proc/self/exe), so it needs no argument but
 * the trigger's own ("down", then the hostlist slurmctld appends).
 *
 * A record is durable before the watcher can see it: written to a dot-file, fsync'd, renamed
 * to its final name, directory fsync'd; then the doorbell rings (a lost ring is harmless: the
 * watcher reads the whole spool at start, on every ring and on its safety poll). The watcher
 * removes records only after the node event log holds what they said (charm/slurmctld/events.h).
 * Text of a record: "slurm-charm-node-event 1\n<ns since epoch>\n<kind>\n<argument>\n".
 * A spool holding EVSPOOL_MAX_FILES records takes no more (the reconcile still sees every
 * state; only transients would be lost while the watcher is away that long).
 *
 * This file uses libc and lib/util only: the trigger program links nothing else.
 * Functions return 0 (or a count) or a negative errno. Ownership: struct evspool_list owns its
 * strings (evspool_list_done()). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EVSPOOL_HOME "/var/lib/slurm/charm-events"
#define EVSPOOL_PROGRAM "node-event-trigger"
#define EVSPOOL_SUBDIR "spool"
#define EVSPOOL_DOORBELL ".doorbell"
#define EVSPOOL_MAGIC "slurm-charm-node-event 1"
#define EVSPOOL_MAX_FILES 4096
#define EVSPOOL_RECORD_MAX (64 * 1024)

/* --- the trigger program's side ----------------------------------------------------------------- */

/* Makes fds 0, 1 and 2 point to /dev/null where they are closed (slurmctld runs the program
 * with every fd closed: a file opened next must not become "stdout"). */
void evspool_fill_stdio(void);
/* The spool next to the running program: "<dirname of /proc/self/exe>/spool" (caller frees);
 * NULL when /proc/self/exe cannot be read. */
char *evspool_dir_of_self(void);
/* Writes one record durably (see above) and rings the doorbell. kind and arg must hold no
 * newline. Returns 0, 1 when the spool is full (nothing written), or a negative errno. */
int evspool_write(const char *spool, const char *kind, const char *arg, int64_t now_ns);
/* Rings the doorbell alone (a hook that wrote an expectation, charm/slurmctld/expect.h); nothing when no
 * watcher reads it. */
void evspool_ring(const char *spool);

/* --- the watcher's side ------------------------------------------------------------------------------ */

struct evspool_entry {
        char *name; /* file name in the spool */
        bool valid; /* parsed; an invalid record is only removed */
        int64_t time_ms;
        char *kind;
        char *arg;
};
struct evspool_list {
        struct evspool_entry *v;
        size_t n;
};
void evspool_list_done(struct evspool_list *l);

/* Parses a record's text (pure). -EBADMSG when it is not one. */
int evspool_parse(const char *data, size_t len, int64_t *ret_ms, char **ret_kind, char **ret_arg);
/* The records in the spool, oldest first (at most max; 0: EVSPOOL_MAX_FILES). Files that are
 * not regular, too big or unreadable are listed as invalid. -ENOENT without the spool. */
int evspool_read(const char *spool, size_t max, struct evspool_list *ret);
/* Removes the listed records (missing ones are fine). Returns how many were removed. */
int evspool_remove(const char *spool, const struct evspool_list *l);
/* The doorbell's read end, O_RDWR|O_NONBLOCK (a FIFO opened for both never sees EOF): creates
 * the FIFO (mode 0600, owner uid:gid; (uid_t) -1: the caller) or replaces what is not one. */
int evspool_doorbell_open(const char *spool, uid_t uid, gid_t gid, int *ret_fd);
/* Reads whatever rang (non-blocking). */
void evspool_doorbell_drain(int fd);
