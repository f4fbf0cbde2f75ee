/* SPDX-License-Identifier: Apache-2.0 */
/* Action parameters as `juju run` and the controller make them (Juju 3.x):
 * - the CLI (juju/juju cmd/juju/action/run.go): `--params FILE` (a YAML map) first, then each
 *   `key.key…=value` argument on top (addValueToMap: dotted keys nest, a non-map in the way is
 *   replaced), each value parsed as YAML (yaml.v2: `3` an integer, `true`/`yes`/`on` a boolean,
 *   `[1, 2]` a list, an empty value stays "") unless --string-args; keys follow the action name
 *   rule ^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$.
 * - the controller (internal/charm/actions.go ReadActionsYaml, ValidateParams, InsertDefaults;
 *   github.com/juju/gojsonschema): the action's schema is {type: object, properties: <params>,
 *   additionalProperties: false, …} with the action's own keys (required, additionalProperties)
 *   over it; params are validated BEFORE the defaults are inserted (so a required parameter with
 *   a default must still be given); defaults keep their YAML type and nest into objects.
 *   Errors read "validation failed: (root).n : must be of type integer, given \"x\"" joined by
 *   "; " (gojsonschema's RESULT_ERROR_FORMAT), the value as Go's json.Marshal prints it.
 * Ownership: returned trees belong to the caller. */
#pragma once

#include <stdbool.h>
#include <cjson/cJSON.h>

#include "util/strbuf.h"

/* The CLI side: params_yaml (the --params file's contents, or NULL), then kv (NULL-terminated
 * "k.k=v" arguments). Returns 0 or -EINVAL with Juju's message. */
int action_params_parse(
        const char *params_yaml, char *const *kv, bool string_args, cJSON **ret, struct strbuf *err);

/* runCommand.Init's check of the key=value arguments (no '=', a bad key): 0 or -EINVAL. */
int action_params_check_args(char *const *kv, struct strbuf *err);

/* The controller side: validates params against the action definition (actions.yaml's entry)
 * and inserts the defaults. Returns 0 with the final params, or -EINVAL with the message. */
int action_params_validate(const cJSON *def, const cJSON *params, cJSON **ret, struct strbuf *err);

/* ^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$ (charm.GetActionNameRule) */
bool action_name_valid(const char *s);
