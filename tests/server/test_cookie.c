/* SPDX-License-Identifier: BSD-3-Clause
 * test_cookie.c: address validation of xio-server (server/xio_srv_cookie.c
 * and its place in server/xio_srv_handle.c, xio-read 1.2): the cookie is
 * the same for one address within a period, alike for an IPv4 address and
 * its mapped IPv6 form, whatever the port; it differs between addresses
 * (link-local scopes included) and secrets; the previous period's cookie is
 * accepted, older ones refused; a --cookie-secret file gives the same
 * cookies in two servers and is refused when short or open to others; the
 * checks run in the spec's order (bad_request, cookie, then the file, which
 * a request without a valid cookie never opens); and every single answer,
 * to every prefix of every request, is at most three times its size.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xio_srv_cookie.h"
#include "xio_srv_files.h"
#include "xio_srv_handle.h"
#include "srv_tree.h"
#include "xio_unit.h"

#define P_S  30                       /* rotation period of the tests, s */
#define P_NS (P_S * 1000000000ull)
#define T0   (1000 * P_NS + 12345)    /* a time inside period 1000 */

static struct srv_tree tree;
static const uint8_t secret_a[] = "a fixed secret for the tests, 1";
static const uint8_t secret_b[] = "a fixed secret for the tests, 2";

static int setup(void)
{
	srv_tree_make(&tree, "cookie");
	return 0;
}

static int cleanup(void)
{
	return srv_tree_remove(&tree);
}

static struct sockaddr_storage v4(const char *a, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s = (struct sockaddr_in *)&ss;

	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, a, &s->sin_addr);
	return ss;
}

static struct sockaddr_storage v6(const char *a, uint16_t port, uint32_t scope)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	s->sin6_scope_id = scope;
	inet_pton(AF_INET6, a, &s->sin6_addr);
	return ss;
}

#define SA(ss) ((const struct sockaddr *)&(ss))

/* Keys of secret at time t. */
static void keys_at(struct xio_srv_cookie *c, struct xio_srv_cookie_keys *k,
		    const uint8_t *secret, size_t len, uint64_t t)
{
	xio_srv_cookie_init_secret(c, secret, len, P_S);
	xio_srv_cookie_keys_init(k, c);
	xio_srv_cookie_keys_at(k, t);
}

static void test_same_address(void)
{
	struct xio_srv_cookie c;
	struct xio_srv_cookie_keys k;
	struct sockaddr_storage a = v4("192.0.2.7", 40000), b = v4("192.0.2.7", 1),
				m = v6("::ffff:192.0.2.7", 5555, 0);
	uint8_t x[16], y[16], z[16], zero[16] = { 0 };

	keys_at(&c, &k, secret_a, sizeof(secret_a), T0);
	xio_srv_cookie_make(&k, SA(a), x);
	xio_srv_cookie_make(&k, SA(a), y);
	XIO_CHECK(memcmp(x, y, 16) == 0 && memcmp(x, zero, 16) != 0, "one address, two cookies");
	xio_srv_cookie_make(&k, SA(b), y);
	XIO_CHECK(memcmp(x, y, 16) == 0, "another port, another cookie");
	xio_srv_cookie_make(&k, SA(m), z);
	XIO_CHECK(memcmp(x, z, 16) == 0, "IPv4 and its mapped IPv6 form differ");
	XIO_CHECK(xio_srv_cookie_check(&k, SA(m), x) && xio_srv_cookie_check(&k, SA(b), z),
		  "IPv4 cookie refused from the mapped form, or the reverse");
	/* the whole period: same cookie to its last nanosecond, then another */
	xio_srv_cookie_keys_at(&k, 1000 * P_NS);
	xio_srv_cookie_make(&k, SA(a), y);
	XIO_CHECK(memcmp(x, y, 16) == 0, "start of the period");
	xio_srv_cookie_keys_at(&k, 1001 * P_NS - 1);
	xio_srv_cookie_make(&k, SA(a), y);
	XIO_CHECK(memcmp(x, y, 16) == 0, "end of the period");
	xio_srv_cookie_keys_at(&k, 1001 * P_NS);
	xio_srv_cookie_make(&k, SA(a), y);
	XIO_CHECK(memcmp(x, y, 16) != 0, "next period, same cookie");
}

