#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# xio-pipeline on DPDK over ordinary Linux interfaces (make dpdk-live, part
# of make test; root; run it under flock /tmp/xio-live.lock): three network
# namespaces made here, sender --veth--> DUT --veth--> receiver, and
# xio-pipeline --bidirectional in the DUT on its two veths through
# net_af_packet, then net_af_xdp, in rtc and pipeline modes, on one worker
# lcore (which polls both directions, and in pipeline mode all six stages:
# the other CPU stays free for tcpreplay and tcpdump). A capture goes
# in from each end at once (tcpreplay); what each end receives (tcpdump -Q
# in) must equal what the reference model (xio-ref-model) says, frame for
# frame, and each direction's counters its counters. The captures are the
# conformance vectors less what a PMD cannot carry, which the run is told
# about at start: IPv4 fragments and 802.1ad tags through net_af_packet,
# frames over the MTU that net_af_xdp's one-page buffers allow. Then the
# configurations that cannot work must be refused with one clear line.
set -u
BUILD=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VECTORS=${XIO_VECTORS:-$ROOT/../shared/vectors}
XP=${XIO_PIPELINE:-$BUILD/xio-pipeline}
CMP=$BUILD/tests/pcap-cmp
REF=$BUILD/hostile/xio-ref-model
PPS=${XPL_PPS:-1000}
. "$ROOT/tests/e2e/lib.sh"
. "$ROOT/tests/lib/netns.sh"

netns_need_root dpdk-live "network namespaces" || exit 1
S=xpl-$$-s D=xpl-$$-d R=xpl-$$-r
T=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	netns_cleanup
	rm -rf "$T"
}
trap cleanup EXIT

# setup MTU: the namespaces and veths (anew), all at MTU; GRO on at both
# ends, and TX checksum offload off.
setup() {
	netns_cleanup
	netns_add "$S" "$D" "$R" &&
		netns_veth "$S" xpls0 "$D" xpld0 "$MTU" &&
		netns_veth "$D" xpld1 "$R" xplr0 "$MTU" &&
		netns_if "$S" xpls0 gro tx-off &&
		netns_if "$R" xplr0 gro tx-off || exit 1
}

# carry VECTOR OUT MAXLEN [nofrag]: OUT/in.pcap is the vector's capture less
# frames over MAXLEN bytes (and, with nofrag, IPv4 fragments and frames
# whose first tag is 802.1ad); OUT/expected.* what the reference model says
# must come out of it.
carry() {
	local v=$1 out=$2
	mkdir -p "$out"
	python3 - "$v/in.pcap" "$out/in.pcap" "$3" "${4:-}" <<'EOF' || return 1
import struct, sys
src, dst, maxlen, nofrag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "nofrag"
d = open(src, "rb").read()
e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"

def afpacket_changes(f):
    et, off = struct.unpack("!H", f[12:14])[0], 14
    if et == 0x88A8:
        return True
    while et in (0x8100, 0x88A8) and len(f) >= off + 4:
        et, off = struct.unpack("!H", f[off + 2:off + 4])[0], off + 4
    return et == 0x0800 and len(f) >= off + 8 and struct.unpack("!H", f[off + 6:off + 8])[0] & 0x3FFF != 0

out, off = [d[:24]], 24
while off + 16 <= len(d):
    n = struct.unpack(e + "I", d[off + 8:off + 12])[0]
    f = d[off + 16:off + 16 + n]
    if n <= maxlen and not (nofrag and afpacket_changes(f)):
        out.append(d[off:off + 16 + n])
    off += 16 + n
open(dst, "wb").write(b"".join(out))
EOF
	# shellcheck disable=SC2046
	"$REF" --in "$out/in.pcap" --out "$out/expected.pcap" --json "$out/expected.json" \
		$(bash "$ROOT/tests/vector-args.sh" "$v")
}

