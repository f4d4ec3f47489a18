/* SPDX-License-Identifier: BSD-3-Clause
 * test_client_proto.c: libxio against a scripted server on loopback (a
 * thread of this test, UDP ports 22950-22959), where each test decides
 * exactly which datagrams answer which request. Checks placement by
 * first_token with overlapping and duplicated datagrams of both forms, the
 * re-request of exactly the missing range, late answers from an earlier
 * read, every invalid datagram counted under its reason, out-of-range
 * tokens (error naming them, or clamped), ERROR_REPLY, a file shorter than
 * the range, a dead server and a closed port, STAT, RAW reads, the stream
 * (sharded, batches, zero-copy, closed while it waits), address cookies
 * (xio-read 1.2: sent on every READ once a STAT_REPLY gave one, shared
 * by the flows of one local address, a new cookie after ERROR_REPLY
 * cookie, three fresh ones refused: an error, a server back at 1.0). Counters are checked exactly.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xio_crc.h"
#include "xio_msg.h"
#include "xio_priv.h"
#include "xio_unit.h"

#define PORT       22950
#define DEAD_PORT  22951 /* bound, never answers */
#define SHUT_PORT  22952 /* nobody listens */
#define NTOK       3000
#define DGRAM_TOK  250
#define MTIME_NS   1234567890123456789ull

enum mode {
	M_NORMAL,    /* every request answered in datagrams of 250 INT32 tokens */
	M_LOSSY,     /* chunk 0: overlapping and duplicated datagrams, its tail lost */
	M_ERROR,     /* every READ gets ERROR_REPLY not_found */
	M_STAT_ONLY, /* STAT answered, READ never */
	M_LATE,      /* each read's first datagram sent again during the next read */
	M_INVALID,   /* invalid datagrams among the good ones */
	M_GSO,       /* a 1000-token answer as one UDP GSO train and a datagram */
	M_FLOWS,     /* requests held until 3 source ports asked; the first port's
			first window dropped, its requests after that held until the
			other ports have had the rest of the read */
	M_GAP,       /* the answer to [0, 1000) without its datagrams [250, 500) */
	M_TAIL,      /* the answer to [0, 1000) without its datagram [750, 875) */
	M_COOKIE,    /* 1.2: STAT gives the cookie, READ only with it; a new one every
			2 READs served (a rotation the client learns by refusal) */
	M_COOKIE_NEVER, /* STAT gives a cookie (a new one each time), READ always refused */
	M_COOKIE_OLD, /* the first STAT gives a cookie; then back at 1.0: 16-byte STAT
			 bodies, bad_request for option COOKIE */
};

struct peer {
	struct sockaddr_storage a;
	socklen_t len;
};

struct script {
	int fd;
	pthread_t th;
	int stop; /* atomic */
	enum mode mode;
	uint64_t file_tokens; /* what the server says the file holds */
	pthread_mutex_t lock;
	struct xio_range seen[64]; /* READ requests in arrival order */
	unsigned nseen;
	uint8_t held[4096];        /* M_LATE: a datagram kept for later */
	size_t held_len;
	/* M_FLOWS: the source ports seen, requests held until there are 3 */
	uint16_t ports[8];
	unsigned nports;
	struct { struct xio_request r; struct peer p; } gather[16];
	unsigned ngather;
	bool released;
	/* M_FLOWS: the first port's READs dropped (its first window) and their
	 * tokens, its requests held after them, the tokens answered to the
	 * other ports, and the read's tokens (set by the test) */
	unsigned lost;
	uint64_t lost_tokens, others, flows_total;
	struct { struct xio_request r; struct peer p; } late[8];
	unsigned nlate, late_answered;
	/* M_COOKIE*: the cookie is 16 bytes of value `cookie` */
	unsigned stats, cookie, served, refused, with_cookie;
};

static int32_t tok[NTOK];
static uint8_t raw_file[5001];

static void fill_tokens(void)
{
	for (int i = 0; i < NTOK; i++)
		tok[i] = (int32_t)((i * 40503u + 7) & 0xFFFF);
	for (size_t i = 0; i < sizeof(raw_file); i++)
		raw_file[i] = (uint8_t)(i * 31 + 1);
}

static int bound_socket(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("test_client_proto: bind");
		exit(2);
	}
	return fd;
}


static void send_to(struct script *s, const struct peer *p, const uint8_t *b, size_t n)
{
	sendto(s->fd, b, n, 0, (const struct sockaddr *)&p->a, p->len);
}

/* A READ_REPLY (or DATA_REPLY for RAW) of units [a, b) in the given form,
 * into buf; returns its length. */
static size_t build_reply(const struct xio_request *r, uint64_t a, uint64_t b, bool narrowed,
			  uint64_t end, uint8_t *buf)
{
	bool raw = r->options & XIO_OPT_RAW;
	struct xio_hdr h = {
		.opcode = raw ? XIO_OP_DATA_REPLY : XIO_OP_READ_REPLY,
		.flags = (uint8_t)((b == end ? XIO_F_LAST : 0) |
				   (r->options & XIO_OPT_CRC ? XIO_F_HAS_CRC : 0) |
				   (narrowed ? XIO_F_NARROWED : 0)),
		.dtype = raw ? 0 : narrowed ? XIO_DT_UINT16 : XIO_DT_INT32, .hdr_len = XIO_HDR_LEN,
		.stream_id = r->hdr.stream_id, .first_token = a, .token_count = (uint32_t)(b - a),
	};
	uint8_t *p = buf + XIO_HDR_LEN;
	size_t plen;

	if (raw) {
		plen = b - a;
		memcpy(p, raw_file + a, plen);
	} else {
		unsigned w = narrowed ? 2 : 4;

		plen = (b - a) * w;
		for (uint64_t i = a; i < b; i++) {
			uint32_t t = (uint32_t)tok[i];

			for (unsigned k = 0; k < w; k++)
				p[(i - a) * w + k] = (uint8_t)(t >> (8 * k));
		}
	}
	if (h.flags & XIO_F_HAS_CRC)
		h.payload_crc = xio_crc32c(p, plen);
	xio_hdr_put(buf, &h);
	return XIO_HDR_LEN + plen;
}

/* Units [a, b) in one datagram (at most 1000 of them). */
static void send_range(struct script *s, const struct peer *p, const struct xio_request *r,
		       uint64_t a, uint64_t b, bool narrowed)
{
	uint64_t n = r->options & XIO_OPT_RAW ? sizeof(raw_file) : s->file_tokens;
	uint64_t end = r->hdr.first_token + r->hdr.token_count < n
			       ? r->hdr.first_token + r->hdr.token_count : n;
	uint8_t buf[XIO_HDR_LEN + 4 * 1000];

	send_to(s, p, buf, build_reply(r, a, b, narrowed, end, buf));
}

