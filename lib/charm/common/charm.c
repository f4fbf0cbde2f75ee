/* SPDX-License-Identifier: Apache-2.0 */
/* What both charms share: redirectable paths, owner lookup, the hook outcome and the common
 * end of every hook's main (one status-set, one flush). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/charm.h"
#include "charm/common/bootstrap.h"
#include "slurm/caps.h"
#include "slurm/confcheck.h"
#include "slurmconf/pathkeys.h"
#include "interfaces/slurmd.h"
#include "systemd/unit.h"
#include "util/fileio.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <slurm/slurm_version.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/banned.h"

char *charm_path(const struct charm_paths *p, const char *path) {
        const char *root = p ? strempty(p->root) : "";
        if (streq(root, "/"))
                root = "";
        return xasprintf("%s%s", root, path);
}

int charm_root_dir_ensure(const struct charm_paths *p, const char *path, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, path);
        struct stat st;
        int r = mkdir_p(dir, 0755);
        if (r >= 0 && lstat(dir, &st) < 0)
                r = -errno;
        /* a site's own link (to a larger disk) is root's: followed, its directory kept so; one
         * of anyone else's is refused, and nothing is changed through it */
        if (r >= 0 && S_ISLNK(st.st_mode) && st.st_uid == 0 && stat(dir, &st) < 0)
                r = -errno;
        if (r >= 0 && !S_ISDIR(st.st_mode))
                r = -ENOTDIR;
        if (r >= 0 && (st.st_mode & 07777) != 0755 && chmod(dir, 0755) < 0)
                r = -errno;
        if (r >= 0 && geteuid() == 0 && (st.st_uid != 0 || st.st_gid != 0) && chown(dir, 0, 0) < 0)
                r = -errno;
        if (r < 0)
                strbuf_addf(err, "%s: %s", dir, strerror(-r));
        return r;
}

int charm_site_scripts_ensure(const struct charm_paths *p, struct strbuf *err) {
        return charm_root_dir_ensure(p, SLURMCONF_SITE_SCRIPTS_DIR, err);
}

const struct slurm_caps *charm_caps(const struct charm_paths *p) {
        return p && p->caps ? p->caps : slurm_caps_built();
}

char *charm_generation_json(const struct charm_paths *p) {
        const struct slurm_caps *c = charm_caps(p);
        _cleanup_free_ char *v =
                c == slurm_caps_built() ? xstrdup(slurm_version_built()) : xasprintf("%s.0", c->release);
        char *json = NULL;
        if (slurm_generation_encode(v, c->auth_type, &json) < 0)
                return NULL;
        return json;
}

