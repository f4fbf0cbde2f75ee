/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's slurm.conf from the template and the charm's inputs (pure), the
 * restart-or-reconfigure decision, and the generated cluster name. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/ctlconf.h"

#include <inttypes.h>
#include "charm/common/authkey.h"
#include "slurmconf/subopts.h"
#include "slurmconf/conf.h"

#include "util/banned.h"

static int cmp_partition(const void *a, const void *b) {
        const struct compute_data *const *x = a, *const *y = b;
        return strcmp((*x)->name, (*y)->name);
}

int ctl_conf_render(const struct ctl_conf_input *in, struct strbuf *out, struct strbuf *err) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_slurm_options_ struct slurm_options extra = SLURM_OPTIONS_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        _cleanup_strv_ struct strv hosts = STRV_INIT;
        _cleanup_free_ const struct compute_data **sorted = NULL;
        const char *deflt = in->default_partition;
        int r;

        /* inputs first: nothing is rendered from a bad one */
        r = slurm_options_parse(strempty(in->extra_params), SLURM_OPTIONS_GLOBAL, &extra, &e);
        if (r < 0) {
                strbuf_addf(err, "slurm-conf-parameters: %s", e.buf);
                return r;
        }
        if (!isempty(deflt) && !slurmd_iface_valid_app_name(deflt)) {
                strbuf_addf(err, "default-partition: \"%.40s\" is not an application name", deflt);
                return -EINVAL;
        }
        if (!ctl_cluster_name_valid(in->cluster_name)) {
                strbuf_addf(err, "cluster-name: \"%.40s\" is not a valid cluster name",
                        strempty(in->cluster_name));
                return -EINVAL;
        }
        if (in->n_controllers == 0) {
                strbuf_addstr(err, "no controller");
                return -EINVAL;
        }

        r = slurmconf_parse(in->template_path, in->template_data, in->template_len, &c, err);
        if (r < 0)
                return r;

        r = slurmconf_set(c, "ClusterName", in->cluster_name, err);
        if (r < 0)
                return r;
        /* the generation's auth plugins and pid files (the template names 22.05's) */
        const struct slurm_caps *caps = in->caps ? in->caps : slurm_caps_built();
        r = slurmconf_set(c, "AuthType", caps->auth_type, err);
        if (r >= 0)
                r = slurmconf_set(c, "CredType", caps->cred_type, err);
        if (r >= 0)
                r = slurmconf_set(c, "SlurmctldPidFile", caps->ctld_pid_file, err);
        if (r >= 0)
                r = slurmconf_set(c, "SlurmdPidFile", caps->slurmd_pid_file, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < in->n_controllers; i++) {
                const struct ctl_controller *k = &in->controllers[i];
                if (k->addr)
                        strv_pushf(&hosts, "%s(%s)", k->host, k->addr);
                else
                        strv_push(&hosts, k->host);
        }
        r = slurmconf_set_all(c, "SlurmctldHost", hosts.v, hosts.n, err);
        if (r >= 0 && !isempty(in->state_save_location))
                r = slurmconf_set(c, "StateSaveLocation", in->state_save_location, err);
        if (r >= 0 && in->slurmctld_timeout > 0) {
                char t[16];
                snprintf(t, sizeof t, "%d", in->slurmctld_timeout);
                r = slurmconf_set(c, "SlurmctldTimeout", t, err);
        }
        if (r < 0)
                return r;
        if (in->n_accounting > 0) {
                /* slurmdbd: its address and port, the backup's address (Slurm takes one port) */
                _cleanup_free_ char *primary = xstrdup(in->accounting[0]);
                char *colon = strrchr(primary, ':');
                if (!colon) {
                        strbuf_addstr(err, "accounting: not host:port");
                        return -EINVAL;
                }
                *colon = '\0';
                r = slurmconf_set(c, "AccountingStorageType", "accounting_storage/slurmdbd", err);
                if (r >= 0)
                        r = slurmconf_set(c, "AccountingStorageHost", primary, err);
                if (r >= 0)
                        r = slurmconf_set(c, "AccountingStoragePort", colon + 1, err);
                if (r >= 0 && in->n_accounting > 1) {
                        _cleanup_free_ char *backup =
                                xstrndup(in->accounting[1], strcspn(in->accounting[1], ":"));
                        r = slurmconf_set(c, "AccountingStorageBackupHost", backup, err);
                }
                if (r >= 0 && !isempty(in->accounting_enforce) && !in->accounting_enforce_wait)
                        r = slurmconf_set(c, "AccountingStorageEnforce", in->accounting_enforce, err);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < extra.n; i++) {
                /* the option accounting-enforce comes first (its status note names this one) */
                if (!isempty(in->accounting_enforce) && strcaseeq(extra.items[i].key, "AccountingStorageEnforce"))
                        continue;
                if (slurm_caps_key_gone(caps, extra.items[i].key)) {
                        strbuf_addf(err,
                                "slurm-conf-parameters: %s is not read by Slurm %s any more (defunct or "
                                "moved)",
                                extra.items[i].key, caps->release);
                        return -EINVAL;
                }
                const char *gone = slurm_caps_item_gone(caps, extra.items[i].key, extra.items[i].value);
                if (gone) {
                        strbuf_addf(err, "slurm-conf-parameters: %s: Slurm %s has no %s any more",
                                extra.items[i].key, caps->release, gone);
                        return -EINVAL;
                }
                /* the sub-options this generation's readers know, with their grammars (a word
                 * Slurm ignores, a value it resets to its default, a flag it exits on) */
                strbuf_reset(&e);
                if (slurmconf_subopts_check(extra.items[i].key, extra.items[i].value, caps->release, &e) < 0) {
                        strbuf_addf(err, "slurm-conf-parameters: %s: %s", extra.items[i].key, e.buf);
                        return -EINVAL;
                }
                r = slurmconf_set(c, extra.items[i].key, extra.items[i].value, &e);
                if (r < 0) {
                        strbuf_addf(err, "slurm-conf-parameters: %s", e.buf);
                        return r;
                }
        }

        sorted = xcalloc(in->n_partitions + 1, sizeof *sorted);
        for (size_t i = 0; i < in->n_partitions; i++)
                sorted[i] = &in->partitions[i];
        qsort(sorted, in->n_partitions, sizeof *sorted, cmp_partition);
        /* the oldest relation when none is named, or the named one is not here: adding an
         * application keeps the default, and the cluster always has one */
        bool named_here = false;
        for (size_t i = 0; !isempty(deflt) && i < in->n_partitions; i++)
                named_here = named_here || streq(in->partitions[i].name, deflt);
        if (!named_here && in->n_partitions > 0)
                deflt = in->partitions[0].name;

        for (size_t i = 0; i < in->n_partitions; i++) {
                const struct compute_data *d = sorted[i];
                _cleanup_slurm_options_ struct slurm_options ns = SLURM_OPTIONS_INIT;
                _cleanup_slurm_options_ struct slurm_options part = SLURM_OPTIONS_INIT;

                if (i > 0 && streq(d->name, sorted[i - 1]->name))
                        continue; /* the same application twice cannot happen in Juju; be safe */
                slurm_options_set(&ns, "Feature", d->name);
                r = slurmconf_upsert(c, SLURMCONF_NODESET, d->name, &ns, err);
                if (r < 0)
                        return r;
                slurm_options_set(&part, "Nodes", d->name);
                for (size_t j = 0; j < d->partition.n; j++)
                        if (!strcaseeq(d->partition.items[j].key, "Default"))
                                slurm_options_set(
                                        &part, d->partition.items[j].key, d->partition.items[j].value);
                if (streq_ptr(deflt, d->name))
                        slurm_options_set(&part, "Default", "YES");
                r = slurmconf_upsert(c, SLURMCONF_PARTITION, d->name, &part, err);
                if (r < 0)
                        return r;
        }
        /* partitions whose application left but that still hold jobs: kept, INACTIVE */
        for (size_t i = 0; i < in->n_leaving; i++) {
                const struct compute_data *d = &in->leaving[i];
                _cleanup_slurm_options_ struct slurm_options ns = SLURM_OPTIONS_INIT;
                _cleanup_slurm_options_ struct slurm_options part = SLURM_OPTIONS_INIT;
                bool related = false;
                for (size_t j = 0; j < in->n_partitions; j++)
                        related = related || streq(in->partitions[j].name, d->name);
                if (related)
                        continue;
                slurm_options_set(&ns, "Feature", d->name);
                r = slurmconf_upsert(c, SLURMCONF_NODESET, d->name, &ns, err);
                if (r < 0)
                        return r;
                slurm_options_set(&part, "Nodes", d->name);
                for (size_t j = 0; j < d->partition.n; j++) {
                        const char *k = d->partition.items[j].key;
                        if (!strcaseeq(k, "Default") && !strcaseeq(k, "State") && !strcaseeq(k, "Nodes"))
                                slurm_options_set(&part, k, d->partition.items[j].value);
                }
                slurm_options_set(&part, "State", "INACTIVE");
                r = slurmconf_upsert(c, SLURMCONF_PARTITION, d->name, &part, err);
                if (r < 0)
                        return r;
        }
        slurmconf_render(c, out);
        return 0;
}

