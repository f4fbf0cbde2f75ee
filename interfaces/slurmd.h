/* SPDX-License-Identifier: Apache-2.0 */
/* The `slurmd` interface between the slurmctld and slurmd charms: what each side's leader puts
 * in its application databag, encoded and decoded here (the schema is in interfaces/README.md).
 *
 * slurmd leader → its app bag (the spec's ComputeData):
 *   partition  JSON object of slurm.conf partition keys → string values; PartitionName and Nodes
 *              are the slurmd application's name, the rest comes from `partition-config`
 *   nodeset    JSON object {"NodeSet": app, "Feature": app}
 * slurmctld leader → its app bag (the spec's ControllerData, without the key itself):
 *   auth_key_id  a Juju secret id; the secret's content holds the cluster's auth key
 *   controllers  JSON list of "host:port", primary first
 *
 * Decoding trusts nothing: every field's type, size and syntax is checked, partition keys go
 * through the option-string parser (slurmconf/options.h) for their kind, and the names must be
 * the remote application's. Return rule of the decoders: 0 complete and valid (ret filled),
 * -ENODATA not (yet) published (a field is missing or empty: wait, not an error; ret untouched),
 * -EINVAL published but bad (one message in err, ret untouched).
 *
 * Ownership: the structs own their strings; the *_clear() functions free them. */
#pragma once

#include <stdint.h>

#include "slurmconf/options.h"
#include "util/strbuf.h"
#include "util/strv.h"

/* Largest databag value the decoders accept. */
#define SLURMD_IFACE_MAX_VALUE (64 * 1024)
/* Most controllers a list may hold. */
#define SLURMD_IFACE_MAX_CONTROLLERS 16

struct compute_data {
        char *name;                     /* partition, NodeSet and Feature name: the slurmd app */
        struct slurm_options partition; /* partition parameters, without PartitionName/Nodes */
};

struct controller_data {
        char *auth_key_id;
        struct strv controllers; /* "host:port", primary first */
};

/* Initialize before the first decode into a struct (a decode clears what it replaces). */
#define COMPUTE_DATA_INIT \
        { .name = NULL, .partition = SLURM_OPTIONS_INIT }
#define CONTROLLER_DATA_INIT \
        { .auth_key_id = NULL, .controllers = STRV_INIT }

/* Longest application name the charms take (Juju sets none; Slurm names stay readable). */
#define SLURMD_IFACE_MAX_APP_NAME 50

/* Whether name is a valid Juju application name (juju/names' grammar: a lowercase letter, then
 * lowercase letters and digits in parts joined by single hyphens, each part after a hyphen
 * holding a letter) of at most SLURMD_IFACE_MAX_APP_NAME characters. Such a name is safe as a
 * Slurm partition, NodeSet and feature name, is one host in a hostlist, and never equals a
 * node name "<app>-<unit number>" (so a node name never expands to a NodeSet). */
bool slurmd_iface_valid_app_name(const char *name);
/* Why name is a Slurm keyword where the charms put application names (Nodes=ALL, the
 * NAME=DEFAULT lines), or NULL when it is not one. Case-insensitive. */
const char *slurmd_iface_reserved_name(const char *name);
/* Valid and not reserved: what the slurmd interface carries. */
bool slurmd_iface_usable_app_name(const char *name);

/* Encodes the slurmd side: ret_partition and ret_nodeset are new JSON strings (caller frees).
 * params must not hold PartitionName or Nodes (-EINVAL). */
int compute_data_encode(
        const char *app, const struct slurm_options *params, char **ret_partition, char **ret_nodeset);
/* Decodes what the slurmd application remote_app published (either value may be NULL). */
int compute_data_decode(const char *remote_app, const char *partition_json, const char *nodeset_json,
        struct compute_data *ret, struct strbuf *err);
void compute_data_clear(struct compute_data *d);

/* Encodes the controller list (ret: new JSON string). -EINVAL when a controller is not a valid
 * host:port or the list is empty or too long. */
int controllers_encode(char *const *controllers, char **ret);
/* Decodes what the slurmctld application published (either value may be NULL). */
int controller_data_decode(const char *auth_key_id, const char *controllers_json,
        struct controller_data *ret, struct strbuf *err);
void controller_data_clear(struct controller_data *d);

