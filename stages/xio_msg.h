/* SPDX-License-Identifier: BSD-3-Clause
 * xio_msg.h: the messages of the XIO read protocol (../shared/xio-read-v1.md,
 * docs/server.md) on plain UDP payloads: the 32-byte header as a struct,
 * requests, STAT_REPLY and ERROR_REPLY bodies, and the per-datagram token
 * budget of an MTU. Shared by the server, the client and the tools; no
 * sockets, no allocation.
 */
#ifndef XIO_MSG_H
#define XIO_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xio_wire.h"

#define XIO_OP_STAT_REQUEST 0x04
#define XIO_OP_STAT_REPLY   0x05
#define XIO_OP_DATA_REPLY   0x06

/* Request options (body byte 4). */
#define XIO_OPT_RAW      0x01
#define XIO_OPT_CRC      0x02
#define XIO_OPT_COOKIE   0x04 /* 1.2: a 16-byte address cookie after the path's padding */
#define XIO_OPT_RESERVED 0xF8

#define XIO_REQ_BODY_LEN   8        /* path_len, max_count, options, reserved */
#define XIO_PATH_MAX       1024     /* most bytes of a request path */
#define XIO_READ_MAX_COUNT 16777216u /* most tokens (bytes) one READ_REQUEST asks for */
#define XIO_STAT_BODY_LEN  16       /* size, mtime_ns */
#define XIO_COOKIE_LEN     16       /* address cookie (1.2) */
#define XIO_STAT_BODY_COOKIE_LEN (XIO_STAT_BODY_LEN + XIO_COOKIE_LEN) /* size, mtime_ns, cookie */
#define XIO_ERR_BODY_LEN   8        /* code, message length (message follows) */
#define XIO_ERR_MSG_MAX    256      /* longest message a sender writes */

/* ERROR_REPLY codes. */
enum xio_err {
	XIO_E_NOT_FOUND = 1,
	XIO_E_ACCESS = 2,
	XIO_E_RANGE = 3,
	XIO_E_BAD_REQUEST = 4,
	XIO_E_NOT_TOKENS = 5,
	XIO_E_IO = 6,
	XIO_E_COOKIE = 7, /* 1.2: the address is not validated */
};

/* "not_found", ..., "io", "cookie"; "unknown" for any other code. */
const char *xio_err_name(uint32_t code);

/* The fixed XIO header, host order. */
struct xio_hdr {
	uint8_t opcode;
	uint8_t flags;
	uint8_t dtype;
	uint16_t hdr_len;
	uint32_t stream_id;
	uint32_t seq;
	uint64_t first_token;
	uint32_t token_count;
	uint32_t payload_crc;
};

/* Reads the header of a UDP payload. Returns 0 when it is XIO (magic,
 * version 1, hdr_len >= 32, a multiple of 4 and within len), -1 otherwise:
 * a datagram the read protocol never answers. */
int xio_hdr_parse(const uint8_t *b, size_t len, struct xio_hdr *h);

/* Writes the 32-byte header of h (magic and version added) at b. */
void xio_hdr_put(uint8_t *b, const struct xio_hdr *h);

/* A decoded READ_REQUEST or STAT_REQUEST. path points into the datagram
 * and is not NUL-terminated; cookie too (XIO_COOKIE_LEN bytes), or NULL:
 * a READ_REQUEST without option COOKIE, or any STAT_REQUEST (COOKIE on a
 * STAT_REQUEST is ignored). */
struct xio_request {
	struct xio_hdr hdr;
	uint16_t path_len;
	uint16_t max_count;
	uint8_t options;
	const char *path;
	const uint8_t *cookie;
};

/* What xio_request_parse() found. */
enum xio_req_verdict {
	XIO_REQ_OK = 0,
	XIO_REQ_IGNORE = -1, /* not XIO, or not a request: no answer at all */
	XIO_REQ_BAD = XIO_E_BAD_REQUEST, /* answer ERROR_REPLY bad_request */
};

