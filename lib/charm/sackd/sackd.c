/* SPDX-License-Identifier: Apache-2.0 */
/* The sackd charm (sackd.h): login nodes. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/sackd/sackd.h"

#include "charm/common/authkey.h"
#include "charm/common/keyring.h"
#include "charm/common/pause.h"
#include "charm/common/watcher.h"
#include "charm/sackd/loginconf.h"
#include "interfaces/sackd.h"
#include "proc/proc.h"
#include "slurm/caps.h"
#include "slurm/confcheck.h"
#include "systemd/unit.h"
#include "slurmconf/conf.h"
#include "slurmconf/pathkeys.h"
#include "util/fileio.h"

#include "util/banned.h"

#define DEFAULT_UNIT_TIMEOUT_USEC (90ULL * 1000 * 1000)
#define DEFAULT_PING_TIMEOUT_MS (20 * 1000)

static uint64_t unit_timeout(const struct sackd_opts *o) {
        return o->unit_timeout_usec ? o->unit_timeout_usec : DEFAULT_UNIT_TIMEOUT_USEC;
}

const char *sackd_client_service(const struct charm_paths *p) {
        const struct slurm_caps *c = charm_caps(p);
        return c->token_service ? c->token_service : c->auth_service;
}

int sackd_install(
        struct juju_ctx *ctx, const struct sackd_opts *o, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        r = charm_install_finish(ctx, &o->paths, bus, unit_timeout(o), out, err);
        if (r >= 0)
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "no controller: integrate with slurmctld");
        return r;
}

/* The daemon stopped and disabled, the files this charm wrote and the key removed. */
static int unconfigure(const struct sackd_opts *o, sd_bus *bus, struct strbuf *err) {
        const struct charm_paths *p = &o->paths;
        /* the watcher first: the daemon's stop is no news for a handler to act on */
        int w = watcher_remove(p, bus, sackd_client_service(p), err);
        if (w < 0)
                return w;
        const char *services[] = { charm_caps(p)->token_service, charm_caps(p)->auth_service };
        for (size_t i = 0; i < ELEMENTSOF(services); i++) {
                int r = services[i] ? charm_unit_retire(bus, services[i], unit_timeout(o), err) : 0;
                if (r < 0)
                        return r;
        }
        _cleanup_free_ char *note = NULL;
        int wrote = charm_state_note_read(p, SACKD_CONF_NOTE, &note);
        /* /etc/default/sackd only when it is this charm's (Debian's own, comments only, stays) */
        _cleanup_free_ char *defaults_path = charm_path(p, LOGIN_SACKD_DEFAULTS), *defaults = NULL;
        bool defaults_ours = read_full_file(defaults_path, &defaults, NULL) >= 0 &&
                startswith(defaults, LOGIN_SACKD_DEFAULTS_HEAD);
        const char *files[] = { defaults_ours ? LOGIN_SACKD_DEFAULTS : NULL, charm_caps(p)->key_path,
                wrote > 0 ? LOGIN_CLIENT_CONF : NULL };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                if (!files[i])
                        continue;
                _cleanup_free_ char *path = charm_path(p, files[i]);
                if (unlink(path) < 0 && errno != ENOENT) {
                        int k = errno;
                        strbuf_addf(err, "%s: %s", path, strerror(k));
                        return -k;
                }
        }
        return charm_state_note_remove(p, SACKD_CONF_NOTE, err);
}

/* `scontrol ping` as the users' clients see the controllers: the status message. */
static void say_reach(const struct sackd_opts *o, const struct login_data *d, struct charm_outcome *out) {
        _cleanup_proc_ struct proc p = PROC_INIT;
        _cleanup_strv_ struct strv up = STRV_INIT, down = STRV_INIT;
        strv_pushl(&p.argv, "scontrol", "ping", NULL);
        p.capture_out = p.capture_err = true;
        p.timeout_ms = o->ping_timeout_ms ? o->ping_timeout_ms : DEFAULT_PING_TIMEOUT_MS;
        int r = proc_run(&p);
        size_t n = r >= 0 ? login_ping_parse(p.out.buf, &up, &down) : 0;
        if (n == 0) {
                const char *why = r == -ETIME ? "it did not end" : p.err.len ? p.err.buf : p.out.buf;
                if (isempty(why))
                        why = "no answer";
                charm_outcome_set(out, JUJU_STATUS_WAITING, "scontrol ping: %.*s", (int) strcspn(why, "\n"), why);
                return;
        }
        _cleanup_strbuf_ struct strbuf msg = STRBUF_INIT;
        if (up.n == 0)
                strbuf_addf(&msg, "cluster %s: no controller answers", d->cluster);
        else {
                _cleanup_free_ char *hosts = strv_join(&up, ", ");
                strbuf_addf(&msg, "login node of cluster %s: slurmctld on %s %s", d->cluster, hosts,
                        up.n == 1 ? "answers" : "answer");
        }
        if (down.n > 0) {
                _cleanup_free_ char *hosts = strv_join(&down, ", ");
                strbuf_addf(&msg, up.n ? "; down: %s" : " (down: %s)", hosts);
        }
        charm_outcome_set(out, up.n ? JUJU_STATUS_ACTIVE : JUJU_STATUS_WAITING, "%s", msg.buf);
}