int charm_generation_publish(
        struct juju_ctx *ctx, const struct charm_paths *p, const struct strv *rels, struct strbuf *err) {
        _cleanup_free_ char *gen = charm_generation_json(p);
        if (!gen) {
                strbuf_addstr(err, "slurm generation: out of memory");
                return -ENOMEM;
        }
        for (size_t i = 0; i < rels->n; i++) {
                const cJSON *mine;
                int r = juju_relation_get(ctx, rels->v[i], juju_env(ctx)->app, &mine, err);
                if (r >= 0)
                        r = charm_bag_update(ctx, rels->v[i], true, mine, "slurm", gen, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int charm_generation_check(const struct charm_paths *p, const char *json, bool i_serve, const char *me,
        const char *them, struct strbuf *e) {
        _cleanup_(slurm_generation_clear) struct slurm_generation theirs = SLURM_GENERATION_INIT,
                                                                  mine = SLURM_GENERATION_INIT;
        _cleanup_free_ char *gen = charm_generation_json(p);
        int r = slurm_generation_decode(json, &theirs, e);
        if (r == -ENODATA)
                return 0;
        if (r < 0)
                return r;
        if (!gen || slurm_generation_decode(gen, &mine, NULL) < 0)
                return -ENOMEM;
        return i_serve ? slurm_caps_takes(me, mine.version, mine.auth, them, theirs.version, theirs.auth, e)
                       : slurm_caps_takes(them, theirs.version, theirs.auth, me, mine.version, mine.auth, e);
}

char *charm_daemon_name(const char *service) {
        size_t n = strlen(service);
        if (n > 8 && streq(service + n - 8, ".service"))
                n -= 8;
        return xstrndup(service, n);
}

size_t charm_services(const struct charm_paths *p, const char *daemon, char *ret[static 3]) {
        const char *auth = charm_caps(p)->auth_service;
        if (streq_ptr(auth, daemon))
                auth = NULL; /* the daemon is the auth service (a 22.05 login unit's munged) */
        ret[0] = (char *) daemon;
        ret[1] = (char *) auth;
        ret[2] = NULL;
        return auth ? 2 : 1;
}

int charm_install_finish(struct juju_ctx *ctx, const struct charm_paths *p, sd_bus *bus,
        uint64_t timeout_usec, struct charm_outcome *out, struct strbuf *err) {
        const char *auth = charm_caps(p)->auth_service;
        int r = auth ? unit_enable(bus, auth, timeout_usec, err) : 0;
        if (r < 0)
                return r;
        _cleanup_free_ char *version = charm_slurm_version();
        (void) juju_application_version_set(ctx, version, NULL);
        charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "installed");
        return 0;
}

/* Whether something listens on addr:port (one connect, timeout_ms at most). */
/* A TCP connect to addr:port: 0 accepted, the connect's errno otherwise (ETIMEDOUT when no
 * answer came within timeout_ms). */
static int tcp_connect_errno(const char *addr, unsigned port, int timeout_ms) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
                return EINVAL;
        _cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return errno;
        if (connect(fd, (struct sockaddr *) &sa, sizeof sa) == 0)
                return 0;
        if (errno != EINPROGRESS)
                return errno;
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int soerr = 0;
        socklen_t l = sizeof soerr;
        if (poll(&p, 1, timeout_ms) != 1)
                return ETIMEDOUT;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &l) < 0)
                return errno;
        return soerr;
}

bool charm_tcp_listening(const char *addr, unsigned port, int timeout_ms) {
        return tcp_connect_errno(addr, port, timeout_ms) == 0;
}

/* host's first IPv4 address as text into addr; false when it has none. */
static bool host_addr4(const char *host, char addr[static INET_ADDRSTRLEN]) {
        struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res = NULL;
        if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
                return false;
        bool ok = inet_ntop(AF_INET, &((struct sockaddr_in *) res->ai_addr)->sin_addr, addr, INET_ADDRSTRLEN);
        freeaddrinfo(res);
        return ok;
}

int charm_state_note_write(
        const struct charm_paths *p, const char *name, const char *data, bool if_changed, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        int r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = if_changed ? write_file_atomic_if_changed(path, data, strlen(data), 0600, (uid_t) -1, (gid_t) -1)
                               : write_file_atomic(path, data, strlen(data), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0)
                strbuf_addf(err, "%s: %s", path, strerror(-r));
        return r;
}

int charm_state_note_read(const struct charm_paths *p, const char *name, char **ret) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        int r = read_full_file(path, ret, NULL);
        if (r == -ENOENT)
                return 0;
        return r < 0 ? r : 1;
}

int charm_state_note_remove(const struct charm_paths *p, const char *name, struct strbuf *err) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        if (unlink(path) < 0 && errno != ENOENT) {
                int r = -errno;
                strbuf_addf(err, "%s: %s", path, strerror(errno));
                return r;
        }
        return 0;
}

bool charm_host_listening(const char *host, unsigned port, int timeout_ms) {
        char addr[INET_ADDRSTRLEN] = "";
        return host_addr4(host, addr) && charm_tcp_listening(addr, port, timeout_ms);
}

bool charm_host_reachable(const char *host, unsigned port, int timeout_ms) {
        char addr[INET_ADDRSTRLEN] = "";
        if (!host_addr4(host, addr))
                return false;
        int e = tcp_connect_errno(addr, port, timeout_ms);
        return e == 0 || e == ECONNREFUSED;
}

char *charm_template_path(const struct charm_paths *p, const char *fallback_charm_dir, const char *name) {
        const char *dir = p && p->charm_dir ? p->charm_dir : fallback_charm_dir;
        return xasprintf("%s/templates/%s", isempty(dir) ? "." : dir, name);
}

