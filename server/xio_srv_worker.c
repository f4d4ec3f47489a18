/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_worker.c: a worker's receive-answer loop (xio_srv_worker.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "xio_srv_worker.h"

/* Sends the single answers collected so far. */
static void flush_replies(struct xio_srv_worker *w)
{
	if (w->nreply == 0)
		return;
	xio_srv_sock_send_replies(&w->sock, w->reply_buf, w->reply_len, w->reply_dest, w->nreply,
				  w->pace, &w->counters);
	w->nreply = 0;
}

/* Queues out[0..len) (in w->reply[w->nreply]) as a single answer to d. */
static void queue_reply(struct xio_srv_worker *w, size_t len, const struct xio_srv_dest *d,
			enum xio_srv_ans kind, uint32_t code)
{
	struct xio_srv_counters *c = &w->counters;

	w->reply_buf[w->nreply] = w->reply[w->nreply];
	w->reply_len[w->nreply] = len;
	w->reply_dest[w->nreply] = *d;
	w->nreply++;
	XIO_SRV_ADD(c->answers[kind], 1);
	if (code)
		XIO_SRV_ADD(c->errors[code], 1);
	if (w->nreply == XIO_SRV_RX_BATCH)
		flush_replies(w);
}

/* The cache keeps every file a batch's answers read open: a batch opens at
 * most XIO_SRV_RX_BATCH files, and the least recently used go first. */
_Static_assert(XIO_SRV_FILES_DEFAULT > XIO_SRV_RX_BATCH, "a batch's files stay open");

static bool same_client(const struct xio_srv_dest *a, const struct xio_srv_dest *b)
{
	return a->peer_len == b->peer_len && memcmp(&a->peer, &b->peer, a->peer_len) == 0;
}

/* One turn of answer k: at most quota datagrams; a file that cannot be read
 * ends it with ERROR_REPLY io. Returns the UDP payload bytes sent. */
