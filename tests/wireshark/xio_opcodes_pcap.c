/* SPDX-License-Identifier: BSD-3-Clause
 * xio_opcodes_pcap: writes a capture of one read-protocol exchange with
 * every opcode of ../shared/xio-read-v1.md, built with the project's own
 * message builders (stages/xio_msg.c) inside frames of stages/xio_build.c:
 * requests, STAT / ERROR / DATA / READ replies, then the faults the
 * dissector flags (short bodies, bad CRC, count mismatch, bad requests,
 * reserved flags, dtype mismatches, an unknown opcode, header extension)
 * and two frames cut short by the capture. tests/wireshark/test_dissector.sh
 * checks tshark's view of it, frame by frame.
 *
 *   xio_opcodes_pcap OUT.pcap
 */
#include <stdio.h>
#include <string.h>

#include "xio_build.h"
#include "xio_crc.h"
#include "xio_msg.h"
#include "xio_pcap.h"

#define CLIENT_PORT 40001
#define MAX_FRAME   2048

struct out {
	struct xio_pcap_writer *w;
	uint64_t n;
	char err[XIO_PCAP_ERRLEN];
};

static int emit(struct out *o, const uint8_t *f, uint32_t caplen, uint32_t len)
{
	return xio_pcap_write(o->w, f, caplen, len, 1700000000000000000ull + o->n++ * 1000, o->err,
			      sizeof(o->err));
}

/* The frame template: a request (client -> server) or an answer. */
static void spec_for(struct xio_build_spec *s, bool answer, bool ipv6)
{
	static const uint8_t client6[16] = { 0xfd, [15] = 2 }, server6[16] = { 0xfd, [15] = 1 };
	uint8_t mac[6];

	xio_build_spec_default(s);
	s->src_port = CLIENT_PORT;
	s->dst_port = XIO_DEFAULT_UDP_PORT;
	if (ipv6) {
		s->ipv6 = true;
		memcpy(s->src_ip, client6, 16);
		memcpy(s->dst_ip, server6, 16);
		s->nvlan = 2;
		s->vlan_tpid[0] = 0x88A8;
		s->vlan_tci[0] = 100;
		s->vlan_tpid[1] = 0x8100;
		s->vlan_tci[1] = 7;
	}
	if (!answer)
		return;
	s->src_port = XIO_DEFAULT_UDP_PORT;
	s->dst_port = CLIENT_PORT;
	memcpy(mac, s->src_mac, 6);
	memcpy(s->src_mac, s->dst_mac, 6);
	memcpy(s->dst_mac, mac, 6);
	for (int i = 0; i < 16; i++) {
		uint8_t t = s->src_ip[i];

		s->src_ip[i] = s->dst_ip[i];
		s->dst_ip[i] = t;
	}
}

/* One UDP datagram carrying msg[0..len) (a multiple of 4, header
 * included): built with the body as header extension, then the message's
 * own header put in place and the UDP checksum redone. caplen 0: whole. */
static int put_msg(struct out *o, bool answer, bool ipv6, const uint8_t *msg, size_t len,
		   uint32_t caplen)
{
	struct xio_build_spec s;
	struct xio_build_layout lay;
	uint8_t f[MAX_FRAME];
	uint32_t n;

	spec_for(&s, answer, ipv6);
	s.hdr_len = (uint16_t)len;
	s.ext = msg + XIO_HDR_LEN;
	n = xio_build_frame(&s, f, sizeof(f), &lay);
	if (!n) {
		snprintf(o->err, sizeof(o->err), "frame %llu cannot be built",
			 (unsigned long long)o->n + 1);
		return -1;
	}
	memcpy(f + lay.xio_off, msg, XIO_HDR_LEN);
	xio_build_fix(f, &lay, XIO_FIX_UDP);
	return emit(o, f, caplen ? caplen : n, n);
}

/* A READ_REPLY of tokens (INT32, or UINT16 narrowed on the way). */
static int put_reply(struct out *o, struct xio_build_spec *s, uint32_t caplen)
{
	struct xio_build_layout lay;
	uint8_t f[MAX_FRAME];
	uint32_t n = xio_build_frame(s, f, sizeof(f), &lay);

	if (!n) {
		snprintf(o->err, sizeof(o->err), "reply %llu cannot be built",
			 (unsigned long long)o->n + 1);
		return -1;
	}
	return emit(o, f, caplen ? caplen : n, n);
}

static size_t request(uint8_t *b, uint8_t op, uint32_t stream, uint64_t first, uint32_t count,
		      uint8_t options, const char *path)
{
	return xio_request_build(b, MAX_FRAME, op, stream, first, count, 360, options, path,
				 strlen(path));
}

