#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/live/e2e.sh (make e2e): the whole system on real kernel networking.
# xio-server in a storage namespace (address validation on, its default:
# every server run must have served READs only with cookies it issued; the
# restarted server's new secret refuses the client's old cookie, which it
# renews), xio-pipeline --bidirectional in a DPU
# namespace as a bump in the wire, xio-fetch in a host namespace
# (tests/live/lib.sh draws the namespaces). Needs root; take
# /tmp/xio-live.lock around it (make e2e does).
#
# For each DPU driver (XDP kernel, XDP afxdp, DPDK on net_af_packet, DPDK on
# net_af_xdp): a 4 MiB INT32 token file (raw) and a Megatron int32 dataset
# (megatron) are fetched; the outputs must equal an independent narrowing
# (tests/live/live_data.py); every reply must be narrowed on the DPU (the
# client's replies_int32 0; the XIO datagrams the pipeline passed storage->host
# are the ones the client received); ARP, ICMP, the requests and other UDP
# must cross (the pipeline's per-direction reasons, a listener). Then, on XDP kernel, faults, each ending byte-exact: loss,
# duplication and reordering at the storage's egress (build/live/xio-fault,
# seeded), the DPU stopped with SIGINT in the middle of a paced read and
# started again 1.5 s later, the server restarted in the middle of a read,
# and out-of-range tokens that the pipeline's keep policy passes as INT32:
# the client's error by default, clamped with --overflow saturate.
# Last, jumbo frames: MTU 9000 on every link and xio-server --mtu 9000
# (2232 tokens a reply), a raw fetch through XDP kernel (whose multi-buffer
# frames the AF_XDP worker finishes) and DPDK net_af_packet, byte-exact.
#
# LIVE_DRIVERS="xdp-kernel ...", LIVE_FAULTS="loss ..." and
# LIVE_JUMBO="xdp-kernel dpdk-af_packet" choose what runs (default: all);
# LIVE_KEEP=1 keeps the work folder.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$here/../e2e/lib.sh"
. "$here/lib.sh"

BUILD=${BUILD:-build}
server=$BUILD/xio-server
fetch=$BUILD/xio-fetch
pipeline=$BUILD/xio-pipeline
fault=$BUILD/live/xio-fault
data=$here/live_data.py
drivers=${LIVE_DRIVERS-xdp-kernel xdp-afxdp dpdk-af_packet dpdk-af_xdp}
faults=${LIVE_FAULTS-loss dup reorder dpu-restart server-restart out-of-range}
jumbo=${LIVE_JUMBO-xdp-kernel dpdk-af_packet}
# The paced reads: 4 MiB at 0.01 Gbit/s of payload last about 3.5 s. The
# server paces whole UDP GSO sends (44 datagrams, 52 ms apart at this rate),
# and the client's adaptive timeout has a 10 ms floor: every gap between two
# sends times a chunk out, and each re-request queues more paced work at the
# server. The client gets the file exactly all the same, with a longer
# timeout ceiling and more tries than its defaults (2 s, 16: the DPU is also
# gone for 1.5 s plus its start); the re-requests and duplicates it needed are
# printed, not asserted.
rate=0.01
paced_fetch=(--timeout-ms 2000 --retries 16)
MTU=1500

if [ "$(id -u)" -ne 0 ]; then
	echo "e2e: needs root (network namespaces, XDP, tc)" >&2
	exit 1
fi
for b in "$server" "$fetch" "$pipeline" "$fault"; do
	[ -x "$b" ] || { echo "e2e: $b not built" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/xlv-e2e.XXXXXX)
root=$tmp/root
ref=$tmp/ref
out=$tmp/out
mkdir -p "$root" "$ref" "$out"
finish() {
	live_cleanup
	if [ -n "${LIVE_KEEP:-}" ]; then echo "e2e: work folder kept: $tmp"; else rm -rf "$tmp"; fi
}
trap finish EXIT

start=$SECONDS
/usr/bin/python3 "$data" make "$root"
/usr/bin/python3 "$data" narrow "$root/tokens.bin" "$ref/tokens.u16"
/usr/bin/python3 "$data" narrow "$root/oor.bin" "$ref/oor.u16" --saturate
/usr/bin/python3 "$data" megatron "$root/ds" "$ref/ds"
live_setup
echo "e2e: $STO ($STO_IP, xio-server) | $DPU (xio-pipeline --bidirectional) | $HST ($HST_IP, xio-fetch)"

