/* SPDX-License-Identifier: Apache-2.0 */
/* charm-pack: the YAML side of packaging a charm (split a two-charm YAML file, write
 * manifest.yaml from the build host, check an unpacked charm); tools/charm-pack/pack.sh zips.
 *
 *   charm-pack split IN.yaml CHARM OUT.yaml   the section under top-level key CHARM, dedented,
 *                                             comments kept; verified by parsing both files and
 *                                             comparing OUT with IN[CHARM] node by node
 *   charm-pack manifest OUT.yaml [OS_RELEASE [BASE]]
 *                                             bases: [{name, channel, architectures: [deb arch
 *                                             of uname -m]}]: BASE "os@channel" (a base Juju 3.x
 *                                             deploys machine charms on, tools/juju-sim/bases.h),
 *                                             or "auto": the build host's ID@VERSION_ID when
 *                                             Juju takes it, else the Ubuntu base of the same
 *                                             Slurm generation (Debian 12: ubuntu@22.04, 13:
 *                                             ubuntu@24.04); and built-on: ID@VERSION_ID of
 *                                             OS_RELEASE (a juju-sim key, Juju ignores it)
 *   charm-pack charmcraft OUT STAGE SRCDIR BASE  charmcraft.yaml for the charm split in STAGE
 *   charm-pack check DIR [NAME]               an unpacked charm: the YAML files parse, every
 *                                             hook metadata.yaml implies and every action of
 *                                             actions.yaml is an executable file
 * Exit: 0 ok, 1 failure (one message per problem on stderr), 2 usage. */
#include "util/macro.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/strv.h"

#include <ctype.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <yaml.h>

#include "bases.h"
#include "util/banned.h"

static int load_doc(const char *path, yaml_document_t *doc) {
        _cleanup_free_ char *data = NULL;
        size_t len;
        yaml_parser_t p;
        int r = read_full_file(path, &data, &len);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(-r));
                return r;
        }
        yaml_parser_initialize(&p);
        yaml_parser_set_input_string(&p, (const unsigned char *) data, len);
        if (!yaml_parser_load(&p, doc)) {
                fprintf(stderr, "%s:%zu: %s\n", path, p.problem_mark.line + 1,
                        p.problem ? p.problem : "parse error");
                yaml_parser_delete(&p);
                return -EINVAL;
        }
        yaml_parser_delete(&p);
        if (!yaml_document_get_root_node(doc)) {
                fprintf(stderr, "%s: empty document\n", path);
                yaml_document_delete(doc);
                return -EINVAL;
        }
        return 0;
}

static const char *scalar(yaml_node_t *n) {
        return n && n->type == YAML_SCALAR_NODE ? (const char *) n->data.scalar.value : NULL;
}

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *map, const char *key) {
        if (!map || map->type != YAML_MAPPING_NODE)
                return NULL;
        for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++)
                if (streq_ptr(scalar(yaml_document_get_node(d, p->key)), key))
                        return yaml_document_get_node(d, p->value);
        return NULL;
}

static bool node_equal(yaml_document_t *da, yaml_node_t *a, yaml_document_t *db, yaml_node_t *b) {
        if (!a || !b || a->type != b->type)
                return false;
        switch (a->type) {
        case YAML_SCALAR_NODE:
                return a->data.scalar.length == b->data.scalar.length &&
                        memcmp(a->data.scalar.value, b->data.scalar.value, a->data.scalar.length) == 0;
        case YAML_SEQUENCE_NODE: {
                yaml_node_item_t *x = a->data.sequence.items.start, *y = b->data.sequence.items.start;
                for (; x < a->data.sequence.items.top && y < b->data.sequence.items.top; x++, y++)
                        if (!node_equal(
                                    da, yaml_document_get_node(da, *x), db, yaml_document_get_node(db, *y)))
                                return false;
                return x == a->data.sequence.items.top && y == b->data.sequence.items.top;
        }
        case YAML_MAPPING_NODE: {
                yaml_node_pair_t *x = a->data.mapping.pairs.start, *y = b->data.mapping.pairs.start;
                for (; x < a->data.mapping.pairs.top && y < b->data.mapping.pairs.top; x++, y++)
                        if (!node_equal(da, yaml_document_get_node(da, x->key), db,
                                    yaml_document_get_node(db, y->key)) ||
                                !node_equal(da, yaml_document_get_node(da, x->value), db,
                                        yaml_document_get_node(db, y->value)))
                                return false;
                return x == a->data.mapping.pairs.top && y == b->data.mapping.pairs.top;
        }
        default:
                return false;
        }
}

