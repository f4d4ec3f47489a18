/* SPDX-License-Identifier: BSD-3-Clause
 * xio_conn.c: the UDP socket to one server: "HOST[:PORT]" resolved (IPv4 or
 * IPv6), connect()ed so that the kernel delivers only the server's
 * datagrams, a large receive buffer, requests sent in batches with
 * sendmmsg, answers received in batches with recvmmsg, UDP_GRO on so that
 * one buffer may bring a whole train of datagrams (split by the segment
 * size its control message gives, xio_gro_count/xio_gro_segment).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xio_priv.h"

/* Splits "HOST[:PORT]", "[V6]:PORT" or a bare IPv6 address. */
static int split_server(const char *server, char *host, size_t hcap, char *port,
			struct xio_error *err)
{
	const char *h = server, *p = NULL, *colon;
	size_t hlen;

	if (server[0] == '[') {
		const char *close = strchr(server, ']');

		if (!close || (close[1] && close[1] != ':'))
			return xio_fail(err, XIO_EADDR, "server '%s': expected [IPV6]:PORT", server);
		h = server + 1;
		hlen = (size_t)(close - h);
		p = close[1] ? close + 2 : NULL;
	} else if ((colon = strchr(server, ':')) && !strchr(colon + 1, ':')) {
		hlen = (size_t)(colon - server);
		p = colon + 1;
	} else {
		hlen = strlen(server); /* a host, or an IPv6 address without a port */
	}
	if (hlen == 0 || hlen >= hcap)
		return xio_fail(err, XIO_EADDR, "server '%s': no host name", server);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (!*p || *end || v < 1 || v > 65535)
			return xio_fail(err, XIO_EADDR, "server '%s': port must be 1..65535", server);
		snprintf(port, 8, "%lu", v);
	} else {
		snprintf(port, 8, "%d", XIO_DEFAULT_PORT);
	}
	return 0;
}

static int open_socket(struct xio_conn *c, const char *server, struct xio_error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res, *ai;
	char host[256], port[8];
	int rc;

	rc = split_server(server, host, sizeof(host), port, err);
	if (rc < 0)
		return rc;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		return xio_fail(err, XIO_EADDR, "server '%s': %s", server, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (c->fd < 0)
			continue;
		if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(c->fd);
		c->fd = -1;
	}
	rc = errno;
	freeaddrinfo(res);
	if (c->fd < 0)
		return xio_fail(err, XIO_ESYS, "server '%s': cannot open a UDP socket to it: %s",
				server, strerror(rc));
	return 0;
}

/* SO_RCVBUFFORCE passes net.core.rmem_max when we may (CAP_NET_ADMIN). */
static void set_rcvbuf(struct xio_conn *c, uint32_t bytes)
{
	int v = bytes > (uint32_t)(INT32_MAX / 2) ? INT32_MAX / 2 : (int)bytes;
	socklen_t len = sizeof(v);

	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
		setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	if (getsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &v, &len) == 0)
		c->rcvbuf = (uint64_t)v;
}

/* Each receive buffer with its own control buffer, for UDP_GRO's segment
 * size; recvmmsg overwrites msg_controllen, so it is reset before each call. */
static void init_batches(struct xio_conn *c)
{
	for (int i = 0; i < XIO_RX_BATCH; i++) {
		c->riov[i].iov_base = c->rx + (size_t)i * XIO_RX_SLOT;
		c->riov[i].iov_len = XIO_RX_SLOT;
		c->rmsg[i].msg_hdr = (struct msghdr){ .msg_iov = &c->riov[i], .msg_iovlen = 1 };
		if (c->gro)
			c->rmsg[i].msg_hdr.msg_control = c->rx_ctl + (size_t)i * XIO_RX_CTL;
	}
	for (int i = 0; i < XIO_TX_BATCH; i++) {
		c->siov[i].iov_base = c->tx + (size_t)i * XIO_TX_SLOT;
		c->smsg[i].msg_hdr = (struct msghdr){ .msg_iov = &c->siov[i], .msg_iovlen = 1 };
	}
}

