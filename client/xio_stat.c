/* SPDX-License-Identifier: BSD-3-Clause
 * xio_stat.c: STAT_REQUEST, asked again after each timeout (a new
 * stream_id each time, any of them may answer) up to `retries` times; the
 * first try's answer, if it was never asked again (Karn), is a round-trip
 * sample for the adaptive timeout. A STAT goes to every server of the list,
 * on its first flow, all at once; the answers are compared: the sizes must
 * agree, the mtimes may differ (counted) unless strict_mtime. A server that
 * answers is up (again); one that does not is dropped. A STAT_REPLY also
 * brings the address cookie of xio-read 1.2 (bytes 16..31 of a 32-byte
 * body), which every READ_REQUEST to that server then carries.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "xio_msg.h"
#include "xio_priv.h"

struct xio_req *xio_flow_send_stat(struct xio_flow *e, const char *path, size_t plen,
				   uint64_t stat_no, bool first_try)
{
	struct xio_req *r = xio_flow_request(e, XIO_OP_STAT_REQUEST, 0, 0, 0, 0, path, plen,
					     xio_now_ns());

	xio_conn_flush(&e->conn, &e->st.refused);
	r->first_try = first_try;
	r->chunk_seq = stat_no;
	if (!first_try)
		e->st.re_requests++;
	return r;
}

/* One datagram: 1 when it settled the stat (rc in *rc), 0 otherwise. */
static int on_datagram(struct xio_flow *e, const char *path, uint64_t stat_no,
		       const uint8_t *b, uint32_t len, uint64_t now, struct xio_stat *st, int *rc,
		       struct xio_error *err)
{
	struct xio_hdr h;
	struct xio_req *r;
	uint32_t code, mlen;
	const char *msg;

	e->st.datagrams++;
	e->st.bytes_received += len;
	if (len == 0 || xio_hdr_parse(b, len, &h) < 0) {
		e->st.malformed++;
		return 0;
	}
	r = xio_flow_find_req(e, h.stream_id);
	if (!r) {
		e->st.ignored++;
		return 0;
	}
	if (r->opcode != XIO_OP_STAT_REQUEST || r->chunk_seq != stat_no ||
	    (h.opcode != XIO_OP_STAT_REPLY && h.opcode != XIO_OP_ERROR_REPLY)) {
		e->st.duplicates++; /* a late answer to an earlier exchange */
		return 0;
	}
	if (h.opcode == XIO_OP_ERROR_REPLY) {
		if (xio_error_parse(b, len, &h, &code, &msg, &mlen) < 0) {
			e->st.malformed++;
			return 0;
		}
		e->st.answers++;
		*rc = xio_fail(err, XIO_ESERVER, "%s: server %s: %s: %.*s", path, e->conn.name,
			       xio_err_name(code), (int)(mlen > 160 ? 160 : mlen), msg);
		if (err)
			err->server_code = code;
		return 1;
	}
	if (xio_stat_reply_parse(b, len, &h, &st->size, &st->mtime_ns) < 0) {
		e->st.malformed++;
		*rc = xio_fail(err, XIO_EPROTO, "%s: server %s: STAT_REPLY body too short", path,
			       e->conn.name);
		return 1;
	}
	e->st.answers++;
	xio_cookie_take(e->cookie, b, len, &h);
	if (r->first_try)
		xio_rtt_sample(&e->rtt, (now - r->sent_ns) / 1000);
	st->tokens = st->size / 4;
	st->is_tokens = st->size % 4 == 0;
	*rc = 0;
	return 1;
}

/* One server's STAT exchange, on its first flow. */
struct stat_one {
	struct xio_flow *f;
	const char *name;
	struct xio_req *first;
	uint32_t first_id;
	uint64_t stat_no;  /* 0: settled */
	uint64_t last;     /* the latest try went out */
	unsigned fails;
	int rc;            /* 0: answered with a size */
	bool answered;     /* STAT_REPLY or ERROR_REPLY */
	struct xio_error err;
	struct xio_stat st;
};

