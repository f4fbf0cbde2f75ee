/* SPDX-License-Identifier: Apache-2.0 */
/* What both charms share: the paths a charm writes (redirectable under a root directory for
 * tests), the outcome of a hook (one status), and the end of every hook's main.
 *
 * The way of a hook (HACKING.md): main builds a juju ctx, calls ONE entry of lib/charm
 * (slurmctld_reconcile(), slurmd_reconcile(), …) which fills a struct charm_outcome, then
 * charm_hook_finish() turns that outcome into one status-set, flushes the buffered relation
 * writes and gives the exit code. An entry returns a negative errno only for failures that
 * should put the unit in error (a hook tool or a daemon failed unexpectedly: Juju retries the
 * hook); everything a user can fix (bad config, bad relation data) is an outcome with
 * JUJU_STATUS_BLOCKED and return 0.
 *
 * Paths: every file a charm writes is "<root><path>" where path is one of the CHARM_PATH_*
 * absolute defaults; root "" (or NULL) is the real root. The owners of files (munge, slurm)
 * are looked up by name, so a test can set them to "root".
 *
 * Ownership: struct charm_outcome owns its message (charm_outcome_done frees it); charm_path()
 * returns a string the caller frees. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>

#include <systemd/sd-bus.h>

#include "juju/juju.h"
#include "slurm/caps.h"
#include "slurmconf/options.h"
#include "util/strbuf.h"

/* Compiled-in paths (relative to charm_paths.root). */
#define CHARM_PATH_SLURM_CONF "/etc/slurm/slurm.conf"
#define CHARM_PATH_SLURMD_DEFAULTS "/etc/default/slurmd"
#define CHARM_PATH_STATE_DIR "/var/lib/slurm/charm"
#define CHARM_PATH_STATESAVE "/var/lib/slurm/slurmctld"

/* Where the charm reads and writes. */
struct charm_paths {
        const char *root;              /* prefix of every written path; "" or NULL: the real root */
        const char *charm_dir;         /* where templates/ lives; NULL: JUJU_CHARM_DIR of the ctx */
        const char *key_user;          /* owner of the auth key; NULL: the generation's (caps) */
        const char *slurm_user;        /* owner of Slurm's state directories; NULL: "slurm" */
        const struct slurm_caps *caps; /* the Slurm generation; NULL: the one built against */
};

/* The Slurm generation the charm works with: p->caps, else slurm_caps_built(). */
const struct slurm_caps *charm_caps(const struct charm_paths *p);
/* The "slurm" value of the slurmd interface (interfaces/slurmd.h) for this generation: the
 * version built against (the generation's release with micro 0 when p names another one, as
 * unit tests do) and its AuthType. A new string, or NULL (out of memory). */
char *charm_generation_json(const struct charm_paths *p);
/* Leader: this generation's "slurm" value in the application bag of each relation of rels
 * (written only where it differs). 0, or a negative errno (message in err). */
int charm_generation_publish(
        struct juju_ctx *ctx, const struct charm_paths *p, const struct strv *rels, struct strbuf *err);
/* The other side's published "slurm" value (json; interfaces/slurmd.h) against this charm's
 * generation, by slurm_caps_takes(): this daemon (me) serves theirs (them) when i_serve, else
 * theirs serves this one. 0 they can work together, or json is absent (a charm from before the
 * key: no check); -EPROTO (why in e) they cannot; -EINVAL bad data (message in e). */
int charm_generation_check(const struct charm_paths *p, const char *json, bool i_serve, const char *me,
        const char *them, struct strbuf *e);
/* "slurmd" for "slurmd.service": a service's daemon name, as statuses say it (caller frees). */
char *charm_daemon_name(const char *service);
/* The services of a unit: daemon, then the generation's auth service when it has one
 * (munge.service on 22.05) and it is not the daemon, then NULL. Returns how many (1 or 2). */
size_t charm_services(const struct charm_paths *p, const char *daemon, char *ret[static 3]);

/* "<root><path>" (caller frees). */
char *charm_path(const struct charm_paths *p, const char *path);
/* The site-scripts directory (slurmconf/pathkeys.h: where slurm.conf's programs may live)
 * made, and kept, root's and 0755. 0, or a negative errno (message in err). */
int charm_site_scripts_ensure(const struct charm_paths *p, struct strbuf *err);
/* The directory path (under p->root) made and kept root's, 0755 (a link there is refused,
 * -ENOTDIR): where root-run daemons open files by name, so that nobody else can put a link in
 * their place (attack atk7 F4: the slurm user owned /var/log/slurm and the spool directory, as
 * Debian's packages make them, and pointed slurmd.log at a file in /etc). 0 or a negative errno
 * (err). */
int charm_root_dir_ensure(const struct charm_paths *p, const char *path, struct strbuf *err);
/* "<charm_dir>/templates/<name>" with charm_dir from p or, when NULL, fallback (caller frees). */
char *charm_template_path(const struct charm_paths *p, const char *fallback_charm_dir, const char *name);
/* Looks up user name (NULL: default_user) and returns its uid and primary gid. -ENOENT with a
 * message when there is no such user. */
