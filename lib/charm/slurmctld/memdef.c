/* SPDX-License-Identifier: Apache-2.0 */
/* Each partition's default memory per CPU from its nodes' hardware (charm/slurmctld/memdef.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/memdef.h"
#include "util/parse.h"
#include "util/strv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/banned.h"

int memdef_mode_parse(const char *s, enum memdef_mode *ret) {
        if (streq_ptr(s, "auto"))
                *ret = MEMDEF_AUTO;
        else if (streq_ptr(s, "none"))
                *ret = MEMDEF_NONE;
        else
                return -EINVAL;
        return 0;
}

const char *memdef_mode_name(enum memdef_mode m) {
        return m == MEMDEF_AUTO ? "auto" : "none";
}

void memdef_units_done(struct memdef_units *u) {
        for (size_t i = 0; i < u->n; i++) {
                free(u->v[i].unit);
                free(u->v[i].app);
        }
        free(u->v);
        *u = (struct memdef_units){ 0 };
}

static int cmp_unit(const void *a, const void *b) {
        return strcmp(((const struct memdef_unit *) a)->unit, ((const struct memdef_unit *) b)->unit);
}

/* a whole decimal number, nothing else (util/parse.h; unsigned long is 64 bits on the bases) */
static bool parse_num(const char *w, uint64_t max, uint64_t *ret) {
        unsigned long v;
        if (!parse_ulong(w, max, &v))
                return false;
        *ret = v;
        return true;
}

void memdef_units_parse(const char *text, struct memdef_units *ret) {
        memdef_units_done(ret);
        if (!text)
                return;
        _cleanup_free_ char *copy = xstrdup(text);
        char *save = NULL;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *w[6] = { 0 }, *s2 = NULL;
                size_t n = 0;
                for (char *t = strtok_r(line, " ", &s2); t && n < ELEMENTSOF(w); t = strtok_r(NULL, " ", &s2))
                        w[n++] = t;
                uint64_t cpus, mem, spec;
                if (n != 5 || !parse_num(w[2], UINT16_MAX, &cpus) ||
                        !parse_num(w[3], SLURMD_IFACE_MAX_MEMORY_MB, &mem) ||
                        !parse_num(w[4], SLURMD_IFACE_MAX_MEMORY_MB, &spec) || !cpus || !mem || spec >= mem)
                        continue;
                bool dup = false;
                for (size_t i = 0; i < ret->n && !dup; i++)
                        dup = streq(ret->v[i].unit, w[0]);
                if (dup)
                        continue; /* (the first line of a unit counts) */
                if (ret->n % 64 == 0)
                        ret->v = xrealloc(ret->v, (ret->n + 64) * sizeof *ret->v);
                ret->v[ret->n++] = (struct memdef_unit){ .unit = xstrdup(w[0]),
                        .app = xstrdup(w[1]),
                        .res = { .cpus = (uint16_t) cpus, .real_memory = mem, .mem_spec_limit = spec } };
        }
        qsort(ret->v, ret->n, sizeof *ret->v, cmp_unit); /* once: a record of thousands of units */
}

void memdef_units_format(const struct memdef_units *u, struct strbuf *out) {
        for (size_t i = 0; i < u->n; i++)
                strbuf_addf(out, "%s %s %u %" PRIu64 " %" PRIu64 "\n", u->v[i].unit, u->v[i].app,
                        (unsigned) u->v[i].res.cpus, u->v[i].res.real_memory, u->v[i].res.mem_spec_limit);
}

bool memdef_units_set(struct memdef_units *u, const char *unit, const char *app, const struct node_resources *res) {
        for (size_t i = 0; i < u->n; i++) {
                if (!streq(u->v[i].unit, unit))
                        continue;
                if (streq(u->v[i].app, app) && u->v[i].res.cpus == res->cpus &&
                        u->v[i].res.real_memory == res->real_memory &&
                        u->v[i].res.mem_spec_limit == res->mem_spec_limit)
                        return false;
                free(u->v[i].app);
                u->v[i].app = xstrdup(app);
                u->v[i].res = *res;
                return true;
        }
        /* kept sorted: inserted at its place */
        size_t at = 0;
        while (at < u->n && strcmp(u->v[at].unit, unit) < 0)
                at++;
        u->v = xrealloc(u->v, (u->n + 1) * sizeof *u->v);
        memmove(&u->v[at + 1], &u->v[at], (u->n - at) * sizeof *u->v);
        u->v[at] = (struct memdef_unit){ .unit = xstrdup(unit), .app = xstrdup(app), .res = *res };
        u->n++;
        return true;
}

