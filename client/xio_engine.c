/* SPDX-License-Identifier: BSD-3-Clause
 * xio_engine.c: what every exchange with a server shares: the options and
 * their limits, and the flows, each with its socket, its adaptive timeout,
 * its counters and its table of requests sent (by stream_id) that answers
 * are checked against. A client handle has one engine, a stream another.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include "xio_msg.h"
#include "xio_priv.h"

uint32_t xio_default_flows(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > 4 ? 4 : (uint32_t)n;
}

void xio_opts_init(struct xio_opts *o)
{
	*o = (struct xio_opts){
		.chunk_tokens = 262144,
		.window = 32,
		.timeout_ms = 500,
		.retries = 8,
		.max_count = 0,
		.rcvbuf = 32u << 20,
		.crc = 0,
		.saturate = 0,
		.gro = 1,
		.flows = xio_default_flows(),
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
	if (o->flows < 1 || o->flows > XIO_FLOWS_MAX)
		return xio_fail(err, XIO_EARG, "flows %u: must be 1..%d", o->flows, XIO_FLOWS_MAX);
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

static void flow_fini(struct xio_flow *f)
{
	xio_conn_close(&f->conn);
	free(f->reqs);
	free(f->slots);
	free(f->bits);
	f->reqs = NULL;
	f->slots = NULL;
	f->bits = NULL;
}

static int flow_init(struct xio_flow *f, const char *server, const struct xio_opts *o,
		     uint64_t slot_units, struct xio_error *err)
{
	size_t words = xio_missing_words(slot_units);
	int rc;

	f->conn.fd = -1;
	f->low = UINT64_MAX;
	f->reqs = calloc(XIO_REQ_TABLE, sizeof(*f->reqs));
	f->slots = calloc(o->window, sizeof(*f->slots));
	f->bits = calloc((size_t)o->window * words, sizeof(uint64_t));
	if (!f->reqs || !f->slots || !f->bits)
		return xio_fail(err, XIO_ESYS, "out of memory for a window of %u chunks", o->window);
	for (uint32_t i = 0; i < o->window; i++)
		f->slots[i].miss.bits = f->bits + (size_t)i * words;
	rc = xio_conn_open(&f->conn, server, o->rcvbuf, o->gro, err);
	if (rc < 0)
		return rc;
	/* a random start, so that a new client never takes late answers meant
	 * for an earlier one on the same port for its own */
	if (getrandom(&f->next_id, sizeof(f->next_id), GRND_NONBLOCK) != sizeof(f->next_id))
		f->next_id = (uint32_t)xio_now_ns();
	xio_rtt_init(&f->rtt, XIO_RTO_MIN_US, (uint64_t)o->timeout_ms * 1000);
	xio_cc_init(&f->cc, f->conn.rcvbuf / 2);
	return 0;
}

int xio_engine_init(struct xio_engine *e, const char *server, const struct xio_opts *o,
		    struct xio_error *err)
{
	int rc;

	memset(e, 0, sizeof(*e));
	e->wake_fd = -1;
	rc = xio_opts_check(o, err);
	if (rc < 0)
		return rc;
	e->opts = *o;
	/* a RAW chunk counts bytes: chunk_tokens of them, a quarter of a token
	 * chunk's bytes, so that a slot's bitmap holds chunk_tokens bits */
	e->slot_units = o->chunk_tokens;
	e->flows = calloc(o->flows, sizeof(*e->flows));
	if (!e->flows)
		return xio_fail(err, XIO_ESYS, "out of memory for %u flows", o->flows);
	e->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (e->wake_fd < 0) {
		xio_engine_fini(e);
		return xio_fail(err, XIO_ESYS, "eventfd: %s", strerror(errno));
	}
	for (uint32_t i = 0; i < o->flows; i++) {
		e->nflows = i + 1;
		rc = flow_init(&e->flows[i], server, o, e->slot_units, err);
		if (rc < 0) {
			xio_engine_fini(e);
			return rc;
		}
	}
	rc = xio_cookies_init(e, err);
	if (rc < 0)
		xio_engine_fini(e);
	return rc;
}

