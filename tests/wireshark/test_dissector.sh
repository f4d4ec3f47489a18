#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Tests of the Wireshark dissector apps/wireshark/xio.lua (run by
# `make wireshark`, part of make test). tshark 4.0 runs it over every
# conformance vector (in and expected), over xio-gen captures and over a
# capture with every opcode of the read protocol (xio_opcodes_pcap); for each
# frame the stage core considers addressed to XIO, every dissector field,
# expert flag and the Info column must equal what tests/wireshark/xio_fields
# prints from the project's own parse (stage core, stages/xio_msg.c, ISA-L
# CRC32C). Then exact Info lines and experts for the opcode capture, the
# frames cut by the capture, the port preference, and that every opcode and
# every expert was seen.
set -u
BUILD=${BUILD:-build}
LUA=${XIO_LUA:-apps/wireshark/xio.lua}
FIELDS=$BUILD/tests/xio_fields
OPCAP=$BUILD/tests/xio_opcodes_pcap
GEN=$BUILD/xio-gen
VECTORS=${VECTORS:-../shared/vectors}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. "$(dirname "$0")/../e2e/lib.sh"
eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', expected '$2'"; fi; }

mapfile -t NAMES < <("$FIELDS" --field-names)
E=()
for f in "${NAMES[@]}"; do E+=(-e "$f"); done
col() { # NAME: the column number of a field
	local i
	for i in "${!NAMES[@]}"; do [ "${NAMES[$i]}" = "$1" ] && { echo $((i + 1)); return; }; done
	echo "no field $1" >&2
	exit 1
}
INFO=$(col _ws.col.Info)
MAGIC=$(col xio.magic)

# ts CAP PORT [tshark args...]: the dissector's fields, one line per frame.
ts() {
	local cap=$1 port=$2
	shift 2
	tshark -X "lua_script:$LUA" -o "xio.udp_port:$port" -r "$cap" -T fields \
		-E occurrence=a -E aggregator=, "$@" 2>"$T/tshark.err"
}

# compare CAP PORT: tshark's fields against xio_fields, frame by frame.
# Keeps tshark's lines in $T/last-w.txt; counts in $compared / $xio_frames.
compared=0
xio_frames=0
compare() {
	local cap=$1 port=$2 name=${3:-$1} n x
	if ! "$FIELDS" "$cap" --port "$port" >"$T/c.txt"; then bad "$name: xio_fields failed"; return; fi
	if ! ts "$cap" "$port" "${E[@]}" >"$T/w.txt"; then
		bad "$name: tshark failed"; show "$T/tshark.err"; return
	fi
	# frames the stage core calls not addressed to XIO are Wireshark's call
	awk -F'\t' -v OFS='\t' -v info="$INFO" -v magic="$MAGIC" '
		NR == FNR { if ($2 == "skip") skip[$1] = 1; next }
		!($1 in skip) { if ($magic == "") $info = "-"; print }' "$T/c.txt" "$T/w.txt" >"$T/w.cmp"
	grep -v $'\tskip$' "$T/c.txt" >"$T/c.cmp"
	n=$(wc -l <"$T/c.cmp")
	x=$(awk -F'\t' -v m="$MAGIC" '$m != ""' "$T/c.cmp" | wc -l)
	if [ "$x" -gt 0 ] && diff "$T/c.cmp" "$T/w.cmp" >"$T/diff"; then
		ok
	else
		bad "$name: tshark and the stage core disagree ($x XIO frames)"
		head -20 "$T/diff" | show /dev/stdin
	fi
	compared=$((compared + n))
	xio_frames=$((xio_frames + x))
	cat "$T/c.cmp" >>"$T/all-c.txt"
	cat "$T/w.cmp" >>"$T/all-w.txt"
	cp "$T/w.txt" "$T/last-w.txt"
}
cols() { # NAME...: those columns of the last compare's tshark lines, in that order
	local spec="" n
	for n in "$@"; do spec="$spec $(col "$n")"; done
	awk -F'\t' -v OFS='\t' -v spec="$spec" \
		'BEGIN { n = split(spec, c, " ") } { for (i = 1; i <= n; i++) o[i] = $c[i]; $0 = ""
		  for (i = 1; i <= n; i++) $i = o[i]; print }' "$T/last-w.txt"
}

