/* SPDX-License-Identifier: Apache-2.0 */
/* The rate rule of the service watcher's followers: see followrate.h. */
#include "util/macro.h"
#include "charm/common/followrate.h"

#include "util/banned.h"

bool follow_rate_note(struct follow_rate *f, bool waiting, bool ready, uint64_t now, uint64_t poll_usec,
        uint64_t again_usec) {
        f->next_look = now + poll_usec;
        if (!waiting) {
                f->asked_at = 0;
                return false;
        }
        if (!ready || (f->asked_at && now < f->asked_at + again_usec))
                return false;
        f->asked_at = now;
        return true;
}