static void test_different_addresses(void)
{
	struct xio_srv_cookie c;
	struct xio_srv_cookie_keys k;
	struct sockaddr_storage addrs[] = {
		v4("192.0.2.7", 1), v4("192.0.2.8", 1), v4("127.0.0.1", 1), v4("127.0.0.2", 1),
		v4("0.0.0.0", 1), v6("2001:db8::7", 1, 0), v6("::1", 1, 0),
		v6("::192.0.2.7", 1, 0), /* IPv4-compatible, not mapped */
		v6("fe80::1", 1, 1), v6("fe80::1", 1, 2), v6("fe80::2", 1, 1),
	};
	enum { N = sizeof(addrs) / sizeof(addrs[0]) };
	uint8_t ck[N][16];
	struct sockaddr_storage g0 = v6("2001:db8::1", 1, 0), g3 = v6("2001:db8::1", 9, 3);
	uint8_t x[16], y[16];

	keys_at(&c, &k, secret_a, sizeof(secret_a), T0);
	for (unsigned i = 0; i < N; i++)
		xio_srv_cookie_make(&k, SA(addrs[i]), ck[i]);
	for (unsigned i = 0; i < N; i++) {
		for (unsigned j = 0; j < N; j++) {
			XIO_CHECK((memcmp(ck[i], ck[j], 16) == 0) == (i == j),
				  "addresses %u and %u: cookies %s", i, j, i == j ? "differ" : "equal");
			XIO_CHECK(xio_srv_cookie_check(&k, SA(addrs[j]), ck[i]) == (i == j),
				  "cookie of address %u %s from address %u", i,
				  i == j ? "refused" : "accepted", j);
		}
	}
	/* the scope counts for link-local addresses only */
	xio_srv_cookie_make(&k, SA(g0), x);
	xio_srv_cookie_make(&k, SA(g3), y);
	XIO_CHECK(memcmp(x, y, 16) == 0, "a global address's scope changed its cookie");
	/* another secret: other cookies, none accepted */
	keys_at(&c, &k, secret_b, sizeof(secret_b), T0);
	xio_srv_cookie_make(&k, SA(addrs[0]), x);
	XIO_CHECK(memcmp(x, ck[0], 16) != 0 && !xio_srv_cookie_check(&k, SA(addrs[0]), ck[0]),
		  "another secret accepts the cookie");
}

static void test_rotation(void)
{
	struct xio_srv_cookie c;
	struct xio_srv_cookie_keys k, fresh;
	struct sockaddr_storage a = v6("2001:db8::42", 1, 0);
	uint8_t x[16], y[16];

	keys_at(&c, &k, secret_a, sizeof(secret_a), T0);
	xio_srv_cookie_make(&k, SA(a), x);
	XIO_CHECK(xio_srv_cookie_check(&k, SA(a), x), "current period refused");
	xio_srv_cookie_keys_at(&k, T0 + P_NS);
	XIO_CHECK(xio_srv_cookie_check(&k, SA(a), x), "previous period refused");
	xio_srv_cookie_make(&k, SA(a), y);
	XIO_CHECK(memcmp(x, y, 16) != 0 && xio_srv_cookie_check(&k, SA(a), y), "new period's cookie");
	xio_srv_cookie_keys_at(&k, T0 + 2 * P_NS);
	XIO_CHECK(!xio_srv_cookie_check(&k, SA(a), x), "cookie two periods old accepted");
	XIO_CHECK(xio_srv_cookie_check(&k, SA(a), y), "previous period refused after two steps");
	xio_srv_cookie_keys_at(&k, T0 + 3 * P_NS);
	XIO_CHECK(!xio_srv_cookie_check(&k, SA(a), y), "cookie two periods old accepted");
	/* a worker idle for many periods computes both keys again */
	xio_srv_cookie_keys_init(&fresh, &c);
	xio_srv_cookie_keys_at(&fresh, T0 + 9 * P_NS);
	xio_srv_cookie_make(&fresh, SA(a), x);
	xio_srv_cookie_keys_at(&k, T0 + 10 * P_NS);
	XIO_CHECK(xio_srv_cookie_check(&k, SA(a), x), "after a jump: previous period refused");
	xio_srv_cookie_keys_at(&k, T0 + 11 * P_NS);
	XIO_CHECK(!xio_srv_cookie_check(&k, SA(a), x), "after a jump: old cookie accepted");
	/* a zero cookie is never accepted */
	memset(x, 0, 16);
	XIO_CHECK(!xio_srv_cookie_check(&k, SA(a), x), "zero cookie accepted");
}

