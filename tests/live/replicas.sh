#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/live/replicas.sh (make e2e): one read spread over three storage
# nodes behind one DPU. Three storage namespaces, each an xio-server over
# the same directory (address validation on), a switch namespace whose
# bridge joins them to the DPU's wire port (so that the DPU sees every
# frame), xio-pipeline in XDP kernel mode as a bump in the wire, xio-fetch
# in the host namespace with --server of all three:
#
#   s1 10.77.0.1 =veth= xp1 -+
#   s3 10.77.0.3 =veth= xp3 -+- [xsbr] xs0 ==veth== xd0 [DPU] xd1 ==veth== xh0 host 10.77.0.2
#   s4 10.77.0.4 =veth= xp4 -+
#
# Checks: a token file and a Megatron dataset byte-exact, every server
# serving a share, every reply narrowed on the DPU (the client's
# replies_int32 0); a server SIGKILLed in the middle of a paced read: exact,
# its state "dropped" in the stats JSON, its part read from the others; a
# server killed and started again in the middle of a read (before the
# client gives it up): it rejoins through a new STAT (its new secret
# refuses the old cookie, the client STATs it again) and the read ends
# exact with it "up"; two servers whose copies differ in size: a clear
# error naming both, no output. Needs root; take /tmp/xio-live.lock around
# it (make e2e does). REPLICAS_KEEP=1 keeps the work folder.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$here/../e2e/lib.sh"
# shellcheck source=../lib/netns.sh
. "$here/../lib/netns.sh"

BUILD=${BUILD:-build}
server=$BUILD/xio-server
fetch=$BUILD/xio-fetch
pipeline=$BUILD/xio-pipeline
TAG=${LIVE_TAG:-$$}
SW=xlr-sw-$TAG
DPU=xlr-dpu-$TAG
HST=xlr-hst-$TAG
NODES=(1 3 4) # storage namespaces xlr-sN-TAG at 10.77.0.N
HST_IP=10.77.0.2
LIST=10.77.0.1,10.77.0.3,10.77.0.4

netns_need_root replicas "network namespaces, XDP" || exit 1
for b in "$server" "$fetch" "$pipeline"; do
	[ -x "$b" ] || { echo "replicas: $b not built" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/xlr-e2e.XXXXXX)
root=$tmp/root
ref=$tmp/ref
out=$tmp/out
mkdir -p "$root" "$ref" "$out" "$tmp/short"
PIDS=()
finish() {
	local p
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	netns_cleanup
	if [ -n "${REPLICAS_KEEP:-}" ]; then echo "replicas: work folder kept: $tmp"; else rm -rf "$tmp"; fi
}
trap finish EXIT
start=$SECONDS

/usr/bin/python3 "$here/live_data.py" make "$root"
/usr/bin/python3 "$here/live_data.py" narrow "$root/tokens.bin" "$ref/tokens.u16"
/usr/bin/python3 "$here/live_data.py" megatron "$root/ds" "$ref/ds"
head -c $(($(stat -c %s "$root/tokens.bin") - 4)) "$root/tokens.bin" >"$tmp/short/tokens.bin"

# ---- the namespaces -------------------------------------------------------------
netns_add "$SW" "$DPU" "$HST"
bridge_ports=()
for n in "${NODES[@]}"; do
	netns_add "xlr-s$n-$TAG"
	netns_veth "xlr-s$n-$TAG" xst "$SW" "xp$n"
	# TX checksum offload off at a sending end (the DPU narrows only whole checksums)
	netns_if "xlr-s$n-$TAG" xst addr "10.77.0.$n/24" tx-off
	bridge_ports+=("xp$n")
done
netns_veth "$SW" xs0 "$DPU" xd0
netns_veth "$DPU" xd1 "$HST" xh0
netns_bridge "$SW" xsbr xs0 "${bridge_ports[@]}"
netns_if "$HST" xh0 addr "$HST_IP/24" tx-off gro
netns_if "$SW" xs0 gro

