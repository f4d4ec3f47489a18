#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# asan.sh: the end-to-end replays once more under the ASan+UBSan build of
# xio-pipeline (build/asan/xio-pipeline), where any out-of-bounds access,
# use after free, undefined behaviour or leak at exit ends the run with a
# report and a non-zero exit:
#  1. every conformance vector in both modes, and with chained mbufs: output
#     and counters exact, no mbuf leaked;
#  2. the hostile captures (tests/hostile/run.sh dpdk) in every layout;
#  3. SIGTERM / SIGINT under load (shutdown.sh);
#  4. every bad command line and setup error (errors.sh), leak checking off:
#     an error exit leaves its argument arrays to the OS on purpose.
#
#   asan.sh BUILD
set -u
build=${1:?usage: asan.sh BUILD}
xp=$build/asan/xio-pipeline
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vectors=${XIO_VECTORS:-$root/../shared/vectors}
work=$build/reliability/asan
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$work"
pass=0 fail=0

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# 1. the conformance vectors
for dir in "$vectors"/*/; do
	dir=${dir%/}
	name=$(basename "$dir")
	[ -f "$dir/in.pcap" ] || continue
	args=$(bash "$root/tests/vector-args.sh" "$dir") || { bad "$name: vector-args"; continue; }
	for run in "rtc --mode rtc" "pipeline --mode pipeline" \
		"pipeline-chained --mode pipeline --mbuf-size 512"; do
		read -r tag ropts <<<"$run"
		out=$work/$name-$tag.pcap json=$work/$name-$tag.json log=$work/$name-$tag.log
		rm -f "$out" "$json"
		# shellcheck disable=SC2086
		if ! timeout -k 5 120 "$xp" --no-huge --no-shconf --no-pci -m 512 \
			--lcores '0@0,1@1,2@0' --vdev "net_pcap0,rx_pcap=$dir/in.pcap,tx_pcap=$out" -- \
			$ropts $args --idle-exit 300 --stats-json "$json" >"$log" 2>&1; then
			bad "$name ($tag): exit status, log $log"
			sed 's/^/  | /' "$log" | tail -n 30
			continue
		fi
		if python3 "$root/tests/hostile/compare.py" --leaks "$out" "$dir/expected.pcap" "$json" \
			"$dir/expected.json"; then
			pass=$((pass + 1))
		else
			bad "$name ($tag): output or counters"
		fi
	done
done
echo "asan: vectors: $pass runs passed"

# 2-4. hostile captures, shutdown under load, errors
FRAMES=${FRAMES:-2000} HOSTILE_WORK=$work/hostile bash "$root/tests/hostile/run.sh" dpdk "$build" "$xp" ||
	bad "hostile captures under ASan"
REL_TAG=asan bash "$here/shutdown.sh" "$build" "$xp" || bad "shutdown under ASan"
ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 REL_TAG=asan bash "$here/errors.sh" "$build" "$xp" ||
	bad "errors under ASan"

echo "asan: $fail failures"
[ "$fail" -eq 0 ]
