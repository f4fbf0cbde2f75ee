/* SPDX-License-Identifier: Apache-2.0 */
/* A charm as juju-sim sees it: metadata.yaml endpoints, config.yaml options and actions.yaml,
 * read with libyaml into one cJSON description, and the value checks Juju applies to them.
 *
 * The description (owned by the caller, cJSON_Delete):
 *   { "name": S, "endpoints": { EP: { "role": "provides"|"requires"|"peers", "interface": S,
 *     "limit": N? } }, "options": { KEY: { "type": S, "default": V?, "description": S } },
 *     "actions": { NAME: { "params": {…}, "required": [...], "additionalProperties": B } } }
 * Invariants: every endpoint has a role and an interface; every option type is one of string, int,
 * float, boolean, secret. */
#pragma once

#include <cjson/cJSON.h>

#include "util/strbuf.h"

int charm_load(const char *dir, cJSON **ret, struct strbuf *err);

/* Parses the command-line text of a config value for option `key` (typed by its type).
 * -EINVAL with a message for an unknown option or a value not of the option's type. */
int charm_config_value(
        const cJSON *charm, const char *key, const char *text, cJSON **ret, struct strbuf *err);

/* The effective configuration: defaults overlaid with the set values; options with neither are
 * left out unless all (then null). The caller frees the result. */
cJSON *charm_config_effective(const cJSON *charm, const cJSON *set, bool all);

/* Builds an action's parameters as `juju run` and the controller do (actionparams.h): the
 * --params YAML (or NULL), then K=V arguments (dotted keys nest, values YAML-typed unless
 * string_args), validated against the action's schema, then the defaults. */
int charm_action_params(const cJSON *charm, const char *action, const char *params_yaml, char *const *kv,
        bool string_args, cJSON **ret, struct strbuf *err);
