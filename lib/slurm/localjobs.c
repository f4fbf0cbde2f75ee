/* SPDX-License-Identifier: Apache-2.0 */
/* A node's running jobs from the node itself: `scontrol listjobs --json` (localjobs.h). */
#include "util/macro.h"
#include "slurm/localjobs.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "proc/proc.h"
#include "slurm/caps.h"
#include "util/alloc.h"

#include "util/banned.h"

/* A generous bound: a node runs at most a few thousand jobs at once. */
#define LOCAL_JOBS_MAX 65536

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
        return x < y ? -1 : x > y;
}

int slurm_local_jobs_parse(const char *json, uint32_t **ret_ids, size_t *ret_n, struct strbuf *err) {
        cJSON *root = json ? cJSON_Parse(json) : NULL;
        const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs"), *j;
        if (!cJSON_IsArray(jobs)) {
                strbuf_addstr(err, "scontrol listjobs: no \"jobs\" list in its answer");
                cJSON_Delete(root);
                return -EINVAL;
        }
        int n = cJSON_GetArraySize(jobs);
        if (n > LOCAL_JOBS_MAX) {
                strbuf_addf(err, "scontrol listjobs: %d jobs (at most %d expected)", n, LOCAL_JOBS_MAX);
                cJSON_Delete(root);
                return -EINVAL;
        }
        uint32_t *ids = xcalloc((size_t) n + 1, sizeof *ids);
        size_t k = 0;
        cJSON_ArrayForEach(j, jobs) {
                const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "job_id");
                if (!cJSON_IsNumber(id) || id->valuedouble < 1 || id->valuedouble > UINT32_MAX ||
                        id->valuedouble != (double) (uint32_t) id->valuedouble) {
                        strbuf_addstr(err, "scontrol listjobs: a job without a valid \"job_id\"");
                        free(ids);
                        cJSON_Delete(root);
                        return -EINVAL;
                }
                ids[k++] = (uint32_t) id->valuedouble;
        }
        cJSON_Delete(root);
        qsort(ids, k, sizeof *ids, cmp_u32);
        size_t m = 0;
        for (size_t i = 0; i < k; i++)
                if (m == 0 || ids[m - 1] != ids[i])
                        ids[m++] = ids[i];
        *ret_ids = ids;
        *ret_n = m;
        return 0;
}

int slurm_local_jobs(
        const char *node, int timeout_ms, uint32_t **ret_ids, size_t *ret_n, struct strbuf *err) {
        if (!slurm_caps_built()->listjobs) {
                strbuf_addf(err, "Slurm %s has no scontrol listjobs", slurm_caps_built()->release);
                return -EOPNOTSUPP;
        }
        _cleanup_proc_ struct proc p = PROC_INIT;
        strv_pushl(&p.argv, "scontrol", "listjobs", "--json", NULL);
        for (char **e = environ; e && *e; e++)
                if (!startswith(*e, "SLURMD_NODENAME="))
                        strv_push(&p.env, *e);
        strv_pushf(&p.env, "SLURMD_NODENAME=%s", node);
        p.env_set = true;
        p.capture_out = p.capture_err = true;
        p.timeout_ms = timeout_ms;
        int r = proc_run(&p);
        if (r != 0) {
                strbuf_trim(&p.err);
                strbuf_addf(err, "scontrol listjobs: %s",
                        r < 0               ? strerror(-r)
                                : p.err.len ? p.err.buf
                                            : "failed");
                return r < 0 ? r : -EIO;
        }
        return slurm_local_jobs_parse(p.out.buf, ret_ids, ret_n, err);
}
