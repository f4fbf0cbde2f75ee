/* SPDX-License-Identifier: Apache-2.0 */
/* Test driver for charm/common/watcher.h on a juju-sim machine: `watcher-drive remove SERVICE` runs
 * watcher_remove() against the machine's systemd (the charms call it on their way out). */
#include "util/macro.h"
#include "charm/common/watcher.h"

#include "util/banned.h"

int main(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_strbuf_ struct strbuf err = STRBUF_INIT;
        const struct charm_paths paths = { .root = "" };

        if (argc != 3 || !streq(argv[1], "remove")) {
                fprintf(stderr, "usage: watcher-drive remove SERVICE\n");
                return 2;
        }
        int r = unit_bus_open(&bus, &err);
        if (r >= 0)
                r = watcher_remove(&paths, bus, argv[2], &err);
        if (r < 0) {
                fprintf(stderr, "watcher-drive: %s\n", err.buf);
                return 1;
        }
        printf("%d\n", r);
        return 0;
}
