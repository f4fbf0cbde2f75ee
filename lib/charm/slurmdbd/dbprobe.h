/* SPDX-License-Identifier: Apache-2.0 */
/* Whether slurmdbd's database answers, asked as slurmdbd asks it: one login with its
 * credentials, bounded (the slurmdbd unit's status; its actions, to tell a database that does not
 * answer from a slurmdbd that does not).
 *
 * Design note. A look that connects and closes (a TCP connect, or reading the server's greeting)
 * is an aborted connect to MySQL and MariaDB: after max_connect_errors of them in a row from one
 * host with no good login between (default 100), the server blocks that host ("1129 Host … is
 * blocked because of many connection errors"), where the server resolves names. A standby
 * slurmdbd never logs in, so its unit's status looks alone would have blocked its host after
 * about 8 h of update-status, and the failover with it (found by a helper's attack, stop 62;
 * reproduced with max_connect_errors=5). A complete login followed by COM_QUIT (libmariadb's
 * mysql_real_connect, mysql_close) is no error and resets the host's count; it also proves the
 * credentials, and a refusal comes with the server's own words. A stalled server (SIGSTOP)
 * accepts the connect from its backlog and never greets: the read timeout ends the look.
 * Ownership: none kept. */
#pragma once

#include "util/strbuf.h"

struct dbprobe_target {
        const char *host;
        unsigned port;
        const char *user;
        const char *password;
        const char *database;
};

/* 0: the server took the login; -ETIMEDOUT: no answer in time (timeout_s for the connect and for
 * each read: up to about three times that in all); -ECONNREFUSED: nothing listens or the
 * connection was lost; -EACCES: the server refused (its words in err: a wrong password, a
 * blocked host, too many connections, …); -EINVAL: the target is incomplete. */
int dbprobe_login(const struct dbprobe_target *t, unsigned timeout_s, struct strbuf *err);

/* The target from a slurmdbd.conf's text (StorageHost, StoragePort (3306), StorageUser,
 * StoragePass, StorageLoc); strings point into conf, which the caller keeps while t is used and
 * may not be const: the values are cut in place. 0 or -EINVAL (a key missing). */
int dbprobe_target_parse(char *conf, struct dbprobe_target *t);
