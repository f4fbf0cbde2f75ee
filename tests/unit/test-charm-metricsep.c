/* SPDX-License-Identifier: Apache-2.0 */
/* charm/slurmctld/metricsep.h (the option, the prometheus_scrape relation's values, the alert
 * rules) and metricsd.h (the exporter's HTTP server, on loopback with a collection of the test's
 * own: paths, methods, the cache, a collection that hangs). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/macro.h"
#include "charm/slurmctld/metricsd.h"
#include "charm/slurmctld/metricsep.h"
#include "util/alloc.h"
#include "util/fileio.h"
#include "proc/proc.h"
#include "util/strv.h"

static void test_port_check(void **state) {
        _cleanup_strbuf_ struct strbuf e = STRBUF_INIT;
        assert_int_equal(metricsep_port_check(0, &e), 0);
        assert_int_equal(metricsep_port_check(9092, &e), 0);
        assert_int_equal(metricsep_port_check(1024, &e), 0);
        assert_int_equal(metricsep_port_check(65535, &e), 0);
        static const int64_t bad[] = { -1, 1, 80, 1023, 65536, 6817, 6818, 6819, 6820, 1LL << 40 };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&e);
                assert_int_equal(metricsep_port_check(bad[i], &e), -EINVAL);
                assert_true(e.len > 0);
        }
        strbuf_reset(&e);
        metricsep_port_check(6817, &e);
        assert_non_null(strstr(e.buf, "slurmctld"));
}

static void test_port_file(void **state) {
        char dir[] = "/tmp/metricsep-XXXXXX";
        assert_non_null(mkdtemp(dir));
        _cleanup_free_ char *f = xasprintf("%s/port", dir);
        unsigned p = 1;
        assert_int_equal(metricsep_port_read(f, &p), 0); /* none: off */
        assert_int_equal(p, 0);
        assert_int_equal(write_file_atomic(f, "9100\n", 5, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(metricsep_port_read(f, &p), 0);
        assert_int_equal(p, 9100);
        assert_int_equal(write_file_atomic(f, "x\n", 2, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(metricsep_port_read(f, &p), -EINVAL);
        unlink(f);
        rmdir(dir);
}

static const struct juju_env env = {
        .unit = "slurmctld/1",
        .app = "slurmctld",
        .model_name = "hpc",
        .model_uuid = "11111111-2222-4333-8444-555555555555",
};

static void test_relation_values(void **state) {
        _cleanup_strbuf_ struct strbuf jobs = STRBUF_INIT, meta = STRBUF_INIT;
        metricsep_scrape_jobs(9092, &jobs);
        cJSON *j = cJSON_Parse(jobs.buf);
        assert_non_null(j);
        assert_int_equal(cJSON_GetArraySize(j), 1);
        cJSON *job = cJSON_GetArrayItem(j, 0);
        assert_string_equal(cJSON_GetObjectItem(job, "metrics_path")->valuestring, "/metrics");
        cJSON *t = cJSON_GetArrayItem(
                cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(job, "static_configs"), 0), "targets"), 0);
        assert_string_equal(t->valuestring, "*:9092");
        cJSON_Delete(j);
        strbuf_reset(&jobs);
        metricsep_scrape_jobs(0, &jobs);
        assert_string_equal(jobs.buf, "[]");

        metricsep_scrape_metadata(&env, "slurmctld", &meta);
        j = cJSON_Parse(meta.buf);
        assert_non_null(j);
        assert_string_equal(cJSON_GetObjectItem(j, "model")->valuestring, "hpc");
        assert_string_equal(cJSON_GetObjectItem(j, "model_uuid")->valuestring, env.model_uuid);
        assert_string_equal(cJSON_GetObjectItem(j, "application")->valuestring, "slurmctld");
        assert_string_equal(cJSON_GetObjectItem(j, "unit")->valuestring, "slurmctld/1");
        assert_string_equal(cJSON_GetObjectItem(j, "charm_name")->valuestring, "slurmctld");
        cJSON_Delete(j);
}

static void test_alert_rules(void **state) {
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;
        const char *in = "{\"groups\": [{\"name\": \"slurm nodes\", \"rules\": ["
                         "{\"alert\": \"A\", \"expr\": \"max(up{%%juju_topology%%}) == 0\", \"labels\": {\"severity\": \"x\"}},"
                         "{\"alert\": \"B\", \"expr\": \"up{%%juju_topology%%,job=\\\"j\\\"} < 1\","
                         " \"labels\": {\"juju_charm\": \"mine\"}},"
                         "{\"record\": \"r:x\", \"expr\": \"sum(up)\"}]},"
                         "{\"name\": \"g_rules\", \"rules\": []}]}";
        assert_int_equal(metricsep_alert_rules(in, &env, "slurmctld", &out, &e), 0);
        cJSON *j = cJSON_Parse(out.buf);
        assert_non_null(j);
        cJSON *g0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "groups"), 0);
        assert_string_equal(cJSON_GetObjectItem(g0, "name")->valuestring, "hpc_11111111_slurmctld_slurm_nodes_rules");
        cJSON *g1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "groups"), 1);
        assert_string_equal(cJSON_GetObjectItem(g1, "name")->valuestring, "hpc_11111111_slurmctld_g_rules");
        cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(g0, "rules"), 0);
        assert_string_equal(cJSON_GetObjectItem(r0, "expr")->valuestring, "max(up{}) == 0");
        cJSON *l0 = cJSON_GetObjectItem(r0, "labels");
        assert_string_equal(cJSON_GetObjectItem(l0, "severity")->valuestring, "x");
        assert_string_equal(cJSON_GetObjectItem(l0, "juju_model")->valuestring, "hpc");
        assert_string_equal(cJSON_GetObjectItem(l0, "juju_model_uuid")->valuestring, env.model_uuid);
        assert_string_equal(cJSON_GetObjectItem(l0, "juju_application")->valuestring, "slurmctld");
        assert_string_equal(cJSON_GetObjectItem(l0, "juju_charm")->valuestring, "slurmctld");
        cJSON *r1 = cJSON_GetArrayItem(cJSON_GetObjectItem(g0, "rules"), 1);
        assert_string_equal(cJSON_GetObjectItem(r1, "expr")->valuestring, "up{job=\"j\"} < 1");
        /* a label the rule sets itself stays */
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r1, "labels"), "juju_charm")->valuestring, "mine");
        cJSON_Delete(j);

        static const char *const bad[] = {
                "", "[]", "{\"groups\": {}}", "{\"groups\": [{\"rules\": []}]}",
                "{\"groups\": [{\"name\": \"g\", \"rules\": [{\"alert\": \"A\"}]}]}",
                "{\"groups\": [{\"name\": \"g\", \"rules\": [{\"expr\": \"up\"}]}]}",
                "{\"groups\": [{\"name\": \"g\", \"rules\": [{\"alert\": \"A\", \"expr\": \"up\", \"labels\": 3}]}]}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strbuf_reset(&out);
                strbuf_reset(&e);
                assert_int_equal(metricsep_alert_rules(bad[i], &env, "slurmctld", &out, &e), -EINVAL);
                assert_int_equal(out.len, 0);
                assert_true(e.len > 0);
        }
}

