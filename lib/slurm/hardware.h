/* SPDX-License-Identifier: Apache-2.0 */
/* A compute node's hardware as Slurm node parameters, for the `slurmd --conf` string: the
 * output of `slurmd -C` as key=value pairs, plus NVIDIA GPUs as "Gres=gpu:N".
 *
 * `slurmd -C` (22.05) prints
 *     NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105
 *     UpTime=0-00:11:06
 * Parsing keeps every key=value word in order except NodeName (the charm names the node) and
 * UpTime, and ignores other lines; a word without "=" or with an empty key is an error. Values
 * are kept as written. GPUs are counted as the entries /dev/nvidia<digits> (not nvidiactl,
 * nvidia-uvm, nvidia-caps/, …) that are not directories (on a real system: character devices;
 * a test may use plain files); the /dev directory is the caller's, so tests can point it at a
 * fake tree. When it holds none and use_smi is set, `nvidia-smi -L` lines starting "GPU " are
 * counted instead (absence of nvidia-smi is not an error).
 *
 * Ownership: results are appended to the caller's strv. */
#pragma once

#include <stdbool.h>

#include "util/strbuf.h"
#include "util/strv.h"

/* Parses `slurmd -C` output. Returns the number of pairs appended, or -EINVAL (err says which
 * word). On error nothing is appended. */
int slurm_parse_node_config(const char *text, struct strv *ret_kv_pairs, struct strbuf *err);

/* Counts nvidia<N> entries under dev_dir (NULL: "/dev"); then, if none and
 * use_smi, the GPUs `nvidia-smi -L` lists. Returns the count (>= 0) or a negative errno for an
 * unreadable dev_dir (a missing one counts 0). */
int slurm_detect_gpus(const char *dev_dir, bool use_smi, struct strbuf *err);

/* The nvidia<N> entries under dev_dir (NULL: "/dev") as full paths, by N (no nvidia-smi: a GPU
 * without its device file cannot go in gres.conf). Returns the count or a negative errno for an
 * unreadable dev_dir (a missing one gives 0). */
int slurm_detect_gpu_files(const char *dev_dir, struct strv *ret, struct strbuf *err);

/* Runs `slurmd -C` (/usr/sbin/slurmd if there, else slurmd on PATH; 30 s limit) and appends
 * its pairs, then "Gres=gpu:N" when slurm_detect_gpus("/dev", true) finds N > 0. Returns the
 * number of pairs appended or a negative errno (-ENOENT: no slurmd; -ETIME: timed out; -EIO:
 * slurmd failed, its stderr in err). On error nothing is appended. */
int slurm_detect_hardware(struct strv *ret_kv_pairs, struct strbuf *err);
/* The same with the program (NULL: as above), the /dev directory (NULL: "/dev") and the
 * nvidia-smi fallback chosen by the caller (tests). */
int slurm_detect_hardware_at(const char *slurmd_path, const char *dev_dir, bool use_smi,
        struct strv *ret_kv_pairs, struct strbuf *err);
