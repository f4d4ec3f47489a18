/* SPDX-License-Identifier: BSD-3-Clause
 * xio_crc.h: CRC32C (Castagnoli, reflected; the iSCSI / NVMe-TCP digest)
 * through ISA-L's crc32_iscsi, chainable over segments.
 */
#ifndef XIO_CRC_H
#define XIO_CRC_H

#include <stddef.h>
#include <stdint.h>

#define XIO_CRC32C_INIT 0xFFFFFFFFu

/* Continues a CRC32C over buf: start with XIO_CRC32C_INIT, finish with
 * xio_crc32c_final. */
uint32_t xio_crc32c_update(uint32_t state, const uint8_t *buf, size_t len);

static inline uint32_t xio_crc32c_final(uint32_t state)
{
	return state ^ 0xFFFFFFFFu;
}

/* One-shot CRC32C: xio_crc32c("123456789", 9) == 0xE3069283. */
uint32_t xio_crc32c(const uint8_t *buf, size_t len);

#endif /* XIO_CRC_H */