int charm_lookup_user(
        const char *name, const char *default_user, uid_t *ret_uid, gid_t *ret_gid, struct strbuf *err) {
        const char *n = name ? name : default_user;
        errno = 0;
        struct passwd *pw = getpwnam(n);
        if (!pw) {
                int r = errno > 0 ? -errno : -ENOENT;
                if (err)
                        strbuf_addf(err, "user \"%s\": %s", n, r == -ENOENT ? "no such user" : strerror(-r));
                return r;
        }
        *ret_uid = pw->pw_uid;
        *ret_gid = pw->pw_gid;
        return 0;
}

void charm_outcome_done(struct charm_outcome *o) {
        strbuf_release(&o->message);
        free(o->app_message);
        o->app_message = NULL;
}

void charm_outcome_set(struct charm_outcome *o, enum juju_status status, const char *fmt, ...) {
        va_list ap;
        o->status = status;
        strbuf_reset(&o->message);
        va_start(ap, fmt);
        strbuf_vaddf(&o->message, fmt, ap);
        va_end(ap);
}

int charm_hook_finish(struct juju_ctx *ctx, int r, struct charm_outcome *o, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e2 = STRBUF_INIT;
        int rc = 0;

        if (r >= 0) {
                if (!o->skip_status) {
                        r = juju_status_set(ctx, false, o->status, o->message.buf, &e2);
                        if (r >= 0 && o->set_app_status)
                                r = juju_status_set(ctx, true, o->app_status,
                                        o->app_message ? o->app_message : o->message.buf, &e2);
                }
                if (r >= 0)
                        r = juju_flush(ctx, &e2);
        }
        if (r < 0) {
                rc = 1;
                if (e2.len > 0) {
                        if (err->len > 0)
                                strbuf_addstr(err, "; ");
                        strbuf_addbuf(err, &e2);
                }
                if (err->len == 0)
                        strbuf_addf(err, "failed: %s", strerror(-r));
                fprintf(stderr, "%s: %s\n", juju_env(ctx)->event ? juju_env(ctx)->event : "exec", err->buf);
                (void) juju_log(ctx, JUJU_LOG_ERROR, err->buf, NULL);
        }
        return rc;
}

int charm_action_finish(struct juju_ctx *ctx, const char *action, int r, struct strbuf *err) {
        /* what the action wrote to relations (resume's reconcile publishes, as a hook's does) is
         * sent as a hook's is: relation-set only queues it (juju_flush()) */
        if (r >= 0)
                r = juju_flush(ctx, err);
        if (r >= 0)
                return 0;
        if (err->len == 0)
                strbuf_addf(err, "%s: %s", action, strerror(-r));
        fprintf(stderr, "%s\n", err->buf);
        (void) juju_action_fail(ctx, err->buf, NULL);
        return 0;
}

char *charm_join_ids(const uint32_t *v, size_t n) {
        _cleanup_strbuf_ struct strbuf s = STRBUF_INIT;
        for (size_t i = 0; i < n; i++)
                strbuf_addf(&s, "%s%u", i ? "," : "", v[i]);
        return strbuf_detach(&s, NULL);
}

char *charm_leaving_reason(const char *unit) {
        return xasprintf("unit %s is leaving", unit);
}

bool charm_reason_is_leaving(const char *reason) {
        static const char tail[] = " is leaving";
        size_t n = reason ? strlen(reason) : 0;
        return n > strlen("unit ") + strlen(tail) && startswith(reason, "unit ") &&
                streq(reason + n - strlen(tail), tail);
}

char *charm_node_name(const char *unit) {
        char *s = xstrdup(unit);
        for (char *p = s; *p; p++)
                if (*p == '/')
                        *p = '-';
        return s;
}

/* Whether stderr is the journal stream systemd named in JOURNAL_STREAM ("dev:ino"; a child
 * inherits the variable with another stderr, systemd.exec(5)). */
