#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/transport.sh (make bench-transport): xio-fetch against a TCP
# read of the same INT32 token file, the tests' own baseline
# (build/bench/xio-tcp-server: sendfile; build/bench/xio-tcp-read: N streams,
# narrowing with the stage core's kernel into a mapped output, as xio-fetch
# maps its own). One BENCH_TRANSPORT_MIB (256) MiB file in tmpfs; every
# output compared byte for byte with a reference narrowing. Cases:
#   loop1     loopback, one xio-fetch against one TCP stream
#   loop2     loopback, xio-fetch --flows 2 against 2 TCP streams (where
#             xio-fetch has no --flows: two xio-fetch --rank 0/1 --world 2)
#   live1500, live9000
#             the live path (tests/live/lib.sh: storage -> xio-pipeline XDP
#             kernel mode, --bidirectional, on the DPU -> host), MTU 1500 and
#             9000 on every link; TCP crosses the same xio-pipeline unchanged
#   loss      live1500 with BENCH_TRANSPORT_LOSS (0.01) of the datagrams and
#             TCP data segments toward the host dropped by build/live/xio-fault
#             (seeded) at the storage's egress
# Servers with their defaults plus --bind/--allow (and --mtu 9000 on the
# jumbo path); readers with their defaults. Each round runs the TCP reader
# then xio-fetch, case by case (BENCH_TRANSPORT_ROUNDS, default 3). Each run
# is measured by scripts/bench/transport_run.py: wall time (tokens/s), the
# reader's CPU time from wait4, the machine's busy time from /proc/stat.
# Writes $BENCH_DIR/transport-runs.csv. Needs root for the live path; take
# /tmp/xio-live.lock around it (make bench-transport does).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
# shellcheck disable=SC2034 # read by tests/live/lib.sh
LIVE_TAG=tb$$
. tests/live/lib.sh
. scripts/bench/transport_lib.sh

ROUNDS=${BENCH_TRANSPORT_ROUNDS:-3}
MIB=${BENCH_TRANSPORT_MIB:-256}
LOSS=${BENCH_TRANSPORT_LOSS:-0.01}
CASES=${BENCH_TRANSPORT_CASES:-loop1 loop2 live1500 live9000 loss}
SERVER=$BUILD/xio-server
FETCH=$BUILD/xio-fetch
TCPS=$BUILD/bench/xio-tcp-server
TCPR=$BUILD/bench/xio-tcp-read
FAULT=$BUILD/live/xio-fault
RUNNER=scripts/bench/transport_run.py
CSV=$BENCH_DIR/transport-runs.csv
LOGS=$BENCH_DIR/logs/transport
LOOP_XPORT=21950 # loopback ports, clear of the tests' 21000-21109
LOOP_TPORT=21951
LIVE_TPORT=7911
mkdir -p "$LOGS"
for b in "$SERVER" "$FETCH" "$TCPS" "$TCPR" "$XIO_PIPELINE" "$FAULT"; do
	[ -x "$b" ] || die "$b not built"
done
FLOWS=no
"$FETCH" --help | grep -q -- --flows && FLOWS=yes

work=$(mktemp -d /dev/shm/xtb-bench.XXXXXX)
finish() {
	stop_all
	rm -rf "$work"
}
trap finish EXIT

mkdir -p "$work/root"
PATH=/usr/bin:$PATH make_tokens "$work/root/tokens.bin" "$work/ref.u16" $((MIB * 1024 * 1024 / 4))
TOKENS=$((MIB * 1024 * 1024 / 4))
READ_TOKENS=$TOKENS
log "transport: $MIB MiB INT32 file ($TOKENS tokens), $ROUNDS rounds, cases: $CASES; xio-fetch --flows: $FLOWS"

echo "$TRANSPORT_HEADER" >"$CSV"

# pair ROUND CASE MTU STREAMS NS XIO-SERVER TCP-SERVER [fault]: the TCP
# reader, then xio-fetch.
pair() {
	local r=$1 cs=$2 mtu=$3 streams=$4 ns=$5 xs=$6 ts=$7 fault=${8:-}
	tcp_run "$r" "$cs" "$mtu" "$streams" "${fault:+.tcp_dropped}" "$ns" "$ts"
	xio_run "$r" "$cs" "$mtu" "$streams" "${fault:+.dropped}" "$ns" "$xs"
}

FAULT_PID=
fault_start() {
	local i
	rm -f "$work/fault.log" "$work/fault.json"
	live_bg "$STO" "$work/fault.log" "$FAULT" --dev xs0 --seed "$((RANDOM + 1))" --loss "$LOSS" \
		--tcp-port "$LIVE_TPORT" --stats-json "$work/fault.json"
	FAULT_PID=$LIVE_PID
	for ((i = 0; i < 100; i++)); do
		grep -q attached "$work/fault.log" 2>/dev/null && return 0
		sleep 0.1
	done
	die "xio-fault did not start: $(cat "$work/fault.log")"
}
fault_stop() {
	live_stop "$FAULT_PID" INT >/dev/null || true
	jget "$work/fault.json" "$1"
}

