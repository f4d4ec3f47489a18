#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of xio-fetch (make client-e2e) against xcl-server, the
# lossy test server of tests/client/, on loopback UDP ports 22000-22019:
#  (a) every output byte-exact against numpy's narrowing of the source
#      (tests/client/make_data.py): raw, llm.c, Megatron .bin/.idx, a
#      sub-range, 3 ranks concatenated, IPv6, and through a server that
#      drops, duplicates, reorders, delays, narrows half itself, corrupts
#      under CRC and sends garbage; counters checked against the server's;
#  (b) tokens out of range: an error naming one (the first met), or clamped;
#  (c) failures exit 1 with one clear line, in bounded time, leave no
#      output and no temporary, and keep an older OUT as it was: a server
#      that never answers, a closed port, one that dies mid-transfer, server
#      errors, a uint16 Megatron index, SIGTERM mid-read;
#  (d) bad command lines exit 2 with one line; progress only on a terminal;
#  (e) GRO trains from xio-server (UDP GSO answers), byte-exact, coalesced;
#  (f) against the real xio-server (ports 22020-22022): address validation on
#      (the cookie of STAT on every READ), a paced read outliving many
#      rotations of a 1-second cookie secret, and validation off; exact
#      outputs, the client's cookie_refreshes against the server's counters.
# FLOWS=N runs every fetch with --flows N (make client-e2e runs 1 and 3).
set -u
. "$(dirname "$0")/lib.sh"
FETCH=$BUILD/xio-fetch

RUN_LOG=$T/log
nlines() { local n; n=$(wc -l <"$T/log"); if [ "$n" -eq "$1" ]; then ok; else bad "$cur: $n lines, expected $1"; show "$T/log"; fi; }
eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', expected '$2'"; fi; }
same() { if cmp -s "$1" "$2"; then ok; else bad "$cur: $1 differs from $2: $(cmp "$1" "$2" 2>&1 | head -1)"; fi; }
gone() { if [ ! -e "$1" ] && ! ls -a "$(dirname "$1")" | grep -q '\.xio-'; then ok; else bad "$cur: $1 or a temporary is left"; ls -la "$(dirname "$1")"; fi; }
# jq_is FILE EXPR: the stats JSON satisfies the jq boolean EXPR.
jq_is() { if jq -e "$2" "$1" >/dev/null; then ok; else bad "$cur: $1 fails $2"; cat "$1"; fi; }

F="$FETCH --quiet${FLOWS:+ --flows $FLOWS}"

# ---- (a) byte-exact outputs ------------------------------------------------
server 22000 clean --narrow 50
run 0 "raw, no faults" $F --server 127.0.0.1:22000 tok.bin --out "$T/out/tok.u16" --stats-json "$T/s1.json"
same "$T/out/tok.u16" "$T/want/tok.u16"
stop_server clean
# The server's counters against the client's: every datagram it sent was
# received, each counted once; without re-requests the two forms match too.
jq_is "$T/s1.json" '.tokens == '"$NTOK"' and .status == "ok" and .replies_uint16 > 0 and .replies_int32 > 0'
jq_is "$T/s1.json" '(.replies_uint16 + .replies_int32 + .answers + .duplicates + .crc_errors + .malformed + .ignored) == .datagrams'
if [ "$(jq .datagrams "$T/s1.json")" = "$(jq .sent "$T/clean.json")" ]; then ok; else bad "client datagrams != server sent"; fi
if [ "$(jq .re_requests "$T/s1.json")" = 0 ]; then
	jq_is "$T/s1.json" ".replies_uint16 == $(jq .narrowed "$T/clean.json") and .replies_int32 == $(jq .int32 "$T/clean.json")"
fi
for k in tokens datagrams replies_uint16 replies_int32 re_requests duplicates crc_errors bytes_received elapsed_s; do
	jq_is "$T/s1.json" "has(\"$k\")"
done

LOSSY="--drop 5 --dup 5 --reorder 5 --late 3 --narrow 50 --corrupt 3 --garbage 5 --max-count 1024"
server 22001 lossy $LOSSY --seed 7
run 0 "raw through loss, with CRC" $F --crc --server 127.0.0.1:22001 tok.bin --out "$T/out/lossy.u16" \
	--stats-json "$T/s2.json"
same "$T/out/lossy.u16" "$T/want/tok.u16"
jq_is "$T/s2.json" '.tokens == '"$NTOK"' and .re_requests > 0 and .duplicates > 0 and .crc_errors > 0 and .malformed > 0 and .replies_uint16 > 0 and .replies_int32 > 0'
jq_is "$T/s2.json" '(.replies_uint16 + .replies_int32 + .answers + .duplicates + .crc_errors + .malformed + .ignored) == .datagrams'
# holes in answers are asked again at once; the rest after a timeout
jq_is "$T/s2.json" '.gap_re_requests > 0 and .re_requests == .gap_re_requests + .timeout_re_requests and .cwnd_reductions > 0 and .cwnd > 0'
jq_is "$T/s2.json" '([.flow_stats[].re_requests] | add) == .re_requests and ([.flow_stats[].tokens] | add) == .tokens'

