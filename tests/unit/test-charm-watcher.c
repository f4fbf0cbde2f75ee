/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/watcher: coalescing of ActiveState changes, the handler's argv and
 * status messages, and the unit file (rendering from templates/, writing under a test root). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/watcher.h"
#include "util/fileio.h"

#include <ftw.h>
#include <sys/stat.h>

#include "util/banned.h"

#define W 20000 /* coalescing window in the tests, µs */

/* --- coalescing -------------------------------------------------------------------------------- */

static void test_coalesce_quiet(void **state) {
        struct watcher_coalesce c;
        char s[UNIT_STATE_STRMAX];

        watcher_coalesce_init(&c, W, "active", false, 1000);
        assert_int_equal(watcher_coalesce_deadline(&c), 0);
        assert_false(watcher_coalesce_take(&c, 1000000, s));
        /* the same state again is no change */
        assert_false(watcher_coalesce_note(&c, "active", 2000));
        assert_int_equal(watcher_coalesce_deadline(&c), 0);
        assert_false(watcher_coalesce_take(&c, 1000000, s));
}

static void test_coalesce_burst(void **state) {
        struct watcher_coalesce c;
        char s[UNIT_STATE_STRMAX] = "";

        watcher_coalesce_init(&c, W, "active", false, 1000);
        assert_true(watcher_coalesce_note(&c, "failed", 100000));
        assert_int_equal(watcher_coalesce_deadline(&c), 100000 + W);
        /* a burst does not push the run later: the first change waits at most the window */
        assert_true(watcher_coalesce_note(&c, "activating", 110000));
        assert_true(watcher_coalesce_note(&c, "deactivating", 119000));
        assert_int_equal(watcher_coalesce_deadline(&c), 100000 + W);
        assert_false(watcher_coalesce_take(&c, 100000 + W - 1, s));
        assert_string_equal(s, "");
        assert_true(watcher_coalesce_take(&c, 100000 + W, s));
        assert_string_equal(s, "deactivating"); /* the latest */
        assert_int_equal(watcher_coalesce_deadline(&c), 0);
        assert_false(watcher_coalesce_take(&c, 200000, s));
}

static void test_coalesce_during_run(void **state) {
        struct watcher_coalesce c;
        char s[UNIT_STATE_STRMAX];

        watcher_coalesce_init(&c, W, "active", false, 0);
        assert_true(watcher_coalesce_note(&c, "activating", 1000));
        assert_true(watcher_coalesce_take(&c, 1000 + W, s));
        assert_string_equal(s, "activating");
        /* changes while the handler ran (dispatched after it): ONE more run, with the latest */
        assert_true(watcher_coalesce_note(&c, "inactive", 5000000));
        assert_true(watcher_coalesce_note(&c, "active", 5000000));
        assert_true(watcher_coalesce_take(&c, 5000000 + W, s));
        assert_string_equal(s, "active");
        assert_false(watcher_coalesce_take(&c, 9000000, s));
        /* flapping back to the state of the last run still gives a run (the handler reads the
         * current state itself; a restart in between may have changed what it should say) */
        assert_true(watcher_coalesce_note(&c, "activating", 10000000));
        assert_true(watcher_coalesce_note(&c, "active", 10001000));
        assert_true(watcher_coalesce_take(&c, 10000000 + W, s));
        assert_string_equal(s, "active");
}

