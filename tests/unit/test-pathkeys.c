/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurmconf/pathkeys: the lexical rule of each use, every path-valued key
 * of the option parser refusing system files, and the machine checks (owners, modes, symbolic
 * and hard links, directories) in a tree made under a temporary root. The owner checks need
 * root (chown); they are skipped otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/macro.h"
#include "slurmconf/conf.h"
#include "slurmconf/options.h"
#include "slurmconf/pathkeys.h"
#include "slurmconf/values.h"
#include "tmpdir.h"

#include "util/banned.h"

#define SLURM_UID 4321 /* stands for SlurmUser in the tree */

struct lex_case {
        enum slurmconf_path_use use;
        const char *value;
        const char *want; /* NULL: accepted; else a part of the message */
};

static void test_lexical(void **state) {
        static const struct lex_case cases[] = {
                { SLURMCONF_PATH_LOG, "/var/log/slurm/slurmctld.log", NULL },
                { SLURMCONF_PATH_LOG, "/var/log/slurm/sub/slurmd.log", NULL },
                { SLURMCONF_PATH_LOG, "/etc/passwd", "is outside /var/log/slurm" },
                { SLURMCONF_PATH_LOG, "/var/log/slurm", "is outside" },
                { SLURMCONF_PATH_LOG, "/var/log/slurm/", "trailing" },
                { SLURMCONF_PATH_LOG, "/var/log/slurmx/a.log", "is outside" },
                { SLURMCONF_PATH_LOG, "/var/log/slurm/../../../etc/passwd", "\"..\" component" },
                { SLURMCONF_PATH_LOG, "/var/log/slurm/./a.log", "\".\" or" },
                { SLURMCONF_PATH_LOG, "/var/log//slurm/a.log", "normalised" },
                { SLURMCONF_PATH_LOG, "var/log/slurm/a.log", "not an absolute path" },
                { SLURMCONF_PATH_LOG, "/var/log/slurm/a.log,/etc/passwd", "not one absolute path" },
                { SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/prolog.sh", NULL },
                { SLURMCONF_PATH_PROGRAM, "/usr/sbin/reboot", NULL },
                { SLURMCONF_PATH_PROGRAM, "/sbin/reboot", NULL },
                { SLURMCONF_PATH_PROGRAM, "/var/lib/slurm/x.sh", "is outside /etc/slurm/scripts" },
                { SLURMCONF_PATH_PROGRAM, "/tmp/x", "is outside" },
                { SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts", "is outside" },
                { SLURMCONF_PATH_PROGRAM, "/usr/bin/../../tmp/x", "\"..\" component" },
                { SLURMCONF_PATH_CONFIG, "/etc/slurm/plugstack.conf", NULL },
                { SLURMCONF_PATH_CONFIG, "/etc/shadow", "is outside /etc/slurm" },
                { SLURMCONF_PATH_MEASURED, "/tmp", NULL },
                { SLURMCONF_PATH_MEASURED, "/scratch/jobs", NULL },
                { SLURMCONF_PATH_MEASURED, "/etc", "is outside /tmp" },
                { SLURMCONF_PATH_MEASURED, "/etc/sudoers.d", "is outside /tmp" },
                { SLURMCONF_PATH_MEASURED, "/scratch/../etc", "\"..\" component" },
                { SLURMCONF_PATH_MEASURED, "tmp", "not an absolute path" },
                /* escapes Slurm expands, globs slurmd expands */
                { SLURMCONF_PATH_LOG, "/var/log/slurm/slurmd-%n.log", "has \"%\"" },
                { SLURMCONF_PATH_PROGRAM, "/usr/sbin/*", "has \"*\"" },
                { SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/[p]rolog", "has \"[\"" },
                { SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/prolog?", "has \"?\"" },
                { SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/a=b", "has \"=\"" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                int r = slurmconf_path_check(cases[i].use, cases[i].value, &e);
                if (!cases[i].want && r < 0)
                        fail_msg("%s: refused: %s", cases[i].value, e.buf);
                if (cases[i].want && (r != -EINVAL || !strstr(e.buf, cases[i].want)))
                        fail_msg("%s: r=%d \"%s\", want \"%s\"", cases[i].value, r, e.buf, cases[i].want);
        }
}

/* Every GLOBAL key with a path grammar refuses system files through the option parser, and
 * every key of the path table has a path grammar. */
static int each_path_row(const struct slurmconf_value_info *vi, void *userdata) {
        size_t *n = userdata;
        if (vi->type != SLURMCONF_VALUE_PATH || !(vi->scopes & SLURMCONF_SCOPE_BIT(SLURMCONF_GLOBAL)))
                return 0;
        const struct slurmconf_path_key *pk = slurmconf_path_key(vi->key);
        static const char *const system_files[] = { "/etc/passwd", "/etc/shadow", "/root/.bashrc", "/usr/lib/x.so",
                "/var/log/slurm/../../../etc/passwd", "/etc/slurm/scripts/../../passwd", NULL };
        for (size_t i = 0; system_files[i]; i++) {
                if (pk && pk->use == SLURMCONF_PATH_MEASURED && !strstr(system_files[i], ".."))
                        continue; /* TmpFS: only measured */
                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                _cleanup_free_ char *s = xasprintf("%s=%s", vi->key, system_files[i]);
                if (slurm_options_parse(s, SLURM_OPTIONS_GLOBAL, &o, &e) == 0)
                        fail_msg("%s accepted", s);
                if (!strstr(e.buf, "managed by the charm") && !strstr(e.buf, "is outside") &&
                        !strstr(e.buf, "component") && !strstr(e.buf, "state-save-location"))
                        fail_msg("%s: unexpected message \"%s\"", s, e.buf);
        }
        /* and the example each grammar row gives is accepted by the parser (or owned) */
        (*n)++;
        return 0;
}

static int each_path_key(const struct slurmconf_path_key *k, void *userdata) {
        if (slurmconf_value_type(SLURMCONF_GLOBAL, k->key) != SLURMCONF_VALUE_PATH)
                fail_msg("%s: in the path table but not a path grammar", k->key);
        return 0;
}

static void test_every_path_key(void **state) {
        size_t n = 0;
        slurmconf_value_foreach(each_path_row, &n);
        assert_true(n >= 30);
        slurmconf_path_key_foreach(each_path_key, NULL);
        /* JobCompLoc by its plugin */
        const char *bad[] = { "JobCompType=jobcomp/filetxt JobCompLoc=/etc/passwd",
                "JobCompType=jobcomp/script JobCompLoc=/tmp/x.sh",
                "JobCompType=jobcomp/elasticsearch JobCompLoc=/etc/passwd", NULL };
        for (size_t i = 0; bad[i]; i++) {
                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                int r = slurm_options_parse(bad[i], SLURM_OPTIONS_GLOBAL, &o, &e);
                if (r == 0)
                        r = slurm_options_check_set(SLURM_OPTIONS_GLOBAL, &o, NULL, &e);
                if (r == 0)
                        fail_msg("%s accepted", bad[i]);
                assert_non_null(strstr(e.buf, "JobCompLoc"));
        }
        const char *good[] = { "JobCompType=jobcomp/filetxt JobCompLoc=/var/log/slurm/jobcomp.log",
                "JobCompType=jobcomp/elasticsearch JobCompLoc=http://es:9200", NULL };
        for (size_t i = 0; good[i]; i++) {
                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                int r = slurm_options_parse(good[i], SLURM_OPTIONS_GLOBAL, &o, &e);
                if (r == 0)
                        r = slurm_options_check_set(SLURM_OPTIONS_GLOBAL, &o, NULL, &e);
                if (r < 0)
                        fail_msg("%s refused: %s", good[i], e.buf);
        }
}

/* --- the machine checks ---------------------------------------------------------------------- */

static char *root;

static char *at(const char *rel) {
        return xasprintf("%s%s", root, rel);
}

static void mkdir_at(const char *rel, mode_t mode, uid_t uid) {
        _cleanup_free_ char *p = at(rel);
        assert_true(mkdir(p, mode) == 0 || errno == EEXIST);
        assert_int_equal(chmod(p, mode), 0);
        if (geteuid() == 0)
                assert_int_equal(chown(p, uid, 0), 0);
}

static void file_at(const char *rel, mode_t mode, uid_t uid) {
        _cleanup_free_ char *p = at(rel);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
        close(fd);
        assert_int_equal(chmod(p, mode), 0);
        if (geteuid() == 0)
                assert_int_equal(chown(p, uid, 0), 0);
}

static void link_at(const char *target, const char *rel) {
        _cleanup_free_ char *p = at(rel);
        assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state) {
        root = test_tmpdir_make("test-pathkeys");
        assert_non_null(root);
        assert_int_equal(chmod(root, 0755), 0);
        static const char *const dirs[] = { "/etc", "/etc/slurm", "/etc/slurm/scripts", "/usr", "/usr/bin",
                "/usr/sbin", "/var", "/var/log", "/tmp", NULL };
        for (size_t i = 0; dirs[i]; i++)
                mkdir_at(dirs[i], 0755, 0);
        mkdir_at("/var/log/slurm", 0755, SLURM_UID);
        link_at("usr/bin", "/bin");
        file_at("/etc/passwd", 0644, 0);
        file_at("/usr/bin/true", 0755, 0);
        file_at("/etc/slurm/scripts/prolog", 0755, 0);
        return 0;
}

static int teardown(void **state) {
        test_tmpdir_remove(root);
        root = NULL;
        return 0;
}

static void expect_fs(enum slurmconf_path_use use, const char *value, uid_t owner, int want_r, const char *want) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = slurmconf_path_check_fs(use, root, value, owner, 0, &e);
        if (r != want_r || (want && !strstr(e.buf, want)))
                fail_msg("%s %s: r=%d \"%s\", want r=%d \"%s\"", slurmconf_path_use_name(use), value, r, e.buf, want_r,
                        strempty(want));
}

static void test_fs_log(void **state) {
        const uid_t owner = geteuid() == 0 ? SLURM_UID : geteuid();
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/new.log", owner, 0, NULL);
        file_at("/var/log/slurm/ctl.log", 0640, SLURM_UID);
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/ctl.log", owner, 0, NULL);
        link_at("../../../etc/passwd", "/var/log/slurm/evil.log");
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/evil.log", owner, -EINVAL, "outside /var/log/slurm");
        link_at("ctl.log", "/var/log/slurm/inside.log");
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/inside.log", owner, -EINVAL, "symbolic link");
        link_at("/nonexistent/x", "/var/log/slurm/dangling.log");
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/dangling.log", owner, -EINVAL, "dangling");
        link_at("../../../etc", "/var/log/slurm/etc");
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/etc/passwd", owner, -EINVAL, "outside");
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/etc/newfile", owner, -EINVAL, "outside");
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/nodir/x.log", owner, -EINVAL, "directory is missing");
        {
                _cleanup_free_ char *a = at("/etc/passwd"), *b = at("/var/log/slurm/hard.log");
                assert_int_equal(link(a, b), 0);
        }
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/hard.log", owner, -EINVAL, "hard links");
        if (geteuid() == 0) {
                file_at("/var/log/slurm/roots.log", 0644, 0);
                expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/roots.log", SLURM_UID, -EINVAL, "belongs to uid 0");
                expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/roots.log", 0, 0, NULL); /* slurmd's */
        }
        mkdir_at("/var/log/slurm/d", 0755, SLURM_UID);
        expect_fs(SLURMCONF_PATH_LOG, "/var/log/slurm/d", owner, -EINVAL, "not a regular file");
}

static void test_fs_program(void **state) {
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/prolog", 0, 0, NULL);
        expect_fs(SLURMCONF_PATH_PROGRAM, "/usr/bin/true", 0, 0, NULL);
        expect_fs(SLURMCONF_PATH_PROGRAM, "/bin/true", 0, 0, NULL); /* /bin → usr/bin */
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/missing", 0, -ENOENT, "does not exist");
        file_at("/etc/slurm/scripts/gw", 0775, 0);
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/gw", 0, -EINVAL, "mode 0775");
        file_at("/etc/slurm/scripts/noexec", 0644, 0);
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/noexec", 0, -EINVAL, "not executable");
        link_at("../../../usr/bin/true", "/etc/slurm/scripts/t");
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/t", 0, 0, NULL);
        file_at("/tmp/evil", 0755, 0);
        link_at("../../../tmp/evil", "/etc/slurm/scripts/evil");
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/evil", 0, -EINVAL, "leads to /tmp/evil");
        if (geteuid() == 0) {
                file_at("/etc/slurm/scripts/slurms", 0755, SLURM_UID);
                expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/slurms", 0, -EINVAL, "owner uid 4321");
                mkdir_at("/etc/slurm/scripts/sub", 0755, SLURM_UID);
                file_at("/etc/slurm/scripts/sub/p", 0755, 0);
                expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/sub/p", 0, -EINVAL, "which is not root's");
        }
        /* a chain of links: each one root's, in directories root's alone */
        mkdir_at("/tmp", 01777, 0);
        link_at("../usr/bin/true", "/tmp/hop");
        link_at("../../../tmp/hop", "/etc/slurm/scripts/chain");
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/chain", 0, -EINVAL, "lies in /tmp, which");
        mkdir_at("/etc/alt", 0755, 0);
        link_at("../../usr/bin/true", "/etc/alt/t");
        link_at("../../alt/t", "/etc/slurm/scripts/alt");
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/alt", 0, 0, NULL);
        if (geteuid() == 0) {
                _cleanup_free_ char *l = at("/etc/alt/t");
                assert_int_equal(lchown(l, SLURM_UID, 0), 0);
                expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/alt", 0, -EINVAL, "goes through the link /etc/alt/t of uid");
        }
        mkdir_at("/etc/slurm/scripts", 0777, 0);
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/prolog", 0, -EINVAL, "/etc/slurm/scripts, which");
        mkdir_at("/etc/slurm/scripts", 0755, 0);
        expect_fs(SLURMCONF_PATH_PROGRAM, "/etc/slurm/scripts/prolog", 0, 0, NULL);
}

static void test_fs_config(void **state) {
        expect_fs(SLURMCONF_PATH_CONFIG, "/etc/slurm/plugstack.conf", 0, 0, NULL); /* none: fine */
        file_at("/etc/slurm/plugstack.conf", 0666, 0);
        expect_fs(SLURMCONF_PATH_CONFIG, "/etc/slurm/plugstack.conf", 0, -EINVAL, "mode 0666");
        file_at("/etc/slurm/plugstack.conf", 0644, 0);
        expect_fs(SLURMCONF_PATH_CONFIG, "/etc/slurm/plugstack.conf", 0, 0, NULL);
        /* absent, in a directory others may write: whoever creates it chooses what root loads */
        mkdir_at("/etc/slurm/plug", 0777, 0);
        expect_fs(SLURMCONF_PATH_CONFIG, "/etc/slurm/plug/plugstack.conf", 0, -EINVAL, "/etc/slurm/plug, which");
        expect_fs(SLURMCONF_PATH_MEASURED, "/tmp/anything", 0, 0, NULL);
        /* anywhere (a compute unit's view of a file an older charm wrote): the machine only */
        file_at("/etc/slurm/prolog.sh", 0755, 0);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(slurmconf_path_check_fs(SLURMCONF_PATH_PROGRAM, root, "/etc/slurm/prolog.sh", 0,
                                 SLURMCONF_PATH_F_ANYWHERE, &e),
                0);
        assert_int_equal(slurmconf_path_check_fs(SLURMCONF_PATH_PROGRAM, root, "/etc/slurm/prolog.d/*", 0,
                                 SLURMCONF_PATH_F_ANYWHERE, &e),
                0);
        file_at("/etc/slurm/open.sh", 0777, 0);
        assert_int_equal(slurmconf_path_check_fs(SLURMCONF_PATH_PROGRAM, root, "/etc/slurm/open.sh", 0,
                                 SLURMCONF_PATH_F_ANYWHERE, &e),
                -EINVAL);
}

static void test_fs_conf(void **state) {
        static const char text[] = "SlurmctldLogFile=/var/log/slurm/new.log\n"
                                   "Prolog=/etc/slurm/scripts/nosuch\n"
                                   "PrologSlurmctld=/etc/slurm/scripts/prolog\n"
                                   "JobCompType=jobcomp/script\n"
                                   "JobCompLoc=/etc/slurm/scripts/prolog\n";
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        assert_int_equal(slurmconf_parse("slurm.conf", text, sizeof text - 1, &c, NULL), 0);
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(slurmconf_paths_check_keys(slurmconf_get_key, c, SLURMCONF_PATH_CTLD, root, 0, 0, &e), 0);
        assert_int_equal(slurmconf_paths_check_keys(slurmconf_get_key, c, SLURMCONF_PATH_NODE, root, 0, 0, &e), -ENOENT);
        assert_non_null(strstr(e.buf, "Prolog: \"/etc/slurm/scripts/nosuch\" does not exist"));

        link_at("../../../etc/passwd", "/var/log/slurm/evil.log");
        static const char text2[] = "JobCompType=jobcomp/filetxt\nJobCompLoc=/var/log/slurm/evil.log\n";
        _cleanup_slurmconf_ struct slurmconf *c2 = NULL;
        assert_int_equal(slurmconf_parse("slurm.conf", text2, sizeof text2 - 1, &c2, NULL), 0);
        strbuf_reset(&e);
        assert_int_equal(slurmconf_paths_check_keys(slurmconf_get_key, c2, SLURMCONF_PATH_CTLD, root, 0, 0, &e), -EINVAL);
        assert_non_null(strstr(e.buf, "JobCompLoc: "));
}

static void text_at(const char *rel, const char *text, mode_t mode, uid_t uid) {
        file_at(rel, mode, uid);
        _cleanup_free_ char *p = at(rel);
        int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        close(fd);
}

static int plugstack_verdict(const char *text, struct strbuf *e) {
        text_at("/etc/slurm/plugstack.conf", text, 0644, 0);
        static const char conf[] = "PlugStackConfig=/etc/slurm/plugstack.conf\n";
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        assert_int_equal(slurmconf_parse("slurm.conf", conf, sizeof conf - 1, &c, NULL), 0);
        strbuf_reset(e);
        return slurmconf_paths_check_keys(slurmconf_get_key, c, SLURMCONF_PATH_NODE, root, 0, 0, e);
}

/* PlugStackConfig's plugins and includes are judged, not the file alone (attack atk8 G5) */
static void test_fs_plugstack(void **state) {
        (void) state;
        if (geteuid() != 0)
                skip(); /* owners are the point */
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        mkdir_at("/usr/lib", 0755, 0);
        mkdir_at("/usr/lib/spank", 0755, 0);
        file_at("/usr/lib/spank/good.so", 0644, 0);
        assert_int_equal(plugstack_verdict("# site\nrequired /usr/lib/spank/good.so arg=1\noptional rel.so\n", &e), 0);
        file_at("/tmp/x.so", 0644, 65534);
        assert_int_equal(plugstack_verdict("optional /tmp/x.so\n", &e), -EINVAL);
        assert_non_null(strstr(e.buf, "PlugStackConfig: \"/etc/slurm/plugstack.conf\" names a plugin"));
        assert_non_null(strstr(e.buf, "/tmp/x.so"));
        assert_int_equal(plugstack_verdict("optional ../../../../tmp/x.so\n", &e), -EINVAL);
        assert_non_null(strstr(e.buf, "a relative path with a directory"));
        file_at("/usr/lib/spank/open.so", 0666, 0);
        assert_int_equal(plugstack_verdict("required   /usr/lib/spank/open.so\n", &e), -EINVAL);
        /* includes: the pattern's directory and every file, recursively */
        mkdir_at("/etc/slurm/plugstack.d", 0755, 0);
        text_at("/etc/slurm/plugstack.d/a.conf", "optional /usr/lib/spank/good.so\n", 0644, 0);
        assert_int_equal(plugstack_verdict("include /etc/slurm/plugstack.d/*.conf\n", &e), 0);
        text_at("/etc/slurm/plugstack.d/b.conf", "optional /tmp/x.so\n", 0644, 0);
        assert_int_equal(plugstack_verdict("include /etc/slurm/plugstack.d/*.conf\n", &e), -EINVAL);
        assert_non_null(strstr(e.buf, "includes a file"));
        _cleanup_free_ char *b = at("/etc/slurm/plugstack.d/b.conf");
        assert_int_equal(unlink(b), 0);
        text_at("/etc/slurm/plugstack.d/c d.conf", "\n", 0666, 0);
        assert_int_equal(plugstack_verdict("include /etc/slurm/plugstack.d/*.conf\n", &e), -EINVAL);
        assert_non_null(strstr(e.buf, "not a plain path"));
        _cleanup_free_ char *cd = at("/etc/slurm/plugstack.d/c d.conf");
        assert_int_equal(unlink(cd), 0);
        mkdir_at("/tmp/inc", 0777, 0);
        assert_int_equal(plugstack_verdict("include /tmp/inc/*.conf\n", &e), -EINVAL);
        assert_non_null(strstr(e.buf, "includes from a directory"));
        assert_int_equal(plugstack_verdict("include /etc/*/x.conf\n", &e), -EINVAL);
        /* an include of itself ends at the depth bound, refused */
        assert_int_equal(plugstack_verdict("include /etc/slurm/plugstack.conf\n", &e), -EINVAL);
        assert_non_null(strstr(e.buf, "deep"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lexical),
                cmocka_unit_test(test_every_path_key),
                cmocka_unit_test_setup_teardown(test_fs_log, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fs_program, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fs_config, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fs_conf, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fs_plugstack, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
