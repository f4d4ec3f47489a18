/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ref.h: an independent reference model of ../shared/xio-wire-v1.md,
 * written from the spec text rule by rule, for the hostile-capture test and
 * the fuzzer to check the stage core against. It shares no code with
 * stages/: its own byte readers, checksum, CRC32C and narrowing, written
 * for clarity, not speed.
 */
#ifndef XIO_REF_H
#define XIO_REF_H

#include <stddef.h>
#include <stdint.h>

/* The spec's reasons; names as in expected.json. */
enum xio_ref_reason {
	REF_NARROWED,
	REF_NOT_IP,
	REF_NOT_UDP,
	REF_IP_FRAGMENT,
	REF_TRUNCATED,
	REF_OTHER_PORT,
	REF_BAD_LENGTH,
	REF_BAD_IP_CSUM,
	REF_BAD_UDP_CSUM,
	REF_BAD_HEADER,
	REF_UNSUPPORTED,
	REF_NOT_REPLY,
	REF_ALREADY_NARROW,
	REF_BAD_CRC,
	REF_OUT_OF_RANGE,
	REF_NREASONS
};

enum xio_ref_policy { REF_KEEP, REF_SATURATE, REF_DROP };

enum xio_ref_action { REF_FORWARD, REF_REWRITE, REF_DISCARD };

struct xio_ref_cfg {
	unsigned port;           /* XIO UDP destination port */
	enum xio_ref_policy policy;
	int drop_invalid;
};

struct xio_ref_result {
	enum xio_ref_reason reason;
	enum xio_ref_action action;
	size_t out_len;          /* bytes of out to transmit (0 when discarded) */
	uint32_t tokens;         /* tokens in a rewritten frame */
	uint32_t saturated;      /* tokens clamped in it */
};

const char *xio_ref_reason_name(enum xio_ref_reason r);

/* Decides what the pipeline must do with frame in[0..len) and writes the
 * frame it must transmit to out (room for len bytes). */
void xio_ref_process(const struct xio_ref_cfg *cfg, const uint8_t *in, size_t len,
		     uint8_t *out, struct xio_ref_result *res);

/* CRC32C as the spec defines it (bitwise, reflected 0x82F63B78). */
uint32_t xio_ref_crc32c(const uint8_t *buf, size_t len);

#endif /* XIO_REF_H */
