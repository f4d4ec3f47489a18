/* SPDX-License-Identifier: BSD-3-Clause
 * xio_stage.c: one frame through the XIO v1 rules, in the spec's order,
 * then the narrowing rewrite. Headers are parsed from the first segment in
 * place, or from a copy when the first segment is shorter than the header run.
 *
 * Passes over the payload of a valid INT32 reply: one narrowing pass that
 * checks the range and sums the tokens for the UDP checksum as it goes, and
 * the CRC32C check before it and the CRC32C of the half-size output after
 * it (HAS_CRC only). The UDP checksum check (rule 8) is deferred to that
 * pass when neither the field (zero) nor the NIC settles it; any frame that
 * stops short of narrowing has it settled on the spot, since rule 8
 * outranks rules 9-17, and a frame whose checksum turns out wrong is widened
 * back and leaves as it came. The new UDP checksum is an RFC 1624 update of
 * the old one: in-range tokens have zero upper halves, so the payload's
 * ones'-complement sum is the same before and after narrowing.
 */
#include <string.h>

#include "xio_crc.h"
#include "xio_csum.h"
#include "xio_stage.h"

#define ETH_P_IPV4   0x0800
#define ETH_P_IPV6   0x86DD
#define ETH_P_8021Q  0x8100
#define ETH_P_8021AD 0x88A8
#define IPPROTO_UDP_ 17

/* Where the headers of a frame stand, as far as classification got. */
struct xio_parsed {
	uint32_t l3;       /* IP header */
	uint32_t l4;       /* UDP header */
	uint32_t ip_len;   /* whole IP datagram */
	uint32_t udp_len;
	uint32_t xio;      /* XIO header (l4 + 8) */
	uint32_t payload;  /* first token */
	uint32_t ntok;
	uint16_t ihl;      /* IP header bytes (40 for IPv6) */
	uint8_t v6;
	uint8_t csum_deferred; /* rule 8 left to the narrowing pass */
	uint32_t hlen;     /* bytes of the frame at h */
};

void xio_stage_cfg_default(struct xio_stage_cfg *cfg)
{
	cfg->udp_port = XIO_DEFAULT_UDP_PORT;
	cfg->overflow = XIO_OVERFLOW_KEEP;
	cfg->drop_invalid = false;
}

/* Rules 1-5: is the frame addressed to XIO at all? */
static enum xio_reason parse_outer(const uint8_t *h, uint32_t len, uint16_t port,
				   struct xio_parsed *p)
{
	uint32_t off = 12;
	uint16_t type;
	int tags;

	if (len < 14)
		return XIO_R_NOT_IP;
	type = xio_be16(h + off);
	for (tags = 0; tags < 2 && (type == ETH_P_8021Q || type == ETH_P_8021AD); tags++) {
		off += 4;
		if (len < off + 2)
			return XIO_R_NOT_IP;
		type = xio_be16(h + off);
	}
	p->l3 = off + 2;
	if (type == ETH_P_IPV4) {
		const uint8_t *ip = h + p->l3;

		if (len < p->l3 + 20 || ip[0] >> 4 != 4 || (ip[0] & 0xf) < 5)
			return XIO_R_NOT_IP;
		p->ihl = (uint16_t)((ip[0] & 0xf) * 4);
		if (len < p->l3 + p->ihl)
			return XIO_R_NOT_IP;
		if (ip[9] != IPPROTO_UDP_)
			return XIO_R_NOT_UDP;
		if (xio_be16(ip + 6) & 0x3fff)
			return XIO_R_IP_FRAGMENT;
		p->ip_len = xio_be16(ip + 2);
		p->v6 = 0;
	} else if (type == ETH_P_IPV6) {
		const uint8_t *ip = h + p->l3;

		if (len < p->l3 + 40)
			return XIO_R_NOT_IP;
		if (ip[6] != IPPROTO_UDP_)
			return XIO_R_NOT_UDP;
		p->ihl = 40;
		p->ip_len = 40u + xio_be16(ip + 4);
		p->v6 = 1;
	} else {
		return XIO_R_NOT_IP;
	}
	if (p->ip_len < p->ihl + 8u || p->l3 + p->ip_len > len)
		return XIO_R_TRUNCATED;
	p->l4 = p->l3 + p->ihl;
	/* Rule 5 (spec 1.1): either port; replies answer from the XIO port. */
	if (xio_be16(h + p->l4 + 2) != port && xio_be16(h + p->l4) != port)
		return XIO_R_OTHER_PORT;
	p->udp_len = xio_be16(h + p->l4 + 4);
	p->xio = p->l4 + 8;
	return XIO_R_NARROWED;
}

