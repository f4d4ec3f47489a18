#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/live.sh (make bench-live): the live path of docs/live.md,
# timed. xio-server in the storage namespace, a DPU program between xd0 and
# xd1, xio-fetch on the host (tests/live/lib.sh draws the namespaces, prefix
# xlv). One fetch of a BENCH_LIVE_MIB (default 128) MiB INT32 token file,
# raw format, output to tmpfs, through each DPU program:
#   dpdk: dpdk-testpmd io forwarding        vs xio-pipeline --driver dpdk
#         on net_af_packet (xd0, xd1)          on the same two vdevs
#   xdp:  a plain XDP bridge (xio-bench-xdp  vs xio-pipeline --driver xdp
#         bridge, one program each way)        --xdp-mode kernel
# all --bidirectional (the host's requests cross the same DPU). Per run: the
# host's tokens per second (client stats: tokens / elapsed_s), the client's
# CPU seconds (user + system, /usr/bin/time on the xio-fetch process) per
# million tokens, bytes into host memory per token (bytes_received / tokens),
# and whether the output equals the reference byte for byte. Each round runs
# baseline then candidate back to back for each path.
# Writes $BENCH_DIR/live-runs.csv (or a "skipped" line). Needs root; take
# /tmp/xio-live.lock around it (make bench-live does). BENCH_LIVE_ROUNDS
# (default 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh
# shellcheck disable=SC2034 # read by tests/live/lib.sh
LIVE_TAG=lb$$
. tests/live/lib.sh

ROUNDS=${BENCH_LIVE_ROUNDS:-3}
MIB=${BENCH_LIVE_MIB:-128}
TOOL=${XIO_BENCH_XDP:-$BUILD/bench/xio-bench-xdp}
TESTPMD=${TESTPMD:-dpdk-testpmd}
SERVER=$BUILD/xio-server
FETCH=$BUILD/xio-fetch
CSV=$BENCH_DIR/live-runs.csv
LOGS=$BENCH_DIR/logs
EAL="--no-huge --no-shconf --no-pci --lcores 0@0,1@1 -m 256"
VDEVS="--vdev net_af_packet0,iface=xd0,framecnt=4096 --vdev net_af_packet1,iface=xd1,framecnt=4096"
mkdir -p "$LOGS"

skip() {
	log "live: skipped: $*"
	printf 'skipped,%s\n' "$*" >"$CSV"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, XDP)"
command -v "$TESTPMD" >/dev/null || skip "$TESTPMD not found (Debian package dpdk-dev)"
for b in "$SERVER" "$FETCH" "$XIO_PIPELINE" "$TOOL"; do
	[ -x "$b" ] || die "$b not built"
done

work=$(mktemp -d /dev/shm/xlv-bench.XXXXXX)
finish() {
	live_cleanup
	rm -rf "$work"
}
trap finish EXIT

# The data: random UINT16 tokens (the reference output) and the same tokens
# as the INT32 file the server holds.
mkdir -p "$work/root"
head -c $((MIB * 1024 * 1024 / 2)) /dev/urandom >"$work/ref.u16"
/usr/bin/python3 -c 'import numpy as np, sys
np.fromfile(sys.argv[1], dtype="<u2").astype("<i4").tofile(sys.argv[2])' \
	"$work/ref.u16" "$work/root/tokens.bin"
live_setup
live_bg "$STO" "$LOGS/live-server.log" "$SERVER" --root "$work/root" --bind "$STO_IP"
live_udp_listening "$STO" 7910 || die "xio-server did not start (see $LOGS/live-server.log)"
log "live: $MIB MiB INT32 token file; $STO | $DPU | $HST"

