/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/ha: the stable controller order, the shared-state markers and the
 * takeover announcement under a test directory, the heartbeat file's format, the role line.
 * Failover, takeover and removal with real daemons are in tests/cluster/charm-ha.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/ha.h"
#include "util/fileio.h"
#include "tmpdir.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "util/banned.h"

static char dir[] = "/tmp/test-ha.XXXXXX";

static int setup(void **state) {
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
        /* everything the tests wrote (markers, notes, temporaries of atomic writes) */
        return test_tmpdir_remove(xstrdup(dir));
}

static void words(struct strv *v, const char *s) {
        strv_clear(v);
        _cleanup_free_ char *c = xstrdup(s);
        char *save = NULL;
        for (char *w = strtok_r(c, " ", &save); w; w = strtok_r(NULL, " ", &save))
                strv_push(v, w);
}

static void expect_order(const char *order, const char *present, const char *admissible, const char *first,
        const char *want) {
        _cleanup_strv_ struct strv o = STRV_INIT, p = STRV_INIT, a = STRV_INIT, ret = STRV_INIT;
        words(&o, order);
        words(&p, present);
        words(&a, admissible);
        ha_order_next(&o, &p, &a, first, &ret);
        _cleanup_free_ char *got = strv_join(&ret, " ");
        assert_string_equal(got, want);
}

static void test_order(void **state) {
        /* the first unit, then new ones appended by unit number (not by name) */
        expect_order("", "c/0", "c/0", NULL, "c/0");
        expect_order("c/0", "c/0 c/10 c/2", "c/0 c/10 c/2", NULL, "c/0 c/2 c/10");
        /* a unit keeps its place when others come and go; a leader change reorders nothing */
        expect_order("c/3 c/1 c/2", "c/1 c/2 c/3", "c/1", NULL, "c/3 c/1 c/2");
        expect_order("c/3 c/1 c/2", "c/3 c/2", "c/3 c/2", NULL, "c/3 c/2");
        expect_order("c/3 c/1 c/2", "c/3 c/1 c/2 c/4", "c/4", NULL, "c/3 c/1 c/2 c/4");
        /* only admissible units join (their state directory proven shared) */
        expect_order("c/0", "c/0 c/1 c/2", "c/2", NULL, "c/0 c/2");
        /* a takeover moves a unit first, only one that is a controller or may be one */
        expect_order("c/0 c/1 c/2", "c/0 c/1 c/2", "", "c/2", "c/2 c/0 c/1");
        expect_order("c/0", "c/0 c/1", "", "c/1", "c/0");
        expect_order("c/0 c/1", "c/0", "c/0", "c/1", "c/0");
        /* at most HA_MAX_CONTROLLERS */
        expect_order("", "c/0 c/1 c/2 c/3 c/4 c/5 c/6 c/7 c/8 c/9",
                "c/0 c/1 c/2 c/3 c/4 c/5 c/6 c/7 c/8 c/9", NULL, "c/0 c/1 c/2 c/3 c/4 c/5 c/6 c/7");
}

