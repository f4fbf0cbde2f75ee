/* SPDX-License-Identifier: Apache-2.0 */
/* One bounded login to slurmdbd's database (dbprobe.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmdbd/dbprobe.h"

#include <mysql.h>
#include <errmsg.h>
#include <stdlib.h>

#include "util/banned.h"

int dbprobe_login(const struct dbprobe_target *t, unsigned timeout_s, struct strbuf *err) {
        if (!t || isempty(t->host) || isempty(t->user) || !t->password)
                return -EINVAL;
        MYSQL *m = mysql_init(NULL);
        if (!m)
                return -ENOMEM;
        unsigned int to = timeout_s ? timeout_s : 1;
        my_bool no = 0;
        (void) mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &to);
        (void) mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &to);
        (void) mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &to);
        (void) mysql_options(m, MYSQL_OPT_RECONNECT, &no);
        /* no option file: only what the target says */
        int r = 0;
        if (!mysql_real_connect(m, t->host, t->user, t->password, isempty(t->database) ? NULL : t->database,
                    t->port ? t->port : 3306, NULL, 0)) {
                unsigned e = mysql_errno(m);
                strbuf_addf(err, "%u %s", e, mysql_error(m));
                if (e == CR_CONN_HOST_ERROR || e == CR_CONNECTION_ERROR || e == CR_SERVER_LOST ||
                        e == CR_SERVER_GONE_ERROR || e == CR_UNKNOWN_HOST)
                        r = strstr(mysql_error(m), "imeout") || strstr(mysql_error(m), "reading initial communication")
                                ? -ETIMEDOUT
                                : -ECONNREFUSED;
                else
                        r = -EACCES;
        }
        mysql_close(m);
        return r;
}

int dbprobe_target_parse(char *conf, struct dbprobe_target *t) {
        /* all values found first, then cut: a cut ends the line the next search would step over */
        char *keys[5] = { NULL };
        static const char *const names[] = { "StorageHost", "StoragePort", "StorageUser", "StoragePass", "StorageLoc" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                size_t n = strlen(names[i]);
                for (char *p = conf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                        if (strncmp(p, names[i], n) == 0 && p[n] == '=') {
                                keys[i] = p + n + 1;
                                break;
                        }
        }
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (keys[i])
                        keys[i][strcspn(keys[i], "\n")] = '\0';
        if (!keys[0] || !keys[2] || !keys[3])
                return -EINVAL;
        unsigned long port = keys[1] ? strtoul(keys[1], NULL, 10) : 3306;
        *t = (struct dbprobe_target){
                .host = keys[0], .port = port > 0 && port < 65536 ? (unsigned) port : 3306,
                .user = keys[2], .password = keys[3], .database = keys[4],
        };
        return 0;
}
