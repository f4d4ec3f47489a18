/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_cookie.c: address cookies (xio_srv_cookie.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xio_srv_cookie.h"

#define ADDR_LEN 20 /* canonical address: 16 bytes, scope (4) */

_Static_assert(crypto_shorthash_siphashx24_BYTES == XIO_COOKIE_LEN, "cookie size");
_Static_assert(crypto_shorthash_siphashx24_KEYBYTES == XIO_SRV_COOKIE_KEY_LEN, "key size");

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void set_period(struct xio_srv_cookie *c, unsigned rotate_s)
{
	c->period_ns = (uint64_t)rotate_s * 1000000000ull;
}

void xio_srv_cookie_init_secret(struct xio_srv_cookie *c, const uint8_t *secret, size_t len,
				unsigned rotate_s)
{
	memset(c, 0, sizeof(*c));
	if (sodium_init() < 0)
		abort();
	crypto_generichash(c->secret, sizeof(c->secret), secret, len, NULL, 0);
	set_period(c, rotate_s);
}

/* The bytes of a --cookie-secret file into buf (cap bytes): its length, or
 * -1 with err filled. */
static ssize_t read_secret(const char *path, uint8_t *buf, size_t cap, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	ssize_t n, got = 0;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", path);
		goto fail;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen, "'%s' is open to other users (mode %03o): chmod 600 it", path,
			 (unsigned)(st.st_mode & 0777));
		goto fail;
	}
	while ((n = read(fd, buf + got, cap - (size_t)got)) > 0)
		got += n;
	if (n < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	close(fd);
	return got;
fail:
	close(fd);
	return -1;
}

int xio_srv_cookie_init(struct xio_srv_cookie *c, const char *secret_file, unsigned rotate_s,
			char *err, size_t errlen)
{
	uint8_t buf[XIO_SRV_COOKIE_SECRET_MAX + 1];
	ssize_t n;

	if (rotate_s < 1 || rotate_s > XIO_SRV_COOKIE_ROTATE_MAX) {
		snprintf(err, errlen, "rotation period %u s out of range 1..%u", rotate_s,
			 XIO_SRV_COOKIE_ROTATE_MAX);
		return -1;
	}
	if (secret_file) {
		n = read_secret(secret_file, buf, sizeof(buf), err, errlen);
		if (n < 0)
			return -1;
		if (n < XIO_SRV_COOKIE_SECRET_MIN || n > XIO_SRV_COOKIE_SECRET_MAX) {
			sodium_memzero(buf, sizeof(buf));
			snprintf(err, errlen, "'%s' holds %zd bytes: a secret is %u to %u bytes "
				 "(e.g. head -c 32 /dev/urandom > FILE)", secret_file, n,
				 XIO_SRV_COOKIE_SECRET_MIN, XIO_SRV_COOKIE_SECRET_MAX);
			return -1;
		}
	} else {
		n = getrandom(buf, XIO_SRV_COOKIE_KEY_LEN, 0);
		if (n != XIO_SRV_COOKIE_KEY_LEN) {
			snprintf(err, errlen, "getrandom: %s", strerror(errno));
			return -1;
		}
	}
	xio_srv_cookie_init_secret(c, buf, (size_t)n, rotate_s);
	sodium_memzero(buf, sizeof(buf));
	c->real_off_ns = (int64_t)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC));
	return 0;
}

void xio_srv_cookie_fini(struct xio_srv_cookie *c)
{
	sodium_memzero(c->secret, sizeof(c->secret));
}

void xio_srv_cookie_keys_init(struct xio_srv_cookie_keys *k, const struct xio_srv_cookie *c)
{
	memset(k, 0, sizeof(*k));
	k->c = c;
	k->period = UINT64_MAX;
}

/* The key of period p: SipHash-2-4 (128) of "xio-cookie-key" and p. */
static void period_key(const struct xio_srv_cookie *c, uint64_t p, uint8_t key[XIO_SRV_COOKIE_KEY_LEN])
{
	uint8_t in[24] = "xio-cookie-key";

	xio_put_be64(in + 16, p);
	crypto_shorthash_siphashx24(key, in, sizeof(in), c->secret);
}

void xio_srv_cookie_keys_at(struct xio_srv_cookie_keys *k, uint64_t mono_ns)
{
	uint64_t p = (mono_ns + (uint64_t)k->c->real_off_ns) / k->c->period_ns;

	if (p == k->period)
		return;
	if (k->period != UINT64_MAX && p == k->period + 1)
		memcpy(k->prev, k->cur, sizeof(k->cur));
	else
		period_key(k->c, p - 1, k->prev);
	period_key(k->c, p, k->cur);
	k->period = p;
}

/* peer's address in canonical form: IPv4 as ::ffff:a.b.c.d, then the scope
 * of a link-local IPv6 address (0 otherwise), big-endian. */
static void canonical(const struct sockaddr *peer, uint8_t a[ADDR_LEN])
{
	memset(a, 0, ADDR_LEN);
	if (peer->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)peer;

		a[10] = a[11] = 0xFF;
		memcpy(a + 12, &s4->sin_addr, 4);
	} else if (peer->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)peer;

		memcpy(a, &s6->sin6_addr, 16);
		if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr))
			xio_put_be32(a + 16, s6->sin6_scope_id);
	}
}

void xio_srv_cookie_make(const struct xio_srv_cookie_keys *k, const struct sockaddr *peer,
			 uint8_t out[XIO_COOKIE_LEN])
{
	uint8_t a[ADDR_LEN];

	canonical(peer, a);
	crypto_shorthash_siphashx24(out, a, sizeof(a), k->cur);
}

bool xio_srv_cookie_check(const struct xio_srv_cookie_keys *k, const struct sockaddr *peer,
			  const uint8_t cookie[XIO_COOKIE_LEN])
{
	uint8_t a[ADDR_LEN], cur[XIO_COOKIE_LEN], prev[XIO_COOKIE_LEN];
	int miss_cur, miss_prev; /* sodium_memcmp: 0 or -1 */

	canonical(peer, a);
	crypto_shorthash_siphashx24(cur, a, sizeof(a), k->cur);
	crypto_shorthash_siphashx24(prev, a, sizeof(a), k->prev);
	/* both compared, each in constant time */
	miss_cur = sodium_memcmp(cur, cookie, XIO_COOKIE_LEN);
	miss_prev = sodium_memcmp(prev, cookie, XIO_COOKIE_LEN);
	return (miss_cur & miss_prev) == 0;
}