# live_check JSON AB BA LEAKS: the directions' counters equal AB's and BA's
# expected.json, the totals their sum, the accounting holds, leaked_mbufs is
# LEAKS (0, or null where the PMD keeps mbufs).
live_check() {
	python3 - "$@" >"$T/ldiff" 2>&1 <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
bad = []
exp = {n: json.load(open(p + "/expected.json")) for n, p in (("a_to_b", sys.argv[2]), ("b_to_a", sys.argv[3]))}
for n, e in exp.items():
    d = j.get("directions", {}).get(n, {})
    bad += [f"directions.{n}.{k}: {d.get(k)!r}, expected {v!r}" for k, v in e.items() if d.get(k) != v]
for k in exp["a_to_b"]:
    if k != "reasons" and j[k] != exp["a_to_b"][k] + exp["b_to_a"][k]:
        bad.append(f"{k}: {j[k]}, expected the sum of both directions")
if j["rx_packets"] != j["tx_packets"] + j["dropped_packets"]:
    bad.append("rx_packets != tx_packets + dropped_packets")
if json.dumps(j.get("leaked_mbufs")) != sys.argv[4]:
    bad.append(f"leaked_mbufs: {j.get('leaked_mbufs')}, expected {sys.argv[4]}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
}

# live DESC AB BA LEAKS EAL-ARGS... -- OPTIONS...: AB's capture from the
# sender, BA's from the receiver, at once, through xio-pipeline
# --bidirectional in the DUT.
live() {
	local desc=$1 ab=$2 ba=$3 leaks=$4 eal=() td1 td2 pp s1 rc=0
	shift 4
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do eal+=("$1"); shift; done
	shift
	rm -f "$T"/got-*.pcap "$T/live.json" "$T"/td*.log
	# (ip netns exec, not in_ns: $! must be tcpdump itself, for kill -INT)
	ip netns exec "$R" tcpdump -Q in -i xplr0 -n -s 0 -B 65536 -U --immediate-mode -w "$T/got-ab.pcap" 2>"$T/td1.log" &
	td1=$!
	ip netns exec "$S" tcpdump -Q in -i xpls0 -n -s 0 -B 65536 -U --immediate-mode -w "$T/got-ba.pcap" 2>"$T/td2.log" &
	td2=$!
	pids=("$td1" "$td2")
	wait_for "$T/td1.log" "listening on" && wait_for "$T/td2.log" "listening on" ||
		{ bad "$desc: tcpdump did not start"; return; }
	ip netns exec "$D" timeout -k 5 60 "$XP" --no-huge --no-shconf --no-pci --lcores '0@0,1@1' \
		-m 256 "${eal[@]}" -- --tx-port 1 --bidirectional --idle-exit 2000 \
		--stats-json "$T/live.json" "$@" >"$T/log" 2>&1 &
	pp=$!
	pids+=("$pp")
	if wait_for "$T/log" '^XIO: forwarding:'; then
		in_ns "$S" tcpreplay -q -i xpls0 --pps "$PPS" "$ab/in.pcap" >"$T/tr1.log" 2>&1 &
		s1=$!
		in_ns "$R" tcpreplay -q -i xplr0 --pps "$PPS" "$ba/in.pcap" >"$T/tr2.log" 2>&1 ||
			{ bad "$desc: tcpreplay from the receiver"; show "$T/tr2.log"; }
		wait "$s1" || { bad "$desc: tcpreplay from the sender"; show "$T/tr1.log"; }
	fi
	wait "$pp" || rc=$?
	sleep 0.3
	kill -INT "$td1" "$td2" 2>/dev/null
	wait "$td1" "$td2" 2>/dev/null
	pids=()
	if [ "$rc" -ne 0 ]; then bad "$desc: exit $rc"; show "$T/log"; return; fi
	ok
	if "$CMP" "$T/got-ab.pcap" "$ab/expected.pcap" >"$T/cmp" 2>&1; then ok; else bad "$desc: a_to_b frames"; show "$T/cmp"; fi
	if "$CMP" "$T/got-ba.pcap" "$ba/expected.pcap" >"$T/cmp" 2>&1; then ok; else bad "$desc: b_to_a frames"; show "$T/cmp"; fi
	if live_check "$T/live.json" "$ab" "$ba" "$leaks"; then ok; else bad "$desc: counters"; show "$T/ldiff"; show "$T/log"; fi
}

# ring_overflow: every frame that reaches a net_af_packet port is received
# or counted. The DUT is stopped (SIGSTOP) while a burst comes in: the
# receive ring (framecnt=16) holds 16 frames and the kernel drops the rest,
# which DPDK 22.11's PMD does not count; xio-pipeline reads them off the
# PMD's socket. Once it has forwarded the ring's frames (xpld1's TX counter
# stops moving) it is stopped with SIGINT. Port 0's imissed must be the
# frames the veth delivered less the frames the PMD handed over, in the
# stats JSON, the stats line and the exit log; port 1 received nothing and
# missed nothing.
ring_overflow() {
	local desc="af_packet ring overflow" cap=$T/afp-ab/in.pcap loops=8 pp xp n0 n1 t t1 i sent rc=0
	rm -f "$T/ovf.json"
	ip netns exec "$D" timeout -k 5 60 "$XP" --no-huge --no-shconf --no-pci --lcores '0@0,1@1' \
		-m 256 --vdev net_af_packet0,iface=xpld0,framesz=9216,blocksz=36864,framecnt=16 \
		"${AFP[@]:2:2}" -- --tx-port 1 --mbuf-size 9216 --stats-interval 0.1 \
		--stats-json "$T/ovf.json" >"$T/log" 2>&1 &
	pp=$!
	pids=("$pp")
	if ! wait_for "$T/log" '^XIO: forwarding:' || ! xp=$(pgrep -P "$pp"); then
		bad "$desc: did not start"; show "$T/log"; return
	fi
	n0=$(in_ns "$D" cat /sys/class/net/xpld0/statistics/rx_packets)
	kill -STOP "$xp"
	in_ns "$S" tcpreplay -q -i xpls0 --topspeed --loop "$loops" "$cap" >"$T/tr1.log" 2>&1 ||
		{ bad "$desc: tcpreplay"; show "$T/tr1.log"; }
	n1=$(in_ns "$D" cat /sys/class/net/xpld0/statistics/rx_packets)
	kill -CONT "$xp"
	t=0
	for ((i = 0; i < 100; i++)); do
		sleep 0.05
		t1=$(in_ns "$D" cat /sys/class/net/xpld1/statistics/tx_packets)
		[ "$t1" -gt 0 ] && [ "$t1" -eq "$t" ] && break
		t=$t1
	done
	wait_for "$T/log" '\| port 0 imissed [1-9]' # a stats line since
	kill -INT "$xp"
	wait "$pp" || rc=$?
	pids=()
	sent=$(($(tcpdump -r "$cap" 2>/dev/null | wc -l) * loops))
	if [ "$rc" -ne 0 ]; then bad "$desc: exit $rc"; show "$T/log"; return; fi
	python3 - "$T/ovf.json" "$T/log" "$sent" "$((n1 - n0))" >"$T/ldiff" 2>&1 <<'PY'
import json, re, sys
j, log, sent, came = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), int(sys.argv[3]), int(sys.argv[4])
p0, p1 = j["ports"]["0"], j["ports"]["1"]
bad = []
if came != sent:
    bad.append(f"xpld0 took {came} frames, {sent} sent")
if p0["imissed"] != came - p0["ipackets"] or p0["imissed"] == 0:
    bad.append(f"port 0: imissed {p0['imissed']}, ipackets {p0['ipackets']}, {came} frames came")
if p0["ipackets"] != j["rx_packets"] or j["rx_packets"] != j["tx_packets"] + j["dropped_packets"]:
    bad.append(f"port 0 ipackets {p0['ipackets']}, rx {j['rx_packets']}, tx {j['tx_packets']}")
if p1["imissed"] != 0 or p1["ipackets"] != 0:
    bad.append(f"port 1: imissed {p1['imissed']}, ipackets {p1['ipackets']}")
lines = re.findall(r"\| port 0 imissed (\d+) ", log)
if not lines or int(lines[-1]) != p0["imissed"]:
    bad.append(f"stats line: port 0 imissed {lines[-1:]}, JSON {p0['imissed']}")
want = f"port 0 (net_af_packet0 on xpld0): the kernel dropped {p0['imissed']} frame(s)"
if want not in log:
    bad.append(f"no exit line '{want}'")
print("\n".join(bad) or f"{came} frames came: {p0['ipackets']} received, {p0['imissed']} imissed")
sys.exit(1 if bad else 0)
PY
	if [ $? -eq 0 ]; then ok; echo "ok   $desc: $(cat "$T/ldiff")"; else bad "$desc"; show "$T/ldiff"; show "$T/log"; fi
}

