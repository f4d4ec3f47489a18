#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# xdp_e2e.sh: xio-pipeline on the XDP driver between three network
# namespaces made here: sender --veth--> device under test --veth--> receiver
# (MTU 9000, IPv6 off, GRO on at the receiver). For every vector of
# $XIO_VECTORS and both XDP modes (kernel, afxdp): tcpreplay sends in.pcap
# from the sender, xio-pipeline runs in the middle namespace on the two veths,
# tcpdump captures at the receiver; the capture must equal expected.pcap
# frame for frame and byte for byte, and the stats JSON expected.json.
# Then generic XDP once, and the automatic fallback: EAL arguments naming a
# PCI device that does not exist, plus --iface, must run on XDP and say so.
# Then --bidirectional in both modes (and generic XDP): a vector from the
# sender and another from the receiver at the same time, a program on each
# DUT interface; each end's capture (inbound) must equal its vector's
# expected.pcap and each direction's counters its expected.json.
# Needs root. XDP_E2E_ONLY=GLOB limits the vectors (for debugging).
#
# The rate is modest on purpose (XDP_E2E_PPS, default 250 frames/s): a veth
# receiver that takes XDP-redirected frames and AF_XDP-sent skbs in the same
# NAPI poll hands the redirected ones up after the skbs (docs/xdp.md,
# "Order"), so the capture would show an order that the DUT did not send.
set -euo pipefail

bin=${XIO_PIPELINE:-build/xio-pipeline}
vectors=${XIO_VECTORS:-../shared/vectors}
here=$(cd "$(dirname "$0")" && pwd)
SUM_EXPECTED=$here/../e2e/sum_expected.py
pps=${XDP_E2E_PPS:-250}

# shellcheck source-path=SCRIPTDIR
. "$here/../lib/netns.sh"

netns_need_root xdp-e2e "network namespaces, XDP" || exit 1
[ -x "$bin" ] || { echo "xdp-e2e: $bin not built" >&2; exit 1; }

tag=$$
S=xio-snd-$tag D=xio-dut-$tag R=xio-rcv-$tag
tmp=$(mktemp -d)
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	netns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

setup() {
	netns_add "$S" "$D" "$R"
	netns_veth "$S" xs0 "$D" xd0 9000
	netns_veth "$D" xd1 "$R" xr0 9000
	# GRO gives the receiving veth the NAPI that XDP_REDIRECT into it needs;
	# threaded at real-time priority it polls each frame as it comes, even
	# when the machine is busy (see the rate note above)
	# (both ends: --bidirectional redirects into xd0 as well)
	local e t
	for e in "$R xr0" "$S xs0"; do
		set -- $e
		netns_if "$1" "$2" gro threaded
		for t in $(pgrep "^napi/$2-"); do chrt -f -p 50 "$t"; done
	done
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

# Compares two captures frame by frame, ignoring timestamps.
pcap_equal() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
def frames(path):
    d = open(path, 'rb').read()
    magic = struct.unpack('<I', d[:4])[0]
    e = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off, out = 24, []
    while off + 16 <= len(d):
        _, _, cl, _ = struct.unpack(e + 'IIII', d[off:off + 16])
        out.append(d[off + 16:off + 16 + cl]); off += 16 + cl
    return out
got, want = frames(sys.argv[1]), frames(sys.argv[2])
# The same frames in another order: say so first (the caller may replay).
order = "order only: " if got != want and sorted(got) == sorted(want) else ""
for i, (g, w) in enumerate(zip(got, want)):
    if g != w:
        at = next((j for j in range(min(len(g), len(w))) if g[j] != w[j]), min(len(g), len(w)))
        sys.exit(f"{order}frame {i}: {len(g)} bytes, expected {len(w)}; first difference at byte {at}")
if len(got) != len(want):
    sys.exit(f"{len(got)} frames, expected {len(want)}")
EOF
}

