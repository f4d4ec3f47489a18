/* SPDX-License-Identifier: BSD-3-Clause
 * xio_narrow_sse41.c: SSE4.1 narrowing kernels (x86-64). 16 tokens a step:
 * the upper halves of the block are ORed and tested (ptest) while the block
 * is in registers, then packed with packusdw. A block that holds an
 * out-of-range token is finished 4 tokens at a time, then by the scalar loop,
 * which stops at the exact index. checked adds the tokens into 32-bit lanes
 * as it goes (the checksum's partial sum). Every block is loaded before its
 * output is stored, so dst may equal src.
 */
#if defined(__x86_64__)

#include <immintrin.h>

#include "xio_narrow_priv.h"

#define LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define ST64(p, v) _mm_storel_epi64((__m128i *)(void *)(p), (v))

/* Tokens of v whose upper half is not zero. */
static inline unsigned out_of_range(__m128i v, __m128i hi)
{
	__m128i in = _mm_cmpeq_epi32(_mm_and_si128(v, hi), _mm_setzero_si128());

	return 4 - (unsigned)__builtin_popcount((unsigned)_mm_movemask_ps(_mm_castsi128_ps(in)));
}

/* The sum of the 4 lanes of v (below 2^32 for n <= 65536 tokens). */
static inline uint64_t lanes_sum(__m128i x)
{
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
	return (uint32_t)_mm_cvtsi128_si32(x);
}

static size_t sse41_checked(uint8_t *dst, const uint8_t *src, size_t n, uint64_t *sum)
{
	const __m128i hi = _mm_set1_epi32((int)XIO_NARROW_HI);
	__m128i acc = _mm_setzero_si128();
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		const uint8_t *s = src + 4 * i;
		__m128i a = LD(s), b = LD(s + 16), c = LD(s + 32), d = LD(s + 48);
		__m128i any = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));

		if (!_mm_testz_si128(any, hi))
			break;
		acc = _mm_add_epi32(acc, _mm_add_epi32(_mm_add_epi32(a, b), _mm_add_epi32(c, d)));
		ST(dst + 2 * i, _mm_packus_epi32(a, b));
		ST(dst + 2 * i + 16, _mm_packus_epi32(c, d));
	}
	for (; i + 4 <= n; i += 4) {
		__m128i a = LD(src + 4 * i);

		if (!_mm_testz_si128(a, hi))
			break;
		acc = _mm_add_epi32(acc, a);
		ST64(dst + 2 * i, _mm_packus_epi32(a, a));
	}
	*sum += lanes_sum(acc);
	return i + xio_narrow_checked_scalar(dst + 2 * i, src + 4 * i, n - i, sum);
}

/* packusdw clamps signed INT32 to 0..65535: exactly the saturate policy. */
static size_t sse41_saturate(uint8_t *dst, const uint8_t *src, size_t n)
{
	const __m128i hi = _mm_set1_epi32((int)XIO_NARROW_HI);
	size_t i = 0, clamped = 0;

	for (; i + 16 <= n; i += 16) {
		const uint8_t *s = src + 4 * i;
		__m128i a = LD(s), b = LD(s + 16), c = LD(s + 32), d = LD(s + 48);
		__m128i any = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));

		if (!_mm_testz_si128(any, hi))
			clamped += out_of_range(a, hi) + out_of_range(b, hi) + out_of_range(c, hi) +
				   out_of_range(d, hi);
		ST(dst + 2 * i, _mm_packus_epi32(a, b));
		ST(dst + 2 * i + 16, _mm_packus_epi32(c, d));
	}
	for (; i + 4 <= n; i += 4) {
		__m128i a = LD(src + 4 * i);

		clamped += out_of_range(a, hi);
		ST64(dst + 2 * i, _mm_packus_epi32(a, a));
	}
	return clamped + xio_narrow_saturate_scalar(dst + 2 * i, src + 4 * i, n - i);
}

const struct xio_narrow_ops xio_narrow_sse41 = {
	.name = "sse41",
	.narrow_checked = sse41_checked,
	.narrow_saturate = sse41_saturate,
};

#endif /* __x86_64__ */
