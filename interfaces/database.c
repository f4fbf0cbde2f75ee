/* SPDX-License-Identifier: Apache-2.0 */
/* The mysql_client interface, requirer side (database.h). */
#include "util/macro.h"
#include "database.h"

#include <ctype.h>

#include "slurmd.h"
#include "util/alloc.h"

#include "util/banned.h"

bool db_name_valid(const char *name) {
        size_t n = name ? strlen(name) : 0;
        if (n == 0 || n > 64)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((name[i] >= 'a' && name[i] <= 'z') || isdigit((unsigned char) name[i]) ||
                            name[i] == '_'))
                        return false;
        return true;
}

void db_provider_data_clear(struct db_provider_data *d) {
        free(d->host);
        free(d->secret_id);
        free(d->database);
        *d = (struct db_provider_data){ 0 };
}

int db_provider_data_decode(const char *endpoints, const char *secret_user, const char *database,
        const char *want_database, struct db_provider_data *ret, struct strbuf *err) {
        if (isempty(endpoints) || isempty(secret_user) || isempty(database))
                return -ENODATA;
        if (strlen(endpoints) > 4096) {
                strbuf_addstr(err, "database relation: endpoints is too long");
                return -EINVAL;
        }
        _cleanup_free_ char *first = xstrndup(endpoints, strcspn(endpoints, ","));
        if (!slurmd_iface_valid_controller(first)) {
                strbuf_addstr(err, "database relation: endpoints does not start with host:port");
                return -EINVAL;
        }
        if (!slurmd_iface_check_secret_id("secret-user", secret_user, err))
                return -EINVAL;
        if (!streq_ptr(database, want_database)) {
                strbuf_addf(err, "database relation: the provider created database \"%.64s\", not \"%s\"",
                        db_name_valid(database) ? database : "?", strempty(want_database));
                return -EINVAL;
        }
        char *colon = strrchr(first, ':');
        *colon = '\0';
        db_provider_data_clear(ret);
        ret->host = xstrdup(first);
        ret->port = (unsigned) strtoul(colon + 1, NULL, 10);
        ret->secret_id = xstrdup(secret_user);
        ret->database = xstrdup(database);
        return 0;
}

int db_credentials_check(const char *username, const char *password, struct strbuf *err) {
        size_t un = username ? strlen(username) : 0, pn = password ? strlen(password) : 0;
        if (un == 0 || un > 80) {
                strbuf_addstr(err, "database credentials: no usable username");
                return -EINVAL;
        }
        for (size_t i = 0; i < un; i++)
                if (!isalnum((unsigned char) username[i]) && !strchr("_.-", username[i])) {
                        strbuf_addstr(err,
                                "database credentials: the username holds other characters than "
                                "letters, digits, '_', '.' and '-'");
                        return -EINVAL;
                }
        if (pn < 8 || pn > 256) {
                strbuf_addf(
                        err, "database credentials: the password has %zu characters (want 8 to 256)", pn);
                return -EINVAL;
        }
        for (size_t i = 0; i < pn; i++)
                if (!isgraph((unsigned char) password[i]) || strchr("#\"'\\", password[i])) {
                        strbuf_addstr(err,
                                "database credentials: the password holds a character a "
                                "slurmdbd.conf value cannot (space, control, '#', quote or '\\')");
                        return -EINVAL;
                }
        return 0;
}
