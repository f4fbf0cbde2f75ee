/* SPDX-License-Identifier: Apache-2.0 */
/* What a compute unit's own actions did, for the controllers' node event log (issue 29: "the
 * charm's own actions (…, pause, node-config) record what they did, with who asked"). A compute
 * unit cannot reach the log (it lives in the controllers' shared state directory), so it says
 * so in its relation data and the controller leader records each once.
 *
 * slurmd unit → its UNIT bag of every slurmd relation:
 *   node-actions  {"log": "<16 hex: this unit's list, made once per unit>",
 *                  "actions": [{"seq": N, "time": ms, "action": "pause", "id": "<action id>",
 *                               "node": "cpu-0", "reason": "…", "detail": "…"}, …]}
 *                 oldest first, seq strictly rising from 1, at most NODE_ACTIONS_MAX (the
 *                 newest; the leader records them at the unit's next relation-changed, which
 *                 Juju may fold together for a burst: a gap means more than that many came
 *                 between two of its hooks, and is said in the next record's detail);
 *                 reason and detail optional.
 * The controllers record each (log, seq) once: the seq they noted last per unit and log is in
 * the event log's own snapshot, committed with the records (charm/slurmctld/events.h). The
 * log id tells a list apart from an earlier one of a unit of the same name (an application
 * removed and deployed again starts its units at /0 and their seq at 1).
 *
 * Bounds (the other side's data is checked, never trusted): action one of the compute charm's
 * own (NODE_ACTIONS_NAMES); id 1 to 64 of A-Z, a-z, 0-9, '-', '.'; node a host name (the
 * controller also requires the publishing unit's own node: unitacts.h); reason and detail at
 * most NODE_ACTIONS_TEXT_MAX bytes of valid UTF-8 without control characters (C0, DEL, C1),
 * bidirectional overrides, isolates and marks, or line and paragraph separators, which would
 * make a log line read otherwise than it is; the whole value at most 64 KiB; time in milliseconds since 2020 and before the year 2100.
 * Ownership: struct node_actions owns its strings; node_actions_done() frees them. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

#define NODE_ACTIONS_KEY "node-actions"
#define NODE_ACTIONS_MAX 64 /* and at most 64 KiB of JSON: the oldest go first (node_actions_push) */
#define NODE_ACTIONS_LOG_LEN 16
#define NODE_ACTIONS_TEXT_MAX 256
#define NODE_ACTIONS_NAMES "pause", "resume", "node-config", "destroy-jobs"

struct node_action {
        uint64_t seq;
        int64_t time_ms;
        char *action;
        char *id;
        char *node;
        char *reason; /* or NULL */
        char *detail; /* or NULL */
};

struct node_actions {
        char log[NODE_ACTIONS_LOG_LEN + 1]; /* "" before the first push */
        struct node_action *v;
        size_t n;
};

void node_actions_done(struct node_actions *a);

/* Appends one (seq: the last + 1; a new log id when there is none; the oldest dropped beyond
 * NODE_ACTIONS_MAX). Texts longer than the bounds are cut, control characters become spaces.
 * -EINVAL when action, id or node is not valid (nothing changed), -EIO when no random id could
 * be made. */
int node_actions_push(struct node_actions *a, int64_t time_ms, const char *action, const char *id,
        const char *node, const char *reason, const char *detail);

/* ret: a new JSON string. */
char *node_actions_encode(const struct node_actions *a);
/* 0 decoded, -ENODATA absent or empty, -EINVAL bad (one message; ret untouched). */
int node_actions_decode(const char *json, struct node_actions *ret, struct strbuf *err);
