/* SPDX-License-Identifier: BSD-3-Clause
 * xio_cookie.c: the address cookies of xio-read 1.2 (xio_priv.h): one per
 * pair of server address and local address, shared by the flows that
 * leave from that local address, taken from STAT_REPLY and added to every
 * READ_REQUEST.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "xio_priv.h"

/* Whether two socket addresses are the same address, whatever the port. */
static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0 &&
		       ((const struct sockaddr_in6 *)a)->sin6_scope_id ==
			       ((const struct sockaddr_in6 *)b)->sin6_scope_id;
	return true;
}

int xio_cookies_init(struct xio_engine *e, struct xio_error *err)
{
	e->cookies = calloc(e->nflows ? e->nflows : 1, sizeof(*e->cookies));
	if (!e->cookies)
		return xio_fail(err, XIO_ESYS, "out of memory for %u cookies", e->nflows);
	for (uint32_t i = 0; i < e->nflows; i++) {
		struct xio_flow *f = &e->flows[i];
		struct sockaddr_storage local = { 0 };
		socklen_t len = sizeof(local);
		uint32_t k;

		/* a connected socket: the kernel has chosen its local address */
		if (getsockname(f->conn.fd, (struct sockaddr *)&local, &len) < 0)
			local.ss_family = AF_UNSPEC;
		for (k = 0; k < e->ncookies; k++)
			if (e->cookies[k].server == f->server && same_address(&e->cookies[k].local, &local))
				break;
		if (k == e->ncookies) {
			e->cookies[k].server = f->server;
			e->cookies[k].local = local;
			pthread_mutex_init(&e->cookies[k].lock, NULL);
			e->ncookies++;
		}
		f->cookie = &e->cookies[k];
	}
	return 0;
}

void xio_cookies_fini(struct xio_engine *e)
{
	for (uint32_t k = 0; k < e->ncookies; k++)
		pthread_mutex_destroy(&e->cookies[k].lock);
	free(e->cookies);
	e->cookies = NULL;
	e->ncookies = 0;
}

void xio_cookie_take(struct xio_cookie *c, const uint8_t *b, uint32_t len,
		     const struct xio_hdr *h)
{
	const uint8_t *ck = xio_stat_reply_cookie(b, len, h);

	pthread_mutex_lock(&c->lock);
	c->have = ck != NULL;
	if (ck)
		memcpy(c->v, ck, XIO_COOKIE_LEN);
	__atomic_store_n(&c->gen, c->gen + 1, __ATOMIC_RELEASE); /* written under lock only */
	pthread_mutex_unlock(&c->lock);
}

size_t xio_cookie_add(struct xio_cookie *c, struct xio_req *r, uint8_t *buf, size_t len)
{
	pthread_mutex_lock(&c->lock);
	r->cookie_gen = c->gen;
	r->cookie = c->have && len;
	if (r->cookie)
		len = xio_request_add_cookie(buf, len, XIO_TX_SLOT, c->v);
	pthread_mutex_unlock(&c->lock);
	return len;
}

uint32_t xio_cookie_gen(struct xio_cookie *c)
{
	return __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE); /* per datagram: no lock */
}

void xio_cookie_drop(struct xio_cookie *c)
{
	pthread_mutex_lock(&c->lock);
	c->have = false;
	pthread_mutex_unlock(&c->lock);
}
