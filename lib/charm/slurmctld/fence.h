/* SPDX-License-Identifier: Apache-2.0 */
/* Fencing a returning controller (issue 25, item 1): a slurmctld that another controller
 * replaced while it was frozen never serves again with the memory it had.
 *
 * Design note (facts of Slurm 22.05 and 24.11, HACKING.md "High availability": read in their
 * source). A slurmctld stopped (SIGSTOP, a paused VM, a hang) for longer than SlurmctldTimeout
 * is replaced by a backup, which reads the shared state and writes the heartbeat with its own
 * index. When the old one continues it keeps its memory from before: nothing in it re-reads
 * state or looks at the heartbeat. It answers RPCs at once, writes the heartbeat, and (when it
 * is index 0) asks the backup for control within a second; the backup saves and steps down, or
 * dies at its next save ("Two slurmctld daemons are running as primary", a fatal() only a
 * backup takes), and the stale memory is written over the shared state: jobs submitted
 * meanwhile vanish, ids are handed out twice. Slurm has no epoch, lease or hook that could
 * stop it; only killing the stale process before it runs again does (a fresh start asks for
 * control first and then reads the state the one in charge saved).
 *
 * So the controller sentinel (charm/slurmctld/sentinel.h), a process of its own on every controller unit,
 * looks every tick at its slurmctld's main process (pid, /proc state), the heartbeat and its
 * own loop's timing, and fence_judge() says when to kill:
 *  - its slurmctld (this pid) is stopped (T) while in charge, its heartbeat SlurmctldTimeout - 2 s
 *    old, and no other controller took charge yet → relieved: told to save its state and exit
 *    (below, "The relief"); stopped or traced (t) and seen only later → killed;
 *  - its slurmctld (this pid) wrote the heartbeat before, another index writes it now, and the
 *    process is stopped (T/t: it cannot be saving anything) → kill, before it is continued;
 *  - the same while it has been in uninterruptible sleep (D) for SlurmctldTimeout (a hang on the
 *    state directory: the kill lands when the call returns, before it runs on);
 *  - the sentinel itself came at least SlurmctldTimeout late to a look (the whole machine was
 *    frozen: a paused VM) while its slurmctld had been in charge, and the charge mark that
 *    the sentinel of the controller in charge keeps in the shared directory
 *    (ha_charge_mark_write: the heartbeat itself may already be the stale process's again)
 *    names another controller, written after the freeze began → kill at once. A sentinel that
 *    was merely starved is not fooled: no other controller noted charge meanwhile. This one
 *    is a race: the machine's processes continue together, and
 *    slurmctld's own threads may answer, write the heartbeat, ask for control or save in the
 *    milliseconds before the sentinel's kill. Only fencing from outside the machine (STONITH,
 *    a storage fence) closes it.
 * A running slurmctld that another controller legitimately relieved (a failback, a takeover:
 * it exits or steps down to standby) is never judged stale: only a stopped, hung or frozen one.
 * One controller alone is never fenced (no one could have replaced it).
 *
 * After the kill the sentinel stops slurmctld.service (cancelling systemd's restart) and writes
 * the fence record (FENCE_FILE in the unit's state directory: when, why, the index in charge);
 * every charm path that starts slurmctld holds it down while the record is there (the unit's
 * status says so). The sentinel lifts it (fence_lift_due()) once the controller in charge
 * accepts connections from this machine, so that the fresh start's request for control
 * reaches it (22.05 and 24.11 ignore an unreachable one and take control with what is on
 * disk: a second split brain), or once no other controller has written the heartbeat for
 * SlurmctldTimeout since the fence (then no one else is in charge).
 *
 * Ownership: pure functions; the record functions return malloc'd strings to the caller. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"

#define FENCE_FILE "fenced"

/* What the sentinel remembers between looks. */
struct fence_watch {
        uint32_t pid;    /* the slurmctld main pid the record is about (0: none) */
        time_t own_beat; /* the last heartbeat time seen with this unit's index while pid ran */
        time_t d_since;  /* since when pid has been in state D (0: not) */
        uint64_t slept_usec; /* the longest oversleep seen while pid ran, kept SlurmctldTimeout
                              * after the look that saw it: the first look after a thaw may be
                              * an incomplete one (a D-Bus call that timed out, no heartbeat) */
        time_t woke;         /* when that look was */
};

