/* SPDX-License-Identifier: Apache-2.0 */
/* The login node's files and status, pure (no hook tools, no daemons): what the sackd charm
 * (sackd.h) writes and how it reads the clients' own view of the controllers.
 *
 * - 24.11 (sackd): /etc/default/sackd names the controllers for sackd's configless fetch
 *   (`--conf-server h1:6817,h2:6817`, primary first) and carries, as a comment, a digest of the
 *   slurm.conf the controllers published: the file changes, and sackd is restarted (fetches
 *   again), whenever the order or the configuration does.
 * - 22.05 (no sackd): /etc/slurm/slurm.conf is the controllers' own file, as published.
 * - `scontrol ping` on the unit (the clients' view: their configuration, auth and network)
 *   tells which controllers answer; login_ping_parse() reads its lines. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/strv.h"

#define LOGIN_SACKD_DEFAULTS "/etc/default/sackd"
#define LOGIN_CLIENT_CONF "/etc/slurm/slurm.conf"
/* the first line of /etc/default/sackd as this charm writes it (another charm's is refused) */
#define LOGIN_SACKD_DEFAULTS_HEAD "# Written by the sackd charm"

/* The whole /etc/default/sackd for the controllers ("host:port", primary first; n >= 1) and the
 * slurm.conf text they publish (its digest only). */
void login_sackd_defaults_render(char *const *controllers, size_t n, const char *slurm_conf, struct strbuf *out);

/* Whether /etc/default/sackd's text belongs to someone else: not this charm's (its first line)
 * and setting anything (a line that is neither blank nor a comment). Debian's own file, all
 * comments, is not: the charm writes over it. */
bool login_sackd_defaults_foreign(const char *data);

/* Reads `scontrol ping`'s output: each "Slurmctld(ROLE) at HOST is UP|DOWN" line's HOST goes to
 * up or down (appended; in the output's order). Returns the number of lines read, 0 when none
 * had that shape. */
size_t login_ping_parse(const char *out, struct strv *up, struct strv *down);
