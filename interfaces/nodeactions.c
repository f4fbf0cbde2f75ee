/* SPDX-License-Identifier: Apache-2.0 */
/* A compute unit's own actions in its relation data (nodeactions.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "nodeactions.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

#include "slurmd.h"

#include "util/banned.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(cJSON *, cJSON_Delete)
#define _cleanup_cjson_ _cleanup_(cJSON_Deletep)

#define JSON_MAX (64 * 1024)

static void action_done(struct node_action *x) {
        free(x->action);
        free(x->id);
        free(x->node);
        free(x->reason);
        free(x->detail);
        *x = (struct node_action){ 0 };
}

void node_actions_done(struct node_actions *a) {
        if (!a)
                return;
        for (size_t i = 0; i < a->n; i++)
                action_done(&a->v[i]);
        free(a->v);
        *a = (struct node_actions){ 0 };
}

static bool valid_word(const char *s, size_t max, bool upper_dot) {
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n > max)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                            (upper_dot && ((c >= 'A' && c <= 'Z') || c == '.'))))
                        return false;
        }
        return true;
}

static bool valid_action(const char *s) {
        static const char *const names[] = { NODE_ACTIONS_NAMES };
        for (size_t i = 0; s && i < ELEMENTSOF(names); i++)
                if (streq(s, names[i]))
                        return true;
        return false;
}

/* The length of the UTF-8 sequence at s (its code point in *cp), 0 when it is not a valid one
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_char(const unsigned char *s, uint32_t *cp) {
        if (s[0] < 0x80) {
                *cp = s[0];
                return 1;
        }
        size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
        if (n == 0 || s[0] > 0xf4)
                return 0;
        uint32_t c = s[0] & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                c = (c << 6) | (s[i] & 0x3f);
        }
        if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        *cp = c;
        return n;
}

/* No C0, DEL or C1 control; no bidirectional override, isolate or mark (U+061C, U+200E/F,
 * U+202A-202E, U+2066-2069); no line or paragraph separator (U+2028/9): each makes a log line
 * read otherwise than it is. */
static bool cp_shown(uint32_t c) {
        return !(c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x061c || c == 0x200e || c == 0x200f ||
                (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069));
}

static bool valid_text(const char *s) {
        size_t n = strlen(s);
        if (n > NODE_ACTIONS_TEXT_MAX)
                return false;
        for (size_t i = 0; i < n;) {
                uint32_t c;
                size_t k = utf8_char((const unsigned char *) s + i, &c);
                if (k == 0 || !cp_shown(c))
                        return false;
                i += k;
        }
        return true;
}

/* 2020-01-01 to 2100-01-01, in ms */
#define TIME_MIN_MS 1577836800000.0
#define TIME_MAX_MS 4102444800000.0

static bool valid_log(const char *s) {
        return s && strlen(s) == NODE_ACTIONS_LOG_LEN && strspn(s, "0123456789abcdef") == NODE_ACTIONS_LOG_LEN;
}

/* A text as the bounds take it: cut at NODE_ACTIONS_TEXT_MAX bytes (at a character), every
 * character the bounds refuse (a control, an override, a byte that is not UTF-8) as a space;
 * NULL or "" stays NULL. */
static char *text_dup(const char *s) {
        if (isempty(s))
                return NULL;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        for (size_t i = 0; s[i];) {
                uint32_t c;
                size_t k = utf8_char((const unsigned char *) s + i, &c);
                size_t add = k && cp_shown(c) ? k : 1;
                if (out.len + add > NODE_ACTIONS_TEXT_MAX)
                        break;
                if (k && cp_shown(c))
                        strbuf_add(&out, s + i, k);
                else
                        strbuf_addch(&out, ' ');
                i += k ? k : 1;
        }
        return strbuf_detach(&out, NULL);
}

int node_actions_push(struct node_actions *a, int64_t time_ms, const char *action, const char *id,
        const char *node, const char *reason, const char *detail) {
        if (!valid_action(action) || !valid_word(id, 64, true) || !slurmd_iface_valid_host(node) ||
                time_ms < (int64_t) TIME_MIN_MS || time_ms >= (int64_t) TIME_MAX_MS)
                return -EINVAL;
        if (!valid_log(a->log)) {
                uint8_t rnd[NODE_ACTIONS_LOG_LEN / 2];
                if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t) sizeof rnd)
                        return -EIO;
                for (size_t i = 0; i < sizeof rnd; i++)
                        snprintf(a->log + 2 * i, 3, "%02x", rnd[i]);
        }
        uint64_t seq = a->n ? a->v[a->n - 1].seq + 1 : 1;
        if (a->n >= NODE_ACTIONS_MAX) {
                size_t drop = a->n - NODE_ACTIONS_MAX + 1;
                for (size_t i = 0; i < drop; i++)
                        action_done(&a->v[i]);
                memmove(a->v, a->v + drop, (a->n - drop) * sizeof *a->v);
                a->n -= drop;
        }
        a->v = xrealloc(a->v, (a->n + 1) * sizeof *a->v);
        a->v[a->n++] = (struct node_action){
                .seq = seq,
                .time_ms = time_ms,
                .action = xstrdup(action),
                .id = xstrdup(id),
                .node = xstrdup(node),
                .reason = text_dup(reason),
                .detail = text_dup(detail),
        };
        /* the other side refuses a value over JSON_MAX whole: the oldest go first (JSON's
         * escapes make a text up to twice its bytes) */
        for (;;) {
                _cleanup_free_ char *json = node_actions_encode(a);
                if (strlen(json) <= JSON_MAX || a->n <= 1)
                        break;
                action_done(&a->v[0]);
                memmove(a->v, a->v + 1, (a->n - 1) * sizeof *a->v);
                a->n--;
        }
        return 0;
}

