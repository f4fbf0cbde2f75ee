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
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/macro.h"
#include "charm/slurmd/nodefollow.h"
#include "tmpdir.h"

#define S (1000 * 1000ULL)

/* The first look of a follower at t - 100 s (it asks one run to catch up), and that run taken. */
static void first_look(struct nodefollow *f, const uint32_t *ids, size_t n, uint64_t t) {
        assert_false(nodefollow_note_jobs(f, ids, n, t - 100 * S));
        assert_int_equal(nodefollow_deadline(f), t - 100 * S + NODEFOLLOW_SETTLE_USEC);
        assert_true(nodefollow_take(f, t - 100 * S + NODEFOLLOW_SETTLE_USEC));
        assert_int_equal(nodefollow_deadline(f), 0);
}

/* A Unix socket bound at dir/name, as slurmstepd's (the kernel lists it in /proc/net/unix while
 * the descriptor is open; the file stays after it is closed). */
static int bind_at(const char *dir, const char *name) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s", dir, name);
        assert_true(n > 0 && (size_t) n < sizeof sa.sun_path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof sa), 0);
        assert_int_equal(listen(fd, 4), 0);
        return fd;
}

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

        first_look(&f, one, 1, 100 * S);
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
        first_look(&f, &id, 1, t);
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

        first_look(&f, a, 1, t);
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

/* a look reads the spool directory: a job's socket coming and going is a change, and so is a
 * socket no process has bound any more (a slurmstepd killed with SIGKILL leaves the file); a
 * failed read records nothing */
static void test_look(void **state) {
        const char *dir = *state;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct nodefollow f = NODEFOLLOW_INIT;
        char spool[512], sock[600];
        snprintf(spool, sizeof spool, "%s/spool", dir);

        /* the first look (no directory yet) asks one run */
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, NULL, 10 * S, &err), 4);
        assert_true(f.known);
        assert_int_equal(mkdir(spool, 0700), 0);
        assert_int_equal(test_touch(spool, "cred_state"), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, NULL, 11 * S, &err), 0);
        int s5 = bind_at(spool, "cpu-0_5.4294967291");
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, NULL, 12 * S, &err), 1);
        assert_int_equal(f.n, 1);
        assert_int_equal(f.ids[0], 5);
        int s5b = bind_at(spool, "cpu-0_5.0"); /* another step of the same job: no change */
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, NULL, 13 * S, &err), 0);
        int s6 = bind_at(spool, "cpu-1_6.0"); /* another node's */
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, NULL, 13 * S, &err), 0);
        /* a socket file nobody has bound (what a dead slurmstepd leaves): not a job */
        assert_int_equal(test_touch(spool, "cpu-0_9.4294967291"), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, NULL, 13 * S, &err), 0);
        assert_int_equal(f.n, 1);
        /* the first look's run and the job's, one run */
        assert_true(nodefollow_take(&f, 12 * S + NODEFOLLOW_SETTLE_USEC));

        snprintf(sock, sizeof sock, "%s/cred_state", spool);
        assert_true(nodefollow_look(&f, sock, "cpu-0", NULL, NULL, 14 * S, &err) < 0);
        assert_int_equal(f.n, 1);
        assert_int_equal(nodefollow_deadline(&f), 0);

        /* job 5's slurmstepd killed: its sockets' files stay, the job is gone */
        close(s5);
        close(s5b);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", NULL, NULL, 15 * S, &err), 1);
        assert_int_equal(f.n, 0);
        snprintf(sock, sizeof sock, "%s/cpu-0_5.4294967291", spool);
        assert_int_equal(access(sock, F_OK), 0);
        close(s6);
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

        first_look(&f, a, 1, t);
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
        /* job changes right after new bytes never postpone their run */
        uint64_t t2 = run + 100 * S;
        assert_true(nodefollow_note_conf(&f, &c2, t2));
        assert_true(nodefollow_note_jobs(&f, a, 1, t2 + 1 * S));
        assert_true(nodefollow_note_jobs(&f, b, 1, t2 + 2 * S));
        assert_int_equal(nodefollow_deadline(&f), t2 + NODEFOLLOW_SETTLE_USEC);
        assert_true(nodefollow_take(&f, t2 + NODEFOLLOW_SETTLE_USEC));
        /* the same for a new verdict, once confirmed */
        uint64_t t3 = t2 + 100 * S;
        assert_false(nodefollow_note_verdict(&f, 1, t3));      /* the first: recorded */
        assert_false(nodefollow_note_verdict(&f, 2, t3 + 2 * S)); /* once */
        assert_true(nodefollow_note_verdict(&f, 2, t3 + 4 * S));  /* twice: taken */
        assert_true(nodefollow_note_jobs(&f, a, 1, t3 + 5 * S));
        assert_int_equal(nodefollow_deadline(&f), t3 + 4 * S + NODEFOLLOW_SETTLE_USEC);
        assert_true(nodefollow_take(&f, t3 + 4 * S + NODEFOLLOW_SETTLE_USEC));
        /* a change seen once (3), then a run for another reason that judged 3: rebased on it,
         * the change back (2) is a new verdict, taken once confirmed (before, 2 was still the
         * baseline: no run, and the node that run drained stayed drained) */
        uint64_t t4 = t3 + 100 * S;
        assert_false(nodefollow_note_verdict(&f, 3, t4));
        nodefollow_rebase_verdict(&f, 3);
        assert_false(nodefollow_note_verdict(&f, 2, t4 + 1 * S));
        assert_true(nodefollow_note_verdict(&f, 2, t4 + 2 * S));
        assert_int_equal(nodefollow_deadline(&f), t4 + 2 * S + NODEFOLLOW_SETTLE_USEC);
        nodefollow_done(&f);
}