/* Its timer ran out: asked again, or settled as a timeout. */
static void stat_timeout(struct xio_engine *eng, struct stat_one *o, const char *path,
			 size_t plen)
{
	struct xio_flow *e = o->f;
	const char *why = e->st.refused ? ": port unreachable, is the server running?" : "";

	e->st.timeouts++;
	if (++o->fails > eng->opts.retries) {
		o->stat_no = 0;
		o->rc = eng->nservers == 1
			? xio_fail(&o->err, XIO_ETIMEOUT, "%s: no answer from %s to STAT after %u tries%s",
				   path, o->name, o->fails, why)
			: xio_fail(&o->err, XIO_ETIMEOUT, "no answer to STAT after %u tries%s", o->fails,
				   e->st.refused ? ": port unreachable" : "");
		return;
	}
	xio_rtt_backoff(&e->rtt, o->fails);
	if (o->first->id == o->first_id)
		o->first->first_try = 0; /* Karn: its answer is no sample now */
	xio_flow_send_stat(e, path, plen, o->stat_no, false);
	o->last = xio_now_ns();
}

/* Receives what is waiting on one server's flow. */
static int stat_receive(struct stat_one *o, const char *path)
{
	struct xio_flow *e = o->f;
	struct xio_rx rx[XIO_RX_BATCH];
	int n = xio_conn_recv(&e->conn, rx, &e->st.refused, &o->err);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		for (uint32_t k = 0, off; k < xio_gro_count(rx[i].len, rx[i].gso); k++) {
			uint32_t len = xio_gro_segment(rx[i].len, rx[i].gso, k, &off);

			if (on_datagram(e, path, o->stat_no, xio_conn_rx(&e->conn, i) + off, len,
					xio_now_ns(), &o->st, &o->rc, &o->err)) {
				o->stat_no = 0; /* settled: more answers are duplicates */
				o->answered = true;
			}
		}
	return 0;
}

/* Sends the STAT to every server and waits until each answered or ran out
 * of tries. */
static int stat_all(struct xio_engine *eng, struct stat_one *one, const char *path, size_t plen,
		    struct xio_error *err)
{
	struct pollfd pfd[XIO_SERVERS_MAX + 1];
	unsigned left = eng->nservers;

	for (uint32_t i = 0; i < eng->nservers; i++) {
		struct stat_one *o = &one[i];

		o->f = &eng->flows[i]; /* flow i reads from server i */
		o->name = eng->servers[i].name;
		o->stat_no = ++o->f->chunk_seq;
		o->first = xio_flow_send_stat(o->f, path, plen, o->stat_no, true);
		o->first_id = o->first->id;
		o->last = xio_now_ns();
	}
	while (left) {
		uint64_t now = xio_now_ns(), deadline = UINT64_MAX;
		struct timespec ts;
		nfds_t n = 0;
		int rc;

		for (uint32_t i = 0; i < eng->nservers; i++) {
			struct stat_one *o = &one[i];
			uint64_t d;

			if (!o->stat_no)
				continue;
			d = o->last + xio_rtt_timeout(&o->f->rtt, o->fails) * 1000;
			deadline = d < deadline ? d : deadline;
			pfd[n++] = (struct pollfd){ .fd = o->f->conn.fd, .events = POLLIN };
		}
		pfd[n++] = (struct pollfd){ .fd = eng->wake_fd, .events = POLLIN };
		now = xio_now_ns();
		deadline = deadline > now ? deadline - now : 0;
		ts = (struct timespec){ .tv_sec = (time_t)(deadline / 1000000000u),
					.tv_nsec = (long)(deadline % 1000000000u) };
		rc = ppoll(pfd, n, &ts, NULL);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return xio_fail(err, XIO_ESYS, "poll: %s", strerror(errno));
		if (pfd[n - 1].revents && __atomic_load_n(&eng->canceled, __ATOMIC_ACQUIRE))
			return xio_fail(err, XIO_ECANCELED, "%s: canceled", path);
		now = xio_now_ns();
		for (uint32_t i = 0; i < eng->nservers; i++) {
			struct stat_one *o = &one[i];

			if (!o->stat_no)
				continue;
			rc = stat_receive(o, path);
			if (rc < 0) {
				if (err)
					*err = o->err;
				return rc;
			}
			if (o->stat_no && o->last + xio_rtt_timeout(&o->f->rtt, o->fails) * 1000 <= now)
				stat_timeout(eng, o, path, plen);
			left -= !o->stat_no;
		}
	}
	return 0;
}