static bool stderr_is_journal(void) {
        const char *v = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;
        return v && sscanf(v, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
                (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

const char *charm_log_prefix(char *buf) {
        buf[0] = '\0';
        if (stderr_is_journal())
                return buf;
        struct timespec now;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &now);
        gmtime_r(&now.tv_sec, &tm);
        size_t n = strftime(buf, CHARM_LOG_PREFIX_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + n, CHARM_LOG_PREFIX_MAX - n, ".%03ldZ ", now.tv_nsec / 1000000);
        return buf;
}

int charm_config_string(struct juju_ctx *ctx, const char *key, const char **ret, struct strbuf *err) {
        const char *v = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = juju_config_string(ctx, key, &v, &e);
        if (r == -ENOENT) {
                *ret = "";
                return 0;
        }
        if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        }
        *ret = v;
        return 0;
}

/* What the log at path got after offset from (its last 64 KiB at most), NUL-terminated; NULL when
 * there is nothing or it cannot be read. */
static char *log_tail_since(const char *path, off_t from, struct stat *ret_st) {
        /* the daemon's log, in a directory its user owns: root reads only the file there, never
         * what a link of that user's leads to, never a FIFO or a device, never another name of
         * some other file (attack atk8 G3: a root-only file's "fatal:" line went into the hook's
         * error and the refusal record; a FIFO held the watcher's handler) */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)
                return NULL;
        if (ret_st)
                *ret_st = st;
        off_t end = lseek(fd, 0, SEEK_END);
        if (from > end || from < 0)
                from = 0; /* the log was rotated meanwhile */
        off_t start = end - from > 65536 ? end - 65536 : from;
        char *buf = xmalloc(65537);
        ssize_t n = pread(fd, buf, (size_t) (end - start), start);
        if (n <= 0) {
                free(buf);
                return NULL;
        }
        buf[n] = '\0';
        return buf;
}

char *charm_log_tail(const char *path, off_t from, struct stat *ret_st) {
        return log_tail_since(path, from, ret_st);
}

off_t charm_log_size(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 ? st.st_size : 0;
}

bool charm_log_has(const char *path, off_t from, const char *needle) {
        _cleanup_free_ char *buf = log_tail_since(path, from, NULL);
        return buf && strstr(buf, needle);
}

char *charm_log_last_error(const char *path, off_t from) {
        _cleanup_free_ char *buf = log_tail_since(path, from, NULL);
        if (!buf)
                return NULL;
        static const char *const wanted[] = { "fatal: ", "error: " };
        const char *pick = NULL;
        for (size_t i = 0; i < ELEMENTSOF(wanted) && !pick; i++)
                /* the last line holding it */
                for (char *p = buf; (p = strstr(p, wanted[i])); p += strlen(wanted[i]))
                        pick = p;
        if (!pick)
                return NULL;
        return xstrndup(pick, strcspn(pick, "\n"));
}

int charm_relation_ids_live(
        struct juju_ctx *ctx, const char *endpoint, struct strv *ret, struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_strv_ struct strv ids = STRV_INIT;
        int r = juju_relation_ids(ctx, endpoint, &ids, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ids.n; i++)
                if (!streq_ptr(env->relation_event, "broken") || !streq_ptr(env->relation_id, ids.v[i]))
                        strv_push(ret, ids.v[i]);
        return 0;
}

int charm_remote_app_bag(struct juju_ctx *ctx, const char *rel_id, char **ret_app, const cJSON **ret_bag,
        struct strbuf *err) {
        const struct juju_env *env = juju_env(ctx);
        _cleanup_free_ char *app = NULL;
        int r = 0;
        *ret_bag = NULL;
        if (env->remote_app && streq_ptr(env->relation_id, rel_id))
                app = xstrdup(env->remote_app);
        else
                r = juju_relation_remote_app(ctx, rel_id, &app, err);
        if (r >= 0 && app)
                r = juju_relation_get(ctx, rel_id, app, ret_bag, err);
        if (r < 0)
                return r;
        if (ret_app)
                *ret_app = TAKE_PTR(app);
        return 0;
}

const char *charm_bag_string(const cJSON *bag, const char *key) {
        const cJSON *v = bag ? cJSON_GetObjectItemCaseSensitive(bag, key) : NULL;
        return cJSON_IsString(v) ? v->valuestring : NULL;
}

int charm_bag_update(struct juju_ctx *ctx, const char *rel_id, bool app, const cJSON *bag, const char *key,
        const char *value, struct strbuf *err) {
        if (streq_ptr(strempty(charm_bag_string(bag, key)), strempty(value)))
                return 0;
        int r = juju_relation_set(ctx, rel_id, app, key, value, err);
        return r < 0 ? r : 1;
}

