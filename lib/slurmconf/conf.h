/* SPDX-License-Identifier: Apache-2.0 */
/* The slurm.conf line model: parse a slurm.conf as Slurm does, edit global keys and named
 * lines (NodeName, NodeSet, PartitionName, DownNodes, Include), render it back.
 *
 * Syntax (slurm.conf(5), Slurm's parse_config.c): per physical line, an unescaped "#" starts a
 * comment; a line whose last non-blank character is an odd run of backslashes continues on
 * the next line (the backslash is dropped, the lines are joined); then every "\x" becomes "x"
 * (so "\#" is a literal "#", "\\" a backslash). The logical line is "Key=Value" pairs, with
 * optional blanks around "=", a value being a double-quoted string (no quote inside) or a run
 * of non-blanks. Keys are case-insensitive, node and partition names are not. A line is:
 *  - blank or comment only;
 *  - "Include PATH" (keyword case-insensitive; PATH relative to the including file's
 *    directory, "%c" standing for ClusterName); kept as a line, never inlined;
 *  - a multi-key line whose first key is NodeName, NodeSet, PartitionName, DownNodes or
 *    FrontendName, the others being keys of that scope (keys.h); NAME=DEFAULT lines set
 *    defaults for the lines after them;
 *  - global keys (slurm.conf allows several on one line; SlurmctldHost may repeat, any other
 *    key repeated means its last value, as in Slurm).
 * Errors, all reported as "PATH:LINE: message" (LINE: the first physical line), one per line
 * of err: unknown key (naming it; keys of Slurm > 22.05 get "not supported by Slurm 22.05"), a
 * key outside its scope, a line key not first on its line, a missing value, an unbalanced
 * quote, a stray quote inside a value, text after a closing quote, NUL or control
 * characters outside comments, NodeName=ALL, a continuation past the end of the file, a
 * logical line over SLURMCONF_MAX_LINE bytes, a file over SLURMCONF_MAX_FILE bytes. Where we are
 * stricter than Slurm (it takes an unbalanced quote as a literal character), it is on purpose.
 * Not checked: values (numbers, booleans, hostlist syntax of names).
 *
 * Model and invariants. The input is kept as one contiguous copy; each logical line is a small
 * record (offset, length, kind, name) in a linked order, plus an index by (kind, name) for
 * named lines. Lines an edit did not touch are rendered from the original bytes, so
 * render(parse(x)) == x byte for byte. Edited or added lines are written canonically: keys
 * spelled as in slurm.conf(5) (aliases such as Procs= become CPUs=), "Key=Value" joined by one
 * space, values quoted only when they hold blanks or are empty, "\" and "#" escaped; a
 * trailing comment of an edited line is kept. New lines go after the last line of their kind
 * (else after related lines: NodeSet after NodeName, PartitionName after NodeSet, …, else at
 * the end). The parameters of named lines are not stored: slurmconf_lookup() re-reads the
 * line. Where a name appears on several lines of one kind, the first one counts (Slurm warns
 * and ignores the later ones); upsert replaces the first and deletes the others.
 * NAME=DEFAULT lines are positional and cannot be edited through this API (-EINVAL).
 *
 * Ownership: struct slurmconf is opaque, created by slurmconf_parse*(), freed by
 * slurmconf_free() (NULL allowed). Strings returned by slurmconf_get() live until the next
 * change of the model. Lists are appended to caller-owned strv/slurm_options. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurmconf/keys.h"
#include "slurmconf/options.h"
#include "util/strbuf.h"
#include "util/strv.h"

#define SLURMCONF_MAX_FILE ((size_t) 32 * 1024 * 1024)
#define SLURMCONF_MAX_LINE ((size_t) 64 * 1024)
/* At most this many errors are reported per file; then one "… more errors" line. */
#define SLURMCONF_MAX_ERRORS 20

struct slurmconf;

/* Parses len bytes of data; path names the file in messages and anchors relative Include
 * paths. Returns 0 and *ret, or -EINVAL with the errors appended to err (may be NULL) and
 * -EFBIG for an oversized input. */
int slurmconf_parse(
        const char *path, const char *data, size_t len, struct slurmconf **ret, struct strbuf *err);
/* Reads and parses path; errors as slurmconf_parse(), plus "PATH: strerror" on read errors. */
int slurmconf_parse_file(const char *path, struct slurmconf **ret, struct strbuf *err);
/* A model of an empty file (for building a slurm.conf from nothing). */
struct slurmconf *slurmconf_new(const char *path);

void slurmconf_free(struct slurmconf *c);
static inline void slurmconf_freep(struct slurmconf **c) {
        slurmconf_free(*c);
}
#define _cleanup_slurmconf_ __attribute__((__cleanup__(slurmconf_freep)))

