#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# e2e.sh: build/xio-server on loopback against tests/server/xio_client.py,
# a client written from the spec alone (loopback ports 21000-21009):
#  - bad command lines: exit 2 and one line naming the problem; --help,
#    --version; a port already taken; SIGINT;
#  - one server on "::" (2 threads, --allow 127.0.0.1/32,::1/128): an 8 MiB
#    token file over IPv4 (IPv4-mapped) without CRC and 4 MiB over IPv6 with
#    CRC, every datagram in order and exactly once, full datagrams of 360 and
#    352 tokens; a RAW read of an odd-sized file; every error code; 20,000
#    hostile datagrams, every answer checked; requests from 127.0.0.2 refused;
#    still serving; SIGTERM: exit 0, and the stats JSON equal, counter by
#    counter, to what the clients' datagrams make it;
#  - io over the wire (a sysfs file shorter than its size) and --idle-exit;
#  - --rate: a read no faster than the rate allows; SIGTERM in the middle
#    of a train: the train finishes, exit 0; --duration;
#  - address validation (on by default, xio-read 1.2): READs without a valid
#    cookie (none, wrong, another address's from 127.0.0.2, RAW) and READs
#    forged from 127.0.0.5 through a raw socket get ERROR_REPLY cookie only,
#    each at most three times its request, and no data; a paced read across
#    many rotations of a 1-second secret, exact; a server with --cookies off
#    (16-byte STAT_REPLY, READs without cookie served).
#
#   e2e.sh BUILD
set -u
build=${1:?usage: e2e.sh BUILD}
here=$(cd "$(dirname "$0")" && pwd)
srv=$build/xio-server
py=/usr/bin/python3
client=("$py" "$here/xio_client.py")
port=21000
work=$(mktemp -d /tmp/xsv-e2e.XXXXXX)
. "$here/lib.sh"
trap 'kill_all; rm -rf "$work"' EXIT

root=$work/root
mkdir -p "$root/dir"
head -c $((8 << 20)) /dev/urandom >"$root/tokens.bin"
head -c 1000003 /dev/urandom >"$root/odd.bin"
head -c 4000 /dev/urandom >"$work/outside.bin"
head -c 4000 /dev/urandom >"$root/dir/nested.bin"
ln -s ../outside.bin "$root/link-out"
ln -s .. "$root/link-dir-out"
mkfifo "$root/fifo"

# --- bad command lines ------------------------------------------------------
# badcmd REGEX ARGS...: exit 2 (WANT_RC), exactly one line on stderr matching REGEX,
# nothing on stdout.
badcmd() {
	local re=$1 rc want=${WANT_RC:-2}
	shift
	timeout 10 "$srv" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$rc" -ne "$want" ] || [ "$(wc -l <"$work/err")" -ne 1 ] || [ -s "$work/out" ] ||
		! grep -Eq -- "^xio-server: $re" "$work/err"; then
		bad "xio-server $*: exit $rc, want $want and one line 'xio-server: $re'"
		show "$work/err"
	else
		ok
	fi
}
badcmd "--root DIR is required"
badcmd "--root '/nonexistent': No such file" --root /nonexistent
badcmd "--root '.*odd.bin': Not a directory" --root "$root/odd.bin"
badcmd "--port '0': expected a number in 1..65535" --root "$root" --port 0
badcmd "--port '65536': expected a number in 1..65535" --root "$root" --port 65536
badcmd "--port 'x'" --root "$root" --port x
badcmd "--allow: '10.0.0.0/33' is not a CIDR" --root "$root" --allow 10.0.0.0/33
badcmd "--allow: '1.2.3' is not a CIDR" --root "$root" --allow 127.0.0.1,1.2.3
badcmd "--allow: '' is not a CIDR" --root "$root" --allow ""
badcmd "--allow: '::1/129' is not a CIDR" --root "$root" --allow ::1/129
badcmd "--mtu 63: too small .* over IPv4 \(at least 64\)" --root "$root" --bind 127.0.0.1 --mtu 63
badcmd "--mtu 83: too small .* over IPv6 \(at least 84\)" --root "$root" --mtu 83
badcmd "--mtu '9001'" --root "$root" --mtu 9001
badcmd "unknown option '--frobnicate'" --root "$root" --frobnicate
badcmd "option '--port' needs a value" --root "$root" --port
badcmd "unexpected argument 'extra'" --root "$root" extra
badcmd "--bind '1.2.3.4.5': not an IPv4 or IPv6 address" --root "$root" --bind 1.2.3.4.5
badcmd "--threads '0'" --root "$root" --threads 0
badcmd "--rate '-1'" --root "$root" --rate -1
badcmd "--burst '0': expected a number in 1..1024" --root "$root" --burst 0
badcmd "--burst '1025': expected a number in 1..1024" --root "$root" --burst 1025
badcmd "--flow-rate '-1'" --root "$root" --flow-rate -1
badcmd "--stats-json '/nonexistent/s.json': cannot write in '/nonexistent'" --root "$root" \
	--stats-json /nonexistent/s.json