# Every key of expected.json must have the same value in the stats JSON, and
# the XDP driver's own members must say that nothing was lost.
json_equal() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
got, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = [f"{k}: {got.get(k)} expected {v}" for k, v in want.items() if k != 'reasons' and got.get(k) != v]
bad += [f"reasons.{k}: {got.get('reasons', {}).get(k)} expected {v}" for k, v in want['reasons'].items()
        if got.get('reasons', {}).get(k) != v]
# the XDP driver's own members: nothing lost on the way to AF_XDP
if got.get('driver') != 'xdp' or got.get('xdp_mode') not in ('kernel', 'afxdp'):
    bad.append(f"driver {got.get('driver')} mode {got.get('xdp_mode')}")
bad += [f"{k}: {got.get(k)} expected 0" for k in ('afxdp_lost', 'afxdp_no_socket') if got.get(k) != 0]
if bad:
    sys.exit("; ".join(bad))
EOF
}

failed=0
passed=0

# run NAME VECTOR_DIR EAL_ARGS -- APP_ARGS...: one replay through the DUT.
# A capture that holds exactly the expected frames in another order is the
# receiving veth's doing when the host is loaded (see "Order" in docs/xdp.md:
# two frames in one NAPI poll): that vector is replayed once at a quarter of
# the rate, where the order must then be exact, and the pass says so.
run() {
	local name=$1 v=$2 eal=$3; shift 3
	local rate=$pps out
	LAST_LOG=$tmp/pipeline.log
	out=$(run_once "$name" "$v" "$eal" "$rate" "$@") && { echo "$out"; passed=$((passed + 1)); return 0; }
	if [[ $out == "FAIL $name: capture: order only: "* ]]; then
		echo "     $name: ${out#FAIL $name: capture: } at $rate frames/s; again at $((rate / 4)) frames/s"
		rate=$((rate / 4))
		out=$(run_once "$name" "$v" "$eal" "$rate" "$@") && { echo "$out"; passed=$((passed + 1)); return 0; }
	fi
	echo "$out"
	failed=$((failed + 1))
	return 1
}

# run_once NAME VECTOR_DIR EAL_ARGS RATE -- APP_ARGS...: prints ok or FAIL.
run_once() {
	local name=$1 v=$2 eal=$3 rate=$4; shift 4
	local log=$tmp/pipeline.log got=$tmp/got.pcap stats=$tmp/stats.json tdlog=$tmp/tcpdump.log
	local td pp rc=0 why=""
	rm -f "$log" "$got" "$stats" "$tdlog"

	ip netns exec "$R" tcpdump -i xr0 -n -s 0 -B 131072 -U --immediate-mode -w "$got" 2>"$tdlog" &
	td=$!; pids+=("$td")
	wait_for "$tdlog" "listening on" "$td" || { echo "xdp-e2e: tcpdump did not start" >&2; cat "$tdlog" >&2; exit 1; }

	# shellcheck disable=SC2086
	ip netns exec "$D" "$bin" $eal -- --iface xd0 --egress xd1 "$@" --idle-exit 1500 \
		--stats-json "$stats" >"$log" 2>&1 &
	pp=$!; pids+=("$pp")
	if wait_for "$log" "xdp: .* mode on xd0" "$pp"; then
		in_ns "$S" tcpreplay -q -T nano -i xs0 --pps "$rate" "$v/in.pcap" >"$tmp/tcpreplay.log" 2>&1 ||
			why="tcpreplay failed: $(tail -1 "$tmp/tcpreplay.log")"
	fi
	wait "$pp" || rc=$?
	sleep 0.3
	kill -INT "$td" 2>/dev/null || true
	wait "$td" 2>/dev/null || true
	pids=()

	if [ -z "$why" ] && [ "$rc" -ne 0 ]; then why="xio-pipeline exited $rc"; fi
	if [ -z "$why" ] && ! grep -q "xdp: .* mode on xd0" "$log"; then why="did not run on XDP"; fi
	# --stats-interval: the stats line of every driver (pipeline/xio_stats.h)
	if [ -z "$why" ] && [[ " $* " == *" --stats-interval "* ]] &&
		! grep -Eq '^xio: t=[0-9.]+s in [0-9.]+ Mpps .*\| out [0-9.]+ Mpps .*\| (kernel|afxdp) mode, AF_XDP rx [0-9]+$' "$log"; then
		why="no stats line"
	fi
	if [ -z "$why" ]; then
		why=$(pcap_equal "$got" "$v/expected.pcap" 2>&1) || why="capture: $why"
		local j
		j=$(json_equal "$stats" "$v/expected.json" 2>&1) || why="${why:+$why; }stats: $j"
		[ -z "$why" ] || why="$why ($(grep -h 'dropped by' "$tdlog" | tr '\n' ' '))"
	fi
	if [ -n "$why" ]; then
		echo "FAIL $name: $why"
		[ -z "${XDP_E2E_SAVE:-}" ] || cp "$got" "$XDP_E2E_SAVE/${name// /-}.pcap" 2>/dev/null || true
		sed 's/^/    | /' "$log"
		return 1
	fi
	echo "ok   $name: $(grep -o 'xdp: [0-9]* frame(s) finished in the kernel, [0-9]* through AF_XDP' "$log" | sed 's/^xdp: //')"
}

