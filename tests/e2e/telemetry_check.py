#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""xio-pipeline's DPDK telemetry, from outside the process.

  telemetry_check.py query PREFIX OUT.json [--frames N] [--timeout S]
      Connects to the telemetry socket of the EAL started with
      --file-prefix PREFIX (waiting for it), and, with --frames, waits until
      N frames went in and every stage is done with them (the counters stop
      moving). Then asks every /xio command and writes {command: reply}.
  telemetry_check.py live LINES.txt
      Checks the replies dpdk-telemetry.py printed (one JSON per line) for
      a running load: every command answered, keys snake_case, numbers sane.
  telemetry_check.py final REPLIES.json STATS.json
      The replies of a finished run against its stats JSON: equal.
Prints what does not hold and exits 1, or exits 0.
"""
import json
import os
import re
import socket
import sys
import time

COMMANDS = ["/xio/stats", "/xio/reasons", "/xio/reasons,dropped", "/xio/stages",
            "/xio/lcores", "/xio/directions", "/xio/ports"]
TOTALS = ["rx_packets", "tx_packets", "dropped_packets", "narrowed_packets", "tokens_narrowed",
          "tokens_saturated", "bytes_in", "bytes_out"]
STATS_KEYS = set(TOTALS) | {"driver", "mode", "rx_queues", "burst", "running", "elapsed_ms",
                            "tsc_hz", "payload_bytes_saved", "long_chains"}
SUMMARY_KEYS = {"stage", "queue", "lcore", "packets", "bytes", "bursts", "empty_polls",
                "busy_cycles", "cycles_per_packet", "dropped"}
KEY = re.compile(r"^[a-z0-9_]+$")


def socket_path(prefix):
    """Where the EAL puts the socket: dpdk-telemetry.py's rule."""
    run = os.environ.get("RUNTIME_DIRECTORY")
    if not run:
        run = "/var/run" if os.getuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(run, "dpdk", prefix, "dpdk_telemetry.v2")


class Client:
    def __init__(self, prefix, timeout):
        path = socket_path(prefix)
        end = time.time() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.time() > end:
                    raise SystemExit(f"no telemetry socket at {path}")
                time.sleep(0.1)
        self.max = json.loads(self.s.recv(1024).decode())["max_output_len"]

    def ask(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(self.max).decode())[cmd.split(",")[0]]


def with_stage_details(c, replies):
    for name in replies["/xio/stages"]:
        replies["/xio/stages," + name] = c.ask("/xio/stages," + name)
    return replies


def settled(c, frames):
    """N frames in and every stage done with them."""
    st = c.ask("/xio/stats")
    if st is None or st["rx_packets"] != frames:
        return False
    took = {"rtc": 0, "rx": 0, "work": 0, "tx": 0}
    for s in c.ask("/xio/stages").values():
        took[s["stage"]] += s["packets"]
    if took["rx"] + took["rtc"] != frames or took["work"] + took["rtc"] != frames:
        return False
    return st["mode"] == "rtc" or took["tx"] == st["tx_packets"]


def query(prefix, out, frames, timeout):
    c = Client(prefix, timeout)
    end = time.time() + timeout
    while frames is not None and not settled(c, frames):
        if time.time() > end:
            print(f"not settled at {frames} frames: {c.ask('/xio/stats')}")
            return 1
        time.sleep(0.05)
    replies = with_stage_details(c, {cmd: c.ask(cmd) for cmd in COMMANDS})
    json.dump(replies, open(out, "w"), indent=1)
    return 0


def keys_ok(obj, where, bad):
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not KEY.match(k):
                bad.append(f"{where}: key {k!r} is not snake_case")
            keys_ok(v, f"{where}.{k}", bad)


def shape(r, bad):
    """What every reply must look like, running or not."""
    for cmd, v in r.items():
        keys_ok(v, cmd, bad)
    st = r["/xio/stats"]
    if set(st) != STATS_KEYS:
        bad.append(f"/xio/stats keys: {sorted(set(st) ^ STATS_KEYS)} differ")
    if st["payload_bytes_saved"] != 2 * st["tokens_narrowed"]:
        bad.append("payload_bytes_saved != 2 * tokens_narrowed")
    if len(r["/xio/reasons"]) != 15 or set(r["/xio/reasons"]) != set(r["/xio/reasons,dropped"]):
        bad.append("/xio/reasons: not the 15 reasons")
    for name, s in r["/xio/stages"].items():
        if set(s) - {"direction"} != SUMMARY_KEYS:
            bad.append(f"/xio/stages {name}: keys {sorted(s)}")
        if name != (s["direction"] + "_" if "direction" in s else "") + f"q{s['queue']}_{s['stage']}":
            bad.append(f"/xio/stages: {name} is queue {s['queue']} stage {s['stage']}")
        d = r.get("/xio/stages," + name)
        if d is None:
            continue
        if len(d["burst_histogram"]) != 10:
            bad.append(f"{name}: histogram buckets {sorted(d['burst_histogram'])}")
        for ring in ("ring_in", "ring_out"):
            if ring + "_capacity" in d and d[ring + "_high_water"] > d[ring + "_capacity"]:
                bad.append(f"{name}: {ring} high water over capacity")
        if set(d["drops"]) != set(r["/xio/reasons"]) | {"abandoned"}:
            bad.append(f"{name}: drops keys")
    for name, l in r["/xio/lcores"].items():
        if not re.match(r"^lcore_\d+$", name) or l["busy_cycles"] > l["run_cycles"]:
            bad.append(f"/xio/lcores {name}: {l}")


