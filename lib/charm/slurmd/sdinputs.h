/* SPDX-License-Identifier: Apache-2.0 */
/* What the slurmd charm's hooks and actions share (slurmd.c: install and reconcile,
 * slurmd-leave.c, slurmd-nodecfg.c, slurmd-pause.c), below all of them: the inputs read once
 * per hook, the charm state directory and its files, the bounded waits. It calls none of them
 * (no circle between the charm's files). Not for other users.
 *
 * State files (<root>/var/lib/slurm/charm, root 0700, see slurmd.h):
 *   hardware              detected once at install ("CPUs=2 RealMemory=…")
 *   default-state-applied default-node-state applied once after the first registration
 *   node-config           the admin's node parameters (action node-config), normalized NODE
 *                         options; survives upgrade-charm and reboots; absent: none
 *   leaving               a departure began (slurmd_leave() started): the same content as
 *                         left; while it names the current relation (or "": the unit's stop),
 *                         no reconcile acts (a hook that failed half way, before left, must not
 *                         be undone by the watcher's run: a deleted node registered again)
 *   left                  this unit left the cluster (slurmd_leave() done); holds the relation
 *                         id it left ("slurmctld:3") or "" when it was not related
 * Ownership: struct sd_inputs owns everything it holds; sd_inputs_done() frees it. */
#pragma once

#include <stdint.h>
#include <time.h>

#include <systemd/sd-bus.h>

#include "charm/common/keyring.h"
#include "charm/slurmd/slurmd.h"
#include "interfaces/slurmd.h"
#include "slurm/nodes.h"

#define SLURMD_ADMIN_FILE "node-config"
#define SLURMD_LEFT_FILE "left"
#define SLURMD_LEAVING_FILE "leaving"
#define SLURMD_DEFAULT_DRAIN_TIMEOUT_S 600
#define SLURMD_MAX_DRAIN_TIMEOUT_S (7 * 24 * 3600)
#define SLURMD_DEFAULT_REGISTER_TIMEOUT_MS (30 * 1000)

/* Everything slurmd is told, read once. */
struct sd_inputs {
        const char *partition_config, *default_state, *default_reason;
        bool leader;
        struct slurm_options partition;
        char *rel; /* the slurmctld relation, NULL when none */
        char *remote_app;
        struct controller_data ctl;
        struct auth_keyring keys; /* the cluster's auth keys (charm/common/keyring.h), secret */
        struct strv hardware;
        struct slurm_options admin; /* node-config parameters in effect */
        struct slurm_options node_conf;
        char *node_name;
        struct strbuf defaults; /* /etc/default/slurmd */
        struct strv gpus;       /* this machine's GPU device files (charm/common/gres.h) */
        char *bag_node;         /* SLURMD_UNIT_NODE_KEY in this unit's bag as the hook found it */
        char *bag_resources;    /* SLURMD_UNIT_RESOURCES_KEY there, idem */
        bool have_conf_hash;    /* the leader published the hash of the file slurmctld runs */
        uint32_t conf_hash;     /* (charm/common/confpush.h) */
        unsigned conf_push_waves; /* the idle nodes' restarts in so many waves (1: none published) */
};
#define SD_INPUTS_INIT                                                                                 \
        {                                                                                              \
                .partition = SLURM_OPTIONS_INIT, .ctl = CONTROLLER_DATA_INIT, .keys = AUTH_KEYRING_INIT, \
                .hardware = STRV_INIT, .admin = SLURM_OPTIONS_INIT, .node_conf = SLURM_OPTIONS_INIT,   \
                .defaults = STRBUF_INIT, .gpus = STRV_INIT,                                            \
        }
void sd_inputs_done(struct sd_inputs *in);

/* Reads and validates every input (admin: the node parameters to use; NULL: the stored ones).
 * 0 complete, 1 outcome set (blocked, waiting, or left the cluster), negative errno. */
int sd_read_inputs(struct juju_ctx *ctx, const struct slurmd_opts *o, struct sd_inputs *in,
        const struct slurm_options *admin, struct charm_outcome *out, struct strbuf *err);