/* the node's word at slurmctld: the first read records, a new word runs at once, a failed read
 * (NULL) changes nothing */
static void test_state(void **state) {
        struct nodefollow f = NODEFOLLOW_INIT;
        assert_false(nodefollow_note_state(&f, NULL, 10 * S));
        assert_false(nodefollow_note_state(&f, "idle", 10 * S));
        assert_int_equal(nodefollow_deadline(&f), 0);
        assert_false(nodefollow_note_state(&f, "idle", 40 * S));
        assert_false(nodefollow_note_state(&f, NULL, 70 * S));
        assert_true(nodefollow_note_state(&f, "drained (maint)", 100 * S));
        assert_int_equal(nodefollow_deadline(&f), 100 * S);
        assert_true(nodefollow_take(&f, 100 * S));
        assert_true(nodefollow_note_state(&f, "idle", 130 * S));
        assert_true(nodefollow_take(&f, 130 * S));
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
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 1 * S, &err), 4);
        assert_true(nodefollow_take(&f, 1 * S + NODEFOLLOW_SETTLE_USEC));
        write_text(conf, "Prolog=/etc/slurm/scripts/a\n");
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 20 * S, &err), 0); /* first seen */
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 21 * S, &err), 0);
        /* slurmd's fetch: the same bytes by rename */
        write_text(next, "Prolog=/etc/slurm/scripts/a\n");
        assert_int_equal(rename(next, conf), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 22 * S, &err), 0);
        assert_int_equal(nodefollow_deadline(&f), 0);
        /* the program made on the machine: a new verdict, with the same bytes, taken once two
         * looks in a row saw it (as root the file is root's and fine; otherwise it is not root's:
         * another verdict either way) */
        char etc[600], etc_slurm[600], scripts[600], prog[700];
        snprintf(etc, sizeof etc, "%s/etc", dir);
        snprintf(etc_slurm, sizeof etc_slurm, "%s/etc/slurm", dir);
        snprintf(scripts, sizeof scripts, "%s/etc/slurm/scripts", dir);
        snprintf(prog, sizeof prog, "%s/a", scripts);
        assert_int_equal(mkdir(etc, 0755), 0);
        assert_int_equal(mkdir(etc_slurm, 0755), 0);
        assert_int_equal(mkdir(scripts, 0755), 0);
        write_text(prog, "#!/bin/sh\n");
        assert_int_equal(chmod(prog, 0755), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 23 * S, &err), 0); /* once */
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 25 * S, &err), 8);
        assert_int_equal(nodefollow_deadline(&f), 25 * S + NODEFOLLOW_SETTLE_USEC);
        assert_true(nodefollow_take(&f, 25 * S + NODEFOLLOW_SETTLE_USEC));
        /* a state seen on one look only (a file caught half-way through a replacement) is none */
        assert_int_equal(chmod(prog, 0757), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 40 * S, &err), 0);
        assert_int_equal(chmod(prog, 0755), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 42 * S, &err), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 44 * S, &err), 0);
        assert_int_equal(nodefollow_deadline(&f), 0);
        /* new bytes: new content at once, and a new verdict (another program missing) at the
         * next look */
        write_text(next, "Prolog=/etc/slurm/scripts/b\n");
        assert_int_equal(rename(next, conf), 0);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 100 * S, &err), 2);
        assert_int_equal(nodefollow_look(&f, spool, "cpu-0", conf, dir, 102 * S, &err), 8);
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
                cmocka_unit_test(test_state),
                cmocka_unit_test_setup_teardown(test_conf_read_and_look, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
