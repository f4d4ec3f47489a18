/* SPDX-License-Identifier: BSD-3-Clause
 * xio_xdp.bpf.c: the XIO v1 rules at the XDP hook. Classifies every frame in
 * the spec's order; in kernel mode it also validates, narrows in place, fixes
 * lengths and checksums and shrinks the frame with bpf_xdp_adjust_tail, then
 * sends it to the egress (XDP_TX, or XDP_REDIRECT through the DEVMAP). What it
 * cannot finish (HAS_CRC frames, multi-buffer and long frames, every XIO frame
 * in afxdp mode) goes unchanged through the XSKMAP to the AF_XDP socket of its
 * queue, where the stage core finishes it (drivers/xdp/xio_xsk.c).
 *
 * Order: while frames of a queue wait in user space (xio_pending[queue] > 0)
 * every later frame of that queue bound for the egress follows them there, so
 * frames leave in the order they arrived (docs/xdp.md).
 * Counters: per-CPU, for the frames the kernel finished (xio_stats).
 * The loops over the payload are global functions, verified once each.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "xio_wire.h"
#include "xio_xdp_shared.h"

/* Set by the loader in .rodata before the program loads. */
const volatile __u16 cfg_udp_port = XIO_DEFAULT_UDP_PORT;
const volatile __u8 cfg_overflow = XIO_OVERFLOW_KEEP;
const volatile __u8 cfg_drop_invalid = 0;
const volatile __u8 cfg_all_to_user = 0; /* afxdp mode: XIO frames go to AF_XDP */
const volatile __u8 cfg_tx_same = 1;     /* egress == ingress: XDP_TX, foreign: XDP_PASS */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xio_xdp_stats);
} xio_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xio_egress SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, XIO_XDP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xio_xsks SEC(".maps");

/* Frames of each queue handed to AF_XDP and not yet finished there (user
 * space decrements through the skeleton's mmap of .bss). */
__u64 xio_pending[XIO_XDP_MAX_QUEUES];

#define ETH_P_IPV4_   0x0800
#define ETH_P_IPV6_   0x86DD
#define ETH_P_8021Q_  0x8100
#define ETH_P_8021AD_ 0x88A8
#define IPPROTO_UDP_  17

/* Pseudo-reason: the kernel cannot finish this frame, AF_XDP does. */
#define R_USER XIO_R_COUNT

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define le32(x) (x)
#define le16(x) (x)
/* Two INT32 tokens in one 8-byte load: the bits of their upper halves, and
 * both narrowed (upper halves zero) as the 4 bytes that go to memory. */
#define TOK2_HI 0xffff0000ffff0000ULL
#define narrow2(v) ((__u32)((v) * 0x10001 >> 16))
#else
#define le32(x) __builtin_bswap32(x)
#define le16(x) __builtin_bswap16(x)
#define TOK2_HI 0x0000ffff0000ffffULL
#define narrow2(v) ((__u32)((v) >> 32) | (__u32)((v) >> 16))
#endif

struct xio_hdrs {
	__u32 len;     /* whole frame, all buffers */
	__u32 l3;      /* IP header */
	__u32 ihl;     /* IP header bytes (40 for IPv6) */
	__u32 ip_len;  /* whole IP datagram */
	__u32 l4;      /* UDP header */
	__u32 udp_len;
	__u32 xio;     /* XIO header */
	__u32 payload; /* first token */
	__u32 ntok;
	__u8 v6;
	__u8 csum; /* UDP checksum to verify in the narrowing pass */
};

static __always_inline __u16 be16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static __always_inline __u32 be32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static __always_inline void put_be16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* n bytes at offset off of the linear part, or NULL. */
static __always_inline __u8 *at(struct xdp_md *ctx, __u32 off, __u32 n)
{
	__u8 *data = (__u8 *)(long)ctx->data, *data_end = (__u8 *)(long)ctx->data_end;

	if (off > XIO_XDP_MAX_LINEAR)
		return NULL;
	if (data + off + n > data_end)
		return NULL;
	return data + off;
}

