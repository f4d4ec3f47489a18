#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/xdp.sh: xio-pipeline on the XDP driver (kernel and afxdp
# modes) against the `xdp-bench pass` and `xdp-bench redirect` baselines,
# between three network namespaces made here:
#   sender bxs0 --veth--> bxd0 [device under test] bxd1 --veth--> bxr0 receiver
# The sender (CPU 1) replays the 364-token capture as fast as the kernel
# takes it (build/bench/xio-bench-xdp send: BPF_PROG_RUN live frames); the
# device under test gets CPU 0: bxd0's NAPI runs threaded, pinned there, and
# the DUT process too (xio-pipeline's AF_XDP worker pins itself to CPU 0, the
# first CPU of the interface's node). The receiver drops every frame at XDP.
# Rates come from the veths' own counters, the same for every DUT, over a
# steady window (after a warm-up second): processed = frames the DUT's XDP
# program took from bxd0 (rx_packets of bxd0), forwarded = frames that reached
# the receiver (rx_packets of bxr0). What the sender offers beyond that is
# dropped by veth at bxd0's ring.
# The baselines are xio-bench-xdp's pass/redirect programs, what xdp-bench
# runs: Debian's xdp-tools 1.3.1 xdp-bench itself does not load on kernels
# that dropped the xdp_redirect_map_err tracepoint (it is tried first).
# Writes $BENCH_DIR/xdp-runs.csv (or a "skipped" line with the reason).
# Needs root. BENCH_XDP_ROUNDS (default $BENCH_ROUNDS), BENCH_XDP_SECONDS
# (measured window, default 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
# the sender replays at most 1024 frames (BPF_PROG_RUN live-frame mode):
# the 256 frames of the earlier rounds, so the figures stay comparable
BENCH_FRAMES=${BENCH_XDP_FRAMES:-256}
. scripts/bench/lib.sh
. tests/lib/netns.sh

ROUNDS=${BENCH_XDP_ROUNDS:-$BENCH_ROUNDS}
WINDOW=${BENCH_XDP_SECONDS:-3}
TOOL=${XIO_BENCH_XDP:-$BUILD/bench/xio-bench-xdp}
CSV=$BENCH_DIR/xdp-runs.csv
LOGS=$BENCH_DIR/logs
mkdir -p "$LOGS"

skip() {
	log "xdp: skipped: $*"
	printf 'skipped,%s\n' "$*" >"$CSV"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, XDP)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (sender on one, device under test on the other)"
[ -x "$TOOL" ] || die "$TOOL not built"
[ -x "$XIO_PIPELINE" ] || die "$XIO_PIPELINE not built"
command -v ip >/dev/null || skip "no ip (iproute2)"
command -v ethtool >/dev/null || skip "no ethtool"
bench_captures

tag=$$
S=xb-snd-$tag D=xb-dut-$tag R=xb-rcv-$tag
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	netns_cleanup
}
trap cleanup EXIT

stat_of() { in_ns "$1" cat "/sys/class/net/$2/statistics/$3"; }

setup() {
	netns_add "$S" "$D" "$R"
	netns_veth "$S" bxs0 "$D" bxd0 9000
	netns_veth "$D" bxd1 "$R" bxr0 9000
	# GRO keeps a NAPI instance on bxd0 and bxr0 whatever XDP program is
	# attached (XDP_REDIRECT into a veth needs one at the peer); bxd0's runs
	# in its own thread so it can be pinned to the DUT's CPU
	netns_if "$R" bxr0 gro
	netns_if "$D" bxd0 gro
	netns_if "$D" bxd0 threaded || skip "cannot make bxd0's NAPI threaded"
}

pin_napi() {
	local t
	for t in $(pgrep '^napi/bxd0-'); do taskset -pc 0 "$t" >/dev/null; done
}

