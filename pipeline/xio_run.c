/* SPDX-License-Identifier: BSD-3-Clause
 * xio_run.c: the drivers' run layer (xio_run.h).
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "xio_log.h"
#include "xio_run.h"
#include "xio_stats.h"
#include "xio_time.h"

void xio_run_result_init(struct xio_run_result *r)
{
	memset(r, 0, sizeof(*r));
	xio_json_init(&r->json);
	xio_json_begin_object(&r->json, NULL);
}

void xio_run_result_free(struct xio_run_result *r)
{
	xio_json_free(&r->json);
}

/* The run GET /metrics reads, under the lock; after it, its last text. */
static pthread_mutex_t xio_run_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct xio_run_ops *xio_run_ops;
static void *xio_run_drv;
static double xio_run_start_s;
static struct xio_buf xio_run_last = XIO_BUF_INIT;

static void xio_run_prom(const struct xio_run_ops *ops, void *drv, double elapsed_s,
			 struct xio_buf *b)
{
	static const char *const dir_labels[XIO_MAX_DIRS] = { "direction=\"a_to_b\"",
							      "direction=\"b_to_a\"" };
	struct xio_direction d[XIO_MAX_DIRS];
	struct xio_metric_set sets[XIO_MAX_DIRS];
	struct xio_counters c;
	unsigned n = ops->directions(drv, d);

	if (n > 1) {
		for (unsigned i = 0; i < n; i++)
			sets[i] = (struct xio_metric_set){ &d[i].c, dir_labels[i] };
	} else {
		ops->counters(drv, &c);
		sets[0] = (struct xio_metric_set){ &c, NULL };
		n = 1;
	}
	xio_counters_prom(b, sets, n);
	xio_metrics_prom_one(b, "xio_pipeline", "elapsed_seconds", "Seconds the run has forwarded",
			     true, NULL, elapsed_s);
	if (ops->prom)
		ops->prom(drv, b);
}

int xio_run_metrics(void *arg, struct xio_buf *b)
{
	int rc = 0;

	(void)arg;
	pthread_mutex_lock(&xio_run_lock);
	if (xio_run_ops)
		xio_run_prom(xio_run_ops, xio_run_drv, xio_now_s() - xio_run_start_s, b);
	else if (xio_run_last.len)
		xio_buf_put(b, xio_run_last.p, xio_run_last.len);
	else
		rc = -1;
	pthread_mutex_unlock(&xio_run_lock);
	return rc;
}

static void xio_run_attach(const struct xio_run_ops *ops, void *drv, double start_s)
{
	pthread_mutex_lock(&xio_run_lock);
	xio_run_ops = ops;
	xio_run_drv = drv;
	xio_run_start_s = start_s;
	pthread_mutex_unlock(&xio_run_lock);
}

/* Keeps the last figures for the scrapes until the program exits. */
static void xio_run_detach(double elapsed_s)
{
	pthread_mutex_lock(&xio_run_lock);
	xio_buf_reset(&xio_run_last);
	xio_run_prom(xio_run_ops, xio_run_drv, elapsed_s, &xio_run_last);
	xio_run_ops = NULL;
	xio_run_drv = NULL;
	pthread_mutex_unlock(&xio_run_lock);
}

/* Why the run should stop at t, or NULL; *end: when it stopped forwarding. */
static const char *xio_run_should_stop(const struct xio_config *cfg, const struct xio_run_ops *ops,
				       void *drv, const int *stop, double start, double t,
				       double *end)
{
	double idle, ago;

	*end = t;
	if (XIO_LOAD(*stop))
		return "signal";
	if (cfg->duration_s > 0 && t - start >= cfg->duration_s)
		return "--duration";
	if (cfg->idle_exit_ms > 0) {
		idle = ops->idle_s(drv, t, &ago);
		if (idle * 1000.0 >= cfg->idle_exit_ms) {
			*end = t - ago > start ? t - ago : start;
			return "--idle-exit";
		}
	}
	return NULL;
}

/* The report's common members, once the data path is done. */
static void xio_run_report(const struct xio_run_ops *ops, void *drv, struct xio_run_result *r)
{
	struct xio_direction d[XIO_MAX_DIRS];
	unsigned n = ops->directions(drv, d);

	ops->counters(drv, &r->total);
	xio_json_str(&r->json, "driver", ops->driver);
	xio_counters_json(&r->json, &r->total);
	xio_json_double(&r->json, "elapsed_s", r->elapsed_s, 6);
	if (n > 1)
		xio_stats_directions_json(&r->json, d, n);
}

void xio_run_loop(const struct xio_config *cfg, const struct xio_run_ops *ops, void *drv,
		  const int *stop, struct xio_run_result *r)
{
	const double interval = cfg->stats_interval_s;
	double start = xio_now_s(), next_stats = start + interval, last_stats = start;
	double quit_t = -1, end = start, t;
	struct xio_counters prev, now;
	struct xio_buf tail = XIO_BUF_INIT;
	const char *why;

	memset(&prev, 0, sizeof(prev));
	xio_run_attach(ops, drv, start);
	for (;;) {
		usleep(ops->period_us);
		t = xio_now_s();
		if (quit_t < 0 && (why = xio_run_should_stop(cfg, ops, drv, stop, start, t, &end))) {
			XIO_LOG(INFO, "stopping (%s): draining what is held to TX", why);
			ops->quit(drv);
			quit_t = t;
		}
		if (ops->done(drv, quit_t < 0 ? -1 : t - quit_t))
			break;
		if (interval > 0 && t >= next_stats) {
			ops->counters(drv, &now);
			xio_buf_reset(&tail);
			if (ops->line_tail)
				ops->line_tail(drv, &tail);
			xio_stats_line(stdout, t - start, &now, &prev, t - last_stats,
				       xio_buf_str(&tail));
			prev = now;
			last_stats = t;
			next_stats = t + interval;
		}
	}
	if (quit_t < 0)
		end = xio_now_s();
	r->elapsed_s = end - start;
	xio_run_detach(r->elapsed_s);
	xio_run_report(ops, drv, r);
	xio_buf_free(&tail);
}