/* One look. */
struct fence_look {
        uint32_t pid;        /* slurmctld's main pid now (0: not running) */
        char state;          /* its /proc state letter (R, S, D, T, t, Z, …), 0 when unknown */
        int self;            /* this host's index among the controllers (-1: not one) */
        int n_ctl;           /* how many controllers */
        bool have_beat;      /* the heartbeat could be read */
        time_t beat_time;    /* its time */
        uint64_t beat_index; /* its writer's index */
        time_t now;
        unsigned timeout_s;     /* SlurmctldTimeout */
        uint64_t overslept_usec; /* how much later than planned this look came (a frozen machine) */
        bool have_mark;          /* the sentinels' charge mark (ha_charge_mark_read) */
        bool mark_other;         /* written by another machine's sentinel (by its host; its index
                                  * when the mark names none: indexes change with the order) */
        long mark_index;
        const char *mark_host;   /* for the message; NULL: "controller <index>" */
        bool takeover_self;      /* this unit announced a takeover lately (ha_takeover_mark) */
        time_t mark_time;
};

enum fence_verdict {
        FENCE_KEEP,
        FENCE_KILL,
        FENCE_RELIEVE, /* stopped (T) in charge, no one else yet: SIGTERM, then SIGCONT */
};

/* Updates w with the look and says whether pid must be killed, or relieved; why (may be NULL)
 * gets one line when it must: "slurmctld (pid 123) stopped while controller 1 took charge".
 * Pure. */
enum fence_verdict fence_judge(struct fence_watch *w, const struct fence_look *l, struct strbuf *why);

/* The relief (issue 25, attack 4 F-C). A slurmctld stopped with SIGSTOP (state T) while in
 * charge, on a machine that runs on (its sentinel looks), has a memory that is not stale yet:
 * no backup takes over before its heartbeat is older than SlurmctldTimeout (22.05 and 24.11
 * backup.c: `now - max(last answer, last heartbeat) > SlurmctldTimeout`, whole seconds), and
 * a look that finds it T - 2 or T - 1 s old comes at least a second before that (two looks of
 * the sentinel's 1 s tick fall in that window). The kill at T - 1 lost
 * what slurmctld had not saved yet: a submission waits for its save up to 5 s (state_save.c,
 * SAVE_MAX_WAIT), so jobs that had their ids were gone after the failover. Relieved instead:
 * SIGTERM while it is stopped, then SIGCONT, so that it goes straight into its shutdown, which
 * saves all state and stops its heartbeat last (controller.c): it writes the heartbeat on the
 * way, so no backup takes over meanwhile. The fence record is written before the signals, so
 * nothing starts it again. Relieved only from a look that was not late itself (a sentinel stalled
 * between its look and its signals is what could meet a backup's takeover) and while no other
 * machine's sentinel marked charge since its last beat; a process traced (t) or hung (D), or one
 * seen stopped only at T - 1 by a late look, is killed as before.
 * The relief is recorded (FENCE_RELIEF_FILE: pid, time, last beat before the stop) before the
 * signals, so that a sentinel restarted meanwhile takes it up again (attack 53 F1: a restarted
 * sentinel forgot it, lifted the fence while the relieved process hung in its exit writing
 * beats, and no controller was in charge for 220 s).
 * While it exits, fence_relief_judge() kills it after all when another controller writes the
 * heartbeat (it would save over that one's state), it is stopped again, its own heartbeat
 * stops for SlurmctldTimeout - 1 s while it lives, or it has not exited within
 * fence_relief_max_s(T) (its beats keep the backups waiting meanwhile: the relief may delay a
 * failover by that much at most). Once it is gone (or killed), the beats its exit wrote are
 * rewound to its last beat before the stop (fence_rewind_due()), so that a backup takes over
 * when it would have after a kill, not SlurmctldTimeout after the exit, and the fence stays.
 * But when this unit is the primary (index 0) and another controller's machine answers from
 * here (its link is up: a process stop, not a lost machine), the fence is lifted at once and the
 * charm starts slurmctld again: as the primary it asks the others for control and reads the
 * state it has just saved (a backup that got an answer during the exit would otherwise wait
 * SlurmctldTimeout from that answer, and the fence's own lift came after the same wait: about
 * twice SlurmctldTimeout with no controller, attack 53 F4). A backup in charge restarted so
 * would start as a standby and wait SlurmctldTimeout itself: it stays fenced.
 * Left as Slurm does it: requests that queued on its socket while it was stopped run when it
 * goes on, also those whose clients gave up ("Socket timed out"): a job submitted so exists
 * though its user was told it failed (attack 53 F3; the same happens with any controller slower
 * than MessageTimeout). */
