#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/transport_report.py: the "Transport" section of docs/perf.md
# from build/bench/transport-runs.csv (scripts/bench/transport.sh) and the
# 16-core H100 machine's figures kept in the repository
# (docs/perf-data/transport-h100.csv, written there by
# scripts/bench/transport-device.sh; docs/perf-data/transport-h100-0.4.0.csv,
# the figures of 0.4.0 before this benchmark existed), so that a later `make
# bench` on this VM does not drop them. report.py calls transport_section()
# when it writes the whole file; run alone (make bench-transport), it puts the
# section into docs/perf.md in place and leaves every other section as it is.
import argparse
import csv
import json
import os
import statistics

from live_report import splice

TITLE = "## 5. Transport: xio-fetch against a TCP read of the same file"
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "perf-data")
H100 = os.path.join(DATA, "transport-h100.csv")
H100_OLD = os.path.join(DATA, "transport-h100-0.4.0.csv")


def _rows(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def _notes(path):
    return dict(l[1:].strip().split("=", 1) for l in open(path)
                if l.startswith("#") and "=" in l)


def _runs(rows, case, tool, key):
    """{round: value} of the byte-exact runs of a case and tool."""
    return {r["round"]: float(r[key]) for r in rows
            if r["case"] == case and r["tool"].startswith(tool) and r["exact"] == "yes"}


def _ratios(num, den):
    return [num[k] / den[k] for k in num if k in den and den[k]]


def _fmt(rs):
    if not rs:
        return "n/a"
    return "**%.2f** (%.2f-%.2f)" % (statistics.median(rs), min(rs), max(rs))


def _med(d, scale=1.0, fmt="%.0f"):
    return fmt % (statistics.median(d.values()) * scale) if d else "n/a"


def _verdict(rs, goal, le=False):
    if not rs or goal is None:
        return ""
    m = statistics.median(rs)
    return "met" if (m <= goal if le else m >= goal) else "**not met**"


def _why(key, rows, notes):
    """A short account of where a figure stands, from the run's own counters."""
    dg = _runs(rows, "loop1", "xio", "datagrams")
    rr = _runs(rows, "loss", "xio", "re_requests")
    lost = _runs(rows, "loss", "xio", "lost")
    tlost = _runs(rows, "loss", "tcp", "lost")
    afxdp = ""
    try:
        n = json.loads(notes.get("dpu_live9000", "{}")).get("afxdp_lost", 0)
        if n:
            afxdp = (" xio-pipeline's XDP kernel mode hands jumbo (multi-buffer) frames to its "
                     "AF_XDP worker, which lost %d of them in this phase: the client asked "
                     "again." % n)
    except ValueError:
        pass
    return {
        "loop1": "TCP moves the file with sendfile (no copy on the server) in 64 KB segments "
                 "and one copy into the reader. xio's server copies each payload once "
                 "(the kernel, from the file's mapping into the GSO segments) and sends "
                 "1472-byte datagrams at the default MTU 1500 (%s a fetch), each with its own "
                 "header and UDP checksum; the client splits GRO buffers, checks every header "
                 "and places each payload. Server and client share the two cores."
                 % _med(dg),
        "loop2": "Two streams on two cores: the server's workers and the reader's flows share "
                 "the same two cores, so a second stream adds contention more than capacity."
                 + ("" if notes.get("flows") == "yes" else
                    " xio-fetch had no --flows in this build: two processes, --rank 0 and 1 "
                    "of --world 2."),
        "live1500": "Both cross three veths and the XDP program; xio's replies are narrowed "
                    "on the DPU (half the bytes reach the host), TCP's frames pass unchanged "
                    "and the host narrows them. The server, the DPU's softirq work and the "
                    "reader share two cores: the DPU's per-frame work is taken from the ends.",
        "live9000": "A sixth of the datagrams for the same bytes (2232 tokens each), so xio's "
                    "per-datagram costs shrink; TCP's per-segment costs shrink too." + afxdp,
        "loss": "%s datagrams lost per xio fetch and %s TCP segments (medians); xio-fetch "
                "asked again %s times a fetch, each after a gap or a timeout (docs/client.md), "
                "while TCP repairs within a round trip (SACK) and keeps its window moving."
                % (_med(lost), _med(tlost), _med(rr)),
        "cpu": "The reader's own CPU (wait4: user + system of all its threads). xio-fetch's "
               "goes to receiving datagrams (a GRO split, a header check and a placement "
               "each); the TCP reader's to one copy per byte and the narrowing pass.",
        "busy": "The whole machine's busy time over the run (/proc/stat): the server, the DPU "
                "and the softirq work charged to no process as well.",
    }[key]


def vm_table(path, out):
    rows, notes = _rows(path), _notes(path)
    rounds = len({r["round"] for r in rows})
    exact = sum(r["exact"] == "yes" for r in rows)
    out.append(
        "`make bench-transport` (scripts/bench/transport.sh): one %s MiB INT32 token file "
        "in tmpfs, read by `xio-fetch` (defaults) and by the tests' own TCP baseline "
        "(`xio-tcp-server`: sendfile, a thread per connection; `xio-tcp-read`: N streams, "
        "each token narrowed to UINT16 by the stage core's vectorised `narrow_checked` into "
        "a mapped output, as xio-fetch maps its own). Servers with their defaults plus "
        "`--bind`/`--allow` (`--mtu 9000` on the jumbo path). Through the DPU: the live "
        "path of `make e2e` (storage namespace -> xio-pipeline XDP kernel mode "
        "`--bidirectional` -> host namespace); TCP's frames cross the same xio-pipeline "
        "unchanged. Loss: build/live/xio-fault drops %s of the XIO datagrams and of "
        "TCP's data segments toward the host (seeded, at the storage's egress). %d "
        "rounds, TCP then xio in each; ratios are xio / TCP per round, median (min-max); "
        "tokens/s from each reader process's wall time; %d of %d runs byte-exact (others "
        "count in no figure). Measured in %s s on this %s-core VM, shared with other "
        "engineers' builds and tests (load %s at the end): noisy.\n"
        % (notes.get("mib", "?"), notes.get("loss", "?"), rounds, exact, len(rows),
           notes.get("elapsed_s", "?"), notes.get("cpus", "?"), notes.get("load", "?")))
    out.append("| figure | xio / TCP | goal | | TCP | xio | why it is where it is |")
    out.append("|---|---:|---:|---|---:|---:|---|")

    def line(label, case, key, goal, le, why, scale=1e-6, unit="Mtok/s", fmt="%.0f"):
        tcp, xio = _runs(rows, case, "tcp", key), _runs(rows, case, "xio", key)
        if not tcp and not xio:
            return
        rs = _ratios(xio, tcp)
        out.append("| %s | %s | %s | %s | %s %s | %s %s | %s |" % (
            label, _fmt(rs), ("<= %.1f" if le else ">= %.1f") % goal if goal else "",
            _verdict(rs, goal, le), _med(tcp, scale, fmt), unit, _med(xio, scale, fmt), unit,
            why))

    line("(a) loopback, one stream, tokens/s", "loop1", "tokens_per_s", 1.0, False,
         _why("loop1", rows, notes))
    line("(b) loopback, 2 streams (`--flows 2`), tokens/s", "loop2", "tokens_per_s", 1.0,
         False, _why("loop2", rows, notes))
    line("(c) through the DPU, MTU 1500, tokens/s", "live1500", "tokens_per_s", 1.0, False,
         _why("live1500", rows, notes))
    line("(c) through the DPU, MTU 9000, tokens/s", "live9000", "tokens_per_s", 1.0, False,
         _why("live9000", rows, notes))
    line("(d) reader CPU per token, loopback", "loop1", "cpu_ns_per_token", 1.0, True,
         _why("cpu", rows, notes), 1.0, "ns", "%.1f")
    line("(d) reader CPU per token, through the DPU (MTU 1500)", "live1500",
         "cpu_ns_per_token", 0.6, True, _why("cpu", rows, notes), 1.0, "ns", "%.1f")
    line("(d) reader CPU per token, through the DPU (MTU 9000)", "live9000",
         "cpu_ns_per_token", 0.6, True, _why("cpu", rows, notes), 1.0, "ns", "%.1f")
    line("(d) machine busy time per token, loopback", "loop1", "busy_ns_per_token", None,
         True, _why("busy", rows, notes), 1.0, "ns", "%.1f")
    line("(d) machine busy time per token, through the DPU (MTU 1500)", "live1500",
         "busy_ns_per_token", None, True, _why("busy", rows, notes), 1.0, "ns", "%.1f")
    line("(e) 1 % loss through the DPU, tokens/s", "loss", "tokens_per_s", 1.0, False,
         _why("loss", rows, notes))
    own = _ratios(_runs(rows, "loss", "xio", "tokens_per_s"),
                  _runs(rows, "live1500", "xio", "tokens_per_s"))
    if own:
        out.append("| (e) xio with 1 %% loss / xio loss-free (same path) | %s | | | | | "
                   "what a 1 %% loss costs xio itself |" % _fmt(own))
    out.append("")
    if "skipped" in notes:
        out.append("Skipped: %s.\n" % notes["skipped"])
    srv = [(k, v) for k, v in notes.items() if k.startswith(("server_", "dpu_"))]
    if srv:
        out.append("Counters over each phase (all rounds, both readers' phases): " +
                   "; ".join("%s `%s`" % (k, v) for k, v in srv) + ".\n")


def h100_table(out):
    if os.path.exists(H100):
        rows, notes = _rows(H100), _notes(H100)
        out.append("### The 16-core H100 machine\n")
        out.append(
            "scripts/bench/transport-device.sh on %s (%s), kept in "
            "`docs/perf-data/transport-h100.csv`: loopback with N streams / `--flows N` and "
            "one fetch with the default flows, and the live path with the server, the DPU "
            "and the host on cores of their own (%s; veth NAPI threaded, its threads "
            "pinned; %s veth queues a link, as a NIC's RSS queues, one XDP NAPI thread "
            "each); GB/s of INT32 input; host busy time from the host cores' "
            "/proc/stat. %s rounds.\n"
            % (notes.get("date", "?"), notes.get("cpu", "?"), notes.get("cores", "?"),
               notes.get("veth_queues", "1"), notes.get("rounds", "?")))
        out.append("| case | TCP GB/s | xio GB/s | xio / TCP | goal | host busy/token xio / TCP "
                   "(goal <= 0.6) | re-requests / datagrams (goal <= 0.1 %) |")
        out.append("|---|---:|---:|---:|---:|---:|---:|")
        cases = []
        for r in rows:
            if (r["case"], r["mtu"]) not in cases and r["case"] != "live" or r["tool"] == "xio":
                if (r["case"], r["mtu"]) not in cases:
                    cases.append((r["case"], r["mtu"]))
        for case, mtu in cases:
            sub = [r for r in rows if r["mtu"] == mtu]
            base = "live" if case.startswith("live") else case  # live-frN: live's TCP
            tcp = _runs(sub, base, "tcp", "tokens_per_s")
            xio = _runs(sub, case, "xio", "tokens_per_s")
            live = case.startswith("live")
            rs = _ratios(xio, tcp)
            busy = _ratios(_runs(sub, case, "xio", "busy_ns_per_token"),
                           _runs(sub, base, "tcp", "busy_ns_per_token")) if live else []
            rr = [float(r["re_requests"]) / float(r["datagrams"]) * 100 for r in sub
                  if r["case"] == case and r["tool"].startswith("xio") and float(r["datagrams"] or 0)]
            goal = 1.5 if live else 1.0
            if live:
                label = "live path, MTU %s%s, host tokens/s" % (
                    mtu, ", server `--flow-rate %s`" % case[7:] if case.startswith("live-fr") else "")
            elif case == "loopdef":
                label = "loopback, xio-fetch's default flows / 1 TCP stream"
            else:
                n = case[4:]
                label = ("loopback, 1 stream / one xio-fetch (its default flows)" if n == "1"
                         else "loopback, %s streams / `--flows %s`" % (n, n))
            out.append("| %s | %s | %s | %s %s | >= %.1f | %s %s | %s |" % (
                label, _med(tcp, 4e-9, "%.2f"), _med(xio, 4e-9, "%.2f"), _fmt(rs), _verdict(rs, goal), goal,
                _fmt(busy) if live else "", _verdict(busy, 0.6, True) if live else "",
                ("%.3f %%" % statistics.median(rr)) if rr else ""))
        out.append("")
    else:
        out.append("### The 16-core H100 machine\n")
        out.append("No run of scripts/bench/transport-device.sh is kept yet "
                   "(`docs/perf-data/transport-h100.csv`).\n")
    if os.path.exists(H100_OLD):
        rows = _rows(H100_OLD)
        out.append("Figures of xio 0.4.0 on that machine, before this benchmark (one-off "
                   "measurements, kept in `docs/perf-data/transport-h100-0.4.0.csv`):\n")
        out.append("| where | TCP | xio-fetch | xio / TCP |")
        out.append("|---|---:|---:|---:|")
        for r in rows:
            out.append("| %s | %s | %s | %s |" % (r["where"], r["tcp"], r["xio"], r["ratio"]))
        out.append("")


def _kept_vm_part(md):
    """This machine's part of the section as md has it (for a run that only
    adds the H100 figures), or None."""
    if not md or not os.path.exists(md):
        return None
    lines = open(md).read().split("\n")
    start = next((i for i, l in enumerate(lines) if l == TITLE), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith(("## ", "### The 16-core"))), len(lines))
    return "\n".join(lines[start + 1:end]).strip("\n") + "\n"


def transport_section(path, out, md=None):
    """The section; without this machine's CSV, the part md already has."""
    out.append(TITLE + "\n")
    kept = None if path and os.path.exists(path) else _kept_vm_part(md)
    if path and os.path.exists(path):
        vm_table(path, out)
    elif kept:
        out.append(kept)
    else:
        out.append("No figures from this machine: `make bench-transport` did not write its "
                   "CSV.\n")
    h100_table(out)


def main():
    ap = argparse.ArgumentParser(description="docs/perf.md's transport section")
    ap.add_argument("--csv", required=True,
                    help="this machine's transport-runs.csv; when missing, the section "
                         "keeps the figures docs/perf.md has and renews the H100 part")
    ap.add_argument("--md", required=True)
    a = ap.parse_args()
    out = []
    transport_section(a.csv, out, a.md)
    splice(a.md, out, TITLE)
    print("transport_report: wrote %s's section '%s'" % (a.md, TITLE[3:]))


if __name__ == "__main__":
    main()
