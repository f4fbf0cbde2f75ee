/* SPDX-License-Identifier: Apache-2.0 */
/* lib/charm/nodefollow: when a change of the machine's jobs or fetched slurm.conf asks for a
 * handler run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/macro.h"
#include "charm/nodefollow.h"
#include "tmpdir.h"

#define S (1000 * 1000ULL)

static void test_wanted(void **state) {
        assert_true(nodefollow_wanted("slurmd.service"));
        assert_false(nodefollow_wanted("slurmctld.service"));
        assert_false(nodefollow_wanted("munge.service"));
        assert_false(nodefollow_wanted(NULL));
}

/* the first look records; a change runs SETTLE later, once for a burst */
static void test_settle_and_burst(void **state) {
        struct nodefollow f = NODEFOLLOW_INIT;
        const uint32_t none[1] = { 0 }, one[] = { 7 }, two[] = { 7, 9 };

        assert_false(nodefollow_note_jobs(&f, one, 1, 100 * S));
        assert_int_equal(nodefollow_deadline(&f), 0);
        assert_false(nodefollow_take(&f, 200 * S));
        assert_false(nodefollow_note_jobs(&f, one, 1, 101 * S)); /* the same set */
        assert_int_equal(nodefollow_deadline(&f), 0);

        assert_true(nodefollow_note_jobs(&f, two, 2, 102 * S));
        assert_int_equal(nodefollow_deadline(&f), 102 * S + NODEFOLLOW_SETTLE_USEC);
        /* a later change of the burst joins the same run, at its own settle time */
        assert_true(nodefollow_note_jobs(&f, none, 0, 103 * S));
        assert_int_equal(nodefollow_deadline(&f), 103 * S + NODEFOLLOW_SETTLE_USEC);
        assert_false(nodefollow_take(&f, 103 * S + NODEFOLLOW_SETTLE_USEC - 1));
        assert_true(nodefollow_take(&f, 103 * S + NODEFOLLOW_SETTLE_USEC));
        assert_false(nodefollow_take(&f, 110 * S)); /* once */
        assert_int_equal(nodefollow_deadline(&f), 0);
        assert_int_equal(f.n, 0);
        nodefollow_done(&f);
}

/* a stream of changes: the run comes no later than GAP after the first one */
static void test_stream(void **state) {
        struct nodefollow f = NODEFOLLOW_INIT;
        uint64_t t = 2000 * S;
        uint32_t id = 1;
        nodefollow_note_jobs(&f, &id, 1, t);
        for (unsigned i = 1; i <= 30; i++) {
                id = i + 1;
                assert_true(nodefollow_note_jobs(&f, &id, 1, t + i * S / 2));
                assert_true(nodefollow_deadline(&f) <= t + S / 2 + NODEFOLLOW_GAP_USEC);
        }
        assert_int_equal(nodefollow_deadline(&f), t + S / 2 + NODEFOLLOW_GAP_USEC);
        nodefollow_done(&f);
}

/* runs are GAP apart; the last change of a stream is always run */
static void test_gap(void **state) {
        struct nodefollow f = NODEFOLLOW_INIT;
        const uint32_t a[] = { 1 }, b[] = { 2 }, c[] = { 3 };
        uint64_t t = 1000 * S;

        nodefollow_note_jobs(&f, a, 1, t);
        assert_true(nodefollow_note_jobs(&f, b, 1, t + 1 * S));
        uint64_t run1 = t + 1 * S + NODEFOLLOW_SETTLE_USEC;
        assert_true(nodefollow_take(&f, run1));
        /* a change right after a run waits for the gap, not just the settle time */
        assert_true(nodefollow_note_jobs(&f, c, 1, run1 + 1 * S));
        assert_int_equal(nodefollow_deadline(&f), run1 + NODEFOLLOW_GAP_USEC);
        assert_false(nodefollow_take(&f, run1 + NODEFOLLOW_GAP_USEC - 1));
        assert_true(nodefollow_take(&f, run1 + NODEFOLLOW_GAP_USEC));
        /* long after, the settle time alone counts */
        uint64_t late = run1 + 10 * NODEFOLLOW_GAP_USEC;
        assert_true(nodefollow_note_jobs(&f, a, 1, late));
        assert_int_equal(nodefollow_deadline(&f), late + NODEFOLLOW_SETTLE_USEC);
        nodefollow_done(&f);
}

/* a look reads the spool directory: a job's socket coming and going is a change; a failed
 * read records nothing */
static void test_look(void **state) {
        const char *dir = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct nodefollow f = NODEFOLLOW_INIT;
        char spool[512], sock[600];
        snprintf(spool, sizeof spool, "%s/spool", dir);

        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, 10 * S, &err), 0); /* no directory yet */
        assert_true(f.known);
        assert_int_equal(mkdir(spool, 0700), 0);
        assert_int_equal(test_touch(spool, "cred_state"), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, 11 * S, &err), 0);
        assert_int_equal(test_touch(spool, "cpu-0_5.4294967291"), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, 12 * S, &err), 1);
        assert_int_equal(f.n, 1);
        assert_int_equal(f.ids[0], 5);
        assert_int_equal(test_touch(spool, "cpu-0_5.0"), 0); /* another step of the same job: no change */
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, 13 * S, &err), 0);
        assert_int_equal(test_touch(spool, "cpu-1_6.0"), 0); /* another node's */
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, 13 * S, &err), 0);
        assert_true(nodefollow_take(&f, 12 * S + NODEFOLLOW_SETTLE_USEC));

        snprintf(sock, sizeof sock, "%s/cred_state", spool);
        assert_true(nodefollow_look(&f, sock, "cpu-0", NULL, 14 * S, &err) < 0);
        assert_int_equal(f.n, 1);
        assert_int_equal(nodefollow_deadline(&f), 0);

        snprintf(sock, sizeof sock, "%s/cpu-0_5.4294967291", spool);
        assert_int_equal(unlink(sock), 0);
        snprintf(sock, sizeof sock, "%s/cpu-0_5.0", spool);
        assert_int_equal(unlink(sock), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, 15 * S, &err), 1);
        assert_int_equal(f.n, 0);
        nodefollow_done(&f);
}

