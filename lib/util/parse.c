/* SPDX-License-Identifier: Apache-2.0 */
/* Small parsers for command lines (parse.h). */
#include "util/macro.h"
#include "util/parse.h"

#include <stdlib.h>

#include "util/banned.h"

bool parse_ulong(const char *s, unsigned long max, unsigned long *ret) {
        char *end;
        if (!s || *s < '0' || *s > '9')
                return false;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || *end || v > max)
                return false;
        *ret = v;
        return true;
}