# check WHAT COND...: COND run as a command; ok, or FAIL naming WHAT.
check() {
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}

# jv FILE FILTER: one value of a JSON file (jq): "null" when missing,
# "unreadable" without the file.
jv() { jq -r "$2" "$1" 2>/dev/null || echo "unreadable"; }

# jn FILE FILTER: a number of a JSON file, for arithmetic; if it is none, 0,
# and the run fails at the end (jn runs in a subshell: it leaves a mark).
jn() {
	local v
	v=$(jv "$1" "$2")
	if [[ "$v" =~ ^[0-9]+$ ]]; then
		echo "$v"
	else
		echo "$(basename "$1") $2 is $v" | tee -a "$tmp/not-numbers" >&2
		echo 0
	fi
}

# expect WHAT FILE FILTER OP VALUE: a JSON value compared with test(1)'s OP.
expect() {
	local what=$1 file=$2 filter=$3 op=$4 want=$5 got
	got=$(jv "$file" "$filter")
	if [[ "$got" =~ ^-?[0-9]+$ ]] && test "$got" "$op" "$want"; then
		ok
	else
		bad "$what: $(basename "$file") $filter is $got, expected $op $want"
	fi
}

same() { cmp -s "$1" "$2"; }

# --- the three programs -------------------------------------------------------

SERVER_PID=
# start_server [ARGS...]: xio-server on the storage, until its port is bound.
start_server() {
	live_bg "$STO" "$tmp/server.log" "$server" --root "$root" --bind "$STO_IP" \
		--stats-json "$tmp/server.json" "$@"
	SERVER_PID=$LIVE_PID
	live_udp_listening "$STO" 7910 || { show "$tmp/server.log"; echo "e2e: xio-server did not start" >&2; exit 1; }
}

# stop_server [NAME]: SIGTERM, exit status 0 and the stats JSON written
# (kept as $tmp/server-NAME.json).
stop_server() {
	local rc=0
	live_stop "$SERVER_PID" TERM || rc=$?
	check "xio-server exit status $rc after SIGTERM" [ "$rc" -eq 0 ]
	check "xio-server stats JSON after SIGTERM" jq -e '.requests and .datagrams' "$tmp/server.json" >/dev/null
	# address validation on (the default): every READ it served came with a cookie it issued
	check "xio-server validated addresses" jq -e '.cookies == true and
		(.requests_by_opcode.read_request == 0 or .cookies_issued >= 1)' "$tmp/server.json" >/dev/null
	[ -z "${1:-}" ] || cp "$tmp/server.json" "$tmp/server-$1.json"
}

# dpu_cmd DRIVER STATS: the DPU's command line for a driver.
dpu_cmd() {
	local eal="--no-huge --no-shconf --no-pci --lcores 0@0,1@1 -m 256" pmd=net_${1#dpdk-}
	case $1 in
	xdp-kernel | xdp-afxdp)
		echo "$pipeline --driver xdp --xdp-mode ${1#xdp-} --iface xd0 --egress xd1" \
			"--bidirectional --stats-json $2" ;;
	dpdk-af_packet | dpdk-af_xdp)
		# net_af_packet: a receive ring deep enough for the server's
		# trains (docs/operations.md), else half of them are dropped there
		local ring= mbuf=
		[ "$1" = dpdk-af_packet ] && ring=,framecnt=4096
		# jumbo: slots for MTU 9000 (+ 22 + 66, docs/operations.md), four
		# to a block (blocksz a multiple of framesz), mbufs to match
		if [ "$1" = dpdk-af_packet ] && [ "$MTU" -gt 1500 ]; then
			ring=,framesz=9216,blocksz=36864,framecnt=1024
			mbuf="--mbuf-size 9216"
		fi
		echo "$pipeline $eal --vdev ${pmd}0,iface=xd0$ring --vdev ${pmd}1,iface=xd1$ring" \
			"-- --driver dpdk --rx-port 0 --tx-port 1 --bidirectional $mbuf --stats-json $2" ;;
	esac
}

