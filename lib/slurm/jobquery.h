/* SPDX-License-Identifier: Apache-2.0 */
/* Jobs and job steps as an operator asks for them: find jobs by criteria, read jobs by the ids
 * people write ("123", "123_4", "123+1"), list every step of those jobs. (jobs.h keeps the
 * jobs on one node for the charm's own departures.)
 *
 * Job ids (Slurm 22.05, src/api/job_info.c slurm_xlate_job_id(), src/slurmctld/job_mgr.c
 * pack_one_job()): every job record has its own numeric job_id. An array's tasks are records
 * with array_job_id = the array's id and their task number; tasks that have not started yet
 * share one "meta" record (job_id = the array's id, array_task_str = the pending tasks, shown
 * "N_[5-9]"). A heterogeneous job's components are records with het_job_id = the leader's id
 * and het_job_offset 0, 1, … (shown "N+0", "N+1"). slurm_load_job(N) returns the record N and,
 * when N is an array, every task record of it; when N is a het leader, every component. So:
 *   "N"   all records slurm_load_job(N) returns (the job, the whole array, the whole het job);
 *   "N_T" the task record with array_job_id N and task T, or, while T is still pending, the
 *         array's meta record (the task is in its array_bitmap);
 *   "N+C" the component with het_job_id N and offset C.
 * An id slurmctld no longer knows (purged after MinJobAge, never existed) is "missing": not an
 * error of the whole request.
 *
 * Steps: slurm_get_job_steps(0, NO_VAL, NO_VAL) returns every step of every job in one RPC
 * (src/slurmctld/step_mgr.c _pack_job_steps(): all of job_ptr->step_list), filtered here by
 * the jobs' numeric ids. Steps are named as Slurm names them (src/common/log.c
 * log_build_step_id_str(), src/api/job_step_info.c): "123.batch", "123.extern",
 * "123.interactive", "123.0", a het step "123.0+1", an array task's step "123_4.0", and
 * (a step id Slurm has not assigned yet) "123.TDB", Slurm's own spelling.
 *
 * Find: criteria are AND-ed; each is a list whose items are OR-ed. user: a name or a numeric
 * uid; state: a base state word (PENDING, RUNNING, SUSPENDED, COMPLETED, CANCELLED, FAILED,
 * TIMEOUT, NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE, OUT_OF_MEMORY) or one of the flag words
 * COMPLETING, CONFIGURING, REQUEUED (case-insensitive); partition: one of the job's partitions
 * (a pending job may list several); name, account: exact; node: a node in the job's
 * allocation; batch_host: the node running the batch script.
 *
 * Functions that talk to slurmctld call slurm_client_init() first, return a count or a
 * negative errno and append one message to err. The others are pure.
 * Ownership: lists own their strings; slurm_jobinfo_list_done(), slurm_step_list_done()
 * (both accept zeroed structs). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util/strbuf.h"
#include "util/strv.h"

enum slurm_jobid_kind {
        SLURM_JOBID_PLAIN,      /* "N" */
        SLURM_JOBID_ARRAY_TASK, /* "N_T" */
        SLURM_JOBID_HET,        /* "N+C" */
};

struct slurm_jobid {
        uint32_t id;
        enum slurm_jobid_kind kind;
        uint32_t sub; /* task or component; 0 for PLAIN */
};

/* Largest job id Slurm hands out (MaxJobId's ceiling, 0x03ff0000) and array task id
 * (MaxArraySize's ceiling, 4000001 - 1). */
#define SLURM_JOBID_MAX 67043328U
#define SLURM_ARRAY_TASK_MAX 4000000U

/* Parses one id: digits, optionally "_" or "+" and digits; 1 <= N <= SLURM_JOBID_MAX,
 * T <= SLURM_ARRAY_TASK_MAX, C < 128 (a het job has at most 128 components). 0 or -EINVAL. */
int slurm_jobid_parse(const char *s, struct slurm_jobid *ret);
/* Appends the id as it was written in canonical form ("123_4"). */
void slurm_jobid_format(const struct slurm_jobid *id, struct strbuf *out);