/* The whole answer in DATA_REPLY / READ_REPLY datagrams of 250 units. */
static void answer_all(struct script *s, const struct peer *p, const struct xio_request *r)
{
	uint64_t n = r->options & XIO_OPT_RAW ? sizeof(raw_file) : s->file_tokens;
	uint64_t a = r->hdr.first_token;
	uint64_t end = a + r->hdr.token_count < n ? a + r->hdr.token_count : n;
	uint8_t buf[64];

	if (a >= n) {
		send_to(s, p, buf, xio_error_build(buf, sizeof(buf), r->hdr.stream_id, a, XIO_E_RANGE,
						   "past the end"));
		return;
	}
	for (; a < end; a += DGRAM_TOK)
		send_range(s, p, r, a, a + DGRAM_TOK < end ? a + DGRAM_TOK : end, false);
}

/* Invalid datagrams around a good answer: 4 malformed, 2 ignored, and
 * (the request asks for CRC) 2 CRC errors. */
static void answer_invalid(struct script *s, const struct peer *p, const struct xio_request *r)
{
	uint8_t good[XIO_HDR_LEN + 4 * DGRAM_TOK], b[sizeof(good)];
	uint64_t a = r->hdr.first_token;
	size_t n = build_reply(r, a, a + 10, false, UINT64_MAX, good);
	struct xio_hdr h;

	xio_hdr_parse(good, n, &h);
#define VARIANT(change) do { struct xio_hdr v = h; memcpy(b, good, n); change; xio_hdr_put(b, &v); \
		send_to(s, p, b, n); } while (0)
	VARIANT(v.flags |= 0x10);                                         /* malformed */
	VARIANT((v.dtype = XIO_DT_UINT16));                               /* malformed */
	VARIANT(v.token_count = 11);                                      /* malformed */
	VARIANT(v.stream_id ^= 0x40000000u);                              /* ignored */
	VARIANT(v.first_token = r->hdr.first_token + r->hdr.token_count); /* ignored */
	VARIANT(v.payload_crc ^= 1);                                      /* crc_errors */
	VARIANT(v.flags &= (uint8_t)~XIO_F_HAS_CRC);                      /* crc_errors */
#undef VARIANT
	send_to(s, p, good, 20); /* cut inside the header: malformed */
	answer_all(s, p, r);
}

/* One UDP GSO train of 4 segments of XIO_HDR_LEN + 1000 bytes, the last
 * shorter: INT32 [a, a + 250), a segment that is not XIO, UINT16 [a + 250,
 * a + 750), INT32 [a + 750, a + 900); then INT32 [a + 900, a + 1000) as a
 * datagram of its own. A client with UDP_GRO receives the train as one
 * buffer; without it the kernel cuts it into 4 datagrams. */
static void answer_gso(struct script *s, const struct peer *p, const struct xio_request *r)
{
	enum { SEG = XIO_HDR_LEN + 1000 };
	static uint8_t train[4 * SEG];
	uint64_t a = r->hdr.first_token, end = a + r->hdr.token_count;
	uint8_t ctl[CMSG_SPACE(sizeof(uint16_t))] = { 0 }, one[SEG];
	struct iovec iov = { .iov_base = train };
	struct msghdr m = { .msg_name = (void *)&p->a, .msg_namelen = p->len, .msg_iov = &iov,
			    .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	uint16_t seg = SEG;
	size_t len = 0;

	if (r->hdr.token_count != 1000) {
		answer_all(s, p, r);
		return;
	}
	len += build_reply(r, a, a + 250, false, end, train + len);
	memset(train + len, 0x5a, SEG); /* not XIO */
	len += SEG;
	len += build_reply(r, a + 250, a + 750, true, end, train + len);
	len += build_reply(r, a + 750, a + 900, false, end, train + len);
	iov.iov_len = len;
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(seg));
	memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
	if (sendmsg(s->fd, &m, 0) != (ssize_t)len)
		perror("test_client_proto: GSO sendmsg");
	send_to(s, p, one, build_reply(r, a + 900, end, false, end, one));
}

static void answer(struct script *s, const struct peer *p, const struct xio_request *r)
{
	uint8_t buf[sizeof(s->held)];
	uint64_t a = r->hdr.first_token;

	switch (s->mode) {
	case M_NORMAL:
		answer_all(s, p, r);
		break;
	case M_LOSSY:
		if (a != 0 || r->hdr.token_count != 1000) {
			answer_all(s, p, r);
			break;
		}
		send_range(s, p, r, 0, 400, false);
		send_range(s, p, r, 300, 700, true);  /* overlaps: 300 new */
		send_range(s, p, r, 300, 700, true);  /* a duplicate */
		break;                                /* 700..1000 lost */
	case M_ERROR:
		send_to(s, p, buf, xio_error_build(buf, sizeof(buf), r->hdr.stream_id, a,
						   XIO_E_NOT_FOUND, "no such file"));
		break;
	case M_STAT_ONLY:
		break;
	case M_LATE:
		if (s->held_len)
			send_to(s, p, s->held, s->held_len); /* the previous read's, late */
		s->held_len = build_reply(r, a, a + 100, false, UINT64_MAX, s->held);
		answer_all(s, p, r);
		break;
	case M_INVALID:
		answer_invalid(s, p, r);
		break;
	case M_GSO:
		answer_gso(s, p, r);
		break;
	case M_FLOWS: /* gather() */
		break;
	case M_GAP:
		if (a != 0 || r->hdr.token_count != 1000) {
			answer_all(s, p, r);
			break;
		}
		for (uint64_t t = 0; t < 1000; t += 125) /* 8 datagrams, the 3rd and 4th lost */
			if (t != 250 && t != 375)
				send_range(s, p, r, t, t + 125, t >= 500);
		break;
	case M_TAIL:
		if (a != 0 || r->hdr.token_count != 1000) {
			answer_all(s, p, r);
			break;
		}
		for (uint64_t t = 0; t < 1000; t += 125) /* 8 datagrams, the 7th lost */
			if (t != 750)
				send_range(s, p, r, t, t + 125, false);
		break;
	case M_COOKIE:
	case M_COOKIE_NEVER:
	case M_COOKIE_OLD:
		answer_all(s, p, r);
		break;
	}
}

static uint16_t peer_port(const struct peer *p)
{
	return ntohs(((const struct sockaddr_in *)&p->a)->sin_port);
}

/* M_FLOWS: holds the requests until 3 source ports have asked (so every
 * flow has its first chunks before any answer comes), then answers them.
 * The first port's first FLOWS_LOST READs (its first window) are lost:
 * that flow waits out its timeout while the others take the rest of the
 * read. What it asks after that is held until the other ports have been
 * answered every other token of the read, so that it finds nothing left to
 * take however the threads were scheduled. */
#define FLOWS_LOST 2

static void flows_answer(struct script *s, const struct peer *p, const struct xio_request *r)
{
	answer_all(s, p, r);
	s->others += r->hdr.token_count;
	if (s->others + s->lost_tokens < s->flows_total)
		return;
	for (unsigned i = 0; i < s->nlate; i++)
		answer_all(s, &s->late[i].p, &s->late[i].r);
	s->late_answered += s->nlate;
	s->nlate = 0;
}

