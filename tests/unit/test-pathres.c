/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/util/pathres: normalizing, and resolving a path whose existing part goes
 * through links (a parent that is a link, a link to a link, a relative link, links that lead
 * above a machine's root), inside a temporary tree used as the root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/pathres.h"
#include "tmpdir.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "util/banned.h"

static void test_normalize(void **state) {
        static const char *const v[][2] = {
                { "/a//b/./c/", "/a/b/c" }, { "/", "/" }, { "//", "/" }, { "/./.", "/" }, { "", "/" },
                { "a/./b", "a/b" }, { ".", "." }, { "/var/lib/slurm/charm", "/var/lib/slurm/charm" },
                { "/a/../b", "/a/../b" }, /* never resolved lexically */
        };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                _cleanup_free_ char *n = path_normalize(v[i][0]);
                assert_string_equal(n, v[i][1]);
        }
}

static void test_below(void **state) {
        assert_true(path_is_below_or_same("/var/lib/slurm", "/var/lib/slurm"));
        assert_true(path_is_below_or_same("/var/lib/slurm/charm", "/var/lib/slurm"));
        assert_false(path_is_below_or_same("/var/lib/slurmctld", "/var/lib/slurm"));
        assert_false(path_is_below_or_same("/var/lib", "/var/lib/slurm"));
        assert_true(path_is_below_or_same("/x", "/"));
}

static void mk(const char *root, const char *rel) {
        _cleanup_free_ char *p = xasprintf("%s%s", root, rel);
        assert_int_equal(mkdir(p, 0755), 0);
}

static void ln(const char *root, const char *target, const char *rel) {
        _cleanup_free_ char *p = xasprintf("%s%s", root, rel);
        assert_int_equal(symlink(target, p), 0);
}

static void expect(const char *root, const char *path, const char *want) {
        _cleanup_free_ char *got = NULL;
        int r = path_resolve(root, path, &got);
        if (r < 0)
                fail_msg("%s: %s", path, strerror(-r));
        assert_string_equal(got, want);
}

static void test_resolve(void **state) {
        const char *root = *state;
        mk(root, "/var");
        mk(root, "/var/lib");
        mk(root, "/var/lib/slurm");
        mk(root, "/var/lib/slurm/charm");
        mk(root, "/srv");
        ln(root, "/var/lib/slurm", "/srv/abs");       /* absolute: inside the root */
        ln(root, "../var/lib/slurm", "/srv/rel");     /* relative */
        ln(root, "/srv/abs", "/srv/chain");           /* a link to a link */
        ln(root, "/nowhere/at/all", "/srv/dangling"); /* its target missing */

        expect(root, "/var/lib/slurm/charm", "/var/lib/slurm/charm");
        expect(root, "/var//lib/./slurm/", "/var/lib/slurm");
        expect(root, "/srv/abs/charm", "/var/lib/slurm/charm");
        expect(root, "/srv/rel/charm/x/y", "/var/lib/slurm/charm/x/y"); /* the missing rest kept */
        expect(root, "/srv/chain", "/var/lib/slurm");
        expect(root, "/srv/chain/new", "/var/lib/slurm/new");
        expect(root, "/not/there/yet", "/not/there/yet");
        expect(root, "/", "/");
        /* a link whose target is missing: where it leads is decided by whoever makes the target,
         * so it is no plain name (review P1) */
        {
                _cleanup_free_ char *d = NULL;
                assert_int_equal(path_resolve(root, "/srv/dangling/x", &d), -ENOLINK);
                assert_int_equal(path_resolve(root, "/srv/dangling", &d), -ENOLINK);
                assert_null(d);
        }

        _cleanup_free_ char *got = NULL;
        assert_int_equal(path_resolve(root, "/srv/abs/../charm", &got), -EINVAL);
        assert_int_equal(path_resolve(root, "relative/path", &got), -EINVAL);
        assert_null(got);

        /* a link to the host's directory means the same path inside the machine's tree, as
         * in a chroot: there it does not exist (a missing target: refused as above) */
        _cleanup_free_ char *outside = test_tmpdir_make("test-pathres-out");
        assert_non_null(outside);
        ln(root, outside, "/srv/out");
        assert_int_equal(path_resolve(root, "/srv/out/x", &got), -ENOLINK);
        ln(root, "../../../../../../var/lib/slurm", "/srv/up"); /* ".." stops at the root */
        expect(root, "/srv/up/charm", "/var/lib/slurm/charm");
        test_tmpdir_remove(outside);
        outside = NULL;

        /* a file where a directory is needed */
        _cleanup_free_ char *f = xasprintf("%s/srv/file", root);
        FILE *fp = fopen(f, "w");
        assert_non_null(fp);
        fclose(fp);
        assert_int_equal(path_resolve(root, "/srv/file/x", &got), -ENOTDIR);

        /* the machine's own root: resolved on this machine */
        _cleanup_free_ char *abs = xasprintf("%s/srv/rel/charm", root); /* relative: no root needed */
        _cleanup_free_ char *want = xasprintf("%s/var/lib/slurm/charm", root);
        char real[PATH_MAX];
        assert_non_null(realpath(want, real));
        _cleanup_free_ char *got2 = NULL;
        assert_int_equal(path_resolve(NULL, abs, &got2), 0);
        assert_string_equal(got2, real);
}

/* A ".." resolved while anything on the system renames: openat2 says EAGAIN (RESOLVE_IN_ROOT
 * cannot show the walk stayed inside), 4 % of calls here with one renaming thread; the
 * resolver tries again (CI's charm-paths saw "Resource temporarily unavailable" for a relative
 * link while three clusters ran). */
static atomic_bool renaming;
static void *renamer(void *arg) {
        const char *root = arg;
        _cleanup_free_ char *a = xasprintf("%s/a", root), *b = xasprintf("%s/b", root);
        FILE *fp = fopen(a, "w");
        if (fp)
                fclose(fp);
        for (unsigned i = 0; atomic_load(&renaming) && i < 50000000; i++)
                (void) rename(i & 1 ? b : a, i & 1 ? a : b);
        return NULL;
}

static void test_resolve_renames(void **state) {
        const char *root = *state;
        mk(root, "/var");
        mk(root, "/var/lib");
        mk(root, "/var/lib/slurm");
        mk(root, "/srv");
        mk(root, "/srv/r13");
        ln(root, "../../var/lib", "/srv/r13/rel");
        pthread_t th;
        atomic_store(&renaming, true);
        assert_int_equal(pthread_create(&th, NULL, renamer, (void *) root), 0);
        unsigned bad = 0;
        int last = 0;
        for (int i = 0; i < 20000; i++) {
                _cleanup_free_ char *got = NULL;
                int r = path_resolve(root, "/srv/r13/rel/slurm", &got);
                if (r < 0 || !streq(got, "/var/lib/slurm")) {
                        bad++;
                        last = r;
                }
        }
        atomic_store(&renaming, false);
        pthread_join(th, NULL);
        if (bad)
                print_message("%u of 20000 failed, the last with %d\n", bad, last);
        assert_int_equal(bad, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_normalize),
                cmocka_unit_test(test_below),
                cmocka_unit_test_setup_teardown(test_resolve, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_resolve_renames, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
