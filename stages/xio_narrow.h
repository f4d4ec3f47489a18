/* SPDX-License-Identifier: BSD-3-Clause
 * xio_narrow.h: INT32 -> UINT16 narrowing kernels. One scalar reference and
 * SIMD variants (SSE4.1, AVX2, AVX-512 on x86-64; NEON on aarch64) with the
 * same contract, chosen once at run time from what the CPU has; the
 * XIO_KERNEL environment variable or xio_narrow_select() forces one.
 *
 * Tokens are little-endian in memory; pointers need no alignment. dst may
 * equal src or lie before it in the same buffer (in-place forward
 * compaction: the output of token i lands at byte 2*i, its input at 4*i).
 */
#ifndef XIO_NARROW_H
#define XIO_NARROW_H

#include <stddef.h>
#include <stdint.h>

struct xio_narrow_ops {
	const char *name;
	/* Narrows tokens from the start while they are in 0..65535; the range
	 * check is fused into the same pass. Returns k, the index of the first
	 * out-of-range token (n when there is none): exactly tokens [0, k) have
	 * been written to dst. Adds the values of those k tokens to *sum, in
	 * the same pass: an in-range token's upper half is zero, so this is the
	 * Internet checksum's partial sum of their input bytes as host-order
	 * 32-bit words (xio_csum_add's accumulator before its byte swap), and
	 * the UDP checksum check needs no pass of its own. n <= 65536. */
	size_t (*narrow_checked)(uint8_t *dst, const uint8_t *src, size_t n, uint64_t *sum);
	/* Narrows all n tokens, clamping each to 0..65535. Returns how many
	 * tokens were clamped. */
	size_t (*narrow_saturate)(uint8_t *dst, const uint8_t *src, size_t n);
};

/* The kernel in use (selected on first call). Never NULL. */
const struct xio_narrow_ops *xio_narrow_ops(void);

/* Forces a kernel by name ("scalar", "sse41", "avx2", "avx512", "neon").
 * Returns 0, or -1 when the name is unknown or the CPU lacks it. */
int xio_narrow_select(const char *name);

/* Every kernel compiled into this build, usable on this CPU or not, ending
 * with NULL. */
const struct xio_narrow_ops *const *xio_narrow_all(void);

/* Whether this CPU can run a kernel of xio_narrow_all(). */
int xio_narrow_supported(const struct xio_narrow_ops *ops);

/* Scalar reference kernels (always built). */
extern const struct xio_narrow_ops xio_narrow_scalar;

/* Widens tokens [0, n) narrowed in place by narrow_checked back to INT32:
 * undoes the compaction of an in-range prefix (used when a later token turns
 * out to be out of range and the frame must leave byte-identical). */
void xio_widen_inplace(uint8_t *buf, size_t n);

#endif /* XIO_NARROW_H */
