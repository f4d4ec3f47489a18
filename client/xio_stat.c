/* SPDX-License-Identifier: BSD-3-Clause
 * xio_stat.c: STAT_REQUEST, asked again after each timeout (a new
 * stream_id each time, any of them may answer) up to `retries` times; the
 * first try's answer, if it was never asked again (Karn), is a round-trip
 * sample for the adaptive timeout. A STAT goes out on flow 0. A
 * STAT_REPLY also brings the address cookie of xio-read 1.2 (bytes 16..31
 * of a 32-byte body), which every READ_REQUEST then carries.
 */
#include <string.h>

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

int xio_engine_stat(struct xio_engine *eng, const char *path, struct xio_stat *st,
		    struct xio_error *err)
{
	struct xio_flow *e = &eng->flows[0];
	uint64_t stat_no = ++e->chunk_seq, last;
	struct xio_req *first;
	uint32_t first_id;
	unsigned fails = 0;
	size_t plen;
	int rc = xio_path_len(path, &plen, err);

	if (rc < 0)
		return rc;
	memset(st, 0, sizeof(*st));
	first = xio_flow_send_stat(e, path, plen, stat_no, true);
	first_id = first->id;
	last = xio_now_ns();
	for (;;) {
		struct xio_rx rx[XIO_RX_BATCH];
		int n;

		rc = xio_conn_wait(&e->conn, eng->wake_fd,
				   last + xio_rtt_timeout(&e->rtt, fails) * 1000, err);
		if (rc < 0)
			return rc;
		if (rc == 2 && __atomic_load_n(&eng->canceled, __ATOMIC_ACQUIRE))
			return xio_fail(err, XIO_ECANCELED, "%s: canceled", path);
		if (rc == 0) {
			e->st.timeouts++;
			if (++fails > eng->opts.retries)
				return xio_fail(err, XIO_ETIMEOUT,
						"%s: no answer from %s to STAT after %u tries%s", path,
						e->conn.name, fails,
						e->st.refused ? ": port unreachable, is the server running?"
							      : "");
			xio_rtt_backoff(&e->rtt, fails);
			if (first->id == first_id)
				first->first_try = 0; /* Karn: its answer is no sample now */
			xio_flow_send_stat(e, path, plen, stat_no, false);
			last = xio_now_ns();
			continue;
		}
		n = xio_conn_recv(&e->conn, rx, &e->st.refused, err);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			for (uint32_t k = 0, off; k < xio_gro_count(rx[i].len, rx[i].gso); k++) {
				uint32_t len = xio_gro_segment(rx[i].len, rx[i].gso, k, &off);

				if (on_datagram(e, path, stat_no, xio_conn_rx(&e->conn, i) + off, len,
						xio_now_ns(), st, &rc, err))
					stat_no = 0; /* settled: more answers are duplicates */
			}
		if (stat_no == 0)
			return rc;
	}
}