/* A machine of its own: another Slurm charm's daemon or files here would be overwritten by
 * this unit's and removed with its relation (a unit placed --to a controller or compute
 * machine). 0, 1 with *out set (blocked, nothing changed), or a negative errno. */
static int own_machine(const struct sackd_opts *o, sd_bus *bus, struct charm_outcome *out, struct strbuf *err) {
        static const char *const daemons[] = { "slurmctld.service", "slurmd.service", "slurmdbd.service" };
        for (size_t i = 0; i < ELEMENTSOF(daemons); i++) {
                struct unit_state st;
                int r = unit_get_state(bus, daemons[i], &st, err);
                if (r < 0)
                        return r;
                if (streq(st.active_state, "active") || streq(st.active_state, "activating") ||
                    streq(st.active_state, "reloading")) {
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                                "%.*s runs on this machine: a login unit needs a machine of its own (nothing changed)",
                                (int) strcspn(daemons[i], "."), daemons[i]);
                        return 1;
                }
        }
        _cleanup_free_ char *note = NULL;
        int ours = charm_state_note_read(&o->paths, SACKD_CONF_NOTE, &note);
        if (ours < 0) {
                strbuf_addf(err, "state note %s: %s", SACKD_CONF_NOTE, strerror(-ours));
                return ours;
        }
        _cleanup_free_ char *conf = charm_path(&o->paths, LOGIN_CLIENT_CONF);
        if ((charm_caps(&o->paths)->token_service || ours == 0) && access(conf, F_OK) == 0) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "%s is not this charm's (%s): remove it (nothing changed)", LOGIN_CLIENT_CONF,
                        charm_caps(&o->paths)->token_service ? "the clients would read it, not sackd's copy"
                                                             : "another Slurm charm's?");
                return 1;
        }
        if (charm_caps(&o->paths)->token_service) {
                _cleanup_free_ char *path = charm_path(&o->paths, LOGIN_SACKD_DEFAULTS);
                _cleanup_free_ char *data = NULL;
                int r = read_full_file(path, &data, NULL);
                if (r >= 0 && login_sackd_defaults_foreign(data)) {
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                                "%s is not this charm's (another Slurm charm's?): a login unit needs a machine of its own (nothing changed)",
                                LOGIN_SACKD_DEFAULTS);
                        return 1;
                }
        }
        return 0;
}

/* 22.05: the client file from the controllers' (login_data_decode() read it): judged by this
 * unit's Slurm reader and for what the clients here would run or load, secrets no client
 * reads left out. 0 with the text in ret, 1 refused (*out says why), <0 error. */
static int client_conf(const struct sackd_opts *o, const char *remote, const struct login_data *d,
        struct strbuf *ret, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r = slurmconf_parse("slurm.conf", d->slurm_conf, strlen(d->slurm_conf), &c, &e);
        if (r >= 0 && slurmconf_get(c, "PluginDir")) {
                /* every client loads its plugins there, the hook's own scontrol as root */
                strbuf_addstr(&e, "PluginDir is set: a login unit loads plugins only from Slurm's own directory");
                r = -EINVAL;
        }
        if (r == -EINVAL) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "relation with \"%s\": slurm.conf: %s (nothing changed)",
                        remote, e.buf);
                return 1;
        }
        if (r < 0) {
                strbuf_addbuf(err, &e);
                return r;
        }
        (void) slurmconf_unset(c, "JobCompPass"); /* the controllers' secret: no client reads it */
        slurmconf_render(c, ret);
        const struct slurm_conf_check_opts co = { .no_plugin_check = 1 };
        r = slurm_conf_check_opts(ret->buf, ret->len, &co, &e);
        if (r == -EINVAL) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s (nothing changed)", remote, e.buf);
                return 1;
        }
        if (r < 0)
                strbuf_addbuf(err, &e);
        return r < 0 ? r : 0;
}

/* What srun runs on this machine as the user (SrunProlog, SrunEpilog: on 24.11 too, from the
 * file sackd fetches): not there, or not root's in the site scripts directory, goes into note.
 * Not a refusal: the rest of the file (the controllers above all) must still reach the clients;
 * srun here runs without the program (24.11 says "Access denied" and goes on). */
