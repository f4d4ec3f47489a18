/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_train.c: chunking a READ answer and building its datagrams from
 * the file (xio_srv_train.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

int xio_srv_train_fill_n(struct xio_srv_train *t, const struct xio_srv_read *r, uint64_t seq0,
			 unsigned max, struct xio_srv_batch *b)
{
	uint64_t total = xio_srv_read_datagrams(r);
	size_t slot = XIO_HDR_LEN + (size_t)r->per * r->width;
	uint64_t first = r->first + seq0 * r->per;
	uint64_t room = t->cap / slot;
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
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = first + (uint64_t)i * r->per;
		uint64_t count = r->end - at < r->per ? r->end - at : r->per;

		t->iov[i].iov_base = t->buf + i * slot + XIO_HDR_LEN;
		t->iov[i].iov_len = (size_t)count * r->width;
		b->file_bytes += count * r->width;
	}
	b->last_len = XIO_HDR_LEN + t->iov[n - 1].iov_len;
	if (read_full(r->fd, t->iov, n, first * r->width) < 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *d = t->buf + i * slot;
		uint32_t count = (uint32_t)((i + 1 < n ? slot : b->last_len) - XIO_HDR_LEN) / r->width;
		struct xio_hdr h = {
			.opcode = r->opcode,
			.flags = (uint8_t)(r->flags | (seq0 + i + 1 == total ? XIO_F_LAST : 0)),
			.dtype = r->dtype,
			.hdr_len = XIO_HDR_LEN,
			.stream_id = r->stream_id,
			.seq = (uint32_t)(seq0 + i),
			.first_token = first + (uint64_t)i * r->per,
			.token_count = count,
		};

		if (r->flags & XIO_F_HAS_CRC)
			h.payload_crc = xio_crc32c(d + XIO_HDR_LEN, (size_t)count * r->width);
		xio_hdr_put(d, &h);
	}
	return (int)n;
}