/* Decodes a request datagram (the UDP payload). XIO_REQ_BAD still fills
 * r->hdr so that the error can echo stream_id and first_token; *why (may be
 * NULL) then names the fault for the error message. Path rules (absolute,
 * empty, "." or ".." components, NUL) are the server's to apply: see
 * xio_path_check(). */
enum xio_req_verdict xio_request_parse(const uint8_t *b, size_t len, struct xio_request *r,
				       const char **why);

/* 0 when path[0..len) is a relative path of non-empty components other than
 * "." and "..", with no NUL byte; -1 otherwise (ERROR_REPLY access). */
int xio_path_check(const char *path, size_t len);

/* Writes a request into buf[0..cap); returns its length, 0 when it does not
 * fit or path_len is not 1..1024. opcode: READ_REQUEST or STAT_REQUEST
 * (first and count are then written as given; a STAT_REQUEST sends 0, 0). */
size_t xio_request_build(uint8_t *buf, size_t cap, uint8_t opcode, uint32_t stream_id,
			 uint64_t first, uint32_t count, uint16_t max_count, uint8_t options,
			 const char *path, size_t path_len);

/* Adds option COOKIE and the cookie to a request that xio_request_build()
 * wrote (len bytes at buf, padded). Returns the new length, 0 when it does
 * not fit in cap. */
size_t xio_request_add_cookie(uint8_t *buf, size_t len, size_t cap,
			      const uint8_t cookie[XIO_COOKIE_LEN]);

/* ERROR_REPLY for a request: flags LAST, seq 0, dtype 0, token_count 0,
 * first_token the request's; body code, message length, message, zero
 * padding. The message is cut at XIO_ERR_MSG_MAX bytes, and further (never
 * inside a UTF-8 character) so that the reply fits in cap: a server keeps
 * an answer within a size that way. Returns the length, or 0 when cap is
 * less than the 40 bytes of an empty message. */
size_t xio_error_build(uint8_t *buf, size_t cap, uint32_t stream_id, uint64_t first_token,
		       uint32_t code, const char *msg);

/* Decodes an ERROR_REPLY body (after xio_hdr_parse): 0, or -1 when the body
 * is too short. msg points into the datagram (msg_len bytes, no NUL). */
int xio_error_parse(const uint8_t *b, size_t len, const struct xio_hdr *h, uint32_t *code,
		    const char **msg, uint32_t *msg_len);

/* STAT_REPLY: flags LAST, seq 0, token_count 0, first_token size / 4, dtype
 * INT32 when size is a multiple of 4 else 0; body size, mtime_ns (16 bytes,
 * the 1.0 form). */
size_t xio_stat_reply_build(uint8_t *buf, size_t cap, uint32_t stream_id, uint64_t size,
			    uint64_t mtime_ns);

/* The same with the requester's address cookie appended (32-byte body,
 * 1.2); cookie NULL writes the 16-byte body. */
size_t xio_stat_reply_build_cookie(uint8_t *buf, size_t cap, uint32_t stream_id, uint64_t size,
				   uint64_t mtime_ns, const uint8_t *cookie);

/* Decodes a STAT_REPLY body: 0, or -1 when the body is too short. */
int xio_stat_reply_parse(const uint8_t *b, size_t len, const struct xio_hdr *h, uint64_t *size,
			 uint64_t *mtime_ns);

/* The cookie of a STAT_REPLY (XIO_COOKIE_LEN bytes in the datagram): bytes
 * 16..31 of a body of at least 32 bytes; NULL for a 16-byte body (a server
 * that does not validate addresses). */
const uint8_t *xio_stat_reply_cookie(const uint8_t *b, size_t len, const struct xio_hdr *h);

/* The most payload bytes one answer datagram carries at an IP MTU: the MTU
 * less the IP header (20, or 40 for IPv6), UDP (8) and XIO (32) headers,
 * rounded down to a multiple of 32 bytes (8 INT32 tokens, so every payload
 * keeps the kernels' alignment): 1440 over IPv4 at 1500 (360 tokens), 8928
 * at 9000 (2232 tokens). 0 when the MTU cannot carry one token. */
uint32_t xio_mtu_payload(uint32_t mtu, bool ipv6);

#endif /* XIO_MSG_H */
