/* SPDX-License-Identifier: Apache-2.0 */
/* slurmconf: the admin command over lib/slurmconf — check, render, get and set slurm.conf
 * files, expand and compress hostlists, validate option strings. */
#include "util/macro.h"

#include <limits.h>
#include <sys/stat.h>

#include "slurmconf/conf.h"
#include "slurmconf/hostlist.h"
#include "slurmconf/options.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "util/banned.h"

#define EXIT_USAGE 2
#define HOSTLIST_MAX 1000000

static const char *const usage_main =
        "usage: slurmconf COMMAND [ARGS...]\n"
        "Read, check and edit slurm.conf files (Slurm 22.05 syntax).\n"
        "\n"
        "  check FILE               parse FILE and the files it includes; errors as FILE:LINE: message\n"
        "  render FILE              parse FILE and print it back (byte for byte when valid)\n"
        "  get FILE KEY             print the value(s) of a global key, or with KEY = KIND=NAME\n"
        "                           (e.g. PartitionName=batch) the parameters of that line\n"
        "  set FILE KEY=VALUE...    set global keys (KEY= unsets), or upsert whole lines given as\n"
        "                           'PartitionName=NAME KEY=VALUE...'; edits FILE atomically in place\n"
        "  hostlist expand EXPR     print the names of a hostlist expression, one per line\n"
        "  hostlist compress NAME...  print the compressed hostlist of the names\n"
        "  options KIND STRING      validate an option string for KIND (partition, node, global)\n"
        "                           and print it normalized\n"
        "\n"
        "Run 'slurmconf COMMAND --help' for details. Exit status: 0 ok, 1 failure, 2 usage.\n";

static const char *const usage_check =
        "usage: slurmconf check FILE\n"
        "Parses FILE as Slurm 22.05 does, and every file it includes (Include lines: relative to\n"
        "the including file, %c = ClusterName). Prints nothing and exits 0 when all is valid;\n"
        "otherwise prints one 'FILE:LINE: message' line per error to stderr and exits 1.\n";
static const char *const usage_render =
        "usage: slurmconf render FILE\n"
        "Parses FILE and prints the model back to stdout (the same bytes for a valid file).\n";
static const char *const usage_get =
        "usage: slurmconf get FILE KEY\n"
        "       slurmconf get FILE KIND=NAME\n"
        "Prints the value of global key KEY (one line per value; SlurmctldHost may have several),\n"
        "or the parameters of the line KIND=NAME (KIND: NodeName, NodeSet, PartitionName,\n"
        "DownNodes, FrontendName) as 'Key=Value ...'. Exits 1 when unset or absent.\n";
static const char *const usage_set =
        "usage: slurmconf set FILE ARG...\n"
        "Each ARG is KEY=VALUE (set a global key; KEY= unsets it; a repeated SlurmctldHost=\n"
        "gives several lines) or a whole line such as 'PartitionName=batch Nodes=ns1 Default=YES'\n"
        "(replaces or adds the line of that name). Untouched lines keep their bytes; FILE is\n"
        "rewritten atomically with its mode and owner, or not at all when any ARG is invalid.\n";
static const char *const usage_hostlist =
        "usage: slurmconf hostlist expand EXPR\n"
        "       slurmconf hostlist compress NAME...\n"
        "expand prints the names of EXPR (e.g. 'node[01-10,12],rack[0-3]_blade[0-7]'), one per\n"
        "line; compress prints the shortest hostlist of the names (separated by commas, blanks\n"
        "or given as several arguments).\n";
static const char *const usage_options =
        "usage: slurmconf options KIND STRING\n"
        "Validates STRING ('Key=Value Key=Value ...') as the charms do for partition-config\n"
        "(KIND partition), node-config (node) or extra slurm.conf parameters (global), and prints\n"
        "the normalized string, or the error and exit status 1.\n";

static bool wants_help(int argc, char **argv) {
        for (int i = 0; i < argc; i++)
                if (streq(argv[i], "--help") || streq(argv[i], "-h"))
                        return true;
        return false;
}

static int usage_error(const char *usage) {
        fputs(usage, stderr);
        return EXIT_USAGE;
}

static void print_err(const struct strbuf *err) {
        if (err->len == 0)
                return;
        fputs(err->buf, stderr);
        if (err->buf[err->len - 1] != '\n')
                fputc('\n', stderr);
}

