/* SPDX-License-Identifier: Apache-2.0 */
/* Small parsers for what programs take on their command line. Pure; no allocation. */
#pragma once

#include <stdbool.h>

/* A decimal number 0..max, the whole of s (no sign, no space, no suffix): true and *ret, or
 * false with *ret untouched. */
bool parse_ulong(const char *s, unsigned long max, unsigned long *ret);