DPU_PID=
DPU_STATS=
# start_dpu DRIVER STATS: the pipeline between xd0 (storage) and xd1 (host),
# until the host reaches the storage through it.
start_dpu() {
	local log=$tmp/dpu-$1.log
	# shellcheck disable=SC2046
	live_bg "$DPU" "$log" $(dpu_cmd "$1" "$2")
	DPU_PID=$LIVE_PID
	DPU_STATS=$2
	if ! live_path_up 20; then
		bad "$1: no path storage <-> host through xio-pipeline"
		show "$log"
		return 1
	fi
}

# stop_dpu DRIVER: SIGINT, exit status 0 and the stats JSON written.
stop_dpu() {
	local rc=0
	live_stop "$DPU_PID" INT || rc=$?
	DPU_PID=
	if [ "$rc" -ne 0 ]; then
		bad "$1: xio-pipeline exit status $rc after SIGINT"
		show "$tmp/dpu-$1.log"
		return 1
	fi
	check "$1: xio-pipeline stats JSON with both directions" \
		jq -e '.directions.a_to_b and .directions.b_to_a' "$DPU_STATS" >/dev/null
}

# fetch NAME ARGS...: xio-fetch on the host; stats in $out/NAME.json, stderr
# in $out/NAME.err; returns its exit status.
fetch() {
	local name=$1
	shift
	in_ns "$HST" timeout 120 "$fetch" --server "$STO_IP" --quiet --stats-json "$out/$name.json" \
		"$@" 2>"$out/$name.err"
}

# fetch_ok NAME ARGS...: a fetch that must succeed.
fetch_ok() {
	local rc=0
	fetch "$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		bad "$1: xio-fetch exit status $rc: $(tail -n 3 "$out/$1.err")"
		return 1
	fi
	ok
}

# client_sum KEY NAMES...: the sum of a client stats key over fetches.
client_sum() {
	local key=$1 n s=0
	shift
	for n in "$@"; do s=$((s + $(jn "$out/$n.json" ".$key"))); done
	echo "$s"
}

# narrowed_all WHAT "STATS..." NAMES...: every reply the fetches NAMES got
# was narrowed on the DPU (the pipeline JSON files STATS, storage->host): no
# INT32 reply reached the client, every reply it placed was narrowed, and when
# it asked for nothing twice (no late answers after it closed), each XIO
# datagram the DPU passed to the host (narrowed, or not a READ_REPLY) is one
# the client received, and the reverse.
narrowed_all() {
	local what=$1 stats=$2 f narrowed=0 other=0 u16 dg rr
	shift 2
	for f in $stats; do
		narrowed=$((narrowed + $(jn "$f" .directions.a_to_b.reasons.narrowed)))
		other=$((other + $(jn "$f" .directions.a_to_b.reasons.not_reply)))
	done
	u16=$(client_sum replies_uint16 "$@")
	dg=$(client_sum datagrams "$@")
	rr=$(client_sum re_requests "$@")
	check "$what: client replies_int32 $(client_sum replies_int32 "$@"), expected 0" \
		[ "$(client_sum replies_int32 "$@")" -eq 0 ]
	check "$what: the client placed $u16 UINT16 replies, the pipeline narrowed $narrowed" \
		[ "$u16" -gt 0 -a "$narrowed" -ge "$u16" ]
	[ "$rr" -ne 0 ] ||
		check "$what: the pipeline passed $narrowed narrowed + $other other XIO datagrams to the host, the client received $dg" \
			[ "$((narrowed + other))" -eq "$dg" ]
}

# --- one DPU driver: the system working -------------------------------------

# other_udp WHAT: three UDP datagrams, not XIO, from the host to a listener
# on the storage: all three arrive unchanged.
other_udp() {
	local got
	live_bg "$STO" "$out/$1-other.txt" /usr/bin/python3 -c "
import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('$STO_IP', 7999))
print('ready', flush=True); s.settimeout(5)
print(' '.join(s.recv(100).decode() for i in range(3)))"
	wait_for "$out/$1-other.txt" ready
	in_ns "$HST" /usr/bin/python3 -c "
import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(3): s.sendto(b'not-xio-%d' % i, ('$STO_IP', 7999))"
	wait "$LIVE_PID" || true
	got=$(tail -n 1 "$out/$1-other.txt")
	check "$1: other UDP host->storage: got '$got'" [ "$got" = "not-xio-0 not-xio-1 not-xio-2" ]
}

