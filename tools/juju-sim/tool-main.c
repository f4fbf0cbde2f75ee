/* SPDX-License-Identifier: Apache-2.0 */
/* juju-sim-tool: the multi-call hook tool (relation-get, status-set, …, like Juju's jujuc) that
 * forwards its argv to the running hook's runner, and juju-exec, which runs `juju-sim exec`. */
#include "util/macro.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <cjson/cJSON.h>

#include "toolflags.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "util/banned.h"

static const char *jstr_(const cJSON *o, const char *k) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
        return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int read_fd(int fd, struct strbuf *sb) {
        for (;;) {
                strbuf_grow(sb, 65536);
                ssize_t n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return 0;
                strbuf_setlen(sb, sb->len + (size_t) n);
        }
}

static void write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return;
                p += w;
                n -= (size_t) w;
        }
}

/* Go's os error text for a failed open: "open PATH: no such file or directory". */
static char *os_error(const char *path, int err) {
        _cleanup_free_ char *e = xstrdup(strerror(err));
        if (e[0] >= 'A' && e[0] <= 'Z' && !(e[1] >= 'A' && e[1] <= 'Z'))
                e[0] = (char) (e[0] - 'A' + 'a');
        return xasprintf("open %s: %s", path, e);
}

/* What the tool reads where its paths make sense (the hook's cwd and mount namespace), parsing
 * argv with the tool's own flags (toolflags.h): --file (a path or "-": stdin) into
 * req["file"], and secret-add/secret-set's key#file=PATH arguments into req["files"]. */
static int read_inputs(const char *name, char **argv, cJSON *req) {
        const struct toolflags *t = toolflags_find(name);
        if (!t)
                return 0;
        struct gnuflag_value values[TF_NSLOTS] = { { 0 } };
        _cleanup_strv_ struct strv args = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        if (toolflags_parse(t, argv, values, NULL, NULL, &args, &err) != 0)
                return 0; /* the agent reports the usage error */
        int slot = toolflags_slot(t, "file");
        const char *f = slot >= 0 && values[slot].set ? values[slot].value : NULL;
        if (f && *f) {
                _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
                if (streq(f, "-")) {
                        if (read_fd(0, &sb) < 0)
                                return -errno;
                } else {
                        _cleanup_free_ char *data = NULL;
                        int r = read_full_file(f, &data, NULL);
                        if (r < 0) {
                                _cleanup_free_ char *e = os_error(f, -r);
                                fprintf(stderr, "ERROR %s\n", e);
                                return r;
                        }
                        strbuf_addstr(&sb, data);
                }
                cJSON_AddStringToObject(req, "file", sb.buf);
        }
        if (!streq(name, "secret-add") && !streq(name, "secret-set"))
                return 0;
        cJSON *files = NULL;
        for (size_t i = streq(name, "secret-set") ? 1 : 0; i < args.n; i++) {
                const char *a = args.v[i], *mark = strstr(a, "#file=");
                if (!mark)
                        continue;
                const char *path = mark + strlen("#file=");
                if (!files)
                        files = cJSON_AddObjectToObject(req, "files");
                if (cJSON_GetObjectItemCaseSensitive(files, path))
                        continue;
                _cleanup_free_ char *data = NULL;
                int r = read_full_file(path, &data, NULL);
                if (r < 0) {
                        _cleanup_free_ char *e = os_error(path, -r);
                        cJSON *o = cJSON_AddObjectToObject(files, path);
                        cJSON_AddStringToObject(o, "error", e);
                } else
                        cJSON_AddStringToObject(files, path, data);
        }
        return 0;
}

static int hook_tool(const char *name, int argc, char **argv) {
        const char *addr = getenv("JUJU_AGENT_SOCKET_ADDRESS"), *ctx = getenv("JUJU_CONTEXT_ID");
        if (isempty(addr) || isempty(ctx)) {
                fprintf(stderr,
                        "ERROR %s: JUJU_CONTEXT_ID or JUJU_AGENT_SOCKET_ADDRESS not set "
                        "(hook tools run only inside a hook)\n",
                        name);
                return 1;
        }
        cJSON *req = cJSON_CreateObject();
        cJSON_AddStringToObject(req, "context", ctx);
        cJSON *av = cJSON_AddArrayToObject(req, "argv");
        cJSON_AddItemToArray(av, cJSON_CreateString(name));
        for (int i = 1; i < argc; i++)
                cJSON_AddItemToArray(av, cJSON_CreateString(argv[i]));
        if (read_inputs(name, argv, req) < 0) {
                cJSON_Delete(req);
                return 1;
        }
        _cleanup_free_ char *s = cJSON_PrintUnformatted(req);
        cJSON_Delete(req);

        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(addr) >= sizeof(sa.sun_path)) {
                fprintf(stderr, "ERROR socket path too long\n");
                return 1;
        }
        memcpy(sa.sun_path, addr, strlen(addr) + 1);
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                fprintf(stderr, "ERROR cannot reach the juju-sim agent at \"%s\": %s\n", addr,
                        strerror(errno));
                return 1;
        }
        write_all(fd, s, strlen(s));
        (void) shutdown(fd, SHUT_WR);
        _cleanup_strbuf_ struct strbuf rep = STRBUF_INIT;
        if (read_fd(fd, &rep) < 0) {
                fprintf(stderr, "ERROR reading the agent's answer: %s\n", strerror(errno));
                return 1;
        }
        cJSON *j = cJSON_Parse(rep.buf);
        if (!j) {
                fprintf(stderr, "ERROR bad answer from the juju-sim agent\n");
                return 1;
        }
        const char *o = jstr_(j, "stdout"), *e = jstr_(j, "stderr"), *path = jstr_(j, "output");
        if (o && path) {
                /* -o/--output: cmd.Output.Write creates the file (relative to the cwd) */
                _cleanup_close_ int ofd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
                if (ofd < 0) {
                        _cleanup_free_ char *err = os_error(path, errno);
                        fprintf(stderr, "ERROR %s\n", err);
                        cJSON_Delete(j);
                        return 1;
                }
                write_all(ofd, o, strlen(o));
        } else if (o)
                write_all(1, o, strlen(o));
        if (e)
                write_all(2, e, strlen(e));
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "code");
        int rc = cJSON_IsNumber(code) ? code->valueint : 1;
        cJSON_Delete(j);
        return rc;
}