t0=$(now)
# --- loopback --------------------------------------------------------------
loop_cases=""
for c in $CASES; do case $c in loop*) loop_cases+=" $c" ;; esac; done
if [ -n "$loop_cases" ]; then
	"$SERVER" --root "$work/root" --bind 127.0.0.1 --port $LOOP_XPORT --allow 127.0.0.1 \
		--stats-json "$LOGS/loop-server.json" >"$LOGS/loop-server.log" 2>&1 &
	BG+=($!)
	"$TCPS" --root "$work/root" --bind 127.0.0.1 --port $LOOP_TPORT >"$LOGS/loop-tcp.log" 2>&1 &
	BG+=($!)
	sleep 0.5
	for r in $(seq 1 "$ROUNDS"); do
		for c in $loop_cases; do
			pair "$r" "$c" 1500 "${c#loop}" - "127.0.0.1:$LOOP_XPORT" "127.0.0.1:$LOOP_TPORT"
		done
	done
	for p in "${BG[@]}"; do kill -INT "$p"; wait "$p" || true; done
	BG=()
	echo "# server_loop=$(jq -c '{datagrams, send_errors, send_retries, threads}' "$LOGS/loop-server.json")" >>"$LOGS/notes"
fi

# --- the live path -----------------------------------------------------------
live_cases=""
for c in $CASES; do case $c in live* | loss) live_cases+=" $c" ;; esac; done
DPU_PID='' XS_PID='' TS_PID=''
live_phase() {
	local mtu=$1 ns_if r c
	shift
	if [ "$mtu" != 1500 ]; then
		for ns_if in "$STO xst" "$STO xsp" "$STO xs0" "$STO xsbr" "$DPU xd0" "$DPU xd1" "$HST xh0"; do
			in_ns "${ns_if% *}" ip link set dev "${ns_if#* }" mtu "$mtu"
		done
	fi
	live_bg "$STO" "$LOGS/live$mtu-server.log" "$SERVER" --root "$work/root" --bind "$STO_IP" \
		--allow "$HST_IP" --mtu "$mtu" --stats-json "$LOGS/live$mtu-server.json"
	XS_PID=$LIVE_PID
	live_bg "$STO" "$LOGS/live$mtu-tcp.log" "$TCPS" --root "$work/root" --bind "$STO_IP" --port $LIVE_TPORT
	TS_PID=$LIVE_PID
	live_udp_listening "$STO" 7910 || die "xio-server did not start"
	live_bg "$DPU" "$LOGS/live$mtu-dpu.log" "$XIO_PIPELINE" --driver xdp --xdp-mode kernel --iface xd0 \
		--egress xd1 --bidirectional --stats-json "$LOGS/live$mtu-dpu.json"
	DPU_PID=$LIVE_PID
	live_flush_arp
	live_path_up 20 || die "no path storage <-> host through xio-pipeline (MTU $mtu)"
	for r in $(seq 1 "$ROUNDS"); do
		for c in "$@"; do
			pair "$r" "$c" "$mtu" 1 "$HST" "$STO_IP" "$STO_IP:$LIVE_TPORT" \
				"$([ "$c" = loss ] && echo fault)"
		done
	done
	live_stop "$DPU_PID" INT || log "transport: xio-pipeline exited $?"
	live_stop "$XS_PID" INT || true
	live_stop "$TS_PID" INT || true
	{
		echo "# server_live$mtu=$(jq -c '{datagrams, send_errors, send_retries, threads}' "$LOGS/live$mtu-server.json")"
		echo "# dpu_live$mtu=$(jq -c '{narrowed_packets, dropped_packets, afxdp_lost}' "$LOGS/live$mtu-dpu.json")"
	} >>"$LOGS/notes"
}
if [ -n "$live_cases" ] && [ "$(id -u)" -ne 0 ]; then
	log "transport: live path skipped: needs root (network namespaces, XDP)"
	echo "# skipped=the live path (${live_cases# }): needs root" >>"$LOGS/notes"
	live_cases=""
fi
if [ -n "$live_cases" ]; then
	live_setup
	c1500="" c9000=""
	for c in $live_cases; do case $c in live9000) c9000+=" $c" ;; *) c1500+=" $c" ;; esac; done
	# shellcheck disable=SC2086
	[ -z "$c1500" ] || live_phase 1500 $c1500
	# shellcheck disable=SC2086
	[ -z "$c9000" ] || live_phase 9000 $c9000
fi
el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
{
	echo "# elapsed_s=$el"
	echo "# mib=$MIB"
	echo "# loss=$LOSS"
	echo "# flows=$FLOWS"
	echo "# cpus=$(nproc)"
	echo "# load=$(cut -d' ' -f1-3 /proc/loadavg)"
	cat "$LOGS/notes" 2>/dev/null
} >>"$CSV"
rm -f "$LOGS/notes"
log "transport: done -> $CSV"
