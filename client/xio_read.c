/* SPDX-License-Identifier: BSD-3-Clause
 * xio_read.c: the windowed read over flows. The spans asked for (one
 * range, or many ranges of one file) are handed out as chunks by one
 * dispenser, none crossing the end of a span; each flow (a socket, flow 0
 * on the caller's thread, the others on threads of their own) takes a
 * chunk whenever its congestion window (xio_cc.c) has room and one of its
 * `window` slots is free, asks for it by a READ_REQUEST sized to that room,
 * and places it at its span's offset in the caller's memory. Every answer
 * datagram is checked (header, dtype and length, CRC32C as it arrived, the
 * request it answers and that request's range) and placed at its
 * first_token: UINT16 payloads (narrowed on the way) are copied, INT32
 * payloads are narrowed here by the stage core's SIMD kernels. Only units
 * not received yet are placed and counted, so duplicates and late answers
 * change nothing. A hole an answer leaves behind it is asked again at once
 * when 3 datagrams have passed it, or when the answer reached its end and
 * a little time passed (RFC 9002's packet and time thresholds); a chunk
 * whose answer stops for a timeout (the adaptive one of xio_rtt.c) is
 * asked again for exactly its missing ranges, with new stream_ids, until
 * `retries` timeouts in a row bring nothing. Then, when the client has a
 * list of servers, that server is dropped: its flows hand what their
 * chunks still miss back to the dispenser, where the other servers' flows
 * take it first; the read fails only when no server is left. Any other
 * failure of a flow ends the read.
 *
 * Address validation (xio-read 1.2): every READ_REQUEST carries the cookie
 * of its flow's server and local address when the server gave one. ERROR_REPLY
 * cookie (the cookie expired, or none was sent) is no failure: the flow
 * STATs for a new cookie (one STAT at a time, asked again on its timeout)
 * and asks its refused chunks again once it comes; a refusal of an older
 * cookie than the one in hand (another flow renewed it) is asked again at
 * once. Three fresh cookies refused in a row without data in between fail
 * the read: something on the path changes the source address. bad_request
 * to a request that carried a cookie (a server back at 1.0) drops the
 * cookie and STATs the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xio_crc.h"
#include "xio_msg.h"
#include "xio_narrow.h"
#include "xio_priv.h"

#define RX_BATCHES_PER_WAKE 8 /* then look at the timers again */

/* What a dropped server's flow still missed: units [start, start + n) of
 * the file, placed from dst on. */
struct piece {
	uint64_t start, dst, n;
};

/* Hands out the chunks of a read: the pieces a dropped server left first,
 * then the spans in order, each cut into chunks of at most `max` units; a
 * chunk never crosses the end of a span. */
struct dispenser {
	struct piece *pool;
	size_t npool, cap;
	const struct xio_span *spans;
	size_t n;
	size_t i;      /* the span of the next chunk */
	uint64_t off;  /* its first unit's offset in that span */
	uint64_t dst;  /* its index in the caller's memory */
	uint64_t total; /* units of all spans */
	uint64_t left;  /* units not handed out yet (the pool's included) */
};

/* The next chunk, at most max units: false when every span is handed out. */
static bool dispense(struct dispenser *d, uint64_t max, uint64_t *start, uint64_t *dst,
		     uint64_t *n)
{
	if (d->npool) {
		struct piece *p = &d->pool[d->npool - 1];

		*n = p->n < max ? p->n : max;
		*start = p->start;
		*dst = p->dst;
		p->start += *n;
		p->dst += *n;
		p->n -= *n;
		d->npool -= p->n == 0;
		d->left -= *n;
		return true;
	}
	while (d->i < d->n && d->off == d->spans[d->i].count) {
		d->i++;
		d->off = 0;
	}
	if (d->i == d->n)
		return false;
	*n = d->spans[d->i].count - d->off < max ? d->spans[d->i].count - d->off : max;
	*start = d->spans[d->i].first + d->off;
	*dst = d->dst;
	d->off += *n;
	d->dst += *n;
	d->left -= *n;
	return true;
}

/* Gives a piece back to the dispenser, to be handed out before the spans:
 * false when out of memory. */
static bool pool_add(struct dispenser *d, struct piece p)
{
	if (d->npool == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct piece *q = realloc(d->pool, cap * sizeof(*q));

		if (!q)
			return false;
		d->pool = q;
		d->cap = cap;
	}
	d->pool[d->npool++] = p;
	d->left += p.n;
	return true;
}

/* A read: what its flows share. */
struct read {
	struct xio_engine *e;
	pthread_mutex_t lock;
	struct dispenser d;     /* under lock */
	int rc;                 /* the first failure of any flow (atomic) */
	struct xio_error *err;  /* the caller's: the first failure's, under lock */
	uint64_t completed;     /* units of the chunks complete (atomic): the read
				   is done when it reaches d.total */
	uint64_t pool_gen;      /* bumped when pieces go back to the dispenser (atomic) */
	uint32_t live;          /* flows whose server is up, under lock */
	/* per server: when one of its flows last received new units, and when
	 * the request they answered went out (atomic) */
	uint64_t fresh_ns[XIO_SERVERS_MAX];
	uint64_t fresh_sent_ns[XIO_SERVERS_MAX];
};

