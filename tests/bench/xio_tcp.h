/* SPDX-License-Identifier: BSD-3-Clause
 * xio_tcp.h: the tests' own TCP baseline of the read protocol (make
 * bench-transport): what xio-tcp-server and xio-tcp-read share. A request
 * is one header and a path on a TCP connection:
 *
 *   magic "XTCP" (4) | path_len (2) | pad (2) | offset (8) | length (8) | path
 *
 * all little-endian; the answer is the file's size (8) and the count of
 * bytes that follow (8, the range cut at the end of the file; 0 and no data
 * for a path that cannot be read), then the bytes (sendfile). A connection
 * takes requests one after the other until the client closes it. Length 0
 * asks for the size alone.
 */
#ifndef XIO_TCP_H
#define XIO_TCP_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define XIO_TCP_MAGIC     0x50435458u /* "XTCP" read as little-endian */
#define XIO_TCP_PORT      7911
#define XIO_TCP_PATH_MAX  1024
#define XIO_TCP_REQ_LEN   24
#define XIO_TCP_ANS_LEN   16

struct xio_tcp_req {
	uint32_t magic;
	uint16_t path_len;
	uint16_t pad;
	uint64_t offset;
	uint64_t length;
} __attribute__((packed));

struct xio_tcp_ans {
	uint64_t size;
	uint64_t count;
} __attribute__((packed));

_Static_assert(sizeof(struct xio_tcp_req) == XIO_TCP_REQ_LEN, "request header");
_Static_assert(sizeof(struct xio_tcp_ans) == XIO_TCP_ANS_LEN, "answer header");

/* Moves all len bytes over the connection fd (recv or send as `out`, the
 * latter without SIGPIPE); 0, or -1 when it fails or ends first. */
static inline int xio_tcp_full(int fd, void *buf, size_t len, int out)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

#endif /* XIO_TCP_H */
