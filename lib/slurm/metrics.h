/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster's Prometheus metrics (issue 31, part 2): one snapshot of slurmctld's tables read
 * through libslurm (no text scraping), rendered in Prometheus' text exposition format 0.0.4.
 *
 * Names and labels follow Slurm 25.11's own OpenMetrics output (src/plugins/metrics/openmetrics/
 * openmetrics.c and src/slurmctld/statistics.c, read at slurm-25-11-7-1), so that dashboards
 * written for it work on the 22.05 and 24.11 controllers this charm runs: slurm_nodes,
 * slurm_nodes_<state>, slurm_node_cpus{node=…}, slurm_node_memory_bytes{node=…},
 * slurm_partition_nodes_<state>{partition=…}, slurm_jobs_<state>,
 * slurm_partition_jobs_<state>{partition=…}, slurm_user_jobs_<state>{username=…},
 * slurm_account_jobs_<state>{account=…}, and the scheduler's (sdiag) slurm_schedule_cycle_*,
 * slurm_bf_*, slurm_sdiag_*. Node states are counted as 25.11 counts them: one base state each
 * (future, down, mixed when some but not all CPUs are allocated, alloc, idle, unknown), and the
 * flags on top (drain: drained or draining, completing, not responding, …). Memory in bytes.
 * Every 25.11-named family is a gauge, as 25.11 types them (its sdiag figures reset at
 * midnight and at a restart); `promtool check metrics` takes the text.
 *
 * What 25.11 does not have and the charm adds, under names of its own:
 *   slurm_node_up{node}            1 when the node can run jobs (registered, responding, not
 *                                  down, drained, failing or in the future state)
 *   slurm_node_gpus{node}, slurm_node_gpus_alloc{node}  from the node's Gres and GresUsed
 *   slurm_jobs_pending_reason{reason}  pending jobs by Slurm's reason word ("Resources", …)
 *   slurm_jobs_pending_blocked     pending jobs whose reason says they cannot start as things
 *                                  are (held, a dependency that can never be met, a bad
 *                                  constraint or partition, a limit the job itself breaks)
 *   slurm_rpc_type_calls_total{type}, slurm_rpc_type_seconds_total{type},
 *   slurm_rpc_user_calls_total{user}, slurm_rpc_user_seconds_total{user}  slurmctld's RPC
 *                                  statistics since its start (counters)
 *   slurm_dbd_agent_queue_size     records slurmctld holds for slurmdbd
 *   slurm_controller_up{host}      each SlurmctldHost by ping
 *   slurm_controller_in_charge{host}  the controller in charge (metrics_in_charge_set)
 *   slurm_controller_failovers_total  (metricsd's, from the text) changes of the controller in
 *                                  charge seen since the exporter started
 *   slurm_dbd_up                   1 when slurmdbd takes a connection (its handshake, within
 *                                  METRICS_DBD_PING_MS; absent without accounting, or when this
 *                                  machine's slurmctld does not answer its ping: on 24.11 it
 *                                  gives the exporter's credential, so slurmdbd could not be told)
 *   slurm_scrape_duration_seconds, slurm_scrape_rpcs, slurm_scrape_error{what}
 * Label values are escaped as the format asks (\\, \", \n); a value that is not valid UTF-8 or
 * is longer than METRICS_LABEL_MAX bytes is cut at the last whole character before it.
 *
 * PrivateData (the client configuration's): the parts slurmctld would hide from a collector
 * that is neither root nor SlurmUser (jobs, nodes, partitions) are failed parts with the
 * reason, never zeros; with users, usage or accounts private, the per-user and per-account
 * families (jobs, RPCs) are left out: the endpoint has no authentication.
 *
 * Cost: a collection is 4 RPCs to slurmctld (nodes, partitions, jobs, statistics) plus one ping
 * per controller (2 s each at most), and with accounting one connection to slurmdbd (opened and
 * closed); the RPC statistics are read, never reset. When no
 * controller answers its ping, the 4 loads are not tried (each would wait out libslurm's
 * timeouts): the scrape still answers, with the pings and every part failed.
 *
 * Ownership: a snapshot owns everything in it (metrics_snapshot_done accepts a zeroed one). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util/strbuf.h"

#define METRICS_LABEL_MAX 256
#define METRICS_DBD_UNKNOWN 0
#define METRICS_DBD_DOWN 1
#define METRICS_DBD_UP 2
#define METRICS_DBD_PING_MS 2000

struct metrics_node {
        char *name;
        uint32_t state;        /* Slurm's node_state: base | flags */
        uint16_t cpus;
        uint16_t alloc_cpus;
        uint64_t memory_mb;      /* RealMemory */
        uint64_t alloc_memory_mb;
        uint64_t free_memory_mb; /* UINT64_MAX: unknown */
        uint64_t gpus;
        uint64_t gpus_alloc;
        char **partitions; /* NULL-terminated; NULL when in none */
};

struct metrics_job {
        uint32_t state;  /* Slurm's job_state: base | flags */
        uint16_t reason; /* enum job_state_reason */
        char *partition; /* the first one of a pending job's list; NULL when none */
        char *user;      /* user name, or the uid in digits */
        char *account;   /* NULL when none */
        uint32_t cpus;
        uint32_t nodes;
        uint64_t memory_mb; /* allocated (running): per node × nodes, or per CPU × CPUs */
        uint32_t tasks;     /* a pending array's record: the tasks it stands for; else 1 */
};

struct metrics_partition {
        char *name;
        uint32_t total_cpus;
        uint32_t total_nodes;
};

struct metrics_rpc {
        char *name; /* the message type's name, or its number; the user's name, or uid */
        uint32_t count;
        uint64_t time_us;
};

struct metrics_sched {
        bool valid;
        uint32_t server_thread_count, agent_queue_size, agent_count, agent_thread_count;
        uint32_t dbd_agent_queue_size;
        uint32_t schedule_cycle_max, schedule_cycle_last, schedule_cycle_sum, schedule_cycle_counter;
        uint32_t schedule_cycle_depth, schedule_queue_len;
        uint32_t jobs_submitted, jobs_started, jobs_completed, jobs_canceled, jobs_failed;
        uint32_t jobs_pending, jobs_running;
        uint32_t bf_backfilled_jobs, bf_last_backfilled_jobs, bf_cycle_counter;
        uint64_t bf_cycle_sum;
        uint32_t bf_cycle_last, bf_cycle_max, bf_last_depth, bf_last_depth_try, bf_depth_sum;
        uint32_t bf_depth_try_sum, bf_queue_len, bf_queue_len_sum, bf_table_size;
        time_t bf_when_last_cycle;
        uint32_t bf_active;
        struct metrics_rpc *rpc_types;
        size_t n_rpc_types;
        struct metrics_rpc *rpc_users;
        size_t n_rpc_users;
};

struct metrics_controller {
        char *host;
        int index;     /* place in SlurmctldHost order, 0 = primary */
        bool up;       /* answered a ping */
        bool in_charge;
};

struct metrics_snapshot {
        struct metrics_node *nodes;
        size_t n_nodes;
        struct metrics_job *jobs;
        size_t n_jobs;
        struct metrics_partition *parts;
        size_t n_parts;
        struct metrics_sched sched;
        struct metrics_controller *ctls;
        size_t n_ctls;
        /* the collection itself */
        double duration_s;
        unsigned rpcs;
        char *error_nodes, *error_jobs, *error_parts, *error_stats; /* NULL when that read worked */
        bool cluster; /* false: only the controller and scrape families (a standby's exporter) */
        /* slurmdbd: METRICS_DBD_UNKNOWN (not configured, or not asked: this machine's own
         * slurmctld, the credential's source on 24.11, does not answer), _DOWN, _UP */
        int dbd;
        /* PrivateData names users, usage or accounts: no per-user or per-account family */
        bool private_users;
};

void metrics_snapshot_done(struct metrics_snapshot *s);

/* Reads the tables from slurmctld through libslurm (slurm_client_init first). A read that fails
 * leaves its part empty and its error_* set; with cluster false only the controllers are
 * pinged. 0, or a negative errno when the client could not start (err). */
int metrics_collect(struct metrics_snapshot *s, bool cluster, struct strbuf *err);

/* Who is in charge, told by one that knows (the controller units' sentinels read Slurm's
 * heartbeat and ask their own slurmctld; a ping cannot tell, a standby answers it too): each
 * controller's in_charge is whether its host is host (NULL or "": none known). Without it
 * metrics_collect() marks only a sole controller that answers. Pure. */
void metrics_in_charge_set(struct metrics_snapshot *s, const char *host);

/* Marks every part of s not already failed as failed for why (the answer then has the pings
 * and slurm_scrape_error 1 for each part, no tables). */
void metrics_parts_failed(struct metrics_snapshot *s, const char *why);

/* The controller in charge as the text says (the host label of its slurm_controller_in_charge
 * sample with value 1, as rendered: escaped), into host (reset first): true, or false when no
 * controller is in charge or the text has no such sample. Pure. */
bool metrics_text_in_charge(const char *text, size_t len, struct strbuf *host);
/* Appends slurm_controller_failovers_total (a counter: changes of the controller in charge a
 * long-running exporter has seen, metrics_text_in_charge() between its collections). */
void metrics_render_failovers(uint64_t n, struct strbuf *out);

/* Appends the exposition text of s to out. Pure. */
void metrics_render(const struct metrics_snapshot *s, struct strbuf *out);

/* Whether a pending job's reason means it cannot start as things stand (held by user or admin,
 * a dependency never satisfied, a bad constraint, partition, account, QOS or a job limit the
 * job itself exceeds); reasons that only wait (Resources, Priority, …) are false. Pure. */
bool metrics_reason_blocked(uint16_t reason);

/* How many array tasks a pending array record stands for, from its array_task_str: 9 for
 * "1-3,5,7-15:2%4" (the limit after % changes no count); 1 when empty or unreadable (libslurm
 * cuts the text at 64 bytes with "...": the collection counts the record's bitmap instead,
 * this is its fallback). Pure. */
uint64_t metrics_array_tasks(const char *tasks);

/* The name of a slurmctld RPC message type (22.05/24.11 numbering) or NULL when not known. */
const char *metrics_rpc_name(uint16_t type);
