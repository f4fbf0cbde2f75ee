/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of what the slurmd charm's hooks and actions share (charm/slurmd/sdinputs.h): the
 * departure's markers, the stored node-config parameters, the stored hardware line and the
 * state files. sd_read_inputs itself needs a hook context: proven by the cluster tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "charm/slurmd/sdinputs.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "tmpdir.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/banned.h"

/* the departure's markers: "leaving" holds every reconcile back for its relation (or for any,
 * after a stop), "left" for its relation; a new relation clears them (the unit joins again) */
static void test_departure_markers(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(sd_leaving_relation(&p, "slurmctld:3"), 0);
        assert_int_equal(sd_left_relation(&p, "slurmctld:3"), 0);

        assert_true(sd_state_write(&p, SLURMD_LEAVING_FILE, "slurmctld:3\n", &err) >= 0);
        assert_int_equal(sd_leaving_relation(&p, "slurmctld:3"), 1);
        assert_int_equal(sd_leaving_relation(&p, "slurmctld:3"), 1);
        assert_int_equal(sd_left_relation(&p, "slurmctld:3"), 0);
        assert_int_equal(sd_leaving_relation(&p, "slurmctld:9"), 0); /* joined again */
        assert_int_equal(sd_leaving_relation(&p, "slurmctld:3"), 0); /* and the marker is gone */

        /* a stop or remove (no relation): every relation */
        assert_true(sd_state_write(&p, SLURMD_LEAVING_FILE, "\n", &err) >= 0);
        assert_int_equal(sd_leaving_relation(&p, "slurmctld:3"), 1);
        assert_int_equal(sd_leaving_relation(&p, "slurmctld:4"), 1);

        /* "left" names its relation only */
        assert_true(sd_state_write(&p, SLURMD_LEFT_FILE, "slurmctld:4\n", &err) >= 0);
        assert_int_equal(sd_left_relation(&p, "slurmctld:4"), 1);
        assert_int_equal(sd_left_relation(&p, "slurmctld:5"), 0);
        assert_int_equal(sd_left_relation(&p, "slurmctld:4"), 0);
}

/* the state files: written atomically under <root>/var/lib/slurm/charm (made 0700), mode 0600 */
static void test_state_files(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *path = sd_state_path(&p, "x"), *data = NULL;
        assert_non_null(strstr(path, "/var/lib/slurm/charm/x"));
        assert_true(sd_state_write(&p, "x", "one\n", &err) >= 0);
        assert_true(read_full_file(path, &data, NULL) >= 0);
        assert_string_equal(data, "one\n");
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
}

/* node-config's stored parameters: none without the file; the stored line parsed as NODE
 * options; a file that does not parse is an error naming it, nothing returned as good */
static void test_admin_load(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        struct slurm_options o = SLURM_OPTIONS_INIT;
        assert_int_equal(sd_admin_load(&p, &o, &err), 0);
        assert_int_equal(o.n, 0);
        slurm_options_clear(&o);

        assert_true(sd_state_write(&p, SLURMD_ADMIN_FILE, "Weight=5 Features=fast\n", &err) >= 0);
        assert_true(sd_admin_load(&p, &o, &err) >= 0);
        assert_int_equal(o.n, 2);
        slurm_options_clear(&o);

        assert_true(sd_state_write(&p, SLURMD_ADMIN_FILE, "Weight\n", &err) >= 0);
        strbuf_reset(&err);
        assert_true(sd_admin_load(&p, &o, &err) < 0);
        assert_non_null(strstr(err.buf, SLURMD_ADMIN_FILE));
        slurm_options_clear(&o);
}

/* the hardware line, once stored, is read back word by word (never detected again) */
static void test_hardware_stored(void **state) {
        const struct charm_paths p = { .root = *state };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_strv_ struct strv hw = STRV_INIT;
        assert_true(sd_state_write(&p, SLURMD_HARDWARE_FILE, "CPUs=64 RealMemory=1000\n", &err) >= 0);
        assert_int_equal(sd_hardware(&p, &hw, &err), 0);
        assert_int_equal(hw.n, 2);
        assert_string_equal(hw.v[0], "CPUs=64");
        assert_string_equal(hw.v[1], "RealMemory=1000");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(
                        test_departure_markers, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_state_files, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(test_admin_load, test_tmpdir_setup, test_tmpdir_teardown),
                cmocka_unit_test_setup_teardown(
                        test_hardware_stored, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
