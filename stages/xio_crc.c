/* SPDX-License-Identifier: BSD-3-Clause
 * xio_crc.c: CRC32C through ISA-L (crc32_iscsi picks PCLMUL/CRC32 or the
 * Arm CRC/PMULL path at run time). ISA-L takes and returns the CRC register
 * without the final inversion, which makes it chain over segments.
 */
#include <isa-l/crc.h>

#include "xio_crc.h"

uint32_t xio_crc32c_update(uint32_t state, const uint8_t *buf, size_t len)
{
	while (len > 0) {
		int chunk = len > (1u << 30) ? (1 << 30) : (int)len;

		state = crc32_iscsi((unsigned char *)(uintptr_t)buf, chunk, state);
		buf += chunk;
		len -= (size_t)chunk;
	}
	return state;
}

uint32_t xio_crc32c(const uint8_t *buf, size_t len)
{
	return xio_crc32c_final(xio_crc32c_update(XIO_CRC32C_INIT, buf, len));
}
