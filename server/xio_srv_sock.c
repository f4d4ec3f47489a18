/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_sock.c: a worker's UDP socket: receive batches, paced sends of
 * single answers and of READ trains by UDP GSO (xio_srv_sock.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xio_srv_allow.h"
#include "xio_srv_sock.h"

#define SOCK_BUF_BYTES (4 << 20)
#define RX_TIMEOUT_US  100000 /* how soon a worker sees the stop flag */

static int setopt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

/* Socket buffers past net.core.[rw]mem_max when allowed (root). */
static void set_buf(int fd, int force, int plain)
{
	if (setopt(fd, SOL_SOCKET, force, SOCK_BUF_BYTES) < 0)
		setopt(fd, SOL_SOCKET, plain, SOCK_BUF_BYTES);
}

/* The options of the family: the local address of each request, no IP
 * fragmentation (an answer datagram above the interface's MTU is a send
 * error, not fragments the pipeline would not narrow), and IP_RECVERR: without
 * it the kernel reports a datagram that the device or its queue dropped
 * (ENOBUFS) as sent, counting it only in /proc/net/snmp's Udp SndbufErrors;
 * with it the send fails and the worker retries or counts it. (ICMP errors
 * then come back on the socket's error queue: xio_srv_sock_recv drains it.) */
static int set_family_opts(int fd, int family)
{
	if (family == AF_INET6 &&
	    (setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0) < 0 ||
	     setopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1) < 0 ||
	     setopt(fd, IPPROTO_IPV6, IPV6_RECVERR, 1) < 0 ||
	     setopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE) < 0))
		return -1;
	/* On "::" these apply to the IPv4 clients. */
	if (setopt(fd, IPPROTO_IP, IP_PKTINFO, 1) < 0 ||
	    setopt(fd, IPPROTO_IP, IP_RECVERR, 1) < 0 ||
	    setopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_PROBE) < 0)
		return -1;
	return 0;
}

int xio_srv_sock_open(struct xio_srv_sock *s, unsigned id, const struct sockaddr *bind_addr,
		      socklen_t bind_len, bool reuseport, const char **what)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = RX_TIMEOUT_US };
	int seg = 0;
	socklen_t seglen = sizeof(seg);

	memset(s, 0, sizeof(*s));
	s->id = id;
	s->family = bind_addr->sa_family;
	*what = "socket";
	s->fd = socket(s->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return -1;
	*what = "socket options";
	if ((reuseport && setopt(s->fd, SOL_SOCKET, SO_REUSEPORT, 1) < 0) ||
	    set_family_opts(s->fd, s->family) < 0 ||
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		goto fail;
	set_buf(s->fd, SO_RCVBUFFORCE, SO_RCVBUF);
	set_buf(s->fd, SO_SNDBUFFORCE, SO_SNDBUF);
	s->gso = getsockopt(s->fd, SOL_UDP, UDP_SEGMENT, &seg, &seglen) == 0;
	*what = "bind";
	if (bind(s->fd, bind_addr, bind_len) < 0)
		goto fail;
	*what = "receive buffers";
	s->rx_buf = malloc((size_t)XIO_SRV_RX_BATCH * XIO_SRV_RX_BYTES);
	if (!s->rx_buf) {
		errno = ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < XIO_SRV_RX_BATCH; i++) {
		s->rx_iov[i].iov_base = s->rx_buf + (size_t)i * XIO_SRV_RX_BYTES;
		s->rx_iov[i].iov_len = XIO_SRV_RX_BYTES;
	}
	return 0;
fail:
	xio_srv_sock_close(s);
	return -1;
}

void xio_srv_sock_close(struct xio_srv_sock *s)
{
	int err = errno;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->rx_buf);
	s->rx_buf = NULL;
	errno = err;
}

/* An error that an ICMP message left on the socket (IP_RECVERR): the next
 * receive or send fails with it once, whatever its own destination. */
static bool icmp_errno(int err)
{
	return err == ECONNREFUSED || err == EHOSTUNREACH || err == ENETUNREACH ||
	       err == EHOSTDOWN || err == ENONET || err == EPROTO;
}

/* Empties the socket's error queue (the ICMP errors of IP_RECVERR, each one
 * held in the receive buffer until read). Returns how many it held. */
