# SPDX-License-Identifier: BSD-3-Clause
# tests/e2e/lib.sh: what the end-to-end scripts share (sourced, not run):
# check counting, running a command whose output is checked, and waiting for
# a running program's log.

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
show() { sed 's/^/  | /' "$1"; }

# wait_for LOG REGEX: until LOG has a line matching REGEX (30 s at most).
wait_for() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# run WANT_RC DESC CMD...: CMD's stdout and stderr in $RUN_LOG, its exit
# status checked; DESC names the checks on that output that follow ($cur).
run() {
	local want=$1 desc=$2 rc
	shift 2
	"$@" >"$RUN_LOG" 2>&1
	rc=$?
	cur=$desc
	if [ "$rc" -eq "$want" ]; then ok; else bad "$desc: exit $rc, expected $want"; show "$RUN_LOG"; fi
}

# has_re REGEX: the last run printed a line matching this (extended) regex.
has_re() { if grep -Eq -- "$1" "$RUN_LOG"; then ok; else bad "$cur: no line matching '$1'"; show "$RUN_LOG"; fi; }
