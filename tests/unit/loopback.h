/* SPDX-License-Identifier: Apache-2.0 */
/* A unit test's listening TCP socket on 127.0.0.1, on a port the kernel picks (the receivers
 * of test-http and test-charm-evpush). Header-only; include it before "util/banned.h". */
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* The listening socket (close-on-exec, backlog 8), its port in *ret_port; -1 on failure. */
static inline int loopback_listen(int *ret_port) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t sl = sizeof(sa);
        if (fd < 0)
                return -1;
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 || listen(fd, 8) < 0 ||
                getsockname(fd, (struct sockaddr *) &sa, &sl) < 0) {
                close(fd);
                return -1;
        }
        *ret_port = ntohs(sa.sin_port);
        return fd;
}
