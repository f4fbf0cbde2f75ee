/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/slurm's pure parts: node/job state text and predicates, error mapping,
 * `slurmd -C` parsing, GPU counting in a fake /dev, hardware detection with a fake slurmd. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/macro.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "slurm/client.h"
#include "slurm/compat.h"
#include "slurm/hardware.h"
#include "slurm/jobs.h"
#include "slurm/nodes.h"
#include "slurm/nodestate.h"
#include "slurm/partitions.h"
#include "slurm/slurmerr.h"
#include "slurm/triggers.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "util/banned.h"

static void assert_format(uint32_t state, const char *want) {
        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
        slurm_state_format(state, &sb);
        assert_string_equal(sb.buf, want);
}

static void test_state_format(void **state) {
        assert_format(NODE_STATE_IDLE, "IDLE");
        assert_format(NODE_STATE_IDLE | NODE_STATE_DYNAMIC_NORM, "IDLE+DYNAMIC_NORM");
        assert_format(
                NODE_STATE_IDLE | NODE_STATE_DRAIN | NODE_STATE_DYNAMIC_NORM, "IDLE+DRAIN+DYNAMIC_NORM");
        assert_format(NODE_STATE_ALLOCATED | NODE_STATE_DRAIN | NODE_STATE_COMPLETING,
                "ALLOCATED+DRAIN+COMPLETING");
        assert_format(NODE_STATE_DOWN | NODE_STATE_NO_RESPOND, "DOWN+NOT_RESPONDING");
        assert_format(NODE_STATE_MIXED, "MIXED");
        assert_format(NODE_STATE_UNKNOWN, "UNKNOWN");
        assert_format(0xe, "UNKNOWN"); /* base out of range */
        assert_format(NODE_STATE_IDLE | (1U << 31), "IDLE+0x80000000");
        assert_string_equal(slurm_state_base_name(NODE_STATE_FUTURE), "FUTURE");
}

static void test_state_with_cpus(void **state) {
        const uint32_t alloc = NODE_STATE_ALLOCATED | NODE_STATE_DRAIN | NODE_STATE_DYNAMIC_NORM;
        /* scontrol's MIXED: some, not all, CPUs allocated (flags kept) */
        assert_int_equal(slurm_state_with_cpus(alloc, 4, 2),
                NODE_STATE_MIXED | NODE_STATE_DRAIN | NODE_STATE_DYNAMIC_NORM);
        assert_int_equal(slurm_state_with_cpus(alloc, 4, 4), alloc);
        assert_int_equal(slurm_state_with_cpus(NODE_STATE_IDLE, 4, 0), NODE_STATE_IDLE);
        /* a stale allocation count above the CPUs (22.05's reconfigure bug) stays as reported */
        assert_int_equal(slurm_state_with_cpus(alloc, 2, 3), alloc);
}

static void test_state_parse(void **state) {
        uint32_t s = 12345;
        assert_int_equal(slurm_state_parse("IDLE+DRAIN+DYNAMIC_NORM", &s), 0);
        assert_int_equal(s, NODE_STATE_IDLE | NODE_STATE_DRAIN | NODE_STATE_DYNAMIC_NORM);
        assert_int_equal(slurm_state_parse("down+not_responding", &s), 0);
        assert_int_equal(s, NODE_STATE_DOWN | NODE_STATE_NO_RESPOND);
        assert_int_equal(slurm_state_parse("drained", &s), 0);
        assert_int_equal(s, NODE_STATE_UNKNOWN | NODE_STATE_DRAIN);
        assert_int_equal(slurm_state_parse("MIXED+NO_RESPOND+MAINT", &s), 0);
        assert_int_equal(s, NODE_STATE_MIXED | NODE_STATE_NO_RESPOND | NODE_STATE_MAINT);
        /* flags before the base are fine */
        assert_int_equal(slurm_state_parse("DRAIN+IDLE", &s), 0);
        assert_int_equal(s, NODE_STATE_IDLE | NODE_STATE_DRAIN);

        s = 777;
        assert_int_equal(slurm_state_parse("", &s), -EINVAL);
        assert_int_equal(slurm_state_parse(NULL, &s), -EINVAL);
        assert_int_equal(slurm_state_parse("IDLE+", &s), -EINVAL);
        assert_int_equal(slurm_state_parse("+IDLE", &s), -EINVAL);
        assert_int_equal(slurm_state_parse("IDLE++DRAIN", &s), -EINVAL);
        assert_int_equal(slurm_state_parse("IDLE+ALLOCATED", &s), -EINVAL);
        assert_int_equal(slurm_state_parse("IDLEX", &s), -EINVAL);
        assert_int_equal(slurm_state_parse("IDL", &s), -EINVAL);
        assert_int_equal(s, 777); /* untouched on error */
}

