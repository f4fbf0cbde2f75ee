#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The report ./dev test prints after meson's summaries: for each failed test its name, duration
# and exit status, the first failed check, the last lines of its log and the daemons' log lines
# it collected; with --tally, each test's pass count over repeated runs; last, one summary line.
# usage: test-report.py [--tally] [--tail N] TESTLOG.json…   (exit 1 when a test failed)
import json
import re
import signal
import sys

PASS = ("OK", "EXPECTEDFAIL")
# what a failed check looks like in our tests' output: charm-lib/machine-lib die() and the ERR
# trap ("name: FAIL: …", charm-lib's with the test's seconds: "name: [  12s] FAIL: …"), the model
# suite's fail(), cmocka, meson's own timeout
# in order of preference: a test's own FAIL line names the check best, then cmocka's error (with
# the [ LINE ] that follows it), then the names of failed cases and C assertions
FAILED_CHECKS = [re.compile(r"^\s*(\S+: )?(\[ *\d+s\] )?FAIL: "), re.compile(r"\[  ERROR   \]"),
                 re.compile(r"\[  FAILED  \]|Assertion .* failed|[Ff]ailure!")]
# the daemon log sections charm-lib's daemon_logs_tail() and slurm-lib's cluster_down() print
LOG_HEADER = re.compile(r"^\S+: (== \S+, last \d+ lines|--- \S+ \(tail\))$")


def records(paths):
    """(record, where) for each test run in the logs: where names the log (its build directory
    and log name, e.g. build-asan/testlog-asan), so that the same test of two builds or two
    repeated runs can be told apart. A log that is missing is a failure of its own."""
    for path in paths:
        parts = path.split("/")
        where = "/".join(p for p in (parts[0] if len(parts) > 2 else "", parts[-1].removesuffix(".json")) if p)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as e:
            yield {"name": f"(no test log {path})", "result": "ERROR", "returncode": None,
                   "stdout": f"FAIL: {path}: {e.strerror}: meson wrote no log (it failed before any test ran?)"}, where
            continue
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line), where
            except ValueError:
                # a line cut short (meson killed while writing, a full disk): the records
                # before it stand, this one is a failure of its own
                yield {"name": f"(unreadable record {path}:{n})", "result": "ERROR", "returncode": None,
                       "stdout": f"FAIL: {path} line {n} is not JSON: {line[:200]}"}, where


def output_of(r):
    # ./dev test runs meson with --no-stdsplit: one stream, in the order it was written; a log
    # written without it has stderr apart, put last
    out = (r.get("stdout") or "").splitlines()
    err = (r.get("stderr") or "").splitlines()
    return out + err


def first_failed_check(lines):
    for pat in FAILED_CHECKS:
        for i, l in enumerate(lines):
            if pat.search(l):
                first = l.strip()
                if "[  ERROR   ]" in l and i + 1 < len(lines) and "[   LINE   ]" in lines[i + 1]:
                    first += " " + lines[i + 1].strip()
                return first[:400]
    return None


def daemon_sections(lines):
    """The daemon log lines the test printed: each header and the lines under it."""
    res, inside = [], False
    for line in lines:
        if LOG_HEADER.match(line):
            inside = True
            res.append(line)
        elif inside and re.match(r"^\S+\.sh: ", line):
            inside = False
        elif inside:
            res.append(line)
    return res


def status_text(rc):
    """An exit status as meson records it: negative is the signal that killed the test."""
    if rc is None:
        return "no exit status"
    if rc < 0:
        try:
            return f"killed by signal {-rc} ({signal.Signals(-rc).name})"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


def printable(text):
    """One line: control characters (a newline, an escape in a test's name) shown, not obeyed."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def report_failure(r, tail, where):
    lines = output_of(r)
    rc = r.get("returncode")
    res = r.get("result")
    name = printable(str(r.get("name")))
    print(f"\n\033[1m==> FAILED {name}\033[0m [{where}] ({r.get('duration', 0):.1f} s, "
          f"result {res}, {status_text(rc)})")
    logs = daemon_sections(lines)
    in_logs = set(logs)
    body = [l for l in lines if l not in in_logs]
    # the test's own lines: a daemon's log line that says "FAIL: " names no check of the test
    first = first_failed_check(body)
    if first:
        pass
    elif res == "TIMEOUT":
        first = (f"(none printed: meson killed it at its timeout, after {r.get('duration', 0):.1f} s; "
                 "the log's last lines show where it was)")
    else:
        first = f"(none printed: {status_text(rc)}, no check named)"
    first = printable(first)
    print("first failed check: " + first)
    print(f"--- last {min(tail, len(body))} lines of its log ---")
    for l in body[-tail:]:
        print("  " + l[:400])
    if logs:
        print("--- the daemons' log lines it collected ---")
        for l in logs:
            print("  " + l[:400])
    # a result other than a plain failure says itself first: a test killed at its timeout may
    # have printed a FAIL line of its own on the way out
    how = "" if res == "FAIL" else f"{res}, {status_text(rc)}, {r.get('duration', 0):.0f} s; "
    return f"{name} [{where}]: {how}{first[:300]}"


def main(argv):
    tally = "--tally" in argv
    argv = [a for a in argv if a != "--tally"]
    tail = 80
    if "--tail" in argv:
        i = argv.index("--tail")
        tail = int(argv[i + 1])
        del argv[i:i + 2]
    ok = fail = skip = 0
    runs = {}
    failed = []
    for r, where in records(argv):
        res = r.get("result")
        name = r["name"].split(" / ", 1)[-1]
        passed, seen = runs.get(name, (0, 0))
        if res in PASS:
            ok += 1
            runs[name] = (passed + 1, seen + 1)
        elif res == "SKIP":
            skip += 1
        else:
            fail += 1
            runs[name] = (passed, seen + 1)
            failed.append(report_failure(r, tail, where))
    if tally and runs:
        print("\n\033[1m==> pass counts\033[0m")
        for name in sorted(runs, key=lambda n: (runs[n][0] - runs[n][1], n)):
            passed, seen = runs[name]
            mark = "" if passed == seen else "   <- flaky or failing"
            print(f"  {name:40s} {passed} of {seen}{mark}")
    # the failures again, last: a reader who sees only the end of the output (CI keeps a tail)
    # still learns which test failed and at which check
    for line in failed:
        print("FAILED " + line)
    print(f"tests: {ok} passed, {fail} failed, {skip} skipped")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
