/* SPDX-License-Identifier: BSD-3-Clause
 * xio_engine.c: what every exchange with a server shares: the options and
 * their limits, and the flows, each with its socket, its adaptive timeout,
 * its counters and its table of requests sent (by stream_id) that answers
 * are checked against; the servers of the list, each with its flows, its
 * state (up or dropped) and its last error. A client handle has one
 * engine, a stream another.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
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
		.strict_mtime = 0,
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
	if (o->crc > 1 || o->saturate > 1 || o->gro > 1 || o->strict_mtime > 1)
		return xio_fail(err, XIO_EARG, "crc, saturate, gro and strict_mtime are 0 or 1");
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

/* Splits the comma-separated list into e->servers (names trimmed of
 * blanks; an empty entry is an error). */
static int parse_servers(struct xio_engine *e, const char *list, struct xio_error *err)
{
	const char *p = list;
	uint32_t n = 1;

	for (const char *q = list; *q; q++)
		n += *q == ',';
	if (n > XIO_SERVERS_MAX)
		return xio_fail(err, XIO_EADDR, "%u servers listed: at most %d", n, XIO_SERVERS_MAX);
	e->servers = calloc(n, sizeof(*e->servers));
	if (!e->servers)
		return xio_fail(err, XIO_ESYS, "out of memory for %u servers", n);
	for (uint32_t i = 0; i < n; i++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		e->nservers = i + 1;
		if (len == 0)
			return xio_fail(err, XIO_EADDR, "server list '%.200s': entry %u is empty", list,
					i + 1);
		e->servers[i].name = strndup(p, len);
		if (!e->servers[i].name)
			return xio_fail(err, XIO_ESYS, "out of memory");
		p = end ? end + 1 : p + len;
	}
	return 0;
}

int xio_engine_init(struct xio_engine *e, const char *servers, const struct xio_opts *o,
		    struct xio_error *err)
{
	uint32_t nflows;
	int rc;

