/* SPDX-License-Identifier: Apache-2.0 */
/* What the rest of the library must know about the Slurm generation it runs with, as data:
 * the auth mechanism and its key, the daemons' service type, and the behaviours that differ.
 * The API differences themselves stay in lib/slurm (compat.h); a charm decides from these
 * fields, never from SLURM_VERSION_NUMBER, so the 24.11 rendering of slurm.conf and the
 * handling of its key are unit-tested on a 22.05 build too (slurm_caps_find("24.11")).
 *
 * The two generations (facts checked on Debian 12's 22.05.8 and Debian 13's 24.11.5):
 *   22.05  auth/munge + cred/munge: munged holds the key /etc/munge/munge.key (munge:munge,
 *          0400) and must be restarted to read a new one; the packaged slurmd/slurmctld units
 *          are Type=simple (-D); `scontrol reconfigure` re-reads the file in place; no
 *          `scontrol listjobs`.
 *   24.11  auth/slurm + cred/slurm: the Slurm daemons themselves read /etc/slurm/slurm.key
 *          (owned by SlurmUser or root, no permission bits for others, else fatal); clients
 *          get tokens from a local daemon's sack socket, so no munge at all; configless
 *          does not carry the key (the charm does, through its Juju secret); the packaged
 *          units are Type=notify (--systemd, exclusive with -D), slurmctld's runs as
 *          User=slurm with RuntimeDirectory=slurmctld (its pid file goes there, /run is
 *          root's), slurmd's has RuntimeDirectory=slurm; `scontrol reconfigure`
 *          re-execs the daemons; `scontrol listjobs/liststeps/listpids` exist.
 *
 * Ownership: every string is static. */
#pragma once

#include <stdbool.h>

#include "util/strbuf.h"
#include <sys/types.h>

struct slurm_caps {
        const char *release;      /* "22.05", "24.11" */
        const char *auth_type;    /* slurm.conf AuthType */
        const char *cred_type;    /* slurm.conf CredType */
        const char *key_path;     /* the cluster's auth key file */
        const char *key_dir;      /* its directory */
        bool key_dir_private;     /* key_dir belongs to key_owner (made 0700 for it when missing) */
        const char *key_owner;    /* the user owning the key file */
        mode_t key_mode;          /* the key file's mode */
        const char *auth_service; /* the service that reads the key; NULL: the Slurm daemons do */
        /* a key set file beside key_path that the daemons read instead of it when present, at
         * their start and at each re-exec (24.11 auth/slurm internal.c: slurm.jwks, several keys
         * by "kid", one the default that signs); NULL: one key only (munge) */
        const char *keyset_path;
        const char *auth_package; /* the Debian package of that service (installed); NULL: none */
        /* packaged slurmd/slurmctld units are Type=notify (--systemd). Data only: the charms'
         * drop-ins never set ExecStart or Type and /etc/default/slurmd never holds -D, so the
         * packaged unit of either generation runs as it is */
        bool service_notify;
        /* a daemon that hands local clients their auth tokens where no Slurm daemon does (a
         * slurmdbd unit: a backup slurmdbd in standby serves no sack socket on 24.11) and its
         * package; NULL: the auth service does it (munged) */
        const char *token_service;
        const char *token_package;
        /* the package that puts the PMIx library where this generation's mpi/pmix plugin opens
         * it (MpiDefault=pmix; srun loads the plugin too): 22.05's plugin dlopens
         * <libdir>/pmix2/lib/libpmix.so, the unversioned link only libpmix-dev ships; 24.11's
         * opens libpmix.so.2, which its plugin package depends on: NULL */
        const char *pmix_package;
        /* the HTTP server library of the controller's metrics exporter (bin/slurm-metrics,
         * charm/slurmctld/metricsep.h) on this generation's Debian: libmicrohttpd12 (Debian 12),
         * libmicrohttpd12t64 (Debian 13's 64-bit time_t rename) */
        const char *httpd_package;
        /* mpi.conf's PMIxEnv (variables PMIx's plugin puts into every task's environment), for
         * this generation's PMIx: 22.05 (PMIx 4.2.2) "PMIX_MCA_gds=hash", as its shared-memory
         * datastore crashed ranks in MPI_Init; NULL: no mpi.conf (charm/slurmctld/mpiconf.h) */
        const char *pmix_env;
        const char *ctld_pid_file;   /* SlurmctldPidFile: where the packaged unit lets it write */
        const char *slurmd_pid_file; /* SlurmdPidFile */
        bool listjobs;               /* scontrol listjobs/liststeps/listpids exist */
        bool reconfigure_reexecs;    /* scontrol reconfigure re-execs the daemons */
        /* slurmd, at its start (and its re-exec), hands every running slurmstepd the controller
         * list of its configuration (24.11 slurmd.c _read_config -> update_stepd_logging(true)
         * -> unpack_stepd_reconf); a 22.05 slurmstepd keeps the list it started with for good */
        bool stepd_conf_push;
        /* a backup that takes control may run without its main scheduler thread (sched_agent):
         * 22.05's run_backup() reads state while shutdown_time is still set, the new thread
         * sees it and ends; fixed in 23.02.4 (Slurm bug 17032). Jobs then start only at
         * backfill passes (bf_interval) until that slurmctld starts again as the primary */
        bool backup_sched_lost;
        /* a backup that takes control serves the configuration files it re-reads then
         * (configless_update after read_slurm_conf in run_backup); 22.05 keeps serving the bytes
         * it loaded at its process start while HASH_VAL is the re-read file's (fixed in 23.11.2,
         * Slurm commit 29b1700164): what such a backup serves cannot be told */
        bool takeover_serves_conf;
        /* StateSaveLocation/clustername holds "name|ClusterID" and slurmctld exits at its start
         * ("CLUSTER ID MISMATCH") when slurmdbd knows the cluster by another id (24.11) */
        bool cluster_id_in_state;
        /* global slurm.conf keys this generation no longer reads (slurm.conf(5) of 22.05 has
         * them): "defunct" (logged, ignored), moved, or an unrecognized key (fatal);
         * NULL-terminated */
        const char *const *gone_keys;
        /* items of global list values this generation no longer knows, as "Key=Item"
         * (DebugFlags=TimeCray: a fatal "Invalid DebugFlag" on 24.11); NULL-terminated */
        const char *const *gone_items;
};

