/* SPDX-License-Identifier: Apache-2.0 */
/* Option strings from admins: one-line "Key=Value Key=Value" strings (partition-config,
 * node-config, extra slurm.conf parameters) parsed into a validated, normalized list.
 *
 * Design note: who consumes what, and why the rules are this strict.
 *  - PARTITION options end up on a PartitionName= line of slurm.conf (via the relation data).
 *  - NODE options end up inside a single-quoted --conf '…' argument in /etc/default/slurmd,
 *    read by systemd's EnvironmentFile= and split again when $SLURMD_OPTIONS is expanded.
 *  - GLOBAL options become one slurm.conf line each.
 * slurm_options_parse() therefore accepts only:
 *  - tokens separated by single or repeated spaces (no tabs, newlines, CR, NUL or any other
 *    control character anywhere), at most SLURM_OPTIONS_MAX_LEN bytes in all;
 *  - Key=Value tokens, Key being a key of slurm.conf(5) for that kind of line, known to Slurm
 *    22.05 (newer keys get "not supported by Slurm 22.05 (added in X)"), given once (aliases
 *    count as their target: Feature= and Features= are the same key);
 *  - values made of letters, digits and  _ - . , : / = + * % @ ( ) [ ]  only; "%" is refused in
 *    NODE values (nothing needs it there and systemd treats it specially in unit files). So no
 *    quote of either kind, no "#", backslash, "$", backtick, ";", "&", "|", "<", ">", "!", "?",
 *    "{", "}", "~" or non-ASCII byte can reach slurm.conf, a unit file or a command line;
 *  - for PARTITION and GLOBAL only, a value in double quotes may also hold single spaces
 *    ("Key=\"a b\""): slurm.conf reads such a value as one word. NODE values are never quoted.
 *  - every value checked with Slurm 22.05's rules for its key (slurmconf/values.h): numbers
 *    and their ranges, times, enums and flag words, plugin names, hostlists, …, and then the
 *    rules that tie the keys of the string together (PreemptMode and PreemptType, …) with
 *    Slurm's defaults for the keys it does not set (slurm_options_check_set());
 * Keys the charm owns are refused:
 *  - PARTITION: PartitionName, Nodes; Default too, with its own message (the slurmctld option
 *    default-partition sets it);
 *  - NODE: NodeName, NodeAddr, NodeHostname, Port, State;
 *  - GLOBAL: the line keys NodeName, NodeSet, PartitionName, DownNodes, FrontendName and the
 *    Include directive; ClusterName, SlurmctldHost, ControlMachine, ControlAddr,
 *    BackupController, BackupAddr, SlurmctldPort, SlurmctldParameters (the charm needs
 *    enable_configless), AuthType, AuthInfo, AuthAltTypes, AuthAltParameters, CredType,
 *    SlurmUser, StateSaveLocation and SlurmctldTimeout (the slurmctld options
 *    state-save-location and slurmctld-timeout, named in the message), MaxNodeCount, SelectType;
 *    and the files a root daemon creates or loads code from: SlurmctldPidFile, SlurmdPidFile,
 *    SlurmdSpoolDir, PluginDir, JobCredentialPrivateKey, JobCredentialPublicCertificate. Every
 *    other path key is confined to the directories of its use (slurmconf/pathkeys.h).
 * Messages are one short line naming the offending key (`unknown partition key "Foo"`,
 * `MaxTime: "forever" is not a time (minutes, [D-]HH:MM[:SS] or UNLIMITED)`), with
 * user text sanitized (non-printable bytes shown as "?") and cut to 40 bytes; the caller
 * prefixes the option's name (`partition-config: …`).
 *
 * Normalized form: keys in canonical spelling (slurm.conf(5)), in the order given, joined by
 * one space, values in double quotes only when they hold a space. Parsing the normalized form
 * gives the same list again. The empty string (or only spaces) is valid: the empty list.
 *
 * Ownership: a struct slurm_options owns its items and their strings; slurm_options_clear()
 * frees them (the struct itself is the caller's, usually on the stack). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "slurmconf/keys.h"
#include "util/strbuf.h"

#define SLURM_OPTIONS_MAX_LEN 4096

enum slurm_options_kind {
        SLURM_OPTIONS_PARTITION,
        SLURM_OPTIONS_NODE,
        SLURM_OPTIONS_GLOBAL,
        _SLURM_OPTIONS_KIND_MAX,
};

struct slurm_option {
        char *key; /* canonical spelling */
        char *value;
};

struct slurm_options {
        struct slurm_option *items;
        size_t n, alloc;
};

#define SLURM_OPTIONS_INIT \
        { .items = NULL, .n = 0, .alloc = 0 }

/* Parses s for a line of the given kind. On success *ret is cleared and then holds the list
 * (0 returned); on error -EINVAL, one message appended to err (may be NULL), *ret untouched. */
int slurm_options_parse(
        const char *s, enum slurm_options_kind kind, struct slurm_options *ret, struct strbuf *err);
/* As slurm_options_parse() for len bytes that may hold NUL bytes (refused). */
int slurm_options_parse_mem(const char *s, size_t len, enum slurm_options_kind kind,
        struct slurm_options *ret, struct strbuf *err);

/* Checks the cross-key rules (slurmconf_values_check_set()) for a line of the given kind whose
 * effective values are o's, then base's for keys o does not set (base may be NULL: Slurm's
 * defaults), e.g. the admin's slurm-conf-parameters over the charm's template. 0 or -EINVAL
 * with one message. slurm_options_parse() calls it with base NULL. */
int slurm_options_check_set(enum slurm_options_kind kind, const struct slurm_options *o,
        const struct slurm_options *base, struct strbuf *err);

void slurm_options_clear(struct slurm_options *o);
static inline void slurm_options_clearp(struct slurm_options *o) {
        slurm_options_clear(o);
}
#define _cleanup_slurm_options_ __attribute__((__cleanup__(slurm_options_clearp)))

/* Appends the normalized "Key=Value Key=Value" form (nothing for an empty list). */
void slurm_options_render(const struct slurm_options *o, struct strbuf *out);

/* The value of key (case-insensitive), or NULL. Valid until o changes. */
const char *slurm_options_get(const struct slurm_options *o, const char *key);
/* Replaces the value of key (case-insensitive match, keeping the existing spelling) or appends
 * key=value. No validation: for values the program itself computed. */
void slurm_options_set(struct slurm_options *o, const char *key, const char *value);
/* Removes key; returns whether it was there. */
bool slurm_options_unset(struct slurm_options *o, const char *key);
/* Sets every item of src into dst (src wins, dst's order kept, new keys appended). */
void slurm_options_merge(struct slurm_options *dst, const struct slurm_options *src);
/* Makes dst an exact copy of src (dst's old items are freed). */
void slurm_options_copy(struct slurm_options *dst, const struct slurm_options *src);

/* The slurm.conf scope a kind's options are checked against. */
enum slurmconf_scope slurm_options_kind_scope(enum slurm_options_kind kind);
/* "partition", "node", "global"; slurm_options_kind_from_string() returns -EINVAL otherwise. */
const char *slurm_options_kind_name(enum slurm_options_kind kind);
int slurm_options_kind_from_string(const char *s, enum slurm_options_kind *ret);
