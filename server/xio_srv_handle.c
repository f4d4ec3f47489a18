/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_handle.c: the answer to one request datagram (xio_srv_handle.h).
 */
#include <errno.h>
#include <string.h>

#include "xio_srv_handle.h"

/* An ERROR_REPLY in cap bytes (its message cut to fit). */
static void reply_error(struct xio_srv_answer *a, uint8_t *out, size_t cap,
			const struct xio_hdr *req, uint32_t code, const char *msg)
{
	a->kind = XIO_SRV_REPLY;
	a->error = code;
	a->len = xio_error_build(out, cap, req->stream_id, req->first_token, code, msg);
}

/* A READ_REQUEST on an open file: the range, cut at the end of the file. */
static void answer_read(struct xio_srv_answer *a, uint8_t *out, size_t cap,
			const struct xio_request *q, const struct xio_srv_fileinfo *fi,
			uint32_t payload_max)
{
	bool raw = q->options & XIO_OPT_RAW;
	uint64_t units = raw ? fi->size : fi->size / 4;
	uint32_t per = raw ? payload_max : payload_max / 4;

	if (!raw && fi->size % 4) {
		reply_error(a, out, cap, &q->hdr, XIO_E_NOT_TOKENS, "file size is not a multiple of 4");
		return;
	}
	if (q->hdr.first_token >= units) {
		reply_error(a, out, cap, &q->hdr, XIO_E_RANGE, "first_token at or past the end of the file");
		return;
	}
	if (q->max_count && q->max_count < per)
		per = q->max_count;
	a->kind = XIO_SRV_READ;
	a->read = (struct xio_srv_read){
		.fd = fi->fd,
		.opcode = raw ? XIO_OP_DATA_REPLY : XIO_OP_READ_REPLY,
		.flags = q->options & XIO_OPT_CRC ? XIO_F_HAS_CRC : 0,
		.dtype = raw ? 0 : XIO_DT_INT32,
		.width = raw ? 1 : 4,
		.stream_id = q->hdr.stream_id,
		.first = q->hdr.first_token,
		.end = units - q->hdr.first_token < q->hdr.token_count
			       ? units : q->hdr.first_token + q->hdr.token_count,
		.per = per,
	};
}

void xio_srv_handle(struct xio_srv_files *files, const struct xio_srv_cookie_keys *keys,
		    const struct sockaddr *peer, uint32_t payload_max, const uint8_t *dg,
		    size_t len, uint8_t *out, struct xio_srv_answer *a)
{
	struct xio_srv_fileinfo fi;
	struct xio_request q;
	const char *why = NULL;
	uint8_t cookie[XIO_COOKIE_LEN];
	size_t cap = XIO_SRV_REPLY_CAP(len);
	int code;

	memset(a, 0, sizeof(*a));
	switch (xio_request_parse(dg, len, &q, &why)) {
	case XIO_REQ_IGNORE:
		return;
	case XIO_REQ_BAD:
		a->request = q.hdr.opcode;
		reply_error(a, out, cap, &q.hdr, XIO_E_BAD_REQUEST, why);
		return;
	case XIO_REQ_OK:
		break;
	}
	a->request = q.hdr.opcode;
	if (keys && q.hdr.opcode == XIO_OP_READ_REQUEST &&
	    !(q.cookie && xio_srv_cookie_check(keys, peer, q.cookie))) {
		reply_error(a, out, cap, &q.hdr, XIO_E_COOKIE,
			    q.cookie ? "cookie refused: STAT for a new one" : "no cookie: STAT for one");
		return;
	}
	code = xio_srv_files_open(files, q.path, q.path_len, &fi, &why);
	if (code) {
		reply_error(a, out, cap, &q.hdr, (uint32_t)code, why);
		return;
	}
	if (q.hdr.opcode == XIO_OP_STAT_REQUEST) {
		a->kind = XIO_SRV_REPLY;
		a->cookie = keys != NULL;
		if (keys)
			xio_srv_cookie_make(keys, peer, cookie);
		a->len = xio_stat_reply_build_cookie(out, cap, q.hdr.stream_id, fi.size,
						     fi.mtime_ns, keys ? cookie : NULL);
		return;
	}
	answer_read(a, out, cap, &q, &fi, payload_max);
}

size_t xio_srv_io_error(const struct xio_srv_read *r, int err, uint8_t *out)
{
	const char *msg = err == ENODATA ? "file ended before its size" : strerrordesc_np(err);

	return xio_error_build(out, XIO_SRV_REPLY_MAX, r->stream_id, r->first, XIO_E_IO,
			       msg ? msg : "read failed");
}
