/* SPDX-License-Identifier: BSD-3-Clause
 * xio_counters.c: summing worker counters and writing them as the stats
 * JSON (the keys of ../shared/vectors/NAME/expected.json, plus elapsed_s).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
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

/* The frame counters of expected.json, in its order. */
static const struct {
	const char *name;
	size_t off;
} xio_counter_keys[] = {
	{ "rx_packets", offsetof(struct xio_counters, rx_packets) },
	{ "tx_packets", offsetof(struct xio_counters, tx_packets) },
	{ "dropped_packets", offsetof(struct xio_counters, dropped_packets) },
	{ "narrowed_packets", offsetof(struct xio_counters, narrowed_packets) },
	{ "tokens_narrowed", offsetof(struct xio_counters, tokens_narrowed) },
	{ "tokens_saturated", offsetof(struct xio_counters, tokens_saturated) },
	{ "bytes_in", offsetof(struct xio_counters, bytes_in) },
	{ "bytes_out", offsetof(struct xio_counters, bytes_out) },
};

#define XIO_NKEYS (sizeof(xio_counter_keys) / sizeof(xio_counter_keys[0]))

static uint64_t xio_counter_value(const struct xio_counters *c, unsigned k)
{
	return *(const uint64_t *)((const char *)c + xio_counter_keys[k].off);
}

const char *xio_direction_name(unsigned dir)
{
	return dir == 0 ? "a_to_b" : dir == 1 ? "b_to_a" : "unknown";
}

/* Appends to p[0..len) at *n, like snprintf, keeping *n the would-be length. */
#define XIO_PUT(p, len, n, ...) \
	((n) += (size_t)snprintf((p) + (n), (n) < (len) ? (len) - (n) : 0, __VA_ARGS__))

size_t xio_counters_json_members(char *p, size_t len, const struct xio_counters *c)
{
	size_t n = 0;

	for (unsigned k = 0; k < XIO_NKEYS; k++)
		XIO_PUT(p, len, n, "\"%s\": %" PRIu64 ", ", xio_counter_keys[k].name,
			xio_counter_value(c, k));
	XIO_PUT(p, len, n, "\"reasons\": {");
	for (unsigned r = 0; r < XIO_R_COUNT; r++)
		XIO_PUT(p, len, n, "%s\"%s\": %" PRIu64, r ? ", " : "",
			xio_reason_name((enum xio_reason)r), c->reasons[r]);
	XIO_PUT(p, len, n, "}");
	return n;
}

void xio_counters_write_json(FILE *out, const struct xio_counters *c, double elapsed_s,
			     const char *extra)
{
	unsigned r;

	fprintf(out, "{\n");
	for (unsigned k = 0; k < XIO_NKEYS; k++)
		fprintf(out, "  \"%s\": %" PRIu64 ",\n", xio_counter_keys[k].name,
			xio_counter_value(c, k));
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