static void gather(struct script *s, const struct peer *p, const struct xio_request *r)
{
	unsigned k;

	for (k = 0; k < s->nports && s->ports[k] != peer_port(p); k++)
		;
	if (k == s->nports && k < 8)
		s->ports[s->nports++] = peer_port(p);
	if (k == 0) { /* the lost port */
		if (s->lost < FLOWS_LOST) {
			s->lost++;
			s->lost_tokens += r->hdr.token_count;
		} else if (s->others + s->lost_tokens >= s->flows_total) {
			answer_all(s, p, r);
			s->late_answered++;
		} else if (s->nlate < 8) {
			s->late[s->nlate].r = *r;
			s->late[s->nlate++].p = *p;
		}
		return;
	}
	if (s->released) {
		flows_answer(s, p, r);
		return;
	}
	if (s->ngather < 16) {
		s->gather[s->ngather].r = *r;
		s->gather[s->ngather++].p = *p;
	}
	if (s->nports < 3)
		return;
	s->released = true;
	for (unsigned i = 0; i < s->ngather; i++)
		flows_answer(s, &s->gather[i].p, &s->gather[i].r);
}

/* The cookie modes: the STAT_REPLY, or whether a READ is refused (its
 * ERROR_REPLY sent). */
static void cookie_stat(struct script *s, const struct peer *p, const struct xio_request *r)
{
	uint8_t out[64], ck[XIO_COOKIE_LEN];
	bool give = s->mode != M_COOKIE_OLD || s->stats == 0;

	s->stats++;
	if (s->mode == M_COOKIE_NEVER || s->cookie == 0)
		s->cookie++;
	memset(ck, (int)s->cookie, sizeof(ck));
	send_to(s, p, out, xio_stat_reply_build_cookie(out, sizeof(out), r->hdr.stream_id,
						       4 * s->file_tokens, MTIME_NS,
						       give ? ck : NULL));
}

static bool cookie_refused(struct script *s, const struct peer *p, const struct xio_request *r)
{
	uint8_t out[64], ck[XIO_COOKIE_LEN];
	uint32_t code = 0;

	memset(ck, (int)s->cookie, sizeof(ck));
	s->with_cookie += r->cookie != NULL;
	if (s->mode == M_COOKIE_OLD)
		code = r->cookie ? XIO_E_BAD_REQUEST : 0;
	else if (s->mode == M_COOKIE_NEVER || !r->cookie || memcmp(r->cookie, ck, sizeof(ck)))
		code = XIO_E_COOKIE;
	if (code) {
		s->refused++;
		send_to(s, p, out, xio_error_build(out, sizeof(out), r->hdr.stream_id,
						   r->hdr.first_token, code, "refused"));
		return true;
	}
	if (s->mode == M_COOKIE && ++s->served % 2 == 0)
		s->cookie++; /* rotated: the client learns it from the next refusal */
	return false;
}

static void serve(struct script *s, const uint8_t *b, size_t len, const struct peer *p)
{
	struct xio_request r;
	uint8_t out[64];
	bool cookies = s->mode >= M_COOKIE;

	if (xio_request_parse(b, len, &r, NULL) != XIO_REQ_OK)
		return;
	if (r.hdr.opcode == XIO_OP_STAT_REQUEST && cookies) {
		cookie_stat(s, p, &r);
		return;
	}
	if (r.hdr.opcode == XIO_OP_STAT_REQUEST) {
		send_to(s, p, out, xio_stat_reply_build(out, sizeof(out), r.hdr.stream_id,
							4 * s->file_tokens, MTIME_NS));
		return;
	}
	s->with_cookie += !cookies && r.cookie != NULL; /* a 1.0 server never sees one */
	if (cookies && cookie_refused(s, p, &r))
		return;
	pthread_mutex_lock(&s->lock);
	if (s->nseen < 64)
		s->seen[s->nseen++] = (struct xio_range){ r.hdr.first_token,
							  r.hdr.first_token + r.hdr.token_count };
	pthread_mutex_unlock(&s->lock);
	if (s->mode == M_FLOWS)
		gather(s, p, &r);
	else
		answer(s, p, &r);
}

static void *server_main(void *arg)
{
	struct script *s = arg;
	uint8_t b[2048];

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		struct peer p = { .len = sizeof(p.a) };
		ssize_t n;

		if (poll(&pfd, 1, 10) <= 0)
			continue;
		n = recvfrom(s->fd, b, sizeof(b), 0, (struct sockaddr *)&p.a, &p.len);
		if (n > 0)
			serve(s, b, (size_t)n, &p);
	}
	return NULL;
}

static struct script srv;

static void start(enum mode mode, uint64_t file_tokens)
{
	uint8_t b[64];

	/* requests an earlier test's client left behind are not this test's */
	while (recv(srv.fd, b, sizeof(b), MSG_DONTWAIT) >= 0)
		;
	srv.mode = mode;
	srv.file_tokens = file_tokens;
	srv.nseen = 0;
	srv.held_len = 0;
	srv.nports = 0;
	srv.ngather = 0;
	srv.released = false;
	srv.lost = srv.nlate = srv.late_answered = 0;
	srv.lost_tokens = srv.others = 0;
	srv.stats = srv.cookie = srv.served = srv.refused = srv.with_cookie = 0;
	srv.stop = 0;
	pthread_create(&srv.th, NULL, server_main, &srv);
}

static void stop_server(void)
{
	__atomic_store_n(&srv.stop, 1, __ATOMIC_RELEASE);
	pthread_join(srv.th, NULL);
}

static uint32_t client_gro = 1;   /* the gro option of the next client() */
static uint32_t client_flows = 1; /* and its flows */

/* A client of the scripted server with small chunks. */
static struct xio_client *client(uint16_t port, uint32_t window, uint32_t timeout_ms,
				 uint32_t retries, bool crc, bool saturate)
{
	struct xio_opts o;
	struct xio_client *c = NULL;
	struct xio_error err;
	char name[32];

	xio_opts_init(&o);
	o.chunk_tokens = 1000;
	o.window = window;
	o.timeout_ms = timeout_ms;
	o.retries = retries;
	o.crc = crc;
	o.saturate = saturate;
	o.gro = client_gro;
	o.flows = client_flows;
	snprintf(name, sizeof(name), "127.0.0.1:%u", port);
	if (xio_connect(name, &o, &c, &err) < 0) {
		fprintf(stderr, "xio_connect: %s\n", err.msg);
		exit(2);
	}
	return c;
}

static bool tokens_match(const uint16_t *out, uint64_t first, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (!XIO_CHECK(out[i] == (uint16_t)tok[first + i], "token %llu: %u, expected %u",
			       (unsigned long long)(first + i), out[i], (uint16_t)tok[first + i]))
			return false;
	return true;
}

/* Every datagram counted under exactly one reason. */
static void check_accounting(const struct xio_stats *st)
{
	uint64_t sum = st->replies_uint16 + st->replies_int32 + st->data_replies + st->answers +
		       st->duplicates + st->crc_errors + st->malformed + st->ignored;

	XIO_CHECK(sum == st->datagrams, "datagrams %llu, sum of reasons %llu",
		  (unsigned long long)st->datagrams, (unsigned long long)sum);
}