/* Writes a secret file of len bytes with mode; returns its path. */
static const char *secret_file(const char *name, const uint8_t *bytes, size_t len, mode_t mode)
{
	static char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tree.top, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, bytes, len) != (ssize_t)len || fchmod(fd, mode) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(2);
	}
	close(fd);
	return path;
}

static void test_secret_file(void)
{
	struct xio_srv_cookie c1, c2, cm;
	struct xio_srv_cookie_keys k1, k2;
	struct sockaddr_storage a = v4("198.51.100.1", 7);
	char err[256];
	uint8_t x[16];
	const char *path = secret_file("secret", secret_a, sizeof(secret_a), 0600);

	/* two servers on one file: the same cookies (periods from CLOCK_REALTIME) */
	XIO_CHECK(xio_srv_cookie_init(&c1, path, P_S, err, sizeof(err)) == 0, "%s", err);
	XIO_CHECK(xio_srv_cookie_init(&c2, path, P_S, err, sizeof(err)) == 0, "%s", err);
	xio_srv_cookie_keys_init(&k1, &c1);
	xio_srv_cookie_keys_init(&k2, &c2);
	xio_srv_cookie_keys_at(&k1, T0);
	xio_srv_cookie_keys_at(&k2, T0);
	xio_srv_cookie_make(&k1, SA(a), x);
	XIO_CHECK(xio_srv_cookie_check(&k2, SA(a), x), "a second server on the file refuses");
	/* the file's bytes are the secret of xio_srv_cookie_init_secret() */
	xio_srv_cookie_init_secret(&cm, secret_a, sizeof(secret_a), P_S);
	XIO_CHECK(memcmp(cm.secret, c1.secret, sizeof(cm.secret)) == 0, "file and memory differ");
	/* random secrets: two servers differ */
	XIO_CHECK(xio_srv_cookie_init(&c1, NULL, P_S, err, sizeof(err)) == 0, "%s", err);
	XIO_CHECK(xio_srv_cookie_init(&c2, NULL, P_S, err, sizeof(err)) == 0, "%s", err);
	XIO_CHECK(memcmp(c1.secret, c2.secret, sizeof(c1.secret)) != 0, "two random secrets equal");
	xio_srv_cookie_keys_init(&k1, &c1);
	xio_srv_cookie_keys_at(&k1, T0);
	XIO_CHECK(!xio_srv_cookie_check(&k1, SA(a), x), "a random secret accepts the file's cookie");
	/* refused: open to others, too short, too long, missing, not a file, period */
	path = secret_file("open", secret_a, sizeof(secret_a), 0640);
	XIO_CHECK(xio_srv_cookie_init(&c1, path, P_S, err, sizeof(err)) < 0 &&
		  strstr(err, "chmod 600"), "mode 640 accepted: %s", err);
	path = secret_file("short", secret_a, 15, 0600);
	XIO_CHECK(xio_srv_cookie_init(&c1, path, P_S, err, sizeof(err)) < 0 &&
		  strstr(err, "15 bytes"), "15 bytes accepted: %s", err);
	path = secret_file("sixteen", secret_a, 16, 0400);
	XIO_CHECK(xio_srv_cookie_init(&c1, path, P_S, err, sizeof(err)) == 0, "16 bytes: %s", err);
	{
		static uint8_t big[XIO_SRV_COOKIE_SECRET_MAX + 1];

		path = secret_file("long", big, sizeof(big), 0600);
		XIO_CHECK(xio_srv_cookie_init(&c1, path, P_S, err, sizeof(err)) < 0 &&
			  strstr(err, "4097 bytes"), "4097 bytes accepted: %s", err);
	}
	XIO_CHECK(xio_srv_cookie_init(&c1, "/nonexistent/secret", P_S, err, sizeof(err)) < 0 &&
		  strstr(err, "cannot open"), "missing file: %s", err);
	XIO_CHECK(xio_srv_cookie_init(&c1, tree.top, P_S, err, sizeof(err)) < 0 &&
		  strstr(err, "not a regular file"), "a directory: %s", err);
	XIO_CHECK(xio_srv_cookie_init(&c1, NULL, 0, err, sizeof(err)) < 0 &&
		  xio_srv_cookie_init(&c1, NULL, 601, err, sizeof(err)) < 0, "period 0 or 601");
	xio_srv_cookie_fini(&c1);
	XIO_CHECK(memcmp(c1.secret, (uint8_t[16]){ 0 }, 16) == 0, "secret not wiped");
}

