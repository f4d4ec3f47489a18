#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of build/xio-pipeline on DPDK (run by `make dpdk`, part of
# make test). The real binary, the real EAL (--no-huge --no-shconf --no-pci)
# and real net_pcap / net_null vdevs:
#  (a) every capture of $XIO_VECTORS (default ../shared/vectors) in rtc and
#      pipeline modes: output frames byte for byte against expected.pcap
#      (pcap-cmp, timestamps ignored) and every key of expected.json exact;
#  (b) the same with chained mbufs (--mbuf-size 512: jumbo frames arrive in
#      up to 24 segments), chains longer than a segment list (--mbuf-size
#      128: 36 segments), one-segment jumbo mbufs, burst 1, 2-entry rings (constant
#      backpressure) with all stages on one lcore, two RX queues, and a
#      separate TX port;
#  (b2) --bidirectional: a capture into each of two ports, both directions
#      through one process in both modes (one lcore polling both, an lcore
#      each, two queues per port): each output byte-exact, each direction's
#      counters ("directions") equal to its capture's expected.json;
#  (c) xio-gen captures (jumbo + CRC, IPv6 + VLAN, faults, foreign traffic,
#      reordering) through both modes, then xio-verify and exact counters;
#  (d) SIGTERM under full load (infinite_rx): exit 0, the accounting holds,
#      no mbuf leaked; a TX that never drains: the drain timeout frees and
#      counts; --duration; --stats-interval lines;
#  (e) --list-ports, a missing EAL, bad option values, a port that does not
#      exist, and the build without DPDK: one clear line, non-zero exit.
# Every run's per-stage, per-lcore and hardware blocks are checked against
# its captures and totals too (tests/e2e/counters_check.py).
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SUM_EXPECTED=$ROOT/tests/e2e/sum_expected.py
VECTORS=${XIO_VECTORS:-$ROOT/../shared/vectors}
XP=${XIO_PIPELINE:-$BUILD/xio-pipeline}
CMP=$BUILD/tests/pcap-cmp
GEN=$BUILD/xio-gen
VERIFY=$BUILD/xio-verify
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

EAL=(--no-huge --no-shconf --no-pci --lcores '0@0,1@1,2@0')
IDLE=${XIO_IDLE_MS:-300}   # --idle-exit of the replays
. "$ROOT/tests/e2e/lib.sh"

# xp LOG EAL-ARGS... -- OPTIONS...: runs xio-pipeline (bounded in time),
# output to LOG; returns its exit status.
xp() {
	local log=$1
	shift
	timeout -k 5 120 "$XP" "$@" >"$log" 2>&1
}

# json_check JSON EXPECTED DESC: every key of EXPECTED equal in JSON, and
# the run's accounting: rx == tx + dropped, no mbuf leaked.
json_check() {
	python3 - "$1" "$2" <<'EOF' >"$T/jsondiff" 2>&1
import json, sys
got = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
bad = [f"{k}: {got.get(k)!r}, expected {v!r}" for k, v in exp.items() if got.get(k) != v]
if got["rx_packets"] != got["tx_packets"] + got["dropped_packets"]:
    bad.append("rx_packets != tx_packets + dropped_packets")
if got.get("leaked_mbufs", 0) != 0:
    bad.append(f"leaked_mbufs: {got['leaked_mbufs']}")
if sum(got["reasons"].values()) != got["rx_packets"]:
    bad.append("reasons do not add up to rx_packets")
# Each stage passed on exactly what the counters say.
want = {"rtc": got["rx_packets"], "rx": got["rx_packets"], "work": got["rx_packets"],
        "tx": got["tx_packets"]}
for name, n in want.items():
    st = [s["packets"] for s in got["stages"] if s["stage"] == name]
    if st and sum(st) != n:
        bad.append(f"stage {name}: {sum(st)} packets, expected {n}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
	if [ $? -eq 0 ]; then ok; else bad "$3: stats JSON"; show "$T/jsondiff"; fi
}

# counters JSON DESC [--in CAP]... [--out CAP]... [-- OPTIONS...]: the stats
# JSON's stages, lcores and hardware blocks agree with the captures of each
# queue and with its totals.
counters() {
	local json=$1 desc=$2
	shift 2
	if python3 "$ROOT/tests/e2e/counters_check.py" "$json" "$@" >"$T/cdiff" 2>&1; then
		ok
	else
		bad "$desc: per-stage counters"; show "$T/cdiff"
	fi
}

# json_expr JSON PYEXPR DESC [NF]: PYEXPR (over j, the stats JSON, and nf,
# a frame count) holds.
json_expr() {
	if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); nf=int(sys.argv[2]); sys.exit(0 if ($2) else 1)" "$1" "${4:-0}"; then
		ok
	else
		bad "$3: $2 does not hold"; show "$1"
	fi
}