uint64_t sd_unit_timeout(const struct slurmd_opts *o);
static inline int sd_register_timeout(const struct slurmd_opts *o) {
        return o->register_timeout_ms ? o->register_timeout_ms : SLURMD_DEFAULT_REGISTER_TIMEOUT_MS;
}
/* config drain-timeout in ms (unset: the default, 600 s); -EINVAL with a message for a value
 * outside 1 s … 7 days. */
int sd_drain_timeout_ms(struct juju_ctx *ctx, struct strbuf *err);

/* "<state dir>/<name>" (caller frees); atomic write of a state file (mode 0600). */
char *sd_state_path(const struct charm_paths *p, const char *name);
int sd_state_write(const struct charm_paths *p, const char *name, const char *data, struct strbuf *err);

/* The stored hardware line ("CPUs=2 RealMemory=…"), detecting and storing it when missing.
 * Appends the "Key=Value" words to ret. */
int sd_hardware(const struct charm_paths *paths, struct strv *ret, struct strbuf *err);

/* Once slurmctld registered the node: its name and resources (CPUs, memory as registered) in
 * this unit's bag when they differ from what the hook found there (interfaces/slurmd.h). */
int sd_publish_node(
        struct juju_ctx *ctx, const struct sd_inputs *in, const struct slurm_node *node, struct strbuf *err);

/* Waits (bounded) for slurmd's configuration cache (fetched at or after since, when since > 0:
 * slurmd restarted then), reads it, then waits for the node's registration. */
int sd_wait_registered(
        const char *node, time_t since, int timeout_ms, struct slurm_node *ret, struct strbuf *err);
/* sd_wait_registered() for a slurmd this run (re)started at since (0: it did not), which
 * restarts slurmd once when slurmctld has answered "no such node" at every look for
 * SD_REGISTER_UNKNOWN_MS and slurmctld itself started after since, or less than that long
 * before, and waits again for
 * what is left of timeout_ms (sd_restart_unregistered; *ret_nudged, when not NULL, is set true
 * when it did and the node registered, untouched otherwise). The case:
 * slurmd's first registration met a standby controller while the primary restarted (a push, a
 * configuration change), and libslurm then sleeps SlurmctldTimeout/2 before it tries again
 * (slurm_send_recv_controller_msg, 22.05 and 24.11: 60 s with the default 120), while a
 * restarted slurmd registers at once. A slurmd slow to register to a controller that ran all
 * along (a GPU node's detection) is left alone; at most one restart, never a loop. */
#define SD_REGISTER_UNKNOWN_MS (8 * 1000)
/* Restarts slurmd for a node slurmctld does not know (or not yet): its main process killed
 * first (SIGKILL). At SIGTERM slurmd joins all of its threads, and the one that registers may
 * be sleeping SlurmctldTimeout/2 in libslurm (above): a plain restart waited that long, or
 * until the unit's stop timeout. KillMode=process spares the steps (a node unknown to
 * slurmctld runs none that it knows). 0 or a negative errno with why in err. */
int sd_restart_unregistered(sd_bus *bus, const struct slurmd_opts *o, struct strbuf *err);
int sd_wait_registered_nudge(sd_bus *bus, const struct slurmd_opts *o, const char *node, time_t since, int timeout_ms,
        struct slurm_node *ret, bool *ret_nudged, struct strbuf *err);

/* Whether this unit has left relation rel (the "left" file names it): 1 yes, 0 no (no file,
 * or it names another relation: the file is then removed, the unit joins again). */
int sd_left_relation(const struct charm_paths *p, const char *rel);

/* Whether a departure of this unit began for relation rel, or for the unit itself (the "leaving"
 * file names rel, or is empty: stop, remove): 1 yes, 0 no (no file, or another relation: the file
 * is then removed). */
int sd_leaving_relation(const struct charm_paths *p, const char *rel);

/* The stored node-config parameters (none: empty list). */
int sd_admin_load(const struct charm_paths *p, struct slurm_options *ret, struct strbuf *err);
