/* SPDX-License-Identifier: Apache-2.0 */
/* The controller's Prometheus metrics endpoint (issue 31, part 2): the exporter service each
 * controller unit runs, the option that sets its port, and the `metrics-endpoint` relation
 * (interface prometheus_scrape) that hands an observability stack its scrape targets and the
 * charm's alert rules.
 *
 * The exporter. bin/slurm-metrics (charm/slurmctld/metricsd.h) runs as the unit's
 * juju-slurm-metrics.service, as the user nobody (it needs no file of Slurm's but the client
 * configuration, and any user may read what it reads), listening on every address of the
 * machine at the port of the option metrics-port (default 9092; 0 turns it off), path
 * /metrics. What it serves is slurm/metrics.h: the cluster's tables as slurmctld reports them,
 * whichever controller is in charge, so every controller unit serves the same cluster figures
 * (aggregate with max by (juju_application), as the alert rules do) and its own view of which
 * controller answers. The port goes to the service in <state>/metrics-port; the hook writes it
 * and restarts the service when it changes; open-port tells Juju.
 *
 * The option: 1024 to 65535 (the exporter is not root: no privileged port), and not one of
 * Slurm's own ports (SlurmctldPort 6817, SlurmdPort 6818, slurmdbd 6819, slurmrestd 6820). A bad
 * value is refused in the status and changes nothing (the exporter keeps its port).
 *
 * The relation, as Canonical's prometheus_scrape library (charms.prometheus_k8s.v0.
 * prometheus_scrape, MetricsEndpointProvider, LIBPATCH 61) writes it, so that Prometheus' charm
 * takes it: in each unit's bag prometheus_scrape_unit_address (the unit's address on the
 * relation's binding), prometheus_scrape_unit_name, prometheus_scrape_unit_path (""); in the
 * application's bag (leader) scrape_metadata (the Juju topology: model, model_uuid,
 * application, unit, charm_name), scrape_jobs (one job, targets "*:PORT", metrics_path
 * /metrics: the consumer puts each unit's address for the *), and alert_rules (the charm's
 * templates/slurm-alert-rules.json, {"groups": [...]}, with the topology labels added to each
 * rule and the group names prefixed by model_uuid-prefix_application, as the library does; the
 * %%juju_topology%% placeholders are removed: the consumer injects its label matchers). With
 * the exporter off, scrape_jobs is [] and the status says why nothing is scraped.
 *
 * Functions return 0 (or 1 when something changed) or a negative errno with one message
 * appended to err. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include "charm/common/charm.h"
#include "juju/juju.h"
#include "util/strbuf.h"

#define METRICSEP_CONFIG_KEY "metrics-port"
#define METRICSEP_PORT_DEFAULT 9092
#define METRICSEP_UNIT "juju-slurm-metrics.service"
#define METRICSEP_TEMPLATE "juju-slurm-metrics.service"
#define METRICSEP_EXE "bin/slurm-metrics"
#define METRICSEP_PORT_FILE "metrics-port" /* under CHARM_PATH_STATE_DIR */
#define METRICSEP_ENDPOINT "metrics-endpoint"
#define METRICSEP_RULES_FILE "slurm-alert-rules.json" /* under <charm>/templates */
#define METRICSEP_PATH "/metrics"

/* Whether v may be the exporter's port (0: off). 0, or -EINVAL with the reason in err. Pure. */
int metricsep_port_check(int64_t v, struct strbuf *err);

/* The option's port in *ret (0: off): 0, -EINVAL for a value metricsep_port_check refuses
 * ("metrics-port: …" in err), another negative errno when the config cannot be read. */
int metricsep_config(struct juju_ctx *ctx, unsigned *ret, struct strbuf *err);

/* <state>/metrics-port's path (caller frees). */
char *metricsep_port_path(const struct charm_paths *paths);
/* The port the service was given (0 when none): 0 or a negative errno. */
int metricsep_port_read(const char *file, unsigned *ret);

/* The exporter on port (0: stopped, disabled, its file removed), restarted when the port
 * changed or restart is set (an upgraded charm). 1 changed, 0 all in place. */
int metricsep_apply(const struct charm_paths *paths, sd_bus *bus, const char *juju_unit, const char *charm_dir,
        unsigned port, bool restart, struct strbuf *err);

/* The scrape_jobs value for port (0: "[]"), appended to out. Pure. */
void metricsep_scrape_jobs(unsigned port, struct strbuf *out);
/* The scrape_metadata value (the Juju topology) of env, appended to out. Pure. */
void metricsep_scrape_metadata(const struct juju_env *env, const char *charm_name, struct strbuf *out);
/* The alert_rules value from the rules file's JSON text: each group's name prefixed with
 * "<model>_<uuid's first 8>_<application>_" (and "_rules" appended where missing, characters
 * outside [A-Za-z0-9_:] made "_"), each rule's labels given juju_model, juju_model_uuid,
 * juju_application and juju_charm (where the rule does not set them), "%%juju_topology%%," and
 * "%%juju_topology%%" removed from expressions. -EINVAL when the text is not {"groups": [...]}
 * with rules that have alert or record and expr. Pure. */
int metricsep_alert_rules(const char *rules_json, const struct juju_env *env, const char *charm_name,
        struct strbuf *out, struct strbuf *err);

/* Writes the relation's bags for every metrics-endpoint relation (the unit's in all units, the
 * application's by the leader). Never fails the hook for a relation: a problem is appended to
 * note ("; metrics-endpoint: …"). */
void metricsep_publish(struct juju_ctx *ctx, const char *charm_dir, unsigned port, bool leader, struct strbuf *note);

/* "; metrics exporter not running (…)" when its service is not active and running (a port
 * another process holds: it fails to bind and restarts), "; metrics exporter not listening on
 * port N" when it runs and nothing listens (waits up to wait_ms for a service just started).
 * bus NULL: the port alone is probed. */
void metricsep_status_note(sd_bus *bus, unsigned port, int wait_ms, struct strbuf *message);
