/* SPDX-License-Identifier: Apache-2.0 */
/* Node changes the controller expects, so that the node event watcher looks every second
 * until they happen. See expect.h. */
#include "util/macro.h"
#include "util/alloc.h"
#include "charm/slurmctld/expect.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util/fileio.h"

#include "util/banned.h"

struct line {
        enum expect_kind kind;
        char node[256];
        int64_t until;
};

/* One line of the file; false when it is not one (skipped). */
static bool parse_line(const char *s, size_t len, struct line *ret) {
        char kind[16];
        long long until;
        _cleanup_free_ char *copy = xstrndup(s, len);
        if (sscanf(copy, "%15s %255s %lld", kind, ret->node, &until) != 3)
                return false;
        if (streq(kind, "leaving"))
                ret->kind = EXPECT_LEAVING;
        else if (streq(kind, "joining"))
                ret->kind = EXPECT_JOINING;
        else
                return false;
        ret->until = until;
        return true;
}

static bool is_open(const struct line *l, expect_present_fn present, void *userdata, int64_t now_ms) {
        if (l->until < now_ms)
                return false;
        bool there = present(l->node, userdata);
        return l->kind == EXPECT_LEAVING ? there : !there;
}

/* Calls fn for each line of text. */
static void each_line(const char *text, void (*fn)(const struct line *l, void *u), void *u) {
        for (const char *p = text; p && *p;) {
                size_t n = strcspn(p, "\n");
                struct line l;
                if (parse_line(p, n, &l))
                        fn(&l, u);
                p += n + (p[n] == '\n');
        }
}

struct counting {
        expect_present_fn present;
        void *userdata;
        int64_t now;
        size_t n;
        const char *skip; /* a node whose line is replaced */
        struct strbuf *keep;
};

static void count_one(const struct line *l, void *u) {
        struct counting *c = u;
        if (c->skip && streq(l->node, c->skip))
                return;
        if (!is_open(l, c->present, c->userdata, c->now))
                return;
        c->n++;
        if (c->keep)
                strbuf_addf(c->keep, "%s %s %" PRId64 "\n",
                        l->kind == EXPECT_LEAVING ? "leaving" : "joining", l->node, l->until);
}

size_t expect_count_open(const char *text, expect_present_fn present, void *userdata, int64_t now_ms) {
        struct counting c = { .present = present, .userdata = userdata, .now = now_ms };
        each_line(text, count_one, &c);
        return c.n;
}

int expect_note(const char *dir, enum expect_kind kind, const char *node, int64_t until_ms,
        expect_present_fn present, void *userdata, int64_t now_ms, struct strbuf *err) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EXPECT_FILE), *old = NULL;
        _cleanup_strbuf_ struct strbuf next = STRBUF_INIT;
        if (isempty(node) || strlen(node) > 255 || strpbrk(node, " \n")) {
                strbuf_addf(err, "expectation: bad node name \"%s\"", strempty(node));
                return -EINVAL;
        }
        int r = read_full_file(path, &old, NULL);
        if (r < 0 && r != -ENOENT) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        struct counting c = {
                .present = present, .userdata = userdata, .now = now_ms, .skip = node, .keep = &next
        };
        each_line(old, count_one, &c);
        strbuf_addf(&next, "%s %s %" PRId64 "\n", kind == EXPECT_LEAVING ? "leaving" : "joining", node,
                until_ms);
        r = mkdir_p(dir, 0700);
        if (r >= 0)
                r = write_file_atomic(path, next.buf, next.len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        return 0;
}

size_t expect_open(const char *dir, expect_present_fn present, void *userdata, int64_t now_ms) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EXPECT_FILE), *text = NULL;
        if (read_full_file(path, &text, NULL) < 0)
                return 0;
        return expect_count_open(text, present, userdata, now_ms);
}

struct has_node {
        const char *node;
        bool found;
};

static void line_has_node(const struct line *l, void *u) {
        struct has_node *h = u;
        h->found = h->found || streq(l->node, h->node);
}

int expect_drop(const char *dir, const char *node, expect_present_fn present, void *userdata, int64_t now_ms,
        struct strbuf *err) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EXPECT_FILE), *old = NULL;
        _cleanup_strbuf_ struct strbuf next = STRBUF_INIT;
        int r = read_full_file(path, &old, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        struct has_node h = { .node = node };
        each_line(old, line_has_node, &h);
        if (!h.found)
                return 0;
        struct counting c = {
                .present = present, .userdata = userdata, .now = now_ms, .skip = node, .keep = &next
        };
        each_line(old, count_one, &c);
        r = write_file_atomic(path, next.buf, next.len, 0600, (uid_t) -1, (gid_t) -1);
        if (r < 0) {
                strbuf_addf(err, "%s: %s", path, strerror(-r));
                return r;
        }
        return 1;
}

struct of_kind {
        enum expect_kind kind;
        int64_t now;
        struct strv *ret;
};

static void node_of_kind(const struct line *l, void *u) {
        struct of_kind *k = u;
        if (l->kind == k->kind && l->until >= k->now && !strv_contains(k->ret, l->node))
                strv_push(k->ret, l->node);
}

void expect_nodes(const char *dir, enum expect_kind kind, int64_t now_ms, struct strv *ret) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, EXPECT_FILE), *text = NULL;
        if (read_full_file(path, &text, NULL) < 0)
                return;
        struct of_kind k = { .kind = kind, .now = now_ms, .ret = ret };
        each_line(text, node_of_kind, &k);
}