# A paced server (trains of 16 datagrams, 64 KiB of INT32, 40 ms apart):
# an answer that is still arriving is never timed out, so with the default
# options there is not one re-request, and the next fetch finds the server
# free (no stale requests queued).
server 23000 paced --pace-ms 40 --train 16 --max-count 1024
run 0 "a paced server, default options" $F --server 127.0.0.1:23000 tok.bin --count 327680 \
	--out "$T/out/paced.u16" --stats-json "$T/s3.json"
dd if="$T/want/tok.u16" of="$T/want/paced.u16" bs=2 count=327680 status=none
same "$T/out/paced.u16" "$T/want/paced.u16"
jq_is "$T/s3.json" '.tokens == 327680 and .re_requests == 0 and .timeouts == 0 and .duplicates == 0 and .cwnd_reductions == 0'
run 0 "the paced server again, right after" $F --server 127.0.0.1:23000 tok.bin --count 16384 \
	--out "$T/out/paced2.u16" --stats-json "$T/s4.json"
jq_is "$T/s4.json" '.tokens == 16384 and .re_requests == 0 and .timeouts == 0'
stop_server paced
jq_is "$T/paced.json" '.requests == 3 and .stat_requests == 2'

run 0 "a sub-range, small chunks" $F --crc --chunk 50000 --window 16 --server 127.0.0.1:22001 tok.bin \
	--first 777777 --count 333333 --out "$T/out/sub.u16"
dd if="$T/want/tok.u16" of="$T/want/sub.u16" bs=2 skip=777777 count=333333 status=none
same "$T/out/sub.u16" "$T/want/sub.u16"

for r in 0 1 2; do
	run 0 "rank $r of 3" $F --crc --server 127.0.0.1:22001 tok.bin --rank $r --world 3 --out "$T/out/part$r"
done
cat "$T/out/part0" "$T/out/part1" "$T/out/part2" >"$T/out/parts"
cur="3 ranks"
same "$T/out/parts" "$T/want/tok.u16"
eq "$(stat -c %s "$T/out/part0") $(stat -c %s "$T/out/part2")" "1333336 1333334" "rank sizes"

run 0 "llm.c shard" $F --crc --server 127.0.0.1:22001 tok.bin --format llmc --out "$T/out/tok.llmc"
same "$T/out/tok.llmc" "$T/want/tok.llmc"

run 0 "Megatron dataset" $F --crc --server 127.0.0.1:22001 ds --format megatron --out "$T/out/ds" \
	--stats-json "$T/s3.json"
same "$T/out/ds.bin" "$T/want/ds.bin"
same "$T/out/ds.idx" "$T/want/ds.idx"
jq_is "$T/s3.json" '.tokens == '"$NDS"' and .bytes > 0 and .data_replies > 0'

server 22002 v6 --v6 --drop 3 --narrow 30 --seed 3
run 0 "IPv6 through loss" $F --server "[::1]:22002" tok.bin --out "$T/out/v6.u16"
same "$T/out/v6.u16" "$T/want/tok.u16"

# ---- (b) tokens out of range -------------------------------------------------
run 1 "a token out of range" $F --server 127.0.0.1:22001 oor.bin --out "$T/out/oor.u16"
has_re '^xio-fetch: oor.bin: token (123457 is 70000|1500000 is -3), outside 0\.\.65535 \(saturate clamps it\)$'
nlines 1
gone "$T/out/oor.u16"
run 0 "--overflow saturate" $F --crc --server 127.0.0.1:22001 oor.bin --overflow saturate \
	--out "$T/out/oor.u16" --stats-json "$T/s4.json"
same "$T/out/oor.u16" "$T/want/oor.sat.u16"
jq_is "$T/s4.json" '.clamped == 2'

# ---- (c) failures -------------------------------------------------------------
echo old >"$T/out/keep"
server 22003 silent --silent-after 0
start=$(date +%s%N)
run 1 "a server that never answers" $F --server 127.0.0.1:22003 tok.bin --out "$T/out/keep" \
	--timeout-ms 100 --retries 2 --stats-json "$T/s5.json"
