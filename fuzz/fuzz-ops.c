/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the operator actions' parameter checks (lib/charm/slurmctld/ops.h): the input is
 * an action-get JSON object, checked as every action would; a refusal leaves nothing behind and
 * has a one-line message, an acceptance holds only what the rules allow. */
#include "util/macro.h"

#include <ctype.h>
#include <stdint.h>

#include "charm/slurmctld/ops.h"
#include "util/strbuf.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok, const char *what) {
        if (!ok) {
                fprintf(stderr, "fuzz-ops: %s\n", what);
                abort();
        }
}

static void message_ok(const struct strbuf *err) {
        must(err->len > 0 && err->len <= 600 && !strchr(err->buf, '\n'), "bad error message");
        must(!isupper((unsigned char) err->buf[0]), "message starts with a capital");
}

static bool plain(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char) *s) && !strchr("._-", *s))
                        return false;
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        cJSON *params = cJSON_ParseWithLength((const char *) data, size);
        if (!params)
                return 0;
        for (int a = OPS_NODE_GET; a <= OPS_NODE_UNRESERVE; a++) {
                struct strbuf err = STRBUF_INIT;
                struct ops_node_req q = { .names = STRV_INIT };
                if (ops_node_req_parse((enum ops_node_action) a, params, 1700000000, &q, &err) < 0) {
                        message_ok(&err);
                        must(q.names.n == 0 && !q.reason && !q.resv_name, "refusal left something");
                } else {
                        must(q.names.n > 0 && q.names.n <= OPS_NODES_MAX, "node count");
                        for (size_t i = 0; i < q.names.n; i++)
                                must(plain(q.names.v[i]), "node name");
                        if (q.reason) {
                                must(strlen(q.reason) >= 1 && strlen(q.reason) <= 128, "reason length");
                                for (const char *p = q.reason; *p; p++)
                                        must(*p >= 0x20 && *p < 0x7f, "reason character");
                        }
                        if (q.resv_name)
                                must(plain(q.resv_name), "reservation name");
                        if (a == OPS_NODE_RESERVE)
                                must(q.duration_min >= 1 && q.duration_min <= OPS_RESV_MAX_MINUTES,
                                        "duration");
                }
                ops_node_req_done(&q);
                strbuf_release(&err);
        }
        {
                struct strbuf err = STRBUF_INIT;
                struct ops_find_req q = { STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT,
                        STRV_INIT };
                if (ops_find_req_parse(params, &q, &err) < 0)
                        message_ok(&err);
                else
                        must(q.users.n + q.states.n + q.partitions.n + q.names.n + q.accounts.n + q.nodes.n +
                                                q.batch_hosts.n >
                                        0,
                                "no criterion");
                ops_find_req_done(&q);
                strbuf_release(&err);
        }
        {
                struct strbuf err = STRBUF_INIT;
                struct slurm_jobid *ids = NULL;
                int n = ops_jobids_parse(params, &ids, &err);
                if (n < 0) {
                        message_ok(&err);
                        must(!ids, "refusal left ids");
                } else
                        for (int i = 0; i < n; i++)
                                must(ids[i].id >= 1 && ids[i].id <= SLURM_JOBID_MAX, "job id");
                free(ids);
                strbuf_release(&err);
        }
        {
                struct strbuf err = STRBUF_INIT;
                const char *item = NULL;
                if (ops_config_item_parse(params, &item, &err) < 0)
                        message_ok(&err);
                strbuf_release(&err);
        }
        /* a string value as a start time */
        if (cJSON_IsString(params)) {
                struct strbuf err = STRBUF_INIT;
                time_t t = 7;
                if (ops_time_parse(params->valuestring, 1700000000, &t, &err) < 0) {
                        message_ok(&err);
                        must(t == 7, "refused time written");
                } else
                        must(t == 0 || (t >= 1700000000 - 60 && t <= 1700000000 + (time_t) 10 * 366 * 86400),
                                "time range");
                strbuf_release(&err);
        }
        cJSON_Delete(params);
        return 0;
}
