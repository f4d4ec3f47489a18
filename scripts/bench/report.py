#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/report.py: the last step of `make bench`: reads the CSVs the
# benchmarks wrote (build/bench/kernels.csv, pipeline-runs.csv, xdp-runs.csv,
# live-runs.csv through live_report.py),
# reads the machine and the versions, and writes docs/perf.md (tables of
# ratios against the baselines measured in the same run) and docs/perf.png
# (gnuplot). A missing CSV gives a section that says so; nothing here passes
# or fails on a figure.
import argparse
import csv
import ctypes
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from live_report import live_section  # noqa: E402
from transport_report import transport_section  # noqa: E402

FRAME_BYTES = 1530  # 364 tokens: 14 + 20 + 8 + 32 + 364 * 4
FRAME_TOKENS = 364


# Why each figure is where it is: one short paragraph per summary line,
# written by hand with the code that sets it (what changed and when is in
# docs/CHANGES.md, not here).
WHY = [
    "## Why it is where it is", "",
    "- **Narrowing / forwarding only (payload pass).** net_pcap copies every frame "
    "into a fresh mbuf and the stage core then reads the payload once more: one "
    "fused pass (range test, narrowing, token sum for the UDP checksum) on a payload "
    "just copied, about 83 TSC ticks a frame over forwarding (header checks 10, the "
    "pass 47, the deferred UDP checksum check 11, the rewrite 12; section 2). "
    "Forwarding alone costs about 170 ticks, so 0.85 would leave 30 ticks for all the "
    "XIO work. What would move it is outside the stage core: a PMD that does not copy "
    "and a NIC that vouches for the UDP checksum (mlx5 does both; the stage core "
    "honours `RTE_MBUF_F_RX_L4_CKSUM_GOOD`).",
    "- **Against testpmd csum.** Both verify every payload in software; the stage "
    "core's pass also narrows, and still runs faster than DPDK's checksum.",
    "- **Kernels against memcpy.** From 1 KB the avx512 kernel keeps up with or beats "
    "memcpy (it reads 4 bytes and writes 2 a token); at 256-512 B a call costs what "
    "the core cannot overlap with its neighbours, and the final 16-lane reduction of "
    "the exact sum (about 20 cycles of latency) is a tenth of it. Under 256 B memcpy "
    "wins by construction.",
    "- **XDP kernel mode against redirect.** Redirect reads one cache line of the "
    "frame; kernel mode reads all 24 of a 1530-byte frame, which come from the "
    "sender's CPU on a veth, and narrows in scalar BPF (about three instructions a "
    "token: no SIMD in BPF). The program alone takes about 160 ns net of an empty "
    "one in `BPF_PROG_TEST_RUN` and 260-400 ns on the veths.",
    "- **AF_XDP mode.** Every XIO frame is copied into the socket's ring (copy mode "
    "on veth) and back: it measures the kernel's copy path more than the worker.",
    "- **The live path.** Through xio-pipeline the host receives half the bytes a "
    "token and skips its own narrowing; the forwarder's cost hides behind the "
    "server's pacing and the veths.",
    "- **Transport against TCP.** Each row of section 5 says why in its own column: TCP moves the file with sendfile in 64 KB segments, xio's server copies each payload once (from the file's mapping into the socket buffer) and sends MTU-sized datagrams, each checked and placed by the client; through the DPU xio's replies arrive narrowed, so the host takes half the bytes.",
    "- **Training reads.** Random samples cost a request each (2,048 tokens, a few datagrams) where a sequential read keeps the window full of large chunks: a `read_ranges` call of 256 samples waits on about 17 request rounds, and the server spends 5-9 us a request (a receive, a header, a mapping lookup, a train). Measured by hand on this VM: one flow 115 Mtok/s over the 1 GiB file and 279 Mtok/s over a 4 MiB part of it (the server's random page-cache and mapping misses), two flows about 100 Mtok/s either way (two client threads and two server workers on two cores); numpy over a local memmap copies from the page cache."
    " On the 16-core H100 machine (scripts/bench/training.py there, kept in `docs/perf-data/training-h100-*.csv`): random 381 Mtok/s with 256 ranges a call and 454 with 1,024, against 1,976-1,986 sequential (0.20 and 0.22) and 711-719 from a local memmap (0.53 and 0.64 of it).", "",
]


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True,
                              timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") or line.startswith("Model"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_flags():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags") or line.startswith("Features"):
                have = set(line.split(":", 1)[1].split())
                return ", ".join(f for f in ("sse4_1", "avx2", "avx512f", "avx512bw", "asimd")
                                 if f in have) or "none of sse4_1/avx2/avx512/asimd"
    except OSError:
        pass
    return "unknown"


