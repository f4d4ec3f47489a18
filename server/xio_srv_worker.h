/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_worker.h: one worker thread of xio-server: its socket, open-file
 * cache, train buffer and counters, and its loop: receive a batch, drop
 * what the allow list refuses, answer each request (single answers go out
 * together at the end of the batch, a READ answer as its train), until the
 * stop flag is seen. The answer in hand is always finished; requests of the
 * batch not answered yet when the flag is seen are left unanswered.
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
	struct xio_srv_sock sock;
	struct xio_srv_files files;
	struct xio_srv_train train;
	/* single answers of the current batch */
	unsigned nreply;
	uint8_t reply[XIO_SRV_RX_BATCH][XIO_SRV_REPLY_MAX];
	uint8_t *reply_buf[XIO_SRV_RX_BATCH];
	size_t reply_len[XIO_SRV_RX_BATCH];
	struct xio_srv_dest reply_dest[XIO_SRV_RX_BATCH];
};

/* The worker's loop (pthread start routine; arg: the worker). */
void *xio_srv_worker_main(void *arg);

#endif /* XIO_SRV_WORKER_H */
