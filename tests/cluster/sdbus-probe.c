/* SPDX-License-Identifier: Apache-2.0 */
/* sdbus-probe: run inside a juju-sim machine; starts, stops and restarts a unit through
 * lib/systemd on the system bus and follows its ActiveState by D-Bus signals (no polling). */
#include "util/macro.h"

#include <time.h>

#include "proc/proc.h"
#include "systemd/unit.h"

#include "util/banned.h"

#define STEP_TIMEOUT_USEC (20 * 1000 * 1000ULL)
#define KILL_ROUNDS 5

struct watch {
        char last[UNIT_STATE_STRMAX];
        const char *want; /* ActiveState that ends the current wait (a '|' list) */
        bool done;
        int64_t done_at_us; /* CLOCK_MONOTONIC when the wanted state arrived */
        unsigned n_changes;
};

static int64_t now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static bool in_list(const char *s, const char *list) {
        size_t l = strlen(s);
        for (const char *p = list; p && *p;) {
                const char *bar = strchr(p, '|');
                size_t n = bar ? (size_t) (bar - p) : strlen(p);
                if (n == l && strncmp(p, s, n) == 0)
                        return true;
                p = bar ? bar + 1 : NULL;
        }
        return false;
}

static int on_change(const char *unit, const char *active, const char *sub, void *userdata) {
        struct watch *w = userdata;
        int64_t t = now_us();
        if (!active)
                return 0;
        if (!streq(w->last, active)) {
                printf("signal: %s ActiveState=%s SubState=%s\n", unit, active, strempty(sub));
                snprintf(w->last, sizeof w->last, "%s", active);
                w->n_changes++;
        }
        if (!w->done && w->want && in_list(active, w->want)) {
                w->done = true;
                w->done_at_us = t;
        }
        return 0;
}

static void arm(struct watch *w, const char *want) {
        w->want = want;
        w->done = false;
}

static int wait_state(sd_bus *bus, struct watch *w, const char *what) {
        int r = unit_bus_wait(bus, STEP_TIMEOUT_USEC, &w->done);
        if (r < 0)
                fprintf(stderr, "sdbus-probe: %s: no ActiveState signal for \"%s\": %s\n", what, w->want,
                        strerror(-r));
        return r;
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: sdbus-probe UNIT\n");
                return 2;
        }
        const char *unit = argv[1];
        setvbuf(stdout, NULL, _IOLBF, 0);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        sd_bus *bus = NULL;
        int r = unit_bus_open(&bus, &err);
        if (r < 0) {
                fprintf(stderr, "sdbus-probe: %s\n", err.buf);
                return 1;
        }
        struct watch w = { .last = "" };
        sd_bus_slot *slot = NULL;
        r = unit_watch(bus, unit, on_change, &w, &slot, &err);
        if (r < 0)
                goto fail;

        arm(&w, "active");
        if ((r = unit_start(bus, unit, STEP_TIMEOUT_USEC, &err)) < 0 ||
                (r = wait_state(bus, &w, "start")) < 0)
                goto fail;
        arm(&w, "inactive");
        if ((r = unit_stop(bus, unit, STEP_TIMEOUT_USEC, &err)) < 0 || (r = wait_state(bus, &w, "stop")) < 0)
                goto fail;
        arm(&w, "active");
        if ((r = unit_start(bus, unit, STEP_TIMEOUT_USEC, &err)) < 0 ||
                (r = wait_state(bus, &w, "start")) < 0)
                goto fail;
        /* restart: the unit must go through a non-active state and come back */
        unsigned before = w.n_changes;
        arm(&w, "deactivating|inactive|activating");
        if ((r = unit_restart(bus, unit, STEP_TIMEOUT_USEC, &err)) < 0 ||
                (r = wait_state(bus, &w, "restart (down)")) < 0)
                goto fail;
        arm(&w, "active");
        if (streq(w.last, "active"))
                w.done = true;
        if ((r = wait_state(bus, &w, "restart (up)")) < 0)
                goto fail;
        if (w.n_changes < before + 2) {
                fprintf(stderr, "sdbus-probe: restart: saw no down and up signals\n");
                return 1;
        }

        /* latency: from spawning `systemctl kill -s KILL` to the signal saying the unit is down */
        int64_t lat[KILL_ROUNDS], ret_lat[KILL_ROUNDS];
        for (int i = 0; i < KILL_ROUNDS; i++) {
                if (!streq(w.last, "active")) {
                        arm(&w, "active");
                        if ((r = unit_reset_failed(bus, unit, STEP_TIMEOUT_USEC, &err)) < 0 ||
                                (r = unit_start(bus, unit, STEP_TIMEOUT_USEC, &err)) < 0 ||
                                (r = wait_state(bus, &w, "start")) < 0)
                                goto fail;
                }
                _cleanup_proc_ struct proc p = PROC_INIT;
                strv_pushl(&p.argv, "systemctl", "kill", "-s", "KILL", unit, NULL);
                p.capture_err = true;
                p.timeout_ms = 20000;
                arm(&w, "failed|inactive|deactivating");
                int64_t t0 = now_us();
                r = proc_run(&p);
                int64_t t_ret = now_us();
                if (r != 0) {
                        fprintf(stderr, "sdbus-probe: systemctl kill: %s %s\n",
                                r < 0 ? strerror(-r) : "failed", p.err.buf);
                        return 1;
                }
                if ((r = wait_state(bus, &w, "kill")) < 0)
                        return 1;
                lat[i] = w.done_at_us - t0;
                ret_lat[i] = t_ret - t0;
                printf("kill %d: signal %.3f ms after spawning systemctl kill (systemctl itself took %.3f "
                       "ms)\n",
                        i + 1, (double) lat[i] / 1000.0, (double) ret_lat[i] / 1000.0);
        }
        qsort(lat, KILL_ROUNDS, sizeof lat[0], cmp_i64);
        printf("kill-to-signal latency: median %.3f ms, min %.3f ms, max %.3f ms (%d rounds)\n",
                (double) lat[KILL_ROUNDS / 2] / 1000.0, (double) lat[0] / 1000.0,
                (double) lat[KILL_ROUNDS - 1] / 1000.0, KILL_ROUNDS);
        (void) unit_reset_failed(bus, unit, STEP_TIMEOUT_USEC, NULL);
        sd_bus_slot_unref(slot);
        sd_bus_flush_close_unref(bus);
        printf("ok\n");
        return 0;
fail:
        fprintf(stderr, "sdbus-probe: %s\n", err.len ? err.buf : strerror(-r));
        sd_bus_slot_unref(slot);
        sd_bus_flush_close_unref(bus);
        return 1;
}