/* Decodes field (a JSON list of "host:port", 1 to max distinct entries; what names one in
 * messages) into *ret (replaced). -EINVAL with a message otherwise, *ret untouched. Shared
 * by the interfaces that carry daemon addresses (slurmd, slurmdbd). */
int hostport_list_decode(const char *field, const char *what, const char *json, size_t max, struct strv *ret,
        struct strbuf *err);
/* Whether id is a Juju secret id; false with "relation data: <field> "…" is not a secret id". */
bool slurmd_iface_check_secret_id(const char *field, const char *id, struct strbuf *err);

/* Whether s is a DNS name or dotted IPv4 address. */
bool slurmd_iface_valid_host(const char *s);
/* Whether s is a Slurm cluster name as the charms make and take them: a-z first, then a-z,
 * 0-9, '_' and '-', at most 40 (slurmdbd's table names are made from it). */
bool slurmd_iface_valid_cluster_name(const char *s);

/* Whether s is a valid "host:port" (host: a DNS name or dotted IPv4 address). */
bool slurmd_iface_valid_controller(const char *s);
/* Whether s looks like a Juju secret id ("secret:…" or "secret://…", URI-safe characters). */
bool slurmd_iface_valid_secret_id(const char *s);

/* slurmd unit → its UNIT bag:
 *   node         the unit's Slurm node name, set once slurmctld registered the node: the
 *                controller units' hook that follows counts it in their status (issue 28: under
 *                Juju a controller's hook for the unit's arrival may run before the registration).
 *                The controllers read nothing from it. */
#define SLURMD_UNIT_NODE_KEY "node"

/* slurmd unit → its UNIT bag (issue 30 §4, jobs share nodes):
 *   node-resources  {"cpus": N, "real-memory": MiB, "mem-spec-limit": MiB} of the node as
 *                   slurmctld registered it (slurmd's report, with node-config's over it); set
 *                   with "node" and refreshed by each hook. The controllers take each
 *                   partition's default memory per CPU from these (charm/slurmctld/memdef.h).
 * Bounds: cpus 1 to 65535 (Slurm's uint16), real-memory 1 to 2^40 MiB, mem-spec-limit below
 * real-memory; anything else (or another key) is refused with one message. */
#define SLURMD_UNIT_RESOURCES_KEY "node-resources"
#define SLURMD_IFACE_MAX_MEMORY_MB (1ULL << 40)
struct node_resources {
        uint16_t cpus;
        uint64_t real_memory;    /* MiB */
        uint64_t mem_spec_limit; /* MiB, 0 none */
};
/* ret: a new JSON string. -EINVAL outside the bounds above. */
int node_resources_encode(const struct node_resources *r, char **ret);
/* 0 decoded, -ENODATA absent or empty (ret untouched), -EINVAL bad (one message). */
int node_resources_decode(const char *json, struct node_resources *ret, struct strbuf *err);

/* --- GPUs (issue 12) ---------------------------------------------------------------------------
 * slurmd unit → its UNIT bag:
 *   gpu-devices  JSON list of the node's GPU device files ("/dev/nvidia0", …; [] or absent:
 *                none), what the controller puts in gres.conf for that node
 * slurmctld leader → its app bag:
 *   gres         JSON object: comma-joined device file list → hostlist of the nodes whose
 *                gres.conf lines the running slurmctld serves with those files, e.g.
 *                {"/dev/nvidia0,/dev/nvidia1": "gpu-[0-3]"}; a GPU unit starts slurmd once its
 *                node is listed under its own files */
#define SLURMD_IFACE_MAX_GPUS 64
#define SLURMD_IFACE_MAX_DEVICE_PATH 128

/* Whether s is a device file path the charms put in gres.conf: "/dev/" then [A-Za-z0-9._/-]
 * (no "..", no "//", no trailing "/"), at most SLURMD_IFACE_MAX_DEVICE_PATH characters. */
bool slurmd_iface_valid_device(const char *s);
/* Encodes a device list (sorted as given; ret: new JSON string). -EINVAL for a bad or repeated
 * path or more than SLURMD_IFACE_MAX_GPUS. */
int gpu_devices_encode(char *const *files, char **ret);
/* Decodes a unit's gpu-devices (json NULL or empty: 0 with no entries, a unit without GPUs or an
 * older charm); -EINVAL with one message when it is not a list of distinct valid paths. */
