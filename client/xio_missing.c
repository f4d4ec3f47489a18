/* SPDX-License-Identifier: BSD-3-Clause
 * xio_missing.c: the bookkeeping of one chunk being read: a bitmap with a
 * bit per unit (token, or byte of a RAW read) received. Marking counts only
 * new units, so duplicates and late datagrams never count twice; the zero
 * runs are the ranges to ask for again after a timeout.
 */
#include <string.h>

#include "xio_priv.h"

void xio_missing_reset(struct xio_missing *m, uint64_t *bits, uint64_t n)
{
	m->bits = bits;
	m->n = n;
	m->got = 0;
	memset(bits, 0, xio_missing_words(n) * sizeof(uint64_t));
}

/* Bits [lo, hi) of a word, 0 <= lo < hi <= 64. */
static inline uint64_t span_mask(unsigned lo, unsigned hi)
{
	uint64_t upto = hi == 64 ? ~0ull : (1ull << hi) - 1;

	return upto & ~((1ull << lo) - 1);
}

uint64_t xio_missing_mark(struct xio_missing *m, uint64_t a, uint64_t b)
{
	uint64_t fresh = 0;

	while (a < b) {
		uint64_t w = a / 64;
		unsigned lo = (unsigned)(a % 64);
		unsigned hi = b - w * 64 >= 64 ? 64 : (unsigned)(b - w * 64);
		uint64_t mask = span_mask(lo, hi);

		fresh += (uint64_t)__builtin_popcountll(mask & ~m->bits[w]);
		m->bits[w] |= mask;
		a = w * 64 + hi;
	}
	m->got += fresh;
	return fresh;
}

/* The first unit in [from, end) whose bit equals want, or end. */
static uint64_t find_bit(const struct xio_missing *m, uint64_t from, uint64_t end, int want)
{
	uint64_t nw = xio_missing_words(end);

	for (uint64_t w = from / 64; w < nw; w++) {
		uint64_t v = want ? m->bits[w] : ~m->bits[w];

		if (w == from / 64)
			v &= ~0ull << (from % 64);
		if (v) {
			uint64_t i = w * 64 + (uint64_t)__builtin_ctzll(v);

			return i < end ? i : end;
		}
	}
	return end;
}

int xio_missing_next_in(const struct xio_missing *m, uint64_t from, uint64_t end,
			struct xio_range *r)
{
	uint64_t a;

	if (end > m->n)
		end = m->n;
	if (from >= end || m->got == m->n)
		return 0;
	a = find_bit(m, from, end, 0);
	if (a >= end)
		return 0;
	r->a = a;
	r->b = find_bit(m, a, end, 1);
	return 1;
}

int xio_missing_next(const struct xio_missing *m, uint64_t from, struct xio_range *r)
{
	return xio_missing_next_in(m, from, m->n, r);
}

size_t xio_missing_ranges(const struct xio_missing *m, struct xio_range *out, size_t max)
{
	struct xio_range r;
	uint64_t from = 0;
	size_t k = 0;

	while (xio_missing_next(m, from, &r)) {
		if (k == max) {
			/* stretch the last range over everything still missing */
			uint64_t end = r.b;

			while (xio_missing_next(m, end, &r))
				end = r.b;
			out[k - 1].b = end;
			break;
		}
		out[k++] = r;
		from = r.b;
	}
	return k;
}
