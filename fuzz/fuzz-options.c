/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for option strings: the first byte picks the kind, the rest is the string.
 * Rejections leave the list untouched with a one-line message; the normalized form re-parses
 * to the same normalized form. */
#include "util/macro.h"

#include <stdint.h>

#include "slurmconf/options.h"
#include "util/strbuf.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok, const char *what) {
        if (!ok) {
                fprintf(stderr, "fuzz-options: %s\n", what);
                abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        enum slurm_options_kind kind = (enum slurm_options_kind)(data[0] % _SLURM_OPTIONS_KIND_MAX);
        struct slurm_options o = SLURM_OPTIONS_INIT, again = SLURM_OPTIONS_INIT;
        struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, out2 = STRBUF_INIT;

        slurm_options_set(&o, "Sentinel", "1");
        if (slurm_options_parse_mem((const char *) data + 1, size - 1, kind, &o, &err) < 0) {
                must(err.len > 0 && err.len <= 200 && !strchr(err.buf, '\n'), "bad error message");
                must(o.n == 1 && streq(o.items[0].key, "Sentinel"), "rejected string changed the list");
                goto done;
        }
        slurm_options_render(&o, &out);
        /* nothing that could end a line, a quoted word or a command reaches the output */
        for (size_t i = 0; i < out.len; i++)
                must(out.buf[i] >= 0x20 && out.buf[i] < 0x7f && !strchr("#'\\$`;&|<>", out.buf[i]),
                        "unsafe character in normalized output");
        if (kind == SLURM_OPTIONS_NODE)
                must(!strchr(out.buf, '"'), "quote in node options");
        strbuf_reset(&err);
        if (slurm_options_parse(out.buf, kind, &again, &err) < 0) {
                fprintf(stderr, "%s: %s\n", out.buf, err.buf);
                must(false, "normalized output does not parse");
        }
        slurm_options_render(&again, &out2);
        must(streq(out.buf, out2.buf), "normalized output not stable");
        must(again.n == o.n, "normalized output has another length");

done:
        slurm_options_clear(&o);
        slurm_options_clear(&again);
        strbuf_release(&err);
        strbuf_release(&out);
        strbuf_release(&out2);
        return 0;
}
