/* SPDX-License-Identifier: Apache-2.0 */
/* A writer of the node event log that waits for its lock in a thread (ev_lock, 5 s at most):
 * the tests of a log directory moved or removed while a writer waits (test-charm-events,
 * test-charm-evshare). */
#pragma once

#include <pthread.h>

#include "charm/slurmctld/events.h"

struct ev_waiter {
        const char *dir;
        int r; /* 1 until ev_lock returned */
        struct ev_held held;
};

static inline void *ev_waiter_run(void *arg) {
        struct ev_waiter *w = arg;
        w->r = ev_lock(w->dir, 5000, &w->held, NULL);
        return NULL;
}
