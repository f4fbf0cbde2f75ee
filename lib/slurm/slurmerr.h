/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm error codes to negative errno, and the one message format every lib/slurm function uses
 * ("<what>: <slurm_strerror text>").
 *
 * libslurm 22.05 reports failure in two ways: most calls return -1 (SLURM_ERROR) and leave the
 * code in errno (slurm_get_errno()), some (slurm_requeue, seen by test) return the code itself.
 * slurm_rc_code() folds both into one positive code. Codes below 1000 are plain errno values; slurm's own
 * codes (slurm_errno.h) are mapped here: ESLURM_INVALID_NODE_NAME             -ENOENT   (no such node)
 *   ESLURM_INVALID_JOB_ID                -ESRCH    (no such job)
 *   ESLURM_NODES_BUSY                    -EBUSY    ("Requested nodes are busy")
 *   ESLURM_ALREADY_DONE                  -EALREADY (job already finished)
 *   ESLURM_ACCESS_DENIED, ESLURM_USER_ID_MISSING, SLURM_PROTOCOL_AUTHENTICATION_ERROR,
 *   ESLURM_AUTH_CRED_INVALID, ESLURM_AUTH_*                      -EACCES
 *   ESLURM_DISABLED, ESLURM_BATCH_ONLY, ESLURM_NOT_SUPPORTED      -EOPNOTSUPP
 *   ESLURM_TRANSITION_STATE_NO_UPDATE, ESLURM_JOB_PENDING         -EAGAIN
 *   SLURM_COMMUNICATIONS_*, SLURMCTLD_COMMUNICATIONS_*, socket errors,
 *   and the plain ECONNRESET, EPIPE, ECONNABORTED, ENOTCONN (a lost connection) -ECONNREFUSED
 *   SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT, ESLURM_*TIMEOUT*                   -ETIMEDOUT
 *   ESLURM_INVALID_NODE_STATE, ESLURM_INVALID_FEATURE, ESLURM_INVALID_GRES*   -EINVAL
 *   ESLURM_IN_STANDBY_MODE, ESLURM_IN_STANDBY_USE_BACKUP  -EHOSTDOWN (a standby answered, none in charge did)
 *   anything else                                                          -EIO
 * Ownership: none; messages are appended to the caller's strbuf. */
#pragma once

#include "util/strbuf.h"

/* The slurm error code of a failed call: rc when rc > 0, else slurm_get_errno() (or
 * SLURM_ERROR's generic code when that is 0). */
int slurm_rc_code(int rc);
/* Negative errno for a slurm error code (see the table above); 0 for 0. */
int slurm_code_to_errno(int code);
/* Appends "<what formatted>: <slurm_strerror(code)>" to err (if not NULL) and returns
 * slurm_code_to_errno(code). */
int slurm_fail(struct strbuf *err, int code, const char *fmt, ...) __attribute__((__format__(printf, 3, 4)));