static void test_state_roundtrip(void **state) {
        /* every single flag and every base formats to text that parses back to itself */
#ifdef NODE_STATE_NET
        const int first = 4;
#else
        const int first = 5; /* 24.11: bit 4 is no flag any more */
#endif
#ifdef NODE_STATE_BLOCKED
        const int last = 27; /* 24.11 */
#else
        const int last = 26;
#endif
        for (uint32_t base = 0; base < NODE_STATE_END; base++)
                for (int bit = first - 1; bit <= last; bit++) {
                        _cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
                        uint32_t st = base | (bit >= first ? (1U << bit) : 0), back = 0;
                        slurm_state_format(st, &sb);
                        assert_int_equal(slurm_state_parse(sb.buf, &back), 0);
                        assert_int_equal(back, st);
                }
}

static void test_drain_and_predicates(void **state) {
        uint32_t dyn = NODE_STATE_DYNAMIC_NORM;
        assert_int_equal(slurm_state_drain(NODE_STATE_IDLE | dyn), SLURM_DRAIN_NONE);
        assert_int_equal(slurm_state_drain(NODE_STATE_IDLE | NODE_STATE_DRAIN | dyn), SLURM_DRAIN_DRAINED);
        assert_int_equal(slurm_state_drain(NODE_STATE_ALLOCATED | NODE_STATE_DRAIN), SLURM_DRAIN_DRAINING);
        assert_int_equal(slurm_state_drain(NODE_STATE_MIXED | NODE_STATE_DRAIN), SLURM_DRAIN_DRAINING);
        assert_int_equal(slurm_state_drain(NODE_STATE_IDLE | NODE_STATE_DRAIN | NODE_STATE_COMPLETING),
                SLURM_DRAIN_DRAINING);
        assert_int_equal(slurm_state_drain(NODE_STATE_DOWN | NODE_STATE_DRAIN), SLURM_DRAIN_DRAINED);
        assert_string_equal(slurm_drain_name(SLURM_DRAIN_DRAINING), "DRAINING");
        assert_string_equal(slurm_drain_name(SLURM_DRAIN_DRAINED), "DRAINED");
        assert_null(slurm_drain_name(SLURM_DRAIN_NONE));

        assert_true(slurm_state_registered(NODE_STATE_IDLE | dyn));
        assert_true(slurm_state_registered(NODE_STATE_ALLOCATED | NODE_STATE_DRAIN));
        assert_true(slurm_state_registered(NODE_STATE_DOWN)); /* down but answering */
        assert_false(slurm_state_registered(NODE_STATE_UNKNOWN | dyn));
        assert_false(slurm_state_registered(NODE_STATE_IDLE | NODE_STATE_NO_RESPOND | dyn));
        assert_false(slurm_state_registered(NODE_STATE_FUTURE));
        assert_false(slurm_state_registered(NODE_STATE_IDLE | NODE_STATE_DYNAMIC_FUTURE));
        assert_false(slurm_state_registered(NODE_STATE_IDLE | NODE_STATE_POWERED_DOWN));

        assert_false(slurm_state_busy(NODE_STATE_IDLE | NODE_STATE_DRAIN));
        assert_true(slurm_state_busy(NODE_STATE_ALLOCATED));
        assert_true(slurm_state_busy(NODE_STATE_MIXED));
        assert_true(slurm_state_busy(NODE_STATE_IDLE | NODE_STATE_COMPLETING));
        assert_false(slurm_state_busy(NODE_STATE_DOWN));

        assert_true(slurm_state_down(NODE_STATE_DOWN | NODE_STATE_NO_RESPOND));
        assert_true(slurm_state_down(NODE_STATE_IDLE | NODE_STATE_FAIL));
        assert_false(slurm_state_down(NODE_STATE_IDLE | NODE_STATE_DRAIN));
}

