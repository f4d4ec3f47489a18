#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""xio_client.py: a small client of the XIO read protocol for the server's
end-to-end tests, written from ../shared/xio-read-v1.md alone (it shares no
code with the server: Python's stdlib only, its own CRC32C). Version 1.2:
it keeps the cookie a STAT_REPLY gives and sends it on every READ_REQUEST;
on ERROR_REPLY cookie it STATs again and asks again (three fresh cookies
refused in a row: a failure).

Each command checks what it gets to the letter of the spec and fails with a
message naming the first difference; --tally FILE writes what the server
must have counted for this client's datagrams (tests/server/e2e.sh adds the
tallies up and compares them with the server's stats JSON, key by key).

  read     a file, STAT then READ_REQUESTs one at a time, every datagram in
           order, exactly once, compared with the original
  errors   one request per ERROR_REPLY code, the exact code back
  expect   one request, one ERROR_REPLY of a given code back
  hostile  N hostile datagrams (garbage, replies, bad and refused requests,
           paths out of the root), every answer checked, none where none is due
  refused  requests from an address outside --allow: no answer at all
  cookies  READs without a valid cookie (none, wrong, another address's, RAW),
           and one forged from another source address through a raw socket:
           ERROR_REPLY cookie only, never data, every answer <= 3x the request
  check    the sum of tallies against a stats JSON
"""
import argparse
import json
import os
import random
import socket
import struct
import sys
import time

MAGIC, VERSION, HDR = 0x5849, 1, 32
READ_REQUEST, READ_REPLY, ERROR_REPLY, STAT_REQUEST, STAT_REPLY, DATA_REPLY = 1, 2, 3, 4, 5, 6
LAST, HAS_CRC, NARROWED = 1, 2, 4
INT32 = 1
OPT_RAW, OPT_CRC, OPT_COOKIE = 1, 2, 4
ERRORS = {1: "not_found", 2: "access", 3: "range", 4: "bad_request", 5: "not_tokens", 6: "io",
          7: "cookie"}
COOKIE_LEN = 16
COOKIE_TRIES = 3  # fresh cookies refused in a row before a read fails
HDR_FMT = ">HBBBBHIIQII"


def fail(msg):
    print("xio_client: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc_table()


def crc32c(data):
    c = 0xFFFFFFFF
    t = CRC_TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def header(opcode, stream_id, first=0, count=0, flags=0, dtype=0, hdr_len=HDR, seq=0, crc=0,
           magic=MAGIC, version=VERSION):
    return struct.pack(HDR_FMT, magic, version, opcode, flags, dtype, hdr_len, stream_id, seq,
                       first, count, crc)


def request(opcode, stream_id, path, first=0, count=0, max_count=0, options=0, flags=0,
            dtype=0, ext=b"", path_len=None, pad=True, cookie=None):
    """A request; with cookie (16 bytes), option COOKIE and the cookie after
    the path's padding."""
    if isinstance(path, str):
        path = path.encode()
    if cookie is not None:
        options |= OPT_COOKIE
    body = struct.pack(">HHB3x", len(path) if path_len is None else path_len, max_count,
                       options) + path
    if pad or cookie is not None:
        body += b"\0" * (-len(body) % 4)
    if cookie is not None:
        body += cookie
    return header(opcode, stream_id, first, count, flags, dtype, HDR + len(ext)) + ext + body


def parse(dg):
    """The header fields of an answer, checked as every answer must be."""
    if len(dg) < HDR:
        fail("answer of %d bytes, shorter than a header" % len(dg))
    h = dict(zip(("magic", "version", "opcode", "flags", "dtype", "hdr_len", "stream_id", "seq",
                  "first", "count", "crc"), struct.unpack(HDR_FMT, dg[:HDR])))
    if h["magic"] != MAGIC or h["version"] != VERSION or h["hdr_len"] != HDR:
        fail("answer header %r: magic, version or hdr_len wrong" % h)
    if h["flags"] & ~(LAST | HAS_CRC):
        fail("answer flags %#x: only LAST and HAS_CRC may be set by a server" % h["flags"])
    return h


class Tally(dict):
    """What the server must count for this client's datagrams."""

    KEYS = ("received", "refused", "ignored", "datagrams", "bytes", "file_bytes",
            "cookies_issued")

    def __init__(self):
        super().__init__({k: 0 for k in self.KEYS})
        self["requests_by_opcode"] = {"read_request": 0, "stat_request": 0}
        self["answers_by_opcode"] = {"read_reply": 0, "data_reply": 0, "stat_reply": 0,
                                     "error_reply": 0}
        self["errors_by_code"] = {n: 0 for n in ERRORS.values()}

    def sent_request(self, opcode):
        self["received"] += 1
        self["requests_by_opcode"]["stat_request" if opcode == STAT_REQUEST
                                   else "read_request"] += 1

    def got(self, dg, file_bytes=0):
        self["datagrams"] += 1
        self["bytes"] += len(dg)
        self["file_bytes"] += file_bytes

    def save(self, path):
        if path:
            with open(path, "w") as f:
                json.dump(self, f)


class Client:
    def __init__(self, args):
        self.server = args.server
        self.port = args.port
        info = socket.getaddrinfo(args.server, args.port, type=socket.SOCK_DGRAM)[0]
        self.family, self.addr = info[0], info[4]
        self.sock = socket.socket(self.family, socket.SOCK_DGRAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)  # SO_RCVBUFFORCE
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
        if args.source:
            self.sock.bind((args.source, 0))
        self.timeout = args.timeout
        self.sid = random.Random(os.getpid() ^ id(self)).randrange(1, 1 << 30)
        self.tally = Tally()
        self.cookie = None  # the last STAT_REPLY's, None from a 1.0 server
        self.want_cookie = getattr(args, "cookies", None)  # "on", "off" or None: either
        self.refreshes = 0  # ERROR_REPLY cookie answered by a new STAT

    def stream_id(self):
        self.sid = self.sid % 0xFFFFFFFF + 1
        return self.sid

    def send(self, dg):
        self.sock.sendto(dg, self.addr)

    def recv(self, timeout=None):
        self.sock.settimeout(self.timeout if timeout is None else timeout)
        try:
            dg, src = self.sock.recvfrom(65536)
        except socket.timeout:
            return None
        if src[1] != self.port or socket.inet_pton(self.family, src[0]) != \
                socket.inet_pton(self.family, self.addr[0]):
            fail("answer from %r, not from the server %r" % (src[:2], self.addr[:2]))
        return dg

    def cookie_for(self, path):
        """A STAT of path for this address's cookie (None from a server that
        does not validate addresses)."""
        st, code = self.stat(path)
        if st is None:
            fail("STAT %s: ERROR_REPLY %s" % (path, ERRORS.get(code, code)))
        return self.cookie

    def expect_silence(self, seconds, what):
        dg = self.recv(seconds)
        if dg is not None:
            fail("%s: got an answer %r, expected none" % (what, parse(dg)))

    def stat(self, path):
        sid = self.stream_id()
        self.send(request(STAT_REQUEST, sid, path))
        self.tally.sent_request(STAT_REQUEST)
        dg = self.recv()
        if dg is None:
            fail("STAT %s: no answer" % path)
        h = parse(dg)
        self.tally.got(dg)
        if h["stream_id"] != sid:
            fail("STAT %s: stream_id %d, expected %d" % (path, h["stream_id"], sid))
        if h["opcode"] == ERROR_REPLY:
            self.tally["answers_by_opcode"]["error_reply"] += 1
            code = struct.unpack(">I", dg[HDR:HDR + 4])[0]
            self.tally["errors_by_code"][ERRORS.get(code, "?")] += 1
            return None, code
        if h["opcode"] != STAT_REPLY or len(dg) not in (HDR + 16, HDR + 16 + COOKIE_LEN):
            fail("STAT %s: answer %r of %d bytes" % (path, h, len(dg)))
        self.tally["answers_by_opcode"]["stat_reply"] += 1
        size, mtime = struct.unpack(">QQ", dg[HDR:HDR + 16])
        self.cookie = dg[HDR + 16:] if len(dg) == HDR + 16 + COOKIE_LEN else None
        if self.cookie is not None:
            self.tally["cookies_issued"] += 1
        if self.want_cookie and (self.cookie is not None) != (self.want_cookie == "on"):
            fail("STAT %s: %d-byte body, expected %s" % (
                path, len(dg) - HDR, "a cookie (32)" if self.want_cookie == "on" else "16"))
        want = {"flags": LAST, "seq": 0, "count": 0, "first": size // 4,
                "dtype": INT32 if size % 4 == 0 else 0}
        for k, v in want.items():
            if h[k] != v:
                fail("STAT %s: %s %d, expected %d" % (path, k, h[k], v))
        return (size, mtime), 0


def read_range(c, args, path, first, count, units, width, options):
    """One READ_REQUEST: its datagrams in order, checked; yields payloads.
    ERROR_REPLY cookie (before any datagram): a new STAT, the same range
    asked again, up to COOKIE_TRIES fresh cookies refused in a row."""
    refused = 0
    while True:
        sid = c.stream_id()
        dg = request(READ_REQUEST, sid, path, first, count, args.max_count, options,
                     cookie=c.cookie)
        c.send(dg)
        c.tally.sent_request(READ_REQUEST)
        if args.say_sent:
            print("xio_client: READ [%d, +%d) sent" % (first, count), flush=True)
        answer = c.recv()
        if answer is None or len(answer) < HDR + 4 or parse(answer)["opcode"] != ERROR_REPLY or \
                struct.unpack(">I", answer[HDR:HDR + 4])[0] != 7:
            break
        check_error(c, answer, sid, first, 7, "READ %s [%d, +%d)" % (path, first, count),
                    request_len=len(dg))
        refused += 1
        if refused == COOKIE_TRIES:
            fail("READ %s: %d fresh cookies refused in a row: does a NAT change this "
                 "client's source address?" % (path, refused))
        st, code = c.stat(path)
        if st is None:
            fail("STAT %s for a new cookie: ERROR_REPLY %s" % (path, ERRORS.get(code, code)))
        c.refreshes += 1
    end = min(first + count, units)
    limit = args.max_count or (1 << 32)
    seq, at = 0, first
    raw = options & OPT_RAW
    while True:
        dg, answer = answer, None
        if dg is None:
            dg = c.recv()
        if dg is None:
            fail("READ %s [%d, %d): nothing after datagram %d" % (path, first, end, seq))
        h = parse(dg)
        where = "READ %s [%d, %d) datagram %d" % (path, first, end, seq)
        if h["stream_id"] != sid:
            fail("%s: stream_id %d, expected %d" % (where, h["stream_id"], sid))
        if h["opcode"] == ERROR_REPLY:
            code = struct.unpack(">I", dg[HDR:HDR + 4])[0]
            fail("%s: ERROR_REPLY %s" % (where, ERRORS.get(code, code)))
        want_op, want_dt = (DATA_REPLY, 0) if raw else (READ_REPLY, INT32)
        if h["opcode"] != want_op or h["dtype"] != want_dt:
            fail("%s: opcode %d dtype %d" % (where, h["opcode"], h["dtype"]))
        if h["seq"] != seq or h["first"] != at:
            fail("%s: seq %d first %d, expected seq %d first %d" % (where, h["seq"], h["first"],
                                                                     seq, at))
        n = h["count"]
        payload = dg[HDR:]
        if n < 1 or n > limit or len(payload) != n * width or at + n > end:
            fail("%s: token_count %d, payload %d bytes (max_count %d, range end %d)" % (
                where, n, len(payload), args.max_count, end))
        last = at + n == end
        if bool(h["flags"] & LAST) != last:
            fail("%s: LAST %s at first %d count %d of [%d, %d)" % (
                where, bool(h["flags"] & LAST), at, n, first, end))
        if not last and args.expect_per and n != args.expect_per:
            fail("%s: %d units, expected full datagrams of %d" % (where, n, args.expect_per))
        if bool(h["flags"] & HAS_CRC) != bool(options & OPT_CRC):
            fail("%s: HAS_CRC %s" % (where, bool(h["flags"] & HAS_CRC)))
        if options & OPT_CRC:
            if crc32c(payload) != h["crc"]:
                fail("%s: payload_crc %#x, CRC32C is %#x" % (where, h["crc"], crc32c(payload)))
        elif h["crc"] != 0:
            fail("%s: payload_crc %#x without HAS_CRC" % (where, h["crc"]))
        c.tally.got(dg, len(payload))
        yield at, payload
        seq += 1
        at += n
        if last:
            c.tally["answers_by_opcode"]["data_reply" if raw else "read_reply"] += 1
            return


def cmd_read(args):
    c = Client(args)
    (size, _), code = c.stat(args.path)
    if code:
        fail("STAT %s: ERROR_REPLY %s" % (args.path, ERRORS.get(code)))
    options = (OPT_RAW if args.raw else 0) | (OPT_CRC if args.crc else 0)
    width = 1 if args.raw else 4
    units = size if args.raw else size // 4
    out = bytearray(units * width)
    first = args.first
    start = time.monotonic()
    while first < units and (args.count is None or first < args.first + args.count):
        count = args.chunk if args.count is None else min(args.chunk,
                                                            args.first + args.count - first)
        for at, payload in read_range(c, args, args.path, first, count, units, width, options):
            out[at * width:at * width + len(payload)] = payload
        first += count
    took = time.monotonic() - start
    if took < args.min_seconds:
        fail("%s: read in %.3f s, faster than --rate allows (%.3f s)" % (args.path, took,
                                                                          args.min_seconds))
    c.expect_silence(0.2, "after the last READ answer")
    with open(args.compare, "rb") as f:
        f.seek(args.first * width)
        want = f.read(len(out) - args.first * width if args.count is None
                      else min(args.count, units - args.first) * width)
    got = bytes(out[args.first * width:args.first * width + len(want)])
    if got != want:
        i = next(i for i in range(len(want)) if got[i] != want[i])
        fail("%s: byte %d differs from %s" % (args.path, args.first * width + i, args.compare))
    if c.refreshes < args.min_refreshes:
        fail("%s: %d cookie refreshes, expected at least %d" % (args.path, c.refreshes,
                                                                 args.min_refreshes))
    c.tally.save(args.tally)
    print("xio_client: read %s: %d bytes in order, exactly once%s%s%s" % (
        args.path, len(want), ", CRC checked" if args.crc else "", ", raw" if args.raw else "",
        ", %d cookie refreshes" % c.refreshes if c.refreshes else ""))


def error_cases():
    """(request builder args, expected code) per case: the e2e root's layout."""
    rq = READ_REQUEST
    return [
        ((rq, "missing.bin", 0, 1), 1),
        ((STAT_REQUEST, "dir/missing.bin", 0, 0), 1),
        ((rq, "tokens.bin/x", 0, 1), 1),
        ((rq, "../outside.bin", 0, 1), 2),
        ((rq, "/etc/passwd", 0, 1), 2),
        ((rq, "link-out", 0, 1), 2),
        ((STAT_REQUEST, "dir", 0, 0), 2),
        ((rq, "fifo", 0, 1), 2),
        ((rq, "tokens.bin", 1 << 40, 1), 3),
        ((rq, "odd.bin", 0, 1), 5),
    ]


def check_error(c, dg, sid, first, code, what, request_len=None):
    """dg must be ERROR_REPLY code to stream sid; with request_len, at most
    three times that (the size rule of a validating server)."""
    if dg is None:
        fail("%s: no answer, expected ERROR_REPLY %s" % (what, ERRORS[code]))
    h = parse(dg)
    if h["opcode"] != ERROR_REPLY:
        fail("%s: opcode %d, expected ERROR_REPLY %s" % (what, h["opcode"], ERRORS[code]))
    got, mlen = struct.unpack(">II", dg[HDR:HDR + 8])
    want = {"stream_id": sid, "flags": LAST, "seq": 0, "dtype": 0, "first": first, "count": 0}
    for k, v in want.items():
        if h[k] != v:
            fail("%s: %s %d, expected %d" % (what, k, h[k], v))
    if got != code:
        fail("%s: ERROR_REPLY %s, expected %s" % (what, ERRORS.get(got, got), ERRORS[code]))
    if len(dg) != HDR + 8 + mlen + (-(8 + mlen) % 4) or any(dg[HDR + 8 + mlen:]):
        fail("%s: message length %d in a %d-byte answer" % (what, mlen, len(dg)))
    if request_len is not None and len(dg) > 3 * request_len:
        fail("%s: %d-byte answer to a %d-byte request, more than three times" % (
            what, len(dg), request_len))
    c.tally.got(dg)
    c.tally["answers_by_opcode"]["error_reply"] += 1
    c.tally["errors_by_code"][ERRORS[code]] += 1


def cmd_expect(args):
    c = Client(args)
    code = {v: k for k, v in ERRORS.items()}[args.code]
    op = STAT_REQUEST if args.stat else READ_REQUEST
    if not args.stat:
        c.cookie_for(args.cookie_path)
    sid = c.stream_id()
    dg = request(op, sid, args.path, args.first, 0 if args.stat else args.count,
                 cookie=None if args.stat else c.cookie)
    c.send(dg)
    c.tally.sent_request(op)
    check_error(c, c.recv(), sid, args.first, code, "%s %s" % ("STAT" if args.stat else "READ",
                                                              args.path), len(dg))
    c.tally.save(args.tally)
    print("xio_client: %s: ERROR_REPLY %s" % (args.path, args.code))


def cmd_errors(args):
    c = Client(args)
    c.cookie_for("tokens.bin")
    for (op, path, first, count), code in error_cases():
        sid = c.stream_id()
        dg = request(op, sid, path, first, count, cookie=c.cookie if op == READ_REQUEST else None)
        c.send(dg)
        c.tally.sent_request(op)
        check_error(c, c.recv(), sid, first, code, "%s %s" % (
            "STAT" if op == STAT_REQUEST else "READ", path), len(dg))
    # bad_request: token_count 0, and too large, with or without a cookie
    for count in (0, 16777217):
        for cookie in (c.cookie, None):
            sid = c.stream_id()
            dg = request(READ_REQUEST, sid, "tokens.bin", 7, count, cookie=cookie)
            c.send(dg)
            c.tally.sent_request(READ_REQUEST)
            check_error(c, c.recv(), sid, 7, 4, "READ token_count %d" % count, len(dg))
    c.tally.save(args.tally)
    print("xio_client: errors: every code as the spec says")


def hostile_datagram(rng, c, kind):
    """One hostile datagram of a kind: (bytes, expected answer) where the
    answer is None (no answer), ("error", code, sid, first) or ("stat", sid)."""
    sid = c.stream_id()
    if kind == "garbage":
        dg = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 80)))
        if dg[:2] == b"XI":
            dg = b"\0" + dg[1:]
        return dg, None
    if kind == "version":
        dg = request(STAT_REQUEST, sid, "tokens.bin")
        return dg[:2] + bytes([rng.choice([0, 2, 255])]) + dg[3:], None
    if kind == "short":
        return request(STAT_REQUEST, sid, "tokens.bin")[:rng.randrange(2, HDR)], None
    if kind == "hdr_len":
        dg = bytearray(request(STAT_REQUEST, sid, "tokens.bin"))
        bad = rng.choice([0, 4, 28, 30, 33, 34, len(dg) + 4, 0xFFFC])
        struct.pack_into(">H", dg, 6, bad)
        return bytes(dg), None
    if kind == "reply":
        op = rng.choice([0, READ_REPLY, ERROR_REPLY, STAT_REPLY, DATA_REPLY, 7, 0x80, 0xFF])
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
        return header(op, sid, rng.randrange(1 << 20), rng.randrange(400), flags=LAST,
                      dtype=INT32) + body, None
    first = rng.randrange(1 << 16)
    if kind == "bad_request":
        case = rng.randrange(9)
        op = rng.choice([READ_REQUEST, STAT_REQUEST]) if case < 6 else READ_REQUEST
        count = 5 if op == READ_REQUEST else 0
        if op == STAT_REQUEST:
            first = 0
        if case == 0:
            dg = request(op, sid, "tokens.bin", first, count, flags=rng.choice([1, 2, 4, 8, 0x80]))
        elif case == 1:
            dg = request(op, sid, "tokens.bin", first, count, dtype=rng.choice([1, 2, 9]))
        elif case == 2:
            dg = header(op, sid, first, count) + bytes(rng.randrange(8))  # body too short
        elif case == 3:
            dg = request(op, sid, "", first, count)  # path_len 0
        elif case == 4:
            dg = request(op, sid, "a" * 1025, first, count)
        elif case == 5:
            dg = request(op, sid, "tokens.bin", first, count, path_len=200)  # past the end
        elif case == 6:
            dg = request(op, sid, "tokens.bin", first, count,
                         options=rng.choice([4, 8, 0x80, 0xFC]))
        elif case == 7:
            dg = request(op, sid, "tokens.bin", first, 0)
        else:
            dg = request(op, sid, "tokens.bin", first, 16777217 + rng.randrange(1 << 20))
        return dg, ("error", 4, sid, first)
    if kind == "escape":
        path = rng.choice(["../outside.bin", "/etc/passwd", "link-out", "dir/../tokens.bin",
                           "./tokens.bin", "dir//nested.bin", "dir/", "tok\0ens.bin", "dir",
                           "fifo", "link-dir-out/outside.bin", "."])
        return request(READ_REQUEST, sid, path, first, 3, cookie=c.cookie), \
            ("error", 2, sid, first)
    if kind == "missing":
        return request(READ_REQUEST, sid, "missing-%d" % rng.randrange(10 ** 6), first, 1,
                       cookie=c.cookie), ("error", 1, sid, first)
    if kind == "no_cookie":  # only a validating server refuses it, before the path
        path = rng.choice(["tokens.bin", "../outside.bin", "missing", "fifo"])
        want = ("error", 7, sid, first) if c.cookie is not None else \
            ("error", 2 if path in ("../outside.bin", "fifo") else 1 if path == "missing"
             else 0, sid, first)
        if want[1] == 0:
            first = 1 << 40  # past the end: range, so that no data comes
            want = ("error", 3, sid, first)
        return request(READ_REQUEST, sid, path, first, 3), want
    if kind == "extension":  # hdr_len > 32: the body starts after the extension
        ext = bytes(rng.randrange(256) for _ in range(4 * rng.randrange(1, 9)))
        return request(STAT_REQUEST, sid, "tokens.bin", ext=ext), ("stat", sid)
    raise ValueError(kind)


