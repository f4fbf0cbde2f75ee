/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm's time string grammar (timespec.h). */
#include "util/macro.h"
#include "slurmconf/timespec.h"

#include <strings.h>

#include "util/banned.h"

bool slurmconf_timespec_valid(const char *s) {
        int digit = 0, dash = 0, colon = 0;
        bool already_digit = false;
        for (; *s; s++) {
                if (*s >= '0' && *s <= '9') {
                        if (!already_digit) {
                                digit++;
                                already_digit = true;
                        }
                } else if (*s == '-') {
                        already_digit = false;
                        dash++;
                        if (colon)
                                return false;
                } else if (*s == ':') {
                        already_digit = false;
                        colon++;
                } else
                        return false;
        }
        if (!digit || dash > 1 || colon > 2)
                return false;
        if (dash)
                return !((colon == 1 && digit < 3) || (colon == 2 && digit < 4));
        return !((colon == 1 && digit < 2) || (colon == 2 && digit < 3));
}

bool slurmconf_time_spec_ok(const char *s) {
        return s &&
                (streq(s, "-1") || strcaseeq(s, "INFINITE") || strcaseeq(s, "UNLIMITED") ||
                        (*s && slurmconf_timespec_valid(s)));
}
