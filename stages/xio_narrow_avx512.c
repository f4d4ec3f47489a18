/* SPDX-License-Identifier: BSD-3-Clause
 * xio_narrow_avx512.c: AVX-512 (F, BW, VL) narrowing kernels (x86-64).
 * checked tests a block for out-of-range tokens before it stores any of its
 * output: it ORs the block's vectors (vpternlogd), shifts the OR right by 16
 * and tests it against itself (vptestmd), then takes the low 16-bit word of
 * every token of two vectors with one vpermt2w; saturate packs pairs of
 * vectors with vpackusdw (which clamps) and puts them back in token order
 * with vpermq.
 * checked is shaped for packet-sized buffers, where a call costs about as
 * much as a memcpy of 256-512 bytes: 64..127 tokens take one straight block
 * of 64 and, past it, one masked block for the rest (no loop, no step
 * cascade); 128 and more take blocks of 128, one of 64 and the masked rest;
 * fewer than 64 only the masked block. It adds the tokens into 32-bit lanes
 * as it goes (the checksum's partial sum), each block's vectors as a tree so
 * that only one vpaddd a block is carried from block to block, and reduces
 * the lanes once at the end. After a block with an out-of-range token it
 * steps 16 tokens at a time from that block on, where the test mask gives
 * the exact index of the first one (no scalar loop). saturate steps 64, then
 * 32, then 16 (the last step masked). Every block is loaded before its
 * output is stored, so dst may equal src.
 */
#if defined(__x86_64__)

#include <immintrin.h>

#include "xio_narrow_priv.h"

#define LD(p) _mm512_loadu_si512((const void *)(p))
#define ST(p, v) _mm512_storeu_si512((void *)(p), (v))

struct consts {
	__m512i hi;   /* the upper half of every token */
	__m512i perm; /* vpackusdw's per-lane order back to token order */
	__m512i w2;   /* the low 16-bit word of every token of two vectors */
};

static inline struct consts consts(void)
{
	struct consts k = {
		.hi = _mm512_set1_epi32((int)XIO_NARROW_HI),
		.perm = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7),
		.w2 = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32,
				       30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0),
	};

	return k;
}

/* The low halves of the 32 tokens of a, b in order. */
static inline __m512i low32(const struct consts *k, __m512i a, __m512i b)
{
	return _mm512_permutex2var_epi16(a, k->w2, b);
}

/* The 32 tokens of a, b clamped to 0..65535, in order. */
static inline __m512i pack32(const struct consts *k, __m512i a, __m512i b)
{
	return _mm512_permutexvar_epi64(k->perm, _mm512_packus_epi32(a, b));
}

/* The first rem (< 16) tokens at s: the rest of the vector is zero. */
static inline __m512i load_tail(const uint8_t *s, __mmask16 m)
{
	return _mm512_maskz_loadu_epi32(m, (const void *)s);
}

/* The sum of the 16 lanes of v: below 2^32 for n <= 65536 tokens of at
 * most 65535 each. */
static inline uint64_t lanes_sum(__m512i v)
{
	return (uint32_t)_mm512_reduce_add_epi32(v);
}

/* The low halves of the 16 tokens of a (vpmovdw), stored under mask m. */
static inline void store16(uint8_t *d, __mmask16 m, __m512i a)
{
	if (m == 0xFFFF)
		_mm256_storeu_si256((__m256i *)(void *)d, _mm512_cvtepi32_epi16(a));
	else
		_mm256_mask_storeu_epi16(d, m, _mm512_cvtepi32_epi16(a));
}

/* Whether a token of v has a bit of its upper half set: v >> 16 tested
 * against itself, no constant to broadcast on the short buffers' path. */
static inline int any_hi(__m512i v)
{
	__m512i h = _mm512_srli_epi32(v, 16);

	return _mm512_test_epi32_mask(h, h) != 0;
}

static inline __m512i or4(__m512i a, __m512i b, __m512i c, __m512i d)
{
	return _mm512_or_si512(_mm512_ternarylogic_epi32(a, b, c, 0xFE), d); /* a | b | c | d */
}

/* a + b, kept as written: GCC otherwise turns a block's tree of additions
 * into one chain through the accumulator, and at a latency of 2 cycles a
 * vpaddd (Zen 5) the eight of a 128-token block bound the loop. */
static inline __m512i add2(__m512i a, __m512i b)
{
	__m512i r = _mm512_add_epi32(a, b);

	__asm__("" : "+v"(r));
	return r;
}