bool memdef_units_has(const struct memdef_units *u, const char *unit) {
        for (size_t i = 0; i < u->n; i++)
                if (streq(u->v[i].unit, unit))
                        return true;
        return false;
}

static void drop_at(struct memdef_units *u, size_t i) {
        free(u->v[i].unit);
        free(u->v[i].app);
        memmove(&u->v[i], &u->v[i + 1], (u->n - i - 1) * sizeof *u->v);
        u->n--;
}

bool memdef_units_drop(struct memdef_units *u, const char *unit) {
        for (size_t i = 0; i < u->n; i++)
                if (streq(u->v[i].unit, unit)) {
                        drop_at(u, i);
                        return true;
                }
        return false;
}

size_t memdef_units_keep_units(struct memdef_units *u, char *const *units, size_t n) {
        size_t dropped = 0;
        for (size_t i = 0; i < u->n;) {
                bool keep = false;
                for (size_t k = 0; k < n && !keep; k++)
                        keep = streq(units[k], u->v[i].unit);
                if (keep)
                        i++;
                else {
                        drop_at(u, i);
                        dropped++;
                }
        }
        return dropped;
}

static uint64_t per_cpu_of(const struct node_resources *r) {
        return r->cpus && r->mem_spec_limit < r->real_memory ? (r->real_memory - r->mem_spec_limit) / r->cpus : 0;
}

int memdef_per_cpu(const struct memdef_units *u, const char *app, uint64_t *ret) {
        uint64_t best = UINT64_MAX;
        for (size_t i = 0; i < u->n; i++) {
                uint64_t per = per_cpu_of(&u->v[i].res);
                if (streq(u->v[i].app, app) && per >= MEMDEF_MIN_PER_CPU_MB && per < best)
                        best = per;
        }
        if (best == UINT64_MAX)
                return -ENODATA;
        *ret = best;
        return 0;
}

void memdef_units_small(const struct memdef_units *u, struct strv *ret) {
        for (size_t i = 0; i < u->n; i++) {
                uint64_t per = per_cpu_of(&u->v[i].res);
                if (per < MEMDEF_MIN_PER_CPU_MB)
                        strv_pushf(ret,
                                "unit %s left out of the memory default: %" PRIu64 " MiB per CPU, below %d",
                                u->v[i].unit, per, MEMDEF_MIN_PER_CPU_MB);
        }
}

static bool sets_default(const struct slurm_options *o) {
        return (slurm_options_get(o, "DefMemPerCPU") || slurm_options_get(o, "DefMemPerNode") ||
                            slurm_options_get(o, "DefMemPerGPU"));
}

int memdef_apply(struct slurm_options *partition, uint64_t per_cpu) {
        if (sets_default(partition))
                return 0;
        const char *max = slurm_options_get(partition, "MaxMemPerCPU");
        uint64_t cap;
        if (max && parse_num(max, UINT64_MAX, &cap) && cap > 0 && cap < per_cpu)
                per_cpu = cap;
        char v[24];
        snprintf(v, sizeof v, "%" PRIu64, per_cpu);
        slurm_options_set(partition, "DefMemPerCPU", v);
        return 1;
}

const char *memdef_global_conflict(const char *params) {
        static const char *const keys[] = { "DefMemPerCPU", "DefMemPerNode", "DefMemPerGPU", "MaxMemPerCPU" };
        _cleanup_(slurm_options_clearp) struct slurm_options g = SLURM_OPTIONS_INIT;
        if (!params || slurm_options_parse(params, SLURM_OPTIONS_GLOBAL, &g, NULL) < 0)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (slurm_options_get(&g, keys[i]))
                        return keys[i];
        return NULL;
}
