/* SPDX-License-Identifier: BSD-3-Clause
 * xio_wire.h: the XIO v1 wire format (docs/framing.md) as constants, and the
 * outcome of processing one frame: a reason name per the spec and the action
 * a driver takes. No DPDK or libbpf types: every driver shares this file.
 */
#ifndef XIO_WIRE_H
#define XIO_WIRE_H

#include <stdint.h>

#define XIO_DEFAULT_UDP_PORT 7910

#define XIO_MAGIC          0x5849u
#define XIO_VERSION        1
#define XIO_HDR_LEN        32

#define XIO_OP_READ_REQUEST 0x01
#define XIO_OP_READ_REPLY   0x02
#define XIO_OP_ERROR_REPLY  0x03

#define XIO_F_LAST       0x01
#define XIO_F_HAS_CRC    0x02
#define XIO_F_NARROWED   0x04
#define XIO_F_RESERVED   0xF8

#define XIO_DT_INT32  0x01
#define XIO_DT_UINT16 0x02

/* Byte offsets of the fields inside the 32-byte XIO header (big-endian). */
#define XIO_OFF_MAGIC       0
#define XIO_OFF_VERSION     2
#define XIO_OFF_OPCODE      3
#define XIO_OFF_FLAGS       4
#define XIO_OFF_DTYPE       5
#define XIO_OFF_HDR_LEN     6
#define XIO_OFF_STREAM_ID   8
#define XIO_OFF_SEQ         12
#define XIO_OFF_FIRST_TOKEN 16
#define XIO_OFF_TOKEN_COUNT 24
#define XIO_OFF_PAYLOAD_CRC 28

/* Longest run of headers the classifier reads: Ethernet + 2 VLAN tags +
 * IPv4 with 40 bytes of options + UDP + the fixed XIO header. */
#define XIO_MAX_HDRS (14 + 8 + 60 + 8 + XIO_HDR_LEN)

/* Every frame is counted under exactly one reason (spec, "What the pipeline
 * does to each frame"). The order here is the order of the JSON output. */
enum xio_reason {
	XIO_R_NARROWED = 0,
	XIO_R_NOT_IP,
	XIO_R_NOT_UDP,
	XIO_R_IP_FRAGMENT,
	XIO_R_TRUNCATED,
	XIO_R_OTHER_PORT,
	XIO_R_BAD_LENGTH,
	XIO_R_BAD_IP_CSUM,
	XIO_R_BAD_UDP_CSUM,
	XIO_R_BAD_HEADER,
	XIO_R_UNSUPPORTED,
	XIO_R_NOT_REPLY,
	XIO_R_ALREADY_NARROW,
	XIO_R_BAD_CRC,
	XIO_R_OUT_OF_RANGE,
	XIO_R_COUNT
};

/* What the driver does with the frame once the stage core has decided. */
enum xio_action {
	XIO_ACT_FORWARD = 0, /* transmit byte-identical, length unchanged */
	XIO_ACT_REWRITTEN,   /* transmitted rewritten: frame is now out_len bytes */
	XIO_ACT_DROP,        /* do not transmit; counted as dropped */
};

/* Policy for READ_REPLY frames carrying a token outside 0..65535. */
enum xio_overflow {
	XIO_OVERFLOW_KEEP = 0, /* forward byte-identical (default) */
	XIO_OVERFLOW_SATURATE, /* clamp to 0..65535 and narrow */
	XIO_OVERFLOW_DROP,     /* drop the frame */
};

const char *xio_reason_name(enum xio_reason r);

const char *xio_overflow_name(enum xio_overflow o);
/* Returns 0 and sets *o, or -1 when name is not keep|saturate|drop. */
int xio_overflow_parse(const char *name, enum xio_overflow *o);

static inline uint16_t xio_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t xio_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t xio_be64(const uint8_t *p)
{
	return (uint64_t)xio_be32(p) << 32 | xio_be32(p + 4);
}

static inline void xio_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void xio_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void xio_put_be64(uint8_t *p, uint64_t v)
{
	xio_put_be32(p, (uint32_t)(v >> 32));
	xio_put_be32(p + 4, (uint32_t)v);
}

#endif /* XIO_WIRE_H */
