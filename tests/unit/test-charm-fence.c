/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/fence: when a stale controller is killed (stopped, hung, or its
 * machine frozen while another took charge), when it is not (one controller, a standby, a
 * relieved one, an old beat, another process), when the hold is lifted, and the record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/macro.h"
#include "charm/slurmctld/fence.h"
#include "tmpdir.h"

#include "util/banned.h"

#define T 10
#define S 1000000ULL

static struct fence_look look(uint32_t pid, char state, uint64_t idx, time_t beat, time_t now) {
        return (struct fence_look){ .pid = pid, .state = state, .self = 0, .n_ctl = 2, .have_beat = true,
                .beat_time = beat, .beat_index = idx, .now = now, .timeout_s = T };
}

static enum fence_verdict judge(struct fence_watch *w, struct fence_look l) {
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        enum fence_verdict v = fence_judge(w, &l, &why);
        assert_true((v != FENCE_KEEP) == (why.len > 0));
        return v;
}

static void test_stopped(void **state) {
        struct fence_watch w = { 0 };
        /* in charge, beating; then stopped: the heartbeat ages, still its own */
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'S', 0, 1002, 1003)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'T', 0, 1002, 1009)), FENCE_KEEP);
        /* a backup takes charge while it is stopped */
        struct fence_look l = look(100, 'T', 1, 1015, 1015);
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        assert_int_equal(fence_judge(&w, &l, &why), FENCE_KILL);
        assert_non_null(strstr(why.buf, "pid 100) stopped while controller 1 took charge"));
}

static void test_not_stale(void **state) {
        struct fence_watch w = { 0 };
        /* one controller alone */
        struct fence_look l = look(100, 'T', 1, 1015, 1015);
        l.n_ctl = 1;
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        /* a standby that never wrote the heartbeat, stopped while another is in charge */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(200, 'S', 1, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(200, 'T', 1, 1020, 1020)), FENCE_KEEP);
        /* relieved while running (a takeover, a failback): a standby from then on */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(300, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(300, 'S', 1, 1005, 1005)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(300, 'T', 1, 1040, 1040)), FENCE_KEEP);
        /* another index's beat older than its own last one */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(400, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(400, 'T', 1, 990, 1001)), FENCE_KEEP);
        /* another process: what the old one did is forgotten */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(500, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(501, 'T', 1, 1020, 1020)), FENCE_KEEP);
        /* not a controller, or no heartbeat */
        w = (struct fence_watch){ 0 };
        l = look(600, 'S', 0, 1000, 1000);
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        l = look(600, 'T', 1, 1020, 1020);
        l.have_beat = false;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        l.have_beat = true;
        l.self = -1;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
}

static void test_hung(void **state) {
        struct fence_watch w = { 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'D', 0, 1000, 1002)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'D', 1, 1013, 1011)), FENCE_KEEP); /* D for 9 s */
        assert_int_equal(judge(&w, look(100, 'D', 1, 1013, 1012)), FENCE_KILL); /* 10 s */
        /* out of D, the count starts again */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'D', 0, 1000, 1001)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'S', 0, 1005, 1008)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'D', 1, 1013, 1013)), FENCE_KEEP);
}

static struct fence_look thawed(uint64_t idx, time_t beat, time_t now, long mark_idx, time_t mark_time) {
        struct fence_look l = look(100, 'R', idx, beat, now);
        l.overslept_usec = 30 * S;
        l.have_mark = mark_idx >= 0;
        l.mark_other = l.have_mark && mark_idx != l.self;
        l.mark_index = mark_idx;
        l.mark_time = mark_time;
        return l;
}

