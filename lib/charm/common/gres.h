/* SPDX-License-Identifier: Apache-2.0 */
/* GPU nodes (issue 12): the controller's record of every compute unit's GPU device files, the
 * gres.conf it renders from them, and what it tells the slurmd applications it serves.
 *
 * Facts (Debian 12's Slurm 22.05 on a real H100, ../shared/gpu/, and in juju-sim machines with
 * fake NVIDIA devices): a dynamic node started with Gres=gpu:N in its --conf and no gres.conf
 * line registers INVALID_REG ("gres/gpu count reported lower than configured (0 < 1)") and
 * takes no job at all; slurmd takes the File= lines from the gres.conf it fetches from slurmctld
 * (configless) when it STARTS; slurmctld serves a changed gres.conf only after it re-read its
 * files (a reconfigure or a restart); an unscoped File= line naming a device a node lacks kills
 * that node's slurmd (fatal: can't stat), so every line is scoped to its node.
 *
 * So: each slurmd unit publishes its device files (unit bag `gpu-devices`, interfaces/slurmd.h);
 * the controller keeps them in <state>/gres.json ({"nodes": {node: [files]}, "refused": {unit:
 * why}}), updated from the unit's own events (one relation-get; a bad list is refused for that
 * unit alone, naming it, and changes nothing) and pruned of applications no longer related;
 * renders /etc/slurm/gres.conf (templates/gres.conf, then one "NodeName=<node> Name=gpu
 * File=<file>" line per device, by node) atomically; and stamps slurm.conf with the digest of
 * that text (ctl_conf_stamp()), so that a gres.conf change is a slurm.conf change to ctl_apply (a restart,
 * never a 22.05 reconfigure: ctlapply.h), with its rollback and its push. After the apply the leader
 * publishes `gres` (files → nodes, per application), and a GPU unit starts slurmd only once its
 * node is listed there under its own files. A CPU-only unit publishes [] and waits for nothing.
 *
 * Functions return 0 (or 1: changed) or a negative errno with one message in err. The state is a
 * cJSON object owned by the caller (cJSON_Delete). */
#pragma once

#include <stdbool.h>
#include <cjson/cJSON.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define GRES_STATE_FILE "gres.json"
#define GRES_TEMPLATE "gres.conf"
#define GRES_CONF_PATH "/etc/slurm/gres.conf"
#define GRES_UNIT_KEY "gpu-devices"
#define GRES_APP_KEY "gres"

static inline void gres_state_freep(cJSON **p) {
        cJSON_Delete(*p);
}

/* <state>/gres.json, or an empty state when there is none. */
int gres_state_load(const struct charm_paths *p, cJSON **ret, struct strbuf *err);
/* Writes it atomically when it differs; 1 when written. */
int gres_state_store(const struct charm_paths *p, const cJSON *st, struct strbuf *err);

/* A unit's published gpu-devices (json; NULL: absent) or its departure (gone): 1 when the state
 * changed (its node's files, or its refusal), 0 when not. A bad list keeps the node's previous
 * files and records why, naming the unit. */
int gres_unit_update(cJSON *st, const char *unit, const char *json, bool gone);

/* Drops the nodes and refusals of applications not in apps. 1 when something was dropped. */
int gres_prune(cJSON *st, const struct strv *apps);

/* The refusals, one "<unit>: <why>" each, appended to out. */
void gres_refusals(const cJSON *st, struct strv *out);

/* gres.conf: the template text, then the lines (sorted by node, then file). */
void gres_render(const cJSON *st, const char *tmpl, struct strbuf *out);

/* What the leader publishes to application app: {"<files>": "<hostlist>"} of its nodes (a new
 * JSON string; "{}" when none). */
char *gres_served_json(const cJSON *st, const char *app);

/* The GPU device files of this machine (cached in <state>/gpu-devices after the first look, as
 * the detected hardware is): /dev/nvidia<N>, by N. */
int gres_local_devices(const struct charm_paths *p, struct strv *ret, struct strbuf *err);
