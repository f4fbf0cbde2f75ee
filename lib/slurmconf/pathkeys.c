/* SPDX-License-Identifier: Apache-2.0 */
/* Path-valued slurm.conf keys: their use, their roots, and the checks of a value on paper and
 * on a machine (see pathkeys.h). */
#include "util/macro.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "slurmconf/pathkeys.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/banned.h"

#define L SLURMCONF_PATH_LOG
#define X SLURMCONF_PATH_PROGRAM
#define C SLURMCONF_PATH_CONFIG
#define M SLURMCONF_PATH_MEASURED
#define O SLURMCONF_PATH_OTHER
#define CTLD SLURMCONF_PATH_CTLD
#define NODE SLURMCONF_PATH_NODE
#define CLIENT SLURMCONF_PATH_CLIENT

/* From Slurm 22.05's and 24.11's slurm.conf(5) and the daemons that use each key. */
static const struct slurmconf_path_key path_keys[] = {
        { "SlurmctldLogFile", L, CTLD },
        { "SlurmSchedLogFile", L, CTLD },
        { "SlurmdLogFile", L, NODE },
        /* run by slurmctld (as SlurmUser) */
        { "EpilogSlurmctld", X, CTLD },
        { "MailProg", X, CTLD },
        { "PrologSlurmctld", X, CTLD },
        { "ResumeFailProgram", X, CTLD },
        { "ResumeProgram", X, CTLD },
        { "ResvEpilog", X, CTLD },
        { "ResvProlog", X, CTLD },
        { "SlurmctldPrimaryOffProg", X, CTLD },
        { "SlurmctldPrimaryOnProg", X, CTLD },
        { "SuspendProgram", X, CTLD },
        /* run by slurmd or slurmstepd (as root, or as the job's user) */
        { "Epilog", X, NODE },
        { "HealthCheckProgram", X, NODE },
        { "Prolog", X, NODE },
        { "RebootProgram", X, NODE },
        { "TaskEpilog", X, NODE },
        { "TaskProlog", X, NODE },
        { "UnkillableStepProgram", X, NODE },
        /* run by srun as the user */
        { "SrunEpilog", X, CLIENT },
        { "SrunProlog", X, CLIENT },
        /* read as root by slurmd/slurmstepd, which load the plugins it names */
        { "PlugStackConfig", C, NODE },
        { "TmpFS", M, NODE },
};

static const char *const log_roots[] = { SLURMCONF_LOG_DIR, NULL };
static const char *const program_roots[] = { SLURMCONF_SITE_SCRIPTS_DIR, "/usr/bin", "/usr/sbin", "/bin", "/sbin",
        NULL };
static const char *const config_roots[] = { "/etc/slurm", NULL };
/* TmpFS: slurmstepd (root) makes job directories there for some plugins (mpi/pmix) and removes
 * them recursively: scratch places only, the root itself allowed */
static const char *const scratch_roots[] = { "/tmp", "/var/tmp", "/scratch", "/local", "/mnt", "/srv", NULL };

static const char *const use_names[_SLURMCONF_PATH_USE_MAX] = {
        [L] = "a log file",
        [X] = "a program",
        [C] = "a configuration file",
        [M] = "a directory",
        [O] = "a path",
};

static const char *const use_why[_SLURMCONF_PATH_USE_MAX] = {
        [L] = "log files stay in Slurm's log directory",
        [X] = "programs come from " SLURMCONF_SITE_SCRIPTS_DIR " or the system's bin directories",
        [C] = "configuration files stay in /etc/slurm",
        [M] = "TmpFS is a scratch directory: /tmp, /var/tmp, /scratch, /local, /mnt or /srv",
        [O] = "",
};

static const char *const *use_roots(enum slurmconf_path_use use) {
        switch (use) {
        case L:
                return log_roots;
        case X:
                return program_roots;
        case C:
                return config_roots;
        case M:
                return scratch_roots;
        default:
                return NULL;
        }
}

const struct slurmconf_path_key *slurmconf_path_key(const char *key) {
        if (!key)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(path_keys); i++)
                if (strcaseeq(path_keys[i].key, key))
                        return &path_keys[i];
        return NULL;
}

