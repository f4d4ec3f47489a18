#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# tests/client/make_data.py ROOT EXPECT: the inputs of the client's tests in
# ROOT (what xcl-server exports) and what each output must be in EXPECT,
# made with numpy and nothing of libxio: the narrowing here is numpy's
# astype after a range check, the Megatron index is written the way
# Megatron-LM's _IndexWriter lays it out, the llm.c header the way llm.c's
# write_datafile does.
import os
import struct
import sys

import numpy as np

root, expect = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20240520)


def u16(t):
    t = np.asarray(t, dtype=np.int64)
    assert t.min() >= 0 and t.max() <= 65535
    return t.astype("<u2")


# tok.bin: 2,000,003 tokens, the edge values at the start
n = 2_000_003
tok = rng.integers(0, 65536, n, dtype=np.int64)
tok[:4] = [0, 65535, 32768, 1]
tok.astype("<i4").tofile(os.path.join(root, "tok.bin"))
u16(tok).tofile(os.path.join(expect, "tok.u16"))

# llm.c: 256 int32 (20240520, 1, token count, zeros), then uint16 tokens
hdr = np.zeros(256, dtype="<i4")
hdr[0], hdr[1], hdr[2] = 20240520, 1, n
with open(os.path.join(expect, "tok.llmc"), "wb") as f:
    f.write(hdr.tobytes())
    f.write(u16(tok).tobytes())

# oor.bin: out-of-range tokens at 123457 (70000) and 1500000 (-3)
oor = tok.copy()
oor[123457] = 70000
oor[1500000] = -3
oor.astype("<i4").tofile(os.path.join(root, "oor.bin"))
u16(np.clip(oor, 0, 65535)).tofile(os.path.join(expect, "oor.sat.u16"))

# odd.bin: not tokens (size not a multiple of 4)
with open(os.path.join(root, "odd.bin"), "wb") as f:
    f.write(b"\x01" * 4098)


def megatron_idx(dtype_code, itemsize, sizes, docs, modes=b""):
    """The .idx bytes, as Megatron-LM's _IndexWriter writes them."""
    ptrs, at = [], 0
    for s in sizes:
        ptrs.append(at)
        at += s * itemsize
    out = b"MMIDIDX\x00\x00" + struct.pack("<Q", 1) + struct.pack("<B", dtype_code)
    out += struct.pack("<Q", len(sizes)) + struct.pack("<Q", len(docs))
    out += np.array(sizes, dtype=np.int32).tobytes()
    out += np.array(ptrs, dtype=np.int64).tobytes()
    out += np.array(docs, dtype=np.int64).tobytes()
    return out + modes


def megatron_dataset(name, rng, nseq, ndocs, max_size, head=()):
    """An int32 Megatron-LM dataset of nseq sequences in ndocs documents in
    ROOT (name.bin, name.idx) and its UINT16 form in EXPECT; its sizes,
    document indices and tokens (the first ones head)."""
    sizes = [int(x) for x in rng.integers(1, max_size, nseq)]
    cuts = rng.choice(np.arange(1, nseq), ndocs - 2, replace=False)
    docs = [0] + sorted(int(x) for x in cuts) + [nseq]
    tokens = rng.integers(0, 65536, sum(sizes), dtype=np.int64)
    tokens[:len(head)] = head
    tokens.astype("<i4").tofile(os.path.join(root, name + ".bin"))
    with open(os.path.join(root, name + ".idx"), "wb") as f:
        f.write(megatron_idx(4, 4, sizes, docs))
    u16(tokens).tofile(os.path.join(expect, name + ".bin"))
    with open(os.path.join(expect, name + ".idx"), "wb") as f:
        f.write(megatron_idx(8, 2, sizes, docs))
    return sizes, docs, tokens


# ds: 300 sequences in 120 documents
sizes, docs, ds = megatron_dataset("ds", rng, 300, 120, 4000)
total = len(ds)

# ds16: already uint16 (dtype code 8): refused
u16(ds).tofile(os.path.join(root, "ds16.bin"))
with open(os.path.join(root, "ds16.idx"), "wb") as f:
    f.write(megatron_idx(8, 2, sizes, docs))

# ds2: a second one (blends), 200 sequences in 80 documents, 65535 first
# (its own generator: the files above stay as they were)
megatron_dataset("ds2", np.random.default_rng(20251125), 200, 80, 3000, head=(65535, 0))

print(n, total)
