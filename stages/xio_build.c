/* SPDX-License-Identifier: BSD-3-Clause
 * xio_build.c: the XIO v1 frame builder (xio_build.h). Headers are written
 * field by field in network order, then the CRC, UDP and IPv4 checksums are
 * computed over the finished bytes by xio_build_fix().
 */
#include <string.h>

#include "xio_build.h"
#include "xio_msg.h"
#include "xio_crc.h"
#include "xio_csum.h"

#define ETH_HLEN  14
#define VLAN_HLEN 4
#define IPV4_HLEN 20
#define IPV6_HLEN 40
#define UDP_HLEN  8
#define IPPROTO_UDP_ 17
#define IPV4_MAX_LEN 65535u

void xio_build_spec_default(struct xio_build_spec *spec)
{
	static const uint8_t dst_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	static const uint8_t src_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	memset(spec, 0, sizeof(*spec));
	memcpy(spec->dst_mac, dst_mac, 6);
	memcpy(spec->src_mac, src_mac, 6);
	/* 10.0.0.1 -> 10.0.0.2; as IPv6: fd00::1 -> fd00::2 */
	spec->src_ip[0] = 10;
	spec->src_ip[3] = 1;
	spec->dst_ip[0] = 10;
	spec->dst_ip[3] = 2;
	spec->ttl = 64;
	spec->src_port = 49152;
	spec->dst_port = XIO_DEFAULT_UDP_PORT;
	spec->udp_csum = true;
	spec->opcode = XIO_OP_READ_REPLY;
	spec->dtype = XIO_DT_INT32;
	spec->hdr_len = XIO_HDR_LEN;
}

static unsigned token_width(uint8_t dtype)
{
	return dtype == XIO_DT_UINT16 ? 2 : 4;
}

/* Fills lay from spec; returns 0 when spec cannot be built. */
static int layout(const struct xio_build_spec *spec, struct xio_build_layout *lay)
{
	uint64_t payload = (uint64_t)spec->token_count * token_width(spec->dtype);
	uint64_t udp_len, ip_end;

	if (spec->nvlan > XIO_BUILD_MAX_VLANS || spec->hdr_len < XIO_HDR_LEN ||
	    (!spec->ipv6 && (spec->ip_opt_len % 4 || spec->ip_opt_len > XIO_BUILD_MAX_IPOPTS)))
		return 0;
	lay->ipv6 = spec->ipv6;
	lay->l3_off = ETH_HLEN + VLAN_HLEN * spec->nvlan;
	lay->l4_off = lay->l3_off + (spec->ipv6 ? IPV6_HLEN : IPV4_HLEN + spec->ip_opt_len);
	lay->xio_off = lay->l4_off + UDP_HLEN;
	lay->payload_off = lay->xio_off + spec->hdr_len;
	udp_len = UDP_HLEN + spec->hdr_len + payload;
	ip_end = lay->l4_off + udp_len;
	/* IPv4 total length and IPv6 payload length are both 16-bit fields */
	if (ip_end - lay->l3_off - (spec->ipv6 ? IPV6_HLEN : 0) > IPV4_MAX_LEN)
		return 0;
	lay->payload_len = (uint32_t)payload;
	lay->ip_end = (uint32_t)ip_end;
	lay->frame_len = lay->ip_end > spec->pad_to ? lay->ip_end : spec->pad_to;
	return 1;
}

uint32_t xio_build_len(const struct xio_build_spec *spec)
{
	struct xio_build_layout lay;

	return layout(spec, &lay) ? lay.frame_len : 0;
}

static uint8_t *put_eth(const struct xio_build_spec *spec, uint8_t *p)
{
	memcpy(p, spec->dst_mac, 6);
	memcpy(p + 6, spec->src_mac, 6);
	p += 12;
	for (unsigned i = 0; i < spec->nvlan; i++, p += VLAN_HLEN) {
		xio_put_be16(p, spec->vlan_tpid[i]);
		xio_put_be16(p + 2, spec->vlan_tci[i]);
	}
	xio_put_be16(p, spec->ipv6 ? 0x86DD : 0x0800);
	return p + 2;
}

static void put_ipv4(const struct xio_build_spec *spec, const struct xio_build_layout *lay,
		     uint8_t *ip)
{
	unsigned hlen = IPV4_HLEN + spec->ip_opt_len;

	ip[0] = (uint8_t)(0x40 | hlen / 4);
	ip[1] = (uint8_t)(spec->dscp << 2);
	xio_put_be16(ip + 2, (uint16_t)(lay->ip_end - lay->l3_off));
	xio_put_be16(ip + 4, spec->ip_id);
	xio_put_be16(ip + 6, 0); /* no fragment flags, offset 0 */
	ip[8] = spec->ttl;
	ip[9] = IPPROTO_UDP_;
	xio_put_be16(ip + 10, 0);
	memcpy(ip + 12, spec->src_ip, 4);
	memcpy(ip + 16, spec->dst_ip, 4);
	if (spec->ip_opts)
		memcpy(ip + IPV4_HLEN, spec->ip_opts, spec->ip_opt_len);
	else
		memset(ip + IPV4_HLEN, 0x01, spec->ip_opt_len); /* NOP */
}

