/* SPDX-License-Identifier: Apache-2.0 */
/* The libslurm client: one-time initialisation, controller ping and reconfigure. Every other
 * lib/slurm function that talks to slurmctld calls slurm_client_init() itself first.
 *
 * Where the configuration comes from (libslurm 22.05, checked in its strings and by test):
 *   1. $SLURM_CONF, if set (the tests set it; this library never hard-codes a path);
 *   2. /etc/slurm/slurm.conf (the compiled-in default);
 *   3. /run/slurm/conf/slurm.conf: on a configless compute node slurmd (started with
 *      --conf-server) fetches slurm.conf (and friends) into <SlurmdSpoolDir>/conf-cache/ and
 *      makes /run/slurm/conf a symlink to that directory, so the slurmd charm's hooks find the
 *      config there while slurmd runs (it exists only after slurmd has fetched it once);
 *   4. DNS SRV records "_slurmctld._tcp" (not allowed here: see below).
 * libslurm 22.05 calls fatal() (exit) when it finds none, so slurm_client_init() first checks
 * that 1, 2 or 3 names a readable file and returns -ENOENT otherwise, never letting libslurm exit
 * the hook. The same search is exposed as slurm_config_path() for status messages. The file is
 * handed to libslurm with its links resolved: slurmd replaces the /run/slurm/conf link at each
 * start, and a link found a moment ago may be missing when libslurm opens it (fatal() too). On
 * 24.11 /run/slurm/conf is a directory of copies in slurmd's RuntimeDirectory: it goes when
 * slurmd stops, and a hook that finds it in that instant still meets fatal(); with slurmd
 * stopped a 24.11 unit cannot call Slurm anyway (no sack socket).
 *
 * libslurm itself may write "error: …" lines to stderr on some failures (for example a refused
 * delete); this library never prints, but cannot silence libslurm through its public API.
 *
 * Not thread-safe: hooks are single-threaded. Ownership: see each function. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/strv.h"

/* Returns the configuration file libslurm will read (points into the environment or at a
 * static string), or NULL when there is none. */
const char *slurm_config_path(void);
/* slurm_config_path() with symlinks resolved (a configless node's /run/slurm/conf), the
 * moment slurmd replaces that link waited out; a malloc'd path, or NULL when there is none. */
char *slurm_config_resolve(void);
/* slurm_init() of slurm_config_resolve()'s file, once per process (libslurm then sets SLURM_CONF
 * to it). 0, or -ENOENT (no configuration, message in err). */
int slurm_client_init(struct strbuf *err);

/* Reads the configuration again (after the caller rewrote it), if it was read already. */
int slurm_client_reload(struct strbuf *err);
/* From now on, every call reads the configuration file path instead (a client of one
 * controller: a copy of slurm.conf whose SlurmctldHost lines name only it, so that no call
 * follows libslurm's fail-over to another controller). 0, or a negative errno. libslurm
 * fatal()s on a file it cannot read: hand it only a copy of a file it read before. */
int slurm_client_use(const char *path, struct strbuf *err);
/* Whether the slurmctld that private_conf names alone (a copy of slurm.conf whose only
 * SlurmctldHost line is this host's, as slurm_client_use() takes) is the controller in charge:
 * asked directly (slurm_load_ctl_conf, which a standby refuses with ESLURM_IN_STANDBY_MODE and
 * no retry, there being no other controller to try), in a forked child, so that this process's
 * client keeps its configuration. 1 in charge, 0 a standby, negative errno when it does not
 * answer (-ETIMEDOUT after timeout_ms; the child is killed). A heartbeat's index says which
 * entry of ITS WRITER'S controller list is in charge; while the order changes the lists
 * differ, so an index alone can name the wrong unit (issue 25: a leader that took the index as
 * its own claimed first, undoing a takeover). */
int slurm_ctl_self_in_charge(const char *private_conf, int timeout_ms);
/* The same question in this process, for a client that slurm_client_use() made a client of one
 * controller (the sentinel): slurm_load_ctl_conf(*since), which answers "no change" cheaply;
 * *since is updated. 1 in charge, 0 a standby, negative errno when it does not answer. */
