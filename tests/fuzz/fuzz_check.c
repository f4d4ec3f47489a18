/* SPDX-License-Identifier: BSD-3-Clause
 * fuzz_check.c: the fuzzer's independent check of a narrowed frame
 * (fuzz_check.h). Nothing here comes from stages/: headers are parsed with
 * plain offsets, checksums summed word by word, CRC32C taken from ISA-L.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <isa-l/crc.h>

#include "fuzz_check.h"

struct hdrs {
	size_t l3, l4, x, payload;
	int v6;
	unsigned ihl;    /* IP header bytes */
	size_t ip_len;   /* whole datagram */
	unsigned udp_len, hdr_len;
	uint32_t ntok;
};

static unsigned rd16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) << 16 | rd16(p + 2);
}

static int32_t token_le(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

/* Ones'-complement sum of 16-bit big-endian words, folded. */
static unsigned csum16(unsigned sum, const uint8_t *p, size_t n)
{
	uint64_t s = sum;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += rd16(p + i);
	if (n & 1)
		s += (unsigned)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (unsigned)s;
}

static unsigned udp_sum(const uint8_t *f, const struct hdrs *h, unsigned udp_len)
{
	uint8_t ph[4] = { 0, 17, (uint8_t)(udp_len >> 8), (uint8_t)udp_len };
	unsigned s = h->v6 ? csum16(0, f + h->l3 + 8, 32) : csum16(0, f + h->l3 + 12, 8);

	return csum16(csum16(s, ph, 4), f + h->l4, udp_len);
}

static uint32_t crc32c(const uint8_t *p, size_t n)
{
	return crc32_iscsi((unsigned char *)(uintptr_t)p, (int)n, 0xFFFFFFFFu) ^ 0xFFFFFFFFu;
}

/* Ethernet, VLANs, IP and UDP of f as far as they lie inside it. Returns the
 * number of layers found: 0 none, 1 IP header, 2 whole datagram and UDP
 * header inside the frame. */
static int parse(const uint8_t *f, size_t len, struct hdrs *h)
{
	size_t off = 12;
	unsigned type;

	memset(h, 0, sizeof(*h));
	if (len < 14)
		return 0;
	type = rd16(f + 12);
	for (int tags = 0; tags < 2 && (type == 0x8100 || type == 0x88A8); tags++) {
		off += 4;
		if (len < off + 2)
			return 0;
		type = rd16(f + off);
	}
	h->l3 = off + 2;
	if (type == 0x0800 && len >= h->l3 + 20 && f[h->l3] >> 4 == 4 && (f[h->l3] & 15) >= 5 &&
	    len >= h->l3 + (f[h->l3] & 15) * 4u) {
		h->ihl = (f[h->l3] & 15) * 4u;
		h->ip_len = rd16(f + h->l3 + 2);
		if (f[h->l3 + 9] != 17 || rd16(f + h->l3 + 6) & 0x3fff)
			return 1;
	} else if (type == 0x86DD && len >= h->l3 + 40) {
		h->v6 = 1;
		h->ihl = 40;
		h->ip_len = 40 + (size_t)rd16(f + h->l3 + 4);
		if (f[h->l3 + 6] != 17)
			return 1;
	} else {
		return 0;
	}
	if (h->ip_len < h->ihl + 8u || h->l3 + h->ip_len > len)
		return 1;
	h->l4 = h->l3 + h->ihl;
	h->udp_len = rd16(f + h->l4 + 4);
	h->x = h->l4 + 8;
	return 2;
}

void fuzz_true_hints(const uint8_t *in, size_t len, struct fuzz_hints *hint)
{
	struct hdrs h;
	int layers = parse(in, len, &h);

	hint->ip = hint->l4 = 0;
	if (layers >= 1 && !h.v6 && h.ihl)
		hint->ip = csum16(0, in + h.l3, h.ihl) == 0xffff ? 1 : 2;
	if (layers == 2 && h.udp_len == h.ip_len - h.ihl && rd16(in + h.l4 + 6) != 0)
		hint->l4 = udp_sum(in, &h, h.udp_len) == 0xffff ? 1 : 2;
}

static void wr16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void fuzz_fix(uint8_t *f, size_t len, unsigned what)
{
	struct hdrs h;
	int layers = parse(f, len, &h);
	unsigned udp_len;

	if (layers == 2) {
		/* the UDP length as the datagram holds it, whatever the field says */
		udp_len = (unsigned)(h.ip_len - h.ihl);
		h.hdr_len = udp_len >= 8 + 32 ? rd16(f + h.x + 6) : 0;
		if ((what & FUZZ_FIX_CRC) && h.hdr_len && (f[h.x + 4] & 2) &&
		    8 + h.hdr_len <= udp_len) {
			uint32_t crc = crc32c(f + h.x + h.hdr_len, udp_len - 8 - h.hdr_len);

			wr16(f + h.x + 28, crc >> 16);
			wr16(f + h.x + 30, crc & 0xffff);
		}
		if ((what & FUZZ_FIX_UDP) && (h.v6 || rd16(f + h.l4 + 6) != 0)) {
			unsigned c;

			wr16(f + h.l4 + 6, 0);
			c = ~udp_sum(f, &h, udp_len) & 0xffff;
			wr16(f + h.l4 + 6, c ? c : 0xffff);
		}
	}
	if ((what & FUZZ_FIX_IP) && layers >= 1 && !h.v6 && h.ihl) {
		wr16(f + h.l3 + 10, 0);
		wr16(f + h.l3 + 10, ~csum16(0, f + h.l3, h.ihl) & 0xffff);
	}
}

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The input must be a valid INT32 READ_REPLY to or from port: a frame the spec
 * allows the pipeline to rewrite. */
static int check_input(const uint8_t *in, size_t len, unsigned port, struct hdrs *h, char *why,
		       size_t whylen)
{
	const uint8_t *x;

	if (parse(in, len, h) != 2)
		return fail(why, whylen, "rewrote a frame that is not a whole UDP datagram");
	if (rd16(in + h->l4 + 2) != port && rd16(in + h->l4) != port)
		return fail(why, whylen, "rewrote a frame between ports %u and %u",
			    rd16(in + h->l4), rd16(in + h->l4 + 2));
	if (h->udp_len != h->ip_len - h->ihl)
		return fail(why, whylen, "rewrote a frame whose UDP length disagrees with IP");
	if (!h->v6 && csum16(0, in + h->l3, h->ihl) != 0xffff)
		return fail(why, whylen, "rewrote a frame with a bad IPv4 header checksum");
	if ((h->v6 || rd16(in + h->l4 + 6) != 0) && udp_sum(in, h, h->udp_len) != 0xffff)
		return fail(why, whylen, "rewrote a frame with a bad UDP checksum");
	if (h->v6 && rd16(in + h->l4 + 6) == 0)
		return fail(why, whylen, "rewrote an IPv6 frame without a UDP checksum");
	if (h->udp_len < 8 + 32)
		return fail(why, whylen, "rewrote a UDP payload shorter than the XIO header");
	x = in + h->x;
	h->hdr_len = rd16(x + 6);
	if (rd16(x) != 0x5849 || x[2] != 1 || x[3] != 2 || x[5] != 1 || (x[4] & 0xfc) ||
	    h->hdr_len < 32 || h->hdr_len % 4 || h->hdr_len > h->udp_len - 8)
		return fail(why, whylen, "rewrote a frame that is not a valid INT32 READ_REPLY");
	h->ntok = rd32(x + 24);
	h->payload = h->x + h->hdr_len;
	if ((uint64_t)h->ntok * 4 != h->udp_len - 8 - h->hdr_len)
		return fail(why, whylen, "rewrote a frame whose token_count disagrees with its length");
	if ((x[4] & 2) && crc32c(in + h->payload, 4 * (size_t)h->ntok) != rd32(x + 28))
		return fail(why, whylen, "rewrote a frame with a bad payload CRC32C");
	return 0;
}

/* Bytes that may change before the payload: IP length (and IPv4 checksum),
 * UDP length and checksum, XIO flags, dtype and payload_crc. */
static int may_change(const struct hdrs *h, size_t off)
{
	if (h->v6 ? (off == h->l3 + 4 || off == h->l3 + 5)
		  : (off == h->l3 + 2 || off == h->l3 + 3 || off == h->l3 + 10 || off == h->l3 + 11))
		return 1;
	if (off >= h->l4 + 4 && off < h->l4 + 8)
		return 1;
	return off == h->x + 4 || off == h->x + 5 || (off >= h->x + 28 && off < h->x + 32);
}

int fuzz_check_narrowed(const uint8_t *in, size_t in_len, const uint8_t *out, size_t out_len,
			unsigned port, int saturate, uint32_t tokens, uint32_t saturated,
			char *why, size_t whylen)
{
	struct hdrs h, o;
	uint32_t clamped = 0;
	size_t shrink;

	if (check_input(in, in_len, port, &h, why, whylen) < 0)
		return -1;
	shrink = 2 * (size_t)h.ntok;
	if (tokens != h.ntok)
		return fail(why, whylen, "reported %u tokens, frame has %u", tokens, h.ntok);
	if (out_len != h.l3 + h.ip_len - shrink)
		return fail(why, whylen, "output %zu bytes, want %zu (end of the IP datagram)", out_len,
			    h.l3 + h.ip_len - shrink);

	for (size_t i = 0; i < h.payload; i++)
		if (out[i] != in[i] && !may_change(&h, i))
			return fail(why, whylen, "header byte %zu changed", i);
	for (uint32_t i = 0; i < h.ntok; i++) {
		int32_t t = token_le(in + h.payload + 4 * (size_t)i);
		unsigned want = (uint16_t)t, got = out[h.payload + 2 * (size_t)i] |
						  (unsigned)out[h.payload + 2 * (size_t)i + 1] << 8;

		if (t < 0 || t > 65535) {
			if (!saturate)
				return fail(why, whylen, "narrowed out-of-range token %u (%d)", i, t);
			want = t < 0 ? 0 : 65535;
			clamped++;
		}
		if (got != want)
			return fail(why, whylen, "token %u: %u, want %u (from %d)", i, got, want, t);
	}
	if (clamped != saturated)
		return fail(why, whylen, "reported %u tokens clamped, want %u", saturated, clamped);

	if (parse(out, out_len, &o) != 2 || o.l4 != h.l4)
		return fail(why, whylen, "output does not parse as the same UDP datagram");
	if (o.ip_len != h.ip_len - shrink || o.udp_len != h.udp_len - shrink)
		return fail(why, whylen, "output lengths IP %zu UDP %u, want %zu %zu", o.ip_len,
			    o.udp_len, h.ip_len - shrink, h.udp_len - shrink);
	if (!h.v6 && csum16(0, out + h.l3, h.ihl) != 0xffff)
		return fail(why, whylen, "output IPv4 header checksum wrong");
	if (!h.v6 && rd16(in + h.l4 + 6) == 0) {
		if (rd16(out + h.l4 + 6) != 0)
			return fail(why, whylen, "IPv4 UDP checksum 0 did not stay 0");
	} else if (rd16(out + h.l4 + 6) == 0 || udp_sum(out, &o, o.udp_len) != 0xffff) {
		return fail(why, whylen, "output UDP checksum %#x wrong", rd16(out + h.l4 + 6));
	}
	if (out[h.x + 5] != 2 || out[h.x + 4] != (in[h.x + 4] | 4))
		return fail(why, whylen, "output dtype %u flags %#x", out[h.x + 5], out[h.x + 4]);
	if (rd32(out + h.x + 28) != ((in[h.x + 4] & 2) ? crc32c(out + h.payload, shrink) : 0))
		return fail(why, whylen, "output payload_crc %#x wrong", rd32(out + h.x + 28));
	return 0;
}
