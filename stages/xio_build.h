/* SPDX-License-Identifier: BSD-3-Clause
 * xio_build.h: builds one XIO v1 frame into a caller buffer: Ethernet, 0-2
 * VLAN tags, IPv4 (options, ID, TTL, DSCP) or IPv6, UDP (checksum on or
 * off), the XIO header with its extension bytes, and a payload of INT32 or
 * UINT16 tokens. Used by xio-gen, the unit tests and the fuzzer; it never
 * allocates. Faults are made by editing the built bytes and, where the
 * fault must survive the checks, calling xio_build_fix() afterwards.
 */
#ifndef XIO_BUILD_H
#define XIO_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xio_wire.h"

#define XIO_BUILD_MAX_VLANS  2
#define XIO_BUILD_MAX_IPOPTS 40

struct xio_build_spec {
	/* Ethernet */
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	unsigned nvlan;                       /* 0..2, outermost first */
	uint16_t vlan_tpid[XIO_BUILD_MAX_VLANS]; /* 0x8100 or 0x88A8 */
	uint16_t vlan_tci[XIO_BUILD_MAX_VLANS];  /* PCP | DEI | VID */
	/* IP */
	bool ipv6;
	uint8_t src_ip[16]; /* IPv4 uses the first 4 bytes */
	uint8_t dst_ip[16];
	uint8_t ttl;        /* IPv4 TTL or IPv6 hop limit */
	uint8_t dscp;       /* 0..63 */
	uint16_t ip_id;     /* IPv4 only */
	uint8_t ip_opt_len; /* IPv4 option bytes: a multiple of 4, <= 40 */
	const uint8_t *ip_opts; /* ip_opt_len bytes; NULL: NOP options */
	/* UDP */
	uint16_t src_port;
	uint16_t dst_port;
	bool udp_csum;      /* false: checksum field 0 */
	/* XIO header */
	uint8_t opcode;
	uint8_t flags;      /* HAS_CRC makes the builder compute payload_crc */
	uint8_t dtype;      /* UINT16 writes 2-byte tokens, any other 4-byte */
	uint16_t hdr_len;   /* >= 32; bytes 32..hdr_len are the extension */
	const uint8_t *ext; /* hdr_len - 32 bytes; NULL: zeros */
	uint32_t stream_id;
	uint32_t seq;
	uint64_t first_token;
	uint32_t token_count;
	const int32_t *tokens; /* token_count values; UINT16 keeps (uint16_t)t */
	/* Frame */
	uint32_t pad_to;    /* Ethernet padding up to this length (0: none) */
};

/* Where the layers start in a built frame. */
struct xio_build_layout {
	uint32_t l3_off;      /* IPv4 or IPv6 header */
	uint32_t l4_off;      /* UDP header */
	uint32_t xio_off;     /* XIO header */
	uint32_t payload_off; /* first token */
	uint32_t payload_len; /* token bytes */
	uint32_t ip_end;      /* end of the IP datagram (start of any padding) */
	uint32_t frame_len;   /* with padding */
	bool ipv6;
};

/* Fills spec with a valid INT32 READ_REPLY of no tokens: 02:00:00:00:00:01
 * -> 02:00:00:00:00:02, 10.0.0.1 -> 10.0.0.2 (fd00::1 -> fd00::2 when ipv6
 * is set later), UDP 49152 -> 7910 with checksum, TTL 64, hdr_len 32. */
void xio_build_spec_default(struct xio_build_spec *spec);

/* Bytes the frame of spec takes, or 0 when spec cannot be built (more than
 * two VLANs, bad option length, hdr_len < 32, an IP datagram over 65535). */
uint32_t xio_build_len(const struct xio_build_spec *spec);

/* Writes the frame of spec into buf[0..cap) and returns its length, or 0
 * when it cannot be built or does not fit. lay may be NULL. */
uint32_t xio_build_frame(const struct xio_build_spec *spec, uint8_t *buf, uint32_t cap,
			 struct xio_build_layout *lay);

/* What xio_build_fix() recomputes. */
#define XIO_FIX_CRC    0x1 /* payload_crc, when the header has HAS_CRC */
#define XIO_FIX_UDP    0x2 /* UDP checksum (a computed 0 is written 0xFFFF) */
#define XIO_FIX_IP_HDR 0x4 /* IPv4 header checksum */
#define XIO_FIX_ALL    (XIO_FIX_CRC | XIO_FIX_UDP | XIO_FIX_IP_HDR)

/* Recomputes the chosen fields of a built frame after the caller edited it,
 * in the order CRC, UDP, IP, reading lengths from lay (not from the bytes). */
void xio_build_fix(uint8_t *buf, const struct xio_build_layout *lay, unsigned what);

/* UDP checksum of the datagram at buf + lay->l4_off as it should stand in its
 * field (pseudo-header included, the field taken as zero, a 0 result sent as
 * 0xFFFF). */
uint16_t xio_build_udp_csum(const uint8_t *buf, const struct xio_build_layout *lay);

#endif /* XIO_BUILD_H */