run_driver() {
	local d=$1 st=$tmp/dpu-$1.json t0=$SECONDS lost=
	live_flush_arp
	start_dpu "$d" "$st" || { stop_dpu "$d" || true; return; }

	fetch_ok "$d-raw" tokens.bin --out "$out/$d-raw.u16" --format raw &&
		check "$d: raw output differs from the reference narrowing" same "$out/$d-raw.u16" "$ref/tokens.u16"
	fetch_ok "$d-mg" ds --out "$out/$d-mg" --format megatron &&
		check "$d: Megatron .bin differs from the reference" same "$out/$d-mg.bin" "$ref/ds.bin" &&
		check "$d: Megatron .idx differs from the reference" same "$out/$d-mg.idx" "$ref/ds.idx"
	other_udp "$d"
	stop_dpu "$d" || return

	narrowed_all "$d" "$st" "$d-raw" "$d-mg"
	expect "$d: ARP host->storage" "$st" .directions.b_to_a.reasons.not_ip -ge 1
	expect "$d: ARP storage->host" "$st" .directions.a_to_b.reasons.not_ip -ge 1
	expect "$d: ICMP storage->host" "$st" .directions.a_to_b.reasons.not_udp -ge 1
	expect "$d: requests host->storage" "$st" .directions.b_to_a.reasons.not_reply -ge 2
	expect "$d: other UDP host->storage" "$st" .directions.b_to_a.reasons.other_port -ge 3
	expect "$d: nothing narrowed host->storage" "$st" .directions.b_to_a.reasons.narrowed -eq 0
	expect "$d: dropped" "$st" .dropped_packets -eq 0
	case $d in xdp-*) lost="AF_XDP lost $(jv "$st" .afxdp_lost)" ;; esac
	# DPDK: what the ports themselves lost (ethdev counters), printed next
	# to the re-requests, not asserted
	case $d in dpdk-*)
		lost="ports imissed $(jv "$st" '.ports["0"].imissed')/$(jv "$st" '.ports["1"].imissed')"
		lost+=" rx_nombuf $(jv "$st" '.ports["0"].rx_nombuf')/$(jv "$st" '.ports["1"].rx_nombuf')"
		lost+=" oerrors $(jv "$st" '.ports["0"].oerrors')/$(jv "$st" '.ports["1"].oerrors')" ;;
	esac
	# frames the kernel could not hand to AF_XDP (its ring full while the
	# worker shares two CPUs with a server sending at full speed) are
	# counted, and the client asks for them again: not asserted 0 here
	case $d in xdp-*)
		expect "$d: AF_XDP no socket" "$st" .afxdp_no_socket -eq 0
		expect "$d: AF_XDP lost, counted" "$st" .afxdp_lost -ge 0 ;;
	esac
	echo "e2e: $d: $(jv "$st" .directions.a_to_b.reasons.narrowed) replies narrowed," \
		"$(jv "$st" .directions.b_to_a.rx_packets) frames host->storage," \
		"$(client_sum re_requests "$d-raw" "$d-mg") re-requests${lost:+, $lost}, $((SECONDS - t0)) s"
}

# --- faults, on XDP kernel ------------------------------------------------------

# with_fault NAME XIO-FAULT-ARGS...: the fault program on the storage's
# egress, the DPU up, a raw fetch of tokens.bin, both stopped; exact output.
with_fault() {
	local name=$1 st=$tmp/dpu-$1.json fj=$out/$1-fault.json fpid rc=0
	shift
	live_bg "$STO" "$tmp/fault-$name.log" "$fault" --dev xs0 --stats-json "$fj" "$@"
	fpid=$LIVE_PID
	wait_for "$tmp/fault-$name.log" "attached" || { bad "$name: xio-fault did not start"; show "$tmp/fault-$name.log"; return 1; }
	start_dpu xdp-kernel "$st" || { stop_dpu xdp-kernel || true; live_stop "$fpid" INT || true; return 1; }
	cp "$tmp/dpu-xdp-kernel.log" "$tmp/dpu-$name.log"
	fetch_ok "$name" tokens.bin --out "$out/$name.u16" &&
		check "$name: output differs from the reference narrowing" same "$out/$name.u16" "$ref/tokens.u16"
	stop_dpu xdp-kernel || true
	live_stop "$fpid" INT || rc=$?
	check "$name: xio-fault exit status $rc" [ "$rc" -eq 0 ]
	expect "$name: injector errors" "$fj" .errors -eq 0
	narrowed_all "$name" "$st" "$name"
	echo "e2e: $name: $(tail -n 1 "$tmp/fault-$name.log" | sed 's/^xio-fault: //');" \
		"client: $(jq -c '{re_requests, duplicates, datagrams}' "$out/$name.json")"
}