static void test_frozen_machine(void **state) {
        /* the sentinel came 30 s late; meanwhile controller 1's sentinel noted charge: whatever
         * the heartbeat says now (the stale process may have written it first) */
        struct fence_watch w = { 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, thawed(1, 1028, 1031, 1, 1029)), FENCE_KILL);
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, thawed(0, 1031, 1031, 1, 1029)), FENCE_KILL);
        /* no one else noted charge during the freeze (a starved sentinel, or all frozen) */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, thawed(0, 1031, 1031, 0, 1000)), FENCE_KEEP);
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, thawed(0, 1031, 1031, 1, 990)), FENCE_KEEP); /* an old mark */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, thawed(0, 1031, 1031, -1, 0)), FENCE_KEEP); /* none */
        /* late by less than SlurmctldTimeout: no freeze that matters */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        struct fence_look l = thawed(0, 1004, 1005, 1, 998); /* another's mark, from before */
        l.overslept_usec = 4 * S;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        /* the order changed meanwhile: the mark's writer has this unit's old index, but it is
         * another machine (its host tells); and this machine's own mark is never another's */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        l = thawed(0, 1031, 1031, 0, 1029);
        l.mark_other = true;
        l.mark_host = "juju-m-1";
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        assert_int_equal(fence_judge(&w, &l, &why), FENCE_KILL);
        assert_non_null(strstr(why.buf, "juju-m-1 took charge meanwhile"));
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        l = thawed(0, 1031, 1031, 1, 1029);
        l.mark_other = false;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        /* a standby's machine frozen: nothing to fence */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 1, 1000, 1000)), FENCE_KEEP);
        assert_int_equal(judge(&w, thawed(1, 1030, 1031, 1, 1029)), FENCE_KEEP);
}

/* The first look after a thaw is an incomplete one (no heartbeat read, no mark yet): the
 * freeze is judged at the next complete look, and forgotten SlurmctldTimeout after it (a CI
 * run saw the freeze lost and the fence given for another reason). */
static void test_frozen_then_incomplete(void **state) {
        struct fence_watch w = { 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        struct fence_look l = thawed(0, 1031, 1031, -1, 0);
        l.have_beat = false;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        l = thawed(0, 1031, 1032, 1, 1030);
        l.overslept_usec = 0;
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        assert_int_equal(fence_judge(&w, &l, &why), FENCE_KILL);
        assert_non_null(strstr(why.buf, "this machine was frozen 30 s"));
        /* the same, but the next complete look comes after SlurmctldTimeout: forgotten */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        l = thawed(0, 1031, 1031, -1, 0);
        l.have_beat = false;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        l = thawed(0, 1040, 1042, 1, 1030);
        l.overslept_usec = 0;
        strbuf_reset(&why);
        assert_int_equal(fence_judge(&w, &l, &why), FENCE_KEEP);
        /* a thaw seen with another process running: a new process knows nothing stale */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1000)), FENCE_KEEP);
        l = thawed(0, 1031, 1031, 1, 1020); /* a mark in the freeze, not a fresh one */
        l.pid = 101;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
}

static void test_lift(void **state) {
        /* another controller in charge: only once it is reachable */
        assert_false(fence_lift_due(1000, true, 1004, 1, 0, 1005, T, false, true));
        assert_true(fence_lift_due(1000, true, 1004, 1, 0, 1005, T, true, true));
        /* no fresh heartbeat of another: SlurmctldTimeout after the fence */
        assert_false(fence_lift_due(1000, true, 990, 0, 0, 1005, T, false, true));
        assert_true(fence_lift_due(1000, true, 990, 0, 0, 1011, T, false, true));
        assert_true(fence_lift_due(1000, false, 0, 0, 0, 1011, T, false, true));
        assert_true(fence_lift_due(1000, true, 980, 1, 0, 1011, T, false, true)); /* another's, stale */
        /* cut off from every other controller's machine: never by the stale heartbeat alone */
        assert_false(fence_lift_due(1000, true, 980, 1, 0, 1011, T, false, false));
        assert_false(fence_lift_due(1000, false, 0, 0, 0, 2000, T, false, false));
        /* the one in charge answers: that is reachable enough */
        assert_true(fence_lift_due(1000, true, 1004, 1, 0, 1005, T, true, false));
}