/* The generation this library was built against. */
const struct slurm_caps *slurm_caps_built(void);
/* A known generation by release ("22.05", "24.11"), or NULL. */
const struct slurm_caps *slurm_caps_find(const char *release);
/* Whether key (any case, as Slurm reads keys) is one of c's gone_keys. */
bool slurm_caps_key_gone(const struct slurm_caps *c, const char *key);
/* The first item of the comma list value of key that c no longer knows (c's gone_items, any
 * case), or NULL. */
const char *slurm_caps_item_gone(const struct slurm_caps *c, const char *key, const char *value);
/* The Slurm version this library was built against ("22.05.8", "24.11.5"). */
const char *slurm_version_built(void);
/* Whether the server daemon (named server: "slurmctld", "slurmdbd") of s_version ("24.11.5")
 * running s_auth ("auth/slurm") takes the RPCs of the client daemon (named client) of c_version
 * running c_auth. Slurm's rule (upgrades.html, "Compatibility Window"): a daemon takes the RPCs
 * of its own major release and of the two before it (three from 24.11 on), never those of a
 * newer one; and both sides need one AuthType. 0 yes, -EPROTO no (why, with the daemons' names,
 * says which rule), -EINVAL a version that names no Slurm major release. */
int slurm_caps_takes(const char *server, const char *s_version, const char *s_auth, const char *client,
        const char *c_version, const char *c_auth, struct strbuf *why);
/* slurm_caps_takes("slurmctld", ctl…, "slurmd", d…): slurmctld takes those slurmd daemons.
 * (slurmdbd takes slurmctld daemons by the same rule: slurmdbd is upgraded first.) */
int slurm_caps_takes_slurmd(const char *ctl_version, const char *ctl_auth, const char *d_version,
        const char *d_auth, struct strbuf *why);
/* Every known generation, oldest first, NULL-terminated. */
extern const struct slurm_caps *const slurm_caps_all[];