static void scripts_note(const struct sackd_opts *o, const struct login_data *d, struct strbuf *note) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurmconf_parse("slurm.conf", d->slurm_conf, strlen(d->slurm_conf), &c, NULL) < 0)
                return;
        int r = slurmconf_paths_check_keys(slurmconf_get_key, c, SLURMCONF_PATH_CLIENT, o->paths.root, 0, 0, &e);
        if (r == -EINVAL || r == -ENOENT)
                strbuf_addf(note, "slurm.conf: %s; install it on every login machine (srun here runs without it)",
                        e.buf);
}

static int reconcile(struct juju_ctx *ctx, const struct sackd_opts *o, sd_bus *bus, struct login_data *d,
        struct charm_outcome *out, struct strbuf *err) {
        _cleanup_strv_ struct strv rels = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, conf = STRBUF_INIT;
        __attribute__((__cleanup__(auth_keyring_done))) struct auth_keyring keys = AUTH_KEYRING_INIT;
        _cleanup_free_ char *remote = NULL;
        const struct charm_paths *p = &o->paths;
        const struct slurm_caps *caps = charm_caps(p);
        /* first of all: on a machine another Slurm charm runs on, nothing is written and nothing
         * removed (its munged, its watcher and its key are that charm's: review of stop 59) */
        int r = own_machine(o, bus, out, err);
        if (r != 0)
                return r < 0 ? r : 0;
        r = charm_relation_ids_live(ctx, SACKD_CTL_ENDPOINT, &rels, err);
        if (r < 0)
                return r;
        if (rels.n == 0) {
                r = unconfigure(o, bus, err);
                if (r >= 0)
                        charm_outcome_set(out, JUJU_STATUS_BLOCKED, "no controller: integrate with slurmctld");
                return r;
        }
        /* the admin's maintenance: nothing is started or written (charm/common/pause.h); the
         * relation's end above still runs, as a departure does */
        char *services[] = { (char *) sackd_client_service(p), NULL };
        r = charm_paused_gate(bus, p, juju_env(ctx)->unit, services, out, err);
        if (r != 0)
                return r < 0 ? r : 0;
        const cJSON *bag = NULL;
        r = charm_remote_app_bag(ctx, rels.v[0], &remote, &bag, err);
        if (r < 0)
                return r;
        if (!remote || !bag) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for slurmctld");
                return 0;
        }
        /* the controllers' Slurm: one this unit's clients can talk to */
        r = charm_generation_check(p, charm_bag_string(bag, "slurm"), false, "sackd", "slurmctld", &e);
        if (r == -EPROTO) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "\"%s\" cannot take this login unit: %s; deploy sackd on the controllers' base (nothing changed)",
                        remote, e.buf);
                return 0;
        }
        if (r == -EINVAL) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s (nothing changed)", remote, e.buf);
                return 0;
        }
        if (r < 0) {
                strbuf_addf(err, "slurm generation: %s", strerror(-r));
                return r;
        }
        strbuf_reset(&e);
        r = login_data_decode(charm_bag_string(bag, "auth_key_id"), charm_bag_string(bag, "cluster_name"),
                charm_bag_string(bag, "controllers"), charm_bag_string(bag, SACKD_IFACE_CONF_KEY), d, &e);
        if (r == -ENODATA) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for slurmctld");
                return 0;
        }
        if (r < 0) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s (nothing changed)", remote, e.buf);
                return 0;
        }
        /* everything judged before anything is written: the key (always its latest revision, so
         * that a rotation seen while this unit waited is not missed), then the client file */
        strbuf_reset(&e);
        r = auth_keyring_read(ctx, d->auth_key_id, JUJU_SECRET_REFRESH, &keys, &e);
        if (r == -EINVAL) {
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "relation with \"%s\": %s (nothing changed)", remote, e.buf);
                return 0;
        }
        if (r < 0) {
                charm_outcome_set(out, JUJU_STATUS_WAITING, "waiting for the auth key secret (%s)", e.buf);
                return 0;
        }
        if (!caps->token_service) {
                r = client_conf(o, remote, d, &conf, out, err);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        strbuf_reset(&e);
        int key_changed = auth_keyring_install(p, &keys, &e);
        if (key_changed < 0) {
                strbuf_addbuf(err, &e);
                return key_changed;
        }
        int defaults_changed = 0;
        if (caps->token_service) {
                _cleanup_strbuf_ struct strbuf defaults = STRBUF_INIT;
                login_sackd_defaults_render(d->controllers.v, d->controllers.n, d->slurm_conf, &defaults);
                _cleanup_free_ char *path = charm_path(p, LOGIN_SACKD_DEFAULTS);
                _cleanup_free_ char *dir = charm_path(p, "/etc/default");
                r = mkdir_p(dir, 0755);
                if (r >= 0)
                        r = defaults_changed =
                                write_file_atomic_if_changed(path, defaults.buf, defaults.len, 0644, 0, 0);
                if (r < 0) {
                        strbuf_addf(err, "%s: %s", path, strerror(-r));
                        return r;
                }
        } else {
                /* the note first: a file this charm may have written is removed with the relation */
                _cleanup_free_ char *dir = charm_path(p, "/etc/slurm");
                _cleanup_free_ char *path = charm_path(p, LOGIN_CLIENT_CONF);
                r = mkdir_p(dir, 0755);
                if (r >= 0)
                        r = charm_state_note_write(p, SACKD_CONF_NOTE, "1", true, err);
                if (r >= 0)
                        r = write_file_atomic_if_changed(path, conf.buf, conf.len, 0644, 0, 0);
                if (r < 0) {
                        strbuf_addf(err, "%s: %s", path, strerror(-r));
                        return r;
                }
                /* (22.05's clients read the file at each command: nothing to restart) */
        }
        /* sackd restarted by systemd when it dies (its packaged unit has no Restart=) */
        if (caps->token_service) {
                r = charm_dropin_install(p, juju_env(ctx)->charm_dir, bus, caps->token_service, "20-charm-restart",
                        unit_timeout(o), err);
                if (r < 0)
                        return r;
        }
        /* munged (22.05) reads the key at its start; sackd (24.11) the key and its options at its
         * start, a key set (slurm.jwks) also at its re-exec (charm/common/keyring.h) */
        bool key_reload = key_changed > 0 && defaults_changed <= 0 && !caps->auth_service &&
                auth_keyring_reloadable(p, &keys);
        r = charm_unit_ensure(bus, sackd_client_service(p), (key_changed > 0 && !key_reload) || defaults_changed > 0,
                unit_timeout(o), err);
        if (r < 0)
                return r;
        if (key_reload && r == 0) {
                r = auth_keyring_reload(bus, sackd_client_service(p), KEYRING_RELOAD_USEC, err);
                if (r < 0)
                        return r;
        }
        /* this unit runs with these keys: confirmed to the controllers (charm/slurmctld/keyrotate.h) */
        r = charm_keys_confirm(ctx, rels.v[0], &keys, err);
        if (r < 0)
                return r;
        /* watched as the other charms' daemons are (charm/common/watcher.h): a death, a stop or a
         * crash loop runs this reconcile at once (bin/service-changed), not at update-status */
        r = watcher_install(p, bus, juju_env(ctx)->unit, sackd_client_service(p), juju_env(ctx)->charm_dir,
                streq_ptr(o->event, "upgrade-charm"), err);
        if (r < 0)
                return r;
        say_reach(o, d, out);
        _cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
        scripts_note(o, d, &note);
        if (note.len > 0) {
                _cleanup_free_ char *reach = xstrdup(out->message.buf);
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s; %s", note.buf, reach);
        }
        return 0;
}