static void test_coalesce_initial_and_retry(void **state) {
        struct watcher_coalesce c;
        char s[UNIT_STATE_STRMAX];

        /* a daemon that is not active when the watcher starts: a run is due at once */
        watcher_coalesce_init(&c, W, "failed", true, 7000);
        assert_int_equal(watcher_coalesce_deadline(&c), 7000);
        assert_true(watcher_coalesce_take(&c, 7000, s));
        assert_string_equal(s, "failed");

        /* a retry is due after its delay; an earlier due time wins */
        watcher_coalesce_retry(&c, 1000000, 10000);
        assert_int_equal(watcher_coalesce_deadline(&c), 1010000);
        assert_true(watcher_coalesce_note(&c, "activating", 20000));
        assert_int_equal(watcher_coalesce_deadline(&c), 1010000); /* already pending */
        watcher_coalesce_retry(&c, 10, 30000);
        assert_int_equal(watcher_coalesce_deadline(&c), 30010);
        watcher_coalesce_retry(&c, 5000000, 40000);
        assert_int_equal(watcher_coalesce_deadline(&c), 30010);
        assert_true(watcher_coalesce_take(&c, 30010, s));
        assert_string_equal(s, "activating");

        /* a state name longer than systemd's is truncated, never overflows */
        char longname[100];
        memset(longname, 'x', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        assert_true(watcher_coalesce_note(&c, longname, 50000));
        assert_true(watcher_coalesce_take(&c, 50000 + W, s));
        assert_int_equal(strlen(s), UNIT_STATE_STRMAX - 1);
}

/* --- the handler --------------------------------------------------------------------------------- */

static void test_handler_argv(void **state) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        struct watcher_opts o = { .service = "slurmd.service",
                .juju_unit = "slurmd/3",
                .handler = "/var/lib/juju/agents/unit-slurmd-3/charm/bin/service-changed" };

        watcher_handler_argv(&o, "activating", &argv);
        assert_int_equal(argv.n, 5);
        assert_string_equal(argv.v[0], "juju-exec");
        assert_string_equal(argv.v[1], "slurmd/3");
        assert_string_equal(argv.v[2], o.handler);
        assert_string_equal(argv.v[3], "slurmd.service");
        assert_string_equal(argv.v[4], "activating");
        assert_null(argv.v[5]);

        strv_clear(&argv);
        o.juju_exec = "/usr/bin/juju-exec";
        watcher_handler_argv(&o, "", &argv);
        assert_string_equal(argv.v[0], "/usr/bin/juju-exec");
        assert_string_equal(argv.v[4], "unknown");
}

static struct unit_state mkstate(const char *active, const char *sub, const char *result, uint32_t n) {
        struct unit_state st = { .n_restarts = n };
        snprintf(st.load_state, sizeof(st.load_state), "loaded");
        snprintf(st.active_state, sizeof(st.active_state), "%s", active);
        snprintf(st.sub_state, sizeof(st.sub_state), "%s", sub);
        snprintf(st.result, sizeof(st.result), "%s", result);
        return st;
}

static void test_daemon_status(void **state) {
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        struct unit_state st;

        st = mkstate("activating", "auto-restart", "signal", 0);
        assert_int_equal(watcher_daemon_status("slurmd.service", &st, &out), 1);
        assert_int_equal(out.status, JUJU_STATUS_MAINTENANCE);
        assert_string_equal(out.message.buf, "slurmd restarting (Result=signal, NRestarts=0)");

        st = mkstate("failed", "failed", "start-limit-hit", 5);
        assert_int_equal(watcher_daemon_status("slurmctld.service", &st, &out), 1);
        assert_int_equal(out.status, JUJU_STATUS_BLOCKED);
        assert_string_equal(out.message.buf,
                "slurmctld failed (Result=start-limit-hit, NRestarts=5): see /var/log/slurm/slurmctld.log");

        st = mkstate("failed", "failed", "", 0);
        assert_int_equal(watcher_daemon_status("slurmd.service", &st, &out), 1);
        assert_string_equal(out.message.buf,
                "slurmd failed (Result=unknown, NRestarts=0): see /var/log/slurm/slurmd.log");

        /* every other state is the charm's to describe: out untouched */
        charm_outcome_set(&out, JUJU_STATUS_ACTIVE, "idle");
        const char *others[][2] = { { "active", "running" }, { "inactive", "dead" },
                { "activating", "start" }, { "deactivating", "stop-sigterm" }, { "reloading", "reload" },
                { "", "" } };
        for (size_t i = 0; i < ELEMENTSOF(others); i++) {
                st = mkstate(others[i][0], others[i][1], "success", 2);
                assert_int_equal(watcher_daemon_status("slurmd.service", &st, &out), 0);
                assert_int_equal(out.status, JUJU_STATUS_ACTIVE);
                assert_string_equal(out.message.buf, "idle");
        }
}