# frames CAP: the number of frames in a classic pcap file.
frames() {
	python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read()
e = '<' if d[:4] in (b'\\xd4\\xc3\\xb2\\xa1', b'\\x4d\\x3c\\xb2\\xa1') else '>'
off, n = 24, 0
while off < len(d):
    off += 16 + struct.unpack(e + 'I', d[off + 8:off + 12])[0]
    n += 1
print(n)" "$1"
}

pcap_check() {
	if "$CMP" "$1" "$2" >"$T/cmp" 2>&1; then ok; else bad "$3: output frames"; show "$T/cmp"; fi
}

# vector DIR MODE DESC [EAL-ARGS...] [-- OPTIONS...]: one capture through the
# binary, compared with expected.pcap and expected.json.
vector() {
	local dir=$1 mode=$2 desc=$3 args eal=() opts=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do eal+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	opts=("$@")
	args=$(bash "$ROOT/tests/vector-args.sh" "$dir") || { bad "$desc: vector-args"; return; }
	rm -f "$T/out.pcap" "$T/out.json"
	# shellcheck disable=SC2086
	if ! xp "$T/log" "${EAL[@]}" "${eal[@]}" \
		--vdev "net_pcap0,rx_pcap=$dir/in.pcap,tx_pcap=$T/out.pcap" -- \
		--mode "$mode" --idle-exit "$IDLE" --stats-json "$T/out.json" $args "${opts[@]}"; then
		bad "$desc: exit status"; show "$T/log"; return
	fi
	ok
	pcap_check "$T/out.pcap" "$dir/expected.pcap" "$desc"
	json_check "$T/out.json" "$dir/expected.json" "$desc"
	# shellcheck disable=SC2086
	counters "$T/out.json" "$desc" --in "$dir/in.pcap" --out "$T/out.pcap" -- $args "${opts[@]}"
}