#define FENCE_RELIEF_FILE "fence-relief"
/* how long a relieved slurmctld may take to exit: SlurmctldTimeout, within 5 and 60 s */
unsigned fence_relief_max_s(unsigned timeout_s);
/* the heartbeat's age (s) from which a stopped slurmctld is relieved: T - 2 (T - 1 for T <= 3) */
unsigned fence_relief_from(unsigned timeout_s);
/* a look later than this (the sentinel's oversleep) is no ground for a relief */
#define FENCE_RELIEF_LATE_USEC 1000000ULL
struct fence_relief {
        uint32_t pid;       /* the process told to exit (0: none) */
        time_t since;       /* when */
        time_t beat_before; /* the heartbeat's time at that look: its last beat before the stop */
};
/* While r->pid runs (l->pid == r->pid): FENCE_KILL with why, or FENCE_KEEP. Pure. */
enum fence_verdict fence_relief_judge(const struct fence_relief *r, const struct fence_look *l, struct strbuf *why);
/* The relief record (FENCE_RELIEF_FILE in the unit's state directory, "<pid> <since>
 * <beat_before>\n", atomically): 0 or a negative errno (err); read: 1 and *ret, 0 when there is
 * none, -EINVAL when it cannot be read as one; clear: 0 also when there was none. */
int fence_relief_write(const struct charm_paths *p, const struct fence_relief *r, struct strbuf *err);
int fence_relief_read(const struct charm_paths *p, struct fence_relief *ret);
int fence_relief_clear(const struct charm_paths *p, struct strbuf *err);
/* Once r->pid is gone: whether the heartbeat (have_beat, its time and index) is one its exit
 * wrote (this unit's index, written since the relief began), to be put back to r->beat_before.
 * Pure. */
bool fence_rewind_due(const struct fence_relief *r, bool have_beat, time_t beat_time, uint64_t beat_index, int self);

/* Whether the fence written at since may be lifted, given the heartbeat (have_beat, its time
 * and index), this host's index, now, SlurmctldTimeout, whether the controller that wrote
 * the heartbeat accepts connections from here, and whether any other controller's machine
 * answers from here at all (charm_host_reachable: a refused connect counts). Pure. */
bool fence_lift_due(time_t since, bool have_beat, time_t beat_time, uint64_t beat_index, int self, time_t now,
        unsigned timeout_s, bool writer_reachable, bool peers_reachable);

/* The record: "<time> <index in charge or -1> <why>\n" in <state dir>/FENCE_FILE, written
 * atomically. */
int fence_record_write(
        const struct charm_paths *p, time_t since, long in_charge, const char *why, struct strbuf *err);
/* 1 and the record's parts (*ret_why malloc'd; any pointer may be NULL), 0 when there is none,
 * -EINVAL for a record that cannot be read as one (treated as a fence by callers). */
int fence_record_read(const struct charm_paths *p, time_t *ret_since, long *ret_in_charge, char **ret_why);
/* Removes it (lifts the fence); 0 also when there was none. The record lifted is kept as
 * FENCE_LAST_FILE, for fence_since(). */
int fence_record_clear(const struct charm_paths *p, struct strbuf *err);
#define FENCE_LAST_FILE "fenced.last"
/* Whether the sentinel fenced this unit at or after `from`: the record there now, or the last
 * one lifted. A hook whose slurmctld start failed asks it: the sentinel may have killed the
 * new process (it took charge while another controller was in charge) and lifted the fence
 * again before the hook looked, and such a failure is no verdict on the file (ctlapply.h).
 * 1 with the record's reason (*ret_why malloc'd, may be NULL), 0 when not. */
int fence_since(const struct charm_paths *p, time_t from, char **ret_why);
