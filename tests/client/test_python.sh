#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make client-python: the Python binding against xcl-server on loopback
# (UDP 22100-22101), with Debian's python3 and numpy; PYTHONPATH holds only
# client/python, so the package must find build/libxio.so by itself (other
# BUILD folders are passed as XIO_LIB). The torch tests run when torch
# imports and are skipped otherwise.
set -u
BUILD=${BUILD:-build}
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
. "$HERE/../e2e/lib.sh"

mkdir -p "$T/root" "$T/want"
$PY "$HERE/make_data.py" "$T/root" "$T/want" >/dev/null || { echo "make_data.py failed"; exit 1; }
"$BUILD/tests/xcl-server" --port 22100 --root "$T/root" --drop 3 --dup 3 --reorder 3 --late 2 \
	--narrow 50 --corrupt 2 --garbage 3 --seed 11 >"$T/server.log" 2>&1 &
PIDS+=($!)
wait_for "$T/server.log" '^listening' || { echo "xcl-server did not start"; exit 1; }
[ "$BUILD" = build ] || export XIO_LIB=$PWD/$BUILD/libxio.so
XCL_SERVER=127.0.0.1:22100 XCL_DEAD=127.0.0.1:22101 XCL_WANT=$T/want XCL_ROOT=$T/root \
	PYTHONPATH=$PWD/client/python $PY "$HERE/test_xio.py"
