/* SPDX-License-Identifier: Apache-2.0 */
/* A compute unit follows its machine: the looks and the run pacing (nodefollow.h). */
#include "util/macro.h"
#include "charm/slurmd/nodefollow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "charm/slurmd/nodeconf.h"
#include "charm/common/nodepaths.h"
#include "charm/common/nodeprogs.h"
#include "proc/proc.h"
#include "slurm/client.h"
#include "slurm/localjobs.h"
#include "slurm/nodes.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "util/hash.h"

#include "util/banned.h"

void nodefollow_done(struct nodefollow *f) {
        free(f->ids);
        free(f->conf_data);
        free(f->state_word);
        *f = (struct nodefollow) NODEFOLLOW_INIT;
}

bool nodefollow_wanted(const char *service) {
        return streq_ptr(service, "slurmd.service");
}

static bool same(const struct nodefollow *f, const uint32_t *ids, size_t n) {
        return f->n == n && (n == 0 || memcmp(f->ids, ids, n * sizeof *ids) == 0);
}

/* a run due at due, or earlier when one is pending earlier */
static void ask(struct nodefollow *f, uint64_t due, uint64_t now_usec) {
        if (!f->pending) {
                f->pending_since_usec = now_usec;
                f->due_usec = due;
        } else if (due < f->due_usec)
                f->due_usec = due;
        f->pending = true;
}

bool nodefollow_note_jobs(struct nodefollow *f, const uint32_t *ids, size_t n, uint64_t now_usec) {
        bool first = !f->known, changed = !first && !same(f, ids, n);
        if (first || changed) {
                free(f->ids);
                f->ids = xcalloc(n + 1, sizeof *f->ids);
                if (n)
                        memcpy(f->ids, ids, n * sizeof *ids);
                f->n = n;
                f->known = true;
        }
        if (first) {
                /* what changed while no watcher looked: one run to catch up */
                ask(f, now_usec + NODEFOLLOW_SETTLE_USEC, now_usec);
                return false;
        }
        if (!changed)
                return false;
        uint64_t due = now_usec + NODEFOLLOW_SETTLE_USEC;
        if (f->pending) {
                /* a later change of the burst gets its settle time too, within the gap, and never
                 * past a run promised for new configuration bytes or a new verdict */
                uint64_t cap = f->pending_since_usec + NODEFOLLOW_GAP_USEC;
                uint64_t later = due < cap ? due : cap;
                if (f->conf_due_usec && later > f->conf_due_usec)
                        later = f->conf_due_usec;
                if (later > f->due_usec)
                        f->due_usec = later;
                return true;
        }
        if (f->last_run_usec && f->last_run_usec + NODEFOLLOW_GAP_USEC > due)
                due = f->last_run_usec + NODEFOLLOW_GAP_USEC;
        ask(f, due, now_usec);
        return true;
}

/* a run for the configuration's sake: SETTLE from now, and no job change postpones it */
static void ask_for_conf(struct nodefollow *f, uint64_t now_usec) {
        uint64_t due = now_usec + NODEFOLLOW_SETTLE_USEC;
        ask(f, due, now_usec);
        if (!f->conf_due_usec || due < f->conf_due_usec)
                f->conf_due_usec = due;
}

bool nodefollow_note_conf(struct nodefollow *f, const struct nodefollow_conf *c, uint64_t now_usec) {
        if (!c->present)
                return false;
        bool changed = f->conf_known && c->hash != f->conf.hash;
        f->conf = *c;
        f->conf_known = true;
        if (changed)
                ask_for_conf(f, now_usec);
        return changed;
}

bool nodefollow_note_verdict(struct nodefollow *f, uint64_t verdict, uint64_t now_usec) {
        if (!f->verdict_known || verdict == f->verdict) {
                f->verdict = verdict;
                f->verdict_known = true;
                f->verdict_seen_once = false;
                return false;
        }
        if (!f->verdict_seen_once || f->verdict_seen != verdict) {
                /* once so far: the next look confirms it */
                f->verdict_seen = verdict;
                f->verdict_seen_once = true;
                return false;
        }
        f->verdict = verdict;
        f->verdict_seen_once = false;
        ask_for_conf(f, now_usec);
        return true;
}

bool nodefollow_note_state(struct nodefollow *f, const char *word, uint64_t now_usec) {
        if (!word)
                return false;
        bool changed = f->state_word && !streq(f->state_word, word);
        if (!f->state_word || changed) {
                free(f->state_word);
                f->state_word = xstrdup(word);
        }
        if (changed)
                ask(f, now_usec, now_usec);
        return changed;
}

bool nodefollow_take(struct nodefollow *f, uint64_t now_usec) {
        if (!f->pending || now_usec < f->due_usec)
                return false;
        f->pending = false;
        f->conf_due_usec = 0;
        f->last_run_usec = now_usec ? now_usec : 1;
        return true;
}

uint64_t nodefollow_deadline(const struct nodefollow *f) {
        return f->pending ? (f->due_usec ? f->due_usec : 1) : 0;
}


int nodefollow_conf_read(const char *path, const struct nodefollow_conf *last, struct nodefollow_conf *ret,
        struct strbuf *err) {
        return nodefollow_conf_read_data(path, last, ret, NULL, NULL, err);
}