/* the charm's own rules file renders (the template the relation carries) */
static void test_charm_rules(void **state) {
        const char *src = getenv("TOP_SRCDIR");
        if (!src)
                skip();
        _cleanup_free_ char *f = xasprintf("%s/templates/slurm-alert-rules.json", src), *text = NULL;
        assert_int_equal(read_full_file(f, &text, NULL), 0);
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;
        assert_int_equal(metricsep_alert_rules(text, &env, "slurmctld", &out, &e), 0);
        assert_null(strstr(out.buf, "%%juju_topology%%"));
        assert_non_null(strstr(out.buf, "SlurmNoControllerAnswering"));
        assert_non_null(strstr(out.buf, "SlurmNodeNotUp"));

        /* Prometheus' own judge: promtool checks the rendered rules and runs
         * tests/data/metrics/alert-rules.test.yml against them (./dev installs prometheus) */
        const char *data = getenv("TEST_DATA");
        assert_non_null(data);
        char dir[] = "/tmp/metricsep-rules-XXXXXX";
        assert_non_null(mkdtemp(dir));
        static const struct juju_env hpc = { .unit = "slurmctld/0", .app = "slurmctld", .model_name = "hpc",
                .model_uuid = "u" };
        strbuf_reset(&out);
        assert_int_equal(metricsep_alert_rules(text, &hpc, "slurmctld", &out, &e), 0);
        _cleanup_free_ char *rules = xasprintf("%s/rules.json", dir), *tests = xasprintf("%s/test.yml", dir),
                            *src_tests = xasprintf("%s/metrics/alert-rules.test.yml", data), *t = NULL;
        assert_int_equal(write_file_atomic(rules, out.buf, out.len, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(read_full_file(src_tests, &t, NULL), 0);
        assert_int_equal(write_file_atomic(tests, t, strlen(t), 0644, (uid_t) -1, (gid_t) -1), 0);
        static const char *const verbs[] = { "check", "test" };
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                _cleanup_proc_ struct proc p = PROC_INIT;
                strv_pushl(&p.argv, "promtool", verbs[i], "rules", i == 0 ? rules : tests, NULL);
                p.timeout_ms = 60000;
                p.capture_out = p.capture_err = true;
                int r = proc_run(&p);
                if (r != 0)
                        print_error("promtool %s rules: %d\n%s\n%s\n", verbs[i], r, p.out.buf, p.err.buf);
                assert_int_equal(r, 0);
        }
        unlink(rules);
        unlink(tests);
        rmdir(dir);
}

/* --- the HTTP server -------------------------------------------------------------------- */

static int *collections; /* shared with the forked collections (mmap) */

static int collect_fake(void *userdata, const char *pings_only, struct strbuf *out) {
        __atomic_add_fetch(collections, 1, __ATOMIC_SEQ_CST);
        if (pings_only)
                strbuf_addf(out, "slurm_scrape_error{what=\"nodes\"} 1\n# %s\n", pings_only);
        else
                strbuf_addstr(out, "# HELP slurm_nodes n\n# TYPE slurm_nodes gauge\nslurm_nodes 3\n");
        return 0;
}

/* the tables never come; the pings alone do */
static int collect_tables_hang(void *userdata, const char *pings_only, struct strbuf *out) {
        if (pings_only)
                return collect_fake(userdata, pings_only, out);
        for (;;)
                pause();
}

static _noreturn_ int collect_hangs(void *userdata, const char *pings_only, struct strbuf *out) {
        for (;;)
                pause();
}

/* a slow collection: slow_ms */
static unsigned slow_ms = 400;
static int collect_slow(void *userdata, const char *pings_only, struct strbuf *out) {
        usleep(slow_ms * 1000);
        return collect_fake(userdata, pings_only, out);
}

struct server_run {
        struct metricsd_opts o;
        volatile sig_atomic_t stop;
        int r;
        pthread_t th;
};

static void *serve_thread(void *arg) {
        struct server_run *s = arg;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        s->r = metricsd_serve(&s->o, &s->stop, &err);
        return NULL;
}

/* One request on loopback: the status code, the body in body (may be NULL). */
static int request(unsigned port, const char *req, struct strbuf *body) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        for (int i = 0; i < 50 && connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0; i++) {
                close(fd);
                usleep(100 * 1000);
                fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        }
        assert_int_equal(write(fd, req, strlen(req)), (ssize_t) strlen(req));
        struct strbuf all = STRBUF_INIT;
        char buf[4096];
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                strbuf_add(&all, buf, (size_t) n);
        close(fd);
        int code = 0;
        if (all.len > 12)
                code = atoi(all.buf + 9);
        const char *b = strstr(all.buf ? all.buf : "", "\r\n\r\n");
        if (body) {
                strbuf_reset(body);
                if (b)
                        strbuf_addstr(body, b + 4);
        }
        strbuf_release(&all);
        return code;
}