KINDS = ("garbage", "version", "short", "hdr_len", "reply", "bad_request", "escape", "missing",
         "extension", "no_cookie")
SYNC = 1000  # hostile datagrams between two synchronising STATs


def cmd_hostile(args):
    c = Client(args)
    c.cookie_for(args.path)
    rng = random.Random(args.seed)
    sent = 0
    while sent < args.count:
        pending = {}
        for _ in range(min(SYNC, args.count - sent)):
            dg, want = hostile_datagram(rng, c, rng.choice(KINDS))
            c.send(dg)
            sent += 1
            if want is None:
                c.tally["received"] += 1
                c.tally["ignored"] += 1
            else:
                c.tally.sent_request(READ_REQUEST if dg[3] == READ_REQUEST else STAT_REQUEST)
                pending[want[2] if want[0] == "error" else want[1]] = want
        # one worker answers a client in request order: a STAT closes the batch
        sync = c.stream_id()
        c.send(request(STAT_REQUEST, sync, args.path))
        c.tally.sent_request(STAT_REQUEST)
        pending[sync] = ("stat", sync)
        drain(c, pending, sync)
    c.tally.save(args.tally)
    print("xio_client: hostile: %d datagrams, every answer as expected, server still serving"
          % sent)


def drain(c, pending, sync):
    """The answers to a batch, up to the synchronising STAT's, against pending."""
    while pending:
        dg = c.recv()
        if dg is None:
            fail("%d hostile requests unanswered (e.g. stream %d)" % (
                len(pending), next(iter(pending))))
        h = parse(dg)
        want = pending.pop(h["stream_id"], None)
        if want is None:
            fail("answer to stream %d, which asked for none" % h["stream_id"])
        if want[0] == "error":
            check_error(c, dg, want[2], want[3], want[1], "hostile stream %d" % want[2])
        elif h["opcode"] != STAT_REPLY or len(dg) != HDR + 16 + (
                COOKIE_LEN if c.cookie is not None else 0):
            fail("stream %d: opcode %d, %d bytes, expected a STAT_REPLY" % (
                want[1], h["opcode"], len(dg)))
        else:
            c.tally.got(dg)
            c.tally["answers_by_opcode"]["stat_reply"] += 1
            if c.cookie is not None:
                c.tally["cookies_issued"] += 1
                c.cookie = dg[HDR + 16:]
        if h["stream_id"] == sync and pending:
            fail("%d hostile requests unanswered before the STAT that followed them (e.g. "
                 "stream %d)" % (len(pending), next(iter(pending))))


