/* SPDX-License-Identifier: Apache-2.0 */
/* Bringing the running slurmctld to the slurm.conf the charm wrote: reconfigure, or a safe
 * restart where a reconfigure cannot take the change; back to the last applied file when
 * slurmctld refuses the new one; and a word in the status whenever the running daemon
 * differs from the file.
 *
 * Design note. Slurm's reader (slurm/confcheck.h) catches most bad files before they are
 * written, but slurmctld checks more when it (re)reads the file (plugins load, MaxNodeCount,
 * partitions' nodes…) and some changes a reconfigure does not take at all (slurm.conf(5),
 * read_slurm_conf() of 22.05: AuthType, CredType, SchedulerType, SelectType, SwitchType,
 * BurstBufferType are kept at their old value with an error; MaxNodeCount is fatal). So:
 *  - <state>/slurm.conf.applied holds the bytes slurmctld last took without complaint (the
 *    previous live file when there is no record yet: a charm upgraded from a version without
 *    it). A file that equals it needs nothing, unless the running daemon's hash of the file it
 *    read (slurmconf_file_hash) differs: an admin edited the file and reconfigured by hand.
 *  - only parameters of existing partitions changed, all of them settable on a running
 *    slurmctld (ctl_conf_live_changes, slurm/partitions.h) → slurm_update_partition() per
 *    partition, no restart and no reconfigure (the file keeps them for the next start); the
 *    hash of the file the daemon runs is noted (CTL_LIVE_HASH_FILE), so that the next hook
 *    does not take the daemon's older hash for an admin's hand edit and restart it (it did,
 *    3 times out of 3, at the next update-status: issue 26);
 *  - any other change (an application added or removed, a global key, a key a reconfigure
 *    would not take anyway) → a restart: systemd stop = SIGTERM, slurmctld saves its state;
 *    running jobs keep running under their slurmstepd and are found again; clients retry
 *    meanwhile (measured: 8 sbatch during a restart all succeeded). Never a reconfigure with
 *    a new file: slurmctld 22.05 double-counts the running jobs of dynamic nodes at a
 *    reconfigure and such a node stays ALLOCATED with no job after its last one ends (fixed in
 *    23.02.3, SchedMD bug 16434); it computes partition membership from the old node table's
 *    features, which puts registered nodes in no partition or another application's (fixed in
 *    23.02.2, bug 16295); and what its reader accepts but slurmctld's own checks refuse (an
 *    unknown partition QOS, Licenses, …) is fatal() inside a reconfigure, losing the state of
 *    the last seconds, where a refused start loses nothing and is rolled back (below).
 *  - slurmd units learn a new file only through a reconfigure (configless push): after the
 *    restart that push waits (<state>/CTL_PUSH_FILE) until no job holds a node (the next hook,
 *    or slurmctld's service watcher within 10 s: charm/slurmctld/pushfollow.h), then reconfigures with the very file slurmctld already runs and sets every
 *    partition's Nodes= again over RPC (the membership bug); the status says so meanwhile.
 *  - a node left ALLOCATED with no job (that bug, from a reconfigure this charm did not guard)
 *    is cleared by a slurmctld restart once two full reconciles CTL_STALE_CONFIRM_S apart saw
 *    it (at most one such restart per CTL_STALE_PAUSE_S); the status names it meanwhile.
 *  - after a start or restart, slurmctld must answer a ping (bounded; a unit that fails or waits to be
 *    restarted stops the wait at once). A file it never ran gets a few seconds by the record of
 *    its good starts (ctlstart.h: 3 × the slowest of the last 5 + 2 s, at least 5 s), so a value
 *    that keeps slurmctld from answering costs the cluster that long, not the 20 s ceiling (one
 *    that logged it is past its state load by then gets the ceiling: slow, not stuck); the
 *    daemon that did not answer is killed when it is still loading (it served and saved
 *    nothing), else stopped the normal way; such a refusal is tried once more, with the
 *    ceiling, CTL_REFUSED_RETRY_AFTER_S later (a machine slow for a while), and only then kept. When it does not answer, the new file is taken back: the
 *    applied bytes are written again, slurmctld is started with them, and the refused bytes and
 *    Slurm's reason (the last "fatal:"/"error:" line of SlurmctldLogFile) are kept in
 *    <state>/slurm.conf.refused.d (charm/slurmctld/ctlrefused.h: every refused candidate, not the last
 *    one only), so the charm's judge refuses that same candidate from then on
 *    (otherwise every later hook would kill slurmctld again). Except a start that exited for
 *    want of slurmdbd's TRES (acct_start_fault, charm/slurmctld/accounting.h): rolled back the
 *    same way, not remembered, and CTL_APPLY_DEFERRED: tried again at the next hook.
 *  - a unit whose slurmctld is in charge as a backup does not restart for a file (hold_restart,
 *    below): the file waits, and the status says so, until the unit is made the primary.
 *  - finally the running daemon's values of the keys a reconfigure cannot change
 *    (slurm_ctl_running_values) are compared with the file; a difference is reported.
 *
 * Ownership: strings are borrowed; the result owns its message (ctl_apply_result_done()). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "charm/common/charm.h"
#include "charm/slurmctld/ctlrefused.h"
#include "util/strbuf.h"

#define CTL_APPLIED_FILE "slurm.conf.applied"
#define CTL_PUSH_FILE "slurm.conf.push-pending"
/* the hash of the file slurmctld read, when partition parameters were last set live */
#define CTL_LIVE_HASH_FILE "slurm.conf.live-hash"
#define CTL_STALE_FILE "stale-allocations"
/* A node allocated with no job is healed (slurmctld restart) once seen so this long… */
#define CTL_STALE_CONFIRM_S 20
/* …and at most once in this long. */
#define CTL_STALE_PAUSE_S 600
#define CTL_SLURMCTLD_LOG "/var/log/slurm/slurmctld.log"

