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
# IPv6 is off everywhere, so the only frames on the path are the test's
# (tests/lib/netns.sh makes the namespaces, veths and the bridge).
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

# shellcheck source=../lib/netns.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/netns.sh"

live_setup() {
	netns_add "$STO" "$DPU" "$HST" &&
		netns_veth "$STO" xs0 "$DPU" xd0 &&
		netns_veth "$DPU" xd1 "$HST" xh0 &&
		netns_veth "$STO" xst "$STO" xsp &&
		netns_bridge "$STO" xsbr xs0 xsp &&
		netns_if "$STO" xst addr "$STO_IP/24" tx-off &&
		netns_if "$HST" xh0 addr "$HST_IP/24" tx-off gro &&
		netns_if "$STO" xs0 gro
}

live_cleanup() {
	local p
	for p in "${LIVE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${LIVE_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	netns_cleanup
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
# (default 20). LIVE_PYTHON: the python3 that runs the probe (stdlib only).
live_path_up() {
	in_ns "$HST" "${LIVE_PYTHON:-/usr/bin/python3}" - "$STO_IP" "${1:-20}" <<'PY'
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