int sackd_reconcile(
        struct juju_ctx *ctx, const struct sackd_opts *o, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(login_data_clear) struct login_data d = LOGIN_DATA_INIT;
        int r = charm_packages_ensure(o->event, "sackd", err);
        if (r >= 0)
                r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        return reconcile(ctx, o, bus, &d, out, err);
}

int sackd_leave(
        struct juju_ctx *ctx, const struct sackd_opts *o, struct charm_outcome *out, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        (void) ctx;
        int r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        /* another Slurm charm's machine: its daemons and files stay (own_machine says so) */
        r = own_machine(o, bus, out, err);
        if (r != 0)
                return r < 0 ? r : 0;
        r = unconfigure(o, bus, err);
        if (r >= 0)
                charm_outcome_set(out, JUJU_STATUS_MAINTENANCE, "login node removed from the cluster");
        return r;
}

static int reconcile_paths(struct juju_ctx *ctx, const struct charm_paths *paths, struct charm_outcome *out,
        struct strbuf *err) {
        const struct sackd_opts o = { .paths = *paths, .event = "update-status" };
        return sackd_reconcile(ctx, &o, out, err);
}

int sackd_pause(struct juju_ctx *ctx, const struct sackd_opts *o, struct strbuf *err) {
        char *services[] = { (char *) sackd_client_service(&o->paths), NULL };
        return charm_action_pause_unit(ctx, &o->paths, services, err);
}

int sackd_resume(struct juju_ctx *ctx, const struct sackd_opts *o, struct strbuf *err) {
        _cleanup_free_ char *reason = NULL;
        return charm_action_resume(ctx, &o->paths, reconcile_paths, &reason, err);
}
