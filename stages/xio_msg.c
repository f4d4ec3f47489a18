/* SPDX-License-Identifier: BSD-3-Clause
 * xio_msg.c: read-protocol messages on plain buffers (xio_msg.h).
 */
#include <string.h>

#include "xio_msg.h"

static const char *const err_names[] = {
	[XIO_E_NOT_FOUND] = "not_found", [XIO_E_ACCESS] = "access",
	[XIO_E_RANGE] = "range",         [XIO_E_BAD_REQUEST] = "bad_request",
	[XIO_E_NOT_TOKENS] = "not_tokens", [XIO_E_IO] = "io",
	[XIO_E_COOKIE] = "cookie",
};

const char *xio_err_name(uint32_t code)
{
	if (code < sizeof(err_names) / sizeof(err_names[0]) && err_names[code])
		return err_names[code];
	return "unknown";
}

int xio_hdr_parse(const uint8_t *b, size_t len, struct xio_hdr *h)
{
	if (len < XIO_HDR_LEN || xio_be16(b + XIO_OFF_MAGIC) != XIO_MAGIC ||
	    b[XIO_OFF_VERSION] != XIO_VERSION)
		return -1;
	h->hdr_len = xio_be16(b + XIO_OFF_HDR_LEN);
	if (h->hdr_len < XIO_HDR_LEN || h->hdr_len % 4 || h->hdr_len > len)
		return -1;
	h->opcode = b[XIO_OFF_OPCODE];
	h->flags = b[XIO_OFF_FLAGS];
	h->dtype = b[XIO_OFF_DTYPE];
	h->stream_id = xio_be32(b + XIO_OFF_STREAM_ID);
	h->seq = xio_be32(b + XIO_OFF_SEQ);
	h->first_token = xio_be64(b + XIO_OFF_FIRST_TOKEN);
	h->token_count = xio_be32(b + XIO_OFF_TOKEN_COUNT);
	h->payload_crc = xio_be32(b + XIO_OFF_PAYLOAD_CRC);
	return 0;
}

void xio_hdr_put(uint8_t *b, const struct xio_hdr *h)
{
	xio_put_be16(b + XIO_OFF_MAGIC, XIO_MAGIC);
	b[XIO_OFF_VERSION] = XIO_VERSION;
	b[XIO_OFF_OPCODE] = h->opcode;
	b[XIO_OFF_FLAGS] = h->flags;
	b[XIO_OFF_DTYPE] = h->dtype;
	xio_put_be16(b + XIO_OFF_HDR_LEN, h->hdr_len);
	xio_put_be32(b + XIO_OFF_STREAM_ID, h->stream_id);
	xio_put_be32(b + XIO_OFF_SEQ, h->seq);
	xio_put_be64(b + XIO_OFF_FIRST_TOKEN, h->first_token);
	xio_put_be32(b + XIO_OFF_TOKEN_COUNT, h->token_count);
	xio_put_be32(b + XIO_OFF_PAYLOAD_CRC, h->payload_crc);
}

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static enum xio_req_verdict bad(const char **why, const char *what)
{
	if (why)
		*why = what;
	return XIO_REQ_BAD;
}