badcmd "--metrics 'localhost:9101': 'localhost' is not a numeric IPv4 or IPv6 address" --root "$root" \
	--metrics localhost:9101
badcmd "--metrics '9101': expected ADDR:PORT" --root "$root" --metrics 9101
badcmd "--metrics '0': expected a number in 1..65535" --root "$root" --metrics 127.0.0.1:0
printf 'open secret 0123456789' >"$work/secret-644"
chmod 644 "$work/secret-644"
printf 'short' >"$work/secret-short"
chmod 600 "$work/secret-short"
head -c 24 /dev/urandom | base64 >"$work/secret"
chmod 600 "$work/secret"
badcmd "--cookies 'maybe': expected off|on" --root "$root" --cookies maybe
badcmd "--cookie-rotate '0': expected a number in 1..600" --root "$root" --cookie-rotate 0
badcmd "--cookie-rotate '601': expected a number in 1..600" --root "$root" --cookie-rotate 601
badcmd "--cookie-secret: '.*secret-644' is open to other users \(mode 644\): chmod 600 it" \
	--root "$root" --cookie-secret "$work/secret-644"
badcmd "--cookie-secret: '.*secret-short' holds 5 bytes: a secret is 16 to 4096 bytes" \
	--root "$root" --cookie-secret "$work/secret-short"
badcmd "--cookie-secret: cannot open '/nonexistent/secret'" --root "$root" \
	--cookie-secret /nonexistent/secret
badcmd "--cookie-secret with --cookies off" --root "$root" --cookies off \
	--cookie-secret "$work/secret"
if "$srv" --help | grep -q "^Usage: xio-server --root DIR" && [ "$("$srv" --version)" = \
	"xio-server $(sed -n 's/^XIO_VERSION := //p' "$here/../../Makefile")" ]; then
	ok
else
	bad "--help or --version"
fi

start taken "$srv" --root "$root" --port $port --bind 127.0.0.1
taken=$pid
# a run that cannot start: exit 1
WANT_RC=1 badcmd "cannot bind 127.0.0.1 port $port: Address already in use" --root "$root" --port $port \
	--bind 127.0.0.1
stop "$taken" taken INT

# --- the main server ----------------------------------------------------------
start main "$srv" --root "$root" --port $port --threads 2 --allow 127.0.0.1/32,::1/128 \
	--stats-json "$work/main.json" --stats-interval 0.5
main=$pid
c4=("${client[@]}" --server 127.0.0.1 --port $port)
c6=("${client[@]}" --server ::1 --port $port)
run "8 MiB of tokens over IPv4" "${c4[@]}" --tally "$work/t1" read --path tokens.bin \
	--compare "$root/tokens.bin" --expect-per 360 --cookies on
run "4 MiB of tokens over IPv6 with CRC" "${c6[@]}" --tally "$work/t2" read --path tokens.bin \
	--compare "$root/tokens.bin" --crc --count 1048576 --expect-per 352
run "RAW read with CRC and max_count" "${c6[@]}" --tally "$work/t3" read --path odd.bin \
	--compare "$root/odd.bin" --raw --crc --max-count 1001 --expect-per 1001 --chunk 300007
run "every error code" "${c4[@]}" --tally "$work/t4" errors
run "20,000 hostile datagrams" "${c4[@]}" --tally "$work/t5" hostile --count 20000 --seed 7
run "refused from 127.0.0.2" "${c4[@]}" --tally "$work/t6" --source 127.0.0.2 refused --count 100
run "still serving" "${c4[@]}" --tally "$work/t7" read --path dir/nested.bin \
	--compare "$root/dir/nested.bin" --crc --max-count 7 --expect-per 7
stop "$main" main
run "stats JSON against the clients' tally" "${client[@]}" check --stats "$work/main.json" \
	"$work"/t[1-7]
if grep -q "^xio-server: t=" "$work/main.out" &&
	grep -q "^xio-server: received " "$work/main.out"; then
	ok
else
	bad "no --stats-interval line or summary"; show "$work/main.out"
fi

# --- io, --idle-exit ------------------------------------------------------------
# /sys/kernel/uevent_seqnum says 4096 bytes and holds a few: not readable as said.
start io "$srv" --root /sys/kernel --port $((port + 1)) --bind 127.0.0.1 --allow 127.0.0.1 \
	--idle-exit 1500 --stats-json "$work/io.json"
io=$pid
run "io over the wire" "${client[@]}" --server 127.0.0.1 --port $((port + 1)) --tally "$work/io1" \
	expect --path uevent_seqnum --code io --first 2 --count 100 --cookie-path uevent_seqnum
wait "$io"
rc=$?
if [ "$rc" -eq 0 ]; then ok; else bad "--idle-exit: exit $rc"; fi
run "io stats JSON" "${client[@]}" check --stats "$work/io.json" "$work/io1"

