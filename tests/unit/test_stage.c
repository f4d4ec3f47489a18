/* SPDX-License-Identifier: BSD-3-Clause
 * test_stage.c: the stage core rule by rule. Frames are made with
 * stages/xio_build.c; a narrowed frame is compared byte for byte with the
 * frame the builder makes directly in UINT16 form, whose checksums are summed
 * afresh (the stage core updates them incrementally). Also the checksum and
 * CRC32C helpers against known values.
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "xio_build.h"
#include "xio_crc.h"
#include "xio_csum.h"
#include "xio_stage.h"
#include "xio_unit.h"

#define CAP 16384

static uint8_t frame[CAP], want[CAP], orig[CAP];
static int32_t toks[4096];
static struct xio_build_layout lay;

static struct xio_stage_cfg cfg_default(void)
{
	struct xio_stage_cfg c;

	xio_stage_cfg_default(&c);
	return c;
}

static void spec_tokens(struct xio_build_spec *s, uint32_t n, int32_t start)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		toks[i] = (start + (int32_t)(i * 7919u)) & 0xffff;
	s->tokens = toks;
	s->token_count = n;
}

static uint32_t build(const struct xio_build_spec *s)
{
	uint32_t len = xio_build_frame(s, frame, CAP, &lay);

	CU_ASSERT_FATAL(len > 0);
	memcpy(orig, frame, len);
	return len;
}

/* Processes frame[0..len) and checks reason and action; for a forwarded
 * frame also that it is byte-identical. */
static struct xio_result run(const struct xio_stage_cfg *cfg, uint32_t len,
			     enum xio_reason reason, enum xio_action action)
{
	struct xio_result res;

	xio_process_buf(cfg, frame, len, &res);
	CU_ASSERT_EQUAL(res.reason, reason);
	CU_ASSERT_EQUAL(res.action, action);
	if (res.reason != reason)
		fprintf(stderr, "\n    got reason %s, want %s", xio_reason_name(res.reason),
			xio_reason_name(reason));
	if (action == XIO_ACT_FORWARD) {
		CU_ASSERT_EQUAL(res.out_len, len);
		CU_ASSERT_EQUAL(memcmp(frame, orig, len), 0);
	}
	return res;
}

static void expect_reason(const struct xio_build_spec *s, enum xio_reason r)
{
	struct xio_stage_cfg cfg = cfg_default();

	run(&cfg, build(s), r, XIO_ACT_FORWARD);
}

/* Builds s, narrows it, and compares with s built directly as UINT16. */
static void expect_narrowed(const struct xio_build_spec *s)
{
	struct xio_stage_cfg cfg = cfg_default();
	struct xio_build_spec n = *s;
	struct xio_build_layout wl;
	struct xio_result res;
	uint32_t len = build(s), wlen;

	n.dtype = XIO_DT_UINT16;
	n.flags |= XIO_F_NARROWED;
	n.pad_to = 0;
	wlen = xio_build_frame(&n, want, CAP, &wl);
	if (!s->udp_csum && !s->ipv6)
		CU_ASSERT_EQUAL(xio_be16(want + wl.l4_off + 6), 0);
	res = run(&cfg, len, XIO_R_NARROWED, XIO_ACT_REWRITTEN);
	CU_ASSERT_EQUAL(res.out_len, wlen);
	CU_ASSERT_EQUAL(res.tokens, s->token_count);
	CU_ASSERT_EQUAL(res.saturated, 0);
	CU_ASSERT_EQUAL(memcmp(frame, want, wlen), 0);
}