# refused DESC REGEX EAL-ARGS... -- OPTIONS...: non-zero exit, a line
# matching REGEX, no forwarding.
refused() {
	local desc=$1 re=$2
	shift 2
	if in_ns "$D" timeout -k 5 60 "$XP" --no-huge --no-shconf --no-pci --lcores '0@0,1@1' -m 256 \
		"$@" --idle-exit 100 >"$T/log" 2>&1; then
		bad "$desc: exit 0"; show "$T/log"
	elif grep -Eq -- "$re" "$T/log" && ! grep -q '^XIO: forwarding:' "$T/log"; then ok
	else bad "$desc: no line matching '$re'"; show "$T/log"; fi
}

ab=$VECTORS/basic-keep ba=$VECTORS/reply-srcport
for x in "$ab" "$ba" "$XP" "$CMP" "$REF"; do
	[ -e "$x" ] || { echo "dpdk-live: $x is missing" >&2; exit 1; }
done

# --- net_af_packet, jumbo frames: PACKET_MMAP slots of 9216 bytes --------
MTU=9000
setup
carry "$ab" "$T/afp-ab" 9018 nofrag && carry "$ba" "$T/afp-ba" 9018 nofrag || bad "af_packet captures"
AFP=(--vdev net_af_packet0,iface=xpld0,framesz=9216,blocksz=36864
	--vdev net_af_packet1,iface=xpld1,framesz=9216,blocksz=36864)
