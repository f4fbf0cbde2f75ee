/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm error codes to negative errno, and the message format of lib/slurm.
 * The table is in slurmerr.h. */
#include "util/macro.h"
#include "slurm/slurmerr.h"

#include <stdarg.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm/compat.h"

#include "util/banned.h"

int slurm_rc_code(int rc) {
        int code;
        if (rc > 0)
                return rc;
        code = slurm_last_errno();
        return code > 0 ? code : SLURM_UNEXPECTED_MSG_ERROR;
}

int slurm_code_to_errno(int code) {
        if (code == 0)
                return 0;
        if (code < 0)
                return -EIO;
        if (code < 1000) {
                /* a plain errno value; a connection lost in the middle (slurmctld restarting:
                 * 24.11's reconfigure re-executes it, a controller's hook beside this one under
                 * Juju, issue 28) is one that could not be made: callers wait or say unreachable */
                if (code == ECONNRESET || code == EPIPE || code == ECONNABORTED || code == ENOTCONN)
                        return -ECONNREFUSED;
                return -code;
        }

        switch (code) {
        case ESLURM_INVALID_NODE_NAME:
                return -ENOENT;
        case ESLURM_INVALID_JOB_ID:
                return -ESRCH;
        case ESLURM_NODES_BUSY:
                return -EBUSY;
        case ESLURM_ALREADY_DONE:
                return -EALREADY;
        case ESLURM_ACCESS_DENIED:
        case ESLURM_USER_ID_MISSING:
        case SLURM_PROTOCOL_AUTHENTICATION_ERROR:
                return -EACCES;
        case ESLURM_DISABLED:
        case ESLURM_BATCH_ONLY:
        case ESLURM_NOT_SUPPORTED:
                return -EOPNOTSUPP;
        case ESLURM_TRANSITION_STATE_NO_UPDATE:
        case ESLURM_JOB_PENDING:
                return -EAGAIN;
        case SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT:
                return -ETIMEDOUT;
        case ESLURM_INVALID_NODE_STATE:
        case ESLURM_INVALID_FEATURE:
        case ESLURM_INVALID_GRES:
        case ESLURM_INVALID_GRES_TYPE:
                return -EINVAL;
        case ESLURM_IN_STANDBY_MODE:
        case ESLURM_IN_STANDBY_USE_BACKUP:
                return -EHOSTDOWN;
        default:
                break;
        }
        if ((code >= SLURM_COMMUNICATIONS_CONNECTION_ERROR && code <= SLURM_COMMUNICATIONS_SHUTDOWN_ERROR) ||
                code == SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR ||
                (code >= SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR &&
                        code <= SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR) ||
                (code >= SLURM_SOCKET_ERR_FIRST && code <= SLURM_SOCKET_ERR_LAST))
                return -ECONNREFUSED;
        if (code >= ESLURM_AUTH_CRED_INVALID && code <= ESLURM_AUTH_LAST)
                return -EACCES;
        return -EIO;
}

int slurm_fail(struct strbuf *err, int code, const char *fmt, ...) {
        if (err) {
                va_list ap;
                va_start(ap, fmt);
                strbuf_vaddf(err, fmt, ap);
                va_end(ap);
                strbuf_addf(err, ": %s", code > 0 ? slurm_strerror(code) : "failed");
        }
        return code > 0 ? slurm_code_to_errno(code) : -EIO;
}