setup
echo "xdp-e2e: $S -> $D (xio-pipeline --driver xdp) -> $R, $pps frames/s"

for mode in kernel afxdp; do
	for v in "$vectors"/${XDP_E2E_ONLY:-*}/; do
		v=${v%/}
		args=$(bash "$here/../vector-args.sh" "$v")
		# shellcheck disable=SC2086
		run "$(basename "$v") $mode" "$v" "" --driver xdp --xdp-mode "$mode" $args || true
	done
done

keep=$vectors/basic-keep
# shellcheck disable=SC2046
run "basic-keep kernel generic" "$keep" "" --driver xdp --xdp-mode kernel --xdp-attach generic \
	--stats-interval 0.2 $(bash "$here/../vector-args.sh" "$keep") || true

# Automatic fallback: the EAL is given a PCI device that does not exist.
# shellcheck disable=SC2046
if run "basic-keep auto fallback" "$keep" "-a 0000:ff:1f.7 --no-shconf" \
	$(bash "$here/../vector-args.sh" "$keep"); then
	if grep -qi "falling back to XDP" "$LAST_LOG"; then
		echo "ok   fallback logged: $(grep -i -m1 'falling back to XDP' "$LAST_LOG")"
		passed=$((passed + 1))
	else
		echo "FAIL fallback: the log does not say it fell back to XDP"
		sed 's/^/    | /' "$LAST_LOG"
		failed=$((failed + 1))
	fi
fi

# Each direction of a --bidirectional run against its vector's expected.json.
dirs_equal() {
	python3 - "$@" <<'EOF'
import json, sys
got = json.load(open(sys.argv[1]))
bad = []
for name, path in (("a_to_b", sys.argv[2]), ("b_to_a", sys.argv[3])):
    d, want = got.get("directions", {}).get(name, {}), json.load(open(path))
    bad += [f"{name}.{k}: {d.get(k)} expected {v}" for k, v in want.items() if d.get(k) != v]
if bad:
    sys.exit("; ".join(bad))
EOF
}