/* One request through the handler with validation (keys) from peer. */
struct call {
	struct xio_srv_files files;
	struct xio_srv_answer a;
	uint8_t out[XIO_SRV_REPLY_MAX];
	uint8_t dg[2048];
	size_t len;
};

static void handle(struct call *c, const struct xio_srv_cookie_keys *k,
		   const struct sockaddr_storage *peer)
{
	xio_srv_handle(&c->files, k, SA(*peer), 1440, c->dg, c->len, c->out, &c->a);
}

static void req(struct call *c, uint8_t op, uint64_t first, uint32_t count, uint8_t options,
		const char *path, const uint8_t *cookie)
{
	c->len = xio_request_build(c->dg, sizeof(c->dg), op, 0x600D, first, count, 0, options, path,
				   strlen(path));
	if (cookie)
		c->len = xio_request_add_cookie(c->dg, c->len, sizeof(c->dg), cookie);
}

static bool is_error(const struct call *c, uint32_t code)
{
	struct xio_hdr h;
	uint32_t got, mlen;
	const char *msg;

	return c->a.kind == XIO_SRV_REPLY && c->a.error == code &&
	       xio_hdr_parse(c->out, c->a.len, &h) == 0 && h.opcode == XIO_OP_ERROR_REPLY &&
	       h.stream_id == 0x600D && xio_error_parse(c->out, c->a.len, &h, &got, &msg, &mlen) == 0 &&
	       got == code && mlen > 0;
}

