/* SPDX-License-Identifier: BSD-3-Clause
 * test_msg.c: the read-protocol messages of stages/xio_msg.c against
 * ../shared/xio-read-v1.md byte for byte: the header, requests built and
 * parsed (every bad_request the spec lists, every datagram it never
 * answers), option COOKIE (1.2), path rules, ERROR_REPLY (its message cut
 * to fit), STAT_REPLY in its 1.0 and 1.2 forms, error names and the
 * per-datagram budget of an MTU.
 */
#include <string.h>

#include "xio_msg.h"
#include "xio_unit.h"

/* A READ_REQUEST as the spec lays it out, written by hand: stream 0x01020304,
 * tokens [0x1122334455, +0x10000), max_count 360, CRC, path "ab/c.bin". */
static const uint8_t read_req[] = {
	0x58, 0x49, 0x01, 0x01, 0x00, 0x00, 0x00, 0x20, /* magic, v1, READ_REQUEST, 0, 0, 32 */
	0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00, /* stream_id, seq */
	0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, /* first_token */
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* token_count, payload_crc */
	0x00, 0x08, 0x01, 0x68, 0x02, 0x00, 0x00, 0x00, /* path_len 8, max_count 360, CRC, reserved */
	'a', 'b', '/', 'c', '.', 'b', 'i', 'n',
};

static void test_request_build_exact(void)
{
	uint8_t buf[256];
	size_t n = xio_request_build(buf, sizeof(buf), XIO_OP_READ_REQUEST, 0x01020304,
				     0x1122334455ull, 0x10000, 360, XIO_OPT_CRC, "ab/c.bin", 8);

	XIO_CHECK(n == sizeof(read_req), "length %zu, expected %zu", n, sizeof(read_req));
	XIO_CHECK_BYTES(buf, read_req, sizeof(read_req), "READ_REQUEST bytes");
	/* a path of 5 bytes: 3 zero bytes of padding */
	memset(buf, 0xAA, sizeof(buf));
	n = xio_request_build(buf, sizeof(buf), XIO_OP_STAT_REQUEST, 9, 0, 0, 0, 0, "x.bin", 5);
	XIO_CHECK(n == 32 + 16, "STAT length %zu", n);
	XIO_CHECK(buf[3] == XIO_OP_STAT_REQUEST && buf[40] == 'x' && buf[44] == 'n',
		  "STAT opcode or path");
	XIO_CHECK(buf[45] == 0 && buf[46] == 0 && buf[47] == 0, "padding not zero");
	/* refused: path_len 0 or 1025, or no room */
	XIO_CHECK(xio_request_build(buf, sizeof(buf), XIO_OP_STAT_REQUEST, 1, 0, 0, 0, 0, "", 0) == 0,
		  "empty path built");
	XIO_CHECK(xio_request_build(buf, 47, XIO_OP_STAT_REQUEST, 1, 0, 0, 0, 0, "x.bin", 5) == 0,
		  "built past cap");
}

static void test_request_parse(void)
{
	struct xio_request r;
	const char *why = NULL;

	XIO_CHECK(xio_request_parse(read_req, sizeof(read_req), &r, &why) == XIO_REQ_OK, "%s",
		  why ? why : "not OK");
	XIO_CHECK(r.hdr.opcode == XIO_OP_READ_REQUEST && r.hdr.stream_id == 0x01020304 &&
		  r.hdr.first_token == 0x1122334455ull && r.hdr.token_count == 0x10000,
		  "header fields");
	XIO_CHECK(r.path_len == 8 && r.max_count == 360 && r.options == XIO_OPT_CRC, "body fields");
	XIO_CHECK(r.path == (const char *)read_req + 40, "path does not point into the datagram");
}

/* Parses b (a copy of read_req changed by the caller) expecting bad_request
 * with the header still decoded. */
static void expect_bad(const uint8_t *b, size_t len, const char *what)
{
	struct xio_request r;
	const char *why = NULL;

	XIO_CHECK(xio_request_parse(b, len, &r, &why) == XIO_REQ_BAD, "%s: not bad_request", what);
	XIO_CHECK(why != NULL && *why, "%s: no reason", what);
	XIO_CHECK(r.hdr.stream_id == xio_be32(b + 8) && r.hdr.first_token == xio_be64(b + 16),
		  "%s: header not decoded for the error", what);
}