int gpu_devices_decode(const char *json, struct strv *ret, struct strbuf *err);
/* Whether the controller's published gres (NULL or empty: nothing served yet) lists node under
 * exactly files: 1 yes, 0 no, -EINVAL bad data (one message). */
int gres_served_covers(const char *json, const char *node, char *const *files, struct strbuf *err);

/* --- the Slurm generation (issue 14) -----------------------------------------------------------
 * Each side's leader → its app bag (an application has one base, so one Slurm):
 *   slurm  JSON object {"version": "24.11.5", "auth": "auth/slurm"}: the Slurm release its
 *          charm was built against and the AuthType it runs. Absent: a charm from before this
 *          key (no check). The controller leaves out an application it cannot take, and a
 *          compute unit refuses a controller it cannot join (lib/slurm/caps.h says which). */
#define SLURMD_IFACE_MAX_VERSION 32
struct slurm_generation {
        char *version; /* "MAJOR.MINOR.MICRO" digits, e.g. "22.05.8" */
        char *auth;    /* "auth/<lowercase letters>" */
};
#define SLURM_GENERATION_INIT \
        { .version = NULL, .auth = NULL }
/* ret: a new JSON string. -EINVAL when version or auth has not the shape above. */
int slurm_generation_encode(const char *version, const char *auth, char **ret);
/* 0 decoded (ret replaced), -ENODATA absent or empty (ret untouched), -EINVAL bad (one message). */
int slurm_generation_decode(const char *json, struct slurm_generation *ret, struct strbuf *err);
void slurm_generation_clear(struct slurm_generation *g);

/* --- the programs slurmd runs (issue 26 item 1) --------------------------------------------------
 * A program (or file) slurm.conf names for slurmd is published to the compute nodes only once
 * every compute unit judged it safe on its own machine (charm/common/nodeprogs.h says why and how).
 * slurmctld leader → its app bag:
 *   node-programs          JSON object {"want": SET, "live": SET}: the items of
 *                          slurm-conf-parameters that name a file or program for slurmd as the
 *                          admin set them (want) and as the live slurm.conf has them (live)
 * slurmd unit → its UNIT bag:
 *   node-programs-verdict  JSON object {"judged": SET, "why": "…"}: the want SET this unit
 *                          judged on its machine, and its first failure there ("" or absent:
 *                          every item is safe here)
 * A SET is a JSON object KEY → VALUE over the NODE path keys of slurmconf/pathkeys.h (canonical
 * spelling) and SlurmdUser (whose uid SlurmdLogFile must belong to); values are non-empty
 * printable strings. Absent: a charm from before these keys (no gate). */
#define SLURMD_IFACE_NODE_PROGS_KEY "node-programs"
#define SLURMD_IFACE_NODE_VERDICT_KEY "node-programs-verdict"
#define SLURMD_IFACE_MAX_PROG_VALUE 4096 /* the option parser's longest value and more */
#define SLURMD_IFACE_MAX_VERDICT_WHY 1024

/* The canonical spelling of key when it may be in a SET (a NODE path key or SlurmdUser, any
 * case), else NULL. */
const char *slurmd_iface_node_prog_key(const char *key);
/* ret: a new JSON string (keys sorted). -EINVAL for a key or value a SET may not hold. */
int node_progs_encode(const struct slurm_options *want, const struct slurm_options *live, char **ret);
/* 0 decoded (want and live replaced), -ENODATA absent or empty (untouched), -EINVAL bad (one
 * message, untouched). */
int node_progs_decode(const char *json, struct slurm_options *want, struct slurm_options *live, struct strbuf *err);
/* A SET alone (the controllers' peer app bag: node-programs-released, charm/common/nodeprogs.h):
 * ret a new JSON string, -EINVAL for a bad SET; decode as node_progs_decode. */
#define SLURMD_IFACE_NODE_RELEASED_KEY "node-programs-released"
int node_progs_set_encode(const struct slurm_options *set, char **ret);
int node_progs_set_decode(const char *json, struct slurm_options *ret, struct strbuf *err);
/* why NULL or "": safe. ret: a new JSON string. -EINVAL for a bad SET. */
int node_verdict_encode(const struct slurm_options *judged, const char *why, char **ret);
/* As node_progs_decode; *why is a new string ("" when safe). */
int node_verdict_decode(const char *json, struct slurm_options *judged, char **why, struct strbuf *err);
