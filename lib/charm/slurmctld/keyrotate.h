/* SPDX-License-Identifier: Apache-2.0 */
/* The auth key's rotation, driven by the slurmctld leader (issue 31 §3; the stages and what
 * they mean on a machine: charm/common/keyring.h).
 *
 * Every unit that holds the key (controller units, and the units of every related slurmd,
 * login and slurmdbd application) puts the state string of the keys it runs with
 * (auth_keyring_state) into its own bag of the relation with the controllers (the peer
 * relation for controller units) under AUTH_KEYRING_ACK_KEY, once its daemons loaded them.
 *
 * The action rotate-auth-key (leader only) starts a rotation when no other runs and every unit
 * confirmed the current keys: the secret gets the "add" stage as a new revision
 * (secret-changed for every observer unit) and the peer application bag its state (relation-
 * changed for the other controller units, which own the secret and get no secret-changed).
 * At each of its hooks the leader moves to the next stage once every unit confirmed the current
 * one. A unit that never confirms (paused, its machine gone, a daemon that did not reload)
 * holds the rotation at its stage, named in the leader's status; no unit is ever left with keys
 * that another unit's credentials cannot be checked with. */
#pragma once

#include "charm/common/charm.h"
#include "charm/common/keyring.h"
#include "util/strv.h"


/* Every unit of rels (relation ids; the peer relation among them) and the calling unit
 * (self_state: what it runs with) against want: the units that did not confirm it go to
 * ret_waiting ("unit (its state)"). */
int keyrotate_waiting(struct juju_ctx *ctx, const struct strv *rels, const char *self_state, const char *want,
        struct strv *ret_waiting, struct strbuf *err);

/* Leader, at the end of a hook, cur being the keys this unit now runs with: when a rotation runs
 * and every other unit confirmed cur's stage, the next stage goes to the secret and its state to
 * the peer application bag (peer_rel, NULL: none), and ret_next holds it (the caller installs it
 * and calls again: a leader alone goes through every stage at once). note (may be NULL): what
 * the rotation waits for, for the status. Returns 1 when a stage was moved on, 0 when not. */
int keyrotate_advance(struct juju_ctx *ctx, const char *secret_id, const char *peer_rel, const struct strv *rels,
        const struct auth_keyring *cur, struct auth_keyring *ret_next, struct strbuf *note, struct strbuf *err);

/* The action rotate-auth-key: -EBUSY (why in err) when a rotation runs or a unit has not
 * confirmed the current keys; else the "add" stage is out and in ret_next (the caller installs
 * it). Results in kv: "stage", "key-id" (the new key's), "units" (how many confirm each
 * stage). */
int keyrotate_start(struct juju_ctx *ctx, const char *secret_id, const char *peer_rel, const struct strv *rels,
        const char *self_state, struct auth_keyring *ret_next, struct strv *kv, struct strbuf *err);
