/* SPDX-License-Identifier: Apache-2.0 */
/* The auth key secret's keys and rotation stages: checked reading, the next stage, the YAML for
 * secret-set, slurm.jwks, and the installation on a machine. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/keyring.h"
#include "charm/common/authkey.h"
#include "proc/proc.h"
#include "systemd/unit.h"
#include "util/fileio.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>

#include "util/banned.h"

static const char *const stage_names[] = {
        [AUTH_KEYRING_NONE] = "none",
        [AUTH_KEYRING_ADD] = "add",
        [AUTH_KEYRING_SWITCH] = "switch",
};

const char *auth_keyring_stage_name(enum auth_keyring_stage s) {
        return (size_t) s < ELEMENTSOF(stage_names) ? stage_names[s] : "?";
}

void auth_keyring_done(struct auth_keyring *k) {
        strbuf_release_secret(&k->key);
        strbuf_release_secret(&k->other);
        free(k->kid);
        free(k->other_kid);
        k->kid = k->other_kid = NULL;
        k->stage = AUTH_KEYRING_NONE;
}

static bool kid_valid(const char *s) {
        size_t n = 0;
        for (; s[n]; n++)
                if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9') ||
                            s[n] == '-' || s[n] == '_'))
                        return false;
        return n >= 1 && n <= 64;
}

/* content[name] as a string, or NULL when absent; -EINVAL when present and not a string. */
static int opt_string(const cJSON *content, const char *name, const char **ret, struct strbuf *err) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(content, name);
        *ret = NULL;
        if (!v)
                return 0;
        if (!cJSON_IsString(v)) {
                strbuf_addf(err, "auth key secret: \"%s\" is not a string", name);
                return -EINVAL;
        }
        *ret = v->valuestring;
        return 0;
}

int auth_keyring_from_content(const cJSON *content, struct auth_keyring *ret, struct strbuf *err) {
        const char *key = NULL, *kid = NULL, *other = NULL, *other_kid = NULL, *stage = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r;

        if (!cJSON_IsObject(content)) {
                strbuf_addstr(err, "auth key secret: no content");
                return -EINVAL;
        }
        if ((r = opt_string(content, AUTH_KEY_SECRET_KEY, &key, err)) < 0 ||
                (r = opt_string(content, AUTH_KEYRING_KID, &kid, err)) < 0 ||
                (r = opt_string(content, AUTH_KEYRING_OTHER, &other, err)) < 0 ||
                (r = opt_string(content, AUTH_KEYRING_OTHER_KID, &other_kid, err)) < 0 ||
                (r = opt_string(content, AUTH_KEYRING_STAGE, &stage, err)) < 0)
                return r;
        if (!key) {
                strbuf_addf(err, "auth key secret: no \"%s\"", AUTH_KEY_SECRET_KEY);
                return -EINVAL;
        }
        if (auth_key_check(key, &e) < 0) {
                strbuf_addf(err, "auth key secret: \"%s\": %s", AUTH_KEY_SECRET_KEY, e.buf);
                return -EINVAL;
        }
        if (kid && !kid_valid(kid)) {
                strbuf_addf(err, "auth key secret: \"%s\" is not a key id (1-64 of A-Z a-z 0-9 - _)", AUTH_KEYRING_KID);
                return -EINVAL;
        }
        enum auth_keyring_stage s = AUTH_KEYRING_NONE;
        if (stage) {
                size_t i;
                for (i = 0; i < ELEMENTSOF(stage_names); i++)
                        if (streq(stage, stage_names[i]))
                                break;
                if (i == ELEMENTSOF(stage_names)) {
                        strbuf_addf(err, "auth key secret: \"%s\" is not none, add or switch", AUTH_KEYRING_STAGE);
                        return -EINVAL;
                }
                s = (enum auth_keyring_stage) i;
        }
        if ((s != AUTH_KEYRING_NONE) != (other != NULL) || (other != NULL) != (other_kid != NULL) ||
                (other && !kid)) {
                strbuf_addf(err, "auth key secret: \"%s\" and \"%s\" go with a stage of a rotation and a \"%s\"",
                        AUTH_KEYRING_OTHER, AUTH_KEYRING_OTHER_KID, AUTH_KEYRING_KID);
                return -EINVAL;
        }
        if (other) {
                strbuf_reset(&e);
                if (auth_key_check(other, &e) < 0) {
                        strbuf_addf(err, "auth key secret: \"%s\": %s", AUTH_KEYRING_OTHER, e.buf);
                        return -EINVAL;
                }
                if (!kid_valid(other_kid) || streq(other_kid, kid)) {
                        strbuf_addf(err, "auth key secret: \"%s\" is not a key id or equals \"%s\"",
                                AUTH_KEYRING_OTHER_KID, AUTH_KEYRING_KID);
                        return -EINVAL;
                }
                if (streq(other, key)) {
                        strbuf_addf(err, "auth key secret: \"%s\" equals \"%s\"", AUTH_KEYRING_OTHER,
                                AUTH_KEY_SECRET_KEY);
                        return -EINVAL;
                }
        }
        auth_keyring_done(ret);
        strbuf_addstr(&ret->key, key);
        ret->kid = kid ? xstrdup(kid) : NULL;
        if (other) {
                strbuf_addstr(&ret->other, other);
                ret->other_kid = xstrdup(other_kid);
        }
        ret->stage = s;
        return 0;
}