static unsigned free_port(void) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET };
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        socklen_t l = sizeof(a);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &l), 0);
        close(fd);
        return ntohs(a.sin_port);
}

#define GET(path) "GET " path " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

static void test_server(void **state) {
        collections = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        assert_true(collections != MAP_FAILED);
        struct server_run s = { .o = { .port = free_port(), .cache_ms = 60000, .collect = collect_fake } };
        assert_int_equal(pthread_create(&s.th, NULL, serve_thread, &s), 0);
        _cleanup_strbuf_ struct strbuf body = STRBUF_INIT;
        assert_int_equal(request(s.o.port, GET("/metrics"), &body), 200);
        assert_non_null(strstr(body.buf, "slurm_nodes 3"));
        /* the cache: a second scrape within the period costs no collection */
        assert_int_equal(request(s.o.port, GET("/metrics"), &body), 200);
        assert_int_equal(*collections, 1);
        assert_int_equal(request(s.o.port, GET("/"), &body), 200);
        assert_int_equal(request(s.o.port, GET("/etc/passwd"), &body), 404);
        assert_int_equal(request(s.o.port, GET("/metrics/../x"), &body), 404);
        assert_int_equal(request(s.o.port,
                                 "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc",
                                 &body),
                405);
        assert_int_equal(request(s.o.port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", NULL),
                200);
        /* not HTTP: refused or closed, and the server goes on */
        int g = request(s.o.port, "garbage\r\n\r\n", NULL);
        assert_true(g == 400 || g == 0);
        assert_int_equal(request(s.o.port, GET("/metrics"), NULL), 200);
        s.stop = 1;
        pthread_join(s.th, NULL);
        assert_int_equal(s.r, 0);

        /* no cache: each scrape collects; a collection that hangs is cut and answered 503 */
        *collections = 0;
        struct server_run h = { .o = { .port = free_port(), .cache_ms = -1, .collect = collect_fake } };
        assert_int_equal(pthread_create(&h.th, NULL, serve_thread, &h), 0);
        assert_int_equal(request(h.o.port, GET("/metrics"), NULL), 200);
        assert_int_equal(request(h.o.port, GET("/metrics"), NULL), 200);
        assert_int_equal(*collections, 2);
        /* the tables hang: cut, and the answer is the pings alone with every part failed */
        h.o.collect = collect_tables_hang;
        h.o.scrape_ms = 300;
        h.o.pings_ms = 300;
        assert_int_equal(request(h.o.port, GET("/metrics"), &body), 200);
        assert_non_null(strstr(body.buf, "slurm_scrape_error{what=\"nodes\"} 1"));
        assert_non_null(strstr(body.buf, "more than 300 ms"));
        assert_null(strstr(body.buf, "slurm_nodes 3"));
        /* the pings hang too: 503 with both reasons */
        h.o.collect = collect_hangs;
        assert_int_equal(request(h.o.port, GET("/metrics"), &body), 503);
        assert_non_null(strstr(body.buf, "more than 300 ms"));
        assert_non_null(strstr(body.buf, "pings alone too"));
        /* the port is taken: a second server says so */
        struct server_run t = { .o = { .port = h.o.port, .collect = collect_fake } };
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        t.stop = 1;
        assert_int_equal(metricsd_serve(&t.o, &t.stop, &err), -EADDRINUSE);
        h.stop = 1;
        pthread_join(h.th, NULL);
        munmap(collections, sizeof(int));
}

/* the controller in charge the fake collection says: 0 none, else "ctl-N" */
static int *in_charge;
static int collect_charge(void *userdata, const char *pings_only, struct strbuf *out) {
        for (int i = 0; i < 3; i++)
                strbuf_addf(out, "slurm_controller_in_charge{host=\"ctl-%d\"} %d\n", i, *in_charge == i);
        return 0;
}

static double failovers(unsigned port) {
        _cleanup_strbuf_ struct strbuf body = STRBUF_INIT;
        assert_int_equal(request(port, GET("/metrics"), &body), 200);
        const char *l = strstr(body.buf, "\nslurm_controller_failovers_total ");
        assert_non_null(l);
        return atof(l + strlen("\nslurm_controller_failovers_total "));
}

/* A change of the controller in charge between collections is counted; none in charge (all
 * down) is no change; coming back to the same one is none. */
static void test_server_failovers(void **state) {
        in_charge = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        assert_true(in_charge != MAP_FAILED);
        struct server_run s = { .o = { .port = free_port(), .cache_ms = -1, .collect = collect_charge } };
        assert_int_equal(pthread_create(&s.th, NULL, serve_thread, &s), 0);
        static const struct {
                int in_charge;
                double want;
        } steps[] = { { 1, 0 }, { 1, 0 }, { 2, 1 }, { -1, 1 }, { 2, 1 }, { 1, 2 }, { -1, 2 }, { 2, 3 } };
        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                *in_charge = steps[i].in_charge;
                assert_true(failovers(s.o.port) == steps[i].want);
        }
        s.stop = 1;
        pthread_join(s.th, NULL);
        munmap(in_charge, sizeof(int));
}