static int no_reconcile(struct juju_ctx *ctx, const struct charm_paths *paths, struct charm_outcome *out,
        struct strbuf *err) {
        fail_msg("the reconcile must not run");
        return -EIO;
}

static void test_service_changed_refuses_other_services(void **state) {
        _cleanup_(charm_outcome_done) struct charm_outcome out = CHARM_OUTCOME_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct watcher_handler_opts o = { .paths = { .caps = slurm_caps_find("22.05") },
                .service = "slurmctld.service",
                .hint_state = "active",
                .daemon = "slurmd.service",
                .reconcile = no_reconcile };

        /* refused before anything runs: no ctx needed. A slurmd unit watches slurmd and munge. */
        assert_int_equal(watcher_service_changed(NULL, &o, &out, &err), -EINVAL);
        assert_string_equal(
                err.buf, "service-changed: \"slurmctld.service\" is not slurmd.service or munge.service");
        strbuf_reset(&err);
        o.service = "ssh.service";
        o.daemon = "slurmctld.service";
        assert_int_equal(watcher_service_changed(NULL, &o, &out, &err), -EINVAL);
        assert_string_equal(
                err.buf, "service-changed: \"ssh.service\" is not slurmctld.service or munge.service");
        /* the handler needs its charm's reconcile */
        strbuf_reset(&err);
        o.service = "munge.service";
        o.reconcile = NULL;
        assert_int_equal(watcher_service_changed(NULL, &o, &out, &err), -EINVAL);
        assert_string_equal(err.buf, "service-changed: no daemon or reconcile given");
        /* 24.11 has no munge: the daemon alone is watched */
        strbuf_reset(&err);
        o.paths.caps = slurm_caps_find("24.11");
        o.reconcile = no_reconcile;
        assert_int_equal(watcher_service_changed(NULL, &o, &out, &err), -EINVAL);
        assert_string_equal(err.buf, "service-changed: \"munge.service\" is not slurmctld.service");
}

static void test_watch_run_options(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct watcher_opts o = { .service = "slurmd.service", .juju_unit = "slurmd/0" };
        assert_int_equal(service_watch_run(&o, &err), -EINVAL);
        assert_string_equal(err.buf, "watcher: service, juju unit and handler are required");
}

/* --- the unit file -------------------------------------------------------------------------------- */

static const char *srcdir(void) {
        const char *s = getenv("TOP_SRCDIR");
        if (isempty(s))
                fail_msg("TOP_SRCDIR is not set (run through meson test)");
        return s;
}

static char *template_text(void) {
        _cleanup_free_ char *path = xasprintf("%s/templates/%s", srcdir(), WATCHER_TEMPLATE);
        char *t = NULL;
        assert_int_equal(read_full_file(path, &t, NULL), 0);
        return t;
}

static void test_unit_name(void **state) {
        _cleanup_free_ char *a = watcher_unit_name("slurmd.service"),
                            *b = watcher_unit_name("slurmctld.service"), *c = watcher_unit_name("odd");
        assert_string_equal(a, "juju-service-watcher-slurmd.service");
        assert_string_equal(b, "juju-service-watcher-slurmctld.service");
        assert_string_equal(c, "juju-service-watcher-odd.service");
}

