/* SPDX-License-Identifier: Apache-2.0 */
/* The node table and the controller's boot time for change tracking: slurm_load_node and
 * slurm_load_ctl_conf with an update time, so that "nothing changed" costs one small answer. */
#include "util/macro.h"
#include "slurm/nodetable.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/client.h"
#include "slurm/compat.h"
#include "slurm/slurmerr.h"
#include "util/alloc.h"

#include "util/banned.h"

void slurm_node_table_done(struct slurm_node_table *t) {
        if (!t)
                return;
        for (size_t i = 0; i < t->n; i++) {
                free(t->v[i].name);
                free(t->v[i].reason);
        }
        free(t->v);
        *t = (struct slurm_node_table){ 0 };
}

int slurm_node_table_load(time_t since, struct slurm_node_table *ret, struct strbuf *err) {
        node_info_msg_t *msg = NULL;
        struct slurm_node_table t = { 0 };
        int r;

        r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_node(since, &msg, SHOW_ALL);
        if (r != SLURM_SUCCESS) {
                if (slurm_rc_code(r) == SLURM_NO_CHANGE_IN_DATA)
                        return 1;
                return slurm_fail(err, slurm_rc_code(r), "load the node table");
        }
        t.update_time = msg ? msg->last_update : 0;
        t.v = xcalloc(msg && msg->record_count ? msg->record_count : 1, sizeof(*t.v));
        for (uint32_t i = 0; msg && i < msg->record_count; i++) {
                const node_info_t *in = &msg->node_array[i];
                if (isempty(in->name))
                        continue;
                t.v[t.n++] = (struct slurm_node_row){
                        .name = xstrdup(in->name),
                        .state = in->node_state,
                        .reason = slurm_info_reason(in) ? xstrdup(in->reason) : NULL,
                        .reason_time = slurm_info_reason(in) ? in->reason_time : 0,
                        .boot_time = in->boot_time,
                        .slurmd_start_time = in->slurmd_start_time,
                };
        }
        if (msg)
                slurm_free_node_info_msg(msg);
        *ret = t;
        return 0;
}

int slurm_ctl_boot_time(time_t since, time_t *ret_boot, time_t *ret_update, struct strbuf *err) {
        slurm_conf_t *c = NULL;
        int r = slurm_client_init(err);
        if (r < 0)
                return r;
        r = slurm_load_ctl_conf(since, &c);
        if (r != SLURM_SUCCESS) {
                if (slurm_rc_code(r) == SLURM_NO_CHANGE_IN_DATA)
                        return 1;
                return slurm_fail(err, slurm_rc_code(r), "load the controller's configuration");
        }
        *ret_boot = c->boot_time;
        *ret_update = c->last_update;
        slurm_free_ctl_conf(c);
        return 0;
}
