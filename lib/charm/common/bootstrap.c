/* SPDX-License-Identifier: Apache-2.0 */
/* First stage of install: dpkg-query for what is missing, apt-get install it, hook tools as
 * plain programs. libc, lib/util and lib/proc only (see bootstrap.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/bootstrap.h"
#include "proc/proc.h"
#include "slurm/caps.h"

#include <stdarg.h>

#include "util/banned.h"

#define DPKG_TIMEOUT_MS (60 * 1000)
#define APT_TIMEOUT_MS (15 * 60 * 1000)
#define TOOL_TIMEOUT_MS (120 * 1000)

void bootstrap_packages(
        const char *daemon, const char *auth_package, const char *extra_package, char *ret[static BOOTSTRAP_PKGS_MAX]) {
        size_t n = 0;
        ret[n++] = (char *) daemon;
        ret[n++] = (char *) "slurm-client";
        if (auth_package)
                ret[n++] = (char *) auth_package;
        if (extra_package)
                ret[n++] = (char *) extra_package;
        ret[n] = NULL;
}

void bootstrap_daemon_packages(const char *daemon, const struct slurm_caps *c, char *ret[static BOOTSTRAP_PKGS_MAX]) {
        if (streq(daemon, "sackd")) {
                /* a login node: sackd where the generation has it, else the clients alone; the
                 * PMIx library where srun needs it for MpiDefault=pmix (22.05) */
                if (c->token_package)
                        bootstrap_packages(c->token_package, c->auth_package, c->pmix_package, ret);
                else {
                        size_t n = 0;
                        ret[n++] = (char *) "slurm-client";
                        if (c->auth_package)
                                ret[n++] = (char *) c->auth_package;
                        if (c->pmix_package)
                                ret[n++] = (char *) c->pmix_package;
                        ret[n] = NULL;
                }
                return;
        }
        const char *extra = streq(daemon, "slurmdbd") ? c->token_package : c->pmix_package;
        bootstrap_packages(daemon, c->auth_package, extra, ret);
        /* the controller's metrics exporter links libmicrohttpd (charm/slurmctld/metricsep.h) */
        if (streq(daemon, "slurmctld") && c->httpd_package) {
                size_t n = 0;
                while (ret[n])
                        n++;
                if (n + 1 < BOOTSTRAP_PKGS_MAX) {
                        ret[n++] = (char *) c->httpd_package;
                        ret[n] = NULL;
                }
        }
}

int bootstrap_missing_packages(char *const *pkgs, struct strv *ret, struct strbuf *err) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        _cleanup_strv_ struct strv installed = STRV_INIT;
        int r, n = 0;

        strv_pushl(&p.argv, "dpkg-query", "-W", "--showformat=${Package} ${db:Status-Abbrev}\\n", NULL);
        strv_pushv(&p.argv, pkgs);
        p.capture_out = p.capture_err = true;
        p.timeout_ms = DPKG_TIMEOUT_MS;
        r = proc_run(&p);
        if (r < 0) {
                strbuf_addf(err, "could not run dpkg-query: %s", strerror(-r));
                return r;
        }
        /* exit 1 only means "some package unknown": the others are still listed */
        for (char *line = p.out.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
                nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                char *sp = strchr(line, ' ');
                if (sp && startswith(sp + 1, "ii")) {
                        *sp = '\0';
                        char *colon = strchr(line, ':'); /* "pkg:amd64" for multi-arch packages */
                        if (colon)
                                *colon = '\0';
                        strv_push(&installed, line);
                }
        }
        for (char *const *q = pkgs; q && *q; q++)
                if (!strv_contains(&installed, *q)) {
                        strv_push(ret, *q);
                        n++;
                }
        return n;
}

static int apt(char *const *args, struct strbuf *err) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        extern char **environ;

        strv_push(&p.argv, "apt-get");
        strv_pushv(&p.argv, args);
        for (char **e = environ; e && *e; e++)
                if (!startswith(*e, "DEBIAN_FRONTEND="))
                        strv_push(&p.env, *e);
        strv_push(&p.env, "DEBIAN_FRONTEND=noninteractive");
        p.env_set = true;
        p.capture_out = p.capture_err = true;
        p.timeout_ms = APT_TIMEOUT_MS;
        int r = proc_run(&p);
        if (r < 0) {
                strbuf_addf(err, "could not run apt-get: %s", strerror(-r));
                return r;
        }
        if (r != 0) {
                strbuf_rtrim(&p.err);
                const char *last = strrchr(p.err.buf, '\n');
                strbuf_addf(err, "apt-get %s: exited with status %d: %.200s", args[0], r,
                        last ? last + 1 : p.err.buf);
                return -EIO;
        }
        return 0;
}

int bootstrap_install_packages(char *const *pkgs, struct strbuf *err) {
        _cleanup_strv_ struct strv missing = STRV_INIT, args = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e1 = STRBUF_INIT;
        _cleanup_free_ char *list = NULL;
        int r, n;

        n = bootstrap_missing_packages(pkgs, &missing, err);
        if (n <= 0)
                return n;
        list = strv_join(&missing, " ");
        _cleanup_free_ char *msg = xasprintf("installing %s", list);
        (void) bootstrap_tool("status-set", "maintenance", msg, NULL);

        strv_pushl(&args, "install", "-y", "-q", "--no-install-recommends", NULL);
        strv_pushv(&args, missing.v);
        r = apt(args.v, &e1);
        if (r < 0) {
                /* a fresh machine may have no package lists yet */
                char *update[] = { (char *) "update", (char *) "-q", NULL };
                r = apt(update, err);
                if (r >= 0)
                        r = apt(args.v, err);
                if (r < 0)
                        return r;
        }
        return n;
}

int bootstrap_tool(const char *tool, ...) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        va_list ap;

        strv_push(&p.argv, tool);
        va_start(ap, tool);
        for (const char *a; (a = va_arg(ap, const char *));)
                strv_push(&p.argv, a);
        va_end(ap);
        p.capture_out = p.capture_err = true;
        p.timeout_ms = TOOL_TIMEOUT_MS;
        return proc_run(&p);
}

char *bootstrap_stage2_path(const char *rel) {
        const char *dir = getenv("JUJU_CHARM_DIR");
        if (isempty(dir))
                dir = getenv("CHARM_DIR");
        return xasprintf("%s/%s", isempty(dir) ? "." : dir, rel);
}

int bootstrap_main(char *const *pkgs, const char *stage2_rel) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_free_ char *stage2 = NULL;
        int r = bootstrap_install_packages(pkgs, &err);
        if (r < 0) {
                _cleanup_free_ char *msg = xasprintf("install: %.200s", err.buf);
                fprintf(stderr, "%s\n", msg);
                (void) bootstrap_tool("status-set", "blocked", msg, NULL);
                return 1;
        }
        stage2 = bootstrap_stage2_path(stage2_rel);
        char *argv[] = { stage2, NULL };
        execv(stage2, argv);
        fprintf(stderr, "install: cannot run %s: %s\n", stage2, strerror(errno));
        return 1;
}