el=$((($(date +%s%N) - start) / 1000000))
has_re '^xio-fetch: tok.bin: no answer from 127.0.0.1:22003 to STAT after 3 tries$'
nlines 1
if [ "$el" -lt 5000 ]; then ok; else bad "gave up after $el ms (bound 3 x 100 ms)"; fi
cur="older output kept"
eq "$(cat "$T/out/keep")" old "an older OUT is left as it was"
jq_is "$T/s5.json" '.status == "error" and (.error | test("no answer")) and .timeouts == 3'

run 1 "a closed port" $F --server 127.0.0.1:22019 tok.bin --out "$T/out/x" --timeout-ms 50 --retries 1
has_re 'no answer from 127.0.0.1:22019 to STAT after 2 tries: port unreachable, is the server running\?$'
gone "$T/out/x"

server 22004 dying --silent-after 600 --max-count 1024
run 1 "a server that dies mid-transfer" $F --server 127.0.0.1:22004 tok.bin --out "$T/out/keep" \
	--timeout-ms 100 --retries 2
has_re '^xio-fetch: tok.bin: no answer from 127.0.0.1:22004 for tokens [0-9]+\.\.[0-9]+ after 3 tries \(last timeout [0-9]+ ms\)$'
nlines 1
eq "$(cat "$T/out/keep")" old "an older OUT is left as it was after a failed transfer"
gone "$T/out/x"

cur="SIGTERM while waiting"
server 22005 dying2 --silent-after 300
$F --server 127.0.0.1:22005 tok.bin --out "$T/out/sig" --timeout-ms 5000 >"$T/log" 2>&1 &
fpid=$!
for ((i = 0; i < 100; i++)); do ls -a "$T/out" | grep -q '^\.sig\.xio-' && break; sleep 0.05; done
if ls -a "$T/out" | grep -q '^\.sig\.xio-'; then ok; else bad "$cur: no temporary while reading"; fi
kill -TERM $fpid
wait $fpid
eq "$?" 143 "$cur: exit status"
gone "$T/out/sig"

run 1 "no such file" $F --server 127.0.0.1:22001 nope.bin --out "$T/out/x"
has_re '^xio-fetch: nope.bin: server 127.0.0.1:22001: not_found: '
gone "$T/out/x"
run 1 "not tokens" $F --server 127.0.0.1:22001 odd.bin --out "$T/out/x"
has_re '^xio-fetch: odd.bin: 4098 bytes, not a multiple of 4: not an INT32 token file$'
run 1 "a path outside the root" $F --server 127.0.0.1:22001 ../etc/passwd --out "$T/out/x"
has_re 'server 127.0.0.1:22001: access: path refused$'
run 1 "--first past the end" $F --server 127.0.0.1:22001 tok.bin --first 2000004 --out "$T/out/x"
has_re "^xio-fetch: tok.bin: has $NTOK tokens: --first 2000004 is past its end$"
run 1 "--count past the end" $F --server 127.0.0.1:22001 tok.bin --first 2000000 --count 4 --out "$T/out/x"
has_re "^xio-fetch: tok.bin: has $NTOK tokens: --first 2000000 --count 4 runs past its end$"
run 1 "a uint16 Megatron index" $F --server 127.0.0.1:22001 ds16 --format megatron --out "$T/out/d16"
has_re '^xio-fetch: ds16.idx: Megatron-LM index of dtype code 8 \(uint16\): only int32 \(4\) datasets are narrowed$'
nlines 1
gone "$T/out/d16.idx"
gone "$T/out/d16.bin"
run 1 "an unresolvable server" $F --server no-such-host.invalid tok.bin --out "$T/out/x" \
	--stats-json "$T/s6.json"
has_re "^xio-fetch: server 'no-such-host.invalid': "
nlines 1
jq_is "$T/s6.json" '.status == "error" and .datagrams == 0 and (.error | test("no-such-host"))'

# ---- (d) command line and progress ---------------------------------------------
for args in "tok.bin --out x" "--server h --out x" "--server h tok.bin" \
	"--server h tok.bin --out x --format parquet" "--server h tok.bin --out x --rank 1" \
	"--server h tok.bin --out x --rank 3 --world 3" "--server h ds --out x --format megatron --first 5" \
	"--server h tok.bin --out x --chunk 0" "--server h tok.bin --out x --window 1k" \
	"--server h tok.bin --out x --progress --quiet" "--server h a b --out x" "--bogus" \
	"--server h tok.bin --out x --overflow wrap" "--server h tok.bin --out x --count 0" \
	"--server h tok.bin --out x --flows 0" "--server h tok.bin --out x --flows 65"; do
	# shellcheck disable=SC2086
	run 2 "usage: $args" "$FETCH" $args
	nlines 1
	has_re '^xio-fetch: .* \(try --help\)$'
done
run 0 "--help" "$FETCH" --help
has_re '^  --rank R --world W'
run 0 "--version" "$FETCH" --version
has_re '^xio-fetch [0-9]+\.[0-9]+\.[0-9]+$'