enum xio_req_verdict xio_request_parse(const uint8_t *b, size_t len, struct xio_request *r,
				       const char **why)
{
	const uint8_t *body;
	size_t blen;

	memset(r, 0, sizeof(*r));
	if (xio_hdr_parse(b, len, &r->hdr) < 0)
		return XIO_REQ_IGNORE;
	if (r->hdr.opcode != XIO_OP_READ_REQUEST && r->hdr.opcode != XIO_OP_STAT_REQUEST)
		return XIO_REQ_IGNORE;
	body = b + r->hdr.hdr_len;
	blen = len - r->hdr.hdr_len;
	if (r->hdr.flags != 0)
		return bad(why, "header flags must be 0");
	if (r->hdr.dtype != 0)
		return bad(why, "header dtype must be 0");
	if (blen < XIO_REQ_BODY_LEN)
		return bad(why, "request body too short");
	r->path_len = xio_be16(body);
	r->max_count = xio_be16(body + 2);
	r->options = body[4];
	if (r->path_len < 1 || r->path_len > XIO_PATH_MAX)
		return bad(why, "path_len out of range 1..1024");
	if (blen < XIO_REQ_BODY_LEN + (size_t)r->path_len)
		return bad(why, "request body too short for its path");
	if (r->options & XIO_OPT_RESERVED)
		return bad(why, "unknown option bits");
	if (r->hdr.opcode == XIO_OP_READ_REQUEST &&
	    (r->hdr.token_count == 0 || r->hdr.token_count > XIO_READ_MAX_COUNT))
		return bad(why, "token_count must be 1..16777216");
	r->path = (const char *)body + XIO_REQ_BODY_LEN;
	if (r->hdr.opcode == XIO_OP_READ_REQUEST && (r->options & XIO_OPT_COOKIE)) {
		size_t at = pad4(XIO_REQ_BODY_LEN + r->path_len);

		if (blen < at + XIO_COOKIE_LEN)
			return bad(why, "request body too short for its cookie");
		r->cookie = body + at;
	}
	return XIO_REQ_OK;
}

int xio_path_check(const char *path, size_t len)
{
	size_t start = 0;

	if (len == 0 || path[0] == '/' || memchr(path, '\0', len))
		return -1;
	for (size_t i = 0; i <= len; i++) {
		size_t n;

		if (i < len && path[i] != '/')
			continue;
		n = i - start;
		if (n == 0 || (n == 1 && path[start] == '.') ||
		    (n == 2 && path[start] == '.' && path[start + 1] == '.'))
			return -1;
		start = i + 1;
	}
	return 0;
}

size_t xio_request_build(uint8_t *buf, size_t cap, uint8_t opcode, uint32_t stream_id,
			 uint64_t first, uint32_t count, uint16_t max_count, uint8_t options,
			 const char *path, size_t path_len)
{
	struct xio_hdr h = {
		.opcode = opcode, .hdr_len = XIO_HDR_LEN, .stream_id = stream_id,
		.first_token = first, .token_count = count,
	};
	size_t len = XIO_HDR_LEN + pad4(XIO_REQ_BODY_LEN + path_len);
	uint8_t *body = buf + XIO_HDR_LEN;

	if (path_len < 1 || path_len > XIO_PATH_MAX || len > cap)
		return 0;
	memset(buf, 0, len);
	xio_hdr_put(buf, &h);
	xio_put_be16(body, (uint16_t)path_len);
	xio_put_be16(body + 2, max_count);
	body[4] = options;
	memcpy(body + XIO_REQ_BODY_LEN, path, path_len);
	return len;
}

size_t xio_request_add_cookie(uint8_t *buf, size_t len, size_t cap,
			      const uint8_t cookie[XIO_COOKIE_LEN])
{
	if (len < XIO_HDR_LEN + XIO_REQ_BODY_LEN || len % 4 || len + XIO_COOKIE_LEN > cap)
		return 0;
	buf[XIO_HDR_LEN + 4] |= XIO_OPT_COOKIE;
	memcpy(buf + len, cookie, XIO_COOKIE_LEN);
	return len + XIO_COOKIE_LEN;
}

