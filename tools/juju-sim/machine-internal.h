/* SPDX-License-Identifier: Apache-2.0 */
/* Internals shared by the machine layer's files: the create handshake between juju-sim
 * (machine.c) and a machine's init (machine-init.c), and small helpers (machine-base.c, below
 * every other file; machine-cgroup.c, below machine.c and machine-spawn.c). No file calls up into
 * machine.c. Not for users of machine.h. */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/macro.h"
#include "util/strbuf.h"
#include "util/strv.h"


/* Messages the init side writes on the "up" pipe during create, in order:
 *   code = pid of the init (> 0, written by the init itself from the host's /proc/self before
 *   it mounts its own /proc; the intermediate child writes only a failure), then MACH_MSG_MOUNTED (the
 *   init waits for one byte "G" on the down pipe: the network is attached), then
 *   MACH_MSG_READY (systemd sent READY=1). A negative code is -errno, step says where. */
#define MACH_MSG_MOUNTED (-1000000)
#define MACH_MSG_READY (-1000001)
struct mach_msg {
        int32_t code;
        char step[92];
};

/* Everything the init needs, prepared before the fork (no allocation decisions after it). */
struct mach_init_args {
        const char *root;  /* <machine dir>/root */
        const char *hosts; /* the model's hosts file */
        const char *hostname;
        char *const *cgroup_procs; /* cgroup.procs files to join before unsharing */
        const char *leaf_procs;    /* pure cgroup2 host: the leaf to join after unsharing (NULL: none) */
        const char *delegate;      /* … then this cgroup.subtree_control gets delegate_value */
        const char *delegate_value;
        char *const *v1_mounts; /* v1 hierarchies mounted in the machine ("memory", "cpu,cpuacct") */
        char *const *shares;    /* "HOSTDIR:PATH" or NULL */
        const char *rootfs;     /* "@rootfs=" attachment's DIR, or NULL: the host's file system */
        const char *fs;         /* <machine dir>/fs: the overlay (upper, work, new; for the host's base in a tmpfs) */
        int up_fd, down_fd, log_fd;
        int keep_fd, keep_fd2; /* the parent's pipe ends: closed in the child */
};

extern const char *const mach_private_paths[];

/* The "@rootfs=DIR" attachment's DIR (NULL: none); not a share. */
const char *mach_rootfs_of(char *const *shares);

/* Fake GPUs (machine-dev.c): 1 and *ret for an "@gpus=N" attachment, 0 for another one,
 * -EINVAL for a bad count. */
int mach_gpus_parse(const char *attachment, unsigned *ret);
/* In the machine's mount namespace: its own /dev with gpus fake NVIDIA devices. 0 or a negative
 * errno, step naming what failed. */
int mach_dev_setup(unsigned gpus, char *step, size_t step_len);

/* The intermediate child: joins the cgroups, unshares the namespaces, forks the init, reports
 * its pid and exits. Never returns. */
_noreturn_ void mach_init_launch(const struct mach_init_args *a);

int64_t mach_now_ms(void);
void mach_sleep_ms(int ms);
char *mach_model_abs(const char *model_dir);
uint32_t mach_model_hash(const char *model_dir);
char *mach_hosts_path(const char *abs);
void mach_cgroup_bases(const char *bases[2]);
int mach_write_str(const char *path, const char *s);

/* ---- machine-cgroup.c: the v1 controller hierarchies a machine gets (hybrid or v1 host) ----
 * Slurm's cgroup/v1 plugin needs freezer (proctrack/cgroup), cpuset, memory and devices
 * (task/cgroup), cpuacct (jobacct_gather/cgroup). A machine's cgroup there is
 * <caller's cgroup>/jsim-H/mN (the caller's limits bind it, machine-capacity.c), seen by the
 * machine as its own root (cgroup namespace). */
extern const char *const mach_v1_controllers[];

/* The hierarchy of /proc/PID/cgroup (pid 0: the caller) holding controller ("" the cgroup2
 * line, "name=systemd" that one): 0 with *ret_name (the line's list: "cpu,cpuacct") and
 * *ret_path (the cgroup's path in it), each optional, caller frees; -ENOENT; -ESRCH (no pid). */
int mach_cgroup_find(pid_t pid, const char *controller, char **ret_name, char **ret_path);

/* The host mount point of a hierarchy named as in /proc/PID/cgroup (caller frees). */
char *mach_cgroup_mount(const char *name);

/* Pushes the names of mach_v1_controllers' hierarchies mounted on this host (each once;
 * none on a pure cgroup2 host) to ret; returns their count. */
int mach_v1_hierarchies(struct strv *ret);

/* Pushes the host path of every jsim-<8 hex> cgroup (only those named name, when not NULL) in
 * those hierarchies: a walk of each to depth 4, at most 4096 dirs, not into jsim- dirs. */
void mach_v1_model_dirs(const char *name, struct strv *ret);

/* Creates <caller's cgroup>/<cg>/m<id> in each of those hierarchies (cpuset: cpus and mems
 * copied from the parent) and pushes their cgroup.procs paths to ret_procs. */
int mach_v1_create(const char *cg, unsigned id, struct strv *ret_procs, struct strbuf *err);