static void test_order(void)
{
	struct xio_srv_cookie c;
	struct xio_srv_cookie_keys k;
	struct sockaddr_storage a = v4("127.0.0.1", 4000), b = v4("127.0.0.2", 4000);
	struct call q;
	struct xio_hdr h;
	uint8_t ck[16], other[16];

	memset(&q, 0, sizeof(q));
	xio_srv_files_init(&q.files, tree.rootfd, 4);
	keys_at(&c, &k, secret_a, sizeof(secret_a), T0);
	xio_srv_cookie_make(&k, SA(a), ck);
	xio_srv_cookie_make(&k, SA(b), other);
	/* STAT: the 32-byte body with the requester's cookie, counted as issued */
	req(&q, XIO_OP_STAT_REQUEST, 0, 0, 0, "tokens.bin", NULL);
	handle(&q, &k, &a);
	XIO_CHECK(q.a.kind == XIO_SRV_REPLY && q.a.error == 0 && q.a.cookie && q.a.len == 64 &&
		  xio_hdr_parse(q.out, q.a.len, &h) == 0 && h.opcode == XIO_OP_STAT_REPLY &&
		  xio_be64(q.out + 32) == 4000 && memcmp(q.out + 48, ck, 16) == 0,
		  "STAT_REPLY with cookie: kind %d error %u len %zu", q.a.kind, q.a.error, q.a.len);
	/* COOKIE on a STAT_REQUEST is ignored, whatever follows */
	req(&q, XIO_OP_STAT_REQUEST, 0, 0, 0, "tokens.bin", other);
	handle(&q, &k, &a);
	XIO_CHECK(q.a.kind == XIO_SRV_REPLY && q.a.error == 0 && memcmp(q.out + 48, ck, 16) == 0,
		  "STAT with COOKIE");
	/* validation off: the 1.0 body, and a READ with COOKIE is accepted */
	req(&q, XIO_OP_STAT_REQUEST, 0, 0, 0, "tokens.bin", NULL);
	handle(&q, NULL, &a);
	XIO_CHECK(q.a.kind == XIO_SRV_REPLY && !q.a.cookie && q.a.len == 48, "1.0 STAT_REPLY");
	req(&q, XIO_OP_READ_REQUEST, 0, 10, 0, "tokens.bin", other);
	handle(&q, NULL, &a);
	XIO_CHECK(q.a.kind == XIO_SRV_READ, "READ with COOKIE refused without validation");

	/* a READ without a valid cookie never reaches the files */
	xio_srv_files_fini(&q.files);
	xio_srv_files_init(&q.files, tree.rootfd, 4);
	static const char *const paths[] = { "tokens.bin", "missing.bin", "../outside.bin",
					     "link-out", "fifo", "odd.bin" };
	for (unsigned i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		for (unsigned opt = 0; opt < 4; opt++) { /* RAW and CRC alike */
			req(&q, XIO_OP_READ_REQUEST, 0, 10, (uint8_t)opt, paths[i], NULL);
			handle(&q, &k, &a);
			XIO_CHECK(is_error(&q, XIO_E_COOKIE), "%s options %u without cookie: kind %d "
				  "error %u", paths[i], opt, q.a.kind, q.a.error);
			req(&q, XIO_OP_READ_REQUEST, 0, 10, (uint8_t)opt, paths[i], other);
			handle(&q, &k, &a);
			XIO_CHECK(is_error(&q, XIO_E_COOKIE), "%s with another address's cookie: "
				  "error %u", paths[i], q.a.error);
			req(&q, XIO_OP_READ_REQUEST, 0, 10, (uint8_t)opt, paths[i], ck);
			handle(&q, &k, &b);
			XIO_CHECK(is_error(&q, XIO_E_COOKIE), "%s: a's cookie from b: error %u",
				  paths[i], q.a.error);
		}
	}
	XIO_CHECK(q.files.opens == 0 && q.files.hits == 0,
		  "files touched without a cookie: %llu opens %llu hits",
		  (unsigned long long)q.files.opens, (unsigned long long)q.files.hits);
	/* bad_request comes before the cookie */
	req(&q, XIO_OP_READ_REQUEST, 0, 0, 0, "tokens.bin", NULL);
	handle(&q, &k, &a);
	XIO_CHECK(is_error(&q, XIO_E_BAD_REQUEST), "token_count 0 without cookie: %u", q.a.error);
	req(&q, XIO_OP_READ_REQUEST, 0, 10, 0x08, "tokens.bin", NULL);
	handle(&q, &k, &a);
	XIO_CHECK(is_error(&q, XIO_E_BAD_REQUEST), "option 0x08 without cookie: %u", q.a.error);
	req(&q, XIO_OP_READ_REQUEST, 0, 10, 0, "tokens.bin", ck);
	handle(&q, &k, &a);
	q.len -= 1;
	handle(&q, &k, &a);
	XIO_CHECK(is_error(&q, XIO_E_BAD_REQUEST), "a cookie one byte short: %u", q.a.error);
	/* with the cookie: the path and the file, as without validation */
	req(&q, XIO_OP_READ_REQUEST, 0, 10, 0, "tokens.bin", ck);
	handle(&q, &k, &a);
	XIO_CHECK(q.a.kind == XIO_SRV_READ && q.a.read.first == 0 && q.a.read.end == 10,
		  "READ with its cookie: kind %d error %u", q.a.kind, q.a.error);
	req(&q, XIO_OP_READ_REQUEST, 0, 10, XIO_OPT_RAW | XIO_OPT_CRC, "odd.bin", ck);
	handle(&q, &k, &a);
	XIO_CHECK(q.a.kind == XIO_SRV_READ && q.a.read.opcode == XIO_OP_DATA_REPLY,
		  "RAW READ with its cookie: kind %d error %u", q.a.kind, q.a.error);
	req(&q, XIO_OP_READ_REQUEST, 0, 10, 0, "missing.bin", ck);
	handle(&q, &k, &a);
	XIO_CHECK(is_error(&q, XIO_E_NOT_FOUND), "missing with cookie: %u", q.a.error);
	req(&q, XIO_OP_READ_REQUEST, 0, 10, 0, "../outside.bin", ck);
	handle(&q, &k, &a);
	XIO_CHECK(is_error(&q, XIO_E_ACCESS), "outside with cookie: %u", q.a.error);
	req(&q, XIO_OP_READ_REQUEST, 1000, 10, 0, "tokens.bin", ck);
	handle(&q, &k, &a);
	XIO_CHECK(is_error(&q, XIO_E_RANGE), "range with cookie: %u", q.a.error);
	/* the previous period's cookie still reads, the one before does not */
	xio_srv_cookie_keys_at(&k, T0 + P_NS);
	req(&q, XIO_OP_READ_REQUEST, 0, 10, 0, "tokens.bin", ck);
	handle(&q, &k, &a);
	XIO_CHECK(q.a.kind == XIO_SRV_READ, "previous period's cookie refused");
	xio_srv_cookie_keys_at(&k, T0 + 2 * P_NS);
	handle(&q, &k, &a);
	XIO_CHECK(is_error(&q, XIO_E_COOKIE), "expired cookie: %u", q.a.error);
	xio_srv_files_fini(&q.files);
}

