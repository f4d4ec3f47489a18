/* SPDX-License-Identifier: BSD-3-Clause
 * xio_fields: prints, frame by frame, the fields the Wireshark dissector
 * (apps/wireshark/xio.lua) shows, in tshark's -T fields format, as the
 * project's own code reads them: the stage core classifies the frame
 * (xio_process) and stages/xio_msg.c parses the header, requests (the
 * COOKIE option of 1.2 included), STAT and ERROR replies; CRC32C through
 * ISA-L. tests/wireshark/test_dissector.sh
 * diffs the two.
 *
 *   xio_fields --field-names          the tshark -e list, one a line
 *   xio_fields CAP.pcap [--port P]    one line per frame
 *
 * A frame the stage core does not consider addressed to XIO (not_ip ..
 * other_port: Wireshark's own IP/UDP rules differ there) prints as
 * "N<TAB>skip"; every other frame prints all columns, empty where the
 * dissector shows nothing, Info "-" for UDP that is not XIO.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_crc.h"
#include "xio_msg.h"
#include "xio_pcap.h"
#include "xio_stage.h"
#include "xio_wire.h"

#define TOKENS_SHOWN 8
#define COL_MAX      (2 * 65536 + 64)

enum col {
	C_FRAME, C_MAGIC, C_VERSION, C_OPCODE, C_FLAGS, C_F_LAST, C_F_HAS_CRC, C_F_NARROWED,
	C_F_RESERVED, C_DTYPE, C_HDR_LEN, C_STREAM, C_SEQ, C_FIRST, C_COUNT, C_CRC, C_CRC_STATUS,
	C_CRC_CALC, C_EXT, C_PATH_LEN, C_MAX_COUNT, C_OPTIONS, C_O_RAW, C_O_CRC, C_O_COOKIE, C_PATH, C_REQ_FAULT,
	C_COOKIE, C_SIZE,
	C_MTIME, C_ERR_CODE, C_ERR_LEN, C_ERR_MSG, C_TOKENS, C_TOKEN, C_DATA, C_BODY,
	C_E_BAD_CRC, C_E_BAD_COUNT, C_E_RESERVED, C_E_HDR_LEN, C_E_DTYPE, C_E_SHORT, C_E_REQUEST,
	C_E_CUT, C_INFO, C_COUNT_
};

static const char *const col_name[C_COUNT_] = {
	"frame.number", "xio.magic", "xio.version", "xio.opcode", "xio.flags", "xio.flags.last",
	"xio.flags.has_crc", "xio.flags.narrowed", "xio.flags.reserved", "xio.dtype",
	"xio.hdr_len", "xio.stream_id", "xio.seq", "xio.first_token", "xio.token_count",
	"xio.payload_crc", "xio.payload_crc.status", "xio.payload_crc.calculated",
	"xio.extension", "xio.path_len", "xio.max_count", "xio.options", "xio.options.raw",
	"xio.options.crc", "xio.options.cookie", "xio.path", "xio.request_fault", "xio.cookie",
	"xio.size", "xio.mtime", "xio.error_code",
	"xio.error_message_len", "xio.error_message", "xio.tokens", "xio.token", "xio.data",
	"xio.body", "xio.expert.bad_crc", "xio.expert.bad_count", "xio.expert.reserved_flags",
	"xio.expert.bad_hdr_len", "xio.expert.bad_dtype", "xio.expert.short_body",
	"xio.expert.bad_request", "xio.expert.cut", "_ws.col.Info",
};

/* Wireshark's checksum status values. */
enum { CRC_BAD = 0, CRC_GOOD = 1, CRC_NOT_PRESENT = 3 };

static char *col[C_COUNT_];