static uint64_t send_turn(struct xio_srv_worker *w, struct xio_srv_out *o, unsigned quota)
{
	struct xio_srv_batch b;
	int n = xio_srv_train_fill_n(&w->train, &o->read, o->seq, quota, &b);

	if (n < 0) {
		queue_reply(w, xio_srv_io_error(&o->read, errno, w->reply[w->nreply]), &o->dest,
			    XIO_SRV_ANS_ERROR, XIO_E_IO);
		o->done = true;
		return 0;
	}
	if (n > 0) {
		XIO_SRV_ADD(w->counters.file_bytes, b.file_bytes);
		xio_srv_sock_send_batch(&w->sock, &b, &o->dest, w->pace, &w->counters);
		o->seq += (unsigned)n;
		o->sent = (unsigned)n;
	}
	if (o->seq == xio_srv_read_datagrams(&o->read)) {
		XIO_SRV_ADD(w->counters.answers[o->read.opcode == XIO_OP_DATA_REPLY
							? XIO_SRV_ANS_DATA : XIO_SRV_ANS_READ], 1);
		o->done = true;
	}
	return n > 0 ? b.file_bytes + (uint64_t)n * XIO_HDR_LEN : 0;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000u),
			       .tv_nsec = (long)(t_ns % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void xio_srv_worker_send_reads(struct xio_srv_worker *w)
{
	bool paced = w->flow_ns_per_byte > 0;

	while (w->nout > 0) {
		uint64_t now = paced ? xio_srv_now_ns() : 0, next = UINT64_MAX;
		unsigned keep = 0;
		bool sent = false;

		for (unsigned k = 0; k < w->nout; k++) {
			struct xio_srv_out *o = &w->out[k];
			unsigned quota = w->burst;
			uint64_t bytes;

			/* the client's share of this turn, less what its earlier
			 * answers took */
			for (unsigned j = 0; j < k && quota > 0; j++)
				if (same_client(&w->out[j].dest, &o->dest))
					quota -= w->out[j].sent < quota ? w->out[j].sent : quota;
			o->sent = 0;
			if (quota == 0)
				continue;
			if (o->due_ns > now) { /* paced: not yet */
				next = o->due_ns < next ? o->due_ns : next;
				continue;
			}
			bytes = send_turn(w, o, quota);
			sent = sent || o->sent > 0;
			if (!paced || bytes == 0)
				continue;
			/* the client's next burst, whichever of its answers it is */
			o->due_ns = (o->due_ns > now ? o->due_ns : now) +
				    (uint64_t)((double)bytes * w->flow_ns_per_byte);
			for (unsigned j = k + 1; j < w->nout; j++)
				if (same_client(&w->out[j].dest, &o->dest))
					w->out[j].due_ns = o->due_ns;
		}
		for (unsigned k = 0; k < w->nout; k++)
			if (!w->out[k].done)
				w->out[keep++] = w->out[k];
		w->nout = keep;
		if (!sent && keep > 0 && next != UINT64_MAX)
			sleep_until(next);
	}
	flush_replies(w);
}

/* A READ answer: queued, sent once the batch is read. */
static void queue_read(struct xio_srv_worker *w, const struct xio_srv_read *r,
		       const struct xio_srv_dest *d)
{
	w->out[w->nout++] = (struct xio_srv_out){ .read = *r, .dest = *d };
}

/* Answers one received datagram. */
static void serve(struct xio_srv_worker *w, const uint8_t *dg, size_t len,
		  const struct xio_srv_dest *d)
{
	struct xio_srv_counters *c = &w->counters;
	struct xio_srv_answer a;

	XIO_SRV_ADD(c->received, 1);
	if (!xio_srv_allow_match(w->allow, (const struct sockaddr *)&d->peer)) {
		XIO_SRV_ADD(c->refused, 1);
		return;
	}
	xio_srv_handle(&w->files, w->cookie ? &w->keys : NULL, (const struct sockaddr *)&d->peer,
		       d->v4 ? w->payload4 : w->payload6, dg, len, w->reply[w->nreply], &a);
	if (a.kind == XIO_SRV_NONE) {
		XIO_SRV_ADD(c->ignored, 1);
		return;
	}
	XIO_SRV_ADD(c->requests[a.request == XIO_OP_STAT_REQUEST ? XIO_SRV_REQ_STAT
								 : XIO_SRV_REQ_READ], 1);
	if (a.cookie)
		XIO_SRV_ADD(c->cookies_issued, 1);
	if (a.kind == XIO_SRV_READ)
		queue_read(w, &a.read, d);
	else
		queue_reply(w, a.len, d, a.error ? XIO_SRV_ANS_ERROR : XIO_SRV_ANS_STAT, a.error);
}

void *xio_srv_worker_main(void *arg)
{
	struct xio_srv_worker *w = arg;

	while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED)) {
		int n = xio_srv_sock_recv(&w->sock, &w->counters);

		if (n < 0) {
			struct timespec pause = { .tv_nsec = 10000000 };

			fprintf(stderr, "xio-server: worker %u: receive: %s\n", w->id, strerror(errno));
			nanosleep(&pause, NULL);
			continue;
		}
		if (n > 0) {
			uint64_t now = xio_srv_now_ns();

			__atomic_store_n(&w->counters.last_rx_ns, now, __ATOMIC_RELAXED);
			if (w->cookie)
				xio_srv_cookie_keys_at(&w->keys, now);
		}
		/* once stopping, the answer in hand is the last: the rest of the
		 * batch is left unanswered, as if it had come after the stop */
		for (int i = 0; i < n && !__atomic_load_n(w->stop, __ATOMIC_RELAXED); i++) {
			struct xio_srv_dest d;
			size_t len;
			const uint8_t *dg = xio_srv_sock_rx(&w->sock, (unsigned)i, &len, &d);

			serve(w, dg, len, &d);
		}
		flush_replies(w);
		xio_srv_worker_send_reads(w);
		__atomic_store_n(&w->counters.cache_hits, w->files.hits, __ATOMIC_RELAXED);
		__atomic_store_n(&w->counters.cache_opens, w->files.opens, __ATOMIC_RELAXED);
	}
	return NULL;
}
