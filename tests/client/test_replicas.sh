#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make client-e2e: one read spread over several servers exporting the same
# files (xio-fetch --server A,B,C), on loopback UDP ports 22200-22229:
#  (a) three xio-server processes: a token file and a Megatron dataset
#      byte-exact, every server serving a share (its tokens > 0), the
#      servers' tokens adding up to the read's;
#  (b) one of three SIGKILLed mid-read (the servers paced by --rate so
#      that the read lasts): exact output, its state "dropped" in the stats
#      JSON with its last error, its missing ranges read by the others;
#  (c) copies that disagree: a size -> a clear error naming each server
#      before any token is written (no output, no temporary); an mtime ->
#      a warning, refused with --strict-mtime;
#  (d) every server dead: an error naming each; a bad list: exit 1.
set -u
. "$(dirname "$0")/lib.sh"
FETCH=$BUILD/xio-fetch
XIO_SERVER=$BUILD/xio-server
RUN_LOG=$T/log

same() { if cmp -s "$1" "$2"; then ok; else bad "$cur: $1 differs from $2: $(cmp "$1" "$2" 2>&1 | head -1)"; fi; }
gone() { if [ ! -e "$1" ] && ! ls -a "$(dirname "$1")" | grep -q '\.xio-'; then ok; else bad "$cur: $1 or a temporary is left"; ls -la "$(dirname "$1")"; fi; }
jq_is() { if jq -e "$2" "$1" >/dev/null; then ok; else bad "$cur: $1 fails $2"; cat "$1"; fi; }

# xs PORT NAME ROOT [xio-server options]: an xio-server on 127.0.0.1:PORT.
xs() {
	local port=$1 name=$2 root=$3
	shift 3
	"$XIO_SERVER" --root "$root" --bind 127.0.0.1 --port "$port" "$@" >"$T/$name.log" 2>&1 &
	PIDS+=($!)
	eval "PID_$name=$!"
	wait_for "$T/$name.log" '^xio-server: serving ' || { bad "xio-server $name did not start"; cat "$T/$name.log"; exit 1; }
}
L3=127.0.0.1:22200,127.0.0.1:22201,127.0.0.1:22202

# ---- (a) shares ----------------------------------------------------------------
# Chunks small enough that each flow's first window takes a part, however
# late its thread starts (a flow holds at most a fair part of what is left).
xs 22200 a "$T/root"
xs 22201 b "$T/root"
xs 22202 c "$T/root"
run 0 "three servers" "$FETCH" --quiet --flows 3 --chunk 65536 --server "$L3" tok.bin --out "$T/out/tok.u16" \
	--stats-json "$T/s1.json"
same "$T/out/tok.u16" "$T/want/tok.u16"
jq_is "$T/s1.json" '.tokens == '"$NTOK"' and .flows == 3 and (.servers | length) == 3'
jq_is "$T/s1.json" '[.servers[] | select(.state == "up" and .tokens > 0 and .flows == 1)] | length == 3'
jq_is "$T/s1.json" '([.servers[].tokens] | add) == .tokens and ([.servers[].re_requests] | add) == .re_requests'
jq_is "$T/s1.json" '[.servers[].address] == ["127.0.0.1:22200", "127.0.0.1:22201", "127.0.0.1:22202"]'

run 0 "three servers, a Megatron dataset" "$FETCH" --quiet --flows 3 --chunk 32768 --server "$L3" ds --format megatron \
	--out "$T/out/ds" --stats-json "$T/s2.json"
same "$T/out/ds.bin" "$T/want/ds.bin"
same "$T/out/ds.idx" "$T/want/ds.idx"
jq_is "$T/s2.json" '.tokens == '"$NDS"' and ([.servers[] | select(.tokens > 0)] | length) == 3'

# flows counts in all, raised to one a server
run 0 "--flows 1 with three servers" "$FETCH" --quiet --flows 1 --server "$L3" tok.bin --count 1000000 \
	--out "$T/out/f1.u16" --stats-json "$T/s3.json"
jq_is "$T/s3.json" '.flows == 3 and .tokens == 1000000'
run 0 "a list with blanks and a repeated server, progress lines" "$FETCH" --progress --flows 4 \
	--server " 127.0.0.1:22200 , 127.0.0.1:22201,127.0.0.1:22200" tok.bin --out "$T/out/f4.u16" \
	--stats-json "$T/s4.json"
same "$T/out/f4.u16" "$T/want/tok.u16"
has_re '^\[#+\] 100\.0% [0-9]+/[0-9]+ tokens [0-9.]+ Mtok/s ETA 0:00 \| 127\.0\.0\.1:22200 [0-9]+% 127\.0\.0\.1:22201 [0-9]+% 127\.0\.0\.1:22200 [0-9]+%$'
jq_is "$T/s4.json" '[.servers[].flows] == [2, 1, 1] and .flows == 4'
stop_server a
stop_server b
stop_server c

# ---- (b) a server killed mid-read ------------------------------------------------------
# Paced to 0.02 Gbit/s each (about 0.6 Mtok/s of INT32), the read lasts
# about a second; the middle server is killed once the read is under way.
xs 22210 p "$T/root" --rate 0.02
xs 22211 q "$T/root" --rate 0.02
xs 22212 r "$T/root" --rate 0.02
cur="a server SIGKILLed mid-read"
"$FETCH" --quiet --flows 3 --timeout-ms 100 --retries 2 --server 127.0.0.1:22210,127.0.0.1:22211,127.0.0.1:22212 \
	tok.bin --out "$T/out/kill.u16" --stats-json "$T/s5.json" >"$T/log" 2>&1 &