static void test_not_ip(void)
{
	struct xio_build_spec s;
	struct xio_stage_cfg cfg = cfg_default();
	uint32_t len;

	xio_build_spec_default(&s);
	spec_tokens(&s, 8, 1);
	len = build(&s);
	frame[12] = 0x08, frame[13] = 0x06; /* ARP */
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_NOT_IP, XIO_ACT_FORWARD);

	len = build(&s); /* IPv4 version 5 */
	frame[lay.l3_off] = 0x55;
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_NOT_IP, XIO_ACT_FORWARD);

	len = build(&s); /* IHL 4 */
	frame[lay.l3_off] = 0x44;
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_NOT_IP, XIO_ACT_FORWARD);

	build(&s); /* too short for the IP header */
	run(&cfg, lay.l3_off + 19, XIO_R_NOT_IP, XIO_ACT_FORWARD);
	run(&cfg, 13, XIO_R_NOT_IP, XIO_ACT_FORWARD);
	run(&cfg, 0, XIO_R_NOT_IP, XIO_ACT_FORWARD);

	s.ip_opt_len = 12; /* cut inside the IPv4 options */
	build(&s);
	run(&cfg, lay.l3_off + 24, XIO_R_NOT_IP, XIO_ACT_FORWARD);

	s.ip_opt_len = 0;
	s.ipv6 = true;
	build(&s);
	run(&cfg, lay.l3_off + 39, XIO_R_NOT_IP, XIO_ACT_FORWARD);

	s.ipv6 = false; /* three VLAN tags: the third is not looked through */
	s.nvlan = 2;
	s.vlan_tpid[0] = 0x88A8, s.vlan_tpid[1] = 0x8100;
	len = xio_build_frame(&s, frame + 4, CAP - 4, &lay) + 4;
	memmove(frame, frame + 4, 12);
	frame[12] = 0x81, frame[13] = 0x00, frame[14] = 0x00, frame[15] = 0x07;
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_NOT_IP, XIO_ACT_FORWARD);
}

static void test_not_udp_fragment_truncated_port(void)
{
	struct xio_build_spec s;
	struct xio_stage_cfg cfg = cfg_default();
	uint32_t len;

	xio_build_spec_default(&s);
	spec_tokens(&s, 16, 3);
	len = build(&s);
	frame[lay.l3_off + 9] = 6; /* TCP */
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_NOT_UDP, XIO_ACT_FORWARD);

	s.ipv6 = true;
	len = build(&s);
	frame[lay.l3_off + 6] = 0; /* hop-by-hop extension header */
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_NOT_UDP, XIO_ACT_FORWARD);
	s.ipv6 = false;

	len = build(&s);
	frame[lay.l3_off + 6] |= 0x20; /* MF */
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_IP_FRAGMENT, XIO_ACT_FORWARD);
	len = build(&s);
	frame[lay.l3_off + 7] = 1; /* offset 8 */
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_IP_FRAGMENT, XIO_ACT_FORWARD);

	len = build(&s); /* capture cut short: the datagram runs past the frame */
	run(&cfg, len - 1, XIO_R_TRUNCATED, XIO_ACT_FORWARD);
	len = build(&s); /* IP length below header + 8 */
	xio_put_be16(frame + lay.l3_off + 2, 27);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_TRUNCATED, XIO_ACT_FORWARD);

	s.dst_port = 7911;
	expect_reason(&s, XIO_R_OTHER_PORT);
	cfg.udp_port = 7911;
	run(&cfg, build(&s), XIO_R_NARROWED, XIO_ACT_REWRITTEN);

	/* Rule 5 (1.1): a reply from the XIO port to an ephemeral port is XIO;
	 * the port pair reversed, and neither port, are decided as well. */
	cfg.udp_port = 7910;
	s.src_port = 7910;
	s.dst_port = 51234;
	run(&cfg, build(&s), XIO_R_NARROWED, XIO_ACT_REWRITTEN);
	s.src_port = 51234;
	s.dst_port = 7910;
	run(&cfg, build(&s), XIO_R_NARROWED, XIO_ACT_REWRITTEN);
	s.src_port = 7911;
	s.dst_port = 51234;
	expect_reason(&s, XIO_R_OTHER_PORT);
}