def hw_counters():
    """Whether perf_event_open gives a hardware cycle counter here."""
    nr = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
    if nr is None:
        return "not probed on this architecture"

    class Attr(ctypes.Structure):
        _fields_ = [("type", ctypes.c_uint32), ("size", ctypes.c_uint32),
                    ("config", ctypes.c_uint64), ("sample", ctypes.c_uint64),
                    ("sample_type", ctypes.c_uint64), ("read_format", ctypes.c_uint64),
                    ("flags", ctypes.c_uint64), ("pad", ctypes.c_uint8 * 64)]
    libc = ctypes.CDLL(None, use_errno=True)
    attr = Attr(type=0, size=64, config=0, flags=1 | (1 << 5) | (1 << 6))  # disabled, exclude kernel/hv
    fd = libc.syscall(nr, ctypes.byref(attr), 0, -1, -1, 0)
    if fd >= 0:
        os.close(fd)
        return "available (perf_event_open, PERF_COUNT_HW_CPU_CYCLES)"
    return "unavailable: perf_event_open(cycles) fails with %s" % os.strerror(ctypes.get_errno())


def versions():
    pc = lambda m: sh("pkg-config --modversion %s 2>/dev/null" % m) or "not found"
    deb = lambda p: sh("dpkg-query -W -f='${Version}' %s 2>/dev/null" % p) or "not installed"
    return [
        ("DPDK", pc("libdpdk")),
        ("libbpf", pc("libbpf")),
        ("libxdp", pc("libxdp")),
        ("ISA-L", pc("libisal")),
        ("libpcap", pc("libpcap")),
        ("gcc", sh("gcc -dumpfullversion")),
        ("clang", sh("clang --version | head -1")),
        ("xdp-tools", deb("xdp-tools")),
    ]


def read_csv(path):
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def comments(path):
    if not path or not os.path.exists(path):
        return []
    return [l[1:].strip() for l in open(path) if l.startswith("#")]


def fnum(v, d=3):
    return "n/a" if v is None else "%.*f" % (d, v)


def med(xs):
    xs = [x for x in xs if x is not None and x == x]
    return statistics.median(xs) if xs else None


def paired(num, den):
    """Per-round ratios num[r] / den[r] over the rounds both have: (median, min, max)."""
    rs = [num[r] / den[r] for r in num if r in den and den[r]]
    return (statistics.median(rs), min(rs), max(rs)) if rs else (None, None, None)


def fratio(t):
    return "n/a" if t[0] is None else "%s (%s-%s)" % (fnum(t[0], 2), fnum(t[1], 2), fnum(t[2], 2))


def ratio(a, b):
    return a / b if a is not None and b else None


# ---------------------------------------------------------------- kernels

def kernels_section(rows, out, plot_dir):
    out.append("## 1. Narrowing kernels and CRC32C against memcpy\n")
    if not rows:
        out.append("No kernel figures: `make bench-kernels` did not write its CSV.\n")
        return {}, []
    sizes = sorted({int(r["bytes"]) for r in rows})
    funcs = []
    for r in rows:
        if r["function"] not in funcs:
            funcs.append(r["function"])
    by = {(int(r["bytes"]), r["function"]): r for r in rows}
    others = [f for f in funcs if f != "memcpy"]
    out.append("From `make bench-kernels` (tests/bench/bench_kernels.c): every kernel this CPU "
               "runs, both range policies (checked: keep/drop, stops at the first "
               "out-of-range token; saturate: clamps), in-range tokens, out of place, buffers "
               "in cache; CRC32C is ISA-L's `crc32_iscsi`. checked also sums the tokens "
               "for the UDP checksum check, as the stage core uses it: it is the frame's "
               "only pass over its payload. Every function runs 9 rounds of a 5 ms batch "
               "of memcpy then a 5 ms batch of the function; **speed against memcpy of the "
               "same input bytes** is the median over the rounds of memcpy's time / the "
               "function's time in the same round (> 1: faster than memcpy); GB/s and "
               "tokens per tick below come from the function's best batch. glibc's memcpy "
               "changes method with the size (the dip in memcpy's own rate from 4 KB):\n")
    out.append("| bytes | memcpy GB/s | " + " | ".join(others) + " |")
    out.append("|---:|---:|" + "---:|" * len(others))
    for s in sizes:
        m = by.get((s, "memcpy"))
        cells = [fnum(float(by[(s, f)]["speed_vs_memcpy"]), 2) if (s, f) in by else "n/a"
                 for f in others]
        out.append("| %d | %s | %s |" % (s, fnum(float(m["gb_per_s"]), 1) if m else "n/a",
                                          " | ".join(cells)))
    for key, what, d in (("gb_per_s", "GB/s of input", 1),
                         ("tokens_per_cycle", "INT32 tokens per TSC tick (rdtsc: the TSC ticks at "
                          "a fixed rate, not the core clock; the hardware cycle counter is not "
                          "available in this VM)", 2)):
        out.append("\n%s:\n" % what)
        out.append("| bytes | " + " | ".join(funcs) + " |")
        out.append("|---:|" + "---:|" * len(funcs))
        for s in sizes:
            out.append("| %d | %s |" % (s, " | ".join(
                fnum(float(by[(s, f)][key]), d) if (s, f) in by else "n/a" for f in funcs)))
    out.append("")
    # plot data: speed vs memcpy per size, one column per function
    with open(os.path.join(plot_dir, "plot-kernels.dat"), "w") as f:
        f.write("# bytes " + " ".join('"%s"' % x for x in others) + "\n")
        for s in sizes:
            f.write("%d %s\n" % (s, " ".join(by[(s, x)]["speed_vs_memcpy"] if (s, x) in by else "NaN"
                                             for x in others)))
    checked = [f for f in others if f.endswith("checked")]
    summary = {}
    for f in checked:
        vals = [float(by[(s, f)]["speed_vs_memcpy"]) for s in sizes if (s, f) in by]
        summary[f] = (min(vals), max(vals), sum(v >= 1.0 for v in vals), len(vals))
    return summary, others


