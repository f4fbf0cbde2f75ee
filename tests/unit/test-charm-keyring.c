/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/charm/common/keyring: the secret's content checked (every field, never a
 * value in a message), the stages of a rotation, state strings, slurm.jwks, the YAML for
 * secret-set, and the installation per generation under a temporary root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/keyring.h"
#include "charm/common/authkey.h"
#include "util/base64.h"
#include "util/fileio.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tmpdir.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(cJSON *, cJSON_Delete)
#define _cleanup_cjson_ _cleanup_(cJSON_Deletep)

#include "util/banned.h"

static char *new_key(void) {
        _cleanup_strbuf_ struct strbuf k = STRBUF_INIT;
        assert_int_equal(auth_key_generate_base64(&k), 0);
        return strbuf_detach(&k, NULL);
}

static cJSON *content(const char *key, const char *kid, const char *other, const char *other_kid, const char *stage) {
        cJSON *j = cJSON_CreateObject();
        if (key)
                cJSON_AddStringToObject(j, "key", key);
        if (kid)
                cJSON_AddStringToObject(j, "kid", kid);
        if (other)
                cJSON_AddStringToObject(j, "other", other);
        if (other_kid)
                cJSON_AddStringToObject(j, "other-kid", other_kid);
        if (stage)
                cJSON_AddStringToObject(j, "stage", stage);
        return j;
}

static void test_from_content(void **state) {
        _cleanup_free_ char *k1 = new_key(), *k2 = new_key();
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring k = AUTH_KEYRING_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;

        /* a key never rotated */
        _cleanup_cjson_ cJSON *a = content(k1, NULL, NULL, NULL, NULL);
        assert_int_equal(auth_keyring_from_content(a, &k, &err), 0);
        assert_string_equal(k.key.buf, k1);
        assert_null(k.kid);
        assert_int_equal(k.stage, AUTH_KEYRING_NONE);
        _cleanup_free_ char *s = auth_keyring_state(&k);
        assert_string_equal(s, "none:");

        /* a stage */
        _cleanup_cjson_ cJSON *b = content(k1, "k0", k2, "kab", "add");
        assert_int_equal(auth_keyring_from_content(b, &k, &err), 0);
        assert_int_equal(k.stage, AUTH_KEYRING_ADD);
        assert_string_equal(k.other.buf, k2);
        _cleanup_free_ char *s2 = auth_keyring_state(&k);
        assert_string_equal(s2, "add:k0,kab");

        /* every refusal names a field, never a value */
        struct {
                cJSON *c;
                const char *field;
        } bad[] = {
                { content(NULL, NULL, NULL, NULL, NULL), "\"key\"" },
                { content("Zm9v", NULL, NULL, NULL, NULL), "\"key\"" },
                { content(k1, "bad kid", NULL, NULL, NULL), "\"kid\"" },
                { content(k1, "k0", NULL, NULL, "add"), "\"other\"" },
                { content(k1, "k0", k2, NULL, "add"), "\"other\"" },
                { content(k1, "k0", k2, "k1", NULL), "\"other\"" },
                { content(k1, NULL, k2, "k1", "add"), "\"kid\"" },
                { content(k1, "k0", k2, "k0", "switch"), "\"other-kid\"" },
                { content(k1, "k0", k1, "k1", "switch"), "equals" },
                { content(k1, "k0", "Zm9v", "k1", "switch"), "\"other\"" },
                { content(k1, "k0", k2, "k1", "later"), "\"stage\"" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&err);
                assert_int_equal(auth_keyring_from_content(bad[i].c, &k, &err), -EINVAL);
                if (!strstr(err.buf, bad[i].field))
                        fail_msg("case %zu: \"%s\" lacks %s", i, err.buf, bad[i].field);
                assert_null(strstr(err.buf, k1));
                assert_null(strstr(err.buf, k2));
                cJSON_Delete(bad[i].c);
        }
        /* a value of another type */
        _cleanup_cjson_ cJSON *n = content(k1, NULL, NULL, NULL, NULL);
        cJSON_AddNumberToObject(n, "stage", 1);
        strbuf_reset(&err);
        assert_int_equal(auth_keyring_from_content(n, &k, &err), -EINVAL);
        assert_non_null(strstr(err.buf, "\"stage\""));
}