static void test_invalid_xio(void)
{
	struct xio_build_spec s;
	struct xio_stage_cfg cfg = cfg_default(), drop = cfg_default();
	uint32_t len;

	drop.drop_invalid = true;
	xio_build_spec_default(&s);
	spec_tokens(&s, 10, 5);

	len = build(&s); /* UDP length != IP payload length */
	xio_put_be16(frame + lay.l4_off + 4, (uint16_t)(xio_be16(frame + lay.l4_off + 4) - 4));
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_LENGTH, XIO_ACT_FORWARD);
	run(&drop, len, XIO_R_BAD_LENGTH, XIO_ACT_DROP);

	len = build(&s);
	frame[lay.l3_off + 10] ^= 0x01;
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_IP_CSUM, XIO_ACT_FORWARD);

	len = build(&s);
	frame[lay.payload_off + 5] ^= 0x40;
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_UDP_CSUM, XIO_ACT_FORWARD);
	run(&drop, len, XIO_R_BAD_UDP_CSUM, XIO_ACT_DROP);

	s.ipv6 = true; /* zero UDP checksum is an error over IPv6 */
	s.udp_csum = false;
	expect_reason(&s, XIO_R_BAD_UDP_CSUM);
	s.ipv6 = false;
	s.udp_csum = true;

	len = build(&s); /* wrong magic, checksums made good again */
	frame[lay.xio_off] = 0x58, frame[lay.xio_off + 1] = 0x4a;
	xio_build_fix(frame, &lay, XIO_FIX_ALL);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_HEADER, XIO_ACT_FORWARD);

	len = build(&s);
	frame[lay.xio_off + XIO_OFF_VERSION] = 2;
	xio_build_fix(frame, &lay, XIO_FIX_ALL);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_HEADER, XIO_ACT_FORWARD);

	len = build(&s); /* hdr_len not a multiple of 4 */
	xio_put_be16(frame + lay.xio_off + XIO_OFF_HDR_LEN, 34);
	xio_build_fix(frame, &lay, XIO_FIX_ALL);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_HEADER, XIO_ACT_FORWARD);

	len = build(&s); /* hdr_len past the payload */
	xio_put_be16(frame + lay.xio_off + XIO_OFF_HDR_LEN, 32 + 44);
	xio_build_fix(frame, &lay, XIO_FIX_ALL);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_HEADER, XIO_ACT_FORWARD);

	s.token_count = 0; /* UDP payload under 32 bytes */
	len = build(&s);
	xio_put_be16(frame + lay.l3_off + 2, (uint16_t)(20 + 8 + 28));
	xio_put_be16(frame + lay.l4_off + 4, 8 + 28);
	lay.payload_len = 0;
	lay.ip_end -= 4;
	xio_build_fix(frame, &lay, XIO_FIX_UDP | XIO_FIX_IP_HDR);
	memcpy(orig, frame, len - 4);
	run(&cfg, len - 4, XIO_R_BAD_HEADER, XIO_ACT_FORWARD);
	spec_tokens(&s, 10, 5);

	s.flags = 0x10; /* reserved flag */
	expect_reason(&s, XIO_R_UNSUPPORTED);
	run(&drop, build(&s), XIO_R_UNSUPPORTED, XIO_ACT_DROP);
	s.flags = 0;
}

static void test_not_for_narrowing(void)
{
	struct xio_build_spec s;
	struct xio_stage_cfg drop = cfg_default();

	drop.drop_invalid = true;
	xio_build_spec_default(&s);
	spec_tokens(&s, 12, 9);

	s.opcode = XIO_OP_READ_REQUEST;
	expect_reason(&s, XIO_R_NOT_REPLY);
	run(&drop, build(&s), XIO_R_NOT_REPLY, XIO_ACT_FORWARD);
	s.opcode = XIO_OP_ERROR_REPLY;
	expect_reason(&s, XIO_R_NOT_REPLY);
	s.opcode = XIO_OP_READ_REPLY;

	s.dtype = XIO_DT_UINT16;
	s.flags = XIO_F_NARROWED;
	expect_reason(&s, XIO_R_ALREADY_NARROW);
	run(&drop, build(&s), XIO_R_ALREADY_NARROW, XIO_ACT_FORWARD);

	s.flags = 0; /* UINT16 without NARROWED */
	expect_reason(&s, XIO_R_BAD_HEADER);
	s.dtype = XIO_DT_INT32; /* NARROWED on INT32 */
	s.flags = XIO_F_NARROWED;
	expect_reason(&s, XIO_R_BAD_HEADER);
	s.dtype = 3; /* NARROWED with an unknown dtype: rule 13 first */
	expect_reason(&s, XIO_R_BAD_HEADER);
	s.flags = 0;
	expect_reason(&s, XIO_R_UNSUPPORTED);
	s.dtype = XIO_DT_INT32;
}