static size_t data_reply(uint8_t *b, uint32_t stream, uint64_t first, uint32_t count,
			 size_t nbytes, bool crc_ok)
{
	struct xio_hdr h = {
		.opcode = XIO_OP_DATA_REPLY, .flags = XIO_F_LAST | XIO_F_HAS_CRC,
		.hdr_len = XIO_HDR_LEN, .stream_id = stream, .first_token = first,
		.token_count = count,
	};

	for (size_t i = 0; i < nbytes; i++)
		b[XIO_HDR_LEN + i] = (uint8_t)("xio raw bytes\n"[i % 14]);
	h.payload_crc = xio_crc32c(b + XIO_HDR_LEN, nbytes) ^ (crc_ok ? 0 : 1);
	xio_hdr_put(b, &h);
	return XIO_HDR_LEN + nbytes;
}

static int exchange(struct out *o)
{
	static const int32_t tok[8] = { 0, 1, 65535, 32768, 7, 1000, 50000, 42 };
	static const char *const msgs[] = {
		"", "no such file: data/none.bin", "path refused: ../etc", "token 1000 past the end",
		"token_count must be 1..16777216", "size 4001 is not a multiple of 4", "read failed",
	};
	uint8_t m[MAX_FRAME];
	struct xio_build_spec s;
	size_t n;
	int rc = 0;

	n = request(m, XIO_OP_STAT_REQUEST, 1, 0, 0, 0, "data/train.bin");
	rc |= put_msg(o, false, false, m, n, 0);
	n = xio_stat_reply_build(m, sizeof(m), 1, 4000000, 1700000000123456789ull);
	rc |= put_msg(o, true, false, m, n, 0);
	n = request(m, XIO_OP_READ_REQUEST, 2, 1000, 16, XIO_OPT_CRC, "data/train.bin");
	rc |= put_msg(o, false, false, m, n, 0);
	spec_for(&s, true, false);
	s.stream_id = 2;
	s.flags = XIO_F_HAS_CRC;
	s.first_token = 1000;
	s.token_count = 8;
	s.tokens = tok;
	rc |= put_reply(o, &s, 0);
	s.seq = 1;
	s.first_token = 1008;
	s.flags = XIO_F_HAS_CRC | XIO_F_NARROWED | XIO_F_LAST;
	s.dtype = XIO_DT_UINT16;
	rc |= put_reply(o, &s, 0);
	n = request(m, XIO_OP_READ_REQUEST, 3, 0, 100, XIO_OPT_RAW | XIO_OPT_CRC, "raw/notes.txt");
	rc |= put_msg(o, false, false, m, n, 0);
	n = data_reply(m, 3, 0, 100, 100, true);
	rc |= put_msg(o, true, false, m, n, 0);
	for (uint32_t code = 1; code <= 6; code++) {
		n = xio_error_build(m, sizeof(m), 10 + code, 1000, code, msgs[code]);
		rc |= put_msg(o, true, false, m, n, 0);
	}
	n = xio_error_build(m, sizeof(m), 17, 0, 99, "");
	rc |= put_msg(o, true, false, m, n, 0);
	n = xio_stat_reply_build(m, sizeof(m), 18, 4001, 0);
	rc |= put_msg(o, true, true, m, n, 0);
	n = request(m, XIO_OP_STAT_REQUEST, 19, 0, 0, 0, "shards/0001.bin");
	rc |= put_msg(o, false, true, m, n, 0);
	return rc;
}

