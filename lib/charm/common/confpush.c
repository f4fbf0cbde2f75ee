/* SPDX-License-Identifier: Apache-2.0 */
/* slurm.conf to each idle compute node (charm/common/confpush.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/confpush.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurmconf/conf.h"
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
                return v->held ? CONFPUSH_RELEASE : CONFPUSH_NONE;
        /* restarted for this very file and fetched this very copy: a restart more would fetch
         * it again (a controller that serves other bytes than it hashes, review 12 F2) */
        if (v->record && v->record_running == v->running && v->record_fetched == v->fetched &&
                v->record_boot == v->boot)
                return v->held ? CONFPUSH_RELEASE : CONFPUSH_STUCK;
        if (v->down)
                return CONFPUSH_WAIT_DOWN;
        if (v->busy || v->jobs != 0) {
                /* a job holds it, or nobody knows */
                if (!v->held && v->behind_since > 0 && v->now >= v->behind_since &&
                        v->now - v->behind_since >= CONFPUSH_DRAIN_AFTER_S)
                        return CONFPUSH_HOLD;
                return CONFPUSH_WAIT_JOBS;
        }
        /* its wave not come yet; a node the push holds already (a run killed half way) goes on */
        if (!v->held && v->turn > 0 && v->now < v->turn)
                return CONFPUSH_WAIT_TURN;
        return CONFPUSH_RESTART;
}

unsigned confpush_waves(size_t n_nodes) {
        if (n_nodes < 1)
                return 1;
        return n_nodes > CONFPUSH_WAVES_MAX ? CONFPUSH_WAVES_MAX : (unsigned) n_nodes;
}

unsigned confpush_waves_parse(const char *s) {
        if (!s || !*s || strlen(s) > 2)
                return 1;
        unsigned n = 0;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return 1;
                n = n * 10 + (unsigned) (*p - '0');
        }
        return n >= 1 && n <= CONFPUSH_WAVES_MAX ? n : 1;
}

unsigned confpush_wave(const char *node, uint32_t running, unsigned waves) {
        if (waves <= 1 || !node)
                return 0;
        /* FNV-1a over the name and the hash: a node's wave differs from one file to the next */
        uint32_t h = 2166136261u;
        for (const char *p = node; *p; p++)
                h = (h ^ (uint8_t) *p) * 16777619u;
        for (int i = 0; i < 4; i++)
                h = (h ^ (uint8_t) (running >> (8 * i))) * 16777619u;
        return h % waves;
}

time_t confpush_turn(const char *node, uint32_t running, unsigned waves, time_t behind_since) {
        if (behind_since <= 0)
                return 0;
        return behind_since + (time_t) confpush_wave(node, running, waves) * CONFPUSH_WAVE_S;
}

char *confpush_record_format(uint32_t running, uint32_t fetched, time_t boot, time_t when) {
        char a[9], b[9];
        confpush_hash_text(running, a);
        confpush_hash_text(fetched, b);
        return xasprintf("%s %s %lld %lld\n", a, b, (long long) boot, (long long) when);
}

/* "<hash>… <number>…\n": n hash words then m numbers (each at least 0); -EINVAL otherwise. */
static int parse_words(const char *text, size_t n, uint32_t *hashes, size_t m, long long *nums) {
        if (!text)
                return -EINVAL;
        const char *p = text;
        for (size_t i = 0; i < n; i++) {
                char w[9];
                size_t len = strcspn(p, " \n");
                if (len != 8 || p[len] != ' ')
                        return -EINVAL;
                memcpy(w, p, 8);
                w[8] = 0;
                if (confpush_hash_parse(w, &hashes[i]) < 0)
                        return -EINVAL;
                p += len + 1;
        }
        for (size_t i = 0; i < m; i++) {
                char *end = NULL;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                errno = 0;
                long long v = strtoll(p, &end, 10);
                if (errno || !end)
                        return -EINVAL;
                if (i + 1 < m ? *end != ' ' : (*end && strcmp(end, "\n") != 0))
                        return -EINVAL;
                nums[i] = v;
                p = end + (i + 1 < m);
        }
        return 0;
}

int confpush_record_parse(
        const char *text, uint32_t *ret_running, uint32_t *ret_fetched, time_t *ret_boot, time_t *ret_when) {
        uint32_t h[2];
        long long v[2];
        if (parse_words(text, 2, h, 2, v) < 0)
                return -EINVAL;
        *ret_running = h[0];
        *ret_fetched = h[1];
        *ret_boot = (time_t) v[0];
        *ret_when = (time_t) v[1];
        return 0;
}

char *confpush_behind_format(uint32_t running, time_t since) {
        char a[9];
        confpush_hash_text(running, a);
        return xasprintf("%s %lld\n", a, (long long) since);
}

int confpush_behind_parse(const char *text, uint32_t *ret_running, time_t *ret_since) {
        uint32_t h[1];
        long long since;
        if (parse_words(text, 1, h, 1, &since) < 0)
                return -EINVAL;
        *ret_running = h[0];
        *ret_since = (time_t) since;
        return 0;
}

size_t confpush_hold_cap(size_t n_nodes) {
        return n_nodes / 10 > 1 ? n_nodes / 10 : 1;
}

int confpush_fetched_hash(const struct charm_paths *p, uint32_t *ret) {
        _cleanup_free_ char *path = charm_path(p, CONFPUSH_FETCHED_PATH), *data = NULL;
        size_t len = 0;
        int r = read_full_file(path, &data, &len);
        if (r < 0)
                return r;
        *ret = slurmconf_file_hash(data, len);
        return 0;
}

const struct confpush_peer *confpush_canary_wait(const char *self, uint32_t running, unsigned waves,
        time_t behind_since, const struct confpush_peer *p, size_t n) {
        unsigned mine = confpush_wave(self, running, waves);
        if (mine == 0)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (p[i].held_idle && !streq_ptr(p[i].name, self) &&
                        (behind_since <= 0 || p[i].since >= behind_since - CONFPUSH_CANARY_SLACK_S) &&
                        confpush_wave(p[i].name, running, waves) < mine)
                        return &p[i];
        return NULL;
}

bool confpush_hold_yields(const char *self, time_t self_since, const struct confpush_holder *h, size_t n, size_t cap) {
        size_t ahead = 0;
        for (size_t i = 0; i < n; i++) {
                if (streq(h[i].name, self))
                        continue;
                if (h[i].since < self_since || (h[i].since == self_since && strcmp(h[i].name, self) < 0))
                        ahead++;
        }
        return ahead >= cap;
}
