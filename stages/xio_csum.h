/* SPDX-License-Identifier: BSD-3-Clause
 * xio_csum.h: Internet checksum (RFC 1071) helpers: raw ones'-complement
 * sums over byte ranges, folding, and the RFC 1624 incremental update.
 */
#ifndef XIO_CSUM_H
#define XIO_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Adds the 16-bit big-endian words of buf[0..len) to sum (an odd last byte
 * is padded with zero). The result is unfolded: pass it to xio_csum_fold. */
uint64_t xio_csum_add(uint64_t sum, const uint8_t *buf, size_t len);

/* Folds a partial sum to 16 bits with end-around carry (not inverted):
 * 64 to 32 bits with the carry added back, then twice 32 to 16. */
static inline uint16_t xio_csum_fold(uint64_t sum)
{
	uint32_t hi = (uint32_t)(sum >> 32), s = (uint32_t)sum + hi;

	s += s < hi; /* cannot carry again: s < 2^32 - 1 after a carry */
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Adds n32 host-order 32-bit words at buf (no alignment needed) to acc:
 * the inline form for short runs of whole words (IP, UDP and XIO headers).
 * Bring the result into xio_csum_add's terms with xio_csum_from_host. */
static inline uint64_t xio_csum_add32(uint64_t acc, const uint8_t *buf, size_t n32)
{
	while (n32-- > 0) {
		uint32_t w;

		memcpy(&w, buf, sizeof(w));
		acc += w;
		buf += sizeof(w);
	}
	return acc;
}

/* A 16-bit value in network order as it adds to a host-order sum. */
static inline uint64_t xio_csum_host16(uint16_t be_value)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16(be_value);
#else
	return be_value;
#endif
}

/* A partial sum of host-order 32-bit words (the narrowing kernels' token
 * sum) in xio_csum_add's big-endian terms (RFC 1071 2.B: swap once). */
static inline uint64_t xio_csum_from_host(uint64_t acc)
{
	return xio_csum_host16(xio_csum_fold(acc));
}

/* Checksum of an IPv4 header as it should stand in its checksum field
 * (computed with that field taken as zero). */
uint16_t xio_ipv4_hdr_csum(const uint8_t *ip, size_t ihl_bytes);

/* RFC 1624 eqn. 3, ~(~HC + ~m + m'), over any number of changed 16-bit
 * words: xio_csum_diff16 of each change summed, then applied once (one
 * fold for all of them). */
static inline uint64_t xio_csum_diff16(uint16_t old_word, uint16_t new_word)
{
	return (uint64_t)(uint16_t)~old_word + new_word;
}

static inline uint16_t xio_csum_apply(uint16_t csum, uint64_t diff)
{
	return (uint16_t)~xio_csum_fold((uint16_t)~csum + diff);
}

/* The checksum field after one 16-bit word of the covered data changed
 * from old_word to new_word. */
static inline uint16_t xio_csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word)
{
	return xio_csum_apply(csum, xio_csum_diff16(old_word, new_word));
}

#endif /* XIO_CSUM_H */
