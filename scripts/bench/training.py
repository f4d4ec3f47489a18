#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""make bench-training: training reads through xio on this machine.

On loopback, xio-server exporting one INT32 token file (1 GiB by default):
  - random: samples of 2,048 tokens at random token offsets, fetched with
    Client.read_ranges (ranges per call: --ranges), against
  - sequential: the whole file in one Client.read (the baseline);
  - ceiling: the same random samples copied out of a local np.memmap of the
    file's UINT16 form (page cache warm), the samples/s numpy reaches with
    no network at all.
Rounds alternate baseline and candidate; ratios are per round, median
(min-max). CSV rows to --csv, the section of docs/perf.md to --md.
Never part of make test: nothing here passes or fails on a timing."""
import argparse
import csv
import os
import socket
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "client", "python"))
import xio  # noqa: E402
from live_report import splice  # noqa: E402

TITLE = "## 6. Training reads: random samples through read_ranges"
SAMPLE = 2048


def make_data(folder, mib):
    """folder/tok.bin (INT32, mib MiB) and folder/tok.u16 (its UINT16
    form), made once: random tokens 0..65535 from a fixed seed; the number
    of tokens."""
    os.makedirs(folder, exist_ok=True)
    path, u16 = os.path.join(folder, "tok.bin"), os.path.join(folder, "tok.u16")
    n = mib << 18
    if os.path.exists(path) and os.path.getsize(path) == 4 * n and \
            os.path.exists(u16) and os.path.getsize(u16) == 2 * n:
        return n
    rng = np.random.default_rng(20)
    with open(path + ".tmp", "wb") as f, open(u16 + ".tmp", "wb") as g:
        for at in range(0, n, 1 << 24):
            t = rng.integers(0, 65536, min(1 << 24, n - at), dtype=np.int32)
            f.write(t.astype("<i4").tobytes())
            g.write(t.astype("<u2").tobytes())
    os.rename(path + ".tmp", path)
    os.rename(u16 + ".tmp", u16)
    return n


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(argv, root):
    """Starts argv (a server taking --root and --port) on a free loopback
    port; (the process, "127.0.0.1:PORT") once it answers a STAT."""
    port = free_port()
    p = subprocess.Popen(argv + ["--root", root, "--port", str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    server = "127.0.0.1:%d" % port
    for _ in range(200):
        try:
            with xio.Client(server, timeout_ms=100, retries=0) as c:
                c.stat("tok.bin")
            return p, server
        except xio.XioError:
            time.sleep(0.05)
    p.kill()
    sys.exit("%s did not answer: %s" % (argv[0], p.stderr.read().decode()))


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--mib", type=int, default=1024, help="file size in MiB of INT32 tokens")
    ap.add_argument("--samples", type=int, default=16384, help="random samples a round")
    ap.add_argument("--ranges", type=int, default=256, help="ranges per read_ranges call")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()

    folder = os.path.join(a.build, "bench", "training")
    ntok = make_data(folder, a.mib)
    local = np.memmap(os.path.join(folder, "tok.u16"), dtype=np.uint16, mode="r")
    np.asarray(local[::4096]).sum()  # fault the page cache in once
    proc, server = start_server([os.path.join(a.build, "xio-server"), "--bind", "127.0.0.1"],
                                folder)
    rows = []
    t_all = time.perf_counter()
    try:
        client = xio.Client(server)
        for r in range(a.rounds):
            starts = np.random.default_rng(r).integers(0, ntok - SAMPLE, a.samples)
            ranges = [(int(s), SAMPLE) for s in starts]

            def seq():
                return client.read("tok.bin", 0, ntok)

            def rnd():
                out = np.empty(a.samples * SAMPLE, dtype=np.uint16)
                for i in range(0, a.samples, a.ranges):
                    part = client.read_ranges("tok.bin", ranges[i:i + a.ranges])
                    out[i * SAMPLE:i * SAMPLE + len(part)] = part
                return out

            def mm():
                out = np.empty((a.samples, SAMPLE), dtype=np.uint16)
                for i, s in enumerate(starts):
                    out[i] = local[s:s + SAMPLE]
                return out.reshape(-1)

            got_seq, ts, cs = timed(seq)
            got_rnd, tr, cr = timed(rnd)
            got_mm, tm, cm = timed(mm)
            if got_rnd.tobytes() != got_mm.tobytes():
                sys.exit("bench-training: read_ranges' tokens differ from the file's")
            if got_seq[::65536].tobytes() != np.asarray(local[::65536]).tobytes():
                sys.exit("bench-training: the sequential read differs from the file")
            del got_seq
            for what, tok, t, c in (("sequential", ntok, ts, cs),
                                    ("random", a.samples * SAMPLE, tr, cr),
                                    ("memmap", a.samples * SAMPLE, tm, cm)):
                rows.append({"round": r, "what": what, "tokens": tok, "seconds": "%.4f" % t,
                             "cpu_seconds": "%.4f" % c, "tokens_per_s": "%.0f" % (tok / t),
                             "samples_per_s": "%.0f" % (tok / SAMPLE / t)})
        stats = client.stats()
        client.close()
    finally:
        proc.terminate()
        proc.wait()
    elapsed = time.perf_counter() - t_all
    os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    out = section(rows, a, ntok, elapsed, stats)
    with open(os.path.join(os.path.dirname(os.path.abspath(a.csv)), "training.md"), "w") as f:
        f.write("\n".join(out))  # for bench-report, which rewrites docs/perf.md
    splice(a.md, out, TITLE)
    print("\n".join(out))


def section(rows, a, ntok, elapsed, stats):
    def per_round(what, key="tokens_per_s"):
        return [float(r[key]) for r in rows if r["what"] == what]

    seq, rnd, mm = per_round("sequential"), per_round("random"), per_round("memmap")
    ratio = [x / y for x, y in zip(rnd, seq)]
    ceil = [x / y for x, y in zip(rnd, mm)]

    def med(v, fmt="%.2f"):
        return (fmt % statistics.median(v)) + " (" + (fmt % min(v)) + "-" + (fmt % max(v)) + ")"

    load = open("/proc/loadavg").read().split()[:3]
    return [
        TITLE, "",
        "`make bench-training` (scripts/bench/training.py): `xio-server` on loopback exporting "
        "one INT32 token file of %d MiB (%d Mi tokens); one `xio.Client` with the default "
        "options. Random: %d samples of %d tokens at random offsets a round, %d ranges per "
        "`Client.read_ranges` call; baseline: the whole file in one `Client.read`; ceiling: "
        "the same samples copied out of a local `np.memmap` of the file's UINT16 form (page "
        "cache warm). Every round checks the random samples token for token against the "
        "memmap's. %d rounds, baseline then candidate; ratios per round, median (min-max); "
        "measured in %.0f s." % (a.mib, ntok >> 20, a.samples, SAMPLE, a.ranges, a.rounds,
                                 elapsed), "",
        "| what | measured | goal |", "|---|---:|---:|",
        "| random 2,048-token samples through read_ranges / sequential read, tokens/s | "
        "**%s** | >= 0.5 |" % med(ratio),
        "| the same / numpy over a local np.memmap, samples/s | %s | (the ceiling) |" % med(ceil),
        "",
        "| | Mtok/s | samples/s | CPU s per Mtok |", "|---|---:|---:|---:|",
    ] + [
        "| %s | %s | %s | %s |" % (
            name, med([x / 1e6 for x in per_round(w)], "%.1f"),
            med(per_round(w, "samples_per_s"), "%.0f"),
            med([float(r["cpu_seconds"]) / (int(r["tokens"]) / 1e6)
                 for r in rows if r["what"] == w], "%.3f"))
        for name, w in (("sequential `Client.read`", "sequential"),
                        ("random `Client.read_ranges`", "random"),
                        ("random, local np.memmap", "memmap"))
    ] + [
        "",
        "The client's counters over the run: %d requests, %d re-requests, %d timeouts. "
        "The machine is the shared 2-core VM above (load average %s at the end): the "
        "server, the client and other engineers' builds share its cores, so these figures "
        "are noisy; one run's spread shows by how much." % (
            stats["requests"], stats["re_requests"], stats["timeouts"], " ".join(load)),
        "",
    ]


if __name__ == "__main__":
    main()
