/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_train.h: the datagrams of one READ answer. Owns the chunking of a
 * range into datagrams (consecutive, in seq order, LAST on the last, at most
 * `per` units each) and building them straight from the file: one preadv
 * per batch reads the payloads into a buffer laid out header|payload|
 * header|payload..., so that equal-size slots can leave as one UDP GSO send
 * or one sendmmsg. The CRC32C of each payload (ISA-L) when asked. No
 * allocation after xio_srv_train_init().
 */
#ifndef XIO_SRV_TRAIN_H
#define XIO_SRV_TRAIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define XIO_SRV_TRAIN_SLOTS 1024            /* most datagrams per batch (IOV_MAX) */
#define XIO_SRV_TRAIN_BYTES (2u << 20)      /* batch buffer */

/* A READ answer to send. */
struct xio_srv_read {
	int fd;
	uint8_t opcode; /* XIO_OP_READ_REPLY, or XIO_OP_DATA_REPLY for a RAW read */
	uint8_t flags;  /* XIO_F_HAS_CRC or 0; LAST is added on the last datagram */
	uint8_t dtype;  /* XIO_DT_INT32, or 0 for DATA_REPLY */
	uint8_t width;  /* bytes per unit: 4 (tokens) or 1 (RAW bytes) */
	uint32_t stream_id;
	uint64_t first, end; /* the units [first, end) of the file, end > first */
	uint32_t per;        /* most units per datagram, >= 1 */
};

/* Datagrams of the answer: ceil((end - first) / per). */
static inline uint64_t xio_srv_read_datagrams(const struct xio_srv_read *r)
{
	return (r->end - r->first + r->per - 1) / r->per;
}

/* A batch of datagrams in the train buffer: datagram i (0..n) of the batch
 * is seq0 + i of the answer, at buf + i * slot, slot bytes long except the
 * batch's last, last_len bytes (shorter only for the answer's last). */
struct xio_srv_batch {
	uint8_t *buf;
	uint64_t seq0;
	unsigned n;
	size_t slot;
	size_t last_len;
	uint64_t file_bytes; /* payload bytes, all datagrams */
};

struct xio_srv_train {
	uint8_t *buf;
	size_t cap;
	struct iovec iov[XIO_SRV_TRAIN_SLOTS];
};

/* Allocates a batch buffer of cap bytes (XIO_SRV_TRAIN_BYTES holds any
 * datagram up to an MTU of 9000). */
int xio_srv_train_init(struct xio_srv_train *t, size_t cap);
void xio_srv_train_fini(struct xio_srv_train *t);

/* Builds datagrams seq0, seq0 + 1, ... of r, as many as the buffer holds,
 * into *b. Returns the number built, 0 when seq0 is past the last, or -1
 * when the file could not be read (errno; ENODATA: it ended early;
 * EMSGSIZE: one datagram is larger than the buffer). */
int xio_srv_train_fill(struct xio_srv_train *t, const struct xio_srv_read *r, uint64_t seq0,
		       struct xio_srv_batch *b);

/* The same, at most max datagrams (max >= 1). */
int xio_srv_train_fill_n(struct xio_srv_train *t, const struct xio_srv_read *r, uint64_t seq0,
			 unsigned max, struct xio_srv_batch *b);

#endif /* XIO_SRV_TRAIN_H */