int nodefollow_conf_read_data(const char *path, const struct nodefollow_conf *last, struct nodefollow_conf *ret,
        char **ret_data, size_t *ret_len, struct strbuf *err) {
        if (ret_data) {
                *ret_data = NULL;
                *ret_len = 0;
        }
        struct stat st;
        if (stat(path, &st) < 0) {
                if (errno == ENOENT || errno == ENOTDIR) {
                        *ret = (struct nodefollow_conf){ .present = false };
                        return 0;
                }
                int r = -errno;
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        struct nodefollow_conf c = {
                .present = true,
                .dev = (uint64_t) st.st_dev,
                .ino = (uint64_t) st.st_ino,
                .size = (uint64_t) st.st_size,
                .mtime_nsec = (uint64_t) st.st_mtim.tv_sec * 1000000000ULL + (uint64_t) st.st_mtim.tv_nsec,
        };
        if (last && last->present && last->dev == c.dev && last->ino == c.ino && last->size == c.size &&
                last->mtime_nsec == c.mtime_nsec) {
                *ret = *last;
                return 0;
        }
        if (st.st_size > NODEFOLLOW_CONF_MAX)
                c.hash = c.ino ^ c.mtime_nsec ^ c.size; /* not read: any new file is new */
        else {
                _cleanup_free_ char *data = NULL;
                size_t n = 0;
                int r = read_full_file(path, &data, &n);
                if (r == -ENOENT) {
                        *ret = (struct nodefollow_conf){ .present = false };
                        return 0;
                }
                if (r < 0) {
                        strbuf_addf(err, "%s: %s", path, strerror(-r));
                        return r;
                }
                c.hash = fnv1a64(data, n);
                if (ret_data) {
                        *ret_data = TAKE_PTR(data);
                        *ret_len = n;
                }
        }
        *ret = c;
        return 0;
}

/* In the child of proc_call_as(): the node's status word in out. */
static int state_child(void *userdata, struct strbuf *out) {
        const char *node = userdata;
        struct slurm_node n = { 0 };
        /* within the parent's bound, also when no controller answers (the client retries for
         * MessageTimeout) */
        int r = slurm_client_cap_msg_timeout(NODEFOLLOW_STATE_TIMEOUT_MS / 1000 - 1, out);
        if (r < 0)
                return r;
        r = slurm_node_get_brief(node, &n, out);
        if (r < 0)
                return r;
        node_status_message(n.state, n.reason, out);
        slurm_node_done(&n);
        return 0;
}

int nodefollow_state_read(const char *node, int timeout_ms, char **ret, struct strbuf *err) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        if (isempty(node))
                return -EINVAL;
        /* a child: libslurm reads the configuration afresh (the controllers may have changed),
         * and whatever it does on a bad file or a silent controller ends with the child */
        int r = proc_call_as(0, 0, timeout_ms, state_child, (void *) node, &out);
        if (r < 0) {
                strbuf_addf(err, "node %s from slurmctld: %s", node,
                        r == -ETIME ? "no answer in time" : out.len ? out.buf : strerror(-r));
                return r;
        }
        *ret = strbuf_detach(&out, NULL);
        return 0;
}

int nodefollow_look(struct nodefollow *f, const char *spool_dir, const char *node, const char *conf_path,
        const char *root, uint64_t now_usec, struct strbuf *err) {
        uint32_t *ids = NULL;
        size_t n = 0;
        int mask = 0, failed = 0;
        bool first = !f->known;
        int r = slurm_local_steps_scan(spool_dir, node, LOCAL_UNIX_TABLE, &ids, &n, err);
        if (r < 0)
                failed = r;
        else {
                if (nodefollow_note_jobs(f, ids, n, now_usec))
                        mask |= 1;
                if (first)
                        mask |= 4;
        }
        free(ids);
        if (conf_path) {
                struct nodefollow_conf c;
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                char *data = NULL;
                size_t len = 0;
                r = nodefollow_conf_read_data(conf_path, f->conf_known ? &f->conf : NULL, &c, &data, &len, &e);
                if (r < 0) {
                        strbuf_addf(err, "%s%s", failed ? "; " : "", e.buf);
                        failed = failed ? failed : r;
                } else {
                        if (data || (c.present && c.size > NODEFOLLOW_CONF_MAX)) {
                                free(f->conf_data);
                                f->conf_data = data;
                                f->conf_len = len;
                        }
                        if (nodefollow_note_conf(f, &c, now_usec))
                                mask |= 2;
                }
        }
        uint64_t v;
        if (nodefollow_verdict(f, root, &v) && nodefollow_note_verdict(f, v, now_usec))
                mask |= 8;
        return failed ? failed : mask;
}

bool nodefollow_verdict(const struct nodefollow *f, const char *root, uint64_t *ret) {
        if (!f->conf_data)
                return false;
        /* the programs it names, as the unit's reconcile judges them */
        const struct charm_paths p = { .root = root };
        _cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
        int r = node_paths_check(&p, f->conf_data, f->conf_len, &why);
        uint64_t v = r < 0 ? 0 : fnv1a64(why.buf ? why.buf : "", why.len) ^ (uint64_t) r;
        /* and those a held-back change names (charm/common/nodeprogs.h): the unit's answer */
        strbuf_reset(&why);
        r = node_progs_want_judge(&p, &why);
        *ret = v * 31 + (fnv1a64(why.buf ? why.buf : "", why.len) ^ (uint64_t) r);
        return true;
}

void nodefollow_rebase_verdict(struct nodefollow *f, uint64_t verdict) {
        f->verdict = verdict;
        f->verdict_known = true;
        f->verdict_seen_once = false;
}