run 0 "not a terminal: the summary only" "$FETCH" --server 127.0.0.1:22001 tok.bin --count 500000 --out "$T/out/p"
nlines 1
has_re '^xio-fetch: 500000 tokens to .* re-requests, [0-9]+ duplicates, [0-9]+ CRC errors$'
run 0 "--progress off a terminal: lines" "$FETCH" --progress --server 127.0.0.1:22001 tok.bin --count 500000 --out "$T/out/p"
has_re '^\[#+\] 100\.0% 500000/500000 tokens [0-9.]+ Mtok/s ETA 0:00$'
run 0 "--quiet" "$FETCH" --quiet --server 127.0.0.1:22001 tok.bin --count 500000 --out "$T/out/p"
nlines 0
run 0 "a terminal: a bar" script -qec "$FETCH --server 127.0.0.1:22001 tok.bin --count 500000 --out $T/out/p" /dev/null
has_re $'\r\\[#+\\] 100\\.0% 500000/500000 tokens'

# ---- (e) GRO trains ---------------------------------------------------------------
# xio-server sends each answer as UDP GSO trains; with UDP_GRO a buffer
# brings a train (many datagrams a buffer), with --no-gro one datagram each.
cur="xio-server"
XIO_SERVER=$BUILD/xio-server
"$XIO_SERVER" --root "$T/root" --bind 127.0.0.1 --port 22018 >"$T/xs.log" 2>&1 &
PIDS+=($!)
wait_for "$T/xs.log" '^xio-server: serving ' || { bad "xio-server did not start"; cat "$T/xs.log"; }
run 0 "xio-server, GRO" $F --server 127.0.0.1:22018 tok.bin --out "$T/out/gro.u16" --stats-json "$T/s7.json"
same "$T/out/gro.u16" "$T/want/tok.u16"
jq_is "$T/s7.json" '.gro == true and .tokens == '"$NTOK"' and .rx_buffers * 4 < .datagrams and .recv_calls <= .rx_buffers'
jq_is "$T/s7.json" '([.flow_stats[].tokens] | add) == .tokens and (.flow_stats | length) == .flows'
run 0 "xio-server, no GRO" $F --no-gro --server 127.0.0.1:22018 tok.bin --out "$T/out/nogro.u16" --stats-json "$T/s8.json"
same "$T/out/nogro.u16" "$T/want/tok.u16"
jq_is "$T/s8.json" '.gro == false and .rx_buffers == .datagrams'


# ---- (f) the real xio-server: address cookies ---------------------------------
xio_server 22020 ckon
cur="xio-server, cookies on"
run 0 "$cur" $F --crc --server 127.0.0.1:22020 tok.bin --out "$T/out/xs.u16" --stats-json "$T/xs1.json"
same "$T/out/xs.u16" "$T/want/tok.u16"
stop_server ckon
jq_is "$T/xs1.json" '.tokens == '"$NTOK"' and .cookie_refreshes == 0 and .timeouts == 0'
jq_is "$T/ckon.json" '.cookies == true and .cookies_issued == 1 and .errors_by_code.cookie == 0 and .errors == 0'
# 8 MB at 0.025 Gbit/s: 2.7 s, asked for in chunks of 64 Ki tokens two at a
# time; a cookie lives 1 to 2 s, so at least one is refused
xio_server 22021 ckrot --cookie-rotate 1 --rate 0.025
cur="xio-server, paced, across rotations"
run 0 "$cur" $F --crc --server 127.0.0.1:22021 tok.bin --window 2 --chunk 65536 \
	--out "$T/out/xr.u16" --stats-json "$T/xr1.json"
same "$T/out/xr.u16" "$T/want/tok.u16"
stop_server ckrot
jq_is "$T/xr1.json" '.tokens == '"$NTOK"' and .cookie_refreshes >= 1'
refreshes=$(jq .cookie_refreshes "$T/xr1.json")
jq_is "$T/ckrot.json" '.cookies_issued == 1 + '"$refreshes"' and .errors_by_code.cookie >= '"$refreshes"' and .errors == .errors_by_code.cookie'
xio_server 22022 ckoff --cookies off
cur="xio-server, --cookies off"
run 0 "$cur" $F --server 127.0.0.1:22022 tok.bin --out "$T/out/xo.u16" --stats-json "$T/xo1.json"
same "$T/out/xo.u16" "$T/want/tok.u16"
stop_server ckoff
jq_is "$T/xo1.json" '.tokens == '"$NTOK"' and .cookie_refreshes == 0'
jq_is "$T/ckoff.json" '.cookies == false and .cookies_issued == 0 and .errors == 0'

echo "client-e2e${FLOWS:+ (--flows $FLOWS)}: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
