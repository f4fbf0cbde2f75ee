/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/gres: the GPU record (a unit's data in, a bad list refused naming the
 * unit and changing nothing, departures, pruning by application), gres.conf rendering, what
 * the leader publishes, and the local device record (the stamp: test-charm-ctlconf). The whole path runs
 * on real daemons with fake NVIDIA devices in tests/cluster/charm-gpu.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/gres.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"

#include "util/banned.h"

static cJSON *empty(void) {
        cJSON *st = cJSON_Parse("{\"nodes\":{},\"refused\":{}}");
        assert_non_null(st);
        return st;
}

static char *text(const cJSON *st) {
        return cJSON_PrintUnformatted(st);
}

static void test_update(void **state) {
        _cleanup_(gres_state_freep) cJSON *st = empty();
        assert_int_equal(gres_unit_update(st, "gpu/0", "[\"/dev/nvidia0\",\"/dev/nvidia1\"]", false), 1);
        assert_int_equal(gres_unit_update(st, "gpu/0", "[\"/dev/nvidia0\",\"/dev/nvidia1\"]", false), 0);
        assert_int_equal(gres_unit_update(st, "cpu/3", "[]", false), 0); /* no GPUs: nothing */
        assert_int_equal(gres_unit_update(st, "cpu/4", NULL, false), 0); /* older charm: nothing */
        _cleanup_free_ char *a = text(st);
        assert_string_equal(a, "{\"nodes\":{\"gpu-0\":[\"/dev/nvidia0\",\"/dev/nvidia1\"]},\"refused\":{}}");

        /* bad data: refused naming the unit, the node's files kept */
        assert_int_equal(gres_unit_update(st, "gpu/0", "[\"/etc/passwd\"]", false), 1);
        _cleanup_strv_ struct strv why = STRV_INIT;
        gres_refusals(st, &why);
        assert_int_equal(why.n, 1);
        assert_string_equal(why.v[0],
                "gpu/0: gpu-devices: \"/etc/passwd\" is not a device file path under /dev: "
                "gres.conf keeps node gpu-0 as it was");
        _cleanup_strbuf_ struct strbuf conf = STRBUF_INIT;
        gres_render(st, "# head\n", &conf);
        assert_string_equal(conf.buf,
                "# head\nNodeName=gpu-0 Name=gpu File=/dev/nvidia0\n"
                "NodeName=gpu-0 Name=gpu File=/dev/nvidia1\n");
        /* good data again: the refusal goes */
        assert_int_equal(gres_unit_update(st, "gpu/0", "[\"/dev/nvidia1\"]", false), 1);
        strv_clear(&why);
        gres_refusals(st, &why);
        assert_int_equal(why.n, 0);
        /* a unit that now has none, and one that leaves */
        assert_int_equal(gres_unit_update(st, "gpu/2", "[\"/dev/nvidia0\"]", false), 1);
        assert_int_equal(gres_unit_update(st, "gpu/0", "[]", false), 1);
        assert_int_equal(gres_unit_update(st, "gpu/2", NULL, true), 1);
        assert_int_equal(gres_unit_update(st, "gpu/2", NULL, true), 0);
        _cleanup_free_ char *b = text(st);
        assert_string_equal(b, "{\"nodes\":{},\"refused\":{}}");
}

