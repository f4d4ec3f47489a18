/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_cookie.h: address validation (xio-read 1.2, docs/server.md). A
 * cookie is SipHash-2-4 with a 128-bit output (libsodium's
 * crypto_shorthash_siphashx24) over the client's IP address in its
 * canonical form: 16 bytes (IPv4 as ::ffff:a.b.c.d) and the scope of a
 * link-local IPv6 address (0 for any other), never the port. Its key is the
 * key of the rotation period: SipHash-2-4 (128-bit) of the period number
 * under the server's 128-bit secret, from getrandom() or from
 * --cookie-secret. Period numbers count --cookie-rotate seconds of
 * CLOCK_REALTIME, so servers sharing a secret agree; a cookie of the
 * current or the previous period is accepted (it lives one to two periods).
 *
 * The secret is read-only once made; each worker keeps the two period keys
 * in its own struct xio_srv_cookie_keys and moves them on from the clock it
 * already reads for each batch: no lock, no system call, no allocation on
 * the request path.
 */
#ifndef XIO_SRV_COOKIE_H
#define XIO_SRV_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "xio_msg.h"

#define XIO_SRV_COOKIE_KEY_LEN     16  /* the secret and each period key */
#define XIO_SRV_COOKIE_ROTATE_MAX  600 /* s: the spec's longest period */
#define XIO_SRV_COOKIE_ROTATE_DEF  120 /* s: the default period */
#define XIO_SRV_COOKIE_SECRET_MIN  16  /* bytes of a --cookie-secret file */
#define XIO_SRV_COOKIE_SECRET_MAX  4096

/* The server's secret and period, shared read-only by the workers. */
struct xio_srv_cookie {
	uint8_t secret[XIO_SRV_COOKIE_KEY_LEN];
	uint64_t period_ns;
	int64_t real_off_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC when made */
};

/* A worker's keys: those of period p and p - 1. */
struct xio_srv_cookie_keys {
	const struct xio_srv_cookie *c;
	uint64_t period; /* UINT64_MAX: none yet */
	uint8_t cur[XIO_SRV_COOKIE_KEY_LEN];
	uint8_t prev[XIO_SRV_COOKIE_KEY_LEN];
};

/* Makes the secret: from the file (its bytes, 16 to 4096 of them, hashed to
 * 128 bits with BLAKE2b; readable by its owner only) when secret_file is
 * not NULL, else from getrandom(). rotate_s: 1..600. Returns 0, or -1 with
 * a message for people in err. Never prints the secret. */
int xio_srv_cookie_init(struct xio_srv_cookie *c, const char *secret_file, unsigned rotate_s,
			char *err, size_t errlen);

/* The same from bytes in memory (tests and the fuzzer: a fixed secret). */
void xio_srv_cookie_init_secret(struct xio_srv_cookie *c, const uint8_t *secret, size_t len,
				unsigned rotate_s);

/* Wipes the secret. */
void xio_srv_cookie_fini(struct xio_srv_cookie *c);

/* Points k at c, no period yet. */
void xio_srv_cookie_keys_init(struct xio_srv_cookie_keys *k, const struct xio_srv_cookie *c);

/* Moves k to the period of mono_ns (CLOCK_MONOTONIC, as xio_srv_now_ns());
 * computes keys only when the period changed. */
void xio_srv_cookie_keys_at(struct xio_srv_cookie_keys *k, uint64_t mono_ns);

/* The cookie of peer (AF_INET or AF_INET6) under the current key. */
void xio_srv_cookie_make(const struct xio_srv_cookie_keys *k, const struct sockaddr *peer,
			 uint8_t out[XIO_COOKIE_LEN]);

/* Whether cookie is peer's under the current or the previous key (compared
 * in constant time). */
bool xio_srv_cookie_check(const struct xio_srv_cookie_keys *k, const struct sockaddr *peer,
			  const uint8_t cookie[XIO_COOKIE_LEN]);

#endif /* XIO_SRV_COOKIE_H */
