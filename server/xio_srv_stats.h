/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_stats.h: xio-server's counters. Each worker owns one struct,
 * written by that worker alone with relaxed stores (no locks, no atomics
 * read-modify-write); the main thread sums them for the --stats-interval
 * line, the summary and the --stats-json file, the --metrics thread for
 * GET /metrics. Every counter is described once, in XIO_SRV_COUNTERS: the
 * structure, the JSON and the Prometheus text come from that list.
 */
#ifndef XIO_SRV_STATS_H
#define XIO_SRV_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xio_buf.h"
#include "xio_json.h"
#include "xio_metrics.h"
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
/* Why the kernel refused a send for good (send_errors_by_reason). */
enum xio_srv_send_reason {
	XIO_SRV_SEND_NOBUFS = 0,  /* ENOBUFS/EAGAIN after XIO_SRV_SEND_TRIES tries */
	XIO_SRV_SEND_TOO_BIG,     /* EMSGSIZE: --mtu above the interface's */
	XIO_SRV_SEND_UNREACHABLE, /* no route, or an ICMP error for the client */
	XIO_SRV_SEND_OTHER,
	XIO_SRV_SEND_REASONS
};

/* The counters, one line each, in JSON order. C(name, stats line name or
 * NULL, help): one value; A(name, count, label of element i, Prometheus
 * label, JSON key of the breakdown, stats line name or NULL, help): an
 * array, its sum under name in the JSON and on the stats line (JSON key
 * NULL: the breakdown under name, without a sum). */
#define XIO_SRV_COUNTERS(C, A)                                                                   \
	A(requests, XIO_SRV_REQ_COUNT, xio_srv_req_name, "opcode", "requests_by_opcode",        \
	  "requests", "Requests taken, by opcode")                                               \
	A(answers, XIO_SRV_ANS_COUNT, xio_srv_ans_name, "opcode", "answers_by_opcode", NULL,    \
	  "Answers sent (a reply train counts once), by opcode")                                 \
	A(errors, XIO_SRV_ERR_COUNT, xio_srv_err_label, "code", "errors_by_code", "errors",     \
	  "ERROR_REPLY answers, by error code")                                                  \
	C(datagrams, "datagrams", "Datagrams sent")                                              \
	C(bytes, "bytes", "UDP payload bytes sent (what --rate paces)")                          \
	C(file_bytes, NULL, "File bytes carried by READ_REPLY and DATA_REPLY")                   \
	C(send_errors, "send_errors", "Datagrams the kernel refused to send, for good")          \
	A(send_errors_by_reason, XIO_SRV_SEND_REASONS, xio_srv_send_reason_name, "reason",      \
	  NULL, NULL, "Datagrams the kernel refused to send, by reason")                         \
	C(send_retries, "send_retries", "Sends refused for want of buffers, tried again")        \
	C(icmp_errors, NULL, "ICMP errors read off the sockets' error queues")                   \
	C(received, NULL, "Datagrams taken in")                                                  \
	C(refused, "refused", "Datagrams from outside the allow list (not answered)")            \
	C(ignored, "ignored", "Datagrams that are not XIO requests (not answered)")              \
	C(cache_hits, NULL, "Requests served from the open-file cache")                          \
	C(cache_opens, NULL, "Files opened (open-file cache misses)")                            \
	C(cookies_issued, NULL, "STAT_REPLY answers that carried an address cookie")

#define XIO_SRV_FIELD(name, line, help) uint64_t name;
#define XIO_SRV_ARRAY(name, count, label, key, by, line, help) uint64_t name[count];
struct xio_srv_counters {
	XIO_SRV_COUNTERS(XIO_SRV_FIELD, XIO_SRV_ARRAY)
	uint64_t last_rx_ns;  /* CLOCK_MONOTONIC of the last datagram in */
} __attribute__((aligned(64)));
#undef XIO_SRV_FIELD
#undef XIO_SRV_ARRAY

/* The single writer's add (xio_metrics.h: relaxed store, read whole by
 * other threads). */
#define XIO_SRV_ADD(field, n) XIO_ADD(field, (uint64_t)(n))

/* The labels of the arrays: "read_request", "read_reply", an error's name
 * ("not_found"; NULL for code 0, no error). */
const char *xio_srv_req_name(unsigned i);
const char *xio_srv_ans_name(unsigned i);
const char *xio_srv_err_label(unsigned code);
/* "nobufs", "too_big", "unreachable", "other" */
const char *xio_srv_send_reason_name(unsigned i);

/* Adds a worker's counters (read while it runs) into *sum; last_rx_ns: the
 * latest of the two. */
void xio_srv_counters_add(struct xio_srv_counters *sum, const struct xio_srv_counters *x);

/* The run's description in the JSON: how it ran. */
struct xio_srv_run_info {
	unsigned threads;
	uint32_t mtu;
	double rate_gbit;
	bool gso; /* every worker still on UDP GSO at the end */
	unsigned burst; /* --burst */
	bool cookies;   /* address validation on */
};

/* One line: "xio-server: t=..." with rates over dt and the totals. */
void xio_srv_stats_line(FILE *out, double t, const struct xio_srv_counters *now,
			const struct xio_srv_counters *prev, double dt);

/* The stats JSON object. */
void xio_srv_stats_json(struct xio_json *j, const struct xio_srv_counters *c, double elapsed_s,
			const struct xio_srv_run_info *info);

/* Writes the JSON to path atomically (temporary file, rename). 0 or -1. */
int xio_srv_stats_save(const char *path, const struct xio_srv_counters *c, double elapsed_s,
		       const struct xio_srv_run_info *info);

/* The counters in the Prometheus text format (xio_server_*), with the
 * seconds since the start. */
void xio_srv_stats_prom(struct xio_buf *b, const struct xio_srv_counters *c, double elapsed_s);

#endif /* XIO_SRV_STATS_H */