static void test_job_states(void **state) {
        assert_string_equal(slurm_job_state_name(JOB_RUNNING), "RUNNING");
        assert_string_equal(slurm_job_state_name(JOB_PENDING), "PENDING");
        assert_string_equal(slurm_job_state_name(JOB_COMPLETE), "COMPLETED");
        assert_string_equal(slurm_job_state_name(JOB_OOM), "OUT_OF_MEMORY");
        assert_string_equal(slurm_job_state_name(JOB_RUNNING | JOB_COMPLETING), "COMPLETING");
        assert_string_equal(slurm_job_state_name(JOB_PENDING | JOB_CONFIGURING), "CONFIGURING");
        assert_string_equal(slurm_job_state_name(JOB_PENDING | JOB_REQUEUE), "REQUEUED");
        assert_string_equal(slurm_job_state_name(0xfe), "UNKNOWN");

        assert_true(slurm_job_state_on_node(JOB_RUNNING));
        assert_true(slurm_job_state_on_node(JOB_SUSPENDED));
        assert_true(slurm_job_state_on_node(JOB_COMPLETE | JOB_COMPLETING));
        assert_true(slurm_job_state_on_node(JOB_CANCELLED | JOB_COMPLETING));
        assert_true(slurm_job_state_on_node(JOB_RUNNING | JOB_CONFIGURING));
        assert_false(slurm_job_state_on_node(JOB_PENDING));
        assert_false(slurm_job_state_on_node(JOB_COMPLETE));
        assert_false(slurm_job_state_on_node(JOB_CANCELLED));
        assert_false(slurm_job_state_on_node(JOB_PENDING | JOB_REQUEUE_HOLD));
}

static void test_errno_map(void **state) {
        assert_int_equal(slurm_code_to_errno(0), 0);
        /* plain errno values; a lost connection is a refused one (issue 28) */
        assert_int_equal(slurm_code_to_errno(ENOENT), -ENOENT);
        assert_int_equal(slurm_code_to_errno(ECONNRESET), -ECONNREFUSED);
        assert_int_equal(slurm_code_to_errno(EPIPE), -ECONNREFUSED);
        assert_int_equal(slurm_code_to_errno(ECONNREFUSED), -ECONNREFUSED);
        assert_int_equal(slurm_code_to_errno(ESLURM_INVALID_NODE_NAME), -ENOENT);
        assert_int_equal(slurm_code_to_errno(ESLURM_NODES_BUSY), -EBUSY);
        assert_int_equal(slurm_code_to_errno(ESLURM_INVALID_JOB_ID), -ESRCH);
        assert_int_equal(slurm_code_to_errno(ESLURM_ALREADY_DONE), -EALREADY);
        assert_int_equal(slurm_code_to_errno(ESLURM_ACCESS_DENIED), -EACCES);
        assert_int_equal(slurm_code_to_errno(ESLURM_IN_STANDBY_MODE), -EHOSTDOWN);
        assert_int_equal(slurm_code_to_errno(ESLURM_IN_STANDBY_USE_BACKUP), -EHOSTDOWN);
        assert_int_equal(slurm_code_to_errno(ESLURM_USER_ID_MISSING), -EACCES);
        assert_int_equal(slurm_code_to_errno(ESLURM_AUTH_CRED_INVALID), -EACCES);
        assert_int_equal(slurm_code_to_errno(ESLURM_DISABLED), -EOPNOTSUPP);
        assert_int_equal(slurm_code_to_errno(ESLURM_BATCH_ONLY), -EOPNOTSUPP);
        assert_int_equal(slurm_code_to_errno(ESLURM_INVALID_NODE_STATE), -EINVAL);
        assert_int_equal(slurm_code_to_errno(SLURM_COMMUNICATIONS_CONNECTION_ERROR), -ECONNREFUSED);
        assert_int_equal(slurm_code_to_errno(SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR), -ECONNREFUSED);
        assert_int_equal(slurm_code_to_errno(SLURM_SOCKET_ERR_FIRST), -ECONNREFUSED);
        assert_int_equal(slurm_code_to_errno(SLURM_SOCKET_ERR_LAST), -ECONNREFUSED);
        assert_int_equal(slurm_code_to_errno(ESLURM_AUTH_LAST), -EACCES);
        assert_int_equal(slurm_code_to_errno(SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT), -ETIMEDOUT);
        assert_int_equal(slurm_code_to_errno(ENOENT), -ENOENT); /* plain errno passes through */
        assert_int_equal(slurm_code_to_errno(ESLURM_MISSING_TIME_LIMIT), -EIO);
        assert_int_equal(slurm_code_to_errno(-1), -EIO);

        assert_int_equal(slurm_rc_code(ESLURM_INVALID_JOB_ID), ESLURM_INVALID_JOB_ID); /* code returned */
        errno = ESLURM_NODES_BUSY;
        assert_int_equal(slurm_rc_code(-1), ESLURM_NODES_BUSY); /* code in errno */
        errno = 0;
        assert_true(slurm_rc_code(-1) > 0); /* never "success" for a failed call */
}

