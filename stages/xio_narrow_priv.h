/* SPDX-License-Identifier: BSD-3-Clause
 * xio_narrow_priv.h: what the narrowing kernels share and nobody else uses:
 * the scalar loops (the reference, and the SIMD kernels' tails and the
 * blocks in which they met an out-of-range token) and the per-ISA kernel
 * tables, each compiled only for its own architecture.
 */
#ifndef XIO_NARROW_PRIV_H
#define XIO_NARROW_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xio_narrow.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "XIO tokens are little-endian: the kernels load them as host integers");

/* A token is in range when its upper 16 bits are zero. */
#define XIO_NARROW_HI 0xFFFF0000u

static inline int32_t xio_tok_load(const uint8_t *p)
{
	int32_t t;

	memcpy(&t, p, sizeof(t));
	return t;
}

static inline void xio_tok_store16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Each token is read before its output is stored, and the output of token i
 * (bytes 2i, 2i+1) never reaches the input of a later token (from 4i + 4):
 * safe in place. */
static inline size_t xio_narrow_checked_scalar(uint8_t *dst, const uint8_t *src, size_t n,
						uint64_t *sum)
{
	uint64_t acc = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int32_t t = xio_tok_load(src + 4 * i);

		if ((uint32_t)t & XIO_NARROW_HI)
			break;
		acc += (uint32_t)t;
		xio_tok_store16(dst + 2 * i, (uint16_t)t);
	}
	*sum += acc;
	return i;
}

static inline size_t xio_narrow_saturate_scalar(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i, clamped = 0;

	for (i = 0; i < n; i++) {
		int32_t t = xio_tok_load(src + 4 * i);

		if ((uint32_t)t & XIO_NARROW_HI) {
			clamped++;
			t = t < 0 ? 0 : 65535;
		}
		xio_tok_store16(dst + 2 * i, (uint16_t)t);
	}
	return clamped;
}

#if defined(__x86_64__)
extern const struct xio_narrow_ops xio_narrow_sse41;
extern const struct xio_narrow_ops xio_narrow_avx2;
extern const struct xio_narrow_ops xio_narrow_avx512;
#endif
#if defined(__aarch64__)
extern const struct xio_narrow_ops xio_narrow_neon;
#endif

#endif /* XIO_NARROW_PRIV_H */
