/* SPDX-License-Identifier: BSD-3-Clause
 * xio_narrow_avx512.c: AVX-512 (F, BW, VL) narrowing kernels (x86-64). The
 * OR of a block is tested against 0xFFFF0000 into a mask register
 * (vptestmd); then checked takes the low 16-bit word of every token of two
 * vectors with one vpermt2w, and saturate packs pairs of vectors with
 * vpackusdw (which clamps) and puts them back in token order with vpermq.
 * checked steps 128 tokens at a time (eight vectors, three vpternlogd and one
 * test: the fewest instructions a token, the narrowing is bound by them),
 * then one step of 64; saturate steps 64. A step of 32 tokens, then steps of
 * 16 (the last one with masked loads and stores) finish the buffer; there
 * the test mask gives the exact index of the first out-of-range token, so no
 * scalar loop is needed. checked adds the tokens into 32-bit lanes as it goes
 * (the checksum's partial sum) and reduces them once at the end. Every block
 * is loaded before its output is stored, so dst may equal src.
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

/* Whether a token of a, b, c, d has a bit of its upper half set. */
static inline int any_out4(const struct consts *k, __m512i a, __m512i b, __m512i c, __m512i d)
{
	__m512i abc = _mm512_ternarylogic_epi32(a, b, c, 0xFE); /* a | b | c */

	return _mm512_test_epi32_mask(_mm512_or_si512(abc, d), k->hi) != 0;
}

static inline __m512i add4(__m512i a, __m512i b, __m512i c, __m512i d)
{
	return _mm512_add_epi32(_mm512_add_epi32(a, b), _mm512_add_epi32(c, d));
}

static size_t avx512_checked(uint8_t *dst, const uint8_t *src, size_t n, uint64_t *sum)
{
	const struct consts k = consts();
	__m512i acc = _mm512_setzero_si512();
	size_t i = 0;

	for (; i + 128 <= n; i += 128) {
		const uint8_t *s = src + 4 * i;
		__m512i a = LD(s), b = LD(s + 64), c = LD(s + 128), d = LD(s + 192);
		__m512i e = LD(s + 256), f = LD(s + 320), g = LD(s + 384), h = LD(s + 448);
		__m512i abc = _mm512_ternarylogic_epi32(a, b, c, 0xFE);
		__m512i def = _mm512_ternarylogic_epi32(d, e, f, 0xFE);
		__m512i all = _mm512_ternarylogic_epi32(abc, g, h, 0xFE);

		if (_mm512_test_epi32_mask(_mm512_or_si512(all, def), k.hi))
			break;
		acc = _mm512_add_epi32(acc, _mm512_add_epi32(add4(a, b, c, d), add4(e, f, g, h)));
		ST(dst + 2 * i, low32(&k, a, b));
		ST(dst + 2 * i + 64, low32(&k, c, d));
		ST(dst + 2 * i + 128, low32(&k, e, f));
		ST(dst + 2 * i + 192, low32(&k, g, h));
	}
	if (i + 64 <= n) {
		const uint8_t *s = src + 4 * i;
		__m512i a = LD(s), b = LD(s + 64), c = LD(s + 128), d = LD(s + 192);

		if (!any_out4(&k, a, b, c, d)) {
			acc = _mm512_add_epi32(acc, add4(a, b, c, d));
			ST(dst + 2 * i, low32(&k, a, b));
			ST(dst + 2 * i + 64, low32(&k, c, d));
			i += 64;
		}
	}
	if (i + 32 <= n) {
		__m512i a = LD(src + 4 * i), b = LD(src + 4 * i + 64);

		if (!_mm512_test_epi32_mask(_mm512_or_si512(a, b), k.hi)) {
			acc = _mm512_add_epi32(acc, _mm512_add_epi32(a, b));
			ST(dst + 2 * i, low32(&k, a, b));
			i += 32;
		}
	}
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
