/* SPDX-License-Identifier: Apache-2.0 */
/* The slurmd charm: hardware detection and the unit drop-in at install; then every input read
 * once and validated, key, drop-in and /etc/default/slurmd written only when they differ,
 * slurmd started over sd-bus and the node's registration awaited (bounded). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmd/slurmd.h"
#include "charm/common/nodepaths.h"
#include "charm/slurmd/nodecfgmark.h"
#include "charm/slurmd/sdinputs.h"
#include "charm/common/authkey.h"
#include "util/base64.h"
#include "charm/common/confpush.h"
#include "charm/common/gres.h"
#include "charm/slurmd/nodeconf.h"
#include "charm/common/nodeprogs.h"
#include "charm/slurmd/nodefollow.h"
#include "charm/slurmd/actnote.h"
#include "slurmconf/pathkeys.h"
#include "charm/common/pause.h"
#include "charm/common/strand.h"
#include "charm/common/watcher.h"
#include "interfaces/slurmd.h"
#include "slurm/caps.h"
#include "slurm/client.h"
#include "slurmconf/conf.h"
#include "slurm/hardware.h"
#include "slurm/jobs.h"
#include "slurm/localjobs.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "systemd/unit.h"
#include "proc/proc.h"
#include "util/fileio.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/banned.h"
#define unit_timeout sd_unit_timeout
#define state_path sd_state_path
#define state_write sd_state_write
static int install_dropin(const struct slurmd_opts *o, const char *charm_dir, struct strbuf *err) {
        _cleanup_free_ char *path = charm_template_path(&o->paths, charm_dir, SLURMD_DROPIN_TEMPLATE);
        _cleanup_free_ char *content = NULL;
        int r = read_full_file(path, &content, NULL);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        return unit_install_dropin(
                o->paths.root ? o->paths.root : "", "slurmd.service", SLURMD_DROPIN_NAME, content, err);
}

int slurmd_install(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct charm_outcome *ret, struct strbuf *err) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_strv_ struct strv hw = STRV_INIT;
        int r;

        r = sd_hardware(&o->paths, &hw, err);
        if (r < 0)
                return r;
        r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        r = install_dropin(o, juju_env(ctx)->charm_dir, err);
        if (r > 0)
                r = unit_daemon_reload(bus, unit_timeout(o), err);
        if (r < 0)
                return r;
        return charm_install_finish(ctx, &o->paths, bus, unit_timeout(o), ret, err);
}


/* default-node-state/-reason, once after the first registration. "down" is DOWN+DRAIN: with
 * ReturnToService=2 a plain DOWN node goes IDLE at its next registration (any slurmd restart);
 * the DRAIN flag survives it (the node is then IDLE+DRAIN) until the admin resumes the node. */
static int apply_default_state(
        const struct slurmd_opts *o, struct sd_inputs *in, struct slurm_node *node, struct strbuf *err) {
        _cleanup_free_ char *flag = state_path(&o->paths, SLURMD_DEFAULT_STATE_FILE);
        int r;

        if (access(flag, F_OK) == 0)
                return 0;
        if (streq(in->default_state, "down")) {
                const char *reason =
                        isempty(in->default_reason) ? "default-node-state=down" : in->default_reason;
                /* the drain first: a DOWN node without it goes IDLE at its next registration
                 * (ReturnToService=2), and a hook that lost its controller between the two
                 * (answer_lost) would leave the node open to jobs until it ran again */
                r = slurm_node_drain(in->node_name, reason, err);
                if (r >= 0)
                        r = slurm_node_down(in->node_name, reason, err);
        } else if (slurm_state_down(node->state) || slurm_state_drain(node->state) != SLURM_DRAIN_NONE)
                r = slurm_node_resume(in->node_name, err);
        else
                r = 0;
        if (r < 0)
                return r;
        _cleanup_free_ char *line = xasprintf("%s %s\n", in->node_name, in->default_state);
        r = state_write(&o->paths, SLURMD_DEFAULT_STATE_FILE, line, err);
        if (r < 0)
                return r;
        slurm_node_done(node);
        return slurm_node_get(in->node_name, node, err);
}

/* One plugin item ("cgroup" or "task/cgroup" of type "task"): missing when no mapped file of
 * maps ends in "/<type>_<name>.so" while another plugin of that type is mapped (a slurmd that
 * has not loaded that type yet, just started, is not judged). */
static void plugin_check(
        const char *type, const char *item, const char *maps, struct strbuf *missing, int *n) {
        const char *slash = strchr(item, '/');
        const char *name = slash ? slash + 1 : item;
        if (name[0] == '\0')
                return;
        _cleanup_free_ char *so = xasprintf("/%s_%s.so\n", type, name), *any = xasprintf("/%s_", type);
        if (strstr(maps, so) || !strstr(maps, any))
                return;
        strbuf_addf(missing, "%s%s/%s", missing->len ? "," : "", type, name);
        (*n)++;
}

int slurmd_plugins_missing(const char *conf, size_t conf_len, const char *maps, struct strbuf *missing) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        if (slurmconf_parse("slurm.conf", conf, conf_len, &c, NULL) < 0)
                return 0;
        int n = 0;
        const char *pt = slurmconf_get(c, "ProctrackType");
        if (pt)
                plugin_check("proctrack", pt, maps, missing, &n);
        _cleanup_free_ char *tp = xstrdup(strempty(slurmconf_get(c, "TaskPlugin")));
        for (char *item = tp, *comma; item && *item; item = comma ? comma + 1 : NULL) {
                comma = strchr(item, ',');
                if (comma)
                        *comma = '\0';
                plugin_check("task", item, maps, missing, &n);
        }
        return n;
}

/* The start-only plugins the running slurmd (main_pid, in this machine) lacks, as
 * slurmd_plugins_missing() against the file it runs with now: 1 with the list in why, 0.
 * Judged only once that very process registered (n: the node's record; slurmd stamps its start
 * time on its first registration, after its plugins are loaded: not in an earlier second than
 * the process's start): a slurmd still starting maps its task plugins one after the other, and
 * one caught between them was restarted for nothing (CI: a restart by systemd, 0.4 s old,
 * restarted again by the watcher's run). Where a reconfigure re-execs slurmd (24.11: a new
 * process loads the new file's plugins and takes over as main process once they are loaded,
 * the old one draining meanwhile) a file younger than PLUGINS_REEXEC_SETTLE_S is not judged:
 * the old process would be restarted in the middle of the handover. */
