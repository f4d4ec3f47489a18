#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# shutdown.sh: stopping under load. A hostile capture (tests/hostile, with
# drops: --overflow drop --drop-invalid) is replayed at full rate in a loop
# (net_pcap infinite_rx=1) through the real xio-pipeline, writing its output
# to a capture; once it forwards, SIGTERM or SIGINT. In both modes, for each
# signal, it must:
#  - exit 0, within 10 s of the signal (the drain is bounded), saying why;
#  - end with rx_packets == tx_packets + dropped_packets, the reasons adding
#    up to rx_packets, and leaked_mbufs == 0 (every mbuf back in its pool
#    after the ports closed);
#  - have flushed every transmitted frame: the output capture is the
#    expected output of the capture, repeated and cut short, exactly
#    tx_packets frames and bytes_out bytes (nothing lost, torn or reordered
#    in flight).
#
#   shutdown.sh BUILD [BINARY]     (default BUILD/xio-pipeline)
set -u
build=${1:?usage: shutdown.sh BUILD [BINARY]}
xp=${2:-$build/xio-pipeline}
here=$(cd "$(dirname "$0")" && pwd)
work=$build/reliability/${REL_TAG:-native}/shutdown
load_s=${XIO_LOAD_SECONDS:-0.5}
mkdir -p "$work"
pass=0 fail=0

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	[ -f "$work/log" ] && sed 's/^/  | /' "$work/log" | tail -n 15
}

# The capture and what must come out of it (the reference model's word).
"$build/hostile/xio-hostile-gen" --seed 2001 --count 2000 --out "$work/in.pcap" || exit 1
"$build/hostile/xio-ref-model" --in "$work/in.pcap" --out "$work/expected.pcap" \
	--json "$work/expected.json" --overflow drop --drop-invalid || exit 1

# now_ms: a monotonic clock in milliseconds.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# stop_under_load MODE SIGNAL
stop_under_load() {
	local mode=$1 sig=$2 desc="$1, SIG$2" pid t0 t rc=0
	rm -f "$work/out.pcap" "$work/stats.json" "$work/log"
	"$xp" --no-huge --no-shconf --no-pci -m 1024 --lcores '0@0,1@1,2@0' \
		--vdev "net_pcap0,rx_pcap=$work/in.pcap,infinite_rx=1,tx_pcap=$work/out.pcap" -- \
		--mode "$mode" --mbuf-size 9216 --overflow drop --drop-invalid \
		--stats-json "$work/stats.json" >"$work/log" 2>&1 &
	pid=$!
	t0=$(now_ms)
	until grep -q "forwarding:" "$work/log" 2>/dev/null; do
		if ! kill -0 "$pid" 2>/dev/null || [ $(($(now_ms) - t0)) -gt 30000 ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			bad "$desc: never started forwarding"
			return
		fi
		sleep 0.05
	done
	sleep "$load_s"
	kill -"$sig" "$pid"
	t0=$(now_ms)
	while kill -0 "$pid" 2>/dev/null && [ $(($(now_ms) - t0)) -lt 10000 ]; do
		sleep 0.02
	done
	t=$(($(now_ms) - t0))
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		bad "$desc: still running 10 s after the signal"
		return
	fi
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then bad "$desc: exit $rc"; return; fi
	if ! grep -q "stopping (signal)" "$work/log"; then bad "$desc: no 'stopping (signal)' line"; return; fi
	if grep -Eq 'AddressSanitizer|runtime error:|LeakSanitizer' "$work/log"; then
		bad "$desc: sanitizer report"; return
	fi
	# under load: more frames than one pass over the capture
	if ! python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if j['rx_packets'] > 2000 else 1)" \
		"$work/stats.json" 2>/dev/null; then
		bad "$desc: not under load (rx_packets <= one pass of 2000 frames)"; return
	fi
	if ! python3 "$here/../hostile/compare.py" --cyclic "$work/out.pcap" "$work/expected.pcap" \
		"$work/stats.json" >"$work/cmp" 2>&1; then
		bad "$desc: output or counters"; sed 's/^/  | /' "$work/cmp"; return
	fi
	echo "shutdown: $desc: exit 0 ${t} ms after the signal, $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['rx_packets'], 'rx =', j['tx_packets'], 'tx +', j['dropped_packets'], 'dropped, leaked_mbufs', j['leaked_mbufs'])" "$work/stats.json")"
	pass=$((pass + 1))
	rm -f "$work/out.pcap"
}

for mode in rtc pipeline; do
	for sig in TERM INT; do
		stop_under_load "$mode" "$sig"
	done
done

echo "shutdown: $pass cases passed, $fail failed"
[ "$fail" -eq 0 ]
