#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# xio-pipeline's counters read from outside while it runs (make counters,
# part of make test), on DPDK with net_pcap vdevs and a --file-prefix of
# its own per run, so the telemetry socket is
# /var/run/dpdk/PREFIX/dpdk_telemetry.v2:
#  (a) under load (infinite_rx), pipeline mode: dpdk-telemetry.py -f PREFIX
#      fed the /xio commands on stdin answers every one, snake_case keys,
#      counters that move, an unknown stage answers null;
#  (b) a finite capture (drops per reason through --overflow drop and
#      --drop-invalid), pipeline mode and rtc with two queues: once every
#      frame is through, the telemetry replies equal the stats JSON written
#      at SIGTERM, and the JSON agrees with the captures
#      (tests/e2e/counters_check.py); hardware counters said unavailable
#      once, or reported per lcore; the same --bidirectional, where
#      /xio/directions equals the JSON's directions.
# No timing is asserted.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VECTORS=${XIO_VECTORS:-$ROOT/../shared/vectors}
XP=${XIO_PIPELINE:-$BUILD/xio-pipeline}
TEL=$ROOT/tests/e2e/telemetry_check.py
CHECK=$ROOT/tests/e2e/counters_check.py
T=$(mktemp -d)
# The EAL's runtime directory, as dpdk-telemetry.py finds it.
if [ -n "${RUNTIME_DIRECTORY:-}" ]; then RUN=$RUNTIME_DIRECTORY
elif [ "$(id -u)" -eq 0 ]; then RUN=/var/run
else RUN=${XDG_RUNTIME_DIR:-/tmp}; fi
PREFIXES=()
cleanup() {
	local p
	rm -rf "$T"
	for p in "${PREFIXES[@]}"; do rm -rf "${RUN:?}/dpdk/$p"; done
}
trap cleanup EXIT

. "$ROOT/tests/e2e/lib.sh"

# prefix NAME: sets p, a --file-prefix of this run, removed at exit.
prefix() {
	p=xio-ctr-$$-$1
	PREFIXES+=("$p")
}

# stop PID DESC: SIGTERM, exit 0.
stop() {
	local rc=0
	kill -TERM "$1"
	wait "$1" || rc=$?
	if [ "$rc" -eq 0 ]; then ok; else bad "$2: exit $rc"; show "$T/log"; fi
}

# check DESC COMMAND...: COMMAND exits 0, else its output is shown.
check() {
	local desc=$1
	shift
	if "$@" >"$T/out" 2>&1; then ok; else bad "$desc"; show "$T/out"; fi
}

if ! command -v dpdk-telemetry.py >/dev/null; then
	bad "no dpdk-telemetry.py (package dpdk-dev: make deps)"
fi

# --- (a) under load: dpdk-telemetry.py ----------------------------------
m=$VECTORS/mixed-keep
prefix live
timeout -k 5 60 "$XP" --no-huge --no-shconf --no-pci --file-prefix "$p" --lcores '0@0,1@1,2@0' \
	-m 256 --vdev "net_pcap0,rx_pcap=$m/in.pcap,infinite_rx=1" --vdev net_null0 \
	-- --tx-port 1 --mode pipeline --mbuf-size 9216 --stats-json "$T/live.json" >"$T/log" 2>&1 &
pid=$!
if wait_for "$T/log" '^XIO: forwarding:'; then ok; else bad "load run did not start"; show "$T/log"; fi
sleep 0.5
{
	printf '%s\n' /xio/stats /xio/reasons /xio/reasons,dropped /xio/stages /xio/stages,q0_rx \
		/xio/stages,q0_work /xio/stages,q0_tx /xio/lcores /xio/stages,q9_tx
	sleep 0.5
	echo /xio/stats
} | timeout 20 dpdk-telemetry.py -f "$p" >"$T/live.txt" 2>&1
check "telemetry under load" python3 "$TEL" live "$T/live.txt"
stop "$pid" "load run"
check "load run counters" python3 "$CHECK" "$T/live.json" -- --tx-port 1

# --- (b) a finite capture: telemetry == stats JSON == captures ----------
# final DESC NAME FRAMES EAL-ARGS... -- OPTIONS...: runs until every frame
# is through, asks telemetry, stops with SIGTERM and compares.
final() {
	local desc=$1 name=$2 frames=$3 eal=() opts=() ins=() outs=() a
	shift 3
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do eal+=("$1"); shift; done
	shift
	opts=("$@")
	# the queues' captures in counters_check.py's order: port 0's RX, then
	# port 1's (--bidirectional); port 1's TX (a_to_b), then port 0's
	for a in "${eal[@]}"; do
		case $a in net_pcap[01],*)
			IFS=, read -ra kv <<<"$a"
			for a in "${kv[@]}"; do
				case $a in
				rx_pcap=*) ins+=(--in "${a#rx_pcap=}") ;;
				tx_pcap=*) [ "${kv[0]}" = net_pcap1 ] && outs=(--out "${a#tx_pcap=}" "${outs[@]}") ||
					outs+=(--out "${a#tx_pcap=}") ;;
				esac
			done ;;
		esac
	done
	prefix "$name"
	timeout -k 5 60 "$XP" --no-huge --no-shconf --no-pci --file-prefix "$p" "${eal[@]}" \
		-- "${opts[@]}" --stats-json "$T/$name.json" >"$T/log" 2>&1 &
	pid=$!
	check "$desc: telemetry once every frame is through" \
		python3 "$TEL" query "$p" "$T/$name.tel" --frames "$frames"
	stop "$pid" "$desc"
	check "$desc: telemetry == stats JSON" python3 "$TEL" final "$T/$name.tel" "$T/$name.json"
	check "$desc: stats JSON == captures" python3 "$CHECK" "$T/$name.json" "${ins[@]}" "${outs[@]}" -- "${opts[@]}"
	if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["hardware"]["available"])' "$T/$name.json"; then
		n=$(grep -c 'no hardware counters (perf_event_open' "$T/log")
		[ "$n" -eq 1 ] && ok || { bad "$desc: $n lines about hardware counters, expected 1"; show "$T/log"; }
	fi
}

k=$VECTORS/basic-keep
final "pipeline, drops per reason" pipe 400 --lcores '0@0,1@1,2@0' \
	--vdev "net_pcap0,rx_pcap=$m/in.pcap,tx_pcap=$T/pipe.pcap" \
	-- --mode pipeline --overflow drop --drop-invalid --ring-size 64
final "rtc, two queues" rtc2 432 --lcores '0@0,1@1,2@0' \
	--vdev "net_pcap0,rx_pcap=$m/in.pcap,rx_pcap=$k/in.pcap,tx_pcap=$T/r0.pcap,tx_pcap=$T/r1.pcap" \
	-- --rxq 2 --overflow drop --burst 16
final "bidirectional pipeline, per direction" bidir 432 --lcores '0@0,1@1,2@0' \
	--vdev "net_pcap0,rx_pcap=$m/in.pcap,tx_pcap=$T/ba.pcap" \
	--vdev "net_pcap1,rx_pcap=$k/in.pcap,tx_pcap=$T/ab.pcap" \
	-- --tx-port 1 --bidirectional --mode pipeline --overflow drop --drop-invalid

echo "counters: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
