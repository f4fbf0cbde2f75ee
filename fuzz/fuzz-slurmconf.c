/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the slurm.conf parser: any bytes parse or fail cleanly; a parsed input
 * renders back byte for byte; after edits the rendering parses again and is stable. */
#include "util/macro.h"

#include <stdint.h>

#include "slurmconf/conf.h"
#include "util/strbuf.h"
#include "util/strv.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok, const char *what) {
        if (!ok) {
                fprintf(stderr, "fuzz-slurmconf: %s\n", what);
                abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > 256 * 1024)
                return 0;
        struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, out2 = STRBUF_INIT, out3 = STRBUF_INIT;
        struct slurmconf *c = NULL, *again = NULL;
        struct strv names = STRV_INIT;
        struct slurm_options o = SLURM_OPTIONS_INIT;

        if (slurmconf_parse("fuzz.conf", (const char *) data, size, &c, &err) < 0) {
                must(err.len > 0, "failed parse without a message");
                goto done;
        }
        slurmconf_render(c, &out);
        must(out.len == size && memcmp(out.buf, data, size) == 0, "render(parse(x)) != x");

        /* read every named line back, then edit with what was read */
        for (unsigned kind = SLURMCONF_NODE; kind < _SLURMCONF_SCOPE_MAX; kind++) {
                strv_clear(&names);
                slurmconf_names(c, kind, &names);
                for (size_t i = 0; i < names.n && i < 64; i++) {
                        slurm_options_clear(&o);
                        must(slurmconf_lookup(c, kind, names.v[i], &o) == 0,
                                "lookup of a listed name failed");
                }
                if (names.n > 0) {
                        slurm_options_clear(&o);
                        (void) slurmconf_lookup(c, kind, names.v[0], &o);
                        (void) slurmconf_upsert(c, kind, names.v[0], &o, NULL);
                        if (names.n > 1)
                                must(slurmconf_remove(c, kind, names.v[names.n - 1]) == 0, "remove failed");
                }
        }
        slurm_options_clear(&o);
        slurm_options_set(&o, "Nodes", "fz[1-2]");
        slurm_options_set(&o, "MaxTime", "1-00:00:00");
        must(slurmconf_upsert(c, SLURMCONF_PARTITION, "fz", &o, NULL) >= 0, "upsert failed");
        must(slurmconf_set(c, "ClusterName", "fuzz #1", NULL) == 0, "set failed");
        char *hosts[] = { "a(10.0.0.1)", "b" };
        must(slurmconf_set_all(c, "SlurmctldHost", hosts, 2, NULL) == 0, "set_all failed");
        (void) slurmconf_unset(c, "SlurmdTimeout");
        must(slurmconf_include_add(c, "fz.conf", NULL) >= 0, "include_add failed");
        strv_clear(&names);
        if (slurmconf_includes(c, &names) > 1)
                must(slurmconf_include_remove(c, names.v[0]) == 0, "include_remove failed");

        slurmconf_render(c, &out2);
        strbuf_reset(&err);
        if (slurmconf_parse("edited.conf", out2.buf, out2.len, &again, &err) < 0) {
                fprintf(stderr, "%s\n--- rendered:\n%s\n", err.buf, out2.buf);
                must(false, "the edited rendering does not parse");
        }
        must(streq_ptr(slurmconf_get(again, "ClusterName"), "fuzz #1"), "edited value lost");
        slurmconf_render(again, &out3);
        must(out3.len == out2.len && memcmp(out3.buf, out2.buf, out2.len) == 0, "edited rendering unstable");

done:
        slurm_options_clear(&o);
        strv_clear(&names);
        slurmconf_free(again);
        slurmconf_free(c);
        strbuf_release(&err);
        strbuf_release(&out);
        strbuf_release(&out2);
        strbuf_release(&out3);
        return 0;
}