enum ctl_apply_action {
        CTL_APPLY_NONE,    /* the running daemon already has this file */
        CTL_APPLY_STARTED, /* slurmctld was not running: started */
        CTL_APPLY_LIVE,    /* partition parameters set over RPC, no reconfigure */
        CTL_APPLY_RESTARTED,
        CTL_APPLY_ROLLED_BACK, /* refused: the last applied file is back (message says why) */
        CTL_APPLY_DEFERRED,    /* a restart is needed and held (hold_restart, may_start; message says why) */
};

struct ctl_apply_opts {
        const struct charm_paths *paths;
        sd_bus *bus;
        uint64_t unit_timeout_usec;
        int answer_timeout_ms;
        const char *self_host; /* this unit's SlurmctldHost name (NULL: wait for the primary) */
        bool push;             /* this unit pushes new files to the slurmd units (one does: the leader) */
        bool in_charge;        /* this unit's slurmctld is the one in charge (heals stale allocations) */
        /* this unit's slurmctld is in charge as a backup (its primary lost): a restart would hand
         * control away for SlurmctldTimeout (it starts as a standby and waits that long for the
         * primary before taking control again, and 22.05's backup may then lack its main
         * scheduler, slurm/caps.h). A file change that needs a restart waits
         * (CTL_APPLY_DEFERRED) until the order makes this unit first (its claim, ha.h), when
         * it restarts as the primary anyway; a change set live still applies. */
        bool hold_restart;
        /* this unit's slurmctld runs but did not answer a bounded ping just now (the caller's,
         * review R4): nothing is asked of it (on 24.11 any call waits for it for ever: a
         * client's credential comes from its sack socket). A new file is then applied by a
         * restart (it may be the cure), never live, and a backup made the primary asks for no
         * takeover first (as when that takeover fails). */
        bool silent;
        /* asked right before any start or restart of slurmctld (NULL: always allowed): > 0
         * keeps the daemon as it is (CTL_APPLY_DEFERRED, why in the message). The HA gate's
         * takeover check once more at the last moment (attack F3: a takeover action on another
         * machine between the gate's read and the start; the primary takes control back at
         * every start), and the sentinel's fence. */
        int (*may_start)(void *data, struct strbuf *why);
        void *may_start_data;
        /* asked after a start of a new file that failed (NULL: never): > 0 when something other
         * than the file stopped the start begun at `began` (why says what): the sentinel's fence
         * (it killed a process that took charge while another controller was in charge, and may
         * have lifted the fence since: seen on 24.11 at a resume after a failover, where the hook
         * took the kill for a refusal, rolled back and failed), or the may_start hold. The file
         * is then neither refused nor rolled back: it waits (CTL_APPLY_DEFERRED) for the next
         * hook. Gets may_start_data. */
        int (*start_stopped)(void *data, time_t began, struct strbuf *why);
        const char *previous;  /* the live file before this hook wrote (NULL: none) */
        size_t previous_len;
        /* the node names of the compute units in a relation (the leader's): the placeholders of
         * departed nodes that jobs require are made sure of before the push's reconfigure and
         * before a restart of slurmctld, but never one of these (charm/common/strand.h); NULL: not the
         * leader, nothing done */
        const struct strv *present_nodes;
        /* the slurmdbd hosts the charm rendered ("host:port", primary first; NULL or empty:
         * none): a start that failed for want of slurmdbd is not the file's fault only when the
         * file's AccountingStorageHost:Port is the first of these (an admin's own values in
         * slurm-conf-parameters are judged like any other: review of stop 54, 2) */
        const struct strv *acct_hosts;
};

struct ctl_apply_result {
        enum ctl_apply_action action;
        struct strbuf message; /* why a rollback happened, or how the running daemon differs */
        /* the push to the compute nodes that waits, when it does: its own note, also after a
         * rollback (never part of a refusal's text: review R14) */
        struct strbuf push_note;
        /* CTL_APPLY_DEFERRED after a start that something else stopped (start_stopped): the
         * daemon is down now, and nothing more should be asked of it in this hook */
        bool start_stopped;
        /* CTL_APPLY_DEFERRED after a start that failed for want of slurmdbd (acct_start_fault):
         * rolled back, the previous file runs (the caller remembers the hosts: acct_defer) */
        bool acct_fault;
};
#define CTL_APPLY_RESULT_INIT \
        { .action = CTL_APPLY_NONE, .message = STRBUF_INIT, .push_note = STRBUF_INIT }
void ctl_apply_result_done(struct ctl_apply_result *r);

/* Brings slurmctld to conf (already written to slurm.conf). 0 with *ret filled (a rollback is
 * a result, not an error); a negative errno (message in err) when systemd or slurmctld fail
 * in a way that is not the file's fault (the hook fails and Juju retries it). */
int ctl_apply(const struct ctl_apply_opts *o, const char *conf, size_t len, struct ctl_apply_result *ret,
        struct strbuf *err);

/* Waits (bounded) until this unit's own slurmctld (self_host's index in SlurmctldHost; NULL:
 * the primary) answers a ping; with bus, stops early with -ESRCH when slurmctld.service fails
 * or waits to be restarted. */
int ctl_wait_answer(sd_bus *bus, const char *self_host, int timeout_ms, struct strbuf *err);
/* ctl_wait_answer() after this unit's slurmctld was (re)started: a primary with backups gets
 * slurm_ctl_failback_ms() more, the time a backup in charge may take to hand control back. */
int ctl_wait_started(sd_bus *bus, const char *self_host, int timeout_ms, struct strbuf *err);

/* The refused candidates: charm/slurmctld/ctlrefused.h. */
