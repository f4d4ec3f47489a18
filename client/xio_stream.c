/* SPDX-License-Identifier: BSD-3-Clause
 * xio_stream.c: the prefetching stream. A fetcher thread with an engine of
 * its own (as many flows as the client's, each its own socket; the fetcher
 * runs flow 0, the others their own threads during each read) reads the range, batch after batch, straight into a ring of
 * depth + 1 batch buffers: each read covers every free buffer up to the
 * ring's end, and batches are handed over as soon as the read's complete
 * prefix passes them. The consumer gets a pointer into the ring (no copy)
 * and gives the buffer back by asking for the next batch.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xio_msg.h"
#include "xio_priv.h"

#define STREAM_BATCH_MAX (1ull << 31)
#define STREAM_DEPTH_MAX 1024

struct xio_stream {
	struct xio_engine e; /* the fetcher's */
	char path[XIO_PATH_MAX + 1];
	uint64_t first, count; /* the range, after sharding */
	uint64_t batch;        /* tokens per batch */
	uint64_t nbatches;
	uint64_t nslots;       /* depth + 1 */
	uint16_t *ring;        /* nslots x batch tokens */
	pthread_t thread;
	bool started;
	uint64_t span_base;    /* fetcher only: first batch of the read in progress */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* under lock */
	uint64_t fetched;  /* batches complete */
	uint64_t taken;    /* batches handed to the consumer */
	uint64_t returned; /* batches it gave back (taken - 1 or taken) */
	bool stop;
	bool finished;     /* the fetcher has ended, its counters copied */
	int rc;            /* the fetcher's failure */
	struct xio_error err;
	struct xio_stats st;
};

void xio_stream_opts_init(struct xio_stream_opts *o, uint64_t batch_tokens)
{
	*o = (struct xio_stream_opts){ .batch_tokens = batch_tokens, .depth = 4, .world = 1 };
}