static int cmd_check(int argc, char **argv) {
        if (argc != 1)
                return usage_error(usage_check);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        int r = slurmconf_check_file(argv[0], &err);
        print_err(&err);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int cmd_render(int argc, char **argv) {
        if (argc != 1)
                return usage_error(usage_render);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        if (slurmconf_parse_file(argv[0], &c, &err) < 0) {
                print_err(&err);
                return EXIT_FAILURE;
        }
        slurmconf_render(c, &out);
        fwrite(out.buf, 1, out.len, stdout);
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int line_kind(const char *key, size_t len, enum slurmconf_scope *ret) {
        for (unsigned s = SLURMCONF_NODE; s < _SLURMCONF_SCOPE_MAX; s++) {
                const char *lk = slurmconf_scope_line_key(s);
                if (strlen(lk) == len && strncasecmp(lk, key, len) == 0) {
                        *ret = s;
                        return 0;
                }
        }
        return -ENOENT;
}

static int cmd_get(int argc, char **argv) {
        if (argc != 2)
                return usage_error(usage_get);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        if (slurmconf_parse_file(argv[0], &c, &err) < 0) {
                print_err(&err);
                return EXIT_FAILURE;
        }
        const char *key = argv[1], *eq = strchr(key, '=');
        if (eq) {
                enum slurmconf_scope kind;
                if (line_kind(key, (size_t) (eq - key), &kind) < 0) {
                        fprintf(stderr,
                                "slurmconf: \"%.*s\" is not a kind of line (NodeName, NodeSet, "
                                "PartitionName, DownNodes, FrontendName)\n",
                                (int) (eq - key), key);
                        return EXIT_USAGE;
                }
                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                if (slurmconf_lookup(c, kind, eq + 1, &o) < 0) {
                        fprintf(stderr, "slurmconf: %s: no line %s\n", argv[0], key);
                        return EXIT_FAILURE;
                }
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                slurm_options_render(&o, &out);
                printf("%s\n", out.buf);
                return EXIT_SUCCESS;
        }
        if (!slurmconf_key_lookup(SLURMCONF_GLOBAL, key)) {
                fprintf(stderr, "slurmconf: unknown key \"%s\"\n", key);
                return EXIT_FAILURE;
        }
        _cleanup_strv_ struct strv values = STRV_INIT;
        if (slurmconf_get_all(c, key, &values) <= 0) {
                fprintf(stderr, "slurmconf: %s: %s is not set\n", argv[0], key);
                return EXIT_FAILURE;
        }
        for (size_t i = 0; i < values.n; i++)
                printf("%s\n", values.v[i]);
        return EXIT_SUCCESS;
}

/* Applies one "Kind=Name Key=Value…" line argument: parsed as a one-line slurm.conf. */
static int apply_line(struct slurmconf *c, enum slurmconf_scope kind, const char *arg, struct strbuf *err) {
        _cleanup_slurmconf_ struct slurmconf *one = NULL;
        if (slurmconf_parse("argument", arg, strlen(arg), &one, err) < 0)
                return -EINVAL;
        _cleanup_strv_ struct strv names = STRV_INIT;
        if (slurmconf_names(one, kind, &names) != 1) {
                strbuf_addstr(err, "argument: give one line per argument, not DEFAULT");
                return -EINVAL;
        }
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        int r = slurmconf_lookup(one, kind, names.v[0], &o);
        if (r < 0)
                return r;
        r = slurmconf_upsert(c, kind, names.v[0], &o, err);
        return r < 0 ? r : 0;
}

static int cmd_set(int argc, char **argv) {
        if (argc < 2)
                return usage_error(usage_set);
        char resolved[PATH_MAX];
        if (!realpath(argv[0], resolved)) {
                fprintf(stderr, "slurmconf: %s: %s\n", argv[0], strerror(errno));
                return EXIT_FAILURE;
        }
        struct stat st;
        if (stat(resolved, &st) < 0) {
                fprintf(stderr, "slurmconf: %s: %s\n", argv[0], strerror(errno));
                return EXIT_FAILURE;
        }
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT, before = STRBUF_INIT, after = STRBUF_INIT;
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        if (slurmconf_parse_file(argv[0], &c, &err) < 0) {
                print_err(&err);
                return EXIT_FAILURE;
        }
        slurmconf_render(c, &before);

        bool failed = false;
        for (int i = 1; i < argc; i++) {
                const char *arg = argv[i], *eq = strchr(arg, '=');
                enum slurmconf_scope kind;
                if (!eq || eq == arg) {
                        fprintf(stderr, "slurmconf: expected KEY=VALUE, got \"%s\"\n", arg);
                        return EXIT_USAGE;
                }
                int r;
                if (line_kind(arg, (size_t) (eq - arg), &kind) == 0)
                        r = apply_line(c, kind, arg, &err);
                else {
                        _cleanup_free_ char *key = xstrndup(arg, (size_t) (eq - arg));
                        const struct slurmconf_key *k = slurmconf_key_lookup(SLURMCONF_GLOBAL, key);
                        if (eq[1] == '\0')
                                r = slurmconf_set_all(c, key, NULL, 0, &err);
                        else if (k && (k->flags & SLURMCONF_KEY_MULTI)) {
                                /* all the arguments for this key, in order, at its first one */
                                _cleanup_strv_ struct strv values = STRV_INIT;
                                bool first = true;
                                for (int j = 1; j < argc; j++) {
                                        const char *e2 = strchr(argv[j], '=');
                                        if (e2 && (size_t) (e2 - argv[j]) == strlen(key) &&
                                                strncasecmp(argv[j], key, strlen(key)) == 0) {
                                                if (j < i)
                                                        first = false;
                                                if (e2[1])
                                                        strv_push(&values, e2 + 1);
                                        }
                                }
                                r = first ? slurmconf_set_all(c, key, values.v, values.n, &err) : 0;
                        } else
                                r = slurmconf_set(c, key, eq + 1, &err);
                }
                if (r < 0) {
                        if (err.len > 0 && err.buf[err.len - 1] != '\n')
                                strbuf_addch(&err, '\n');
                        failed = true;
                }
        }
        if (failed) {
                print_err(&err);
                fprintf(stderr, "slurmconf: %s left unchanged\n", argv[0]);
                return EXIT_FAILURE;
        }
        slurmconf_render(c, &after);
        if (after.len == before.len && memcmp(after.buf, before.buf, after.len) == 0)
                return EXIT_SUCCESS;
        int r = write_file_atomic(resolved, after.buf, after.len, st.st_mode & 07777, st.st_uid, st.st_gid);
        if (r < 0) {
                fprintf(stderr, "slurmconf: %s: %s\n", resolved, strerror(-r));
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}

static int cmd_hostlist(int argc, char **argv) {
        if (argc < 2)
                return usage_error(usage_hostlist);
        if (streq(argv[0], "expand")) {
                if (argc != 2)
                        return usage_error(usage_hostlist);
                _cleanup_strv_ struct strv names = STRV_INIT;
                int r = hostlist_expand(argv[1], HOSTLIST_MAX, &names);
                if (r < 0) {
                        fprintf(stderr, "slurmconf: hostlist \"%s\": %s\n", argv[1],
                                r == -E2BIG ? "more than 1000000 names" : "invalid expression");
                        return EXIT_FAILURE;
                }
                for (size_t i = 0; i < names.n; i++)
                        printf("%s\n", names.v[i]);
                return EXIT_SUCCESS;
        }
        if (streq(argv[0], "compress")) {
                _cleanup_strv_ struct strv names = STRV_INIT;
                for (int i = 1; i < argc; i++) {
                        const char *p = argv[i];
                        while (*p) {
                                size_t n = strcspn(p, ", \t\n");
                                if (n > 0) {
                                        _cleanup_free_ char *name = xstrndup(p, n);
                                        strv_push(&names, name);
                                }
                                p += n;
                                if (*p)
                                        p++;
                        }
                }
                _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
                if (hostlist_compress(names.v, &out) < 0) {
                        fprintf(stderr, "slurmconf: hostlist compress: invalid name\n");
                        return EXIT_FAILURE;
                }
                printf("%s\n", out.buf);
                return EXIT_SUCCESS;
        }
        return usage_error(usage_hostlist);
}

static int cmd_options(int argc, char **argv) {
        if (argc != 2)
                return usage_error(usage_options);
        enum slurm_options_kind kind;
        if (slurm_options_kind_from_string(argv[0], &kind) < 0)
                return usage_error(usage_options);
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
        _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
        if (slurm_options_parse(argv[1], kind, &o, &err) < 0) {
                fprintf(stderr, "slurmconf: %s options: %s\n", slurm_options_kind_name(kind), err.buf);
                return EXIT_FAILURE;
        }
        slurm_options_render(&o, &out);
        printf("%s\n", out.buf);
        return EXIT_SUCCESS;
}

int main(int argc, char **argv) {
        const struct {
                const char *name;
                int (*fn)(int argc, char **argv);
                const char *usage;
        } cmds[] = {
                { "check", cmd_check, usage_check },
                { "render", cmd_render, usage_render },
                { "get", cmd_get, usage_get },
                { "set", cmd_set, usage_set },
                { "hostlist", cmd_hostlist, usage_hostlist },
                { "options", cmd_options, usage_options },
        };

        if (argc < 2)
                return usage_error(usage_main);
        if (streq(argv[1], "--help") || streq(argv[1], "-h") || streq(argv[1], "help")) {
                fputs(usage_main, stdout);
                return EXIT_SUCCESS;
        }
        for (size_t i = 0; i < ELEMENTSOF(cmds); i++) {
                if (!streq(argv[1], cmds[i].name))
                        continue;
                if (wants_help(argc - 2, argv + 2)) {
                        fputs(cmds[i].usage, stdout);
                        return EXIT_SUCCESS;
                }
                return cmds[i].fn(argc - 2, argv + 2);
        }
        fprintf(stderr, "slurmconf: unknown command \"%s\"\n", argv[1]);
        return usage_error(usage_main);
}
