/* SPDX-License-Identifier: Apache-2.0 */
/* Where a slurm.conf path may point: every key whose value is a file or a program a Slurm
 * daemon opens or runs, confined to directories that belong to Slurm, and the checks that
 * prove a value safe on the machine that uses it.
 *
 * Design note (why). slurmctld and slurmd start as root: slurmctld opens its log files and its
 * pid file as root and then chowns them to SlurmUser (src/common/log.c, create_pidfile() with
 * the slurm uid), slurmd appends to its log as root, and both run programs (Prolog as root on
 * every node, PrologSlurmctld as SlurmUser, …). So `SlurmctldLogFile=/etc/passwd` hands the
 * slurm user /etc/passwd, and a Prolog the slurm user can write is root on every node. Each
 * path key has one use, and each use its roots:
 *  - LOG (a daemon appends to it, and slurmctld chowns it): /var/log/slurm/… only. On the
 *    machine: the directory resolves inside /var/log/slurm (no symlinked parent), the file is
 *    absent or a regular file (not a symlink) with one link, owned by the daemon's user
 *    (SlurmUser for slurmctld's logs, root for slurmd's).
 *  - PROGRAM (a daemon runs it): the charm's site-scripts directory /etc/slurm/scripts/ (root's,
 *    0755, made by every charm on every machine) or the system's /usr/bin, /usr/sbin (/bin and
 *    /sbin, links to them on Debian). On the machine: it exists, resolves (links followed)
 *    inside those roots, is a regular executable file owned by root and not writable by group
 *    or others, and so is every directory above it; every symbolic link on the way (a chain
 *    through /etc/alternatives) is root's, in directories root's alone.
 *  - CONFIG (read by a daemon that runs as root and loads what it names: PlugStackConfig):
 *    /etc/slurm/…; on the machine: regular, root's, not writable by group or others, in
 *    directories of the same kind (when it does not exist, its directories alone: whoever may
 *    create it there chooses what root loads).
 *  - MEASURED (TmpFS): slurmd measures its size, and slurmstepd (root) makes job directories
 *    there for some plugins (mpi/pmix: 0770, the job user's) and removes them recursively: a
 *    scratch place only, /tmp, /var/tmp, /scratch, /local, /mnt, /srv or below.
 * Every value is normalised first: absolute, no "//", no "." or ".." component, no trailing
 * "/", and (for the roots above) a name below the root, not the root itself (TmpFS: or the
 * root). It holds letters, digits and . _ - + @ : / only: no "%" (Slurm expands %n and %h in
 * slurmd's log file name: the name checked would not be the one opened) and no glob character
 * (slurmd expands Prolog and Epilog with glob(3): a star in /usr/sbin would run every program
 * there).
 * Keys the charm owns outright (pid files, spool and state directories, PluginDir, the
 * credential keys) are refused by the option parser (slurmconf/options.h), not here.
 *
 * Who checks where: the option parser checks the lexical rule of every key (values.h); the
 * controller checks its own keys (the CTLD ones) on its machine before a candidate slurm.conf
 * is written; each compute unit checks the NODE ones on its machine against the
 * configuration slurmd fetched, and drains its node while one fails (charm/slurmd/slurmd.h). A check
 * is a moment's truth: root or SlurmUser can change a file afterwards (SlurmUser owns
 * /var/log/slurm in Debian's packages, so it can always swap a log file for a link before a
 * daemon re-opens it: stock Slurm's exposure, left as it is).
 *
 * JobCompLoc is a path only for some JobCompType plugins: slurmconf_path_jobcomp() gives its
 * use for the plugin in force (filetxt: LOG; script: PROGRAM; kafka: CONFIG; elasticsearch: a
 * URL; mysql: a database name).
 *
 * Ownership: returned pointers point into static tables. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "util/strbuf.h"

#define SLURMCONF_SITE_SCRIPTS_DIR "/etc/slurm/scripts"
#define SLURMCONF_LOG_DIR "/var/log/slurm"

enum slurmconf_path_use {
        SLURMCONF_PATH_LOG,
        SLURMCONF_PATH_PROGRAM,
        SLURMCONF_PATH_CONFIG,
        SLURMCONF_PATH_MEASURED,
        SLURMCONF_PATH_OTHER, /* a key the charm owns (pid files, spool, …): normalised only */
        _SLURMCONF_PATH_USE_MAX,
};

