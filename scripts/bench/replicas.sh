#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/replicas.sh (make bench-replicas): one read spread over 1, 2
# and 3 xio-servers on loopback, each server with --threads K on cores of
# its own (taskset), the client on the cores left, the INT32 file in
# /dev/shm (or /tmp when /dev/shm is small). Rounds alternate 1, 2 and 3
# servers; each figure is the median GB/s of INT32 input (4 bytes a token
# over xio-fetch's elapsed_s) with its spread, and the scaling is the
# 2- and 3-server medians over the 1-server one of the same run (goal for 3:
# >= 2.7 on a machine with 3K + client cores). Then the shares: three
# servers, two paced to RATE Gbit/s and one to RATE/4: the slow server's
# tokens over the mean of the other two (about 0.25 when the shares follow
# the rates).
#
#   REPLICAS_THREADS=K (2)  REPLICAS_MB=MiB of INT32 (1024)  BENCH_ROUNDS (5)
#   REPLICAS_FLOWS=F (flows in all; 0: the client's cores, the same for 1, 2
#   and 3 servers)  REPLICAS_RATE=Gbit/s (2)
#
# Needs 3K + 1 cores at least (the client gets the rest); writes
# $BENCH_DIR/replicas-runs.csv and $BENCH_DIR/replicas.md (a section for
# docs/perf.md) and prints the table. On the 16-core device machine (its
# tools from .devtools/bin when there, numpy from the python3 on PATH):
#   make host-tools BUILD=build-dev XIO_DPDK=n &&
#   BUILD=build-dev BENCH_DIR=$OUT REPLICAS_THREADS=4 REPLICAS_MB=2048 \
#       bash scripts/bench/replicas.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$here/lib.sh"

server=$BUILD/xio-server
fetch=$BUILD/xio-fetch
K=${REPLICAS_THREADS:-2}
MB=${REPLICAS_MB:-1024}
FLOWS=${REPLICAS_FLOWS:-0}
RATE=${REPLICAS_RATE:-2}
ROUNDS=$BENCH_ROUNDS
PORT0=${REPLICAS_PORT:-24100}
for b in "$server" "$fetch"; do [ -x "$b" ] || die "$b not built (make)"; done
[ -d .devtools/bin ] && PATH=$PWD/.devtools/bin:$PATH
# a python3 with numpy: Debian's here, the one on PATH on the device machine
PY=/usr/bin/python3
"$PY" -c "import numpy" 2>/dev/null || PY=python3
for t in jq taskset "$PY"; do command -v "$t" >/dev/null || die "$t not found"; done
ncpu=$(nproc)
# REPLICAS_SMOKE=1: too few cores, run unpinned (the script checked, no figure)
smoke=${REPLICAS_SMOKE:-}
[ -n "$smoke" ] || [ "$ncpu" -ge $((3 * K + 1)) ] ||
	die "$ncpu cores: 3 servers of $K threads and a client need $((3 * K + 1)) (REPLICAS_SMOKE=1 runs unpinned)"
# cores A-B, or every core in a smoke run
cores() { if [ -n "$smoke" ]; then echo "0-$((ncpu - 1))"; else echo "$1-$2"; fi; }

dir=/dev/shm
[ "$(df -Pm /dev/shm | awk 'NR == 2 {print $4}')" -gt $((MB * 2)) ] || dir=/tmp
work=$(mktemp -d "$dir/xio-bench-replicas.XXXXXX")
mkdir -p "$BENCH_DIR" "$work/root"
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# tokens in range (0..50256), written by numpy in one pass
"$PY" - "$work/root/tok.bin" $((MB << 18)) <<'PY'
import sys
import numpy as np
np.random.default_rng(7910).integers(0, 50257, int(sys.argv[2]), dtype=np.int32).tofile(sys.argv[1])
PY
ntok=$((MB << 18))
log "$MB MiB of INT32 ($ntok tokens) in $work, $ncpu cores: servers of $K threads on cores 0..$((3 * K - 1)), the client on $((3 * K))..$((ncpu - 1))"