static __always_inline __u16 csum_fold(__u64 s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

/* RFC 1624 eqn. 3 on host-order values, as the stage core does it. */
static __always_inline __u16 csum_update16(__u16 csum, __u16 old_word, __u16 new_word)
{
	__u32 s = (__u16)~csum + (__u32)(__u16)~old_word + new_word;

	return (__u16)~csum_fold(s);
}

/* Ones'-complement sum of n bytes at off of the linear part, in memory
 * order (fold it and compare or store it raw), or -1 out of bounds. */
__attribute__((noinline)) long xio_csum_region(struct xdp_md *ctx, __u64 off, __u64 n)
{
	__u8 *data_end = (__u8 *)(long)ctx->data_end;
	__u8 *p = (__u8 *)(long)ctx->data;
	__u64 sum = 0;
	int i;

	if (off > XIO_XDP_MAX_LINEAR || n > XIO_XDP_MAX_LINEAR)
		return -1;
	p += off;
	for (i = 0; i < XIO_XDP_MAX_LINEAR / 512; i++) {
		if (n < 512)
			break;
		if (p + 512 > data_end)
			return -1;
		sum += (__u32)bpf_csum_diff(NULL, 0, (__be32 *)p, 512, 0);
		p += 512;
		n -= 512;
	}
	if (n >= 512)
		return -1;
#define CSUM_CHUNK(k)                                                           \
	if (n & (k)) {                                                          \
		if (p + (k) > data_end)                                         \
			return -1;                                              \
		sum += (__u32)bpf_csum_diff(NULL, 0, (__be32 *)p, (k), 0);      \
		p += (k);                                                       \
	}
	CSUM_CHUNK(256)
	CSUM_CHUNK(128)
	CSUM_CHUNK(64)
	CSUM_CHUNK(32)
	CSUM_CHUNK(16)
	CSUM_CHUNK(8)
	CSUM_CHUNK(4)
#undef CSUM_CHUNK
	if (n & 2) {
		if (p + 2 > data_end)
			return -1;
		sum += *(__u16 *)p;
		p += 2;
	}
	if (n & 1) {
		if (p + 1 > data_end)
			return -1;
		sum += le16((__u16)*p); /* the odd byte, padded with zero */
	}
	return csum_fold(sum);
}

/* xio_csum_region of n bytes, n a constant multiple of 4 (the common IPv4
 * and UDP + XIO header sizes), inline. */
static __always_inline long csum_inline(struct xdp_md *ctx, __u32 off, const __u32 n)
{
	__u32 *w = (__u32 *)at(ctx, off, n);
	__u64 sum = 0;
	int i;

	if (!w)
		return -1;
#pragma unroll
	for (i = 0; i < n / 4; i++)
		sum += w[i];
	return csum_fold(sum);
}

/* One load from every cache line of the frame, so that their fetches
 * overlap instead of coming one step of the narrowing after the other: the
 * frame was just written by another CPU (the sender, or the NIC's DMA), and
 * each line it touches costs a round trip. Four lines a bounds check. */
static __always_inline void touch_lines(struct xdp_md *ctx)
{
	__u8 *data_end = (__u8 *)(long)ctx->data_end;
	__u8 *p = (__u8 *)(long)ctx->data;
	__u32 i;

	for (i = 0; i < XIO_XDP_MAX_LINEAR / 256; i++) {
		if (p + 192 + 8 > data_end)
			break;
		(void)*(volatile __u64 *)p;
		(void)*(volatile __u64 *)(p + 64);
		(void)*(volatile __u64 *)(p + 128);
		(void)*(volatile __u64 *)(p + 192);
		p += 256;
	}
	if (p + 64 + 8 <= data_end) {
		(void)*(volatile __u64 *)p;
		(void)*(volatile __u64 *)(p + 64);
		p += 128;
	}
	if (p + 8 <= data_end)
		(void)*(volatile __u64 *)p;
}

/* Eight tokens at src in four 8-byte loads, the upper halves of all tested
 * with one mask: when all are in range, adds them to *sum and stores them
 * narrowed at dst (loads first: dst may be src). Returns 0, or 1 (nothing
 * written) when one is out of range. */
static __always_inline int narrow8(const __u8 *src, __u8 *dst, __u64 *sum)
{
	__u64 a = *(const __u64 *)src, b = *(const __u64 *)(src + 8);
	__u64 c = *(const __u64 *)(src + 16), d = *(const __u64 *)(src + 24);

	if ((a | b | c | d) & TOK2_HI)
		return 1;
	*sum += a + b + c + d;
	*(__u32 *)dst = narrow2(a);
	*(__u32 *)(dst + 4) = narrow2(b);
	*(__u32 *)(dst + 8) = narrow2(c);
	*(__u32 *)(dst + 12) = narrow2(d);
	return 0;
}

/* One step of xio_narrow_checked's stores-first loop: two tokens at src +
 * so into *hi (their bits, for the range test) and *step (their sum), and
 * stored narrowed at dst + doff whatever their range. In assembly: clang
 * otherwise moves the sums after the range test, keeping sixteen words
 * live across it (spilled to the stack), and narrows with three
 * instructions instead of two (v * 0x10001 >> 16 for v | v >> 16). */
static __always_inline void narrow_word(const __u8 *src, __u8 *dst, const int so, const int doff,
					__u64 *hi, __u64 *step)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__u64 a;

	asm volatile("%[a] = *(u64 *)(%[src] + %[so]);"
		     "%[hi] |= %[a];"
		     "%[step] += %[a];"
		     "%[a] *= 65537;"
		     "%[a] >>= 16;"
		     "*(u32 *)(%[dst] + %[doff]) = %[a];"
		     : [a] "=&r"(a), [hi] "+r"(*hi), [step] "+r"(*step)
		     : [src] "r"(src), [dst] "r"(dst), [so] "i"(so), [doff] "i"(doff)
		     : "memory");
#else
	__u64 a = *(const __u64 *)(src + so);

	*hi |= a;
	*step += a;
	*(__u32 *)(dst + doff) = narrow2(a);
#endif
}