# wait_for FILE PATTERN PID: until FILE shows PATTERN (or PID died).
wait_for() {
	local i
	for i in $(seq 1 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# measure CONFIG ROUND: sender on CPU 1 for warm-up + window + 1 s; the
# counters are read around the window. Appends a CSV row.
measure() {
	local cfg=$1 r=$2 snd=$LOGS/xdp-send-$1-$2.log sp t0 t1 p0 p1 f0 f1
	ip netns exec "$S" taskset -c 1 "$TOOL" send bxs0 "$BENCH_DIR/cap-nocrc.pcap" \
		--duration $((WINDOW + 2)) >"$snd" 2>&1 &
	sp=$!
	sleep 1
	p0=$(stat_of "$D" bxd0 rx_packets) f0=$(stat_of "$R" bxr0 rx_packets) t0=$(now)
	sleep "$WINDOW"
	p1=$(stat_of "$D" bxd0 rx_packets) f1=$(stat_of "$R" bxr0 rx_packets) t1=$(now)
	wait "$sp" || die "sender failed (see $snd): $(tail -1 "$snd")"
	awk -v c="$cfg" -v r="$r" -v p=$((p1 - p0)) -v f=$((f1 - f0)) -v a="$t0" -v b="$t1" \
		-v o="$(sed -n 's/.*(\([0-9.]*\) Mpps offered).*/\1/p' "$snd")" \
		'BEGIN { printf "%s,%s,%.0f,%.0f,%.0f", r, c, o * 1e6, p / (b - a), f / (b - a) }' >>"$CSV"
}

# run_baseline pass|redirect ROUND
run_baseline() {
	local what=$1 r=$2 log=$LOGS/xdp-$1-$2.log p args=(bxd0)
	[ "$what" = redirect ] && args=(bxd0 bxd1)
	ip netns exec "$D" taskset -c 0 "$TOOL" "$what" "${args[@]}" >"$log" 2>&1 &
	p=$!
	pids+=("$p")
	wait_for "$log" "attached" "$p" || die "xio-bench-xdp $what did not attach (see $log): $(tail -1 "$log")"
	pin_napi
	measure "$what" "$r"
	echo ",ok" >>"$CSV"
	kill -INT "$p"
	wait "$p" || die "xio-bench-xdp $what failed (see $log)"
}

# run_xio kernel|afxdp ROUND: xio-pipeline runs until SIGINT; its stats JSON
# must show every frame it received narrowed and sent.
run_xio() {
	local mode=$1 r=$2 log=$LOGS/xdp-xio-$1-$2.log json=$LOGS/xdp-xio-$1-$2.json p chk
	rm -f "$json"
	ip netns exec "$D" taskset -c 0 "$XIO_PIPELINE" -- --driver xdp --iface bxd0 --egress bxd1 \
		--xdp-mode "$mode" --stats-json "$json" >"$log" 2>&1 &
	p=$!
	pids+=("$p")
	if ! wait_for "$log" "xdp: .* mode on bxd0" "$p"; then
		wait "$p" 2>/dev/null || true
		echo "$r,xio-$mode,0,0,0,failed: $(tail -1 "$log" | tr ',' ';')" >>"$CSV"
		log "xdp: xio-pipeline --xdp-mode $mode did not start (see $log)"
		return
	fi
	pin_napi
	measure "xio-$mode" "$r"
	kill -INT "$p"
	wait "$p" || true
	chk=$(python3 - "$json" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("no stats JSON"); sys.exit()
ok = s["rx_packets"] > 0 and s["narrowed_packets"] == s["rx_packets"] == s["tx_packets"]
print("ok" if ok else "rx=%d tx=%d narrowed=%d" % (s["rx_packets"], s["tx_packets"], s["narrowed_packets"]))
PY
)
	echo ",$chk" >>"$CSV"
}

# Debian's xdp-bench first: if it runs, say so (the rates still come from
# the programs below, so every figure is read the same way).
xdp_bench_note() {
	local out
	if ! command -v xdp-bench >/dev/null; then
		echo "xdp-bench not installed"
	elif out=$(in_ns "$D" timeout 2 xdp-bench pass bxd0 2>&1); [ $? -eq 124 ]; then
		echo "xdp-bench runs here"
	else
		echo "xdp-bench $(dpkg-query -W -f='${Version}' xdp-tools 2>/dev/null) does not load here: $(echo "$out" | grep -m1 "BTF type ID" | sed 's/^ *libbpf: //' | tr ',' ';')"
	fi
}

setup
note=$(xdp_bench_note)
log "xdp: $note"
echo "round,config,offered_pps,processed_pps,forwarded_pps,check" >"$CSV"
echo "# $note" >>"$CSV"
ip netns exec "$R" "$TOOL" drop bxr0 >"$LOGS/xdp-receiver.log" 2>&1 &
pids+=($!)
wait_for "$LOGS/xdp-receiver.log" "attached" "${pids[-1]}" || die "receiver did not attach"

t0=$(now)
for r in $(seq 1 "$ROUNDS"); do
	run_baseline pass "$r"
	run_baseline redirect "$r"
	run_xio kernel "$r"
	run_xio afxdp "$r"
	log "xdp: round $r/$ROUNDS: $(awk -F, -v r="$r" '$1 == r { printf "%s %.3f/%.3f Mpps  ", $2, $4 / 1e6, $5 / 1e6 }' "$CSV")(processed/forwarded)"
done
el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
echo "# elapsed_s=$el" >>"$CSV"
log "xdp: $ROUNDS rounds in $el s -> $CSV"