static void test_bad_length_and_crc(void)
{
	struct xio_build_spec s;
	struct xio_stage_cfg cfg = cfg_default();
	uint32_t len;

	xio_build_spec_default(&s);
	spec_tokens(&s, 20, 11);
	len = build(&s);
	xio_put_be32(frame + lay.xio_off + XIO_OFF_TOKEN_COUNT, 19);
	xio_build_fix(frame, &lay, XIO_FIX_ALL);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_LENGTH, XIO_ACT_FORWARD);
	xio_put_be32(frame + lay.xio_off + XIO_OFF_TOKEN_COUNT, 0x40000005); /* x4 wraps 32 bits */
	xio_build_fix(frame, &lay, XIO_FIX_ALL);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_LENGTH, XIO_ACT_FORWARD);

	s.flags = XIO_F_HAS_CRC;
	len = build(&s);
	frame[lay.xio_off + XIO_OFF_PAYLOAD_CRC + 3] ^= 1;
	xio_build_fix(frame, &lay, XIO_FIX_UDP);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_BAD_CRC, XIO_ACT_FORWARD);
	s.flags = 0; /* payload_crc is ignored without HAS_CRC */
	len = build(&s);
	xio_put_be32(frame + lay.xio_off + XIO_OFF_PAYLOAD_CRC, 0xdeadbeef);
	xio_build_fix(frame, &lay, XIO_FIX_UDP);
	memcpy(orig, frame, len);
	run(&cfg, len, XIO_R_NARROWED, XIO_ACT_REWRITTEN);
}

static void test_out_of_range_policies(void)
{
	static const int32_t bad[] = { -1, 65536, INT32_MIN, INT32_MAX, -65536 };
	struct xio_build_spec s;
	struct xio_stage_cfg cfg = cfg_default();
	struct xio_result res;
	unsigned b, pos;

	xio_build_spec_default(&s);
	s.flags = XIO_F_HAS_CRC;
	for (b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		for (pos = 0; pos < 70; pos += 23) {
			uint32_t len, wlen;
			struct xio_build_spec n;

			spec_tokens(&s, 70, (int32_t)b);
			toks[pos] = bad[b];
			cfg.overflow = XIO_OVERFLOW_KEEP;
			len = build(&s);
			run(&cfg, len, XIO_R_OUT_OF_RANGE, XIO_ACT_FORWARD);

			cfg.overflow = XIO_OVERFLOW_DROP;
			run(&cfg, build(&s), XIO_R_OUT_OF_RANGE, XIO_ACT_DROP);

			cfg.overflow = XIO_OVERFLOW_SATURATE;
			len = build(&s);
			res = run(&cfg, len, XIO_R_OUT_OF_RANGE, XIO_ACT_REWRITTEN);
			CU_ASSERT_EQUAL(res.saturated, 1);
			CU_ASSERT_EQUAL(res.tokens, 70);
			n = s;
			toks[pos] = bad[b] < 0 ? 0 : 65535;
			n.dtype = XIO_DT_UINT16;
			n.flags |= XIO_F_NARROWED;
			wlen = xio_build_frame(&n, want, CAP, NULL);
			CU_ASSERT_EQUAL(res.out_len, wlen);
			CU_ASSERT_EQUAL(memcmp(frame, want, wlen), 0);
		}
	}
}

/* Rule 8 settled by the narrowing pass (the kernels sum the tokens as they
 * narrow): a wrong UDP checksum found after some or all tokens were narrowed
 * in place still leaves the frame byte-identical (or dropped), whatever else
 * is wrong with it further down the rules, wherever the damage is. */
