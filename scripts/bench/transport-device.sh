#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/transport-device.sh: bench-transport's figures on the 16-core
# H100 machine (Ubuntu 24.04, kernel 6.18, no DPDK, no ip, no ethtool, no
# network, root, in a copy of the repository). What it runs, each round TCP
# then xio, DEV_ROUNDS (3) rounds:
#   loopN    loopback, xio-fetch --flows N (or N --rank processes where
#            xio-fetch has no --flows) against xio-tcp-read --streams N,
#            N = 1 2 4 8; loopdef: xio-fetch with its default flows against
#            one TCP stream. Servers with their defaults (--threads: the
#            cores) plus --bind/--allow. A DEV_MIB (1024) MiB file.
#   live     the live path (tests/live/lib.sh's namespaces, xio-pipeline XDP
#            kernel mode --bidirectional as the DPU), the server, the DPU and
#            the host each on cores of their own (taskset; every veth NAPI
#            threaded, its kthread pinned with its end), MTU 1500 and 9000,
#            DEV_LIVE_MIB (512) MiB read; busy time from the host cores'
#            /proc/stat lines. live-frR: xio-fetch again against a second
#            server with --flow-rate R (DEV_FLOW_RATES, default "2 5" Gbit/s
#            a client), next to the same round's TCP read.
# Goals (docs/perf.md): loopback xio / TCP >= 1.0; live host tokens/s >= 1.5
# of TCP, host busy time per token <= 0.6 of TCP's, re-requests <= 0.1 % of
# the datagrams.
#
# It builds `make host-tools` there (without DPDK) when it can, else it takes
# the binaries scripts/bench/devtools.sh put in .devtools/ (carry it); ip,
# ss, ethtool, jq, sysctl, ps and taskset come from .devtools/bin in any case. Writes
# $OUT/transport-h100.csv (commit it as docs/perf-data/transport-h100.csv and
# run scripts/bench/transport_report.py), $OUT/device.log and
# $OUT/logs.tar.gz. Stops starting runs after DEV_BUDGET_S (420) seconds, a
# reader after DEV_RUN_TIMEOUT (60): the whole run stays under 9 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/bench/device}
mkdir -p "$OUT"
exec > >(tee "$OUT/device.log") 2>&1
ROUNDS=${DEV_ROUNDS:-3}
MIB=${DEV_MIB:-1024}
LIVE_MIB=${DEV_LIVE_MIB:-512}
FLOW_RATES=${DEV_FLOW_RATES-2 5}
BUDGET=${DEV_BUDGET_S:-420}
RUN_TIMEOUT=${DEV_RUN_TIMEOUT:-60}
START=$SECONDS
. scripts/bench/lib.sh
# shellcheck disable=SC2034 # read by tests/live/lib.sh
LIVE_TAG=td$$
. tests/live/lib.sh
. scripts/bench/transport_lib.sh

[ -d .devtools/bin ] && PATH=$PWD/.devtools/bin:$PATH
for t in ip ss ethtool jq taskset sysctl ps python3; do
	command -v "$t" >/dev/null || die "$t not found (carry .devtools: scripts/bench/devtools.sh)"
done
export LIVE_PYTHON
LIVE_PYTHON=$(command -v python3)

# --- the programs ---------------------------------------------------------------
B=build-dev
if [ "${DEV_BUILD:-1}" = 1 ] &&
	make -j"$(nproc)" --no-print-directory host-tools BUILD=$B XIO_DPDK=n >"$OUT/build.log" 2>&1; then
	HOW="built here"
	SERVER=$B/xio-server FETCH=$B/xio-fetch PIPE=$B/nodpdk/xio-pipeline
	TCPS=$B/bench/xio-tcp-server TCPR=$B/bench/xio-tcp-read
elif [ -x .devtools/bin/xio-server ]; then
	HOW="carried in .devtools"
	[ ! -s "$OUT/build.log" ] || HOW+=" (no build here: $(tail -n 1 "$OUT/build.log" | tr -d , | cut -c1-120))"
	SERVER=.devtools/bin/xio-server FETCH=.devtools/bin/xio-fetch PIPE=.devtools/bin/xio-pipeline
	TCPS=.devtools/bin/xio-tcp-server TCPR=.devtools/bin/xio-tcp-read
