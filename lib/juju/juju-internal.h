/* SPDX-License-Identifier: Apache-2.0 */
/* Private to lib/juju: the ctx layout, the databag cache entries, and helpers shared by the
 * files of the module (tool runner with JSON output, relation id default, argv building). */
#pragma once

#include "juju/juju.h"

/* One relation databag, identified by (rel_id, owner). data is NULL until read; pending is
 * NULL or an object of key → string ("" deletes) not yet sent. Both owned by the bag. */
struct juju_bag {
        char *rel_id;
        char *owner;
        bool app;
        cJSON *data;
        cJSON *pending;
};

struct juju_ctx {
        struct strv envv;    /* the tools' environment, and the storage of env's strings */
        struct juju_env env; /* points into envv or into the owned strings below */
        char *app;
        char *event;
        char *relation_event;
        int timeout_ms;
        unsigned n_calls;
        struct juju_bag **bags;
        size_t n_bags;
        cJSON *config;        /* cached config-get --all */
        cJSON *action_params; /* cached action-get */
        int leader;           /* -1 unknown, else 0/1 */
};

/* Runs the tool and parses its stdout as one JSON value (empty output: *ret = NULL). */
int juju_tool_json(struct juju_ctx *ctx, const struct strv *argv, cJSON **ret, struct strbuf *err);
/* rel_id, or the hook's relation id; NULL (and a message naming tool) when there is none. */
const char *juju_rel_id(struct juju_ctx *ctx, const char *rel_id, const char *tool, struct strbuf *err);
/* Appends a positional argument, preceded once by "--" when it starts with '-'. */
void juju_push_positional(struct strv *argv, const char *arg);
bool juju_utf8_valid(const char *s);
/* Runs the tool (argv->v[0]) and appends the strings of the JSON list it printed to ret
 * (-EBADMSG when it is not a list of strings; empty output: nothing). Returns the count. */
int juju_tool_strv(struct juju_ctx *ctx, const struct strv *argv, struct strv *ret, struct strbuf *err);
/* Runs the tool and returns the JSON object it printed (caller frees). -EBADMSG for anything
 * else, except that empty output or null gives {} when empty_ok. */
int juju_tool_object(
        struct juju_ctx *ctx, const struct strv *argv, bool empty_ok, cJSON **ret, struct strbuf *err);