/* Called by the engine on the fetcher thread as the read's prefix grows. */
static void publish(void *arg, uint64_t done, uint64_t total)
{
	struct xio_stream *s = arg;
	uint64_t full = done == total ? (done + s->batch - 1) / s->batch : done / s->batch;

	pthread_mutex_lock(&s->lock);
	if (s->span_base + full > s->fetched) {
		s->fetched = s->span_base + full;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
}

/* Waits for free buffers; returns how many batches the next read covers
 * (0: stop). */
static uint64_t next_span(struct xio_stream *s, uint64_t b)
{
	uint64_t k;

	pthread_mutex_lock(&s->lock);
	while (!s->stop && b - s->returned >= s->nslots)
		pthread_cond_wait(&s->cond, &s->lock);
	k = s->stop ? 0 : s->nslots - (b - s->returned);
	pthread_mutex_unlock(&s->lock);
	if (k > s->nslots - b % s->nslots)
		k = s->nslots - b % s->nslots; /* up to the ring's end */
	if (k > s->nbatches - b)
		k = s->nbatches - b;
	return k;
}

static void *fetcher(void *arg)
{
	struct xio_stream *s = arg;
	struct xio_error err;
	uint64_t b = 0, k;
	int rc = 0;

	while (b < s->nbatches && (k = next_span(s, b)) > 0) {
		uint64_t tok = s->first + b * s->batch;
		uint64_t n = k * s->batch < s->first + s->count - tok ? k * s->batch
								    : s->first + s->count - tok;

		s->span_base = b;
		rc = xio_engine_read(&s->e, s->path, tok, n,
				     (uint8_t *)(s->ring + (b % s->nslots) * s->batch), false, &err);
		if (rc < 0)
			break;
		b += k;
		/* the counters once the read's flows have stopped writing them */
		pthread_mutex_lock(&s->lock);
		xio_engine_stats(&s->e, &s->st);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_lock(&s->lock);
	if (rc < 0 && !s->stop) {
		s->rc = rc;
		s->err = err;
	}
	xio_engine_stats(&s->e, &s->st);
	s->finished = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int check_opts(const struct xio_stream_opts *o, struct xio_error *err)
{
	if (!o || o->batch_tokens < 1 || o->batch_tokens > STREAM_BATCH_MAX)
		return xio_fail(err, XIO_EARG, "batch_tokens must be 1..%llu",
				(unsigned long long)STREAM_BATCH_MAX);
	if (o->depth < 1 || o->depth > STREAM_DEPTH_MAX)
		return xio_fail(err, XIO_EARG, "depth %u: must be 1..%d", o->depth, STREAM_DEPTH_MAX);
	if (o->world < 1 || o->rank >= o->world)
		return xio_fail(err, XIO_EARG, "rank %u: must be 0..%u (world %u)", o->rank,
				o->world ? o->world - 1 : 0, o->world);
	return 0;
}

/* The range of the file to stream, before sharding. */
static int file_range(struct xio_client *c, const char *path, const struct xio_stream_opts *o,
		      uint64_t *first, uint64_t *count, struct xio_error *err)
{
	struct xio_stat st;
	int rc = xio_stat(c, path, &st, err);

	if (rc < 0)
		return rc;
	if (!st.is_tokens)
		return xio_fail(err, XIO_EFORMAT, "%s: %llu bytes, not a multiple of 4: not INT32 tokens",
				path, (unsigned long long)st.size);
	if (o->first > st.tokens || (o->count && o->count > st.tokens - o->first))
		return xio_fail(err, XIO_ERANGE, "%s: has %llu tokens, asked for %llu from %llu", path,
				(unsigned long long)st.tokens, (unsigned long long)o->count,
				(unsigned long long)o->first);
	*first = o->first;
	*count = o->count ? o->count : st.tokens - o->first;
	return 0;
}

static int alloc_ring(struct xio_stream *s, struct xio_error *err)
{
	uint64_t bytes = s->nslots * s->batch * 2;
	void *p;

	if (bytes / 2 / s->nslots != s->batch || posix_memalign(&p, 4096, (size_t)bytes) != 0)
		return xio_fail(err, XIO_ESYS, "no memory for a ring of %llu batches of %llu tokens",
				(unsigned long long)s->nslots, (unsigned long long)s->batch);
	s->ring = p;
	return 0;
}

int xio_stream_open(struct xio_client *c, const char *path, const struct xio_stream_opts *o,
		    struct xio_stream **out, struct xio_error *err)
{
	struct xio_stream *s;
	uint64_t first = 0, count = 0;
	size_t plen;
	int rc;

	if (!c || !out)
		return xio_fail(err, XIO_EARG, "xio_stream_open: no client or no handle to fill");
	if ((rc = check_opts(o, err)) < 0 || (rc = xio_path_len(path, &plen, err)) < 0 ||
	    (rc = file_range(c, path, o, &first, &count, err)) < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s)
		return xio_fail(err, XIO_ESYS, "out of memory");
	memcpy(s->path, path, plen + 1);
	xio_shard(first, count, o->rank, o->world, &s->first, &s->count);
	s->batch = o->batch_tokens;
	s->nbatches = (s->count + s->batch - 1) / s->batch;
	s->nslots = (uint64_t)o->depth + 1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	pthread_mutex_lock(&c->lock);
	rc = xio_engine_init(&s->e, c->server, &c->e.opts, err);
	for (uint32_t i = 0; rc == 0 && i < c->e.nservers; i++) {
		struct xio_server *from = &c->e.servers[i], *to = &s->e.servers[i];

		/* the client's STAT dropped those that did not answer */
		to->state = from->state;
		to->last_error = from->last_error;
		to->mtime_ns = from->mtime_ns;
	}
	pthread_mutex_unlock(&c->lock);
	if (rc == 0)
		rc = alloc_ring(s, err);
	if (rc == 0) {
		s->e.progress = publish;
		s->e.progress_arg = s;
		if (pthread_create(&s->thread, NULL, fetcher, s) != 0)
			rc = xio_fail(err, XIO_ESYS, "cannot start the fetcher thread");
		else
			s->started = true;
	}
	if (rc < 0) {
		xio_stream_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int xio_stream_next(struct xio_stream *s, const uint16_t **tokens, size_t *n,
		    struct xio_error *err)
{
	uint64_t b;
	int rc = 0;

	*tokens = NULL;
	*n = 0;
	pthread_mutex_lock(&s->lock);
	if (s->returned < s->taken) {
		s->returned = s->taken; /* the batch held so far goes back to the ring */
		pthread_cond_broadcast(&s->cond);
	}
	while (s->fetched <= s->taken && s->taken < s->nbatches && s->rc == 0)
		pthread_cond_wait(&s->cond, &s->lock);
	if (s->fetched > s->taken) {
		b = s->taken++;
		*tokens = s->ring + (b % s->nslots) * s->batch;
		*n = (size_t)(b + 1 < s->nbatches ? s->batch : s->count - b * s->batch);
		rc = 1;
	} else if (s->rc < 0) {
		rc = s->rc;
		if (err)
			*err = s->err;
	} else {
		while (!s->finished) /* the end: the fetcher's final counters */
			pthread_cond_wait(&s->cond, &s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void xio_stream_range(const struct xio_stream *s, uint64_t *first, uint64_t *count)
{
	*first = s->first;
	*count = s->count;
}

void xio_stream_stats(struct xio_stream *s, struct xio_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->st;
	pthread_mutex_unlock(&s->lock);
}

uint32_t xio_stream_server_count(struct xio_stream *s)
{
	return s ? s->e.nservers : 0;
}

int xio_stream_server_stats(struct xio_stream *s, uint32_t i, struct xio_server_stats *st,
			    size_t size, struct xio_error *err)
{
	if (!s)
		return xio_fail(err, XIO_EARG, "no stream");
	return xio_engine_server_stats(&s->e, i, st, size, err);
}

void xio_stream_close(struct xio_stream *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		xio_engine_cancel(&s->e);
		pthread_join(s->thread, NULL);
	}
	xio_engine_fini(&s->e);
	free(s->ring);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
