/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation wrappers. A failed allocation aborts the process (git's xmalloc policy):
 * hooks are short-lived, and an error path for every byte would hide the real ones. */
#pragma once

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a new string formatted as by printf. */
char *xasprintf(const char *fmt, ...) __attribute__((__format__(printf, 1, 2)));