/* Through its YAML and back: what secret-set carries is what the units read. */
static void roundtrip(const struct auth_keyring *k, struct auth_keyring *ret) {
        _cleanup_strbuf_ struct strbuf yaml = STRBUF_INIT, err = STRBUF_INIT;
        auth_keyring_yaml(k, &yaml);
        _cleanup_cjson_ cJSON *j = cJSON_CreateObject();
        char *save = NULL;
        for (char *line = strtok_r(yaml.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *colon = strstr(line, ": \"");
                assert_non_null(colon);
                *colon = '\0';
                char *v = colon + 3;
                assert_true(strlen(v) > 0 && v[strlen(v) - 1] == '"');
                v[strlen(v) - 1] = '\0';
                cJSON_AddStringToObject(j, line, v);
        }
        assert_int_equal(auth_keyring_from_content(j, ret, &err), 0);
}

static void test_stages(void **state) {
        _cleanup_free_ char *k1 = new_key();
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring a = AUTH_KEYRING_INIT,
                                                                            b = AUTH_KEYRING_INIT,
                                                                            c = AUTH_KEYRING_INIT,
                                                                            d = AUTH_KEYRING_INIT,
                                                                            e = AUTH_KEYRING_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        strbuf_addstr(&a.key, k1);

        /* none -> add: the old key still signs, under its first id */
        assert_int_equal(auth_keyring_next(&a, &b, &err), 0);
        assert_int_equal(b.stage, AUTH_KEYRING_ADD);
        assert_string_equal(b.key.buf, k1);
        assert_string_equal(b.kid, AUTH_KEYRING_FIRST_KID);
        assert_string_not_equal(b.other.buf, k1);
        assert_int_equal(auth_key_check(b.other.buf, NULL), 0);
        assert_string_not_equal(b.other_kid, b.kid);
        roundtrip(&b, &e);
        assert_string_equal(e.other.buf, b.other.buf);
        assert_int_equal(e.stage, AUTH_KEYRING_ADD);

        /* add -> switch: the new key signs, the old one is kept */
        assert_int_equal(auth_keyring_next(&b, &c, &err), 0);
        assert_int_equal(c.stage, AUTH_KEYRING_SWITCH);
        assert_string_equal(c.key.buf, b.other.buf);
        assert_string_equal(c.kid, b.other_kid);
        assert_string_equal(c.other.buf, k1);
        assert_string_equal(c.other_kid, AUTH_KEYRING_FIRST_KID);
        roundtrip(&c, &e);
        assert_int_equal(e.stage, AUTH_KEYRING_SWITCH);

        /* switch -> none: the old key is gone */
        assert_int_equal(auth_keyring_next(&c, &d, &err), 0);
        assert_int_equal(d.stage, AUTH_KEYRING_NONE);
        assert_string_equal(d.key.buf, c.key.buf);
        assert_string_equal(d.kid, c.kid);
        assert_int_equal(d.other.len, 0);
        assert_null(d.other_kid);
        roundtrip(&d, &e);
        assert_int_equal(e.stage, AUTH_KEYRING_NONE);
        assert_string_equal(e.kid, d.kid);
        _cleanup_free_ char *s = auth_keyring_state(&d);
        _cleanup_free_ char *want = xasprintf("none:%s", d.kid);
        assert_string_equal(s, want);

        /* the next rotation gets yet another id */
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring f = AUTH_KEYRING_INIT;
        assert_int_equal(auth_keyring_next(&d, &f, &err), 0);
        assert_string_equal(f.kid, d.kid);
        assert_string_not_equal(f.other_kid, d.kid);
        assert_string_not_equal(f.other_kid, AUTH_KEYRING_FIRST_KID);
}

static void test_jwks(void **state) {
        _cleanup_free_ char *k1 = new_key(), *k2 = new_key();
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring k = AUTH_KEYRING_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
        _cleanup_cjson_ cJSON *c = content(k2, "kab", k1, "k0", "switch");
        assert_int_equal(auth_keyring_from_content(c, &k, &err), 0);
        auth_keyring_jwks(&k, &out);
        /* what auth/slurm's reader requires (internal.c _build_key_list) */
        _cleanup_cjson_ cJSON *j = cJSON_Parse(out.buf);
        assert_non_null(j);
        const cJSON *keys = cJSON_GetObjectItemCaseSensitive(j, "keys");
        assert_int_equal(cJSON_GetArraySize(keys), 2);
        int defaults = 0;
        for (int i = 0; i < 2; i++) {
                const cJSON *e = cJSON_GetArrayItem(keys, i);
                assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(e, "alg")), "HS256");
                assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(e, "kty")), "oct");
                const char *kid = cJSON_GetStringValue(cJSON_GetObjectItem(e, "kid"));
                const char *kk = cJSON_GetStringValue(cJSON_GetObjectItem(e, "k"));
                const char *use = cJSON_GetStringValue(cJSON_GetObjectItem(e, "use"));
                assert_string_equal(kk, streq(kid, "kab") ? k2 : k1);
                if (use) {
                        assert_string_equal(use, "default");
                        assert_string_equal(kid, "kab");
                        defaults++;
                }
        }
        assert_int_equal(defaults, 1);
}

