#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# netns.sh: xio-server between two network namespaces over a veth pair
# (names xsv-*; run it under `flock /tmp/xio-live.lock`). The server's veth
# sends without TX checksum offload, as the project's live tests do.
#  - --allow 10.231.0.2/32,fd31::2/128: those two addresses are served over
#    IPv4 and IPv6 (360 and 352 tokens a datagram, CRC checked), the same
#    host's other addresses 10.231.0.3 and fd31::3 get no answer at all;
#    the stats JSON equals the clients' tally, refused counted;
#  - the default list (loopback and the server's own subnets): a client on
#    the server's subnet is served, one on another subnet (routed) is not;
#  - --mtu above the interface's: the kernel refuses the sends (no IP
#    fragments leave): no answer, the reason on stderr, every datagram of the
#    train counted in send_errors.
#  - sends the server's veth drops (build/live/xio-fault at its tc egress:
#    the kernel's ENOBUFS, which without IP_RECVERR it would report as sent
#    and count only in Udp SndbufErrors): the first three drops are retried
#    (send_retries 3, the client gets every byte), a drop on every try is
#    counted (send_errors_by_reason.nobufs), each try once in the
#    namespace's SndbufErrors.
#
#   netns.sh BUILD
set -u
build=$(cd "${1:?usage: netns.sh BUILD}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
srv=$build/xio-server
fault=$build/live/xio-fault
py=/usr/bin/python3
ns_s=xsv-srv ns_c=xsv-cli
port=21010
work=$(mktemp -d /tmp/xsv-netns.XXXXXX)
. "$here/lib.sh"

cleanup() {
	kill_all
	ip netns del $ns_s 2>/dev/null
	ip netns del $ns_c 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

setup() {
	cleanup
	mkdir -p "$work"
	ip netns add $ns_s && ip netns add $ns_c &&
		ip link add xsv-s netns $ns_s type veth peer name xsv-c netns $ns_c &&
		ip -n $ns_s addr add 10.231.0.1/24 dev xsv-s &&
		ip -n $ns_s addr add fd31::1/64 dev xsv-s nodad &&
		ip -n $ns_c addr add 10.231.0.2/24 dev xsv-c &&
		ip -n $ns_c addr add 10.231.0.3/24 dev xsv-c &&
		ip -n $ns_c addr add 10.232.0.2/24 dev xsv-c &&
		ip -n $ns_c addr add fd31::2/64 dev xsv-c nodad &&
		ip -n $ns_c addr add fd31::3/64 dev xsv-c nodad &&
		ip -n $ns_s link set lo up && ip -n $ns_c link set lo up &&
		ip -n $ns_s link set xsv-s up && ip -n $ns_c link set xsv-c up &&
		ip -n $ns_s route add 10.232.0.0/24 via 10.231.0.2 &&
		ip netns exec $ns_s ethtool -K xsv-s tx off >/dev/null
}
if ! setup; then
	echo "FAIL: cannot set up namespaces $ns_s and $ns_c"
	exit 1
fi

root=$work/root
mkdir -p "$root"
head -c $((2 << 20)) /dev/urandom >"$root/tokens.bin"
client=(ip netns exec $ns_c "$py" "$here/xio_client.py" --port $port)
c4=("${client[@]}" --server 10.231.0.1)
c6=("${client[@]}" --server fd31::1)
server=(ip netns exec $ns_s "$srv" --root "$root" --port $port)

# --- an explicit list ---------------------------------------------------------
start list "${server[@]}" --allow 10.231.0.2/32,fd31::2/128 --stats-json "$work/list.json"
run "IPv4 client in the list" "${c4[@]}" --source 10.231.0.2 --tally "$work/t1" read \
	--path tokens.bin --compare "$root/tokens.bin" --crc --expect-per 360
run "IPv6 client in the list" "${c6[@]}" --source fd31::2 --tally "$work/t2" read \
	--path tokens.bin --compare "$root/tokens.bin" --expect-per 352 --chunk 100000
run "IPv4 address outside the list" "${c4[@]}" --source 10.231.0.3 --tally "$work/t3" \
	refused --count 40
run "IPv6 address outside the list" "${c6[@]}" --source fd31::3 --tally "$work/t4" \
	refused --count 40
stop "$pid" list
run "stats JSON against the clients' tally" "${client[@]}" check --stats "$work/list.json" \
	"$work"/t[1-4]

# --- the default list ---------------------------------------------------------
start default "${server[@]}" --stats-json "$work/default.json"
if grep -q "10.231.0.0/24" "$work/default.err" && grep -q "fd31::/64" "$work/default.err" &&
	! grep -q "10.232.0.0" "$work/default.err"; then
	ok
else
	bad "default allow list"
fi
run "a client on the server's subnet" "${c4[@]}" --source 10.231.0.2 --tally "$work/d1" read \
	--path tokens.bin --compare "$root/tokens.bin" --count 300000
run "a client on another subnet" "${c4[@]}" --source 10.232.0.2 --tally "$work/d2" \
	refused --count 40
stop "$pid" default
run "default stats JSON" "${client[@]}" check --stats "$work/default.json" "$work/d1" "$work/d2"

# --- --mtu above the interface's MTU ------------------------------------------
ip -n $ns_s link set xsv-s mtu 1400
start mtu "${server[@]}" --mtu 1500 --stats-json "$work/mtu.json"
if "${c4[@]}" --source 10.231.0.2 --timeout 0.5 read --path tokens.bin \
	--compare "$root/tokens.bin" --count 1000 >"$work/step" 2>&1; then
	bad "datagrams above the interface's MTU arrived"
else
	ok
fi
stop "$pid" mtu
# 1000 tokens: 3 datagrams refused; the STAT_REPLY went
if grep -q "Message too long: is --mtu above the interface's MTU" "$work/mtu.err" &&
	"$py" -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(not (j["send_errors"] == 3 and j["datagrams"] == 1 and j["answers"] == 2))' \
		"$work/mtu.json"; then
	ok
else
	bad "--mtu above the interface's: not reported"
	show "$work/mtu.err"
	show "$work/mtu.json"
fi

# --- sends the device refuses (ENOBUFS) ---------------------------------------
ip -n $ns_s link set xsv-s mtu 1500
# sndbuf_errors: the server namespace's Udp SndbufErrors
sndbuf_errors() {
	ip netns exec $ns_s awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) col[$i] = i; h = 1 }
		else print $col["SndbufErrors"] }' /proc/net/snmp
}
# nobufs NAME FAULT-ARGS: xio-fault on the server's egress, the server, one
# client step; leaves $work/NAME.json, $work/NAME-fault.json, $snmp (the
# SndbufErrors the run added) and $client_rc.
nobufs() {
	local name=$1 fpid before
	shift
	ip netns exec $ns_s "$fault" --dev xsv-s --port $port --stats-json "$work/$name-fault.json" \
		"$@" >"$work/$name-fault.log" 2>&1 &
	fpid=$!
	pids+=("$fpid")
	wait_for "$work/$name-fault.log" attached || { bad "$name: xio-fault did not start"; show "$work/$name-fault.log"; return 1; }
	before=$(sndbuf_errors)
	start "$name" "${server[@]}" --stats-json "$work/$name.json"
	client_rc=0
	"${c4[@]}" --source 10.231.0.2 --timeout 1 read --path tokens.bin --compare "$root/tokens.bin" \
		--count 1000 >"$work/step" 2>&1 || client_rc=$?
	stop "$pid" "$name"
	snmp=$(($(sndbuf_errors) - before))
	kill -INT "$fpid"
	wait "$fpid"
}
# jeq FILE EXPR: a Python expression over the JSON j is true
jeq() { "$py" -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(not eval(sys.argv[2]))' "$1" "$2"; }

# the first three tries of the STAT_REPLY dropped, the fourth goes
if nobufs retried --seed 1 --loss 1 --max-loss 3 && [ "$client_rc" -eq 0 ] &&
	jeq "$work/retried.json" 'j["send_retries"] == 3 and j["send_errors"] == 0 and j["datagrams"] == 4' &&
	jeq "$work/retried-fault.json" 'j["dropped"] == 3' && [ "$snmp" -eq 3 ]; then
	ok
else
	bad "dropped sends not retried (client exit $client_rc, SndbufErrors +$snmp)"
	show "$work/step"
	show "$work/retried.json"
fi
# every try dropped: the STAT_REPLY given up after XIO_SRV_SEND_TRIES (8)
if nobufs refused --seed 1 --loss 1 && [ "$client_rc" -ne 0 ] &&
	jeq "$work/refused.json" 'j["send_retries"] == 7 and j["send_errors"] == 1 and j["send_errors_by_reason"]["nobufs"] == 1 and j["datagrams"] == 0' &&
	jeq "$work/refused-fault.json" 'j["dropped"] == 8' && [ "$snmp" -eq 8 ] &&
	grep -q "No buffer space available: the device or its queue kept dropping" "$work/refused.err"; then
	ok
else
	bad "sends dropped on every try not counted (client exit $client_rc, SndbufErrors +$snmp)"
	show "$work/refused.err"
	show "$work/refused.json"
fi

echo "server netns: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