static void test_render(void **state) {
        _cleanup_free_ char *t = template_text();
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
        const char *dir = "/var/lib/juju/agents/unit-slurmd-0/charm";
        _cleanup_free_ char *exe = xasprintf("%s/bin/service-watcher", dir),
                            *handler = xasprintf("%s/bin/service-changed", dir);

        assert_int_equal(watcher_unit_render(t, exe, handler, "slurmd/0", "slurmd.service", &out, &err), 0);
        assert_int_equal(err.len, 0);
        _cleanup_free_ char *exec_line = xasprintf(
                "\nExecStart=%s --unit slurmd/0 --service slurmd.service --handler %s\n", exe, handler);
        assert_non_null(strstr(out.buf, exec_line));
        assert_non_null(strstr(out.buf, "\nType=notify\n"));
        assert_non_null(strstr(out.buf, "\nRestart=always\n"));
        assert_non_null(strstr(out.buf, "\nKillMode=process\n"));
        assert_non_null(strstr(out.buf, "\nWantedBy=multi-user.target\n"));
        assert_non_null(strstr(out.buf, "Description=Juju unit slurmd/0: follow slurmd.service"));
        assert_null(strstr(out.buf, "@WATCHER@"));
        assert_null(strstr(out.buf, "@JUJU_UNIT@"));
        /* the rendering is deterministic (written only when it changes) */
        _cleanup_strbuf_ struct strbuf again = STRBUF_INIT;
        assert_int_equal(
                watcher_unit_render(t, exe, handler, "slurmd/0", "slurmd.service", &again, &err), 0);
        assert_string_equal(out.buf, again.buf);
}

static void test_render_refuses(void **state) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

        /* text '@' that is no placeholder stays */
        assert_int_equal(
                watcher_unit_render("a@b @ c@d@ @@ x@\n", "/w", "/h", "u/0", "s.service", &out, &err), 0);
        assert_string_equal(out.buf, "a@b @ c@d@ @@ x@\n");
        strbuf_reset(&out);
        assert_int_equal(
                watcher_unit_render("X=@NOPE@\n", "/w", "/h", "u/0", "s.service", &out, &err), -EINVAL);
        assert_string_equal(err.buf, "juju-service-watcher.service: unknown placeholder \"@NOPE@\"");
        /* characters systemd would interpret in ExecStart= (spaces, specifiers, variables, quotes) */
        const char *bad[] = { "/a dir/bin", "/a%n/bin", "/a$HOME", "/a\"b", "/a'b", "/a\\b", "/a\nb", "" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                strbuf_reset(&out);
                assert_int_equal(
                        watcher_unit_render("@WATCHER@\n", bad[i], "/h", "u/0", "s.service", &out, &err),
                        -EINVAL);
                assert_non_null(strstr(err.buf, "holds characters systemd would interpret"));
        }
        strbuf_reset(&err);
        assert_int_equal(
                watcher_unit_render("@JUJU_UNIT@\n", "/w", "/h", "u 0", "s.service", &out, &err), -EINVAL);
}