static void test_placement_and_rerequest(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 4, 200, 3, false, false);
	struct xio_error err;
	struct xio_stats st;
	int rc;

	start(M_LOSSY, NTOK);
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == 0, "read: %s", err.msg);
	tokens_match(out, 0, NTOK);
	xio_client_stats(c, &st);
	/* chunk 0: 3 datagrams then 700..1000 again (2), chunks 1 and 2: 4 each */
	XIO_CHECK(st.tokens == NTOK && st.datagrams == 13 && st.replies_int32 == 11 &&
		  st.replies_uint16 == 1 && st.duplicates == 1,
		  "tokens %llu datagrams %llu int32 %llu uint16 %llu duplicates %llu",
		  (unsigned long long)st.tokens, (unsigned long long)st.datagrams,
		  (unsigned long long)st.replies_int32, (unsigned long long)st.replies_uint16,
		  (unsigned long long)st.duplicates);
	XIO_CHECK(st.requests == 4 && st.re_requests == 1 && st.timeouts == 1,
		  "requests %llu re_requests %llu timeouts %llu", (unsigned long long)st.requests,
		  (unsigned long long)st.re_requests, (unsigned long long)st.timeouts);
	XIO_CHECK(srv.nseen == 4 && srv.seen[0].a == 0 && srv.seen[0].b == 1000 &&
		  srv.seen[1].a == 1000 && srv.seen[2].a == 2000 && srv.seen[3].a == 700 &&
		  srv.seen[3].b == 1000, "the server saw %u requests, the last %llu..%llu", srv.nseen,
		  (unsigned long long)srv.seen[3].a, (unsigned long long)srv.seen[3].b);
	XIO_CHECK(st.srtt_us > 0 && st.rto_us >= XIO_RTO_MIN_US && st.rto_us <= 200000,
		  "timer measured: srtt %llu rto %llu", (unsigned long long)st.srtt_us,
		  (unsigned long long)st.rto_us);
	check_accounting(&st);
	xio_close(c);
}

static void test_late_answers(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 4, 500, 3, false, false);
	struct xio_error err;
	struct xio_stats st;

	start(M_LATE, NTOK);
	memset(out, 0, sizeof(out));
	XIO_CHECK(xio_read(c, "f", 0, 1000, out, &err) == 0, "first read: %s", err.msg);
	XIO_CHECK(xio_read(c, "f", 1000, 1000, out + 1000, &err) == 0, "second read: %s", err.msg);
	XIO_CHECK(xio_read(c, "f", 2000, 1000, out + 2000, &err) == 0, "third read: %s", err.msg);
	stop_server();
	tokens_match(out, 0, NTOK);
	xio_client_stats(c, &st);
	XIO_CHECK(st.duplicates == 2 && st.tokens == NTOK && st.re_requests == 0,
		  "two late answers counted as duplicates: %llu", (unsigned long long)st.duplicates);
	check_accounting(&st);
	xio_close(c);
}

static void test_invalid_datagrams(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 1, 500, 3, true, false);
	struct xio_error err;
	struct xio_stats st;

	start(M_INVALID, NTOK);
	XIO_CHECK(xio_read(c, "f", 0, NTOK, out, &err) == 0, "read: %s", err.msg);
	stop_server();
	tokens_match(out, 0, NTOK);
	xio_client_stats(c, &st);
	/* 3 chunks, each: 4 malformed, 2 ignored, 2 CRC errors, 4 good */
	XIO_CHECK(st.malformed == 12 && st.ignored == 6 && st.crc_errors == 6 &&
		  st.replies_int32 == 12 && st.datagrams == 36,
		  "malformed %llu ignored %llu crc %llu int32 %llu datagrams %llu",
		  (unsigned long long)st.malformed, (unsigned long long)st.ignored,
		  (unsigned long long)st.crc_errors, (unsigned long long)st.replies_int32,
		  (unsigned long long)st.datagrams);
	check_accounting(&st);
	xio_close(c);
}

static void test_token_out_of_range(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 4, 500, 3, false, false);
	struct xio_client *sat = client(PORT, 4, 500, 3, false, true);
	struct xio_error err;
	struct xio_stats st;
	int rc;

	tok[1234] = 70000;
	tok[2000] = -5;
	start(M_NORMAL, NTOK);
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	XIO_CHECK(rc == -XIO_ETOKEN && err.code == XIO_ETOKEN &&
		  strstr(err.msg, "token 1234 is 70000, outside 0..65535"), "error: %d %s", rc,
		  err.msg);
	rc = xio_read(sat, "f", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == 0, "saturate: %s", err.msg);
	xio_client_stats(sat, &st);
	XIO_CHECK(st.clamped == 2 && out[1234] == 65535 && out[2000] == 0,
		  "clamped %llu: %u %u", (unsigned long long)st.clamped, out[1234], out[2000]);
	tok[1234] = 65535;
	tok[2000] = 0;
	tokens_match(out, 0, NTOK);
	fill_tokens();
	xio_close(c);
	xio_close(sat);
}

static void test_server_error(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 4, 500, 3, false, false);
	struct xio_error err;
	int rc;

	start(M_ERROR, NTOK);
	rc = xio_read(c, "nope", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == -XIO_ESERVER && err.server_code == XIO_E_NOT_FOUND &&
		  strstr(err.msg, "nope: server 127.0.0.1:22950: not_found: no such file"),
		  "%d %u %s", rc, err.server_code, err.msg);
	xio_close(c);
}

static void test_file_shorter(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 4, 500, 3, false, false);
	struct xio_error err;
	int rc;

	start(M_NORMAL, 2500);
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == -XIO_ERANGE && strstr(err.msg, "the file ends at token 2500"), "%d %s", rc,
		  err.msg);
	xio_close(c);
}

static void test_dead_server(void)
{
	static uint16_t out[NTOK];
	int fd = bound_socket(DEAD_PORT);
	struct xio_client *c = client(DEAD_PORT, 2, 30, 2, false, false);
	struct xio_error err;
	struct xio_stats st;
	struct xio_stat xs;
	uint64_t t0 = xio_now_ns();
	int rc = xio_read(c, "f", 0, NTOK, out, &err);
	uint64_t el = xio_now_ns() - t0;

	XIO_CHECK(rc == -XIO_ETIMEOUT &&
		  strstr(err.msg, "f: no answer from 127.0.0.1:22951 for tokens 0..999 after 3 tries"),
		  "%d %s", rc, err.msg);
	XIO_CHECK(el < 2000000000ull, "gave up after %llu ms", (unsigned long long)(el / 1000000));
	xio_client_stats(c, &st);
	/* both slots time out together, silence: only the oldest request is
	 * asked again each time (slot 0, then slot 1); slot 0 runs out first */
	XIO_CHECK(st.timeouts == 5 && st.requests == 4 && st.re_requests == 2,
		  "timeouts %llu requests %llu re_requests %llu", (unsigned long long)st.timeouts,
		  (unsigned long long)st.requests, (unsigned long long)st.re_requests);
	rc = xio_stat(c, "f", &xs, &err);
	XIO_CHECK(rc == -XIO_ETIMEOUT && strstr(err.msg, "no answer from 127.0.0.1:22951 to STAT "
						   "after 3 tries"), "%s", err.msg);
	xio_close(c);
	close(fd);

	c = client(SHUT_PORT, 2, 30, 2, false, false);
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	xio_client_stats(c, &st);
	XIO_CHECK(rc == -XIO_ETIMEOUT && st.refused > 0 &&
		  strstr(err.msg, "port unreachable, is the server running?"), "closed port: %s",
		  err.msg);
	xio_close(c);
}