static void test_fail_message(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_int_equal(slurm_fail(&err, ESLURM_NODES_BUSY, "delete node \"%s\"", "n1"), -EBUSY);
        assert_string_equal(err.buf, "delete node \"n1\": Requested nodes are busy");
        assert_int_equal(slurm_fail(NULL, ESLURM_INVALID_NODE_NAME, "x"), -ENOENT);
}

static void test_list_has(void **state) {
        assert_true(slurm_list_has("ns1", "ns1"));
        assert_true(slurm_list_has("a,ns1,b", "ns1"));
        assert_true(slurm_list_has("a,b,ns1", "ns1"));
        assert_false(slurm_list_has("ns10,ns", "ns1"));
        assert_false(slurm_list_has("NS1", "ns1"));
        assert_false(slurm_list_has(NULL, "ns1"));
        assert_false(slurm_list_has("", "ns1"));
        assert_false(slurm_list_has("a,,b", ""));
}

static const char slurmd_c[] =
        "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 "
        "RealMemory=24105\nUpTime=0-00:11:06\n";

static void test_parse_node_config(void **state) {
        _cleanup_strv_ struct strv kv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        strv_push(&kv, "keep=me");
        assert_int_equal(slurm_parse_node_config(slurmd_c, &kv, &err), 6);
        assert_int_equal(kv.n, 7);
        assert_string_equal(kv.v[0], "keep=me");
        assert_string_equal(kv.v[1], "CPUs=2");
        assert_string_equal(kv.v[2], "Boards=1");
        assert_string_equal(kv.v[3], "SocketsPerBoard=1");
        assert_string_equal(kv.v[4], "CoresPerSocket=2");
        assert_string_equal(kv.v[5], "ThreadsPerCore=1");
        assert_string_equal(kv.v[6], "RealMemory=24105");
        assert_string_equal(err.buf, "");

        /* tabs, CRLF, extra spaces, no trailing newline, other keys kept in order */
        strv_clear(&kv);
        assert_int_equal(
                slurm_parse_node_config(
                        "  NodeName=x\tCPUs=4  Gres=gpu:1\r\nUpTime=1-00:00:00\r\nTmpDisk=5", &kv, NULL),
                3);
        assert_string_equal(kv.v[0], "CPUs=4");
        assert_string_equal(kv.v[1], "Gres=gpu:1");
        assert_string_equal(kv.v[2], "TmpDisk=5");

        strv_clear(&kv);
        assert_int_equal(slurm_parse_node_config("", &kv, NULL), 0);
        assert_int_equal(slurm_parse_node_config(NULL, &kv, NULL), 0);
        assert_int_equal(kv.n, 0);

        /* a bad word anywhere: error, nothing appended */
        assert_int_equal(slurm_parse_node_config("CPUs=2 oops RealMemory=1", &kv, &err), -EINVAL);
        assert_string_equal(err.buf, "slurmd -C output: bad word \"oops\"");
        assert_int_equal(slurm_parse_node_config("CPUs=2\n=3\n", &kv, NULL), -EINVAL);
        assert_int_equal(kv.n, 0);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}
static void rm_rf(const char *dir) {
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void touch(const char *dir, const char *name) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
}

static void test_detect_gpus(void **state) {
        char dir[] = "/tmp/test-slurm-dev.XXXXXX";
        _cleanup_free_ char *sub = NULL, *missing = NULL;
        assert_non_null(mkdtemp(dir));

        assert_int_equal(slurm_detect_gpus(dir, false, NULL), 0);
        touch(dir, "nvidia0");
        touch(dir, "nvidia1");
        touch(dir, "nvidia12");
        touch(dir, "nvidiactl");
        touch(dir, "nvidia-uvm");
        touch(dir, "nvidia-uvm-tools");
        touch(dir, "nvidia0x");
        touch(dir, "nvidia");
        touch(dir, "null");
        sub = xasprintf("%s/nvidia7", dir); /* a directory is not a device */
        assert_int_equal(mkdir(sub, 0755), 0);
        assert_int_equal(slurm_detect_gpus(dir, false, NULL), 3);
        {
                /* the files themselves, by number (nvidia12 after nvidia1) */
                _cleanup_strv_ struct strv files = STRV_INIT;
                _cleanup_free_ char *want = xasprintf("%s/nvidia0 %s/nvidia1 %s/nvidia12", dir, dir, dir);
                assert_int_equal(slurm_detect_gpu_files(dir, &files, NULL), 3);
                _cleanup_free_ char *got = strv_join(&files, " ");
                assert_string_equal(got, want);
        }

        missing = xasprintf("%s/nope", dir);
        assert_int_equal(slurm_detect_gpus(missing, false, NULL), 0);
        rm_rf(dir);
}

