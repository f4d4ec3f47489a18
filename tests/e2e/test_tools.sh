#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end tests of the capture tools (run by `make tools`, part of make test):
#  (a) tshark, another implementation, dissects every frame xio-gen writes with
#      the expected checksum status, and an independent Python decoder of
#      tshark's UDP payloads checks every XIO header field, token and CRC32C;
#      the fault options fault exactly the frames they report;
#  (b) xio-verify accepts a capture narrowed by the stage core (narrow_pcap)
#      and rejects lost, duplicated, altered, cut and still-INT32 frames with
#      the exact report lines and exit status 1;
#  (c) bad command lines and unreadable files exit 2 (1 for xio-gen's file
#      errors) with one clear message.
set -u
BUILD=${BUILD:-build}
XIO_VERSION=${XIO_VERSION:?the Makefile passes XIO_VERSION}
GEN=$BUILD/xio-gen
VERIFY=$BUILD/xio-verify
NARROW=$BUILD/tests/narrow_pcap
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. "$(dirname "$0")/lib.sh"

RUN_LOG=$T/out

# has LINE: the last run printed exactly this line.
has() {
	if grep -Fxq -- "$1" "$T/out"; then ok; else bad "$cur: no line '$1'"; sed 's/^/  | /' "$T/out"; fi
}
# lines N REGEX: the last run printed exactly N lines matching REGEX.
lines() {
	local n
	n=$(grep -Ec -- "$2" "$T/out")
	if [ "$n" -eq "$1" ]; then ok; else bad "$cur: $n lines match '$2', expected $1"; sed 's/^/  | /' "$T/out"; fi
}
eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', expected '$2'"; fi; }

# ---- inputs ----------------------------------------------------------------
NTOK=5000
python3 - "$T/tok.bin" "$T/tok.u16" "$NTOK" <<'EOF'
import struct, sys
n = int(sys.argv[3])
t = [(i * 2654435761 + 12345) % 65536 for i in range(n)]
t[0], t[1], t[2] = 0, 65535, 32768
open(sys.argv[1], "wb").write(struct.pack("<%di" % n, *t))
open(sys.argv[2], "wb").write(struct.pack("<%dH" % n, *t))
EOF
# IPv4, MTU 1500: (1500 - 20 - 8 - 32) / 4 = 360 tokens a frame, 14 frames.
PER=360
NFR=$(( (NTOK + PER - 1) / PER ))

