/* SPDX-License-Identifier: Apache-2.0 */
/* The flags of every hook tool juju-sim serves, as each Juju 3.x jujuc command declares them in
 * its SetFlags() (juju/juju internal/worker/uniter/runner/jujuc/<tool>.go), shared by the server
 * side (hooktools.c) and the client (tool-main.c, which reads --file, key#file= and -o locally).
 *
 * A tool with cmd.Output (`out` set) also has --format (its default and the formats it allows),
 * -o and --output (write the output to a file). Tools whose old --format flag Juju keeps as a
 * deprecated string (juju-log, relation-set, open-port, close-port) have `format_deprecated`.
 * Every tool parses with interspersed flags (cmd.CommandBase.AllowInterspersedFlags).
 * The table is static; nothing is allocated. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "gnuflag.h"

enum { TF_SMART = 1, TF_YAML = 2, TF_JSON = 4, TF_DEFAULT = TF_SMART | TF_YAML | TF_JSON };

/* value slots shared by every tool: the output flags come last */
enum { TF_SLOT_FORMAT = 12, TF_SLOT_OUTPUT = 13, TF_NSLOTS = 14 };

#define TF_MAX_FLAGS 16

struct toolflags {
        const char *name;
        const char *out; /* default format when the tool has cmd.Output, else NULL */
        unsigned formats;
        bool format_deprecated;
        struct gnuflag flags[TF_MAX_FLAGS - 3]; /* ends at the first NULL name */
};

/* The tool's entry, or NULL when juju-sim does not serve it. */
const struct toolflags *toolflags_find(const char *name);

/* Fills defs (TF_MAX_FLAGS entries) with the tool's flags plus the output ones; returns how many. */
size_t toolflags_defs(const struct toolflags *t, struct gnuflag *defs);

/* Parses argv[1..] for tool t: values has TF_NSLOTS entries. As gnuflag_parse(). */
int toolflags_parse(const struct toolflags *t, char *const *argv, struct gnuflag_value *values,
        gnuflag_set_fn set, void *userdata, struct strv *ret_args, struct strbuf *err);

/* The slot of the tool's flag called name (any alias), or -1. */
int toolflags_slot(const struct toolflags *t, const char *name);

/* Every tool name served, NULL-terminated (for the tools dir and the conformance table). */
extern const char *const toolflags_names[];