# --- (a) every conformance vector, both modes ---------------------------
nvec=0
for dir in "$VECTORS"/*/; do
	dir=${dir%/}
	[ -f "$dir/in.pcap" ] && [ -f "$dir/expected.pcap" ] && [ -f "$dir/expected.json" ] || continue
	nvec=$((nvec + 1))
	for mode in rtc pipeline; do
		vector "$dir" "$mode" "$(basename "$dir") $mode"
	done
done
[ "$nvec" -gt 0 ] && ok || bad "no vectors in $VECTORS"
echo "vectors: $nvec captures x 2 modes"

# --- (b) mbuf layouts, bursts, backpressure, queues, ports --------------
for dir in "$VECTORS"/basic-keep "$VECTORS"/mixed-port9999-saturate; do
	[ -d "$dir" ] || continue
	n=$(basename "$dir")
	for mode in rtc pipeline; do
		vector "$dir" "$mode" "$n $mode chained mbufs" -- --mbuf-size 512
		vector "$dir" "$mode" "$n $mode long chains" -- --mbuf-size 128
		vector "$dir" "$mode" "$n $mode one-segment jumbo mbufs" -m 256 -- --mbuf-size 9216
		vector "$dir" "$mode" "$n $mode burst 1" -- --burst 1
	done
	vector "$dir" pipeline "$n rings of 2, stages on one lcore" -- \
		--ring-size 2 --burst 7 --stage-lcores 1,1,1
	vector "$dir" pipeline "$n rings of 2, chained mbufs" -- \
		--ring-size 2 --burst 512 --mbuf-size 512 --stage-lcores 2,1,2
done

# The long-chain path was really taken, and chained frames really came in.
b=$VECTORS/basic-keep
if [ -d "$b" ]; then
	xp "$T/log" "${EAL[@]}" --vdev "net_pcap0,rx_pcap=$b/in.pcap,tx_pcap=$T/o.pcap" -- \
		--idle-exit "$IDLE" --mbuf-size 128 --stats-json "$T/lc.json" || bad "long chains run"
	json_expr "$T/lc.json" 'j["long_chains"] == 2 and j["mbuf_data_room"] == 128' "long chains taken"
fi

# Two RX queues (net_pcap: one capture per queue), one pipeline each.
k1=$VECTORS/basic-keep k2=$VECTORS/mixed-keep
if [ -d "$k1" ] && [ -d "$k2" ]; then
	python3 "$SUM_EXPECTED" "$k1/expected.json" "$k2/expected.json" "$T/sum.json"
	for mode in rtc pipeline; do
		rm -f "$T/q0.pcap" "$T/q1.pcap"
		if xp "$T/log" --no-huge --no-shconf --no-pci --lcores '0@0,1@1,2@0,3@1' \
			--vdev "net_pcap0,rx_pcap=$k1/in.pcap,rx_pcap=$k2/in.pcap,tx_pcap=$T/q0.pcap,tx_pcap=$T/q1.pcap" \
			-- --rxq 2 --mode "$mode" --idle-exit "$IDLE" --stats-json "$T/q.json"; then
			ok
			pcap_check "$T/q0.pcap" "$k1/expected.pcap" "2 queues $mode: queue 0"
			pcap_check "$T/q1.pcap" "$k2/expected.pcap" "2 queues $mode: queue 1"
			json_check "$T/q.json" "$T/sum.json" "2 queues $mode"
			counters "$T/q.json" "2 queues $mode" --in "$k1/in.pcap" --in "$k2/in.pcap" \
				--out "$T/q0.pcap" --out "$T/q1.pcap"
		else
			bad "2 queues $mode: exit status"; show "$T/log"
		fi
	done
	# rtc needs one worker lcore per queue: a clear error otherwise.
	if xp "$T/log" --no-huge --no-shconf --no-pci --lcores '0@0,1@1' \
		--vdev "net_pcap0,rx_pcap=$k1/in.pcap,rx_pcap=$k2/in.pcap,tx_pcap=$T/q0.pcap,tx_pcap=$T/q1.pcap" \
		-- --rxq 2 --idle-exit "$IDLE"; then
		bad "rtc with 2 queues on 1 worker: exit 0"
	elif grep -q "rtc mode needs 2 worker lcores" "$T/log"; then ok; else bad "rtc lcores message"; show "$T/log"; fi
fi

# RX on one port, TX on another.
if [ -d "$k1" ]; then
	for mode in rtc pipeline; do
		rm -f "$T/o.pcap"
		if xp "$T/log" "${EAL[@]}" --vdev "net_pcap0,rx_pcap=$k1/in.pcap" \
			--vdev "net_pcap1,tx_pcap=$T/o.pcap" -- --tx-port 1 --mode "$mode" \
			--idle-exit "$IDLE" --stats-json "$T/o.json"; then
			ok
			pcap_check "$T/o.pcap" "$k1/expected.pcap" "port 0 -> port 1 $mode"
			json_check "$T/o.json" "$k1/expected.json" "port 0 -> port 1 $mode"
			counters "$T/o.json" "port 0 -> port 1 $mode" --in "$k1/in.pcap" --out "$T/o.pcap" -- --tx-port 1
		else
			bad "port 0 -> port 1 $mode: exit status"; show "$T/log"
		fi
	done
fi

# --- (b2) --bidirectional: port 0 <-> port 1 ----------------------------
# bidir_check JSON "A-VECTORS" "B-VECTORS" COUNTERS-CHECK-ARGS...: each
# direction's counters ("directions") equal the sum of its vectors'
# expected.json, the totals the sum of both, the accounting holds, and
# the stages agree with the captures (counters_check.py), in one python.
bidir_check() {
	python3 - "$ROOT/tests/e2e" "$@" >"$T/bdiff" 2>&1 <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import counters_check as cc
j = json.load(open(sys.argv[2]))

def expected(dirs):
    js = [json.load(open(d + "/expected.json")) for d in dirs.split()]
    s = {k: sum(x[k] for x in js) for k in js[0] if k != "reasons"}
    s["reasons"] = {r: sum(x["reasons"][r] for x in js) for r in js[0]["reasons"]}
    return s

bad = []
exp = {"a_to_b": expected(sys.argv[3]), "b_to_a": expected(sys.argv[4])}
for name, e in exp.items():
    d = j["directions"][name]
    bad += [f"directions.{name}.{k}: {d.get(k)!r}, expected {v!r}" for k, v in e.items() if d.get(k) != v]
    bad += [f"{k}: {j[k]}, expected {e[k] + exp['b_to_a'][k]}" for k in e if name == "a_to_b" and k != "reasons" and j[k] != e[k] + exp["b_to_a"][k]]
if j["leaked_mbufs"] != 0 or j["rx_packets"] != j["tx_packets"] + j["dropped_packets"]:
    bad.append("accounting: leaked mbufs, or rx != tx + dropped")
argv = sys.argv[5:]
rest = argv[argv.index("--") + 1:] if "--" in argv else []
argv = argv[:argv.index("--")] if "--" in argv else argv
ins = [argv[i + 1] for i in range(len(argv)) if argv[i] == "--in"]
outs = [argv[i + 1] for i in range(len(argv)) if argv[i] == "--out"]
bad += cc.check(j, ins, outs, cc.pipeline_options(rest))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
}

# bidir DESC LCORES "A-VECTORS" "B-VECTORS" [-- OPTIONS...]: each vector of
# A-VECTORS into an RX queue of port 0, each of B-VECTORS into port 1 (one
# queue per vector); what port 1 sends must be A's expected.pcap, queue by
# queue, and what port 0 sends B's; the counters as bidir_check says.
bidir() {
	local desc=$1 lcores=$2 la=$3 lb=$4 va=($3) vb=($4) opts=() p0 p1 ins=() outs=() i args
	shift 4
	[ $# -gt 0 ] && shift
	opts=("$@")
	args=$(bash "$ROOT/tests/vector-args.sh" "${va[0]}")
	p0=net_pcap0 p1=net_pcap1
	for i in "${!va[@]}"; do
		p0+=",rx_pcap=${va[i]}/in.pcap" p1+=",tx_pcap=$T/ab$i.pcap"
		ins+=(--in "${va[i]}/in.pcap") outs+=(--out "$T/ab$i.pcap")
	done
	for i in "${!vb[@]}"; do
		p1+=",rx_pcap=${vb[i]}/in.pcap" p0+=",tx_pcap=$T/ba$i.pcap"
		ins+=(--in "${vb[i]}/in.pcap") outs+=(--out "$T/ba$i.pcap")
	done
	rm -f "$T"/ab*.pcap "$T"/ba*.pcap "$T/bi.json"
	# shellcheck disable=SC2086
	if ! xp "$T/log" --no-huge --no-shconf --no-pci -m 128 --lcores "$lcores" --vdev "$p0" --vdev "$p1" \
		-- --tx-port 1 --bidirectional --rxq "${#va[@]}" --idle-exit "$IDLE" \
		--stats-json "$T/bi.json" $args "${opts[@]}"; then
		bad "$desc: exit status"; show "$T/log"; return
	fi
	ok
	for i in "${!va[@]}"; do pcap_check "$T/ab$i.pcap" "${va[i]}/expected.pcap" "$desc: a_to_b queue $i"; done
	for i in "${!vb[@]}"; do pcap_check "$T/ba$i.pcap" "${vb[i]}/expected.pcap" "$desc: b_to_a queue $i"; done
	# shellcheck disable=SC2086
	if bidir_check "$T/bi.json" "$la" "$lb" "${ins[@]}" "${outs[@]}" -- $args "${opts[@]}"; then
		ok
	else
		bad "$desc: counters"; show "$T/bdiff"
	fi
}

V=$VECTORS
if [ -d "$V/basic-keep" ] && [ -d "$V/reply-srcport" ] && [ -d "$V/mixed-keep" ]; then
	bidir "bidirectional rtc, one lcore polls both" '0@0,1@1' "$V/basic-keep" "$V/reply-srcport"
	json_expr "$T/bi.json" '[(s["name"], s["lcore"]) for s in j["stages"]] == [("a_to_b_q0_rtc", 1), ("b_to_a_q0_rtc", 1)]' "bidirectional rtc: both on lcore 1"
	bidir "bidirectional rtc, an lcore each" '0@0,1@1,2@0' "$V/reply-srcport" "$V/mixed-keep"
	json_expr "$T/bi.json" '[s["lcore"] for s in j["stages"]] == [1, 2] and j["directions"]["b_to_a"]["rx_port"] == 1' "bidirectional rtc: lcores 1 and 2"
	bidir "bidirectional rtc, chained mbufs" '0@0,1@1' "$V/mixed-keep" "$V/basic-keep" -- --mbuf-size 512
	bidir "bidirectional rtc, drop-invalid" '0@0,1@1' "$V/basic-drop-invalid" "$V/reply-srcport-drop-invalid"
	bidir "bidirectional pipeline" '0@0,1@1,2@0' "$V/basic-keep" "$V/reply-srcport" -- --mode pipeline
	bidir "bidirectional pipeline, six stages on one lcore" '0@0,1@1' "$V/reply-srcport" "$V/basic-keep" \
		-- --mode pipeline --stage-lcores 1,1,1 --ring-size 4 --burst 3
	bidir "bidirectional pipeline, placed per direction" '0@0,1@1,2@0' "$V/mixed-keep" "$V/reply-srcport" \
		-- --mode pipeline --stage-lcores 1,2,1,2,1,2
	json_expr "$T/bi.json" '[s["lcore"] for s in j["stages"]] == [1, 2, 1, 2, 1, 2]' "bidirectional pipeline placement"
	# Two queues per port, two workers: each lcore polls both directions of its queue.
	bidir "bidirectional rtc, two queues" '0@0,1@1,2@0' "$V/basic-keep $V/mixed-keep" "$V/reply-srcport $V/basic-keep"
	json_expr "$T/bi.json" '[(s["name"], s["lcore"]) for s in j["stages"]] == [("a_to_b_q0_rtc", 1), ("a_to_b_q1_rtc", 2), ("b_to_a_q0_rtc", 1), ("b_to_a_q1_rtc", 2)]' "bidirectional two queues placement"
	bidir "bidirectional pipeline, two queues" '0@0,1@1,2@0' "$V/reply-srcport $V/basic-keep" "$V/mixed-keep $V/reply-srcport" \
		-- --mode pipeline
fi

# --- (c) xio-gen captures through the binary, then xio-verify ----------
# gen_case DESC VERIFY_RC PYEXPR XIO-GEN-OPTIONS... [-- PIPELINE-OPTIONS...]
# VERIFY_RC "-": xio-verify's verdict is not checked. PYEXPR sees nf, the
# frames of the generated capture.
gen_case() {
	local desc=$1 want=$2 expr=$3 g=() p=() vport=() mode rc nf i
	shift 3
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do g+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	p=("$@")
	if ! "$GEN" --tokens "$T/tokens.i32" --out "$T/gen.pcap" "${g[@]}" >"$T/genlog" 2>&1; then
		bad "$desc: xio-gen"; show "$T/genlog"; return
	fi
	nf=$(frames "$T/gen.pcap")
	vport=()
	for ((i = 0; i < ${#g[@]} - 1; i++)); do
		[ "${g[i]}" = --port ] && vport=(--port "${g[i + 1]}")
	done
	for mode in rtc pipeline; do
		rm -f "$T/gout.pcap"
		if ! xp "$T/log" "${EAL[@]}" --vdev "net_pcap0,rx_pcap=$T/gen.pcap,tx_pcap=$T/gout.pcap" \
			-- --mode "$mode" --idle-exit "$IDLE" --stats-json "$T/g.json" "${p[@]}"; then
			bad "$desc $mode: exit status"; show "$T/log"; continue
		fi
		"$VERIFY" --capture "$T/gout.pcap" --tokens "$T/tokens.i32" "${vport[@]}" >"$T/vlog" 2>&1
		rc=$?
		if [ "$want" = - ] || [ "$rc" -eq "$want" ]; then ok; else bad "$desc $mode: xio-verify exit $rc, expected $want"; show "$T/vlog"; fi
		json_expr "$T/g.json" "j['rx_packets'] == nf and $expr" "$desc $mode" "$nf"
		json_expr "$T/g.json" 'j["rx_packets"] == j["tx_packets"] + j["dropped_packets"] and j["leaked_mbufs"] == 0' "$desc $mode accounting"
		counters "$T/g.json" "$desc $mode" --in "$T/gen.pcap" --out "$T/gout.pcap" -- "${p[@]}"
	done
}

if [ -x "$GEN" ] && [ -x "$VERIFY" ]; then
	# 300000 tokens in 0..65535, and the count of frames each MTU gives.
	python3 -c "
import random, struct
r = random.Random(3)
open('$T/tokens.i32', 'wb').write(struct.pack('<300000i', *(r.randrange(65536) for _ in range(300000))))"
	ntok=300000
	gen_case "jumbo CRC" 0 "j['narrowed_packets'] == nf and j['tokens_narrowed'] == $ntok and j['bytes_in'] - j['bytes_out'] == 2 * $ntok" \
		--mtu 9000 --crc
	gen_case "IPv6 QinQ" 0 "j['narrowed_packets'] == j['rx_packets'] and j['tokens_narrowed'] == $ntok" \
		--ipv6 --vlan 100 --vlan 7 --mtu 4000
	gen_case "foreign, reordered" 0 "j['reasons']['narrowed'] == j['rx_packets'] - 40 and j['tokens_narrowed'] == $ntok and j['reasons']['other_port'] + j['reasons']['not_ip'] + j['reasons']['not_udp'] == 40" \
		--foreign 40 --reorder --seed 5
	gen_case "corrupt, truncated, dropped" 1 "j['reasons']['bad_udp_csum'] == 3 and j['reasons']['truncated'] == 2 and j['dropped_packets'] == 0 and j['narrowed_packets'] == nf - 5" \
		--corrupt 3 --truncate 2 --drop 2 --seed 9
	gen_case "out of range, dropped" 1 "j['reasons']['out_of_range'] == 4 and j['dropped_packets'] == 4 and j['tx_packets'] == j['rx_packets'] - 4" \
		--out-of-range 4 --crc -- --overflow drop
	gen_case "out of range, saturated" - "j['reasons']['out_of_range'] == 4 and j['tokens_saturated'] == 4 and j['narrowed_packets'] == j['rx_packets']" \
		--out-of-range 4 -- --overflow saturate
	gen_case "port 9999, MTU 1500" 0 "j['narrowed_packets'] == nf and j['tokens_narrowed'] == $ntok" \
		--port 9999 -- --udp-port 9999
else
	bad "xio-gen / xio-verify not built: $GEN $VERIFY"
fi

# --- (d) stopping: SIGTERM under load, --duration, stats lines ----------
# net_pcap's infinite_rx keeps the capture in mbufs and wants each frame in
# one: 9216-byte mbufs, hence -m 256.
m=$VECTORS/mixed-keep
# term_under_load TX-VDEV MODE JSON SECONDS: $m replayed forever into
# TX-VDEV (port 1), SIGTERM after SECONDS of forwarding; sets rc, log in
# $T/log.
term_under_load() {
	local pid
	timeout -k 5 60 "$XP" "${EAL[@]}" -m 256 --vdev "net_pcap0,rx_pcap=$m/in.pcap,infinite_rx=1" --vdev "$1" \
		-- --tx-port 1 --mode "$2" --mbuf-size 9216 --stats-json "$3" >"$T/log" 2>&1 &
	pid=$!
	wait_for "$T/log" '^XIO: forwarding:'
	sleep "$4"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
}
if [ -d "$m" ]; then
	for mode in rtc pipeline; do
		term_under_load net_null0 "$mode" "$T/term.json" 1
		if [ "$rc" -eq 0 ]; then ok; else bad "SIGTERM $mode: exit $rc"; show "$T/log"; fi
		json_expr "$T/term.json" 'j["rx_packets"] > 0 and j["rx_packets"] == j["tx_packets"] + j["dropped_packets"] and j["leaked_mbufs"] == 0 and j["tokens_saturated"] == 0' "SIGTERM $mode"
		grep -q "stopping (signal)" "$T/log" && ok || { bad "SIGTERM $mode: no stop line"; show "$T/log"; }
		counters "$T/term.json" "SIGTERM $mode" -- --tx-port 1
	done
	# A TX that stops taking frames (net_ring0: a ring nobody reads): the
	# drain gives up after its timeout, frees what is left and counts it
	# dropped; the exit is still clean.
	for mode in rtc pipeline; do
		term_under_load net_ring0 "$mode" "$T/stuck.json" 0.5
		if [ "$rc" -eq 0 ]; then ok; else bad "stuck TX $mode: exit $rc"; show "$T/log"; fi
		grep -q "drain timed out" "$T/log" && ok || { bad "stuck TX $mode: no timeout line"; show "$T/log"; }
		json_expr "$T/stuck.json" 'j["dropped_packets"] > 0 and j["dropped_packets"] == sum(s["abandoned"] for s in j["stages"]) and j["rx_packets"] == j["tx_packets"] + j["dropped_packets"]' "stuck TX $mode"
		counters "$T/stuck.json" "stuck TX $mode" -- --tx-port 1
	done
	if xp "$T/log" "${EAL[@]}" -m 256 --vdev "net_pcap0,rx_pcap=$m/in.pcap,infinite_rx=1" --vdev net_null0 \
		-- --tx-port 1 --mode pipeline --mbuf-size 9216 --duration 1.5 --stats-interval 0.5 --stats-json "$T/d.json"; then
		ok
	else
		bad "--duration: exit status"; show "$T/log"
	fi
	grep -q "stopping (--duration)" "$T/log" && ok || { bad "--duration: no stop line"; show "$T/log"; }
	n=$(grep -c '^xio: t=' "$T/log")
	[ "$n" -ge 1 ] && ok || { bad "--stats-interval: $n stats lines"; show "$T/log"; }
	json_expr "$T/d.json" 'j["rx_packets"] > 400 and j["rx_packets"] == j["tx_packets"] + j["dropped_packets"] and j["elapsed_s"] > 0 and j["leaked_mbufs"] == 0' "--duration counters"
	counters "$T/d.json" "--duration" -- --tx-port 1
	# The stats line: what scripts/bench parses, cycles per packet per stage,
	# then each port's ethdev losses.
	grep -Eq '^xio: t=[0-9.]+s .*\| out [0-9.]+ Mpps .*\| cycles/pkt q0_rx [0-9-]+ q0_work [0-9-]+ q0_tx [0-9-]+ \| port 0 imissed 0 ierrors 0 rx_nombuf 0 oerrors 0 \| port 1 imissed 0 ierrors 0 rx_nombuf 0 oerrors 0$' "$T/log" &&
		ok || { bad "--stats-interval: line format"; show "$T/log"; }
fi

# --- (e) command line, EAL and port errors; the build without DPDK ------
# err DESC REGEX ARGS...: exit 1 (a run that fails; WANT_RC=2: a bad command
# line) and a line matching REGEX.
err() {
	local desc=$1 re=$2 rc want=${WANT_RC:-1}
	shift 2
	xp "$T/log" "$@"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$desc: exit $rc, want $want"; show "$T/log"
	elif grep -Eq -- "$re" "$T/log"; then ok; else bad "$desc: no line matching '$re'"; show "$T/log"; fi
}
# uerr DESC REGEX ARGS...: a bad command line.
uerr() { WANT_RC=2 err "$@"; }
vd=(--vdev "net_pcap0,rx_pcap=$VECTORS/basic-keep/in.pcap,tx_pcap=$T/e.pcap")
uerr "burst 0" "^xio-pipeline: --burst '0': expected a number in 1\.\.512" -- --burst 0
uerr "ring not a power of two" '^xio-pipeline: --ring-size: 1000 is not a power of two' -- --ring-size 1000
uerr "unknown mode" "^xio-pipeline: --mode 'fast': expected rtc\|pipeline" -- --mode fast
uerr "unknown policy" "^xio-pipeline: --overflow 'clip': expected keep\|saturate\|drop" -- --overflow clip
uerr "udp port 0" "^xio-pipeline: --udp-port '0': expected a number in 1\.\.65535" -- --udp-port 0
uerr "not a number" "^xio-pipeline: --idle-exit '12x': expected a number" -- --idle-exit 12x
uerr "missing value" "^xio-pipeline: option '--burst' needs a value" -- --burst
uerr "unknown option" "^xio-pipeline: unknown option '--bogus'" -- --bogus
uerr "stats file" "^xio-pipeline: --stats-json '/nonexistent/s.json': cannot write in '/nonexistent'" -- --stats-json /nonexistent/s.json
uerr "stage-lcores count" '^xio-pipeline: --stage-lcores: 2 lcores given, 3 needed' -- --mode pipeline --stage-lcores 1,2
uerr "stage-lcores in rtc" '^xio-pipeline: --stage-lcores: needs --mode pipeline' -- --stage-lcores 1,1,1
uerr "stage-lcores bidirectional" '^xio-pipeline: --stage-lcores: 4 lcores given, 3 needed .*or twice that' -- --mode pipeline --bidirectional --tx-port 1 --stage-lcores 1,1,1,1
uerr "bidirectional one port" '^xio-pipeline: --bidirectional: needs two ports' -- --driver dpdk --bidirectional
err "bidirectional one port (auto)" 'XIO: --bidirectional needs two ports: --rx-port A --tx-port B' "${EAL[@]}" "${vd[@]}" -- --bidirectional
uerr "bidirectional one interface" '^xio-pipeline: --bidirectional: needs two interfaces' -- --driver xdp --iface lo --bidirectional
uerr "xdp without iface" '^xio-pipeline: --driver: xdp needs --iface' -- --driver xdp
uerr "metrics address" "^xio-pipeline: --metrics 'localhost:9102': 'localhost' is not a numeric IPv4 or IPv6 address" -- --metrics localhost:9102
uerr "iface missing" "^xio-pipeline: --iface: no interface 'xio-nope0' here" -- --iface xio-nope0
err "port missing" 'port 3 does not exist: the EAL found 1 port' "${EAL[@]}" "${vd[@]}" -- --rx-port 3
err "stage lcore not a worker" '--stage-lcores: lcore 5 is not a worker lcore' "${EAL[@]}" "${vd[@]}" -- --mode pipeline --stage-lcores 1,5,1
err "no EAL" 'the DPDK EAL cannot start.*--driver xdp --iface' --no-huge --in-memory --no-pci --lcores '0@0,1@1' -- --idle-exit 100
err "no port" 'the DPDK EAL found no port.*--vdev' "${EAL[@]}" -- --idle-exit 100
if xp "$T/log" "${EAL[@]}" "${vd[@]}" -- --list-ports && grep -q '^port 0: net_pcap0 driver net_pcap' "$T/log" &&
	grep -q '^RDMA devices' "$T/log"; then ok; else bad "--list-ports"; show "$T/log"; fi
if xp "$T/log" -- --help && grep -q -- '--stage-lcores' "$T/log"; then ok; else bad "--help"; show "$T/log"; fi

ND=$BUILD/nodpdk/xio-pipeline
if [ -x "$ND" ]; then
	if ! nm "$ND" | grep -q rte_eal_init; then ok; else bad "nodpdk build links DPDK"; fi
	if "$ND" --help >"$T/log" 2>&1 && grep -q -- '--driver' "$T/log"; then ok; else bad "nodpdk --help"; show "$T/log"; fi
	XP_SAVE=$XP
	XP=$ND
	err "nodpdk --driver dpdk" 'built without DPDK: use --driver xdp --iface' --driver dpdk
	err "nodpdk --list-ports" 'built without DPDK' -- --list-ports
	XP=$XP_SAVE
else
	bad "no $ND"
fi

echo "dpdk: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
