/* SPDX-License-Identifier: BSD-3-Clause
 * xio_client.c: the client handle: one engine (its flows: sockets, timers,
 * counters, servers) behind a mutex, so that threads sharing a handle take
 * turns; the public stat and read calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_priv.h"

int xio_connect(const char *server, const struct xio_opts *opts, struct xio_client **out,
		struct xio_error *err)
{
	struct xio_opts defaults;
	struct xio_client *c;
	int rc;

	if (!server || !out)
		return xio_fail(err, XIO_EARG, "xio_connect: no server or no handle to fill");
	if (!opts) {
		xio_opts_init(&defaults);
		opts = &defaults;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->server = strdup(server))) {
		free(c);
		return xio_fail(err, XIO_ESYS, "out of memory");
	}
	rc = xio_engine_init(&c->e, server, opts, err);
	if (rc < 0) {
		free(c->server);
		free(c);
		return rc;
	}
	pthread_mutex_init(&c->lock, NULL);
	*out = c;
	return 0;
}

void xio_close(struct xio_client *c)
{
	if (!c)
		return;
	xio_engine_fini(&c->e);
	pthread_mutex_destroy(&c->lock);
	free(c->server);
	free(c);
}

void xio_set_progress(struct xio_client *c, xio_progress_fn fn, void *arg)
{
	pthread_mutex_lock(&c->lock);
	c->e.progress = fn;
	c->e.progress_arg = arg;
	pthread_mutex_unlock(&c->lock);
}

int xio_stat(struct xio_client *c, const char *path, struct xio_stat *st,
	     struct xio_error *err)
{
	int rc;

	if (!c || !st)
		return xio_fail(err, XIO_EARG, "xio_stat: no client or no stat to fill");
	pthread_mutex_lock(&c->lock);
	rc = xio_engine_stat(&c->e, path, st, err);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

static int locked_read(struct xio_client *c, const char *path, uint64_t first, uint64_t count,
		       void *dst, bool raw, struct xio_error *err)
{
	int rc;

	if (!c)
		return xio_fail(err, XIO_EARG, "no client");
	pthread_mutex_lock(&c->lock);
	rc = xio_engine_read(&c->e, path, first, count, dst, raw, err);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int xio_read(struct xio_client *c, const char *path, uint64_t first, uint64_t count,
	     uint16_t *dst, struct xio_error *err)
{
	return locked_read(c, path, first, count, dst, false, err);
}

int xio_readv(struct xio_client *c, const char *path, const struct xio_span *spans, size_t n,
	      uint16_t *dst, struct xio_error *err)
{
	int rc;

	if (!c)
		return xio_fail(err, XIO_EARG, "no client");
	pthread_mutex_lock(&c->lock);
	rc = xio_engine_readv(&c->e, path, spans, n, (uint8_t *)dst, false, err);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int xio_read_bytes(struct xio_client *c, const char *path, uint64_t first, uint64_t count,
		   void *dst, struct xio_error *err)
{
	return locked_read(c, path, first, count, dst, true, err);
}

void xio_client_stats(struct xio_client *c, struct xio_stats *st)
{
	pthread_mutex_lock(&c->lock);
	xio_engine_stats(&c->e, st);
	pthread_mutex_unlock(&c->lock);
}

uint32_t xio_client_flows(struct xio_client *c)
{
	return c->e.nflows;
}

int xio_client_flow_stats(struct xio_client *c, uint32_t i, struct xio_stats *st,
			  struct xio_error *err)
{
	if (!c || !st || i >= c->e.nflows)
		return xio_fail(err, XIO_EARG, "flow %u: the client has %u", i, c ? c->e.nflows : 0);
	pthread_mutex_lock(&c->lock);
	xio_flow_stats(&c->e.flows[i], st);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

uint32_t xio_client_server_count(struct xio_client *c)
{
	return c ? c->e.nservers : 0;
}

/* Not under the client's lock: the progress callback, inside a read, may
 * ask. */
int xio_client_server_stats(struct xio_client *c, uint32_t i, struct xio_server_stats *st,
			    size_t size, struct xio_error *err)
{
	if (!c)
		return xio_fail(err, XIO_EARG, "no client");
	return xio_engine_server_stats(&c->e, i, st, size, err);
}