static void test_stat_and_raw(void)
{
	uint8_t out[sizeof(raw_file)];
	struct xio_client *c = client(PORT, 2, 500, 3, true, false);
	struct xio_error err;
	struct xio_stat st;
	struct xio_stats s;

	start(M_NORMAL, NTOK);
	XIO_CHECK(xio_stat(c, "f", &st, &err) == 0, "stat: %s", err.msg);
	XIO_CHECK(st.size == 4 * NTOK && st.tokens == NTOK && st.is_tokens &&
		  st.mtime_ns == MTIME_NS, "stat %llu %llu", (unsigned long long)st.size,
		  (unsigned long long)st.tokens);
	memset(out, 0, sizeof(out));
	XIO_CHECK(xio_read_bytes(c, "raw", 0, sizeof(out), out, &err) == 0, "raw: %s", err.msg);
	XIO_CHECK_BYTES(out, raw_file, sizeof(out), "RAW read");
	XIO_CHECK(xio_read_bytes(c, "raw", 4000, 1001, out, &err) == 0, "raw tail: %s", err.msg);
	XIO_CHECK_BYTES(out, raw_file + 4000, 1001, "RAW read of the tail");
	stop_server();
	xio_client_stats(c, &s);
	/* 5001 bytes in 250-byte datagrams: 21; then 1001 bytes: 5 */
	XIO_CHECK(s.bytes == 5001 + 1001 && s.data_replies == 26 && s.answers == 1,
		  "bytes %llu data_replies %llu", (unsigned long long)s.bytes,
		  (unsigned long long)s.data_replies);
	check_accounting(&s);
	XIO_CHECK(xio_read(c, "f", 0, 0, (uint16_t *)out, &err) == -XIO_EARG, "count 0");
	XIO_CHECK(xio_stat(c, "", &st, &err) == -XIO_EARG && strstr(err.msg, "1..1024"), "%s",
		  err.msg);
	xio_close(c);
}

/* xio_readv: random spans (some overlapping, some of 1 token, some
 * crossing chunk boundaries) in one call, each span's tokens right after
 * the previous span's; a span past the end of the file is XIO_ERANGE,
 * whether the server cuts the answer short or refuses it. */
static void test_readv(void)
{
	enum { NSPAN = 40 };
	static uint16_t out[NSPAN * NTOK];
	struct xio_client *c = client(PORT, 4, 500, 3, true, false);
	struct xio_span sp[NSPAN];
	struct xio_error err;
	struct xio_stats st;
	uint64_t total = 0, at = 0, rng = 12345;
	int rc;

	for (int i = 0; i < NSPAN; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		sp[i].first = (rng >> 33) % NTOK;
		sp[i].count = i % 5 == 0 ? 1 : 1 + (rng >> 13) % (NTOK - sp[i].first);
		total += sp[i].count;
	}
	total += sp[3].count - sp[7].count;
	sp[7] = sp[3]; /* the same span twice */
	memset(out, 0, sizeof(out));
	start(M_NORMAL, NTOK);
	rc = xio_readv(c, "f", sp, NSPAN, out, &err);
	XIO_CHECK(rc == 0, "readv: %s", err.msg);
	for (int i = 0; i < NSPAN; i++) {
		if (!tokens_match(out + at, sp[i].first, sp[i].count))
			XIO_CHECK(0, "span %d (%llu + %llu) at %llu", i, (unsigned long long)sp[i].first,
				  (unsigned long long)sp[i].count, (unsigned long long)at);
		at += sp[i].count;
	}
	xio_client_stats(c, &st);
	XIO_CHECK(st.tokens == total && st.re_requests == 0, "tokens %llu of %llu, re_requests %llu",
		  (unsigned long long)st.tokens, (unsigned long long)total,
		  (unsigned long long)st.re_requests);
	check_accounting(&st);

	/* past the end: the server's answer ends early (LAST), or it refuses */
	sp[0] = (struct xio_span){ 10, 5 };
	sp[1] = (struct xio_span){ 2990, 20 };
	rc = xio_readv(c, "f", sp, 2, out, &err);
	XIO_CHECK(rc == -XIO_ERANGE && strstr(err.msg, "the file ends at token 3000"), "%d %s", rc,
		  err.msg);
	sp[1] = (struct xio_span){ 3500, 1 };
	rc = xio_readv(c, "f", sp, 2, out, &err);
	XIO_CHECK(rc == -XIO_ERANGE && strstr(err.msg, "range"), "%d %s", rc, err.msg);
	sp[1] = (struct xio_span){ 0, 0 };
	XIO_CHECK(xio_readv(c, "f", sp, 2, out, &err) == 0 && tokens_match(out, 10, 5),
		  "a span of 0 tokens is skipped: %s", err.msg);
	sp[0] = (struct xio_span){ UINT64_MAX, 2 };
	XIO_CHECK(xio_readv(c, "f", sp, 1, out, &err) == -XIO_EARG, "an overflowing span");
	XIO_CHECK(xio_readv(c, "f", sp, 0, out, &err) == -XIO_EARG, "no spans");
	stop_server();
	xio_close(c);
}

/* Answers as UDP GSO trains: with UDP_GRO each train is one buffer, split
 * by its segment size (the last segment shorter, one not XIO, UINT16 and
 * INT32 segments in one buffer); without it, the same datagrams one by
 * one. The tokens and the counters are the same either way. */
static void test_gro_trains(void)
{
	static uint16_t out[NTOK];

	start(M_GSO, NTOK);
	for (uint32_t gro = 0; gro <= 1; gro++) {
		struct xio_client *c;
		struct xio_error err;
		struct xio_stats st;
		int rc;

		client_gro = gro;
		c = client(PORT, 4, 500, 3, true, false);
		memset(out, 0, sizeof(out));
		rc = xio_read(c, "f", 0, NTOK, out, &err);
		XIO_CHECK(rc == 0, "gro %u: read: %s", gro, err.msg);
		tokens_match(out, 0, NTOK);
		xio_client_stats(c, &st);
		/* 3 chunks, each a train of 4 and a datagram */
		XIO_CHECK(st.gro == gro && st.datagrams == 15 && st.malformed == 3 &&
			  st.replies_int32 == 9 && st.replies_uint16 == 3 && st.re_requests == 0 &&
			  st.rx_buffers == (gro ? 6 : 15),
			  "gro %u/%llu: datagrams %llu malformed %llu int32 %llu uint16 %llu "
			  "re_requests %llu rx_buffers %llu", gro, (unsigned long long)st.gro,
			  (unsigned long long)st.datagrams, (unsigned long long)st.malformed,
			  (unsigned long long)st.replies_int32, (unsigned long long)st.replies_uint16,
			  (unsigned long long)st.re_requests, (unsigned long long)st.rx_buffers);
		XIO_CHECK(st.recv_calls >= 1 && st.recv_calls <= st.rx_buffers, "recv_calls %llu",
			  (unsigned long long)st.recv_calls);
		check_accounting(&st);
		xio_close(c);
	}
	client_gro = 1;
	stop_server();
}

