/* SPDX-License-Identifier: BSD-3-Clause
 * xio_read.c: the windowed read. The spans asked for (one range, or many
 * ranges of one file) are cut into chunks, none crossing the end of a
 * span; up to `window` of them are asked for at once, each by a
 * READ_REQUEST, and each is placed at its span's offset in the caller's
 * memory. Every
 * answer datagram is checked (header, dtype and length, CRC32C as it
 * arrived, the request it answers and that request's range) and placed at
 * its first_token: UINT16 payloads (narrowed on the way) are copied,
 * INT32 payloads are narrowed here by the stage core's SIMD kernels. Only
 * units not received yet are placed and counted, so duplicates and late
 * answers change nothing. A chunk whose answer stops for a timeout (the
 * adaptive one of xio_rtt.c) is asked again for exactly its missing
 * ranges, with new stream_ids, until `retries` timeouts in a row bring
 * nothing.
 *
 * Address validation (xio-read 1.2): every READ_REQUEST carries the
 * engine's cookie when the server gave one. ERROR_REPLY cookie (the cookie
 * expired, or none was sent) is no failure: the job STATs for a new cookie
 * (one STAT at a time, asked again on its timeout) and asks the refused
 * chunks again once it comes. Three fresh cookies refused in a row without
 * data in between fail the read: something on the path changes the source
 * address. bad_request to a request that carried a cookie (a server back
 * at 1.0) drops the cookie and STATs the same way.
 */
#include <stdio.h>
#include <string.h>

#include "xio_crc.h"
#include "xio_msg.h"
#include "xio_narrow.h"
#include "xio_priv.h"

#define RX_BATCHES_PER_WAKE 8 /* then look at the timers again */

/* Hands out the chunks of a read: the spans in order, each cut into chunks
 * of at most `max` units; a chunk never crosses the end of a span. */
struct dispenser {
	const struct xio_span *spans;
	size_t n;
	size_t i;      /* the span of the next chunk */
	uint64_t off;  /* its first unit's offset in that span */
	uint64_t dst;  /* its index in the caller's memory */
	uint64_t total; /* units of all spans */
};

/* The next chunk, at most max units: false when every span is handed out. */
static bool dispense(struct dispenser *d, uint64_t max, uint64_t *start, uint64_t *dst,
		     uint64_t *n)
{
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
	return true;
}

struct job {
	struct xio_engine *e;
	const char *path;
	size_t path_len;
	struct dispenser d;
	uint64_t chunk;            /* units per chunk */
	uint64_t done;             /* complete prefix last reported */
	uint64_t last_fresh_ns;    /* when new units last arrived (or the start) */
	uint8_t *dst;
	bool raw;
	bool dry;                  /* every chunk handed out */
	unsigned active;           /* slots in use */
	const struct xio_narrow_ops *ops;
	uint64_t refresh;          /* the STAT for a new cookie in flight (its number), 0: none */
	uint64_t refresh_ns;       /* when it was (last) sent */
	unsigned refused;          /* fresh cookies refused in a row */
	uint32_t refused_gen;      /* the last cookie counted there */
	int rc;                    /* the first failure */
	struct xio_error *err;
};

#define COOKIE_TRIES 3 /* fresh cookies refused in a row before the read fails */

static void send_request(struct job *j, uint32_t slot, uint64_t a, uint64_t b, bool first_try,
			 uint64_t now)
{
	struct xio_engine *e = j->e;
	struct xio_req *r = xio_engine_new_req(e);
	uint8_t *buf = xio_conn_tx_buf(&e->conn, &e->st.refused);
	uint32_t max_count = e->opts.max_count;
	uint8_t options = (uint8_t)((j->raw ? XIO_OPT_RAW : 0) | (e->opts.crc ? XIO_OPT_CRC : 0));
	size_t len;

	if (j->raw && max_count) /* RAW answers count bytes */
		max_count = max_count * 4 > 65535 ? 65535 : max_count * 4;
	len = xio_request_build(buf, XIO_TX_SLOT, XIO_OP_READ_REQUEST, r->id, a, (uint32_t)(b - a),
				(uint16_t)max_count, options, j->path, j->path_len);
	len = xio_cookie_add(e, buf, len);
	xio_conn_tx_commit(&e->conn, len);
	r->opcode = XIO_OP_READ_REQUEST;
	r->cookie_gen = e->cookie.gen;
	r->cookie = e->cookie.have;
	r->first_try = first_try;
	r->slot = slot;
	r->chunk_seq = e->slots[slot].chunk_seq;
	r->a = a;
	r->b = b;
	r->sent_ns = now;
	e->st.requests++;
	if (!first_try)
		e->st.re_requests++;
}

