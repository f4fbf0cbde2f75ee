/* SPDX-License-Identifier: Apache-2.0 */
/* Test driver (and debug CLI) over lib/slurm: one verb per run, results on stdout as plain
 * lines, failures as "ERR <ERRNO-NAME> <message>" with exit status 1; usage errors exit 2. */
#include "util/macro.h"

#include <time.h>

#include "slurm/client.h"
#include "slurm/hardware.h"
#include "slurm/jobs.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "slurm/triggers.h"
#include "util/strbuf.h"
#include "util/strv.h"

#include "util/banned.h"

static int fail(int r, const struct strbuf *err) {
        const char *name = strerrorname_np(-r);
        printf("ERR %s %s\n", name ? name : "?", err->buf);
        return 1;
}

static void print_node(const struct slurm_node *n) {
        _cleanup_strbuf_ struct strbuf st = STRBUF_INIT;
        const char *d = slurm_drain_name(slurm_state_drain(n->state));
        slurm_state_format(n->state, &st);
        printf("name=%s\nstate=%s\nbase=%s\ndrain=%s\nregistered=%d\nbusy=%d\nreason=%s\n", n->name, st.buf,
                slurm_state_base_name(n->state), d ? d : "-", slurm_state_registered(n->state),
                slurm_state_busy(n->state), strempty(n->reason));
        printf("features=%s\nactive=%s\ngres=%s\npartitions=%s\naddress=%s\ncpus=%u\nalloc_cpus=%u\n"
               "memory=%llu\nweight=%u\n",
                strempty(n->features), strempty(n->features_active), strempty(n->gres),
                strempty(n->partitions), strempty(n->address), n->cpus, n->alloc_cpus,
                (unsigned long long) n->real_memory, n->weight);
}