/* The UDP pseudo-header for a UDP length, as a host-order partial sum. */
static uint64_t pseudo_sum_host(const uint8_t *h, const struct xio_parsed *p, uint32_t udp_len)
{
	const uint8_t *ip = h + p->l3;
	uint64_t sum = xio_csum_host16(IPPROTO_UDP_) + xio_csum_host16((uint16_t)udp_len);

	if (p->v6)
		return xio_csum_add32(sum, ip + 8, 8);
	return xio_csum_add32(sum, ip + 12, 2);
}

/* Rule 8 from the field and the NIC's hint alone: 1 good, 0 bad, -1 when
 * only the sum over the datagram can tell. */
static int udp_csum_known(const uint8_t *h, const struct xio_parsed *p,
			  const struct xio_rx_hints *hints)
{
	if (xio_be16(h + p->l4 + 6) == 0)
		return !p->v6; /* "none" for IPv4, an error for IPv6 */
	if (hints && hints->l4_csum != XIO_CSUM_UNKNOWN)
		return hints->l4_csum == XIO_CSUM_GOOD;
	return -1;
}

/* Rule 8 settled over the whole datagram. */
static int udp_csum_ok(const struct xio_frame *f, const uint8_t *h, const struct xio_parsed *p)
{
	uint64_t pseudo = xio_csum_from_host(pseudo_sum_host(h, p, p->udp_len));

	return xio_csum_fold(xio_frame_csum(f, p->l4, p->udp_len, pseudo)) == 0xffff;
}

/* Rule 8 settled after the narrowing pass narrowed tokens [0, k) and summed
 * them into tsum: the pseudo-header, the header run [l4, payload) and the
 * tokens the pass did not reach are summed here, from the frame as it still
 * stands there. */
static int udp_csum_ok_narrowed(const struct xio_frame *f, const uint8_t *h,
				const struct xio_parsed *p, size_t k, uint64_t tsum)
{
	uint32_t run = p->payload - p->l4;
	uint64_t sum = pseudo_sum_host(h, p, p->udp_len) + tsum, rest = 0;

	if (k < p->ntok)
		rest = xio_frame_csum(f, p->payload + 4 * (uint32_t)k,
				      4 * (p->ntok - (uint32_t)k), 0);
	if (p->payload <= p->hlen) /* whole words: 8 + hdr_len, a multiple of 4 */
		sum = xio_csum_add32(sum, h + p->l4, run / 4);
	else
		rest = xio_frame_csum(f, p->l4, run, rest);
	/* rest is in network order: one swap brings it to host order too;
	 * all ones reads the same in both */
	return xio_csum_fold(sum + xio_csum_from_host(rest)) == 0xffff;
}

static int ip_csum_ok(const uint8_t *h, const struct xio_parsed *p,
		      const struct xio_rx_hints *hints)
{
	if (p->v6)
		return 1;
	if (hints && hints->ip_csum != XIO_CSUM_UNKNOWN)
		return hints->ip_csum == XIO_CSUM_GOOD;
	/* all ones in either byte order */
	return xio_csum_fold(xio_csum_add32(0, h + p->l3, p->ihl / 4u)) == 0xffff;
}

/* Rules 9-16: the XIO header, and the CRC32C when there is one. Returns
 * XIO_R_NARROWED when the frame is a valid INT32 READ_REPLY ready to
 * narrow. */
static enum xio_reason validate_xio(const struct xio_frame *f, const uint8_t *h,
				    struct xio_parsed *p)
{
	const uint8_t *x = h + p->xio;
	uint32_t body, hdr_len, plen;
	uint8_t flags, dtype;