/* One flow's part of a read. */
struct job {
	struct xio_flow *f;
	struct read *rd;
	const struct xio_opts *opts;
	const char *path;
	size_t path_len;
	uint64_t chunk;            /* units per chunk */
	uint64_t done;             /* complete prefix last reported (flow 0) */
	uint64_t last_fresh_ns;    /* when new units last arrived (or the start) */
	uint8_t *dst;
	bool raw;
	unsigned width;            /* bytes a unit counts in flight: 4 a token, 1 a byte */
	bool dry;                  /* the dispenser was empty (at pool_gen) */
	uint64_t pool_gen;
	bool gone;                 /* its server was dropped: its chunks handed back */
	unsigned active;           /* slots in use */
	uint64_t held;             /* their units */
	struct piece first;        /* its first chunk, handed out before the flows
				      start (n 0: taken), so that a flow whose
				      thread starts late still reads a part */
	const struct xio_narrow_ops *ops;
	uint64_t refresh;          /* the STAT for a new cookie in flight (its number), 0: none */
	uint64_t refresh_ns;       /* when it was (last) sent */
	unsigned refused;          /* fresh cookies refused in a row */
	uint32_t refused_gen;      /* the last cookie counted there */
	int rc;                    /* this flow's first failure */
	struct xio_error *err;     /* &own_err */
	struct xio_error own_err;
	pthread_t thread;
};

/* Some flow failed: this one stops too. */
static bool stopped(const struct job *j)
{
	return j->rc != 0 || __atomic_load_n(&j->rd->rc, __ATOMIC_ACQUIRE) != 0;
}

/* Ends the waits of the read's other flows (a failure, or the read
 * complete: an idle flow sleeps up to IDLE_POLL_NS); the eventfd stays set
 * until the next read drains it, by when every flow has left its loop. */
static void wake_flows(struct read *rd)
{
	uint64_t one = 1;

	if (rd->e->nflows > 1 && write(rd->e->wake_fd, &one, sizeof(one)) < 0) {
		/* only on overflow: signalled already */
	}
}

/* Every unit of the read is placed. */
static bool all_done(const struct read *rd)
{
	return __atomic_load_n(&rd->completed, __ATOMIC_ACQUIRE) == rd->d.total;
}

/* The flow's lowest dst index being read: it falls (under the read's lock,
 * as chunks are handed out) and rises as its chunks complete. */
static void update_low(struct job *j)
{
	uint64_t low = UINT64_MAX;

	for (uint32_t i = 0; i < j->opts->window; i++)
		if (j->f->slots[i].chunk_seq && j->f->slots[i].dst < low)
			low = j->f->slots[i].dst;
	__atomic_store_n(&j->f->low, low, __ATOMIC_RELEASE);
}

#define COOKIE_TRIES 3 /* fresh cookies refused in a row before the read fails */

enum why { FIRST_TRY, GAP, TIMEOUT, COOKIE }; /* why a request is sent */

/* Asks for units [a, b) of slot's chunk. */
static void send_request(struct job *j, uint32_t slot, uint64_t a, uint64_t b, enum why why,
			 uint64_t now)
{
	struct xio_flow *e = j->f;
	uint32_t max_count = j->opts->max_count;
	uint8_t options = (uint8_t)((j->raw ? XIO_OPT_RAW : 0) | (j->opts->crc ? XIO_OPT_CRC : 0));
	struct xio_req *r;

	if (j->raw && max_count) /* RAW answers count bytes */
		max_count = max_count * 4 > 65535 ? 65535 : max_count * 4;
	r = xio_flow_request(e, XIO_OP_READ_REQUEST, a, (uint32_t)(b - a), (uint16_t)max_count,
			     options, j->path, j->path_len, now);
	r->first_try = why == FIRST_TRY;
	r->slot = slot;
	r->chunk_seq = e->slots[slot].chunk_seq;
	r->a = a;
	r->b = b;
	r->expect = a;
	e->st.re_requests += why != FIRST_TRY;
	e->st.gap_re_requests += why == GAP;
	e->st.timeout_re_requests += why == TIMEOUT;
}

/* Starts chunks while the window has room, taking them from the read's
 * dispenser: a flow that reads faster comes back for more sooner. */
static void fill_window(struct job *j, uint64_t now)
{
	struct xio_flow *e = j->f;

	if (j->dry && !j->gone && __atomic_load_n(&j->rd->pool_gen, __ATOMIC_ACQUIRE) != j->pool_gen)
		j->dry = false; /* a dropped server's pieces came back */
	for (uint32_t i = 0; i < j->opts->window && !j->dry; i++) {
		struct xio_slot *s = &e->slots[i];
		uint64_t start, dst, n, room;
		bool got;

		if (s->chunk_seq)
			continue;
		/* as much as the congestion window has room for, up to a chunk;
		 * while requests are out, not less than a train's worth */
		room = e->inflight < e->cc.cwnd ? (e->cc.cwnd - e->inflight) / j->width : 0;
		if (room == 0 || (j->active > 0 && room < j->chunk && room < XIO_CC_STEP / j->width))
			break;
		if (j->first.n) { /* handed out before the flows started */
			start = j->first.start;
			dst = j->first.dst;
			n = j->first.n;
			j->first.n = 0;
			goto start_chunk;
		}
		pthread_mutex_lock(&j->rd->lock);
		if (j->active > 0 && j->held * (j->rd->live - 1) >= j->rd->d.left) {
			/* no more than a fair part of what is left: the tail of a
			 * read is spread over the flows (and servers) */
			pthread_mutex_unlock(&j->rd->lock);
			break;
		}
		got = dispense(&j->rd->d, room < j->chunk ? room : j->chunk, &start, &dst, &n);
		if (got && dst < e->low)
			__atomic_store_n(&e->low, dst, __ATOMIC_RELEASE);
		if (!got)
			j->pool_gen = j->rd->pool_gen;
		pthread_mutex_unlock(&j->rd->lock);
		if (!got) {
			j->dry = true;
			break;
		}
start_chunk:
		s->chunk_seq = ++e->chunk_seq;
		s->start = start;
		s->dst = dst;
		s->last_ns = s->sent_ns = now;
		s->order = ++e->order;
		s->waiting = true;
		s->retried = false;
		s->fails = 0;
		s->cookie_wait = false;
		xio_missing_reset(&s->miss, s->miss.bits, n);
		send_request(j, i, start, start + n, FIRST_TRY, now);
		e->inflight += n * j->width;
		j->active++;
		j->held += n;
	}
}

