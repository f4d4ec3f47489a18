/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_sock.h: one worker's UDP socket on the XIO port: opening it
 * (SO_REUSEPORT for --threads, dual stack on "::", the local address of
 * each request so that its answer leaves from the address it was sent to,
 * no IP fragmentation), receiving a batch of requests with recvmmsg, and
 * sending answers: single datagrams with sendmmsg, READ trains as UDP GSO
 * sends (UDP_SEGMENT) of up to 64 datagrams each, several per sendmmsg, or
 * one datagram per message where the kernel refuses GSO. Sends are paced
 * by the shared token bucket and counted; a send the kernel refuses for want
 * of buffers is retried after a backoff, and what fails for good is counted
 * with its reason (IP_RECVERR, so that no refusal passes as sent); nothing
 * is allocated per datagram.
 */
#ifndef XIO_SRV_SOCK_H
#define XIO_SRV_SOCK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "xio_srv_pace.h"
#include "xio_srv_stats.h"
#include "xio_srv_train.h"

#define XIO_SRV_RX_BATCH   16      /* datagrams per recvmmsg */
#define XIO_SRV_RX_BYTES   65536   /* any UDP payload fits whole */
#define XIO_SRV_GSO_SEGS   64      /* UDP_MAX_SEGMENTS of older kernels */
#define XIO_SRV_GSO_BYTES  65507   /* most UDP payload bytes of one send */
#define XIO_SRV_CTL_BYTES  128     /* control room of one message */
#define XIO_SRV_SEND_TRIES 8       /* tries of a send refused for want of buffers */
#define XIO_SRV_SEND_BACKOFF_NS 20000u /* wait before the first retry; doubles */

/* Where an answer goes: the request's source, from the address the request
 * was sent to (when the socket told it). */
struct xio_srv_dest {
	struct sockaddr_storage peer;
	socklen_t peer_len;
	bool v4;        /* an IPv4 client (AF_INET, or IPv4-mapped on "::") */
	int local_kind; /* 0: none; IP_PKTINFO: local.v4; IPV6_PKTINFO: local.v6 */
	union {
		struct in_pktinfo v4;
		struct in6_pktinfo v6;
	} local;
};

struct xio_srv_sock {
	int fd;
	int family;
	bool gso; /* UDP GSO in use; cleared for good when the kernel refuses it */
	unsigned id; /* worker number, for messages */
	unsigned warned; /* bit per xio_srv_send_reason: reported on stderr */
	/* receive batch */
	struct mmsghdr rx[XIO_SRV_RX_BATCH];
	struct iovec rx_iov[XIO_SRV_RX_BATCH];
	struct sockaddr_storage rx_name[XIO_SRV_RX_BATCH];
	uint8_t rx_ctl[XIO_SRV_RX_BATCH][XIO_SRV_CTL_BYTES];
	uint8_t *rx_buf; /* XIO_SRV_RX_BATCH x XIO_SRV_RX_BYTES */
	/* send batch */
	struct mmsghdr tx[XIO_SRV_TRAIN_SLOTS];
	struct iovec tx_iov[XIO_SRV_TRAIN_SLOTS];
	uint8_t tx_ctl[XIO_SRV_TRAIN_SLOTS][XIO_SRV_CTL_BYTES];
	unsigned tx_dgrams[XIO_SRV_TRAIN_SLOTS]; /* datagrams per message */
};

/* Opens and binds a socket to bind (reuseport: SO_REUSEPORT, for several
 * workers on one port). Returns 0, or -1 with errno and *what naming the
 * step that failed. */
int xio_srv_sock_open(struct xio_srv_sock *s, unsigned id, const struct sockaddr *bind,
		      socklen_t bind_len, bool reuseport, const char **what);
void xio_srv_sock_close(struct xio_srv_sock *s);

/* Receives up to XIO_SRV_RX_BATCH datagrams, waiting at most the socket's
 * receive timeout for the first. Returns how many (0 on timeout, or when an
 * ICMP error was pending: the error queue is drained and counted in
 * c->icmp_errors), or -1 with errno. */
int xio_srv_sock_recv(struct xio_srv_sock *s, struct xio_srv_counters *c);

/* Datagram i of the last receive: its bytes, length and where its answer
 * goes. */
const uint8_t *xio_srv_sock_rx(struct xio_srv_sock *s, unsigned i, size_t *len,
			       struct xio_srv_dest *d);

/* Sends n single datagrams (bufs[i], lens[i] bytes, to dests[i]). */
void xio_srv_sock_send_replies(struct xio_srv_sock *s, uint8_t *const *bufs, const size_t *lens,
			       const struct xio_srv_dest *dests, unsigned n,
			       struct xio_srv_pace *pace, struct xio_srv_counters *c);

/* Sends a batch of a READ answer to d. */
void xio_srv_sock_send_batch(struct xio_srv_sock *s, const struct xio_srv_batch *b,
			     const struct xio_srv_dest *d, struct xio_srv_pace *pace,
			     struct xio_srv_counters *c);

#endif /* XIO_SRV_SOCK_H */
