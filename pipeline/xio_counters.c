/* SPDX-License-Identifier: BSD-3-Clause
 * xio_counters.c: summing worker counters and writing them as the stats
 * JSON (the keys of ../shared/vectors/NAME/expected.json, plus elapsed_s).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xio_counters.h"

void xio_counters_add(struct xio_counters *dst, const struct xio_counters *src)
{
	unsigned r;

	dst->rx_packets += src->rx_packets;
	dst->tx_packets += src->tx_packets;
	dst->dropped_packets += src->dropped_packets;
	dst->narrowed_packets += src->narrowed_packets;
	dst->tokens_narrowed += src->tokens_narrowed;
	dst->tokens_saturated += src->tokens_saturated;
	dst->bytes_in += src->bytes_in;
	dst->bytes_out += src->bytes_out;
	for (r = 0; r < XIO_R_COUNT; r++) {
		dst->reasons[r] += src->reasons[r];
		dst->drops[r] += src->drops[r];
	}
}

void xio_counters_write_json(FILE *out, const struct xio_counters *c, double elapsed_s,
			     const char *extra)
{
	unsigned r;

	fprintf(out, "{\n");
	fprintf(out, "  \"rx_packets\": %llu,\n", (unsigned long long)c->rx_packets);
	fprintf(out, "  \"tx_packets\": %llu,\n", (unsigned long long)c->tx_packets);
	fprintf(out, "  \"dropped_packets\": %llu,\n", (unsigned long long)c->dropped_packets);
	fprintf(out, "  \"narrowed_packets\": %llu,\n", (unsigned long long)c->narrowed_packets);
	fprintf(out, "  \"tokens_narrowed\": %llu,\n", (unsigned long long)c->tokens_narrowed);
	fprintf(out, "  \"tokens_saturated\": %llu,\n", (unsigned long long)c->tokens_saturated);
	fprintf(out, "  \"bytes_in\": %llu,\n", (unsigned long long)c->bytes_in);
	fprintf(out, "  \"bytes_out\": %llu,\n", (unsigned long long)c->bytes_out);
	fprintf(out, "  \"elapsed_s\": %.6f,\n", elapsed_s);
	if (extra && *extra)
		fprintf(out, "%s,\n", extra);
	fprintf(out, "  \"reasons\": {\n");
	for (r = 0; r < XIO_R_COUNT; r++)
		fprintf(out, "    \"%s\": %llu%s\n", xio_reason_name((enum xio_reason)r),
			(unsigned long long)c->reasons[r], r + 1 < XIO_R_COUNT ? "," : "");
	fprintf(out, "  }\n}\n");
}

int xio_counters_save_json(const char *path, const struct xio_counters *c, double elapsed_s,
			   const char *extra)
{
	size_t n = strlen(path) + 16;
	char *tmp = malloc(n);
	FILE *out;
	int err;

	if (!tmp)
		return -1;
	snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
	out = fopen(tmp, "w");
	if (!out) {
		err = errno;
		free(tmp);
		errno = err;
		return -1;
	}
	xio_counters_write_json(out, c, elapsed_s, extra);
	if (fclose(out) != 0 || rename(tmp, path) != 0) {
		err = errno;
		unlink(tmp);
		free(tmp);
		errno = err;
		return -1;
	}
	free(tmp);
	return 0;
}
