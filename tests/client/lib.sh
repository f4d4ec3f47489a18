# SPDX-License-Identifier: BSD-3-Clause
# tests/client/lib.sh: what the client's test scripts share (sourced): a
# temporary folder $T with the test data of make_data.py ($T/root, exported
# by the servers, and $T/want, the expected outputs; NTOK and NDS their
# token counts), xcl-server instances stopped at exit, and tests/e2e/lib.sh.
BUILD=${BUILD:-build}
SERVER=$BUILD/tests/xcl-server
PY=/usr/bin/python3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

. "$HERE/../e2e/lib.sh"

mkdir -p "$T/root" "$T/want" "$T/out"
read -r NTOK NDS < <($PY "$HERE/make_data.py" "$T/root" "$T/want") || { echo "make_data.py failed"; exit 1; }

# server PORT NAME [xcl-server options]: starts one on 127.0.0.1:PORT ([::1]
# with --v6), its counters in $T/NAME.json when it stops.
server() {
	local port=$1 name=$2
	shift 2
	"$SERVER" --port "$port" --root "$T/root" --stats "$T/$name.json" "$@" >"$T/$name.log" 2>&1 &
	PIDS+=($!)
	eval "PID_$name=$!"
	wait_for "$T/$name.log" '^listening' || { echo "xcl-server $name did not start"; cat "$T/$name.log"; exit 1; }
}
stop_server() { local v="PID_$1"; kill "${!v}"; wait "${!v}" 2>/dev/null; }

# xio_server PORT NAME [xio-server options]: the real server (build/xio-server,
# address validation on unless told otherwise) on 127.0.0.1:PORT exporting
# $T/root, its stats JSON in $T/NAME.json when stopped with stop_server NAME.
xio_server() {
	local port=$1 name=$2
	shift 2
	"$BUILD/xio-server" --root "$T/root" --bind 127.0.0.1 --port "$port" --allow 127.0.0.1 \
		--stats-json "$T/$name.json" "$@" >"$T/$name.log" 2>&1 &
	PIDS+=($!)
	eval "PID_$name=$!"
	wait_for "$T/$name.log" '^xio-server: serving' ||
		{ echo "xio-server $name did not start"; cat "$T/$name.log"; exit 1; }
}