static void write_script(const char *path, const char *body) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(body, f);
        fclose(f);
        assert_int_equal(chmod(path, 0755), 0);
}

static void test_detect_hardware_fake_slurmd(void **state) {
        char dir[] = "/tmp/test-slurm-hw.XXXXXX";
        _cleanup_free_ char *ok = NULL, *bad = NULL, *dev = NULL, *body = NULL, *missing = NULL;
        _cleanup_strv_ struct strv kv = STRV_INIT;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_non_null(mkdtemp(dir));

        ok = xasprintf("%s/slurmd-ok", dir);
        body = xasprintf("#!/bin/sh\n[ \"$1\" = -C ] || exit 3\nprintf '%s'\n", slurmd_c);
        write_script(ok, body);
        bad = xasprintf("%s/slurmd-bad", dir);
        write_script(bad, "#!/bin/sh\necho 'slurmd: fatal: no hardware' >&2\nexit 1\n");
        dev = xasprintf("%s/dev", dir);
        assert_int_equal(mkdir(dev, 0755), 0);

        assert_int_equal(slurm_detect_hardware_at(ok, dev, false, &kv, &err), 6);
        assert_int_equal(kv.n, 6);
        assert_false(strv_contains(&kv, "Gres=gpu:0"));

        touch(dev, "nvidia0");
        touch(dev, "nvidia1");
        strv_clear(&kv);
        assert_int_equal(slurm_detect_hardware_at(ok, dev, false, &kv, &err), 7);
        assert_string_equal(kv.v[0], "CPUs=2");
        assert_string_equal(kv.v[6], "Gres=gpu:2");

        strv_clear(&kv);
        assert_int_equal(slurm_detect_hardware_at(bad, dev, false, &kv, &err), -EIO);
        assert_string_equal(err.buf, "slurmd -C: exit status 1: slurmd: fatal: no hardware");
        assert_int_equal(kv.n, 0);

        missing = xasprintf("%s/no-such-slurmd", dir);
        assert_int_equal(slurm_detect_hardware_at(missing, dev, false, &kv, NULL), -ENOENT);
        rm_rf(dir);
}

static void test_poll_schedule(void **state) {
        int d = SLURM_POLL_FIRST_MS;
        int64_t t0 = slurm_now_ms();
        /* a passed deadline: no sleep, false */
        assert_false(slurm_poll_sleep(&d, t0 - 1));
        assert_int_equal(d, SLURM_POLL_FIRST_MS);
        /* sleeps at most until the deadline, then grows by 3/2 up to the ceiling */
        assert_true(slurm_poll_sleep(&d, slurm_now_ms() + 20));
        assert_true(slurm_now_ms() - t0 < SLURM_POLL_FIRST_MS);
        assert_int_equal(d, 150);
        for (int i = 0; i < 10; i++)
                d = d * 3 / 2 > SLURM_POLL_MAX_MS ? SLURM_POLL_MAX_MS : d * 3 / 2;
        assert_int_equal(d, SLURM_POLL_MAX_MS);
}