/* The flow's first failure; the read's first failure is the caller's
 * error, and the other flows are woken to stop. */
static void fail_job(struct job *j, int rc)
{
	struct read *rd = j->rd;

	if (j->rc != 0)
		return;
	j->rc = rc;
	pthread_mutex_lock(&rd->lock);
	if (rd->rc == 0) {
		if (rd->err)
			*rd->err = j->own_err;
		__atomic_store_n(&rd->rc, rc, __ATOMIC_RELEASE);
		wake_flows(rd);
	}
	pthread_mutex_unlock(&rd->lock);
}

/* 4 for INT32 READ_REPLY, 2 for UINT16 + NARROWED, 1 for DATA_REPLY; 0 for
 * any other combination, reserved flag bits included. */
static unsigned reply_width(const struct xio_hdr *h)
{
	if (h->flags & XIO_F_RESERVED)
		return 0;
	if (h->opcode == XIO_OP_DATA_REPLY)
		return h->dtype == 0 && !(h->flags & XIO_F_NARROWED) ? 1 : 0;
	if (h->dtype == XIO_DT_INT32 && !(h->flags & XIO_F_NARROWED))
		return 4;
	if (h->dtype == XIO_DT_UINT16 && (h->flags & XIO_F_NARROWED))
		return 2;
	return 0;
}

/* Asks the missing ranges of slot i again (a new cookie came): a new round
 * for its timer, no failure counted. */
static void resend_slot(struct job *j, uint32_t i, uint64_t now)
{
	struct xio_slot *s = &j->f->slots[i];
	struct xio_range rg[XIO_RE_REQ_MAX];
	size_t k = xio_missing_ranges(&s->miss, rg, XIO_RE_REQ_MAX);

	for (size_t q = 0; q < k; q++)
		send_request(j, i, s->start + rg[q].a, s->start + rg[q].b, COOKIE, now);
	s->cookie_wait = false;
	s->last_ns = s->sent_ns = now;
	s->order = ++j->f->order;
	s->waiting = true;
	s->retried = true;
}

/* Sends the STAT for a new cookie (again after a timeout: an answer to
 * either counts). */
static void send_refresh(struct job *j, uint64_t now)
{
	if (!j->refresh)
		j->refresh = ++j->f->chunk_seq;
	xio_flow_send_stat(j->f, j->path, j->path_len, j->refresh, false);
	j->refresh_ns = now;
}

/* The server refused request r for its cookie (ERROR_REPLY cookie, or
 * bad_request to a request that carried one). A refusal of what the
 * latest STAT_REPLY gave counts once towards COOKIE_TRIES (one made before
 * any STAT does not); one of an older cookie is asked again at once. */
static void server_lost(struct job *j, const struct xio_error *why);

static void on_cookie_refused(struct job *j, struct xio_req *r, uint32_t code, uint64_t now)
{
	struct xio_flow *e = j->f;
	uint32_t gen = xio_cookie_gen(e->cookie);

	if (code == XIO_E_BAD_REQUEST)
		xio_cookie_drop(e->cookie); /* a 1.0 server: STAT says whether it validates now */
	if (r->cookie_gen && r->cookie_gen == gen && r->cookie_gen != j->refused_gen) {
		j->refused_gen = r->cookie_gen;
		if (++j->refused >= COOKIE_TRIES && j->rd->e->nservers > 1) {
			struct xio_error why; /* in a list: that server is dropped */

			xio_fail(&why, XIO_ESERVER, "refused %u fresh address cookies in a row (%s)",
				 j->refused, xio_err_name(code));
			why.server_code = code;
			server_lost(j, &why);
			return;
		}
		if (j->refused >= COOKIE_TRIES) {
			int rc = xio_fail(j->err, XIO_ESERVER,
					  "%s: server %s refused %u fresh address cookies in a row "
					  "(%s): something on the path changes this host's source "
					  "address (NAT, or servers on one address without a shared "
					  "--cookie-secret), or the refusals are forged",
					  j->path, e->conn.name, j->refused, xio_err_name(code));

			j->err->server_code = code;
			fail_job(j, rc);
			return;
		}
	}
	e->slots[r->slot].cookie_wait = true;
	if (j->refresh)
		return; /* the slot goes again with the cookie on its way */
	if (r->cookie_gen < gen)
		resend_slot(j, r->slot, now); /* a newer STAT_REPLY is here already */
	else
		send_refresh(j, now);
}

/* The STAT_REPLY of the cookie refresh: the new cookie, and the refused
 * chunks asked again. */
static void on_refresh_reply(struct job *j, const uint8_t *b, uint32_t len,
			     const struct xio_hdr *h, uint64_t now)
{
	struct xio_flow *e = j->f;

	e->st.answers++;
	xio_cookie_take(e->cookie, b, len, h);
	e->st.cookie_refreshes++;
	j->refresh = 0;
	for (uint32_t i = 0; i < j->opts->window; i++)
		if (e->slots[i].chunk_seq && e->slots[i].cookie_wait)
			resend_slot(j, i, now);
}

