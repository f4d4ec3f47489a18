#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/pipeline.sh: xio-pipeline (rtc and pipeline modes) against
# `dpdk-testpmd --forward-mode=io` on the same in-memory capture: net_pcap
# with infinite_rx=1 replays the capture from memory, and with no tx_pcap the
# PMD frees what is sent (a TX that discards cheaply). Two captures of
# 364-token frames with the UDP checksum on: without and with CRC32C. On the
# first, two more testpmd engines (macswap, csum) and xio-pipeline with
# nothing addressed to it (forward) place the figures between "touches
# nothing" and "one software pass over every payload".
# Each round runs every configuration once, in the same order (A B C A B C
# ...), so slow phases of this shared VM spread over all of them; the report
# takes the median of the rounds. One run's rate is the median of its 1 s
# interval rates after the first (start-up) interval(s).
# Writes $BENCH_DIR/pipeline-runs.csv; logs in $BENCH_DIR/logs/.
# BENCH_ROUNDS (default 5), BENCH_SECONDS (default 4) per run.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/lib.sh

SECONDS_PER_RUN=${BENCH_SECONDS:-4}
TESTPMD=${TESTPMD:-dpdk-testpmd}
EAL=(--no-huge --no-shconf --no-pci)
CSV=$BENCH_DIR/pipeline-runs.csv
LOGS=$BENCH_DIR/logs

command -v "$TESTPMD" >/dev/null ||
	die "$TESTPMD not found (Debian package dpdk-dev: make deps)"
[ -x "$XIO_PIPELINE" ] || die "$XIO_PIPELINE not built"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (main lcore on CPU 0, forwarding lcore on CPU 1)"
mkdir -p "$LOGS"
bench_captures