/* What xio_narrow_checked leaves after its 32-token steps: fewer than 32
 * tokens from first, or a step of 8 from first with an out-of-range token.
 * Narrows them in place while they are in 0..65535: eight at a time, then
 * two, then one, as the last ones or the out-of-range one need. Returns k |
 * sum << 32: k the index of the first out-of-range token (ntok if none), sum
 * the ones'-complement sum (folded, memory order) of tokens [first, ntok) as
 * they were (the rest from k read as it stands). -1 out of bounds, or when
 * first leaves more than that. */
__attribute__((noinline)) long xio_narrow_tail(struct xdp_md *ctx, __u64 off, __u64 first,
					       __u64 ntok)
{
	__u8 *data_end = (__u8 *)(long)ctx->data_end;
	__u8 *base = (__u8 *)(long)ctx->data;
	__u8 *src, *dst;
	__u64 i = first, k, sum = 0;
	long rest;
	__u32 t;

	if (off > XIO_XDP_MAX_LINEAR || ntok > XIO_XDP_MAX_TOKENS || first > XIO_XDP_MAX_TOKENS)
		return -1;
	base += off;
#pragma unroll
	for (k = 0; k < 3; k++) {
		if (i + 8 > ntok)
			break;
		src = base + 4 * i;
		dst = base + 2 * i;
		barrier_var(src);
		barrier_var(dst);
		if (src + 32 > data_end || dst + 16 > data_end)
			return -1;
		if (narrow8(src, dst, &sum))
			break;
		i += 8;
	}
#pragma unroll
	for (k = 0; k < 4; k++) {
		__u64 a;

		if (i + 2 > ntok)
			break;
		src = base + 4 * i;
		dst = base + 2 * i;
		barrier_var(src);
		barrier_var(dst);
		if (src + 8 > data_end || dst + 4 > data_end)
			return -1;
		a = *(__u64 *)src;
		if (a & TOK2_HI)
			break;
		sum += a;
		*(__u32 *)dst = narrow2(a);
		i += 2;
	}
	for (k = 0; k < 2; k++) {
		if (i >= ntok)
			break;
		src = base + 4 * i;
		dst = base + 2 * i;
		barrier_var(src);
		barrier_var(dst);
		if (src + 4 > data_end || dst + 2 > data_end)
			return -1;
		t = *(__u32 *)src;
		if (le32(t) > 0xffff)
			break;
		sum += t;
		*(__u16 *)dst = le16((__u16)le32(t));
		i++;
	}
	if (i < ntok) { /* token i is out of range: the rest as it stands */
		src = base + 4 * i;
		barrier_var(src);
		if (src + 4 > data_end)
			return -1;
		if (le32(*(__u32 *)src) <= 0xffff) /* first left more than a step */
			return -1;
		rest = xio_csum_region(ctx, off + 4 * i, 4 * (ntok - i));
		if (rest < 0)
			return -1;
		sum += (__u64)rest;
	}
	return (long)((__u64)csum_fold(sum) << 32 | i);
}