# ---- every conformance vector, as received and as transmitted -------------
declare -A seen # the four basic-* and both reply-srcport* share their in.pcap
for v in "$VECTORS"/*/; do
	port=$(bash tests/vector-args.sh "$v" | awk '{print $2}')
	for f in in expected; do
		key="$(md5sum <"$v$f.pcap") $port"
		[ -n "${seen[$key]:-}" ] && continue
		seen[$key]=1
		compare "$v$f.pcap" "$port" "$(basename "$v")/$f.pcap"
	done
done
echo "vectors: $compared frames compared, $xio_frames of them XIO"

# ---- xio-gen: CRCs, faults, IPv6, QinQ, jumbo, another port ----------------
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<6000i', *[(i*7919) % 70000 - 2000 for i in range(6000)]))" "$T/tok.bin"
"$GEN" --tokens "$T/tok.bin" --out "$T/g1.pcap" --crc --foreign 6 --corrupt 2 \
	--out-of-range 2 --duplicate 1 --reorder 2>/dev/null
compare "$T/g1.pcap" 7910 "xio-gen --crc with faults"
"$GEN" --tokens "$T/tok.bin" --out "$T/g2.pcap" --ipv6 --vlan 5 --vlan 6 --mtu 9000 --crc \
	--truncate 2 2>"$T/g2.log"
compare "$T/g2.pcap" 7910 "xio-gen --ipv6 QinQ jumbo"

# Frames xio-gen cut inside the payload: CRC unverified, the cut noted.
cur="xio-gen --truncate"
cols xio.seq xio.payload_crc.status xio.expert.cut | awk -F'\t' '$3 != ""' | sort -n >"$T/cut.got"
sed -n 's/^xio-gen: truncate seq \([0-9]*\) .*/\1\t2\t1/p' "$T/g2.log" | sort -n >"$T/cut.want"
if [ "$(wc -l <"$T/cut.want")" -eq 2 ] && cmp -s "$T/cut.want" "$T/cut.got"; then ok; else
	bad "$cur: cut frames differ"; show "$T/cut.got"; fi
"$GEN" --tokens "$T/tok.bin" --out "$T/g3.pcap" --port 9999 --no-udp-csum --crc --corrupt 1 2>/dev/null
compare "$T/g3.pcap" 9999 "xio-gen --port 9999 (preference)"

# ---- every opcode: the read-protocol capture --------------------------------
"$OPCAP" "$T/op.pcap"
compare "$T/op.pcap" 7910 "opcodes capture"
cols frame.number _ws.col.Info xio.expert.bad_crc xio.expert.bad_count \
	xio.expert.reserved_flags xio.expert.bad_hdr_len xio.expert.bad_dtype \
	xio.expert.short_body xio.expert.bad_request xio.expert.cut |
	awk -F'\t' '{ e = ""; split("bad_crc bad_count reserved_flags bad_hdr_len bad_dtype short_body bad_request cut", n, " ");
		for (i = 3; i <= 10; i++) if ($i != "") e = e " [" n[i - 2] "]"; print $1 " " $2 e }' >"$T/op.got"