static void on_error_reply(struct job *j, struct xio_req *r, const uint8_t *b, uint32_t len,
			   const struct xio_hdr *h, uint64_t now)
{
	struct xio_flow *e = j->f;
	uint32_t code, mlen;
	const char *msg;
	int rc;

	if (r && r->opcode == XIO_OP_STAT_REQUEST && j->refresh && r->chunk_seq == j->refresh) {
		if (xio_error_parse(b, len, h, &code, &msg, &mlen) < 0) {
			e->st.malformed++;
			return;
		}
		e->st.answers++;
		rc = xio_fail(j->err, XIO_ESERVER, "%s: server %s: STAT for a new cookie: %s: %.*s",
			      j->path, e->conn.name, xio_err_name(code),
			      (int)(mlen > 160 ? 160 : mlen), msg);
		j->err->server_code = code;
		fail_job(j, rc);
		return;
	}
	if (!r || r->opcode != XIO_OP_READ_REQUEST) {
		e->st.ignored++;
		return;
	}
	if (e->slots[r->slot].chunk_seq != r->chunk_seq) {
		e->st.duplicates++; /* a late answer to a chunk already complete */
		return;
	}
	if (xio_error_parse(b, len, h, &code, &msg, &mlen) < 0) {
		e->st.malformed++;
		return;
	}
	e->st.answers++;
	if (code == XIO_E_COOKIE || (code == XIO_E_BAD_REQUEST && r->cookie)) {
		on_cookie_refused(j, r, code, now);
		return;
	}
	rc = xio_fail(j->err, code == XIO_E_RANGE ? XIO_ERANGE : XIO_ESERVER,
		      "%s: server %s: %s: %.*s", j->path, e->conn.name, xio_err_name(code),
		      (int)(mlen > 160 ? 160 : mlen), msg);
	j->err->server_code = code;
	fail_job(j, rc);
}

/* Places units [a, b) of the chunk from the datagram's payload, whose first
 * unit is unit `rel` of the chunk. */
