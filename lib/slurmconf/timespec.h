/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm's time string grammar, shared by the value grammars (values.h: MaxTime, DefaultTime,
 * …) and the sub-option grammars (subopts.h), below both: Slurm's _is_valid_timespec() and
 * what time_str2secs() accepts. Pure. */
#pragma once

#include <stdbool.h>

/* Slurm's _is_valid_timespec(): digits with at most one '-' (days) and two ':', in the forms
 * minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S. The empty string is not checked here. */
bool slurmconf_timespec_valid(const char *s);

/* Whether s is a Slurm time string (time_str2secs(): minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S,
 * or -1/INFINITE/UNLIMITED). */
bool slurmconf_time_spec_ok(const char *s);