/* Three flows, each its own socket (its own source port) and window of 2
 * chunks of 1000 tokens, one read of 30 chunks (10 spans of the whole
 * file): every flow asks for its first chunks before any answer arrives;
 * the first port's answers are then lost, so that flow waits out a
 * timeout (1 s: no round trip measured yet) while the two others take the
 * other chunks from the shared dispenser (all of them on a quiet machine:
 * that flow reads only its first 2000 tokens). The tokens are exact, the flows' counters add up to the
 * client's. */
static void test_flows(void)
{
	enum { NSPAN = 10 };
	static uint16_t out[NSPAN * NTOK];
	struct xio_stats st, fs[3];
	struct xio_span sp[NSPAN];
	struct xio_client *c;
	struct xio_error err;
	uint64_t sum_tok = 0, sum_dg = 0;
	uint32_t lost = 3;
	int rc;

	for (int i = 0; i < NSPAN; i++)
		sp[i] = (struct xio_span){ 0, NTOK };
	client_flows = 3;
	c = client(PORT, 2, 1000, 3, false, false);
	client_flows = 1;
	XIO_CHECK(xio_client_flows(c) == 3, "flows %u", xio_client_flows(c));
	srv.flows_total = NSPAN * NTOK;
	start(M_FLOWS, NTOK);
	rc = xio_readv(c, "f", sp, NSPAN, out, &err);
	stop_server();
	XIO_CHECK(rc == 0, "read: %s", err.msg);
	for (int i = 0; i < NSPAN; i++)
		tokens_match(out + i * NTOK, 0, NTOK);
	XIO_CHECK(srv.nports == 3, "the server saw %u source ports", srv.nports);
	/* the lost port's first window (2 chunks of 1000), its requests after
	 * that answered once the others had the other 28 chunks */
	XIO_CHECK(srv.lost == 2 && srv.lost_tokens == 2000 && srv.late_answered >= 1 &&
		  srv.nlate == 0 && srv.others == NSPAN * NTOK - 2000,
		  "lost %u (%llu tokens), late %u answered %u, others %llu tokens", srv.lost,
		  (unsigned long long)srv.lost_tokens, srv.nlate, srv.late_answered,
		  (unsigned long long)srv.others);
	for (uint32_t i = 0; i < 3; i++) {
		XIO_CHECK(xio_client_flow_stats(c, i, &fs[i], &err) == 0 && fs[i].flows == 1,
			  "flow %u", i);
		sum_tok += fs[i].tokens;
		sum_dg += fs[i].datagrams;
		if (fs[i].timeouts > 0) {
			XIO_CHECK(lost == 3, "flows %u and %u timed out", lost, i);
			lost = i;
		}
		check_accounting(&fs[i]);
	}
	/* the flow whose answers were lost timed out and read its first window
	 * again, nothing more: the other flows took its share of the read, each
	 * at least its own first window, without a timeout */
	XIO_CHECK(lost < 3, "no flow timed out");
	for (uint32_t i = 0; i < 3 && lost < 3; i++)
		if (i == lost)
			XIO_CHECK(fs[i].tokens == 2000 && fs[i].timeout_re_requests >= 1,
				  "lost flow %u: %llu tokens, %llu timeout re-requests", i,
				  (unsigned long long)fs[i].tokens,
				  (unsigned long long)fs[i].timeout_re_requests);
		else
			XIO_CHECK(fs[i].tokens >= 2000 && fs[i].re_requests == 0,
				  "flow %u: %llu tokens, %llu re-requests", i,
				  (unsigned long long)fs[i].tokens,
				  (unsigned long long)fs[i].re_requests);
	xio_client_stats(c, &st);
	XIO_CHECK(st.flows == 3 && st.tokens == NSPAN * NTOK && sum_tok == st.tokens &&
		  sum_dg == st.datagrams, "client %llu tokens, flows %llu; %llu datagrams, flows %llu",
		  (unsigned long long)st.tokens, (unsigned long long)sum_tok,
		  (unsigned long long)st.datagrams, (unsigned long long)sum_dg);
	XIO_CHECK(xio_client_flow_stats(c, 3, &fs[0], &err) == -XIO_EARG, "no flow 3");
	xio_close(c);
}

/* One hole in the middle of an answer: asked again at once for exactly
 * that range when the answer has gone 3 datagrams past it (M_GAP), or,
 * a hole with one datagram after it, once the answer has reached its end
 * and a little time passed (M_TAIL); either long before the timeout (10 s
 * here); the window halves once. */
static void gap_repaired(enum mode mode, uint64_t a, uint64_t b)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 4, 10000, 3, false, false);
	struct xio_error err;
	struct xio_stats st;
	uint64_t t0;
	int rc;

	start(mode, NTOK);
	t0 = xio_now_ns();
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	t0 = xio_now_ns() - t0;
	stop_server();
	XIO_CHECK(rc == 0, "read: %s", err.msg);
	tokens_match(out, 0, NTOK);
	xio_client_stats(c, &st);
	XIO_CHECK(st.re_requests == 1 && st.gap_re_requests == 1 && st.timeout_re_requests == 0 &&
		  st.timeouts == 0 && st.requests == 4,
		  "re_requests %llu gap %llu timeout %llu timeouts %llu requests %llu",
		  (unsigned long long)st.re_requests, (unsigned long long)st.gap_re_requests,
		  (unsigned long long)st.timeout_re_requests, (unsigned long long)st.timeouts,
		  (unsigned long long)st.requests);
	XIO_CHECK(srv.nseen == 4 && srv.seen[3].a == a && srv.seen[3].b == b,
		  "the server saw %u requests, the last %llu..%llu", srv.nseen,
		  (unsigned long long)srv.seen[3].a, (unsigned long long)srv.seen[3].b);
	XIO_CHECK(st.cwnd_reductions == 1 && st.cwnd < XIO_CC_INITIAL + 3 * 4000,
		  "the window was cut once: %llu, cwnd %llu", (unsigned long long)st.cwnd_reductions,
		  (unsigned long long)st.cwnd);
	XIO_CHECK(t0 < 2000000000ull, "repaired in %llu ms, not after a timeout",
		  (unsigned long long)(t0 / 1000000));
	check_accounting(&st);
	xio_close(c);
}

static void test_gap_repaired(void)
{
	gap_repaired(M_GAP, 250, 500);
}

static void test_tail_gap_repaired(void)
{
	gap_repaired(M_TAIL, 750, 875);
}

