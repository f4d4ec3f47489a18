#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh: the hostile-capture test. For each case (a seed and a pipeline
# configuration) xio-hostile-gen writes a capture of thousands of hostile
# frames, the reference model (xio-ref-model) says what must come out, and
# the implementation under test must produce exactly that: every frame's
# bytes and order, and every counter.
#
#   run.sh stage BUILD          the stage core alone (xio-stage-replay), each
#                               frame whole and cut into segments
#   run.sh dpdk BUILD [BINARY]  the real xio-pipeline (default BUILD/xio-pipeline)
#                               over DPDK's pcap PMD, in both modes, with
#                               one-segment and chained mbufs (--mbuf-size),
#                               small rings and odd bursts; the stats JSON
#                               must also show no mbuf leaked
#
# FRAMES (default 5000) sets the frames per case. Work files: BUILD/hostile/
# (HOSTILE_WORK overrides).
set -euo pipefail

what=${1:?usage: run.sh stage|dpdk BUILD [BINARY]}
build=${2:?usage: run.sh stage|dpdk BUILD [BINARY]}
bin=${3:-$build/xio-pipeline}
here=$(cd "$(dirname "$0")" && pwd)
work=${HOSTILE_WORK:-$build/hostile/$what}
frames=${FRAMES:-5000}
mkdir -p "$work"

# name seed port options
cases=(
	"keep 1001 7910 --overflow keep"
	"saturate 1002 7910 --overflow saturate"
	"drop-invalid 1003 7910 --overflow drop --drop-invalid"
	"port9999 1004 9999 --overflow saturate --drop-invalid"
)

# xio-pipeline runs: name, then options
runs=(
	"rtc --mode rtc"
	"pipeline --mode pipeline"
	"rtc-chained --mode rtc --mbuf-size 256"
	"pipeline-chained --mode pipeline --mbuf-size 512 --ring-size 4 --burst 7"
)

fail=0
check() { # label got.pcap want.pcap got.json want.json repro [--leaks]
	if python3 "$here/compare.py" ${7:-} "$2" "$3" "$4" "$5"; then
		echo "hostile: $1: ok"
	else
		echo "hostile: $1: FAILED (reproduce: $6)" >&2
		fail=1
	fi
}

for c in "${cases[@]}"; do
	read -r name seed port opts <<<"$c"
	dir=$work/$name
	mkdir -p "$dir"
	"$build/hostile/xio-hostile-gen" --seed "$seed" --count "$frames" --udp-port "$port" \
		--out "$dir/in.pcap"
	# shellcheck disable=SC2086
	"$build/hostile/xio-ref-model" --in "$dir/in.pcap" --out "$dir/expected.pcap" \
		--json "$dir/expected.json" --udp-port "$port" $opts
	case $what in
	stage)
		for layout in whole segments; do
			seg=()
			[ "$layout" = segments ] && seg=(--segments "$seed")
			# shellcheck disable=SC2086
			"$build/hostile/xio-stage-replay" --in "$dir/in.pcap" --out "$dir/$layout.pcap" \
				--json "$dir/$layout.json" --udp-port "$port" $opts "${seg[@]}"
			check "$name ($frames frames, stage core, $layout)" "$dir/$layout.pcap" \
				"$dir/expected.pcap" "$dir/$layout.json" "$dir/expected.json" "$dir"
		done
		;;
	dpdk)
		for r in "${runs[@]}"; do
			read -r run ropts <<<"$r"
			out=$dir/$run.pcap json=$dir/$run.json log=$dir/$run.log
			rm -f "$out" "$json"
			# shellcheck disable=SC2086
			if ! timeout -k 5 120 "$bin" --no-huge --no-shconf --no-pci -m 512 \
				--lcores '0@0,1@1,2@0' \
				--vdev "net_pcap0,rx_pcap=$dir/in.pcap,tx_pcap=$out" -- \
				$ropts --udp-port "$port" $opts --idle-exit 500 \
				--stats-json "$json" >"$log" 2>&1; then
				echo "hostile: $name ($run): xio-pipeline failed, log $log:" >&2
				tail -n 20 "$log" >&2
				fail=1
				continue
			fi
			check "$name ($frames frames, xio-pipeline $ropts)" "$out" \
				"$dir/expected.pcap" "$json" "$dir/expected.json" "$log" --leaks
		done
		;;
	*)
		echo "run.sh: unknown target '$what' (stage or dpdk)" >&2
		exit 2
		;;
	esac
done
exit $fail
