# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench/transport_lib.sh: what bench-transport's two drivers share
# (sourced, not run): scripts/bench/transport.sh (this VM) and
# scripts/bench/transport-device.sh (the 16-core machine). One reader run,
# measured by scripts/bench/transport_run.py and checked byte for byte, is a
# CSV row (TRANSPORT_HEADER). The caller sets:
#   CSV LOGS work    the CSV, a log folder, a work folder ($work/ref.u16: the
#                    reference narrowing of $work/root/tokens.bin)
#   FETCH TCPR FLOWS xio-fetch, xio-tcp-read, whether xio-fetch has --flows
#   RUNNER           scripts/bench/transport_run.py
#   READ_TOKENS      tokens each reader reads (from token 0)
#   BUSY_CPUS PIN    CPUs whose busy time counts (empty: all), and a CPU list
#                    the reader is pinned to (taskset; empty: none)
#   RUN_TIMEOUT      seconds a reader may run (300)
#   fault_start, fault_stop FILTER   (only for runs that name a fault)
# and sources scripts/bench/lib.sh (log, die) first.
# shellcheck disable=SC2154 # work, CSV, LOGS...: the caller's

# shellcheck disable=SC2034 # read by the drivers
TRANSPORT_HEADER="round,case,mtu,tool,streams,tokens,wall_s,tokens_per_s,cpu_s,cpu_ns_per_token,busy_s,busy_ns_per_token,re_requests,datagrams,lost,exact,rc"
BUSY_CPUS=${BUSY_CPUS:-}
PIN=${PIN:-}

# jget FILE FILTER [DEFAULT]: a value of a JSON file, DEFAULT (0) if none.
jget() { jq -r "($2) // ${3:-0}" "$1" 2>/dev/null || echo "${3:-0}"; }

# measure ROUND CASE MTU TOOL STREAMS FAULT NS CMD...: one reader run (in
# network namespace NS, or here when NS is -) writing $work/out.u16 (or
# $work/out0.u16, out1.u16 ... in order), with the fault program on when
# FAULT names its counter of this reader's drops (.dropped, .tcp_dropped);
# appends a CSV row. xio-fetch's stats go to $work/f*.json.
measure() {
	local r=$1 cs=$2 mtu=$3 tool=$4 streams=$5 fault=$6 ns=$7 name rc=0 exact=no rr=0 dg=0 lost=0 f
	shift 7
	name=$cs-$mtu-$tool-$r
	rm -f "$work"/out*.u16 "$work"/f*.json
	local pre=()
	[ "$ns" = - ] || pre=(ip netns exec "$ns")
	[ -z "$PIN" ] || pre+=(taskset -c "$PIN")
	[ -z "$fault" ] || fault_start
	python3 "$RUNNER" --json "$work/run.json" ${BUSY_CPUS:+--cpus "$BUSY_CPUS"} -- \
		"${pre[@]}" timeout "${RUN_TIMEOUT:-300}" "$@" >"$LOGS/$name.out" 2>"$LOGS/$name.err" || rc=$?
	[ -z "$fault" ] || lost=$(fault_stop "$fault")
	if [ "$rc" -eq 0 ]; then
		if [ -f "$work/out.u16" ]; then
			cmp -s -n $((READ_TOKENS * 2)) "$work/out.u16" "$work/ref.u16" &&
				[ "$(stat -c %s "$work/out.u16")" -eq $((READ_TOKENS * 2)) ] && exact=yes
		else # ranks: their parts in order
			local parts=()
			for ((f = 0; f < streams; f++)); do parts+=("$work/out$f.u16"); done
			cat "${parts[@]}" 2>/dev/null | cmp -s -n $((READ_TOKENS * 2)) - "$work/ref.u16" && exact=yes
		fi
	fi
	for f in "$work"/f*.json; do
		[ -f "$f" ] || continue
		rr=$((rr + $(jget "$f" .re_requests)))
		dg=$((dg + $(jget "$f" .datagrams)))
	done
	jq -r --arg r "$r" --arg c "$cs" --arg m "$mtu" --arg t "$tool" --arg s "$streams" \
		--arg n "$READ_TOKENS" --arg rr "$rr" --arg dg "$dg" --arg l "$lost" --arg e "$exact" \
		--arg rc "$rc" \
		'[$r, $c, $m, $t, $s, $n, .wall_s, (($n | tonumber) / .wall_s), .cpu_s,
		  (.cpu_s / ($n | tonumber) * 1e9), .busy_s, (.busy_s / ($n | tonumber) * 1e9),
		  $rr, $dg, $l, $e, $rc] | @csv' "$work/run.json" | tr -d '"' >>"$CSV"
	log "transport: round $r $cs $mtu $tool x$streams: $(tail -1 "$CSV" | cut -d, -f6-)"
	rm -f "$work"/out*.u16
}

# tcp_run ROUND CASE MTU STREAMS FAULT NS SERVER: xio-tcp-read, STREAMS streams.
tcp_run() {
	measure "$1" "$2" "$3" tcp "$4" "$5" "$6" "$TCPR" --server "$7" --streams "$4" \
		--count "$READ_TOKENS" tokens.bin --out "$work/out.u16"
}

# xio_run ROUND CASE MTU STREAMS FAULT NS SERVER: xio-fetch with STREAMS
# flows (0: its default); without --flows, STREAMS > 1 runs as many
# xio-fetch processes, --rank i of --world STREAMS.
xio_run() {
	local r=$1 cs=$2 mtu=$3 streams=$4 fault=$5 ns=$6 server=$7 i
	local f=("$FETCH" --server "$server" --quiet --count "$READ_TOKENS")
	if [ "$streams" -le 1 ]; then
		measure "$r" "$cs" "$mtu" xio "$streams" "$fault" "$ns" "${f[@]}" \
			--stats-json "$work/f.json" tokens.bin --out "$work/out.u16"
	elif [ "$FLOWS" = yes ]; then
		measure "$r" "$cs" "$mtu" xio "$streams" "$fault" "$ns" "${f[@]}" --flows "$streams" \
			--stats-json "$work/f.json" tokens.bin --out "$work/out.u16"
	else
		local sh="pids=''"
		for ((i = 0; i < streams; i++)); do
			sh+="; ${f[*]} --rank $i --world $streams --stats-json $work/f$i.json tokens.bin --out $work/out$i.u16 & pids=\"\$pids \$!\""
		done
		# shellcheck disable=SC2016 # expanded by that sh
		sh+='; rc=0; for p in $pids; do wait $p || rc=1; done; exit $rc'
		measure "$r" "$cs" "$mtu" xio-ranks "$streams" "$fault" "$ns" sh -c "$sh"
	fi
}

# make_tokens FILE REF TOKENS: TOKENS random INT32 tokens in 0..65535 (seeded)
# into FILE and their UINT16 narrowing, the reference, into REF (numpy: the
# python3 on PATH must have it).
make_tokens() {
	python3 - "$@" <<'PY'
import sys
import numpy as np
t = np.random.default_rng(7910).integers(0, 65536, size=int(sys.argv[3]), dtype=np.int32)
t.astype("<i4").tofile(sys.argv[1])
t.astype("<u2").tofile(sys.argv[2])
PY
}

# stop_all: ends the servers in BG (pids started here) and what live_bg
# started, and deletes the namespaces (for the EXIT trap).
BG=()
stop_all() {
	local p
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${BG[@]}"; do wait "$p" 2>/dev/null || true; done
	live_cleanup
}
