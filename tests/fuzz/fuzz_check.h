/* SPDX-License-Identifier: BSD-3-Clause
 * fuzz_check.h: the fuzzer's own check of a narrowed frame, independent of
 * the stage core: it parses the input itself, confirms the input was a
 * valid INT32 READ_REPLY (checksums, CRC32C through ISA-L directly), and that
 * the output differs from it only as the spec's "Narrowing" section allows.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* What the NIC would have said of a frame's checksums (0 unknown, 1 good,
 * 2 bad, as enum xio_csum_hint), computed here from the bytes. */
struct fuzz_hints {
	uint8_t ip;
	uint8_t l4;
};

void fuzz_true_hints(const uint8_t *in, size_t len, struct fuzz_hints *h);

/* What fuzz_fix() recomputes, so that mutated frames get past the
 * checksum rules and reach the later ones. */
#define FUZZ_FIX_CRC 0x1 /* payload_crc, when HAS_CRC and the payload is in the frame */
#define FUZZ_FIX_UDP 0x2 /* UDP checksum, unless an IPv4 one is 0 */
#define FUZZ_FIX_IP  0x4 /* IPv4 header checksum */

/* Recomputes the chosen fields of frame f in place, in the order CRC, UDP,
 * IP, as far as its headers lie inside it. */
void fuzz_fix(uint8_t *f, size_t len, unsigned what);

/* Checks that out[0..out_len) is the narrowing of in[0..in_len) on port
 * port, with out-of-range tokens clamped when saturate is set (else there
 * must be none), tokens and saturated as the stage core reported. Returns
 * 0, or -1 with the first violation described in why. */
int fuzz_check_narrowed(const uint8_t *in, size_t in_len, const uint8_t *out, size_t out_len,
			unsigned port, int saturate, uint32_t tokens, uint32_t saturated,
			char *why, size_t whylen);

#endif /* FUZZ_CHECK_H */
