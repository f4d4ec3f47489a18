/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ref.c: the reference model of ../shared/xio-wire-v1.md (xio_ref.h).
 * Each rule of the spec's table is one numbered step below, in the spec's
 * order; every field is read through a bounds-checked helper after the step
 * that proves it lies inside the frame. The narrowed frame is rebuilt from
 * scratch: header bytes copied, tokens converted one by one, then every
 * length, checksum and CRC computed anew over the result.
 */
#include <assert.h>
#include <string.h>

#include "xio_ref.h"

static const char *const reason_names[REF_NREASONS] = {
	[REF_NARROWED] = "narrowed",
	[REF_NOT_IP] = "not_ip",
	[REF_NOT_UDP] = "not_udp",
	[REF_IP_FRAGMENT] = "ip_fragment",
	[REF_TRUNCATED] = "truncated",
	[REF_OTHER_PORT] = "other_port",
	[REF_BAD_LENGTH] = "bad_length",
	[REF_BAD_IP_CSUM] = "bad_ip_csum",
	[REF_BAD_UDP_CSUM] = "bad_udp_csum",
	[REF_BAD_HEADER] = "bad_header",
	[REF_UNSUPPORTED] = "unsupported",
	[REF_NOT_REPLY] = "not_reply",
	[REF_ALREADY_NARROW] = "already_narrow",
	[REF_BAD_CRC] = "bad_crc",
	[REF_OUT_OF_RANGE] = "out_of_range",
};

const char *xio_ref_reason_name(enum xio_ref_reason r)
{
	return r < REF_NREASONS ? reason_names[r] : "?";
}

/* ---- reading the frame: every read is checked against its length ---- */

struct view {
	const uint8_t *p;
	size_t len;
};

static unsigned u8(const struct view *v, size_t off)
{
	assert(off < v->len);
	return v->p[off];
}

static unsigned be16(const struct view *v, size_t off)
{
	return u8(v, off) << 8 | u8(v, off + 1);
}

static uint32_t be32(const struct view *v, size_t off)
{
	return (uint32_t)be16(v, off) << 16 | be16(v, off + 2);
}

static uint32_t le32(const struct view *v, size_t off)
{
	return (uint32_t)u8(v, off) | (uint32_t)u8(v, off + 1) << 8 |
	       (uint32_t)u8(v, off + 2) << 16 | (uint32_t)u8(v, off + 3) << 24;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* ---- RFC 1071 ones'-complement sum, 32-bit accumulator folded often ---- */

static uint32_t sum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sum += (i % 2 == 0) ? (uint32_t)p[i] << 8 : p[i]; /* odd tail: padded with 0 */
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return sum;
}

static unsigned sum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* UDP pseudo-header: source and destination address, protocol 17, UDP length. */
static uint32_t pseudo_sum(const uint8_t *ip, int v6, unsigned udp_len)
{
	uint8_t w[4] = { 0, 17, (uint8_t)(udp_len >> 8), (uint8_t)udp_len };
	uint32_t sum = v6 ? sum_add(0, ip + 8, 32) : sum_add(0, ip + 12, 8);

	return sum_add(sum, w, 4);
}

/* ---- CRC32C, bit by bit ---- */

