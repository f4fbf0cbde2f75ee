/* SPDX-License-Identifier: Apache-2.0 */
/* The libslurm API differences between the Slurm generations this library builds against,
 * in one place: Debian 12's 22.05 (libslurm.so.38) and Debian 13's 24.11 (libslurm.so.42).
 * Only lib/slurm/ includes this header; what the rest of the library must know about the
 * generation (auth mechanism, key, service type, …) is data: slurm/caps.h.
 *
 * Design note. The switch is SLURM_VERSION_NUMBER at compile time: the two generations are
 * not ABI compatible, a charm is built against one of them on its base and runs only there.
 *   23.11  hostlist_t and List became struct types: the calls take hostlist_t * and list_t *;
 *          slurm_hostlist_ranged_string_malloc() is gone (only the xmalloc form, freed by
 *          xfree, and the buffer form remain).
 *   24.05  slurm_get_errno() is gone: errno carries the code.
 *   24.11  the socket error codes start at 5003 (ZERO_RECV_LENGTH is gone) and the auth
 *          codes end at ESLURM_AUTH_UNABLE_TO_GENERATE_TOKEN; NODE_STATE_NET is gone;
 *          RESERVE_FLAG_FIRST_CORES is gone; a resumed node keeps its reason (below);
 *          slurm_conf_t lost launch_type, power_plugin,
 *          route_plugin, core_spec_plugin, ext_sensors_type, slurmctld_plugstack. */
#pragma once

#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include "slurm/nodestate.h"

#define SLURM_AT_LEAST(a, b) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, 0))

#if SLURM_AT_LEAST(23, 11)
typedef hostlist_t *slurm_hl_t;
typedef list_t *slurm_list_t;
typedef list_itr_t *slurm_list_itr_t;
#else
typedef hostlist_t slurm_hl_t;
typedef List slurm_list_t;
typedef ListIterator slurm_list_itr_t;
#endif

#if SLURM_AT_LEAST(24, 5)
#define slurm_last_errno() (errno)
#else
#define slurm_last_errno() slurm_get_errno()
#endif

/* The communication error codes of the socket layer, first and last. */
#if SLURM_AT_LEAST(24, 11)
#define SLURM_SOCKET_ERR_FIRST ESLURM_PROTOCOL_INCOMPLETE_PACKET
#define ESLURM_AUTH_LAST ESLURM_AUTH_UNABLE_TO_GENERATE_TOKEN
#else
#define SLURM_SOCKET_ERR_FIRST SLURM_PROTOCOL_SOCKET_IMPL_ZERO_RECV_LENGTH
#define ESLURM_AUTH_LAST ESLURM_AUTH_SKIP
#endif
#define SLURM_SOCKET_ERR_LAST SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT

/* The reason of a node, where it has one. 24.11 keeps the last drain or down reason on a
 * resumed node (checked on 24.11.5: RESUME and UNDRAIN leave it, an empty reason does not
 * clear it; 22.05 clears it); a reason means something only while the node is drained, down
 * or failing (sinfo -R's rule), so that is when lib/slurm reports one, on every generation. */
static inline const char *slurm_info_reason(const node_info_t *in) {
#if SLURM_AT_LEAST(24, 11)
        if (!(in->node_state & (NODE_STATE_DRAIN | NODE_STATE_FAIL)) && !slurm_state_down(in->node_state))
                return NULL;
#endif
        return in->reason && in->reason[0] ? in->reason : NULL;
}

/* Slurm's rendered hostlist of hl as a malloc'd string (NULL on failure or when empty). */
char *slurm_hl_string(slurm_hl_t hl);

/* Slurm's word for a job's state reason ("Resources", "Priority", "JobHeldUser"): libslurm
 * exports it as slurm_job_reason_string (22.05, src/common/slurm_protocol_defs.h) and as
 * slurm_job_state_reason_string (24.11, src/common/job_state_reason.h), declared in neither
 * generation's public header. */
const char *slurm_job_reason_name(uint16_t reason);