void ctl_leaving_clear(struct ctl_leaving *l) {
        for (size_t i = 0; i < l->n_parts; i++)
                compute_data_clear(&l->parts[i]);
        free(l->parts);
        l->parts = NULL;
        l->n_parts = 0;
        strv_clear(&l->nodesets);
}

void ctl_leaving_add_partition(struct ctl_leaving *l, const char *name, const struct slurm_options *opts) {
        l->parts = xrealloc(l->parts, (l->n_parts + 1) * sizeof *l->parts);
        struct compute_data *d = &l->parts[l->n_parts++];
        *d = (struct compute_data) COMPUTE_DATA_INIT;
        d->name = xstrdup(name);
        if (opts)
                for (size_t j = 0; j < opts->n; j++) {
                        const char *k = opts->items[j].key;
                        if (!strcaseeq(k, "Default") && !strcaseeq(k, "State") && !strcaseeq(k, "Nodes"))
                                slurm_options_set(&d->partition, k, opts->items[j].value);
                }
}

bool ctl_leaving_has(const struct ctl_leaving *l, const char *name) {
        for (size_t i = 0; i < l->n_parts; i++)
                if (streq(l->parts[i].name, name))
                        return true;
        return strv_contains(&l->nodesets, name);
}

int ctl_leaving_parse(const char *data, struct ctl_leaving *ret, struct strbuf *err) {
        _cleanup_(ctl_leaving_clear) struct ctl_leaving l = CTL_LEAVING_INIT;
        _cleanup_free_ char *copy = xstrdup(strempty(data));
        char *save = NULL;
        unsigned line = 0;

        for (char *s = strtok_r(copy, "\n", &save); s; s = strtok_r(NULL, "\n", &save)) {
                char *name, *rest;
                line++;
                if (startswith(s, "partition "))
                        name = s + 10;
                else if (startswith(s, "nodeset "))
                        name = s + 8;
                else {
                        strbuf_addf(err, "line %u: expected \"partition NAME …\" or \"nodeset NAME\"", line);
                        return -EINVAL;
                }
                rest = strchr(name, ' ');
                if (rest)
                        *rest++ = '\0';
                if (!slurmd_iface_valid_app_name(name)) {
                        strbuf_addf(err, "line %u: bad name", line);
                        return -EINVAL;
                }
                if (s[0] == 'n') {
                        if (rest) {
                                strbuf_addf(err, "line %u: text after the name", line);
                                return -EINVAL;
                        }
                        if (!strv_contains(&l.nodesets, name))
                                strv_push(&l.nodesets, name);
                        continue;
                }
                _cleanup_slurm_options_ struct slurm_options o = SLURM_OPTIONS_INIT;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (slurm_options_parse(strempty(rest), SLURM_OPTIONS_PARTITION, &o, &e) < 0) {
                        strbuf_addf(err, "line %u: %s", line, e.buf);
                        return -EINVAL;
                }
                bool dup = false;
                for (size_t i = 0; i < l.n_parts; i++)
                        dup = dup || streq(l.parts[i].name, name);
                if (!dup)
                        ctl_leaving_add_partition(&l, name, &o);
        }
        ctl_leaving_clear(ret);
        *ret = l;
        l = (struct ctl_leaving) CTL_LEAVING_INIT;
        return 0;
}