/* The lines of the section "KEY:" (column 0) up to the next column-0 key, two spaces removed. */
static int cmd_split(const char *in, const char *charm, const char *out) {
        _cleanup_free_ char *data = NULL;
        _cleanup_strbuf_ struct strbuf sect = STRBUF_INIT, head = STRBUF_INIT;
        bool inside = false, found = false;
        yaml_document_t din, dout;
        int r;

        r = read_full_file(in, &data, NULL);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", in, strerror(-r));
                return 1;
        }
        strbuf_addf(&head, "%s:", charm);
        for (char *line = data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
                nl = strchr(line, '\n');
                size_t len = nl ? (size_t) (nl - line) : strlen(line);
                bool col0 = len > 0 && line[0] != ' ' && line[0] != '#';
                if (col0) {
                        inside = len >= head.len && strncmp(line, head.buf, head.len) == 0 &&
                                (len == head.len || line[head.len] == ' ');
                        if (inside) {
                                if (found) {
                                        fprintf(stderr, "%s: key \"%s\" appears twice\n", in, charm);
                                        return 1;
                                }
                                found = true;
                                /* "CHARM: {}": a charm with nothing in this file (no actions) */
                                const char *rest = line + head.len;
                                size_t rl = len - head.len;
                                while (rl > 0 && *rest == ' ')
                                        rest++, rl--;
                                if (rl == 2 && strncmp(rest, "{}", 2) == 0)
                                        strbuf_addstr(&sect, "{}\n");
                        }
                        continue;
                }
                if (!inside)
                        continue;
                if (len >= 2 && line[0] == ' ' && line[1] == ' ')
                        strbuf_add(&sect, line + 2, len - 2);
                else if (len > 0 && line[0] == '#')
                        strbuf_add(&sect, line, len);
                else if (len > 0 && strspn(line, " ") != len) {
                        fprintf(stderr, "%s: a line of \"%s\" is indented by less than two spaces\n", in,
                                charm);
                        return 1;
                }
                strbuf_addch(&sect, '\n');
        }
        if (!found) {
                fprintf(stderr, "%s: no top-level key \"%s\"\n", in, charm);
                return 1;
        }
        r = write_file_atomic(out, sect.buf, sect.len, 0644, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", out, strerror(-r));
                return 1;
        }
        /* the split must mean exactly what the section meant */
        if (load_doc(in, &din) < 0)
                return 1;
        if (load_doc(out, &dout) < 0) {
                yaml_document_delete(&din);
                return 1;
        }
        bool same = node_equal(&din, map_get(&din, yaml_document_get_root_node(&din), charm), &dout,
                yaml_document_get_root_node(&dout));
        yaml_document_delete(&din);
        yaml_document_delete(&dout);
        if (!same) {
                fprintf(stderr, "%s: section \"%s\" does not survive the split as %s\n", in, charm, out);
                (void) unlink(out);
                return 1;
        }
        return 0;
}

static const char *deb_arch(const char *machine) {
        static const char *const map[][2] = {
                { "x86_64", "amd64" },
                { "aarch64", "arm64" },
                { "ppc64le", "ppc64el" },
                { "s390x", "s390x" },
                { "riscv64", "riscv64" },
                { "armv7l", "armhf" },
                { "i686", "i386" },
        };
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (streq(machine, map[i][0]))
                        return map[i][1];
        return machine;
}

