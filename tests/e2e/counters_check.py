#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks the per-stage, per-lcore and hardware blocks of an xio-pipeline
DPDK stats JSON against the run's captures and against the totals of the
same JSON. Exact where the run is deterministic (a finite capture per
queue); no timing is asserted.

  counters_check.py JSON --in Q0.pcap [--in Q1.pcap] [--out Q0.out ...]
                    [-- PIPELINE-OPTIONS...]

--in: the capture each RX queue read (queue order; with --bidirectional
the a_to_b queues, then the b_to_a ones); --out: the capture each queue's
frames were written to, in the same order (omit for a TX that keeps
nothing). A --bidirectional run's "directions" must add up to the totals
and agree with the stages and captures of each direction.
The pipeline options after -- (--overflow, --drop-invalid, --burst,
--ring-size) say which reasons are dropped and bound the bursts and rings.
Prints what does not hold and exits 1, or exits 0.
"""
import argparse
import json
import struct
import sys

# The spec's invalid XIO reasons (dropped by --drop-invalid).
INVALID = {"bad_length", "bad_ip_csum", "bad_udp_csum", "bad_header", "unsupported", "bad_crc"}
BUCKETS = [("1", 1, 1), ("2_3", 2, 3), ("4_7", 4, 7), ("8_15", 8, 15), ("16_31", 16, 31),
           ("32_63", 32, 63), ("64_127", 64, 127), ("128_255", 128, 255),
           ("256_511", 256, 511), ("512", 512, 512)]
HW_EVENTS = ["cycles", "instructions", "cache_misses", "branch_misses"]


def frame_lengths(path):
    """Captured length of every frame of a classic pcap (either byte order)."""
    d = open(path, "rb").read()
    e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    off, lens = 24, []
    while off + 16 <= len(d):
        n = struct.unpack(e + "I", d[off + 8:off + 12])[0]
        lens.append(n)
        off += 16 + n
    return lens


def pipeline_options(argv):
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--overflow", default="keep")
    p.add_argument("--drop-invalid", action="store_true")
    p.add_argument("--burst", type=int, default=32)
    p.add_argument("--ring-size", type=int, default=1024)
    p.add_argument("--rx-port", type=int, default=0)
    p.add_argument("--tx-port", type=int)
    opts, _ = p.parse_known_args(argv)
    if opts.tx_port is None:
        opts.tx_port = opts.rx_port
    return opts


def check(j, ins, outs, opts):
    bad = []

    def want(cond, msg):
        if not cond:
            bad.append(msg)

    stages = j["stages"]
    dirs = list(j.get("directions", {"a_to_b": None}))
    by_queue = {}
    for s in stages:
        by_queue.setdefault((dirs.index(s.get("direction", "a_to_b")), s["queue"]), {})[s["stage"]] = s
    want(len(by_queue) == len(dirs) * j["rx_queues"],
         f"{len(by_queue)} queues in stages, rx_queues {j['rx_queues']} x {len(dirs)} direction(s)")
    dropped_reasons = set()
    if opts.drop_invalid:
        dropped_reasons |= INVALID
    if opts.overflow == "drop":
        dropped_reasons.add("out_of_range")

    totals = {"in": 0, "out": 0, "frames": 0}
    per_dir = [{"rx_packets": 0, "bytes_in": 0, "tx_packets": 0, "bytes_out": 0} for _ in dirs]
    drops = {r: 0 for r in j["reasons"]}
    for k, (q, st) in enumerate(sorted(by_queue.items())):
        first = st.get("rtc") or st.get("rx")
        proc = st.get("rtc") or st.get("work")
        last = st.get("rtc") or st.get("tx")
        want(first is not None and proc is not None and last is not None, f"queue {q}: stages {sorted(st)}")
        if bad:
            return bad
        pd = per_dir[q[0]]
        pd["rx_packets"] += first["packets"]
        pd["bytes_in"] += proc["bytes"]
        if k < len(ins):
            lens = frame_lengths(ins[k])
            for s in {id(x): x for x in (first, proc)}.values():
                want(s["packets"] == len(lens), f"{s['name']}: packets {s['packets']}, capture has {len(lens)} frames")
                want(s["bytes"] == sum(lens), f"{s['name']}: bytes {s['bytes']}, capture has {sum(lens)}")
        if k < len(outs):
            lens = frame_lengths(outs[k])
            totals["out"] += sum(lens)
            totals["frames"] += len(lens)
            pd["tx_packets"] += len(lens)
            pd["bytes_out"] += sum(lens)
            if "tx" in st:
                want(st["tx"]["packets"] == len(lens) + st["tx"]["abandoned"],
                     f"{st['tx']['name']}: packets {st['tx']['packets']}, output has {len(lens)} frames")
                want(st["tx"]["abandoned"] or st["tx"]["bytes"] == sum(lens),
                     f"{st['tx']['name']}: bytes {st['tx']['bytes']}, output has {sum(lens)}")
        totals["in"] += proc["bytes"]
        for r, n in proc["drops"].items():
            if r != "abandoned":
                drops[r] += n
        if "tx" in st:
            want(st["work"]["packets"] - sum(n for r, n in st["work"]["drops"].items() if r != "abandoned")
                 == st["tx"]["packets"], f"queue {q}: work passed on {st['work']['packets']} minus drops, tx took {st['tx']['packets']}")
            want(st["rx"]["packets"] == st["work"]["packets"], f"queue {q}: rx {st['rx']['packets']}, work {st['work']['packets']}")

    want(totals["in"] == j["bytes_in"], f"stage bytes {totals['in']}, bytes_in {j['bytes_in']}")
    if outs:
        want(totals["out"] == j["bytes_out"], f"output captures have {totals['out']} bytes, bytes_out {j['bytes_out']}")
        want(totals["frames"] == j["tx_packets"], f"output captures have {totals['frames']} frames, tx_packets {j['tx_packets']}")
    for r, n in drops.items():
        exp = j["reasons"][r] if r in dropped_reasons else 0
        want(n == exp, f"drops {r}: {n}, expected {exp} (reasons {j['reasons'][r]})")
    abandoned = sum(s["abandoned"] for s in stages)
    want(sum(drops.values()) + abandoned == j["dropped_packets"],
         f"drops {sum(drops.values())} + abandoned {abandoned} != dropped_packets {j['dropped_packets']}")
    if "directions" in j:
        check_directions(j, per_dir, bool(outs), want)
    check_ports(j, opts, want)

    for s in stages:
        name = s["name"]
        h = s["burst_histogram"]
        want([b[0] for b in BUCKETS] == list(h), f"{name}: histogram buckets {list(h)}")
        want(sum(h.values()) == s["bursts"], f"{name}: histogram sums to {sum(h.values())}, bursts {s['bursts']}")
        lo = sum(h[b] * a for b, a, _ in BUCKETS)
        hi = sum(h[b] * z for b, _, z in BUCKETS)
        want(lo <= s["packets"] <= hi, f"{name}: {s['packets']} packets outside the histogram's {lo}..{hi}")
        want(all(h[b] == 0 for b, a, _ in BUCKETS if a > opts.burst), f"{name}: bursts over --burst {opts.burst}")
        want(s["drops"]["abandoned"] == s["abandoned"], f"{name}: drops.abandoned")
        if s["packets"]:
            want(s["busy_cycles"] > 0, f"{name}: busy_cycles 0 with packets")
            want(abs(s["cycles_per_packet"] - s["busy_cycles"] / s["packets"]) < 0.01,
                 f"{name}: cycles_per_packet {s['cycles_per_packet']}")
        else:
            want(s["bursts"] == 0 and s["bytes"] == 0, f"{name}: bursts or bytes without packets")
        for ring, used in (("ring_in", s["stage"] in ("work", "tx")), ("ring_out", s["stage"] in ("rx", "work"))):
            if not used:
                want(ring not in s, f"{name}: has {ring}")
                continue
            r = s.get(ring)
            if r is None:
                bad.append(f"{name}: no {ring}")
                continue
            want(r["capacity"] == opts.ring_size - 1, f"{name}: {ring} capacity {r['capacity']}, ring size {opts.ring_size}")
            want(r["high_water"] <= r["capacity"], f"{name}: {ring} high water {r['high_water']} over capacity")
            moved = s["packets"] if ring == "ring_in" else s["packets"] - sum(
                n for k, n in s["drops"].items() if k != "abandoned")
            want((r["high_water"] > 0) == (moved > 0), f"{name}: {ring} high water {r['high_water']} with {moved} frames through it")

    lcores = {l["lcore"]: l for l in j["lcores"]}
    for lc, l in lcores.items():
        mine = [s for s in stages if s["lcore"] == lc]
        want(sorted(l["stages"]) == sorted(s["name"] for s in mine), f"lcore {lc}: stages {l['stages']}")
        want(l["busy_cycles"] == sum(s["busy_cycles"] for s in mine), f"lcore {lc}: busy_cycles")
        want(l["busy_cycles"] <= l["run_cycles"], f"lcore {lc}: busy {l['busy_cycles']}, run {l['run_cycles']}")
        want((l["busy_cycles"] > 0) == any(s["packets"] for s in mine), f"lcore {lc}: busy_cycles {l['busy_cycles']}")
        queues = {(dirs.index(s.get("direction", "a_to_b")), s["queue"]) for s in mine}
        want(l["packets"] == sum(by_queue[q].get("rtc", by_queue[q].get("rx"))["packets"] for q in queues),
             f"lcore {lc}: packets {l['packets']}")
    want(set(lcores) == {s["lcore"] for s in stages}, "lcores do not match the stages' lcores")

    hw = j["hardware"]
    if hw["available"]:
        want(set(l["lcore"] for l in hw["lcores"]) == set(lcores), "hardware: lcores")
        for l in hw["lcores"]:
            for e in HW_EVENTS:
                want(e in l and e + "_per_packet" in l, f"hardware lcore {l['lcore']}: no {e}")
            want("ipc" in l and l["packets"] == lcores[l["lcore"]]["packets"], f"hardware lcore {l['lcore']}: ipc, packets")
    else:
        want(set(hw) == {"available", "reason"} and "perf_event_open" in hw["reason"],
             f"hardware: {hw}")
    return bad


COUNTERS = ["rx_packets", "tx_packets", "dropped_packets", "narrowed_packets", "tokens_narrowed",
            "tokens_saturated", "bytes_in", "bytes_out"]


def check_directions(j, per_dir, have_outs, want):
    """Both directions add up to the totals; each agrees with its stages
    (and, given the outputs, with its captures) and accounts for itself."""
    d = j["directions"]
    want(list(d) == ["a_to_b", "b_to_a"], f"directions {list(d)}")
    want((d["a_to_b"]["rx_port"], d["a_to_b"]["tx_port"]) == (d["b_to_a"]["tx_port"], d["b_to_a"]["rx_port"]),
         f"directions' ports {d}")
    for k in COUNTERS:
        want(sum(x[k] for x in d.values()) == j[k], f"directions {k}: {[x[k] for x in d.values()]}, total {j[k]}")
    for r in j["reasons"]:
        want(sum(x["reasons"][r] for x in d.values()) == j["reasons"][r], f"directions reasons {r}")
    for name, x, got in zip(d, d.values(), per_dir):
        want(x["rx_packets"] == x["tx_packets"] + x["dropped_packets"], f"{name}: rx != tx + dropped")
        want(sum(x["reasons"].values()) == x["rx_packets"], f"{name}: reasons do not add up")
        for k in ("rx_packets", "bytes_in") + (("tx_packets", "bytes_out") if have_outs else ()):
            want(x[k] == got[k], f"{name} {k}: {x[k]}, stages/captures say {got[k]}")


PORT_LOSSES = ["imissed", "ierrors", "rx_nombuf", "oerrors"]


def check_ports(j, opts, want):
    """The ethdev counters of every port the run used: each port received
    what the directions reading it took in, sent what they sent, and lost
    nothing (a run from captures loses nothing at the port)."""
    d = j.get("directions") or {"a_to_b": dict(j, rx_port=opts.rx_port, tx_port=opts.tx_port)}
    used = {x["rx_port"] for x in d.values()} | {x["tx_port"] for x in d.values()}
    ports = j["ports"]
    want(sorted(ports) == sorted(str(p) for p in used), f"ports {sorted(ports)}, the run used {sorted(used)}")
    for p, s in ports.items():
        rx = sum(x["rx_packets"] for x in d.values() if str(x["rx_port"]) == p)
        tx = sum(x["tx_packets"] for x in d.values() if str(x["tx_port"]) == p)
        want(s["name"] != "", f"port {p}: no name")
        want(s["ipackets"] == rx, f"port {p}: ipackets {s['ipackets']}, rx_packets {rx}")
        want(s["opackets"] == tx, f"port {p}: opackets {s['opackets']}, tx_packets {tx}")
        for k in PORT_LOSSES:
            want(s[k] == 0, f"port {p}: {k} {s[k]}")


def main():
    argv = sys.argv[1:]
    rest = []
    if "--" in argv:
        k = argv.index("--")
        argv, rest = argv[:k], argv[k + 1:]
    p = argparse.ArgumentParser()
    p.add_argument("json")
    p.add_argument("--in", dest="ins", action="append", default=[])
    p.add_argument("--out", dest="outs", action="append", default=[])
    a = p.parse_args(argv)
    bad = check(json.load(open(a.json)), a.ins, a.outs, pipeline_options(rest))
    print("\n".join(bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
