/* SPDX-License-Identifier: Apache-2.0 */
/* The hook tools' flag table (toolflags.h): each row is the SetFlags() of the Juju 3.x jujuc
 * command of that name, internal/worker/uniter/runner/jujuc/<name>.go. */
#include "util/macro.h"

#include "toolflags.h"
#include "util/banned.h"

#define B(n, s) \
        { .name = n, .kind = GNUFLAG_BOOL, .slot = s }
#define S(n, s) \
        { .name = n, .kind = GNUFLAG_STRING, .slot = s }
#define REL S("r", 0), S("relation", 0)

/* Slots 0..11 per tool; TF_SLOT_FORMAT/TF_SLOT_OUTPUT are added by toolflags_defs(). */
static const struct toolflags table[] = {
        { .name = "action-fail" },
        { .name = "action-get", .out = "smart", .formats = TF_DEFAULT },
        { .name = "action-log" },
        { .name = "action-set" },
        { .name = "application-version-set" },
        { .name = "close-port", .format_deprecated = true, .flags = { S("endpoints", 1) } },
        { .name = "config-get", .out = "smart", .formats = TF_DEFAULT, .flags = { B("a", 1), B("all", 1) } },
        { .name = "goal-state", .out = "yaml", .formats = TF_YAML | TF_JSON },
        { .name = "is-leader", .out = "smart", .formats = TF_DEFAULT },
        { .name = "juju-log",
                .format_deprecated = true,
                .flags = { B("debug", 1), S("l", 2), S("log-level", 2) } },
        { .name = "juju-reboot", .flags = { B("now", 1) } },
        { .name = "leader-get", .out = "smart", .formats = TF_DEFAULT },
        { .name = "leader-set" },
        { .name = "network-get",
                .out = "smart",
                .formats = TF_DEFAULT,
                .flags = { B("primary-address", 1), B("bind-address", 2), B("ingress-address", 3),
                        B("egress-subnets", 4), REL } },
        { .name = "open-port", .format_deprecated = true, .flags = { S("endpoints", 1) } },
        { .name = "opened-ports", .out = "smart", .formats = TF_DEFAULT, .flags = { B("endpoints", 1) } },
        { .name = "relation-get", .out = "smart", .formats = TF_DEFAULT, .flags = { REL, B("app", 1) } },
        { .name = "relation-ids", .out = "smart", .formats = TF_DEFAULT },
        { .name = "relation-list", .out = "smart", .formats = TF_DEFAULT, .flags = { REL, B("app", 1) } },
        { .name = "relation-model-get", .out = "smart", .formats = TF_DEFAULT, .flags = { REL } },
        { .name = "relation-set", .format_deprecated = true, .flags = { REL, S("file", 1), B("app", 2) } },
        { .name = "secret-add",
                .flags = { S("expire", 1), S("rotate", 2), S("description", 3), S("label", 4), S("file", 5),
                        S("owner", 6) } },
        { .name = "secret-get",
                .out = "yaml",
                .formats = TF_YAML | TF_JSON,
                .flags = { S("label", 1), B("peek", 2), B("refresh", 3) } },
        { .name = "secret-grant", .flags = { S("unit", 1), REL } },
        { .name = "secret-ids", .out = "smart", .formats = TF_DEFAULT },
        { .name = "secret-info-get",
                .out = "yaml",
                .formats = TF_YAML | TF_JSON,
                .flags = { S("label", 1) } },
        { .name = "secret-remove", .flags = { S("revision", 1) } },
        { .name = "secret-revoke", .flags = { S("app", 1), S("application", 1), S("unit", 2), REL } },
        { .name = "secret-set",
                .flags = { S("expire", 1), S("rotate", 2), S("description", 3), S("label", 4), S("file", 5),
                        S("owner", 6) } },
        { .name = "state-delete" },
        { .name = "state-get", .out = "smart", .formats = TF_DEFAULT, .flags = { B("strict", 1) } },
        { .name = "state-set", .flags = { S("file", 1) } },
        { .name = "status-get",
                .out = "smart",
                .formats = TF_DEFAULT,
                .flags = { B("include-data", 1), B("application", 2) } },
        { .name = "status-set", .flags = { B("application", 1) } },
        { .name = "unit-get", .out = "smart", .formats = TF_DEFAULT },
};

const char *const toolflags_names[] = { "action-fail", "action-get", "action-log", "action-set",
        "application-version-set", "close-port", "config-get", "goal-state", "is-leader", "juju-log",
        "juju-reboot", "leader-get", "leader-set", "network-get", "open-port", "opened-ports",
        "relation-get", "relation-ids", "relation-list", "relation-model-get", "relation-set", "secret-add",
        "secret-get", "secret-grant", "secret-ids", "secret-info-get", "secret-remove", "secret-revoke",
        "secret-set", "state-delete", "state-get", "state-set", "status-get", "status-set", "unit-get",
        NULL };

const struct toolflags *toolflags_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (streq(table[i].name, name))
                        return &table[i];
        return NULL;
}

size_t toolflags_defs(const struct toolflags *t, struct gnuflag *defs) {
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(t->flags) && t->flags[i].name; i++)
                defs[n++] = t->flags[i];
        if (t->out) {
                defs[n++] = (struct gnuflag) S("format", TF_SLOT_FORMAT);
                defs[n++] = (struct gnuflag) S("o", TF_SLOT_OUTPUT);
                defs[n++] = (struct gnuflag) S("output", TF_SLOT_OUTPUT);
        } else if (t->format_deprecated)
                defs[n++] = (struct gnuflag) S("format", TF_SLOT_FORMAT);
        return n;
}

int toolflags_slot(const struct toolflags *t, const char *name) {
        struct gnuflag defs[TF_MAX_FLAGS];
        size_t n = toolflags_defs(t, defs);
        for (size_t i = 0; i < n; i++)
                if (streq(defs[i].name, name))
                        return (int) defs[i].slot;
        return -1;
}

int toolflags_parse(const struct toolflags *t, char *const *argv, struct gnuflag_value *values,
        gnuflag_set_fn set, void *userdata, struct strv *ret_args, struct strbuf *err) {
        struct gnuflag defs[TF_MAX_FLAGS];
        size_t n = toolflags_defs(t, defs);
        return gnuflag_parse(defs, n, values, TF_NSLOTS, true, argv + 1, set, userdata, ret_args, err);
}