int charm_lookup_user(
        const char *name, const char *default_user, uid_t *ret_uid, gid_t *ret_gid, struct strbuf *err);

/* The result of a hook for the user: one unit status (and, for the leader, optionally the
 * application's). */
struct charm_outcome {
        enum juju_status status;
        struct strbuf message;
        bool set_app_status; /* also set the application status (leader only) */
        enum juju_status app_status;
        char *app_message;   /* the application's message when it differs (NULL: message) */
        bool skip_status; /* leave the status as it is (e.g. an action) */
};

#define CHARM_OUTCOME_INIT \
        { .status = JUJU_STATUS_ACTIVE, .message = STRBUF_INIT }

void charm_outcome_done(struct charm_outcome *o);
/* Sets status and message (printf format), replacing what was there. */
void charm_outcome_set(struct charm_outcome *o, enum juju_status status, const char *fmt, ...)
        __attribute__((__format__(printf, 3, 4)));

/* The end of a hook's main: r is the entry's return value. On r >= 0: status-set (unless
 * skip_status), then juju_flush(); returns the process exit code: 0, or 1 when r < 0 or a
 * tool failed (the message is written to stderr, which Juju keeps in the unit's log, and sent
 * with juju-log at ERROR level). */
int charm_hook_finish(struct juju_ctx *ctx, int r, struct charm_outcome *o, struct strbuf *err);
/* The end of every action's main: when r >= 0, the relation data the action queued is sent
 * (juju_flush(); a failure of that fails the action); when r < 0, one action-fail with err (or
 * strerror(-r) when err is empty) and the same line on stderr, and nothing queued is sent. Returns the exit
 * code, always 0: a failed action is reported by action-fail, it does not put the unit in error. */
int charm_action_finish(struct juju_ctx *ctx, const char *action, int r, struct strbuf *err);

/* Job ids as an action result value: "9,10,12" ("" for none). Caller frees. */
char *charm_join_ids(const uint32_t *v, size_t n);

/* The node name of a unit: "app/3" gives "app-3" (Slurm node names cannot hold '/').
 * Caller frees. */
char *charm_node_name(const char *unit);
/* The drain reason of a departure (the compute unit's relation-departed: drain, wait, delete),
 * "unit <unit> is leaving" (caller frees), and whether a node's reason is one: an admin's
 * resume of such a node would give new jobs to a node about to be deleted (issue 28). */
char *charm_leaving_reason(const char *unit);
bool charm_reason_is_leaving(const char *reason);

/* The prefix a long-running program of the charm (a watcher, the sentinel) puts before each line
 * it writes to stderr: "" under journald (stderr is JOURNAL_STREAM's: the journal stamps each line), else
 * the UTC time "2026-11-28T21:31:16.143Z " (a file, or juju-sim's machines: no journald). buf
 * holds at least CHARM_LOG_PREFIX_MAX bytes; returns buf. */
#define CHARM_LOG_PREFIX_MAX 32
const char *charm_log_prefix(char *buf);

/* --- small helpers shared by the charms ---------------------------------------------------- */

/* A string option; an unset option or one the charm does not have reads as "". */
int charm_config_string(struct juju_ctx *ctx, const char *key, const char **ret, struct strbuf *err);
/* The last "fatal:" (else "error:") line a daemon wrote to its log from offset from on (at most the
 * last 64 KiB; from the start when the log is shorter than from: rotated), without its
 * timestamp (caller frees; NULL when none). */
char *charm_log_last_error(const char *path, off_t from);
/* The log's size now (0 when it does not exist): the offset the two functions around take for
 * "what the daemon writes from now on". */
off_t charm_log_size(const char *path);
/* What a daemon wrote to its log at path from offset from on (the last 64 KiB of it at most; from
 * the start when the log is shorter than from), read as charm_log_has() does (the file only, no
 * link, no FIFO), NUL-terminated; ret_st (NULL: not wanted) gets the file's stat. Caller frees;
 * NULL when it cannot be read or is empty. */
char *charm_log_tail(const char *path, off_t from, struct stat *ret_st);
/* Whether the log at path holds needle in what was written after offset from (the last 64 KiB of
 * it at most; the whole file when it shrank: rotated). */
bool charm_log_has(const char *path, off_t from, const char *needle);

/* relation-ids of endpoint, without the relation this hook breaks (relation-broken: that
 * application is leaving, whatever relation-ids still says). */
int charm_relation_ids_live(
        struct juju_ctx *ctx, const char *endpoint, struct strv *ret, struct strbuf *err);
/* The remote application of rel_id (from the hook's environment when it is this hook's
 * relation, else relation-list) and its application bag (borrowed; NULL when there is no
 * remote application yet). *ret_app: caller frees (NULL allowed: not wanted). */
int charm_remote_app_bag(
        struct juju_ctx *ctx, const char *rel_id, char **ret_app, const cJSON **ret_bag, struct strbuf *err);

/* An action's boolean parameter key in params (action-get's object): 0 and false when absent or
 * null, 1 with its value, -EINVAL with "KEY: expected true or false" when not a boolean. */
