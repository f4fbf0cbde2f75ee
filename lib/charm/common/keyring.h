/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster's auth keys as the secret carries them, and their rotation's stages (issue 31 §3).
 *
 * The auth key secret (authkey.h) holds "key" (base64: the key that signs) and, once a key was
 * rotated, "kid" (its id). During a rotation it also holds "other" and "other-kid" (the second
 * key) and "stage":
 *
 *   none    key = K1                   (no rotation)
 *   add     key = K1, other = K2 (new)  every unit learns K2; K1 still signs
 *   switch  key = K2, other = K1 (old)  every unit signs with K2; K1 still accepted
 *   none    key = K2                   K1 is gone
 *
 * The slurmctld leader moves to the next stage only when every unit of every related
 * application and every controller unit has confirmed the current one (its state string in its
 * unit bag: keyrotate.h), so two units never hold disjoint key sets.
 *
 * What a stage means on a machine depends on the generation (slurm/caps.h):
 * - 24.11 (auth/slurm): both keys go to slurm.jwks (owner SlurmUser, 0400), the default one
 *   marked "use":"default"; tokens carry its "kid" and a receiver verifies with the key of that
 *   kid, a token without kid with its default key (auth/slurm internal.c decode_jwt). slurm.key
 *   keeps the signing key. The daemons read the file at start and at their re-exec (SIGHUP:
 *   slurmctld, slurmd, sackd), slurmdbd at its start only. No RPC fails at any stage.
 * - 22.05 (munge): munged knows one key. "add" changes nothing; "switch" installs K2 and
 *   restarts munged, so between the first and the last unit's switch a credential made on one
 *   side fails on the other (the figure is measured by tests/cluster/charm-keyrotate.sh).
 *
 * Key material never leaves a strbuf wiped at release (strbuf_release_secret), the secret, or
 * the key files; state strings carry only key ids. */
#pragma once

#include <stdbool.h>

#include "charm/common/charm.h"
#include "util/strbuf.h"

typedef struct cJSON cJSON;

enum auth_keyring_stage {
        AUTH_KEYRING_NONE,
        AUTH_KEYRING_ADD,
        AUTH_KEYRING_SWITCH,
};

struct auth_keyring {
        struct strbuf key;   /* base64: the key that signs */
        char *kid;           /* its id; NULL: a key never rotated (24.11: slurm.key alone) */
        struct strbuf other; /* base64: the second key during a rotation; empty otherwise */
        char *other_kid;
        enum auth_keyring_stage stage;
};
#define AUTH_KEYRING_INIT { .key = STRBUF_INIT, .other = STRBUF_INIT }

/* The secret's content keys beside AUTH_KEY_SECRET_KEY ("key"). */
#define AUTH_KEYRING_KID "kid"
#define AUTH_KEYRING_OTHER "other"
#define AUTH_KEYRING_OTHER_KID "other-kid"
#define AUTH_KEYRING_STAGE "stage"
/* The id given to a key never rotated when its first rotation starts. */
#define AUTH_KEYRING_FIRST_KID "k0"

void auth_keyring_done(struct auth_keyring *k);
const char *auth_keyring_stage_name(enum auth_keyring_stage s);

/* Reads and checks a secret's content: every key valid (authkey.h sizes), ids of 1-64 of
 * [A-Za-z0-9_-], "other" exactly when a stage is set, the two ids different. -EINVAL with a
 * message naming the content key (never a value) in err. */
int auth_keyring_from_content(const cJSON *content, struct auth_keyring *ret, struct strbuf *err);

/* The secret's content (secret-get ID, fetch as juju.h), read and checked. The JSON text's key
 * strings are wiped before they are freed. */
int auth_keyring_read(struct juju_ctx *ctx, const char *secret_id, enum juju_secret_fetch fetch,
        struct auth_keyring *ret, struct strbuf *err);

/* "none:k0", "add:k0,k4f…", "switch:k4f…,k0", "none:" for a key never rotated: what a unit
 * confirms once it runs with these keys (ids only). Caller frees. */
char *auth_keyring_state(const struct auth_keyring *k);

/* The next stage's keys: none -> add (a new key and id from getrandom), add -> switch,
 * switch -> none. */
int auth_keyring_next(const struct auth_keyring *cur, struct auth_keyring *ret, struct strbuf *err);

/* The secret's content as YAML (for secret-set --file; values are base64 and ids: no escaping
 * needed). The caller wipes it (strbuf_release_secret). */
void auth_keyring_yaml(const struct auth_keyring *k, struct strbuf *ret);

/* slurm.jwks's text for k (the signing key first, "use":"default"). Caller wipes it. */
void auth_keyring_jwks(const struct auth_keyring *k, struct strbuf *ret);

/* Installs k on this machine as its generation reads keys (see above; authkey.h for the
 * single key file). Returns 1 when what the daemons load changed (24.11 with a key set:
 * slurm.jwks; else the key file), 0 when not, or a negative errno (message in err). */
int auth_keyring_install(const struct charm_paths *paths, const struct auth_keyring *k, struct strbuf *err);

/* Whether this generation's daemons take changed keys at a re-exec (SIGHUP) rather than a
 * restart: a key set file exists for them (24.11) and k uses it. */
bool auth_keyring_reloadable(const struct charm_paths *paths, const struct auth_keyring *k);

/* A running service made to load changed keys. Told by its re-exec where that reads them (24.11:
 * ExecReload's SIGHUP; the daemon hands its main PID to the new process once that one started,
 * slurmd.c _try_to_reconfig), waited for up to timeout; restarted where it does not: a daemon
 * that fetched its configuration (configless slurmd, sackd) pinned the key file it found at
 * its start in its environment (fetch_config.c: SLURM_SACK_KEY or SLURM_SACK_JWKS, inherited
 * by every re-exec), so one started before slurm.jwks existed reads slurm.key for good; and a
 * re-exec that did not come within timeout. 0 when done or the service does not run (it loads
 * the keys at its start), or a negative errno (err). */
/* How long a re-exec for new keys may take (it waits for its RPCs: MessageTimeout). */
#define KEYRING_RELOAD_USEC (30 * 1000 * 1000ULL)
int auth_keyring_reload(sd_bus *bus, const char *service, uint64_t timeout_usec, struct strbuf *err);

/* A unit bag's key: the state string of the keys the unit runs with (the controllers' leader
 * moves a rotation on when every unit confirmed its stage: charm/slurmctld/keyrotate.h). */
#define AUTH_KEYRING_ACK_KEY "auth-key-state"
/* The state string of a key never rotated; a unit bag without AUTH_KEYRING_ACK_KEY confirms it. */
#define AUTH_KEYRING_NEVER_ROTATED "none:"
/* Puts k's state string into this unit's bag of relation rel (NULL: nothing) when it differs
 * (a key never rotated: nothing written while the bag has no confirmation). */
int charm_keys_confirm(struct juju_ctx *ctx, const char *rel, const struct auth_keyring *k, struct strbuf *err);

/* Whether service's main process started after path was last written (by 50 ms at least: the
 * start time has the clock tick's precision), i.e. read the file as it is if it reads it at
 * its start or re-exec: 1 yes, or when the service does not run (it reads it at its start), 0
 * no, or a negative errno (err). */
int charm_daemon_newer_than(sd_bus *bus, const char *service, const char *path, struct strbuf *err);