# ---------------------------------------------------------------- pipeline

PIPE_CONFIGS = [("nocrc", "rtc"), ("nocrc", "pipeline"), ("crc", "rtc"), ("crc", "pipeline")]
CAP_NAME = {"nocrc": "no CRC", "crc": "CRC32C"}


def profile_table(path, out):
    """Top of `perf report --sort dso,symbol` for one rtc run (software clock)."""
    if not os.path.exists(path):
        return
    agg = {}
    for line in open(path):
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(\S+)", line)
        if not m:
            continue
        pct, dso, kind, sym = float(m.group(1)), m.group(2), m.group(3), m.group(4)
        if kind == "k":
            key = "kernel"
        elif sym.startswith("0x"):
            key = "%s (no symbols)" % dso
        else:
            key = "%s: `%s`" % (dso, sym)
        agg[key] = agg.get(key, 0) + pct
    top = sorted(agg.items(), key=lambda kv: -kv[1])[:10]
    if not top:
        return
    out.append("Where rtc mode (no CRC) spends its time: one more 3 s run sampled with "
               "`perf record -e cpu-clock` (the kernel's software clock: no hardware "
               "counter needed), share of all samples of the process, both CPUs:\n")
    out.append("| where | share of samples |")
    out.append("|---|---:|")
    for k, v in top:
        out.append("| %s | %.1f %% |" % (k, v))
    out.append("")