static void test_render_and_prune(void **state) {
        _cleanup_(gres_state_freep) cJSON *st = empty();
        assert_int_equal(gres_unit_update(st, "gpu/10", "[\"/dev/nvidia0\"]", false), 1);
        assert_int_equal(gres_unit_update(st, "gpu/2", "[\"/dev/nvidia0\",\"/dev/nvidia1\"]", false), 1);
        assert_int_equal(gres_unit_update(st, "big-gpu/0", "[\"/dev/nvidia3\"]", false), 1);
        assert_int_equal(gres_unit_update(st, "gpu/3", "[\"/dev/nvidia0\",\"/dev/nvidia1\"]", false), 1);
        assert_int_equal(gres_unit_update(st, "gpu/4", "[\"nope\"]", false), 1);
        _cleanup_strbuf_ struct strbuf conf = STRBUF_INIT;
        gres_render(st, "# head", &conf);
        assert_string_equal(conf.buf,
                "# head\n"
                "NodeName=big-gpu-0 Name=gpu File=/dev/nvidia3\n"
                "NodeName=gpu-10 Name=gpu File=/dev/nvidia0\n"
                "NodeName=gpu-2 Name=gpu File=/dev/nvidia0\n"
                "NodeName=gpu-2 Name=gpu File=/dev/nvidia1\n"
                "NodeName=gpu-3 Name=gpu File=/dev/nvidia0\n"
                "NodeName=gpu-3 Name=gpu File=/dev/nvidia1\n");
        /* per application, grouped by files, hostlists compressed; "gpu" is not "big-gpu" */
        _cleanup_free_ char *served = gres_served_json(st, "gpu");
        assert_string_equal(
                served, "{\"/dev/nvidia0\":\"gpu-10\",\"/dev/nvidia0,/dev/nvidia1\":\"gpu-[2-3]\"}");
        _cleanup_free_ char *none = gres_served_json(st, "cpu");
        assert_string_equal(none, "{}");

        /* the application "gpu" is no longer related: its nodes and refusals go */
        _cleanup_strv_ struct strv apps = STRV_INIT;
        strv_push(&apps, "big-gpu");
        assert_int_equal(gres_prune(st, &apps), 1);
        assert_int_equal(gres_prune(st, &apps), 0);
        _cleanup_free_ char *t = text(st);
        assert_string_equal(t, "{\"nodes\":{\"big-gpu-0\":[\"/dev/nvidia3\"]},\"refused\":{}}");
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void test_state_and_local(void **state) {
        char root[] = "/var/tmp/test-gres.XXXXXX";
        assert_non_null(mkdtemp(root));
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *dev = xasprintf("%s/dev", root);
        assert_int_equal(mkdir(dev, 0755), 0);
        for (int i = 1; i >= 0; i--) {
                _cleanup_free_ char *f = xasprintf("%s/nvidia%d", dev, i);
                int fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                assert_true(fd >= 0);
                close(fd);
        }
        _cleanup_strv_ struct strv files = STRV_INIT;
        assert_int_equal(gres_local_devices(&p, &files, &err), 0);
        _cleanup_free_ char *j = strv_join(&files, " ");
        assert_string_equal(j, "/dev/nvidia0 /dev/nvidia1"); /* the machine's paths */
        /* recorded: a device that appears later does not change the node under Slurm's feet */
        _cleanup_free_ char *f2 = xasprintf("%s/nvidia2", dev);
        int fd = open(f2, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        close(fd);
        strv_clear(&files);
        assert_int_equal(gres_local_devices(&p, &files, &err), 0);
        assert_int_equal(files.n, 2);

        /* state: an empty one when missing or broken; stored atomically, 0600 */
        _cleanup_(gres_state_freep) cJSON *st = NULL;
        assert_int_equal(gres_state_load(&p, &st, &err), 0);
        assert_int_equal(gres_unit_update(st, "gpu/0", "[\"/dev/nvidia0\"]", false), 1);
        assert_int_equal(gres_state_store(&p, st, &err), 1);
        assert_int_equal(gres_state_store(&p, st, &err), 0);
        _cleanup_free_ char *path = xasprintf("%s%s/%s", root, CHARM_PATH_STATE_DIR, GRES_STATE_FILE);
        struct stat s;
        assert_int_equal(stat(path, &s), 0);
        assert_int_equal(s.st_mode & 07777, 0600);
        assert_int_equal(write_file_atomic(path, "{broken", 7, 0600, (uid_t) -1, (gid_t) -1), 0);
        _cleanup_(gres_state_freep) cJSON *again = NULL;
        assert_int_equal(gres_state_load(&p, &again, &err), 0);
        _cleanup_free_ char *t = cJSON_PrintUnformatted(again);
        assert_string_equal(t, "{\"nodes\":{},\"refused\":{}}");
        nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_update),
                cmocka_unit_test(test_render_and_prune),
                cmocka_unit_test(test_state_and_local),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
