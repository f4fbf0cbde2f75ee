/* SPDX-License-Identifier: Apache-2.0 */
/* A compute node's hardware as Slurm node parameters: `slurmd -C` parsed into key=value pairs,
 * NVIDIA GPUs counted into "Gres=gpu:N". */
#include "util/macro.h"
#include "slurm/hardware.h"

#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>

#include "proc/proc.h"
#include "util/alloc.h"

#include "util/banned.h"

static bool key_is(const char *w, const char *eq, const char *key) {
        size_t l = strlen(key);
        return (size_t) (eq - w) == l && strncasecmp(w, key, l) == 0;
}

int slurm_parse_node_config(const char *text, struct strv *ret_kv_pairs, struct strbuf *err) {
        _cleanup_strv_ struct strv out = STRV_INIT;
        const char *p = text ? text : "";

        while (*p) {
                const char *eol = strchrnul(p, '\n');
                const char *w = p;
                bool first = true;
                while (w < eol) {
                        const char *end, *eq;
                        while (w < eol && isspace((unsigned char) *w))
                                w++;
                        if (w >= eol)
                                break;
                        end = w;
                        while (end < eol && !isspace((unsigned char) *end))
                                end++;
                        eq = memchr(w, '=', (size_t) (end - w));
                        if (!eq || eq == w) {
                                if (err)
                                        strbuf_addf(err, "slurmd -C output: bad word \"%.*s\"",
                                                (int) (end - w), w);
                                return -EINVAL;
                        }
                        if (first && key_is(w, eq, "UpTime"))
                                break; /* the UpTime=… line */
                        if (!key_is(w, eq, "NodeName"))
                                strv_push_take(&out, xstrndup(w, (size_t) (end - w)));
                        first = false;
                        w = end;
                }
                p = *eol ? eol + 1 : eol;
        }
        for (size_t i = 0; i < out.n; i++)
                strv_push(ret_kv_pairs, out.v[i]);
        return (int) out.n;
}

/* "nvidia" followed by one or more digits and nothing else. */
static bool is_gpu_name(const char *name) {
        const char *d = startswith(name, "nvidia");
        if (!d || !*d)
                return false;
        for (; *d; d++)
                if (!isdigit((unsigned char) *d))
                        return false;
        return true;
}

static int count_smi(void) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        int r, n = 0;

        strv_pushl(&p.argv, "nvidia-smi", "-L", NULL);
        p.capture_out = true;
        p.capture_err = true;
        p.timeout_ms = 30000;
        r = proc_run(&p);
        if (r != 0)
                return 0; /* no nvidia-smi, or no driver: no GPU we could use */
        for (const char *l = p.out.buf; *l;) {
                const char *eol = strchrnul(l, '\n');
                if (startswith(l, "GPU "))
                        n++;
                l = *eol ? eol + 1 : eol;
        }
        return n;
}

static int cmp_gpu(const void *a, const void *b) {
        const char *x = strrchr(*(char *const *) a, '/'), *y = strrchr(*(char *const *) b, '/');
        unsigned long i = strtoul(x + 7, NULL, 10), j = strtoul(y + 7, NULL, 10); /* "/nvidia" */
        return i < j ? -1 : i > j;
}

int slurm_detect_gpu_files(const char *dev_dir, struct strv *ret, struct strbuf *err) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_strv_ struct strv found = STRV_INIT;
        struct dirent *de;

        if (!dev_dir)
                dev_dir = "/dev";
        d = opendir(dev_dir);
        if (!d && errno != ENOENT) {
                int e = errno;
                if (err)
                        strbuf_addf(err, "gpu detection: \"%s\": %s", dev_dir, strerror(e));
                return -e;
        }
        while (d && (de = readdir(d))) {
                struct stat st;
                if (!is_gpu_name(de->d_name))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || S_ISDIR(st.st_mode))
                        continue;
                strv_pushf(&found, "%s/%s", dev_dir, de->d_name);
        }
        if (found.n > 1)
                qsort(found.v, found.n, sizeof(char *), cmp_gpu);
        for (size_t i = 0; i < found.n; i++)
                strv_push(ret, found.v[i]);
        return (int) found.n;
}

int slurm_detect_gpus(const char *dev_dir, bool use_smi, struct strbuf *err) {
        _cleanup_strv_ struct strv files = STRV_INIT;
        int n = slurm_detect_gpu_files(dev_dir, &files, err);
        if (n == 0 && use_smi)
                n = count_smi();
        return n;
}

int slurm_detect_hardware_at(const char *slurmd_path, const char *dev_dir, bool use_smi,
        struct strv *ret_kv_pairs, struct strbuf *err) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        int r, gpus;

        /* hooks may run with a PATH without /usr/sbin, where Debian puts slurmd */
        if (!slurmd_path)
                slurmd_path = access("/usr/sbin/slurmd", X_OK) == 0 ? "/usr/sbin/slurmd" : "slurmd";
        strv_pushl(&p.argv, slurmd_path, "-C", NULL);
        p.capture_out = true;
        p.capture_err = true;
        p.timeout_ms = 30000;
        r = proc_run(&p);
        if (r < 0) {
                if (err)
                        strbuf_addf(err, "slurmd -C: %s", r == -ETIME ? "timed out" : strerror(-r));
                return r;
        }
        if (r != 0) {
                strbuf_trim(&p.err);
                if (err)
                        strbuf_addf(
                                err, "slurmd -C: exit status %d%s%s", r, p.err.len ? ": " : "", p.err.buf);
                return -EIO;
        }
        r = slurm_parse_node_config(p.out.buf, &kv, err);
        if (r < 0)
                return r;
        gpus = slurm_detect_gpus(dev_dir, use_smi, err);
        if (gpus < 0)
                return gpus;
        if (gpus > 0)
                strv_pushf(&kv, "Gres=gpu:%d", gpus);
        for (size_t i = 0; i < kv.n; i++)
                strv_push(ret_kv_pairs, kv.v[i]);
        return (int) kv.n;
}

int slurm_detect_hardware(struct strv *ret_kv_pairs, struct strbuf *err) {
        return slurm_detect_hardware_at(NULL, NULL, true, ret_kv_pairs, err);
}
