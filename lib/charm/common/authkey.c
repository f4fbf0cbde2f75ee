/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster's auth key: base64, generation from getrandom(2), installation as the
 * generation's key file (munge.key or slurm.key) with owner and mode exact from the first
 * byte. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/authkey.h"
#include "util/base64.h"
#include "util/fileio.h"

#include <sys/random.h>

#include "util/banned.h"

int auth_key_generate(void *buf, size_t len) {
        size_t done = 0;
        for (unsigned tries = 0; done < len && tries < 64; tries++) {
                ssize_t k = getrandom((char *) buf + done, len - done, 0);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                done += (size_t) k;
        }
        return done == len ? 0 : -EIO;
}

int auth_key_generate_base64(struct strbuf *ret) {
        unsigned char key[AUTH_KEY_LEN];
        int r = auth_key_generate(key, sizeof key);
        if (r >= 0)
                base64_encode(key, sizeof key, ret);
        explicit_bzero(key, sizeof key);
        return r;
}

void strbuf_release_secret(struct strbuf *sb) {
        if (sb->alloc > 0)
                explicit_bzero(sb->buf, sb->alloc);
        strbuf_release(sb);
}

static void strbuf_release_secretp(struct strbuf *sb) {
        strbuf_release_secret(sb);
}

/* key_b64 decoded into key (a secret buffer of the caller), checked: 0 or -EINVAL (err). */
static int key_decode(const char *key_b64, struct strbuf *key, struct strbuf *err) {
        if (isempty(key_b64) || base64_decode(key_b64, key) < 0) {
                strbuf_addstr(err, "auth key: not valid base64");
                return -EINVAL;
        }
        if (key->len < AUTH_KEY_MIN_LEN || key->len > AUTH_KEY_MAX_LEN) {
                strbuf_addf(err, "auth key: %zu bytes (want %d to %d)", key->len, AUTH_KEY_MIN_LEN,
                        AUTH_KEY_MAX_LEN);
                return -EINVAL;
        }
        return 0;
}

int auth_key_check(const char *key_b64, struct strbuf *err) {
        __attribute__((__cleanup__(strbuf_release_secretp))) struct strbuf key = STRBUF_INIT;
        return key_decode(key_b64, &key, err);
}

int auth_key_install(const struct charm_paths *paths, const char *key_b64, struct strbuf *err) {
        __attribute__((__cleanup__(strbuf_release_secretp))) struct strbuf key = STRBUF_INIT;
        uid_t uid;
        gid_t gid;
        int r;

        r = key_decode(key_b64, &key, err);
        if (r < 0)
                return r;
        const struct slurm_caps *caps = charm_caps(paths);
        r = charm_lookup_user(paths->key_user, caps->key_owner, &uid, &gid, err);
        if (r < 0)
                return r;

        _cleanup_free_ char *path = charm_path(paths, caps->key_path);
        _cleanup_free_ char *dir = charm_path(paths, caps->key_dir);
        /* munged runs as munge and must reach its key: a private directory we create is the
         * key owner's; a shared one (/etc/slurm) is root's and readable */
        if (access(dir, F_OK) < 0) {
                r = mkdir_p(dir, caps->key_dir_private ? 0700 : 0755);
                if (r >= 0 && caps->key_dir_private)
                        r = RET_NERRNO(chown(dir, uid, gid));
                if (r < 0) {
                        strbuf_addf(err, "%s: %s", dir, strerror(-r));
                        return r;
                }
        }
        r = write_file_atomic_if_changed(path, key.buf, key.len, caps->key_mode, uid, gid);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}
