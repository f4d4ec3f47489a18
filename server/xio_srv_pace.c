/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_pace.c: the shared token bucket of --rate (xio_srv_pace.h).
 */
#include <stdbool.h>

#include "xio_srv_pace.h"

void xio_srv_pace_init(struct xio_srv_pace *p, double gbit)
{
	p->ns_per_byte = gbit > 0 ? 8.0 / gbit : 0;
	p->depth_ns = (uint64_t)(XIO_SRV_PACE_DEPTH * p->ns_per_byte);
	p->tat = 0;
}

uint64_t xio_srv_pace_take(struct xio_srv_pace *p, uint64_t bytes, uint64_t now_ns)
{
	uint64_t cost = (uint64_t)((double)bytes * p->ns_per_byte);
	uint64_t tat = __atomic_load_n(&p->tat, __ATOMIC_RELAXED), start;

	if (p->ns_per_byte == 0)
		return 0;
	do {
		uint64_t floor = now_ns > p->depth_ns ? now_ns - p->depth_ns : 0;

		start = tat > floor ? tat : floor;
	} while (!__atomic_compare_exchange_n(&p->tat, &tat, start + cost, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return start > now_ns ? start - now_ns : 0;
}