fault_loss() {
	with_fault loss --seed 3 --loss 0.02 --max-loss 40 || return
	expect "loss: datagrams dropped" "$out/loss-fault.json" .dropped -ge 10
	expect "loss: client re-requests" "$out/loss.json" .re_requests -ge 1
}

fault_dup() {
	with_fault dup --seed 4 --dup 0.02 --max-dup 40 || return
	local dups
	dups=$(jn "$out/dup-fault.json" .duplicated)
	check "dup: duplicated $dups, expected >= 10" [ "$dups" -ge 10 ]
	expect "dup: client duplicates" "$out/dup.json" .duplicates -ge "$dups"
}

fault_reorder() {
	with_fault reorder --seed 5 --reorder 0.03 --max-reorder 40 || return
	expect "reorder: datagrams reordered" "$out/reorder-fault.json" .released -ge 10
}

# paced_read NAME ACTION [FETCH OPTIONS]: a raw fetch from a paced server in
# the background; ACTION runs 1.2 s into it; exact output.
paced_read() {
	local name=$1 action=$2 fpid rc=0
	shift 2
	stop_server
	start_server --rate "$rate"
	start_dpu xdp-kernel "$tmp/dpu-$name-1.json" || return 1
	live_bg "$HST" "$out/$name.err" timeout 120 "$fetch" --server "$STO_IP" --quiet \
		--stats-json "$out/$name.json" "${paced_fetch[@]}" "$@" tokens.bin --out "$out/$name.u16"
	fpid=$LIVE_PID
	sleep 1.2
	"$action" "$name"
	wait "$fpid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		bad "$name: xio-fetch exit status $rc: $(tail -n 3 "$out/$name.err")"
	else
		check "$name: output differs from the reference narrowing" same "$out/$name.u16" "$ref/tokens.u16"
		expect "$name: client re-requests" "$out/$name.json" .re_requests -ge 1
	fi
	stop_dpu xdp-kernel || true
	stop_server "$name-last"
	start_server
	echo "e2e: $name: client: $(jq -c '{re_requests, duplicates, datagrams, elapsed_s}' "$out/$name.json" 2>/dev/null)"
}

# The DPU goes (SIGINT: it must exit 0 with its stats) and comes back 1.5 s
# later; the read must go on through the new one.
dpu_bounce() {
	stop_dpu xdp-kernel || true
	cp "$tmp/dpu-xdp-kernel.log" "$tmp/dpu-$1-1.log"
	sleep 1.5
	start_dpu xdp-kernel "$tmp/dpu-$1-2.json" || true
}

# The server goes (SIGTERM) and comes back 1 s later; the read must need it.
server_bounce() {
	stop_server "$1-first"
	sleep 1
	start_server --rate "$rate"
}

fault_dpu_restart() {
	paced_read dpu-restart dpu_bounce
	[ -f "$out/dpu-restart.json" ] || return 0
	narrowed_all dpu-restart "$tmp/dpu-dpu-restart-1.json $tmp/dpu-dpu-restart-2.json" dpu-restart
	expect "dpu-restart: replies narrowed by the first DPU" "$tmp/dpu-dpu-restart-1.json" \
		.directions.a_to_b.reasons.narrowed -ge 1
	expect "dpu-restart: replies narrowed by the DPU started again" "$tmp/dpu-dpu-restart-2.json" \
		.directions.a_to_b.reasons.narrowed -ge 1
}

# xio-server finishes every READ answer of the batch in hand when it stops:
# with the default chunk and window the first requests (a congestion window
# of 2 MiB a flow) ask for the whole file at once, and the first server would
# send all of it. Two chunks of 256 KiB a flow leave most of the file to the
# server started again, and its new secret refuses the client's cookie.
fault_server_restart() {
	paced_read server-restart server_bounce --window 2 --chunk 65536
	[ -f "$out/server-restart.json" ] || return 0
	narrowed_all server-restart "$tmp/dpu-server-restart-1.json" server-restart
	expect "server-restart: the first server answered" "$tmp/server-server-restart-first.json" \
		.answers_by_opcode.read_reply -ge 1
	expect "server-restart: the server started again answered" "$tmp/server-server-restart-last.json" \
		.answers_by_opcode.read_reply -ge 1
	expect "server-restart: the new secret refused the old cookie" \
		"$tmp/server-server-restart-last.json" .errors_by_code.cookie -ge 1
	expect "server-restart: the client renewed its cookie" "$out/server-restart.json" \
		.cookie_refreshes -ge 1
}

