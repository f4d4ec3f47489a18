/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_stats.c: summing, printing and saving xio-server's counters
 * (xio_srv_stats.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xio_srv_stats.h"

static const char *const req_names[XIO_SRV_REQ_COUNT] = { "read_request", "stat_request" };
static const char *const ans_names[XIO_SRV_ANS_COUNT] = { "read_reply", "data_reply",
							  "stat_reply", "error_reply" };

static uint64_t ld(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static uint64_t total(const uint64_t *v, unsigned n)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < n; i++)
		t += v[i];
	return t;
}

void xio_srv_counters_add(struct xio_srv_counters *sum, const struct xio_srv_counters *x)
{
	sum->received += ld(&x->received);
	sum->refused += ld(&x->refused);
	sum->ignored += ld(&x->ignored);
	for (unsigned i = 0; i < XIO_SRV_REQ_COUNT; i++)
		sum->requests[i] += ld(&x->requests[i]);
	for (unsigned i = 0; i < XIO_SRV_ANS_COUNT; i++)
		sum->answers[i] += ld(&x->answers[i]);
	for (unsigned i = 0; i < XIO_SRV_ERR_COUNT; i++)
		sum->errors[i] += ld(&x->errors[i]);
	sum->datagrams += ld(&x->datagrams);
	sum->bytes += ld(&x->bytes);
	sum->file_bytes += ld(&x->file_bytes);
	sum->send_errors += ld(&x->send_errors);
	sum->cache_hits += ld(&x->cache_hits);
	sum->cache_opens += ld(&x->cache_opens);
	sum->cookies_issued += ld(&x->cookies_issued);
	if (ld(&x->last_rx_ns) > sum->last_rx_ns)
		sum->last_rx_ns = ld(&x->last_rx_ns);
}

static double per_s(uint64_t n, double dt)
{
	return dt > 0 ? (double)n / dt : 0.0;
}

void xio_srv_stats_line(FILE *out, double t, const struct xio_srv_counters *now,
			const struct xio_srv_counters *prev, double dt)
{
	uint64_t req = total(now->requests, XIO_SRV_REQ_COUNT);

	fprintf(out,
		"xio-server: t=%.1fs requests %.0f/s | out %.0f datagrams/s %.3f Gbit/s | "
		"total requests %" PRIu64 " datagrams %" PRIu64 " bytes %" PRIu64 " errors %" PRIu64
		" refused %" PRIu64 " ignored %" PRIu64 " send_errors %" PRIu64 "\n",
		t, per_s(req - total(prev->requests, XIO_SRV_REQ_COUNT), dt),
		per_s(now->datagrams - prev->datagrams, dt),
		per_s((now->bytes - prev->bytes) * 8, dt) / 1e9, req, now->datagrams, now->bytes,
		total(now->errors, XIO_SRV_ERR_COUNT), now->refused, now->ignored, now->send_errors);
	fflush(out);
}

void xio_srv_stats_json(FILE *out, const struct xio_srv_counters *c, double elapsed_s,
			const struct xio_srv_run_info *info)
{
	fprintf(out, "{\"requests\": %" PRIu64 ", \"requests_by_opcode\": {",
		total(c->requests, XIO_SRV_REQ_COUNT));
	for (unsigned i = 0; i < XIO_SRV_REQ_COUNT; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", req_names[i], c->requests[i]);
	fprintf(out, "},\n \"answers\": %" PRIu64 ", \"answers_by_opcode\": {",
		total(c->answers, XIO_SRV_ANS_COUNT));
	for (unsigned i = 0; i < XIO_SRV_ANS_COUNT; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", ans_names[i], c->answers[i]);
	fprintf(out, "},\n \"errors\": %" PRIu64 ", \"errors_by_code\": {",
		total(c->errors, XIO_SRV_ERR_COUNT));
	for (unsigned i = 1; i < XIO_SRV_ERR_COUNT; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i > 1 ? ", " : "", xio_err_name(i), c->errors[i]);
	fprintf(out,
		"},\n \"datagrams\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"file_bytes\": %" PRIu64
		", \"send_errors\": %" PRIu64 ",\n \"received\": %" PRIu64 ", \"refused\": %" PRIu64
		", \"ignored\": %" PRIu64 ", \"cache_hits\": %" PRIu64 ", \"cache_opens\": %" PRIu64
		", \"cookies_issued\": %" PRIu64 ",\n \"elapsed_s\": %.6f, \"threads\": %u, "
		"\"mtu\": %u, \"rate_gbit\": %g, \"gso\": %s, \"cookies\": %s}\n",
		c->datagrams, c->bytes, c->file_bytes, c->send_errors, c->received, c->refused,
		c->ignored, c->cache_hits, c->cache_opens, c->cookies_issued, elapsed_s,
		info->threads, info->mtu, info->rate_gbit, info->gso ? "true" : "false",
		info->cookies ? "true" : "false");
}

int xio_srv_stats_save(const char *path, const struct xio_srv_counters *c, double elapsed_s,
		       const struct xio_srv_run_info *info)
{
	size_t n = strlen(path) + 24;
	char *tmp = malloc(n);
	FILE *out;
	int err = 0;

	if (!tmp)
		return -1;
	snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
	out = fopen(tmp, "w");
	if (!out) {
		err = errno;
	} else {
		xio_srv_stats_json(out, c, elapsed_s, info);
		if (fclose(out) != 0 || rename(tmp, path) != 0) {
			err = errno;
			unlink(tmp);
		}
	}
	free(tmp);
	errno = err;
	return err ? -1 : 0;
}
