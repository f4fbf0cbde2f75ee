/* SPDX-License-Identifier: Apache-2.0 */
/* gnuflag: the command-line grammar every Juju hook tool and CLI verb parses with
 * (github.com/juju/gnuflag flag.go, driven by github.com/juju/cmd cmd.go Main), rewritten in C.
 *
 * The grammar, point by point as gnuflag's parseOne()/parseFlagArg() have it:
 * - "--name" and "--name=value" are long flags; "--name value" takes the next argument when the
 *   flag is not boolean. A one-letter flag may be written long too ("--r 3").
 * - "-abc" is a cluster of one-letter flags; a non-boolean one takes the rest of the word as its
 *   value ("-r0", "-r=0" gives "=0") or else the next argument ("-r 0").
 * - a boolean flag is set by "--flag" alone; "--flag=V" takes V as Go's strconv.ParseBool does
 *   (1 t T TRUE true True 0 f F FALSE false False); "--flag V" leaves V a positional argument.
 * - "--" ends the flags (it is not an argument); "-" and "" are positional arguments.
 * - with intersperse (cmd.CommandBase's default, and every hook tool's), flags may follow
 *   positional arguments; without it the first positional ends the flags.
 * - "-h"/"--help", when not defined, ask for help (GNUFLAG_HELP).
 * - errors are gnuflag's texts with Juju's FlagKnownAs "option" (juju/juju cmd.Info()):
 *   `option provided but not defined: --x`, `option needs an argument: -r`,
 *   `invalid value "v" for option --format: unknown format "v"`, `empty option in argument "--=v"`.
 *   Juju's cmd.Main prints them as "ERROR <text>" and exits 2.
 *
 * Ownership: values point into the argv given (never copied); ret_args' strings are copies. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/strv.h"

enum gnuflag_kind { GNUFLAG_BOOL, GNUFLAG_STRING };

struct gnuflag {
        const char *name; /* as defined: "r", "relation", "format" */
        enum gnuflag_kind kind;
        unsigned slot; /* flags sharing a slot are aliases of one value ("r" and "relation") */
};

struct gnuflag_value {
        bool set;
        bool b;            /* a boolean flag's value */
        const char *value; /* a string flag's last value (points into argv) */
        const char *as;    /* the name it was last given under, for messages */
};

/* A flag's Set(): validates value; returns 0, or -EINVAL with why (gnuflag's error after
 * "for option -r: "). NULL accepts every string. */
typedef int (*gnuflag_set_fn)(
        void *userdata, const struct gnuflag *f, const char *value, struct strbuf *why);

#define GNUFLAG_HELP 1

/* Parses args (NULL-terminated, without the command name) against defs. values[] has one entry
 * per slot (nslots). Returns 0 with the positional arguments in ret_args, GNUFLAG_HELP when an
 * undefined -h/--help was given, or -EINVAL with gnuflag's message in err (no "ERROR " prefix). */
int gnuflag_parse(const struct gnuflag *defs, size_t ndefs, struct gnuflag_value *values, size_t nslots,
        bool intersperse, char *const *args, gnuflag_set_fn set, void *userdata, struct strv *ret_args,
        struct strbuf *err);

/* Go's strconv.ParseBool. Returns 0 or -EINVAL. */
int gnuflag_parse_bool(const char *s, bool *ret);

/* Appends s quoted as Go's %q does (", \ and control characters escaped; printable UTF-8 kept). */
void gnuflag_quote(struct strbuf *out, const char *s);

/* "-x" for a one-byte name, "--name" otherwise (gnuflag's flagWithMinus). */
const char *gnuflag_dashes(const char *name);
