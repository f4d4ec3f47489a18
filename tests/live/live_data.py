#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# live_data.py: the live test's data and its expected outputs, written
# independently of the project's code (Python's standard library only):
#
#   live_data.py make DIR          seeded INT32 files in DIR: tokens.bin (raw),
#                                  ds.bin/ds.idx (a Megatron-LM int32 dataset),
#                                  oor.bin (tokens.bin's size, a few tokens out
#                                  of 0..65535; their positions in oor.txt)
#   live_data.py narrow SRC OUT [--saturate]
#                                  SRC's INT32 tokens as UINT16 (an out-of-range
#                                  token is an error, or clamped)
#   live_data.py megatron SRC OUT  the UINT16 dataset OUT.bin/OUT.idx that a
#                                  reader of SRC.bin/SRC.idx must produce
import random
import struct
import sys
from array import array

SEED = 12
TOKENS = 1 << 20             # tokens.bin: 4 MiB of INT32
DOCS = 300                   # ds: about 512 Ki tokens in DOCS documents
MAGIC = b"MMIDIDX\x00\x00"
DTYPE_INT32, DTYPE_UINT16 = 4, 8
OOR = [(777, 65536), (123457, -1), (500001, 70000), (1048575, -2147483648)]


def tokens(rng, n):
    t = array("i", array("H", rng.randbytes(2 * n)))
    assert t.itemsize == 4
    return t


def write_idx(path, dtype, sizes, itemsize):
    pointers, off = [], 0
    for s in sizes:
        pointers.append(off)
        off += s * itemsize
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<QB", 1, dtype))
        f.write(struct.pack("<QQ", len(sizes), len(sizes) + 1))
        f.write(array("i", sizes).tobytes())
        f.write(array("q", pointers).tobytes())
        f.write(array("q", range(len(sizes) + 1)).tobytes())


def read_idx(path):
    with open(path, "rb") as f:
        d = f.read()
    if d[:9] != MAGIC:
        sys.exit(f"{path}: not a Megatron index")
    version, dtype = struct.unpack_from("<QB", d, 9)
    n, ndoc = struct.unpack_from("<QQ", d, 18)
    off = 34
    sizes = array("i", d[off:off + 4 * n]); off += 4 * n
    pointers = array("q", d[off:off + 8 * n]); off += 8 * n
    docs = array("q", d[off:off + 8 * ndoc])
    return version, dtype, sizes, pointers, docs


def make(root):
    rng = random.Random(SEED)
    t = tokens(rng, TOKENS)
    with open(f"{root}/tokens.bin", "wb") as f:
        f.write(t.tobytes())
    for i, v in OOR:
        t[i] = v
    with open(f"{root}/oor.bin", "wb") as f:
        f.write(t.tobytes())
    with open(f"{root}/oor.txt", "w") as f:
        f.write("".join(f"{i} {v}\n" for i, v in OOR))
    sizes = [rng.randrange(1, 3500) for _ in range(DOCS)]
    with open(f"{root}/ds.bin", "wb") as f:
        f.write(tokens(rng, sum(sizes)).tobytes())
    write_idx(f"{root}/ds.idx", DTYPE_INT32, sizes, 4)


def narrow(src, out, saturate):
    with open(src, "rb") as f:
        t = array("i", f.read())
    if saturate:
        u = array("H", (min(max(v, 0), 65535) for v in t))
    else:
        bad = next((i for i, v in enumerate(t) if not 0 <= v <= 65535), None)
        if bad is not None:
            sys.exit(f"{src}: token {bad} is {t[bad]}")
        u = array("H", t)
    with open(out, "wb") as f:
        f.write(u.tobytes())


def megatron(src, out):
    version, dtype, sizes, pointers, docs = read_idx(src + ".idx")
    assert version == 1 and dtype == DTYPE_INT32
    narrow(src + ".bin", out + ".bin", False)
    with open(out + ".idx", "wb") as f:
        f.write(MAGIC + struct.pack("<QB", 1, DTYPE_UINT16))
        f.write(struct.pack("<QQ", len(sizes), len(docs)))
        f.write(sizes.tobytes())
        f.write(array("q", (p // 2 for p in pointers)).tobytes())
        f.write(docs.tobytes())


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "make":
        make(args[0])
    elif cmd == "narrow":
        narrow(args[0], args[1], "--saturate" in args[2:])
    elif cmd == "megatron":
        megatron(args[0], args[1])
    else:
        sys.exit(f"live_data.py: unknown command {cmd}")
