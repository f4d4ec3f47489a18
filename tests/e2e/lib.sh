# SPDX-License-Identifier: BSD-3-Clause
# tests/e2e/lib.sh: what the end-to-end scripts share (sourced, not run):
# check counting and waiting for a running program's log.

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