static void put_ipv6(const struct xio_build_spec *spec, const struct xio_build_layout *lay,
		     uint8_t *ip)
{
	/* version 6, traffic class = DSCP << 2, flow label 0 */
	xio_put_be32(ip, 6u << 28 | (uint32_t)spec->dscp << 22);
	xio_put_be16(ip + 4, (uint16_t)(lay->ip_end - lay->l4_off));
	ip[6] = IPPROTO_UDP_;
	ip[7] = spec->ttl;
	memcpy(ip + 8, spec->src_ip, 16);
	memcpy(ip + 24, spec->dst_ip, 16);
}

static void put_udp_xio(const struct xio_build_spec *spec, const struct xio_build_layout *lay,
			uint8_t *buf)
{
	uint8_t *udp = buf + lay->l4_off;
	uint8_t *x = buf + lay->xio_off;
	uint8_t *pl = buf + lay->payload_off;

	xio_put_be16(udp, spec->src_port);
	xio_put_be16(udp + 2, spec->dst_port);
	xio_put_be16(udp + 4, (uint16_t)(lay->ip_end - lay->l4_off));
	xio_put_be16(udp + 6, 0);

	xio_hdr_put(x, &(struct xio_hdr){
		.opcode = spec->opcode, .flags = spec->flags, .dtype = spec->dtype,
		.hdr_len = spec->hdr_len, .stream_id = spec->stream_id, .seq = spec->seq,
		.first_token = spec->first_token, .token_count = spec->token_count,
	});
	if (spec->ext)
		memcpy(x + XIO_HDR_LEN, spec->ext, spec->hdr_len - XIO_HDR_LEN);
	else
		memset(x + XIO_HDR_LEN, 0, spec->hdr_len - XIO_HDR_LEN);

	/* tokens little-endian, whatever the host */
	for (uint32_t i = 0; i < spec->token_count; i++) {
		uint32_t t = (uint32_t)spec->tokens[i];

		*pl++ = (uint8_t)t;
		*pl++ = (uint8_t)(t >> 8);
		if (spec->dtype != XIO_DT_UINT16) {
			*pl++ = (uint8_t)(t >> 16);
			*pl++ = (uint8_t)(t >> 24);
		}
	}
}

uint32_t xio_build_frame(const struct xio_build_spec *spec, uint8_t *buf, uint32_t cap,
			 struct xio_build_layout *lay)
{
	struct xio_build_layout l;
	unsigned fix = XIO_FIX_CRC;

	if (!layout(spec, &l) || l.frame_len > cap || (spec->token_count && !spec->tokens))
		return 0;
	put_eth(spec, buf);
	if (spec->ipv6) {
		put_ipv6(spec, &l, buf + l.l3_off);
	} else {
		put_ipv4(spec, &l, buf + l.l3_off);
		fix |= XIO_FIX_IP_HDR;
	}
	put_udp_xio(spec, &l, buf);
	memset(buf + l.ip_end, 0, l.frame_len - l.ip_end);
	if (spec->udp_csum)
		fix |= XIO_FIX_UDP;
	xio_build_fix(buf, &l, fix);
	if (lay)
		*lay = l;
	return l.frame_len;
}

uint16_t xio_build_udp_csum(const uint8_t *buf, const struct xio_build_layout *lay)
{
	const uint8_t *udp = buf + lay->l4_off;
	uint32_t udp_len = lay->ip_end - lay->l4_off;
	uint64_t sum;
	uint16_t csum;

	/* pseudo-header: addresses, protocol, UDP length */
	if (lay->ipv6)
		sum = xio_csum_add(0, buf + lay->l3_off + 8, 32);
	else
		sum = xio_csum_add(0, buf + lay->l3_off + 12, 8);
	sum += IPPROTO_UDP_ + udp_len;
	/* the datagram with its checksum field taken as zero */
	sum = xio_csum_add(sum, udp, 6);
	sum = xio_csum_add(sum, udp + UDP_HLEN, udp_len - UDP_HLEN);
	csum = (uint16_t)~xio_csum_fold(sum);
	return csum ? csum : 0xFFFF;
}

void xio_build_fix(uint8_t *buf, const struct xio_build_layout *lay, unsigned what)
{
	uint8_t *x = buf + lay->xio_off;

	if ((what & XIO_FIX_CRC) && (x[XIO_OFF_FLAGS] & XIO_F_HAS_CRC))
		xio_put_be32(x + XIO_OFF_PAYLOAD_CRC,
			     xio_crc32c(buf + lay->payload_off, lay->payload_len));
	if (what & XIO_FIX_UDP)
		xio_put_be16(buf + lay->l4_off + 6, xio_build_udp_csum(buf, lay));
	if ((what & XIO_FIX_IP_HDR) && !lay->ipv6)
		xio_put_be16(buf + lay->l3_off + 10,
			     xio_ipv4_hdr_csum(buf + lay->l3_off, lay->l4_off - lay->l3_off));
}