/* stopped or hung while in charge: killed as its heartbeat reaches SlurmctldTimeout (less a
 * look), before any backup's first beat, so that a continue between two looks cannot win */
static void test_stopped_timeout(void **state) {
        struct fence_watch w = { 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'T', 0, 1000, 1005)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'T', 0, 1000, 1007)), FENCE_KEEP);
        /* T - 2: the memory is the newest yet, no backup takes over before T: told to exit */
        struct fence_look l = look(100, 'T', 0, 1000, 1008);
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        assert_int_equal(fence_judge(&w, &l, &why), FENCE_RELIEVE);
        assert_non_null(strstr(why.buf, "pid 100) stopped while in charge, its heartbeat 8 s old"));
        assert_non_null(strstr(why.buf, "told to save its state and exit"));
        /* T - 1 as well (a look that skipped a second) */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'T', 0, 1000, 1009)), FENCE_RELIEVE);
        assert_int_equal(fence_relief_from(10), 8);
        assert_int_equal(fence_relief_from(3), 2);
        /* seen only at T (a late look): a backup may be taking over, killed */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'T', 0, 1000, 1010)), FENCE_KILL);
        /* a late look at T - 1 (the sentinel overslept): killed */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        l = look(100, 'T', 0, 1000, 1009);
        l.overslept_usec = 2 * S;
        assert_int_equal(judge(&w, l), FENCE_KILL);
        /* a late look at T - 2, then one in time at T - 1: relieved then */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        l = look(100, 'T', 0, 1000, 1008);
        l.overslept_usec = 3 * S;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'T', 0, 1000, 1009)), FENCE_RELIEVE);
        /* another machine's sentinel marked charge since its last beat: killed */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        l = look(100, 'T', 0, 1000, 1009);
        l.have_mark = l.mark_other = true;
        l.mark_index = 1;
        l.mark_time = 1000;
        assert_int_equal(judge(&w, l), FENCE_KILL);
        /* its own sentinel's mark, or another's from before its last beat: relieved */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        l.mark_time = 999;
        assert_int_equal(judge(&w, l), FENCE_RELIEVE);
        /* traced (a debugger holds it: a signal waits for the tracer) or hung: killed */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 't', 0, 1000, 1009)), FENCE_KILL);
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'D', 0, 1000, 1009)), FENCE_KILL);
        /* running with an old beat of its own (a slow disk): not this rule */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1001)), FENCE_KEEP);
        assert_int_equal(judge(&w, look(100, 'S', 0, 1000, 1009)), FENCE_KEEP);
        /* never in charge while this sentinel looked (a standby stopped): nothing */
        w = (struct fence_watch){ 0 };
        assert_int_equal(judge(&w, look(100, 'T', 0, 1000, 1009)), FENCE_KEEP);
}

static enum fence_verdict relief(const struct fence_relief *r, struct fence_look l) {
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        enum fence_verdict v = fence_relief_judge(r, &l, &why);
        assert_true((v == FENCE_KILL) == (why.len > 0));
        assert_true(v != FENCE_RELIEVE);
        return v;
}

/* a relieved slurmctld while it exits: killed after all only when it could save over another's
 * state, was stopped again, stopped beating, or took too long */
