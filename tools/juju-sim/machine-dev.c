/* SPDX-License-Identifier: Apache-2.0 */
/* A machine's own /dev, for machines given fake NVIDIA GPUs ("@gpus=N" attachments): the
 * standard nodes, a devpts instance, /dev/shm, and /dev/nvidia0..N-1 plus /dev/nvidiactl as
 * character devices of the NVIDIA major with no driver behind them. See machine.h. */
#include "util/macro.h"
#include "machine.h"
#include "machine-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/banned.h"

int mach_gpus_parse(const char *attachment, unsigned *ret) {
        char *end;
        if (!startswith(attachment, MACH_GPUS_PREFIX))
                return 0;
        const char *num = attachment + strlen(MACH_GPUS_PREFIX);
        errno = 0;
        unsigned long n = strtoul(num, &end, 10);
        if (errno || end == num || *end || n < 1 || n > MACH_GPUS_MAX)
                return -EINVAL;
        *ret = (unsigned) n;
        return 1;
}

static int node(const char *path, mode_t mode, unsigned maj, unsigned min) {
        if (mknod(path, S_IFCHR | mode, makedev(maj, min)) < 0)
                return -errno;
        /* mknod honours the umask: the final mode, as a real /dev has it */
        return chmod(path, mode) < 0 ? -errno : 0;
}

int mach_dev_setup(unsigned gpus, char *step, size_t step_len) {
        static const struct {
                const char *path;
                unsigned maj, min;
        } std[] = {
                { "/dev/null", 1, 3 },
                { "/dev/zero", 1, 5 },
                { "/dev/full", 1, 7 },
                { "/dev/random", 1, 8 },
                { "/dev/urandom", 1, 9 },
                { "/dev/tty", 5, 0 },
        };
        static const char *const links[][2] = {
                { "/proc/self/fd", "/dev/fd" },
                { "/proc/self/fd/0", "/dev/stdin" },
                { "/proc/self/fd/1", "/dev/stdout" },
                { "/proc/self/fd/2", "/dev/stderr" },
                { "pts/ptmx", "/dev/ptmx" },
        };
        snprintf(step, step_len, "mount /dev");
        if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(std); i++) {
                snprintf(step, step_len, "mknod %s", std[i].path);
                int r = node(std[i].path, 0666, std[i].maj, std[i].min);
                if (r < 0)
                        return r;
        }
        snprintf(step, step_len, "mount /dev/pts");
        if (mkdir("/dev/pts", 0755) < 0 ||
                mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                        "newinstance,ptmxmode=0666,mode=0620") < 0)
                return -errno;
        snprintf(step, step_len, "mount /dev/shm");
        if (mkdir("/dev/shm", 01777) < 0 ||
                mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(links); i++) {
                snprintf(step, step_len, "link %s", links[i][1]);
                if (symlink(links[i][0], links[i][1]) < 0)
                        return -errno;
        }
        /* the NVIDIA driver's nodes: major 195, minors 0.. per GPU and 255 for nvidiactl */
        for (unsigned g = 0; g < gpus; g++) {
                char path[32];
                snprintf(path, sizeof path, "/dev/nvidia%u", g);
                snprintf(step, step_len, "mknod %s", path);
                int r = node(path, 0666, MACH_NVIDIA_MAJOR, g);
                if (r < 0)
                        return r;
        }
        snprintf(step, step_len, "mknod /dev/nvidiactl");
        return node("/dev/nvidiactl", 0666, MACH_NVIDIA_MAJOR, 255);
}