int xio_conn_open(struct xio_conn *c, const char *server, uint32_t rcvbuf, bool gro,
		  struct xio_error *err)
{
	int rc, one = 1;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	snprintf(c->name, sizeof(c->name), "%s", server);
	rc = open_socket(c, server, err);
	if (rc < 0)
		return rc;
	set_rcvbuf(c, rcvbuf);
	/* a kernel without UDP_GRO (before 5.0) delivers datagrams one by one */
	c->gro = gro && setsockopt(c->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0;
	c->rx = malloc((size_t)XIO_RX_BATCH * XIO_RX_SLOT);
	c->rx_ctl = malloc((size_t)XIO_RX_BATCH * XIO_RX_CTL);
	c->tx = malloc((size_t)XIO_TX_BATCH * XIO_TX_SLOT);
	if (!c->rx || !c->rx_ctl || !c->tx) {
		xio_conn_close(c);
		return xio_fail(err, XIO_ESYS, "out of memory for the socket's buffers");
	}
	init_batches(c);
	return 0;
}

void xio_conn_close(struct xio_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->rx);
	free(c->rx_ctl);
	free(c->tx);
	c->fd = -1;
	c->rx = c->rx_ctl = c->tx = NULL;
}

uint8_t *xio_conn_tx_buf(struct xio_conn *c, uint64_t *refused)
{
	if (c->ntx == XIO_TX_BATCH)
		xio_conn_flush(c, refused);
	return c->tx + (size_t)c->ntx * XIO_TX_SLOT;
}

void xio_conn_tx_commit(struct xio_conn *c, size_t len)
{
	c->siov[c->ntx++].iov_len = len;
}

void xio_conn_flush(struct xio_conn *c, uint64_t *refused)
{
	unsigned done = 0;

	while (done < c->ntx) {
		int n = sendmmsg(c->fd, c->smsg + done, c->ntx - done, 0);

		if (n > 0) {
			done += (unsigned)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* The message at done failed: it is lost, as on the wire. */
		if (n < 0 && errno == ECONNREFUSED)
			(*refused)++;
		else
			c->send_errno = n < 0 ? errno : EIO;
		done++;
	}
	c->ntx = 0;
}

int xio_conn_wait(struct xio_conn *c, int wake_fd, uint64_t deadline_ns, struct xio_error *err)
{
	struct pollfd pfd[2] = {
		{ .fd = c->fd, .events = POLLIN },
		{ .fd = wake_fd, .events = POLLIN },
	};

	for (;;) {
		uint64_t now = xio_now_ns();
		uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
		struct timespec ts = { .tv_sec = (time_t)(left / 1000000000u),
				       .tv_nsec = (long)(left % 1000000000u) };
		int n = ppoll(pfd, wake_fd >= 0 ? 2 : 1, &ts, NULL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return xio_fail(err, XIO_ESYS, "poll: %s", strerror(errno));
		if (wake_fd >= 0 && pfd[1].revents)
			return 2;
		return n > 0 ? 1 : 0;
	}
}

/* The segment size of a GRO buffer from its control message, 0 if none. */
static uint32_t gro_size(struct msghdr *m)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm))
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
			int v;

			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			return v > 0 ? (uint32_t)v : 0;
		}
	return 0;
}

int xio_conn_recv(struct xio_conn *c, struct xio_rx rx[XIO_RX_BATCH], uint64_t *refused,
		  struct xio_error *err)
{
	for (;;) {
		int n;

		if (c->gro)
			for (int i = 0; i < XIO_RX_BATCH; i++)
				c->rmsg[i].msg_hdr.msg_controllen = XIO_RX_CTL;
		n = recvmmsg(c->fd, c->rmsg, XIO_RX_BATCH, MSG_DONTWAIT, NULL);
		if (n >= 0) {
			for (int i = 0; i < n; i++) {
				struct msghdr *m = &c->rmsg[i].msg_hdr;

				rx[i].len = m->msg_flags & MSG_TRUNC ? 0 : c->rmsg[i].msg_len;
				rx[i].gso = c->gro ? gro_size(m) : 0;
			}
			if (n > 0) {
				c->recv_calls++;
				c->rx_buffers += (uint64_t)n;
			}
			return n;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno == ECONNREFUSED) {
			(*refused)++;
			continue;
		}
		if (errno != EINTR)
			return xio_fail(err, XIO_ESYS, "recvmmsg: %s", strerror(errno));
	}
}