void ctl_leaving_format(const struct ctl_leaving *l, struct strbuf *out) {
        for (size_t i = 0; i < l->n_parts; i++) {
                strbuf_addf(out, "partition %s", l->parts[i].name);
                if (l->parts[i].partition.n > 0) {
                        strbuf_addch(out, ' ');
                        slurm_options_render(&l->parts[i].partition, out);
                }
                strbuf_addch(out, '\n');
        }
        for (size_t i = 0; i < l->nodesets.n; i++)
                strbuf_addf(out, "nodeset %s\n", l->nodesets.v[i]);
}

/* The file without its PartitionName lines (they are compared one by one). */
static void render_without_partitions(struct slurmconf *c, struct strbuf *out) {
        _cleanup_strv_ struct strv names = STRV_INIT;
        slurmconf_names(c, SLURMCONF_PARTITION, &names);
        for (size_t i = 0; i < names.n; i++)
                (void) slurmconf_remove(c, SLURMCONF_PARTITION, names.v[i]);
        slurmconf_render(c, out);
}

int ctl_conf_live_changes(const char *old_data, size_t old_len, const char *new_data, size_t new_len,
        bool (*live)(const char *key, const char *value), struct strv *ret) {
        _cleanup_slurmconf_ struct slurmconf *a = NULL, *b = NULL;
        _cleanup_strv_ struct strv pa = STRV_INIT, pb = STRV_INIT, out = STRV_INIT;
        _cleanup_strbuf_ struct strbuf ra = STRBUF_INIT, rb = STRBUF_INIT;
        bool default_set = false, default_cleared = false;

        if (!old_data || !new_data || slurmconf_parse("old", old_data, old_len, &a, NULL) < 0 ||
                slurmconf_parse("new", new_data, new_len, &b, NULL) < 0)
                return 0;
        slurmconf_names(a, SLURMCONF_PARTITION, &pa);
        slurmconf_names(b, SLURMCONF_PARTITION, &pb);
        if (pa.n != pb.n)
                return 0;
        for (size_t i = 0; i < pb.n; i++) {
                _cleanup_slurm_options_ struct slurm_options oa = SLURM_OPTIONS_INIT,
                                                             ob = SLURM_OPTIONS_INIT;
                if (!strv_contains(&pa, pb.v[i]))
                        return 0;
                (void) slurmconf_lookup(a, SLURMCONF_PARTITION, pb.v[i], &oa);
                (void) slurmconf_lookup(b, SLURMCONF_PARTITION, pb.v[i], &ob);
                for (size_t j = 0; j < oa.n; j++) {
                        if (slurm_options_get(&ob, oa.items[j].key))
                                continue;
                        if (!strcaseeq(oa.items[j].key, "Default"))
                                return 0; /* a removed key: its default is the file's business */
                        default_cleared = true;
                }
                for (size_t j = 0; j < ob.n; j++) {
                        const char *k = ob.items[j].key, *v = ob.items[j].value,
                                   *was = slurm_options_get(&oa, k);
                        if (was && streq(was, v))
                                continue;
                        if (!live(k, v))
                                return 0;
                        if (strcaseeq(k, "Default"))
                                default_set = default_set || strcaseeq(v, "YES");
                        strv_push(&out, pb.v[i]);
                        strv_push(&out, k);
                        strv_push(&out, v);
                }
        }
        if (default_cleared && !default_set)
                return 0;
        render_without_partitions(a, &ra);
        render_without_partitions(b, &rb);
        if (!streq(ra.buf ? ra.buf : "", rb.buf ? rb.buf : ""))
                return 0;
        if (out.n == 0)
                return 0;
        strv_pushv(ret, out.v);
        return 1;
}