/* A test root and a charm dir, removed by the teardown also when the test fails. */
static char test_root[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static int root_setup(void **state) {
        snprintf(test_root, sizeof(test_root), "/tmp/test-charm-watcher.XXXXXX");
        return mkdtemp(test_root) ? 0 : -1;
}

static int root_teardown(void **state) {
        if (test_root[0])
                (void) nftw(test_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        test_root[0] = '\0';
        return 0;
}

static void fingerprint(const char *path, struct stat *ret) {
        assert_int_equal(stat(path, ret), 0);
}

static void test_write_files(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct charm_paths paths = { .root = test_root };
        _cleanup_free_ char *unit = xasprintf("%s/etc/systemd/system/juju-service-watcher-slurmctld.service",
                                    test_root),
                            *dropin = xasprintf("%s/etc/systemd/system/slurmctld.service.d/%s.conf",
                                    test_root, WATCHER_RESTART_DROPIN),
                            *sd_unit = xasprintf(
                                    "%s/etc/systemd/system/juju-service-watcher-slurmd.service", test_root),
                            *sd_dropin = xasprintf("%s/etc/systemd/system/slurmd.service.d/%s.conf",
                                    test_root, WATCHER_RESTART_DROPIN);
        struct stat a, b;

        /* the source tree is a charm dir as far as templates go */
        int r = watcher_write_files(&paths, "slurmctld/0", "slurmctld.service", srcdir(), &err);
        assert_int_equal(r, 3);
        assert_int_equal(err.len, 0);
        fingerprint(unit, &a);
        assert_int_equal(a.st_mode & 07777, 0644);
        _cleanup_free_ char *text = NULL, *conf = NULL;
        assert_int_equal(read_full_file(unit, &text, NULL), 0);
        _cleanup_free_ char *want = xasprintf(
                "\nExecStart=%s/bin/service-watcher --unit slurmctld/0 --service slurmctld.service "
                "--handler %s/bin/service-changed\n",
                srcdir(), srcdir());
        assert_non_null(strstr(text, want));
        assert_int_equal(read_full_file(dropin, &conf, NULL), 0);
        assert_non_null(strstr(conf, "\nRestart=on-failure\n"));
        assert_non_null(strstr(conf, "\nStartLimitBurst="));

        /* again: nothing written (same inode, same mtime) */
        r = watcher_write_files(&paths, "slurmctld/0", "slurmctld.service", srcdir(), &err);
        assert_int_equal(r, 0);
        fingerprint(unit, &b);
        assert_int_equal(a.st_ino, b.st_ino);
        assert_int_equal(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
        assert_int_equal(a.st_mtim.tv_sec, b.st_mtim.tv_sec);

        /* another unit name: the unit file changes, the drop-in does not */
        r = watcher_write_files(&paths, "slurmctld/1", "slurmctld.service", srcdir(), &err);
        assert_int_equal(r, 1);

        /* slurmd: no restart drop-in template (its own drop-in has Restart=) */
        r = watcher_write_files(&paths, "slurmd/0", "slurmd.service", srcdir(), &err);
        assert_int_equal(r, 1);
        assert_int_equal(access(sd_unit, F_OK), 0);
        assert_int_equal(access(sd_dropin, F_OK), -1);
        assert_int_equal(errno, ENOENT);
        assert_int_equal(err.len, 0);
}

static void test_write_files_errors(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct charm_paths paths = { .root = test_root };
        _cleanup_free_ char *charm = xasprintf("%s/charm", test_root);

        assert_int_equal(mkdir(charm, 0755), 0);
        /* a charm without the template */
        assert_int_equal(watcher_write_files(&paths, "slurmd/0", "slurmd.service", charm, &err), -ENOENT);
        assert_non_null(
                strstr(err.buf, "/templates/juju-service-watcher.service: No such file or directory"));
        strbuf_reset(&err);
        assert_int_equal(watcher_write_files(&paths, "slurmd/0", "slurmd.service", NULL, &err), -EINVAL);
        assert_string_equal(err.buf, "watcher: no charm directory");
        /* a charm dir systemd would misread */
        strbuf_reset(&err);
        _cleanup_free_ char *tdir = xasprintf("%s/ch arm/templates", test_root), *tfile = NULL;
        assert_int_equal(mkdir_p(tdir, 0755), 0);
        tfile = xasprintf("%s/%s", tdir, WATCHER_TEMPLATE);
        assert_int_equal(
                write_file_atomic(tfile, "ExecStart=@WATCHER@\n", 20, 0644, (uid_t) -1, (gid_t) -1), 0);
        _cleanup_free_ char *spaced = xasprintf("%s/ch arm", test_root);
        assert_int_equal(watcher_write_files(&paths, "slurmd/0", "slurmd.service", spaced, &err), -EINVAL);
        _cleanup_free_ char *never =
                xasprintf("%s/etc/systemd/system/juju-service-watcher-slurmd.service", test_root);
        assert_int_equal(access(never, F_OK), -1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_coalesce_quiet),
                cmocka_unit_test(test_coalesce_burst),
                cmocka_unit_test(test_coalesce_during_run),
                cmocka_unit_test(test_coalesce_initial_and_retry),
                cmocka_unit_test(test_handler_argv),
                cmocka_unit_test(test_daemon_status),
                cmocka_unit_test(test_service_changed_refuses_other_services),
                cmocka_unit_test(test_watch_run_options),
                cmocka_unit_test(test_unit_name),
                cmocka_unit_test(test_render),
                cmocka_unit_test(test_render_refuses),
                cmocka_unit_test_setup_teardown(test_write_files, root_setup, root_teardown),
                cmocka_unit_test_setup_teardown(test_write_files_errors, root_setup, root_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
