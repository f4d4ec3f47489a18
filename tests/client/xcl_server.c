/* SPDX-License-Identifier: BSD-3-Clause
 * xcl_server.c: a small, deliberately unreliable XIO read server for the
 * client's tests (tests/client/). It answers STAT and READ requests for the
 * files under --root as xio-read-v1.md says, then mistreats the answer
 * datagrams on purpose, each choice drawn from a seeded PRNG: drops some,
 * duplicates some, swaps neighbours, holds some back until the next
 * request (late answers), narrows some itself to UINT16 + NARROWED (as a
 * pipeline would, CRC recomputed) and leaves the rest INT32, corrupts
 * payloads under a CRC, and sends invalid datagrams among the good ones.
 * --silent-after N stops answering after N datagrams (a server that dies).
 * --pace-ms N sends answers as trains of --train datagrams N ms apart (a
 * paced server: GSO trains at a set rate), requests waiting meanwhile.
 * At SIGTERM it writes its counters as JSON to --stats.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xio_crc.h"
#include "xio_msg.h"

#define MAX_DGRAM 65536
#define HOLD_MAX  4096

struct opts {
	uint16_t port;
	bool v6;
	const char *root, *stats;
	unsigned drop, dup, reorder, late, narrow, corrupt, garbage; /* percent */
	uint32_t max_count;
	uint64_t seed;
	uint64_t silent_after; /* UINT64_MAX: never */
	unsigned pace_ms, train; /* 0: no pacing */
};

struct counters {
	uint64_t requests, stat_requests, error_replies, sent, dropped, duplicated, reordered,
		late, narrowed, int32, data, corrupted, garbage, send_errors;
};

struct held {
	uint8_t *buf;
	size_t len;
	struct sockaddr_storage to;
	socklen_t tolen;
};

