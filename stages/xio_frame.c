/* SPDX-License-Identifier: BSD-3-Clause
 * xio_frame.c: reading, writing, checksumming and narrowing a frame that may
 * be split into segments. Work runs over the longest contiguous pieces; only
 * a token or checksum word cut by a segment boundary takes a byte path.
 */
#include <string.h>

#include "xio_crc.h"
#include "xio_csum.h"
#include "xio_frame.h"
#include "xio_narrow.h"

uint32_t xio_frame_init(struct xio_frame *f, struct xio_seg *segs, unsigned nseg)
{
	unsigned i;

	f->seg = segs;
	f->nseg = nseg;
	f->len = 0;
	for (i = 0; i < nseg; i++)
		f->len += segs[i].len;
	return f->len;
}

/* Pointer to frame offset off and the bytes contiguous from there. */
static uint8_t *frame_at(const struct xio_frame *f, uint32_t off, uint32_t *avail)
{
	unsigned i;

	for (i = 0; i < f->nseg; i++) {
		if (off < f->seg[i].len) {
			*avail = f->seg[i].len - off;
			return f->seg[i].data + off;
		}
		off -= f->seg[i].len;
	}
	*avail = 0;
	return NULL;
}

void xio_frame_read(const struct xio_frame *f, uint32_t off, void *dst, uint32_t n)
{
	uint8_t *out = dst;
	uint32_t avail, k;

	while (n > 0) {
		const uint8_t *p = frame_at(f, off, &avail);

		k = n < avail ? n : avail;
		memcpy(out, p, k);
		out += k;
		off += k;
		n -= k;
	}
}

void xio_frame_write(struct xio_frame *f, uint32_t off, const void *src, uint32_t n)
{
	const uint8_t *in = src;
	uint32_t avail, k;

	while (n > 0) {
		uint8_t *p = frame_at(f, off, &avail);

		k = n < avail ? n : avail;
		memcpy(p, in, k);
		in += k;
		off += k;
		n -= k;
	}
}

uint64_t xio_frame_csum(const struct xio_frame *f, uint32_t off, uint32_t n, uint64_t sum)
{
	uint32_t done = 0, avail, k;

	while (done < n) {
		const uint8_t *p = frame_at(f, off + done, &avail);
		uint16_t part;

		k = n - done < avail ? n - done : avail;
		part = xio_csum_fold(xio_csum_add(0, p, k));
		/* a piece starting at an odd distance from off pairs its bytes
		 * the other way round: swap its sum (RFC 1071 2.B) */
		sum += (done & 1) ? __builtin_bswap16(part) : part;
		done += k;
	}
	return sum;
}

uint32_t xio_frame_crc32c(const struct xio_frame *f, uint32_t off, uint32_t n, uint32_t state)
{
	uint32_t avail, k;

	while (n > 0) {
		const uint8_t *p = frame_at(f, off, &avail);

		k = n < avail ? n : avail;
		state = xio_crc32c_update(state, p, k);
		off += k;
		n -= k;
	}
	return state;
}

/* One token cut by a segment boundary: gathered, narrowed, scattered; an
 * in-range token is added to *sum when sum is not NULL. */
static int narrow_one(struct xio_frame *f, uint32_t off, size_t i, int checked, uint64_t *sum)
{
	uint8_t in[4], out[2];
	int32_t t;
	int bad;

	xio_frame_read(f, off + 4 * (uint32_t)i, in, 4);
	t = (int32_t)((uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 |
		      (uint32_t)in[3] << 24);
	bad = t < 0 || t > 65535;
	if (bad && checked)
		return 1;
	if (bad)
		t = t < 0 ? 0 : 65535;
	else if (sum)
		*sum += (uint32_t)t;
	out[0] = (uint8_t)t;
	out[1] = (uint8_t)(t >> 8);
	xio_frame_write(f, off + 2 * (uint32_t)i, out, 2);
	return bad;
}

size_t xio_frame_narrow(struct xio_frame *f, uint32_t off, size_t first, size_t n, int checked,
			uint64_t *sum)
{
	const struct xio_narrow_ops *ops = xio_narrow_ops();
	size_t i = first, clamped = 0;

	if (f->nseg == 1) {
		/* the payload in one piece (the stage core checked the lengths):
		 * one kernel call */
		uint8_t *p = f->seg[0].data + off;

		if (checked)
			return first + ops->narrow_checked(p + 2 * first, p + 4 * first, n - first, sum);
		return ops->narrow_saturate(p + 2 * first, p + 4 * first, n - first);
	}
	while (i < n) {
		uint32_t savail, davail;
		uint8_t *src = frame_at(f, off + 4 * (uint32_t)i, &savail);
		uint8_t *dst = frame_at(f, off + 2 * (uint32_t)i, &davail);
		size_t k = n - i;

		if (k > savail / 4)
			k = savail / 4;
		if (k > davail / 2)
			k = davail / 2;
		if (k == 0) {
			int bad = narrow_one(f, off, i, checked, sum);

			if (bad && checked)
				return i;
			clamped += (size_t)bad;
			i++;
			continue;
		}
		if (checked) {
			size_t r = ops->narrow_checked(dst, src, k, sum);

			if (r < k)
				return i + r;
		} else {
			clamped += ops->narrow_saturate(dst, src, k);
		}
		i += k;
	}
	return checked ? n : clamped;
}

void xio_frame_widen(struct xio_frame *f, uint32_t off, size_t n)
{
	uint32_t avail;
	uint8_t *p = frame_at(f, off, &avail);

	if (n == 0)
		return;
	if (avail / 4 >= n) {
		xio_widen_inplace(p, n);
		return;
	}
	while (n-- > 0) {
		uint8_t v[4] = { 0, 0, 0, 0 };

		xio_frame_read(f, off + 2 * (uint32_t)n, v, 2);
		xio_frame_write(f, off + 4 * (uint32_t)n, v, 4);
	}
}
