/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_stats.c: summing, printing and saving xio-server's counters
 * (xio_srv_stats.h), all from the table of XIO_SRV_COUNTERS.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "xio_srv_stats.h"

static const char *const req_names[XIO_SRV_REQ_COUNT] = { "read_request", "stat_request" };
static const char *const ans_names[XIO_SRV_ANS_COUNT] = { "read_reply", "data_reply",
							  "stat_reply", "error_reply" };
static const char *const send_names[XIO_SRV_SEND_REASONS] = { "nobufs", "too_big",
							       "unreachable", "other" };

const char *xio_srv_req_name(unsigned i)
{
	return i < XIO_SRV_REQ_COUNT ? req_names[i] : NULL;
}

const char *xio_srv_ans_name(unsigned i)
{
	return i < XIO_SRV_ANS_COUNT ? ans_names[i] : NULL;
}

const char *xio_srv_send_reason_name(unsigned i)
{
	return i < XIO_SRV_SEND_REASONS ? send_names[i] : NULL;
}

const char *xio_srv_err_label(unsigned code)
{
	return code > 0 && code < XIO_SRV_ERR_COUNT ? xio_err_name(code) : NULL;
}

#define XIO_SRV_C(nm, ln, hlp) \
	{ .name = #nm, .help = hlp, .off = offsetof(struct xio_srv_counters, nm), .line = ln },
#define XIO_SRV_A(nm, count, lbl, key, by, ln, hlp)                                             \
	{ .name = #nm, .help = hlp, .off = offsetof(struct xio_srv_counters, nm), .n = count,     \
	  .label = lbl, .label_key = key, .by_key = by, .line = ln },
static const struct xio_metric xio_srv_metrics[] = { XIO_SRV_COUNTERS(XIO_SRV_C, XIO_SRV_A) };
#define XIO_SRV_NMETRICS (sizeof(xio_srv_metrics) / sizeof(xio_srv_metrics[0]))

static uint64_t total(const uint64_t *v, unsigned n)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < n; i++)
		t += v[i];
	return t;
}

void xio_srv_counters_add(struct xio_srv_counters *sum, const struct xio_srv_counters *x)
{
	uint64_t last = XIO_LOAD(x->last_rx_ns);

	xio_metrics_add(xio_srv_metrics, XIO_SRV_NMETRICS, sum, x);
	if (last > sum->last_rx_ns)
		sum->last_rx_ns = last;
}

static double per_s(uint64_t n, double dt)
{
	return dt > 0 ? (double)n / dt : 0.0;
}

void xio_srv_stats_line(FILE *out, double t, const struct xio_srv_counters *now,
			const struct xio_srv_counters *prev, double dt)
{
	uint64_t req = total(now->requests, XIO_SRV_REQ_COUNT);
	struct xio_buf totals = XIO_BUF_INIT;

	xio_metrics_line(&totals, xio_srv_metrics, XIO_SRV_NMETRICS, now);
	fprintf(out,
		"xio-server: t=%.1fs requests %.0f/s | out %.0f datagrams/s %.3f Gbit/s | total%s\n",
		t, per_s(req - total(prev->requests, XIO_SRV_REQ_COUNT), dt),
		per_s(now->datagrams - prev->datagrams, dt),
		per_s((now->bytes - prev->bytes) * 8, dt) / 1e9, xio_buf_str(&totals));
	fflush(out);
	xio_buf_free(&totals);
}

void xio_srv_stats_json(struct xio_json *j, const struct xio_srv_counters *c, double elapsed_s,
			const struct xio_srv_run_info *info)
{
	xio_json_begin_object(j, NULL);
	xio_metrics_json(j, xio_srv_metrics, XIO_SRV_NMETRICS, c);
	xio_json_double(j, "elapsed_s", elapsed_s, 6);
	xio_json_u64(j, "threads", info->threads);
	xio_json_u64(j, "mtu", info->mtu);
	xio_json_double(j, "rate_gbit", info->rate_gbit, -1);
	xio_json_bool(j, "gso", info->gso);
	xio_json_u64(j, "burst", info->burst);
	xio_json_bool(j, "cookies", info->cookies);
	xio_json_end_object(j);
}

int xio_srv_stats_save(const char *path, const struct xio_srv_counters *c, double elapsed_s,
		       const struct xio_srv_run_info *info)
{
	struct xio_json j;
	int rc, err;

	xio_json_init(&j);
	xio_srv_stats_json(&j, c, elapsed_s, info);
	rc = xio_json_save(&j, path);
	err = errno;
	xio_json_free(&j);
	errno = err;
	return rc;
}

void xio_srv_stats_prom(struct xio_buf *b, const struct xio_srv_counters *c, double elapsed_s)
{
	const struct xio_metric_set all = { c, NULL };

	xio_metrics_prom(b, "xio_server", xio_srv_metrics, XIO_SRV_NMETRICS, &all, 1);
	xio_metrics_prom_one(b, "xio_server", "uptime_seconds", "Seconds since the server started",
			     true, NULL, elapsed_s);
}