# median_after SKIP: median of the numbers on stdin after the first SKIP.
median_after() {
	tail -n +$(($1 + 1)) | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		printf "%.0f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# testpmd CAP FWD LOG: FWD (io, macswap or csum) forwarding on lcore 1
# (CPU 1), main lcore on CPU 0. Non-interactive with --stats-period: it
# prints the port stats every second until SIGINT, then stops forwarding and
# prints the totals. Rate: Tx-pps.
run_testpmd() {
	local cap=$1 fwd=$2 log=$3
	timeout -s INT $((SECONDS_PER_RUN + 2)) "$TESTPMD" "${EAL[@]}" --lcores '0@0,1@1' \
		--vdev "net_pcap0,rx_pcap=$cap,infinite_rx=1" -- \
		--forward-mode="$fwd" --port-topology=loop --nb-cores=1 --stats-period 1 \
		--total-num-mbufs=4096 </dev/null >"$log" 2>&1 || true
	grep -q 'Forward statistics for port 0' "$log" ||
		die "testpmd did not run (see $log): $(grep -m1 -i 'error\|fail' "$log" || tail -1 "$log")"
	# samples: the first is 0 (no earlier reading), the second covers start-up
	awk '/Tx-pps:/ { print $2 }' "$log" | median_after 2
}

# xio CAP MODE LOG JSON: rtc: forwarding on lcore 1 (CPU 1); pipeline: rx
# and tx tasks on lcore 1 (CPU 1), the work task on lcore 2 (CPU 0, beside
# the main lcore, which only sleeps and prints); forward: rtc with another
# XIO port, so every frame is classified other_port after the UDP header and
# forwarded untouched (the framework's cost without the XIO work). Rate:
# "out ... Mpps".
run_xio() {
	local cap=$1 mode=$2 log=$3 json=$4 lcores='0@0,1@1' args=(--mode "$2")
	[ "$mode" = pipeline ] && lcores='0@0,1@1,2@0'
	[ "$mode" = forward ] && args=(--mode rtc --udp-port 9)
	rm -f "$json"
	"$XIO_PIPELINE" "${EAL[@]}" --lcores "$lcores" \
		--vdev "net_pcap0,rx_pcap=$cap,infinite_rx=1" -- \
		"${args[@]}" --duration "$SECONDS_PER_RUN" --stats-interval 1 \
		--stats-json "$json" </dev/null >"$log" 2>&1 ||
		die "xio-pipeline --mode $mode failed (see $log): $(tail -1 "$log")"
	sed -n 's/^xio: t=.*| out \([0-9.]*\) Mpps.*/\1/p' "$log" |
		awk '{ printf "%.0f\n", $1 * 1e6 }' | median_after 1
}

# check JSON MODE: every frame received was narrowed (forward: classified
# other_port) and sent, none dropped, no mbuf leaked; prints "ok" or what
# differs, then a comma and the processing stage's TSC cycles per packet
# from xio-pipeline's own counters.
check_xio() {
	python3 - "$1" "$2" <<'PY'
import json, sys
s, mode = json.load(open(sys.argv[1])), sys.argv[2]
want = s["reasons"]["other_port"] if mode == "forward" else s["narrowed_packets"]
ok = (s["rx_packets"] > 0 and want == s["rx_packets"] == s["tx_packets"] and
      s["dropped_packets"] == 0 and s.get("leaked_mbufs", 0) == 0)
work = [st for st in s["stages"] if st["stage"] in ("rtc", "work")]
cpp = work[0]["cycles_per_packet"] if work else ""
print("%s,%s" % ("ok" if ok else "rx=%d tx=%d narrowed=%d dropped=%d" % (
    s["rx_packets"], s["tx_packets"], s["narrowed_packets"], s["dropped_packets"]), cpp))
PY
}

mpps() { awk -v p="$1" 'BEGIN { printf "%.3f", p / 1e6 }'; }

echo "round,capture,program,mode,pps,check,cycles_per_packet" >"$CSV"
t0=$(now)
for r in $(seq 1 "$BENCH_ROUNDS"); do
	for c in nocrc crc; do
		cap=$BENCH_DIR/cap-$c.pcap
		# io is the goal's baseline; on the no-CRC capture also macswap
		# (writes the Ethernet header) and csum (software IP and UDP
		# checksums over every frame: one pass over the payload)
		fwds=io
		[ "$c" = nocrc ] && fwds="io macswap csum"
		for f in $fwds; do
			pps=$(run_testpmd "$cap" "$f" "$LOGS/testpmd-$f-$c-$r.log")
			echo "$r,$c,testpmd,$f,$pps,ok," >>"$CSV"
			log "round $r/$BENCH_ROUNDS $c: testpmd $f $(mpps "$pps") Mpps"
		done
		modes="rtc pipeline"
		[ "$c" = nocrc ] && modes="rtc pipeline forward"
		for m in $modes; do
			json=$LOGS/xio-$m-$c-$r.json
			pps=$(run_xio "$cap" "$m" "$LOGS/xio-$m-$c-$r.log" "$json")
			chk=$(check_xio "$json" "$m")
			echo "$r,$c,xio-pipeline,$m,$pps,$chk" >>"$CSV"
			log "round $r/$BENCH_ROUNDS $c: xio-pipeline $m $(mpps "$pps") Mpps (${chk%,*}, ${chk#*,} cycles/packet)"
		done
	done
done
# Where rtc spends its time: perf's software clock (no hardware counters
# needed), one more run. Skipped when perf is missing or not allowed.
rm -f "$BENCH_DIR/profile-rtc.txt"
if command -v perf >/dev/null &&
	perf record -q -e cpu-clock -F 999 -o "$BENCH_DIR/perf-rtc.data" -- "$XIO_PIPELINE" \
		"${EAL[@]}" --lcores '0@0,1@1' \
		--vdev "net_pcap0,rx_pcap=$BENCH_DIR/cap-nocrc.pcap,infinite_rx=1" -- \
		--duration 3 >"$LOGS/xio-rtc-perf.log" 2>&1; then
	perf report -i "$BENCH_DIR/perf-rtc.data" --no-children --sort dso,symbol --stdio \
		-g none --percent-limit 0.3 2>/dev/null | grep '%' >"$BENCH_DIR/profile-rtc.txt" || true
	rm -f "$BENCH_DIR/perf-rtc.data"
	log "profile of rtc (no CRC): $BENCH_DIR/profile-rtc.txt"
else
	log "no profile (perf missing or refused; see $LOGS/xio-rtc-perf.log)"
fi

el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
echo "# elapsed_s=$el" >>"$CSV"
echo "# seconds_per_run=$SECONDS_PER_RUN" >>"$CSV"
log "pipeline: $BENCH_ROUNDS rounds in $el s -> $CSV"
