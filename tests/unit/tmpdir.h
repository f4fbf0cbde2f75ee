/* SPDX-License-Identifier: Apache-2.0 */
/* A unit test's temporary directory: made under $TMPDIR (/var/tmp when unset) as <name>.XXXXXX,
 * removed with everything under it. Header-only (each test-<module>.c is its own program).
 *
 * Ownership: test_tmpdir_make() returns a malloc'd path; test_tmpdir_remove() removes the tree
 * and frees that path. As cmocka fixtures, test_tmpdir_setup() puts the path in *state, named
 * after the test program (test-<module>), and test_tmpdir_teardown() removes and frees it.
 * Include it before "util/banned.h". */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"

static inline int test_tmpdir_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

/* Makes "<$TMPDIR or /var/tmp>/<name>.XXXXXX" (mode 0700). Returns its path, or NULL with errno
 * set when mkdtemp fails. */
static inline char *test_tmpdir_make(const char *name) {
        const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
        char *dir = xasprintf("%s/%s.XXXXXX", base, name);
        if (!mkdtemp(dir)) {
                int saved = errno;
                free(dir);
                errno = saved;
                return NULL;
        }
        return dir;
}

/* Removes dir and everything under it, deepest first, not following symbolic links, then frees
 * dir. Returns 0, or -1 when an entry could not be removed (nftw stops there). NULL is accepted. */
static inline int test_tmpdir_remove(char *dir) {
        if (!dir)
                return 0;
        int r = nftw(dir, test_tmpdir_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(dir);
        return r;
}

/* An empty file dir/name (0600); -1 when it cannot be made. */
static inline int test_touch(const char *dir, const char *name) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return -1;
        close(fd);
        return 0;
}

/* A directory (dir) or an empty file under root ("<root><rel>", rel starting with "/") with
 * exactly mode (chmod after the umask); -1 when it cannot be made. */
static inline int test_mk(const char *root, const char *rel, bool dir, mode_t mode) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", root, rel);
        if (dir) {
                if (mkdir(path, mode) < 0)
                        return -1;
        } else {
                int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
                if (fd < 0)
                        return -1;
                close(fd);
        }
        return chmod(path, mode);
}

/* cmocka setup: *state becomes the path of a new directory named after the test program. */
static inline int test_tmpdir_setup(void **state) {
        char *dir = test_tmpdir_make(program_invocation_short_name);
        if (!dir)
                return -1;
        *state = dir;
        return 0;
}

/* cmocka teardown of test_tmpdir_setup(): removes the directory and frees its path. A removal
 * that fails is not reported; a test that must see it calls test_tmpdir_remove() itself. */
static inline int test_tmpdir_teardown(void **state) {
        (void) test_tmpdir_remove(*state);
        *state = NULL;
        return 0;
}
