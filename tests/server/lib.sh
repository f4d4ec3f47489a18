# SPDX-License-Identifier: BSD-3-Clause
# tests/server/lib.sh: what e2e.sh and netns.sh share (sourced, not run):
# starting and stopping servers, running client steps. Needs $work.

. "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"
pids=()

# start NAME CMD...: a server in the background, its output in $work/NAME.out
# and .err, its pid in $pid; ready once it says what it serves.
start() {
	local name=$1
	shift
	"$@" >"$work/$name.out" 2>"$work/$name.err" &
	pid=$!
	pids+=("$pid")
	if ! wait_for "$work/$name.err" "^xio-server: serving"; then
		bad "$name: did not start"
		show "$work/$name.err"
		exit 1
	fi
	sed 's/^/  /' "$work/$name.err"
}

# stop PID NAME [SIGNAL]: SIGTERM (or SIGNAL), and exit 0 expected.
stop() {
	local rc sig=${3:-TERM}
	kill -"$sig" "$1"
	wait "$1"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		bad "$2: exit $rc after SIG$sig"
		show "$work/$2.err"
	else
		ok
	fi
}

# run DESC CMD...: a client step that must succeed.
run() {
	local desc=$1
	shift
	if "$@" >"$work/step" 2>&1; then
		ok
		sed 's/^/  /' "$work/step"
	else
		bad "$desc"
		show "$work/step"
	fi
}

# kill_all: what start started and still runs (for a trap).
kill_all() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
}