#define PLUGINS_REEXEC_SETTLE_S 60
static int plugins_stale(const struct charm_paths *paths, uint32_t main_pid, const struct slurm_node *n,
        struct strbuf *why) {
        const char *conf_path = slurm_config_path();
        int64_t started = 0;
        struct stat cst;
        if (main_pid == 0 || !conf_path || proc_pid_started((pid_t) main_pid, &started) < 0 ||
                ((int64_t) n->slurmd_start_time + 1) * 1000 <= started)
                return 0;
        if (charm_caps(paths)->reconfigure_reexecs &&
                (stat(conf_path, &cst) < 0 || time(NULL) - cst.st_mtime < PLUGINS_REEXEC_SETTLE_S))
                return 0;
        _cleanup_free_ char *maps_path = xasprintf("/proc/%u/maps", main_pid), *maps = NULL, *conf = NULL;
        size_t conf_len = 0;
        if (read_full_file(maps_path, &maps, NULL) < 0 || read_full_file(conf_path, &conf, &conf_len) < 0)
                return 0;
        return slurmd_plugins_missing(conf, conf_len, maps, why) > 0;
}

/* What a (re)start is for, shown while it runs: a repair (update-status, the watcher) can take
 * seconds, and the status must not say "idle" meanwhile. Nothing is set when nothing restarts. */
static void say_maintenance(struct juju_ctx *ctx, const char *msg) {
        (void) juju_status_set(ctx, false, JUJU_STATUS_MAINTENANCE, msg, NULL);
}

/* A record of this node's name that is not this unit's (strand_foreign_record(): a departed
 * node's placeholder that the registration was taken onto, its feature kept) is deleted and slurmd restarted to
 * register afresh. n: the record when loaded (NULL: loaded here). 1 done, 0 not such a record
 * (or none, or Slurm not answering: the caller's wait says so), negative errno when slurmd
 * could not be restarted. */
static int foreign_record(struct juju_ctx *ctx, const struct slurmd_opts *o, sd_bus *bus, const char *name,
        const struct slurm_node *n, struct strbuf *err) {
        _cleanup_(slurm_node_done) struct slurm_node own = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (!n) {
                if (!slurm_config_path() || slurm_node_get(name, &own, &e) < 0)
                        return 0;
                n = &own;
        }
        if (!strand_foreign_record(n->features))
                return 0;
        _cleanup_free_ char *why = xasprintf("node %s: its record is not this machine's (NodeHostName=%s, "
                                             "Features=%s): deleted, slurmd restarted to register it",
                name, strempty(n->hostname), strempty(n->features));
        int r = slurm_node_delete_free(name, "slurmd charm: another machine's record of this name", 0, &e);
        if (r < 0 && r != -ENOENT) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                        "node %s: deleting a record of this name that is not this machine's: %s", name, e.buf);
                return 0;
        }
        say_maintenance(ctx, why);
        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s", why);
        r = unit_restart(bus, "slurmd.service", unit_timeout(o), err);
        return r < 0 ? r : 1;
}

/* This unit's verdict on the controller's programs (node_progs_answer), first thing in every
 * reconcile, paused or not, before any input that could stop it (a unit that never answers holds
 * every program change: review R3). Best effort: 1 when the live set is unsafe here (why in
 * live_why), else 0 (also when it cannot be read, or the controller's data is not this charm's
 * to read: a newer controller's must not block the unit, review R9). */
static int answer_programs(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *live_why) {
        _cleanup_strv_ struct strv ids = STRV_INIT;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT, why = STRBUF_INIT;
        _cleanup_free_ char *remote = NULL;
        const cJSON *bag = NULL;
        if (juju_relation_ids(ctx, SLURMD_CONTROLLER_ENDPOINT, &ids, &e) < 0 || ids.n == 0 ||
                sd_left_relation(&o->paths, ids.v[0]) != 0 || sd_leaving_relation(&o->paths, ids.v[0]) != 0 ||
                juju_relation_remote_app(ctx, ids.v[0], &remote, &e) < 0 || !remote ||
                juju_relation_get(ctx, ids.v[0], remote, &bag, &e) < 0)
                return 0;
        int r = node_progs_answer(
                ctx, &o->paths, ids.v[0], charm_bag_string(bag, SLURMD_IFACE_NODE_PROGS_KEY), &why, &e);
        if (r < 0) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node-programs: %s%s", why.buf, e.buf);
                return 0;
        }
        if (r > 0 && live_why)
                strbuf_addbuf(live_why, &why);
        return r;
}

/* The push's drain record (CONFPUSH_HELD_FILE, nodecfgmark's text): the node's state before.
 * 1 read, 0 none (an unreadable one is removed). */
static int push_held_read(const struct charm_paths *p, struct nodecfg_mark *ret) {
        int r = nodecfg_mark_load(p, CONFPUSH_HELD_FILE, ret);
        if (r < 0)
                (void) charm_state_note_remove(p, CONFPUSH_HELD_FILE, NULL);
        return r > 0;
}

/* Whether the node now has the push's own drain (reason) and is not DOWN. */
static bool push_drain_is_ours(const struct slurm_node *now, const char *reason) {
        return slurm_state_drain(now->state) != SLURM_DRAIN_NONE && !slurm_state_down(now->state) &&
                streq_ptr(now->reason, reason);
}

/* Puts the node back as the record says it was, only while it still has the push's drain (an
 * admin's drain or DOWN, or a health check's, that came meanwhile stays), and removes the
 * record; the record stays when slurmctld could not be asked or told (the next run goes on). */
static void push_release(struct juju_ctx *ctx, const struct charm_paths *p, const struct nodecfg_mark *m) {
        struct slurm_node now = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurm_node_get(m->node, &now, &e) < 0) {
                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "node %s: not put back after the slurm.conf push yet: %s",
                        m->node, e.buf);
                return;
        }
        bool ours = push_drain_is_ours(&now, m->reason);
        slurm_node_done(&now);
        if (ours) {
                const struct slurm_node prior = { .name = m->node, .state = m->prior_state, .reason = m->prior_reason };
                if (slurm_node_restore(&prior, &e) < 0) {
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                "node %s: not put back after the slurm.conf push yet: %s", m->node, e.buf);
                        return;
                }
        } else
                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                        "node %s: its drain for the slurm.conf push was replaced meanwhile: left as it is", m->node);
        (void) charm_state_note_remove(p, CONFPUSH_HELD_FILE, NULL);
}

/* Drains the node for the push, recorded first (a drain whose answer was lost may have
 * happened: the record stays, and the next run sees whether the node has its reason). */
static int push_hold(struct juju_ctx *ctx, const struct charm_paths *p, const struct slurm_node *node,
        const char *reason, struct strbuf *why, struct strbuf *err) {
        int r = nodecfg_mark_store(p, CONFPUSH_HELD_FILE, node, NODECFG_MARK_PUSH, reason, err);
        if (r < 0)
                return r;
        r = slurm_node_drain(node->name, reason, why);
        return r < 0 ? 0 : 1;
}

