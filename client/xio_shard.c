/* SPDX-License-Identifier: BSD-3-Clause
 * xio_shard.c: the part of a range that one of `world` data-parallel
 * readers reads: contiguous, in rank order, the first count % world parts
 * one token longer than the rest.
 */
#include "xio_priv.h"

int xio_shard(uint64_t first, uint64_t count, uint32_t rank, uint32_t world,
	      uint64_t *part_first, uint64_t *part_count)
{
	uint64_t q, r;

	if (world == 0 || rank >= world)
		return xio_fail(NULL, XIO_EARG, "rank %u of world %u", rank, world);
	q = count / world;
	r = count % world;
	*part_first = first + rank * q + (rank < r ? rank : r);
	*part_count = q + (rank < r);
	return 0;
}