# Independent decoder of tshark's output: frame.number, udp.dstport,
# ip.checksum.status, udp.checksum.status, udp.payload (hex), one line each.
cat >"$T/tshark_check.py" <<'EOF'
import struct, sys
tokfile, port, per, stream, crc, udp_status, ip_status = sys.argv[1:8]
port, per, stream, crc = int(port), int(per), int(stream), crc == "1"
tok = open(tokfile, "rb").read()
ntok = len(tok) // 4
nfr = max(1, -(-ntok // per))

def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    return c ^ 0xFFFFFFFF

assert crc32c(b"123456789") == 0xE3069283
errors, seqs = [], []
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    fno, dport, ipst, udpst, pay = f[0], f[1], f[2], f[3], f[4]
    if dport != str(port):
        continue
    if udpst != udp_status or (ip_status != "-" and ipst != ip_status):
        errors.append("frame %s: checksum status ip=%s udp=%s" % (fno, ipst, udpst))
    p = bytes.fromhex(pay)
    magic, ver, op, flags, dt, hl, sid, seq, first, cnt, pcrc = struct.unpack(">HBBBBHIIQII", p[:32])
    want_cnt = min(per, ntok - seq * per) if ntok else 0
    want_flags = (2 if crc else 0) | (1 if seq == nfr - 1 else 0)
    want = (0x5849, 1, 2, want_flags, 1, 32, stream, seq * per, want_cnt)
    got = (magic, ver, op, flags, dt, hl, sid, first, cnt)
    if got != want:
        errors.append("frame %s: header %r, expected %r" % (fno, got, want))
    if p[32:] != tok[4 * first:4 * (first + cnt)] or len(p) != 32 + 4 * cnt:
        errors.append("frame %s: payload differs from the token file" % fno)
    if pcrc != (crc32c(p[32:]) if crc else 0):
        errors.append("frame %s: payload_crc 0x%08x" % (fno, pcrc))
    seqs.append(seq)
if seqs != list(range(nfr)):
    errors.append("seqs %r, expected 0..%d in order" % (seqs[:20], nfr - 1))
for e in errors[:10]:
    print(e)
print("tshark: %d XIO frames, %d errors" % (len(seqs), len(errors)))
EOF

TSHARK_FIELDS=(-T fields -e frame.number -e udp.dstport -e ip.checksum.status
	-e udp.checksum.status -e udp.payload)
tshark_check() { # CAPTURE PORT PER STREAM CRC UDP_STATUS IP_STATUS
	tshark -r "$1" -o udp.check_checksum:TRUE -o ip.check_checksum:TRUE "${TSHARK_FIELDS[@]}" \
		2>/dev/null | python3 "$T/tshark_check.py" "$T/tok.bin" "$2" "$3" "$4" "$5" "$6" "$7"
}
count() { # CAPTURE FILTER: frames tshark's display filter keeps
	tshark -r "$1" -o udp.check_checksum:TRUE -o ip.check_checksum:TRUE -Y "$2" 2>/dev/null | wc -l
}

# ---- (a) xio-gen's captures read by tshark ---------------------------------
echo "--- xio-gen captures through tshark"
run 0 "gen default + 6 foreign" "$GEN" --tokens "$T/tok.bin" --out "$T/a.pcap" --foreign 6
# 13 frames of 14+20+8+32+360*4 bytes, one of 320 tokens; 2 ARP (60 bytes),
# 2 XIO-like UDP of 8 tokens to another port, 2 TCP with 20 data bytes.
bytes=$(( 13 * 1514 + (74 + 320 * 4) + 2 * 60 + 2 * (74 + 32) + 2 * (14 + 20 + 20 + 20) ))
has "xio-gen: $T/a.pcap: 20 frames (14 XIO, 6 foreign), 5000 tokens, $bytes bytes; up to 360 tokens a frame"
run 0 "tshark: default capture" tshark_check "$T/a.pcap" 7910 $PER 1 0 1 1
has "tshark: 14 XIO frames, 0 errors"
eq "$(count "$T/a.pcap" 'udp.dstport == 7910 && udp.checksum.status == 1 && ip.checksum.status == 1')" 14 "XIO frames with good checksums"
eq "$(count "$T/a.pcap" 'udp.length == 1480 && frame.len == 1514')" 13 "full frames fill the 1500 MTU"
eq "$(count "$T/a.pcap" 'udp.length == 1320 && frame.len == 1354')" 1 "last frame: 320 tokens"
eq "$(count "$T/a.pcap" 'arp.opcode == 1 && frame.len == 60')" 2 "foreign ARP requests, padded to 60"
eq "$(count "$T/a.pcap" 'udp.dstport == 7911 && udp.checksum.status == 1')" 2 "foreign UDP to another port"
eq "$(count "$T/a.pcap" 'tcp.dstport == 7910 && ip.checksum.status == 1')" 2 "foreign TCP to the XIO port"

run 0 "gen IPv6 QinQ CRC jumbo" "$GEN" --tokens "$T/tok.bin" --out "$T/b.pcap" --ipv6 --crc \
	--vlan 100 --vlan 200 --mtu 9000 --stream 4000000000 --port 9999
# (9000 - 40 - 8 - 32) / 4 = 2230 tokens a frame: 3 frames
run 0 "tshark: IPv6 QinQ CRC jumbo" tshark_check "$T/b.pcap" 9999 2230 4000000000 1 1 -
has "tshark: 3 XIO frames, 0 errors"
eq "$(count "$T/b.pcap" 'ieee8021ad.id == 100 && vlan.id == 200 && ipv6.nxt == 17 && ipv6.plen == 8960 && frame.len == 9022')" 2 "QinQ IPv6 jumbo frames"

run 0 "gen no UDP checksum + CRC" "$GEN" --tokens "$T/tok.bin" --out "$T/c.pcap" --no-udp-csum --crc --vlan 7
run 0 "tshark: no UDP checksum" tshark_check "$T/c.pcap" 7910 $PER 1 1 3 1
has "tshark: 14 XIO frames, 0 errors"
eq "$(count "$T/c.pcap" 'vlan.id == 7 && udp.checksum == 0')" 14 "802.1Q tag, UDP checksum 0"

run 0 "gen minimum MTU" "$GEN" --tokens "$T/tok.bin" --out "$T/m.pcap" --mtu 64
run 0 "tshark: one token a frame" tshark_check "$T/m.pcap" 7910 1 1 0 1 1
has "tshark: 5000 XIO frames, 0 errors"

: >"$T/empty.bin"
run 0 "gen empty token file" "$GEN" --tokens "$T/empty.bin" --out "$T/e.pcap"
has "xio-gen: $T/e.pcap: 1 frames (1 XIO, 0 foreign), 0 tokens, 74 bytes; up to 360 tokens a frame"
eq "$(count "$T/e.pcap" 'udp.length == 40 && udp.checksum.status == 1 && udp.payload[4] == 01')" 1 "one empty LAST frame"

# Faults: the frames reported are exactly the frames faulted.
run 0 "gen --corrupt 2 --truncate 1" "$GEN" --tokens "$T/tok.bin" --out "$T/f.pcap" --corrupt 2 --truncate 1 --seed 11
lines 2 '^xio-gen: corrupt seq [0-9]+ tokens [0-9]+-[0-9]+$'
lines 1 '^xio-gen: truncate seq [0-9]+ tokens [0-9]+-[0-9]+$'
cseqs=$(sed -n 's/^xio-gen: corrupt seq \([0-9]*\) .*/\1/p' "$T/out" | sort -n | tr '\n' ' ')
tseq=$(sed -n 's/^xio-gen: truncate seq \([0-9]*\) .*/\1/p' "$T/out")
eq "$(tshark -r "$T/f.pcap" -o udp.check_checksum:TRUE -Y 'udp.checksum.status == 0' -T fields -e frame.number 2>/dev/null |
	awk '{print $1 - 1}' | sort -n | tr '\n' ' ')" "$cseqs" "tshark: bad UDP checksums exactly on the corrupted seqs"
eq "$(tshark -r "$T/f.pcap" -Y 'frame.cap_len < frame.len' -T fields -e frame.number 2>/dev/null | awk '{print $1 - 1}')" \
	"$tseq" "tshark: the truncated seq is cut by the capture"
run 0 "gen --drop 2 --duplicate 1" "$GEN" --tokens "$T/tok.bin" --out "$T/g.pcap" --drop 2 --duplicate 1
eq "$(count "$T/g.pcap" 'udp.dstport == 7910')" $((NFR - 2 + 1)) "frames after dropping 2, duplicating 1"
run 0 "gen same seed twice" "$GEN" --tokens "$T/tok.bin" --out "$T/g2.pcap" --drop 2 --duplicate 1
if cmp -s "$T/g.pcap" "$T/g2.pcap"; then ok; else bad "the same arguments give different captures"; fi

# ---- (b) xio-verify --------------------------------------------------------
echo "--- xio-verify"
V() { "$VERIFY" --tokens "$T/tok.bin" "$@"; }
narrow() { "$NARROW" "$@" 2>/dev/null; }
# gen_fault NAME ARGS...: $T/NAME.pcap from xio-gen, $T/NAME.n.pcap narrowed
# by the stage core; the gen report is kept in $T/NAME.gen.
gen_fault() {
	local name=$1
	shift
	"$GEN" --tokens "$T/tok.bin" --out "$T/$name.pcap" "$@" 2>"$T/$name.gen" || bad "gen $name"
	narrow "$T/$name.pcap" "$T/$name.n.pcap" || bad "narrow $name"
}
# fault_range NAME FAULT: "SEQ FIRST LAST" from the gen report.
fault_range() { sed -n "s/^xio-gen: $2 seq \([0-9]*\) tokens \([0-9]*\)-\([0-9]*\)$/\1 \2 \3/p" "$T/$1.gen"; }

gen_fault good --foreign 6 --crc
run 0 "verify: narrowed capture accepted" V --capture "$T/good.n.pcap" --out "$T/good.u16"
has "xio-verify: 20 frames: 14 on XIO port 7910, 6 ignored (4 not IP/UDP, 2 other port, 0 other stream, 0 not READ_REPLY)"
has "xio-verify: stream 1: all 5000 tokens present once and equal, 14 frames"
has "xio-verify: OK"
lines 3 '.'
if cmp -s "$T/good.u16" "$T/tok.u16"; then ok; else bad "verify --out differs from the narrowed token file"; fi

gen_fault v6 --ipv6 --vlan 3 --mtu 9000 --reorder --foreign 9 --stream 42 --seed 5
if cmp -s "$T/v6.pcap" "$T/v6.n.pcap"; then bad "narrowing changed nothing"; else ok; fi
run 0 "verify: IPv6 jumbo reordered accepted" V --capture "$T/v6.n.pcap" --stream 42
has "xio-verify: stream 42: all 5000 tokens present once and equal, 3 frames"
has "xio-verify: OK"
run 1 "verify: other stream id" V --capture "$T/v6.n.pcap" --stream 43
has "xio-verify: 12 frames: 3 on XIO port 7910, 12 ignored (6 not IP/UDP, 3 other port, 3 other stream, 0 not READ_REPLY)"
has "xio-verify: no XIO stream of that id found on port 7910"
has "xio-verify: FAIL: token stream incomplete or wrong"
run 1 "verify: other port" V --capture "$T/good.n.pcap" --port 9999
has "xio-verify: no XIO stream found on port 9999"

run 1 "verify: input capture, nothing narrowed" V --capture "$T/good.pcap"
lines 14 '^xio-verify: frame [0-9]+: stream 1 seq [0-9]+ tokens [0-9]+-[0-9]+: still INT32 \(not narrowed\)$'
has "xio-verify: stream 1: still INT32 tokens 0-4999 (5000 tokens)"
has "xio-verify: FAIL: 14 frames with problems"

gen_fault drop --drop 1 --seed 7
read -r seq first last < <(fault_range drop drop)
run 1 "verify: a frame lost" V --capture "$T/drop.n.pcap"
has "xio-verify: stream 1: missing tokens $first-$last ($((last - first + 1)) tokens)"
if [ "$seq" -lt $((NFR - 1)) ]; then has "xio-verify: stream 1: seq $seq not seen (1 frame)"
else has "xio-verify: stream 1: no frame with the LAST flag passed the checks"; fi
has "xio-verify: FAIL: token stream incomplete or wrong"
lines 0 'frame [0-9]+:'

gen_fault dup --duplicate 1 --seed 8
read -r seq first last < <(fault_range dup duplicate)
run 1 "verify: a frame duplicated" V --capture "$T/dup.n.pcap"
has "xio-verify: stream 1: duplicated tokens $first-$last ($((last - first + 1)) tokens)"
has "xio-verify: stream 1: seq $seq seen more than once (1 frame)"
has "xio-verify: FAIL: token stream incomplete or wrong"

gen_fault oor --out-of-range 1 --seed 9
read -r seq first last < <(fault_range oor out-of-range)
run 1 "verify: a frame still INT32 (out of range, kept)" V --capture "$T/oor.n.pcap"
has "xio-verify: frame $((seq + 1)): stream 1 seq $seq tokens $first-$last: still INT32 (not narrowed)"
has "xio-verify: stream 1: still INT32 tokens $first-$last ($((last - first + 1)) tokens)"
has "xio-verify: FAIL: 1 frame with problems"
"$NARROW" "$T/oor.pcap" "$T/oor.s.pcap" 7910 saturate 2>/dev/null
run 1 "verify: a saturated token" V --capture "$T/oor.s.pcap"
has_re "^xio-verify: stream 1: wrong value at tokens [0-9]+ \(1 token\); token [0-9]+ is 0x(0000|ffff), expected 0x[0-9a-f]{4}$"
wrong=$(sed -n 's/^xio-verify: stream 1: wrong value at tokens \([0-9]*\) .*/\1/p' "$T/out")
if [ -n "$wrong" ] && [ "$wrong" -ge "$first" ] && [ "$wrong" -le "$last" ]; then ok; else bad "saturated token '$wrong' outside $first-$last"; fi

gen_fault cor --corrupt 1 --seed 10
read -r seq first last < <(fault_range cor corrupt)
run 1 "verify: a frame corrupted on the wire" V --capture "$T/cor.n.pcap"
has_re "^xio-verify: frame $((seq + 1)): stream 1 seq $seq tokens $first-$last: bad UDP checksum 0x[0-9a-f]{4} \(expected 0x[0-9a-f]{4}\)$"
has "xio-verify: stream 1: corrupt (only in frames that failed a check) tokens $first-$last ($((last - first + 1)) tokens)"
has "xio-verify: FAIL: 1 frame with problems"

gen_fault crc --corrupt 1 --crc --no-udp-csum --seed 12
read -r seq first last < <(fault_range crc corrupt)
run 1 "verify: a bad CRC32C" V --capture "$T/crc.n.pcap"
has_re "^xio-verify: frame $((seq + 1)): stream 1 seq $seq tokens $first-$last: bad payload CRC32C 0x[0-9a-f]{8} \(expected 0x[0-9a-f]{8}\)$"

gen_fault cut --truncate 1 --seed 13
read -r seq first last < <(fault_range cut truncate)
run 1 "verify: a frame cut short" V --capture "$T/cut.n.pcap"
has_re "^xio-verify: frame $((seq + 1)): stream 1 seq $seq tokens $first-$last: cut short by the capture \([0-9]+ of [0-9]+ bytes\)$"

# Altered after narrowing: frame 3 (seq 2, tokens 720-1079), token 725's low
# byte flipped; once with the UDP checksum left stale, once with it zeroed
# (IPv4: no checksum), which makes the frame valid and only the value wrong.
gen_fault plain
cat >"$T/edit.py" <<'EOF'
import struct, sys
src, dst, frame, off, xor, zero_csum = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
b = bytearray(open(src, "rb").read())
pos, n = 24, 0
while pos < len(b):
    caplen = struct.unpack_from("<I", b, pos + 8)[0]
    n += 1
    if n == frame:
        b[pos + 16 + off] ^= xor
        if zero_csum:
            b[pos + 16 + 40:pos + 16 + 42] = b"\0\0"
    pos += 16 + caplen
open(dst, "wb").write(b)
EOF
python3 "$T/edit.py" "$T/plain.n.pcap" "$T/alt1.pcap" 3 $((74 + 2 * 5)) 1 0
run 1 "verify: a narrowed frame altered" V --capture "$T/alt1.pcap"
has_re "^xio-verify: frame 3: stream 1 seq 2 tokens 720-1079: bad UDP checksum 0x[0-9a-f]{4} \(expected 0x[0-9a-f]{4}\)$"
has "xio-verify: stream 1: corrupt (only in frames that failed a check) tokens 720-1079 (360 tokens)"
has "xio-verify: FAIL: 1 frame with problems"
python3 "$T/edit.py" "$T/plain.n.pcap" "$T/alt2.pcap" 3 $((74 + 2 * 5)) 1 1
want=$(python3 -c "import struct,sys; t=struct.unpack_from('<i', open(sys.argv[1],'rb').read(), 4*725)[0] & 0xffff; print('0x%04x, expected 0x%04x' % (t ^ 1, t))" "$T/tok.bin")
run 1 "verify: a token value altered, checksum off" V --capture "$T/alt2.pcap"
has "xio-verify: stream 1: wrong value at tokens 725 (1 token); token 725 is $want"
has "xio-verify: FAIL: token stream incomplete or wrong"
python3 "$T/edit.py" "$T/plain.n.pcap" "$T/alt3.pcap" 5 $((14 + 20 + 8 + 4)) 4 1
run 1 "verify: NARROWED flag cleared" V --capture "$T/alt3.pcap"
has "xio-verify: frame 5: stream 1 seq 4 tokens 1440-1799: dtype 0x02 with flags 0x00: not a narrowed UINT16"

python3 - "$T/plain.n.pcap" "$T/pad.pcap" 6 <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
pos, n, frame = 24, 0, int(sys.argv[3])
while pos < len(b):
    caplen = struct.unpack_from("<I", b, pos + 8)[0]
    n += 1
    if n == frame:  # 6 bytes of Ethernet padding after the datagram
        struct.pack_into("<II", b, pos + 8, caplen + 6, caplen + 6)
        b[pos + 16 + caplen:pos + 16 + caplen] = bytes(6)
        break
    pos += 16 + caplen
open(sys.argv[2], "wb").write(b)
PY
run 1 "verify: padding after a narrowed datagram" V --capture "$T/pad.pcap"
has "xio-verify: frame 6: stream 1 seq 5 tokens 1800-2159: 6 bytes of Ethernet padding after the IP datagram"

# Two streams in one capture: each is checked against the token file.
"$GEN" --tokens "$T/tok.bin" --out "$T/s2.pcap" --stream 2 2>/dev/null
narrow "$T/s2.pcap" "$T/s2.n.pcap"
python3 - "$T/plain.n.pcap" "$T/s2.n.pcap" "$T/two.pcap" <<'EOF'
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
open(sys.argv[3], "wb").write(a + b[24:])
EOF
run 0 "verify: two complete streams" V --capture "$T/two.pcap"
has "xio-verify: stream 1: all 5000 tokens present once and equal, 14 frames"
has "xio-verify: stream 2: all 5000 tokens present once and equal, 14 frames"
run 2 "verify: --out with two streams" V --capture "$T/two.pcap" --out "$T/x.u16"
has "xio-verify: --out: the capture holds 2 streams; choose one with --stream"
run 0 "verify: --out of one of two streams" V --capture "$T/two.pcap" --stream 2 --out "$T/s2.u16"
if cmp -s "$T/s2.u16" "$T/tok.u16"; then ok; else bad "verify --stream 2 --out differs"; fi

# The committed sample is what scripts/make-sample.sh makes, and verifies
# once narrowed by the stage core.
run 0 "pcap/sample.pcap regenerates byte for byte" env BUILD="$BUILD" bash scripts/make-sample.sh --check
has "make-sample: pcap/sample.pcap and pcap/sample-tokens.bin match a fresh build"
narrow pcap/sample.pcap "$T/sample.n.pcap"
run 0 "verify: sample narrowed" "$VERIFY" --capture "$T/sample.n.pcap" --tokens pcap/sample-tokens.bin
has "xio-verify: 302 frames: 278 on XIO port 7910, 24 ignored (16 not IP/UDP, 8 other port, 0 other stream, 0 not READ_REPLY)"
has "xio-verify: stream 1: all 100000 tokens present once and equal, 278 frames"

# ---- (c) bad command lines and files ---------------------------------------
echo "--- bad command lines"
G() { "$GEN" --tokens "$T/tok.bin" --out "$T/bad.pcap" "$@"; }
run 2 "gen: no arguments" "$GEN"
has "xio-gen: --tokens FILE is required (try --help)"
run 2 "gen: no --out" "$GEN" --tokens "$T/tok.bin"
has "xio-gen: --out CAP.pcap is required (try --help)"
run 2 "gen: port 0" G --port 0
has "xio-gen: --port '0': expected a number in 1..65535 (try --help)"
run 2 "gen: port 70000" G --port 70000
has "xio-gen: --port '70000': expected a number in 1..65535 (try --help)"
run 2 "gen: port abc" G --port abc
has "xio-gen: --port 'abc': expected a number in 1..65535 (try --help)"
run 2 "gen: mtu 9001" G --mtu 9001
has "xio-gen: --mtu '9001': expected a number in 1..9000 (try --help)"
run 2 "gen: mtu 63" G --mtu 63
has "xio-gen: --mtu 63: too small to carry one token over IPv4 (minimum 64) (try --help)"
run 2 "gen: mtu 83 IPv6" G --mtu 83 --ipv6
has "xio-gen: --mtu 83: too small to carry one token over IPv6 (minimum 84) (try --help)"
run 2 "gen: vlan 4096" G --vlan 4096
has "xio-gen: --vlan '4096': expected a number in 0..4095 (try --help)"
run 2 "gen: three vlans" G --vlan 1 --vlan 2 --vlan 3
has "xio-gen: --vlan given more than twice (at most 2 tags) (try --help)"
run 2 "gen: negative stream" G --stream -1
has "xio-gen: --stream '-1': expected a number in 0..4294967295 (try --help)"
run 2 "gen: too many faults" G --drop 10 --corrupt 5
has "xio-gen: the faults ask for 15 distinct frames but the stream has 14 frames carrying tokens (try --help)"
run 2 "gen: unknown option" G --bogus
has "xio-gen: unknown or ambiguous option '--bogus' (try --help)"
run 2 "gen: missing value" G --port
has "xio-gen: option '--port' needs a value (try --help)"
run 2 "gen: stray argument" G extra
has "xio-gen: unexpected argument 'extra' (try --help)"
run 1 "gen: missing token file" "$GEN" --tokens "$T/none.bin" --out "$T/bad.pcap"
has "xio-gen: $T/none.bin: No such file or directory"
printf 'abcde' >"$T/odd.bin"
run 1 "gen: token file of 5 bytes" "$GEN" --tokens "$T/odd.bin" --out "$T/bad.pcap"
has "xio-gen: $T/odd.bin: size 5 is not a multiple of 4 (expected raw little-endian INT32 tokens)"
run 1 "gen: unwritable output" G --out "$T/no/such/dir.pcap"
has_re "^xio-gen: $T/no/such/dir.pcap: No such file or directory$"
if [ -e "$T/bad.pcap" ]; then bad "a failed xio-gen left $T/bad.pcap"; else ok; fi
run 0 "gen: --help" "$GEN" --help
has "Usage: xio-gen --tokens FILE --out CAP.pcap [options]"
run 0 "gen: --version" "$GEN" --version
has "xio-gen $XIO_VERSION"

run 2 "verify: no arguments" "$VERIFY"
has "xio-verify: --capture CAP.pcap is required (try --help)"
run 2 "verify: no --tokens" "$VERIFY" --capture "$T/good.n.pcap"
has "xio-verify: --tokens FILE is required (try --help)"
run 2 "verify: port 0" V --capture "$T/good.n.pcap" --port 0
has "xio-verify: --port '0': expected a number in 1..65535 (try --help)"
run 2 "verify: bad stream" V --capture "$T/good.n.pcap" --stream x
has "xio-verify: --stream 'x': expected a number in 0..4294967295 (try --help)"
run 2 "verify: unknown option" V --capture "$T/good.n.pcap" --frobnicate
has "xio-verify: unknown or ambiguous option '--frobnicate' (try --help)"
run 2 "verify: missing capture" V --capture "$T/none.pcap"
has "xio-verify: $T/none.pcap: No such file or directory"
run 2 "verify: not a pcap" V --capture "$T/tok.bin"
has_re "^xio-verify: $T/tok.bin: not a pcap file \(.+\)$"
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))" "$T/raw.pcap"
run 2 "verify: not Ethernet" V --capture "$T/raw.pcap"
has "xio-verify: $T/raw.pcap: link type RAW (Raw IP), expected Ethernet (EN10MB)"
run 2 "verify: token file of 5 bytes" "$VERIFY" --capture "$T/good.n.pcap" --tokens "$T/odd.bin"
has "xio-verify: $T/odd.bin: size 5 is not a multiple of 4 (expected raw little-endian INT32 tokens)"
head -c 1000 "$T/good.n.pcap" >"$T/short.pcap"
run 2 "verify: capture cut in a record" V --capture "$T/short.pcap"
has_re "^xio-verify: $T/short.pcap: truncated dump file"
run 0 "verify: --help" "$VERIFY" --help
has "Usage: xio-verify --capture CAP.pcap --tokens FILE [--port P] [--stream ID] [--out FILE.u16]"
run 0 "verify: --version" "$VERIFY" --version
has "xio-verify $XIO_VERSION"

echo "tools: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