/* Narrows the INT32 tokens at off to UINT16 in place while they are in
 * 0..65535, with 8-byte loads: 32 tokens a step (one bounds check), then
 * xio_narrow_tail for the last 31 at most, or from the step that met an
 * out-of-range token. The first step tests each eight tokens before storing
 * them; the later ones store first and test their 32 tokens once: the step
 * at token i >= 32 writes bytes [2i, 2i + 64) of the payload, where tokens
 * [i/2, i/2 + 16) stood, all read before, so a step that fails leaves its own
 * tokens intact and xio_narrow_tail redoes it from them (keep and drop
 * widen or drop what was narrowed before the first out-of-range token). The
 * same pass sums the tokens for the UDP checksum, as the stage core's
 * kernels do: an in-range token's upper half is zero, so its value is what
 * its four bytes add to the ones'-complement sum. Returns k | sum << 32: k
 * the index of the first out-of-range token (ntok if none; tokens before it
 * are narrowed), sum the ones'-complement sum (folded, memory order) of all
 * ntok tokens as they were. -1 out of bounds. */
__attribute__((noinline)) long xio_narrow_checked(struct xdp_md *ctx, __u64 off, __u64 ntok)
{
	__u8 *data_end = (__u8 *)(long)ctx->data_end;
	__u8 *base = (__u8 *)(long)ctx->data;
	__u8 *src, *dst;
	__u64 i, k, sum = 0;
	long tail;

	if (off > XIO_XDP_MAX_LINEAR || ntok > XIO_XDP_MAX_TOKENS)
		return -1;
	base += off;
	i = 0;
	if (ntok < 32)
		goto tail;
	if (base + 128 > data_end)
		return -1;
#pragma unroll
	for (k = 0; k < 32; k += 8)
		if (narrow8(base + 4 * k, base + 2 * k, &sum)) {
			i = k;
			goto tail;
		}
	src = base + 128;
	dst = base + 64;
	for (i = 32; i < XIO_XDP_MAX_TOKENS; i += 32) {
		__u64 step = 0, hi = 0;

		if (i + 32 > ntok)
			break;
		barrier_var(src);
		barrier_var(dst);
		if (src + 128 > data_end || dst + 64 > data_end)
			return -1;
#pragma unroll
		for (k = 0; k < 16; k++)
			narrow_word(src, dst, 8 * k, 4 * k, &hi, &step);
		if (hi & TOK2_HI)
			goto tail;
		sum += step;
		src += 128;
		dst += 64;
	}
	if (i == ntok)
		return (long)((__u64)csum_fold(sum) << 32 | i);
tail:
	tail = xio_narrow_tail(ctx, off, i, ntok);
	if (tail < 0)
		return -1;
	sum += (__u64)tail >> 32;
	return (long)((__u64)csum_fold(sum) << 32 | (__u32)tail);
}

/* Undoes xio_narrow_checked of tokens [0, k): back to INT32, last first. */
__attribute__((noinline)) int xio_widen(struct xdp_md *ctx, __u64 off, __u64 k)
{
	__u8 *data_end = (__u8 *)(long)ctx->data_end;
	__u8 *base = (__u8 *)(long)ctx->data;
	__u64 i, j;

	if (off > XIO_XDP_MAX_LINEAR || k > XIO_XDP_MAX_TOKENS)
		return -1;
	base += off;
	for (j = 0; j < XIO_XDP_MAX_TOKENS; j++) {
		__u8 *src, *dst;
		__u32 t;

		if (j >= k)
			break;
		i = k - 1 - j;
		barrier_var(i);
		if (i >= XIO_XDP_MAX_TOKENS)
			return -1;
		src = base + 2 * i;
		dst = base + 4 * i;
		barrier_var(src);
		barrier_var(dst);
		if (src + 2 > data_end || dst + 4 > data_end)
			return -1;
		t = *(__u16 *)src;
		*(__u32 *)dst = le32((__u32)le16((__u16)t));
	}
	return 0;
}

/* Narrows tokens [first, ntok) at off, clamping each to 0..65535. Returns
 * how many were clamped, or -1 out of bounds. */