static void test_client_config(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        char conf[] = "/tmp/test-slurm-conf.XXXXXX";
        int fd;

        /* SLURM_CONF wins and must be readable; no libslurm call (it would exit the process) */
        setenv("SLURM_CONF", "/nonexistent/h6/slurm.conf", 1);
        assert_null(slurm_config_path());
        assert_int_equal(slurm_client_init(&err), -ENOENT);
        assert_string_equal(err.buf, "slurm configuration \"/nonexistent/h6/slurm.conf\": not readable");

        /* every RPC wrapper refuses the same way before touching libslurm */
        strbuf_reset(&err);
        struct slurm_node n;
        assert_int_equal(slurm_node_get("x", &n, &err), -ENOENT);
        struct slurm_job_list jl;
        assert_int_equal(slurm_jobs_on_node("x", &jl, NULL), -ENOENT);
        assert_int_equal(slurm_ctl_reconfigure(NULL), -ENOENT);
        assert_int_equal(slurm_node_drain("x", "r", NULL), -ENOENT);
        assert_int_equal(slurm_node_drain("x", "", NULL), -EINVAL); /* checked before anything */

        fd = mkstemp(conf);
        assert_true(fd >= 0);
        close(fd);
        setenv("SLURM_CONF", conf, 1);
        assert_string_equal(slurm_config_path(), conf);
        _cleanup_free_ char *same = slurm_config_resolve(), *want = realpath(conf, NULL);
        assert_non_null(want);
        assert_string_equal(same, want);

        /* a symlinked directory, as slurmd's /run/slurm/conf: the real file, which a new link
         * does not take away */
        _cleanup_free_ char *link = xasprintf("%s.link", conf);
        assert_int_equal(symlink("/tmp", link), 0);
        _cleanup_free_ char *in_link = xasprintf("%s/%s", link, conf + strlen("/tmp/"));
        setenv("SLURM_CONF", in_link, 1);
        _cleanup_free_ char *real = slurm_config_resolve();
        assert_string_equal(real, want);
        /* a link to nowhere is no configuration, at once (SLURM_CONF set: nothing waited for) */
        unlink(link);
        assert_int_equal(symlink("/nonexistent/h6", link), 0);
        assert_null(slurm_config_resolve());
        unlink(link);
        unlink(conf);
        unsetenv("SLURM_CONF");
}

static void test_trigger_args(void **state) {
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        assert_string_equal(slurm_node_event_name(SLURM_NODE_EVENT_DOWN), "down");
        assert_string_equal(slurm_node_event_name(SLURM_NODE_EVENT_DRAINED), "drained");
        assert_null(slurm_node_event_name(SLURM_NODE_EVENT_DOWN | SLURM_NODE_EVENT_UP));
        assert_null(slurm_node_event_name(0));
        /* argument errors come before any libslurm call */
        assert_int_equal(slurm_trigger_set_node("n1", 0, "/bin/true", false, &err), -EINVAL);
        assert_string_equal(err.buf, "trigger: unknown node event 0x0");
        strbuf_reset(&err);
        assert_int_equal(slurm_trigger_set_node("n1", SLURM_NODE_EVENT_DOWN, "true", false, &err), -EINVAL);
        assert_string_equal(err.buf, "trigger: program \"true\" is not an absolute path");
        assert_int_equal(slurm_trigger_set_node(NULL, SLURM_NODE_EVENT_UP, NULL, true, NULL), -EINVAL);
}

/* Our public names must not exist in libslurm: a static definition would silently interpose
 * on libslurm's own (it exports ~1200 slurm_* symbols, e.g. slurm_error). */
static void test_no_symbol_clash(void **state) {
        static const char *const names[] = {
                "slurm_client_init",
                "slurm_code_to_errno",
                "slurm_config_path",
                "slurm_config_resolve",
                "slurm_controllers_done",
                "slurm_ctl_ping",
                "slurm_ctl_reconfigure",
                "slurm_destroy_report_done",
                "slurm_detect_gpus",
                "slurm_detect_hardware",
                "slurm_detect_hardware_at",
                "slurm_drain_name",
                "slurm_fail",
                "slurm_job_list_done",
                "slurm_job_state_name",
                "slurm_job_state_on_node",
                "slurm_jobs_destroy_on_node",
                "slurm_jobs_on_node",
                "slurm_jobs_wait_none",
                "slurm_list_has",
                "slurm_node_delete",
                "slurm_node_done",
                "slurm_node_down",
                "slurm_node_drain",
                "slurm_node_get",
                "slurm_node_get_state",
                "slurm_node_idle",
                "slurm_node_list",
                "slurm_node_list_done",
                "slurm_node_restore",
                "slurm_node_resume",
                "slurm_node_undrain",
                "slurm_node_update",
                "slurm_node_wait_registered",
                "slurm_node_wait_registered_unknown",
                "slurm_now_ms",
                "slurm_parse_node_config",
                "slurm_poll_sleep",
                "slurm_rc_code",
                "slurm_state_base_name",
                "slurm_state_busy",
                "slurm_state_down",
                "slurm_state_drain",
                "slurm_state_format",
                "slurm_state_parse",
                "slurm_state_registered",
                "slurm_node_event_name",
                "slurm_trigger_clear",
                "slurm_trigger_list",
                "slurm_trigger_list_done",
                "slurm_trigger_set_node",
        };
        void *h = dlopen("libslurm.so.38", RTLD_LAZY | RTLD_LOCAL);
        if (!h)
                skip();
        assert_non_null(dlsym(h, "slurm_load_node")); /* the check itself works */
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (dlsym(h, names[i]))
                        fail_msg("libslurm exports %s too", names[i]);
        dlclose(h);
}

