#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# asan.sh: the reliability tests once more under the ASan+UBSan build of
# xio-pipeline (build/asan/xio-pipeline), where any out-of-bounds access,
# use after free, undefined behaviour or leak at exit ends the run with a
# report and a non-zero exit (the conformance vectors and the rest of the
# DPDK end-to-end tests run under it as tests/dpdk.mk's dpdk-asan):
#  1. the hostile captures (tests/hostile/run.sh dpdk) in every layout;
#  2. SIGTERM / SIGINT under load (shutdown.sh);
#  3. every bad command line and setup error (errors.sh).
#
#   asan.sh BUILD
set -u
build=${1:?usage: asan.sh BUILD}
xp=$build/asan/xio-pipeline
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$build/reliability/asan
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$work"
fail=0

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

FRAMES=${FRAMES:-2000} HOSTILE_WORK=$work/hostile bash "$root/tests/hostile/run.sh" dpdk "$build" "$xp" ||
	bad "hostile captures under ASan"
REL_TAG=asan bash "$here/shutdown.sh" "$build" "$xp" || bad "shutdown under ASan"
REL_TAG=asan bash "$here/errors.sh" "$build" "$xp" ||
	bad "errors under ASan"

echo "asan: $fail failures"
[ "$fail" -eq 0 ]