static void test_install(void **state) {
        const char *root = *state;
        _cleanup_free_ char *k1 = new_key(), *k2 = new_key();
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring k = AUTH_KEYRING_INIT;
        struct stat st;

        /* 24.11: slurm.key alone until a key has an id; then slurm.jwks, 0400 */
        const struct charm_paths p = { .root = root, .key_user = "root", .caps = slurm_caps_find("24.11") };
        _cleanup_free_ char *jwks = xasprintf("%s/etc/slurm/slurm.jwks", root);
        _cleanup_free_ char *key = xasprintf("%s/etc/slurm/slurm.key", root);
        strbuf_addstr(&k.key, k1);
        assert_false(auth_keyring_reloadable(&p, &k));
        assert_int_equal(auth_keyring_install(&p, &k, &err), 1);
        assert_int_equal(access(jwks, F_OK), -1);
        assert_int_equal(auth_keyring_install(&p, &k, &err), 0);

        _cleanup_cjson_ cJSON *c = content(k1, "k0", k2, "kab", "add");
        assert_int_equal(auth_keyring_from_content(c, &k, &err), 0);
        assert_true(auth_keyring_reloadable(&p, &k));
        assert_int_equal(auth_keyring_install(&p, &k, &err), 1);
        assert_int_equal(stat(jwks, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0400);
        assert_int_equal(auth_keyring_install(&p, &k, &err), 0);
        /* the signing key moves: slurm.jwks changes, slurm.key follows */
        _cleanup_cjson_ cJSON *d = content(k2, "kab", k1, "k0", "switch");
        assert_int_equal(auth_keyring_from_content(d, &k, &err), 0);
        assert_int_equal(auth_keyring_install(&p, &k, &err), 1);
        _cleanup_strbuf_ struct strbuf raw = STRBUF_INIT;
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        assert_int_equal(base64_decode(k2, &raw), 0);
        assert_int_equal(read_full_file(key, &data, &len), 0);
        assert_int_equal(len, raw.len);
        assert_memory_equal(data, raw.buf, len);

        /* 22.05: munge.key is the signing key; the stage's other key goes nowhere */
        const struct charm_paths q = { .root = root, .key_user = "root", .caps = slurm_caps_find("22.05") };
        _cleanup_cjson_ cJSON *e = content(k1, "k0", k2, "kab", "add");
        assert_int_equal(auth_keyring_from_content(e, &k, &err), 0);
        assert_false(auth_keyring_reloadable(&q, &k));
        assert_int_equal(auth_keyring_install(&q, &k, &err), 1);
        assert_int_equal(auth_keyring_install(&q, &k, &err), 0);
        _cleanup_cjson_ cJSON *f = content(k2, "kab", k1, "k0", "switch");
        assert_int_equal(auth_keyring_from_content(f, &k, &err), 0);
        assert_int_equal(auth_keyring_install(&q, &k, &err), 1);
        _cleanup_free_ char *munge = xasprintf("%s/etc/munge/munge.key", root), *mdata = NULL;
        assert_int_equal(read_full_file(munge, &mdata, &len), 0);
        assert_int_equal(len, raw.len);
        assert_memory_equal(mdata, raw.buf, len);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_from_content),
                cmocka_unit_test(test_stages),
                cmocka_unit_test(test_jwks),
                cmocka_unit_test_setup_teardown(test_install, test_tmpdir_setup, test_tmpdir_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