static void test_relief(void **state) {
        const struct fence_relief r = { .pid = 100, .since = 1009, .beat_before = 1000 };
        /* exiting, its heartbeat written again on the way */
        assert_int_equal(relief(&r, look(100, 'R', 0, 1009, 1010)), FENCE_KEEP);
        assert_int_equal(relief(&r, look(100, 'S', 0, 1011, 1012)), FENCE_KEEP);
        /* another process or none: not this judge's */
        assert_int_equal(relief(&r, look(0, 0, 0, 1009, 1010)), FENCE_KEEP);
        assert_int_equal(relief(&r, look(101, 'T', 1, 1020, 1020)), FENCE_KEEP);
        /* another controller's beat from before the relief: kept */
        assert_int_equal(relief(&r, look(100, 'R', 1, 995, 1010)), FENCE_KEEP);
        /* another controller took charge while it still runs */
        struct fence_look l = look(100, 'R', 1, 1015, 1015);
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        assert_int_equal(fence_relief_judge(&r, &l, &why), FENCE_KILL);
        assert_non_null(strstr(why.buf, "still ran when controller 1 took charge"));
        /* stopped again, traced */
        assert_int_equal(relief(&r, look(100, 'T', 0, 1010, 1011)), FENCE_KILL);
        assert_int_equal(relief(&r, look(100, 't', 0, 1010, 1011)), FENCE_KILL);
        /* its heartbeat not written since it was let go (stuck in its exit) */
        assert_int_equal(relief(&r, look(100, 'S', 0, 1000, 1010)), FENCE_KILL);
        assert_int_equal(relief(&r, look(100, 'D', 0, 1010, 1018)), FENCE_KEEP);
        assert_int_equal(relief(&r, look(100, 'D', 0, 1009, 1018)), FENCE_KILL);
        /* too long: SlurmctldTimeout (within 5 and 60 s) */
        assert_int_equal(relief(&r, look(100, 'S', 0, 1018, 1018)), FENCE_KEEP);
        assert_int_equal(relief(&r, look(100, 'S', 0, 1019, 1019)), FENCE_KILL);
        assert_int_equal(fence_relief_max_s(10), 10);
        assert_int_equal(fence_relief_max_s(2), 5);
        assert_int_equal(fence_relief_max_s(300), 60);
        /* no relief under way */
        const struct fence_relief none = { 0 };
        assert_int_equal(relief(&none, look(100, 'T', 1, 1015, 1015)), FENCE_KEEP);

        /* the rewind: only the beats its exit wrote, with its index */
        assert_true(fence_rewind_due(&r, true, 1010, 0, 0));
        assert_true(fence_rewind_due(&r, true, 1009, 0, 0));
        assert_false(fence_rewind_due(&r, true, 1000, 0, 0)); /* nothing written since */
        assert_false(fence_rewind_due(&r, true, 1012, 1, 0)); /* another controller's */
        assert_false(fence_rewind_due(&r, false, 1012, 0, 0));
        assert_false(fence_rewind_due(&r, true, 1012, 0, -1));
        assert_false(fence_rewind_due(&none, true, 1012, 0, 0));
}

/* took charge while another machine's sentinel noted charge lately: a return with a memory
 * from before (also seen by a sentinel that was restarted and remembers nothing) */
static void test_took_back(void **state) {
        struct fence_watch w = { 0 };
        struct fence_look l = look(100, 'S', 0, 1030, 1031);
        l.have_mark = true;
        l.mark_other = true;
        l.mark_host = "juju-m-1";
        l.mark_index = 1;
        l.mark_time = 1029;
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        assert_int_equal(fence_judge(&w, &l, &why), FENCE_KILL);
        assert_non_null(strstr(why.buf, "took charge while juju-m-1 was in charge 2 s before"));
        /* the other's last mark older than SlurmctldTimeout/2: a legitimate failover */
        w = (struct fence_watch){ 0 };
        l.mark_time = 1025;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        /* this unit announced a takeover: the other stepped down for it */
        w = (struct fence_watch){ 0 };
        l.mark_time = 1029;
        l.takeover_self = true;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
        /* its own mark */
        w = (struct fence_watch){ 0 };
        l.takeover_self = false;
        l.mark_other = false;
        assert_int_equal(judge(&w, l), FENCE_KEEP);
}

