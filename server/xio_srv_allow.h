/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_allow.h: the networks xio-server answers (--allow). A list of
 * IPv4 and IPv6 CIDRs, or "any"; by default loopback and the subnets of the
 * host's own addresses. An IPv4-mapped IPv6 client (::ffff:a.b.c.d, a
 * dual-stack socket's view of an IPv4 peer) is matched as the IPv4 address
 * it is, and an IPv6 entry inside ::ffff:0:0/96 as the IPv4 network it
 * names, so one list means the same on an IPv4 and on a dual-stack socket.
 */
#ifndef XIO_SRV_ALLOW_H
#define XIO_SRV_ALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define XIO_SRV_ALLOW_MAX 256 /* most networks in one list */

struct xio_srv_net {
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t prefix; /* 0..32 or 0..128 */
	uint8_t addr[16]; /* network address, host bits cleared (IPv4 in addr[0..3]) */
};

struct xio_srv_allow {
	bool any;
	unsigned n;
	struct xio_srv_net net[XIO_SRV_ALLOW_MAX];
};

/* Parses "any" or "CIDR[,CIDR...]" (a CIDR is ADDR/PREFIX, or ADDR alone for
 * one host; host bits past the prefix are ignored). Returns 0, or -1 with a
 * message naming the faulty element in err. */
int xio_srv_allow_parse(struct xio_srv_allow *a, const char *spec, char *err, size_t errlen);

/* The default list: 127.0.0.0/8, ::1/128 and the subnet of every address of
 * the host's interfaces (getifaddrs). Returns 0, or -1 with a message. */
int xio_srv_allow_local(struct xio_srv_allow *a, char *err, size_t errlen);

/* Whether the peer (AF_INET or AF_INET6) is in the list. */
bool xio_srv_allow_match(const struct xio_srv_allow *a, const struct sockaddr *peer);

/* The list as "CIDR,CIDR,..." (or "any"), cut to fit buf. */
void xio_srv_allow_format(const struct xio_srv_allow *a, char *buf, size_t len);

/* The IPv4 address of an AF_INET peer or of an IPv4-mapped AF_INET6 one, in
 * network order in *v4; false for any other peer. */
bool xio_srv_peer_v4(const struct sockaddr *peer, uint8_t v4[4]);

#endif /* XIO_SRV_ALLOW_H */