static inline __m512i add4(__m512i a, __m512i b, __m512i c, __m512i d)
{
	return add2(add2(a, b), add2(c, d));
}

/* Tokens [i, n) 16 at a time, the last step masked, from a block with an
 * out-of-range token on: the exact index of the first one. acc holds the
 * lanes of the tokens before i. */
static __attribute__((noinline, cold)) size_t checked_exact(uint8_t *dst, const uint8_t *src,
							    size_t i, size_t n, __m512i acc,
							    uint64_t *sum)
{
	const struct consts k = consts();

	for (; i < n; i += 16) {
		__mmask16 all = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
		__m512i a = load_tail(src + 4 * i, all);
		__mmask16 bad = _mm512_test_epi32_mask(a, k.hi);

		if (bad) {
			unsigned first = (unsigned)__builtin_ctz(bad);
			__mmask16 good = (__mmask16)((1u << first) - 1);

			store16(dst + 2 * i, good, a);
			*sum += lanes_sum(_mm512_mask_add_epi32(acc, good, acc, a));
			return i + first;
		}
		acc = _mm512_add_epi32(acc, a);
		store16(dst + 2 * i, all, a);
	}
	*sum += lanes_sum(acc);
	return n;
}

/* The block functions narrow tokens [i, i + 64 or 128) or [i, n) when all
 * are in range: they store the output, put the lanes' sum in *v and return
 * 1. Otherwise they store nothing and return 0. */
static inline __attribute__((always_inline)) int block128(const struct consts *k, uint8_t *dst,
							  const uint8_t *src, size_t i, __m512i *v)
{
	const uint8_t *s = src + 4 * i;
	__m512i a = LD(s), b = LD(s + 64), c = LD(s + 128), d = LD(s + 192);
	__m512i e = LD(s + 256), f = LD(s + 320), g = LD(s + 384), h = LD(s + 448);
	__m512i abc = _mm512_ternarylogic_epi32(a, b, c, 0xFE);
	__m512i def = _mm512_ternarylogic_epi32(d, e, f, 0xFE);

	if (any_hi(_mm512_or_si512(_mm512_ternarylogic_epi32(abc, g, h, 0xFE), def)))
		return 0;
	*v = add2(add4(a, b, c, d), add4(e, f, g, h));
	ST(dst + 2 * i, low32(k, a, b));
	ST(dst + 2 * i + 64, low32(k, c, d));
	ST(dst + 2 * i + 128, low32(k, e, f));
	ST(dst + 2 * i + 192, low32(k, g, h));
	return 1;
}

static inline __attribute__((always_inline)) int block64(const struct consts *k, uint8_t *dst,
							 const uint8_t *src, size_t i, __m512i *v)
{
	const uint8_t *s = src + 4 * i;
	__m512i a = LD(s), b = LD(s + 64), c = LD(s + 128), d = LD(s + 192);

	if (any_hi(or4(a, b, c, d)))
		return 0;
	*v = add4(a, b, c, d);
	ST(dst + 2 * i, low32(k, a, b));
	ST(dst + 2 * i + 64, low32(k, c, d));
	return 1;
}

/* n - i < 64: masked loads (the lanes past n read as zero) and stores. */
static inline __attribute__((always_inline)) int block_rest(const struct consts *k, uint8_t *dst,
							    const uint8_t *src, size_t i, size_t n,
							    __m512i *v)
{
	const uint8_t *s = src + 4 * i;
	uint64_t m = (1ull << (n - i)) - 1; /* token j of the block: bit j */
	__m512i a = _mm512_maskz_loadu_epi32((__mmask16)m, s);
	__m512i b = _mm512_maskz_loadu_epi32((__mmask16)(m >> 16), s + 64);
	__m512i c = _mm512_maskz_loadu_epi32((__mmask16)(m >> 32), s + 128);
	__m512i d = _mm512_maskz_loadu_epi32((__mmask16)(m >> 48), s + 192);

	if (any_hi(or4(a, b, c, d)))
		return 0;
	*v = add4(a, b, c, d);
	_mm512_mask_storeu_epi16(dst + 2 * i, (__mmask32)m, low32(k, a, b));
	_mm512_mask_storeu_epi16(dst + 2 * i + 64, (__mmask32)(m >> 32), low32(k, c, d));
	return 1;
}