def live(path):
    bad = []
    lines = [json.loads(x) for x in open(path) if x.strip()]
    r = {}
    for x in lines:
        (cmd, v), = x.items()
        r.setdefault(cmd, []).append(v)
    want = ["/xio/stats", "/xio/reasons", "/xio/stages", "/xio/lcores"]
    if any(k not in r or None in r[k][:-1] for k in want):
        print(f"unanswered: {[k for k in want if k not in r or None in r[k][:-1]]}")
        return 1
    first = {"/xio/stats": r["/xio/stats"][0], "/xio/reasons": r["/xio/reasons"][0],
             "/xio/reasons,dropped": r["/xio/reasons"][1], "/xio/stages": r["/xio/stages"][0],
             "/xio/lcores": r["/xio/lcores"][0]}
    if r["/xio/stages"][-1] is not None:
        bad.append("/xio/stages,NAME of no stage answers")
    for d in r["/xio/stages"][1:-1]:
        first["/xio/stages,q0_" + d["stage"]] = d
    shape(first, bad)
    a, b = r["/xio/stats"][0], r["/xio/stats"][-1]
    if not (a["running"] == 1 and 0 < a["rx_packets"] < b["rx_packets"] and b["tx_packets"] > 0):
        bad.append(f"/xio/stats does not move under load: {a} then {b}")
    if any(v for v in first["/xio/reasons,dropped"].values()):
        bad.append("drops under --overflow keep")
    for name, s in first["/xio/stages"].items():
        if s["packets"] == 0 or s["busy_cycles"] == 0 or s["cycles_per_packet"] == 0:
            bad.append(f"{name}: idle under load: {s}")
    print("\n".join(bad))
    return 1 if bad else 0


def final(rpath, jpath):
    bad = []
    r = json.load(open(rpath))
    j = json.load(open(jpath))
    shape(r, bad)
    st = r["/xio/stats"]
    for k in TOTALS:
        if st[k] != j[k]:
            bad.append(f"/xio/stats {k}: {st[k]}, stats JSON {j[k]}")
    if r["/xio/reasons"] != j["reasons"]:
        bad.append(f"/xio/reasons: {r['/xio/reasons']}, stats JSON {j['reasons']}")
    drops = {k: 0 for k in j["reasons"]}
    for s in j["stages"]:
        for k, n in s["drops"].items():
            if k != "abandoned":
                drops[k] += n
    if r["/xio/reasons,dropped"] != drops:
        bad.append(f"/xio/reasons,dropped: {r['/xio/reasons,dropped']}, stages say {drops}")
    if set(r["/xio/stages"]) != {s["name"] for s in j["stages"]}:
        bad.append(f"/xio/stages names: {sorted(r['/xio/stages'])}")
    for s in j["stages"]:
        t = r["/xio/stages"].get(s["name"], {})
        d = r.get("/xio/stages," + s["name"], {})
        for k in ("packets", "bytes", "bursts", "busy_cycles", "abandoned"):
            if d.get(k) != s[k]:
                bad.append(f"{s['name']} {k}: telemetry {d.get(k)}, stats JSON {s[k]}")
        if t.get("packets") != s["packets"] or t.get("lcore") != s["lcore"]:
            bad.append(f"{s['name']}: summary {t}")
        if not d.get("empty_polls", -1) <= s["empty_polls"]:
            bad.append(f"{s['name']} empty_polls: telemetry {d.get('empty_polls')}, later {s['empty_polls']}")
        if d.get("cycles_per_packet") != int(s["busy_cycles"] / s["packets"] + 0.5 if s["packets"] else 0):
            bad.append(f"{s['name']} cycles_per_packet: {d.get('cycles_per_packet')}")
        if d.get("burst_histogram") != s["burst_histogram"] or d.get("drops") != s["drops"]:
            bad.append(f"{s['name']}: histogram or drops differ")
        if t.get("dropped") != sum(s["drops"].values()):
            bad.append(f"{s['name']} dropped: {t.get('dropped')}")
        for ring in ("ring_in", "ring_out"):
            if ring in s and (d.get(ring + "_capacity"), d.get(ring + "_high_water")) != (
                    s[ring]["capacity"], s[ring]["high_water"]):
                bad.append(f"{s['name']} {ring}: telemetry differs")
    dirs = r.get("/xio/directions")
    if "directions" not in j and dirs is not None:
        bad.append(f"/xio/directions answers {dirs} without --bidirectional")
    for name, d in j.get("directions", {}).items():
        t = dict((dirs or {}).get(name, {}))
        if t.pop("payload_bytes_saved", None) != 2 * d["tokens_narrowed"] or t != d:
            bad.append(f"/xio/directions {name}: {t}, stats JSON {d}")
    if r.get("/xio/ports") != j["ports"]:
        bad.append(f"/xio/ports: {r.get('/xio/ports')}, stats JSON {j['ports']}")
    for l in j["lcores"]:
        t = r["/xio/lcores"].get(f"lcore_{l['lcore']}")
        if t is None or t["busy_cycles"] != l["busy_cycles"] or t["packets"] != l["packets"] or \
                t["stages"] != len(l["stages"]):
            bad.append(f"/xio/lcores lcore_{l['lcore']}: {t}, stats JSON {l}")
    print("\n".join(bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "query":
        frames = int(argv[argv.index("--frames") + 1]) if "--frames" in argv else None
        timeout = float(argv[argv.index("--timeout") + 1]) if "--timeout" in argv else 30.0
        return query(argv[1], argv[2], frames, timeout)
    if len(argv) == 2 and argv[0] == "live":
        return live(argv[1])
    if len(argv) == 3 and argv[0] == "final":
        return final(argv[1], argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