fpid=$!
for ((i = 0; i < 200; i++)); do ls -a "$T/out" | grep -q '^\.kill\.u16\.xio-' && break; sleep 0.02; done
sleep 0.2
{ kill -KILL "$PID_q"; wait "$PID_q"; } 2>/dev/null
wait $fpid
rc=$?
if [ "$rc" -eq 0 ]; then ok; else bad "$cur: exit $rc"; show "$T/log"; fi
same "$T/out/kill.u16" "$T/want/tok.u16"
jq_is "$T/s5.json" '.status == "ok" and .tokens == '"$NTOK"' and ([.servers[].tokens] | add) == '"$NTOK"
jq_is "$T/s5.json" '.servers[1].state == "dropped" and .servers[1].drops == 1 and .servers[1].re_requests > 0 and .servers[1].tokens < '"$NTOK"' and (.servers[1].last_error | test("^no answer for tokens [0-9]+\\.\\.[0-9]+ after 3 tries"))'
jq_is "$T/s5.json" '.servers[0].state == "up" and .servers[2].state == "up" and .servers[0].tokens > 0 and .servers[2].tokens > 0'
# what the dead server had not sent was read from the others: more than
# their first share
jq_is "$T/s5.json" '.servers[0].tokens + .servers[2].tokens == '"$NTOK"' - .servers[1].tokens'
stop_server p
stop_server r

# ---- (c) copies that disagree ----------------------------------------------------------
mkdir -p "$T/short" "$T/old"
head -c $((4 * NTOK - 4)) "$T/root/tok.bin" >"$T/short/tok.bin"
cp "$T/root/tok.bin" "$T/old/tok.bin"
touch -d '2020-01-02 03:04:05' "$T/old/tok.bin"
xs 22220 full "$T/root"
xs 22221 short "$T/short"
xs 22222 old "$T/old"
run 1 "two servers disagree on the size" "$FETCH" --quiet --server 127.0.0.1:22220,127.0.0.1:22221 tok.bin \
	--out "$T/out/dis.u16" --stats-json "$T/s6.json"
has_re "^xio-fetch: tok.bin: the servers disagree on its size: 127\.0\.0\.1:22220 $((4 * NTOK)) bytes; 127\.0\.0\.1:22221 $((4 * NTOK - 4)) bytes$"
gone "$T/out/dis.u16"
jq_is "$T/s6.json" '.status == "error" and .tokens == 0 and .requests == 2'
run 1 "a copy missing" "$FETCH" --quiet --server 127.0.0.1:22220,127.0.0.1:22221 odd.bin --out "$T/out/dis.u16"
has_re "^xio-fetch: odd.bin: the servers disagree on its size: 127\.0\.0\.1:22220 4098 bytes; 127\.0\.0\.1:22221 not_found$"
gone "$T/out/dis.u16"
run 0 "mtimes differ: a warning" "$FETCH" --server 127.0.0.1:22220,127.0.0.1:22222 tok.bin --count 100000 \
	--out "$T/out/mt.u16" --stats-json "$T/s7.json"
has_re '^xio-fetch: warning: tok.bin: the servers'"'"' copies have different mtimes \(127\.0\.0\.1:22220 [0-9]+\.[0-9]{9}, 127\.0\.0\.1:22222 1577934245\.000000000\); --strict-mtime refuses them$'
jq_is "$T/s7.json" '.servers[1].mtime_differs == 1 and .servers[0].mtime_differs == 0 and .servers[1].mtime_ns == 1577934245000000000'
run 1 "mtimes differ, --strict-mtime" "$FETCH" --quiet --strict-mtime --server 127.0.0.1:22220,127.0.0.1:22222 \
	tok.bin --out "$T/out/mt2.u16"
has_re '^xio-fetch: tok.bin: the servers disagree on its mtime \(strict_mtime\): 127\.0\.0\.1:22220 [0-9]+\.[0-9]{9}; 127\.0\.0\.1:22222 1577934245\.000000000$'
gone "$T/out/mt2.u16"

# ---- (d) no server left, bad lists --------------------------------------------------------
run 1 "every server dead" "$FETCH" --quiet --timeout-ms 50 --retries 1 --server 127.0.0.1:22228,127.0.0.1:22229 \
	tok.bin --out "$T/out/dead.u16" --stats-json "$T/s8.json"
has_re '^xio-fetch: tok.bin: no server left: 127\.0\.0\.1:22228: no answer to STAT after 2 tries: port unreachable; 127\.0\.0\.1:22229: no answer to STAT after 2 tries: port unreachable$'
gone "$T/out/dead.u16"
jq_is "$T/s8.json" '[.servers[].state] == ["dropped", "dropped"]'
run 0 "one server of two dead at the STAT" "$FETCH" --quiet --timeout-ms 50 --retries 1 \
	--server 127.0.0.1:22229,127.0.0.1:22220 tok.bin --out "$T/out/half.u16" --stats-json "$T/s9.json"
same "$T/out/half.u16" "$T/want/tok.u16"
jq_is "$T/s9.json" '.servers[0].state == "dropped" and .servers[0].tokens == 0 and .servers[1].tokens == '"$NTOK"
run 1 "an empty entry" "$FETCH" --quiet --server 127.0.0.1:22220,,127.0.0.1:22221 tok.bin --out "$T/out/e.u16"
has_re "^xio-fetch: server list '127\.0\.0\.1:22220,,127\.0\.0\.1:22221': entry 2 is empty$"

echo "client-e2e (replicas): $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