/* Which partition keys go to a running slurmctld (slurm_partition_update) and which need the
 * file: the encoder is pure, so every key and a few values of each kind are checked here. */
static void test_partition_keys_live(void **state) {
        const char *live[][2] = {
                { "MaxTime", "1-00:00:00" },
                { "MaxTime", "UNLIMITED" },
                { "DefaultTime", "30" },
                { "MaxNodes", "4" },
                { "MaxNodes", "INFINITE" },
                { "MinNodes", "1" },
                { "MaxCPUsPerNode", "8" },
                { "GraceTime", "60" },
                { "OverTimeLimit", "UNLIMITED" },
                { "PriorityTier", "10" },
                { "PriorityJobFactor", "2" },
                { "DefMemPerCPU", "1024" },
                { "MaxMemPerNode", "UNLIMITED" },
                { "State", "INACTIVE" },
                { "State", "drain" },
                { "OverSubscribe", "FORCE:2" },
                { "OverSubscribe", "EXCLUSIVE" },
                { "OverSubscribe", "YES" },
                { "PreemptMode", "REQUEUE" },
                { "Default", "YES" },
                { "Hidden", "NO" },
                { "LLN", "YES" },
                { "ExclusiveUser", "YES" },
                { "RootOnly", "NO" },
                { "ReqResv", "YES" },
                { "DisableRootJobs", "YES" },
                { "AllowGroups", "hpc,admin" },
                { "AllowAccounts", "ALL" },
                { "DenyQos", "low" },
                { "QOS", "normal" },
                { "Alternate", "big" },
                { "AllocNodes", "ALL" },
                { "TRESBillingWeights", "CPU=1.0,Mem=0.25G" },
        };
        const char *file_only[][2] = {
                { "SelectTypeParameters", "CR_Core" },
                { "ResumeTimeout", "60" },
                { "SuspendTime", "30" },
                { "SuspendTimeout", "30" },
                { "CpuBind", "cores" },
                { "Nodes", "cpu" },
                /* values this encoder does not read: the file takes them (after Slurm's checks) */
                { "MaxTime", "forever" },
                { "MaxNodes", "-1" },
                { "PriorityTier", "99999999" },
                { "State", "ASLEEP" },
                { "OverSubscribe", "SOMETIMES" },
                { "Default", "MAYBE" },
                { "DefMemPerCPU", "1G" },
                { "PreemptMode", "NEVER" },
        };
        for (size_t i = 0; i < ELEMENTSOF(live); i++)
                if (!slurm_partition_key_live(live[i][0], live[i][1]))
                        fail_msg("%s=%s should be live", live[i][0], live[i][1]);
        for (size_t i = 0; i < ELEMENTSOF(file_only); i++)
                if (slurm_partition_key_live(file_only[i][0], file_only[i][1]))
                        fail_msg("%s=%s should not be live", file_only[i][0], file_only[i][1]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_state_format),
                cmocka_unit_test(test_state_with_cpus),
                cmocka_unit_test(test_state_parse),
                cmocka_unit_test(test_state_roundtrip),
                cmocka_unit_test(test_drain_and_predicates),
                cmocka_unit_test(test_job_states),
                cmocka_unit_test(test_errno_map),
                cmocka_unit_test(test_fail_message),
                cmocka_unit_test(test_list_has),
                cmocka_unit_test(test_parse_node_config),
                cmocka_unit_test(test_detect_gpus),
                cmocka_unit_test(test_detect_hardware_fake_slurmd),
                cmocka_unit_test(test_poll_schedule),
                cmocka_unit_test(test_client_config),
                cmocka_unit_test(test_trigger_args),
                cmocka_unit_test(test_no_symbol_clash),
                cmocka_unit_test(test_partition_keys_live),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