struct server {
	struct opts o;
	int fd, root;
	uint64_t rng;
	struct counters c;
	struct held late[HOLD_MAX];
	unsigned nlate;
	struct held swap; /* a datagram waiting to go after the next one */
	bool have_swap;
	unsigned in_train; /* answer datagrams since the last pause */
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "xcl-server: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

/* splitmix64 */
static uint64_t rnd(struct server *s)
{
	uint64_t z = (s->rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static bool chance(struct server *s, unsigned pct)
{
	return pct && rnd(s) % 100 < pct;
}

static bool silent(struct server *s)
{
	return s->c.sent >= s->o.silent_after;
}

static void send_now(struct server *s, const uint8_t *b, size_t len,
		     const struct sockaddr_storage *to, socklen_t tolen)
{
	if (silent(s))
		return;
	if (sendto(s->fd, b, len, 0, (const struct sockaddr *)to, tolen) >= 0)
		s->c.sent++;
	else
		s->c.send_errors++;
}

static void hold(struct held *h, const uint8_t *b, size_t len,
		 const struct sockaddr_storage *to, socklen_t tolen)
{
	h->buf = malloc(len);
	if (!h->buf)
		die("%s", "out of memory");
	memcpy(h->buf, b, len);
	h->len = len;
	h->to = *to;
	h->tolen = tolen;
}

static void release(struct server *s, struct held *h)
{
	send_now(s, h->buf, h->len, &h->to, h->tolen);
	free(h->buf);
	h->buf = NULL;
}

/* Sends one datagram of an answer, with what the options do to it. */
static void emit(struct server *s, const uint8_t *b, size_t len,
		 const struct sockaddr_storage *to, socklen_t tolen)
{
	if (chance(s, s->o.drop)) {
		s->c.dropped++;
		return;
	}
	if (chance(s, s->o.late) && s->nlate < HOLD_MAX) {
		s->c.late++;
		hold(&s->late[s->nlate++], b, len, to, tolen);
		return;
	}
	if (!s->have_swap && chance(s, s->o.reorder)) {
		s->c.reordered++;
		hold(&s->swap, b, len, to, tolen);
		s->have_swap = true;
		return;
	}
	send_now(s, b, len, to, tolen);
	if (chance(s, s->o.dup)) {
		s->c.duplicated++;
		send_now(s, b, len, to, tolen);
	}
	if (s->have_swap) {
		release(s, &s->swap);
		s->have_swap = false;
	}
}

/* An invalid datagram for the client to throw away: every kind breaks a
 * different rule, none may ever be placed. */
static void emit_garbage(struct server *s, const struct xio_hdr *good, const uint8_t *dg,
			 size_t len, const struct sockaddr_storage *to, socklen_t tolen)
{
	uint8_t b[MAX_DGRAM];
	struct xio_hdr h = *good;
	size_t n = len;
	unsigned kind = (unsigned)(rnd(s) % 8);

	memcpy(b, dg, len);
	switch (kind) {
	case 0: /* not XIO at all */
		n = 1 + rnd(s) % 200;
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)rnd(s);
		b[0] = 0x00;
		break;
	case 1: h.flags |= 0x40; break;                        /* reserved flag bit */
	case 2: h.dtype = XIO_DT_UINT16; h.flags &= (uint8_t)~XIO_F_NARROWED; break; /* no NARROWED */
	case 3: h.token_count += 1; break;                     /* length mismatch */
	case 4: h.stream_id ^= 0x80000000u; break;             /* nobody's request */
	case 5: h.first_token += 1u << 30; break;              /* outside the range asked */
	case 6: h.flags |= XIO_F_HAS_CRC; h.payload_crc = ~xio_crc32c(b + h.hdr_len, len - h.hdr_len); break;
	default: n = 20; break;                                /* cut inside the header */
	}
	if (kind >= 1 && kind <= 6)
		xio_hdr_put(b, &h);
	s->c.garbage++;
	send_now(s, b, n, to, tolen);
}

static void error_reply(struct server *s, const struct xio_hdr *req, uint32_t code, const char *msg,
			const struct sockaddr_storage *to, socklen_t tolen)
{
	uint8_t b[512];
	size_t n = xio_error_build(b, sizeof(b), req->stream_id, req->first_token, code, msg);

	s->c.error_replies++;
	send_now(s, b, n, to, tolen);
}

/* Narrows an INT32 datagram in place as a pipeline would; false (and
 * unchanged) when a token is out of range (the pipeline's keep policy). */
static bool narrow_dgram(uint8_t *b, size_t *len, struct xio_hdr *h)
{
	uint8_t *p = b + h->hdr_len;

	for (uint32_t i = 0; i < h->token_count; i++)
		if (p[4 * i + 2] || p[4 * i + 3])
			return false;
	for (uint32_t i = 0; i < h->token_count; i++) {
		p[2 * i] = p[4 * i];
		p[2 * i + 1] = p[4 * i + 1];
	}
	h->dtype = XIO_DT_UINT16;
	h->flags |= XIO_F_NARROWED;
	if (h->flags & XIO_F_HAS_CRC)
		h->payload_crc = xio_crc32c(p, 2u * h->token_count);
	*len = h->hdr_len + 2u * h->token_count;
	xio_hdr_put(b, h);
	return true;
}

/* After every --train answer datagrams, --pace-ms of silence. */
static void pace(struct server *s)
{
	struct timespec ts = { .tv_sec = s->o.pace_ms / 1000,
			       .tv_nsec = (long)(s->o.pace_ms % 1000) * 1000000 };

	if (!s->o.pace_ms || ++s->in_train < s->o.train)
		return;
	s->in_train = 0;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop)
		;
}

static void answer_read(struct server *s, const struct xio_request *r, int fd, uint64_t size,
			const struct sockaddr_storage *to, socklen_t tolen)
{
	bool raw = r->options & XIO_OPT_RAW, crc = r->options & XIO_OPT_CRC;
	unsigned width = raw ? 1 : 4;
	uint64_t n = raw ? size : size / 4, at = r->hdr.first_token;
	uint64_t end = at + r->hdr.token_count < n ? at + r->hdr.token_count : n;
	uint32_t per = r->max_count && r->max_count < s->o.max_count ? r->max_count : s->o.max_count;
	uint8_t b[MAX_DGRAM];
	uint32_t seq = 0;

	if (!raw && size % 4)
		return error_reply(s, &r->hdr, XIO_E_NOT_TOKENS, "size is not a multiple of 4", to, tolen);
	if (at >= n)
		return error_reply(s, &r->hdr, XIO_E_RANGE, "first_token past the end", to, tolen);
	if (raw && per * 4u < MAX_DGRAM - 64)
		per *= 4; /* as many bytes as the tokens would take */
	while (at < end) {
		uint32_t k = end - at < per ? (uint32_t)(end - at) : per;
		struct xio_hdr h = {
			.opcode = raw ? XIO_OP_DATA_REPLY : XIO_OP_READ_REPLY,
			.flags = (uint8_t)((at + k == end ? XIO_F_LAST : 0) | (crc ? XIO_F_HAS_CRC : 0)),
			.dtype = raw ? 0 : XIO_DT_INT32, .hdr_len = XIO_HDR_LEN,
			.stream_id = r->hdr.stream_id, .seq = seq++, .first_token = at, .token_count = k,
		};
		uint8_t *p = b + XIO_HDR_LEN;
		size_t len = XIO_HDR_LEN + (size_t)k * width;

		if (pread(fd, p, (size_t)k * width, (off_t)(at * width)) != (ssize_t)(k * width))
			return error_reply(s, &r->hdr, XIO_E_IO, "short read", to, tolen);
		if (crc)
			h.payload_crc = xio_crc32c(p, (size_t)k * width);
		xio_hdr_put(b, &h);
		if (raw)
			s->c.data++;
		else if (chance(s, s->o.narrow) && narrow_dgram(b, &len, &h))
			s->c.narrowed++;
		else
			s->c.int32++;
		if (chance(s, s->o.garbage))
			emit_garbage(s, &h, b, len, to, tolen);
		if (crc && chance(s, s->o.corrupt)) {
			s->c.corrupted++;
			b[len - 1] ^= 0x5A; /* the CRC no longer matches */
		}
		emit(s, b, len, to, tolen);
		pace(s);
		at += k;
	}
}

static void serve(struct server *s, const uint8_t *b, size_t len,
		  const struct sockaddr_storage *from, socklen_t fromlen)
{
	struct xio_request r;
	const char *why = NULL;
	enum xio_req_verdict v = xio_request_parse(b, len, &r, &why);
	char path[XIO_PATH_MAX + 1];
	struct stat st;
	int fd;

	if (v == XIO_REQ_IGNORE)
		return;
	/* answers held back go out now: late, after the client asked again */
	for (unsigned i = 0; i < s->nlate; i++)
		release(s, &s->late[i]);
	s->nlate = 0;
	if (v == XIO_REQ_BAD)
		return error_reply(s, &r.hdr, XIO_E_BAD_REQUEST, why, from, fromlen);
	if (r.hdr.opcode == XIO_OP_STAT_REQUEST)
		s->c.stat_requests++;
	else
		s->c.requests++;
	memcpy(path, r.path, r.path_len);
	path[r.path_len] = '\0';
	if (xio_path_check(path, r.path_len) < 0)
		return error_reply(s, &r.hdr, XIO_E_ACCESS, "path refused", from, fromlen);
	fd = openat(s->root, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error_reply(s, &r.hdr, errno == ENOENT ? XIO_E_NOT_FOUND : XIO_E_ACCESS,
				   strerror(errno), from, fromlen);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return error_reply(s, &r.hdr, XIO_E_ACCESS, "not a regular file", from, fromlen);
	}
	if (r.hdr.opcode == XIO_OP_STAT_REQUEST) {
		uint8_t out[XIO_HDR_LEN + XIO_STAT_BODY_LEN];
		size_t n = xio_stat_reply_build(out, sizeof(out), r.hdr.stream_id, (uint64_t)st.st_size,
						(uint64_t)st.st_mtim.tv_sec * 1000000000u +
							(uint64_t)st.st_mtim.tv_nsec);

		send_now(s, out, n, from, fromlen);
	} else {
		answer_read(s, &r, fd, (uint64_t)st.st_size, from, fromlen);
	}
	close(fd);
}

static void write_stats(const struct server *s)
{
	FILE *f;

	if (!s->o.stats || !(f = fopen(s->o.stats, "w")))
		return;
	fprintf(f,
		"{\"requests\": %llu, \"stat_requests\": %llu, \"error_replies\": %llu, "
		"\"sent\": %llu, \"dropped\": %llu, \"duplicated\": %llu, \"reordered\": %llu, "
		"\"late\": %llu, \"narrowed\": %llu, \"int32\": %llu, \"data\": %llu, "
		"\"corrupted\": %llu, \"garbage\": %llu, \"send_errors\": %llu}\n",
		(unsigned long long)s->c.requests, (unsigned long long)s->c.stat_requests,
		(unsigned long long)s->c.error_replies, (unsigned long long)s->c.sent,
		(unsigned long long)s->c.dropped, (unsigned long long)s->c.duplicated,
		(unsigned long long)s->c.reordered, (unsigned long long)s->c.late,
		(unsigned long long)s->c.narrowed, (unsigned long long)s->c.int32,
		(unsigned long long)s->c.data, (unsigned long long)s->c.corrupted,
		(unsigned long long)s->c.garbage, (unsigned long long)s->c.send_errors);
	fclose(f);
}

static unsigned pct(const char *name, const char *v)
{
	char *end;
	unsigned long x = strtoul(v, &end, 10);

	if (!*v || *end || x > 100)
		die("a percentage 0..100 expected for %s", name);
	return (unsigned)x;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "port", 1, NULL, 'p' },   { "root", 1, NULL, 'r' },    { "v6", 0, NULL, '6' },
		{ "drop", 1, NULL, 'd' },   { "dup", 1, NULL, 'u' },     { "reorder", 1, NULL, 'o' },
		{ "late", 1, NULL, 'l' },   { "narrow", 1, NULL, 'n' },  { "corrupt", 1, NULL, 'c' },
		{ "garbage", 1, NULL, 'g' }, { "max-count", 1, NULL, 'm' }, { "seed", 1, NULL, 's' },
		{ "silent-after", 1, NULL, 'S' }, { "stats", 1, NULL, 'j' },
		{ "pace-ms", 1, NULL, 'P' }, { "train", 1, NULL, 't' }, { NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .max_count = 1024, .seed = 1, .silent_after = UINT64_MAX, .train = 16 };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o->port = (uint16_t)atoi(optarg); break;
		case 'r': o->root = optarg; break;
		case '6': o->v6 = true; break;
		case 'd': o->drop = pct("--drop", optarg); break;
		case 'u': o->dup = pct("--dup", optarg); break;
		case 'o': o->reorder = pct("--reorder", optarg); break;
		case 'l': o->late = pct("--late", optarg); break;
		case 'n': o->narrow = pct("--narrow", optarg); break;
		case 'c': o->corrupt = pct("--corrupt", optarg); break;
		case 'g': o->garbage = pct("--garbage", optarg); break;
		case 'm': o->max_count = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': o->seed = strtoull(optarg, NULL, 0); break;
		case 'S': o->silent_after = strtoull(optarg, NULL, 0); break;
		case 'j': o->stats = optarg; break;
		case 'P': o->pace_ms = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': o->train = (unsigned)strtoul(optarg, NULL, 0); break;
		default: die("%s", "usage: xcl-server --port P --root DIR [faults]");
		}
	}
	if (!o->port || !o->root || o->max_count < 1 || o->max_count > 16000 || o->train < 1 ||
	    o->pace_ms > 10000)
		die("%s", "--port, --root, --max-count 1..16000, --train >= 1 and --pace-ms "
			  "0..10000 are required to make sense");
}

static int open_socket(const struct opts *o)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(o->port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(o->port),
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(o->v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0), big = 8 << 20;

	if (fd < 0 || (o->v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6))
			     : bind(fd, (struct sockaddr *)&a4, sizeof(a4))) < 0)
		die("cannot bind the UDP port: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	return fd;
}

int main(int argc, char **argv)
{
	static uint8_t buf[MAX_DGRAM];
	struct server s = { 0 };

	parse(argc, argv, &s.o);
	s.rng = s.o.seed;
	s.fd = open_socket(&s.o);
	s.root = open(s.o.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s.root < 0)
		die("--root: %s", strerror(errno));
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	printf("listening\n");
	fflush(stdout);
	while (!stop) {
		struct pollfd p = { .fd = s.fd, .events = POLLIN };
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof(from);
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recvfrom(s.fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen);
		if (n > 0)
			serve(&s, buf, (size_t)n, &from, fromlen);
	}
	write_stats(&s);
	return 0;
}
