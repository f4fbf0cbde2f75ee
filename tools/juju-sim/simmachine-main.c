/* SPDX-License-Identifier: Apache-2.0 */
/* juju-sim-machine: a small driver over machine.h for the cluster tests and for debugging
 * (net-up, create, exec, destroy, destroy-all, list, names, gc). */
#include "util/macro.h"

#include <inttypes.h>
#include <time.h>

#include "machine.h"
#include "util/alloc.h"
#include "util/strv.h"

#include "util/banned.h"

static int usage(void) {
        fprintf(stderr,
                "usage: juju-sim-machine net-up MODELDIR\n"
                "       juju-sim-machine create MODELDIR ID [--share HOSTDIR:PATH]...\n"
                "       juju-sim-machine exec MODELDIR ID [--timeout SEC] -- CMD [ARG]...\n"
                "       juju-sim-machine destroy MODELDIR ID\n"
                "       juju-sim-machine destroy-all MODELDIR\n"
                "       juju-sim-machine list MODELDIR\n"
                "       juju-sim-machine names MODELDIR\n"
                "       juju-sim-machine gc\n");
        return 2;
}

static bool parse_uint(const char *s, unsigned *ret) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || end == s || *end || v > MACHINE_ID_MAX)
                return false;
        *ret = (unsigned) v;
        return true;
}

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int fail(const char *verb, int r, struct strbuf *err) {
        fprintf(stderr, "juju-sim-machine %s: %s\n", verb, err->len ? err->buf : strerror(-r));
        return 1;
}

static int cmd_exec(const char *model, unsigned id, int argc, char **argv) {
        int timeout_s = 0, i = 0;
        if (i < argc && streq(argv[i], "--timeout") && i + 1 < argc) {
                timeout_s = atoi(argv[i + 1]);
                i += 2;
        }
        if (i < argc && streq(argv[i], "--"))
                i++;
        if (i >= argc)
                return usage();
        _cleanup_(machine_info_clearp) struct machine_info m = { 0 };
        int r = machine_load(model, id, &m);
        if (r < 0) {
                fprintf(stderr, "juju-sim-machine exec: machine %u: %s\n", id,
                        r == -ESRCH ? "not running" : strerror(-r));
                return 1;
        }
        _cleanup_strv_ struct strv env = STRV_INIT;
        strv_pushl(&env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
                "HOME=/root", NULL);
        const char *term = getenv("TERM");
        if (term)
                strv_pushf(&env, "TERM=%s", term);
        r = machine_run(&m, argv + i, env.v, 0, 1, 2, timeout_s * 1000);
        if (r < 0) {
                fprintf(stderr, "juju-sim-machine exec: \"%s\": %s\n", argv[i], strerror(-r));
                return r == -ENOENT ? 127 : 126;
        }
        return r;
}

static int cmd_gc(void) {
        _cleanup_strv_ struct strv removed = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = machine_gc(&removed, &err);
        for (size_t i = 0; i < removed.n; i++)
                printf("removed %s\n", removed.v[i]);
        return r < 0 ? fail("gc", r, &err) : 0;
}

int main(int argc, char **argv) {
        if (argc == 2 && streq(argv[1], "gc"))
                return cmd_gc();
        if (argc < 3)
                return usage();
        const char *verb = argv[1], *model = argv[2];
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        unsigned id = 0;
        int r;

        if (streq(verb, "net-up")) {
                r = machine_net_ensure(model, &err);
                return r < 0 ? fail(verb, r, &err) : 0;
        }
        if (streq(verb, "destroy-all")) {
                double t0 = now_s();
                r = machine_destroy_all(model, &err);
                if (r < 0)
                        return fail(verb, r, &err);
                fprintf(stderr, "destroy-all: %.3f s\n", now_s() - t0);
                return 0;
        }
        if (streq(verb, "names")) {
                _cleanup_free_ char *br = machine_bridge_name(model);
                _cleanup_free_ char *cg = machine_cgroup_name(model);
                _cleanup_free_ char *name = model_name(model);
                printf("bridge=%s\ncgroup=%s\nmodel=%s\nveth_prefix=jsv%si\n", br, cg, name, br + 5);
                return 0;
        }
        if (streq(verb, "list")) {
                _cleanup_free_ unsigned *ids = NULL;
                int n = machine_list(model, &ids);
                for (int i = 0; i < n; i++) {
                        _cleanup_(machine_info_clearp) struct machine_info m = { 0 };
                        r = machine_load(model, ids[i], &m);
                        if (r < 0 && r != -ESRCH)
                                continue;
                        printf("%u %s %s %d %s\n", m.id, m.hostname, m.address, (int) m.pid,
                                r == 0 ? "running" : "dead");
                }
                return 0;
        }
        if (argc < 4 || !parse_uint(argv[3], &id))
                return usage();
        if (streq(verb, "create")) {
                _cleanup_strv_ struct strv shares = STRV_INIT;
                for (int i = 4; i < argc; i++) {
                        if (streq(argv[i], "--share") && i + 1 < argc)
                                strv_push(&shares, argv[++i]);
                        else
                                return usage();
                }
                double t0 = now_s();
                _cleanup_(machine_info_clearp) struct machine_info m = { 0 };
                r = machine_create(model, id, shares.n ? shares.v : NULL, &m, &err);
                if (r < 0)
                        return fail(verb, r, &err);
                printf("%u %s %s %d\n", m.id, m.hostname, m.address, (int) m.pid);
                fprintf(stderr, "create: %.3f s\n", now_s() - t0);
                return 0;
        }
        if (streq(verb, "destroy")) {
                double t0 = now_s();
                r = machine_destroy(model, id, &err);
                if (r < 0)
                        return fail(verb, r, &err);
                fprintf(stderr, "destroy: %.3f s\n", now_s() - t0);
                return 0;
        }
        if (streq(verb, "exec"))
                return cmd_exec(model, id, argc - 4, argv + 4);
        return usage();
}
