/* SPDX-License-Identifier: Apache-2.0 */
/* Internals shared by machine.c, machine-init.c and machine-spawn.c: the create handshake
 * between juju-sim and a machine's init, and small helpers. Not for users of machine.h. */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

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
        char *const *shares;       /* "HOSTDIR:PATH" or NULL */
        int up_fd, down_fd, log_fd;
        int keep_fd, keep_fd2; /* the parent's pipe ends: closed in the child */
};

extern const char *const mach_private_paths[];

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
int mach_pid_stat(pid_t pid, unsigned long long *ret_start, char *ret_state);
bool mach_pid_alive(pid_t pid, unsigned long long starttime);
