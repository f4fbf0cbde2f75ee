/* SPDX-License-Identifier: Apache-2.0 */
/* Where a unit's hooks run: the glue between the model and the machine code. In "host" mode a
 * machine is a record (this host's name, 127.0.0.1) and hooks are forked here; in "namespace"
 * mode the machine code (machine.h) makes and enters real machines.
 *
 * Invariants: a machine record is a JSON object { id, hostname, address, unit, instance } whose
 * "instance" member belongs to the machine code. sim_machine_spawn() is the only way a hook or
 * exec command is started; the pid it returns is a child of the caller (wait4-able). */
#pragma once

#include <sys/types.h>
#include <cjson/cJSON.h>

#include "machine.h"
#include "util/strbuf.h"

struct model;
struct strv;

/* Fills rec (id already set) with hostname and address, making the machine when needed. */
int sim_machine_create(struct model *m, cJSON *rec, struct strbuf *err);
int sim_machine_destroy(struct model *m, cJSON *rec, struct strbuf *err);
int sim_machine_spawn(struct model *m, const cJSON *rec, char *const argv[], char *const envp[],
        const char *cwd, int in_fd, int out_fd, int err_fd, pid_t *ret_pid);
/* Tears down every machine of the model at dir (best effort; used by destroy, also when the
 * state is unreadable). */
void sim_machines_cleanup(const char *dir, const cJSON *state);
/* `juju-sim gc`: machine_gc() (machine.h), -EOPNOTSUPP when built without the machine code. */
int sim_machines_gc(struct strv *removed, struct strbuf *err);
/* The machine mode to give a new model ($JUJU_SIM_MACHINES, else the default). */
const char *sim_machine_default_mode(void);
/* How many more namespace machines fit: machine_capacity() (machine.h), plus the model's machine
 * ids when m (may be NULL) is a namespace model. -EOPNOTSUPP without the machine code. */
int sim_capacity(const struct model *m, struct machine_capacity *ret, struct strbuf *err);
/* machine_capacity_clear() where the machine code is linked in (use this one here). */
void sim_capacity_clear(struct machine_capacity *c);
/* 0 when n more machines fit (always in host mode), else -ENOSPC and one message naming the
 * limit: "add-unit: 1000 machines asked, this host can hold 29 more (fs.inotify…)". Nothing is
 * created either way: verbs call it before they make anything. */
int sim_capacity_check(const struct model *m, int n, const char *verb, struct strbuf *err);
/* Tightens the modes of the model's machine files (machine_make_private() and each machine's
 * /var/lib/juju/juju-sim.json): 0 or 1 (changed), or a negative errno with a message. */
int sim_machines_make_private(const struct model *m, struct strbuf *err);