	memset(e, 0, sizeof(*e));
	e->wake_fd = -1;
	pthread_mutex_init(&e->server_lock, NULL);
	rc = xio_opts_check(o, err);
	if (rc == 0)
		rc = parse_servers(e, servers, err);
	if (rc < 0) {
		xio_engine_fini(e);
		return rc;
	}
	e->opts = *o;
	/* a RAW chunk counts bytes: chunk_tokens of them, a quarter of a token
	 * chunk's bytes, so that a slot's bitmap holds chunk_tokens bits */
	e->slot_units = o->chunk_tokens;
	nflows = o->flows < e->nservers ? e->nservers : o->flows;
	e->flows = calloc(nflows, sizeof(*e->flows));
	if (!e->flows) {
		xio_engine_fini(e);
		return xio_fail(err, XIO_ESYS, "out of memory for %u flows", nflows);
	}
	e->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (e->wake_fd < 0) {
		xio_engine_fini(e);
		return xio_fail(err, XIO_ESYS, "eventfd: %s", strerror(errno));
	}
	for (uint32_t i = 0; i < nflows; i++) {
		struct xio_server *srv = &e->servers[i % e->nservers];

		e->nflows = i + 1;
		e->flows[i].server = i % e->nservers;
		srv->nflows++;
		rc = flow_init(&e->flows[i], srv->name, o, e->slot_units, err);
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
	for (uint32_t i = 0; i < e->nservers; i++)
		free(e->servers[i].name);
	free(e->servers);
	e->servers = NULL;
	e->nservers = 0;
	if (e->wake_fd >= 0)
		close(e->wake_fd);
	e->wake_fd = -1;
	pthread_mutex_destroy(&e->server_lock);
}

const char *xio_server_state_name(uint32_t state)
{
	return state == XIO_SERVER_UP ? "up" : state == XIO_SERVER_DROPPED ? "dropped" : "unknown";
}

uint32_t xio_engine_up(struct xio_engine *e)
{
	uint32_t up = 0;

	pthread_mutex_lock(&e->server_lock);
	for (uint32_t i = 0; i < e->nservers; i++)
		up += e->servers[i].state == XIO_SERVER_UP;
	pthread_mutex_unlock(&e->server_lock);
	return up;
}

uint32_t xio_engine_drop(struct xio_engine *e, uint32_t i, const struct xio_error *why)
{
	uint32_t up = 0;

	pthread_mutex_lock(&e->server_lock);
	if (e->servers[i].state == XIO_SERVER_UP) {
		__atomic_store_n(&e->servers[i].state, XIO_SERVER_DROPPED, __ATOMIC_RELAXED);
		e->servers[i].drops++;
	}
	e->servers[i].last_error = *why;
	for (uint32_t k = 0; k < e->nservers; k++)
		up += e->servers[k].state == XIO_SERVER_UP;
	pthread_mutex_unlock(&e->server_lock);
	return up;
}

int xio_engine_all_failed(struct xio_engine *e, const char *path, struct xio_error *err)
{
	struct xio_error all;
	bool same = true;
	size_t len;

	if (e->nservers == 1) {
		pthread_mutex_lock(&e->server_lock);
		all = e->servers[0].last_error;
		pthread_mutex_unlock(&e->server_lock);
		if (err)
			*err = all;
		return -all.code;
	}
	xio_fail(&all, XIO_ETIMEOUT, "%s: no server left:", path);
	len = strlen(all.msg);
	pthread_mutex_lock(&e->server_lock);
	/* the code they all failed with (a timeout when they differ) */
	for (uint32_t i = 0; i < e->nservers; i++)
		same &= e->servers[i].last_error.code == e->servers[0].last_error.code;
	if (same && e->servers[0].last_error.code) {
		all.code = e->servers[0].last_error.code;
		all.server_code = e->servers[0].last_error.server_code;
	}
	for (uint32_t i = 0; i < e->nservers && len < sizeof(all.msg); i++) {
		const struct xio_server *srv = &e->servers[i];

		len += (size_t)snprintf(all.msg + len, sizeof(all.msg) - len, "%s %s: %s",
					i ? ";" : "", srv->name,
					srv->last_error.code ? srv->last_error.msg : "up");
	}
	pthread_mutex_unlock(&e->server_lock);
	if (err)
		*err = all;
	return -all.code;
}

int xio_engine_server_stats(struct xio_engine *e, uint32_t i, struct xio_server_stats *st,
			    size_t size, struct xio_error *err)
{
	struct xio_server_stats s;

	if (!st || i >= e->nservers)
		return xio_fail(err, XIO_EARG, "server %u: there are %u", i, e->nservers);
	memset(&s, 0, sizeof(s));
	snprintf(s.address, sizeof(s.address), "%s", e->servers[i].name);
	/* a read may be running (the progress callback): its flows' counters
	 * are read as they are at this moment */
	for (uint32_t k = 0; k < e->nflows; k++) {
		const struct xio_stats *f = &e->flows[k].st;

		if (e->flows[k].server != i)
			continue;
		s.tokens += __atomic_load_n(&f->tokens, __ATOMIC_RELAXED);
		s.bytes += __atomic_load_n(&f->bytes, __ATOMIC_RELAXED);
		s.datagrams += __atomic_load_n(&f->datagrams, __ATOMIC_RELAXED);
		s.requests += __atomic_load_n(&f->requests, __ATOMIC_RELAXED);
		s.re_requests += __atomic_load_n(&f->re_requests, __ATOMIC_RELAXED);
		s.timeouts += __atomic_load_n(&f->timeouts, __ATOMIC_RELAXED);
		s.refused += __atomic_load_n(&f->refused, __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&e->server_lock);
	s.state = e->servers[i].state;
	s.flows = e->servers[i].nflows;
	s.drops = e->servers[i].drops;
	s.rejoins = e->servers[i].rejoins;
	s.mtime_ns = e->servers[i].mtime_ns;
	s.mtime_differs = e->servers[i].mtime_differs;
	s.last_error = e->servers[i].last_error;
	pthread_mutex_unlock(&e->server_lock);
	memcpy(st, &s, size < sizeof(s) ? size : sizeof(s));
	return 0;
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