int slurm_ctl_answers_in_charge(time_t *since);
/* The index of host in SlurmctldHost (0: primary), or -ENOENT. Needs the client initialised. */
int slurm_ctl_index_of(const char *host);
/* The number of controllers in SlurmctldHost (0 before the client is initialised). */
int slurm_ctl_count(void);
/* StateSaveLocation and SlurmctldTimeout (seconds) of the configuration read: NULL and 0 before
 * the client is initialised. The string is libslurm's (valid until the next reload). */
const char *slurm_client_state_dir(void);
unsigned slurm_client_ctl_timeout(void);
/* How much longer than usual a primary that starts while a backup is in charge may take to
 * answer, for the Slurm built against: it sends REQUEST_CONTROL, and the backup replies once it
 * is back in standby or after CONTROL_TIMEOUT (30 s, slurmctld's proc_req.c) less 1 s;
 * slurmctld 24.11.5 waits that whole time whenever another RPC is in flight at the backup
 * (measured: 28.4 s, "backup not completely done relinquishing control"): 30000 ms there, 0 on
 * 22.05 (failback measured at under 0.5 s). */
int slurm_ctl_failback_ms(void);
/* Pings controller index (a standby backup answers too). 0 answered, negative errno. */
int slurm_ctl_ping_one(int index, struct strbuf *err);
/* slurm_ctl_ping_one() that waits for the answer at most timeout_ms (rounded up to whole seconds:
 * libslurm's MessageTimeout for this call). A 24.11 slurmctld that has bound its port but not yet
 * opened its listeners completes the connect and answers nothing, so a plain ping waits the
 * whole MessageTimeout (10 s) there. The ping runs in a child killed at the deadline (plus
 * 300 ms): auth/slurm reads a credential from a sack socket with no timeout (a stopped slurmctld
 * on this machine held the caller for ever); -ETIMEDOUT then. */
int slurm_ctl_ping_within(int index, int timeout_ms, struct strbuf *err);
/* Caps libslurm's MessageTimeout for every later call of this process (a short-lived child that
 * must end within its parent's bound: the client retries a controller that does not answer for
 * that long); initialises the client. 0 or a negative errno. */
int slurm_client_cap_msg_timeout(int seconds, struct strbuf *err);
/* Caps, until slurm_client_standby_wait_restore(), how long libslurm's controller RPCs wait
 * on a standby's answer: a controller that answers ESLURM_IN_STANDBY_MODE (a backup while the
 * primary restarts) makes the client sleep SlurmctldTimeout/2 and ask again, for up to 1.5 ×
 * SlurmctldTimeout (slurm_send_recv_controller_msg, 22.05 and 24.11 alike: it reads
 * SlurmctldTimeout from the configuration each call). Lowers, never raises, the value this
 * process uses as SlurmctldTimeout (and nothing else: the daemons keep theirs); *ret_was gets the
 * value to restore. For a read a hook can do without (its status), not for the RPCs whose long
 * wait lets a hook succeed through a takeover (a call that ends on a standby's answer returns
 * -EHOSTDOWN, slurmerr.h). 0 or a negative errno (the client not set up). */
int slurm_client_cap_standby_wait(int seconds, uint16_t *ret_was, struct strbuf *err);
void slurm_client_standby_wait_restore(uint16_t was);
/* slurm_takeover(index): backup index (>= 1) takes control now; the controllers ahead of it
 * shut down (exit status 0) and those after it give up control; returns after ~2 s (its
 * sleep in 22.05). "Already in control" is success. */
int slurm_ctl_takeover(int index, struct strbuf *err);
/* slurm_ctl_takeover() with the controller list of the file conf_path (the one the running
 * daemons use, before the caller's new list), then back to the usual configuration. */
int slurm_ctl_takeover_with(const char *conf_path, int index, struct strbuf *err);
/* slurm_ctl_takeover_with() (conf_path NULL: slurm_ctl_takeover()) in a forked child (this
 * process's client keeps its configuration), killed after timeout_ms: for a loop or a hook that
 * must not stop on a controller that does not answer (on 24.11 a stopped slurmctld on this
 * machine holds any client for ever: its credential comes from that daemon's sack socket).
 * 0, a negative errno (-ETIMEDOUT after timeout_ms; the message in err). */
