/* SPDX-License-Identifier: BSD-3-Clause
 * xio_narrow_neon.c: NEON narrowing kernels (aarch64, the BlueField's Arm
 * cores). 16 tokens a step: the upper halves of the OR of the block are
 * narrowed to 64 bits (vshrn) and tested as one scalar; in range, uzp1 keeps
 * the low half of every token of two vectors at once. A block that holds an
 * out-of-range token is finished 4 tokens at a time, then by the scalar loop,
 * which stops at the exact index; checked adds the tokens into 32-bit lanes
 * as it goes (the checksum's partial sum). saturate uses sqxtun (vqmovun_s32), which
 * clamps signed INT32 to 0..65535. Every block is loaded before its output is
 * stored, so dst may equal src.
 */
#if defined(__aarch64__)

#include <arm_neon.h>

#include "xio_narrow_priv.h"

#define LD(p) vreinterpretq_u32_u8(vld1q_u8(p))
#define ST(p, v) vst1q_u8((p), vreinterpretq_u8_u16(v))

/* Whether any token of v has a non-zero upper half. */
static inline int any_out_of_range(uint32x4_t v)
{
	return vget_lane_u64(vreinterpret_u64_u16(vshrn_n_u32(v, 16)), 0) != 0;
}

/* The low halves of the 8 tokens of a, b, in order. */
static inline uint16x8_t low_halves(uint32x4_t a, uint32x4_t b)
{
	return vuzp1q_u16(vreinterpretq_u16_u32(a), vreinterpretq_u16_u32(b));
}

/* Tokens of v whose upper half is not zero. */
static inline unsigned out_of_range(uint32x4_t v)
{
	return vaddvq_u32(vshrq_n_u32(vtstq_u32(v, vdupq_n_u32(XIO_NARROW_HI)), 31));
}

static inline uint16x8_t clamp8(uint32x4_t a, uint32x4_t b)
{
	return vqmovun_high_s32(vqmovun_s32(vreinterpretq_s32_u32(a)), vreinterpretq_s32_u32(b));
}

static size_t neon_checked(uint8_t *dst, const uint8_t *src, size_t n, uint64_t *sum)
{
	uint32x4_t acc = vdupq_n_u32(0);
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		const uint8_t *s = src + 4 * i;
		uint32x4_t a = LD(s), b = LD(s + 16), c = LD(s + 32), d = LD(s + 48);

		if (any_out_of_range(vorrq_u32(vorrq_u32(a, b), vorrq_u32(c, d))))
			break;
		acc = vaddq_u32(acc, vaddq_u32(vaddq_u32(a, b), vaddq_u32(c, d)));
		ST(dst + 2 * i, low_halves(a, b));
		ST(dst + 2 * i + 16, low_halves(c, d));
	}
	for (; i + 4 <= n; i += 4) {
		uint32x4_t a = LD(src + 4 * i);

		if (any_out_of_range(a))
			break;
		acc = vaddq_u32(acc, a);
		vst1_u8(dst + 2 * i, vreinterpret_u8_u16(vmovn_u32(a)));
	}
	/* below 2^32 for n <= 65536 tokens */
	*sum += vaddvq_u32(acc);
	return i + xio_narrow_checked_scalar(dst + 2 * i, src + 4 * i, n - i, sum);
}

static size_t neon_saturate(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0, clamped = 0;

	for (; i + 16 <= n; i += 16) {
		const uint8_t *s = src + 4 * i;
		uint32x4_t a = LD(s), b = LD(s + 16), c = LD(s + 32), d = LD(s + 48);

		if (any_out_of_range(vorrq_u32(vorrq_u32(a, b), vorrq_u32(c, d))))
			clamped += out_of_range(a) + out_of_range(b) + out_of_range(c) + out_of_range(d);
		ST(dst + 2 * i, clamp8(a, b));
		ST(dst + 2 * i + 16, clamp8(c, d));
	}
	for (; i + 4 <= n; i += 4) {
		uint32x4_t a = LD(src + 4 * i);

		clamped += out_of_range(a);
		vst1_u8(dst + 2 * i, vreinterpret_u8_u16(vqmovun_s32(vreinterpretq_s32_u32(a))));
	}
	return clamped + xio_narrow_saturate_scalar(dst + 2 * i, src + 4 * i, n - i);
}

const struct xio_narrow_ops xio_narrow_neon = {
	.name = "neon",
	.narrow_checked = neon_checked,
	.narrow_saturate = neon_saturate,
};

#endif /* __aarch64__ */
