#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# tools/test-report.py on synthetic meson logs: every kind of failure ends with a FAILED line
# that names the test, its result when not a plain failure, and the test's own first check (not
# a daemon's line, not a passing line that quotes "FAIL: "); a line cut short is a failure of its
# own and the records before it stand; a missing log fails; the exit status is 1.
import json
import os
import subprocess
import sys
import tempfile

REPORT = os.path.join(os.environ.get("TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                      "tools", "test-report.py")


def rec(name, result, rc, out, duration=1.0):
    return json.dumps({"name": name, "result": result, "returncode": rc, "duration": duration, "stdout": out})


def main():
    d = tempfile.mkdtemp(prefix="test-report.")
    log = os.path.join(d, "build", "meson-logs", "testlog-x.json")
    os.makedirs(os.path.dirname(log))
    with open(log, "w") as f:
        print(rec("s:a / ok", "OK", 0, "fine\n"), file=f)
        print(rec("s:a / plain", "FAIL", 1, "t.sh: step\nt.sh: FAIL: the check\nt.sh: after\n"), file=f)
        print(rec("s:a / quoted", "FAIL", 1, 'ok: a hook said "FAIL: boom"\nt.sh: FAIL: real one\n'), file=f)
        print(rec("s:a / daemon", "FAIL", 1,
                  "t.sh: == 0/root/var/log/x.log, last 25 lines\nerror: FAIL: plugin\nt.sh: FAIL: mine\n"), file=f)
        print(rec("s:a / slow", "TIMEOUT", -15, "t.sh: FAIL: ended on the way out\n", 300), file=f)
        print(rec("s:a / killed", "FAIL", -9, "t.sh: waiting\n"), file=f)
        print(rec("s:a / odd\nname", "FAIL", 1, "FAIL: y\n"), file=f)
        print(rec("s:a / timed", "FAIL", 1, "t.sh: [  12s] step\nt.sh: [  13s] FAIL: the timed check\n"), file=f)
        f.write('{"name": "s:a / cut", "stdout": "FAIL:')
    # relative paths, as ./dev test gives them (the build directory names the log)
    out = subprocess.run([sys.executable, os.path.abspath(REPORT), "build/meson-logs/testlog-x.json", "nothere.json"],
                         capture_output=True, text=True, cwd=d)
    lines = out.stdout.splitlines()
    failed = [l for l in lines if l.startswith("FAILED ")]
    want = [
        "FAILED s:a / plain [build/testlog-x]: t.sh: FAIL: the check",
        "FAILED s:a / quoted [build/testlog-x]: t.sh: FAIL: real one",
        "FAILED s:a / daemon [build/testlog-x]: t.sh: FAIL: mine",
        "FAILED s:a / slow [build/testlog-x]: TIMEOUT, killed by signal 15 (SIGTERM), 300 s; t.sh: FAIL: ended on the way out",
        "FAILED s:a / killed [build/testlog-x]: (none printed: killed by signal 9 (SIGKILL), no check named)",
        "FAILED s:a / odd\\nname [build/testlog-x]: FAIL: y",
        "FAILED s:a / timed [build/testlog-x]: t.sh: [  13s] FAIL: the timed check",
    ]
    bad = []
    for w in want:
        if w not in failed:
            bad.append(f"missing: {w}")
    if not any("(unreadable record" in l and "line 9 is not JSON" in l for l in failed):
        bad.append("no FAILED line for the cut record")
    if not any("(no test log" in l and "meson wrote no log" in l for l in failed):
        bad.append("no FAILED line for the missing log")
    if lines[-1] != "tests: 1 passed, 9 failed, 0 skipped":
        bad.append(f"last line: {lines[-1]!r}")
    if lines[-10:-1] != failed or len(failed) != 9:
        bad.append("the FAILED lines are not the last lines before the summary")
    if out.returncode != 1:
        bad.append(f"exit status {out.returncode}")
    subprocess.run(["rm", "-rf", d])
    for b in bad:
        print("FAIL: " + b)
    if bad:
        print("\n".join(lines[-12:]))
        return 1
    print("ok: every failure has its FAILED line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
