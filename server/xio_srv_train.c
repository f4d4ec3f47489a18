/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_train.c: chunking a READ answer and building its datagrams from
 * the file (xio_srv_train.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xio_crc.h"
#include "xio_msg.h"
#include "xio_srv_train.h"

int xio_srv_train_init(struct xio_srv_train *t, size_t cap)
{
	memset(t, 0, sizeof(*t));
	t->buf = malloc(cap);
	if (!t->buf)
		return -1;
	t->cap = cap;
	return 0;
}

void xio_srv_train_fini(struct xio_srv_train *t)
{
	free(t->buf);
	t->buf = NULL;
}

/* Reads every byte the iovecs ask for at off: a short read is continued, an
 * end of file before the last byte is ENODATA. */
static int read_full(int fd, struct iovec *iov, unsigned n, uint64_t off)
{
	while (n > 0) {
		ssize_t got = preadv(fd, iov, (int)n, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0) {
			errno = ENODATA;
			return -1;
		}
		off += (uint64_t)got;
		while (n > 0 && (size_t)got >= iov->iov_len) {
			got -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + got;
			iov->iov_len -= (size_t)got;
		}
	}
	return 0;
}

int xio_srv_train_fill(struct xio_srv_train *t, const struct xio_srv_read *r, uint64_t seq0,
		       struct xio_srv_batch *b)
{
	return xio_srv_train_fill_n(t, r, seq0, XIO_SRV_TRAIN_SLOTS, b);
}

/* The headers of datagrams 0..n of b, header i at hdr + i * stride; the
 * CRC32C of each payload (at hdr + i * stride + XIO_HDR_LEN) when asked. */
static void put_headers(const struct xio_srv_read *r, const struct xio_srv_batch *b,
			uint64_t total, uint8_t *hdr, size_t stride)
{
	uint64_t first = r->first + b->seq0 * r->per;

	for (unsigned i = 0; i < b->n; i++) {
		uint8_t *d = hdr + i * stride;
		uint32_t count = (uint32_t)((i + 1 < b->n ? b->slot : b->last_len) - XIO_HDR_LEN) /
				 r->width;
		struct xio_hdr h = {
			.opcode = r->opcode,
			.flags = (uint8_t)(r->flags | (b->seq0 + i + 1 == total ? XIO_F_LAST : 0)),
			.dtype = r->dtype,
			.hdr_len = XIO_HDR_LEN,
			.stream_id = r->stream_id,
			.seq = (uint32_t)(b->seq0 + i),
			.first_token = first + (uint64_t)i * r->per,
			.token_count = count,
		};

		if (r->flags & XIO_F_HAS_CRC)
			h.payload_crc = xio_crc32c(d + XIO_HDR_LEN, (size_t)count * r->width);
		xio_hdr_put(d, &h);
	}
}

int xio_srv_train_fill_n(struct xio_srv_train *t, const struct xio_srv_read *r, uint64_t seq0,
			 unsigned max, struct xio_srv_batch *b)
{
	uint64_t total = xio_srv_read_datagrams(r);
	size_t slot = XIO_HDR_LEN + (size_t)r->per * r->width;
	uint64_t first = r->first + seq0 * r->per;
	bool mapped = r->map && !(r->flags & XIO_F_HAS_CRC) && r->end * r->width <= r->map_len;
	uint64_t room = t->cap / (mapped ? XIO_HDR_LEN : slot);
	unsigned n;

	if (seq0 >= total)
		return 0;
	if (room == 0) {
		errno = EMSGSIZE; /* a datagram larger than the buffer */
		return -1;
	}
	if (room > XIO_SRV_TRAIN_SLOTS)
		room = XIO_SRV_TRAIN_SLOTS;
	if (room > max)
		room = max;
	n = (unsigned)(total - seq0 < room ? total - seq0 : room);
	*b = (struct xio_srv_batch){ .buf = t->buf, .seq0 = seq0, .n = n, .slot = slot };
	b->file_bytes = ((first + (uint64_t)n * r->per < r->end ? first + (uint64_t)n * r->per
								 : r->end) - first) * r->width;
	b->last_len = XIO_HDR_LEN + (size_t)(b->file_bytes - (uint64_t)(n - 1) * (slot - XIO_HDR_LEN));
	if (mapped) {
		struct stat st;

		/* past a shrunk file's new end, the page that holds it reads as
		 * zeros that the file never held: the turn goes out only while
		 * the file still covers it (else ERROR_REPLY io, as a short
		 * preadv) */
		if (fstat(r->fd, &st) < 0)
			return -1;
		if ((uint64_t)st.st_size < first * r->width + b->file_bytes) {
			errno = ENODATA;
			return -1;
		}
		b->payload = r->map + first * r->width;
		put_headers(r, b, total, t->buf, XIO_HDR_LEN);
		return (int)n;
	}
	for (unsigned i = 0; i < n; i++) {
		t->iov[i].iov_base = t->buf + i * slot + XIO_HDR_LEN;
		t->iov[i].iov_len = i + 1 < n ? slot - XIO_HDR_LEN : b->last_len - XIO_HDR_LEN;
	}
	if (read_full(r->fd, t->iov, n, first * r->width) < 0)
		return -1;
	put_headers(r, b, total, t->buf, slot);
	return (int)n;
}