# --- --rate, SIGTERM in a train, --duration ------------------------------------
# 1 Mi tokens at 0.1 Gbit/s: 4 MiB + 2913 headers = 4287520 bytes, 343 ms less
# 128 KiB of credit (10 ms): no run can be faster.
start rate "$srv" --root "$root" --port $((port + 2)) --rate 0.1 --stats-json "$work/rate.json"
rate=$pid
run "paced read" "${c4[@]/$port/$((port + 2))}" --tally "$work/r1" read --path tokens.bin \
	--compare "$root/tokens.bin" --count 1048576 --min-seconds 0.33
# the whole file in one request (686 ms at the rate), SIGTERM 100 ms after it went
"${c4[@]/$port/$((port + 2))}" --tally "$work/r2" read --path tokens.bin \
	--compare "$root/tokens.bin" --chunk 2097152 --say-sent >"$work/r2.log" 2>&1 &
reader=$!
wait_for "$work/r2.log" "READ .* sent" || bad "the reader did not send its READ"
sleep 0.1
stop "$rate" rate
if wait "$reader"; then
	ok
	sed 's/^/  /' "$work/r2.log"
else
	bad "train cut by SIGTERM"
	show "$work/r2.log"
fi
run "rate stats JSON" "${client[@]}" check --stats "$work/rate.json" "$work/r1" "$work/r2"

"$srv" --root "$root" --port $((port + 3)) --duration 0.5 --stats-json "$work/d.json" \
	>/dev/null 2>&1
rc=$?
if [ "$rc" -eq 0 ] && "$py" -c 'import json, sys
sys.exit(not 0.5 <= json.load(open(sys.argv[1]))["elapsed_s"] < 5)' "$work/d.json"; then
	ok
else
	bad "--duration 0.5: exit $rc"
fi

# --- address validation ---------------------------------------------------------
# READs without a valid cookie, from 127.0.0.1, 127.0.0.2 and forged from 127.0.0.5
start ck "$srv" --root "$root" --port $((port + 4)) --bind 127.0.0.1 --allow 127.0.0.0/8 \
	--cookie-secret "$work/secret" --stats-json "$work/ck.json"
ck=$pid
if grep -q "address cookies, secret rotated every 120 s (from --cookie-secret)" "$work/ck.err" &&
	! grep -qF "$(cat "$work/secret")" "$work/ck.err" "$work/ck.out"; then
	ok
else
	bad "announce line without the cookies, or with the secret"
fi
run "READs without a valid cookie: ERROR_REPLY cookie only" "${client[@]}" --server 127.0.0.1 \
	--port $((port + 4)) --source 127.0.0.1 --tally "$work/k1" cookies --tally2 "$work/k2" \
	--other 127.0.0.2 --forge 127.0.0.5
run "a read after them" "${client[@]}" --server 127.0.0.1 --port $((port + 4)) \
	--tally "$work/k3" read --path odd.bin --compare "$root/odd.bin" --raw --cookies on
run "hostile datagrams with and without cookies" "${client[@]}" --server 127.0.0.1 \
	--port $((port + 4)) --tally "$work/k4" hostile --count 3000 --seed 11
stop "$ck" ck
run "cookie stats JSON" "${client[@]}" check --stats "$work/ck.json" "$work"/k[1-4]
if "$py" -c 'import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(not (s["cookies"] is True and s["errors_by_code"]["cookie"] >= 18 and
              s["cookies_issued"] >= 4 and s["file_bytes"] == 1000003 + 80))' "$work/ck.json"; then
	ok
else
	bad "cookie counters"; show "$work/ck.json"
fi

# a paced read that outlives many rotations of a 1-second secret: 8 MiB at
# 0.02 Gbit/s takes 3.4 s, a cookie lives 1 to 2 s
start rot "$srv" --root "$root" --port $((port + 5)) --rate 0.02 --cookie-rotate 1 \
	--stats-json "$work/rot.json"
rot=$pid
run "paced read across rotations" "${c4[@]/$port/$((port + 5))}" --tally "$work/o1" read \
	--path tokens.bin --compare "$root/tokens.bin" --chunk 65536 --min-refreshes 1 --cookies on
stop "$rot" rot
run "rotation stats JSON" "${client[@]}" check --stats "$work/rot.json" "$work/o1"

# validation off: the 1.0 STAT_REPLY, READs without cookie served
start off "$srv" --root "$root" --port $((port + 6)) --cookies off --stats-json "$work/off.json"
off=$pid
if grep -q "no address validation (--cookies off)" "$work/off.err"; then ok; else
	bad "announce line of --cookies off"; fi
c4off=("${c4[@]/$port/$((port + 6))}")
run "read with --cookies off" "${c4off[@]}" --tally "$work/f1" read --path tokens.bin \
	--compare "$root/tokens.bin" --count 100000 --crc --cookies off
run "errors with --cookies off" "${c4off[@]}" --tally "$work/f2" errors
run "hostile with --cookies off" "${c4off[@]}" --tally "$work/f3" hostile --count 3000 --seed 12
stop "$off" off
run "--cookies off stats JSON" "${client[@]}" check --stats "$work/off.json" "$work"/f[1-3]

echo "server e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