long ctl_conf_controller_index(const char *data, size_t len, const char *host) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strv_ struct strv hosts = STRV_INIT;
        if (!data || !host || slurmconf_parse("slurm.conf", data, len, &c, NULL) < 0)
                return -1;
        slurmconf_get_all(c, "SlurmctldHost", &hosts);
        for (size_t i = 0; i < hosts.n; i++) {
                size_t n = strcspn(hosts.v[i], "(");
                if (strlen(host) == n && strncmp(hosts.v[i], host, n) == 0)
                        return (long) i;
        }
        return -1;
}

int ctl_cluster_name_generate(char **ret) {
        unsigned char b[4];
        int r = auth_key_generate(b, sizeof b);
        if (r < 0)
                return r;
        *ret = xasprintf("cluster-%02x%02x%02x%02x", b[0], b[1], b[2], b[3]);
        return 0;
}

bool ctl_cluster_name_valid(const char *s) {
        return slurmd_iface_valid_cluster_name(s);
}

void ctl_conf_stamp(const char *name, const char *text, struct strbuf *conf) {
        uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 */
        for (const unsigned char *p = (const unsigned char *) strempty(text); *p; p++)
                h = (h ^ *p) * 0x100000001b3ULL;
        if (conf->len && conf->buf[conf->len - 1] != '\n')
                strbuf_addch(conf, '\n');
        strbuf_addf(conf,
                "# %s served with this file (a change restarts slurmctld, which serves both): %016" PRIx64
                "\n",
                name, h);
}