__attribute__((noinline)) int xio_narrow_saturate(struct xdp_md *ctx, __u64 off, __u64 first,
						  __u64 ntok)
{
	__u8 *data_end = (__u8 *)(long)ctx->data_end;
	__u8 *base = (__u8 *)(long)ctx->data;
	__u64 i;
	__u32 clamped = 0;
	__s32 t;

	if (off > XIO_XDP_MAX_LINEAR || ntok > XIO_XDP_MAX_TOKENS)
		return -1;
	base += off;
	for (i = first; i < XIO_XDP_MAX_TOKENS; i++) {
		__u8 *src = base + 4 * i, *dst = base + 2 * i;

		if (i >= ntok)
			break;
		barrier_var(src);
		barrier_var(dst);
		if (src + 4 > data_end || dst + 2 > data_end)
			return -1;
		t = (__s32)le32(*(__u32 *)src);
		if (t < 0) {
			t = 0;
			clamped++;
		} else if (t > 0xffff) {
			t = 0xffff;
			clamped++;
		}
		*(__u16 *)dst = le16((__u16)t);
	}
	return clamped;
}

/* Rules 1-5: XIO_R_NARROWED when the frame is addressed to XIO, R_USER when
 * its headers are not in the linear part. */
static __always_inline int parse_outer(struct xdp_md *ctx, struct xio_hdrs *p)
{
	__u32 off = 12;
	__u8 *h, *ip;
	__u16 type;
	int i;

	if (p->len < 14)
		return XIO_R_NOT_IP;
	h = at(ctx, 0, 14);
	if (!h)
		return R_USER;
	type = be16(h + 12);
#pragma unroll
	for (i = 0; i < 2; i++) {
		if (type != ETH_P_8021Q_ && type != ETH_P_8021AD_)
			break;
		off += 4;
		if (p->len < off + 2)
			return XIO_R_NOT_IP;
		h = at(ctx, off, 2);
		if (!h)
			return R_USER;
		type = be16(h);
	}
	p->l3 = off + 2;
	if (type == ETH_P_IPV4_) {
		if (p->len < p->l3 + 20)
			return XIO_R_NOT_IP;
		ip = at(ctx, p->l3, 20);
		if (!ip)
			return R_USER;
		if (ip[0] >> 4 != 4 || (ip[0] & 0xf) < 5)
			return XIO_R_NOT_IP;
		p->ihl = (ip[0] & 0xf) * 4;
		if (p->len < p->l3 + p->ihl)
			return XIO_R_NOT_IP;
		if (ip[9] != IPPROTO_UDP_)
			return XIO_R_NOT_UDP;
		if (be16(ip + 6) & 0x3fff)
			return XIO_R_IP_FRAGMENT;
		p->ip_len = be16(ip + 2);
		p->v6 = 0;
	} else if (type == ETH_P_IPV6_) {
		if (p->len < p->l3 + 40)
			return XIO_R_NOT_IP;
		ip = at(ctx, p->l3, 40);
		if (!ip)
			return R_USER;
		if (ip[6] != IPPROTO_UDP_)
			return XIO_R_NOT_UDP;
		p->ihl = 40;
		p->ip_len = 40 + be16(ip + 4);
		p->v6 = 1;
	} else {
		return XIO_R_NOT_IP;
	}
	if (p->ip_len < p->ihl + 8 || p->l3 + p->ip_len > p->len)
		return XIO_R_TRUNCATED;
	p->l4 = p->l3 + p->ihl;
	h = at(ctx, p->l4, 8);
	if (!h)
		return R_USER;
	if (be16(h + 2) != cfg_udp_port && be16(h) != cfg_udp_port)
		return XIO_R_OTHER_PORT; /* rule 5 (1.1): either port */
	p->udp_len = be16(h + 4);
	p->xio = p->l4 + 8;
	return XIO_R_NARROWED;
}

/* Sum of the UDP pseudo-header for udp_len, memory order; -1 on bounds. */
static __always_inline long pseudo_sum(struct xdp_md *ctx, const struct xio_hdrs *p,
				       __u32 udp_len)
{
	__u64 sum = bpf_htons(IPPROTO_UDP_) + bpf_htons((__u16)udp_len);
	__u8 *a;
	int i;

	if (p->v6) {
		a = at(ctx, p->l3 + 8, 32);
		if (!a)
			return -1;
#pragma unroll
		for (i = 0; i < 8; i++)
			sum += ((__u32 *)a)[i];
	} else {
		a = at(ctx, p->l3 + 12, 8);
		if (!a)
			return -1;
		sum += ((__u32 *)a)[0];
		sum += ((__u32 *)a)[1];
	}
	return csum_fold(sum);
}