def l1d_size():
    kb = sh("getconf LEVEL1_DCACHE_SIZE")
    return "%d KB" % (int(kb) // 1024) if kb.isdigit() and int(kb) > 0 else "unknown"


def pipeline_section(rows, path, out, plot_dir):
    out.append("## 2. xio-pipeline against dpdk-testpmd (io forwarding)\n")
    if not rows:
        out.append("No pipeline figures: `make bench-pipeline` did not write its CSV.\n")
        return {}
    rounds = sorted({int(r["round"]) for r in rows})
    byr = lambda cap, prog, mode: {int(r["round"]): float(r["pps"]) for r in rows
                                   if r["capture"] == cap and r["program"] == prog and
                                   r["mode"] == mode}
    get = lambda cap, prog, mode: list(byr(cap, prog, mode).values())
    checks = [r for r in rows if r["check"] != "ok"]
    out.append("Both programs run on DPDK's `net_pcap` PMD replaying the capture from memory "
               "(`infinite_rx=1`; with no `tx_pcap` the PMD frees what is sent), EAL "
               "`--no-huge --no-shconf --no-pci`, main lcore on CPU 0 and the forwarding "
               "lcore on CPU 1 (`--lcores '0@0,1@1'`). testpmd: `--forward-mode=io "
               "--port-topology=loop --nb-cores=1` (receives and sends, touches no "
               "payload). xio-pipeline validates every frame (IPv4 and UDP checksums, XIO "
               "header, CRC32C when present), narrows the 364 tokens and rewrites the "
               "headers; pipeline mode puts rx and tx on lcore 1 (CPU 1) and the work "
               "stage on lcore 2 (CPU 0, beside the main lcore) "
               "(`--lcores '0@0,1@1,2@0'`), so it has two CPUs where rtc has one, but "
               "shares CPU 0 with everything else on the machine: its spread over the "
               "rounds shows how much that matters. Frames: 1530 bytes, 364 tokens, UDP "
               "checksum on. %d rounds, each running every configuration once in turn; "
               "a run lasts %s s and its rate is the median of its 1 s interval rates after "
               "start-up; the table gives the median over the rounds (min-max in "
               "brackets). Ratio: xio-pipeline's rate / testpmd's rate on the same capture "
               "in the same round, median (min-max) over the rounds.\n" % (
                   len(rounds), next((c.split("=", 1)[1] for c in comments(path)
                                      if c.startswith("seconds_per_run=")), "n/a")))
    out.append("On the no-CRC capture each round also runs two more testpmd engines and "
               "xio-pipeline with nothing to do: testpmd `macswap` swaps the MAC addresses "
               "(touches the first cache line of every frame), testpmd `csum` recomputes "
               "the IPv4 and UDP checksums in software (DPDK's `rte_ipv4_udptcp_cksum`: one "
               "pass over every payload, no offload on net_pcap), and xio-pipeline "
               "*forward* is rtc mode told another XIO port (`--udp-port 9`), so every "
               "frame stops at rule 5 (other_port) and leaves untouched: the pipeline's "
               "own RX, classification, counters and TX without the XIO work. *cycles/pkt* "
               "is xio-pipeline's own counter (the processing stage's busy TSC cycles / "
               "packets in its stats JSON, median over the rounds).\n")
    out.append("| capture | program | Mpps (min-max) | Gbit/s in | cycles/pkt | ratio to testpmd io (min-max) |")
    out.append("|---|---|---:|---:|---:|---:|")
    cyc = lambda cap, mode: med([float(r["cycles_per_packet"]) for r in rows
                                 if r["capture"] == cap and r["program"] == "xio-pipeline" and
                                 r["mode"] == mode and r.get("cycles_per_packet")])
    res = {}
    for cap in ("nocrc", "crc"):
        io = byr(cap, "testpmd", "io")
        for prog, mode, label in (("testpmd", "io", "dpdk-testpmd io"),
                                  ("testpmd", "macswap", "dpdk-testpmd macswap"),
                                  ("testpmd", "csum", "dpdk-testpmd csum (software checksums)"),
                                  ("xio-pipeline", "forward", "xio-pipeline forward (nothing to narrow)"),
                                  ("xio-pipeline", "rtc", "xio-pipeline rtc"),
                                  ("xio-pipeline", "pipeline", "xio-pipeline pipeline")):
            v = get(cap, prog, mode)
            if not v:
                continue
            m = med(v)
            pr = paired(byr(cap, prog, mode), io)
            res[(cap, mode)] = (m, med(list(io.values())), pr[0], pr)
            bold = "**%s**" if prog == "xio-pipeline" and mode in ("rtc", "pipeline") else "%s"
            out.append("| %s | %s | %s (%s-%s) | %s | %s | %s |" % (
                CAP_NAME[cap], label, fnum(m / 1e6), fnum(min(v) / 1e6), fnum(max(v) / 1e6),
                fnum(m * FRAME_BYTES * 8 / 1e9, 1),
                fnum(cyc(cap, mode), 0) if prog == "xio-pipeline" else "",
                "1" if (prog, mode) == ("testpmd", "io") else
                (bold % fnum(pr[0], 2)) + " (%s-%s)" % (fnum(pr[1], 2), fnum(pr[2], 2))))
    out.append("")
    fw, rtc = res.get(("nocrc", "forward")), res.get(("nocrc", "rtc"))
    cs = paired(byr("nocrc", "xio-pipeline", "rtc"), byr("nocrc", "testpmd", "csum"))
    res["rtc_vs_csum"] = cs
    rf = paired(byr("nocrc", "xio-pipeline", "rtc"), byr("nocrc", "xio-pipeline", "forward"))
    res["rtc_vs_forward"] = rf
    res["forward_cpp"] = cyc("nocrc", "forward")
    res["rtc_cpp"] = cyc("nocrc", "rtc")
    if fw and rtc:
        out.append("**The payload pass**: xio-pipeline rtc narrowing "
                   "against the same binary forwarding only (*forward*), no CRC, per round: "
                   "**%s** (%s-%s); goal >= 0.85. Against testpmd io the figure would "
                   "measure net_pcap's own copy: forwarding alone already stands at %s of "
                   "testpmd io here. Per frame, xio-pipeline's counters give %s "
                   "cycles forwarding and %s narrowing; the next section takes those extra "
                   "cycles apart. The honest comparison for a program that must verify a "
                   "checksum over every payload is testpmd's own software checksum engine: "
                   "rtc runs at **%s** (%s-%s) times testpmd csum.\n" % (
                       fnum(rf[0], 2), fnum(rf[1], 2), fnum(rf[2], 2), fnum(fw[2], 2),
                       fnum(res["forward_cpp"], 0), fnum(res["rtc_cpp"], 0),
                       fnum(cs[0], 2), fnum(cs[1], 2), fnum(cs[2], 2)))
    out.append("")
    if checks:
        out.append("Runs whose stats JSON did not show every frame narrowed and sent: " +
                   "; ".join("round %s %s %s: %s" % (r["round"], r["capture"], r["mode"],
                                                     r["check"]) for r in checks) + "\n")
    else:
        out.append("Every xio-pipeline run's stats JSON showed every received frame "
                   "narrowed and sent, none dropped, no mbuf leaked.\n")
    profile_table(os.path.join(os.path.dirname(path), "profile-rtc.txt"), out)
    with open(os.path.join(plot_dir, "plot-pipeline.dat"), "w") as f:
        for cap, mode in PIPE_CONFIGS:
            r = res.get((cap, mode), (None, None, None))[2]
            f.write('"%s\\n%s" %s\n' % (mode, CAP_NAME[cap], "NaN" if r is None else "%.4f" % r))
    return res


def stage_section(rows, pres, out):
    out.append("### Where a narrowed frame's time goes: the stage core alone\n")
    if not rows:
        out.append("No figures: `make bench-stage` did not write its CSV.\n")
        return {}
    t = {r["config"]: float(r["ticks_per_frame"]) for r in rows}
    sp = {r["config"]: (float(r["min"]), float(r["max"])) for r in rows}
    out.append("From `make bench-stage` (tests/bench/bench_stage.c): the same frame, outside "
               "DPDK, copied into a burst of buffers laid out as mbufs (2 KiB apart, 128 "
               "bytes of headroom) as net_pcap copies it, then each frame of the burst goes "
               "through one configuration: *copy* nothing more, *forward* `xio_process()` "
               "told another XIO port (stops at rule 5, as the pipeline's *forward*), "
               "*narrow* `xio_process()` (every rule, the fused pass, the rewrite), *kernel* "
               "only the %s narrowing kernel over the payload. Bursts of 32 frames (48 KiB: "
               "the first frames of a burst have left L1 by the time they are processed), "
               "and narrow and kernel again in bursts of 8 (12 KiB, in L1). TSC ticks per "
               "frame, median of %s interleaved rounds (min-max):\n" % (
                   rows[0].get("kernel", "?"), "15"))
    out.append("| configuration | ticks/frame (min-max) | difference |")
    out.append("|---|---:|---:|")
    for c in ("copy", "forward", "narrow", "kernel", "narrow_burst8", "kernel_burst8"):
        if c not in t:
            continue
        base = {"forward": "copy", "narrow": "forward", "kernel": "copy",
                "narrow_burst8": "narrow", "kernel_burst8": "kernel"}.get(c)
        out.append("| %s | %s (%s-%s) | %s |" % (
            c.replace("_burst8", ", bursts of 8"), fnum(t[c], 1), fnum(sp[c][0], 1),
            fnum(sp[c][1], 1), "" if base is None else "%+.1f (vs %s)" % (t[c] - t[base], base)))
    out.append("")
    extra = t.get("narrow", 0) - t.get("forward", 0)
    passt = t.get("kernel", 0) - t.get("copy", 0)
    fcpp = pres.get("forward_cpp")
    if fcpp and extra > 0 and passt > 0:
        out.append("Narrowing adds %.0f ticks a frame to forwarding; the pass alone (the "
                   "kernel over a payload the copy just wrote) is %.0f of them, validation, "
                   "the checksum check and the rewrite the other %.0f. Against the pipeline's "
                   "forwarding cost of %s ticks a frame (its own counter, above), that "
                   "predicts rtc / forward = %.2f, and even a stage core whose only cost "
                   "was the pass would stand at %.2f: the goal of 0.85 leaves %.0f ticks "
                   "for the whole XIO work, less than one pass over 1456 bytes in this "
                   "context. The same kernel runs at twice that speed in the kernel table "
                   "(buffers hot in L1, out of place); here the payload comes from L2, "
                   "written a burst earlier by the copy, and is narrowed in place.\n" % (
                       extra, passt, extra - passt, fnum(fcpp, 0), fcpp / (fcpp + extra),
                       fcpp / (fcpp + passt), fcpp * (1 / 0.85 - 1)))
    return t


# ---------------------------------------------------------------- xdp

XDP_CONFIGS = ["pass", "redirect", "xio-kernel", "xio-afxdp"]


def xdp_section(path, out, plot_dir):
    out.append("## 3. XDP: xio-pipeline --driver xdp against the xdp-bench baselines\n")
    if not path or not os.path.exists(path):
        out.append("No XDP figures: `make bench-xdp` did not write its CSV.\n")
        return {}
    first = open(path).readline()
    if first.startswith("skipped,"):
        out.append("Skipped: %s.\n" % first.split(",", 1)[1].strip())
        return {}
    rows, notes = read_csv(path), comments(path)
    if not rows:
        out.append("No XDP figures: `make bench-xdp` wrote no run.\n")
        return {}
    rounds = sorted({int(r["round"]) for r in rows})
    byr = lambda cfg, k: {int(r["round"]): float(r[k]) for r in rows if r["config"] == cfg
                          and not r["check"].startswith("failed")}
    col = lambda cfg, k: list(byr(cfg, k).values())
    failed = [r for r in rows if r["check"] != "ok"]
    out.append("Three network namespaces: sender `bxs0` -veth-> `bxd0` [device under test] "
               "`bxd1` -veth-> `bxr0` receiver, MTU 9000. The sender (CPU 1) replays the "
               "364-token capture (no CRC) as fast as the kernel takes it: "
               "`build/bench/xio-bench-xdp send`, BPF_PROG_RUN in live-frame mode, which "
               "rewrites each frame from the capture before it goes out (the device under "
               "test narrows the pages in place). The device under test has CPU 0: bxd0's "
               "NAPI runs threaded, pinned there, and so does the DUT process "
               "(xio-pipeline's AF_XDP worker pins itself to CPU 0). The receiver drops "
               "every frame in XDP. Rates come from the veths' counters, read the same way "
               "for every configuration over a 3 s window after a 1 s warm-up: "
               "*processed* is what the DUT's XDP program took from bxd0, *forwarded* what "
               "reached the receiver; what the sender offers beyond that is dropped by "
               "veth. Baselines: the programs `xdp-bench pass` and `xdp-bench redirect` "
               "run (count, look at the Ethernet header; redirect also swaps the MACs and "
               "calls `bpf_redirect` to bxd1), loaded by `xio-bench-xdp`, because:\n")
    for n in notes:
        if not n.startswith("elapsed_s="):
            out.append("> %s\n" % n)
    out.append("%d rounds, every configuration once per round; rates are medians over the "
               "rounds (min-max in brackets). Ratios: the forwarded rate against redirect's "
               "forwarded rate and against pass's processed rate in the same round, median "
               "(min-max) over the rounds. pass hands every frame to the kernel stack, "
               "which builds an skb and drops it (no address, no socket): slower than "
               "redirect, and no forwarding at all. In afxdp mode every XIO frame is "
               "copied into the AF_XDP socket's ring; what the worker does not keep up "
               "with is lost there when the ring is full (processed minus forwarded; "
               "xio-pipeline logs their number as an error at exit).\n" % len(rounds))
    out.append("| configuration | processed Mpps | forwarded Mpps (min-max) | ratio to redirect | ratio to pass |")
    out.append("|---|---:|---:|---:|---:|")
    names = {"pass": "xdp-bench pass (baseline)", "redirect": "xdp-bench redirect (baseline)",
             "xio-kernel": "xio-pipeline kernel mode", "xio-afxdp": "xio-pipeline afxdp mode"}
    res = {}
    red = byr("redirect", "forwarded_pps")
    pas = byr("pass", "processed_pps")
    for cfg in XDP_CONFIGS:
        p, fw = col(cfg, "processed_pps"), col(cfg, "forwarded_pps")
        if not p:
            out.append("| %s | n/a | n/a | n/a | n/a |" % names[cfg])
            continue
        mp, mf = med(p), med(fw)
        fwd = byr(cfg, "forwarded_pps" if cfg != "pass" else "processed_pps")
        vr, vp = paired(fwd, red), paired(fwd, pas)
        res[cfg] = (mp, mf, vr[0], vp[0])
        bold = (lambda t: "**%s**" % t) if cfg.startswith("xio") else (lambda t: t)
        out.append("| %s | %s | %s | %s | %s |" % (
            names[cfg], fnum(mp / 1e6),
            "-" if cfg == "pass" else "%s (%s-%s)" % (fnum(mf / 1e6), fnum(min(fw) / 1e6),
                                                     fnum(max(fw) / 1e6)),
            "-" if cfg == "pass" else bold(fratio(vr)), bold(fratio(vp))))
    out.append("")
    if failed:
        out.append("Runs not counted or not clean: " + "; ".join(
            "round %s %s: %s" % (r["round"], r["config"], r["check"]) for r in failed) + "\n")
    else:
        out.append("Every xio-pipeline run's stats JSON showed every frame it received "
                   "narrowed and sent.\n")
    with open(os.path.join(plot_dir, "plot-xdp.dat"), "w") as f:
        for cfg in ("xio-kernel", "xio-afxdp"):
            r = res.get(cfg)
            f.write('"%s\\nvs redirect" %s\n' % (cfg[4:], "NaN" if not r or r[2] is None else "%.4f" % r[2]))
        for cfg in ("xio-kernel", "xio-afxdp"):
            r = res.get(cfg)
            f.write('"%s\\nvs pass" %s\n' % (cfg[4:], "NaN" if not r or r[3] is None else "%.4f" % r[3]))
    return res


# ---------------------------------------------------------------- chart

def chart(png, plot_dir, kernel_funcs):
    k = os.path.join(plot_dir, "plot-kernels.dat")
    p = os.path.join(plot_dir, "plot-pipeline.dat")
    x = os.path.join(plot_dir, "plot-xdp.dat")
    g = ["set terminal pngcairo size 1500,520 font 'DejaVu Sans,10'",
         "set output '%s'" % png,
         "set multiplot layout 1,3 title 'xio-pipeline: ratios to baselines measured in the same run (make bench)'",
         "set grid ytics", "set key top right font ',8'"]
    if os.path.exists(k) and kernel_funcs:
        g += ["set title 'narrowing kernels and CRC32C vs memcpy'",
              "set logscale x 2", "set xrange [56:10000]", "set xlabel 'buffer bytes'",
              "set ylabel 'speed / memcpy'", "set yrange [0:*]", "set key top left",
              "plot " + ", ".join("'%s' using 1:%d with linespoints title '%s'" % (k, i + 2, f)
                                  for i, f in enumerate(kernel_funcs)) +
              ", 1 with lines dt 2 lc 'black' title 'memcpy'",
              "unset logscale x", "set autoscale x"]
    else:
        g += ["set title 'kernels: no data'", "plot 1/0 notitle"]
    g += ["set style data histograms", "set style fill solid 0.6 border -1", "set bmargin 5",
          "set boxwidth 0.7", "set xtics font ',9'", "set xlabel ''", "set yrange [0:1.15]",
          "set key top right"]
    bars = ("plot '%s' using 2:xtic(1) notitle lc rgb '%s', '' using 0:2:(sprintf('%%.2f', $2)) "
            "with labels offset 0,0.8 notitle, 1 with lines dt 2 lc 'black' title 'baseline'")
    if os.path.exists(p):
        g += ["set title 'DPDK: xio-pipeline / testpmd io (Mpps)'", "set ylabel 'ratio'",
              bars % (p, "#3a7dc9") + ", 0.9 with lines dt 3 lc 'red' title 'goal (rtc, no CRC)'"]
    else:
        g += ["set title 'DPDK: no data'", "plot 1/0 notitle"]
    if os.path.exists(x):
        g += ["set title 'XDP: xio-pipeline forwarded Mpps / baseline'", "set ylabel 'ratio'",
              bars % (x, "#c9763a")]
    else:
        g += ["set title 'XDP: skipped'", "plot 1/0 notitle"]
    g += ["unset multiplot"]
    script = os.path.join(plot_dir, "perf.gp")
    open(script, "w").write("\n".join(g) + "\n")
    r = subprocess.run(["gnuplot", script], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("report: gnuplot failed: " + r.stderr.strip())


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernels")
    ap.add_argument("--pipeline")
    ap.add_argument("--xdp")
    ap.add_argument("--live")
    ap.add_argument("--stage")
    ap.add_argument("--transport")
    ap.add_argument("--section", action="append", default=[],
                    help="a section another benchmark wrote (markdown), kept if it exists")
    ap.add_argument("--md", required=True)
    ap.add_argument("--png", required=True)
    a = ap.parse_args()
    plot_dir = os.path.join(os.environ.get("BUILD", "build"), "bench")
    os.makedirs(plot_dir, exist_ok=True)

    body = []
    ksum, kfuncs = kernels_section(read_csv(a.kernels), body, plot_dir)
    pres = pipeline_section(read_csv(a.pipeline), a.pipeline, body, plot_dir)
    stage_section(read_csv(a.stage), pres, body)
    try:
        os.remove(os.path.join(plot_dir, "plot-xdp.dat"))
    except OSError:
        pass
    xres = xdp_section(a.xdp, body, plot_dir)
    live_section(a.live, body)
    transport_section(a.transport, body)
    for path in a.section:
        if os.path.exists(path):
            body.append(open(path).read())

    out = ["# Performance", "",
           "Generated by `make bench` (scripts/bench/, report: scripts/bench/report.py) on "
           "%s. Do not edit: run `make bench` again." % datetime.date.today().isoformat(), "",
           "Every figure below is a **ratio against a baseline measured in the same run, on "
           "the same machine**: absolute rates on this small shared VM move from run to run "
           "by tens of percent (other processes, the hypervisor, turbo), ratios much less. "
           "Runs alternate between the program and its baseline (A B A B ...) and the "
           "tables give medians over the rounds, with the spread. Timings live only here: "
           "`make test` never checks one.", "",
           "![ratios](perf.png)", "",
           "## Machine and versions", "",
           "| | |", "|---|---|",
           "| CPU | %s |" % cpu_model(),
           "| cores | %s online (%s) |" % (os.cpu_count(), sh("nproc") + " usable"),
           "| SIMD | %s |" % cpu_flags(),
           "| kernel | %s %s |" % (platform.system(), platform.release()),
           "| OS | %s |" % (sh(". /etc/os-release && echo $PRETTY_NAME") or "unknown"),
           "| hardware counters | %s; cycles below are TSC ticks (rdtsc) |" % hw_counters()]
    out += ["| %s | %s |" % v for v in versions()]
    out += ["", "## Summary", "",
            "| what | measured | goal |", "|---|---:|---:|"]
    r = pres.get("rtc_vs_forward")
    if r and r[0] is not None:
        out.append("| xio-pipeline rtc narrowing / the same binary forwarding only, no CRC | **%s** | >= 0.85 |" % fnum(r[0], 2))
    r = pres.get(("nocrc", "rtc"))
    if r:
        out.append("| xio-pipeline rtc, one forwarding core, no CRC / testpmd io | %s | |" % fnum(r[2], 2))
    for mode, label in (("forward", "xio-pipeline forward (nothing to narrow), no CRC"),
                        ("csum", "dpdk-testpmd csum (software checksums)")):
        r = pres.get(("nocrc", mode))
        if r:
            out.append("| %s / testpmd io | %s | |" % (label, fnum(r[2], 2)))
    r = pres.get("rtc_vs_csum")
    if r and r[0] is not None:
        out.append("| xio-pipeline rtc, no CRC / testpmd csum (both verify every payload in software) | %s | |" % fnum(r[0], 2))
    for key, label in ((("nocrc", "pipeline"), "pipeline mode, no CRC"), (("crc", "rtc"), "rtc, CRC32C"),
                       (("crc", "pipeline"), "pipeline mode, CRC32C")):
        r = pres.get(key)
        if r:
            out.append("| xio-pipeline %s / testpmd io | %s | |" % (label, fnum(r[2], 2)))
    for i, (f, (lo, hi, ok, n)) in enumerate(ksum.items()):
        out.append("| %s narrowing (%s)%s / memcpy, 64 B..9000 B | %s..%s (>= 1 at %d of %d sizes) | %s |" % (
            f.split()[0], f.split()[1], ", the kernel picked at run time" if i == 0 else "",
            fnum(lo, 2), fnum(hi, 2), ok, n, ">= 1 from 256 B" if i == 0 else ""))
    for cfg in ("xio-kernel", "xio-afxdp"):
        r = xres.get(cfg)
        if r:
            out.append("| XDP %s mode forwarded / xdp-bench redirect (pass) | %s (%s) | %s |" % (
                cfg[4:], fnum(r[2], 2), fnum(r[3], 2), ">= 0.50" if cfg == "xio-kernel" else ""))
    out.append("")
    out += body
    el = lambda path: next((c.split("=", 1)[1] for c in comments(path) if c.startswith("elapsed_s=")), None)
    took = ", ".join("%s %s s" % (n, t) for n, t in (("pipeline", el(a.pipeline)), ("XDP", el(a.xdp))) if t)
    out += WHY
    out += ["## How to read and rerun", "",
            "- This run's measuring time: %s (plus about 20 s of kernel benchmark and the "
            "build). What changed between runs, and why: [CHANGES.md](CHANGES.md)." % (took or "not recorded"),
            "- `make bench` runs `bench-kernels`, `bench-stage`, `bench-pipeline`, `bench-xdp` (root: "
            "namespaces and XDP; skipped with a note otherwise) and `bench-report`, which "
            "rewrites this file and perf.png; `bench-live`, `bench-transport` (root) and "
            "`bench-training` then rewrite their own sections. Raw per-run figures: "
            "`build/bench/kernels.csv`, `stage.csv`, `pipeline-runs.csv`, `xdp-runs.csv`; every run's "
            "log and stats JSON: `build/bench/logs/`. `BENCH_ROUNDS=N` changes the "
            "number of rounds (default 5).",
            "- The machine is a 2-core VM: the baseline and xio-pipeline share it with "
            "the kernel, the hypervisor and whatever else runs; a ratio that moves by "
            "0.05 between two `make bench` runs is noise. On a BlueField the absolute "
            "rates differ entirely (mlx5 instead of net_pcap, Arm cores, NEON kernel); "
            "rerun there.",
            "- net_pcap's `infinite_rx` copies every frame out of its in-memory capture "
            "into a fresh mbuf (a 1530-byte memcpy per frame) and its TX frees mbufs, so "
            "both programs pay for the PMD; the ratio is xio-pipeline's per-frame work "
            "(validation, checksums, narrowing, rewrite) against forwarding alone.",
            "- Cycles: the hardware cycle counter is not available in this VM "
            "(perf_event_open fails), so the kernel table counts TSC ticks, which tick "
            "at the nominal frequency whatever the core's clock.",
            "- XDP on veth measures the kernel's software path (no NIC, no driver "
            "zero-copy): AF_XDP runs in copy mode, and the sender's and receiver's "
            "costs are outside the DUT's CPU but share the machine.", ""]
    with open(a.md, "w") as f:
        f.write("\n".join(out))
    chart(a.png, plot_dir, kfuncs)
    print("report: wrote %s and %s" % (a.md, a.png))


if __name__ == "__main__":
    main()