else
	die "cannot build host-tools (see build.log) and no .devtools/ carried"
fi
log "device: programs $HOW"
FLOWS=no
"$FETCH" --help | grep -q -- --flows && FLOWS=yes
RUNNER=scripts/bench/transport_run.py
CSV=$OUT/transport-h100.csv
LOGS=$(mktemp -d /tmp/xtd-logs.XXXXXX)

# the file and its reference in tmpfs where it has room, else on disk
shm=/dev/shm
[ "$(df -Pm /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -gt $((MIB * 2)) ] 2>/dev/null || shm=/tmp
work=$(mktemp -d $shm/xtd.XXXXXX)
finish() {
	stop_all
	tar -C "$LOGS" -czf "$OUT/logs.tar.gz" . 2>/dev/null || true
	rm -rf "$work" "$LOGS"
}
trap finish EXIT

mkdir -p "$work/root"
make_tokens "$work/root/tokens.bin" "$work/ref.u16" $((MIB * 1024 * 1024 / 4))
echo "$TRANSPORT_HEADER" >"$CSV"
ncpu=$(nproc)
over() { [ $((SECONDS - START)) -ge "$BUDGET" ]; }

# --- loopback ----------------------------------------------------------------------
READ_TOKENS=$((MIB * 1024 * 1024 / 4))
"$SERVER" --root "$work/root" --bind 127.0.0.1 --allow 127.0.0.1 \
	--stats-json "$LOGS/loop-server.json" >"$LOGS/loop-server.log" 2>&1 &
BG+=($!)
"$TCPS" --root "$work/root" --bind 127.0.0.1 >"$LOGS/loop-tcp.log" 2>&1 &
BG+=($!)
sleep 1
for r in $(seq 1 "$ROUNDS"); do
	for n in 1 2 4 8 def; do
		over && break 2
		if [ "$n" = def ]; then
			tcp_run "$r" loopdef 1500 1 "" - 127.0.0.1
			xio_run "$r" loopdef 1500 0 "" - 127.0.0.1
		else
			tcp_run "$r" "loop$n" 1500 "$n" "" - 127.0.0.1
			xio_run "$r" "loop$n" 1500 "$n" "" - 127.0.0.1
		fi
	done
done
for p in "${BG[@]}"; do kill -INT "$p"; wait "$p" || true; done
BG=()
loop_srv=$(jq -c '{datagrams, send_errors, send_retries, threads}' "$LOGS/loop-server.json" 2>/dev/null || echo none)

# --- the live path, each end on cores of its own ------------------------------------
if [ "$ncpu" -ge 12 ]; then
	SRV_CPUS=0-3 DPU_CPUS=4-7 HST_CPUS=8-11
elif [ "$ncpu" -ge 3 ]; then
	t=$((ncpu / 3))
	SRV_CPUS=0-$((t - 1)) DPU_CPUS=$t-$((2 * t - 1)) HST_CPUS=$((2 * t))-$((3 * t - 1))
else # too few to part: every end on every core
	SRV_CPUS=0-$((ncpu - 1)) DPU_CPUS=$SRV_CPUS HST_CPUS=$SRV_CPUS
fi
# pin_napi: every veth NAPI in a thread, pinned with its end
pin_napi() {
	local ns_if ns ifc cpus pid
	for ns_if in "$STO xs0 $SRV_CPUS" "$DPU xd0 $DPU_CPUS" "$DPU xd1 $DPU_CPUS" "$HST xh0 $HST_CPUS"; do
		read -r ns ifc cpus <<<"$ns_if"
		in_ns "$ns" sh -c "echo 1 > /sys/class/net/$ifc/threaded" 2>/dev/null ||
			log "device: no threaded NAPI on $ifc"
		for pid in $(ps -eo pid=,comm= | awk -v n="napi/$ifc-" 'index($2, n) == 1 { print $1 }'); do
			taskset -pc "$cpus" "$pid" >/dev/null
		done
	done
}
live_notes=()
live_phase() {
	local mtu=$1 ns_if xs ts dpu r
	if [ "$mtu" != 1500 ]; then
		for ns_if in "$STO xst" "$STO xsp" "$STO xs0" "$STO xsbr" "$DPU xd0" "$DPU xd1" "$HST xh0"; do
			in_ns "${ns_if% *}" ip link set dev "${ns_if#* }" mtu "$mtu"
		done
	fi
	live_bg "$STO" "$LOGS/live$mtu-server.log" taskset -c "$SRV_CPUS" "$SERVER" --root "$work/root" \
		--bind "$STO_IP" --allow "$HST_IP" --mtu "$mtu" --stats-json "$LOGS/live$mtu-server.json"
	xs=$LIVE_PID
	live_bg "$STO" "$LOGS/live$mtu-tcp.log" taskset -c "$SRV_CPUS" "$TCPS" --root "$work/root" \
		--bind "$STO_IP" --port 7911
	ts=$LIVE_PID
	local fr port=7912 paced=()
	for fr in $FLOW_RATES; do
		live_bg "$STO" "$LOGS/live$mtu-fr$fr-server.log" taskset -c "$SRV_CPUS" "$SERVER" \
			--root "$work/root" --bind "$STO_IP" --port $port --allow "$HST_IP" --mtu "$mtu" \
			--flow-rate "$fr"
		paced+=("$LIVE_PID")
		port=$((port + 1))
	done
	live_udp_listening "$STO" 7910 || die "xio-server did not start: $(cat "$LOGS/live$mtu-server.log")"
	live_bg "$DPU" "$LOGS/live$mtu-dpu.log" taskset -c "$DPU_CPUS" "$PIPE" --driver xdp \
		--xdp-mode kernel --iface xd0 --egress xd1 --bidirectional --stats-json "$LOGS/live$mtu-dpu.json"
	dpu=$LIVE_PID
	live_flush_arp
	live_path_up 20 || die "no path storage <-> host through xio-pipeline (MTU $mtu): $(cat "$LOGS/live$mtu-dpu.log")"
	pin_napi
	PIN=$HST_CPUS BUSY_CPUS=$HST_CPUS
	for r in $(seq 1 "$ROUNDS"); do
		over && break
		tcp_run "$r" live "$mtu" 1 "" "$HST" "$STO_IP:7911"
		xio_run "$r" live "$mtu" 1 "" "$HST" "$STO_IP"
		port=7912
		for fr in $FLOW_RATES; do
			xio_run "$r" "live-fr$fr" "$mtu" 1 "" "$HST" "$STO_IP:$port"
			port=$((port + 1))
		done
	done
	PIN='' BUSY_CPUS=''
	live_stop "$dpu" INT || log "device: xio-pipeline exited $?"
	live_stop "$xs" INT || true
	live_stop "$ts" INT || true
	for fr in "${paced[@]}"; do live_stop "$fr" INT || true; done
	live_notes+=("server_live$mtu=$(jq -c '{datagrams, send_errors, send_retries, threads}' "$LOGS/live$mtu-server.json" 2>/dev/null)")
	live_notes+=("dpu_live$mtu=$(jq -c '{narrowed_packets, dropped_packets, afxdp_lost}' "$LOGS/live$mtu-dpu.json" 2>/dev/null)")
}
READ_TOKENS=$((LIVE_MIB * 1024 * 1024 / 4))
# as many veth queues as the DPU has cores (a NIC's RSS queues; one XDP
# NAPI thread each): LIVE_QUEUES=1 for the single-queue path of make e2e
LIVE_QUEUES=${LIVE_QUEUES:-$(($(echo "$DPU_CPUS" | awk -F- '{ print $2 - $1 + 1 }')))}
[ "$LIVE_QUEUES" -le 1 ] || export NETNS_VETH_QUEUES=$LIVE_QUEUES
live_setup
live_phase 1500
over || live_phase 9000

{
	echo "# date=$(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $ncpu cores"
	echo "# cores=server $SRV_CPUS / DPU $DPU_CPUS / host $HST_CPUS"
	echo "# veth_queues=$LIVE_QUEUES"
	echo "# kernel=$(uname -r)"
	echo "# rounds=$ROUNDS"
	echo "# mib=$MIB"
	echo "# live_mib=$LIVE_MIB"
	echo "# flows=$FLOWS"
	echo "# programs=$HOW"
	echo "# elapsed_s=$((SECONDS - START))"
	echo "# server_loop=$loop_srv"
	printf '# %s\n' "${live_notes[@]}"
} >>"$CSV"
log "device: done in $((SECONDS - START)) s -> $CSV"
