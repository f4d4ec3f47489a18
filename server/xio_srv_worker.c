/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_worker.c: a worker's receive-answer loop (xio_srv_worker.h).
 */
#include <errno.h>
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

/* A READ answer: its train, batch by batch; a file that cannot be read
 * ends it with ERROR_REPLY io. */
static void send_read(struct xio_srv_worker *w, const struct xio_srv_read *r,
		      const struct xio_srv_dest *d)
{
	struct xio_srv_batch b;
	uint64_t seq = 0;
	int n;

	flush_replies(w);
	while ((n = xio_srv_train_fill(&w->train, r, seq, &b)) > 0) {
		XIO_SRV_ADD(w->counters.file_bytes, b.file_bytes);
		xio_srv_sock_send_batch(&w->sock, &b, d, w->pace, &w->counters);
		seq += (unsigned)n;
	}
	if (n < 0) {
		queue_reply(w, xio_srv_io_error(r, errno, w->reply[w->nreply]), d, XIO_SRV_ANS_ERROR,
			    XIO_E_IO);
		return;
	}
	XIO_SRV_ADD(w->counters.answers[r->opcode == XIO_OP_DATA_REPLY ? XIO_SRV_ANS_DATA
									: XIO_SRV_ANS_READ], 1);
	/* a paced train may outlast a rotation: the next request of the batch
	 * is checked against the keys of now */
	if (w->cookie)
		xio_srv_cookie_keys_at(&w->keys, xio_srv_now_ns());
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
		send_read(w, &a.read, d);
	else
		queue_reply(w, a.len, d, a.error ? XIO_SRV_ANS_ERROR : XIO_SRV_ANS_STAT, a.error);
}

void *xio_srv_worker_main(void *arg)
{
	struct xio_srv_worker *w = arg;

	while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED)) {
		int n = xio_srv_sock_recv(&w->sock);

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
		__atomic_store_n(&w->counters.cache_hits, w->files.hits, __ATOMIC_RELAXED);
		__atomic_store_n(&w->counters.cache_opens, w->files.opens, __ATOMIC_RELAXED);
	}
	return NULL;
}