/* Starts chunks while the window has room. */
static void fill_window(struct job *j, uint64_t now)
{
	struct xio_engine *e = j->e;

	for (uint32_t i = 0; i < e->opts.window && !j->dry; i++) {
		struct xio_slot *s = &e->slots[i];
		uint64_t start, dst, n;

		if (s->chunk_seq)
			continue;
		if (!dispense(&j->d, j->chunk, &start, &dst, &n)) {
			j->dry = true;
			break;
		}
		s->chunk_seq = ++e->chunk_seq;
		s->start = start;
		s->dst = dst;
		s->last_ns = now;
		s->order = ++e->order;
		s->waiting = true;
		s->retried = false;
		s->fails = 0;
		s->cookie_wait = false;
		xio_missing_reset(&s->miss, s->miss.bits, n);
		send_request(j, i, start, start + n, true, now);
		j->active++;
	}
}

static void fail_job(struct job *j, int rc)
{
	if (j->rc == 0)
		j->rc = rc;
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

/* Asks the missing ranges of slot i again (the next cookie came): a new
 * round for its timer, no failure counted. */
static void resend_slot(struct job *j, uint32_t i, uint64_t now)
{
	struct xio_engine *e = j->e;
	struct xio_slot *s = &e->slots[i];
	struct xio_range rg[XIO_RE_REQ_MAX];
	size_t k = xio_missing_ranges(&s->miss, rg, XIO_RE_REQ_MAX);

	for (size_t q = 0; q < k; q++)
		send_request(j, i, s->start + rg[q].a, s->start + rg[q].b, false, now);
	s->cookie_wait = false;
	s->last_ns = now;
	s->order = ++e->order;
	s->waiting = true;
	s->retried = true;
}

/* Sends the STAT for a new cookie (again after a timeout: any answer to
 * either counts). */
static void send_refresh(struct job *j, uint64_t now)
{
	struct xio_engine *e = j->e;

	if (!j->refresh)
		j->refresh = ++e->chunk_seq;
	xio_engine_send_stat(e, j->path, j->path_len, j->refresh, false);
	j->refresh_ns = now;
}

/* The server refused request r for its cookie (ERROR_REPLY cookie, or
 * bad_request to a request that carried one). A refusal of what the latest
 * STAT_REPLY gave counts once towards COOKIE_TRIES (one made before any
 * STAT does not); one of an older cookie is asked again at once. */
static void on_cookie_refused(struct job *j, struct xio_req *r, uint32_t code, uint64_t now)
{
	struct xio_engine *e = j->e;

	if (code == XIO_E_BAD_REQUEST)
		e->cookie.have = false; /* a 1.0 server: STAT says whether it validates now */
	if (r->cookie_gen && r->cookie_gen == e->cookie.gen && r->cookie_gen != j->refused_gen) {
		j->refused_gen = r->cookie_gen;
		if (++j->refused >= COOKIE_TRIES) {
			fail_job(j, xio_fail(j->err, XIO_ESERVER,
					     "%s: server %s refused %u fresh address cookies in a row "
					     "(%s): something on the path changes this host's source "
					     "address (NAT, or servers on one address without a shared "
					     "--cookie-secret), or the refusals are forged",
					     j->path, e->conn.name, j->refused, xio_err_name(code)));
			if (j->err)
				j->err->server_code = code;
			return;
		}
	}
	e->slots[r->slot].cookie_wait = true;
	if (j->refresh)
		return; /* the slot goes again with the cookie on its way */
	if (r->cookie_gen < e->cookie.gen)
		resend_slot(j, r->slot, now); /* a newer STAT_REPLY is here already */
	else
		send_refresh(j, now);
}

/* The STAT_REPLY of the cookie refresh: the new cookie, and the refused
 * chunks asked again. */
static void on_refresh_reply(struct job *j, const uint8_t *b, uint32_t len,
			     const struct xio_hdr *h, uint64_t now)
{
	struct xio_engine *e = j->e;

	e->st.answers++;
	xio_cookie_take(e, b, len, h);
	e->st.cookie_refreshes++;
	j->refresh = 0;
	for (uint32_t i = 0; i < e->opts.window; i++)
		if (e->slots[i].chunk_seq && e->slots[i].cookie_wait)
			resend_slot(j, i, now);
}

static void on_error_reply(struct job *j, struct xio_req *r, const uint8_t *b, uint32_t len,
			   const struct xio_hdr *h, uint64_t now)
{
	struct xio_engine *e = j->e;
	uint32_t code, mlen;
	const char *msg;

	if (r && r->opcode == XIO_OP_STAT_REQUEST && j->refresh && r->chunk_seq == j->refresh) {
		if (xio_error_parse(b, len, h, &code, &msg, &mlen) < 0) {
			e->st.malformed++;
			return;
		}
		e->st.answers++;
		fail_job(j, xio_fail(j->err, XIO_ESERVER, "%s: server %s: STAT for a new cookie: "
				     "%s: %.*s", j->path, e->conn.name, xio_err_name(code),
				     (int)(mlen > 160 ? 160 : mlen), msg));
		if (j->err)
			j->err->server_code = code;
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
	fail_job(j, xio_fail(j->err, code == XIO_E_RANGE ? XIO_ERANGE : XIO_ESERVER,
			     "%s: server %s: %s: %.*s", j->path, e->conn.name, xio_err_name(code),
			     (int)(mlen > 160 ? 160 : mlen), msg));
	if (j->err)
		j->err->server_code = code;
}

/* Places units [a, b) of the chunk from the datagram's payload, whose first
 * unit is unit `rel` of the chunk. */
static int place(struct job *j, const struct xio_slot *s, const uint8_t *payload,
		 unsigned width, uint64_t rel, uint64_t a, uint64_t b)
{
	struct xio_engine *e = j->e;
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
	if (e->opts.saturate) {
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

/* New units arrived for slot s: its clock restarts, and so do those of the
 * slots still waiting for requests sent after s's. */
static void progress(struct job *j, struct xio_slot *s, uint64_t now)
{
	struct xio_engine *e = j->e;

	for (uint32_t i = 0; i < e->opts.window; i++) {
		struct xio_slot *t = &e->slots[i];

		if (t->chunk_seq && t->waiting && t->order > s->order && t->last_ns < now)
			t->last_ns = now;
	}
	s->last_ns = now;
	s->waiting = false;
	s->fails = 0;
	j->last_fresh_ns = now;
}

static void on_reply(struct job *j, struct xio_req *r, const uint8_t *b, uint32_t len,
		     const struct xio_hdr *h, uint64_t now)
{
	struct xio_engine *e = j->e;
	unsigned width = reply_width(h);
	const uint8_t *payload = b + h->hdr_len;
	uint64_t plen = len - h->hdr_len, n = h->token_count, rel, fresh;
	struct xio_slot *s;
	struct xio_range m;

	if (width == 0 || n == 0 || plen != n * width) {
		e->st.malformed++;
		return;
	}
	if (h->flags & XIO_F_HAS_CRC ? xio_crc32c(payload, plen) != h->payload_crc : e->opts.crc) {
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
	if (r->cookie_gen == e->cookie.gen)
		j->refused = 0; /* the cookie works */
	if (r->first_try && !r->sampled && !s->retried) {
		/* request to the first datagram of its answer; Karn: never a
		 * chunk asked again, whose answer may be to either request */
		r->sampled = 1;
		xio_rtt_sample(&e->rtt, (now - r->sent_ns) / 1000);
	}
	rel = h->first_token - s->start;
	if (!xio_missing_next(&s->miss, rel, &m) || m.a >= rel + n) {
		e->st.duplicates++;
		return;
	}
	do {
		uint64_t end = m.b < rel + n ? m.b : rel + n;
		int rc = place(j, s, payload, width, rel, m.a, end);

		if (rc < 0) {
			fail_job(j, rc);
			return;
		}
	} while (xio_missing_next(&s->miss, m.b, &m) && m.a < rel + n);
	fresh = xio_missing_mark(&s->miss, rel, rel + n);
	if (j->raw)
		e->st.bytes += fresh;
	else
		e->st.tokens += fresh;
	e->st.replies_uint16 += width == 2;
	e->st.replies_int32 += width == 4;
	e->st.data_replies += width == 1;
	progress(j, s, now);
	if (s->miss.got == s->miss.n) {
		s->chunk_seq = 0;
		j->active--;
	}
}

static void on_datagram(struct job *j, const uint8_t *b, uint32_t len, uint64_t now)
{
	struct xio_engine *e = j->e;
	struct xio_hdr h;
	struct xio_req *r;

	e->st.datagrams++;
	e->st.bytes_received += len;
	if (len == 0 || xio_hdr_parse(b, len, &h) < 0) {
		e->st.malformed++;
		return;
	}
	r = xio_engine_find_req(e, h.stream_id);
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

static int timeout_error(struct job *j, const struct xio_slot *s)
{
	struct xio_engine *e = j->e;
	struct xio_range m;
	char why[120] = "";

	if (e->st.refused)
		snprintf(why, sizeof(why), ": port unreachable, is the server running?");
	else if (e->conn.send_errno)
		snprintf(why, sizeof(why), ": sending failed: %s", strerror(e->conn.send_errno));
	xio_missing_next(&s->miss, 0, &m);
	return xio_fail(j->err, XIO_ETIMEOUT,
			"%s: no answer from %s for %s %llu..%llu after %u tries (last timeout %llu ms)%s",
			j->path, e->conn.name, j->raw ? "bytes" : "tokens",
			(unsigned long long)(s->start + m.a), (unsigned long long)(s->start + m.b - 1),
			s->fails, (unsigned long long)(xio_rtt_timeout(&e->rtt, s->fails - 1) / 1000),
			why);
}

/* The slot to ask again first when the whole server fell silent: the one
 * whose request went out first among those whose timer expired. */
static int silent_head(struct job *j, uint64_t now)
{
	struct xio_engine *e = j->e;
	int head = -1;

	if (now - j->last_fresh_ns < xio_rtt_timeout(&e->rtt, 0) * 1000)
		return -1; /* answers are flowing: not silent */
	for (uint32_t i = 0; i < e->opts.window; i++) {
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
	struct xio_engine *e = j->e;
	int head = silent_head(j, now);
	uint64_t next = UINT64_MAX;

	for (uint32_t i = 0; i < e->opts.window && j->rc == 0; i++) {
		struct xio_slot *s = &e->slots[i];
		struct xio_range rg[XIO_RE_REQ_MAX];
		uint64_t deadline;
		size_t k;

		if (!s->chunk_seq)
			continue;
		deadline = s->last_ns + xio_rtt_timeout(&e->rtt, s->fails) * 1000;
		if (deadline > now) {
			next = deadline < next ? deadline : next;
			continue;
		}
		e->st.timeouts++;
		if (++s->fails > e->opts.retries) {
			fail_job(j, timeout_error(j, s));
			break;
		}
		xio_rtt_backoff(&e->rtt, s->fails);
		s->last_ns = now;
		deadline = now + xio_rtt_timeout(&e->rtt, s->fails) * 1000;
		next = deadline < next ? deadline : next;
		if (s->cookie_wait && j->refresh) {
			if (j->refresh_ns < now) /* the STAT for its cookie, once per round */
				send_refresh(j, now);
			continue;
		}
		if (head >= 0 && (uint32_t)head != i)
			continue; /* behind the head */
		k = xio_missing_ranges(&s->miss, rg, XIO_RE_REQ_MAX);
		for (size_t q = 0; q < k; q++)
			send_request(j, i, s->start + rg[q].a, s->start + rg[q].b, false, now);
		s->order = ++e->order;
		s->waiting = true;
		s->retried = true;
	}
	return next;
}

static void report_progress(struct job *j)
{
	struct xio_engine *e = j->e;
	uint64_t low = j->d.dst;

	if (!e->progress)
		return;
	for (uint32_t i = 0; i < e->opts.window; i++)
		if (e->slots[i].chunk_seq && e->slots[i].dst < low)
			low = e->slots[i].dst;
	if (low > j->done) {
		j->done = low;
		e->progress(e->progress_arg, j->done, j->d.total);
	}
}

/* Receives what is waiting, a few batches at most. Returns true when the
 * socket is empty: only then may a timer say that an answer stopped (a
 * consumer that stalled, say on page faults in the output, finds the
 * answers that arrived meanwhile waiting in the socket). */
static bool receive(struct job *j)
{
	struct xio_engine *e = j->e;
	struct xio_rx rx[XIO_RX_BATCH];

	for (int round = 0; round < RX_BATCHES_PER_WAKE && j->rc == 0; round++) {
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

int xio_engine_readv(struct xio_engine *e, const char *path, const struct xio_span *spans,
		     size_t n, uint8_t *dst, bool raw, struct xio_error *err)
{
	struct job j = {
		.e = e, .path = path, .d = { .spans = spans, .n = n },
		.chunk = raw ? e->slot_units : e->opts.chunk_tokens, .dst = dst, .raw = raw,
		.ops = xio_narrow_ops(), .err = err,
	};
	int rc = xio_path_len(path, &j.path_len, err);

	if (rc < 0)
		return rc;
	if (!spans && n)
		return xio_fail(err, XIO_EARG, "%s: no spans", path);
	for (size_t i = 0; i < n; i++) {
		if (spans[i].first + spans[i].count < spans[i].first ||
		    j.d.total + spans[i].count < j.d.total)
			return xio_fail(err, XIO_EARG, "%s: span %zu (%llu + %llu) overflows", path, i,
					(unsigned long long)spans[i].first,
					(unsigned long long)spans[i].count);
		j.d.total += spans[i].count;
	}
	if (!dst || j.d.total == 0)
		return xio_fail(err, XIO_EARG, "%s: nothing to read into (count %llu)", path,
				(unsigned long long)j.d.total);
	j.last_fresh_ns = xio_now_ns();
	fill_window(&j, j.last_fresh_ns);
	xio_conn_flush(&e->conn, &e->st.refused);
	while (j.active > 0 && j.rc == 0) {
		uint64_t deadline = UINT64_MAX;

		if (receive(&j) && j.rc == 0)
			deadline = check_timers(&j, xio_now_ns());
		fill_window(&j, xio_now_ns());
		xio_conn_flush(&e->conn, &e->st.refused);
		report_progress(&j);
		if (j.rc || j.active == 0 || deadline == UINT64_MAX)
			continue; /* done, failed, or more waiting to be read */
		rc = xio_conn_wait(&e->conn, e->wake_fd, deadline, err);
		if (rc < 0)
			fail_job(&j, rc);
	}
	for (uint32_t i = 0; i < e->opts.window; i++)
		e->slots[i].chunk_seq = 0; /* answers still on the way are late */
	return j.rc;
}

int xio_engine_read(struct xio_engine *e, const char *path, uint64_t first, uint64_t count,
		    uint8_t *dst, bool raw, struct xio_error *err)
{
	struct xio_span one = { first, count };

	return xio_engine_readv(e, path, &one, 1, dst, raw, err);
}
