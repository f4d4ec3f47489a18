# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/live/lib.sh: the live test's three network namespaces (sourced, not
# run). A storage node, a DPU as a bump in the wire, a host:
#
#   storage                           DPU                      host
#   xst 10.77.0.1 =veth= xsp-[xsbr]-xs0 ==veth== xd0 [ ] xd1 ==veth== xh0 10.77.0.2
#
# The DPU's two interfaces have no addresses: only a pipeline on them joins
# the storage to the host. At the two ends (xst, xh0) TX checksum offload is
# off (a NIC fills checksums in before the wire; a veth would pass partial
# ones, which the pipeline rightly refuses to narrow). GRO is on where XDP
# redirects into a veth (xs0, xh0: it gives them the NAPI that needs).
# IPv6 is off everywhere, so the only frames on the path are the test's.
#
# The storage's wire port xs0 is a bridge port: the server's stack sits
# behind one more veth (xst -> xsp), where the kernel cuts the server's UDP
# GSO trains into datagrams, so that a tc program on xs0's egress (the
# fault injector) sees one datagram at a time, as the wire carries them.
#
# Names carry LIVE_TAG (default: the shell's pid): xlv-sto-TAG, xlv-dpu-TAG,
# xlv-hst-TAG. live_cleanup (trap it on EXIT) ends what live_bg started and
# deletes the namespaces.

LIVE_TAG=${LIVE_TAG:-$$}
STO=xlv-sto-$LIVE_TAG
DPU=xlv-dpu-$LIVE_TAG
HST=xlv-hst-$LIVE_TAG
STO_IP=10.77.0.1
HST_IP=10.77.0.2
LIVE_PIDS=()

in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

live_setup() {
	local ns ifc l
	for ns in "$STO" "$DPU" "$HST"; do
		ip netns add "$ns"
		in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		in_ns "$ns" ip link set lo up
	done
	ip link add xs0 netns "$STO" type veth peer name xd0 netns "$DPU"
	ip link add xd1 netns "$DPU" type veth peer name xh0 netns "$HST"
	ip link add xst netns "$STO" type veth peer name xsp netns "$STO"
	in_ns "$STO" ip link add xsbr type bridge
	for l in "$STO xs0" "$STO xst" "$STO xsp" "$STO xsbr" "$DPU xd0" "$DPU xd1" "$HST xh0"; do
		read -r ns ifc <<<"$l"
		in_ns "$ns" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1"
	done
	in_ns "$STO" ip link set xs0 master xsbr
	in_ns "$STO" ip link set xsp master xsbr
	for l in "$STO xs0" "$STO xst" "$STO xsp" "$STO xsbr" "$DPU xd0" "$DPU xd1" "$HST xh0"; do
		read -r ns ifc <<<"$l"
		in_ns "$ns" ip link set "$ifc" up
	done
	in_ns "$STO" ip addr add "$STO_IP/24" dev xst
	in_ns "$HST" ip addr add "$HST_IP/24" dev xh0
	in_ns "$STO" ethtool -K xst tx off >/dev/null
	in_ns "$HST" ethtool -K xh0 tx off >/dev/null
	in_ns "$STO" ethtool -K xs0 gro on >/dev/null
	in_ns "$HST" ethtool -K xh0 gro on >/dev/null
}

live_cleanup() {
	local p ns
	for p in "${LIVE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${LIVE_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	for ns in "$STO" "$DPU" "$HST"; do ip netns del "$ns" 2>/dev/null || true; done
}

# live_bg NS LOG CMD...: CMD in NS in the background, stdout and stderr to
# LOG; its pid (ip netns exec execs CMD, so signals reach it) in LIVE_PID.
live_bg() {
	local ns=$1 log=$2
	shift 2
	ip netns exec "$ns" "$@" >"$log" 2>&1 &
	LIVE_PID=$!
	LIVE_PIDS+=("$LIVE_PID")
}

# live_stop PID [SIGNAL] [SECONDS]: signals PID (default INT) and waits for it
# (default 20 s, then KILL); returns its exit status.
live_stop() {
	local pid=$1 sig=${2:-INT} secs=${3:-20} i rc=0
	kill "-$sig" "$pid" 2>/dev/null || true
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "live: pid $pid still running $secs s after SIG$sig, killed" >&2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" || rc=$?
	return "$rc"
}

# live_flush_arp: the ends forget each other, so the next exchange starts
# with ARP across the DPU.
live_flush_arp() {
	in_ns "$STO" ip neigh flush dev xst
	in_ns "$HST" ip neigh flush dev xh0
}

# live_path_up [SECONDS]: until the host reaches the storage through the DPU
# and back (ARP first): a UDP datagram to port 7998, where nothing listens,
# answered by ICMP port unreachable; 1 if that does not happen in SECONDS
# (default 20).
live_path_up() {
	in_ns "$HST" /usr/bin/python3 - "$STO_IP" "${1:-20}" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.5)
s.connect((sys.argv[1], 7998))
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    s.send(b"xlv path probe")
    try:
        s.recv(64)
    except ConnectionRefusedError:
        sys.exit(0)
    except socket.timeout:
        pass
sys.exit(1)
PY
}

# live_udp_listening NS PORT [SECONDS]: until a UDP socket is bound to PORT in NS.
live_udp_listening() {
	local i
	for ((i = 0; i < ${3:-20} * 10; i++)); do
		[ -n "$(in_ns "$1" ss -Hlun "sport = :$2")" ] && return 0
		sleep 0.1
	done
	return 1
}
