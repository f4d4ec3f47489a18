/* SPDX-License-Identifier: BSD-3-Clause
 * xio_csum.c: the Internet checksum over byte ranges. The ones'-complement
 * sum does not depend on byte order (RFC 1071 2.B), so words are summed in
 * host order 32 bits at a time into 64-bit accumulators and swapped once.
 */
#include <string.h>

#include "xio_csum.h"

uint64_t xio_csum_add(uint64_t sum, const uint8_t *buf, size_t len)
{
	uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, acc;
	uint32_t w[8];
	uint16_t h;

	/* four independent accumulators over 32-byte blocks: no carry chain
	 * between them, and a 64-bit sum of 32-bit words cannot overflow for
	 * any frame */
	while (len >= 32) {
		memcpy(w, buf, 32);
		a0 += (uint64_t)w[0] + w[4];
		a1 += (uint64_t)w[1] + w[5];
		a2 += (uint64_t)w[2] + w[6];
		a3 += (uint64_t)w[3] + w[7];
		buf += 32;
		len -= 32;
	}
	acc = a0 + a1 + a2 + a3;
	while (len >= 4) {
		memcpy(w, buf, 4);
		acc += w[0];
		buf += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&h, buf, 2);
		acc += h;
		buf += 2;
		len -= 2;
	}
	if (len) {
		/* the odd byte is the high byte of a zero-padded big-endian word */
		uint8_t pad[2] = { buf[0], 0 };

		memcpy(&h, pad, 2);
		acc += h;
	}
	return sum + xio_csum_from_host(acc);
}

uint16_t xio_ipv4_hdr_csum(const uint8_t *ip, size_t ihl_bytes)
{
	uint64_t sum = xio_csum_add(0, ip, ihl_bytes);

	/* take the checksum field (bytes 10-11) as zero */
	sum += (uint16_t)~((uint16_t)(ip[10] << 8 | ip[11]));
	return (uint16_t)~xio_csum_fold(sum);
}
