/* SPDX-License-Identifier: Apache-2.0 */
/* A daemon stopped by a signal, followed between hooks (see stopfollow.h). */
#include "util/macro.h"
#include "charm/common/stopfollow.h"

#include <errno.h>

#include "proc/proc.h"
#include "systemd/unit.h"

#include "util/banned.h"

bool stopfollow_wanted(const char *service) {
        return streq_ptr(service, "slurmdbd.service");
}

bool stopfollow_note(struct stopfollow *f, uint32_t pid, char state) {
        if (state == '?' && pid != 0)
                return false; /* not read: the next look tells */
        bool stopped = pid != 0 && proc_state_stopped(state);
        if (!f->looked || pid != f->pid) {
                /* a first look or a new process (systemd's restart, which its own watch
                 * follows): running until two looks agree that it is stopped */
                f->looked = true;
                f->pid = pid;
                f->stopped = false;
                f->seen = stopped;
                return false;
        }
        bool agree = f->seen == stopped;
        f->seen = stopped;
        if (stopped == f->stopped || !agree)
                return false;
        f->stopped = stopped;
        return true;
}

int stopfollow_look(
        struct stopfollow *f, sd_bus *bus, const char *service, uint64_t now, uint32_t *ret_pid, struct strbuf *err) {
        if (now < f->next_look)
                return 0;
        f->next_look = now + STOPFOLLOW_POLL_USEC;
        struct unit_state st = { 0 };
        int r = unit_get_state(bus, service, &st, err);
        if (r < 0)
                return r;
        char state = '?';
        if (st.main_pid != 0 && proc_pid_stat((pid_t) st.main_pid, NULL, &state) < 0)
                state = '?';
        if (ret_pid)
                *ret_pid = st.main_pid;
        return stopfollow_note(f, st.main_pid, state) ? 1 : 0;
}
