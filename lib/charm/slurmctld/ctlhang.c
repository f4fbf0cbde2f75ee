/* SPDX-License-Identifier: Apache-2.0 */
/* A slurmctld stuck in its reconfigure after it saved its state (see ctlhang.h). */
#include "charm/slurmctld/ctlhang.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "charm/common/charm.h"
#include "proc/proc.h"
#include "slurm/acctdb.h"
#include "systemd/unit.h"
#include "util/alloc.h"
#include "util/macro.h"

#include "util/banned.h"

#define SIGHUP_LINE "Reconfigure signal (SIGHUP) received"
#define SAVE_LINE "Saving all slurm state"
#define START_LINE " started on cluster "

/* The last occurrence of needle in text, or NULL. */
static const char *last_of(const char *text, const char *needle) {
        const char *last = NULL;
        for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
                last = p;
        return last;
}

/* The last occurrence of any of needles in [text, end), or NULL. */
static const char *last_of_any(const char *text, const char *end, const char *const *needles, size_t n) {
        const char *last = NULL;
        for (size_t i = 0; i < n; i++)
                for (const char *p = text; (p = strstr(p, needles[i])) && p < end; p += strlen(needles[i]))
                        if (!last || p > last)
                                last = p;
        return last;
}

bool ctl_hang_in_log(const char *text) {
        if (!text)
                return false;
        /* the last save, by this process (no start line after it) */
        const char *save = last_of(text, SAVE_LINE);
        if (!save || strstr(save, START_LINE))
                return false;
        /* a reconfigure's: a SIGHUP after whatever ended the stretch before it (a start, an exec
         * that failed and went on, a stop) */
        static const char *const before[] = { START_LINE, "Attempting to reconfigure", "Terminate signal" };
        const char *from = last_of_any(text, save, before, ELEMENTSOF(before));
        const char *hup = strstr(from ? from : text, SIGHUP_LINE);
        if (!hup || hup > save)
                return false;
        /* nothing after the save that ends that stretch: the exec, a stop asked meanwhile, the
         * wait for running power scripts that follows the flush's reply (slurmscriptd.c
         * _wait_for_all_scripts: a legitimate wait, not this); another SIGHUP meanwhile (an
         * admin's reload) changes nothing */
        static const char *const ends[] = { "Attempting to reconfigure", "Relinquishing control", "Terminate signal",
                " running processes" };
        for (size_t i = 0; i < ELEMENTSOF(ends); i++)
                if (strstr(save, ends[i]))
                        return false;
        return true;
}

bool ctl_hang_look(const char *log_path, time_t now) {
        struct stat st;
        _cleanup_free_ char *tail = charm_log_tail(log_path, 0, &st);
        return tail && now - st.st_mtime >= CTL_HANG_QUIET_S && ctl_hang_in_log(tail);
}

/* Whether process pid (the main one) is as a hung one is: running, not stopped (a SIGSTOP is the
 * fence's), and without its state save thread: the proof the log cannot give (a user's job
 * name or partition can carry any text into it: review of this module, H1), as that thread is
 * joined once the state was written (controller.c), which no running controller is without. */
static bool pid_as_hung(pid_t pid) {
        char state = 0;
        return proc_pid_stat(pid, NULL, &state) == 0 && !proc_state_stopped(state) &&
                proc_thread_named(pid, CTL_HANG_SAVE_THREAD) == 0;
}

int ctl_hang_cure(sd_bus *bus, const char *log_path, time_t now, struct strbuf *msg) {
        time_t t0 = time(NULL);
        if (!ctl_hang_look(log_path, now))
                return 0;
        struct unit_state st;
        int r = unit_get_state(bus, "slurmctld.service", &st, msg);
        if (r < 0)
                return r;
        if (!streq(st.active_state, "active") || st.main_pid == 0)
                return 0;
        /* the process judged from here on, and the one killed: the handshake below takes seconds,
         * in which the reconfigure may go on and MainPID become another process (review L1) */
        pid_t pid = (pid_t) st.main_pid;
        _cleanup_close_ int pidfd = proc_pidfd_open(pid);
        if (pidfd < 0 || !pid_as_hung(pid))
                return 0;
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        r = acctdb_ping_within(CTL_HANG_ACCT_MS, &why);
        if (r < 0 && r != -ENOENT) {
                strbuf_addf(msg,
                        "slurmctld hangs in a reconfigure after saving its state (Slurm 24.11.5, fixed in "
                        "24.11.6) and is left running: slurmdbd does not answer (%s), and the records "
                        "slurmctld holds for it would be lost; restart slurmctld once slurmdbd answers",
                        why.len ? why.buf : strerror(-r));
                return -EBUSY;
        }
        /* judged again after the handshake: still hung, still the main process, not stopped */
        struct unit_state again;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (!ctl_hang_look(log_path, now + (time(NULL) - t0)) ||
                unit_get_state(bus, "slurmctld.service", &again, &e) < 0 || again.main_pid != st.main_pid ||
                !pid_as_hung(pid))
                return 0;
        r = proc_pidfd_kill(pidfd, SIGKILL);
        if (r == -ESRCH)
                return 0;
        if (r < 0) {
                strbuf_addf(msg, "slurmctld process %ld: SIGKILL: %s", (long) pid, strerror(-r));
                return r;
        }
        strbuf_addf(msg,
                "slurmctld hung in a reconfigure after saving its state (Slurm 24.11.5, fixed in 24.11.6): "
                "process %ld killed, systemd starts it again from the saved state",
                (long) pid);
        return 1;
}