/* Whether the UDP checksum of the datagram is right, given the ones'-complement
 * sum of its payload (the tokens): the pseudo-header and the bytes from the
 * UDP header to the payload are added here. 1 right, 0 wrong, -1 on bounds. */
static __always_inline int udp_csum_ok(struct xdp_md *ctx, const struct xio_hdrs *p,
				       __u16 payload_sum)
{
	__u32 n = p->payload - p->l4;
	long hs = n == 8 + XIO_HDR_LEN ? csum_inline(ctx, p->l4, 8 + XIO_HDR_LEN) :
					 xio_csum_region(ctx, p->l4, n);
	long ps = pseudo_sum(ctx, p, p->udp_len);

	if (hs < 0 || ps < 0)
		return -1;
	return csum_fold((__u64)hs + (__u64)ps + payload_sum) == 0xffff;
}

/* Rules 9-16, the XIO header of a linear frame addressed to XIO:
 * XIO_R_NARROWED when it is a valid INT32 READ_REPLY to narrow, R_USER when
 * it carries a CRC. */
static __always_inline int check_xio_header(struct xdp_md *ctx, struct xio_hdrs *p)
{
	__u32 body = p->udp_len - 8, hdr_len, plen;
	__u8 *x, flags, dtype;

	if (body < XIO_HDR_LEN)
		return XIO_R_BAD_HEADER;
	x = at(ctx, p->xio, XIO_HDR_LEN);
	if (!x)
		return R_USER;
	if (be16(x + XIO_OFF_MAGIC) != XIO_MAGIC || x[XIO_OFF_VERSION] != XIO_VERSION)
		return XIO_R_BAD_HEADER;
	hdr_len = be16(x + XIO_OFF_HDR_LEN);
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
	p->ntok = be32(x + XIO_OFF_TOKEN_COUNT);
	if ((__u64)p->ntok * 4 != plen)
		return XIO_R_BAD_LENGTH;
	p->payload = p->xio + hdr_len;
	if (flags & XIO_F_HAS_CRC)
		return R_USER; /* CRC32C is the stage core's (ISA-L) */
	return XIO_R_NARROWED;
}

/* Rules 6-16 for a linear frame addressed to XIO: XIO_R_NARROWED when it is
 * a valid INT32 READ_REPLY to narrow (its UDP checksum, when it has one, is
 * then verified in the narrowing pass: p->csum), R_USER when it carries a
 * CRC. Any other frame has its whole datagram summed here, since rule 8 (the
 * UDP checksum) outranks rules 9-16. */
static __always_inline int validate(struct xdp_md *ctx, struct xio_hdrs *p)
{
	__u8 *udp;
	long s, ps;
	int r;

	if (p->udp_len != p->ip_len - p->ihl)
		return XIO_R_BAD_LENGTH;
	touch_lines(ctx);
	if (!p->v6) {
		s = p->ihl == 20 ? csum_inline(ctx, p->l3, 20) : xio_csum_region(ctx, p->l3, p->ihl);
		if (s < 0)
			return R_USER;
		if (s != 0xffff)
			return XIO_R_BAD_IP_CSUM;
	}
	udp = at(ctx, p->l4, 8);
	if (!udp)
		return R_USER;
	p->csum = *(__u16 *)(udp + 6) != 0;
	if (!p->csum && p->v6)
		return XIO_R_BAD_UDP_CSUM;
	r = check_xio_header(ctx, p);
	if (r == XIO_R_NARROWED || !p->csum)
		return r;
	ps = pseudo_sum(ctx, p, p->udp_len);
	s = xio_csum_region(ctx, p->l4, p->udp_len);
	if (s < 0 || ps < 0)
		return R_USER;
	if (csum_fold((__u64)s + (__u64)ps) != 0xffff)
		return XIO_R_BAD_UDP_CSUM;
	return r;
}

static __always_inline int reason_is_invalid(int r)
{
	return r == XIO_R_BAD_LENGTH || r == XIO_R_BAD_IP_CSUM || r == XIO_R_BAD_UDP_CSUM ||
	       r == XIO_R_BAD_HEADER || r == XIO_R_UNSUPPORTED || r == XIO_R_BAD_CRC;
}

