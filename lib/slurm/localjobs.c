/* SPDX-License-Identifier: Apache-2.0 */
/* A node's running jobs from the node itself: `scontrol listjobs --json` (localjobs.h). */
#include "util/macro.h"
#include "slurm/localjobs.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "proc/proc.h"
#include "slurm/caps.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strv.h"

#include "util/banned.h"

/* A generous bound: a node runs at most a few thousand jobs at once. */
#define LOCAL_JOBS_MAX 65536

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
        return x < y ? -1 : x > y;
}

/* Sorts ids and drops duplicates; the count kept. */
static size_t sort_unique(uint32_t *ids, size_t n) {
        qsort(ids, n, sizeof *ids, cmp_u32);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
                if (m == 0 || ids[m - 1] != ids[i])
                        ids[m++] = ids[i];
        return m;
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
        *ret_ids = ids;
        *ret_n = sort_unique(ids, k);
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

/* digits only, 1..UINT32_MAX: the length read (0 for none) */
static size_t read_u32(const char *s, uint32_t *ret) {
        uint64_t v = 0;
        size_t i = 0;
        for (; s[i] >= '0' && s[i] <= '9'; i++) {
                v = v * 10 + (uint64_t) (s[i] - '0');
                if (v > UINT32_MAX)
                        return 0;
        }
        if (i == 0 || (i > 1 && s[0] == '0'))
                return 0;
        *ret = (uint32_t) v;
        return i;
}

bool slurm_local_step_name(const char *name, const char *node, uint32_t *ret_job) {
        size_t nl = strlen(node);
        if (nl == 0 || strncmp(name, node, nl) != 0 || name[nl] != '_')
                return false;
        const char *p = name + nl + 1;
        uint32_t job, step, comp;
        size_t l = read_u32(p, &job);
        if (l == 0 || job == UINT32_MAX || p[l] != '.')
                return false;
        p += l + 1;
        if ((l = read_u32(p, &step)) == 0)
                return false;
        p += l;
        if (*p == '.') {
                if ((l = read_u32(p + 1, &comp)) == 0)
                        return false;
                p += l + 1;
        }
        if (*p != '\0')
                return false;
        *ret_job = job;
        return true;
}

/* The names under dir/ that table (/proc/net/unix's format: the path is the 8th field) lists as
 * bound: 0 with *ret filled, negative errno when it cannot be read. */
static int bound_names(const char *table, const char *dir, struct strv *ret) {
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(table, &data, NULL);
        if (r < 0)
                return r;
        size_t dl = strlen(dir);
        for (char *line = data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
                nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                /* Num RefCount Protocol Flags Type St Inode Path */
                char *p = line;
                for (int field = 0; field < 7 && p; field++) {
                        p += strspn(p, " ");
                        p = strchr(p, ' ');
                }
                if (!p)
                        continue;
                p += strspn(p, " ");
                if (strncmp(p, dir, dl) == 0 && p[dl] == '/' && !strchr(p + dl + 1, '/'))
                        strv_push(ret, p + dl + 1);
        }
        return 0;
}

int slurm_local_steps_scan(const char *spool_dir, const char *node, const char *unix_table, uint32_t **ret_ids,
        size_t *ret_n, struct strbuf *err) {
        _cleanup_strv_ struct strv bound = STRV_INIT;
        /* the kernel writes the table in several reads, placed by hash bucket and offset, so a
         * socket can be skipped when others close meanwhile: two reads, and a name in either */
        bool filter = unix_table && bound_names(unix_table, spool_dir, &bound) >= 0 &&
                bound_names(unix_table, spool_dir, &bound) >= 0;
        DIR *d = opendir(spool_dir);
        if (!d) {
                if (errno == ENOENT) {
                        *ret_ids = xcalloc(1, sizeof **ret_ids);
                        *ret_n = 0;
                        return 0;
                }
                int r = -errno;
                strbuf_addf(err, "%s: %s", spool_dir, strerror(-r));
                return r;
        }
        size_t n = 0, cap = 8;
        uint32_t *ids = xcalloc(cap, sizeof *ids);
        struct dirent *de;
        int r = 0;
        for (;;) {
                errno = 0; /* readdir's end and its error differ only by errno */
                de = readdir(d);
                if (!de)
                        break;
                uint32_t job;
                if (!slurm_local_step_name(de->d_name, node, &job))
                        continue;
                if (filter && !strv_contains(&bound, de->d_name))
                        continue; /* a dead slurmstepd's socket file */
                if (n == LOCAL_JOBS_MAX) {
                        strbuf_addf(err, "%s: more than %d slurmstepd sockets", spool_dir, LOCAL_JOBS_MAX);
                        r = -E2BIG;
                        break;
                }
                if (n == cap)
                        ids = xrealloc(ids, (cap *= 2) * sizeof *ids);
                ids[n++] = job;
        }
        if (r == 0 && errno != 0) {
                r = -errno;
                strbuf_addf(err, "%s: %s", spool_dir, strerror(-r));
        }
        closedir(d);
        if (r < 0) {
                free(ids);
                return r;
        }
        *ret_ids = ids;
        *ret_n = sort_unique(ids, n);
        return 0;
}