void xio_engine_fini(struct xio_engine *e)
{
	for (uint32_t i = 0; i < e->nflows; i++)
		flow_fini(&e->flows[i]);
	xio_cookies_fini(e);
	free(e->flows);
	e->flows = NULL;
	e->nflows = 0;
	if (e->wake_fd >= 0)
		close(e->wake_fd);
	e->wake_fd = -1;
}

void xio_engine_cancel(struct xio_engine *e)
{
	uint64_t one = 1;

	__atomic_store_n(&e->canceled, true, __ATOMIC_RELEASE);
	if (write(e->wake_fd, &one, sizeof(one)) < 0) {
		/* an eventfd write fails only on overflow: it is signalled already */
	}
}

struct xio_req *xio_flow_new_req(struct xio_flow *f)
{
	struct xio_req *r;
	uint32_t id = f->next_id++;

	if (id == 0)
		id = f->next_id++;
	r = &f->reqs[id % XIO_REQ_TABLE];
	memset(r, 0, sizeof(*r));
	r->id = id;
	return r;
}

struct xio_req *xio_flow_request(struct xio_flow *f, uint8_t opcode, uint64_t first,
				 uint32_t count, uint16_t max_count, uint8_t options,
				 const char *path, size_t path_len, uint64_t now)
{
	struct xio_req *r = xio_flow_new_req(f);
	uint8_t *buf = xio_conn_tx_buf(&f->conn, &f->st.refused);
	size_t len = xio_request_build(buf, XIO_TX_SLOT, opcode, r->id, first, count, max_count,
				       options, path, path_len);

	if (opcode == XIO_OP_READ_REQUEST) /* the address cookie, when the server gave one */
		len = xio_cookie_add(f->cookie, r, buf, len);
	xio_conn_tx_commit(&f->conn, len);
	r->opcode = opcode;
	r->sent_ns = now;
	f->st.requests++;
	return r;
}

struct xio_req *xio_flow_find_req(struct xio_flow *f, uint32_t id)
{
	struct xio_req *r = &f->reqs[id % XIO_REQ_TABLE];

	return id != 0 && r->id == id ? r : NULL;
}

void xio_flow_stats(const struct xio_flow *f, struct xio_stats *st)
{
	*st = f->st;
	st->srtt_us = f->rtt.srtt;
	st->rttvar_us = f->rtt.rttvar;
	st->rto_us = xio_rtt_timeout(&f->rtt, 0); /* with the backoff in force */
	st->rcvbuf = f->conn.rcvbuf;
	st->recv_calls = f->conn.recv_calls;
	st->rx_buffers = f->conn.rx_buffers;
	st->gro = f->conn.gro;
	st->flows = 1;
	st->cwnd = f->cc.cwnd;
	st->cwnd_reductions = f->cc.reductions;
}

/* Counters add up, cwnd too (what all flows may have in flight); the
 * timer's fields are the largest of the flows' (the slowest path), rcvbuf
 * and gro flow 0's (every flow asks the same). */
void xio_engine_stats(const struct xio_engine *e, struct xio_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < e->nflows; i++) {
		struct xio_stats f;
		uint64_t *sum = (uint64_t *)st;
		const uint64_t *add = (const uint64_t *)&f;
		uint64_t srtt = st->srtt_us, rttvar = st->rttvar_us, rto = st->rto_us;

		xio_flow_stats(&e->flows[i], &f);
		for (size_t k = 0; k < sizeof(f) / sizeof(uint64_t); k++)
			sum[k] += add[k];
		st->srtt_us = f.srtt_us > srtt ? f.srtt_us : srtt;
		st->rttvar_us = f.rttvar_us > rttvar ? f.rttvar_us : rttvar;
		st->rto_us = f.rto_us > rto ? f.rto_us : rto;
	}
	if (e->nflows) {
		st->rcvbuf = e->flows[0].conn.rcvbuf;
		st->gro = e->flows[0].conn.gro;
	}
	st->flows = e->nflows;
}
