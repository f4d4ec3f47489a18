#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/server_send.sh: what xio-server's READ answers cost, on
# loopback. A 256 MB INT32 file in /dev/shm; per round: xio-fetch --flows 2
# of the whole file, 3 times (tokens/s, and the server's CPU time per token:
# the sum of its threads' on-CPU nanoseconds, /proc/PID/task/*/schedstat,
# user and system alike), then a random read through the Python client
# (read_ranges of 256 ranges of 2048 tokens at random firsts, best of 8)
# against the same 256 ranges laid end to end from token 0 and a whole-file
# read, tokens/s, and the server's CPU time per request of the random reads;
# and a TCP read of the file, 3 times (build/bench/xio-tcp-server, sendfile,
# and xio-tcp-read --streams 2), its server's CPU per token too (from
# /proc/PID/stat: its threads end with their connections).
#   scripts/bench/server_send.sh [SERVER_BIN ...]   (default build/xio-server)
# Rounds: ROUNDS (3); every server binary named is run in every round, so
# that their figures come from the same conditions. Prints one line per run.
set -euo pipefail
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
PORT=${PORT:-7931}
TPORT=${TPORT:-7932}
SERVERS=("$@")
[ ${#SERVERS[@]} -gt 0 ] || SERVERS=("$BUILD/xio-server")
PY=/usr/bin/python3
work=$(mktemp -d /dev/shm/xio-srvsend.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/root"
$PY -c "
import numpy as np
np.random.default_rng(1).integers(0, 65536, size=64 << 20, dtype=np.int32).tofile('$work/root/tok.bin')"
TOKENS=$((64 << 20))
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { print s }'; }
# xio-tcp-server's threads end with their connections: the process's user +
# system time (clock ticks), which keeps theirs
HZ=$(getconf CLK_TCK)
cpu_ns_stat() { awk -v hz="$HZ" '{ printf "%.0f", ($14 + $15) * 1e9 / hz }' "/proc/$1/stat"; }

# timed LABEL CPUFN PID CMD...: CMD (a read of the whole file into
# $work/out.u16, its stdout dropped) 3 times; one line: tokens/s, and PID's CPU per token.
timed() {
	local label=$1 cpufn=$2 pid=$3 c0 c1 t0 t1 k
	shift 3
	c0=$($cpufn "$pid")
	t0=$(date +%s.%N)
	for k in 1 2 3; do
		"$@" >/dev/null
		rm -f "$work/out.u16"
	done
	t1=$(date +%s.%N)
	c1=$($cpufn "$pid")
	awk -v l="$label" -v t0="$t0" -v t1="$t1" -v c=$((c1 - c0)) -v n=$((3 * TOKENS)) \
		'BEGIN { printf "%s: %.0f Mtok/s, server CPU %.3f ns/token\n", l,
			 n / (t1 - t0) / 1e6, c / n }'
}

for ((r = 1; r <= ROUNDS; r++)); do
	for srv in "${SERVERS[@]}"; do
		"$srv" --root "$work/root" --bind 127.0.0.1 --port $PORT --allow 127.0.0.1 \
			>"$work/srv.log" 2>&1 &
		sp=$!
		pids+=("$sp")
		sleep 0.3
		timed "$srv round $r fetch --flows 2" cpu_ns $sp "$BUILD/xio-fetch" \
			--server 127.0.0.1:$PORT tok.bin --out "$work/out.u16" --flows 2 --quiet
		PYTHONPATH=client/python $PY - "$PORT" "$TOKENS" "$srv" "$r" "$sp" <<'PYEOF'
import glob, random, sys, time
import xio
port, n, srv, rnd, pid = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]),
                          sys.argv[5])
def cpu_ns():
    return sum(int(open(f).read().split()[0]) for f in glob.glob(f"/proc/{pid}/task/*/schedstat"))
c = xio.Client(f"127.0.0.1:{port}")
rng = random.Random(rnd)
def rate(ranges, reps=8):
    best = 0.0
    for _ in range(reps):
        t = time.perf_counter()
        a = c.read_ranges("tok.bin", ranges)
        dt = time.perf_counter() - t
        best = max(best, len(a) / dt)
    return best
rand = [(rng.randrange(0, n - 2048), 2048) for _ in range(256)]
seq = [(i * 2048, 2048) for i in range(256)]
c0 = cpu_ns()
rr = rate(rand)
per_req = (cpu_ns() - c0) / (8 * 256)
sr = rate(seq)
t = time.perf_counter(); a = c.read("tok.bin"); whole = len(a) / (time.perf_counter() - t)
print(f"{srv} round {rnd} read_ranges 256 x 2048: random {rr/1e6:.1f} Mtok/s, "
      f"sequential ranges {sr/1e6:.1f} Mtok/s (random/sequential {rr/sr:.2f}), "
      f"whole file {whole/1e6:.0f} Mtok/s (random/whole {rr/whole:.3f}), "
      f"server CPU {per_req/1e3:.1f} us per random request")
PYEOF
		kill -INT $sp; wait $sp || true
	done
	if [ -x "$BUILD/bench/xio-tcp-server" ]; then
		"$BUILD/bench/xio-tcp-server" --root "$work/root" --bind 127.0.0.1 --port $TPORT \
			>"$work/tcp.log" 2>&1 &
		tp=$!
		pids+=("$tp")
		sleep 0.3
		timed "tcp round $r 2 streams" cpu_ns_stat $tp "$BUILD/bench/xio-tcp-read" \
			--server 127.0.0.1:$TPORT tok.bin --out "$work/out.u16" --streams 2
		kill $tp; wait $tp 2>/dev/null || true
	fi
done
