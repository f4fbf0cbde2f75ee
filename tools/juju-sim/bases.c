/* SPDX-License-Identifier: Apache-2.0 */
/* Juju 3.x machine-charm bases (bases.h): the manifest's OS names and the supported workload
 * bases, as juju/juju internal/charm/base.go and core/base/supportedseries.go list them. */
#include "util/macro.h"

#include "bases.h"
#include "util/banned.h"

const char juju_bases_accepted[] = "ubuntu@20.04, ubuntu@22.04, ubuntu@24.04, centos@7, centos@9";

int juju_base_check(const char *os, const char *channel, struct strbuf *err) {
        static const char *const valid_os[] = { "ubuntu", "centos", "windows", "osx", "opensuse",
                "genericlinux" };
        static const struct {
                const char *os, *track;
        } workload[] = { { "ubuntu", "20.04" }, { "ubuntu", "22.04" }, { "ubuntu", "24.04" },
                { "centos", "7" }, { "centos", "9" } };
        bool known = false;
        for (size_t i = 0; i < ELEMENTSOF(valid_os); i++)
                known = known || streq(os, valid_os[i]);
        if (!known) {
                strbuf_addf(err, "os \"%s\" not valid", os);
                return -EINVAL;
        }
        if (isempty(channel)) {
                strbuf_addstr(err, "channel not valid");
                return -EINVAL;
        }
        size_t tl = strcspn(channel, "/");
        const char *risk = channel[tl] ? channel + tl + 1 : "stable";
        for (size_t i = 0; i < ELEMENTSOF(workload); i++)
                if (streq(os, workload[i].os) && strlen(workload[i].track) == tl &&
                        strncmp(channel, workload[i].track, tl) == 0 && startswith(risk, "stable"))
                        return 0;
        strbuf_addf(err, "base \"%s@%s\" is not a supported machine base (Juju 3.x: %s)", os, channel,
                juju_bases_accepted);
        return -EINVAL;
}
