#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/bench/cuda_feed.py --out DIR: the GPU feed on a CUDA machine.
scripts/bench/cuda_feed.py --splice DIR/cuda_feed.md: its figures into
docs/perf.md (section 7), on any machine.

Run from the root of a copy of the repository, with PyTorch and a GPU
(docs/perf.md, section 7, says how it was run). It builds libxio and a
server without DPDK (make build/libxio.so build/xio-server; the test server
build/tests/xcl-server when xio-server does not build there; ISA-L from
.isal/*.deb when pkg-config does not find it), makes a 1 GiB INT32 token
file and its UINT16 form under /tmp/xio-cuda, starts the server on
loopback, and measures, rounds alternating:

1. host to GPU, from the same UINT16 batches of random samples in host
   memory to (inputs, targets) on the GPU, each through pinned memory and
   a non_blocking copy on a side stream one batch ahead:
   uint16  xio.torch.to_device: UINT16 over PCIe, widened to int64 there
   int64   Megatron-LM style: widened to int64 on the host, two tensors
   int32   llm.c style: widened to int32 on the host, int32 on the GPU
   tokens/s and host CPU seconds per million tokens;
2. a DataLoader with 4 workers (batch 32 of 2,048-token samples, shuffled,
   pin_memory, to_device): xio.torch.TokenDataset over the server against
   the same dataset reading the local UINT16 file (np.memmap): samples/s,
   the workers' and the main process's CPU, and the server's.

Writes DIR/cuda_feed.csv (one row per case and round) and DIR/cuda_feed.md
(the section for docs/perf.md), and prints the latter. About 2-3 minutes.
"""
import argparse
import csv
import glob
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
WORK = "/tmp/xio-cuda"
SAMPLE = 2048


def sh(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=TOP, **kw)


def isal_flags():
    """make variables for ISA-L: none when pkg-config finds it, else the
    headers and library unpacked from .isal/*.deb (Debian's libisal2 and
    libisal-dev), linked with an rpath to them."""
    if shutil.which("pkg-config") and subprocess.run(
            ["pkg-config", "--exists", "libisal"]).returncode == 0:
        return []
    if os.path.exists("/usr/include/isa-l.h"):
        return []
    debs = glob.glob(os.path.join(TOP, ".isal", "*.deb"))
    if not debs:
        sys.exit("cuda_feed: ISA-L is not installed and .isal/ holds no libisal2 and "
                 "libisal-dev .deb to unpack (apt-get download libisal2 libisal-dev)")
    root = os.path.join(WORK, "isal")
    os.makedirs(root, exist_ok=True)
    for d in debs:
        sh(["dpkg-deb", "-x", d, root], check=True)
    libdir = os.path.join(root, "usr", "lib", "x86_64-linux-gnu")
    if not os.path.exists(os.path.join(libdir, "libisal.so")):
        os.symlink("libisal.so.2", os.path.join(libdir, "libisal.so"))
    return ["ISAL_CFLAGS=-I%s" % os.path.join(root, "usr", "include"),
            "ISAL_LIBS=-L%s -Wl,-rpath,%s -lisal" % (libdir, libdir)]


def build():
    flags = ["-j%d" % min(16, os.cpu_count() or 1), "PKGCONF=pkg-config"] + isal_flags()
    if sh(["make"] + flags + ["build/libxio.so"]).returncode:
        sys.exit("cuda_feed: libxio did not build")
    if sh(["make"] + flags + ["build/xio-server"]).returncode == 0:
        return "xio-server", [os.path.join(TOP, "build", "xio-server"), "--bind", "127.0.0.1"]
    if sh(["make"] + flags + ["build/tests/xcl-server"]).returncode == 0:
        return "xcl-server", [os.path.join(TOP, "build", "tests", "xcl-server")]
    sys.exit("cuda_feed: neither xio-server nor xcl-server built")


class Local:
    """The local UINT16 file, as np.memmap."""

    def __init__(self, path):
        import numpy as np
        self.mm = np.memmap(path, dtype=np.uint16, mode="r")

    def close(self):
        self.mm = None


def cpu_of(pid):
    """user + system seconds of a process (/proc/PID/stat)."""
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="folder for cuda_feed.csv and cuda_feed.md")
    ap.add_argument("--splice", metavar="CUDA_FEED_MD",
                    help="measure nothing: put this cuda_feed.md into --md as its section 7 "
                         "(and into build/bench/, where make bench-report finds it)")
    ap.add_argument("--md", default=os.path.join(TOP, "docs", "perf.md"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0, help="per case and round")
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--device", default="cuda", help="cpu: a smoke run of the script's logic")
    a = ap.parse_args()
    if a.splice:
        return splice_section(a.splice, a.md)
    if not a.out:
        ap.error("--out DIR (or --splice FILE)")
    os.makedirs(a.out, exist_ok=True)
    t_start = time.perf_counter()
    server_name, argv = build()

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import numpy as np
    import torch
    from training import make_data, start_server  # bench-training's, with xio
    from xio.torch import TokenDataset, to_device, widen

    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if cuda and not torch.cuda.is_available():
        sys.exit("cuda_feed: no CUDA device")

    def pin(t):
        return t.pin_memory() if cuda else t

    def sync():
        if cuda:
            torch.cuda.synchronize()

    ntok = make_data(WORK, a.mib)
    u16 = os.path.join(WORK, "tok.u16")
    local = np.memmap(u16, dtype=np.uint16, mode="r")
    proc, server = start_server(argv, WORK)
    rows = []
    try:
        # 1. host to GPU from the same UINT16 batches (B x (ctx + 1)).
        B, ctx = 32, 4096
        rng = np.random.default_rng(1)
        host = [np.stack([np.asarray(local[s:s + ctx + 1])
                          for s in rng.integers(0, ntok - ctx - 1, B)]) for _ in range(16)]
        want = [widen(torch.from_numpy(b.astype(np.int64)))[0] for b in host[:2]]

        def feed_uint16(n):
            src = (pin(torch.from_numpy(host[i % 16].view(np.int16))) for i in range(n))
            return to_device(src, dev)

        def host_widened(dtype):
            def feed(n):
                if not cuda:
                    for i in range(n):
                        b = host[i % 16]
                        yield (torch.from_numpy(b[:, :-1].astype(dtype)).to(dev),
                               torch.from_numpy(b[:, 1:].astype(dtype)).to(dev))
                    return
                side = torch.cuda.Stream()
                pending = None
                for i in range(n):
                    b = host[i % 16]
                    x = pin(torch.from_numpy(b[:, :-1].astype(dtype)))
                    y = pin(torch.from_numpy(b[:, 1:].astype(dtype)))
                    with torch.cuda.stream(side):
                        gx, gy = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
                        ev = torch.cuda.Event()
                        ev.record(side)
                    if pending is not None:
                        yield pending
                    torch.cuda.current_stream().wait_event(ev)
                    gx.record_stream(torch.cuda.current_stream())
                    gy.record_stream(torch.cuda.current_stream())
                    pending = (gx, gy)
                yield pending
            return feed

        cases = {"uint16": feed_uint16, "int64": host_widened(np.int64),
                 "int32": host_widened(np.int32)}
        for name, feed in cases.items():  # correctness and warm-up
            got = list(feed(2))
            for g, w in zip(got, want):
                if not torch.equal(g[0].cpu().long(), w):
                    sys.exit("cuda_feed: %s delivered wrong tokens" % name)
        for r in range(a.rounds):
            for name, feed in cases.items():
                n = 0
                sync()
                t0, c0 = time.perf_counter(), time.process_time()
                while time.perf_counter() - t0 < a.seconds:
                    for x, y in feed(50):
                        n += 1
                sync()
                t, c = time.perf_counter() - t0, time.process_time() - c0
                tok = n * B * ctx
                rows.append({"test": "h2d", "case": name, "round": r, "tokens": tok,
                             "seconds": "%.4f" % t, "host_cpu_s": "%.4f" % c,
                             "server_cpu_s": "", "tokens_per_s": "%.0f" % (tok / t),
                             "samples_per_s": "%.0f" % (n * B / t)})
                print(rows[-1], flush=True)

        # 2. DataLoader, 4 workers, xio against the local file.
        class LocalTokens(TokenDataset):
            """TokenDataset's streams, shuffle and prefetch thread over the
            local UINT16 file instead of the server."""

            def _open(self):
                return Local(u16)

            def _nsamples(self, f):
                return (len(f.mm) - 1) // self.context

            def _fetch(self, f, ks):
                c = self.context
                return np.stack([f.mm[k * c:(k + 1) * c + 1] for k in ks])

        def loader(ds):
            return torch.utils.data.DataLoader(ds, batch_size=32, num_workers=4,
                                               pin_memory=cuda, prefetch_factor=4)

        for r in range(a.rounds):
            for name in ("xio", "local"):
                cls = TokenDataset if name == "xio" else LocalTokens
                ds = cls(server, "tok.bin", SAMPLE, shuffle=True, seed=r, uint16=True,
                         samples_per_batch=64, prefetch=4)
                ch0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                s0, c0 = cpu_of(proc.pid), time.process_time()
                it = iter(loader(ds))
                n = 0
                t0 = time.perf_counter()
                for x, y in to_device(it, dev):
                    n += len(x)
                    if time.perf_counter() - t0 > a.seconds * 2:
                        break
                sync()
                t = time.perf_counter() - t0
                del it  # the workers exit and are reaped
                ch1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                c = time.process_time() - c0 + (ch1.ru_utime + ch1.ru_stime) - \
                    (ch0.ru_utime + ch0.ru_stime)
                rows.append({"test": "dataloader", "case": name, "round": r,
                             "tokens": n * SAMPLE, "seconds": "%.4f" % t,
                             "host_cpu_s": "%.4f" % c,
                             "server_cpu_s": "%.4f" % (cpu_of(proc.pid) - s0),
                             "tokens_per_s": "%.0f" % (n * SAMPLE / t),
                             "samples_per_s": "%.0f" % (n / t)})
                print(rows[-1], flush=True)
    finally:
        proc.terminate()
        proc.wait()
    with open(os.path.join(a.out, "cuda_feed.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    md = section(rows, torch, server_name, time.perf_counter() - t_start)
    with open(os.path.join(a.out, "cuda_feed.md"), "w") as f:
        f.write(md)
    print(md)


TITLE = "## 7. The GPU feed: UINT16 to the GPU, a DataLoader over xio"


def splice_section(path, md):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from live_report import splice
    text = open(path).read()
    if not text.startswith(TITLE + "\n"):
        sys.exit("cuda_feed: %s is not a cuda_feed.md (its first line is not %r)" % (path, TITLE))
    keep = os.path.join(TOP, "docs", "perf-data", "cuda_feed-h100.md")
    os.makedirs(os.path.dirname(keep), exist_ok=True)
    if os.path.abspath(path) != keep:
        shutil.copyfile(path, keep)
    splice(md, [text], TITLE)
    print("cuda_feed: wrote %s's section '%s' (kept in %s)" % (md, TITLE[3:], keep))


def section(rows, torch, server_name, elapsed):
    def vals(test, case, f):
        return [f(r) for r in rows if r["test"] == test and r["case"] == case]

    def med(v, fmt):
        return (fmt % statistics.median(v)) + " (" + (fmt % min(v)) + "-" + (fmt % max(v)) + ")"

    def ratio(test, a, b, key, inverse=False):
        x = vals(test, a, lambda r: float(r[key]) / int(r["tokens"]) if inverse
                 else float(r[key]))
        y = vals(test, b, lambda r: float(r[key]) / int(r["tokens"]) if inverse
                 else float(r[key]))
        return med([p / q for p, q in zip(x, y)], "%.2f")

    def cpu(test, case):
        return med(vals(test, case, lambda r: float(r["host_cpu_s"]) / int(r["tokens"]) * 1e6),
                   "%.4f")

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU (cpu)"
    out = [TITLE, "",
           "scripts/bench/cuda_feed.py on %s (PyTorch %s, %d CPUs), the server (%s) on "
           "loopback on the same host; %d rounds, cases alternating; median (min-max); "
           "measured in %.0f s." % (gpu, torch.__version__, os.cpu_count(), server_name,
                                    len({r["round"] for r in rows}), elapsed), "",
           "Host to GPU: batches of 32 random samples of 4,096 + 1 tokens, from UINT16 in "
           "host memory to (inputs, targets) on the GPU, each through pinned memory and a "
           "non_blocking copy on a side stream one batch ahead.", "",
           "| case | Mtok/s | / uint16 | host CPU s per Mtok | / uint16 |",
           "|---|---:|---:|---:|---:|"]
    for case, what in (("uint16", "UINT16 over PCIe, widened to int64 on the GPU "
                                  "(`xio.torch.to_device`)"),
                       ("int64", "int64 inputs and targets made on the host (Megatron-LM)"),
                       ("int32", "int32 made on the host, int32 on the GPU (llm.c)")):
        out.append("| %s | %s | %s | %s | %s |" % (
            what, med(vals("h2d", case, lambda r: float(r["tokens_per_s"]) / 1e6), "%.0f"),
            ratio("h2d", case, "uint16", "tokens_per_s"), cpu("h2d", case),
            ratio("h2d", case, "uint16", "host_cpu_s", inverse=True)))
    out += ["", "A DataLoader with 4 workers, batches of 32 shuffled 2,048-token samples "
            "(`uint16=True`, `pin_memory=True`, `to_device`): `xio.torch.TokenDataset` "
            "over the server against the same class reading the local UINT16 file through "
            "np.memmap (page cache warm). Host CPU: the main process and the workers; server "
            "CPU: the server process.", "",
            "| source | samples/s | / local | host CPU s per Mtok | server CPU s per Mtok |",
            "|---|---:|---:|---:|---:|"]
    for case in ("xio", "local"):
        out.append("| %s | %s | %s | %s | %s |" % (
            case, med(vals("dataloader", case, lambda r: float(r["samples_per_s"])), "%.0f"),
            ratio("dataloader", case, "local", "samples_per_s"), cpu("dataloader", case),
            med(vals("dataloader", case,
                     lambda r: float(r["server_cpu_s"] or 0) / int(r["tokens"]) * 1e6),
                "%.4f")))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