	body = p->udp_len - 8;
	if (body < XIO_HDR_LEN || xio_be16(x + XIO_OFF_MAGIC) != XIO_MAGIC ||
	    x[XIO_OFF_VERSION] != XIO_VERSION)
		return XIO_R_BAD_HEADER;
	hdr_len = xio_be16(x + XIO_OFF_HDR_LEN);
	if (hdr_len < XIO_HDR_LEN || hdr_len % 4 || hdr_len > body)
		return XIO_R_BAD_HEADER;
	flags = x[XIO_OFF_FLAGS];
	dtype = x[XIO_OFF_DTYPE];
	if (flags & XIO_F_RESERVED)
		return XIO_R_UNSUPPORTED;
	if (x[XIO_OFF_OPCODE] != XIO_OP_READ_REPLY)
		return XIO_R_NOT_REPLY;
	if (dtype == XIO_DT_UINT16 && (flags & XIO_F_NARROWED))
		return XIO_R_ALREADY_NARROW;
	if (dtype == XIO_DT_UINT16 || (flags & XIO_F_NARROWED))
		return XIO_R_BAD_HEADER;
	if (dtype != XIO_DT_INT32)
		return XIO_R_UNSUPPORTED;
	plen = body - hdr_len;
	p->ntok = xio_be32(x + XIO_OFF_TOKEN_COUNT);
	if ((uint64_t)p->ntok * 4 != plen)
		return XIO_R_BAD_LENGTH;
	p->payload = p->xio + hdr_len;
	if ((flags & XIO_F_HAS_CRC) &&
	    xio_crc32c_final(xio_frame_crc32c(f, p->payload, plen, XIO_CRC32C_INIT)) !=
		    xio_be32(x + XIO_OFF_PAYLOAD_CRC))
		return XIO_R_BAD_CRC;
	return XIO_R_NARROWED;
}

/* Rules 6-16: validity of a frame addressed to XIO. Returns XIO_R_NARROWED
 * when the frame is a valid INT32 READ_REPLY ready to narrow, with rule 8
 * possibly deferred to the narrowing pass (p->csum_deferred). */
static enum xio_reason validate(const struct xio_frame *f, const uint8_t *h,
				struct xio_parsed *p, const struct xio_rx_hints *hints)
{
	enum xio_reason r;
	int known;

	p->csum_deferred = 0;
	if (p->udp_len != p->ip_len - p->ihl)
		return XIO_R_BAD_LENGTH;
	if (!ip_csum_ok(h, p, hints))
		return XIO_R_BAD_IP_CSUM;
	known = udp_csum_known(h, p, hints);
	if (known == 0)
		return XIO_R_BAD_UDP_CSUM;
	r = validate_xio(f, h, p);
	p->csum_deferred = known < 0 && r == XIO_R_NARROWED;
	if (known < 0 && r != XIO_R_NARROWED && !udp_csum_ok(f, h, p))
		return XIO_R_BAD_UDP_CSUM;
	return r;
}

static int reason_is_invalid(enum xio_reason r)
{
	switch (r) {
	case XIO_R_BAD_LENGTH:
	case XIO_R_BAD_IP_CSUM:
	case XIO_R_BAD_UDP_CSUM:
	case XIO_R_BAD_HEADER:
	case XIO_R_UNSUPPORTED:
	case XIO_R_BAD_CRC:
		return 1;
	default:
		return 0;
	}
}

/* Rewrites the headers of a frame whose payload is now n UINT16 tokens.
 * The header run h[0..p->payload) is written back when h is a copy. */
