/* SPDX-License-Identifier: Apache-2.0 */
/* The comma-separated sub-options of slurm.conf's *Parameters keys and flag lists, judged for
 * one Slurm generation (issue 26, item 3: "values Slurm accepts and then ignores").
 *
 * Design note: what Slurm does with them (22.05.8 and 24.11.5 source; a research note of
 * 2026-11-28 read both trees, and Debian 12's binaries were run on scratch files):
 *  - SchedulerParameters, SlurmctldParameters, SlurmdParameters, CommunicationParameters,
 *    LaunchParameters, JobAcctGatherParams, DependencyParameters, ScronParameters,
 *    BcastParameters/SbcastParameters, MpiParams, X11Parameters, TopologyParam and
 *    AccountingStorageParameters are one string each; every reader looks for its word with a
 *    case-insensitive SUBSTRING search (xstrcasestr) and reads a number with atoi. So an
 *    unknown word is ignored without a word, "bf_interval=abc" reads as 0 and logs "Invalid
 *    SchedulerParameters bf_interval" before taking the default, "bf_window=10m" reads as 10,
 *    and the first of two copies wins. Exceptions: a few words are matched case-sensitively
 *    (LaunchParameters mem_sort, slurmstepd_memlock, test_exec, use_interactive_step; MpiParams;
 *    24.11 no_quick_restart), and several are read by one generation only.
 *  - DebugFlags and PrologFlags are split at "," and each token must be exact (any case), or
 *    every process that reads slurm.conf exits (fatal): their lists differ between 22.05 and
 *    24.11 (24.11 added AuditRPCs, ConMgr, …, ForceRequeueOnFail, RunInJob; removed TimeCray
 *    and ExtSensors).
 * So every item is checked here against the list of the generation the cluster runs, with the
 * value grammar its reader applies, and refused when Slurm would ignore it, misread it, reset it
 * to a default or exit: an unknown or misspelt word, a word of the other generation, a value on
 * a flag, a missing value, a number with anything after it or out of the reader's range, a
 * word outside an enum, a case that a case-sensitive reader would not see, a word given twice.
 * A key with no table here (PriorityParameters: no built-in reader; site plugins' keys) is not
 * judged. Cross-key rules stay in values.c (max_script_size's fatal bound, UsePSS with
 * NoShared, …).
 *
 * Ownership: static tables; messages appended to the caller's strbuf. */
#pragma once

#include <stdbool.h>

#include "util/strbuf.h"

/* Whether key (Slurm's spelling, any case) has a sub-option table. */
bool slurmconf_subopts_known_key(const char *key);

/* Judges value, key's comma-separated items, for Slurm release ("22.05", "24.11"; another
 * release is judged as the nearest one below it, 22.05 below that). 0 when every item is
 * read as written (also for a key with no table), -EINVAL with one message naming the item
 * (without the key: the caller says where it came from). */
int slurmconf_subopts_check(const char *key, const char *value, const char *release, struct strbuf *err);
