#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""fuzz_seeds.py DIR: seed inputs of tests/server/fuzz_server.c (a prefix
byte, then a request datagram) for every path of its tree and every option,
built with tests/server/xio_client.py's request(); with address validation
on, READs with a cookie the target makes valid, a wrong one, and none."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xio_client import READ_REQUEST, STAT_REQUEST, OPT_RAW, OPT_CRC, request  # noqa: E402

PATHS = ["tokens.bin", "odd.bin", "empty", "dir/nested.bin", "link-in", "dir/link-up",
         "link-out", "link-abs", "link-dir-out/secret.bin", "link-proc", "link-loop",
         "dangling", "fifo", "dir", "../outside.bin", "/etc/passwd", "missing"]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = []
    for i, path in enumerate(PATHS):
        seeds.append(bytes([i & 7]) + request(STAT_REQUEST, i + 1, path))
        for opts in (0, OPT_CRC, OPT_RAW, OPT_RAW | OPT_CRC):
            for first, count, max_count in ((0, 1 << 24, 0), (7, 100, 9), (999, 5, 1)):
                seeds.append(bytes([(i + opts + first) & 7]) +
                             request(READ_REQUEST, i + 100, path, first, count, max_count, opts))
    seeds.append(b"\0" + request(STAT_REQUEST, 5, "tokens.bin", ext=b"\xee" * 8))
    # prefix bit 3: validation on, bit 4: the cookie made valid, bit 5: IPv4 peer
    for i, path in enumerate(PATHS):
        seeds.append(bytes([8 | 32 * (i & 1)]) + request(STAT_REQUEST, i + 200, path))
        for opts in (0, OPT_CRC | OPT_RAW):
            for prefix in (8 | 16, 8 | 16 | 32, 8):
                seeds.append(bytes([prefix | (i & 7)]) + request(
                    READ_REQUEST, i + 300, path, i * 7, 1 << (i % 25), 0, opts,
                    cookie=bytes(range(16))))
            seeds.append(bytes([8 | (i & 7)]) + request(READ_REQUEST, i + 400, path, 0, 9,
                                                         0, opts))
    for n, s in enumerate(seeds):
        with open(os.path.join(out, "seed-%03d" % n), "wb") as f:
            f.write(s)


if __name__ == "__main__":
    main()
