/* SPDX-License-Identifier: BSD-3-Clause
 * xio_buf.c: the growable text buffer (xio_buf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_buf.h"

void xio_buf_free(struct xio_buf *b)
{
	free(b->p);
	*b = (struct xio_buf)XIO_BUF_INIT;
}

void xio_buf_reset(struct xio_buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->p)
		b->p[0] = '\0';
}

/* Room for n more bytes and the NUL; false once failed. */
static bool xio_buf_room(struct xio_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->failed)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void xio_buf_put(struct xio_buf *b, const char *s, size_t n)
{
	if (!xio_buf_room(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void xio_buf_puts(struct xio_buf *b, const char *s)
{
	xio_buf_put(b, s, strlen(s));
}

void xio_buf_printf(struct xio_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if (b->p && b->len + (size_t)n < b->cap) {
		b->len += (size_t)n;
		return;
	}
	if (!xio_buf_room(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *xio_buf_str(const struct xio_buf *b)
{
	return b->p ? b->p : "";
}