/* The servers disagree: each one's size or error, in the message. */
static int disagree(struct xio_engine *eng, const struct stat_one *one, const char *path,
		    bool mtime, struct xio_error *err)
{
	size_t len;

	xio_fail(err, XIO_EREPLICA, "%s: the servers disagree on its %s:", path,
		 mtime ? "mtime (strict_mtime)" : "size");
	if (!err)
		return -XIO_EREPLICA;
	len = strlen(err->msg);
	for (uint32_t i = 0; i < eng->nservers && len < sizeof(err->msg); i++) {
		const struct stat_one *o = &one[i];
		const char *sep = len && err->msg[len - 1] == ':' ? " " : "; ";
		int k;

		if (!o->answered)
			continue;
		if (o->rc < 0)
			k = snprintf(err->msg + len, sizeof(err->msg) - len, "%s%s %s", sep, o->name,
				     xio_err_name(o->err.server_code));
		else if (mtime)
			k = snprintf(err->msg + len, sizeof(err->msg) - len, "%s%s %llu.%09llu", sep,
				     o->name, (unsigned long long)(o->st.mtime_ns / 1000000000u),
				     (unsigned long long)(o->st.mtime_ns % 1000000000u));
		else
			k = snprintf(err->msg + len, sizeof(err->msg) - len, "%s%s %llu bytes", sep,
				     o->name, (unsigned long long)o->st.size);
		len += (size_t)k;
	}
	return -XIO_EREPLICA;
}

int xio_engine_stat(struct xio_engine *eng, const char *path, struct xio_stat *st,
		    struct xio_error *err)
{
	struct stat_one one[XIO_SERVERS_MAX];
	const struct stat_one *ok = NULL, *errored = NULL;
	uint32_t differ = 0;
	size_t plen;
	int rc = xio_path_len(path, &plen, err);

	if (rc < 0)
		return rc;
	memset(st, 0, sizeof(*st));
	memset(one, 0, sizeof(one[0]) * eng->nservers);
	rc = stat_all(eng, one, path, plen, err);
	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < eng->nservers; i++) {
		struct stat_one *o = &one[i];
		struct xio_server *srv = &eng->servers[i];

		if (!o->answered) {
			xio_engine_drop(eng, i, &o->err);
			continue;
		}
		pthread_mutex_lock(&eng->server_lock);
		if (srv->state == XIO_SERVER_DROPPED) {
			/* back: it answered a new STAT */
			__atomic_store_n(&srv->state, XIO_SERVER_UP, __ATOMIC_RELAXED);
			srv->rejoins++;
		}
		pthread_mutex_unlock(&eng->server_lock);
		if (o->rc == 0 && !ok)
			ok = o;
		if (o->rc < 0 && !errored)
			errored = o;
	}
	if (!ok && !errored)
		return xio_engine_all_failed(eng, path, err);
	if (!ok) { /* every answer an error: the first one's */
		if (err)
			*err = errored->err;
		return errored->rc;
	}
	for (uint32_t i = 0; i < eng->nservers; i++)
		if (one[i].answered && (one[i].rc < 0 || one[i].st.size != ok->st.size))
			return disagree(eng, one, path, false, err);
	for (uint32_t i = 0; i < eng->nservers; i++) {
		struct xio_server *srv = &eng->servers[i];

		if (!one[i].answered)
			continue;
		pthread_mutex_lock(&eng->server_lock);
		srv->mtime_ns = one[i].st.mtime_ns;
		if (one[i].st.mtime_ns != ok->st.mtime_ns) {
			srv->mtime_differs++;
			differ++;
		}
		pthread_mutex_unlock(&eng->server_lock);
	}
	if (differ && eng->opts.strict_mtime)
		return disagree(eng, one, path, true, err);
	*st = ok->st;
	return 0;
}
