/* SPDX-License-Identifier: BSD-3-Clause
 * xio_csum.h: Internet checksum (RFC 1071) helpers: raw ones'-complement
 * sums over byte ranges, folding, and the RFC 1624 incremental update.
 */
#ifndef XIO_CSUM_H
#define XIO_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Adds the 16-bit big-endian words of buf[0..len) to sum (an odd last byte
 * is padded with zero). The result is unfolded: pass it to xio_csum_fold. */
uint64_t xio_csum_add(uint64_t sum, const uint8_t *buf, size_t len);

/* Folds a partial sum to 16 bits with end-around carry (not inverted). */
static inline uint16_t xio_csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Checksum of an IPv4 header as it should stand in its checksum field
 * (computed with that field taken as zero). */
uint16_t xio_ipv4_hdr_csum(const uint8_t *ip, size_t ihl_bytes);

/* RFC 1624 eqn. 3: the checksum field after a 16-bit word of the covered
 * data changed from old_word to new_word. */
static inline uint16_t xio_csum_update16(uint16_t csum, uint16_t old_word, uint16_t new_word)
{
	uint32_t s = (uint16_t)~csum + (uint32_t)(uint16_t)~old_word + new_word;
	return (uint16_t)~xio_csum_fold(s);
}

#endif /* XIO_CSUM_H */
