/* SPDX-License-Identifier: Apache-2.0 */
/* The login node's files and status, pure (loginconf.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/sackd/loginconf.h"

#include <inttypes.h>

#include "util/hash.h"

#include "util/banned.h"

void login_sackd_defaults_render(char *const *controllers, size_t n, const char *slurm_conf, struct strbuf *out) {
        strbuf_addstr(out, LOGIN_SACKD_DEFAULTS_HEAD ": sackd fetches the configuration from these\n"
                           "# controllers, primary first (configless); rewritten, and sackd restarted, when\n"
                           "# they or their slurm.conf change.\n");
        strbuf_addf(out, "# slurm.conf digest %016" PRIx64 "\n", fnv1a64(slurm_conf, strlen(slurm_conf)));
        strbuf_addstr(out, "SACKD_OPTIONS=\"--conf-server ");
        for (size_t i = 0; i < n; i++)
                strbuf_addf(out, "%s%s", i ? "," : "", controllers[i]);
        strbuf_addstr(out, "\"\n");
}

size_t login_ping_parse(const char *out, struct strv *up, struct strv *down) {
        size_t n = 0;
        for (const char *p = out; p && *p;) {
                size_t len = strcspn(p, "\n");
                _cleanup_free_ char *line = xstrndup(p, len);
                p += len + (p[len] == '\n');
                const char *s = line;
                s += strspn(s, " \t");
                if (!startswith(s, "Slurmctld("))
                        continue;
                const char *at = strstr(s, ") at ");
                if (!at)
                        continue;
                const char *host = at + 5;
                const char *is = strstr(host, " is ");
                if (!is || is == host)
                        continue;
                const char *state = is + 4;
                _cleanup_free_ char *h = xstrndup(host, (size_t) (is - host));
                if (startswith(state, "UP"))
                        strv_push(up, h);
                else if (startswith(state, "DOWN"))
                        strv_push(down, h);
                else
                        continue;
                n++;
        }
        return n;
}

bool login_sackd_defaults_foreign(const char *data) {
        if (!data || startswith(data, LOGIN_SACKD_DEFAULTS_HEAD))
                return false;
        for (const char *l = data; *l;) {
                size_t n = strcspn(l, "\n");
                size_t i = strspn(l, " \t");
                if (i < n && l[i] != '#')
                        return true;
                l += n + (l[n] == '\n');
        }
        return false;
}