int slurm_ctl_takeover_bounded(const char *conf_path, int index, int timeout_ms, struct strbuf *err);

/* One controller of SlurmctldHost=, in order (0: primary, 1: first backup, …). */
struct slurm_controller {
        char *host; /* SlurmctldHost name */
        char *addr; /* its address (NULL when the config names none) */
        bool up;    /* it answered REQUEST_PING */
        int error;  /* negative errno of the failed ping, 0 when up */
};
struct slurm_controllers {
        struct slurm_controller *v;
        size_t n;
};
void slurm_controllers_done(struct slurm_controllers *c);
/* Pings every controller of the configuration. Returns the number that answered (>= 0) and
 * fills *ret (caller frees with slurm_controllers_done), or a negative errno when the list of
 * controllers cannot be read. No answer is not an error: see ret->v[i].up. */
int slurm_ctl_ping(struct slurm_controllers *ret, struct strbuf *err);
/* slurm_ctl_ping() with each controller's ping bounded by slurm_ctl_ping_within(): at most
 * about n x (timeout_ms + 300 ms) in all, whatever a controller does (a stopped one on this
 * machine held a 24.11 client for ever). -ETIMEDOUT in ret->v[i].error for one that did not
 * answer in time. */
int slurm_ctl_ping_bounded(struct slurm_controllers *ret, int timeout_ms, struct strbuf *err);
/* auth/slurm (23.11+): clients take their tokens from the first local sack socket that answers
 * (/run/slurm, then /run/slurmctld, then /run/slurmdbd: Slurm's sack_api.c). Waits until one
 * accepts a connection: 0, or -ETIMEDOUT after timeout_ms. */
int slurm_sack_wait(int timeout_ms);
#define SACK_WAIT_MS 10000
/* Pings the controllers in order, once each, no retries (a libslurm call that finds none
 * retries for MessageTimeout), and stops at the first that answers. 1 one answered, 0 none
 * (why then holds "host: reason, …"), or a negative errno when the list cannot be read. */
int slurm_ctl_reachable(struct strbuf *why);
/* Asks slurmctld to re-read slurm.conf (scontrol reconfigure). -ESTALE (message in err) when
 * slurmctld applied the file but kept some old plugin because changing it needs a restart
 * (ESLURM_INVALID_{AUTHTYPE,SCHEDTYPE,SELECTTYPE,SWITCHTYPE,CRED_TYPE,BURST_BUFFER}_CHANGE,
 * slurmctld 22.05 read_slurm_conf()): the running daemon then differs from the file. */
int slurm_ctl_reconfigure(struct strbuf *err);

/* The hash of the slurm.conf the running slurmctld last read (HASH_VAL of scontrol show config;
 * see slurmconf_file_hash() for how it is made), and when that daemon started (BOOT_TIME;
 * ret_boot may be NULL). */
int slurm_ctl_conf_hash(uint32_t *ret, time_t *ret_boot, struct strbuf *err);

/* What the running slurmctld uses (slurm_load_ctl_conf) for the keys a reconfigure cannot
 * change: pairs "Key", "value" appended to ret (plugin types as slurm.conf spells them, and
 * MaxNodeCount). Keys the controller reports empty are left out. */
int slurm_ctl_running_values(struct strv *ret, struct strbuf *err);

/* Polling schedule shared by the wait functions: first delay, growth factor 3/2, ceiling. */
#define SLURM_POLL_FIRST_MS 100
#define SLURM_POLL_MAX_MS 500
/* Milliseconds on CLOCK_MONOTONIC. */
int64_t slurm_now_ms(void);
/* Sleeps for the next poll delay (updating *delay_ms) but never past deadline_ms. Returns
 * false, without sleeping, when the deadline has passed. */
bool slurm_poll_sleep(int *delay_ms, int64_t deadline_ms);
