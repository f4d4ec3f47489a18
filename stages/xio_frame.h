/* SPDX-License-Identifier: BSD-3-Clause
 * xio_frame.h: a frame as a short list of byte segments (one buffer, a DPDK
 * multi-segment mbuf chain, an XDP multi-buffer frame) and the few accessors
 * the stage core needs to read, write, checksum and narrow across segment
 * boundaries. A single-segment frame takes the direct path everywhere.
 */
#ifndef XIO_FRAME_H
#define XIO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define XIO_MAX_SEGS 32

struct xio_seg {
	uint8_t *data;
	uint32_t len;
};

struct xio_frame {
	struct xio_seg *seg;
	unsigned nseg;
	uint32_t len; /* sum of the segment lengths */
};

/* Builds a frame over segs[0..nseg); returns its total length. */
uint32_t xio_frame_init(struct xio_frame *f, struct xio_seg *segs, unsigned nseg);

/* Copies n bytes at frame offset off to dst (off + n <= f->len). */
void xio_frame_read(const struct xio_frame *f, uint32_t off, void *dst, uint32_t n);

/* Copies n bytes from src to frame offset off (off + n <= f->len). */
void xio_frame_write(struct xio_frame *f, uint32_t off, const void *src, uint32_t n);

/* Ones'-complement partial sum of bytes [off, off + n), word-aligned to off. */
uint64_t xio_frame_csum(const struct xio_frame *f, uint32_t off, uint32_t n, uint64_t sum);

/* CRC32C state continued over bytes [off, off + n). */
uint32_t xio_frame_crc32c(const struct xio_frame *f, uint32_t off, uint32_t n, uint32_t state);

/* Narrows INT32 tokens [first, n) of the payload at off to UINT16 in place
 * (token i moves from off + 4i to off + 2i; off + 4n <= f->len). checked: stops at the first
 * out-of-range token and returns its index (n if none), the tokens before it
 * narrowed and their values added to *sum (see narrow_checked in
 * xio_narrow.h); saturate (checked == 0, sum unused): narrows them all,
 * clamping, and returns the number clamped. */
size_t xio_frame_narrow(struct xio_frame *f, uint32_t off, size_t first, size_t n, int checked,
			uint64_t *sum);

/* Undoes xio_frame_narrow(checked) of tokens [0, n) at off. */
void xio_frame_widen(struct xio_frame *f, uint32_t off, size_t n);

#endif /* XIO_FRAME_H */