/* Whether a node has a drain of the push's, any unit's (its reason). */
static bool push_drained(const struct slurm_node *n) {
        return n->reason && startswith(n->reason, CONFPUSH_DRAIN_REASON) &&
                slurm_state_drain(n->state) != SLURM_DRAIN_NONE;
}

/* How many nodes the push holds drained now (their reason is its own), of n nodes; when names
 * is given, each holder with its reason time in *ret (names owns the names); -1 unknown. */
static long push_held_count(size_t *n, struct strv *names, struct confpush_holder **ret) {
        struct slurm_node_list l = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurm_node_list(NULL, &l, &e) < 0)
                return -1;
        long c = 0;
        for (size_t i = 0; i < l.n; i++)
                /* a held node that is down, not responding (its unit gone) or deleted takes
                 * no room (attack 12c F2: a force-removed unit's node blocked every hold) */
                if (push_drained(&l.v[i]) && !slurm_state_down(l.v[i].state) && slurm_state_registered(l.v[i].state)) {
                        if (names) {
                                *ret = xrealloc(*ret, (size_t) (c + 1) * sizeof **ret);
                                (*ret)[c] = (struct confpush_holder){ .name = strv_push(names, l.v[i].name),
                                        .since = l.v[i].reason_time };
                        }
                        c++;
                }
        *n = l.n;
        slurm_node_list_done(&l);
        return c;
}

/* The canary (confpush_canary_wait): the node of an earlier wave whose restart for the file
 * running has not come back, its name in *ret_name (caller frees) and its hold's time in
 * *ret_since. 1 one, 0 none or not known (no node list: the drain that comes first then fails
 * and says so). */
static int push_canary(const char *self, uint32_t running, unsigned waves, time_t behind_since, char **ret_name,
        time_t *ret_since) {
        if (confpush_wave(self, running, waves) == 0)
                return 0;
        struct slurm_node_list l = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurm_node_list(NULL, &l, &e) < 0)
                return 0;
        _cleanup_free_ struct confpush_peer *p = xcalloc(l.n ? l.n : 1, sizeof *p);
        for (size_t i = 0; i < l.n; i++)
                p[i] = (struct confpush_peer){ .name = l.v[i].name,
                        .held_idle = push_drained(&l.v[i]) && slurm_state_drain(l.v[i].state) == SLURM_DRAIN_DRAINED,
                        .since = l.v[i].reason_time };
        const struct confpush_peer *w = confpush_canary_wait(self, running, waves, behind_since, p, l.n);
        if (w) {
                *ret_name = xstrdup(w->name);
                *ret_since = w->since;
        }
        slurm_node_list_done(&l);
        return w ? 1 : 0;
}

/* Waits (bounded) for the restarted slurmd's registration: the node answers with a
 * slurmd_start_time at or after since. */
#define PUSH_RESPOND_WAIT_MS 10000
static int push_wait_registered(const char *name, time_t since, int timeout_ms, struct strbuf *err) {
        int64_t deadline = slurm_now_ms() + timeout_ms;
        int delay = SLURM_POLL_FIRST_MS;
        for (;;) {
                struct slurm_node n = { 0 };
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                bool ok = slurm_node_get(name, &n, &e) >= 0 && n.slurmd_start_time >= since &&
                        slurm_state_registered(n.state);
                slurm_node_done(&n);
                if (ok)
                        return 0;
                if (!slurm_poll_sleep(&delay, deadline)) {
                        strbuf_addf(err, "slurmd restarted at %lld has not registered within %d ms", (long long) since,
                                timeout_ms);
                        return -ETIMEDOUT;
                }
        }
}

/* How many jobs have a slurmstepd of node on this machine (no RPC); -1 when not known. */
static long local_steps(const char *node) {
        _cleanup_free_ uint32_t *ids = NULL;
        size_t n = 0;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        if (slurm_local_steps_scan(NODEFOLLOW_SPOOL_DIR, node, LOCAL_UNIX_TABLE, &ids, &n, &e) < 0)
                return -1;
        return (long) n;
}

/* The slurm.conf push to this node (charm/common/confpush.h), with the node as slurmctld has it
 * (refreshed when something was done). What waits is said in note. 0, or a negative errno
 * (systemd failed: the hook fails). */