static unsigned drain_errors(struct xio_srv_sock *s)
{
	uint8_t buf[64], ctl[256];
	unsigned n = 0;

	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				    .msg_controllen = sizeof(ctl) };

		if (recvmsg(s->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return n;
		n++;
	}
}

int xio_srv_sock_recv(struct xio_srv_sock *s, struct xio_srv_counters *c)
{
	int n;

	for (unsigned i = 0; i < XIO_SRV_RX_BATCH; i++)
		s->rx[i].msg_hdr = (struct msghdr){
			.msg_name = &s->rx_name[i], .msg_namelen = sizeof(s->rx_name[i]),
			.msg_iov = &s->rx_iov[i], .msg_iovlen = 1,
			.msg_control = s->rx_ctl[i], .msg_controllen = XIO_SRV_CTL_BYTES,
		};
	n = recvmmsg(s->fd, s->rx, XIO_SRV_RX_BATCH, MSG_WAITFORONE, NULL);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (n < 0 && icmp_errno(errno)) {
		XIO_SRV_ADD(c->icmp_errors, drain_errors(s));
		return 0;
	}
	return n;
}

/* The address the request was sent to: IP_PKTINFO's for IPv4 clients (on
 * "::" as well), IPV6_PKTINFO's for IPv6 ones unless it was multicast. */
static void read_local(struct msghdr *m, struct xio_srv_dest *d)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
			memcpy(&d->local.v4, CMSG_DATA(cm), sizeof(d->local.v4));
			d->local.v4.ipi_ifindex = 0;
			d->local_kind = IP_PKTINFO;
			return;
		}
		if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO && !d->v4) {
			memcpy(&d->local.v6, CMSG_DATA(cm), sizeof(d->local.v6));
			/* a link-local source needs its interface; others route freely */
			if (!IN6_IS_ADDR_LINKLOCAL(&d->local.v6.ipi6_addr))
				d->local.v6.ipi6_ifindex = 0;
			if (!IN6_IS_ADDR_MULTICAST(&d->local.v6.ipi6_addr))
				d->local_kind = IPV6_PKTINFO;
		}
	}
}

const uint8_t *xio_srv_sock_rx(struct xio_srv_sock *s, unsigned i, size_t *len,
			       struct xio_srv_dest *d)
{
	struct msghdr *m = &s->rx[i].msg_hdr;
	uint8_t v4[4];

	*len = s->rx[i].msg_len;
	d->peer_len = m->msg_namelen;
	memcpy(&d->peer, &s->rx_name[i], sizeof(d->peer));
	d->v4 = xio_srv_peer_v4((const struct sockaddr *)&d->peer, v4);
	d->local_kind = 0;
	read_local(m, d);
	return s->rx_buf + (size_t)i * XIO_SRV_RX_BYTES;
}

/* Control messages of one send: UDP_SEGMENT when gso, the local address. */
static size_t put_ctl(uint8_t *ctl, const struct xio_srv_dest *d, uint16_t gso)
{
	size_t used = 0;
	struct cmsghdr *cm;

	memset(ctl, 0, XIO_SRV_CTL_BYTES);
	if (gso) {
		cm = (struct cmsghdr *)ctl;
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(gso));
		memcpy(CMSG_DATA(cm), &gso, sizeof(gso));
		used += CMSG_SPACE(sizeof(gso));
	}
	cm = (struct cmsghdr *)(ctl + used);
	if (d->local_kind == IP_PKTINFO) {
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(d->local.v4));
		memcpy(CMSG_DATA(cm), &d->local.v4, sizeof(d->local.v4));
		used += CMSG_SPACE(sizeof(d->local.v4));
	} else if (d->local_kind == IPV6_PKTINFO) {
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(d->local.v6));
		memcpy(CMSG_DATA(cm), &d->local.v6, sizeof(d->local.v6));
		used += CMSG_SPACE(sizeof(d->local.v6));
	}
	return used;
}

