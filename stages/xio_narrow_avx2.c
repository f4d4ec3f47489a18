/* SPDX-License-Identifier: BSD-3-Clause
 * xio_narrow_avx2.c: AVX2 narrowing kernels (x86-64). 32 tokens a step: the
 * OR of the block's upper halves is tested (vptest) in registers, then pairs
 * of vectors are packed with vpackusdw and put back in token order with
 * vpermq (the pack works per 128-bit lane). A block that holds an
 * out-of-range token is finished 8 and 4 tokens at a time, then by the
 * scalar loop, which stops at the exact index. checked adds the tokens
 * into 32-bit lanes as it goes (the checksum's partial sum). Every block is
 * loaded before its output is stored, so dst may equal src.
 */
#if defined(__x86_64__)

#include <immintrin.h>

#include "xio_narrow_priv.h"

#define LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define LD128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define ST64(p, v) _mm_storel_epi64((__m128i *)(void *)(p), (v))

/* 16 tokens of a, b in order: [a0-3 b0-3 | a4-7 b4-7] -> [a0-7 | b0-7]. */
static inline __m256i pack16(__m256i a, __m256i b)
{
	return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), _MM_SHUFFLE(3, 1, 2, 0));
}

/* 8 tokens of a. */
static inline __m128i pack8(__m256i a)
{
	return _mm_packus_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
}

/* Tokens of v whose upper half is not zero. */
static inline unsigned out_of_range(__m256i v, __m256i hi)
{
	__m256i in = _mm256_cmpeq_epi32(_mm256_and_si256(v, hi), _mm256_setzero_si256());

	return 8 - (unsigned)__builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(in)));
}

static inline unsigned out_of_range4(__m128i v, __m128i hi)
{
	__m128i in = _mm_cmpeq_epi32(_mm_and_si128(v, hi), _mm_setzero_si128());

	return 4 - (unsigned)__builtin_popcount((unsigned)_mm_movemask_ps(_mm_castsi128_ps(in)));
}

/* The sum of the 8 lanes of v (below 2^32 for n <= 65536 tokens). */
static inline uint64_t lanes_sum(__m256i v)
{
	__m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
	return (uint32_t)_mm_cvtsi128_si32(x);
}

/* a + b, kept as written: GCC otherwise turns a block's tree of additions
 * into one chain through the accumulator (see xio_narrow_avx512.c). */
static inline __m256i add2(__m256i a, __m256i b)
{
	__m256i r = _mm256_add_epi32(a, b);

	__asm__("" : "+x"(r));
	return r;
}

static size_t avx2_checked(uint8_t *dst, const uint8_t *src, size_t n, uint64_t *sum)
{
	const __m256i hi = _mm256_set1_epi32((int)XIO_NARROW_HI);
	__m256i acc = _mm256_setzero_si256();
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		const uint8_t *s = src + 4 * i;
		__m256i a = LD(s), b = LD(s + 32), c = LD(s + 64), d = LD(s + 96);
		__m256i any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));

		if (!_mm256_testz_si256(any, hi))
			break;
		acc = _mm256_add_epi32(acc, add2(add2(a, b), add2(c, d)));
		ST(dst + 2 * i, pack16(a, b));
		ST(dst + 2 * i + 32, pack16(c, d));
	}
	for (; i + 8 <= n; i += 8) {
		__m256i a = LD(src + 4 * i);

		if (!_mm256_testz_si256(a, hi))
			break;
		acc = _mm256_add_epi32(acc, a);
		ST128(dst + 2 * i, pack8(a));
	}
	if (i + 4 <= n) {
		__m128i a = LD128(src + 4 * i);

		if (_mm_testz_si128(a, _mm256_castsi256_si128(hi))) {
			acc = _mm256_add_epi32(acc, _mm256_zextsi128_si256(a));
			ST64(dst + 2 * i, _mm_packus_epi32(a, a));
			i += 4;
		}
	}
	*sum += lanes_sum(acc);
	return i + xio_narrow_checked_scalar(dst + 2 * i, src + 4 * i, n - i, sum);
}

static size_t avx2_saturate(uint8_t *dst, const uint8_t *src, size_t n)
{
	const __m256i hi = _mm256_set1_epi32((int)XIO_NARROW_HI);
	size_t i = 0, clamped = 0;

	for (; i + 32 <= n; i += 32) {
		const uint8_t *s = src + 4 * i;
		__m256i a = LD(s), b = LD(s + 32), c = LD(s + 64), d = LD(s + 96);
		__m256i any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));

		if (!_mm256_testz_si256(any, hi))
			clamped += out_of_range(a, hi) + out_of_range(b, hi) + out_of_range(c, hi) +
				   out_of_range(d, hi);
		ST(dst + 2 * i, pack16(a, b));
		ST(dst + 2 * i + 32, pack16(c, d));
	}
	for (; i + 8 <= n; i += 8) {
		__m256i a = LD(src + 4 * i);

		clamped += out_of_range(a, hi);
		ST128(dst + 2 * i, pack8(a));
	}
	if (i + 4 <= n) {
		__m128i a = LD128(src + 4 * i);

		clamped += out_of_range4(a, _mm256_castsi256_si128(hi));
		ST64(dst + 2 * i, _mm_packus_epi32(a, a));
		i += 4;
	}
	return clamped + xio_narrow_saturate_scalar(dst + 2 * i, src + 4 * i, n - i);
}

const struct xio_narrow_ops xio_narrow_avx2 = {
	.name = "avx2",
	.narrow_checked = avx2_checked,
	.narrow_saturate = avx2_saturate,
};

#endif /* __x86_64__ */
