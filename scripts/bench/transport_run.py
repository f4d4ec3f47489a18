#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/transport_run.py: runs one reader of bench-transport and
# measures it: wall time, the process's CPU time (user + system of it and
# every descendant it waited for, from wait4, as `time` reports it) and the
# machine's busy time over the run (/proc/stat: every CPU, or those of
# --cpus, less idle and iowait), so that receive work done in softirq context
# and charged to no process is counted too. Stdlib only.
#
#   transport_run.py --json OUT [--cpus 0-3,8] -- CMD [ARGS...]
#
# Writes {"rc", "wall_s", "cpu_s", "busy_s"} to OUT; exits with CMD's status.
import argparse
import json
import os
import subprocess
import sys
import time


def cpu_list(spec):
    cpus = set()
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def busy_ticks(cpus):
    """Busy jiffies (all but idle and iowait) of the CPUs (None: all)."""
    total = 0
    with open("/proc/stat") as f:
        for line in f:
            if not line.startswith("cpu") or line.startswith("cpu "):
                continue
            name, *v = line.split()
            if cpus is not None and int(name[3:]) not in cpus:
                continue
            v = [int(x) for x in v]
            total += sum(v[:8]) - v[3] - v[4]  # user..steal, less idle, iowait
    return total


def main():
    ap = argparse.ArgumentParser(description="one bench-transport reader, measured")
    ap.add_argument("--json", required=True)
    ap.add_argument("--cpus")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    cpus = cpu_list(a.cpus) if a.cpus else None
    hz = os.sysconf("SC_CLK_TCK")
    b0, t0 = busy_ticks(cpus), time.monotonic()
    p = subprocess.Popen(cmd)
    _, status, ru = os.wait4(p.pid, 0)
    t1, b1 = time.monotonic(), busy_ticks(cpus)
    rc = os.waitstatus_to_exitcode(status)
    with open(a.json, "w") as f:
        json.dump({"rc": rc, "wall_s": t1 - t0, "cpu_s": ru.ru_utime + ru.ru_stime,
                   "busy_s": (b1 - b0) / hz}, f)
        f.write("\n")
    sys.exit(rc if rc >= 0 else 1)


if __name__ == "__main__":
    main()