/* Wipes every string value of a secret's content before it is freed. */
static void content_wipe_delete(cJSON *j) {
        cJSON *it;
        cJSON_ArrayForEach(it, j) if (cJSON_IsString(it) && it->valuestring)
                explicit_bzero(it->valuestring, strlen(it->valuestring));
        cJSON_Delete(j);
}

int auth_keyring_read(struct juju_ctx *ctx, const char *secret_id, enum juju_secret_fetch fetch,
        struct auth_keyring *ret, struct strbuf *err) {
        cJSON *j = NULL;
        int r = juju_secret_get(ctx, secret_id, NULL, fetch, &j, err);
        if (r < 0)
                return r;
        r = auth_keyring_from_content(j, ret, err);
        content_wipe_delete(j);
        return r;
}

char *auth_keyring_state(const struct auth_keyring *k) {
        if (k->stage == AUTH_KEYRING_NONE || !k->other_kid)
                return xasprintf("%s:%s", auth_keyring_stage_name(k->stage), strempty(k->kid));
        return xasprintf("%s:%s,%s", auth_keyring_stage_name(k->stage), strempty(k->kid), k->other_kid);
}

static int new_kid(const struct auth_keyring *cur, char **ret, struct strbuf *err) {
        unsigned char b[8];
        for (unsigned tries = 0; tries < 4; tries++) {
                int r = auth_key_generate(b, sizeof b);
                if (r < 0) {
                        strbuf_addf(err, "key id: getrandom: %s", strerror(-r));
                        return r;
                }
                char *s = xasprintf("k%02x%02x%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5],
                        b[6], b[7]);
                if (!streq_ptr(s, cur->kid) && !streq_ptr(s, cur->other_kid)) {
                        *ret = s;
                        return 0;
                }
                free(s);
        }
        strbuf_addstr(err, "key id: no new id");
        return -EIO;
}

int auth_keyring_next(const struct auth_keyring *cur, struct auth_keyring *ret, struct strbuf *err) {
        int r;
        auth_keyring_done(ret);
        switch (cur->stage) {
        case AUTH_KEYRING_NONE:
                r = auth_key_generate_base64(&ret->other);
                if (r < 0) {
                        strbuf_addf(err, "new key: getrandom: %s", strerror(-r));
                        return r;
                }
                r = new_kid(cur, &ret->other_kid, err);
                if (r < 0)
                        return r;
                strbuf_addstr(&ret->key, cur->key.buf);
                ret->kid = xstrdup(cur->kid ? cur->kid : AUTH_KEYRING_FIRST_KID);
                if (streq(ret->kid, ret->other_kid)) /* "k0" is not of new_kid's form */
                        return -EIO;
                ret->stage = AUTH_KEYRING_ADD;
                return 0;
        case AUTH_KEYRING_ADD:
                strbuf_addstr(&ret->key, cur->other.buf);
                ret->kid = xstrdup(cur->other_kid);
                strbuf_addstr(&ret->other, cur->key.buf);
                ret->other_kid = xstrdup(cur->kid);
                ret->stage = AUTH_KEYRING_SWITCH;
                return 0;
        case AUTH_KEYRING_SWITCH:
                strbuf_addstr(&ret->key, cur->key.buf);
                ret->kid = xstrdup(cur->kid);
                ret->stage = AUTH_KEYRING_NONE;
                return 0;
        }
        return -EINVAL;
}

void auth_keyring_yaml(const struct auth_keyring *k, struct strbuf *ret) {
        strbuf_addf(ret, "%s: \"%s\"\n", AUTH_KEY_SECRET_KEY, k->key.buf);
        if (k->kid)
                strbuf_addf(ret, "%s: \"%s\"\n", AUTH_KEYRING_KID, k->kid);
        if (k->stage != AUTH_KEYRING_NONE) {
                strbuf_addf(ret, "%s: \"%s\"\n", AUTH_KEYRING_OTHER, k->other.buf);
                strbuf_addf(ret, "%s: \"%s\"\n", AUTH_KEYRING_OTHER_KID, k->other_kid);
                strbuf_addf(ret, "%s: \"%s\"\n", AUTH_KEYRING_STAGE, auth_keyring_stage_name(k->stage));
        }
}

void auth_keyring_jwks(const struct auth_keyring *k, struct strbuf *ret) {
        /* base64 and the ids need no JSON escaping; standard base64 is accepted for "k"
         * (internal.c: xbase64_from_base64url leaves it as it is) */
        strbuf_addf(ret,
                "{\"keys\":[{\"alg\":\"HS256\",\"kty\":\"oct\",\"kid\":\"%s\",\"k\":\"%s\",\"use\":\"default\"}",
                strempty(k->kid), k->key.buf);
        if (k->other.len)
                strbuf_addf(ret, ",{\"alg\":\"HS256\",\"kty\":\"oct\",\"kid\":\"%s\",\"k\":\"%s\"}", k->other_kid,
                        k->other.buf);
        strbuf_addstr(ret, "]}\n");
}

