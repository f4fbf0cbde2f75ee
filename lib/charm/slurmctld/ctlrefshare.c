/* SPDX-License-Identifier: Apache-2.0 */
/* Refused candidates shared between controller units (see ctlrefshare.h): the published list,
 * read back and matched. */
#include "util/macro.h"
#include "charm/slurmctld/ctlrefshare.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/hash.h"
#include "util/parse.h"

#include "util/banned.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(cJSON *, cJSON_Delete)

static void hex16(uint64_t v, char out[17]) {
        snprintf(out, 17, "%016" PRIx64, v);
}

static bool parse_hex16(const char *s, uint64_t *ret) {
        if (!s || strlen(s) != 16)
                return false;
        uint64_t v = 0;
        for (const char *p = s; *p; p++) {
                int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
                if (d < 0)
                        return false;
                v = v << 4 | (uint64_t) d;
        }
        *ret = v;
        return true;
}

char *ctl_refshare_encode(const struct ctl_refusals *l) {
        _cleanup_(cJSON_Deletep) cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; i < l->n && i < CTL_REFUSED_MAX; i++) {
                const struct ctl_refusal *r = &l->v[i];
                cJSON *o = cJSON_CreateObject();
                char h[17], s[17];
                hex16(r->hash, h);
                hex16(r->settings, s);
                cJSON_AddStringToObject(o, "hash", h);
                if (r->global)
                        cJSON_AddStringToObject(o, "settings", s);
                cJSON_AddBoolToObject(o, "once", r->once);
                cJSON_AddBoolToObject(o, "global", r->global);
                cJSON_AddNumberToObject(o, "at", (double) r->at);
                _cleanup_free_ char *reason = xstrndup(r->reason ? r->reason : "", CTL_REFSHARE_REASON_MAX);
                cJSON_AddStringToObject(o, "reason", reason);
                cJSON_AddItemToArray(a, o);
        }
        char *s = cJSON_PrintUnformatted(a);
        if (!s)
                abort(); /* allocation failure (util/alloc.h) */
        return s;
}

int ctl_refshare_decode(const char *json, const char *unit, struct ctl_refusals *ret) {
        if (!json || strlen(json) > CTL_REFSHARE_JSON_MAX)
                return -EINVAL;
        _cleanup_(cJSON_Deletep) cJSON *a = cJSON_Parse(json);
        if (!cJSON_IsArray(a))
                return -EINVAL;
        size_t taken = 0;
        const cJSON *o;
        cJSON_ArrayForEach(o, a) {
                if (taken >= CTL_REFUSED_MAX)
                        break;
                const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "hash"),
                            *s = cJSON_GetObjectItemCaseSensitive(o, "settings"),
                            *once = cJSON_GetObjectItemCaseSensitive(o, "once"),
                            *global = cJSON_GetObjectItemCaseSensitive(o, "global"),
                            *at = cJSON_GetObjectItemCaseSensitive(o, "at"),
                            *reason = cJSON_GetObjectItemCaseSensitive(o, "reason");
                struct ctl_refusal r = {};
                if (!cJSON_IsObject(o) || !cJSON_IsString(h) || !parse_hex16(h->valuestring, &r.hash) ||
                        !cJSON_IsBool(once) || !cJSON_IsBool(global) || !cJSON_IsNumber(at) ||
                        at->valuedouble < 0 || at->valuedouble > 1e12 || !cJSON_IsString(reason))
                        continue;
                r.once = cJSON_IsTrue(once);
                r.global = cJSON_IsTrue(global);
                if (r.global && (!cJSON_IsString(s) || !parse_hex16(s->valuestring, &r.settings)))
                        continue;
                r.at = (int64_t) at->valuedouble;
                r.reason = xstrndup(reason->valuestring, CTL_REFSHARE_REASON_MAX);
                r.unit = unit ? xstrdup(unit) : NULL;
                ret->v = xrealloc(ret->v, (ret->n + 1) * sizeof *ret->v);
                ret->v[ret->n++] = r;
                taken++;
        }
        return 0;
}

/* ctl_refused_match()'s verdict on one record, its reason naming the unit that refused
 * ("on slurmctld/0: …"). */
static int verdict(const struct ctl_refusal *r, int64_t now, char **ret_reason) {
        _cleanup_free_ char *on = r->unit ? xasprintf("on %s: ", r->unit) : NULL;
        return ctl_refused_verdict(r->once, r->at, now, on, r->reason, ret_reason);
}

int ctl_refshare_match(const struct ctl_refusals *l, const char *data, size_t len, int64_t forget_at,
        int64_t now, char **ret_reason) {
        uint64_t h = fnv1a64(data, len);
        const struct ctl_refusal *exact = NULL, *global = NULL;
        uint64_t settings = 0;
        bool have_settings = false;
        for (size_t i = 0; i < l->n; i++) {
                const struct ctl_refusal *r = &l->v[i];
                if (r->at <= forget_at)
                        continue;
                if (r->hash == h && (!exact || r->at > exact->at))
                        exact = r;
                if (!r->global)
                        continue;
                if (!have_settings) {
                        settings = ctl_refused_settings_hash(data, len);
                        have_settings = true;
                }
                if (r->settings == settings && (!global || r->at > global->at))
                        global = r;
        }
        if (exact) {
                int v = verdict(exact, now, ret_reason);
                if (v != CTL_REFUSED_RETRY || !global || global->once)
                        return v;
                /* due for its one retry, unless its settings were refused for good since */
                free(*ret_reason);
                return verdict(global, now, ret_reason);
        }
        return global ? verdict(global, now, ret_reason) : 0;
}

int64_t ctl_refshare_forget_at(const char *value) {
        unsigned long v;
        if (!value || !parse_ulong(value, 1000000000000UL, &v))
                return 0;
        return (int64_t) v;
}