/* The path given at parse time. */
const char *slurmconf_path(const struct slurmconf *c);

/* --- global keys ---------------------------------------------------------------------- */
/* The value of global key (case-insensitive; the last one when repeated), or NULL if unset. */
const char *slurmconf_get(const struct slurmconf *c, const char *key);
/* slurmconf_get() as a value getter (conf: the struct slurmconf; pathkeys.h's
 * slurmconf_path_get_fn), for the modules below this one. */
const char *slurmconf_get_key(const char *key, void *conf);
/* Appends every value of key, in file order (SlurmctldHost may have several). Returns the
 * number appended. */
int slurmconf_get_all(const struct slurmconf *c, const char *key, struct strv *ret);
/* Sets global key to value: the last line holding it is rewritten, other occurrences are
 * removed; a new line is added when unset. -EINVAL (with a message) for a key that is not a
 * global key of Slurm 22.05, a line key (NodeName…), or a value with a double quote, newline
 * or control character. */
int slurmconf_set(struct slurmconf *c, const char *key, const char *value, struct strbuf *err);
/* As slurmconf_set() with one line per value, in order (for SlurmctldHost); n == 0 unsets. */
int slurmconf_set_all(
        struct slurmconf *c, const char *key, char *const *values, size_t n, struct strbuf *err);
/* Removes every occurrence of key: 0, or -ENOENT when it was not set. */
int slurmconf_unset(struct slurmconf *c, const char *key);

/* --- named lines ------------------------------------------------------------------------ */
/* Replaces the whole line kind=name (first of that name) with a canonical one holding params,
 * or adds it. kind: NODE, NODESET, PARTITION, DOWNNODES or FRONTEND. params keys must be keys
 * of that scope known to Slurm 22.05 (not the line key itself), values as for slurmconf_set();
 * name must be non-empty, without blanks, quotes, "#", "\", "=" or control characters, and not
 * DEFAULT. Returns 1 when a line was added, 0 when replaced, -EINVAL with a message. */
int slurmconf_upsert(struct slurmconf *c, enum slurmconf_scope kind, const char *name,
        const struct slurm_options *params, struct strbuf *err);
/* Removes the line(s) kind=name: 0, or -ENOENT when there is none. */
int slurmconf_remove(struct slurmconf *c, enum slurmconf_scope kind, const char *name);
/* Appends the parameters of line kind=name (all but its first key; keys canonical) to *ret:
 * 0, or -ENOENT. */
int slurmconf_lookup(
        const struct slurmconf *c, enum slurmconf_scope kind, const char *name, struct slurm_options *ret);
/* Appends the names of the lines of kind in file order (DEFAULT lines left out, each name
 * once). Returns the number appended. */
int slurmconf_names(const struct slurmconf *c, enum slurmconf_scope kind, struct strv *ret);

/* --- Include lines ---------------------------------------------------------------------- */
/* Adds "Include PATH" (after the last Include, else at the end) unless a line with exactly
 * that path exists: 1 added, 0 already there, -EINVAL for an empty path or one with blanks,
 * quotes, "#", "\" or control characters. */
int slurmconf_include_add(struct slurmconf *c, const char *path, struct strbuf *err);
/* Removes the Include lines of exactly path: 0, or -ENOENT. */
int slurmconf_include_remove(struct slurmconf *c, const char *path);
/* Appends the Include paths as written, in file order. Returns the number appended. */
int slurmconf_includes(const struct slurmconf *c, struct strv *ret);
/* The file an Include path refers to: "%c" replaced with ClusterName (left as is when unset),
 * a relative path taken from the directory of c's path. The caller frees it. */
char *slurmconf_include_resolve(const struct slurmconf *c, const char *include_path);

/* --- output ------------------------------------------------------------------------------ */
/* Appends the file's bytes: untouched lines as read, edited and new lines canonical. */
void slurmconf_render(const struct slurmconf *c, struct strbuf *out);

/* Parses path and, recursively, every file it includes that exists (depth at most 8, each
 * file once); a missing included file is an error naming its path. Returns 0, or -EINVAL
 * (or a read error) with "FILE:LINE: message" lines appended to err. */
int slurmconf_check_file(const char *path, struct strbuf *err);

/* The hash slurmctld 22.05 keeps of the slurm.conf it last read (slurm_ctl_conf_t.hash_val,
 * `scontrol show config`'s HASH_VAL): a 16-bit CRC step (polynomial 0x1021) per byte of the
 * file as read, comments and newlines included, into an unmasked 32-bit value (Slurm's
 * parse_config.c). Comparing it with the running daemon's tells whether slurmctld runs this very
 * file (an admin's `scontrol reconfigure` after a hand edit shows up here). For a file without
 * Include lines, which the charm's is. */
uint32_t slurmconf_file_hash(const char *data, size_t len);

