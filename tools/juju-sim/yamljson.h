/* SPDX-License-Identifier: Apache-2.0 */
/* YAML <-> cJSON for juju-sim: charm YAML files and `relation-set --file` read with libyaml,
 * values printed as YAML, and Juju's "smart" output format.
 *
 * Invariants: yaml_to_json() returns a tree of objects, arrays and scalars; with typed=false
 * every scalar becomes a JSON string (its text as written), with typed=true plain scalars are
 * typed as YAML 1.1 does for null, booleans, integers and floats. Ownership: returned trees and
 * strings belong to the caller (cJSON_Delete / free). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "util/strbuf.h"

/* Parses the first YAML document in data. An empty document gives a JSON null. */
int yaml_to_json(const char *data, size_t len, bool typed, cJSON **ret, struct strbuf *err);
/* Parses the file at path (as yaml_to_json). -ENOENT when it does not exist. */
int yaml_file_to_json(const char *path, bool typed, cJSON **ret, struct strbuf *err);
/* Types one plain scalar as YAML would (null, true/false, int, float, else string). */
cJSON *yaml_scalar_typed(const char *s);

/* Appends v as a YAML document (block style, two-space indent, ends with a newline unless
 * v is an empty map or list, printed as {} / []). */
void json_to_yaml(struct strbuf *out, const cJSON *v);

/* Output formats shared by the hook tools and the CLI. */
enum out_format { FORMAT_SMART, FORMAT_JSON, FORMAT_YAML };
int parse_format(const char *s, enum out_format *ret);
/* Appends v as juju/cmd's formatters print a Go value (output.go), maps with sorted keys as Go
 * prints a map. v NULL or a JSON null is Go's nil: nothing in yaml and smart, "null" in json.
 * json: encoding/json (HTML-safe escapes, Go's float format). yaml: the YAML emitter below.
 * smart (FormatSmart): a string bare (an empty one prints nothing), a bool True/False, a list of
 * strings one per line (an empty one prints nothing), anything else as yaml. */
void format_value(struct strbuf *out, const cJSON *v, enum out_format f);
/* As format_value, keys kept in the order given (a Go struct's fields). */
void format_struct(struct strbuf *out, const cJSON *v, enum out_format f);
/* Sorts o's members by key, byte order (one level; a Go map as its encoders print it). */
void json_sort_members(cJSON *o);
/* Appends v as Go's json.Marshal would (keys in the order given). */
void json_to_go_json(struct strbuf *out, const cJSON *v);

/* Case-sensitive object lookup (cJSON_GetObjectItem ignores case). */
static inline cJSON *jget(const cJSON *o, const char *k) {
        return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}
/* The string at o[k], or NULL when absent or not a string. */
const char *jstr(const cJSON *o, const char *k);
/* o[k] as an object, created when missing (or replaced when not an object). */
cJSON *jobj(cJSON *o, const char *k);
/* o[k] as an array, created when missing. */
cJSON *jarr(cJSON *o, const char *k);
/* Sets o[k] (replacing) to v; takes v. */
void jset(cJSON *o, const char *k, cJSON *v);
void jset_str(cJSON *o, const char *k, const char *s);
void jset_num(cJSON *o, const char *k, double d);
/* o[k] as a number, or def. */
double jnum(const cJSON *o, const char *k, double def);
/* Index of string s in array a, or -1. */
int jarr_find(const cJSON *a, const char *s);
/* Removes every string equal to s from a. */
void jarr_remove_str(cJSON *a, const char *s);

static inline void cJSON_Deletep(cJSON **p) {
        if (*p)
                cJSON_Delete(*p);
}
#define _cleanup_json_ __attribute__((__cleanup__(cJSON_Deletep)))