static int conf_push(struct juju_ctx *ctx, const struct slurmd_opts *o, sd_bus *bus, const struct sd_inputs *in,
        struct slurm_node *node, struct strbuf *note, struct strbuf *err) {
        uint32_t fetched = 0, running = 0;
        _cleanup_(nodecfg_mark_done) struct nodecfg_mark held = { 0 };
        bool have_held = push_held_read(&o->paths, &held) > 0;
        _cleanup_free_ char *reason = xasprintf("%s (unit %s)", CONFPUSH_DRAIN_REASON, juju_env(ctx)->unit);
        if (!have_held && push_drain_is_ours(node, reason)) {
                /* the push's drain with no record (lost, or a drain answered late after the
                 * record went): taken up as not drained before (review 12b, N3) */
                held = (struct nodecfg_mark){ .what = xstrdup(NODECFG_MARK_PUSH), .node = xstrdup(node->name),
                        .reason = xstrdup(reason), .pid = 1, .start = 1, .prior_state = 0 };
                have_held = true;
        }
        if (confpush_fetched_hash(&o->paths, &fetched) < 0)
                return 0;
        /* the published value is a hint: asked of the controller when it differs, while the
         * push holds the node, and at Juju's update-status (not the watcher's runs, which come at
         * every job start and end: review 12b N1), when a leader not in charge published
         * nothing new */
        bool periodic = streq_ptr(o->event, "update-status") && !o->automatic;
        if (!have_held && !periodic && (!in->have_conf_hash || fetched == in->conf_hash)) {
                (void) charm_state_note_remove(&o->paths, CONFPUSH_BEHIND_FILE, NULL);
                (void) charm_state_note_remove(&o->paths, CONFPUSH_TURN_FILE, NULL);
                (void) charm_state_note_remove(&o->paths, CONFPUSH_IDLE_FILE, NULL);
                return 0;
        }
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        time_t boot = 0;
        if (slurm_ctl_conf_hash(&running, &boot, &e) < 0)
                return 0; /* the next run asks again */
        if (!have_held && fetched == running) {
                (void) charm_state_note_remove(&o->paths, CONFPUSH_BEHIND_FILE, NULL);
                (void) charm_state_note_remove(&o->paths, CONFPUSH_TURN_FILE, NULL);
                (void) charm_state_note_remove(&o->paths, CONFPUSH_IDLE_FILE, NULL);
                return 0;
        }
        char want[9];
        confpush_hash_text(running, want);
        struct confpush_view v = {
                .running = running,
                .fetched = fetched,
                .boot = boot,
                .now = time(NULL),
                .held = have_held && push_drain_is_ours(node, held.reason),
                .down = slurm_state_down(node->state) || !slurm_state_registered(node->state),
                .busy = slurm_state_busy(node->state),
        };
        if (have_held && !v.held && slurm_state_drain(node->state) == SLURM_DRAIN_NONE &&
                !slurm_state_down(node->state) && streq_ptr(held.reason, reason)) {
                /* not drained at all: the drain never happened, or an admin resumed the node
                 * (pause and resume do too): no hold again for this file, the node gets it
                 * once idle (attack 12c F1: it was drained again within 30 s) */
                (void) charm_state_note_remove(&o->paths, CONFPUSH_HELD_FILE, NULL);
                have_held = false;
                _cleanup_free_ char *t = confpush_behind_format(running, 0);
                (void) charm_state_note_write(&o->paths, CONFPUSH_BEHIND_FILE, t, false, NULL);
        } else if (have_held && !v.held) {
                /* another drain or DOWN replaced the push's: that one stays */
                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                        "node %s: its drain for the slurm.conf push was replaced meanwhile: left as it is", node->name);
                (void) charm_state_note_remove(&o->paths, CONFPUSH_HELD_FILE, NULL);
                have_held = false;
        }
        /* since when this node is behind this file */
        if (fetched != running) {
                _cleanup_free_ char *b = NULL;
                uint32_t bh = 0;
                time_t since = 0;
                if (charm_state_note_read(&o->paths, CONFPUSH_BEHIND_FILE, &b) > 0 &&
                        confpush_behind_parse(b, &bh, &since) == 0 && bh == running && since <= v.now)
                        v.behind_since = since; /* 0: no hold for this file */
                else {
                        /* none for this file, or dated ahead of the clock (a clock set back:
                         * attack on the waves, F3): from now */
                        _cleanup_free_ char *t = confpush_behind_format(running, v.now);
                        (void) charm_state_note_write(&o->paths, CONFPUSH_BEHIND_FILE, t, false, NULL);
                        v.behind_since = v.now;
                }
        } else
                (void) charm_state_note_remove(&o->paths, CONFPUSH_BEHIND_FILE, NULL);
        _cleanup_free_ char *rec = NULL;
        time_t rec_when = 0;
        if (charm_state_note_read(&o->paths, CONFPUSH_RECORD_FILE, &rec) > 0 &&
                confpush_record_parse(rec, &v.record_running, &v.record_fetched, &v.record_boot, &rec_when) == 0)
                v.record = true;
        /* an idle node's wave (confpush.h), counted from when it was first seen idle and behind
         * this file (CONFPUSH_IDLE_FILE: the nodes one job's end frees wait their waves too,
         * attack on the waves F2); no job table read while it waits */
        if (fetched != running && !v.busy && !v.down) {
                _cleanup_free_ char *t = NULL;
                uint32_t ih = 0;
                time_t idle_since = 0;
                if (!(charm_state_note_read(&o->paths, CONFPUSH_IDLE_FILE, &t) > 0 &&
                            confpush_behind_parse(t, &ih, &idle_since) == 0 && ih == running &&
                            idle_since > 0 && idle_since <= v.now)) {
                        idle_since = v.now;
                        _cleanup_free_ char *nt = confpush_behind_format(running, v.now);
                        (void) charm_state_note_write(&o->paths, CONFPUSH_IDLE_FILE, nt, false, NULL);
                }
                v.turn = confpush_turn(node->name, running, in->conf_push_waves, idle_since);
        } else
                (void) charm_state_note_remove(&o->paths, CONFPUSH_IDLE_FILE, NULL);
        /* the job table only when the node looks idle and a restart would follow (one full
         * read of the job table otherwise for every look) */
        struct slurm_job_list jobs = { 0 };
        enum confpush_step step = confpush_next(&v);
        if (step == CONFPUSH_RESTART) {
                v.jobs = slurm_jobs_on_node(node->name, &jobs, &e);
                slurm_job_list_done(&jobs);
                step = confpush_next(&v);
        }
        /* a node drained by someone else (an admin, a health check, Slurm) keeps that drain: no
         * hold of the push's over it (review 12b N4); it takes no new job, and restarts once
         * its jobs ended without a drain of the push's */
        if (step == CONFPUSH_HOLD && slurm_state_drain(node->state) != SLURM_DRAIN_NONE)
                step = CONFPUSH_WAIT_JOBS;
        /* a unit being removed runs the hooks it had queued before its own relation-departed:
         * a restart there would register the node again after the departure deleted it (seen
         * with the controller's departed hook first: the node came back as a ghost). Asked only
         * when the push would act (one goal-state call). */
        if (step == CONFPUSH_RESTART || step == CONFPUSH_HOLD) {
                bool dying = false;
                strbuf_reset(&e);
                if (juju_unit_dying(ctx, &dying, &e) < 0) {
                        /* not known: no restart now; the next run asks again (review J1: said) */
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "slurm.conf push held: %s", e.buf);
                        return 0;
                }
                if (dying) {
                        strbuf_addstr(note, "; leaving: no slurm.conf push");
                        return 0;
                }
        }
        /* the canary: an earlier wave's restart for this file not back yet (confpush.h) */
        if ((step == CONFPUSH_RESTART && !v.held) || step == CONFPUSH_HOLD) {
                _cleanup_free_ char *other = NULL;
                time_t other_since = 0;
                if (push_canary(node->name, running, in->conf_push_waves, v.behind_since, &other, &other_since) > 0) {
                        time_t age = v.now >= other_since ? v.now - other_since : 0;
                        time_t look = v.now + (age < CONFPUSH_CANARY_SLOW_S ? CONFPUSH_WAVE_S : CONFPUSH_BUSY_LOOK_S);
                        _cleanup_free_ char *t = xasprintf("%lld\n", (long long) look);
                        (void) charm_state_note_write(&o->paths, CONFPUSH_TURN_FILE, t, true, NULL);
                        strbuf_addf(note,
                                "; slurmctld runs a new slurm.conf: slurmd restarts for it once node %s, an earlier "
                                "wave's, is back from its restart for it (drained for it %lld s ago)",
                                other, (long long) age);
                        if (age >= CONFPUSH_CANARY_SLOW_S)
                                (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                        "slurm.conf push held on node %s: node %s has not come back from its restart for "
                                        "the file slurmctld runs (%s) in %lld s",
                                        node->name, other, want, (long long) age);
                        return 0;
                }
        }
        if (step != CONFPUSH_WAIT_TURN)
                (void) charm_state_note_remove(&o->paths, CONFPUSH_TURN_FILE, NULL);
        switch (step) {
        case CONFPUSH_NONE:
                return 0;
        case CONFPUSH_WAIT_TURN: {
                /* the watcher runs the reconcile at that time (charm/slurmd/nodefollow.h) */
                _cleanup_free_ char *t = xasprintf("%lld\n", (long long) v.turn);
                (void) charm_state_note_write(&o->paths, CONFPUSH_TURN_FILE, t, true, NULL);
                strbuf_addf(note,
                        "; slurmctld runs a new slurm.conf: slurmd restarts for it in %lld s (the idle nodes "
                        "restart in %u waves)",
                        (long long) (v.turn - v.now), in->conf_push_waves);
                return 0;
        }
        case CONFPUSH_RELEASE:
                push_release(ctx, &o->paths, &held);
                goto refresh;
        case CONFPUSH_STUCK:
                strbuf_addf(note,
                        "; slurm.conf: slurmd fetched another file than slurmctld runs (%s) after a restart for "
                        "it, not restarted again until either changes or slurmctld starts again",
                        want);
                return 0;
        case CONFPUSH_WAIT_DOWN:
                strbuf_addf(note, "; slurmctld runs a new slurm.conf: slurmd fetches it once node %s is up",
                        node->name);
                return 0;
        case CONFPUSH_WAIT_JOBS:
                /* a node with no job step here (a batch job's other nodes, an salloc) shows its
                 * jobs' end to no local look, and a short job may fall between the watcher's
                 * state reads: looked at again in CONFPUSH_BUSY_LOOK_S (attack on the waves, F1;
                 * the batch host's watcher sees its steps end) */
                if (!v.held && local_steps(node->name) == 0) {
                        _cleanup_free_ char *t = xasprintf("%lld\n", (long long) (v.now + CONFPUSH_BUSY_LOOK_S));
                        (void) charm_state_note_write(&o->paths, CONFPUSH_TURN_FILE, t, true, NULL);
                }
                if (v.held)
                        strbuf_addstr(note,
                                "; slurmctld runs a new slurm.conf: the node is drained for it, slurmd restarts once "
                                "its jobs ended");
                else
                        strbuf_addf(note,
                                "; slurmctld runs a new slurm.conf: slurmd fetches it once no job runs here (the "
                                "node is drained for it after %d min)",
                                CONFPUSH_DRAIN_AFTER_S / 60);
                return 0;
        case CONFPUSH_HOLD: {
                size_t n = 0;
                long c = push_held_count(&n, NULL, NULL);
                if (c < 0 || (size_t) c >= confpush_hold_cap(n)) {
                        strbuf_addf(note,
                                "; slurmctld runs a new slurm.conf: slurmd fetches it once no job runs here (%s)",
                                c < 0 ? "the nodes drained for it not known"
                                      : "as many nodes as allowed are drained for it now");
                        return 0;
                }
                int r = push_hold(ctx, &o->paths, node, reason, &e, err);
                if (r < 0)
                        return r;
                if (r > 0) {
                        /* counted again: under Juju the hooks of other compute units count and
                         * drain at the same moment (issue 28's attack, F4: 3 of 4 nodes drained
                         * with a cap of 1). After a second, so that holds made in the same
                         * second are seen by each of them; beyond the cap, a node keeps its hold
                         * only when fewer than cap holders come before it, the earlier hold
                         * first (confpush_hold_yields: one order for all) */
                        struct timespec settle = { CONFPUSH_HOLD_SETTLE_MS / 1000,
                                (CONFPUSH_HOLD_SETTLE_MS % 1000) * 1000000L };
                        nanosleep(&settle, NULL);
                        _cleanup_strv_ struct strv holders = STRV_INIT;
                        _cleanup_free_ struct confpush_holder *h = NULL;
                        size_t n2 = 0;
                        long c2 = push_held_count(&n2, &holders, &h);
                        time_t mine_since = 0;
                        for (size_t i = 0; i < holders.n; i++)
                                if (streq(h[i].name, node->name))
                                        mine_since = h[i].since;
                        if (c2 > 0 && (size_t) c2 > confpush_hold_cap(n2) &&
                                confpush_hold_yields(node->name, mine_since, h, holders.n, confpush_hold_cap(n2))) {
                                _cleanup_(nodecfg_mark_done) struct nodecfg_mark mine = { 0 };
                                if (push_held_read(&o->paths, &mine) > 0)
                                        push_release(ctx, &o->paths, &mine);
                                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                                        "node %s: drained for the slurm.conf push at the same time as %ld others (cap "
                                        "%zu): put back, it waits for its turn",
                                        node->name, c2 - 1, confpush_hold_cap(n2));
                                strbuf_addstr(note,
                                        "; slurmctld runs a new slurm.conf: slurmd fetches it once no job runs here (as "
                                        "many nodes as allowed are drained for it now)");
                                goto refresh;
                        }
                }
                (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                        "node %s behind the slurm.conf slurmctld runs (%s) for %lld s with jobs running: %s", node->name,
                        want, (long long) (v.now - v.behind_since),
                        r > 0 ? "drained, slurmd restarts once they ended" : e.buf);
                strbuf_addstr(note,
                        "; slurmctld runs a new slurm.conf: the node is drained for it, slurmd restarts once its "
                        "jobs ended");
                goto refresh;
        }
        case CONFPUSH_RESTART:
                break;
        }
        /* drained for the restart's window (a job scheduled then would have its launch fail),
         * recorded with the node's state before; a node drained by someone else takes no job
         * and keeps its drain */
        int r;
        if (!v.held && slurm_state_drain(node->state) == SLURM_DRAIN_NONE) {
                strbuf_reset(&e);
                r = push_hold(ctx, &o->paths, node, reason, &e, err);
                if (r < 0)
                        return r;
                if (r == 0) {
                        strbuf_addf(note, "; slurmctld runs a new slurm.conf: node %s not drained for the restart (%s)",
                                node->name, e.buf);
                        return 0;
                }
                nodecfg_mark_done(&held);
                if (push_held_read(&o->paths, &held) <= 0)
                        return 0;
                v.held = true;
                /* a job scheduled between the look and the drain: put back, wait for it */
                int n = slurm_jobs_on_node(node->name, &jobs, &e);
                slurm_job_list_done(&jobs);
                if (n != 0) {
                        push_release(ctx, &o->paths, &held);
                        strbuf_addstr(note,
                                "; slurmctld runs a new slurm.conf: slurmd fetches it once no job runs here");
                        goto refresh;
                }
        }
        say_maintenance(ctx, "restarting slurmd: slurmctld runs a new slurm.conf (the node is idle)");
        time_t since = time(NULL);
        /* restarts that failed before (a file slurmd could not start with) may have hit the
         * unit's start limit, which would refuse this one, for the file that mends it */
        (void) unit_reset_failed(bus, "slurmd.service", sd_unit_timeout(o), NULL);
        r = unit_restart(bus, "slurmd.service", sd_unit_timeout(o), err);
        if (r < 0)
                return r; /* the record stays: the next run goes on */
        strbuf_reset(&e);
        int w = push_wait_registered(node->name, since, sd_register_timeout(o), &e);
        uint32_t after = 0;
        if (confpush_fetched_hash(&o->paths, &after) >= 0) {
                _cleanup_free_ char *text = confpush_record_format(running, after, boot, since);
                r = charm_state_note_write(&o->paths, CONFPUSH_RECORD_FILE, text, false, err);
                if (r < 0)
                        return r;
        }
        if (w < 0) {
                /* its drain and record stay: the next run puts it back once it registered */
                strbuf_addf(note, "; slurmd restarted for the new slurm.conf, not registered yet: %s", e.buf);
                goto refresh;
        }
        if (v.held) {
                push_release(ctx, &o->paths, &held);
                /* slurmctld marks a resumed node not responding until its next ping of it
                 * (~0.5 s here): waited for, bounded, so that the hook ends with the node usable
                 * and says so (attack 12c F4; CI's charm-stale read "idle*" right after) */
                _cleanup_strbuf_ struct strbuf we = STRBUF_INIT;
                (void) push_wait_registered(node->name, since, PUSH_RESPOND_WAIT_MS, &we);
        }
        char had[9];
        confpush_hash_text(fetched, had);
        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL,
                "slurmd restarted to fetch the slurm.conf slurmctld runs (%s; it had %s)%s; wave %u of %u, %lld s after "
                "it saw the file",
                want, had, v.held ? ", its node drained for the restart and put back" : "",
                confpush_wave(node->name, running, in->conf_push_waves), in->conf_push_waves,
                v.behind_since > 0 ? (long long) (since - v.behind_since) : 0LL);