static double now_real(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void print_ids(const char *what, const uint32_t *v, size_t n) {
        printf("%s:", what);
        for (size_t i = 0; i < n; i++)
                printf(" %u", v[i]);
        printf("\n");
}

int main(int argc, char **argv) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const char *verb = argc > 1 ? argv[1] : "";
        const char *a = argc > 2 ? argv[2] : NULL;
        const char *b = argc > 3 ? argv[3] : NULL;
        int r;

        if (streq(verb, "node") && a) {
                struct slurm_node n;
                r = slurm_node_get(a, &n, &err);
                if (r < 0)
                        return fail(r, &err);
                print_node(&n);
                slurm_node_done(&n);
                return 0;
        }
        if (streq(verb, "list")) {
                struct slurm_node_list l;
                struct slurm_node_filter f = { .feature = a, .partition = b };
                r = slurm_node_list(&f, &l, &err);
                if (r < 0)
                        return fail(r, &err);
                printf("%zu nodes in %zu partitions\n", l.n, l.n_partitions);
                for (size_t i = 0; i < l.n; i++)
                        printf("%s %s\n", l.v[i].name, strempty(l.v[i].partitions));
                slurm_node_list_done(&l);
                return 0;
        }
        if (streq(verb, "drain") && a && b)
                r = slurm_node_drain(a, b, &err);
        else if (streq(verb, "down") && a && b)
                r = slurm_node_down(a, b, &err);
        else if (streq(verb, "resume") && a)
                r = slurm_node_resume(a, &err);
        else if (streq(verb, "undrain") && a)
                r = slurm_node_undrain(a, &err);
        else if (streq(verb, "idle") && a)
                r = slurm_node_idle(a, &err);
        else if (streq(verb, "delete") && a)
                r = slurm_node_delete(a, &err);
        else if (streq(verb, "weight") && a && b)
                r = slurm_node_update(a, &(struct slurm_node_update){ .weight = (uint32_t) atoi(b) }, &err);
        else if (streq(verb, "features") && a && b)
                r = slurm_node_update(
                        a, &(struct slurm_node_update){ .features = b, .features_active = b }, &err);
        else if (streq(verb, "reconfigure"))
                r = slurm_ctl_reconfigure(&err);
        else if (streq(verb, "restore-check") && a) {
                /* take the node as it is, drain it "for maintenance", put it back, compare */
                struct slurm_node before, after;
                r = slurm_node_get(a, &before, &err);
                if (r < 0)
                        return fail(r, &err);
                r = slurm_node_drain(a, "temporary charm drain", &err);
                if (r >= 0)
                        r = slurm_node_restore(&before, &err);
                if (r >= 0)
                        r = slurm_node_get(a, &after, &err);
                if (r < 0) {
                        slurm_node_done(&before);
                        return fail(r, &err);
                }
                printf("before=%s/%s after=%s/%s\n", slurm_state_base_name(before.state),
                        strempty(before.reason), slurm_state_base_name(after.state), strempty(after.reason));
                /* what restore promises: drained, down and reason as before (NOT_RESPONDING
                 * comes and goes after a resume) */
                r = (slurm_state_drain(before.state) != SLURM_DRAIN_NONE) ==
                                        (slurm_state_drain(after.state) != SLURM_DRAIN_NONE) &&
                                slurm_state_down(before.state) == slurm_state_down(after.state) &&
                                streq_ptr(before.reason, after.reason)
                        ? 0
                        : 1;
                printf("restored=%s\n", r == 0 ? "yes" : "no");
                slurm_node_done(&before);
                slurm_node_done(&after);
                return r;
        } else if (streq(verb, "jobs") && a) {
                struct slurm_job_list l;
                r = slurm_jobs_on_node(a, &l, &err);
                if (r < 0)
                        return fail(r, &err);
                printf("%d jobs\n", r);
                for (size_t i = 0; i < l.n; i++)
                        printf("job %u name=%s uid=%u user=%s state=%s batch=%d requeueable=%d nodes=%s\n",
                                l.v[i].id, strempty(l.v[i].name), l.v[i].user_id, strempty(l.v[i].user),
                                slurm_job_state_name(l.v[i].state), l.v[i].batch, l.v[i].requeueable,
                                l.v[i].nodes);
                slurm_job_list_done(&l);
                return 0;
        } else if (streq(verb, "destroy") && a) {
                struct slurm_destroy_report rep;
                r = slurm_jobs_destroy_on_node(a, &rep, &err);
                if (r < 0)
                        return fail(r, &err);
                print_ids("requeued", rep.requeued, rep.n_requeued);
                print_ids("cancelled", rep.cancelled, rep.n_cancelled);
                print_ids("failed", rep.failed, rep.n_failed);
                slurm_destroy_report_done(&rep);
                return r > 0 ? fail(-EIO, &err) : 0;
        } else if (streq(verb, "wait-registered") && a && b) {
                struct slurm_node n;
                double t0 = now_real();
                /* argv[4], when given: the "no such node" bound (slurm_node_wait_registered_unknown) */
                r = slurm_node_wait_registered_unknown(a, atoi(b), argc > 4 ? atoi(argv[4]) : 0, &n, &err);
                if (r < 0)
                        return fail(r, &err);
                printf("registered after %.3f s\n", now_real() - t0);
                print_node(&n);
                slurm_node_done(&n);
                return 0;
        } else if (streq(verb, "wait-no-jobs") && a && b) {
                r = slurm_jobs_wait_none(a, atoi(b), &err);
                if (r < 0)
                        return fail(r, &err);
                printf("seen_at=%.6f\n", now_real());
                return 0;
        } else if (streq(verb, "ping")) {
                struct slurm_controllers c;
                r = slurm_ctl_ping(&c, &err);
                if (r < 0)
                        return fail(r, &err);
                printf("%d up\n", r);
                for (size_t i = 0; i < c.n; i++)
                        printf("controller %zu %s %s %s\n", i, c.v[i].host, strempty(c.v[i].addr),
                                c.v[i].up ? "up" : "down");
                slurm_controllers_done(&c);
                return 0;
        } else if (streq(verb, "hardware")) {
                _cleanup_strv_ struct strv kv = STRV_INIT;
                r = slurm_detect_hardware_at(NULL, a, true, &kv, &err);
                if (r < 0)
                        return fail(r, &err);
                for (size_t i = 0; i < kv.n; i++)
                        printf("%s\n", kv.v[i]);
                return 0;
        } else if (streq(verb, "trigger-set") && a && b && argc > 4) {
                static const enum slurm_node_event evs[] = { SLURM_NODE_EVENT_UP, SLURM_NODE_EVENT_DOWN,
                        SLURM_NODE_EVENT_FAIL, SLURM_NODE_EVENT_IDLE, SLURM_NODE_EVENT_DRAINED };
                enum slurm_node_event ev = 0;
                for (size_t i = 0; i < ELEMENTSOF(evs); i++)
                        if (streq(b, slurm_node_event_name(evs[i])))
                                ev = evs[i];
                r = slurm_trigger_set_node(a, ev, argv[4], false, &err);
        } else if (streq(verb, "trigger-perm") && a && b) {
                /* a permanent trigger on every node, as the controller charm keeps them */
                const struct slurm_trigger_spec spec = {
                        .event = streq(a, "down") ? SLURM_NODE_EVENT_DOWN : SLURM_NODE_EVENT_DRAINED,
                        .program = b
                };
                r = slurm_trigger_set_perm(&spec, &err);
                if (r < 0)
                        return fail(r, &err);
                printf("%s\n", r > 0 ? "set" : "there");
                return 0;
        } else if (streq(verb, "triggers")) {
                struct slurm_trigger_list l;
                r = slurm_trigger_list(&l, &err);
                if (r < 0)
                        return fail(r, &err);
                printf("%d triggers\n", r);
                for (size_t i = 0; i < l.n; i++)
                        printf("trigger %u node=%d events=0x%x resource=%s program=%s\n", l.v[i].id,
                                l.v[i].node_trigger, l.v[i].events, strempty(l.v[i].resource),
                                strempty(l.v[i].program));
                slurm_trigger_list_done(&l);
                return 0;
        } else if (streq(verb, "trigger-clear") && a) {
                r = slurm_trigger_clear((uint32_t) strtoul(a, NULL, 10), &err);
        } else if (streq(verb, "config-path")) {
                const char *p = slurm_config_path();
                printf("%s\n", p ? p : "(none)");
                return p ? 0 : 1;
        } else {
                fprintf(stderr,
                        "usage: slurm-drive node|jobs|destroy|delete|resume|undrain|idle|restore-check "
                        "NODE\n"
                        "       slurm-drive drain|down NODE REASON | weight NODE N | features NODE F\n"
                        "       slurm-drive wait-registered NODE TIMEOUT_MS [UNKNOWN_MS]\n"
                        "       slurm-drive wait-no-jobs NODE TIMEOUT_MS\n"
                        "       slurm-drive list [FEATURE [PARTITION]] | ping | reconfigure | config-path\n"
                        "       slurm-drive hardware [DEV_DIR]\n"
                        "       slurm-drive trigger-set NODE up|down|fail|idle|drained PROGRAM | triggers |"
                        " trigger-clear ID | trigger-perm down|drained PROGRAM\n");
                return 2;
        }
        if (r < 0)
                return fail(r, &err);
        printf("ok\n");
        return 0;
}
