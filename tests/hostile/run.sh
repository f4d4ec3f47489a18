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
#   run.sh xdp BUILD            the XDP program through BPF_PROG_TEST_RUN
#                               (BUILD/xdp/xdp_unit, root), frames finished
#                               in the kernel or handed to AF_XDP and the
#                               stage core, 1000-frame captures of frames
#                               of 14 bytes or more (the least a test run
#                               takes) laid out as conformance vectors
#
# FRAMES (default 5000) sets the frames per case. Work files: BUILD/hostile/
# (HOSTILE_WORK overrides).
set -euo pipefail

what=${1:?usage: run.sh stage|dpdk|xdp BUILD [BINARY]}
build=${2:?usage: run.sh stage|dpdk|xdp BUILD [BINARY]}
bin=${3:-$build/xio-pipeline}
here=$(cd "$(dirname "$0")" && pwd)
work=${HOSTILE_WORK:-$build/hostile/$what}
frames=${FRAMES:-5000}
mkdir -p "$work"

# name seed port options; a case named edges* takes xio-hostile-gen's fixed
# --edges capture (every block and step of the narrowing loops) instead of
# seeded frames, its seed only cuts the segments
cases=(
	"keep 1001 7910 --overflow keep"
	"saturate 1002 7910 --overflow saturate"
	"drop-invalid 1003 7910 --overflow drop --drop-invalid"
	"port9999 1004 9999 --overflow saturate --drop-invalid"
	"edges 1005 7910 --overflow keep"
)

# gen_args NAME SEED COUNT: xio-hostile-gen's frame options for a case
gen_args() {
	case $1 in
	edges*) echo --edges ;;
	*) echo --seed "$2" --count "$3" ;;
	esac
}

# xio-pipeline runs: name, then options
runs=(
	"rtc --mode rtc"
	"pipeline --mode pipeline"
	"rtc-chained --mode rtc --mbuf-size 256"
	"pipeline-chained --mode pipeline --mbuf-size 512 --ring-size 4 --burst 7"
)

# The XDP unit test reads vector folders named <set>[-port<P>]-<policy>.
if [ "$what" = xdp ]; then
	i=0
	for c in "hostile-keep 7910 --overflow keep" "hostile-saturate 7910 --overflow saturate" \
		"hostile-drop 7910 --overflow drop" "hostile-drop-invalid 7910 --overflow keep --drop-invalid" \
		"hostile-port9999-saturate 9999 --overflow saturate" \
		"edges-keep 7910 --overflow keep" "edges-saturate 7910 --overflow saturate" \
		"edges-drop 7910 --overflow drop" "edges-drop-invalid 7910 --overflow keep --drop-invalid"; do
		read -r name port opts <<<"$c"
		i=$((i + 1))
		mkdir -p "$work/$name"
		# shellcheck disable=SC2046
		"$build/hostile/xio-hostile-gen" $(gen_args "$name" $((3000 + i)) 1000) --min-len 14 \
			--udp-port "$port" --out "$work/$name/in.pcap"
		# shellcheck disable=SC2086
		"$build/hostile/xio-ref-model" --in "$work/$name/in.pcap" --out "$work/$name/expected.pcap" \
			--json "$work/$name/expected.json" --udp-port "$port" $opts
	done
	XIO_VECTORS=$work "$build/xdp/xdp_unit"
	exit
fi

fail=0
check() { # label got.pcap want.pcap got.json want.json repro [--leaks]
	if python3 "$here/compare.py" ${7:-} "$2" "$3" "$4" "$5"; then
		echo "hostile: $1: ok"
		rm -f "$2" # outputs are kept only when they differ
	else
		echo "hostile: $1: FAILED (reproduce: $6)" >&2
		fail=1
	fi
}

for c in "${cases[@]}"; do
	read -r name seed port opts <<<"$c"
	dir=$work/$name
	mkdir -p "$dir"
	# shellcheck disable=SC2046
	"$build/hostile/xio-hostile-gen" $(gen_args "$name" "$seed" "$frames") --udp-port "$port" \
		--out "$dir/in.pcap"
	nf=$frames
	[[ $name == edges* ]] && nf=edge
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
			check "$name ($nf frames, stage core, $layout)" "$dir/$layout.pcap" \
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
			check "$name ($nf frames, xio-pipeline $ropts)" "$out" \
				"$dir/expected.pcap" "$json" "$dir/expected.json" "$log" --leaks
		done
		;;
	*)
		echo "run.sh: unknown target '$what' (stage, dpdk or xdp)" >&2
		exit 2
		;;
	esac
done
exit $fail