def refused_read(c, what, dg, sid, first):
    """Sends a READ that a validating server must refuse: ERROR_REPLY cookie,
    at most three times the request, then nothing (no data)."""
    c.send(dg)
    c.tally.sent_request(READ_REQUEST)
    check_error(c, c.recv(), sid, first, 7, what, len(dg))
    c.expect_silence(0.2, what + ", after its ERROR_REPLY cookie")


def udp4_forged(src, sport, dst, dport, payload):
    """An IPv4 datagram from src (any address) for a raw IP_HDRINCL socket:
    the kernel fills the IP checksum; UDP checksum 0 (none)."""
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 8 + len(payload), 0, 0x4000, 64,
                     socket.IPPROTO_UDP, 0, socket.inet_aton(src), socket.inet_aton(dst))
    return ip + struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload


def cmd_cookies(args):
    c = Client(args)
    c.want_cookie = "on"
    other = argparse.Namespace(**vars(args))
    other.source = args.other
    c2 = Client(other)
    c2.want_cookie = "on"
    mine = c.cookie_for(args.path)
    theirs = c2.cookie_for(args.path)
    if mine == theirs:
        fail("%s and %s were given the same cookie" % (args.source, args.other))
    if c.cookie_for(args.path) != mine:
        fail("a second STAT gave %s another cookie within the period" % args.source)
    wrong = bytes([mine[0] ^ 1]) + mine[1:]
    cases = [("READ without cookie", 0, None), ("READ with a wrong cookie", 0, wrong),
             ("READ with %s's cookie" % args.other, 0, theirs),
             ("RAW READ without cookie", OPT_RAW, None),
             ("RAW READ with %s's cookie" % args.other, OPT_RAW | OPT_CRC, theirs)]
    for what, opts, cookie in cases:
        for path in (args.path, "missing.bin", "../outside.bin"):
            sid = c.stream_id()
            refused_read(c, "%s of %s" % (what, path), request(
                READ_REQUEST, sid, path, 0, 1 << 24, 0, opts, cookie=cookie), sid, 0)
    # the right cookies read: one datagram of 10 tokens each
    for cl, ck in ((c, mine), (c2, theirs)):
        sid = cl.stream_id()
        cl.send(request(READ_REQUEST, sid, args.path, 0, 10, cookie=ck))
        cl.tally.sent_request(READ_REQUEST)
        dg = cl.recv()
        if dg is None or parse(dg)["opcode"] != READ_REPLY or parse(dg)["count"] != 10:
            fail("READ with its own cookie: %r" % (dg and parse(dg)))
        cl.tally.got(dg, 40)
        cl.tally["answers_by_opcode"]["read_reply"] += 1
    # forged from args.forge through a raw socket: what reaches that address
    listen = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listen.bind((args.forge, 0))
    fport = listen.getsockname()[1]
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    forged = 0
    for cookie in (None, mine, wrong):
        sid = c.stream_id()
        dg = request(READ_REQUEST, sid, args.path, 0, 1 << 24, cookie=cookie)
        raw.sendto(udp4_forged(args.forge, fport, c.addr[0], c.port, dg), (c.addr[0], 0))
        c.tally.sent_request(READ_REQUEST)
        listen.settimeout(args.timeout)
        try:
            answer = listen.recv(65536)
        except socket.timeout:
            fail("forged READ from %s: no ERROR_REPLY cookie reached it" % args.forge)
        check_error(c, answer, sid, 0, 7, "forged READ from %s" % args.forge, len(dg))
        forged += 1
    listen.settimeout(0.5)
    try:
        extra = listen.recv(65536)
        fail("forged READs from %s: a %d-byte datagram (opcode %d) reached it after the "
             "errors" % (args.forge, len(extra), parse(extra)["opcode"]))
    except socket.timeout:
        pass
    for cl in (c, c2):
        cl.expect_silence(0.2, "after the refused READs")
    c.tally.save(args.tally)
    c2.tally.save(args.tally2)
    print("xio_client: cookies: %d READs without a valid cookie and %d forged from %s: "
          "ERROR_REPLY cookie only, each <= 3x its request, no data" % (
              len(cases) * 3, forged, args.forge))


