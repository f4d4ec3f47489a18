#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Regenerates pcap/sample.pcap and its token file pcap/sample-tokens.bin:
# 100000 pseudo-random GPT-2-sized tokens (0..50256, a 64-bit LCG seeded
# with 12345) carried by xio-gen with CRC32C, plus 24 foreign frames.
# --check: regenerate into a temporary folder and compare with the
# committed files (exit 1 if they differ).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
out=pcap
if [ "${1:-}" = "--check" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
make -s "$BUILD/xio-gen"
python3 - "$out/sample-tokens.bin" <<'PY'
import struct, sys
x, toks = 12345, []
for _ in range(100000):
    x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
    toks.append((x >> 33) % 50257)
open(sys.argv[1], "wb").write(struct.pack("<%di" % len(toks), *toks))
PY
"$BUILD/xio-gen" --tokens "$out/sample-tokens.bin" --out "$out/sample.pcap" --crc --foreign 24 --seed 1
if [ "$out" != pcap ]; then
	for f in sample-tokens.bin sample.pcap; do
		cmp "$out/$f" "pcap/$f" || { echo "make-sample: pcap/$f differs from a fresh build" >&2; exit 1; }
	done
	echo "make-sample: pcap/sample.pcap and pcap/sample-tokens.bin match a fresh build"
fi