static void test_markers(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const char *tok = "0123456789abcdef0123456789abcdef";
        assert_int_equal(ha_marker_seen(dir, "slurmctld/0", tok), 0);
        assert_int_equal(ha_marker_write(dir, "slurmctld/0", tok, getuid(), getgid(), &err), 1);
        assert_int_equal(ha_marker_write(dir, "slurmctld/0", tok, getuid(), getgid(), &err), 0); /* there */
        assert_int_equal(ha_marker_seen(dir, "slurmctld/0", tok), 1);
        /* another token, another unit, an empty token: not seen */
        assert_int_equal(ha_marker_seen(dir, "slurmctld/0", "ffffffffffffffffffffffffffffffff"), 0);
        assert_int_equal(ha_marker_seen(dir, "slurmctld/1", tok), 0);
        assert_int_equal(ha_marker_seen(dir, "slurmctld/0", ""), 0);
        /* private to SlurmUser (root here) */
        _cleanup_free_ char *p = xasprintf("%s/charm-markers/slurmctld-0", dir);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);

        _cleanup_free_ char *unit = NULL;
        time_t t;
        assert_int_equal(ha_takeover_read(dir, &unit, &t), -ENOENT);
        assert_int_equal(ha_takeover_mark(dir, "slurmctld/1", getuid(), getgid(), &err), 0);
        assert_int_equal(ha_takeover_read(dir, &unit, &t), 0);
        assert_string_equal(unit, "slurmctld/1");
        assert_true(t > 0 && t <= time(NULL));

        /* the sentinels' charge mark (charm/slurmctld/fence.h) */
        long idx = -1;
        char *host = NULL;
        assert_int_equal(ha_charge_mark_read(dir, &idx, &t, &host), -ENOENT);
        assert_int_equal(ha_charge_mark_write(dir, 1, "juju-m-1", 1234, getuid(), getgid(), &err), 0);
        assert_int_equal(ha_charge_mark_read(dir, &idx, &t, &host), 0);
        assert_int_equal(idx, 1);
        assert_int_equal(t, 1234);
        assert_string_equal(host, "juju-m-1");
        free(host);
        assert_int_equal(ha_charge_mark_write(dir, 0, "juju-m-2", 1240, getuid(), getgid(), &err), 0);
        assert_int_equal(ha_charge_mark_read(dir, &idx, &t, NULL), 0);
        assert_int_equal(idx, 0);
        /* a mark of an older charm: no host */
        _cleanup_free_ char *cm = xasprintf("%s/charm-markers/charge", dir);
        assert_int_equal(write_file_atomic(cm, "2 1300\n", 7, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(ha_charge_mark_read(dir, &idx, &t, &host), 0);
        assert_int_equal(idx, 2);
        assert_null(host);
        assert_int_equal(write_file_atomic(cm, "x\n", 2, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(ha_charge_mark_read(dir, &idx, &t, NULL), -EINVAL);
}

static void test_charge_note(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *p = xasprintf("%s/in-charge", dir), *data = NULL;
        /* none recorded counts as not in charge: a backup's first look records it, says nothing */
        assert_int_equal(ha_charge_note(dir, false, 100, &err), 0);
        assert_int_equal(read_full_file(p, &data, NULL), 0);
        assert_string_equal(data, "0 100\n");
        /* it takes charge in that activation (a failover, a takeover): told once */
        assert_int_equal(ha_charge_note(dir, true, 100, &err), 1);
        assert_int_equal(ha_charge_note(dir, true, 100, &err), 0);
        /* it loses charge and takes it again: told again */
        assert_int_equal(ha_charge_note(dir, false, 100, &err), 0);
        assert_int_equal(ha_charge_note(dir, false, 100, &err), 0);
        assert_int_equal(ha_charge_note(dir, true, 100, &err), 1);
        /* in charge in a new activation with no look in between (a paused primary resumed, a
         * failback after a crash): told */
        assert_int_equal(ha_charge_note(dir, true, 250, &err), 1);
        assert_int_equal(ha_charge_note(dir, true, 250, &err), 0);
        /* not in charge in a new activation: recorded, nothing told */
        assert_int_equal(ha_charge_note(dir, false, 300, &err), 0);
        assert_int_equal(ha_charge_note(dir, false, 300, &err), 0);
        /* a first look that finds it in charge is told */
        assert_int_equal(unlink(p), 0);
        assert_int_equal(ha_charge_note(dir, true, 300, &err), 1);
        /* a broken record counts as not in charge */
        assert_int_equal(write_file_atomic(p, "x", 1, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(ha_charge_note(dir, true, 300, &err), 1);
        /* a record that cannot be read is an error, with its path (here: the state dir is a file) */
        assert_int_equal(ha_charge_note(p, true, 300, &err), -ENOTDIR);
        assert_non_null(strstr(err.buf, "in-charge/in-charge"));
}

static void test_heartbeat(void **state) {
        /* slurmctld 22.05's format: time then index, each 8 bytes big-endian */
        unsigned char b[16] = { 0 };
        uint64_t when = 1795449325, idx = 2;
        for (int i = 0; i < 8; i++) {
                b[7 - i] = (unsigned char) (when >> (8 * i));
                b[15 - i] = (unsigned char) (idx >> (8 * i));
        }
        _cleanup_free_ char *p = xasprintf("%s/heartbeat", dir);
        time_t t;
        uint64_t got;
        assert_int_equal(ha_heartbeat_read(dir, &t, &got), -ENOENT);
        assert_int_equal(write_file_atomic(p, (const char *) b, sizeof b, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(ha_heartbeat_read(dir, &t, &got), 0);
        assert_int_equal(t, (time_t) when);
        assert_int_equal(got, idx);
        /* the fence's rewind writes it as slurmctld does: the same 16 bytes */
        assert_int_equal(ha_heartbeat_write(dir, (time_t) when, idx, (uid_t) -1, (gid_t) -1), 0);
        _cleanup_free_ char *again = NULL;
        size_t n = 0;
        assert_int_equal(read_full_file(p, &again, &n), 0);
        assert_int_equal(n, sizeof b);
        assert_memory_equal(again, b, sizeof b);
        assert_int_equal(write_file_atomic(p, "short", 5, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(ha_heartbeat_read(dir, &t, &got), -EINVAL);
        /* slurmctld's beat between its unlink of heartbeat and its link of heartbeat.new: the
         * new beat is read there (before: -ENOENT, "none in charge") */
        assert_int_equal(unlink(p), 0);
        _cleanup_free_ char *pn = xasprintf("%s/heartbeat.new", dir);
        b[15] = 1; /* index 1 */
        assert_int_equal(write_file_atomic(pn, (const char *) b, sizeof b, 0600, (uid_t) -1, (gid_t) -1), 0);
        t = 0;
        got = 0;
        assert_int_equal(ha_heartbeat_read(dir, &t, &got), 0);
        assert_int_equal(t, (time_t) when);
        assert_int_equal(got, 1);
        /* then linked, heartbeat.new not yet unlinked: one file of two names (st_nlink 2), read */
        assert_int_equal(link(pn, p), 0);
        t = 0;
        got = 0;
        assert_int_equal(ha_heartbeat_read(dir, &t, &got), 0);
        assert_int_equal(t, (time_t) when);
        assert_int_equal(got, 1);
        /* a second link of another name is no beat of slurmctld's */
        assert_int_equal(unlink(pn), 0);
        _cleanup_free_ char *po = xasprintf("%s/other", dir);
        assert_int_equal(link(p, po), 0);
        assert_int_equal(ha_heartbeat_read(dir, &t, &got), -EMLINK);
        assert_int_equal(unlink(po), 0);
        assert_int_equal(unlink(p), 0);
        /* heartbeat.new half written with no heartbeat: none */
        assert_int_equal(write_file_atomic(pn, "12345678", 8, 0600, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(ha_heartbeat_read(dir, &t, &got), -ENOENT);
        assert_int_equal(unlink(pn), 0);
}

static void test_role(void **state) {
        char *hosts[] = { "m-0", "m-1", "m-2" };
        struct {
                long self, boss;
                const char *want;
        } cases[] = {
                { 0, 0, "primary, in charge" },
                { 1, 0, "backup 1, m-0 in charge" },
                { 1, 1, "backup 1, in charge" },
                { 0, 2, "primary, m-2 in charge" },
                { 2, -1, "backup 2, none in charge" },
                { -1, 0, "not a controller yet" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                ha_role_message(cases[i].self, cases[i].boss, hosts, 3, &out);
                assert_string_equal(out.buf, cases[i].want);
        }
        /* the application's line */
        static const struct {
                long boss;
                size_t n;
                const char *want;
        } app[] = {
                { 0, 3, "3 controllers, m-0 in charge" },
                { 2, 3, "3 controllers, m-2 in charge" },
                { -1, 3, "3 controllers, none in charge" },
                { 3, 3, "3 controllers, none in charge" }, /* not an index of the list */
                { 1, 2, "2 controllers, m-1 in charge" },
                { 0, 1, "1 controller, m-0 in charge" },
        };
        for (size_t i = 0; i < ELEMENTSOF(app); i++) {
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                ha_app_message(app[i].boss, hosts, app[i].n, &out);
                assert_string_equal(out.buf, app[i].want);
        }
}

/* who a leaving unit hands control to */
static void test_leave_successor(void **state) {
        const bool all[] = { true, true, true }, first_down[] = { false, true, true },
                   only_self[] = { true, false, false }, none[] = { false, false, false };
        /* the primary: the first backup that answers, whatever a heartbeat says */
        assert_int_equal(ha_leave_successor(0, false, all, 3), 1);
        assert_int_equal(ha_leave_successor(0, true, all, 3), 1);
        assert_int_equal(ha_leave_successor(0, false, (const bool[]){ true, false, true }, 3), 2);
        assert_int_equal(ha_leave_successor(0, false, only_self, 3), -1);
        assert_int_equal(ha_leave_successor(0, false, all, 1), -1); /* the only controller */
        /* a backup whose slurmctld is in charge: another backup, never the primary */
        assert_int_equal(ha_leave_successor(1, true, first_down, 3), 2);
        assert_int_equal(ha_leave_successor(1, true, all, 3), 2);
        assert_int_equal(ha_leave_successor(2, true, all, 3), 1);
        assert_int_equal(ha_leave_successor(1, true, (const bool[]){ true, true, false }, 3), -1);
        assert_int_equal(ha_leave_successor(1, true, none, 3), -1);
        /* a backup in standby: nothing to hand over */
        assert_int_equal(ha_leave_successor(1, false, all, 3), -1);
        assert_int_equal(ha_leave_successor(2, false, all, 3), -1);
        /* not in the order */
        assert_int_equal(ha_leave_successor(-1, true, all, 3), -1);
        assert_int_equal(ha_leave_successor(3, true, all, 3), -1);
}

/* a controller in charge behind this one in the order: this one must not start */
static void test_charge_behind(void **state) {
        (void) state;
        _cleanup_(strv_clear) struct strv c = STRV_INIT;
        strv_push(&c, "ctl-0(10.0.0.1)");
        strv_push(&c, "ctl-1(10.0.0.2)");
        strv_push(&c, "ctl-10(10.0.0.3)");
        assert_true(ha_charge_behind(&c, "ctl-0", "ctl-1"));
        assert_true(ha_charge_behind(&c, "ctl-0", "ctl-10"));
        assert_true(ha_charge_behind(&c, "ctl-1", "ctl-10"));
        /* the one in charge ahead, or this one itself */
        assert_false(ha_charge_behind(&c, "ctl-1", "ctl-0"));
        assert_false(ha_charge_behind(&c, "ctl-10", "ctl-1"));
        assert_false(ha_charge_behind(&c, "ctl-1", "ctl-1"));
        /* a name that is only a prefix of an entry, names not listed, no mark host */
        assert_false(ha_charge_behind(&c, "ctl-0", "ctl"));
        assert_false(ha_charge_behind(&c, "ctl", "ctl-1"));
        assert_false(ha_charge_behind(&c, "ctl-0", "other"));
        assert_false(ha_charge_behind(&c, "ctl-0", NULL));
        assert_false(ha_charge_behind(&c, NULL, "ctl-1"));
        /* entries without an address */
        _cleanup_(strv_clear) struct strv bare = STRV_INIT;
        strv_push(&bare, "a");
        strv_push(&bare, "b");
        assert_true(ha_charge_behind(&bare, "a", "b"));
        assert_false(ha_charge_behind(&bare, "b", "a"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_order),
                cmocka_unit_test(test_markers),
                cmocka_unit_test(test_charge_note),
                cmocka_unit_test(test_heartbeat),
                cmocka_unit_test(test_role),
                cmocka_unit_test(test_leave_successor),
                cmocka_unit_test(test_charge_behind),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