refresh:;
        struct slurm_node again = { 0 };
        strbuf_reset(&e);
        if (slurm_node_get(node->name, &again, &e) >= 0) {
                slurm_node_done(node);
                *node = again;
        }
        return 0;
}

/* The hook found no controller answering: the mark the watcher follows (nodefollow.h), new
 * content each time (the file is written only when it changed, and the watcher tells a new mark
 * by its mtime: attack on issue 28, 7). */
static void unanswered_mark(const struct slurmd_opts *o) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        _cleanup_free_ char *when = xasprintf("%lld.%09ld\n", (long long) ts.tv_sec, (long) ts.tv_nsec);
        (void) sd_state_write(&o->paths, NODEFOLLOW_UNANSWERED_FILE, when, NULL);
}

/* A call to slurmctld that failed after its ping answered: a controller that stopped answering
 * meanwhile (24.11's reconfigure re-executes slurmctld; its own hook's restart under Juju's
 * concurrency) ends the hook waiting with the mark, as a ping unanswered does, and the watcher
 * runs the charm again once a controller answers (before: the hook failed, "node \"gpu-0\":
 * Connection reset by peer", charm-flow on 24.11). Any other error is returned as it is. Only
 * for steps whose errors are slurmctld's alone and that are safe to run again (the default
 * state, the programs' guard): a systemd job that timed out is -ETIMEDOUT too (review). */
