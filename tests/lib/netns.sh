# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/lib/netns.sh: network namespaces, veth pairs and bridges for the
# live tests and benches (sourced, not run; make xdp-e2e, dpdk-live, e2e,
# bench-xdp, bench-live). Every namespace made here has IPv6 off, so the
# only frames on a path are the script's own (interfaces made in it later
# take that default), and lo up. The names made are recorded:
# netns_cleanup deletes those and only those, so a name another run holds is
# refused, never taken over or deleted. Call netns_cleanup from the script's
# EXIT trap, after ending what runs in the namespaces.
#
#   netns_need_root WHO WHY       "WHO: needs root (WHY)" and status 1 unless root
#   netns_add NS...               new namespaces
#   netns_veth NS1 IF1 NS2 IF2 [MTU]
#                                 a veth pair IF1 (in NS1) -- IF2 (in NS2), both up
#   netns_bridge NS BR IF...      a bridge BR in NS over IF..., up
#   netns_if NS IF SETTING...     addr CIDR, tx-off (TX checksum offload off, for
#                                 a sending end), gro (for an end XDP redirects
#                                 into), threaded (its NAPI in a kernel thread)
#   in_ns NS CMD...               CMD in NS
#   netns_cleanup                 deletes the namespaces made here
# Each returns non-zero after one line on stderr saying what failed.

NETNS_MADE=()

netns_err() { echo "netns: $*" >&2; return 1; }

netns_need_root() {
	[ "$EUID" -eq 0 ] && return 0
	echo "$1: needs root ($2)" >&2
	return 1
}

in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

netns_add() {
	local ns out
	[ "$EUID" -eq 0 ] || netns_err "needs root to make network namespaces" || return
	for ns in "$@"; do
		[ ! -e "/run/netns/$ns" ] ||
			netns_err "namespace $ns exists already (another run's? ip netns del $ns)" || return
		out=$(ip netns add "$ns" 2>&1) || netns_err "cannot make namespace $ns: $out" || return
		NETNS_MADE+=("$ns")
		in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 &&
			in_ns "$ns" ip link set lo up || netns_err "cannot set namespace $ns up" || return
	done
}

netns_veth() {
	local out
	local q=()
	# NETNS_VETH_QUEUES=N: N queues each way on both ends (a NIC's RSS queues)
	[ -z "${NETNS_VETH_QUEUES:-}" ] || q=(numtxqueues "$NETNS_VETH_QUEUES" numrxqueues "$NETNS_VETH_QUEUES")
	out=$(ip link add "$2" netns "$1" "${q[@]}" type veth peer name "$4" netns "$3" "${q[@]}" 2>&1) ||
		netns_err "cannot make veth $1/$2 -- $3/$4: $out" || return
	in_ns "$1" ip link set "$2" ${5:+mtu "$5"} up || netns_err "cannot set $1/$2 up" || return
	in_ns "$3" ip link set "$4" ${5:+mtu "$5"} up || netns_err "cannot set $3/$4 up"
}

netns_bridge() {
	local ns=$1 br=$2 ifc out
	shift 2
	out=$(in_ns "$ns" ip link add "$br" type bridge 2>&1) ||
		netns_err "cannot make bridge $ns/$br: $out" || return
	for ifc in "$@"; do
		in_ns "$ns" ip link set "$ifc" master "$br" || netns_err "cannot add $ifc to $ns/$br" || return
	done
	in_ns "$ns" ip link set "$br" up || netns_err "cannot set $ns/$br up"
}

netns_if() {
	local ns=$1 ifc=$2 feat=() addr="" threaded=""
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		addr) addr=$2; shift ;;
		tx-off) feat+=(tx off) ;;
		gro) feat+=(gro on) ;;
		threaded) threaded=1 ;;
		*) netns_err "netns_if: unknown setting $1"; return ;;
		esac
		shift
	done
	# in this order: a veth has NAPI (which threaded needs) once GRO is on
	[ ${#feat[@]} -eq 0 ] || in_ns "$ns" ethtool -K "$ifc" "${feat[@]}" >/dev/null ||
		netns_err "cannot set ${feat[*]} on $ns/$ifc" || return
	[ -z "$addr" ] || in_ns "$ns" ip addr add "$addr" dev "$ifc" ||
		netns_err "cannot give $ns/$ifc $addr" || return
	[ -z "$threaded" ] || in_ns "$ns" sh -c "echo 1 > /sys/class/net/$ifc/threaded" ||
		netns_err "cannot make $ns/$ifc's NAPI threaded"
}

netns_cleanup() {
	local ns
	for ns in "${NETNS_MADE[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
	NETNS_MADE=()
}