static void test_stream_shard(void)
{
	struct xio_client *c = client(PORT, 2, 500, 3, false, false);
	struct xio_stream_opts so;
	struct xio_stream *s;
	struct xio_error err;
	struct xio_stats st;
	const uint16_t *t;
	uint64_t first, count;
	size_t n;

	start(M_NORMAL, NTOK);
	xio_stream_opts_init(&so, 700);
	so.depth = 2;
	so.rank = 1;
	so.world = 3;
	XIO_CHECK(xio_stream_open(c, "f", &so, &s, &err) == 0, "open: %s", err.msg);
	xio_close(c); /* the stream lives on by itself */
	xio_stream_range(s, &first, &count);
	XIO_CHECK(first == 1000 && count == 1000, "shard %llu+%llu", (unsigned long long)first,
		  (unsigned long long)count);
	XIO_CHECK(xio_stream_next(s, &t, &n, &err) == 1 && n == 700 && tokens_match(t, 1000, 700),
		  "batch 1");
	XIO_CHECK(xio_stream_next(s, &t, &n, &err) == 1 && n == 300 && tokens_match(t, 1700, 300),
		  "batch 2 (short)");
	XIO_CHECK(xio_stream_next(s, &t, &n, &err) == 0 && t == NULL && n == 0, "end");
	XIO_CHECK(xio_stream_next(s, &t, &n, &err) == 0, "still the end");
	xio_stream_stats(s, &st);
	XIO_CHECK(st.tokens == 1000, "stream tokens %llu", (unsigned long long)st.tokens);
	xio_stream_close(s);
	stop_server();
}

/* Batches wrap around the ring many times; each is checked. */
static void test_stream_ring(void)
{
	struct xio_client *c = client(PORT, 4, 500, 3, false, false);
	struct xio_stream_opts so;
	struct xio_stream *s;
	struct xio_error err;
	const uint16_t *t;
	uint64_t at = 100;
	size_t n;
	int rc;

	start(M_NORMAL, NTOK);
	xio_stream_opts_init(&so, 97);
	so.depth = 3;
	so.first = 100;
	XIO_CHECK(xio_stream_open(c, "f", &so, &s, &err) == 0, "open: %s", err.msg);
	while ((rc = xio_stream_next(s, &t, &n, &err)) == 1) {
		if (!tokens_match(t, at, n))
			break;
		at += n;
	}
	XIO_CHECK(rc == 0 && at == NTOK, "streamed to %llu, rc %d", (unsigned long long)at, rc);
	xio_stream_close(s);
	so.first = 2000;
	so.count = 1001;
	XIO_CHECK(xio_stream_open(c, "f", &so, &s, &err) == -XIO_ERANGE &&
		  strstr(err.msg, "has 3000 tokens"), "past the end: %s", err.msg);
	stop_server();
	xio_close(c);
}

static void test_stream_close_while_waiting(void)
{
	struct xio_client *c = client(PORT, 2, 5000, 3, false, false);
	struct xio_stream_opts so;
	struct xio_stream *s;
	struct xio_error err;
	uint64_t t0;

	start(M_STAT_ONLY, NTOK);
	xio_stream_opts_init(&so, 500);
	XIO_CHECK(xio_stream_open(c, "f", &so, &s, &err) == 0, "open: %s", err.msg);
	usleep(20000);
	t0 = xio_now_ns();
	xio_stream_close(s); /* the fetcher waits for a 5 s timeout: cancelled */
	XIO_CHECK(xio_now_ns() - t0 < 1000000000ull, "close took %llu ms",
		  (unsigned long long)((xio_now_ns() - t0) / 1000000));
	stop_server();
	xio_close(c);
}

static int suite_init(void)
{
	fill_tokens();
	srv.fd = bound_socket(PORT);
	pthread_mutex_init(&srv.lock, NULL);
	return 0;
}

static int suite_clean(void)
{
	close(srv.fd);
	return 0;
}

/* 1.2: the STAT's cookie on every READ; a rotation (the server's new
 * cookie) found by refusal, a new STAT and the chunk asked again, not
 * counted as a failure; a read with no STAT before it takes its cookie
 * the same way. */
static void test_cookie_rotation(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 1, 500, 1, true, false);
	struct xio_error err;
	struct xio_stats st;
	struct xio_stat xs;
	int rc;

	start(M_COOKIE, NTOK);
	XIO_CHECK(xio_stat(c, "f", &xs, &err) == 0 && xs.tokens == NTOK, "stat: %s", err.msg);
	/* chunks 0 and 1 served (then the server rotates), chunk 2 refused,
	 * a STAT, chunk 2 again; window 1, so in that order */
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	XIO_CHECK(rc == 0, "read across a rotation: %s", err.msg);
	tokens_match(out, 0, NTOK);
	xio_client_stats(c, &st);
	XIO_CHECK(st.cookie_refreshes == 1 && srv.stats == 2 && srv.refused == 1 &&
		  srv.with_cookie == 4 && st.timeouts == 0 && st.requests == 6 &&
		  st.answers == 3 && st.tokens == NTOK,
		  "refreshes %llu, server: %u STATs %u refused %u with cookie; timeouts %llu "
		  "requests %llu answers %llu", (unsigned long long)st.cookie_refreshes, srv.stats,
		  srv.refused, srv.with_cookie, (unsigned long long)st.timeouts,
		  (unsigned long long)st.requests, (unsigned long long)st.answers);
	check_accounting(&st);
	xio_close(c);
	/* no STAT first: the READ goes without cookie, is refused, STAT, again;
	 * window 3: the three refusals bring one STAT */
	c = client(PORT, 3, 500, 1, false, false);
	stop_server();
	start(M_COOKIE, NTOK); /* its counters from 0 */
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == 0, "read without a STAT first: %s", err.msg);
	tokens_match(out, 0, NTOK);
	xio_client_stats(c, &st);
	XIO_CHECK(st.cookie_refreshes >= 1 && srv.stats == st.cookie_refreshes &&
		  srv.refused >= 3 && st.timeouts == 0,
		  "refreshes %llu, server: %u STATs %u refused; timeouts %llu",
		  (unsigned long long)st.cookie_refreshes, srv.stats, srv.refused,
		  (unsigned long long)st.timeouts);
	check_accounting(&st);
	xio_close(c);
}

/* Flows on one local address share its cookie: one STAT on flow 0 and
 * every flow's READs carry the cookie; after a rotation each flow that is
 * refused renews it (or takes the one another flow renewed). */
static void test_cookie_flows(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c;
	struct xio_error err;
	struct xio_stats st;
	struct xio_stat xs;
	unsigned reads;
	int rc;

	client_flows = 3;
	c = client(PORT, 1, 500, 2, false, false);
	client_flows = 1;
	XIO_CHECK(c->e.nflows == 3 && c->e.ncookies == 1 &&
		  c->e.flows[1].cookie == c->e.flows[0].cookie &&
		  c->e.flows[2].cookie == c->e.flows[0].cookie,
		  "3 flows on 127.0.0.1: %u cookies", c->e.ncookies);
	start(M_COOKIE, NTOK);
	XIO_CHECK(xio_stat(c, "f", &xs, &err) == 0, "stat: %s", err.msg);
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == 0, "read with 3 flows across rotations: %s", err.msg);
	tokens_match(out, 0, NTOK);
	xio_client_stats(c, &st);
	reads = srv.served + srv.refused;
	XIO_CHECK(srv.with_cookie == reads && srv.served >= 3 && st.timeouts == 0 &&
		  srv.stats == 1 + st.cookie_refreshes && st.cookie_refreshes <= srv.refused,
		  "%u READs, %u with a cookie, %u served, %u refused; %u STATs, refreshes %llu, "
		  "timeouts %llu", reads, srv.with_cookie, srv.served, srv.refused, srv.stats,
		  (unsigned long long)st.cookie_refreshes, (unsigned long long)st.timeouts);
	check_accounting(&st);
	xio_close(c);
}