# servers N [RATE...]: N servers, server i on cores i*K..i*K+K-1, port
# PORT0+i, paced to the i-th RATE when given.
servers() {
	local n=$1 i r
	shift
	for ((i = 0; i < n; i++)); do
		r=${1:-}
		[ $# -gt 0 ] && shift
		taskset -c "$(cores $((i * K)) $((i * K + K - 1)))" "$server" --root "$work/root" --bind 127.0.0.1 \
			--port $((PORT0 + i)) --threads "$K" ${r:+--rate "$r"} >"$work/s$i.log" 2>&1 &
		PIDS+=($!)
		wait_log "$work/s$i.log"
	done
}
wait_log() {
	local i
	for ((i = 0; i < 100; i++)); do grep -q '^xio-server: serving' "$1" && return 0; sleep 0.05; done
	die "xio-server did not start: $(cat "$1")"
}
stop_servers() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	PIDS=()
}
# one_read N JSON: xio-fetch of the whole file from servers 0..N-1.
one_read() {
	local n=$1 list="" i flows=$FLOWS
	for ((i = 0; i < n; i++)); do list+="${list:+,}127.0.0.1:$((PORT0 + i))"; done
	[ "$flows" -gt 0 ] || flows=$((ncpu - 3 * K > 1 ? ncpu - 3 * K : 1))
	taskset -c "$(cores $((3 * K)) $((ncpu - 1)))" "$fetch" --quiet --flows "$flows" --server "$list" tok.bin \
		--out "$work/out.u16" --stats-json "$2"
	rm -f "$work/out.u16"
}

csv=$BENCH_DIR/replicas-runs.csv
echo "round,servers,threads,flows,tokens,elapsed_s,gbps_int32,re_requests,shares" >"$csv"
for ((round = 1; round <= ROUNDS; round++)); do
	for n in 1 2 3; do
		servers "$n"
		one_read "$n" "$work/r.json"
		stop_servers
		jq -r --arg r "$round" --arg n "$n" --arg k "$K" \
			'[$r, $n, $k, .flows, .tokens, .elapsed_s, (4 * .tokens / .elapsed_s / 1e9),
			  .re_requests, ([.servers[].tokens | tostring] | join(" "))] | @csv' "$work/r.json" >>"$csv"
		[ "$(jq .tokens "$work/r.json")" -eq "$ntok" ] || die "round $round, $n servers: a short read"
	done
	log "round $round of $ROUNDS: $(tail -n 3 "$csv" | cut -d, -f2,7 | tr '\n' ' ')"
done

# the shares: two servers at RATE, one at RATE/4
quarter=$(python3 -c "print($RATE / 4)")
servers 3 "$RATE" "$RATE" "$quarter"
one_read 3 "$work/shares.json"
stop_servers
cp "$work/shares.json" "$BENCH_DIR/replicas-shares.json"

python3 - "$csv" "$BENCH_DIR/replicas-shares.json" "$RATE" "$quarter" "$K" "$MB" "$ncpu" \
	"$smoke" >"$BENCH_DIR/replicas.md" <<'PY'
import csv, json, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sh = json.load(open(sys.argv[2]))
rate, quarter, k, mb, ncpu, smoke = sys.argv[3:9]
by = {n: sorted(float(r["gbps_int32"]) for r in rows if r["servers"] == n) for n in "123"}
med = {n: statistics.median(v) for n, v in by.items()}
print("## One read over several servers (make bench-replicas)\n")
print("xio-fetch of a %s MiB INT32 file in memory from 1, 2 and 3 xio-servers on loopback, "
      "each server `--threads %s` on cores of its own, the client on the other %d of %s cores; "
      "%d rounds alternating 1, 2, 3 servers, medians (min-max) of GB/s of INT32 input.\n"
      % (mb, k, int(ncpu) - 3 * int(k), ncpu, len(by["1"])))
if smoke:
    print("**Smoke run: fewer cores than 3 servers and a client need, nothing pinned; "
          "these figures say nothing of the scaling.**\n")
print("| servers | GB/s of INT32 | against 1 server |")
print("|---:|---:|---:|")
for n in "123":
    print("| %s | %.2f (%.2f-%.2f) | %.2f |" % (n, med[n], by[n][0], by[n][-1], med[n] / med["1"]))
t = [s["tokens"] for s in sh["servers"]]
print("\nShares: servers paced to %s, %s and %s Gbit/s served %s tokens: the slow one %.2f "
      "of the others' mean (the rates say 0.25).\n"
      % (rate, rate, quarter, ", ".join(str(x) for x in t), t[2] / ((t[0] + t[1]) / 2)))
PY
cat "$BENCH_DIR/replicas.md"
