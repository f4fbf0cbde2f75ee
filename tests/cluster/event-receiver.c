/* SPDX-License-Identifier: Apache-2.0 */
/* A test receiver for the node event log's consumer (charm-eventpush.sh; charm/slurmctld/evpush.h):
 * listens on PORT (every IPv4 address of its machine: a juju-sim machine's bridge address), and for each POST appends the body to OUT
 * (then fsync) and answers 200. While OUT.fail exists it answers 503 and keeps nothing (an
 * outage); while OUT.drop exists it keeps the body and closes without answering (the answer
 * lost: the pusher sends the same records again). OUT.arrivals gets "<ms since the epoch>
 * <records>" per batch kept. One request per connection, one at a time. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BODY_MAX (4 << 20)

static char buf[BODY_MAX + 65536];

static int exists(const char *out, const char *suffix) {
        char path[4096];
        snprintf(path, sizeof(path), "%s%s", out, suffix);
        return access(path, F_OK) == 0;
}

static void serve(int c, const char *out) {
        size_t got = 0, head = 0, want = 0;
        struct timeval tv = { .tv_sec = 10 };
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        for (;;) {
                ssize_t n = read(c, buf + got, sizeof(buf) - got);
                if (n <= 0)
                        return;
                got += (size_t) n;
                if (!head) {
                        char *end = memmem(buf, got, "\r\n\r\n", 4);
                        if (!end)
                                continue;
                        head = (size_t) (end - buf) + 4;
                        const char *cl = memmem(buf, head, "Content-Length: ", 16);
                        want = cl ? strtoul(cl + 16, NULL, 10) : 0;
                        if (want > BODY_MAX)
                                return;
                }
                if (got >= head + want)
                        break;
        }
        if (exists(out, ".fail")) {
                static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
                (void) !write(c, busy, sizeof(busy) - 1);
                return;
        }
        int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        int stored = fd >= 0 && write(fd, buf + head, want) == (ssize_t) want && fsync(fd) == 0;
        if (fd >= 0)
                close(fd);
        if (!stored) {
                static const char bad[] = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n";
                (void) !write(c, bad, sizeof(bad) - 1);
        } else {
                /* when each batch arrived (ms since the epoch) and how many records it held */
                char path[4096], line[64];
                struct timespec ts;
                size_t lines = 0;
                for (size_t i = 0; i < want; i++)
                        lines += buf[head + i] == '\n';
                clock_gettime(CLOCK_REALTIME, &ts);
                snprintf(path, sizeof(path), "%s.arrivals", out);
                int afd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                int n = snprintf(line, sizeof(line), "%lld %zu\n",
                        (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000, lines);
                if (afd >= 0) {
                        (void) !write(afd, line, (size_t) n);
                        close(afd);
                }
        }
        if (stored && !exists(out, ".drop")) {
                static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
                (void) !write(c, ok, sizeof(ok) - 1);
        }
}

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: event-receiver PORT OUT\n");
                return 2;
        }
        signal(SIGPIPE, SIG_IGN);
        int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int on = 1;
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) atoi(argv[1])),
                .sin_addr.s_addr = htonl(INADDR_ANY) };
        if (lfd < 0 || bind(lfd, (struct sockaddr *) &sa, sizeof(sa)) < 0 || listen(lfd, 16) < 0) {
                perror("event-receiver: listen");
                return 1;
        }
        for (;;) {
                int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0) {
                        if (errno == EINTR)
                                continue;
                        perror("event-receiver: accept");
                        return 1;
                }
                serve(c, argv[2]);
                close(c);
        }
}