/* Other services' figures: only root's regular *.prom files, not writable by others, whole
 * lines, within the size cap, in name order; the server appends them to its answers */
static void test_fragments(void **state) {
        char dir[] = "/tmp/metricsep-frag-XXXXXX";
        assert_non_null(mkdtemp(dir));
        static const struct {
                const char *name, *text;
                mode_t mode;
        } files[] = {
                { "b.prom", "b 2\n", 0644 },
                { "a.prom", "a 1\n", 0600 },
                { "w.prom", "w 1\n", 0666 },  /* others may write it */
                { "g.prom", "g 1\n", 0664 },  /* its group may write it */
                { "c.txt", "c 1\n", 0644 },   /* not .prom */
                { "d.prom", "d 1", 0644 },     /* a cut line */
                { ".h.prom", "h 1\n", 0644 }, /* hidden: a write under way */
                { "e.prom", "", 0644 },        /* empty */
        };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *f = xasprintf("%s/%s", dir, files[i].name);
                assert_int_equal(write_file_atomic(f, files[i].text, strlen(files[i].text), files[i].mode,
                                         (uid_t) -1, (gid_t) -1),
                        0);
        }
        _cleanup_free_ char *big = xasprintf("%s/big.prom", dir), *link = xasprintf("%s/l.prom", dir),
                            *a = xasprintf("%s/a.prom", dir), *notmine = xasprintf("%s/n.prom", dir);
        _cleanup_strbuf_ struct strbuf b = STRBUF_INIT;
        while (b.len <= METRICSD_FRAGMENT_MAX)
                strbuf_addstr(&b, "x 1\n");
        assert_int_equal(write_file_atomic(big, b.buf, b.len, 0644, (uid_t) -1, (gid_t) -1), 0);
        assert_int_equal(symlink(a, link), 0);
        assert_int_equal(write_file_atomic(notmine, "n 1\n", 4, 0644, 65534, 65534), 0);
        _cleanup_strbuf_ struct strbuf out = STRBUF_INIT;
        bool root = geteuid() == 0;
        assert_int_equal(metricsd_fragments(dir, &out), root ? 2 : 0);
        if (root)
                assert_string_equal(out.buf, "a 1\nb 2\n");
        strbuf_reset(&out);
        assert_int_equal(metricsd_fragments("/nonexistent-metrics-dir", &out), 0);
        assert_int_equal(out.len, 0);

        /* the server: appended after the collection */
        if (root) {
                collections = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
                struct server_run s = { .o = { .port = free_port(), .cache_ms = -1, .collect = collect_fake,
                                                .fragment_dir = dir } };
                assert_int_equal(pthread_create(&s.th, NULL, serve_thread, &s), 0);
                _cleanup_strbuf_ struct strbuf body = STRBUF_INIT;
                assert_int_equal(request(s.o.port, GET("/metrics"), &body), 200);
                const char *n = strstr(body.buf, "slurm_nodes 3\n");
                assert_non_null(n);
                assert_non_null(strstr(n, "\na 1\nb 2\n"));
                s.stop = 1;
                pthread_join(s.th, NULL);
                munmap(collections, sizeof(int));
        }
        _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