static cJSON *read_locator(const char *path) {
        _cleanup_free_ char *data = NULL;
        if (read_full_file(path, &data, NULL) < 0)
                return NULL;
        cJSON *j = cJSON_Parse(data);
        if (!jstr_(j, "model") || !jstr_(j, "juju-sim")) {
                cJSON_Delete(j);
                return NULL;
        }
        return j;
}

/* Where is the model? $JUJU_SIM_MODEL, /var/lib/juju/juju-sim.json (in a machine), or the model
 * of the tools dir this juju-exec was found in. */
static cJSON *find_model(const char *argv0) {
        const char *env = getenv("JUJU_SIM_MODEL");
        if (!isempty(env)) {
                _cleanup_free_ char *p = xasprintf("%s/juju-sim.json", env);
                cJSON *j = read_locator(p);
                if (j)
                        return j;
        }
        cJSON *j = read_locator("/var/lib/juju/juju-sim.json");
        if (j)
                return j;
        _cleanup_strv_ struct strv dirs = STRV_INIT;
        if (strchr(argv0, '/')) {
                _cleanup_free_ char *d = xstrdup(argv0);
                *strrchr(d, '/') = '\0';
                strv_push(&dirs, d);
        } else {
                const char *path = getenv("PATH");
                _cleanup_free_ char *p = xstrdup(strempty(path));
                char *save = p, *colon;
                while (save) {
                        colon = strchr(save, ':');
                        if (colon)
                                *colon = '\0';
                        if (*save)
                                strv_push(&dirs, save);
                        save = colon ? colon + 1 : NULL;
                }
        }
        for (size_t i = 0; i < dirs.n; i++) {
                _cleanup_free_ char *exe = xasprintf("%s/%s", dirs.v[i],
                        argv0[0] && strchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0);
                if (access(exe, X_OK) < 0)
                        continue;
                _cleanup_free_ char *p = xasprintf("%s/../juju-sim.json", dirs.v[i]);
                j = read_locator(p);
                if (j)
                        return j;
        }
        return NULL;
}

static int juju_exec(int argc, char **argv) {
        int i = 1;
        bool no_context = false;
        const char *unit = NULL;
        for (; i < argc; i++) {
                if (streq(argv[i], "--no-context"))
                        no_context = true;
                else if ((streq(argv[i], "-u") || streq(argv[i], "--unit")) && i + 1 < argc)
                        unit = argv[++i];
                else if (startswith(argv[i], "--unit="))
                        unit = argv[i] + 7;
                else if (streq(argv[i], "--")) {
                        i++;
                        break;
                } else if (argv[i][0] == '-') {
                        fprintf(stderr, "ERROR option provided but not defined: %s\n", argv[i]);
                        return 2;
                } else
                        break;
        }
        if (no_context) {
                if (i >= argc) {
                        fprintf(stderr, "ERROR missing commands\n");
                        return 2;
                }
                execvp(argv[i], argv + i);
                fprintf(stderr, "ERROR %s: %s\n", argv[i], strerror(errno));
                return 127;
        }
        cJSON *loc = find_model(argv[0]);
        if (!unit && loc && jstr_(loc, "unit") && i < argc && !strchr(argv[i], '/'))
                unit = jstr_(loc, "unit");
        if (!unit && i < argc)
                unit = argv[i++];
        if (!unit || i >= argc) {
                fprintf(stderr, "ERROR usage: juju-exec [-u] UNIT COMMAND…\n");
                cJSON_Delete(loc);
                return 2;
        }
        if (!isempty(getenv("JUJU_CONTEXT_ID"))) {
                fprintf(stderr, "ERROR juju-exec cannot run inside a hook: the machine lock is held\n");
                cJSON_Delete(loc);
                return 1;
        }
        if (!loc) {
                fprintf(stderr, "ERROR juju-exec: no juju-sim model found (set JUJU_SIM_MODEL)\n");
                return 1;
        }
        _cleanup_strv_ struct strv av = STRV_INIT;
        strv_pushl(&av, jstr_(loc, "juju-sim"), "--model", jstr_(loc, "model"), "exec", unit, "--", NULL);
        for (; i < argc; i++)
                strv_push(&av, argv[i]);
        cJSON_Delete(loc);
        execv(av.v[0], av.v);
        fprintf(stderr, "ERROR cannot run \"%s\": %s\n", av.v[0], strerror(errno));
        return 1;
}

int main(int argc, char **argv) {
        const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        if (streq(name, "juju-sim-tool")) {
                if (argc < 2) {
                        fprintf(stderr, "usage: juju-sim-tool TOOL [ARGS…] (or call it as TOOL)\n");
                        return 2;
                }
                argv++;
                argc--;
                name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        }
        if (streq(name, "juju-exec") || streq(name, "juju-run"))
                return juju_exec(argc, argv);
        return hook_tool(name, argc, argv);
}