/* new bytes in the fetched slurm.conf run soon, past the gap, and bring a pending job run
 * forward; the same bytes again (a restart's fetch) and a missing file run nothing */
static void test_conf(void **state) {
        struct nodefollow f = NODEFOLLOW_INIT;
        const uint32_t a[] = { 1 }, b[] = { 2 };
        const struct nodefollow_conf c1 = { .present = true, .ino = 10, .hash = 111 },
                                     c1_again = { .present = true, .ino = 11, .hash = 111 },
                                     c2 = { .present = true, .ino = 12, .hash = 222 }, gone = { .present = false };
        uint64_t t = 500 * S;

        assert_false(nodefollow_note_conf(&f, &gone, t)); /* slurmd not started yet */
        assert_false(f.conf_known);
        assert_false(nodefollow_note_conf(&f, &c1, t)); /* the first look */
        assert_false(nodefollow_note_conf(&f, &gone, t + 1)); /* a restart removed it */
        assert_false(nodefollow_note_conf(&f, &c1_again, t + 2)); /* and wrote the same bytes */
        assert_int_equal(nodefollow_deadline(&f), 0);
        assert_true(nodefollow_note_conf(&f, &c2, t + 1 * S));
        assert_int_equal(nodefollow_deadline(&f), t + 1 * S + NODEFOLLOW_SETTLE_USEC);
        assert_true(nodefollow_take(&f, t + 1 * S + NODEFOLLOW_SETTLE_USEC));
        uint64_t run = t + 1 * S + NODEFOLLOW_SETTLE_USEC;
        /* right after a run: a job change waits for the gap, new bytes do not */
        nodefollow_note_jobs(&f, a, 1, run);
        assert_true(nodefollow_note_jobs(&f, b, 1, run + 1 * S));
        assert_int_equal(nodefollow_deadline(&f), run + NODEFOLLOW_GAP_USEC);
        assert_true(nodefollow_note_conf(&f, &c1, run + 2 * S));
        assert_int_equal(nodefollow_deadline(&f), run + 2 * S + NODEFOLLOW_SETTLE_USEC);
        assert_true(nodefollow_take(&f, run + 2 * S + NODEFOLLOW_SETTLE_USEC));
        assert_int_equal(nodefollow_deadline(&f), 0);
        nodefollow_done(&f);
}

static void write_text(const char *path, const char *text) {
        FILE *fp = fopen(path, "we");
        assert_non_null(fp);
        fputs(text, fp);
        assert_int_equal(fclose(fp), 0);
}

static void test_conf_read_and_look(void **state) {
        const char *dir = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct nodefollow f = NODEFOLLOW_INIT;
        struct nodefollow_conf c = { .present = true }, d;
        char conf[512], next[600], spool[512];
        snprintf(conf, sizeof conf, "%s/slurm.conf", dir);
        snprintf(next, sizeof next, "%s/slurm.conf.new", dir);
        snprintf(spool, sizeof spool, "%s/spool", dir);

        assert_int_equal(nodefollow_conf_read(conf, NULL, &c, &err), 0);
        assert_false(c.present);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, 1 * S, &err), 0);
        write_text(conf, "Prolog=/etc/slurm/scripts/a\n");
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, 2 * S, &err), 0); /* first seen */
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, 3 * S, &err), 0);
        /* slurmd's fetch: the same bytes by rename */
        write_text(next, "Prolog=/etc/slurm/scripts/a\n");
        assert_int_equal(rename(next, conf), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, 4 * S, &err), 0);
        assert_int_equal(nodefollow_deadline(&f), 0);
        /* new bytes */
        write_text(next, "Prolog=/etc/slurm/scripts/b\n");
        assert_int_equal(rename(next, conf), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, 5 * S, &err), 2);
        /* an unchanged identity is not read again */
        assert_int_equal(nodefollow_conf_read(conf, &f.conf, &d, &err), 0);
        assert_true(d.hash == f.conf.hash && d.ino == f.conf.ino);
        struct nodefollow_conf fake = f.conf;
        fake.hash = 7;
        assert_int_equal(nodefollow_conf_read(conf, &fake, &d, &err), 0);
        assert_true(d.hash == 7);
        /* a path under a file (ENOTDIR) is a file that is not there */
        snprintf(next, sizeof next, "%s/slurm.conf/x", dir);
        assert_int_equal(nodefollow_conf_read(next, NULL, &d, &err), 0);
        assert_false(d.present);
        assert_int_equal(err.len, 0);
        nodefollow_done(&f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_wanted),
                cmocka_unit_test(test_settle_and_burst),
                cmocka_unit_test(test_gap),
                cmocka_unit_test_setup_teardown(test_look, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test(test_stream),
                cmocka_unit_test(test_conf),
                cmocka_unit_test_setup_teardown(test_conf_read_and_look, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
