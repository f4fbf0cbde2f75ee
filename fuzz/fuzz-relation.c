/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the relation-data decoders (interfaces/slurmd.c): data from the other side
 * of a relation is outside input. The first byte picks the decoder, NUL bytes split the fields. */
#include "util/macro.h"

#include <stdint.h>

#include "slurmd.h"
#include "util/alloc.h"
#include "util/strbuf.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok, const char *what) {
        if (!ok) {
                fprintf(stderr, "fuzz-relation: %s\n", what);
                abort();
        }
}

/* Splits data at NUL bytes into at most max fields (NULL when missing). */
static size_t split(const uint8_t *data, size_t size, char **fields, size_t max) {
        size_t n = 0, start = 0;
        for (size_t i = 0; i <= size && n < max; i++)
                if (i == size || data[i] == '\0') {
                        fields[n++] = xstrndup((const char *) data + start, i - start);
                        start = i + 1;
                }
        for (size_t i = n; i < max; i++)
                fields[i] = NULL;
        return n;
}

static void check_message(int r, const struct strbuf *err) {
        if (r == -EINVAL)
                must(err->len > 0 && err->len <= 400 && !strchr(err->buf, '\n'), "bad error message");
        else
                must(r == 0 || r == -ENODATA, "unexpected return value");
}

static void fuzz_compute(char **f) {
        struct compute_data d = COMPUTE_DATA_INIT, again = COMPUTE_DATA_INIT;
        struct strbuf err = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
        char *part = NULL, *ns = NULL;

        d.name = xstrdup("sentinel");
        int r = compute_data_decode(f[0], f[1], f[2], &d, &err);
        check_message(r, &err);
        if (r < 0) {
                must(streq(d.name, "sentinel") && d.partition.n == 0, "a refused bag changed the result");
                goto done;
        }
        must(streq(d.name, f[0]), "decoded name is not the remote application");
        must(!slurm_options_get(&d.partition, "PartitionName") && !slurm_options_get(&d.partition, "Nodes"),
                "owned key in decoded partition");
        /* what was decoded encodes and decodes to the same */
        must(compute_data_encode(d.name, &d.partition, &part, &ns) == 0, "decoded data does not encode");
        strbuf_reset(&err);
        must(compute_data_decode(d.name, part, ns, &again, &err) == 0, "re-encoded data does not decode");
        slurm_options_render(&d.partition, &a);
        slurm_options_render(&again.partition, &b);
        must(streq(a.buf, b.buf) && streq(d.name, again.name), "round trip changed the data");
done:
        free(part);
        free(ns);
        compute_data_clear(&d);
        compute_data_clear(&again);
        strbuf_release(&err);
        strbuf_release(&a);
        strbuf_release(&b);
}

static void fuzz_controller(char **f) {
        struct controller_data d = CONTROLLER_DATA_INIT, again = CONTROLLER_DATA_INIT;
        struct strbuf err = STRBUF_INIT;
        char *json = NULL;

        d.auth_key_id = xstrdup("sentinel");
        int r = controller_data_decode(f[0], f[1], &d, &err);
        check_message(r, &err);
        if (r < 0) {
                must(streq(d.auth_key_id, "sentinel") && d.controllers.n == 0,
                        "a refused bag changed the result");
                goto done;
        }
        must(slurmd_iface_valid_secret_id(d.auth_key_id), "decoded secret id is not valid");
        must(d.controllers.n >= 1 && d.controllers.n <= SLURMD_IFACE_MAX_CONTROLLERS, "controller count");
        must(controllers_encode(d.controllers.v, &json) == 0, "decoded controllers do not encode");
        strbuf_reset(&err);
        must(controller_data_decode(d.auth_key_id, json, &again, &err) == 0,
                "re-encoded controllers do not decode");
        must(again.controllers.n == d.controllers.n, "round trip changed the count");
        for (size_t i = 0; i < d.controllers.n; i++)
                must(streq(again.controllers.v[i], d.controllers.v[i]), "round trip changed a controller");
done:
        free(json);
        controller_data_clear(&d);
        controller_data_clear(&again);
        strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1 || size > 128 * 1024)
                return 0;
        char *f[3];
        split(data + 1, size - 1, f, 3);
        if (data[0] & 1)
                fuzz_controller(f);
        else
                fuzz_compute(f);
        for (size_t i = 0; i < 3; i++)
                free(f[i]);
        return 0;
}