/* Which machine's daemon opens or runs it. */
enum slurmconf_path_host {
        SLURMCONF_PATH_CTLD,   /* slurmctld, on the controller units */
        SLURMCONF_PATH_NODE,   /* slurmd or slurmstepd, on the compute units */
        SLURMCONF_PATH_CLIENT, /* srun, as the user, wherever it runs (no file check) */
};

struct slurmconf_path_key {
        const char *key; /* canonical spelling */
        enum slurmconf_path_use use;
        enum slurmconf_path_host host;
};

/* The path key named key (case-insensitive), or NULL when key is not one (JobCompLoc is not
 * in the table: see slurmconf_path_jobcomp()). */
const struct slurmconf_path_key *slurmconf_path_key(const char *key);

/* Calls fn for each row (tests); stops at a non-zero return, which it returns. */
int slurmconf_path_key_foreach(int (*fn)(const struct slurmconf_path_key *k, void *userdata), void *userdata);

/* "a log file", "a program", … for messages. */
const char *slurmconf_path_use_name(enum slurmconf_path_use use);

/* JobCompLoc's use for JobCompType jobcomp_type (NULL: Slurm's default, none): 1 with *ret set
 * when it is a path there; 0 when it is not a path for that plugin (then *what says what it
 * is: "a URL", "a database name", "unused"). */
int slurmconf_path_jobcomp(const char *jobcomp_type, enum slurmconf_path_use *ret, const char **what);

/* The lexical rule of use for value: 0, or -EINVAL with one line in err (may be NULL):
 * `"/etc/passwd" is outside /var/log/slurm (log files stay in Slurm's log directory)`. The
 * caller prefixes the key. */
int slurmconf_path_check(enum slurmconf_path_use use, const char *value, struct strbuf *err);

/* SLURMCONF_PATH_F_ANYWHERE: only what the machine shows (owners, modes, links, directories),
 * not the roots of the use nor the lexical rule (a compute unit judging the file slurmd runs,
 * which an older controller charm may have written with paths now refused: draining every node
 * for them would be the upgrade's outage; a value with a pattern or an escape is skipped). */
#define SLURMCONF_PATH_F_ANYWHERE (1u << 0)

/* The machine's rule of use for value under root (the file system's top: "" or NULL for "/",
 * a directory in tests), owner being the uid a LOG file must belong to: 0, -EINVAL (or
 * -ENOENT for a program that is not there) with one line in err. Checks the lexical rule
 * first (unless flags say otherwise). Every symbolic link on the way to a program or a
 * configuration file must be root's, in directories root's alone. */
int slurmconf_path_check_fs(enum slurmconf_path_use use, const char *root, const char *value, uid_t owner,
        unsigned flags, struct strbuf *err);


/* The value of key in the configuration to check, or NULL when it is not set. */
typedef const char *(*slurmconf_path_get_fn)(const char *key, void *userdata);

/* Every path key of host set in the configuration get reads (a parsed file: slurmconf_get_key
 * and the struct slurmconf, conf.h; JobCompLoc by its JobCompType too, for the controller)
 * checked on this machine with slurmconf_path_check_fs(); log_owner is the uid that host's
 * daemon writes its logs as (SlurmUser's for slurmctld, 0 for slurmd). 0, or the first
 * failure (-EINVAL or -ENOENT) with "Key: …" in err. */
int slurmconf_paths_check_keys(slurmconf_path_get_fn get, void *userdata, enum slurmconf_path_host host,
        const char *root, uid_t log_owner, unsigned flags, struct strbuf *err);