live "af_packet rtc" "$T/afp-ab" "$T/afp-ba" 0 "${AFP[@]}" -- --mbuf-size 9216
grep -q "the kernel reassembles IPv4 fragments" "$T/log" && ok || bad "af_packet: no word on fragments"
live "af_packet pipeline" "$T/afp-ba" "$T/afp-ab" 0 "${AFP[@]}" -- --mbuf-size 9216 --mode pipeline
ring_overflow
refused "af_packet default framesz" 'framesz=2048 holds 1982 .*give the vdev framesz=9216,blocksz=36864 and --mbuf-size 9184' \
	--vdev net_af_packet0,iface=xpld0 --vdev net_af_packet1,iface=xpld1 -- --tx-port 1 --bidirectional
refused "af_packet small mbufs" 'framesz=9216 needs --mbuf-size 9184' "${AFP[@]}" -- --tx-port 1 --bidirectional
refused "af_packet blocksz" 'blocksz=16384 is not a multiple of framesz=9216.*give the vdev blocksz=36864' \
	--vdev net_af_packet0,iface=xpld0,framesz=9216,blocksz=16384 \
	--vdev net_af_packet1,iface=xpld1,framesz=9216,blocksz=16384 -- --tx-port 1 --bidirectional --mbuf-size 9216
refused "af_packet queues" 'has 1 RX / 1 TX queues, 2 / 2 needed .*qpairs=2' "${AFP[@]}" -- \
	--tx-port 1 --bidirectional --rxq 2 --mbuf-size 9216

# --- net_af_xdp: a frame and XDP's headroom in one page -------------------
MTU=3300
setup
carry "$ab" "$T/afx-ab" 3314 && carry "$ba" "$T/afx-ba" 3314 || bad "af_xdp captures"
AFX=(--vdev net_af_xdp0,iface=xpld0 --vdev net_af_xdp1,iface=xpld1)
live "af_xdp rtc" "$T/afx-ab" "$T/afx-ba" null "${AFX[@]}" -- --mbuf-size 3584
live "af_xdp pipeline" "$T/afx-ba" "$T/afx-ab" null "${AFX[@]}" -- --mbuf-size 3584 --mode pipeline
refused "af_xdp default mbufs" '2048-byte mbufs take 1792 .*--mbuf-size 3578' "${AFX[@]}" -- \
	--tx-port 1 --bidirectional
refused "af_xdp mbufs over a page" 'AF_XDP UMEM chunk is at most a page' "${AFX[@]}" -- \
	--tx-port 1 --bidirectional --mbuf-size 4000
refused "af_xdp sends one mbuf a frame" 'sends only frames in one mbuf' \
	--vdev "net_pcap0,rx_pcap=$ab/in.pcap" --vdev net_af_xdp1,iface=xpld1 -- --tx-port 1 --mbuf-size 3584

echo "dpdk-live: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