/* n >= 128. */
static __attribute__((noinline)) size_t checked_long(uint8_t *dst, const uint8_t *src, size_t n,
						     uint64_t *sum)
{
	const struct consts k = consts();
	__m512i acc, v;
	size_t i;

	if (!block128(&k, dst, src, 0, &acc))
		return checked_exact(dst, src, 0, n, _mm512_setzero_si512(), sum);
	for (i = 128; i + 128 <= n; i += 128) {
		if (!block128(&k, dst, src, i, &v))
			return checked_exact(dst, src, i, n, acc, sum);
		acc = _mm512_add_epi32(acc, v);
	}
	if (n - i >= 64) {
		if (!block64(&k, dst, src, i, &v))
			return checked_exact(dst, src, i, n, acc, sum);
		acc = _mm512_add_epi32(acc, v);
		i += 64;
	}
	if (i < n) {
		if (!block_rest(&k, dst, src, i, n, &v))
			return checked_exact(dst, src, i, n, acc, sum);
		acc = _mm512_add_epi32(acc, v);
	}
	*sum += lanes_sum(acc);
	return n;
}

/* n < 64. */
static __attribute__((noinline)) size_t checked_short(uint8_t *dst, const uint8_t *src, size_t n,
						      uint64_t *sum)
{
	const struct consts k = consts();
	__m512i acc;

	if (!block_rest(&k, dst, src, 0, n, &acc))
		return checked_exact(dst, src, 0, n, _mm512_setzero_si512(), sum);
	*sum += lanes_sum(acc);
	return n;
}

/* 64..127 tokens inline, straight through; the rest in their own functions
 * (one compare, n - 64 >= 64, sends both there). */
static size_t avx512_checked(uint8_t *dst, const uint8_t *src, size_t n, uint64_t *sum)
{
	const struct consts k = consts();
	__m512i acc, v;

	if (__builtin_expect(n - 64 >= 64, 0))
		return n < 64 ? checked_short(dst, src, n, sum) : checked_long(dst, src, n, sum);
	if (!block64(&k, dst, src, 0, &acc))
		return checked_exact(dst, src, 0, n, _mm512_setzero_si512(), sum);
	if (__builtin_expect(n > 64, 0)) {
		if (!block_rest(&k, dst, src, 64, n, &v))
			return checked_exact(dst, src, 64, n, acc, sum);
		acc = _mm512_add_epi32(acc, v);
	}
	*sum += lanes_sum(acc);
	return n;
}

static size_t avx512_saturate(uint8_t *dst, const uint8_t *src, size_t n)
{
	const struct consts k = consts();
	const __m512i zero = _mm512_setzero_si512();
	size_t i = 0, clamped = 0;

	for (; i + 64 <= n; i += 64) {
		const uint8_t *s = src + 4 * i;
		__m512i a = LD(s), b = LD(s + 64), c = LD(s + 128), d = LD(s + 192);
		__m512i any = _mm512_or_si512(_mm512_or_si512(a, b), _mm512_or_si512(c, d));

		if (_mm512_test_epi32_mask(any, k.hi)) {
			uint32_t ab = (uint32_t)_mm512_test_epi32_mask(a, k.hi) |
				      (uint32_t)_mm512_test_epi32_mask(b, k.hi) << 16;
			uint32_t cd = (uint32_t)_mm512_test_epi32_mask(c, k.hi) |
				      (uint32_t)_mm512_test_epi32_mask(d, k.hi) << 16;

			clamped += (size_t)__builtin_popcount(ab) + (size_t)__builtin_popcount(cd);
		}
		ST(dst + 2 * i, pack32(&k, a, b));
		ST(dst + 2 * i + 64, pack32(&k, c, d));
	}
	if (i + 32 <= n) {
		__m512i a = LD(src + 4 * i), b = LD(src + 4 * i + 64);

		clamped += (size_t)__builtin_popcount((uint32_t)_mm512_test_epi32_mask(a, k.hi) |
						      (uint32_t)_mm512_test_epi32_mask(b, k.hi) << 16);
		ST(dst + 2 * i, pack32(&k, a, b));
		i += 32;
	}
	/* max with 0, then unsigned saturation (vpmovusdw) clamps to 0..65535 */
	for (; i < n; i += 16) {
		__mmask16 all = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
		__m512i a = load_tail(src + 4 * i, all);

		clamped += (size_t)__builtin_popcount(_mm512_test_epi32_mask(a, k.hi));
		_mm512_mask_cvtusepi32_storeu_epi16(dst + 2 * i, all, _mm512_max_epi32(a, zero));
	}
	return clamped;
}

const struct xio_narrow_ops xio_narrow_avx512 = {
	.name = "avx512",
	.narrow_checked = avx512_checked,
	.narrow_saturate = avx512_saturate,
};

#endif /* __x86_64__ */