size_t xio_error_build(uint8_t *buf, size_t cap, uint32_t stream_id, uint64_t first_token,
		       uint32_t code, const char *msg)
{
	struct xio_hdr h = {
		.opcode = XIO_OP_ERROR_REPLY, .flags = XIO_F_LAST, .hdr_len = XIO_HDR_LEN,
		.stream_id = stream_id, .first_token = first_token,
	};
	size_t mlen = strnlen(msg, XIO_ERR_MSG_MAX);
	size_t len;
	uint8_t *body = buf + XIO_HDR_LEN;

	if (cap < XIO_HDR_LEN + XIO_ERR_BODY_LEN)
		return 0;
	if (XIO_HDR_LEN + pad4(XIO_ERR_BODY_LEN + mlen) > cap) {
		mlen = (cap - XIO_HDR_LEN - XIO_ERR_BODY_LEN) & ~(size_t)3;
		while (mlen && ((uint8_t)msg[mlen] & 0xC0) == 0x80) /* not inside a character */
			mlen--;
	}
	len = XIO_HDR_LEN + pad4(XIO_ERR_BODY_LEN + mlen);
	memset(buf, 0, len);
	xio_hdr_put(buf, &h);
	xio_put_be32(body, code);
	xio_put_be32(body + 4, (uint32_t)mlen);
	memcpy(body + XIO_ERR_BODY_LEN, msg, mlen);
	return len;
}

int xio_error_parse(const uint8_t *b, size_t len, const struct xio_hdr *h, uint32_t *code,
		    const char **msg, uint32_t *msg_len)
{
	const uint8_t *body = b + h->hdr_len;
	size_t blen = len - h->hdr_len;

	if (blen < XIO_ERR_BODY_LEN)
		return -1;
	*code = xio_be32(body);
	*msg_len = xio_be32(body + 4);
	if (*msg_len > blen - XIO_ERR_BODY_LEN)
		return -1;
	*msg = (const char *)body + XIO_ERR_BODY_LEN;
	return 0;
}

size_t xio_stat_reply_build_cookie(uint8_t *buf, size_t cap, uint32_t stream_id, uint64_t size,
				   uint64_t mtime_ns, const uint8_t *cookie)
{
	struct xio_hdr h = {
		.opcode = XIO_OP_STAT_REPLY, .flags = XIO_F_LAST,
		.dtype = size % 4 ? 0 : XIO_DT_INT32, .hdr_len = XIO_HDR_LEN,
		.stream_id = stream_id, .first_token = size / 4,
	};
	size_t len = XIO_HDR_LEN + (cookie ? XIO_STAT_BODY_COOKIE_LEN : XIO_STAT_BODY_LEN);

	if (len > cap)
		return 0;
	xio_hdr_put(buf, &h);
	xio_put_be64(buf + XIO_HDR_LEN, size);
	xio_put_be64(buf + XIO_HDR_LEN + 8, mtime_ns);
	if (cookie)
		memcpy(buf + XIO_HDR_LEN + XIO_STAT_BODY_LEN, cookie, XIO_COOKIE_LEN);
	return len;
}

size_t xio_stat_reply_build(uint8_t *buf, size_t cap, uint32_t stream_id, uint64_t size,
			    uint64_t mtime_ns)
{
	return xio_stat_reply_build_cookie(buf, cap, stream_id, size, mtime_ns, NULL);
}

int xio_stat_reply_parse(const uint8_t *b, size_t len, const struct xio_hdr *h, uint64_t *size,
			 uint64_t *mtime_ns)
{
	if (len - h->hdr_len < XIO_STAT_BODY_LEN)
		return -1;
	*size = xio_be64(b + h->hdr_len);
	*mtime_ns = xio_be64(b + h->hdr_len + 8);
	return 0;
}

const uint8_t *xio_stat_reply_cookie(const uint8_t *b, size_t len, const struct xio_hdr *h)
{
	if (len - h->hdr_len < XIO_STAT_BODY_COOKIE_LEN)
		return NULL;
	return b + h->hdr_len + XIO_STAT_BODY_LEN;
}

uint32_t xio_mtu_payload(uint32_t mtu, bool ipv6)
{
	uint32_t over = (ipv6 ? 40u : 20u) + 8u + XIO_HDR_LEN;
	uint32_t room;

	if (mtu < over + 4)
		return 0;
	room = mtu - over;
	return room >= 32 ? room & ~31u : room & ~3u;
}