# dpu_start PROGRAM LOG: the DPU program between xd0 and xd1 (background,
# pids in DPU_PIDS), until the host reaches the storage through it.
DPU_PIDS=()
dpu_start() {
	local log=$2
	DPU_PIDS=()
	case $1 in
	testpmd)
		# shellcheck disable=SC2086
		live_bg "$DPU" "$log" "$TESTPMD" $EAL $VDEVS -- --forward-mode=io \
			--port-topology=paired --nb-cores=1 --total-num-mbufs=8192 --stats-period 5
		DPU_PIDS+=("$LIVE_PID") ;;
	xio-dpdk)
		# shellcheck disable=SC2086
		live_bg "$DPU" "$log" "$XIO_PIPELINE" $EAL $VDEVS -- --driver dpdk --rx-port 0 \
			--tx-port 1 --bidirectional --stats-json "$log.json"
		DPU_PIDS+=("$LIVE_PID") ;;
	xdp-bridge)
		live_bg "$DPU" "$log" "$TOOL" bridge xd0 xd1
		DPU_PIDS+=("$LIVE_PID")
		live_bg "$DPU" "$log.back" "$TOOL" bridge xd1 xd0
		DPU_PIDS+=("$LIVE_PID") ;;
	xio-xdp)
		live_bg "$DPU" "$log" "$XIO_PIPELINE" --driver xdp --xdp-mode kernel --iface xd0 \
			--egress xd1 --bidirectional --stats-json "$log.json"
		DPU_PIDS+=("$LIVE_PID") ;;
	esac
	live_flush_arp
	live_path_up 20 || die "$1: no path storage <-> host (see $log)"
}

dpu_stop() {
	local p
	for p in "${DPU_PIDS[@]}"; do
		live_stop "$p" INT || log "live: DPU program $p exited $?"
	done
}

# run ROUND PATH PROGRAM: one fetch through PROGRAM; appends a CSV row.
run() {
	local r=$1 path=$2 prog=$3 name=$2-$3-$1 rc=0 cpu exact
	local log=$LOGS/live-$name.log js=$LOGS/live-$name-fetch.json
	dpu_start "$prog" "$log"
	rm -f "$work/out.u16" "$js"
	/usr/bin/time -f '%U %S' -o "$LOGS/live-$name.time" ip netns exec "$HST" timeout 300 \
		"$FETCH" --server "$STO_IP" --quiet --stats-json "$js" tokens.bin --out "$work/out.u16" \
		--format raw 2>"$LOGS/live-$name.err" || rc=$?
	dpu_stop
	cpu=$(awk 'END { print $1 + $2 }' "$LOGS/live-$name.time")
	exact=no
	[ "$rc" -eq 0 ] && cmp -s "$work/out.u16" "$work/ref.u16" && exact=yes
	rm -f "$work/out.u16"
	jq -r --arg r "$r" --arg p "$path" --arg g "$prog" --arg c "$cpu" --arg e "$exact" --arg rc "$rc" \
		'[$r, $p, $g, .tokens, .elapsed_s, (if .elapsed_s > 0 then .tokens / .elapsed_s else 0 end),
		  ($c | tonumber), (if .tokens > 0 then ($c | tonumber) / .tokens * 1e6 else 0 end),
		  .bytes_received, (if .tokens > 0 then .bytes_received / .tokens else 0 end),
		  .replies_uint16, .replies_int32, .re_requests, $rc, $e] | @csv' "$js" |
		tr -d '"' >>"$CSV"
	log "live: round $r/$ROUNDS $path $prog: $(tail -1 "$CSV" | cut -d, -f4-)"
}

echo "round,path,program,tokens,elapsed_s,tokens_per_s,cpu_s,cpu_s_per_mtok,bytes_received,bytes_per_token,replies_uint16,replies_int32,re_requests,rc,exact" >"$CSV"
t0=$(now)
for r in $(seq 1 "$ROUNDS"); do
	run "$r" dpdk testpmd
	run "$r" dpdk xio-dpdk
	run "$r" xdp xdp-bridge
	run "$r" xdp xio-xdp
done
el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
{
	echo "# elapsed_s=$el"
	echo "# mib=$MIB"
	echo "# load=$(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$CSV"
log "live: $ROUNDS rounds in $el s -> $CSV"
