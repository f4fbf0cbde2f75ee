/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster's auth key: made once by the slurmctld leader (random bytes), carried base64 in
 * an application-owned Juju secret, written by every unit to the key file of the auth plugin.
 *
 * The file is the Slurm generation's (slurm/caps.h, charm_caps()): on 22.05 (auth/munge) the
 * key is AUTH_KEY_LEN random bytes in /etc/munge/munge.key, owner munge:munge, mode 0400, read
 * by munged at start only, so a changed key needs a munge restart; on 24.11 (auth/slurm) the
 * same bytes go to /etc/slurm/slurm.key, owner SlurmUser (slurm), mode 0400, read by the
 * Slurm daemons themselves at start, so a changed key needs a restart of slurmctld/slurmd.
 * Configless mode does not carry slurm.key: every unit installs it from the secret.
 *
 * The key never appears in argv, a databag, a log or an error message: the base64 text travels
 * only through the secret, decoded bytes only into the file (created 0400 from the first
 * byte, see util/fileio.h). Buffers that held it are wiped before they are freed.
 *
 * Ownership: base64 results are strbufs of the caller. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"

/* munge's own default key size (mungekey(8)): 1024 bits. */
#define AUTH_KEY_LEN 128
/* Accepted sizes when installing a key someone else made (munge needs at least 32 bytes). */
#define AUTH_KEY_MIN_LEN 32
#define AUTH_KEY_MAX_LEN 1024
/* The secret's label and its content key. */
#define AUTH_KEY_SECRET_LABEL "auth-key"
#define AUTH_KEY_SECRET_KEY "key"

/* Fills buf with len random bytes from getrandom(2). */
int auth_key_generate(void *buf, size_t len);
/* A new key, base64 (appended to ret). */
int auth_key_generate_base64(struct strbuf *ret);

/* Whether key_b64 is base64 of an acceptable key (as auth_key_install() takes it, nothing
 * written): 0, or -EINVAL with a message without the key in err (NULL: none). */
int auth_key_check(const char *key_b64, struct strbuf *err);

/* Decodes key_b64 and writes it to <root><caps key_path> (owner paths->key_user or the
 * generation's key owner, its key mode) when its bytes, owner or mode differ. Returns 1 when
 * written (the service reading it must be restarted), 0 when
 * unchanged, -EINVAL (message without the key) when the text is not base64 of an acceptable
 * key, or the write's negative errno. */
int auth_key_install(const struct charm_paths *paths, const char *key_b64, struct strbuf *err);

/* Overwrites and releases a strbuf that held key material. */
void strbuf_release_secret(struct strbuf *sb);
