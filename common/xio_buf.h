/* SPDX-License-Identifier: BSD-3-Clause
 * xio_buf.h: a growable text buffer. Appends never truncate: a failed
 * allocation marks the buffer failed, later appends do nothing, and whoever
 * writes the buffer out checks xio_buf_failed() (ENOMEM).
 */
#ifndef XIO_BUF_H
#define XIO_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct xio_buf {
	char *p;     /* NUL-terminated once anything was appended */
	size_t len;
	size_t cap;
	bool failed; /* an allocation failed: the text is incomplete */
};

#define XIO_BUF_INIT { NULL, 0, 0, false }

void xio_buf_free(struct xio_buf *b);

/* Empties the buffer, keeping its memory. */
void xio_buf_reset(struct xio_buf *b);

void xio_buf_put(struct xio_buf *b, const char *s, size_t n);
void xio_buf_puts(struct xio_buf *b, const char *s);
void xio_buf_printf(struct xio_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The text ("" when empty). */
const char *xio_buf_str(const struct xio_buf *b);

static inline bool xio_buf_failed(const struct xio_buf *b)
{
	return b->failed;
}

#endif /* XIO_BUF_H */