static void test_record(void **state) {
        _cleanup_free_ char *root = test_tmpdir_make("test-charm-fence");
        assert_non_null(root);
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(fence_record_read(&p, NULL, NULL, NULL), 0);
        assert_int_equal(fence_record_write(&p, 1234, 1, "stopped\nwhile x", &e), 0);
        time_t since = 0;
        long idx = -5;
        _cleanup_free_ char *why = NULL;
        assert_int_equal(fence_record_read(&p, &since, &idx, &why), 1);
        assert_int_equal(since, 1234);
        assert_int_equal(idx, 1);
        assert_string_equal(why, "stopped while x");
        /* fence_since: the record there now counts whatever its time */
        _cleanup_free_ char *w1 = NULL, *w2 = NULL, *w3 = NULL, *w4 = NULL;
        assert_int_equal(fence_since(&p, 99999, &w1), 1);
        assert_string_equal(w1, "stopped while x");
        assert_int_equal(fence_record_clear(&p, &e), 0);
        assert_int_equal(fence_record_read(&p, NULL, NULL, NULL), 0);
        /* lifted: it counts from its time on only (a hook's start that began after it was not
         * stopped by it) */
        assert_int_equal(fence_since(&p, 1234, &w2), 1);
        assert_string_equal(w2, "stopped while x (lifted since)");
        assert_int_equal(fence_since(&p, 1235, &w3), 0);
        assert_null(w3);
        assert_int_equal(fence_record_clear(&p, &e), 0);
        assert_int_equal(fence_since(&p, 1000, NULL), 1);
        /* a newer fence, lifted, replaces the older one */
        assert_int_equal(fence_record_write(&p, 2000, -1, "again", &e), 0);
        assert_int_equal(fence_record_clear(&p, &e), 0);
        assert_int_equal(fence_since(&p, 1500, &w4), 1);
        assert_string_equal(w4, "again (lifted since)");
        /* an unreadable record there is a fence */
        _cleanup_free_ char *bad = NULL;
        assert_int_equal(charm_state_note_write(&p, FENCE_FILE, "garbage", false, &e), 0);
        assert_int_equal(fence_since(&p, 99999, &bad), 1);
        assert_string_equal(bad, "unreadable fence record");
        assert_int_equal(fence_record_clear(&p, &e), 0);

        /* the relief's record: what a restarted sentinel takes up again */
        struct fence_relief rel = { 0 };
        assert_int_equal(fence_relief_read(&p, &rel), 0);
        const struct fence_relief w = { .pid = 4242, .since = 1796000000, .beat_before = 1795999990 };
        assert_int_equal(fence_relief_write(&p, &w, &e), 0);
        assert_int_equal(fence_relief_read(&p, &rel), 1);
        assert_int_equal(rel.pid, 4242);
        assert_int_equal(rel.since, 1796000000);
        assert_int_equal(rel.beat_before, 1795999990);
        assert_int_equal(fence_relief_clear(&p, &e), 0);
        assert_int_equal(fence_relief_read(&p, &rel), 0);
        assert_int_equal(fence_relief_clear(&p, &e), 0);
        /* not one: refused */
        assert_int_equal(charm_state_note_write(&p, FENCE_RELIEF_FILE, "0 5 5\n", false, &e), 0);
        assert_int_equal(fence_relief_read(&p, &rel), -EINVAL);
        assert_int_equal(charm_state_note_write(&p, FENCE_RELIEF_FILE, "12 x 5\n", false, &e), 0);
        assert_int_equal(fence_relief_read(&p, &rel), -EINVAL);
        assert_int_equal(charm_state_note_write(&p, FENCE_RELIEF_FILE, "12 5 5", false, &e), 0);
        assert_int_equal(fence_relief_read(&p, &rel), -EINVAL);
        test_tmpdir_remove(TAKE_PTR(root));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stopped),
                cmocka_unit_test(test_not_stale),
                cmocka_unit_test(test_hung),
                cmocka_unit_test(test_frozen_machine),
                cmocka_unit_test(test_frozen_then_incomplete),
                cmocka_unit_test(test_lift),
                cmocka_unit_test(test_stopped_timeout),
                cmocka_unit_test(test_relief),
                cmocka_unit_test(test_took_back),
                cmocka_unit_test(test_record),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
