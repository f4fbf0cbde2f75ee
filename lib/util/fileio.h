/* SPDX-License-Identifier: Apache-2.0 */
/* File input and output: atomic whole-file writes with an exact mode and owner, whole-file
 * reads with a size limit, mkdir -p, and making a path private to its owner.
 *
 * Design note (redis rewriteConfigOverwriteFile, systemd's write_string_file_atomic):
 * write_file_atomic() creates a temporary ".#<name>.XXXXXX" in the target's directory with
 * O_CREAT|O_EXCL|O_CLOEXEC and the final mode (the umask can only narrow it at creation:
 * a 0600 secret is never readable by others, not even for a moment), then fchown (when
 * asked), fchmod to exactly `mode` (after fchown, which may clear set-id bits), writes all
 * bytes (EINTR and short writes handled), fsyncs, renames over the target and fsyncs the
 * directory. Readers see the old bytes or the new, never a mix, also if the writer is
 * killed at any point (proven by tests/unit/test-fileio.c with SIGKILL at random times).
 *
 * Invariants: on failure the temporary is unlinked, the target is untouched and the
 * negative errno is returned (one exception: when only the final directory fsync fails,
 * the new file is already in place, maybe not yet durable, and its errno is returned). A writer killed by a
 * signal cannot unlink its temporary: the next successful write_file_atomic() of the same target removes
 * temporaries of that target older than FILEIO_STALE_TMP_SEC (younger ones may belong to a concurrent
 * writer). Concurrent writers of one target do not corrupt it: the last rename wins.
 *
 * Ownership: read_full_file() hands out a malloc'd buffer the caller frees. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* read_full_file() refuses files larger than this with -EFBIG. */
#define FILEIO_READ_MAX ((size_t) 64 * 1024 * 1024)
/* Temporaries of killed writers older than this are removed by the next write. */
#define FILEIO_STALE_TMP_SEC 600

/* Replaces path with the len bytes at data, mode exactly `mode` (permission and set-id
 * bits, umask ignored), owner uid:gid (either (uid_t)-1 / (gid_t)-1: left as created,
 * i.e. the caller's). Returns 0 or a negative errno (-EISDIR when path is a directory, …). */
int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid);

/* As write_file_atomic(), but returns 0 without writing (mtime and inode unchanged) when
 * path already is a regular file with exactly these bytes, this mode and this owner (an
 * owner of -1 is not compared), and 1 when it wrote the file. */
int write_file_atomic_if_changed(
        const char *path, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid);

/* Reads the whole file into a new buffer, NUL-terminated (not counted in *ret_len; the
 * data may hold NUL bytes). -EFBIG beyond FILEIO_READ_MAX bytes. ret_len may be NULL. */
int read_full_file(const char *path, char **ret_data, size_t *ret_len);

/* The default size cap of read_untrusted_file(). */
#define FILEIO_UNTRUSTED_MAX ((size_t) 1024 * 1024)

/* As read_full_file(), for a file in a directory another user writes (root reading in
 * SlurmUser's state save location, log directory…): never through a symbolic link at the last
 * component (-ELOOP), never a FIFO, socket or device (-EINVAL; opened O_NONBLOCK, so a FIFO put
 * there cannot hold the reader), never a file with another name (-EMLINK: a hard link to a file
 * of root's), at most max bytes (0: FILEIO_UNTRUSTED_MAX; -EFBIG). ret_st (may be NULL) gets
 * the file's stat as read. */
int read_untrusted_file(const char *path, size_t max, char **ret_data, size_t *ret_len, struct stat *ret_st);

/* Creates path and its missing parents; directories it creates get exactly `mode`,
 * existing ones are left alone. -ENOTDIR when a component exists and is no directory. */
int mkdir_p(const char *path, mode_t mode);

/* Removes the group and other permission bits of path (not following a symlink: one is left
 * alone). Returns 1 when it changed the mode, 0 when there were none or path does not exist. */
int chmod_private(const char *path);