int slurmconf_path_key_foreach(int (*fn)(const struct slurmconf_path_key *k, void *userdata), void *userdata) {
        for (size_t i = 0; i < ELEMENTSOF(path_keys); i++) {
                int r = fn(&path_keys[i], userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}

const char *slurmconf_path_use_name(enum slurmconf_path_use use) {
        return (unsigned) use < _SLURMCONF_PATH_USE_MAX ? use_names[use] : "a path";
}

int slurmconf_path_jobcomp(const char *jobcomp_type, enum slurmconf_path_use *ret, const char **what) {
        const char *name = jobcomp_type ? strchr(jobcomp_type, '/') : NULL;
        name = name ? name + 1 : jobcomp_type;
        if (what)
                *what = "unused";
        if (!name || strcaseeq(name, "none"))
                return 0;
        if (strcaseeq(name, "filetxt")) {
                *ret = L;
                return 1;
        }
        if (strcaseeq(name, "script")) {
                *ret = X;
                return 1;
        }
        if (strcaseeq(name, "kafka")) {
                *ret = C;
                return 1;
        }
        if (what)
                *what = strcaseeq(name, "elasticsearch") ? "a URL" : "a database name";
        return 0;
}

static void add_value(struct strbuf *err, const char *value) {
        size_t n = strlen(value);
        strbuf_addch(err, '"');
        for (size_t i = 0; i < n && i < 60; i++) {
                unsigned char ch = (unsigned char) value[i];
                strbuf_addch(err, ch >= 0x20 && ch < 0x7f ? (char) ch : '?');
        }
        if (n > 60)
                strbuf_addstr(err, "...");
        strbuf_addch(err, '"');
}

/* Appends `"value" <reason>` and returns -EINVAL. */
_printf_(3, 4) static int bad(struct strbuf *err, const char *value, const char *fmt, ...) {
        if (err) {
                va_list ap;
                add_value(err, value);
                strbuf_addch(err, ' ');
                va_start(ap, fmt);
                strbuf_vaddf(err, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

/* value lies strictly below one of roots (a name inside, not the root itself), or is one when
 * equal is set */
static bool below_roots(const char *value, const char *const *roots, bool equal) {
        for (size_t i = 0; roots && roots[i]; i++) {
                size_t n = strlen(roots[i]);
                if (strncmp(value, roots[i], n) != 0)
                        continue;
                if ((value[n] == '/' && value[n + 1] != '\0') || (equal && value[n] == '\0'))
                        return true;
        }
        return false;
}

/* The bytes a path may hold: no "%" (Slurm expands %n, %h in some: the name checked would not
 * be the one opened), no glob character (slurmd expands Prolog and Epilog with glob(3)), nothing
 * a shell or Slurm's parser treats specially. */
static bool path_char_ok(char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                (ch && strchr("._-+@:/", ch));
}

int slurmconf_path_check(enum slurmconf_path_use use, const char *value, struct strbuf *err) {
        if ((unsigned) use >= _SLURMCONF_PATH_USE_MAX || !value)
                return -EINVAL;
        if (value[0] != '/')
                return bad(err, value, "is not an absolute path");
        if (strlen(value) >= PATH_MAX)
                return bad(err, value, "is too long");
        if (strchr(value, ' ') || strchr(value, ','))
                return bad(err, value, "is not one absolute path");
        for (const char *c = value; *c; c++)
                if (!path_char_ok(*c))
                        return bad(err, value, "has \"%c\" (a path: letters, digits, . _ - + @ : /)", *c);
        /* normalised: every component a name (no "", ".", ".."), no trailing "/" */
        for (const char *p = value; *p;) {
                const char *c = p + 1, *end = strchrnul(c, '/');
                size_t n = (size_t) (end - c);
                if (n == 0 && (*end || p != value))
                        return bad(err, value, "is not a normalised path (\"//\" or a trailing \"/\")");
                if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return bad(err, value, "has a \".\" or \"..\" component");
                p = end;
        }
        const char *const *roots = use_roots(use);
        if (!roots)
                return 0;
        if (!below_roots(value, roots, use == M)) {
                if (err) {
                        add_value(err, value);
                        strbuf_addf(err, " is outside %s (%s)", roots[0], use_why[use]);
                }
                return -EINVAL;
        }
        return 0;
}

/* resolved (absolute on this machine) without the root top (also resolved): the path as the
 * daemon will see it, or NULL when it leaves root */
static const char *strip_top(const char *resolved, const char *top) {
        size_t n = strlen(top);
        if (n == 1 && top[0] == '/')
                return resolved;
        if (strncmp(resolved, top, n) != 0 || (resolved[n] != '/' && resolved[n] != '\0'))
                return NULL;
        return resolved[n] ? resolved + n : "/";
}

/* roots resolved on this machine (/bin → /usr/bin on a merged /usr), below the top */
static bool below_resolved_roots(const char *top, const char *path, const char *const *roots) {
        for (size_t i = 0; roots[i]; i++) {
                _cleanup_free_ char *full = xasprintf("%s%s", streq(top, "/") ? "" : top, roots[i]);
                char res[PATH_MAX];
                if (!realpath(full, res))
                        continue;
                const char *r = strip_top(res, top);
                if (!r)
                        continue;
                size_t n = strlen(r);
                if (n == 1)
                        return true;
                if (strncmp(path, r, n) == 0 && path[n] == '/' && path[n + 1] != '\0')
                        return true;
        }
        return false;
}

/* Every directory from path's parent up to the top: root's, not writable by group or
 * others. */
static int check_dirs(const char *top, const char *path, const char *value, struct strbuf *err) {
        _cleanup_free_ char *dir = xstrdup(path);
        for (;;) {
                char *slash = strrchr(dir, '/');
                if (!slash)
                        return 0;
                if (slash == dir)
                        slash[1] = '\0';
                else
                        *slash = '\0';
                _cleanup_free_ char *full = xasprintf("%s%s", streq(top, "/") ? "" : top, dir);
                struct stat st;
                if (stat(full, &st) < 0)
                        return bad(err, value, "cannot be checked on this machine: %s", strerror(errno));
                if (st.st_uid != 0 || (st.st_mode & 022)) {
                        if (err) {
                                add_value(err, value);
                                strbuf_addf(err, " lies in %s, which is not root's alone on this machine "
                                                 "(owner uid %u, mode %04o)",
                                        dir, (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
                        }
                        return -EINVAL;
                }
                if (streq(dir, "/"))
                        return 0;
        }
}

/* Each symbolic link on the way from value to the file (a chain: /usr/bin/mail →
 * /etc/alternatives/mail → …) is root's and lies in directories that are root's alone: whoever
 * could re-point one could choose what a root daemon runs or reads. */
static int check_link_chain(const char *top, const char *value, struct strbuf *err) {
        _cleanup_free_ char *cur = xstrdup(value);
        const char *sep = streq(top, "/") ? "" : top;
        for (unsigned hop = 0; hop < 40; hop++) {
                _cleanup_free_ char *full = xasprintf("%s%s", sep, cur);
                struct stat st;
                if (lstat(full, &st) < 0 || !S_ISLNK(st.st_mode))
                        return 0; /* the end of the chain (a missing end is judged elsewhere) */
                if (st.st_uid != 0) {
                        if (err) {
                                add_value(err, value);
                                strbuf_addf(err, " goes through the link %s of uid %u on this machine", cur,
                                        (unsigned) st.st_uid);
                        }
                        return -EINVAL;
                }
                int r = check_dirs(top, cur, value, err);
                if (r < 0)
                        return r;
                char target[PATH_MAX];
                ssize_t n = readlink(full, target, sizeof target - 1);
                if (n < 0)
                        return 0;
                target[n] = '\0';
                /* the next link, as the daemon will see it: its directory resolved */
                _cleanup_free_ char *next = NULL;
                if (target[0] == '/')
                        next = xasprintf("%s%s", sep, target);
                else {
                        char *slash = strrchr(full, '/');
                        next = xasprintf("%.*s/%s", (int) (slash - full), full, target);
                }
                char *last = strrchr(next, '/');
                _cleanup_free_ char *dir = xstrndup(next, (size_t) (last - next));
                char res[PATH_MAX];
                if (!realpath(isempty(dir) ? "/" : dir, res))
                        return 0;
                const char *seen = strip_top(res, top);
                if (!seen)
                        return 0; /* out of the root: the resolved check refuses it */
                free(cur);
                cur = xasprintf("%s/%s", streq(seen, "/") ? "" : seen, last + 1);
        }
        return bad(err, value, "goes through too many symbolic links on this machine");
}

int slurmconf_path_check_fs(enum slurmconf_path_use use, const char *root, const char *value, uid_t owner,
        unsigned flags, struct strbuf *err) {
        const bool confine = !(flags & SLURMCONF_PATH_F_ANYWHERE);
        int r = 0;
        if (confine)
                r = slurmconf_path_check(use, value, err);
        else if (value[0] != '/')
                return bad(err, value, "is not an absolute path");
        else
                for (const char *c = value; *c; c++)
                        if (!path_char_ok(*c))
                                return 0; /* a pattern or an escape: not one file to look at */
        if (r < 0 || use == M || use == O)
                return r;

        char top[PATH_MAX];
        if (!realpath(isempty(root) ? "/" : root, top))
                return bad(err, value, "cannot be checked: the root %s is missing", root);
        _cleanup_free_ char *full = xasprintf("%s%s", streq(top, "/") ? "" : top, value);
        struct stat lst;
        bool exists = lstat(full, &lst) == 0;
        if (!exists && errno != ENOENT)
                return bad(err, value, "cannot be checked on this machine: %s", strerror(errno));

        /* where it really is: the file resolved, or its directory and its name */
        char res[PATH_MAX];
        _cleanup_free_ char *resolved = NULL;
        if (exists && realpath(full, res))
                resolved = xstrdup(res);
        else if (exists)
                return bad(err, value, "leads nowhere on this machine (a dangling symbolic link)");
        else {
                _cleanup_free_ char *dir = xstrdup(full);
                char *slash = strrchr(dir, '/');
                *slash = '\0';
                if (!realpath(dir, res)) {
                        if (use == X) {
                                bad(err, value, "does not exist on this machine");
                                return -ENOENT;
                        }
                        return bad(err, value, "cannot be created: its directory is missing on this machine");
                }
                resolved = xasprintf("%s/%s", res, strrchr(full, '/') + 1);
        }
        const char *seen = strip_top(resolved, top);
        if (!seen || (confine && !below_resolved_roots(top, seen, use_roots(use)))) {
                if (err) {
                        add_value(err, value);
                        strbuf_addf(err, " leads to %s on this machine, outside %s", seen ? seen : resolved,
                                use_roots(use)[0]);
                }
                return -EINVAL;
        }

        if (use == L) {
                if (!exists)
                        return 0;
                if (S_ISLNK(lst.st_mode))
                        return bad(err, value, "is a symbolic link on this machine");
                if (!S_ISREG(lst.st_mode))
                        return bad(err, value, "is not a regular file on this machine");
                if (lst.st_nlink != 1)
                        return bad(err, value, "has other hard links on this machine");
                if (lst.st_uid != owner) {
                        if (err) {
                                add_value(err, value);
                                strbuf_addf(err, " belongs to uid %u on this machine, not to the daemon's user (%u)",
                                        (unsigned) lst.st_uid, (unsigned) owner);
                        }
                        return -EINVAL;
                }
                return 0;
        }

        if (!exists) {
                if (use == X) {
                        bad(err, value, "does not exist on this machine");
                        return -ENOENT;
                }
                /* CONFIG: a daemon that finds none goes on without; whoever may create it there
                 * must be root alone */
                return check_dirs(top, seen, value, err);
        }
        r = check_link_chain(top, value, err);
        if (r < 0)
                return r;
        struct stat st;
        if (stat(full, &st) < 0)
                return bad(err, value, "cannot be checked on this machine: %s", strerror(errno));
        if (!S_ISREG(st.st_mode))
                return bad(err, value, "is not a regular file on this machine");
        if (st.st_uid != 0 || (st.st_mode & 022)) {
                if (err) {
                        add_value(err, value);
                        strbuf_addf(err, " is not root's alone on this machine (owner uid %u, mode %04o)",
                                (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
                }
                return -EINVAL;
        }
        if (use == X && !(st.st_mode & 0111))
                return bad(err, value, "is not executable on this machine");
        return check_dirs(top, seen, value, err);
}

#define PLUGSTACK_DEPTH_MAX 4

/* The next whitespace-separated word of *p (moved past it), NUL-terminated in place; NULL at the
 * end. */
static char *next_word(char **p) {
        char *w = *p + strspn(*p, " \t\r");
        if (!*w)
                return NULL;
        size_t n = strcspn(w, " \t\r");
        *p = w + n + (w[n] ? 1 : 0);
        w[n] = '\0';
        return w;
}

static bool plain_path(const char *v) {
        for (const char *c = v; *c; c++)
                if (!path_char_ok(*c))
                        return false;
        return true;
}

/* A plugstack.conf's contents (spank(8)): "required|optional PLUGIN [ARGS]" and "include GLOB"
 * lines. slurmd and slurmstepd, as root, dlopen() every plugin it names and read every file an
 * include names, so each absolute plugin path must be root's alone as a configuration file is,
 * and so must each included file (judged the same way, to PLUGSTACK_DEPTH_MAX) and the
 * directories of its pattern (a pattern in a directory's name is refused). A relative plugin is
 * looked for in PluginDir, a key of its own. The file alone was judged before (attack atk8 G5:
 * a plugin in /tmp, written by nobody, ran as root in slurmstepd). value passed its own check. */
static int plugstack_check(const char *root, const char *value, unsigned depth, struct strbuf *err) {
        char top[PATH_MAX];
        if (!realpath(isempty(root) ? "/" : root, top))
                return bad(err, value, "cannot be checked: the root %s is missing", root);
        _cleanup_free_ char *full = xasprintf("%s%s", streq(top, "/") ? "" : top, value), *data = NULL;
        int r = read_full_file(full, &data, NULL);
        if (r == -ENOENT)
                return 0; /* none: slurmd goes on without */
        if (r < 0)
                return bad(err, value, "cannot be read on this machine: %s", strerror(-r));
        for (char *line = data, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                line[strcspn(line, "#")] = '\0';
                char *p = line, *kw = next_word(&p), *arg = kw ? next_word(&p) : NULL;
                if (!kw || !arg)
                        continue;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (strcaseeq(kw, "required") || strcaseeq(kw, "optional")) {
                        /* a bare name is looked for in PluginDir (its own key); a relative path
                         * with a directory leaves it ("../../tmp/x.so": review R9) */
                        if (arg[0] != '/' && !strchr(arg, '/'))
                                continue;
                        if (arg[0] != '/')
                                return bad(err, value, "names the plugin \"%s\": a relative path with a directory", arg);
                        if (!plain_path(arg))
                                r = bad(&e, arg, "is not a plain path");
                        else
                                r = slurmconf_path_check_fs(C, root, arg, 0, SLURMCONF_PATH_F_ANYWHERE, &e);
                        if (r < 0)
                                return bad(err, value, "names a plugin slurmstepd loads as root: %s", e.buf);
                        continue;
                }
                if (!strcaseeq(kw, "include"))
                        continue;
                const char *base = strrchr(arg, '/');
                _cleanup_free_ char *dir = base ? xstrndup(arg, (size_t) (base - arg)) : NULL;
                if (arg[0] != '/' || !dir || !plain_path(dir))
                        return bad(err, value, "includes \"%s\": not an absolute pattern in a plain directory", arg);
                if (depth >= PLUGSTACK_DEPTH_MAX)
                        return bad(err, value, "includes files more than %d deep", PLUGSTACK_DEPTH_MAX);
                r = check_dirs(top, arg, arg, &e);
                if (r < 0)
                        return bad(err, value, "includes from a directory: %s", e.buf);
                _cleanup_free_ char *pattern = xasprintf("%s%s", streq(top, "/") ? "" : top, arg);
                glob_t g = { 0 };
                int gr = glob(pattern, GLOB_NOSORT, NULL, &g);
                if (gr != 0 && gr != GLOB_NOMATCH) {
                        globfree(&g);
                        return bad(err, value, "includes \"%s\", which cannot be listed on this machine", arg);
                }
                for (size_t i = 0; r >= 0 && i < g.gl_pathc; i++) {
                        const char *seen = strip_top(g.gl_pathv[i], top);
                        strbuf_reset(&e);
                        /* (a name the check would skip as a pattern is refused: review R8) */
                        r = !seen               ? bad(&e, g.gl_pathv[i], "is outside the machine")
                                : !plain_path(seen) ? bad(&e, seen, "is not a plain path")
                                                    : slurmconf_path_check_fs(C, root, seen, 0,
                                                              SLURMCONF_PATH_F_ANYWHERE, &e);
                        if (r >= 0 && seen)
                                r = plugstack_check(root, seen, depth + 1, &e);
                }
                globfree(&g);
                if (r < 0)
                        return bad(err, value, "includes a file: %s", e.buf);
        }
        return 0;
}

static int check_one(const char *key, enum slurmconf_path_use use, const char *root, const char *value, uid_t owner,
        unsigned flags, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = slurmconf_path_check_fs(use, root, value, use == L ? owner : 0, flags, &e);
        if (r >= 0 && strcaseeq(key, "PlugStackConfig") && value[0] == '/')
                r = plugstack_check(root, value, 0, &e);
        if (r < 0 && err)
                strbuf_addf(err, "%s: %s", key, e.buf);
        return r;
}

int slurmconf_paths_check_keys(slurmconf_path_get_fn get, void *userdata, enum slurmconf_path_host host,
        const char *root, uid_t log_owner, unsigned flags, struct strbuf *err) {
        for (size_t i = 0; i < ELEMENTSOF(path_keys); i++) {
                const struct slurmconf_path_key *k = &path_keys[i];
                const char *v = k->host == host ? get(k->key, userdata) : NULL;
                if (isempty(v))
                        continue;
                int r = check_one(k->key, k->use, root, v, log_owner, flags, err);
                if (r < 0)
                        return r;
        }
        enum slurmconf_path_use use;
        const char *loc = get("JobCompLoc", userdata);
        if (host == CTLD && !isempty(loc) && slurmconf_path_jobcomp(get("JobCompType", userdata), &use, NULL) > 0)
                return check_one("JobCompLoc", use, root, loc, log_owner, flags, err);
        return 0;
}