/* A client holding its slots with a request never finished (slowloris) takes its own address's
 * share only: another address is answered meanwhile (127.0.0.2 is loopback too) */
static void test_server_slow_clients(void **state) {
        collections = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        struct server_run s = { .o = { .port = free_port(), .collect = collect_fake } };
        assert_int_equal(pthread_create(&s.th, NULL, serve_thread, &s), 0);
        assert_int_equal(request(s.o.port, GET("/"), NULL), 200);
        int slow[METRICSD_CONN_PER_IP + 2];
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) s.o.port) };
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        for (size_t i = 0; i < ELEMENTSOF(slow); i++) {
                slow[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                assert_int_equal(connect(slow[i], (struct sockaddr *) &a, sizeof(a)), 0);
                (void) !write(slow[i], "GET /metrics HTTP/1.1\r\n", 23);
        }
        /* from 127.0.0.2 */
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in src = { .sin_family = AF_INET };
        src.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
        assert_int_equal(bind(fd, (struct sockaddr *) &src, sizeof(src)), 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        const char *req = GET("/metrics");
        assert_int_equal(write(fd, req, strlen(req)), (ssize_t) strlen(req));
        char buf[64] = "";
        assert_true(read(fd, buf, sizeof(buf) - 1) > 12);
        assert_int_equal(strncmp(buf, "HTTP/1.1 200", 12), 0);
        close(fd);
        for (size_t i = 0; i < ELEMENTSOF(slow); i++)
                close(slow[i]);
        s.stop = 1;
        pthread_join(s.th, NULL);
        munmap(collections, sizeof(int));
}

/* The sentinel's word on who is in charge: fresh, one line, root's and not writable by others */
static void test_in_charge_read(void **state) {
        char dir[] = "/tmp/metricsep-charge-XXXXXX";
        assert_non_null(mkdtemp(dir));
        _cleanup_free_ char *f = xasprintf("%s/in-charge", dir);
        char *host = NULL;
        assert_int_equal(metricsd_in_charge_read(f, time(NULL), &host), -ENOENT);
        assert_int_equal(write_file_atomic(f, "ctl-1\n", 6, 0644, (uid_t) -1, (gid_t) -1), 0);
        if (geteuid() == 0) {
                assert_int_equal(metricsd_in_charge_read(f, time(NULL), &host), 0);
                assert_string_equal(host, "ctl-1");
                free(host);
                /* old: no sentinel looks now */
                assert_int_equal(metricsd_in_charge_read(f, time(NULL) + METRICSD_IN_CHARGE_FRESH_S + 2, &host), -ESTALE);
                assert_null(host);
                assert_int_equal(write_file_atomic(f, "\n", 1, 0644, (uid_t) -1, (gid_t) -1), 0);
                assert_int_equal(metricsd_in_charge_read(f, time(NULL), &host), 0);
                assert_string_equal(host, ""); /* none known */
                free(host);
                static const char *const bad[] = { "a\nb\n", "ctl-1", "" };
                for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                        assert_int_equal(write_file_atomic(f, bad[i], strlen(bad[i]), 0644, (uid_t) -1, (gid_t) -1), 0);
                        assert_int_equal(metricsd_in_charge_read(f, time(NULL), &host), -EINVAL);
                }
                assert_int_equal(write_file_atomic(f, "ctl-1\n", 6, 0666, (uid_t) -1, (gid_t) -1), 0);
                assert_int_equal(metricsd_in_charge_read(f, time(NULL), &host), -EINVAL);
                assert_int_equal(write_file_atomic(f, "ctl-1\n", 6, 0644, 65534, 65534), 0);
                assert_int_equal(metricsd_in_charge_read(f, time(NULL), &host), -EINVAL);
        }
        _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

struct parallel {
        unsigned port;
        int code;
        pthread_t th;
};

static void *parallel_get(void *arg) {
        struct parallel *p = arg;
        __atomic_store_n(&p->code, request(p->port, GET("/metrics"), NULL), __ATOMIC_SEQ_CST);
        return NULL;
}

/* Requests that come while a collection runs wait for it and share its answer: one collection
 * for all, each answered (no cache, so only the sharing can explain one collection). */
static void test_server_shared_collection(void **state) {
        collections = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        assert_true(collections != MAP_FAILED);
        struct server_run s = { .o = { .port = free_port(), .cache_ms = -1, .collect = collect_slow } };
        assert_int_equal(pthread_create(&s.th, NULL, serve_thread, &s), 0);
        assert_int_equal(request(s.o.port, GET("/"), NULL), 200); /* listening */
        struct parallel p[6];
        for (size_t i = 0; i < ELEMENTSOF(p); i++) {
                p[i] = (struct parallel){ .port = s.o.port };
                assert_int_equal(pthread_create(&p[i].th, NULL, parallel_get, &p[i]), 0);
                if (i == 0)
                        usleep(100 * 1000); /* the first one's collection under way */
        }
        for (size_t i = 0; i < ELEMENTSOF(p); i++) {
                pthread_join(p[i].th, NULL);
                assert_int_equal(p[i].code, 200);
        }
        /* the first collection, and at most one more for those that came after it ended */
        assert_in_range(*collections, 1, 2);
        /* a path that needs no collection is answered while one runs (a 3 s one: "/" answered
         * before it ends) */
        slow_ms = 3000;
        struct parallel slow = { .port = s.o.port };
        assert_int_equal(pthread_create(&slow.th, NULL, parallel_get, &slow), 0);
        usleep(200 * 1000);
        assert_int_equal(request(s.o.port, GET("/"), NULL), 200);
        assert_int_equal(__atomic_load_n(&slow.code, __ATOMIC_SEQ_CST), 0);
        pthread_join(slow.th, NULL);
        assert_int_equal(slow.code, 200);
        s.stop = 1;
        pthread_join(s.th, NULL);
        munmap(collections, sizeof(int));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_port_check),
                cmocka_unit_test(test_port_file),
                cmocka_unit_test(test_relation_values),
                cmocka_unit_test(test_alert_rules),
                cmocka_unit_test(test_charm_rules),
                cmocka_unit_test(test_server),
                cmocka_unit_test(test_server_shared_collection),
                cmocka_unit_test(test_server_failovers),
                cmocka_unit_test(test_fragments),
                cmocka_unit_test(test_in_charge_read),
                cmocka_unit_test(test_server_slow_clients),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
