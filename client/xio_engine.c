/* SPDX-License-Identifier: BSD-3-Clause
 * xio_engine.c: what every exchange with a server shares: the options and
 * their limits, the socket, the adaptive timeout, the counters, and the
 * table of requests sent (by stream_id) that answers are checked against.
 * A client handle has one engine, a stream another.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include "xio_msg.h"
#include "xio_priv.h"

void xio_opts_init(struct xio_opts *o)
{
	*o = (struct xio_opts){
		.chunk_tokens = 262144,
		.window = 8,
		.timeout_ms = 500,
		.retries = 8,
		.max_count = 0,
		.rcvbuf = 32u << 20,
		.crc = 0,
		.saturate = 0,
		.gro = 1,
	};
}

int xio_opts_check(const struct xio_opts *o, struct xio_error *err)
{
	if (o->chunk_tokens < 1 || o->chunk_tokens > XIO_READ_MAX_COUNT)
		return xio_fail(err, XIO_EARG, "chunk_tokens %u: must be 1..%u", o->chunk_tokens,
				XIO_READ_MAX_COUNT);
	if (o->window < 1 || o->window > 256)
		return xio_fail(err, XIO_EARG, "window %u: must be 1..256", o->window);
	if (o->timeout_ms < 1 || o->timeout_ms > 3600000)
		return xio_fail(err, XIO_EARG, "timeout_ms %u: must be 1..3600000", o->timeout_ms);
	if (o->retries > 1000)
		return xio_fail(err, XIO_EARG, "retries %u: must be 0..1000", o->retries);
	if (o->max_count > 65535)
		return xio_fail(err, XIO_EARG, "max_count %u: must be 0..65535", o->max_count);
	if (o->crc > 1 || o->saturate > 1 || o->gro > 1)
		return xio_fail(err, XIO_EARG, "crc, saturate and gro are 0 or 1");
	return 0;
}

int xio_path_len(const char *path, size_t *len, struct xio_error *err)
{
	if (!path)
		return xio_fail(err, XIO_EARG, "no path");
	*len = strnlen(path, XIO_PATH_MAX + 1);
	if (*len < 1 || *len > XIO_PATH_MAX)
		return xio_fail(err, XIO_EARG, "path '%.40s%s': must be 1..%d bytes", path,
				*len > 40 ? "..." : "", XIO_PATH_MAX);
	return 0;
}

int xio_engine_init(struct xio_engine *e, const char *server, const struct xio_opts *o,
		    bool wakeable, struct xio_error *err)
{
	uint64_t raw_units = (uint64_t)o->chunk_tokens * 4;
	size_t words;
	int rc;

	memset(e, 0, sizeof(*e));
	e->conn.fd = e->wake_fd = -1;
	rc = xio_opts_check(o, err);
	if (rc < 0)
		return rc;
	e->opts = *o;
	/* a RAW chunk counts bytes: as many as the chunk's INT32 tokens */
	e->slot_units = raw_units > XIO_READ_MAX_COUNT ? XIO_READ_MAX_COUNT : raw_units;
	words = xio_missing_words(e->slot_units);
	e->reqs = calloc(XIO_REQ_TABLE, sizeof(*e->reqs));
	e->slots = calloc(o->window, sizeof(*e->slots));
	e->bits = calloc((size_t)o->window * words, sizeof(uint64_t));
	if (!e->reqs || !e->slots || !e->bits) {
		xio_engine_fini(e);
		return xio_fail(err, XIO_ESYS, "out of memory for a window of %u chunks", o->window);
	}
	for (uint32_t i = 0; i < o->window; i++)
		e->slots[i].miss.bits = e->bits + (size_t)i * words;
	if (wakeable && (e->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		xio_engine_fini(e);
		return xio_fail(err, XIO_ESYS, "eventfd: %s", strerror(errno));
	}
	rc = xio_conn_open(&e->conn, server, o->rcvbuf, o->gro, err);
	if (rc < 0) {
		xio_engine_fini(e);
		return rc;
	}
	/* a random start, so that a new client never takes late answers meant
	 * for an earlier one on the same port for its own */
	if (getrandom(&e->next_id, sizeof(e->next_id), GRND_NONBLOCK) != sizeof(e->next_id))
		e->next_id = (uint32_t)xio_now_ns();
	xio_rtt_init(&e->rtt, XIO_RTO_MIN_US, (uint64_t)o->timeout_ms * 1000);
	return 0;
}

void xio_engine_fini(struct xio_engine *e)
{
	xio_conn_close(&e->conn);
	if (e->wake_fd >= 0)
		close(e->wake_fd);
	e->wake_fd = -1;
	free(e->reqs);
	free(e->slots);
	free(e->bits);
	e->reqs = NULL;
	e->slots = NULL;
	e->bits = NULL;
}

struct xio_req *xio_engine_new_req(struct xio_engine *e)
{
	struct xio_req *r;
	uint32_t id = e->next_id++;

	if (id == 0)
		id = e->next_id++;
	r = &e->reqs[id % XIO_REQ_TABLE];
	memset(r, 0, sizeof(*r));
	r->id = id;
	return r;
}

struct xio_req *xio_engine_find_req(struct xio_engine *e, uint32_t id)
{
	struct xio_req *r = &e->reqs[id % XIO_REQ_TABLE];

	return id != 0 && r->id == id ? r : NULL;
}

void xio_engine_stats(const struct xio_engine *e, struct xio_stats *st)
{
	*st = e->st;
	st->srtt_us = e->rtt.srtt;
	st->rttvar_us = e->rtt.rttvar;
	st->rto_us = xio_rtt_timeout(&e->rtt, 0); /* with the backoff in force */
	st->rcvbuf = e->conn.rcvbuf;
	st->recv_calls = e->conn.recv_calls;
	st->rx_buffers = e->conn.rx_buffers;
	st->gro = e->conn.gro;
}
