# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/lib.sh: what the benchmark scripts share (sourced, not run):
# paths, the bench capture (364-token frames) and small helpers.

BUILD=${BUILD:-build}
BENCH_DIR=${BENCH_DIR:-$BUILD/bench}
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
XIO_PIPELINE=${XIO_PIPELINE:-$BUILD/xio-pipeline}
XIO_GEN=${XIO_GEN:-$BUILD/xio-gen}

# Frames of 364 INT32 tokens: IPv4 20 + UDP 8 + XIO 32 + 364 * 4 = 1516 bytes
# of IP datagram (xio-gen's --mtu is the IP MTU), 1530 bytes on the wire.
BENCH_TOKENS_PER_FRAME=364
BENCH_MTU=1516
BENCH_FRAMES=${BENCH_FRAMES:-2048}

log() { echo "bench: $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }

now() { date +%s.%N; }

# bench_captures: writes $BENCH_DIR/tokens.bin and the two captures,
# cap-nocrc.pcap (UDP checksum on, no CRC) and cap-crc.pcap (HAS_CRC), each
# $BENCH_FRAMES frames of exactly $BENCH_TOKENS_PER_FRAME in-range tokens.
bench_captures() {
	mkdir -p "$BENCH_DIR"
	python3 - "$BENCH_DIR/tokens.bin" $((BENCH_FRAMES * BENCH_TOKENS_PER_FRAME)) <<'PY'
import struct, sys
n = int(sys.argv[2])
# in-range pseudo-random tokens (a GPT-2-sized vocabulary), fixed seed
x, toks = 7910, []
for _ in range(n):
    x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
    toks.append((x >> 33) % 50257)
open(sys.argv[1], "wb").write(struct.pack("<%di" % n, *toks))
PY
	local c out
	for c in nocrc crc; do
		out=$("$XIO_GEN" --tokens "$BENCH_DIR/tokens.bin" --out "$BENCH_DIR/cap-$c.pcap" \
			--mtu "$BENCH_MTU" $([ "$c" = crc ] && echo --crc) 2>&1) ||
			die "xio-gen failed: $out"
		case $out in
		*" $BENCH_FRAMES frames ("*"up to $BENCH_TOKENS_PER_FRAME tokens a frame"*) ;;
		*) die "xio-gen did not make $BENCH_FRAMES frames of $BENCH_TOKENS_PER_FRAME tokens: $out" ;;
		esac
	done
	log "captures: $BENCH_FRAMES frames of $BENCH_TOKENS_PER_FRAME tokens (--mtu $BENCH_MTU), with and without CRC"
}
