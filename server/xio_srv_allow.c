/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_allow.c: the allow list of xio-server (xio_srv_allow.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_srv_allow.h"

static const uint8_t v4mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* Clears the bits of addr past prefix. */
static void mask_bits(uint8_t *addr, unsigned nbytes, unsigned prefix)
{
	for (unsigned i = 0; i < nbytes; i++) {
		unsigned keep = prefix > 8 * i ? prefix - 8 * i : 0;

		if (keep < 8)
			addr[i] &= (uint8_t)(0xff00u >> keep);
	}
}

static bool bits_equal(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
	unsigned whole = prefix / 8, rest = prefix % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	return rest == 0 || ((a[whole] ^ b[whole]) & (uint8_t)(0xff00u >> rest)) == 0;
}

/* Adds a network, an IPv4-mapped IPv6 one as IPv4; drops duplicates. */
static int add_net(struct xio_srv_allow *a, int family, const uint8_t *addr, unsigned prefix)
{
	struct xio_srv_net n = { .family = (uint8_t)family, .prefix = (uint8_t)prefix };

	if (family == AF_INET6 && prefix >= 96 && memcmp(addr, v4mapped_prefix, 12) == 0) {
		n.family = AF_INET;
		n.prefix = (uint8_t)(prefix - 96);
		memcpy(n.addr, addr + 12, 4);
	} else {
		memcpy(n.addr, addr, family == AF_INET ? 4 : 16);
	}
	mask_bits(n.addr, n.family == AF_INET ? 4 : 16, n.prefix);
	for (unsigned i = 0; i < a->n; i++)
		if (memcmp(&a->net[i], &n, sizeof(n)) == 0)
			return 0;
	if (a->n == XIO_SRV_ALLOW_MAX)
		return -1;
	a->net[a->n++] = n;
	return 0;
}

/* One CIDR of tok[0..len). */
static int parse_cidr(struct xio_srv_allow *a, const char *tok, size_t len, char *err,
		      size_t errlen)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	uint8_t addr[16];
	unsigned long prefix;
	int family;

	if (len == 0 || len >= sizeof(buf)) {
		snprintf(err, errlen, "'%.*s' is not a CIDR", (int)len, tok);
		return -1;
	}
	memcpy(buf, tok, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, addr) == 1) {
		family = AF_INET;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		family = AF_INET6;
	} else {
		snprintf(err, errlen, "'%.*s' is not a CIDR: bad address '%s'", (int)len, tok, buf);
		return -1;
	}
	prefix = family == AF_INET ? 32 : 128;
	if (slash) {
		errno = 0;
		prefix = strtoul(slash + 1, &end, 10);
		if (slash[1] < '0' || slash[1] > '9' || *end || errno ||
		    prefix > (family == AF_INET ? 32u : 128u)) {
			snprintf(err, errlen, "'%.*s' is not a CIDR: prefix must be 0..%u", (int)len,
				 tok, family == AF_INET ? 32 : 128);
			return -1;
		}
	}
	if (add_net(a, family, addr, (unsigned)prefix) < 0) {
		snprintf(err, errlen, "more than %d networks", XIO_SRV_ALLOW_MAX);
		return -1;
	}
	return 0;
}

int xio_srv_allow_parse(struct xio_srv_allow *a, const char *spec, char *err, size_t errlen)
{
	const char *p = spec;

	memset(a, 0, sizeof(*a));
	if (strcmp(spec, "any") == 0) {
		a->any = true;
		return 0;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (parse_cidr(a, p, len, err, errlen) < 0)
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static unsigned mask_prefix(const uint8_t *mask, unsigned nbytes)
{
	unsigned n = 0;

	for (unsigned i = 0; i < nbytes; i++)
		n += (unsigned)__builtin_popcount(mask[i]);
	return n;
}

int xio_srv_allow_local(struct xio_srv_allow *a, char *err, size_t errlen)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 0 };
	static const uint8_t lo6[16] = { [15] = 1 };
	struct ifaddrs *ifs, *i;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	add_net(a, AF_INET, lo4, 8);
	add_net(a, AF_INET6, lo6, 128);
	if (getifaddrs(&ifs) < 0) {
		snprintf(err, errlen, "cannot list the host's addresses: %s", strerror(errno));
		return -1;
	}
	for (i = ifs; i && rc == 0; i = i->ifa_next) {
		if (!i->ifa_addr || !i->ifa_netmask)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *s = (const void *)i->ifa_addr;
			const struct sockaddr_in *m = (const void *)i->ifa_netmask;

			rc = add_net(a, AF_INET, (const uint8_t *)&s->sin_addr,
				     mask_prefix((const uint8_t *)&m->sin_addr, 4));
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *s = (const void *)i->ifa_addr;
			const struct sockaddr_in6 *m = (const void *)i->ifa_netmask;

			rc = add_net(a, AF_INET6, s->sin6_addr.s6_addr,
				     mask_prefix(m->sin6_addr.s6_addr, 16));
		}
	}
	freeifaddrs(ifs);
	if (rc < 0)
		snprintf(err, errlen, "the host has more than %d subnets: give --allow",
			 XIO_SRV_ALLOW_MAX);
	return rc;
}

bool xio_srv_peer_v4(const struct sockaddr *peer, uint8_t v4[4])
{
	if (peer->sa_family == AF_INET) {
		memcpy(v4, &((const struct sockaddr_in *)peer)->sin_addr, 4);
		return true;
	}
	if (peer->sa_family == AF_INET6) {
		const uint8_t *b = ((const struct sockaddr_in6 *)peer)->sin6_addr.s6_addr;

		if (memcmp(b, v4mapped_prefix, 12) == 0) {
			memcpy(v4, b + 12, 4);
			return true;
		}
	}
	return false;
}

bool xio_srv_allow_match(const struct xio_srv_allow *a, const struct sockaddr *peer)
{
	uint8_t v4[4];
	const uint8_t *addr;
	int family;

	if (a->any)
		return true;
	if (xio_srv_peer_v4(peer, v4)) {
		family = AF_INET;
		addr = v4;
	} else if (peer->sa_family == AF_INET6) {
		family = AF_INET6;
		addr = ((const struct sockaddr_in6 *)peer)->sin6_addr.s6_addr;
	} else {
		return false;
	}
	for (unsigned i = 0; i < a->n; i++)
		if (a->net[i].family == family && bits_equal(a->net[i].addr, addr, a->net[i].prefix))
			return true;
	return false;
}

void xio_srv_allow_format(const struct xio_srv_allow *a, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (a->any) {
		snprintf(buf, len, "any");
		return;
	}
	for (unsigned i = 0; i < a->n && used < len; i++) {
		char s[INET6_ADDRSTRLEN];

		inet_ntop(a->net[i].family, a->net[i].addr, s, sizeof(s));
		used += (size_t)snprintf(buf + used, len - used, "%s%s/%u", i ? "," : "", s,
					 a->net[i].prefix);
	}
}