static __always_inline void count(struct xio_xdp_stats *st, __u32 in_len, int r, int action,
				  __u32 out_len, __u32 tokens, __u32 saturated)
{
	st->rx_packets++;
	st->bytes_in += in_len;
	if (r >= 0 && r < XIO_XDP_NREASONS)
		st->reasons[r]++;
	if (action == XIO_ACT_DROP) {
		st->dropped_packets++;
		return;
	}
	st->tx_packets++;
	st->bytes_out += out_len;
	if (action == XIO_ACT_REWRITTEN) {
		st->narrowed_packets++;
		st->tokens_narrowed += tokens;
		st->tokens_saturated += saturated;
	}
}

static __always_inline int egress(void)
{
	if (cfg_tx_same)
		return XDP_TX;
	return bpf_redirect_map(&xio_egress, 0, 0);
}

static __always_inline int queue_pending(__u32 q)
{
	return *(volatile __u64 *)&xio_pending[q & (XIO_XDP_MAX_QUEUES - 1)] != 0;
}

/* Hands the frame, unchanged, to the AF_XDP socket of its queue. */
static __always_inline int to_user(struct xio_xdp_stats *st, __u32 q)
{
	__u32 key = q;

	if (q >= XIO_XDP_MAX_QUEUES || !bpf_map_lookup_elem(&xio_xsks, &key)) {
		st->no_socket++;
		return XDP_DROP;
	}
	__sync_fetch_and_add(&xio_pending[q & (XIO_XDP_MAX_QUEUES - 1)], 1);
	st->to_user++;
	return bpf_redirect_map(&xio_xsks, q, XDP_DROP);
}

/* Rewrites the headers of a frame whose payload now holds ntok UINT16
 * tokens. Returns the new frame length, or 0 out of bounds. */
static __always_inline __u32 rewrite(struct xdp_md *ctx, const struct xio_hdrs *p,
				     int payload_changed)
{
	__u32 shrink = 2 * p->ntok;
	__u16 new_udp_len = (__u16)(p->udp_len - shrink);
	__u16 old_word, new_word, csum;
	__u32 old_crc;
	__u8 *ip, *udp, *x;
	long s, ps;

	x = at(ctx, p->xio, XIO_HDR_LEN);
	if (!x)
		return 0;
	old_word = be16(x + XIO_OFF_FLAGS);
	old_crc = be32(x + XIO_OFF_PAYLOAD_CRC);
	x[XIO_OFF_FLAGS] |= XIO_F_NARROWED;
	x[XIO_OFF_DTYPE] = XIO_DT_UINT16;
	new_word = be16(x + XIO_OFF_FLAGS);
	*(__u32 *)(x + XIO_OFF_PAYLOAD_CRC) = 0; /* no HAS_CRC in the kernel */

	if (p->v6) {
		ip = at(ctx, p->l3, 40);
		if (!ip)
			return 0;
		put_be16(ip + 4, (__u16)(p->ip_len - 40 - shrink));
	} else {
		ip = at(ctx, p->l3, 20);
		if (!ip)
			return 0;
		/* the header checksum was verified: an RFC 1624 update gives
		 * what a recomputation would (the stage core's way) */
		put_be16(ip + 2, (__u16)(p->ip_len - shrink));
		put_be16(ip + 10, csum_update16(be16(ip + 10), (__u16)p->ip_len,
						(__u16)(p->ip_len - shrink)));
	}

	udp = at(ctx, p->l4, 8);
	if (!udp)
		return 0;
	put_be16(udp + 4, new_udp_len);
	csum = be16(udp + 6);
	if (csum != 0 || p->v6) {
		if (payload_changed) {
			*(__u16 *)(udp + 6) = 0;
			ps = pseudo_sum(ctx, p, new_udp_len);
			s = xio_csum_region(ctx, p->l4, new_udp_len);
			if (s < 0 || ps < 0)
				return 0;
			csum = bpf_ntohs((__u16)~csum_fold((__u64)s + (__u64)ps));
		} else {
			/* RFC 1624 eqn. 3 over the five changed words at once (the
			 * length stands twice: pseudo-header and UDP header): one
			 * fold gives what five updates in a row would */
			__u16 ol = ~(__u16)p->udp_len;
			__u64 sum = (__u16)~csum + 2 * (__u32)ol + 2 * (__u32)new_udp_len +
				    (__u16)~old_word + new_word + (__u16)~(__u16)(old_crc >> 16) +
				    (__u16)~(__u16)old_crc;

			csum = (__u16)~csum_fold(sum);
		}
		udp = at(ctx, p->l4, 8);
		if (!udp)
			return 0;
		put_be16(udp + 6, csum == 0 ? 0xffff : csum);
	}
	return p->l3 + p->ip_len - shrink;
}