static void test_request_bad(void)
{
	uint8_t b[sizeof(read_req) + 1100];

	for (unsigned flag = 1; flag < 256; flag <<= 1) {
		memcpy(b, read_req, sizeof(read_req));
		b[4] = (uint8_t)flag;
		expect_bad(b, sizeof(read_req), "header flags");
	}
	memcpy(b, read_req, sizeof(read_req));
	b[5] = XIO_DT_INT32;
	expect_bad(b, sizeof(read_req), "header dtype");
	for (size_t len = 32; len < 40; len++)
		expect_bad(read_req, len, "body shorter than 8 bytes");
	expect_bad(read_req, sizeof(read_req) - 1, "path past the datagram");
	memcpy(b, read_req, sizeof(read_req));
	b[32] = 0, b[33] = 0;
	expect_bad(b, sizeof(read_req), "path_len 0");
	b[32] = 0x04, b[33] = 0x01; /* 1025 */
	memset(b + 40, 'a', 1025);
	expect_bad(b, 40 + 1025, "path_len 1025");
	for (unsigned bit = 8; bit < 256; bit <<= 1) {
		memcpy(b, read_req, sizeof(read_req));
		b[36] = (uint8_t)(XIO_OPT_CRC | bit);
		expect_bad(b, sizeof(read_req), "unknown option bit");
	}
	memcpy(b, read_req, sizeof(read_req));
	xio_put_be32(b + 24, 0);
	expect_bad(b, sizeof(read_req), "token_count 0");
	xio_put_be32(b + 24, XIO_READ_MAX_COUNT + 1);
	expect_bad(b, sizeof(read_req), "token_count 16777217");
	xio_put_be32(b + 24, 0xFFFFFFFF);
	expect_bad(b, sizeof(read_req), "token_count 2^32-1");
}

/* read_req with option COOKIE and its cookie after the path (8 bytes, no
 * padding needed), as the spec lays it out. */
static const uint8_t cookie16[XIO_COOKIE_LEN] = {
	0xC0, 0x0C, 0x1E, 0x01, 0x02, 0x03, 0x04, 0x05,
	0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0xFF,
};

static void test_request_cookie(void)
{
	uint8_t b[256], want[sizeof(read_req) + XIO_COOKIE_LEN];
	struct xio_request r;
	const char *why = NULL;
	size_t n;

	memcpy(want, read_req, sizeof(read_req));
	want[36] = XIO_OPT_CRC | XIO_OPT_COOKIE;
	memcpy(want + sizeof(read_req), cookie16, XIO_COOKIE_LEN);
	n = xio_request_build(b, sizeof(b), XIO_OP_READ_REQUEST, 0x01020304, 0x1122334455ull,
			      0x10000, 360, XIO_OPT_CRC, "ab/c.bin", 8);
	n = xio_request_add_cookie(b, n, sizeof(b), cookie16);
	XIO_CHECK(n == sizeof(want), "length %zu, expected %zu", n, sizeof(want));
	XIO_CHECK_BYTES(b, want, sizeof(want), "READ_REQUEST with COOKIE bytes");
	XIO_CHECK(xio_request_parse(want, sizeof(want), &r, &why) == XIO_REQ_OK, "%s",
		  why ? why : "not OK");
	XIO_CHECK(r.options == (XIO_OPT_CRC | XIO_OPT_COOKIE) && r.cookie == want + 48 &&
		  r.path_len == 8 && memcmp(r.path, "ab/c.bin", 8) == 0, "cookie or path not found");
	/* a body too short for the cookie: every length short of it */
	for (size_t len = sizeof(read_req); len < sizeof(want); len++)
		expect_bad(want, len, "body shorter than its cookie");
	/* the cookie starts after the path's padding: path "x.bin" + 3 zero bytes */
	n = xio_request_build(b, sizeof(b), XIO_OP_READ_REQUEST, 5, 0, 1, 0, XIO_OPT_RAW, "x.bin",
			      5);
	XIO_CHECK(n == 48, "RAW length %zu", n);
	n = xio_request_add_cookie(b, n, sizeof(b), cookie16);
	XIO_CHECK(n == 64 && b[36] == (XIO_OPT_RAW | XIO_OPT_COOKIE) &&
		  memcmp(b + 48, cookie16, 16) == 0, "RAW with COOKIE: %zu bytes", n);
	XIO_CHECK(xio_request_parse(b, n, &r, NULL) == XIO_REQ_OK && r.cookie == b + 48,
		  "RAW with COOKIE not parsed");
	expect_bad(b, 63, "RAW body one byte short of its cookie");
	/* no room: nothing written */
	n = xio_request_build(b, sizeof(b), XIO_OP_READ_REQUEST, 5, 0, 1, 0, 0, "x.bin", 5);
	XIO_CHECK(xio_request_add_cookie(b, n, 63, cookie16) == 0, "cookie added past cap");
	/* without COOKIE: no cookie, even with bytes after the path */
	XIO_CHECK(xio_request_parse(b, 64, &r, NULL) == XIO_REQ_OK && r.cookie == NULL,
		  "cookie without option COOKIE");
	/* COOKIE on a STAT_REQUEST is ignored, with or without the bytes */
	n = xio_request_build(b, sizeof(b), XIO_OP_STAT_REQUEST, 5, 0, 0, 0, XIO_OPT_COOKIE, "x.bin",
			      5);
	XIO_CHECK(xio_request_parse(b, n, &r, NULL) == XIO_REQ_OK && r.cookie == NULL,
		  "COOKIE on a STAT_REQUEST not ignored");
}

