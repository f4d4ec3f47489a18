/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_handle.h: what xio-server answers to one datagram
 * (../shared/xio-read-v1.md): nothing (not XIO, or not a request), one
 * datagram (STAT_REPLY or ERROR_REPLY, written out), or a READ answer to
 * build with xio_srv_train. No sockets: the worker sends what this decides,
 * and the fuzzer and unit tests call it directly.
 *
 * With address validation (1.2) the checks run in the spec's order: the
 * header and body (bad_request), the cookie of a READ_REQUEST (cookie),
 * then the path and the file, so that no file is touched for a request
 * without a valid cookie (the allow list, before all, is the worker's). A
 * single answer is never more than three times the request's bytes: an
 * ERROR_REPLY's message is cut to fit.
 */
#ifndef XIO_SRV_HANDLE_H
#define XIO_SRV_HANDLE_H

#include <stddef.h>
#include <stdint.h>

#include "xio_msg.h"
#include "xio_srv_cookie.h"
#include "xio_srv_files.h"
#include "xio_srv_train.h"

/* Room for the longest single-datagram answer (an ERROR_REPLY). */
#define XIO_SRV_REPLY_MAX (XIO_HDR_LEN + XIO_ERR_BODY_LEN + XIO_ERR_MSG_MAX)

enum xio_srv_kind {
	XIO_SRV_NONE = 0, /* no answer at all */
	XIO_SRV_REPLY,    /* one datagram: STAT_REPLY or ERROR_REPLY at out[0..len) */
	XIO_SRV_READ,     /* READ_REPLY or DATA_REPLY datagrams: read */
};

struct xio_srv_answer {
	enum xio_srv_kind kind;
	uint8_t request;  /* the request's opcode (0 for NONE) */
	uint32_t error;   /* the ERROR_REPLY code, 0 when not an error */
	size_t len;       /* XIO_SRV_REPLY: bytes at out */
	bool cookie;      /* a STAT_REPLY that carries a cookie */
	struct xio_srv_read read; /* XIO_SRV_READ */
};

/* The most bytes of a single answer to a request of len bytes (the size
 * rule: three times, within XIO_SRV_REPLY_MAX). */
#define XIO_SRV_REPLY_CAP(len) ((len) * 3 < XIO_SRV_REPLY_MAX ? (len) * 3 : XIO_SRV_REPLY_MAX)

/* Answers the UDP payload dg[0..len) of a request from peer. keys: the
 * worker's cookie keys, moved to the batch's time (NULL: no address
 * validation). payload_max is the most payload bytes of one answer
 * datagram on the path to this client (xio_mtu_payload() for its address
 * family, >= 4); out has XIO_SRV_REPLY_MAX bytes. */
void xio_srv_handle(struct xio_srv_files *files, const struct xio_srv_cookie_keys *keys,
		    const struct sockaddr *peer, uint32_t payload_max, const uint8_t *dg,
		    size_t len, uint8_t *out, struct xio_srv_answer *a);

/* The ERROR_REPLY io of a READ answer whose file could not be read (err:
 * the errno of xio_srv_train_fill()), for the worker. Returns its length. */
size_t xio_srv_io_error(const struct xio_srv_read *r, int err, uint8_t *out);

#endif /* XIO_SRV_HANDLE_H */