char *node_actions_encode(const struct node_actions *a) {
        _cleanup_cjson_ cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "log", a->log);
        cJSON *list = cJSON_AddArrayToObject(o, "actions");
        for (size_t i = 0; i < a->n; i++) {
                const struct node_action *x = &a->v[i];
                cJSON *e = cJSON_CreateObject();
                cJSON_AddNumberToObject(e, "seq", (double) x->seq);
                cJSON_AddNumberToObject(e, "time", (double) x->time_ms);
                cJSON_AddStringToObject(e, "action", x->action);
                cJSON_AddStringToObject(e, "id", x->id);
                cJSON_AddStringToObject(e, "node", x->node);
                if (x->reason)
                        cJSON_AddStringToObject(e, "reason", x->reason);
                if (x->detail)
                        cJSON_AddStringToObject(e, "detail", x->detail);
                cJSON_AddItemToArray(list, e);
        }
        char *p = cJSON_PrintUnformatted(o);
        char *ret = xstrdup(p);
        cJSON_free(p);
        return ret;
}

/* A whole number in [1, max] (JSON numbers are doubles: exact up to 2^53). */
static bool json_whole(const cJSON *v, double max, uint64_t *ret) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > max ||
                v->valuedouble != (double) (uint64_t) v->valuedouble)
                return false;
        *ret = (uint64_t) v->valuedouble;
        return true;
}

static int bad(struct strbuf *err, size_t i, const char *what) {
        strbuf_addf(err, NODE_ACTIONS_KEY ": record %zu: %s", i + 1, what);
        return -EINVAL;
}

int node_actions_decode(const char *json, struct node_actions *ret, struct strbuf *err) {
        if (isempty(json))
                return -ENODATA;
        if (strlen(json) > JSON_MAX) {
                strbuf_addstr(err, NODE_ACTIONS_KEY ": too long");
                return -EINVAL;
        }
        _cleanup_cjson_ cJSON *o = cJSON_Parse(json);
        const cJSON *log = cJSON_GetObjectItemCaseSensitive(o, "log"),
                    *list = cJSON_GetObjectItemCaseSensitive(o, "actions");
        if (!cJSON_IsObject(o) || !cJSON_IsString(log) || !valid_log(log->valuestring) || !cJSON_IsArray(list)) {
                strbuf_addstr(err, NODE_ACTIONS_KEY ": not an object with a log id (16 hex digits) and a list");
                return -EINVAL;
        }
        size_t n = (size_t) cJSON_GetArraySize(list);
        if (n > NODE_ACTIONS_MAX) {
                strbuf_addf(err, NODE_ACTIONS_KEY ": %zu records, at most %d", n, NODE_ACTIONS_MAX);
                return -EINVAL;
        }
        struct node_actions a = { 0 };
        memcpy(a.log, log->valuestring, NODE_ACTIONS_LOG_LEN + 1);
        a.v = n ? xcalloc(n, sizeof *a.v) : NULL;
        const cJSON *e;
        int r = 0;
        cJSON_ArrayForEach(e, list) {
                size_t i = a.n;
                const cJSON *seq = cJSON_GetObjectItemCaseSensitive(e, "seq"),
                            *t = cJSON_GetObjectItemCaseSensitive(e, "time"),
                            *act = cJSON_GetObjectItemCaseSensitive(e, "action"),
                            *id = cJSON_GetObjectItemCaseSensitive(e, "id"),
                            *node = cJSON_GetObjectItemCaseSensitive(e, "node"),
                            *reason = cJSON_GetObjectItemCaseSensitive(e, "reason"),
                            *detail = cJSON_GetObjectItemCaseSensitive(e, "detail");
                uint64_t s = 0, ms = 0;
                if (!cJSON_IsObject(e))
                        r = bad(err, i, "not an object");
                else if (!json_whole(seq, 9007199254740992.0, &s) || (i > 0 && s <= a.v[i - 1].seq))
                        r = bad(err, i, "seq is not a whole number above the one before");
                else if (!json_whole(t, TIME_MAX_MS - 1, &ms) || ms < (uint64_t) TIME_MIN_MS)
                        r = bad(err, i, "time is not a whole number of ms between 2020 and 2100");
                else if (!cJSON_IsString(act) || !valid_action(act->valuestring))
                        r = bad(err, i, "action is not one of the compute charm's (pause, resume, node-config, destroy-jobs)");
                else if (!cJSON_IsString(id) || !valid_word(id->valuestring, 64, true))
                        r = bad(err, i, "id is not 1 to 64 of A-Z, a-z, 0-9, -, .");
                else if (!cJSON_IsString(node) || !slurmd_iface_valid_host(node->valuestring))
                        r = bad(err, i, "node is not a host name");
                else if ((reason && !(cJSON_IsString(reason) && valid_text(reason->valuestring))) ||
                        (detail && !(cJSON_IsString(detail) && valid_text(detail->valuestring))))
                        r = bad(err, i, "reason or detail is not UTF-8 text of at most 256 bytes without control "
                                        "characters or direction overrides");
                if (r < 0) {
                        node_actions_done(&a);
                        return r;
                }
                a.v[a.n++] = (struct node_action){
                        .seq = s,
                        .time_ms = (int64_t) ms,
                        .action = xstrdup(act->valuestring),
                        .id = xstrdup(id->valuestring),
                        .node = xstrdup(node->valuestring),
                        .reason = reason && *reason->valuestring ? xstrdup(reason->valuestring) : NULL,
                        .detail = detail && *detail->valuestring ? xstrdup(detail->valuestring) : NULL,
                };
        }
        *ret = a;
        return 0;
}
