/* SPDX-License-Identifier: Apache-2.0 */
/* The rate rule the service watcher's followers share (charm/slurmctld/pushfollow.h,
 * charm/slurmctld/acctfollow.h): a look every poll interval; while what is followed waits, a
 * handler run is asked for as soon as it is ready, and again at most once per `again` interval
 * while it still waits (a run that changed nothing, a failure); once the wait ends, a later
 * wait is followed from its start. Pure: the caller makes the looks.
 *
 * Ownership: plain values. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct follow_rate {
        uint64_t next_look; /* monotonic µs of the next look */
        uint64_t asked_at;  /* the last run asked for (0: none while waiting) */
};
#define FOLLOW_RATE_INIT \
        { .next_look = 0, .asked_at = 0 }

/* Records a look at now (monotonic µs): waiting (what is followed is there) and ready (a run
 * would take it). Sets the next look poll_usec on. True when a handler run is to be asked for
 * now. */
bool follow_rate_note(struct follow_rate *f, bool waiting, bool ready, uint64_t now, uint64_t poll_usec,
        uint64_t again_usec);
