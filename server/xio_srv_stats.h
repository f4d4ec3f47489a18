/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_stats.h: xio-server's counters. Each worker owns one struct,
 * written by that worker alone with relaxed stores (no locks, no atomics
 * read-modify-write); the main thread sums them for the --stats-interval
 * line, the summary and the --stats-json file.
 */
#ifndef XIO_SRV_STATS_H
#define XIO_SRV_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xio_msg.h"

enum xio_srv_req { XIO_SRV_REQ_READ = 0, XIO_SRV_REQ_STAT, XIO_SRV_REQ_COUNT };
enum xio_srv_ans {
	XIO_SRV_ANS_READ = 0, /* READ_REPLY trains */
	XIO_SRV_ANS_DATA,     /* DATA_REPLY trains */
	XIO_SRV_ANS_STAT,     /* STAT_REPLY */
	XIO_SRV_ANS_ERROR,    /* ERROR_REPLY */
	XIO_SRV_ANS_COUNT
};
#define XIO_SRV_ERR_COUNT (XIO_E_COOKIE + 1) /* errors[code], code 1..7 */

struct xio_srv_counters {
	uint64_t received;  /* datagrams taken in */
	uint64_t refused;   /* from outside the allow list: no answer */
	uint64_t ignored;   /* not XIO, or not a request: no answer */
	uint64_t requests[XIO_SRV_REQ_COUNT];
	uint64_t answers[XIO_SRV_ANS_COUNT];
	uint64_t errors[XIO_SRV_ERR_COUNT]; /* ERROR_REPLY by code */
	uint64_t datagrams;   /* sent */
	uint64_t bytes;       /* UDP payload bytes sent (what --rate paces) */
	uint64_t file_bytes;  /* file bytes carried by READ_REPLY / DATA_REPLY */
	uint64_t send_errors; /* datagrams the kernel refused to send */
	uint64_t cache_hits, cache_opens; /* open-file cache */
	uint64_t cookies_issued; /* STAT_REPLY with an address cookie */
	uint64_t last_rx_ns;  /* CLOCK_MONOTONIC of the last datagram in */
} __attribute__((aligned(64)));

/* The single writer's add: a relaxed store, read whole by other threads. */
#define XIO_SRV_ADD(field, n) \
	__atomic_store_n(&(field), (field) + (uint64_t)(n), __ATOMIC_RELAXED)

/* Adds a worker's counters (read while it runs) into *sum; last_rx_ns: the
 * latest of the two. */
void xio_srv_counters_add(struct xio_srv_counters *sum, const struct xio_srv_counters *x);

/* The run's description in the JSON: how it ran. */
struct xio_srv_run_info {
	unsigned threads;
	uint32_t mtu;
	double rate_gbit;
	bool gso; /* every worker still on UDP GSO at the end */
	bool cookies; /* address validation on */
};

/* One line: "xio-server: t=..." with rates over dt and the totals. */
void xio_srv_stats_line(FILE *out, double t, const struct xio_srv_counters *now,
			const struct xio_srv_counters *prev, double dt);

/* The stats JSON object. */
void xio_srv_stats_json(FILE *out, const struct xio_srv_counters *c, double elapsed_s,
			const struct xio_srv_run_info *info);

/* Writes the JSON to path atomically (temporary file, rename). 0 or -1. */
int xio_srv_stats_save(const char *path, const struct xio_srv_counters *c, double elapsed_s,
		       const struct xio_srv_run_info *info);

#endif /* XIO_SRV_STATS_H */