/* One job record. */
struct slurm_jobinfo {
        uint32_t job_id;        /* this record's own id */
        char *display_id;       /* "123", "123_4", "123_[5-9]", "123+1" (scontrol's JobId= form) */
        uint32_t array_job_id;  /* 0 when not an array */
        uint32_t array_task_id; /* task number; UINT32_MAX for the meta record or no array */
        char *array_tasks;      /* meta record: the pending tasks ("5-9"); else NULL */
        uint32_t het_job_id;    /* leader's id; 0 when not heterogeneous */
        uint32_t het_job_offset;
        char *name, *user, *account, *partition, *qos, *reservation;
        char *nodes, *batch_host, *work_dir, *command, *std_out, *std_err;
        char *features, *tres_req, *tres_alloc, *comment, *dependency;
        char *state_reason; /* "Resources", "ReqNodeNotAvail, …" (scontrol's Reason=); NULL: None */
        uint32_t user_id, group_id;
        uint32_t state; /* enum job_states | JOB_* flags (nodestate.h names them) */
        uint32_t num_nodes, num_cpus, num_tasks;
        uint32_t time_limit; /* minutes; UINT32_MAX: unlimited; 0: partition default not yet set */
        uint32_t priority;
        uint32_t exit_code; /* wait() status */
        time_t submit_time, eligible_time, start_time, end_time;
        bool batch, requeue;
        uint16_t restart_count;
        /* private: task membership of a meta record (NULL otherwise) */
        uint8_t *pending_tasks;
        size_t pending_tasks_len; /* bits */
};

struct slurm_jobinfo_list {
        struct slurm_jobinfo *v;
        size_t n;
};
void slurm_jobinfo_list_done(struct slurm_jobinfo_list *l);

/* The find criteria: NULL-terminated lists, NULL for "any". */
struct slurm_job_filter {
        char *const *users;
        char *const *states;
        char *const *partitions;
        char *const *names;
        char *const *accounts;
        char *const *nodes;
        char *const *batch_hosts;
};

/* Whether w is a state word the filter takes (see above). */
bool slurm_job_state_word_valid(const char *w);
/* Whether state (enum job_states | flags) is what the state word w says (base word: the base
 * state equals it; flag word: the flag is set). False for an invalid word. */
bool slurm_job_state_is(uint32_t state, const char *w);
/* Whether the job matches every criterion. Node lists are expanded with libslurm's hostlist. */
bool slurm_job_filter_match(const struct slurm_job_filter *f, const struct slurm_jobinfo *j);

/* Every job matching f (slurm_load_jobs), in slurmctld's order. Returns the count. */
int slurm_jobs_find(const struct slurm_job_filter *f, struct slurm_jobinfo_list *ret, struct strbuf *err);

/* The records of ids[0..n) (see above), each record once, in the order asked. The ids
 * slurmctld does not know are appended to *ret_missing in canonical form. Returns the number
 * of records. One slurm_load_job() per distinct N. */
int slurm_jobs_get(const struct slurm_jobid *ids, size_t n, struct slurm_jobinfo_list *ret,
        struct strv *ret_missing, struct strbuf *err);

/* Whether the job record j is what id asks for (pure; the selection slurm_jobs_get makes). */
bool slurm_jobid_selects(const struct slurm_jobid *id, const struct slurm_jobinfo *j);

struct slurm_step {
        uint32_t job_id;   /* the record's own job id */
        uint32_t step_id;  /* number, or SLURM_BATCH_SCRIPT/EXTERN_CONT/INTERACTIVE_STEP/… */
        uint32_t het_comp; /* UINT32_MAX when none */
        char *id;          /* Slurm's name: "123.batch", "123_4.0", "123.0+1" */
        char *name;        /* the step's name ("batch", "extern", "hostname", …) */
        char *nodes, *partition, *tres_alloc;
        uint32_t state; /* enum job_states */
        uint32_t num_tasks, num_cpus;
        uint32_t time_limit; /* minutes; UINT32_MAX unlimited */
        time_t start_time;
        uint32_t user_id;
};
struct slurm_step_list {
        struct slurm_step *v;
        size_t n;
};
void slurm_step_list_done(struct slurm_step_list *l);

/* Every step of the jobs whose numeric ids are listed (one RPC). Returns the count. */
int slurm_job_steps(const uint32_t *job_ids, size_t n, struct slurm_step_list *ret, struct strbuf *err);

/* "batch", "extern", "interactive", "TDB" for Slurm's special step ids; NULL for a number. */
const char *slurm_step_special_name(uint32_t step_id);
/* Appends Slurm's step name (see above): array_job_id 0 for a job that is no array task;
 * het_comp UINT32_MAX (or NO_VAL) for none. */
void slurm_step_id_format(uint32_t job_id, uint32_t array_job_id, uint32_t array_task_id, uint32_t step_id,
        uint32_t het_comp, struct strbuf *out);
