/* SPDX-License-Identifier: Apache-2.0 */
/* The running controller's configuration as "Key", "value" pairs (what `scontrol show config`
 * prints), and the lookup of one key spelled the way an admin types it.
 *
 * Design note. slurm_load_ctl_conf() is one RPC to slurmctld; libslurm 22.05 then turns the
 * answer into the list scontrol prints with slurm_ctl_conf_2_key_pairs() (declared in
 * <slurm/slurm.h>, src/api/config_info.c), so keys, order and value formats are Slurm's own
 * (AccountingStorageEnforce as words, times as "300 sec", …): about 200 keys, from
 * AccountingStorageBackupHost to X11Parameters, plus BOOT_TIME, HASH_VAL, NEXT_JOB_ID,
 * SLURM_CONF and SLURM_VERSION. The list's elements are config_key_pair_t
 * (src/common/read_config.h: two char pointers, name and value), a type the public headers do
 * not declare: mirrored here, as client.c does for slurm_conf. SlurmctldHost is not in that
 * list (scontrol prints it apart from control_machine[]): it is added first, as
 * "host(addr),host(addr)" in controller order. A key whose value Slurm leaves NULL (scontrol
 * prints "(null)") has the value "" here. A key the source appends twice keeps its first
 * value.
 *
 * Lookup: slurm_conf_key_match() compares ignoring case and every "_" and "-", so
 * "topology_plugin", "topology-plugin" and "TopologyPlugin" all name TopologyPlugin (and
 * "boot-time" names BOOT_TIME).
 *
 * Ownership: pairs are appended to the caller's strv. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/strv.h"

/* Appends the running configuration as "Key", "value" pairs to ret (only on success). Returns
 * the number of pairs, or a negative errno (slurmerr.h) with one message in err. Calls
 * slurm_client_init() first. */
int slurm_ctl_conf_values(struct strv *ret, struct strbuf *err);

/* Whether a and b name the same key: case and every '_' and '-' ignored. An empty name (or one
 * of only '_' and '-') matches nothing. Pure. */
bool slurm_conf_key_match(const char *a, const char *b);

/* The index of the pair (0, 1, …; the key is pairs[2 * i]) whose key matches item, or -1.
 * pairs holds n_strings strings: key, value, key, value, … Pure. */
long slurm_conf_pairs_find(char *const *pairs, size_t n_strings, const char *item);