/* Message k: bytes at buf to d, dgrams datagrams of gso bytes (gso 0: one). */
static void put_msg(struct xio_srv_sock *s, unsigned k, uint8_t *buf, size_t len,
		    unsigned dgrams, uint16_t gso, const struct xio_srv_dest *d)
{
	size_t ctl = put_ctl(s->tx_ctl[k], d, gso);

	s->tx_iov[k] = (struct iovec){ .iov_base = buf, .iov_len = len };
	s->tx_dgrams[k] = dgrams;
	s->tx[k].msg_hdr = (struct msghdr){
		.msg_name = (void *)&d->peer, .msg_namelen = d->peer_len,
		.msg_iov = &s->tx_iov[k], .msg_iovlen = 1,
		.msg_control = ctl ? s->tx_ctl[k] : NULL, .msg_controllen = ctl,
	};
}

static void report(struct xio_srv_sock *s, const struct msghdr *m, int err, const char *what)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	const struct sockaddr *sa = m->msg_name;

	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, addr, sizeof(addr));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, addr,
			  sizeof(addr));
	fprintf(stderr, "xio-server: worker %u: send to %s: %s: %s\n", s->id, addr, strerror(err),
		what);
}

static const char *const send_advice[XIO_SRV_SEND_REASONS] = {
	[XIO_SRV_SEND_NOBUFS] = "the device or its queue kept dropping after retries (a full "
				"txqueue or veth ring: raise txqueuelen, or pace with --rate)",
	[XIO_SRV_SEND_TOO_BIG] = "is --mtu above the interface's MTU?",
	[XIO_SRV_SEND_UNREACHABLE] = "no route to the client, or it is gone",
	[XIO_SRV_SEND_OTHER] = "unexpected",
};

/* What a refused send is: a reason of send_errors_by_reason. */
static enum xio_srv_send_reason send_reason(int err)
{
	if (err == ENOBUFS || err == EAGAIN || err == EWOULDBLOCK || err == ENOMEM)
		return XIO_SRV_SEND_NOBUFS;
	if (err == EMSGSIZE)
		return XIO_SRV_SEND_TOO_BIG;
	if (icmp_errno(err) || err == ENETDOWN)
		return XIO_SRV_SEND_UNREACHABLE;
	return XIO_SRV_SEND_OTHER;
}

/* Waits before try `tries` (1, 2, ...) of a send the kernel refused for want
 * of buffers: until the socket is writable (EAGAIN), else a backoff of
 * XIO_SRV_SEND_BACKOFF_NS doubling per try, for the device's queue or ring to
 * drain. */