static int answer_lost(struct juju_ctx *ctx, const struct slurmd_opts *o, const char *node, int r,
        struct charm_outcome *out, struct strbuf *err) {
        if (r != -ECONNREFUSED && r != -ETIMEDOUT)
                return r;
        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "slurmctld stopped answering: %s",
                err->len ? err->buf : strerror(-r));
        unanswered_mark(o);
        charm_outcome_set(out, JUJU_STATUS_WAITING, "node %s: slurmctld stopped answering (%s)", node,
                err->len ? err->buf : strerror(-r));
        strbuf_reset(err);
        return 0;
}

int slurmd_reconcile(
        struct juju_ctx *ctx, const struct slurmd_opts *o, struct charm_outcome *out, struct strbuf *err) {
        __attribute__((__cleanup__(sd_inputs_done))) struct sd_inputs in = SD_INPUTS_INIT;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *defaults_path = NULL, *defaults_dir = NULL;
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        struct slurm_node node = { 0 };
        int r, key_changed, dropin_changed, defaults_changed;

        r = charm_packages_ensure(o->event, "slurmd", err);
        if (r < 0)
                return r;
        {
                /* the admin's maintenance: nothing is started or written (charm/common/pause.h); the
                 * verdict on the controller's programs is given all the same (it starts nothing,
                 * and a paused unit must not hold every program change back) */
                char *services[3];
                charm_services(&o->paths, "slurmd.service", services);
                r = charm_paused_gate(NULL, &o->paths, juju_env(ctx)->unit, services, out, err);
                if (r < 0)
                        return r;
                if (r > 0) {
                        (void) answer_programs(ctx, o, NULL);
                        return 0;
                }
        }
        /* the programs the controller would publish, judged here (charm/common/nodeprogs.h) */
        _cleanup_strbuf_ struct strbuf live_why = STRBUF_INIT;
        int live_unsafe = answer_programs(ctx, o, &live_why);
        r = sd_read_inputs(ctx, o, &in, NULL, out, err);
        if (r != 0)
                return r < 0 ? r : 0;

        /* --- all inputs valid: write what differs --- */
        key_changed = auth_keyring_install(&o->paths, &in.keys, err);
        if (key_changed < 0)
                return key_changed;
        r = charm_site_scripts_ensure(&o->paths, err);
        /* where slurmd (root) opens files by name: nobody else's to put a link in (attack atk7
         * F4: Debian's packages give them to the slurm user) */
        static const char *const root_dirs[] = { "/var/lib/slurm", NODEFOLLOW_SPOOL_DIR, SLURMCONF_LOG_DIR };
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(root_dirs); i++)
                r = charm_root_dir_ensure(&o->paths, root_dirs[i], err);
        if (r < 0)
                return r;
        dropin_changed = install_dropin(o, juju_env(ctx)->charm_dir, err);
        if (dropin_changed < 0)
                return dropin_changed;
        defaults_path = charm_path(&o->paths, CHARM_PATH_SLURMD_DEFAULTS);
        defaults_dir = charm_path(&o->paths, "/etc/default");
        r = mkdir_p(defaults_dir, 0755);
        if (r >= 0)
                r = defaults_changed = write_file_atomic_if_changed(
                        defaults_path, in.defaults.buf, in.defaults.len, 0644, 0, 0);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", defaults_path, strerror(-r));
                return r;
        }

        /* --- daemons --- */
        r = unit_bus_open(&bus, err);
        if (r < 0)
                return r;
        if (dropin_changed > 0) {
                r = unit_daemon_reload(bus, unit_timeout(o), err);
                if (r < 0)
                        return r;
        }
        const char *auth = charm_caps(&o->paths)->auth_service;
        if (key_changed > 0 && auth)
                say_maintenance(ctx, "restarting munge: munge.key changed");
        r = auth ? charm_unit_ensure(bus, auth, key_changed > 0, unit_timeout(o), err) : 0;
        if (r < 0)
                return r;
        struct unit_state st;
        r = unit_get_state(bus, "slurmd.service", &st, err);
        if (r < 0)
                return r;
        bool active = streq(st.active_state, "active");
        if (!active && live_unsafe > 0) {
                /* slurmd would fetch a slurm.conf naming it, and run it at once */
                /* no slurmd, so no service watcher follows the machine (nodefollow.h): the
                 * verdict moves at the next hook only, and the status says so (atk8 G2) */
                charm_outcome_set(out, JUJU_STATUS_BLOCKED,
                        "%s: slurmd not started (the cluster's slurm.conf names it); checked again at the "
                        "next hook (update-status)",
                        live_why.buf);
                return 0;
        }
        /* auth/slurm (24.11): slurmd reads slurm.key at its start only, a key set (slurm.jwks) also
         * at its re-exec (charm/common/keyring.h) */
        bool key_reload = !auth && key_changed > 0 && auth_keyring_reloadable(&o->paths, &in.keys);
        bool key_restart = !auth && key_changed > 0 && !key_reload;
        bool restart = active && (defaults_changed > 0 || dropin_changed > 0 || key_restart);
        if (!active)
                say_maintenance(ctx, "starting slurmd");
        else if (restart)
                say_maintenance(ctx,
                        defaults_changed > 0         ? "restarting slurmd: /etc/default/slurmd changed"
                                : dropin_changed > 0 ? "restarting slurmd: its drop-in changed"
                                                     : "restarting slurmd: slurm.key changed");
        time_t since = time(NULL);
        r = charm_unit_ensure(bus, "slurmd.service", restart, unit_timeout(o), err);
        if (r < 0)
                return r;
        bool started = r > 0;
        if (key_reload && active && !restart) {
                say_maintenance(ctx, "slurmd takes new auth keys");
                r = auth_keyring_reload(bus, "slurmd.service", KEYRING_RELOAD_USEC, err);
                if (r < 0)
                        return r;
        }
        /* this unit runs with these keys: confirmed to the controllers (charm/slurmctld/keyrotate.h) */
        r = charm_keys_confirm(ctx, in.rel, &in.keys, err);
        if (r < 0)
                return r;
        /* a fetch of the configuration is awaited only from a slurmd started here: a running
         * one that slurmctld shows unregistered a moment (NOT_RESPONDING after an undrain's
         * ping) fetches nothing new */
        bool fetch_awaited = started;
        char *watched[3];
        size_t n_watched = charm_services(&o->paths, "slurmd.service", watched);
        for (size_t i = 0; i < n_watched; i++) {
                r = watcher_install(&o->paths, bus, juju_env(ctx)->unit, watched[i],
                        juju_env(ctx)->charm_dir, streq_ptr(o->event, "upgrade-charm"), err);
                if (r < 0)
                        return r;
        }

        int timeout = sd_register_timeout(o);
        if (!started && slurm_config_path() && slurm_ctl_reachable(&e) == 0) {
                /* no controller answers its ping: the node query below would retry for
                 * MessageTimeout and the registration wait after it for its whole timeout, the
                 * machine's hook lock held all the while (39 s measured); a later hook asks again,
                 * and the watcher runs one as soon as a controller answers (the mark, nodefollow.h) */
                unanswered_mark(o);
                charm_outcome_set(
                        out, JUJU_STATUS_WAITING, "node %s: no slurmctld answers (%s)", in.node_name, e.buf);
                return 0;
        }
        {
                _cleanup_free_ char *mark = sd_state_path(&o->paths, NODEFOLLOW_UNANSWERED_FILE);
                (void) unlink(mark);
        }
        strbuf_reset(&e);
        if (!started) {
                _cleanup_strbuf_ struct strbuf stale = STRBUF_INIT;
                /* running: one RPC for the status; a node that vanished (deleted) is re-registered,
                 * one whose slurmd lacks a start-only plugin of slurm.conf restarted */
                r = slurm_config_path() ? slurm_node_get(in.node_name, &node, &e) : -ENOENT;
                if (r == -ENOENT && slurm_config_path()) {
                        strbuf_reset(&e);
                        strbuf_addf(&e, "node %s unknown to slurmctld: restarting slurmd to register it",
                                in.node_name);
                        say_maintenance(ctx, e.buf);
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s", e.buf);
                        strbuf_reset(&e);
                        since = time(NULL);
                        r = sd_restart_unregistered(bus, o, err);
                        if (r < 0)
                                return r;
                        started = fetch_awaited = true;
                } else if (r < 0 || !slurm_state_registered(node.state))
                        started = true; /* not registered yet: wait below */
                else if (unit_get_state(bus, "slurmd.service", &st, NULL) >= 0 && /* (now: the query took a while) */
                        plugins_stale(&o->paths, st.main_pid, &node, &stale)) {
                        _cleanup_free_ char *msg = xasprintf(
                                "restarting slurmd: slurm.conf names %s, which it did not load at its start",
                                stale.buf);
                        say_maintenance(ctx, msg);
                        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL, "%s", msg);
                        since = time(NULL);
                        r = unit_restart(bus, "slurmd.service", unit_timeout(o), err);
                        if (r < 0) {
                                slurm_node_done(&node);
                                return r;
                        }
                        started = fetch_awaited = true;
                }
                if (started)
                        slurm_node_done(&node);
        }
        if (started) {
                bool nudged = false;
                strbuf_reset(&e);
                r = sd_wait_registered_nudge(bus, o, in.node_name, fetch_awaited ? since : 0, timeout, &node, &nudged, &e);
                if (nudged)
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL,
                                "node %s unknown to slurmctld for %d s after slurmd started: slurmd restarted "
                                "(its registration met a standby controller and waits SlurmctldTimeout/2)",
                                in.node_name, SD_REGISTER_UNKNOWN_MS / 1000);
        }
        /* the record of this node's name may be another's that its registration was taken onto
         * (a departed node's placeholder, charm/common/strand.h): deleted, slurmd registers afresh */
        {
                time_t before = time(NULL); /* (slurmd fetches its file at its start, 24.11 before it is ready) */
                int k = foreign_record(ctx, o, bus, in.node_name, r >= 0 ? &node : NULL, err);
                if (k < 0) {
                        slurm_node_done(&node);
                        return k;
                }
                if (k > 0) {
                        slurm_node_done(&node);
                        since = before;
                        started = fetch_awaited = true;
                        strbuf_reset(&e);
                        r = sd_wait_registered_nudge(bus, o, in.node_name, since, timeout, &node, NULL, &e);
                }
        }
        if (started) {
                if (r < 0) {
                        charm_outcome_set(out, JUJU_STATUS_WAITING, "node %s not registered yet: %s",
                                in.node_name, e.buf);
                        return 0;
                }
        }
        /* a node-config action that died left its drain (charm/slurmd/nodecfgmark.h): hooks never run
         * beside an action, so its record here means it is over */
        _cleanup_strbuf_ struct strbuf recovered = STRBUF_INIT;
        {
                _cleanup_strbuf_ struct strbuf re = STRBUF_INIT;
                r = nodecfg_mark_recover(&o->paths, &node, &recovered, &re);
                if (r < 0)
                        (void) juju_logf(ctx, JUJU_LOG_WARNING, NULL, "%s", re.buf);
                else if (recovered.len)
                        (void) juju_logf(ctx, JUJU_LOG_INFO, NULL, "%s", recovered.buf);
                if (r > 0) {
                        struct slurm_node again = { 0 };
                        strbuf_reset(&e);
                        if (slurm_node_get(in.node_name, &again, &e) >= 0) {
                                slurm_node_done(&node);
                                node = again;
                        }
                } else
                        strbuf_reset(&recovered); /* "still runs": not for the status */
        }
        r = apply_default_state(o, &in, &node, err);
        if (r < 0) {
                slurm_node_done(&node);
                return answer_lost(ctx, o, in.node_name, r, out, err);
        }
        /* a new slurm.conf on the controller: fetched once this node is idle (confpush.h); not
         * by a slurmd just started (it fetched), nor into a file naming a program unsafe here */
        _cleanup_strbuf_ struct strbuf push_note = STRBUF_INIT;
        if (!fetch_awaited && live_unsafe <= 0) {
                r = conf_push(ctx, o, bus, &in, &node, &push_note, err);
                if (r < 0) {
                        slurm_node_done(&node);
                        return r;
                }
        }
        /* the programs and files slurm.conf names for slurmd, on this machine (nodepaths.h) */
        _cleanup_strbuf_ struct strbuf unsafe = STRBUF_INIT;
        r = node_paths_guard(&o->paths, in.node_name, &node, &unsafe, err);
        if (r != 0) {
                slurm_node_done(&node);
                if (r < 0)
                        return answer_lost(ctx, o, in.node_name, r, out, err);
                charm_outcome_set(out, JUJU_STATUS_BLOCKED, "%s: node %s drained", unsafe.buf, in.node_name);
                return 0;
        }
        r = sd_publish_node(ctx, &in, &node, err);
        if (r >= 0)
                r = sd_actions_publish(ctx, &o->paths, in.rel, err);
        if (r < 0) {
                slurm_node_done(&node);
                return r;
        }
        strbuf_reset(&out->message);
        out->status = JUJU_STATUS_ACTIVE;
        node_status_message(node.state, node.reason, &out->message);
        if (recovered.len)
                strbuf_addf(&out->message, "; %s", recovered.buf);
        strbuf_addbuf(&out->message, &push_note);
        slurm_node_done(&node);
        /* nothing application-wide is wrong: the application shows its leader's status */
        out->set_app_status = in.leader;
        out->app_status = out->status;
        return 0;
}

