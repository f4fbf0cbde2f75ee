/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm hostlist expressions: expand "node[01-10,12],rack[0-3]_blade[0-7]" into names and
 * compress a set of names back into the shortest bracket form Slurm accepts.
 *
 * Design note. The syntax is the one Slurm 22.05 accepts (checked against its scontrol):
 *   expr    := item ("," item)*                    no empty items, no whitespace
 *   item    := text? (bracket text?)*              text: any bytes but "[", "]", ","
 *   bracket := "[" range ("," range)* "]"          range: DIGITS or DIGITS "-" DIGITS
 * The text after the last bracket of an item must be empty ("n[1-2]-ib" is rejected, as by
 * Slurm 22.05). A range lo-hi needs lo <= hi; its zero padding is the number of digits of
 * lo: "n[01-10]" gives n01..n10, "n[8-10]" gives n8,n9,n10. Several brackets in one item
 * give the cartesian product, the leftmost bracket varying slowest (Slurm's order):
 * "r[0-1]_b[0-1]" gives r0_b0,r0_b1,r1_b0,r1_b1. Duplicates are kept as written.
 *
 * The whole expression is parsed and its size computed before the first name is produced,
 * so a hostile "n[0-999999999]" costs nothing but -E2BIG, and on any error *ret is left as
 * it was.
 *
 * Compression takes the trailing digits of each name as its number (Slurm's rule: "n1-ib"
 * has no number and stays as it is), drops duplicates, groups the names by prefix and puts
 * consecutive numbers of one printed width into one range: n01,n02,n03,n05 gives
 * "n[01-03,05]"; n8,n9,n10 gives "n[8-10]"; n8,n09 gives "n[8,09]". Groups are sorted by
 * prefix (bytewise), ranges inside a bracket by number then width; a group of one name is
 * written without brackets. expand(compress(x)) gives back the set x.
 *
 * Ownership: both functions only append to the caller's strv/strbuf. */
#pragma once

#include <stddef.h>

#include "util/strbuf.h"
#include "util/strv.h"

/* Appends the names of expr to *ret, at most max of them. Returns the number of names
 * appended; -EINVAL on a syntax error (unbalanced or nested brackets, reversed range, a
 * range that is not digits or longer than 18 digits, an empty expression, item or
 * bracket, text after the last bracket), -E2BIG when more than max names would result.
 * On error *ret is unchanged. */
int hostlist_expand(const char *expr, size_t max, struct strv *ret);

/* Appends the compressed form of the NULL-terminated list names to *ret (nothing for an
 * empty list). Returns 0, or -EINVAL when a name is empty or holds "[", "]", "," or a
 * space or control character; then *ret is unchanged. */
int hostlist_compress(char *const *names, struct strbuf *ret);