static void test_udp_csum_after_narrowing(void)
{
	static const uint32_t counts[] = { 1, 16, 17, 70, 364 };
	struct xio_build_spec s;
	struct xio_stage_cfg cfg = cfg_default(), drop = cfg_default();
	unsigned c, at, crc;

	drop.drop_invalid = true;
	xio_build_spec_default(&s);
	for (crc = 0; crc < 2; crc++) {
		s.flags = crc ? XIO_F_HAS_CRC : 0;
		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			uint32_t n = counts[c];

			for (at = 0; at < n; at += n / 3 + 1) {
				uint32_t len, bad;

				/* one token's low byte changed, still in range */
				spec_tokens(&s, n, (int32_t)at);
				len = build(&s);
				frame[lay.payload_off + 4 * at] ^= 0x5a;
				memcpy(orig, frame, len);
				run(&cfg, len, XIO_R_BAD_UDP_CSUM, XIO_ACT_FORWARD);
				run(&drop, len, XIO_R_BAD_UDP_CSUM, XIO_ACT_DROP);

				/* and a token out of range after (or at) it: the pass
				 * stops there and the rest is summed unnarrowed */
				bad = (at + n / 2) % n;
				toks[bad] = 70000 + (int32_t)at;
				len = build(&s);
				frame[lay.payload_off + 4 * at] ^= 0x01;
				memcpy(orig, frame, len);
				run(&cfg, len, XIO_R_BAD_UDP_CSUM, XIO_ACT_FORWARD);
				run(&drop, len, XIO_R_BAD_UDP_CSUM, XIO_ACT_DROP);

				/* the damage in the XIO header instead: rule 8 still
				 * outranks a wrong CRC (16) */
				spec_tokens(&s, n, (int32_t)at);
				len = build(&s);
				frame[lay.xio_off + XIO_OFF_PAYLOAD_CRC + 3] ^= 0x10;
				memcpy(orig, frame, len);
				run(&cfg, len, XIO_R_BAD_UDP_CSUM, XIO_ACT_FORWARD);
			}
		}
	}
}

static void test_narrowed_shapes(void)
{
	static const uint32_t counts[] = { 0, 1, 2, 3, 15, 16, 17, 364, 2232 };
	struct xio_build_spec s;
	unsigned i, shape;

	for (shape = 0; shape < 8; shape++) {
		for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			xio_build_spec_default(&s);
			s.ipv6 = shape & 1;
			s.flags = (shape & 2) ? XIO_F_HAS_CRC | XIO_F_LAST : 0;
			s.udp_csum = !(shape & 4) || s.ipv6;
			s.nvlan = shape % 3;
			s.vlan_tpid[0] = 0x88A8, s.vlan_tpid[1] = 0x8100;
			s.vlan_tci[0] = 100, s.vlan_tci[1] = 200;
			s.ip_opt_len = (shape == 6) ? 8 : 0;
			s.hdr_len = (shape == 3) ? 48 : 32;
			s.pad_to = 64; /* short frames carry padding, which goes */
			s.dscp = 46;
			s.ip_id = 0x1234;
			s.first_token = 1000000007ull * i;
			spec_tokens(&s, counts[i], (int32_t)(shape * 131));
			if (counts[i] > 2) {
				toks[0] = 0;
				toks[1] = 65535;
			}
			expect_narrowed(&s);
		}
	}
}

/* A computed UDP checksum of 0 must be sent as 0xFFFF: search token values
 * until the narrowed datagram sums to 0xFFFF, then check the field. */
static void test_udp_csum_zero_is_ffff(void)
{
	struct xio_build_spec s;
	struct xio_stage_cfg cfg = cfg_default();
	struct xio_result res;
	int32_t v;
	int found = 0;

	xio_build_spec_default(&s);
	spec_tokens(&s, 4, 0);
	for (v = 0; v < 65536 && !found; v++) {
		struct xio_build_spec n = s;

		toks[3] = v;
		n.dtype = XIO_DT_UINT16;
		n.flags = XIO_F_NARROWED;
		xio_build_frame(&n, want, CAP, &lay);
		if (xio_be16(want + lay.l4_off + 6) != 0xffff)
			continue;
		found = 1;
		res = run(&cfg, build(&s), XIO_R_NARROWED, XIO_ACT_REWRITTEN);
		CU_ASSERT_EQUAL(memcmp(frame, want, res.out_len), 0);
		CU_ASSERT_EQUAL(xio_be16(frame + lay.l4_off + 6), 0xffff);
	}
	CU_ASSERT(found);
}