static bool yaml_safe(const char *s) {
        for (; *s; s++)
                if (!(isalnum((unsigned char) *s) || strchr("._-", *s)))
                        return false;
        return true;
}

static int cmd_manifest(const char *out, const char *os_release, const char *base) {
        _cleanup_free_ char *data = NULL, *id = NULL, *ver = NULL;
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        _cleanup_strbuf_ struct strbuf m = STRBUF_INIT;
        struct utsname u;
        int r;

        r = read_full_file(os_release, &data, NULL);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", os_release, strerror(-r));
                return 1;
        }
        id = os_release_value(data, "ID");
        ver = os_release_value(data, "VERSION_ID");
        if (isempty(id) || isempty(ver) || !yaml_safe(id) || !yaml_safe(ver)) {
                fprintf(stderr, "%s: no usable ID and VERSION_ID\n", os_release);
                return 1;
        }
        /* what the executables were built on (their libslurm): juju-sim runs the charm on
         * machines of that base only (tools/juju-sim/README.md "Bases") */
        _cleanup_free_ char *built_on = xasprintf("%s@%s", id, ver);
        if (!streq(base, "auto")) {
                const char *at = strchr(base, '@');
                free(id);
                free(ver);
                id = at ? xstrndup(base, (size_t) (at - base)) : xstrdup(base);
                ver = xstrdup(at ? at + 1 : "");
                if (juju_base_check(id, ver, &why) < 0 || !yaml_safe(id) || !yaml_safe(ver)) {
                        fprintf(stderr, "charm base \"%s\": %s\n", base, why.buf);
                        return 1;
                }
        } else if (juju_base_check(id, ver, &why) < 0) {
                /* the build host is no Juju base (Debian 12, say): declare the base the charm
                 * is meant for, the Ubuntu release of the same Slurm generation (Debian 13's
                 * 24.11 and Ubuntu 24.04's 23.11 use auth/slurm; Debian 12's 22.05 and Ubuntu
                 * 22.04's 21.08 munge); its executables must then be rebuilt there (charmcraft.yaml) */
                bool newer = streq(id, "debian") && strtol(ver, NULL, 10) >= 13;
                free(id);
                free(ver);
                id = xstrdup("ubuntu");
                ver = xstrdup(newer ? "24.04" : "22.04");
        }
        if (uname(&u) < 0) {
                fprintf(stderr, "uname: %s\n", strerror(errno));
                return 1;
        }
        strbuf_addf(&m,
                "# Written at build time (charm-pack manifest). The executables link the build\n"
                "# host's libslurm: the charm runs on a machine of this base only when built on it.\n"
                "bases:\n"
                "- name: %s\n"
                "  channel: \"%s\"\n"
                "  architectures:\n"
                "  - %s\n"
                "# juju-sim: the base the executables were built on (Juju ignores this key)\n"
                "built-on: %s\n",
                id, ver, deb_arch(u.machine), built_on);
        r = write_file_atomic(out, m.buf, m.len, 0644, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", out, strerror(-r));
                return 1;
        }
        return 0;
}

/* Appends the file's lines, each indented by ind spaces (comments and blank lines kept); a
 * top-level line starting with rename[0] starts with rename[1] instead (rename may be NULL). */
static int add_indented(struct strbuf *out, const char *path, int ind, const char *const rename[2]) {
        _cleanup_free_ char *data = NULL;
        int r = read_full_file(path, &data, NULL);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(-r));
                return r;
        }
        for (const char *l = data; *l;) {
                const char *nl = strchr(l, '\n');
                size_t n = nl ? (size_t) (nl - l) : strlen(l);
                size_t skip = rename && startswith(l, rename[0]) ? strlen(rename[0]) : 0;
                if (skip)
                        strbuf_addf(out, "%*s%s%.*s", ind, "", rename[1], (int) (n - skip), l + skip);
                else if (n)
                        strbuf_addf(out, "%*s%.*s", ind, "", (int) n, l);
                strbuf_addch(out, '\n');
                l += n + (nl != NULL);
        }
        return 0;
}

