/* SPDX-License-Identifier: Apache-2.0 */
/* A growable NULL-terminated vector of owned strings (git's strvec), for argv, env and lists.
 *
 * Invariants: v is never NULL (an empty strv points at a static { NULL }), v[n] == NULL,
 * every element is owned by the strv. strv_clear() frees all; strv_detach() hands the
 * char ** out (free it with strv_free()). Allocation failure aborts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct strv {
        char **v;
        size_t n;
        size_t alloc;
};

extern char *strv_empty_array[];
#define STRV_INIT \
        { .v = strv_empty_array, .n = 0, .alloc = 0 }

void strv_init(struct strv *sv);
void strv_clear(struct strv *sv);
/* Appends a copy of s and returns it. */
const char *strv_push(struct strv *sv, const char *s);
/* Appends s itself: the strv takes ownership. */
const char *strv_push_take(struct strv *sv, char *s);
const char *strv_pushf(struct strv *sv, const char *fmt, ...) __attribute__((__format__(printf, 2, 3)));
/* Appends copies of each string of the NULL-terminated list. */
void strv_pushv(struct strv *sv, char *const *list);
void strv_pushl(struct strv *sv, ...) __attribute__((__sentinel__));
/* Removes and frees the last element, if any. */
void strv_pop(struct strv *sv);
/* Sorts the elements in byte order (strcmp: "a/10" before "a/2", as Go's sort.Strings). */
void strv_sort(struct strv *sv);
/* Removes and frees element i, keeping the order of the rest. */
void strv_remove(struct strv *sv, size_t i);
char **strv_detach(struct strv *sv);
/* Index of the first element equal to s, or -1. */
long strv_find(const struct strv *sv, const char *s);
static inline bool strv_contains(const struct strv *sv, const char *s) {
        return strv_find(sv, s) >= 0;
}
/* Joins the elements with sep; the caller frees the result. */
char *strv_join(const struct strv *sv, const char *sep);

/* Plain NULL-terminated char ** helpers (NULL is allowed everywhere). */
size_t strv_length(char *const *l);
void strv_free(char **l);
static inline void strv_freep(char ***l) {
        strv_free(*l);
}
static inline void strv_clearp(struct strv *sv) {
        strv_clear(sv);
}
#define _cleanup_strv_free_ __attribute__((__cleanup__(strv_freep)))
#define _cleanup_strv_ __attribute__((__cleanup__(strv_clearp)))
