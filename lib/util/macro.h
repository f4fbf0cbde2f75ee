/* SPDX-License-Identifier: Apache-2.0 */
/* Common macros: cleanup attributes, ownership transfer, small string predicates.
 * Every library file includes this first; "util/banned.h" goes last. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((__cleanup__(f)))
#define _unused_ __attribute__((__unused__))
#define _printf_(a, b) __attribute__((__format__(printf, a, b)))
#define _noreturn_ __attribute__((__noreturn__))
#define _warn_unused_result_ __attribute__((__warn_unused_result__))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Hand ownership out of a cleanup variable: the variable becomes NULL (or -1). */
#define TAKE_PTR(p)                       \
        ({                                \
                __typeof__(p) _tp_ = (p); \
                (p) = NULL;               \
                _tp_;                     \
        })
#define TAKE_FD(fd)               \
        ({                        \
                int _tfd_ = (fd); \
                (fd) = -1;        \
                _tfd_;            \
        })

/* DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose) defines fclosep(FILE **). The
 * destructor is never called with NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
        static inline void func##p(type *p) {   \
                if (*p)                         \
                        func(*p);               \
        }

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose)
#define _cleanup_fclose_ _cleanup_(fclosep)
DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)
#define _cleanup_closedir_ _cleanup_(closedirp)

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}
static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}
static inline bool strcaseeq(const char *a, const char *b) {
        return strcasecmp(a, b) == 0;
}
static inline bool isempty(const char *s) {
        return !s || !*s;
}
/* Returns the rest of s after prefix, or NULL when s does not start with it. */
static inline const char *startswith(const char *s, const char *prefix) {
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}
static inline const char *startswith_no_case(const char *s, const char *prefix) {
        size_t l = strlen(prefix);
        return strncasecmp(s, prefix, l) == 0 ? s + l : NULL;
}
static inline const char *strempty(const char *s) {
        return s ? s : "";
}

/* Negative errno from a libc call that returns -1 and sets errno. */
#define RET_NERRNO(expr)                                     \
        ({                                                   \
                int _r_ = (expr);                            \
                _r_ < 0 ? (errno > 0 ? -errno : -EIO) : _r_; \
        })