/* Runs argv (a secret-add or secret-set) with "--file F" and id (NULL: none) appended, F holding
 * yaml in a fresh root-only directory removed afterwards; the tool's output in out. */
static int secret_tool_file(struct juju_ctx *ctx, struct strv *argv, const char *yaml, const char *id,
        struct strbuf *out, struct strbuf *err) {
        char dir[] = "/run/charm-secret-XXXXXX";
        _cleanup_free_ char *file = NULL;
        const char *tool = argv->v[0];
        int r;

        /* values here are base64 or similar: refuse what would need YAML escaping */
        for (const char *p = yaml; *p; p++)
                if (*p == '\\' || ((unsigned char) *p < 0x20 && *p != '\n')) {
                        strbuf_addf(err, "%s: value needs escaping", tool);
                        return -EINVAL;
                }
        if (!mkdtemp(dir)) { /* 0700, root's */
                r = -errno;
                strbuf_addf(err, "%s: temporary directory: %s", tool, strerror(errno));
                return r;
        }
        file = xasprintf("%s/content.yaml", dir);
        r = write_file_atomic(file, yaml, strlen(yaml), 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s: %s", tool, file, strerror(-r));
                (void) rmdir(dir);
                return r;
        }
        strv_pushl(argv, "--file", file, NULL);
        if (id)
                strv_push(argv, id);
        r = juju_tool_run(ctx, argv, NULL, 0, out, err);
        (void) unlink(file);
        (void) rmdir(dir);
        return r;
}

int charm_secret_add_private(struct juju_ctx *ctx, const char *label, const char *description,
        const char *content_key, const char *value, char **ret_id, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, yaml = STRBUF_INIT;
        int r;

        for (const char *p = value; *p; p++)
                if (*p == '"' || (unsigned char) *p < 0x20) {
                        strbuf_addstr(err, "secret-add: value needs escaping");
                        return -EINVAL;
                }
        strbuf_addf(&yaml, "%s: \"%s\"\n", content_key, value);
        strv_pushl(&argv, "secret-add", "--owner", "application", NULL);
        if (label)
                strv_pushl(&argv, "--label", label, NULL);
        if (description)
                strv_pushl(&argv, "--description", description, NULL);
        r = secret_tool_file(ctx, &argv, yaml.buf, NULL, &out, err);
        explicit_bzero(yaml.buf, yaml.len);
        if (r < 0)
                return r;
        strbuf_trim(&out);
        if (out.len == 0 || strpbrk(out.buf, " \n")) {
                strbuf_addstr(err, "secret-add: expected the new secret id");
                return -EBADMSG;
        }
        *ret_id = strbuf_detach(&out, NULL);
        return 0;
}

int charm_secret_set_private(struct juju_ctx *ctx, const char *id, const char *yaml, struct strbuf *err) {
        _cleanup_strv_ struct strv argv = STRV_INIT;
        if (isempty(id)) {
                strbuf_addstr(err, "secret-set: no secret id");
                return -EINVAL;
        }
        strv_push(&argv, "secret-set");
        return secret_tool_file(ctx, &argv, yaml, id, NULL, err);
}

long charm_unit_number(const char *unit) {
        const char *slash = strrchr(unit, '/');
        char *end;
        if (!slash || !slash[1])
                return -1;
        errno = 0;
        long n = strtol(slash + 1, &end, 10);
        return errno || *end || n < 0 ? -1 : n;
}

/* Manager.GetUnitFileState ("enabled", "disabled", "static", …). lib/systemd has no call for
 * it yet; unit_enable() on an enabled unit costs a daemon-reload in systemd 252 (it reports a
 * "destination not present" change), so the charm asks first. */
static int unit_file_enabled(sd_bus *bus, const char *unit, bool *ret, struct strbuf *err) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *state;
        int r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                "org.freedesktop.systemd1.Manager", "GetUnitFileState", &e, &reply, "s", unit);
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &state);
        if (r < 0) {
                strbuf_addf(err, "unit \"%s\": GetUnitFileState: %s", unit,
                        e.message ? e.message : strerror(-r));
                return r;
        }
        *ret = streq(state, "enabled") || streq(state, "enabled-runtime") || streq(state, "static");
        return 0;
}