/* Every prefix of every request: any single answer is at most three times
 * the datagram's bytes (validation on and off). */
static void test_size_rule(void)
{
	struct xio_srv_cookie c;
	struct xio_srv_cookie_keys k;
	struct sockaddr_storage a = v6("::1", 4000, 0);
	struct call q, whole;
	uint8_t ck[16];
	char longpath[XIO_PATH_MAX + 1];
	unsigned answered[XIO_E_COOKIE + 2] = { 0 };
	struct { uint8_t op, options; uint64_t first; uint32_t count; const char *path; bool cookie; }
	reqs[] = {
		{ XIO_OP_STAT_REQUEST, 0, 0, 0, "tokens.bin", false },
		{ XIO_OP_STAT_REQUEST, 0, 0, 0, "m", false },
		{ XIO_OP_STAT_REQUEST, 0, 0, 0, "fifo", false },
		{ XIO_OP_STAT_REQUEST, 0, 0, 0, "../x", false },
		{ XIO_OP_STAT_REQUEST, 0, 0, 0, longpath, false },
		{ XIO_OP_READ_REQUEST, 0, 0, 1, "t", false },
		{ XIO_OP_READ_REQUEST, 0, 0, 1, "tokens.bin", true },
		{ XIO_OP_READ_REQUEST, XIO_OPT_RAW, 0, 1, "odd.bin", false },
		{ XIO_OP_READ_REQUEST, 0, 0, 1, "odd.bin", true },
		{ XIO_OP_READ_REQUEST, 0, 5000, 1, "tokens.bin", true },
		{ XIO_OP_READ_REQUEST, 0, 0, 1, "m", true },
		{ XIO_OP_READ_REQUEST, 0, 0, 1, "link-out", true },
		{ XIO_OP_READ_REQUEST, 0x80, 0, 1, "x", false },
		{ XIO_OP_READ_REQUEST, 0, 0, 0, "x", false },
		{ XIO_OP_READ_REQUEST, 0, 0, 1, longpath, true },
	};

	memset(longpath, 'p', XIO_PATH_MAX);
	longpath[XIO_PATH_MAX] = '\0';
	memset(&q, 0, sizeof(q));
	memset(&whole, 0, sizeof(whole));
	xio_srv_files_init(&q.files, tree.rootfd, 4);
	xio_srv_files_init(&whole.files, tree.rootfd, 4);
	keys_at(&c, &k, secret_a, sizeof(secret_a), T0);
	xio_srv_cookie_make(&k, SA(a), ck);
	for (unsigned i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		req(&whole, reqs[i].op, reqs[i].first, reqs[i].count, reqs[i].options, reqs[i].path,
		    reqs[i].cookie ? ck : NULL);
		for (int on = 0; on < 2; on++) {
			for (size_t len = 0; len <= whole.len; len++) {
				memcpy(q.dg, whole.dg, len);
				q.len = len;
				handle(&q, on ? &k : NULL, &a);
				if (q.a.kind != XIO_SRV_REPLY)
					continue;
				answered[q.a.error < XIO_E_COOKIE + 1 ? q.a.error : XIO_E_COOKIE + 1]++;
				XIO_CHECK(q.a.len <= 3 * len && q.a.len >= 40 && q.a.len % 4 == 0,
					  "request %u, %zu of %zu bytes, cookies %s: %zu-byte answer "
					  "(error %s)", i, len, whole.len, on ? "on" : "off", q.a.len,
					  xio_err_name(q.a.error));
			}
		}
	}
	/* every code a single answer can carry was seen (io only ends a train) */
	for (uint32_t code = 0; code <= XIO_E_COOKIE; code++)
		XIO_CHECK(code == XIO_E_IO || answered[code] > 0, "no answer with error %s (%u)",
			  code ? xio_err_name(code) : "none (STAT_REPLY)", code);
	XIO_CHECK(answered[XIO_E_COOKIE + 1] == 0, "unknown error code answered");
	xio_srv_files_fini(&q.files);
	xio_srv_files_fini(&whole.files);
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_same_address), XIO_UNIT_TEST(test_different_addresses),
	XIO_UNIT_TEST(test_rotation),     XIO_UNIT_TEST(test_secret_file),
	XIO_UNIT_TEST(test_order),        XIO_UNIT_TEST(test_size_rule),
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "cookie", tests, setup, cleanup);
}