static int place(struct job *j, const struct xio_slot *s, const uint8_t *payload,
		 unsigned width, uint64_t rel, uint64_t a, uint64_t b)
{
	struct xio_flow *e = j->f;
	uint64_t at = s->dst + a; /* index in dst */
	const uint8_t *src = payload + (a - rel) * width;
	size_t n = (size_t)(b - a), k;
	uint64_t sum = 0;

	if (width == 1) {
		memcpy(j->dst + at, src, n);
		return 0;
	}
	if (width == 2) {
		memcpy(j->dst + 2 * at, src, 2 * n);
		return 0;
	}
	k = j->ops->narrow_checked(j->dst + 2 * at, src, n, &sum);
	if (k == n)
		return 0;
	if (j->opts->saturate) {
		e->st.clamped += j->ops->narrow_saturate(j->dst + 2 * (at + k), src + 4 * k, n - k);
		return 0;
	}
	{
		const uint8_t *t = src + 4 * k;
		int32_t v = (int32_t)((uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
				      (uint32_t)t[3] << 24);

		return xio_fail(j->err, XIO_ETOKEN,
				"%s: token %llu is %d, outside 0..65535 (saturate clamps it)",
				j->path, (unsigned long long)(s->start + a + k), v);
	}
}

/* New units arrived for slot s, answering a request sent at sent_ns: its
 * clock restarts, and so do those of the slots still waiting for requests
 * sent after s's; the other flows' are restarted by queued_behind(). */
static void progress(struct job *j, struct xio_slot *s, uint64_t sent_ns, uint64_t now)
{
	struct xio_flow *e = j->f;
	struct read *rd = j->rd;

	if (rd->e->nflows > 1) {
		__atomic_store_n(&rd->fresh_sent_ns[e->server], sent_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&rd->fresh_ns[e->server], now, __ATOMIC_RELAXED);
	}

	for (uint32_t i = 0; i < j->opts->window; i++) {
		struct xio_slot *t = &e->slots[i];

		if (t->chunk_seq && t->waiting && t->order > s->order && t->last_ns < now)
			t->last_ns = now;
	}
	s->last_ns = now;
	s->waiting = false;
	s->fails = 0;
	j->last_fresh_ns = now;
}

/* Asks again at once for what is still missing of [a, b) (file units) of
 * slot s: a hole an answer left behind it. Returns true if anything was. */
static bool repair_gap(struct job *j, struct xio_slot *s, uint64_t a, uint64_t b, uint64_t now)
{
	uint32_t slot = (uint32_t)(s - j->f->slots);
	uint64_t from = a - s->start, end = b - s->start;
	struct xio_range m;
	bool any = false;

	while (xio_missing_next_in(&s->miss, from, end, &m)) {
		send_request(j, slot, s->start + m.a, s->start + m.b, GAP, now);
		any = true;
		from = m.b;
	}
	return any;
}

/* A server answers a request in order (first_token increasing), so a
 * datagram that starts past where the answer had reached leaves a hole;
 * once XIO_REORDER_THRESHOLD datagrams of the answer have arrived past it,
 * it is lost (RFC 9002's packet threshold), not reordered: what is still
 * missing of it is asked again at once, without waiting for the timeout,
 * and the congestion window halves. */
static void track_gaps(struct job *j, struct xio_req *r, struct xio_slot *s, uint64_t first,
		       uint64_t n, uint64_t now)
{
	struct xio_flow *f = j->f;

	if (first > r->expect && r->ngaps < XIO_GAPS_MAX) {
		r->gaps[r->ngaps++] = (struct xio_gap){ r->expect, first, 0 };
		if (r->ngaps == 1 && f->nwatch < XIO_GAP_WATCH)
			f->watch[f->nwatch++] = r->id;
	}
	if (first + n > r->expect)
		r->expect = first + n;
	if (r->expect >= r->b && !r->end_ns)
		r->end_ns = now;
	for (unsigned i = 0; i < r->ngaps;) {
		struct xio_gap *g = &r->gaps[i];

		if (g->b <= first && ++g->after >= XIO_REORDER_THRESHOLD) {
			if (repair_gap(j, s, g->a, g->b, now))
				xio_cc_on_loss(&j->f->cc, r->sent_ns, now);
			r->gaps[i] = r->gaps[--r->ngaps];
			continue;
		}
		i++;
	}
}

/* The time rule, for holes too near the end of an answer to have 3
 * datagrams after them: once the answer has reached the end of its range,
 * a hole still open after a quarter of the round trip (at least 1 ms) is
 * lost, as RFC 9002's time threshold declares a packet lost. Runs with the
 * socket drained; returns when it must look again (UINT64_MAX: nothing to
 * watch). */
static uint64_t check_tail_gaps(struct job *j, uint64_t now)
{
	struct xio_flow *f = j->f;
	uint64_t wait = f->rtt.srtt * 1000 / 4, next = UINT64_MAX;

	if (wait < XIO_GAP_TIME_MIN_NS)
		wait = XIO_GAP_TIME_MIN_NS;
	for (unsigned i = 0; i < f->nwatch;) {
		struct xio_req *r = xio_flow_find_req(f, f->watch[i]);
		struct xio_slot *s;
		bool lost = false;

		if (!r || r->ngaps == 0 || r->opcode != XIO_OP_READ_REQUEST ||
		    f->slots[r->slot].chunk_seq != r->chunk_seq) {
			f->watch[i] = f->watch[--f->nwatch]; /* settled, or its chunk is done */
			continue;
		}
		if (!r->end_ns || now < r->end_ns + wait) {
			if (r->end_ns && r->end_ns + wait < next)
				next = r->end_ns + wait;
			i++;
			continue;
		}
		s = &f->slots[r->slot];
		for (unsigned k = 0; k < r->ngaps; k++)
			lost |= repair_gap(j, s, r->gaps[k].a, r->gaps[k].b, now);
		if (lost)
			xio_cc_on_loss(&f->cc, r->sent_ns, now);
		r->ngaps = 0;
		f->watch[i] = f->watch[--f->nwatch];
	}
	return next;
}

static void on_reply(struct job *j, struct xio_req *r, const uint8_t *b, uint32_t len,
		     const struct xio_hdr *h, uint64_t now)
{
	struct xio_flow *e = j->f;
	unsigned width = reply_width(h);
	const uint8_t *payload = b + h->hdr_len;
	uint64_t plen = len - h->hdr_len, n = h->token_count, rel, fresh;
	struct xio_slot *s;
	struct xio_range m;

	if (width == 0 || n == 0 || plen != n * width) {
		e->st.malformed++;
		return;
	}
	if (h->flags & XIO_F_HAS_CRC ? xio_crc32c(payload, plen) != h->payload_crc : j->opts->crc) {
		e->st.crc_errors++; /* discarded: the range stays missing */
		return;
	}
	if (!r || r->opcode != XIO_OP_READ_REQUEST || h->first_token < r->a ||
	    h->first_token >= r->b || n > r->b - h->first_token) {
		e->st.ignored++;
		return;
	}
	s = &e->slots[r->slot];
	if (s->chunk_seq != r->chunk_seq) {
		e->st.duplicates++;
		return;
	}
	if ((h->flags & XIO_F_LAST) && h->first_token + n < r->b) {
		fail_job(j, xio_fail(j->err, XIO_ERANGE,
				     "%s: the file ends at %s %llu, before the end of the range asked for",
				     j->path, j->raw ? "byte" : "token",
				     (unsigned long long)(h->first_token + n)));
		return;
	}
	if (r->cookie_gen == xio_cookie_gen(e->cookie))
		j->refused = 0; /* the cookie works */
	if (r->first_try && !r->sampled && !s->retried) {
		/* request to the first datagram of its answer; Karn: never a
		 * chunk asked again, whose answer may be to either request */
		r->sampled = 1;
		xio_rtt_sample(&e->rtt, (now - r->sent_ns) / 1000);
	}
	track_gaps(j, r, s, h->first_token, n, now);
	rel = h->first_token - s->start;
	if (!xio_missing_next_in(&s->miss, rel, rel + n, &m)) {
		e->st.duplicates++;
		return;
	}
	do {
		int rc = place(j, s, payload, width, rel, m.a, m.b);

		if (rc < 0) {
			fail_job(j, rc);
			return;
		}
	} while (xio_missing_next_in(&s->miss, m.b, rel + n, &m));
	fresh = xio_missing_mark(&s->miss, rel, rel + n);
	e->inflight -= fresh * j->width;
	xio_cc_on_received(&e->cc, fresh * j->width, r->sent_ns);
	if (j->raw)
		e->st.bytes += fresh;
	else
		e->st.tokens += fresh;
	e->st.replies_uint16 += width == 2;
	e->st.replies_int32 += width == 4;
	e->st.data_replies += width == 1;
	progress(j, s, r->sent_ns, now);
	if (s->miss.got == s->miss.n) {
		if (__atomic_add_fetch(&j->rd->completed, s->miss.n, __ATOMIC_RELEASE) ==
		    j->rd->d.total)
			wake_flows(j->rd); /* the others may wait for handed-back pieces */
		j->held -= s->miss.n;
		s->chunk_seq = 0;
		j->active--;
		update_low(j);
	}
}

static void on_datagram(struct job *j, const uint8_t *b, uint32_t len, uint64_t now)
{
	struct xio_flow *e = j->f;
	struct xio_hdr h;
	struct xio_req *r;

	e->st.datagrams++;
	e->st.bytes_received += len;
	if (len == 0 || xio_hdr_parse(b, len, &h) < 0) {
		e->st.malformed++;
		return;
	}
	r = xio_flow_find_req(e, h.stream_id);
	if (h.opcode == XIO_OP_ERROR_REPLY)
		on_error_reply(j, r, b, len, &h, now);
	else if (h.opcode == XIO_OP_STAT_REPLY && r && r->opcode == XIO_OP_STAT_REQUEST &&
		 j->refresh && r->chunk_seq == j->refresh)
		on_refresh_reply(j, b, len, &h, now);
	else if (h.opcode == (j->raw ? XIO_OP_DATA_REPLY : XIO_OP_READ_REPLY))
		on_reply(j, r, b, len, &h, now);
	else if (r) /* a late answer to an earlier exchange */
		e->st.duplicates++;
	else
		e->st.ignored++;
}

/* Why the flow's server is given up: with one server the read's error as
 * it is; in a list, short (xio_engine_all_failed puts the server's name and
 * the path around it). */
static void timeout_error(struct job *j, const struct xio_slot *s, struct xio_error *why)
{
	struct xio_flow *e = j->f;
	struct xio_range m;
	char more[120] = "";

	if (e->st.refused)
		snprintf(more, sizeof(more), ": port unreachable%s",
			 j->rd->e->nservers == 1 ? ", is the server running?" : "");
	else if (e->conn.send_errno)
		snprintf(more, sizeof(more), ": sending failed: %s", strerror(e->conn.send_errno));
	xio_missing_next(&s->miss, 0, &m);
	if (j->rd->e->nservers > 1) {
		xio_fail(why, XIO_ETIMEOUT, "no answer for %s %llu..%llu after %u tries%s",
			 j->raw ? "bytes" : "tokens", (unsigned long long)(s->start + m.a),
			 (unsigned long long)(s->start + m.b - 1), s->fails, more);
		return;
	}
	xio_fail(why, XIO_ETIMEOUT,
		 "%s: no answer from %s for %s %llu..%llu after %u tries (last timeout %llu ms)%s",
		 j->path, e->conn.name, j->raw ? "bytes" : "tokens",
		 (unsigned long long)(s->start + m.a), (unsigned long long)(s->start + m.b - 1),
		 s->fails, (unsigned long long)(xio_rtt_timeout(&e->rtt, s->fails - 1) / 1000), more);
}

/* The flow's server was dropped (by this flow or another of its flows):
 * what its chunks still miss goes back to the dispenser for the other
 * servers' flows, what they received counts as done. */
static void hand_back(struct job *j)
{
	struct xio_flow *e = j->f;
	struct read *rd = j->rd;
	int rc = 0;

	pthread_mutex_lock(&rd->lock);
	for (uint32_t i = 0; i < j->opts->window; i++) {
		struct xio_slot *s = &e->slots[i];
		struct xio_range m;

		if (!s->chunk_seq)
			continue;
		for (uint64_t from = 0; rc == 0 && xio_missing_next(&s->miss, from, &m); from = m.b)
			if (!pool_add(&rd->d, (struct piece){ s->start + m.a, s->dst + m.a, m.b - m.a }))
				rc = xio_fail(j->err, XIO_ESYS, "%s: out of memory", j->path);
		__atomic_add_fetch(&rd->completed, s->miss.got, __ATOMIC_RELEASE);
		s->chunk_seq = 0;
	}
	if (rc == 0 && j->first.n && !pool_add(&rd->d, j->first)) /* dropped before it started */
		rc = xio_fail(j->err, XIO_ESYS, "%s: out of memory", j->path);
	j->first.n = 0;
	__atomic_add_fetch(&rd->pool_gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&e->low, UINT64_MAX, __ATOMIC_RELEASE);
	rd->live--;
	pthread_mutex_unlock(&rd->lock);
	j->active = 0;
	j->held = 0;
	e->inflight = 0;
	j->gone = j->dry = true;
	if (rc < 0)
		fail_job(j, rc);
}

/* The flow's server is given up for *why: dropped, its ranges go to the
 * others; with no server left the read fails, naming each. */
static void server_lost(struct job *j, const struct xio_error *why)
{
	if (xio_engine_drop(j->rd->e, j->f->server, why) == 0) {
		fail_job(j, xio_engine_all_failed(j->rd->e, j->path, j->err));
		return;
	}
	hand_back(j);
}

/* The flow's slot s ran out of tries. */
static void server_failed(struct job *j, const struct xio_slot *s)
{
	struct xio_error why;

	timeout_error(j, s, &why);
	server_lost(j, &why);
}

/* Another flow of this one's server dropped it. */
static bool server_dropped(const struct job *j)
{
	return __atomic_load_n(&j->rd->e->servers[j->f->server].state, __ATOMIC_RELAXED) !=
	       XIO_SERVER_UP;
}

/* A slot still waiting for its request's first answer while another flow
 * of the read receives new units for a request sent before it: with a
 * server that answers the flows in turn (one thread), the request is
 * queued behind that one, not late. Its clock restarts. */
static void queued_behind(struct job *j, struct xio_slot *s)
{
	uint64_t fresh = __atomic_load_n(&j->rd->fresh_ns[j->f->server], __ATOMIC_RELAXED);
	uint64_t sent = __atomic_load_n(&j->rd->fresh_sent_ns[j->f->server], __ATOMIC_RELAXED);

	if (s->waiting && fresh > s->last_ns && sent <= s->sent_ns)
		s->last_ns = fresh;
}

/* The slot to ask again first when the whole server fell silent: the one
 * whose request went out first among those whose timer expired. */
static int silent_head(struct job *j, uint64_t now)
{
	struct xio_flow *e = j->f;
	int head = -1;

	if (now - j->last_fresh_ns < xio_rtt_timeout(&e->rtt, 0) * 1000)
		return -1; /* answers are flowing: not silent */
	for (uint32_t i = 0; i < j->opts->window; i++) {
		const struct xio_slot *s = &e->slots[i];

		if (s->chunk_seq && s->last_ns + xio_rtt_timeout(&e->rtt, s->fails) * 1000 <= now &&
		    (head < 0 || s->order < e->slots[head].order))
			head = (int)i;
	}
	return head;
}

/* Re-requests the missing ranges of slots whose answer stopped arriving;
 * fails the job after `retries` timeouts in a row. When nothing at all has
 * arrived for a timeout (a server that stalled, restarted or died), only
 * the oldest request is asked again: if the server answers it, the others
 * were only queued behind it. Returns the earliest deadline left. */
static uint64_t check_timers(struct job *j, uint64_t now)
{
	struct xio_flow *e = j->f;
	int head = silent_head(j, now);
	uint64_t next = UINT64_MAX;

	for (uint32_t i = 0; i < j->opts->window && j->rc == 0; i++) {
		struct xio_slot *s = &e->slots[i];
		struct xio_range rg[XIO_RE_REQ_MAX];
		uint64_t deadline;
		size_t k;

		if (!s->chunk_seq)
			continue;
		queued_behind(j, s);
		deadline = s->last_ns + xio_rtt_timeout(&e->rtt, s->fails) * 1000;
		if (deadline > now) {
			next = deadline < next ? deadline : next;
			continue;
		}
		e->st.timeouts++;
		if (++s->fails > j->opts->retries) {
			server_failed(j, s);
			return UINT64_MAX;
		}
		xio_rtt_backoff(&e->rtt, s->fails);
		s->last_ns = now;
		deadline = now + xio_rtt_timeout(&e->rtt, s->fails) * 1000;
		next = deadline < next ? deadline : next;
		if (s->cookie_wait && j->refresh) {
			if (j->refresh_ns < now) /* the STAT for its cookie, once a round */
				send_refresh(j, now);
			continue;
		}
		if (head >= 0 && (uint32_t)head != i)
			continue; /* behind the head */
		xio_cc_on_timeout(&e->cc, s->sent_ns, now);
		k = xio_missing_ranges(&s->miss, rg, XIO_RE_REQ_MAX);
		for (size_t q = 0; q < k; q++)
			send_request(j, i, s->start + rg[q].a, s->start + rg[q].b, TIMEOUT, now);
		s->order = ++e->order;
		s->sent_ns = now;
		s->waiting = true;
		s->retried = true;
	}
	return next;
}

/* The complete prefix of the read: below every flow's lowest chunk being
 * read and below the next chunk to hand out. Flow 0 only. */
static void report_progress(struct job *j)
{
	struct xio_engine *eng = j->rd->e;
	uint64_t low;

	if (!eng->progress)
		return;
	pthread_mutex_lock(&j->rd->lock);
	low = j->rd->d.dst;
	for (size_t i = 0; i < j->rd->d.npool; i++)
		low = j->rd->d.pool[i].dst < low ? j->rd->d.pool[i].dst : low;
	for (uint32_t i = 0; i < eng->nflows; i++) {
		uint64_t l = __atomic_load_n(&eng->flows[i].low, __ATOMIC_ACQUIRE);

		low = l < low ? l : low;
	}
	pthread_mutex_unlock(&j->rd->lock);
	if (low > j->done) {
		j->done = low;
		eng->progress(eng->progress_arg, j->done, j->rd->d.total);
	}
}

/* Receives what is waiting, a few batches at most. Returns true when the
 * socket is empty: only then may a timer say that an answer stopped (a
 * consumer that stalled, say on page faults in the output, finds the
 * answers that arrived meanwhile waiting in the socket). */
static bool receive(struct job *j)
{
	struct xio_flow *e = j->f;
	struct xio_rx rx[XIO_RX_BATCH];

	for (int round = 0; round < RX_BATCHES_PER_WAKE && !stopped(j); round++) {
		int n = xio_conn_recv(&e->conn, rx, &e->st.refused, j->err);

		if (n < 0) {
			fail_job(j, n);
			return true;
		}
		for (int i = 0; i < n; i++) {
			const uint8_t *b = xio_conn_rx(&e->conn, i);
			/* the time of each buffer: placing may stall on page faults */
			uint64_t now = xio_now_ns();

			for (uint32_t k = 0, off; k < xio_gro_count(rx[i].len, rx[i].gso); k++) {
				uint32_t len = xio_gro_segment(rx[i].len, rx[i].gso, k, &off);

				if (j->rc == 0) {
					on_datagram(j, b + off, len, now);
					continue;
				}
				e->st.datagrams++; /* received after the read failed */
				e->st.bytes_received += len;
				e->st.ignored++;
			}
		}
		if (n < XIO_RX_BATCH)
			return true;
	}
	return false;
}

#define TAIL_POLL_NS 250000  /* flow 0, done, reports progress while others finish */
#define IDLE_POLL_NS 5000000 /* another flow, done, looks for pieces handed back */

/* One flow's loop: chunks from the dispenser until the whole read is
 * placed (a flow with nothing to do waits, in case a dropped server's
 * pieces come back), its server is dropped (the reporter goes on
 * reporting), or some flow fails. */
static void run_flow(struct job *j, bool reporter)
{
	struct xio_flow *e = j->f;
	int rc;

	j->last_fresh_ns = xio_now_ns();
	fill_window(j, j->last_fresh_ns);
	xio_conn_flush(&e->conn, &e->st.refused);
	while (!stopped(j) && (j->active > 0 || !all_done(j->rd)) && (reporter || !j->gone)) {
		uint64_t deadline = UINT64_MAX;
		bool drained;

		if (!j->gone && server_dropped(j)) {
			hand_back(j);
			continue;
		}
		drained = receive(j);

		if (drained && !stopped(j)) {
			uint64_t tail = check_tail_gaps(j, xio_now_ns());

			deadline = check_timers(j, xio_now_ns());
			deadline = tail < deadline ? tail : deadline;
		}
		fill_window(j, xio_now_ns());
		xio_conn_flush(&e->conn, &e->st.refused);
		if (reporter)
			report_progress(j);
		if (stopped(j) || !drained)
			continue; /* failed, or more waiting to be read */
		if (j->active == 0) {
			/* nothing of its own in flight: the read is done (the
			 * loop's test ends it), or the other flows finish theirs;
			 * flow 0 polls to report their progress, the others in
			 * case a dropped server's pieces come back */
			if (all_done(j->rd))
				continue;
			deadline = xio_now_ns() + (reporter ? TAIL_POLL_NS : IDLE_POLL_NS);
		} else if (deadline == UINT64_MAX) { /* chunks started after the timers were looked at */
			deadline = xio_now_ns() + xio_rtt_timeout(&e->rtt, 0) * 1000;
		}
		rc = xio_conn_wait(&e->conn, j->rd->e->wake_fd, deadline, j->err);
		if (rc < 0)
			fail_job(j, rc);
		else if (rc == 2 && __atomic_load_n(&j->rd->e->canceled, __ATOMIC_ACQUIRE))
			fail_job(j, xio_fail(j->err, XIO_ECANCELED, "%s: canceled", j->path));
	}
	for (uint32_t i = 0; i < j->opts->window; i++)
		e->slots[i].chunk_seq = 0; /* answers still on the way are late */
	e->inflight = 0;
	e->nwatch = 0;
	__atomic_store_n(&e->low, UINT64_MAX, __ATOMIC_RELEASE);
}

static void *flow_thread(void *arg)
{
	run_flow(arg, false);
	return NULL;
}

/* Chunks in the spans: no more flows than that are started. */
static uint64_t count_chunks(const struct dispenser *d, uint64_t chunk)
{
	uint64_t n = 0;

	for (size_t i = 0; i < d->n; i++)
		n += (d->spans[i].count + chunk - 1) / chunk;
	return n;
}

/* Empties the wake eventfd of an earlier read's failure. */
static void drain_wake(struct xio_engine *e)
{
	uint64_t v;

	if (read(e->wake_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing to drain */
	}
}

int xio_engine_readv(struct xio_engine *e, const char *path, const struct xio_span *spans,
		     size_t n, uint8_t *dst, bool raw, struct xio_error *err)
{
	struct read rd = { .e = e, .d = { .spans = spans, .n = n }, .err = err };
	struct job jobs[XIO_FLOWS_MAX];
	uint64_t chunk = raw ? e->slot_units : e->opts.chunk_tokens;
	uint32_t nflows = 0, up[XIO_FLOWS_MAX];
	size_t path_len;
	int rc = xio_path_len(path, &path_len, err);

	if (rc < 0)
		return rc;
	if (!spans && n)
		return xio_fail(err, XIO_EARG, "%s: no spans", path);
	for (size_t i = 0; i < n; i++) {
		if (spans[i].first + spans[i].count < spans[i].first ||
		    rd.d.total + spans[i].count < rd.d.total)
			return xio_fail(err, XIO_EARG, "%s: span %zu (%llu + %llu) overflows", path, i,
					(unsigned long long)spans[i].first,
					(unsigned long long)spans[i].count);
		rd.d.total += spans[i].count;
	}
	rd.d.left = rd.d.total;
	if (!dst || rd.d.total == 0)
		return xio_fail(err, XIO_EARG, "%s: nothing to read into (count %llu)", path,
				(unsigned long long)rd.d.total);
	if (__atomic_load_n(&e->canceled, __ATOMIC_ACQUIRE))
		return xio_fail(err, XIO_ECANCELED, "%s: canceled", path);
	drain_wake(e);
	/* the flows of the servers up, in order (they alternate servers) */
	pthread_mutex_lock(&e->server_lock);
	for (uint32_t i = 0; i < e->nflows; i++)
		if (e->servers[e->flows[i].server].state == XIO_SERVER_UP)
			up[nflows++] = i;
	pthread_mutex_unlock(&e->server_lock);
	if (nflows == 0)
		return xio_engine_all_failed(e, path, err);
	if (count_chunks(&rd.d, chunk) < nflows)
		nflows = (uint32_t)count_chunks(&rd.d, chunk);
	pthread_mutex_init(&rd.lock, NULL);
	rd.live = nflows;
	for (uint32_t i = 0; i < nflows; i++) {
		struct job *j = &jobs[i];
		struct piece first = { 0 };

		*j = (struct job){
			.f = &e->flows[up[i]], .rd = &rd, .opts = &e->opts, .path = path,
			.path_len = path_len, .chunk = chunk, .dst = dst, .raw = raw,
			.width = raw ? 1 : 4,
			.ops = xio_narrow_ops(),
		};
		j->err = &j->own_err;
		if (dispense(&rd.d, chunk < j->f->cc.cwnd / j->width ? chunk : j->f->cc.cwnd / j->width,
			     &first.start, &first.dst, &first.n)) {
			j->first = first;
			__atomic_store_n(&j->f->low, first.dst, __ATOMIC_RELEASE);
		}
	}
	/* flows 1.. on threads of their own, flow 0 on the caller's */
	for (uint32_t i = 1; i < nflows; i++)
		if (pthread_create(&jobs[i].thread, NULL, flow_thread, &jobs[i]) != 0) {
			/* fewer flows: the dispenser serves the rest, their first
			 * chunks included */
			bool kept = true;

			pthread_mutex_lock(&rd.lock);
			for (uint32_t k = i; k < nflows; k++) {
				kept &= jobs[k].first.n == 0 || pool_add(&rd.d, jobs[k].first);
				__atomic_store_n(&jobs[k].f->low, UINT64_MAX, __ATOMIC_RELEASE);
			}
			rd.live = nflows = i;
			pthread_mutex_unlock(&rd.lock);
			if (!kept) { /* flow 0 alone: fails before it reads */
				__atomic_store_n(&rd.rc, xio_fail(err, XIO_ESYS, "%s: out of memory", path),
						 __ATOMIC_RELEASE);
			}
			break;
		}
	run_flow(&jobs[0], true);
	for (uint32_t i = 1; i < nflows; i++)
		pthread_join(jobs[i].thread, NULL);
	pthread_mutex_destroy(&rd.lock);
	free(rd.d.pool);
	if (rd.rc == 0 && e->progress && jobs[0].done < rd.d.total)
		e->progress(e->progress_arg, rd.d.total, rd.d.total);
	return rd.rc;
}

int xio_engine_read(struct xio_engine *e, const char *path, uint64_t first, uint64_t count,
		    uint8_t *dst, bool raw, struct xio_error *err)
{
	struct xio_span one = { first, count };

	return xio_engine_readv(e, path, &one, 1, dst, raw, err);
}