int charm_packages_ensure(const char *event, const char *daemon, struct strbuf *err) {
        if (!streq_ptr(event, "upgrade-charm"))
                return 0;
        char *pkgs[BOOTSTRAP_PKGS_MAX];
        bootstrap_daemon_packages(daemon, slurm_caps_built(), pkgs);
        return bootstrap_install_packages(pkgs, err);
}

int charm_dropin_install(const struct charm_paths *p, const char *charm_dir, sd_bus *bus, const char *service,
        const char *name, uint64_t timeout_usec, struct strbuf *err) {
        _cleanup_free_ char *rel = xasprintf("%s.d/%s.conf", service, name);
        _cleanup_free_ char *path = charm_template_path(p, charm_dir, rel);
        _cleanup_free_ char *content = NULL;
        int r = read_full_file(path, &content, NULL);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        r = unit_install_dropin(p && p->root ? p->root : "", service, name, content, err);
        if (r > 0) {
                int rr = unit_daemon_reload(bus, timeout_usec, err);
                if (rr < 0)
                        return rr;
        }
        return r;
}

int charm_unit_ensure(
        sd_bus *bus, const char *unit, bool restart, uint64_t timeout_usec, struct strbuf *err) {
        struct unit_state st;
        bool enabled;
        int r;

        r = unit_file_enabled(bus, unit, &enabled, err);
        if (r >= 0 && !enabled)
                r = unit_enable(bus, unit, timeout_usec, err);
        if (r < 0)
                return r;
        r = unit_get_state(bus, unit, &st, err);
        if (r < 0)
                return r;
        if (!restart &&
                (streq(st.active_state, "active") || streq(st.active_state, "activating") ||
                        streq(st.active_state, "reloading")))
                return 0;
        if (streq(st.active_state, "failed"))
                (void) unit_reset_failed(bus, unit, timeout_usec, NULL);
        r = restart ? unit_restart(bus, unit, timeout_usec, err) : unit_start(bus, unit, timeout_usec, err);
        return r < 0 ? r : 1;
}

int charm_unit_retire(sd_bus *bus, const char *unit, uint64_t timeout_usec, struct strbuf *err) {
        struct unit_state st;
        int r = unit_get_state(bus, unit, &st, err);
        if (r < 0 || streq(st.load_state, "not-found"))
                return r < 0 ? r : 0;
        r = unit_stop(bus, unit, timeout_usec, err);
        if (r >= 0)
                r = unit_disable(bus, unit, timeout_usec, err);
        return r < 0 ? r : 1;
}

/* The minimal file around one line: what the reader needs to get to that line. */
static int check_line(
        const char *line_key, const char *name, const struct slurm_options *opts, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf conf = STRBUF_INIT;
        strbuf_addstr(&conf, "ClusterName=check\nSlurmctldHost=localhost\n");
        strbuf_addf(&conf, "%s=%s ", line_key, name);
        if (streq(line_key, "PartitionName"))
                strbuf_addf(&conf, "Nodes=%s ", name);
        slurm_options_render(opts, &conf);
        strbuf_addch(&conf, '\n');
        return slurm_conf_check(conf.buf, conf.len, err);
}

int charm_check_partition(const char *app, const struct slurm_options *opts, struct strbuf *err) {
        return check_line("PartitionName", app, opts, err);
}

int charm_check_node(const char *node, const struct slurm_options *conf, struct strbuf *err) {
        return check_line("NodeName", node, conf, err);
}

char *charm_slurm_version(void) {
        return xasprintf("%d.%02d.%d", (int) SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
                (int) SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
                (int) SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
}

int charm_param_bool(const cJSON *params, const char *key, bool *ret, struct strbuf *err) {
        const cJSON *v = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
        if (!v || cJSON_IsNull(v)) {
                *ret = false;
                return 0;
        }
        if (!cJSON_IsBool(v)) {
                strbuf_addf(err, "%s: expected true or false", key);
                return -EINVAL;
        }
        *ret = cJSON_IsTrue(v);
        return 1;
}
