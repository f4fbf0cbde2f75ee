/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster's auth key: base64, generation from getrandom(2), installation as the
 * generation's key file (munge.key or slurm.key) with owner and mode exact from the first
 * byte. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/authkey.h"
#include "util/fileio.h"

#include <sys/random.h>

#include "util/banned.h"

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(const void *data, size_t len, struct strbuf *out) {
        const unsigned char *p = data;
        strbuf_grow(out, (len + 2) / 3 * 4);
        for (size_t i = 0; i < len; i += 3) {
                uint32_t v = (uint32_t) p[i] << 16;
                if (i + 1 < len)
                        v |= (uint32_t) p[i + 1] << 8;
                if (i + 2 < len)
                        v |= p[i + 2];
                strbuf_addch(out, b64_alphabet[(v >> 18) & 63]);
                strbuf_addch(out, b64_alphabet[(v >> 12) & 63]);
                strbuf_addch(out, i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=');
                strbuf_addch(out, i + 2 < len ? b64_alphabet[v & 63] : '=');
        }
}

static int b64_value(char c) {
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        if (c == '+')
                return 62;
        if (c == '/')
                return 63;
        return -1;
}

int base64_decode(const char *s, struct strbuf *out) {
        size_t n = strlen(s), start = out->len;
        if (n % 4 != 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i += 4) {
                int v[4];
                size_t pad = 0;
                for (size_t j = 0; j < 4; j++) {
                        if (s[i + j] == '=' && i + 4 == n && j >= 2) {
                                v[j] = 0;
                                pad++;
                                continue;
                        }
                        v[j] = pad ? -1 : b64_value(s[i + j]);
                        if (v[j] < 0) {
                                strbuf_setlen(out, start);
                                return -EINVAL;
                        }
                }
                /* "=" only at the end, and "x=y=" is not padding */
                if (pad == 1 && s[i + 2] == '=') {
                        strbuf_setlen(out, start);
                        return -EINVAL;
                }
                uint32_t w = (uint32_t) v[0] << 18 | (uint32_t) v[1] << 12 | (uint32_t) v[2] << 6 |
                        (uint32_t) v[3];
                strbuf_addch(out, (char) (w >> 16));
                if (pad < 2)
                        strbuf_addch(out, (char) (w >> 8));
                if (pad < 1)
                        strbuf_addch(out, (char) w);
        }
        return 0;
}

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

int auth_key_install(const struct charm_paths *paths, const char *key_b64, struct strbuf *err) {
        __attribute__((__cleanup__(strbuf_release_secretp))) struct strbuf key = STRBUF_INIT;
        uid_t uid;
        gid_t gid;
        int r;

        if (isempty(key_b64) || base64_decode(key_b64, &key) < 0) {
                strbuf_addstr(err, "auth key: not valid base64");
                return -EINVAL;
        }
        if (key.len < AUTH_KEY_MIN_LEN || key.len > AUTH_KEY_MAX_LEN) {
                strbuf_addf(err, "auth key: %zu bytes (want %d to %d)", key.len, AUTH_KEY_MIN_LEN,
                        AUTH_KEY_MAX_LEN);
                return -EINVAL;
        }
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
