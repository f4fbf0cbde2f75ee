/* SPDX-License-Identifier: Apache-2.0 */
/* FNV-1a, 64 bits: a change detector and a file-name key, never a check against an adversary
 * (callers compare the bytes themselves where equality matters). Header-only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

static inline uint64_t fnv1a64(const void *data, size_t n) {
        const unsigned char *p = data;
        uint64_t h = 0xcbf29ce484222325ULL;
        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= 0x100000001b3ULL;
        }
        return h;
}