static void backoff(struct xio_srv_sock *s, int err, unsigned tries)
{
	uint64_t ns = (uint64_t)XIO_SRV_SEND_BACKOFF_NS << (tries - 1);
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };

	if (err == EAGAIN || err == EWOULDBLOCK) {
		struct pollfd p = { .fd = s->fd, .events = POLLOUT };

		poll(&p, 1, (int)(ns / 1000000u) + 1);
		return;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Sends messages [lo, hi). Returns hi, or the message at which the kernel
 * refused GSO (s->gso is then cleared: the caller resends from there). A
 * message the kernel refuses for want of buffers (ENOBUFS: the device or its
 * queue dropped it; EAGAIN) is tried again after a backoff, up to
 * XIO_SRV_SEND_TRIES times, each retry counted in send_retries; an ICMP error
 * pending on the socket (a previous datagram's, IP_RECVERR) is drained and
 * the message tried again once; what still fails is counted in send_errors
 * and send_errors_by_reason, its datagrams each. */
static unsigned flush(struct xio_srv_sock *s, unsigned lo, unsigned hi,
		      struct xio_srv_counters *c)
{
	unsigned tries = 0;
	bool drained = false;

	while (lo < hi) {
		int r = sendmmsg(s->fd, s->tx + lo, hi - lo, 0);
		int err = errno;
		enum xio_srv_send_reason why;

		if (r > 0) {
			tries = 0;
			drained = false;
		}
		for (int k = 0; k < r; k++, lo++) {
			XIO_SRV_ADD(c->datagrams, s->tx_dgrams[lo]);
			XIO_SRV_ADD(c->bytes, s->tx[lo].msg_len);
		}
		if (r >= 0 || err == EINTR)
			continue;
		if (s->tx_dgrams[lo] > 1 && (err == EIO || err == EINVAL)) {
			report(s, &s->tx[lo].msg_hdr, err,
			       "UDP GSO refused (IPsec on the route, no TX checksum offload on older "
			       "kernels): one datagram per message from now on");
			s->gso = false;
			return lo;
		}
		why = send_reason(err);
		if (icmp_errno(err) && !drained) {
			/* most likely another client's ICMP error, reported here */
			XIO_SRV_ADD(c->icmp_errors, drain_errors(s));
			drained = true; /* one more try, no backoff */
			continue;
		}
		if (why == XIO_SRV_SEND_NOBUFS && ++tries < XIO_SRV_SEND_TRIES) {
			XIO_SRV_ADD(c->send_retries, 1);
			backoff(s, err, tries);
			continue;
		}
		tries = 0;
		drained = false;
		XIO_SRV_ADD(c->send_errors, s->tx_dgrams[lo]);
		XIO_SRV_ADD(c->send_errors_by_reason[why], s->tx_dgrams[lo]);
		if (!(s->warned & (1u << why))) {
			char what[256];

			snprintf(what, sizeof(what), "%s (counted in send_errors; further ones only "
				 "counted)", send_advice[why]);
			report(s, &s->tx[lo].msg_hdr, err, what);
		}
		s->warned |= 1u << why;
		lo++;
	}
	return hi;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Sends messages [0, m), each when the bucket lets it. Returns m, or where
 * GSO was refused. */
static unsigned send_paced(struct xio_srv_sock *s, unsigned m, struct xio_srv_pace *pace,
			   struct xio_srv_counters *c)
{
	unsigned lo = 0;

	if (pace->ns_per_byte > 0) {
		for (unsigned k = 0; k < m; k++) {
			uint64_t wait = xio_srv_pace_take(pace, s->tx_iov[k].iov_len, xio_srv_now_ns());

			if (wait == 0)
				continue;
			lo = flush(s, lo, k, c);
			if (lo < k)
				return lo;
			sleep_ns(wait);
		}
	}
	return flush(s, lo, m, c);
}

void xio_srv_sock_send_replies(struct xio_srv_sock *s, uint8_t *const *bufs, const size_t *lens,
			       const struct xio_srv_dest *dests, unsigned n,
			       struct xio_srv_pace *pace, struct xio_srv_counters *c)
{
	for (unsigned k = 0; k < n; k++)
		put_msg(s, k, bufs[k], lens[k], 1, 0, &dests[k]);
	send_paced(s, n, pace, c);
}

/* Datagrams per GSO send of slot-byte datagrams. */
static unsigned gso_segs(size_t slot)
{
	size_t n = XIO_SRV_GSO_BYTES / slot;

	return n > XIO_SRV_GSO_SEGS ? XIO_SRV_GSO_SEGS : (unsigned)n;
}

/* Messages for datagrams [from, b->n) of the batch, g datagrams each (the
 * slots are contiguous: one iovec per message). Returns how many. */
static unsigned put_train(struct xio_srv_sock *s, const struct xio_srv_batch *b,
			  const struct xio_srv_dest *d, unsigned from, unsigned g, unsigned *first)
{
	unsigned m = 0;

	for (unsigned i = from; i < b->n; i += g, m++) {
		unsigned cnt = b->n - i < g ? b->n - i : g;
		size_t len = (cnt - 1) * b->slot + (i + cnt == b->n ? b->last_len : b->slot);

		first[m] = i;
		put_msg(s, m, b->buf + i * b->slot, len, cnt, cnt > 1 ? (uint16_t)b->slot : 0, d);
	}
	return m;
}

void xio_srv_sock_send_batch(struct xio_srv_sock *s, const struct xio_srv_batch *b,
			     const struct xio_srv_dest *d, struct xio_srv_pace *pace,
			     struct xio_srv_counters *c)
{
	unsigned first[XIO_SRV_TRAIN_SLOTS];
	unsigned from = 0;

	for (;;) {
		unsigned g = s->gso ? gso_segs(b->slot) : 1;
		unsigned m = put_train(s, b, d, from, g, first);
		unsigned done = send_paced(s, m, pace, c);

		if (done == m)
			return;
		from = first[done]; /* GSO refused: the rest one datagram a message */
	}
}