/* Three fresh cookies refused in a row: a clear error, in bounded time. */
static void test_cookie_refused(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 2, 500, 3, false, false);
	struct xio_error err;
	struct xio_stats st;
	struct xio_stat xs;
	int rc;

	start(M_COOKIE_NEVER, NTOK);
	XIO_CHECK(xio_stat(c, "f", &xs, &err) == 0, "stat: %s", err.msg);
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == -XIO_ESERVER && err.server_code == XIO_E_COOKIE &&
		  strstr(err.msg, "f: server 127.0.0.1:22950 refused 3 fresh address cookies in a "
			 "row (cookie): something on the path changes this host's source address"),
		  "%d %u %s", rc, err.server_code, err.msg);
	xio_client_stats(c, &st);
	XIO_CHECK(srv.stats == 3 && st.cookie_refreshes == 2 && st.timeouts == 0,
		  "server: %u STATs; refreshes %llu timeouts %llu", srv.stats,
		  (unsigned long long)st.cookie_refreshes, (unsigned long long)st.timeouts);
	check_accounting(&st);
	xio_close(c);
}

/* A list whose servers (the scripted one twice) refuse every cookie: each
 * is dropped after three fresh cookies refused, and the read fails naming
 * both with the code they share. */
static void test_cookie_list_dropped(void)
{
	static uint16_t out[NTOK];
	struct xio_server_stats ss;
	struct xio_client *c;
	struct xio_error err;
	struct xio_stat xs;
	struct xio_opts o;
	int rc;

	xio_opts_init(&o);
	o.chunk_tokens = 1000;
	o.window = 2;
	o.flows = 2;
	o.gro = client_gro;
	XIO_CHECK(xio_connect("127.0.0.1:22950,127.0.0.1:22950", &o, &c, &err) == 0, "%s", err.msg);
	start(M_COOKIE_NEVER, NTOK);
	XIO_CHECK(xio_stat(c, "f", &xs, &err) == 0, "stat: %s", err.msg);
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == -XIO_ESERVER && err.server_code == XIO_E_COOKIE &&
		  strcmp(err.msg, "f: no server left: 127.0.0.1:22950: refused 3 fresh address cookies "
			 "in a row (cookie); 127.0.0.1:22950: refused 3 fresh address cookies in a "
			 "row (cookie)") == 0, "%d %u %s", rc, err.server_code, err.msg);
	XIO_CHECK(xio_client_server_count(c) == 2, "%u servers", xio_client_server_count(c));
	for (uint32_t i = 0; i < 2; i++) {
		XIO_CHECK(xio_client_server_stats(c, i, &ss, sizeof(ss), &err) == 0 &&
			  ss.state == XIO_SERVER_DROPPED && ss.drops == 1 && ss.flows == 1 &&
			  ss.last_error.server_code == XIO_E_COOKIE, "server %u: %s %llu drops: %s", i,
			  xio_server_state_name(ss.state), (unsigned long long)ss.drops,
			  ss.last_error.msg);
	}
	/* no server up: a read fails at once with the same reasons */
	rc = xio_read(c, "f", 0, 10, out, &err);
	XIO_CHECK(rc == -XIO_ESERVER && strstr(err.msg, "no server left"), "%s", err.msg);
	xio_close(c);
}

/* A server back at 1.0 (bad_request for option COOKIE, 16-byte STAT_REPLY):
 * the cookie dropped, one STAT, the read finished without cookies. */
static void test_cookie_server_downgrade(void)
{
	static uint16_t out[NTOK];
	struct xio_client *c = client(PORT, 2, 500, 1, false, false);
	struct xio_error err;
	struct xio_stats st;
	struct xio_stat xs;
	int rc;

	start(M_COOKIE_OLD, NTOK);
	XIO_CHECK(xio_stat(c, "f", &xs, &err) == 0, "stat: %s", err.msg);
	rc = xio_read(c, "f", 0, NTOK, out, &err);
	stop_server();
	XIO_CHECK(rc == 0, "read: %s", err.msg);
	tokens_match(out, 0, NTOK);
	xio_client_stats(c, &st);
	XIO_CHECK(srv.stats == 2 && st.cookie_refreshes == 1 && srv.refused == 2 &&
		  srv.with_cookie == 2 && st.timeouts == 0,
		  "server: %u STATs %u refused %u with cookie; refreshes %llu timeouts %llu",
		  srv.stats, srv.refused, srv.with_cookie, (unsigned long long)st.cookie_refreshes,
		  (unsigned long long)st.timeouts);
	check_accounting(&st);
	xio_close(c);
	/* and a 1.0 server from the start: no READ carries a cookie */
	c = client(PORT, 2, 500, 1, false, false);
	start(M_NORMAL, NTOK);
	XIO_CHECK(xio_stat(c, "f", &xs, &err) == 0, "stat: %s", err.msg);
	XIO_CHECK(xio_read(c, "f", 0, NTOK, out, &err) == 0, "read: %s", err.msg);
	stop_server();
	xio_client_stats(c, &st);
	XIO_CHECK(srv.with_cookie == 0 && srv.nseen == 3 && st.cookie_refreshes == 0,
		  "1.0 server: %u READs with a cookie", srv.with_cookie);
	xio_close(c);
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_placement_and_rerequest),
	XIO_UNIT_TEST(test_late_answers),
	XIO_UNIT_TEST(test_invalid_datagrams),
	XIO_UNIT_TEST(test_token_out_of_range),
	XIO_UNIT_TEST(test_server_error),
	XIO_UNIT_TEST(test_file_shorter),
	XIO_UNIT_TEST(test_dead_server),
	XIO_UNIT_TEST(test_stat_and_raw),
	XIO_UNIT_TEST(test_readv),
	XIO_UNIT_TEST(test_gro_trains),
	XIO_UNIT_TEST(test_flows),
	XIO_UNIT_TEST(test_gap_repaired),
	XIO_UNIT_TEST(test_tail_gap_repaired),
	XIO_UNIT_TEST(test_stream_shard),
	XIO_UNIT_TEST(test_stream_ring),
	XIO_UNIT_TEST(test_stream_close_while_waiting),
	XIO_UNIT_TEST(test_cookie_rotation),
	XIO_UNIT_TEST(test_cookie_flows),
	XIO_UNIT_TEST(test_cookie_refused),
	XIO_UNIT_TEST(test_cookie_server_downgrade),
	XIO_UNIT_TEST(test_cookie_list_dropped),
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "client_proto", tests, suite_init, suite_clean);
}