int slurmd_destroy_jobs(struct juju_ctx *ctx, const struct slurmd_opts *o, struct strbuf *err) {
        _cleanup_free_ char *node = charm_node_name(juju_env(ctx)->unit);
        _cleanup_strv_ struct strv kv = STRV_INIT;
        struct slurm_destroy_report rep = { 0 };
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        int r, n_failed;

        /* first the pending jobs that can only run here, and the reservations naming the node
         * (strand.h); a job requeued below that requires this node is held by the departure */
        _cleanup_strbuf_ struct strbuf se = STRBUF_INIT;
        int s_failed = strand_destroy(juju_env(ctx)->unit, node, &kv, &se);
        if (s_failed < 0) {
                strbuf_addf(err, "destroy-jobs: %s", se.buf);
                return s_failed;
        }
        n_failed = slurm_jobs_destroy_on_node(node, &rep, &e);
        if (n_failed < 0) {
                strbuf_addf(err, "destroy-jobs: %s", e.buf);
                return n_failed;
        }
        strv_push(&kv, "requeued");
        strv_push_take(&kv, charm_join_ids(rep.requeued, rep.n_requeued));
        strv_push(&kv, "cancelled");
        strv_push_take(&kv, charm_join_ids(rep.cancelled, rep.n_cancelled));
        strv_push(&kv, "failed");
        strv_push_take(&kv, charm_join_ids(rep.failed, rep.n_failed));
        slurm_destroy_report_done(&rep);
        if (s_failed > 0) {
                if (e.len)
                        strbuf_addstr(&e, "; ");
                strbuf_addbuf(&e, &se);
                n_failed += s_failed;
        }
        r = juju_action_set_many(ctx, &kv, err);
        if (r < 0)
                return r;
        {
                /* what it did, also when some failed: "requeued=12,13 cancelled=14" */
                _cleanup_strbuf_ struct strbuf d = STRBUF_INIT;
                for (size_t i = 0; i + 1 < kv.n; i += 2)
                        if (!isempty(kv.v[i + 1]))
                                strbuf_addf(&d, "%s%s=%s", d.len ? " " : "", kv.v[i], kv.v[i + 1]);
                sd_action_noted(ctx, &o->paths, node, NULL, d.len ? d.buf : "nothing to do");
        }
        if (n_failed > 0) {
                strbuf_addf(err,
                        "destroy-jobs: %d job%s or reservation%s could not be requeued, cancelled or "
                        "changed: %s",
                        n_failed, n_failed == 1 ? "" : "s", n_failed == 1 ? "" : "s", e.buf);
                return -EIO;
        }
        return 0;
}