int charm_param_bool(const cJSON *params, const char *key, bool *ret, struct strbuf *err);

/* The string value of key in a databag object, or NULL (also for a non-string value). */
const char *charm_bag_string(const cJSON *bag, const char *key);
/* Sets key in a bag only when its value there differs (no tool call, no write otherwise).
 * Returns 1 when a write was buffered, 0 when equal. */
int charm_bag_update(struct juju_ctx *ctx, const char *rel_id, bool app, const cJSON *bag, const char *key,
        const char *value, struct strbuf *err);
/* secret-add of an application-owned secret {content_key: value} with label, the content
 * passed through a root-only temporary file (--file), never in argv. Returns the id (caller
 * frees). */
int charm_secret_add_private(struct juju_ctx *ctx, const char *label, const char *description,
        const char *content_key, const char *value, char **ret_id, struct strbuf *err);
/* secret-set ID --file F: a new revision with the content of yaml (KEY: "VALUE" lines, values
 * without quotes, backslashes or control bytes), through a root-only temporary file, never in
 * argv. */
int charm_secret_set_private(struct juju_ctx *ctx, const char *id, const char *yaml, struct strbuf *err);

/* The unit's machine numbers: "app/12" gives 12 (-1 when malformed). */
long charm_unit_number(const char *unit);

/* At upgrade-charm (event; any other event: nothing, 0): the Debian packages the install hook
 * of daemon's charm installs (bootstrap_daemon_packages with this generation's slurm_caps),
 * installed now where missing: upgrade-charm runs no install hook, and a newer charm may need a package the machine's
 * install did not bring (22.05's libpmix-dev came with MpiDefault=pmix: without it every srun
 * step on an upgraded node failed to load the plugin). Returns how many were installed (0:
 * none missing, no apt-get run) or a negative errno (err). */
int charm_packages_ensure(const char *event, const char *daemon, struct strbuf *err);

/* Installs the charm's drop-in templates/<service>.d/<name>.conf for service (daemon-reload
 * when it changed): 1 changed, 0 the same, or a negative errno (err). */
int charm_dropin_install(const struct charm_paths *p, const char *charm_dir, sd_bus *bus, const char *service,
        const char *name, uint64_t timeout_usec, struct strbuf *err);

/* systemd: unit stopped and disabled where it is installed. 1 done, 0 no such unit, or a
 * negative errno (err). */
int charm_unit_retire(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err);
/* systemd: enables unit, then (re)starts it when restart is set, else starts it when it is
 * not active (clearing a failed state first). Returns 1 when it (re)started the unit, 0 when
 * it was already running and left alone. */
int charm_unit_ensure(
        sd_bus *bus, const char *unit, bool restart, uint64_t timeout_usec, struct strbuf *err);

/* Whether something accepts a TCP connection on addr (dotted IPv4):port within timeout_ms. */
bool charm_tcp_listening(const char *addr, unsigned port, int timeout_ms);
/* charm_tcp_listening() of host's first IPv4 address (a name from /etc/hosts or DNS, or an
 * address); false when it does not resolve. */
bool charm_host_listening(const char *host, unsigned port, int timeout_ms);
/* A small record in the unit's state directory (CHARM_PATH_STATE_DIR/name, mode 0600, the
 * directory made 0700): written atomically (only when it differs when if_changed), read (1 and
 * *ret malloc'd, 0 when there is none), removed (0 also when there was none). */
int charm_state_note_write(
        const struct charm_paths *p, const char *name, const char *data, bool if_changed, struct strbuf *err);
int charm_state_note_read(const struct charm_paths *p, const char *name, char **ret);
int charm_state_note_remove(const struct charm_paths *p, const char *name, struct strbuf *err);

/* Whether host answers on the network at all: a TCP connect to port accepted or refused (its
 * machine is up and reachable from here, whatever listens), not unanswered within timeout_ms. */
bool charm_host_reachable(const char *host, unsigned port, int timeout_ms);

/* The end of every charm's install: the generation's auth service enabled (munge on 22.05; it
 * starts once the key is there), the Slurm version as the application version, and the
 * outcome "installed". */
int charm_install_finish(struct juju_ctx *ctx, const struct charm_paths *p, sd_bus *bus,
        uint64_t timeout_usec, struct charm_outcome *out, struct strbuf *err);

/* Slurm's own reader (slurm/confcheck.h) on one line of a minimal slurm.conf, before a value
 * goes anywhere: "PartitionName=<app> Nodes=<app> <opts>" (what the controller will write for
 * partition-config), "NodeName=<node> <conf>" (slurmd parses its --conf string with the same
 * NodeName option table). 0, or -EINVAL with Slurm's message (another negative errno when the
 * check could not run). */
int charm_check_partition(const char *app, const struct slurm_options *opts, struct strbuf *err);
int charm_check_node(const char *node, const struct slurm_options *conf, struct strbuf *err);

/* The Slurm version this charm was built against, "22.05.8" (caller frees). */
char *charm_slurm_version(void);
