/* SPDX-License-Identifier: Apache-2.0 */
/* slurm.conf to each idle compute node (charm/confpush.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/confpush.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charm/ctlconf.h"
#include "util/fileio.h"

#include "util/banned.h"

void confpush_hash_text(uint32_t hash, char ret[9]) {
        snprintf(ret, 9, "%08" PRIx32, hash);
}

int confpush_hash_parse(const char *s, uint32_t *ret) {
        if (!s || strlen(s) != 8)
                return -EINVAL;
        uint32_t h = 0;
        for (size_t i = 0; i < 8; i++) {
                char c = s[i];
                unsigned d;
                if (c >= '0' && c <= '9')
                        d = (unsigned) (c - '0');
                else if (c >= 'a' && c <= 'f')
                        d = (unsigned) (c - 'a' + 10);
                else
                        return -EINVAL;
                h = (h << 4) | d;
        }
        *ret = h;
        return 0;
}

enum confpush_step confpush_next(const struct confpush_view *v) {
        if (v->fetched == v->running)
                return CONFPUSH_NONE;
        if (v->record && v->record_hash == v->running && v->now >= v->record_time &&
                v->now - v->record_time < CONFPUSH_RETRY_S)
                return CONFPUSH_STUCK;
        if (v->down)
                return CONFPUSH_WAIT_DOWN;
        if (v->busy || v->jobs != 0)
                return CONFPUSH_WAIT_JOBS; /* a job holds it, or nobody knows */
        return CONFPUSH_RESTART;
}

char *confpush_record_format(uint32_t hash, time_t when) {
        char h[9];
        confpush_hash_text(hash, h);
        return xasprintf("%s %lld\n", h, (long long) when);
}

int confpush_record_parse(const char *text, uint32_t *ret_hash, time_t *ret_when) {
        char h[9] = { 0 };
        long long when = 0;
        int n = 0;
        if (!text || sscanf(text, "%8s %lld%n", h, &when, &n) != 2 || when < 0)
                return -EINVAL;
        const char *rest = text + n;
        while (*rest == '\n' || *rest == ' ')
                rest++;
        if (*rest)
                return -EINVAL;
        uint32_t hash;
        if (confpush_hash_parse(h, &hash) < 0)
                return -EINVAL;
        *ret_hash = hash;
        *ret_when = (time_t) when;
        return 0;
}

int confpush_fetched_hash(const struct charm_paths *p, uint32_t *ret) {
        _cleanup_free_ char *path = charm_path(p, CONFPUSH_FETCHED_PATH), *data = NULL;
        size_t len = 0;
        int r = read_full_file(path, &data, &len);
        if (r < 0)
                return r;
        *ret = ctl_conf_slurm_hash(data, len);
        return 0;
}