bool auth_keyring_reloadable(const struct charm_paths *paths, const struct auth_keyring *k) {
        return charm_caps(paths)->keyset_path && k->kid;
}

int auth_keyring_install(const struct charm_paths *paths, const struct auth_keyring *k, struct strbuf *err) {
        const struct slurm_caps *caps = charm_caps(paths);
        int key_changed = auth_key_install(paths, k->key.buf, err);
        if (key_changed < 0 || !auth_keyring_reloadable(paths, k))
                return key_changed;
        /* 24.11 with key ids: the set the daemons read instead of slurm.key */
        __attribute__((__cleanup__(strbuf_release_secret))) struct strbuf text = STRBUF_INIT;
        uid_t uid;
        gid_t gid;
        int r = charm_lookup_user(paths->key_user, caps->key_owner, &uid, &gid, err);
        if (r < 0)
                return r;
        auth_keyring_jwks(k, &text);
        _cleanup_free_ char *path = charm_path(paths, caps->keyset_path);
        r = write_file_atomic_if_changed(path, text.buf, text.len, caps->key_mode, uid, gid);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

/* Whether process pid's environment pins slurm.key (SLURM_SACK_KEY set, SLURM_SACK_JWKS not). */
static bool pinned_to_key(uint32_t pid) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%u/environ", pid);
        _cleanup_free_ char *env = NULL;
        size_t len = 0;
        if (read_full_file(path, &env, &len) < 0)
                return false;
        bool key = false, jwks = false;
        for (size_t at = 0; at < len; at += strlen(env + at) + 1) {
                key = key || startswith(env + at, "SLURM_SACK_KEY=");
                jwks = jwks || startswith(env + at, "SLURM_SACK_JWKS=");
        }
        return key && !jwks;
}

int auth_keyring_reload(sd_bus *bus, const char *service, uint64_t timeout_usec, struct strbuf *err) {
        struct unit_state st;
        int r = unit_get_state(bus, service, &st, err);
        if (r < 0)
                return r;
        if (!streq(st.active_state, "active") || st.main_pid == 0)
                return 0;
        uint32_t old = st.main_pid;
        if (pinned_to_key(old))
                return unit_restart(bus, service, timeout_usec, err);
        r = unit_reload(bus, service, timeout_usec, err);
        if (r < 0)
                return r;
        const uint64_t step = 100 * 1000;
        for (uint64_t waited = 0; waited < timeout_usec; waited += step) {
                r = unit_get_state(bus, service, &st, err);
                if (r < 0)
                        return r;
                if (st.main_pid != 0 && st.main_pid != old && streq(st.active_state, "active"))
                        return 0;
                if (!streq(st.active_state, "active") && !streq(st.active_state, "reloading"))
                        break;
                (void) usleep((useconds_t) step);
        }
        /* no re-exec (a reconfigure that failed goes on with the old keys) */
        return unit_restart(bus, service, timeout_usec, err);
}

int charm_keys_confirm(struct juju_ctx *ctx, const char *rel, const struct auth_keyring *k, struct strbuf *err) {
        const cJSON *bag = NULL;
        if (!rel)
                return 0;
        int r = juju_relation_get(ctx, rel, juju_env(ctx)->unit, &bag, err);
        if (r < 0)
                return r;
        _cleanup_free_ char *state = auth_keyring_state(k);
        /* a key never rotated is confirmed by saying nothing (keyrotate_waiting): no bag write,
         * so no relation event, until a rotation begins */
        if (streq(state, AUTH_KEYRING_NEVER_ROTATED) && isempty(charm_bag_string(bag, AUTH_KEYRING_ACK_KEY)))
                return 0;
        r = charm_bag_update(ctx, rel, false, bag, AUTH_KEYRING_ACK_KEY, state, err);
        return r < 0 ? r : 0;
}

int charm_daemon_newer_than(sd_bus *bus, const char *service, const char *path, struct strbuf *err) {
        struct unit_state st;
        struct stat sb;
        int64_t started = 0;
        int r = unit_get_state(bus, service, &st, err);
        if (r < 0)
                return r;
        if (!streq(st.active_state, "active") || st.main_pid == 0)
                return 1;
        if (stat(path, &sb) < 0) {
                r = -errno;
                strbuf_addf(err, "%s: %s", path, strerror(errno));
                return r;
        }
        r = proc_pid_started((pid_t) st.main_pid, &started);
        if (r == -ESRCH)
                return 1; /* gone meanwhile: its successor reads the file */
        if (r < 0) {
                strbuf_addf(err, "%s: process %u: %s", service, st.main_pid, strerror(-r));
                return r;
        }
        int64_t written = (int64_t) sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
        return started >= written + 50 ? 1 : 0;
}