cat >"$T/op.want" <<'EOF'
1 STAT_REQUEST stream=1 path=data/train.bin
2 STAT_REPLY stream=1 size=4000000
3 READ_REQUEST stream=2 tokens 1000..1015 path=data/train.bin CRC
4 READ_REPLY stream=2 seq=0 tokens 1000..1007 INT32
5 READ_REPLY stream=2 seq=1 tokens 1008..1015 UINT16
6 READ_REQUEST stream=3 bytes 0..99 path=raw/notes.txt CRC
7 DATA_REPLY stream=3 seq=0 bytes 0..99
8 ERROR_REPLY stream=11 error=not_found(1) "no such file: data/none.bin"
9 ERROR_REPLY stream=12 error=access(2) "path refused: ../etc"
10 ERROR_REPLY stream=13 error=range(3) "token 1000 past the end"
11 ERROR_REPLY stream=14 error=bad_request(4) "token_count must be 1..16777216"
12 ERROR_REPLY stream=15 error=not_tokens(5) "size 4001 is not a multiple of 4"
13 ERROR_REPLY stream=16 error=io(6) "read failed"
14 ERROR_REPLY stream=17 error=unknown(99) ""
15 STAT_REPLY stream=18 size=4001
16 STAT_REQUEST stream=19 path=shards/0001.bin
17 STAT_REPLY stream=30 [short_body]
18 ERROR_REPLY stream=31 error=io(6) [short_body]
19 DATA_REPLY stream=32 seq=0 bytes 0..99 [bad_crc]
20 DATA_REPLY stream=33 seq=0 bytes 0..100 [bad_count]
21 READ_REQUEST stream=34 tokens none path=a.bin [bad_request]
22 READ_REQUEST stream=35 tokens 0..7 path=a.bin [bad_request]
23 STAT_REQUEST stream=36 [bad_request]
24 STAT_REQUEST stream=37 path=a.bin [bad_request]
25 STAT_REQUEST stream=38 [bad_request]
26 READ_REQUEST stream=44 tokens 0..7 path=a.bin [bad_request]
27 READ_REQUEST stream=45 tokens 0..7 path=a.bin [bad_request]
28 opcode=0x07 stream=39 seq=0
29 READ_REPLY stream=40 seq=0 tokens 0..3 INT32 [reserved_flags]
30 READ_REPLY stream=41 seq=0 tokens 0..3 UINT16 [bad_dtype]
31 READ_REPLY stream=42 seq=0 tokens 0..3 dtype=0x05 [bad_dtype]
32 READ_REPLY stream=43 seq=0 tokens 0..3 INT32 [cut]
33 XIO header cut short by the capture [cut]
34 STAT_REPLY stream=50 size=4000000 cookie
35 READ_REQUEST stream=51 tokens 0..99 path=data/train.bin CRC COOKIE
36 READ_REQUEST stream=52 bytes 0..99 path=raw/notes.txt COOKIE
37 ERROR_REPLY stream=53 error=cookie(7) "no cookie: STAT for one"
38 READ_REQUEST stream=54 tokens 0..7 path=a.bin COOKIE [bad_request]
39 STAT_REQUEST stream=55 path=a.bin
EOF
cur="opcodes capture: Info and experts"
if diff "$T/op.want" "$T/op.got" >"$T/diff"; then ok; else bad "$cur"; show "$T/diff"; fi
eq "$(cols xio.payload_crc.status | sed -n 32p)" "2" "frame cut in the payload: CRC status"
cols xio.request_fault | sed -n '21,27p' >"$T/why.got"
cat >"$T/why.want" <<'EOF'
token_count must be 1..16777216
unknown option bits
path_len out of range 1..1024
header flags must be 0
request body too short
header dtype must be 0
request body too short for its path
EOF
cur="opcodes capture: request faults"
if diff "$T/why.want" "$T/why.got" >"$T/diff"; then ok; else bad "$cur"; show "$T/diff"; fi
cols xio.path xio.max_count xio.options.raw xio.options.crc xio.size xio.mtime \
	xio.error_code xio.error_message xio.extension | sed -n '2p;6p;8p;29p' >"$T/body.txt"
{ # path max_count raw crc size mtime error_code error_message extension
	printf '\t\t\t\t4000000\t1700000000123456789\t\t\t\n'
	printf 'raw/notes.txt\t360\t1\t1\t\t\t\t\t\n'
	printf '\t\t\t\t\t\t1\tno such file: data/none.bin\t\n'
	printf '\t\t\t\t\t\t\t\t4558542d31323334\n'
} >"$T/body.want"
cur="opcodes capture: body fields"
if diff "$T/body.want" "$T/body.txt" >"$T/diff"; then ok; else bad "$cur"; show "$T/diff"; fi
# 1.2: the cookie of a STAT_REPLY and of READs (token, RAW), none when cut
# short or on a STAT_REQUEST; option COOKIE; error 7; the cut cookie's fault
cols xio.options.cookie xio.cookie xio.error_code xio.request_fault | sed -n '34,39p' >"$T/ck.txt"
ck=c00c1e000102030405060708090a0bff
{ # options.cookie cookie error_code request_fault
	printf '\t%s\t\t\n' "$ck"
	printf '1\t%s\t\t\n' "$ck"
	printf '1\t%s\t\t\n' "$ck"
	printf '\t\t7\t\n'
	printf '1\t\t\trequest body too short for its cookie\n'
	printf '1\t\t\t\n'
} >"$T/ck.want"
cur="opcodes capture: cookies"
if diff "$T/ck.want" "$T/ck.txt" >"$T/diff"; then ok; else bad "$cur"; show "$T/diff"; fi

# The port is a preference: on another port nothing of it is XIO.
ts "$T/op.pcap" 9999 -e xio.opcode -Y xio >"$T/none.txt"
eq "$(wc -l <"$T/none.txt")" 0 "-o xio.udp_port:9999: frames on 7910 dissected"

# No Lua error anywhere in the full trees.
tshark -X "lua_script:$LUA" -r "$T/op.pcap" -V 2>&1 | grep -E 'Lua Error|Malformed Packet' >"$T/err"
if [ -s "$T/err" ]; then bad "opcodes capture: Lua errors"; show "$T/err"; else ok; fi

# ---- coverage: every opcode and every expert was compared -------------------
cur=coverage
for op in 0x01 0x02 0x03 0x04 0x05 0x06; do
	n=$(awk -F'\t' -v c="$(col xio.opcode)" -v op=$op '$c == op' "$T/all-c.txt" | wc -l)
	if [ "$n" -gt 0 ]; then ok; else bad "opcode $op never compared"; fi
done
for x in bad_crc bad_count reserved_flags bad_hdr_len bad_dtype short_body bad_request; do
	n=$(awk -F'\t' -v c="$(col xio.expert.$x)" '$c != ""' "$T/all-w.txt" | wc -l)
	if [ "$n" -gt 0 ]; then ok; else bad "expert $x never raised in the compared frames"; fi
done

echo "wireshark: $compared frames compared ($xio_frames XIO); $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
