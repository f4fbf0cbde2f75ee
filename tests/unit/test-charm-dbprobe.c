/* SPDX-License-Identifier: Apache-2.0 */
/* charm/slurmdbd/dbprobe: the slurmdbd unit's bounded login to its database, against loopback
 * servers that do what a database in trouble does: nothing listening, a stalled server (the
 * kernel accepts, nobody greets), a server that refuses the host (an error packet first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmdbd/dbprobe.h"
#include "loopback.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "util/banned.h"

static int64_t mono_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_target_parse(void **state) {
        char conf[] = "# slurmdbd.conf\nDbdHost=juju-m-1\nStorageHost=10.0.0.9\nStoragePort=3307\n"
                      "StorageUser=slurm_1\nStoragePass=s3cr=t\nStorageLoc=slurm_acct_db\nSlurmUser=slurm\n";
        struct dbprobe_target t;
        assert_int_equal(dbprobe_target_parse(conf, &t), 0);
        assert_string_equal(t.host, "10.0.0.9");
        assert_int_equal(t.port, 3307);
        assert_string_equal(t.user, "slurm_1");
        assert_string_equal(t.password, "s3cr=t");
        assert_string_equal(t.database, "slurm_acct_db");
        char noport[] = "StorageHost=db\nStorageUser=u\nStoragePass=p\n";
        assert_int_equal(dbprobe_target_parse(noport, &t), 0);
        assert_int_equal(t.port, 3306);
        assert_null(t.database);
        char nopass[] = "StorageHost=db\nStorageUser=u\n";
        assert_int_equal(dbprobe_target_parse(nopass, &t), -EINVAL);
        /* a key that only begins like one is not it */
        char prefix[] = "StorageHostX=db\nStorageUser=u\nStoragePass=p\n";
        assert_int_equal(dbprobe_target_parse(prefix, &t), -EINVAL);
}

static void test_nothing_listens(void **state) {
        int port = 0, fd = loopback_listen(&port);
        assert_true(fd >= 0);
        close(fd); /* the port is free again: refused */
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct dbprobe_target t = { "127.0.0.1", (unsigned) port, "u", "p", NULL };
        assert_int_equal(dbprobe_login(&t, 1, &err), -ECONNREFUSED);
        assert_true(err.len > 0);
        strbuf_reset(&err);
        const struct dbprobe_target bad = { "127.0.0.1", (unsigned) port, NULL, "p", NULL };
        assert_int_equal(dbprobe_login(&bad, 1, &err), -EINVAL);
}

/* the kernel completes the connect (backlog), nobody ever sends the greeting */
static void test_stalled(void **state) {
        int port = 0, fd = loopback_listen(&port);
        assert_true(fd >= 0);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct dbprobe_target t = { "127.0.0.1", (unsigned) port, "u", "p", NULL };
        int64_t t0 = mono_ms();
        assert_int_equal(dbprobe_login(&t, 1, &err), -ETIMEDOUT);
        int64_t took = mono_ms() - t0;
        print_message("stalled server: -ETIMEDOUT after %lld ms (%s)\n", (long long) took, err.buf);
        assert_true(took < 10 * 1000);
        close(fd);
}

/* a server that refuses the host before any greeting: its ERR packet's words come back */
static void test_refused(void **state) {
        int port = 0, fd = loopback_listen(&port);
        assert_true(fd >= 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                static const char msg[] = "Host '127.0.0.1' is blocked because of many connection errors";
                unsigned char pkt[128];
                size_t n = 3 + 2 + sizeof msg - 1; /* 0xff, code, message */
                int c = accept(fd, NULL, NULL);
                pkt[0] = (unsigned char) n;
                pkt[1] = pkt[2] = 0;
                pkt[3] = 0;
                pkt[4] = 0xff;
                pkt[5] = 1129 & 0xff;
                pkt[6] = 1129 >> 8;
                memcpy(pkt + 7, msg, sizeof msg - 1);
                (void) !write(c, pkt, 4 + n);
                sleep(2);
                _exit(0);
        }
        close(fd);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct dbprobe_target t = { "127.0.0.1", (unsigned) port, "u", "p", NULL };
        assert_int_equal(dbprobe_login(&t, 2, &err), -EACCES);
        assert_non_null(strstr(err.buf, "1129"));
        assert_non_null(strstr(err.buf, "is blocked"));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_target_parse),
                cmocka_unit_test(test_nothing_listens),
                cmocka_unit_test(test_stalled),
                cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