static void test_request_limits(void)
{
	uint8_t b[2048];
	struct xio_request r;
	char path[XIO_PATH_MAX];
	size_t n;

	memset(path, 'p', sizeof(path));
	n = xio_request_build(b, sizeof(b), XIO_OP_READ_REQUEST, 1, 0, XIO_READ_MAX_COUNT, 0,
			      XIO_OPT_RAW | XIO_OPT_CRC, path, XIO_PATH_MAX);
	XIO_CHECK(n == 32 + 8 + 1024, "length %zu", n);
	XIO_CHECK(xio_request_parse(b, n, &r, NULL) == XIO_REQ_OK && r.path_len == 1024,
		  "path_len 1024 and token_count 16777216 refused");
	/* STAT: token_count 0 is right; body without padding is whole */
	n = xio_request_build(b, sizeof(b), XIO_OP_STAT_REQUEST, 1, 0, 0, 0, 0, "abc", 3);
	XIO_CHECK(xio_request_parse(b, n - 1, &r, NULL) == XIO_REQ_OK && r.path_len == 3,
		  "STAT without its padding byte refused");
	/* extensions: the body starts at hdr_len */
	memmove(b + 48, b + 32, n - 32);
	memset(b + 32, 0xEE, 16);
	xio_put_be16(b + 6, 48);
	XIO_CHECK(xio_request_parse(b, n + 16, &r, NULL) == XIO_REQ_OK && r.path_len == 3 &&
		  memcmp(r.path, "abc", 3) == 0, "body after a 16-byte extension not found");
}

static void test_request_ignored(void)
{
	uint8_t b[sizeof(read_req)];
	struct xio_request r;
	static const uint8_t not_requests[] = { 0x00, XIO_OP_READ_REPLY, XIO_OP_ERROR_REPLY,
						XIO_OP_STAT_REPLY, XIO_OP_DATA_REPLY, 0x07, 0xFF };

	for (size_t len = 0; len < 32; len++)
		XIO_CHECK(xio_request_parse(read_req, len, &r, NULL) == XIO_REQ_IGNORE,
			  "%zu bytes answered", len);
	for (unsigned i = 0; i < sizeof(not_requests); i++) {
		memcpy(b, read_req, sizeof(b));
		b[3] = not_requests[i];
		XIO_CHECK(xio_request_parse(b, sizeof(b), &r, NULL) == XIO_REQ_IGNORE,
			  "opcode %#x answered", not_requests[i]);
	}
	memcpy(b, read_req, sizeof(b));
	b[0] = 0x59;
	XIO_CHECK(xio_request_parse(b, sizeof(b), &r, NULL) == XIO_REQ_IGNORE, "bad magic");
	memcpy(b, read_req, sizeof(b));
	b[2] = 2;
	XIO_CHECK(xio_request_parse(b, sizeof(b), &r, NULL) == XIO_REQ_IGNORE, "version 2");
	static const uint16_t bad_hdr_len[] = { 0, 28, 30, 34, 52, 0xFFFC };
	for (unsigned i = 0; i < sizeof(bad_hdr_len) / sizeof(bad_hdr_len[0]); i++) {
		memcpy(b, read_req, sizeof(b));
		xio_put_be16(b + 6, bad_hdr_len[i]);
		XIO_CHECK(xio_request_parse(b, sizeof(b), &r, NULL) == XIO_REQ_IGNORE,
			  "hdr_len %u answered", bad_hdr_len[i]);
	}
}