static int faults(struct out *o)
{
	static const int32_t tok[4] = { 5, -1, 70000, 9 };
	uint8_t m[MAX_FRAME];
	struct xio_build_spec s;
	size_t n;
	int rc = 0;

	n = xio_stat_reply_build(m, sizeof(m), 30, 400, 1);
	rc |= put_msg(o, true, false, m, n - 8, 0);          /* STAT body of 8 bytes */
	n = xio_error_build(m, sizeof(m), 31, 0, XIO_E_IO, "disk on fire");
	xio_put_be32(m + XIO_HDR_LEN + 4, 200);               /* message past the body */
	rc |= put_msg(o, true, false, m, n, 0);
	n = data_reply(m, 32, 0, 100, 100, false);            /* bad CRC */
	rc |= put_msg(o, true, false, m, n, 0);
	n = data_reply(m, 33, 0, 101, 100, true);             /* token_count != bytes */
	rc |= put_msg(o, true, false, m, n, 0);
	n = request(m, XIO_OP_READ_REQUEST, 34, 0, 0, 0, "a.bin"); /* count 0 */
	rc |= put_msg(o, false, false, m, n, 0);
	n = request(m, XIO_OP_READ_REQUEST, 35, 0, 8, 0x80, "a.bin"); /* unknown option */
	rc |= put_msg(o, false, false, m, n, 0);
	n = request(m, XIO_OP_STAT_REQUEST, 36, 0, 0, 0, "a.bin");
	xio_put_be16(m + XIO_HDR_LEN, 0);                     /* path_len 0 */
	rc |= put_msg(o, false, false, m, n, 0);
	n = request(m, XIO_OP_STAT_REQUEST, 37, 0, 0, 0, "a.bin");
	m[XIO_OFF_FLAGS] = XIO_F_LAST;                        /* flags in a request */
	rc |= put_msg(o, false, false, m, n, 0);
	n = request(m, XIO_OP_STAT_REQUEST, 38, 0, 0, 0, "a.bin");
	rc |= put_msg(o, false, false, m, XIO_HDR_LEN + 4, 0); /* body of 4 bytes */
	n = request(m, XIO_OP_READ_REQUEST, 44, 0, 8, 0, "a.bin");
	m[XIO_OFF_DTYPE] = XIO_DT_INT32;                      /* dtype in a request */
	rc |= put_msg(o, false, false, m, n, 0);
	n = request(m, XIO_OP_READ_REQUEST, 45, 0, 8, 0, "a.bin");
	xio_put_be16(m + XIO_HDR_LEN, 200);                   /* path past the body */
	rc |= put_msg(o, false, false, m, n, 0);
	n = request(m, XIO_OP_STAT_REQUEST, 39, 0, 0, 0, "a.bin");
	m[XIO_OFF_OPCODE] = 0x07;                             /* unknown opcode */
	rc |= put_msg(o, false, false, m, n, 0);

	spec_for(&s, true, false);
	s.stream_id = 40;
	s.token_count = 4;
	s.tokens = tok;
	s.flags = 0x40 | XIO_F_HAS_CRC;                       /* reserved bit */
	s.hdr_len = 40;                                       /* 8 extension bytes */
	s.ext = (const uint8_t *)"EXT-1234";
	rc |= put_reply(o, &s, 0);
	s.stream_id = 41;
	s.flags = 0;
	s.hdr_len = XIO_HDR_LEN;
	s.dtype = XIO_DT_UINT16;                              /* UINT16 without NARROWED */
	rc |= put_reply(o, &s, 0);
	s.stream_id = 42;
	s.dtype = 0x05;                                       /* unknown dtype */
	rc |= put_reply(o, &s, 0);
	s.stream_id = 43;
	s.dtype = XIO_DT_INT32;
	s.flags = XIO_F_HAS_CRC;
	rc |= put_reply(o, &s, 14 + 20 + 8 + 32 + 6);         /* capture cut in the payload */
	rc |= put_reply(o, &s, 14 + 20 + 8 + 20);             /* capture cut in the header */
	return rc;
}

/* Address validation (1.2): a STAT_REPLY with its cookie, READs (token and
 * RAW) carrying one, ERROR_REPLY cookie, a cookie cut short, COOKIE on a
 * STAT_REQUEST (ignored). */
static int cookies(struct out *o)
{
	static const uint8_t ck[XIO_COOKIE_LEN] = { 0xC0, 0x0C, 0x1E, 0x00, 1, 2,  3,  4,
						    5,    6,    7,    8,    9, 10, 11, 0xFF };
	uint8_t m[MAX_FRAME];
	size_t n;
	int rc = 0;

	n = xio_stat_reply_build_cookie(m, sizeof(m), 50, 4000000, 1700000000123456789ull, ck);
	rc |= put_msg(o, true, false, m, n, 0);
	n = request(m, XIO_OP_READ_REQUEST, 51, 0, 100, XIO_OPT_CRC, "data/train.bin");
	n = xio_request_add_cookie(m, n, sizeof(m), ck);
	rc |= put_msg(o, false, false, m, n, 0);
	n = request(m, XIO_OP_READ_REQUEST, 52, 0, 100, XIO_OPT_RAW, "raw/notes.txt");
	n = xio_request_add_cookie(m, n, sizeof(m), ck);
	rc |= put_msg(o, false, false, m, n, 0);
	n = xio_error_build(m, sizeof(m), 53, 0, XIO_E_COOKIE, "no cookie: STAT for one");
	rc |= put_msg(o, true, false, m, n, 0);
	n = request(m, XIO_OP_READ_REQUEST, 54, 0, 8, 0, "a.bin");
	n = xio_request_add_cookie(m, n, sizeof(m), ck);
	rc |= put_msg(o, false, false, m, n - 4, 0);         /* cookie cut short */
	n = request(m, XIO_OP_STAT_REQUEST, 55, 0, 0, XIO_OPT_COOKIE, "a.bin");
	rc |= put_msg(o, false, false, m, n, 0);
	return rc;
}

int main(int argc, char **argv)
{
	struct out o = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: xio_opcodes_pcap OUT.pcap\n");
		return 2;
	}
	o.w = xio_pcap_open_write(argv[1], true, o.err, sizeof(o.err));
	if (!o.w || exchange(&o) || faults(&o) || cookies(&o) || xio_pcap_close_write(o.w, o.err, sizeof(o.err))) {
		fprintf(stderr, "xio_opcodes_pcap: %s\n", o.err);
		return 1;
	}
	return 0;
}