/* Rules 17-18 and the rewrite of a valid INT32 reply. */
static __always_inline int narrow_frame(struct xdp_md *ctx, struct xio_xdp_stats *st,
					const struct xio_hdrs *p, __u32 q)
{
	int clamped = 0, ok;
	__u32 out_len, k;
	long r;

	r = xio_narrow_checked(ctx, p->payload, p->ntok);
	if (r < 0)
		return XDP_ABORTED;
	k = (__u32)r;
	if (p->csum) { /* rule 8, from the narrowing pass's sum */
		ok = udp_csum_ok(ctx, p, (__u16)(r >> 32));
		if (ok < 0)
			return XDP_ABORTED;
		if (!ok) {
			if (cfg_drop_invalid) {
				count(st, p->len, XIO_R_BAD_UDP_CSUM, XIO_ACT_DROP, 0, 0, 0);
				return XDP_DROP;
			}
			if (xio_widen(ctx, p->payload, k) < 0) /* the frame leaves as it came */
				return XDP_ABORTED;
			count(st, p->len, XIO_R_BAD_UDP_CSUM, XIO_ACT_FORWARD, p->len, 0, 0);
			return egress();
		}
	}
	if (k < p->ntok) {
		if (cfg_overflow == XIO_OVERFLOW_KEEP) {
			if (xio_widen(ctx, p->payload, k) < 0)
				return XDP_ABORTED;
			count(st, p->len, XIO_R_OUT_OF_RANGE, XIO_ACT_FORWARD, p->len, 0, 0);
			return egress();
		}
		if (cfg_overflow == XIO_OVERFLOW_DROP) {
			count(st, p->len, XIO_R_OUT_OF_RANGE, XIO_ACT_DROP, 0, 0, 0);
			return XDP_DROP;
		}
		clamped = xio_narrow_saturate(ctx, p->payload, k, p->ntok);
		if (clamped < 0)
			return XDP_ABORTED;
	}
	out_len = rewrite(ctx, p, clamped > 0);
	if (!out_len || out_len > p->len)
		return XDP_ABORTED;
	if (out_len < p->len && bpf_xdp_adjust_tail(ctx, (int)out_len - (int)p->len))
		return XDP_ABORTED;
	count(st, p->len, k < p->ntok ? XIO_R_OUT_OF_RANGE : XIO_R_NARROWED,
	      XIO_ACT_REWRITTEN, out_len, p->ntok, clamped);
	return egress();
}

SEC("xdp.frags")
int xio_xdp(struct xdp_md *ctx)
{
	__u32 lin = ctx->data_end - ctx->data, q = ctx->rx_queue_index, key = 0;
	struct xio_hdrs p = {};
	struct xio_xdp_stats *st;
	int r;

	st = bpf_map_lookup_elem(&xio_stats, &key);
	if (!st || q >= XIO_XDP_MAX_QUEUES)
		return XDP_ABORTED;
	p.len = bpf_xdp_get_buff_len(ctx);

	r = parse_outer(ctx, &p);
	if (r == R_USER)
		return to_user(st, q);
	if (r != XIO_R_NARROWED) { /* not addressed to XIO */
		if (cfg_tx_same) {
			count(st, p.len, r, XIO_ACT_FORWARD, p.len, 0, 0);
			return XDP_PASS;
		}
		if (queue_pending(q))
			return to_user(st, q);
		count(st, p.len, r, XIO_ACT_FORWARD, p.len, 0, 0);
		return egress();
	}
	if (cfg_all_to_user || queue_pending(q) || p.len != lin || p.len > XIO_XDP_MAX_LINEAR)
		return to_user(st, q);

	r = validate(ctx, &p);
	if (r == R_USER)
		return to_user(st, q);
	if (r != XIO_R_NARROWED) {
		if (cfg_drop_invalid && reason_is_invalid(r)) {
			count(st, p.len, r, XIO_ACT_DROP, 0, 0, 0);
			return XDP_DROP;
		}
		count(st, p.len, r, XIO_ACT_FORWARD, p.len, 0, 0);
		return egress();
	}
	return narrow_frame(ctx, st, &p, q);
}

/* BSD-3-Clause is GPL-compatible; the kernel knows this string as such. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