/* charmcraft.yaml (charmcraft 3, base + platforms, metadata/config/actions merged in) for the
 * charm whose split YAML files are in STAGE: `charmcraft pack` builds it on the base with meson
 * from the repository at SRCDIR. Checked by parsing it back. */
static int cmd_charmcraft(const char *out, const char *stage, const char *srcdir, const char *base) {
        _cleanup_strbuf_ struct strbuf m = STRBUF_INIT, why = STRBUF_INIT;
        _cleanup_free_ char *meta = xasprintf("%s/metadata.yaml", stage),
                            *config = xasprintf("%s/config.yaml", stage),
                            *actions = xasprintf("%s/actions.yaml", stage);
        yaml_document_t doc;
        if (load_doc(meta, &doc) < 0)
                return 1;
        const char *name = scalar(map_get(&doc, yaml_document_get_root_node(&doc), "name"));
        _cleanup_free_ char *charm = name ? xstrdup(name) : NULL;
        yaml_document_delete(&doc);
        const char *at = strchr(base, '@');
        _cleanup_free_ char *os = at ? xstrndup(base, (size_t) (at - base)) : xstrdup(base);
        if (!charm || !yaml_safe(charm) || juju_base_check(os, at ? at + 1 : "", &why) < 0) {
                fprintf(stderr, "charmcraft: charm %s, base \"%s\": %s\n", strempty(charm), base, why.buf);
                return 1;
        }
        /* Ubuntu 22.04 (and older) ships meson 0.61, this tree needs 1.0: the part takes meson
         * from PyPI into a virtual environment there */
        bool old_meson = streq(base, "ubuntu@22.04") || streq(base, "ubuntu@20.04");
        const char *meson = old_meson ? "\"$CRAFT_PART_BUILD/venv/bin/meson\"" : "meson";
        strbuf_addf(&m,
                "# charmcraft.yaml for %s, written by charm-pack from this repository's YAML files.\n"
                "# `charmcraft pack` builds the native executables with meson on the base itself (they\n"
                "# link its libslurm) and packs what build/%s.charm holds.\n"
                "type: charm\n"
                "base: %s\n"
                "platforms:\n"
                "  amd64:\n"
                "  arm64:\n"
                "parts:\n"
                "  %s:\n"
                "    plugin: nil\n"
                "    source: %s\n"
                "    source-type: local\n"
                "    build-packages: [gcc, %s, ninja-build, pkg-config, libslurm-dev, libyaml-dev,\n"
                "      libcjson-dev, libsystemd-dev, libmariadb-dev, libmicrohttpd-dev, zip, unzip]\n"
                "    override-build: |\n"
                "%s"
                "      rm -rf \"$CRAFT_PART_BUILD/b\"\n"
                "      %s setup \"$CRAFT_PART_BUILD/b\" \"$CRAFT_PART_SRC\" -Dtests=false "
                "-Dcharm_base=%s\n"
                "      ninja -C \"$CRAFT_PART_BUILD/b\" %s.charm\n"
                "      unzip -o \"$CRAFT_PART_BUILD/b/%s.charm\" -d \"$CRAFT_PART_INSTALL\"\n"
                "      rm -f \"$CRAFT_PART_INSTALL/manifest.yaml\" \"$CRAFT_PART_INSTALL/metadata.yaml\" "
                "\\\n"
                "        \"$CRAFT_PART_INSTALL/config.yaml\" \"$CRAFT_PART_INSTALL/actions.yaml\"\n"
                "# metadata.yaml\n",
                charm, charm, base, charm, srcdir, old_meson ? "python3-venv" : "meson",
                old_meson ? "      python3 -m venv \"$CRAFT_PART_BUILD/venv\"\n"
                            "      \"$CRAFT_PART_BUILD/venv/bin/pip\" install 'meson>=1.0,<2'\n"
                          : "",
                meson, base, charm, charm);
        /* the unified file's name for metadata.yaml's display-name is title (charmcraft's
         * CharmcraftProject forbids unknown keys) */
        static const char *const title[2] = { "display-name:", "title:" };
        if (add_indented(&m, meta, 0, title) < 0)
                return 1;
        strbuf_addstr(&m, "config:\n");
        if (add_indented(&m, config, 2, NULL) < 0)
                return 1;
        strbuf_addstr(&m, "actions:\n");
        if (add_indented(&m, actions, 2, NULL) < 0)
                return 1;
        int r = write_file_atomic(out, m.buf, m.len, 0644, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", out, strerror(-r));
                return 1;
        }
        if (load_doc(out, &doc) < 0)
                return 1;
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        bool ok = streq_ptr(scalar(map_get(&doc, root, "name")), charm) && map_get(&doc, root, "config") &&
                map_get(&doc, root, "actions") && map_get(&doc, root, "parts");
        yaml_document_delete(&doc);
        if (!ok) {
                fprintf(stderr, "%s: does not read back as one charm's charmcraft.yaml\n", out);
                return 1;
        }
        return 0;
}