uint32_t xio_ref_crc32c(const uint8_t *buf, size_t len)
{
	uint32_t crc = 0xFFFFFFFFu;

	for (size_t i = 0; i < len; i++) {
		crc ^= buf[i];
		for (int b = 0; b < 8; b++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return crc ^ 0xFFFFFFFFu;
}

/* ---- classification: the spec's table, rule by rule ---- */

struct parsed {
	size_t l3;        /* IP header */
	int v6;
	unsigned ip_hdrs; /* IPv4: IHL x 4; IPv6: 40 */
	size_t ip_len;    /* whole datagram, headers included */
	size_t l4;        /* UDP header */
	unsigned udp_len;
	size_t x;         /* XIO header */
	unsigned hdr_len;
	unsigned flags;
	size_t payload;   /* first token */
	uint32_t ntok;
};

static enum xio_ref_reason classify(const struct xio_ref_cfg *cfg, const struct view *v,
				    struct parsed *p)
{
	size_t off;
	unsigned type, tags = 0;

	/* Rule 1: ethertype after at most 2 VLAN tags must be IPv4 or IPv6,
	 * the frame long enough for the L3 header, IPv4 version and IHL valid. */
	if (v->len < 14)
		return REF_NOT_IP;
	off = 12;
	type = be16(v, off);
	while ((type == 0x8100 || type == 0x88A8) && tags < 2) {
		off += 4;
		tags++;
		if (v->len < off + 2)
			return REF_NOT_IP;
		type = be16(v, off);
	}
	p->l3 = off + 2;
	if (type == 0x0800) {
		unsigned version, ihl;

		if (v->len < p->l3 + 20)
			return REF_NOT_IP;
		version = u8(v, p->l3) >> 4;
		ihl = u8(v, p->l3) & 0xf;
		if (version != 4 || ihl < 5)
			return REF_NOT_IP;
		if (v->len < p->l3 + ihl * 4)
			return REF_NOT_IP;
		p->v6 = 0;
		p->ip_hdrs = ihl * 4;
		/* Rule 2 */
		if (u8(v, p->l3 + 9) != 17)
			return REF_NOT_UDP;
		/* Rule 3: MF (0x2000) or a fragment offset (0x1fff) */
		if (be16(v, p->l3 + 6) & 0x2000 || be16(v, p->l3 + 6) & 0x1fff)
			return REF_IP_FRAGMENT;
		p->ip_len = be16(v, p->l3 + 2);
	} else if (type == 0x86DD) {
		if (v->len < p->l3 + 40)
			return REF_NOT_IP;
		p->v6 = 1;
		p->ip_hdrs = 40;
		/* Rule 2 (rule 3 is IPv4 only) */
		if (u8(v, p->l3 + 6) != 17)
			return REF_NOT_UDP;
		p->ip_len = 40 + (size_t)be16(v, p->l3 + 4);
	} else {
		return REF_NOT_IP;
	}

	/* Rule 4 */
	if (p->ip_len < p->ip_hdrs + 8 || p->l3 + p->ip_len > v->len)
		return REF_TRUNCATED;
	p->l4 = p->l3 + p->ip_hdrs;

	/* Rule 5 (1.1): the destination or the source port */
	if (be16(v, p->l4 + 2) != cfg->port && be16(v, p->l4) != cfg->port)
		return REF_OTHER_PORT;

	/* Rule 6 */
	p->udp_len = be16(v, p->l4 + 4);
	if (p->udp_len != p->ip_len - p->ip_hdrs)
		return REF_BAD_LENGTH;

	/* Rule 7: the header, its checksum field included, sums to 0xFFFF */
	if (!p->v6 && sum_fold(sum_add(0, v->p + p->l3, p->ip_hdrs)) != 0xffff)
		return REF_BAD_IP_CSUM;

	/* Rule 8: 0 is "none" for IPv4, an error for IPv6; otherwise the
	 * pseudo-header plus the datagram sums to 0xFFFF */
	if (be16(v, p->l4 + 6) == 0) {
		if (p->v6)
			return REF_BAD_UDP_CSUM;
	} else {
		uint32_t sum = pseudo_sum(v->p + p->l3, p->v6, p->udp_len);

		if (sum_fold(sum_add(sum, v->p + p->l4, p->udp_len)) != 0xffff)
			return REF_BAD_UDP_CSUM;
	}

	/* Rule 9 */
	p->x = p->l4 + 8;
	if (p->udp_len - 8 < 32)
		return REF_BAD_HEADER;
	if (be16(v, p->x + 0) != 0x5849 || u8(v, p->x + 2) != 1)
		return REF_BAD_HEADER;
	p->hdr_len = be16(v, p->x + 6);
	if (p->hdr_len < 32 || p->hdr_len % 4 != 0 || p->hdr_len > p->udp_len - 8)
		return REF_BAD_HEADER;

	/* Rule 10 */
	p->flags = u8(v, p->x + 4);
	if (p->flags & 0xF8)
		return REF_UNSUPPORTED;

	/* Rule 11 */
	if (u8(v, p->x + 3) != 0x02)
		return REF_NOT_REPLY;

	/* Rule 12 */
	unsigned dtype = u8(v, p->x + 5);
	int narrowed_flag = (p->flags & 0x04) != 0;

	if (dtype == 0x02 && narrowed_flag)
		return REF_ALREADY_NARROW;

	/* Rule 13 */
	if ((dtype == 0x02 && !narrowed_flag) || (narrowed_flag && dtype != 0x02))
		return REF_BAD_HEADER;

	/* Rule 14 */
	if (dtype != 0x01)
		return REF_UNSUPPORTED;

	/* Rule 15 */
	size_t payload_len = p->udp_len - 8 - p->hdr_len;

	p->ntok = be32(v, p->x + 24);
	if ((uint64_t)p->ntok * 4 != payload_len)
		return REF_BAD_LENGTH;
	p->payload = p->x + p->hdr_len;

	/* Rule 16 */
	if ((p->flags & 0x02) && xio_ref_crc32c(v->p + p->payload, payload_len) != be32(v, p->x + 28))
		return REF_BAD_CRC;

	/* Rules 17 and 18 */
	for (uint32_t i = 0; i < p->ntok; i++) {
		int32_t t = (int32_t)le32(v, p->payload + 4 * (size_t)i);

		if (t < 0 || t > 65535)
			return REF_OUT_OF_RANGE;
	}
	return REF_NARROWED;
}

/* ---- narrowing: the rewritten frame, built anew into out ---- */

static size_t narrow(const struct view *v, const struct parsed *p, int saturate, uint8_t *out,
		     uint32_t *clamped)
{
	size_t shrink = 2 * (size_t)p->ntok;
	size_t out_len = p->payload + shrink;
	uint8_t *ip = out + p->l3, *udp = out + p->l4, *x = out + p->x;
	unsigned new_udp_len = p->udp_len - (unsigned)shrink;
	unsigned old_udp_csum = be16(v, p->l4 + 6);

	/* everything before the payload as it came */
	memcpy(out, v->p, p->payload);

	/* payload: (uint16_t)t, or t clamped to 0..65535 */
	*clamped = 0;
	for (uint32_t i = 0; i < p->ntok; i++) {
		int32_t t = (int32_t)le32(v, p->payload + 4 * (size_t)i);
		uint16_t u;

		if (saturate && (t < 0 || t > 65535)) {
			u = t < 0 ? 0 : 65535;
			(*clamped)++;
		} else {
			u = (uint16_t)t;
		}
		out[p->payload + 2 * (size_t)i] = (uint8_t)(u & 0xff);
		out[p->payload + 2 * (size_t)i + 1] = (uint8_t)(u >> 8);
	}

	/* XIO header: dtype, flags, payload_crc */
	x[5] = 0x02;
	x[4] = (uint8_t)(p->flags | 0x04);
	put32(x + 28, (p->flags & 0x02) ? xio_ref_crc32c(out + p->payload, shrink) : 0);

	/* IP lengths and IPv4 header checksum */
	if (p->v6) {
		put16(ip + 4, (unsigned)(p->ip_len - 40 - shrink));
	} else {
		put16(ip + 2, (unsigned)(p->ip_len - shrink));
		put16(ip + 10, 0);
		put16(ip + 10, ~sum_fold(sum_add(0, ip, p->ip_hdrs)) & 0xffff);
	}

	/* UDP length and checksum (an IPv4 datagram without one keeps 0) */
	put16(udp + 4, new_udp_len);
	if (!p->v6 && old_udp_csum == 0)
		return out_len;
	put16(udp + 6, 0);
	unsigned c = ~sum_fold(sum_add(pseudo_sum(ip, p->v6, new_udp_len), udp, new_udp_len)) & 0xffff;

	put16(udp + 6, c == 0 ? 0xffff : c);
	return out_len;
}

static int is_invalid(enum xio_ref_reason r)
{
	return r == REF_BAD_LENGTH || r == REF_BAD_IP_CSUM || r == REF_BAD_UDP_CSUM ||
	       r == REF_BAD_HEADER || r == REF_UNSUPPORTED || r == REF_BAD_CRC;
}

void xio_ref_process(const struct xio_ref_cfg *cfg, const uint8_t *in, size_t len,
		     uint8_t *out, struct xio_ref_result *res)
{
	struct view v = { in, len };
	struct parsed p;

	memset(&p, 0, sizeof(p));
	memset(res, 0, sizeof(*res));
	res->reason = classify(cfg, &v, &p);
	res->action = REF_FORWARD;

	if (res->reason == REF_NARROWED ||
	    (res->reason == REF_OUT_OF_RANGE && cfg->policy == REF_SATURATE)) {
		res->action = REF_REWRITE;
		res->out_len = narrow(&v, &p, res->reason == REF_OUT_OF_RANGE, out, &res->saturated);
		res->tokens = p.ntok;
		return;
	}
	if ((res->reason == REF_OUT_OF_RANGE && cfg->policy == REF_DROP) ||
	    (is_invalid(res->reason) && cfg->drop_invalid)) {
		res->action = REF_DISCARD;
		return;
	}
	memcpy(out, in, len);
	res->out_len = len;
}