static void test_path_check(void)
{
	static const struct { const char *p; size_t len; int ok; } cases[] = {
		{ "a", 1, 0 }, { "a/b/c.bin", 9, 0 }, { "..a", 3, 0 }, { "a..", 3, 0 },
		{ ".hidden", 7, 0 }, { "a/...", 5, 0 }, { "a b", 3, 0 },
		{ "", 0, -1 }, { "/a", 2, -1 }, { "/", 1, -1 }, { "a/", 2, -1 }, { "a//b", 4, -1 },
		{ ".", 1, -1 }, { "..", 2, -1 }, { "./a", 3, -1 }, { "a/.", 3, -1 },
		{ "../a", 4, -1 }, { "a/../b", 6, -1 }, { "a/..", 4, -1 }, { "a\0b", 3, -1 },
		{ "a\0", 2, -1 },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		XIO_CHECK(xio_path_check(cases[i].p, cases[i].len) == cases[i].ok,
			  "path '%.*s' (%zu bytes): expected %d", (int)cases[i].len, cases[i].p,
			  cases[i].len, cases[i].ok);
}

static void test_error_reply(void)
{
	static const uint8_t want[] = {
		0x58, 0x49, 0x01, 0x03, 0x01, 0x00, 0x00, 0x20, /* ERROR_REPLY, LAST, dtype 0 */
		0xCA, 0xFE, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* stream_id, seq 0 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, /* first_token: the request's */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* token_count 0, crc 0 */
		0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x05, /* code range, length 5 */
		'r', 'a', 'n', 'g', 'e', 0, 0, 0,
	};
	uint8_t b[512];
	char msg[400];
	struct xio_hdr h;
	const char *m;
	uint32_t code, mlen;
	size_t n;

	memset(b, 0xAA, sizeof(b));
	n = xio_error_build(b, sizeof(b), 0xCAFE0001, 256, XIO_E_RANGE, "range");
	XIO_CHECK(n == sizeof(want), "length %zu", n);
	XIO_CHECK_BYTES(b, want, sizeof(want), "ERROR_REPLY bytes");
	XIO_CHECK(xio_hdr_parse(b, n, &h) == 0 && xio_error_parse(b, n, &h, &code, &m, &mlen) == 0 &&
		  code == XIO_E_RANGE && mlen == 5 && memcmp(m, "range", 5) == 0, "parse back");
	XIO_CHECK(xio_error_parse(b, 39, &h, &code, &m, &mlen) < 0, "short body parsed");
	XIO_CHECK(xio_error_parse(b, 44, &h, &code, &m, &mlen) < 0, "message past the end parsed");
	/* messages are cut at XIO_ERR_MSG_MAX, an empty one has no padding */
	memset(msg, 'm', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	n = xio_error_build(b, sizeof(b), 1, 0, XIO_E_IO, msg);
	XIO_CHECK(n == 32 + 8 + XIO_ERR_MSG_MAX && xio_be32(b + 36) == XIO_ERR_MSG_MAX,
		  "long message: length %zu", n);
	XIO_CHECK(xio_error_build(b, sizeof(b), 1, 0, XIO_E_IO, "") == 40, "empty message");
	/* cut to fit cap: "range" in 47 bytes is "rang" (44), nothing below 40 */
	XIO_CHECK(xio_error_build(b, 47, 1, 0, XIO_E_RANGE, "range") == 44 && xio_be32(b + 36) == 4 &&
		  memcmp(b + 40, "rang", 4) == 0, "message not cut to fit 47 bytes");
	XIO_CHECK(xio_error_build(b, 43, 1, 0, XIO_E_RANGE, "range") == 40 && xio_be32(b + 36) == 0,
		  "message not cut to fit 43 bytes");
	XIO_CHECK(xio_error_build(b, 39, 1, 0, XIO_E_RANGE, "range") == 0, "built past cap");
	for (size_t cap = 40; cap < 120; cap++) {
		n = xio_error_build(b, cap, 1, 0, XIO_E_IO, msg);
		XIO_CHECK(n <= cap && n >= cap - 3 && xio_be32(b + 36) == n - 40,
			  "cap %zu: %zu bytes, message %u", cap, n, xio_be32(b + 36));
	}
	/* never inside a UTF-8 character: "ab\u00e9\u00e9" (a b C3 A9 C3 A9) in 44 + 2 */
	n = xio_error_build(b, 44, 1, 0, XIO_E_IO, "ab\xc3\xa9\xc3\xa9");
	XIO_CHECK(n == 44 && xio_be32(b + 36) == 4 && memcmp(b + 40, "ab\xc3\xa9", 4) == 0,
		  "UTF-8 cut at 4: %zu", n);
	n = xio_error_build(b, 43 + 4, 1, 0, XIO_E_IO, "abc\xc3\xa9");
	XIO_CHECK(n == 44 && xio_be32(b + 36) == 3 && memcmp(b + 40, "abc\0", 4) == 0,
		  "UTF-8 character split: %zu bytes, message %u", n, xio_be32(b + 36));
}

static void test_stat_reply(void)
{
	static const uint8_t want[] = {
		0x58, 0x49, 0x01, 0x05, 0x01, 0x01, 0x00, 0x20, /* STAT_REPLY, LAST, INT32 */
		0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* first_token: size / 4 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, /* size */
		0x17, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* mtime_ns */
	};
	uint8_t b[64];
	struct xio_hdr h;
	uint64_t size, mtime;

	XIO_CHECK(xio_stat_reply_build(b, sizeof(b), 7, 1ull << 34, 0x1700000000000001ull) == 48,
		  "length");
	XIO_CHECK_BYTES(b, want, sizeof(want), "STAT_REPLY bytes");
	XIO_CHECK(xio_hdr_parse(b, 48, &h) == 0 && xio_stat_reply_parse(b, 48, &h, &size, &mtime) == 0 &&
		  size == 1ull << 34 && mtime == 0x1700000000000001ull, "parse back");
	XIO_CHECK(xio_stat_reply_parse(b, 47, &h, &size, &mtime) < 0, "short body parsed");
	/* a size that is not whole tokens: dtype 0, first_token rounded down */
	xio_stat_reply_build(b, sizeof(b), 7, 4001, 0);
	XIO_CHECK(b[5] == 0 && xio_be64(b + 16) == 1000, "size 4001: dtype %u first %llu", b[5],
		  (unsigned long long)xio_be64(b + 16));
	XIO_CHECK(xio_stat_reply_build(b, 47, 7, 4, 0) == 0, "built past cap");
	XIO_CHECK(xio_stat_reply_cookie(want, sizeof(want), &h) == NULL, "cookie in a 1.0 body");
}

/* 1.2: the same STAT_REPLY with the cookie as bytes 16..31 of its body; a
 * 1.0 reader takes its first 16 bytes as before. */
static void test_stat_reply_cookie(void)
{
	uint8_t b[96], want[80];
	struct xio_hdr h;
	uint64_t size, mtime;
	const uint8_t *ck;

	xio_stat_reply_build(want, sizeof(want), 7, 1ull << 34, 0x1700000000000001ull);
	memcpy(want + 48, cookie16, 16);
	memset(b, 0xAA, sizeof(b));
	XIO_CHECK(xio_stat_reply_build_cookie(b, sizeof(b), 7, 1ull << 34, 0x1700000000000001ull,
					      cookie16) == 64, "length");
	XIO_CHECK_BYTES(b, want, 64, "STAT_REPLY with cookie bytes");
	XIO_CHECK(xio_hdr_parse(b, 64, &h) == 0 && xio_stat_reply_parse(b, 64, &h, &size, &mtime) == 0 &&
		  size == 1ull << 34 && mtime == 0x1700000000000001ull, "size and mtime");
	ck = xio_stat_reply_cookie(b, 64, &h);
	XIO_CHECK(ck == b + 48 && memcmp(ck, cookie16, 16) == 0, "cookie not found");
	for (size_t len = 48; len < 64; len++)
		XIO_CHECK(xio_stat_reply_cookie(b, len, &h) == NULL, "cookie in a %zu-byte datagram", len);
	/* a body longer than 32 (a later version): the cookie is still bytes 16..31 */
	XIO_CHECK(xio_stat_reply_cookie(b, 80, &h) == b + 48, "cookie of a longer body");
	XIO_CHECK(xio_stat_reply_build_cookie(b, 63, 7, 4, 0, cookie16) == 0, "built past cap");
	XIO_CHECK(xio_stat_reply_build_cookie(b, 48, 7, 4, 0, NULL) == 48, "NULL cookie: 1.0 form");
}

static void test_hdr_roundtrip(void)
{
	struct xio_hdr in = { .opcode = XIO_OP_READ_REPLY, .flags = XIO_F_LAST | XIO_F_HAS_CRC,
			      .dtype = XIO_DT_INT32, .hdr_len = 32, .stream_id = 0xDEADBEEF,
			      .seq = 0x01020304, .first_token = 0x0102030405060708ull,
			      .token_count = 360, .payload_crc = 0xE3069283 }, out;
	uint8_t b[32];

	xio_hdr_put(b, &in);
	XIO_CHECK(xio_be16(b) == XIO_MAGIC && b[2] == 1, "magic or version");
	XIO_CHECK(xio_hdr_parse(b, 32, &out) == 0 && out.opcode == in.opcode &&
		  out.flags == in.flags && out.dtype == in.dtype && out.hdr_len == in.hdr_len &&
		  out.stream_id == in.stream_id && out.seq == in.seq &&
		  out.first_token == in.first_token && out.token_count == in.token_count &&
		  out.payload_crc == in.payload_crc, "header does not round-trip");
}

static void test_err_names(void)
{
	static const char *const names[] = { "unknown", "not_found", "access", "range",
					     "bad_request", "not_tokens", "io", "cookie", "unknown" };

	for (uint32_t c = 0; c < 9; c++)
		XIO_CHECK(strcmp(xio_err_name(c), names[c]) == 0, "code %u: %s", c, xio_err_name(c));
	XIO_CHECK(strcmp(xio_err_name(0xFFFFFFFF), "unknown") == 0, "code 2^32-1");
}

static void test_mtu_payload(void)
{
	static const struct { uint32_t mtu; bool v6; uint32_t want; } cases[] = {
		{ 1500, false, 1440 }, { 1500, true, 1408 }, { 9000, false, 8928 },
		{ 9000, true, 8896 },  { 64, false, 4 },     { 63, false, 0 },
		{ 84, true, 4 },       { 83, true, 0 },      { 91, false, 28 },
		{ 92, false, 32 },     { 0, false, 0 },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		XIO_CHECK(xio_mtu_payload(cases[i].mtu, cases[i].v6) == cases[i].want,
			  "mtu %u %s: %u, expected %u", cases[i].mtu, cases[i].v6 ? "IPv6" : "IPv4",
			  xio_mtu_payload(cases[i].mtu, cases[i].v6), cases[i].want);
	XIO_CHECK(xio_mtu_payload(1500, false) / 4 == 360 && xio_mtu_payload(9000, false) / 4 == 2232,
		  "the spec's 360 and 2232 tokens");
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_hdr_roundtrip),    XIO_UNIT_TEST(test_request_build_exact),
	XIO_UNIT_TEST(test_request_parse),    XIO_UNIT_TEST(test_request_bad),
	XIO_UNIT_TEST(test_request_limits),   XIO_UNIT_TEST(test_request_ignored),
	XIO_UNIT_TEST(test_path_check),       XIO_UNIT_TEST(test_error_reply),
	XIO_UNIT_TEST(test_request_cookie),   XIO_UNIT_TEST(test_stat_reply_cookie),
	XIO_UNIT_TEST(test_stat_reply),       XIO_UNIT_TEST(test_err_names),
	XIO_UNIT_TEST(test_mtu_payload),      { NULL, NULL },
};

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "msg", tests, NULL, NULL);
}