# run_bidir NAME VA VB APP_ARGS...: VA from the sender, VB from the receiver,
# through one xio-pipeline --bidirectional.
run_bidir() {
	local name=$1 va=$2 vb=$3; shift 3
	local log=$tmp/pipeline.log stats=$tmp/stats.json td1 td2 pp s1 rc=0 why="" j
	rm -f "$log" "$stats" "$tmp"/ab.pcap "$tmp"/ba.pcap "$tmp"/td*.log

	ip netns exec "$R" tcpdump -Q in -i xr0 -n -s 0 -B 131072 -U --immediate-mode -w "$tmp/ab.pcap" 2>"$tmp/td1.log" &
	td1=$!; pids+=("$td1")
	ip netns exec "$S" tcpdump -Q in -i xs0 -n -s 0 -B 131072 -U --immediate-mode -w "$tmp/ba.pcap" 2>"$tmp/td2.log" &
	td2=$!; pids+=("$td2")
	wait_for "$tmp/td1.log" "listening on" "$td1" && wait_for "$tmp/td2.log" "listening on" "$td2" ||
		{ echo "xdp-e2e: tcpdump did not start" >&2; exit 1; }

	ip netns exec "$D" "$bin" -- --iface xd0 --egress xd1 --bidirectional "$@" --idle-exit 1500 \
		--stats-json "$stats" >"$log" 2>&1 &
	pp=$!; pids+=("$pp")
	if wait_for "$log" "xdp: bidirectional: .* mode on xd1" "$pp"; then
		in_ns "$S" tcpreplay -q -T nano -i xs0 --pps "$pps" "$va/in.pcap" >"$tmp/tcpreplay1.log" 2>&1 &
		s1=$!
		in_ns "$R" tcpreplay -q -T nano -i xr0 --pps "$pps" "$vb/in.pcap" >"$tmp/tcpreplay2.log" 2>&1 ||
			why="tcpreplay from $R failed"
		wait "$s1" || why="tcpreplay from $S failed"
	fi
	wait "$pp" || rc=$?
	sleep 0.3
	kill -INT "$td1" "$td2" 2>/dev/null || true
	wait "$td1" "$td2" 2>/dev/null || true
	pids=()

	if [ -z "$why" ] && [ "$rc" -ne 0 ]; then why="xio-pipeline exited $rc"; fi
	if [ -z "$why" ] && ! grep -q "xdp: bidirectional: .* mode on xd1" "$log"; then why="did not run both ways"; fi
	if [ -z "$why" ]; then
		why=$(pcap_equal "$tmp/ab.pcap" "$va/expected.pcap" 2>&1) || why="a_to_b capture: $why"
		j=$(pcap_equal "$tmp/ba.pcap" "$vb/expected.pcap" 2>&1) || why="${why:+$why; }b_to_a capture: $j"
		python3 "$SUM_EXPECTED" "$va/expected.json" "$vb/expected.json" "$tmp/sum.json"
		j=$(json_equal "$stats" "$tmp/sum.json" 2>&1) || why="${why:+$why; }totals: $j"
		j=$(dirs_equal "$stats" "$va/expected.json" "$vb/expected.json" 2>&1) || why="${why:+$why; }$j"
	fi
	if [ -n "$why" ]; then
		echo "FAIL $name: $why"
		sed 's/^/    | /' "$log"
		failed=$((failed + 1))
		return 1
	fi
	echo "ok   $name: $(grep -o 'xdp: [0-9]* frame(s) finished in the kernel, [0-9]* through AF_XDP' "$log" | sed 's/^xdp: //')"
	passed=$((passed + 1))
}

# The two directions carry different vectors made with the same options.
ab=$vectors/basic-keep ba=$vectors/reply-srcport
if [ -d "$ab" ] && [ -d "$ba" ]; then
	for mode in kernel afxdp; do
		# shellcheck disable=SC2046
		run_bidir "bidirectional $mode" "$ab" "$ba" --driver xdp --xdp-mode "$mode" \
			$(bash "$here/../vector-args.sh" "$ab") || true
	done
	# shellcheck disable=SC2046
	run_bidir "bidirectional kernel generic" "$ba" "$ab" --driver xdp --xdp-mode kernel \
		--xdp-attach generic $(bash "$here/../vector-args.sh" "$ab") || true
fi

echo "xdp-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
