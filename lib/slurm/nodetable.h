/* SPDX-License-Identifier: Apache-2.0 */
/* The node table as change tracking needs it (the node event log, charm/slurmctld/events.h): every node's
 * name, state bits, reason and its times, in one RPC, and the controller's boot time; both
 * with libslurm's "no change since" answer, so that asking an idle cluster costs one tiny RPC.
 *
 * slurmctld 22.05 answers SLURM_NO_CHANGE_IN_DATA when the table (or the configuration) did not
 * change since `since - 1` (proc_req.c: _slurm_rpc_dump_nodes, _slurm_rpc_dump_conf): a change in
 * the same second as `since` is still returned. The boot time changes at every slurmctld start
 * and takeover; the configuration's update time also at each reconfigure.
 *
 * Functions call slurm_client_init() first; return 0 (data), 1 (unchanged since `since`: ret
 * untouched) or a negative errno with one message in err.
 * Ownership: struct slurm_node_table owns its strings; free with slurm_node_table_done(). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util/strbuf.h"

struct slurm_node_row {
        char *name;
        uint32_t state;     /* base | flags (slurm/nodestate.h) */
        char *reason;       /* NULL when none */
        time_t reason_time; /* 0 when no reason */
        time_t boot_time;   /* the node's OS boot as slurmd reported it; 0 before registration */
        time_t slurmd_start_time;
};

struct slurm_node_table {
        struct slurm_node_row *v;
        size_t n;
        time_t update_time; /* slurmctld's last node change this table reflects */
};

void slurm_node_table_done(struct slurm_node_table *t);

/* Every node (SHOW_ALL) unless nothing changed since `since` (0: always read). */
int slurm_node_table_load(time_t since, struct slurm_node_table *ret, struct strbuf *err);

/* The boot time of the slurmctld in charge and its configuration's update time (pass the
 * latter back as `since`). */
int slurm_ctl_boot_time(time_t since, time_t *ret_boot, time_t *ret_update, struct strbuf *err);
