/* SPDX-License-Identifier: Apache-2.0 */
/* A path as the kernel will walk it: its "." and repeated slashes dropped, then every
 * symbolic link in the part that exists followed (realpath(3) on the longest existing
 * prefix), the rest kept as written. Used to compare a path an admin gives with a directory
 * the charm must keep for itself, where two spellings (a parent that is a link, "//", "/./")
 * must not pass as two places.
 *
 * Results are malloc'd strings; ".." is not resolved lexically (behind a link it means the
 * link target's parent) and makes path_resolve() refuse with -EINVAL. */
#pragma once

/* path with repeated slashes and "." components dropped: "/a//b/./c/" → "/a/b/c"; "" or a
 * path of slashes and dots only → "/". Relative paths keep no leading slash. */
char *path_normalize(const char *path);

/* Absolute path resolved below root (NULL or "" or "/" for this machine's root; a juju-sim
 * machine's tree otherwise, whose links are followed inside it): *ret is the resolved path as
 * seen from root. -EINVAL for a relative path or a ".." component, -ELOOP / -EACCES / -ENOTDIR
 * and the like from the walk of the existing prefix, -ENOLINK when a link in it leads to a missing
 * target (what it names is decided by whoever makes that). Links are followed inside root as a chroot
 * would (an absolute link means root's path; ".." stops at root), -EXDEV when a mount inside
 * root shows a place outside it. */
int path_resolve(const char *root, const char *path, char **ret);

/* Whether path (normalized) is dir or lies below it; both absolute and normalized. */
int path_is_below_or_same(const char *path, const char *dir);