# Out of range: the pipeline (keep) passes those replies as INT32; the client
# refuses them by default, naming a token, and clamps them with saturate.
fault_out_of_range() {
	local st=$tmp/dpu-oor.json rc=0 named=0 i v
	start_dpu xdp-kernel "$st" || return 1
	fetch oor-error oor.bin --out "$out/oor-error.u16" || rc=$?
	check "out-of-range: xio-fetch exit status $rc, expected 1" [ "$rc" -eq 1 ]
	while read -r i v; do
		grep -q -- "$i" "$out/oor-error.err" && grep -q -- "$v" "$out/oor-error.err" && named=1
	done <"$root/oor.txt"
	check "out-of-range: the error does not name a bad token's index and value: $(head -n 2 "$out/oor-error.err")" \
		[ "$named" -eq 1 ]
	check "out-of-range: an output was left behind" [ ! -e "$out/oor-error.u16" ]
	fetch_ok oor-saturate oor.bin --out "$out/oor-saturate.u16" --overflow saturate &&
		check "out-of-range: saturated output differs from the reference" same "$out/oor-saturate.u16" "$ref/oor.u16"
	stop_dpu xdp-kernel || return
	local kept nbad
	nbad=$(wc -l <"$root/oor.txt")
	kept=$(jn "$st" .directions.a_to_b.reasons.out_of_range)
	# one datagram per bad token in each fetch, at least, and the saturating
	# client got exactly its own
	check "out-of-range: the pipeline kept $kept replies, expected >= $((nbad + 1))" [ "$kept" -gt "$nbad" ]
	expect "out-of-range: INT32 replies to the saturating client" "$out/oor-saturate.json" .replies_int32 -eq "$nbad"
	echo "e2e: out-of-range: $kept replies kept as INT32; $(head -n 1 "$out/oor-error.err")"
}

# --- jumbo frames -------------------------------------------------------------

# jumbo_links: MTU 9000 on every link of the path.
jumbo_links() {
	local ns_if
	for ns_if in "$STO xst" "$STO xsp" "$STO xs0" "$STO xsbr" "$DPU xd0" "$DPU xd1" "$HST xh0"; do
		# shellcheck disable=SC2086
		set -- $ns_if
		in_ns "$1" ip link set dev "$2" mtu 9000 || return 1
	done
	MTU=9000
}

# run_jumbo DRIVER: a raw fetch of tokens.bin in 2232-token replies.
run_jumbo() {
	local d=$1 name=jumbo-$1 st=$tmp/dpu-jumbo-$1.json per
	live_flush_arp
	start_dpu "$d" "$st" || { stop_dpu "$d" || true; return; }
	fetch_ok "$name" tokens.bin --out "$out/$name.u16" &&
		check "$name: output differs from the reference narrowing" same "$out/$name.u16" "$ref/tokens.u16"
	stop_dpu "$d" || return
	narrowed_all "$name" "$st" "$name"
	per=$(($(jn "$st" .tokens_narrowed) / ($(jn "$st" .narrowed_packets) + 1)))
	check "$name: $per tokens a narrowed reply, expected jumbo (> 2000)" [ "$per" -gt 2000 ]
	echo "e2e: $name: $(jv "$st" .narrowed_packets) replies narrowed, $per tokens each," \
		"client: $(jq -c '{re_requests, datagrams}' "$out/$name.json")"
}

start_server
for d in $drivers; do
	run_driver "$d"
done
for f in $faults; do
	"fault_${f//-/_}"
done
if [ -n "$jumbo" ]; then
	stop_server
	if jumbo_links; then
		start_server --mtu 9000
		for d in $jumbo; do
			run_jumbo "$d"
		done
	else
		bad "jumbo: cannot set MTU 9000 on the links"
		start_server
	fi
fi
stop_server
check "values that should be numbers: $(cat "$tmp/not-numbers" 2>/dev/null)" [ ! -e "$tmp/not-numbers" ]

echo "e2e: $pass checks passed, $fail failed, $((SECONDS - start)) s"
[ "$fail" -eq 0 ]