static int check_exec(const char *dir, const char *kind, const char *name, unsigned *bad) {
        _cleanup_free_ char *p = xasprintf("%s/%s/%s", dir, kind, name);
        struct stat st;
        if (stat(p, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 0111) != 0111) {
                fprintf(stderr, "%s/%s: missing or not executable\n", kind, name);
                (*bad)++;
                return -1;
        }
        return 0;
}

static int cmd_check(const char *dir, const char *want_name) {
        static const char *const std_hooks[] = { "install", "start", "config-changed", "upgrade-charm",
                "update-status", "leader-elected", "leader-settings-changed", NULL };
        static const char *const rel_events[] = { "created", "joined", "changed", "departed", "broken",
                NULL };
        static const char *const roles[] = { "requires", "provides", "peers", NULL };
        yaml_document_t meta, config, actions, manifest;
        unsigned bad = 0, n_hooks = 0, n_actions = 0;
        _cleanup_free_ char *pm = xasprintf("%s/metadata.yaml", dir), *pc = xasprintf("%s/config.yaml", dir),
                            *pa = xasprintf("%s/actions.yaml", dir),
                            *pf = xasprintf("%s/manifest.yaml", dir);

        if (load_doc(pm, &meta) < 0)
                return 1;
        yaml_node_t *root = yaml_document_get_root_node(&meta);
        _cleanup_free_ char *name = xstrdup(strempty(scalar(map_get(&meta, root, "name"))));
        if (isempty(name) || (want_name && !streq(name, want_name))) {
                fprintf(stderr, "metadata.yaml: name is \"%s\", want \"%s\"\n", strempty(name),
                        strempty(want_name));
                bad++;
        }
        for (const char *const *h = std_hooks; *h; h++, n_hooks++)
                (void) check_exec(dir, "hooks", *h, &bad);
        for (const char *const *role = roles; *role; role++) {
                yaml_node_t *eps = map_get(&meta, root, *role);
                if (!eps)
                        continue;
                if (eps->type != YAML_MAPPING_NODE) {
                        fprintf(stderr, "metadata.yaml: %s is not a map\n", *role);
                        bad++;
                        continue;
                }
                for (yaml_node_pair_t *p = eps->data.mapping.pairs.start; p < eps->data.mapping.pairs.top;
                        p++) {
                        const char *ep = scalar(yaml_document_get_node(&meta, p->key));
                        yaml_node_t *iface =
                                map_get(&meta, yaml_document_get_node(&meta, p->value), "interface");
                        if (!ep || !scalar(iface)) {
                                fprintf(stderr, "metadata.yaml: %s endpoint without an interface\n", *role);
                                bad++;
                                continue;
                        }
                        for (const char *const *ev = rel_events; *ev; ev++) {
                                if (streq(*role, "peers") && streq(*ev, "broken"))
                                        continue; /* peer relations never break */
                                _cleanup_free_ char *h = xasprintf("%s-relation-%s", ep, *ev);
                                (void) check_exec(dir, "hooks", h, &bad);
                                n_hooks++;
                        }
                }
        }
        yaml_document_delete(&meta);

        if (load_doc(pc, &config) < 0)
                return 1;
        yaml_node_t *opts = map_get(&config, yaml_document_get_root_node(&config), "options");
        if (!opts || opts->type != YAML_MAPPING_NODE) {
                fprintf(stderr, "config.yaml: no options map\n");
                bad++;
        }
        yaml_document_delete(&config);

        if (load_doc(pa, &actions) < 0)
                return 1;
        yaml_node_t *ar = yaml_document_get_root_node(&actions);
        if (ar->type == YAML_MAPPING_NODE)
                for (yaml_node_pair_t *p = ar->data.mapping.pairs.start; p < ar->data.mapping.pairs.top;
                        p++) {
                        const char *a = scalar(yaml_document_get_node(&actions, p->key));
                        if (a) {
                                (void) check_exec(dir, "actions", a, &bad);
                                n_actions++;
                        }
                }
        else if (!(ar->type == YAML_SCALAR_NODE && ar->data.scalar.length == 0)) {
                fprintf(stderr, "actions.yaml: not a map\n");
                bad++;
        }
        yaml_document_delete(&actions);

        if (load_doc(pf, &manifest) < 0)
                return 1;
        yaml_node_t *bases = map_get(&manifest, yaml_document_get_root_node(&manifest), "bases");
        yaml_node_t *b0 = bases && bases->type == YAML_SEQUENCE_NODE &&
                        bases->data.sequence.items.start < bases->data.sequence.items.top
                ? yaml_document_get_node(&manifest, *bases->data.sequence.items.start)
                : NULL;
        yaml_node_t *archs = map_get(&manifest, b0, "architectures");
        if (!scalar(map_get(&manifest, b0, "name")) || !scalar(map_get(&manifest, b0, "channel")) ||
                !archs || archs->type != YAML_SEQUENCE_NODE ||
                archs->data.sequence.items.start == archs->data.sequence.items.top) {
                fprintf(stderr, "manifest.yaml: bases[0] needs name, channel and architectures\n");
                bad++;
        }
        yaml_document_delete(&manifest);

        if (bad)
                return 1;
        printf("%s: %u hooks, %u actions ok\n", strempty(name), n_hooks, n_actions);
        return 0;
}

int main(int argc, char **argv) {
        if (argc == 5 && streq(argv[1], "split"))
                return cmd_split(argv[2], argv[3], argv[4]);
        if (argc >= 3 && argc <= 5 && streq(argv[1], "manifest"))
                return cmd_manifest(
                        argv[2], argc >= 4 ? argv[3] : "/etc/os-release", argc == 5 ? argv[4] : "auto");
        if (argc == 6 && streq(argv[1], "charmcraft"))
                return cmd_charmcraft(argv[2], argv[3], argv[4], argv[5]);
        if ((argc == 3 || argc == 4) && streq(argv[1], "check"))
                return cmd_check(argv[2], argc == 4 ? argv[3] : NULL);
        fprintf(stderr,
                "usage: charm-pack split IN CHARM OUT | manifest OUT [OS_RELEASE [BASE]] | charmcraft OUT "
                "STAGE SRCDIR BASE | check DIR [NAME]\n");
        return 2;
}
