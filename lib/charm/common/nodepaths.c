/* SPDX-License-Identifier: Apache-2.0 */
/* A compute unit's guard of the files and programs slurm.conf names for slurmd (see
 * nodepaths.h). */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/common/nodepaths.h"
#include "slurm/client.h"
#include "slurm/nodestate.h"
#include "slurmconf/conf.h"
#include "slurmconf/pathkeys.h"
#include "util/fileio.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "util/banned.h"

int node_paths_check_flags(
        const struct charm_paths *p, const char *conf, size_t conf_len, unsigned flags, struct strbuf *why) {
        _cleanup_slurmconf_ struct slurmconf *c = NULL;
        int r = slurmconf_parse("slurm.conf", conf, conf_len, &c, why);
        if (r < 0)
                return r;
        uid_t owner = 0;
        const char *user = slurmconf_get(c, "SlurmdUser");
        if (!isempty(user)) {
                struct passwd *pw = getpwnam(user);
                char *end = NULL;
                unsigned long uid = strtoul(user, &end, 10);
                if (pw)
                        owner = pw->pw_uid;
                else if (end && *end == '\0')
                        owner = (uid_t) uid;
        }
        r = slurmconf_paths_check_keys(
                slurmconf_get_key, (void *) c, SLURMCONF_PATH_NODE, p ? p->root : NULL, owner, flags, why);
        return r < 0 ? 1 : 0;
}

int node_paths_check(const struct charm_paths *p, const char *conf, size_t conf_len, struct strbuf *why) {
        return node_paths_check_flags(p, conf, conf_len, SLURMCONF_PATH_F_ANYWHERE, why);
}

bool node_paths_reason_ours(const char *reason) {
        return streq_ptr(reason, NODE_PATHS_REASON);
}

int node_paths_guard(const struct charm_paths *p, const char *node_name, struct slurm_node *node,
        struct strbuf *why, struct strbuf *err) {
        /* the copy slurmd fetched and runs with, not a controller's file on a shared machine */
        _cleanup_free_ char *path = charm_path(p, NODE_PATHS_CONF), *conf = NULL;
        size_t len = 0;
        if (read_full_file(path, &conf, &len) < 0)
                return 0; /* slurmd has fetched nothing yet: nothing it runs */
        (void) charm_state_note_write(p, NODE_PATHS_JUDGED_FILE, "", false, NULL);
        int r = node_paths_check(p, conf, len, why);
        if (r < 0) {
                strbuf_reset(why);
                return 0; /* not ours to judge: slurmd reads it */
        }
        bool drained = slurm_state_drain(node->state) != SLURM_DRAIN_NONE;
        if (r > 0 && !drained)
                r = slurm_node_drain(node_name, NODE_PATHS_REASON, err);
        else if (r == 0 && drained && node_paths_reason_ours(node->reason))
                r = slurm_node_undrain(node_name, err);
        else
                return r;
        if (r < 0)
                return r;
        bool unsafe = why->len > 0;
        slurm_node_done(node);
        /* undrained: slurmctld asks the node to register again and shows it NOT_RESPONDING until
         * it has (about half a second); the status read in that moment would stay "not
         * responding" with nothing to put it right (attack on issue 26 item 6) */
        if (!unsafe) {
                _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
                if (slurm_node_wait_registered(node_name, NODE_PATHS_REGISTER_MS, node, &e) >= 0)
                        return 0;
        }
        r = slurm_node_get(node_name, node, err);
        if (r < 0)
                return r;
        return unsafe ? 1 : 0;
}

bool node_paths_judged_since(const struct charm_paths *p, const struct timespec *t) {
        _cleanup_free_ char *dir = charm_path(p, CHARM_PATH_STATE_DIR);
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, NODE_PATHS_JUDGED_FILE);
        struct stat st;
        if (stat(path, &st) < 0)
                return false;
        return st.st_mtim.tv_sec > t->tv_sec || (st.st_mtim.tv_sec == t->tv_sec && st.st_mtim.tv_nsec >= t->tv_nsec);
}
