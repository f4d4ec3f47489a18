/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_worker.h: one worker thread of xio-server: its socket, open-file
 * cache, train buffer and counters, and its loop: receive a batch, drop
 * what the allow list refuses, answer each request, until the stop flag is
 * seen. Single answers go out together once the batch is read; then the READ
 * answers of the batch go out in turns: each turn sends every client at most
 * --burst datagrams (one preadv and one sendmmsg of GSO trains per answer),
 * a client's answers one after the other, different clients' interleaved, so
 * that no client's answer is one unbounded burst and none waits behind
 * another's whole answer. With --flow-rate, a client's next burst starts no
 * sooner than its last one's bytes take at that rate (one clock read per
 * turn; the worker sleeps only when no client is due). The READ answers of
 * a batch are always finished;
 * requests of the batch not read yet when the flag is seen are left
 * unanswered.
 */
#ifndef XIO_SRV_WORKER_H
#define XIO_SRV_WORKER_H

#include <pthread.h>
#include <stdint.h>

#include "xio_srv_allow.h"
#include "xio_srv_files.h"
#include "xio_srv_handle.h"
#include "xio_srv_pace.h"
#include "xio_srv_sock.h"
#include "xio_srv_stats.h"
#include "xio_srv_train.h"

/* A READ answer under way. */
struct xio_srv_out {
	struct xio_srv_read read;
	struct xio_srv_dest dest;
	uint64_t seq;  /* the next datagram to send */
	unsigned sent; /* datagrams sent in the current turn */
	uint64_t due_ns; /* --flow-rate: when the client's next burst may start */
	bool done;
};

struct xio_srv_worker {
	struct xio_srv_counters counters; /* first: its own cache lines */
	unsigned id;
	pthread_t thread;
	const struct xio_srv_allow *allow;
	struct xio_srv_pace *pace;
	const int *stop;
	const struct xio_srv_cookie *cookie; /* NULL: no address validation */
	struct xio_srv_cookie_keys keys;     /* its period keys, moved per batch */
	uint32_t payload4, payload6; /* payload bytes per datagram per family */
	unsigned burst; /* most datagrams to one client per turn */
	double flow_ns_per_byte; /* --flow-rate, 0: bursts back to back */
	struct xio_srv_sock sock;
	struct xio_srv_files files;
	struct xio_srv_train train;
	/* single answers of the current batch */
	unsigned nreply;
	uint8_t reply[XIO_SRV_RX_BATCH][XIO_SRV_REPLY_MAX];
	uint8_t *reply_buf[XIO_SRV_RX_BATCH];
	size_t reply_len[XIO_SRV_RX_BATCH];
	struct xio_srv_dest reply_dest[XIO_SRV_RX_BATCH];
	/* READ answers of the current batch */
	unsigned nout;
	struct xio_srv_out out[XIO_SRV_RX_BATCH];
};

/* Sends the READ answers queued in w->out, in turns (see above). */
void xio_srv_worker_send_reads(struct xio_srv_worker *w);

/* The worker's loop (pthread start routine; arg: the worker). */
void *xio_srv_worker_main(void *arg);

#endif /* XIO_SRV_WORKER_H */