# ---- the programs ---------------------------------------------------------------
# srv N NAME [ARGS...]: xio-server on node N (port 7910 unless ARGS say),
# stats in $tmp/NAME.json; its pid in PID_NAME.
srv() {
	local n=$1 name=$2
	shift 2
	ip netns exec "xlr-s$n-$TAG" "$server" --root "$root" --bind "10.77.0.$n" \
		--stats-json "$tmp/$name.json" "$@" >"$tmp/$name.log" 2>&1 &
	PIDS+=($!)
	eval "PID_$name=$!"
	wait_for "$tmp/$name.log" '^xio-server: serving ' || { bad "xio-server $name did not start"; show "$tmp/$name.log"; exit 1; }
}
# stop PID SIGNAL: signals it and waits for it; its exit status.
stop() { kill "-$2" "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
# fetch NAME ARGS...: xio-fetch in the host, stats in $out/NAME.json; its exit status.
fetch() {
	local name=$1
	shift
	ip netns exec "$HST" timeout 60 "$fetch" --quiet --stats-json "$out/$name.json" "$@" 2>"$out/$name.err"
}
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
jq_is() { if jq -e "$2" "$1" >/dev/null 2>&1; then ok; else bad "$cur: $(basename "$1") fails $2"; cat "$1" 2>/dev/null | head -c 3000; echo; fi; }

ip netns exec "$DPU" "$pipeline" --driver xdp --xdp-mode kernel --iface xd0 --egress xd1 \
	--bidirectional --stats-json "$tmp/dpu.json" >"$tmp/dpu.log" 2>&1 &
DPU_PID=$!
PIDS+=("$DPU_PID")
for n in "${NODES[@]}"; do srv "$n" "s$n"; done
# the path through the DPU (ARP first): a STAT of every server answers
for ((i = 0; i < 100; i++)); do
	ip netns exec "$HST" "$fetch" --quiet --server "$LIST" --timeout-ms 200 --retries 1 \
		tokens.bin --count 1 --out "$out/probe" 2>/dev/null && break
	sleep 0.2
done
echo "replicas: $SW (bridge of 10.77.0.1, .3, .4) | $DPU (xio-pipeline XDP kernel) | $HST ($HST_IP)"

# ---- shares: a token file and a Megatron dataset from all three -------------------------
cur="three servers, tokens.bin"
fetch raw --flows 3 --chunk 32768 --server "$LIST" tokens.bin --out "$out/raw.u16" &&
	check "$cur: output differs from the reference" cmp -s "$out/raw.u16" "$ref/tokens.u16" ||
	bad "$cur: xio-fetch failed: $(cat "$out/raw.err")"
jq_is "$out/raw.json" '.replies_int32 == 0 and .replies_uint16 > 0 and ([.servers[] | select(.state == "up" and .tokens > 0)] | length) == 3'
jq_is "$out/raw.json" '([.servers[].tokens] | add) == .tokens and .tokens == 1048576'
cur="three servers, a Megatron dataset"
fetch mg --flows 3 --chunk 16384 --server "$LIST" ds --format megatron --out "$out/mg" &&
	check "$cur: .bin differs" cmp -s "$out/mg.bin" "$ref/ds.bin" &&
	check "$cur: .idx differs" cmp -s "$out/mg.idx" "$ref/ds.idx" ||
	bad "$cur: xio-fetch failed: $(cat "$out/mg.err")"
jq_is "$out/mg.json" '.replies_int32 == 0 and ([.servers[] | select(.tokens > 0)] | length) == 3'

# ---- one server SIGKILLed mid-read ---------------------------------------------------
# Paced (0.01 Gbit/s each: the file takes about a second from three); .3
# dies once the read is under way; the client gives it up after its tries
# and the two others read what it still owed.
for n in "${NODES[@]}"; do stop "$(eval echo "\$PID_s$n")" TERM; done
for n in "${NODES[@]}"; do srv "$n" "p$n" --rate 0.01; done
cur="a server SIGKILLed mid-read"
fetch kill --flows 3 --chunk 32768 --timeout-ms 300 --retries 3 --server "$LIST" tokens.bin \
	--out "$out/kill.u16" &
fpid=$!
for ((i = 0; i < 200; i++)); do ls -a "$out" | grep -q '^\.kill\.u16\.xio-' && break; sleep 0.02; done
sleep 0.3
stop "$PID_p3" KILL
rc=0
wait "$fpid" || rc=$?
check "$cur: xio-fetch exit status $rc: $(cat "$out/kill.err")" [ "$rc" -eq 0 ]
check "$cur: output differs from the reference" cmp -s "$out/kill.u16" "$ref/tokens.u16"
jq_is "$out/kill.json" '.replies_int32 == 0 and .tokens == 1048576 and ([.servers[].tokens] | add) == 1048576'
jq_is "$out/kill.json" '[.servers[].state] == ["up", "dropped", "up"] and .servers[1].drops == 1 and .servers[1].tokens < 1048576 and .servers[1].re_requests > 0 and (.servers[1].last_error | test("^no answer for tokens"))'

# ---- one server restarted mid-read ---------------------------------------------------
# .3 back with a new secret, then killed and started again while a paced
# read runs: the client's re-requests carry the old cookie, the new server
# refuses them, the client STATs it (cookie_refreshes) and it serves again.
srv 3 r3 --rate 0.01
cur="a server restarted mid-read"
fetch restart --flows 3 --chunk 32768 --server "$LIST" tokens.bin --out "$out/restart.u16" &
fpid=$!
for ((i = 0; i < 200; i++)); do ls -a "$out" | grep -q '^\.restart\.u16\.xio-' && break; sleep 0.02; done
sleep 0.2
stop "$PID_r3" KILL
srv 3 r3b --rate 0.01
rc=0
wait "$fpid" || rc=$?
check "$cur: xio-fetch exit status $rc: $(cat "$out/restart.err")" [ "$rc" -eq 0 ]
check "$cur: output differs from the reference" cmp -s "$out/restart.u16" "$ref/tokens.u16"
jq_is "$out/restart.json" '.replies_int32 == 0 and [.servers[].state] == ["up", "up", "up"] and .servers[1].drops == 0 and .cookie_refreshes >= 1'
stop "$PID_r3b" TERM
cur="the restarted server"
jq_is "$tmp/r3b.json" '.errors_by_code.cookie >= 1 and .cookies_issued >= 1 and .requests_by_opcode.read_request > .errors_by_code.cookie'

# ---- copies that disagree ----------------------------------------------------------------
ip netns exec "xlr-s4-$TAG" "$server" --root "$tmp/short" --bind 10.77.0.4 --port 7911 \
	>"$tmp/short.log" 2>&1 &
PIDS+=($!)
PID_short=$!
wait_for "$tmp/short.log" '^xio-server: serving ' || bad "the short copy's server did not start"
cur="two servers disagree on the size"
rc=0
fetch dis --server 10.77.0.1,10.77.0.4:7911 tokens.bin --out "$out/dis.u16" || rc=$?
check "$cur: exit status $rc, expected 1" [ "$rc" -eq 1 ]
check "$cur: the message: $(cat "$out/dis.err")" grep -Eq \
	'^xio-fetch: tokens.bin: the servers disagree on its size: 10\.77\.0\.1 4194304 bytes; 10\.77\.0\.4:7911 4194300 bytes$' "$out/dis.err"
check "$cur: an output or a temporary was left" [ -z "$(ls -a "$out" | grep '^\.\?dis\.u16')" ]
jq_is "$out/dis.json" '.tokens == 0 and .status == "error"'
stop "$PID_short" TERM

# ---- the ends: every reply narrowed on the DPU ----------------------------------------------
for n in 1 4; do stop "$(eval echo "\$PID_p$n")" TERM; done
stop "$DPU_PID" INT
cur="the DPU"
u16=0
for f in raw mg kill restart; do u16=$((u16 + $(jq .replies_uint16 "$out/$f.json"))); done
jq_is "$tmp/dpu.json" ".directions.a_to_b.reasons.narrowed >= $u16 and .dropped_packets == 0"
for n in 1 3 4; do
	cur="xio-server s$n"
	jq_is "$tmp/s$n.json" '.cookies == true and .requests_by_opcode.read_request > 0 and .cookies_issued >= 1'
done
echo "replicas: $(jq -c '[.servers[] | {address, tokens}]' "$out/raw.json") in the first read," \
	"$(jq -c '[.servers[] | {address, state, tokens}]' "$out/kill.json") with .3 killed, $((SECONDS - start)) s"
echo "replicas: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