static void rewrite(struct xio_frame *f, uint8_t *h, int h_is_copy, const struct xio_parsed *p,
		    int payload_changed)
{
	uint8_t *ip = h + p->l3, *udp = h + p->l4, *x = h + p->xio;
	uint32_t shrink = 2 * p->ntok;
	uint16_t new_udp_len = (uint16_t)(p->udp_len - shrink);
	uint16_t old_word = xio_be16(x + XIO_OFF_FLAGS), new_word;
	uint32_t old_crc = xio_be32(x + XIO_OFF_PAYLOAD_CRC), new_crc = 0;
	uint16_t csum = xio_be16(udp + 6);

	x[XIO_OFF_FLAGS] |= XIO_F_NARROWED;
	x[XIO_OFF_DTYPE] = XIO_DT_UINT16;
	new_word = xio_be16(x + XIO_OFF_FLAGS);
	if (x[XIO_OFF_FLAGS] & XIO_F_HAS_CRC)
		new_crc = xio_crc32c_final(xio_frame_crc32c(f, p->payload, shrink, XIO_CRC32C_INIT));
	xio_put_be32(x + XIO_OFF_PAYLOAD_CRC, new_crc);
	xio_put_be16(udp + 4, new_udp_len);

	if (p->v6) {
		xio_put_be16(ip + 4, (uint16_t)(p->ip_len - 40 - shrink));
	} else {
		/* the header checksum was verified (rule 7): an RFC 1624 update
		 * gives what a recomputation would */
		xio_put_be16(ip + 2, (uint16_t)(p->ip_len - shrink));
		xio_put_be16(ip + 10, xio_csum_update16(xio_be16(ip + 10), (uint16_t)p->ip_len,
							(uint16_t)(p->ip_len - shrink)));
	}

	if (csum != 0 || p->v6) {
		if (payload_changed) {
			xio_put_be16(udp + 6, 0);
			if (h_is_copy)
				xio_frame_write(f, 0, h, p->xio + XIO_HDR_LEN);
			csum = (uint16_t)~xio_csum_fold(
				xio_frame_csum(f, p->l4, new_udp_len, xio_csum_from_host(pseudo_sum_host(h, p, new_udp_len))));
		} else {
			/* the length stands twice: pseudo-header and UDP header */
			uint64_t diff = 2 * xio_csum_diff16((uint16_t)p->udp_len, new_udp_len);

			diff += xio_csum_diff16(old_word, new_word);
			diff += xio_csum_diff16((uint16_t)(old_crc >> 16), (uint16_t)(new_crc >> 16));
			diff += xio_csum_diff16((uint16_t)old_crc, (uint16_t)new_crc);
			csum = xio_csum_apply(csum, diff);
		}
		xio_put_be16(udp + 6, csum == 0 ? 0xffff : csum);
	}
	if (h_is_copy)
		xio_frame_write(f, 0, h, p->xio + XIO_HDR_LEN);
}

void xio_process(const struct xio_stage_cfg *cfg, struct xio_seg *segs, unsigned nseg,
		 const struct xio_rx_hints *hints, struct xio_result *res)
{
	uint8_t copy[XIO_MAX_HDRS];
	struct xio_parsed p;
	struct xio_frame f;
	uint32_t len = xio_frame_init(&f, segs, nseg);
	uint32_t hlen = len < XIO_MAX_HDRS ? len : XIO_MAX_HDRS;
	int h_is_copy = nseg > 1 && segs[0].len < hlen;
	uint8_t *h = segs[0].data;
	enum xio_reason r;
	size_t k, clamped = 0;
	uint64_t tsum = 0;

	res->action = XIO_ACT_FORWARD;
	res->out_len = len;
	res->tokens = 0;
	res->saturated = 0;
	if (h_is_copy) {
		xio_frame_read(&f, 0, copy, hlen);
		h = copy;
	}

	p.hlen = hlen;
	r = parse_outer(h, len, cfg->udp_port, &p);
	if (r == XIO_R_NARROWED)
		r = validate(&f, h, &p, hints);
	res->reason = (uint8_t)r;
	if (r != XIO_R_NARROWED) {
		if (cfg->drop_invalid && reason_is_invalid(r))
			res->action = XIO_ACT_DROP;
		return;
	}

	k = xio_frame_narrow(&f, p.payload, 0, p.ntok, 1, &tsum);
	if (p.csum_deferred && !udp_csum_ok_narrowed(&f, h, &p, k, tsum)) {
		xio_frame_widen(&f, p.payload, k);
		res->reason = XIO_R_BAD_UDP_CSUM;
		if (cfg->drop_invalid)
			res->action = XIO_ACT_DROP;
		return;
	}
	if (k < p.ntok) {
		res->reason = XIO_R_OUT_OF_RANGE;
		if (cfg->overflow == XIO_OVERFLOW_KEEP) {
			xio_frame_widen(&f, p.payload, k);
			return;
		}
		if (cfg->overflow == XIO_OVERFLOW_DROP) {
			res->action = XIO_ACT_DROP;
			return;
		}
		clamped = xio_frame_narrow(&f, p.payload, k, p.ntok, 0, NULL);
	}
	rewrite(&f, h, h_is_copy, &p, clamped > 0);
	res->action = XIO_ACT_REWRITTEN;
	res->out_len = p.l3 + p.ip_len - 2 * p.ntok;
	res->tokens = p.ntok;
	res->saturated = (uint32_t)clamped;
}