static void setf(enum col c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void setf(enum col c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(col[c], COL_MAX, fmt, ap);
	va_end(ap);
}

static void appendf(enum col c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void appendf(enum col c, const char *fmt, ...)
{
	size_t n = strlen(col[c]);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(col[c] + n, COL_MAX - n, fmt, ap);
	va_end(ap);
}

static void set_hex(enum col c, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(col[c] + 2 * i, "%02x", p[i]);
}

static void print_row(void)
{
	for (int c = 0; c < C_COUNT_; c++)
		printf("%s%s", c ? "\t" : "", col[c]);
	putchar('\n');
}

/* "F..L" for count items from first, "none" for none. */
static void range_text(enum col c, uint64_t first, uint32_t count)
{
	if (count == 0)
		appendf(c, "none");
	else
		appendf(c, "%llu..%llu", (unsigned long long)first,
			(unsigned long long)(first + count - 1));
}

static const char *op_name(uint8_t op)
{
	static const char *const names[] = {
		[XIO_OP_READ_REQUEST] = "READ_REQUEST", [XIO_OP_READ_REPLY] = "READ_REPLY",
		[XIO_OP_ERROR_REPLY] = "ERROR_REPLY", [XIO_OP_STAT_REQUEST] = "STAT_REQUEST",
		[XIO_OP_STAT_REPLY] = "STAT_REPLY", [XIO_OP_DATA_REPLY] = "DATA_REPLY",
	};

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : NULL;
}

/* The UDP payload of a frame the stage core found addressed to XIO, with the
 * length Wireshark's UDP gives its payload: min(UDP length, IP payload) - 8. */
static bool udp_payload(const uint8_t *p, const uint8_t **pay, uint32_t *len)
{
	uint32_t off = 12, l4, ip_pay;
	uint16_t et = xio_be16(p + off);

	for (int i = 0; i < 2 && (et == 0x8100 || et == 0x88A8); i++) {
		off += 4;
		et = xio_be16(p + off);
	}
	off += 2;
	if (et == 0x0800) {
		l4 = off + (p[off] & 0xf) * 4u;
		ip_pay = xio_be16(p + off + 2) - (l4 - off);
	} else {
		l4 = off + 40;
		ip_pay = xio_be16(p + off + 4);
	}
	*len = xio_be16(p + l4 + 4);
	if (*len < 8)
		return false;
	if (*len > ip_pay)
		*len = ip_pay;
	*len -= 8;
	*pay = p + l4 + 8;
	return true;
}

static void check_crc(const struct xio_hdr *h, const uint8_t *pay, uint32_t len)
{
	uint32_t calc;

	if (!(h->flags & XIO_F_HAS_CRC)) {
		setf(C_CRC_STATUS, "%d", CRC_NOT_PRESENT);
		return;
	}
	calc = xio_crc32c(pay, len);
	setf(C_CRC_CALC, "0x%08x", calc);
	setf(C_CRC_STATUS, "%d", calc == h->payload_crc ? CRC_GOOD : CRC_BAD);
	if (calc != h->payload_crc)
		setf(C_E_BAD_CRC, "1");
}

static void payload_fields(const struct xio_hdr *h, const uint8_t *pay, uint32_t len)
{
	bool data = h->opcode == XIO_OP_DATA_REPLY;
	unsigned width = data ? 1 : h->dtype == XIO_DT_INT32 ? 4 : h->dtype == XIO_DT_UINT16 ? 2 : 0;
	uint32_t n, shown;

	setf(C_INFO, "%s stream=%u seq=%u %s ", data ? "DATA_REPLY" : "READ_REPLY", h->stream_id,
	     h->seq, data ? "bytes" : "tokens");
	range_text(C_INFO, h->first_token, h->token_count);
	if (!data) {
		bool narrowed = h->flags & XIO_F_NARROWED;

		if (width)
			appendf(C_INFO, " %s", width == 4 ? "INT32" : "UINT16");
		else
			appendf(C_INFO, " dtype=0x%02x", h->dtype);
		if (!width || narrowed != (h->dtype == XIO_DT_UINT16))
			setf(C_E_DTYPE, "1");
	}
	check_crc(h, pay, len);
	if (!width) {
		if (len)
			set_hex(C_BODY, pay, len);
		return;
	}
	if ((uint64_t)h->token_count * width != len)
		setf(C_E_BAD_COUNT, "1");
	if (data) {
		if (len)
			set_hex(C_DATA, pay, len);
		return;
	}
	n = len / width;
	shown = n < TOKENS_SHOWN ? n : TOKENS_SHOWN;
	setf(C_TOKENS, "%u", n);
	for (uint32_t i = 0; i < shown; i++) {
		const uint8_t *t = pay + i * width;
		long v = width == 4 ? (long)(int32_t)((uint32_t)t[0] | (uint32_t)t[1] << 8 |
						  (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24)
				    : (long)(t[0] | t[1] << 8);

		appendf(C_TOKEN, "%s%ld", i ? "," : "", v);
	}
}

static void request_fields(const uint8_t *x, uint32_t ulen, const struct xio_hdr *h)
{
	const uint8_t *body = x + h->hdr_len;
	uint32_t blen = ulen - h->hdr_len;
	struct xio_request r;
	const char *why = NULL;
	uint32_t plen = 0;
	uint8_t options = 0;

	if (xio_request_parse(x, ulen, &r, &why) == XIO_REQ_BAD) {
		setf(C_REQ_FAULT, "%s", why);
		setf(C_E_REQUEST, "1");
	}
	if (blen >= XIO_REQ_BODY_LEN) {
		uint16_t path_len = xio_be16(body);

		options = body[4];
		setf(C_PATH_LEN, "%u", path_len);
		setf(C_MAX_COUNT, "%u", xio_be16(body + 2));
		setf(C_OPTIONS, "0x%02x", options);
		setf(C_O_RAW, "%d", !!(options & XIO_OPT_RAW));
		setf(C_O_CRC, "%d", !!(options & XIO_OPT_CRC));
		setf(C_O_COOKIE, "%d", !!(options & XIO_OPT_COOKIE));
		plen = path_len < blen - XIO_REQ_BODY_LEN ? path_len : blen - XIO_REQ_BODY_LEN;
		/* the cookie of a READ_REQUEST, wherever the request is otherwise bad */
		size_t at = (XIO_REQ_BODY_LEN + (size_t)path_len + 3) & ~(size_t)3;

		if (h->opcode == XIO_OP_READ_REQUEST && (options & XIO_OPT_COOKIE) &&
		    blen >= at + XIO_COOKIE_LEN)
			set_hex(C_COOKIE, body + at, XIO_COOKIE_LEN);
		if (plen)
			setf(C_PATH, "%.*s", (int)plen, (const char *)body + XIO_REQ_BODY_LEN);
	}
	setf(C_INFO, "%s stream=%u", op_name(h->opcode), h->stream_id);
	if (h->opcode == XIO_OP_READ_REQUEST) {
		appendf(C_INFO, " %s ", options & XIO_OPT_RAW ? "bytes" : "tokens");
		range_text(C_INFO, h->first_token, h->token_count);
	}
	if (plen)
		appendf(C_INFO, " path=%.*s", (int)plen, (const char *)body + XIO_REQ_BODY_LEN);
	if (options & XIO_OPT_CRC)
		appendf(C_INFO, " CRC");
	if (h->opcode == XIO_OP_READ_REQUEST && (options & XIO_OPT_COOKIE))
		appendf(C_INFO, " COOKIE");
}

static void stat_fields(const uint8_t *x, uint32_t ulen, const struct xio_hdr *h)
{
	uint64_t size, mtime;

	setf(C_INFO, "STAT_REPLY stream=%u", h->stream_id);
	if (xio_stat_reply_parse(x, ulen, h, &size, &mtime) < 0) {
		setf(C_E_SHORT, "1");
		return;
	}
	setf(C_SIZE, "%llu", (unsigned long long)size);
	setf(C_MTIME, "%llu", (unsigned long long)mtime);
	appendf(C_INFO, " size=%llu", (unsigned long long)size);
	if (xio_stat_reply_cookie(x, ulen, h)) {
		set_hex(C_COOKIE, xio_stat_reply_cookie(x, ulen, h), XIO_COOKIE_LEN);
		appendf(C_INFO, " cookie");
	}
}

static void error_fields(const uint8_t *x, uint32_t ulen, const struct xio_hdr *h)
{
	const uint8_t *body = x + h->hdr_len;
	uint32_t code, mlen;
	const char *msg;

	setf(C_INFO, "ERROR_REPLY stream=%u", h->stream_id);
	if (ulen - h->hdr_len < XIO_ERR_BODY_LEN) {
		setf(C_E_SHORT, "1");
		return;
	}
	/* code and length show even when the message runs past the body */
	setf(C_ERR_CODE, "%u", xio_be32(body));
	setf(C_ERR_LEN, "%u", xio_be32(body + 4));
	appendf(C_INFO, " error=%s(%u)", xio_err_name(xio_be32(body)), xio_be32(body));
	if (xio_error_parse(x, ulen, h, &code, &msg, &mlen) < 0) {
		setf(C_E_SHORT, "1");
		return;
	}
	if (mlen)
		setf(C_ERR_MSG, "%.*s", (int)mlen, msg);
	appendf(C_INFO, " \"%.*s\"", (int)mlen, msg);
}

/* The header fields as they stand, also when hdr_len is invalid. */
static void header_fields(const uint8_t *x)
{
	uint8_t flags = x[XIO_OFF_FLAGS];

	setf(C_MAGIC, "0x%04x", xio_be16(x + XIO_OFF_MAGIC));
	setf(C_VERSION, "%u", x[XIO_OFF_VERSION]);
	setf(C_OPCODE, "0x%02x", x[XIO_OFF_OPCODE]);
	setf(C_FLAGS, "0x%02x", flags);
	setf(C_F_LAST, "%d", !!(flags & XIO_F_LAST));
	setf(C_F_HAS_CRC, "%d", !!(flags & XIO_F_HAS_CRC));
	setf(C_F_NARROWED, "%d", !!(flags & XIO_F_NARROWED));
	setf(C_F_RESERVED, "0x%02x", (flags & XIO_F_RESERVED) >> 3); /* shifted by its mask */
	if (flags & XIO_F_RESERVED)
		setf(C_E_RESERVED, "1");
	setf(C_DTYPE, "0x%02x", x[XIO_OFF_DTYPE]);
	setf(C_HDR_LEN, "%u", xio_be16(x + XIO_OFF_HDR_LEN));
	setf(C_STREAM, "%u", xio_be32(x + XIO_OFF_STREAM_ID));
	setf(C_SEQ, "%u", xio_be32(x + XIO_OFF_SEQ));
	setf(C_FIRST, "%llu", (unsigned long long)xio_be64(x + XIO_OFF_FIRST_TOKEN));
	setf(C_COUNT, "%u", xio_be32(x + XIO_OFF_TOKEN_COUNT));
	setf(C_CRC, "0x%08x", xio_be32(x + XIO_OFF_PAYLOAD_CRC));
}

static void xio_fields(const uint8_t *x, uint32_t ulen)
{
	struct xio_hdr h;
	const char *name = op_name(x[XIO_OFF_OPCODE]);

	header_fields(x);
	if (xio_hdr_parse(x, ulen, &h) < 0) {
		setf(C_E_HDR_LEN, "1");
		if (name)
			setf(C_INFO, "%s", name);
		else
			setf(C_INFO, "opcode=0x%02x", x[XIO_OFF_OPCODE]);
		appendf(C_INFO, " stream=%u seq=%u bad hdr_len %u", xio_be32(x + XIO_OFF_STREAM_ID),
			xio_be32(x + XIO_OFF_SEQ), xio_be16(x + XIO_OFF_HDR_LEN));
		return;
	}
	if (h.hdr_len > XIO_HDR_LEN)
		set_hex(C_EXT, x + XIO_HDR_LEN, h.hdr_len - XIO_HDR_LEN);
	switch (h.opcode) {
	case XIO_OP_READ_REPLY:
	case XIO_OP_DATA_REPLY:
		payload_fields(&h, x + h.hdr_len, ulen - h.hdr_len);
		return;
	case XIO_OP_READ_REQUEST:
	case XIO_OP_STAT_REQUEST:
		request_fields(x, ulen, &h);
		break;
	case XIO_OP_STAT_REPLY:
		stat_fields(x, ulen, &h);
		break;
	case XIO_OP_ERROR_REPLY:
		error_fields(x, ulen, &h);
		break;
	default:
		setf(C_INFO, "opcode=0x%02x stream=%u seq=%u", h.opcode, h.stream_id, h.seq);
		if (ulen > h.hdr_len)
			set_hex(C_BODY, x + h.hdr_len, ulen - h.hdr_len);
		break;
	}
	check_crc(&h, x + h.hdr_len, ulen - h.hdr_len);
}

static bool addressed_to_xio(enum xio_reason r)
{
	return r != XIO_R_NOT_IP && r != XIO_R_NOT_UDP && r != XIO_R_IP_FRAGMENT &&
	       r != XIO_R_TRUNCATED && r != XIO_R_OTHER_PORT;
}

static void frame_fields(const struct xio_stage_cfg *cfg, uint64_t no, const struct xio_pcap_pkt *pkt,
			 uint8_t *copy)
{
	struct xio_result res;
	const uint8_t *pay;
	uint32_t ulen;

	memcpy(copy, pkt->data, pkt->caplen);
	xio_process_buf(cfg, copy, pkt->caplen, &res);
	if (!addressed_to_xio((enum xio_reason)res.reason)) {
		printf("%llu\tskip\n", (unsigned long long)no);
		return;
	}
	for (int c = 0; c < C_COUNT_; c++)
		col[c][0] = '\0';
	setf(C_FRAME, "%llu", (unsigned long long)no);
	setf(C_INFO, "-");
	if (udp_payload(pkt->data, &pay, &ulen) && ulen >= XIO_HDR_LEN &&
	    xio_be16(pay + XIO_OFF_MAGIC) == XIO_MAGIC && pay[XIO_OFF_VERSION] == XIO_VERSION)
		xio_fields(pay, ulen);
	print_row();
}

int main(int argc, char **argv)
{
	struct xio_stage_cfg cfg;
	struct xio_pcap_reader *r;
	struct xio_pcap_pkt pkt;
	char err[XIO_PCAP_ERRLEN];
	static uint8_t copy[XIO_PCAP_SNAPLEN];
	uint64_t no = 0;
	int rc;

	if (argc == 2 && strcmp(argv[1], "--field-names") == 0) {
		for (int c = 0; c < C_COUNT_; c++)
			puts(col_name[c]);
		return 0;
	}
	xio_stage_cfg_default(&cfg);
	if (argc == 4 && strcmp(argv[2], "--port") == 0)
		cfg.udp_port = (uint16_t)atoi(argv[3]);
	else if (argc != 2) {
		fprintf(stderr, "usage: xio_fields --field-names | CAP.pcap [--port P]\n");
		return 2;
	}
	r = xio_pcap_open_read(argv[1], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "xio_fields: %s\n", err);
		return 2;
	}
	for (int c = 0; c < C_COUNT_; c++)
		if (!(col[c] = malloc(COL_MAX)))
			return 2;
	while ((rc = xio_pcap_next(r, &pkt, err, sizeof(err))) == 1)
		frame_fields(&cfg, ++no, &pkt, copy);
	xio_pcap_close_read(r);
	if (rc < 0) {
		fprintf(stderr, "xio_fields: %s\n", err);
		return 2;
	}
	return 0;
}