def cmd_refused(args):
    if not args.source:
        fail("refused: give --source, an address outside the server's --allow")
    c = Client(args)
    for i in range(args.count):
        c.send(request(READ_REQUEST if i % 2 else STAT_REQUEST, c.stream_id(), args.path, 0,
                       1 if i % 2 else 0))
        c.tally["received"] += 1
        c.tally["refused"] += 1
    c.expect_silence(0.3, "requests from %s, outside the allow list" % args.source)
    c.tally.save(args.tally)
    print("xio_client: refused: %d requests from %s, no answer" % (args.count, args.source))


def add(total, t):
    for k, v in t.items():
        if isinstance(v, dict):
            add(total.setdefault(k, {}), v)
        else:
            total[k] = total.get(k, 0) + v


def cmd_check(args):
    total = {}
    for path in args.tally:
        with open(path) as f:
            add(total, json.load(f))
    with open(args.stats) as f:
        stats = json.load(f)
    total["requests"] = sum(total["requests_by_opcode"].values())
    total["answers"] = sum(total["answers_by_opcode"].values())
    total["errors"] = sum(total["errors_by_code"].values())
    total["send_errors"] = 0
    for k in ("elapsed_s", "datagrams", "bytes", "errors", "refused", "ignored", "requests"):
        if k not in stats:
            fail("%s: no key %s" % (args.stats, k))
    for k, v in total.items():
        if stats.get(k) != v:
            fail("%s: %s is %r, the clients' datagrams make it %r" % (args.stats, k,
                                                                     stats.get(k), v))
    print("xio_client: %s: %d counters equal the clients' tally" % (args.stats, len(total)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--server", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7910)
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--tally")
    p.add_argument("--source", help="local address to send from")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("read")
    r.add_argument("--path", required=True)
    r.add_argument("--compare", required=True)
    r.add_argument("--crc", action="store_true")
    r.add_argument("--raw", action="store_true")
    r.add_argument("--chunk", type=int, default=262144)
    r.add_argument("--first", type=int, default=0)
    r.add_argument("--count", type=int)
    r.add_argument("--max-count", type=int, default=0)
    r.add_argument("--expect-per", type=int, default=0)
    r.add_argument("--min-seconds", type=float, default=0.0)
    r.add_argument("--say-sent", action="store_true", help="print a line as each READ goes")
    r.add_argument("--min-refreshes", type=int, default=0,
                   help="fail unless the read took at least this many new cookies")
    r.add_argument("--cookies", choices=("on", "off"),
                   help="the server validates addresses (a 32-byte STAT_REPLY body) or not")
    sub.add_parser("errors")
    e = sub.add_parser("expect")
    e.add_argument("--path", required=True)
    e.add_argument("--code", required=True, choices=sorted(ERRORS.values()))
    e.add_argument("--stat", action="store_true")
    e.add_argument("--first", type=int, default=0)
    e.add_argument("--count", type=int, default=1)
    e.add_argument("--cookie-path", default="tokens.bin",
                   help="the file a READ STATs first for its cookie")
    h = sub.add_parser("hostile")
    h.add_argument("--count", type=int, default=20000)
    h.add_argument("--seed", type=int, default=1)
    h.add_argument("--path", default="tokens.bin")
    ck = sub.add_parser("cookies")
    ck.add_argument("--path", default="tokens.bin")
    ck.add_argument("--other", default="127.0.0.2", help="a second client's address")
    ck.add_argument("--forge", default="127.0.0.5", help="source address of forged READs")
    ck.add_argument("--tally2", required=True, help="the second client's tally")
    f = sub.add_parser("refused")
    f.add_argument("--count", type=int, default=50)
    f.add_argument("--path", default="tokens.bin")
    k = sub.add_parser("check")
    k.add_argument("--stats", required=True)
    k.add_argument("tally", nargs="+")
    args = p.parse_args()
    {"read": cmd_read, "errors": cmd_errors, "expect": cmd_expect, "hostile": cmd_hostile,
     "refused": cmd_refused, "cookies": cmd_cookies, "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    main()
