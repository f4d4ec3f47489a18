/* SPDX-License-Identifier: BSD-3-Clause
 * xio_time.h: the programs' clock, CLOCK_MONOTONIC, for run times, stop
 * conditions and stats intervals (the DPDK data path keeps its TSC).
 */
#ifndef XIO_TIME_H
#define XIO_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t xio_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double xio_now_s(void)
{
	return (double)xio_now_ns() * 1e-9;
}

#endif /* XIO_TIME_H */
