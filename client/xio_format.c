/* SPDX-License-Identifier: BSD-3-Clause
 * xio_format.c: what the output formats need besides the tokens: the
 * llm.c shard header, and the Megatron-LM .idx of an int32 dataset turned
 * into the .idx of its uint16 copy (dtype code 8, byte pointers halved,
 * every other byte as it was).
 */
#include <string.h>

#include "xio_priv.h"

#define MEGATRON_MAGIC     "MMIDIDX\0\0"
#define MEGATRON_MAGIC_LEN 9
#define MEGATRON_HDR_LEN   34 /* magic, version u64, dtype u8, two u64 counts */
#define MEGATRON_INT32     4
#define MEGATRON_UINT16    8

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

int xio_llmc_header(uint8_t hdr[XIO_LLMC_HEADER_BYTES], uint64_t ntok, struct xio_error *err)
{
	static const uint32_t head[3] = { XIO_LLMC_MAGIC, 1, 0 };

	if (ntok > XIO_LLMC_MAX_TOKENS)
		return xio_fail(err, XIO_EFORMAT,
				"%llu tokens do not fit an llm.c header (at most %u)",
				(unsigned long long)ntok, XIO_LLMC_MAX_TOKENS);
	memset(hdr, 0, XIO_LLMC_HEADER_BYTES);
	for (int i = 0; i < 3; i++) {
		uint32_t v = i == 2 ? (uint32_t)ntok : head[i];

		for (int b = 0; b < 4; b++)
			hdr[4 * i + b] = (uint8_t)(v >> (8 * b));
	}
	return 0;
}

static const char *dtype_name(uint8_t code)
{
	static const char *const names[] = { "?", "uint8", "int8", "int16", "int32",
					     "int64", "float64", "float32", "uint16" };

	return code < sizeof(names) / sizeof(names[0]) ? names[code] : "?";
}

/* The header fields, checked against the buffer's length. */
static int parse_header(const uint8_t *buf, size_t len, struct xio_megatron_idx *info,
			struct xio_error *err)
{
	uint64_t need;

	if (len < MEGATRON_HDR_LEN || memcmp(buf, MEGATRON_MAGIC, MEGATRON_MAGIC_LEN) != 0)
		return xio_fail(err, XIO_EFORMAT, "not a Megatron-LM index (no MMIDIDX header)");
	if (le64(buf + 9) != 1)
		return xio_fail(err, XIO_EFORMAT, "Megatron-LM index version %llu, only 1 is known",
				(unsigned long long)le64(buf + 9));
	info->dtype = buf[17];
	if (info->dtype != MEGATRON_INT32)
		return xio_fail(err, XIO_EFORMAT,
				"Megatron-LM index of dtype code %u (%s): only int32 (4) datasets "
				"are narrowed",
				info->dtype, dtype_name(info->dtype));
	info->sequences = le64(buf + 18);
	info->documents = le64(buf + 26);
	if (info->sequences > len / 12 || info->documents > len / 8)
		return xio_fail(err, XIO_EFORMAT, "Megatron-LM index truncated: %llu sequences and "
				"%llu documents in %zu bytes", (unsigned long long)info->sequences,
				(unsigned long long)info->documents, len);
	need = MEGATRON_HDR_LEN + 12 * info->sequences + 8 * info->documents;
	if (need > len)
		return xio_fail(err, XIO_EFORMAT, "Megatron-LM index truncated: %llu bytes needed, "
				"%zu present", (unsigned long long)need, len);
	return 0;
}

int xio_megatron_idx_narrow(uint8_t *buf, size_t len, uint64_t bin_tokens,
			    struct xio_megatron_idx *info, struct xio_error *err)
{
	const uint8_t *sizes;
	uint8_t *ptrs;
	int rc;

	memset(info, 0, sizeof(*info));
	rc = parse_header(buf, len, info, err);
	if (rc < 0)
		return rc;
	sizes = buf + MEGATRON_HDR_LEN;
	ptrs = buf + MEGATRON_HDR_LEN + 4 * info->sequences;
	for (uint64_t i = 0; i < info->sequences; i++) {
		int32_t size = (int32_t)le32(sizes + 4 * i);
		uint64_t p = le64(ptrs + 8 * i);

		if (size < 0 || p % 4 || p / 4 > bin_tokens || (uint64_t)size > bin_tokens - p / 4)
			return xio_fail(err, XIO_EFORMAT,
					"Megatron-LM index: sequence %llu (%d tokens at byte %lld) is "
					"not inside the %llu int32 tokens of the .bin",
					(unsigned long long)i, size, (long long)p,
					(unsigned long long)bin_tokens);
		info->tokens += (uint64_t)size;
	}
	buf[17] = MEGATRON_UINT16;
	for (uint64_t i = 0; i < info->sequences; i++)
		put_le64(ptrs + 8 * i, le64(ptrs + 8 * i) / 2);
	return 0;
}