static void test_crc32c(void)
{
	uint8_t buf[1000];
	uint32_t st;
	unsigned i, cut;

	CU_ASSERT_EQUAL(xio_crc32c((const uint8_t *)"123456789", 9), 0xE3069283u);
	CU_ASSERT_EQUAL(xio_crc32c(buf, 0), 0);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 31 + 7);
	for (cut = 0; cut <= sizeof(buf); cut += 37) {
		st = xio_crc32c_update(XIO_CRC32C_INIT, buf, cut);
		st = xio_crc32c_update(st, buf + cut, sizeof(buf) - cut);
		CU_ASSERT_EQUAL(xio_crc32c_final(st), xio_crc32c(buf, sizeof(buf)));
	}
	/* RFC 3720 B.4: 32 bytes of zeros */
	memset(buf, 0, 32);
	CU_ASSERT_EQUAL(xio_crc32c(buf, 32), 0x8A9136AAu);
	memset(buf, 0xff, 32);
	CU_ASSERT_EQUAL(xio_crc32c(buf, 32), 0x62A8AB43u);
}

static void test_checksum_helpers(void)
{
	/* the IPv4 header of RFC 1071 folklore: checksum 0xB861 */
	static const uint8_t ip[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
					0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	uint8_t buf[301];
	uint16_t c0, c1;
	unsigned i;

	CU_ASSERT_EQUAL(xio_ipv4_hdr_csum(ip, 20), 0xb861);
	CU_ASSERT_EQUAL(xio_csum_fold(xio_csum_add(0, ip, 20)), 0xffff);
	/* RFC 1071 section 3 example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 */
	{
		static const uint8_t ex[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

		CU_ASSERT_EQUAL(xio_csum_fold(xio_csum_add(0, ex, 8)), 0xddf2);
		CU_ASSERT_EQUAL(xio_csum_fold(xio_csum_add(0, ex, 7)), 0xddf2 - 0xf7);
	}
	/* the incremental update agrees with a fresh sum */
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 113 + 1);
	c0 = (uint16_t)~xio_csum_fold(xio_csum_add(0, buf, 300));
	for (i = 0; i < 300; i += 38) {
		uint16_t old = xio_be16(buf + i), new_w = (uint16_t)(old * 7 + 3);

		xio_put_be16(buf + i, new_w);
		c0 = xio_csum_update16(c0, old, new_w);
		c1 = (uint16_t)~xio_csum_fold(xio_csum_add(0, buf, 300));
		CU_ASSERT_EQUAL(c0 == 0xffff ? 0 : c0, c1 == 0xffff ? 0 : c1);
	}
	/* the fold against end-around carry done 16 bits at a time */
	{
		static const uint64_t edge[] = { 0, 1, 0xffff, 0x10000, 0x1fffe, 0xffffffffu,
						 0x100000000ull, 0xffffffffffffffffull,
						 0xffffffff00000001ull, 0x0000ffff0000ffffull };
		uint64_t x = 0x9e3779b97f4a7c15ull;

		for (i = 0; i < 10 + 2000; i++) {
			uint64_t v = i < 10 ? edge[i] : (x = x * 6364136223846793005ull + 1), r = v;

			while (r >> 16)
				r = (r & 0xffff) + (r >> 16);
			if (!XIO_CHECK(xio_csum_fold(v) == r, "fold(%llx) = %x, want %llx",
				       (unsigned long long)v, xio_csum_fold(v),
				       (unsigned long long)r))
				break;
		}
	}
}

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("stage", NULL, NULL);
	CU_add_test(s, "rule 1: not_ip", test_not_ip);
	CU_add_test(s, "rules 2-5: not_udp, ip_fragment, truncated, other_port (either port)",
		    test_not_udp_fragment_truncated_port);
	CU_add_test(s, "rules 6-10: invalid XIO, forwarded or dropped", test_invalid_xio);
	CU_add_test(s, "rules 11-14: not_reply, already_narrow, dtype/flags", test_not_for_narrowing);
	CU_add_test(s, "rules 15-16: bad_length, bad_crc", test_bad_length_and_crc);
	CU_add_test(s, "rule 17: out_of_range under keep, drop, saturate", test_out_of_range_policies);
	CU_add_test(s, "rule 8 settled by the narrowing pass", test_udp_csum_after_narrowing);
	CU_add_test(s, "rule 18: narrowed frames of every shape", test_narrowed_shapes);
	CU_add_test(s, "computed UDP checksum 0 is sent as 0xFFFF", test_udp_csum_zero_is_ffff);
	CU_add_test(s, "CRC32C check values and chaining", test_crc32c);
	CU_add_test(s, "Internet checksum helpers", test_checksum_helpers);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}
