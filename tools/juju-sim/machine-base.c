/* SPDX-License-Identifier: Apache-2.0 */
/* The machine layer's small helpers (machine-internal.h), below every other machine-*.c file:
 * time, the model's absolute path and hash, the hierarchies a machine lives in, cgroup file
 * writes, the private paths, the rootfs attachment. */
#include "util/macro.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "machine.h"
#include "machine-internal.h"
#include "util/alloc.h"

#include "util/banned.h"

static bool is_fs(const char *path, long magic) {
        struct statfs s;
        return statfs(path, &s) == 0 && (long) s.f_type == magic;
}

int64_t mach_now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mach_sleep_ms(int ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* The model dir as an absolute, canonical path: realpath() when it exists, else made absolute. */
char *mach_model_abs(const char *model_dir) {
        char *r = realpath(model_dir, NULL);
        if (r)
                return r;
        if (model_dir[0] == '/')
                return xstrdup(model_dir);
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        if (!cwd)
                return xstrdup(model_dir);
        return xasprintf("%s/%s", cwd, model_dir);
}

uint32_t mach_model_hash(const char *model_dir) {
        _cleanup_free_ char *abs = mach_model_abs(model_dir);
        uint32_t h = 2166136261u; /* FNV-1a */
        for (const unsigned char *p = (const unsigned char *) abs; *p; p++) {
                h ^= *p;
                h *= 16777619u;
        }
        return h;
}

char *mach_hosts_path(const char *abs) {
        return xasprintf("%s/machines/hosts", abs);
}

/* The cgroup hierarchies a machine lives in: [0] the cgroup2 one (cgroup.kill, populated),
 * [1] the name=systemd v1 one on a hybrid host. Entries not present are NULL. */
void mach_cgroup_bases(const char *bases[2]) {
        bases[0] = bases[1] = NULL;
        if (is_fs("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC)) {
                bases[0] = "/sys/fs/cgroup";
                return;
        }
        if (is_fs("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC))
                bases[0] = "/sys/fs/cgroup/unified";
        if (is_fs("/sys/fs/cgroup/systemd", CGROUP_SUPER_MAGIC))
                bases[1] = "/sys/fs/cgroup/systemd";
}

/* Writes s to path (no O_CREAT, no O_TRUNC: for cgroup and sysctl files). */
int mach_write_str(const char *path, const char *s) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        size_t l = strlen(s);
        ssize_t n = write(fd, s, l);
        if (n < 0)
                return -errno;
        return (size_t) n == l ? 0 : -EIO;
}

/* The paths bound from <machine dir>/root over the machine's view. */
const char *const mach_private_paths[] = {
        "/etc/slurm",
        "/etc/munge",
        "/etc/default",
        "/etc/systemd/system",
        "/var/lib/slurm",
        "/var/lib/munge",
        "/var/lib/juju",
        "/var/lib/mysql",
        "/var/spool",
        "/var/log",
        "/srv",
        "/mnt",
        NULL,
};

const char *mach_rootfs_of(char *const *shares) {
        const char *r = NULL;
        for (size_t i = 0; shares && shares[i]; i++)
                if (startswith(shares[i], MACH_ROOTFS_PREFIX))
                        r = shares[i] + strlen(MACH_ROOTFS_PREFIX);
        return r;
}
