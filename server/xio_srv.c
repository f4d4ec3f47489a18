/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv.c: xio-server's workers and main thread (xio_srv.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xio_cli.h"
#include "xio_httpd.h"
#include "xio_srv.h"
#include "xio_srv_worker.h"

#define MAIN_TICK_NS 50000000u /* how often the main thread looks at the clock */

struct xio_srv {
	struct xio_srv_config *cfg;
	struct xio_srv_pace pace;
	int stop;
	unsigned n;
	struct xio_srv_worker **w;
	sigset_t sigs;
	uint64_t t0_ns, t1_ns;
	uint64_t open_ns;
	struct xio_httpd *metrics; /* --metrics */
};

static void worker_free(struct xio_srv_worker *w);

/* Opens s's socket on the configured address: 0, else -1 (printed). */
static int open_sock(struct xio_srv *s, struct xio_srv_sock *sock, unsigned id, bool reuseport)
{
	const char *what;

	while (xio_srv_sock_open(sock, id, (struct sockaddr *)&s->cfg->bind, s->cfg->bind_len,
				 reuseport, &what) < 0) {
		/* the default "::" on a host without IPv6 */
		if (errno == EAFNOSUPPORT && xio_srv_config_bind_v4(s->cfg))
			continue;
		xio_cli_error("cannot %s %s port %u: %s", what, s->cfg->bind_str, s->cfg->port,
			      strerror(errno));
		return -1;
	}
	return 0;
}

/* Several workers share the port by SO_REUSEPORT, which would as well let
 * them join another server's group on it: a socket without it is bound
 * first, so that a port in use is refused as with one worker. 0, else -1
 * (printed). */
static int check_port_free(struct xio_srv *s)
{
	struct xio_srv_sock *probe = malloc(sizeof(*probe));

	if (!probe) {
		xio_cli_error("out of memory");
		return -1;
	}
	if (open_sock(s, probe, 0, false) < 0) {
		free(probe);
		return -1;
	}
	xio_srv_sock_close(probe);
	free(probe);
	return 0;
}

static struct xio_srv_worker *worker_new(struct xio_srv *s, unsigned id)
{
	size_t size = (sizeof(struct xio_srv_worker) + 63) & ~(size_t)63;
	struct xio_srv_worker *w = aligned_alloc(64, size);

	if (!w) {
		xio_cli_error("out of memory");
		return NULL;
	}
	memset(w, 0, size);
	w->id = id;
	w->allow = &s->cfg->allow;
	w->pace = &s->pace;
	w->stop = &s->stop;
	if (s->cfg->cookies) {
		w->cookie = &s->cfg->cookie;
		xio_srv_cookie_keys_init(&w->keys, w->cookie);
	}
	w->payload4 = xio_mtu_payload(s->cfg->mtu, false);
	w->payload6 = xio_mtu_payload(s->cfg->mtu, true);
	w->burst = s->cfg->burst;
	w->flow_ns_per_byte = s->cfg->flow_rate_gbit > 0 ? 8.0 / s->cfg->flow_rate_gbit : 0;
	if (open_sock(s, &w->sock, id, s->cfg->threads > 1) < 0) {
		free(w);
		return NULL;
	}
	if (xio_srv_files_init(&w->files, s->cfg->rootfd, XIO_SRV_FILES_DEFAULT) < 0 ||
	    xio_srv_train_init(&w->train, XIO_SRV_TRAIN_BYTES) < 0) {
		xio_cli_error("out of memory");
		worker_free(w);
		return NULL;
	}
	return w;
}

static void worker_free(struct xio_srv_worker *w)
{
	xio_srv_sock_close(&w->sock);
	xio_srv_files_fini(&w->files);
	xio_srv_train_fini(&w->train);
	free(w);
}

static void sum(const struct xio_srv *s, struct xio_srv_counters *c);

/* GET /metrics, on the endpoint's thread: the workers' counters as the
 * stats line reads them. */
static int metrics_fill(void *arg, struct xio_buf *b)
{
	const struct xio_srv *s = arg;
	struct xio_srv_counters c;

	sum(s, &c);
	xio_srv_stats_prom(b, &c, (double)(xio_srv_now_ns() - s->open_ns) / 1e9);
	return 0;
}

static void srv_free(struct xio_srv *s)
{
	xio_httpd_stop(s->metrics);
	for (unsigned i = 0; i < s->n; i++)
		worker_free(s->w[i]);
	free(s->w);
	close(s->cfg->rootfd);
	xio_srv_cookie_fini(&s->cfg->cookie);
	free(s);
}

struct xio_srv *xio_srv_open(struct xio_srv_config *cfg)
{
	struct xio_srv *s = calloc(1, sizeof(*s));
	char why[256];

	if (!s) {
		xio_cli_error("out of memory");
		return NULL;
	}
	s->cfg = cfg;
	sigemptyset(&s->sigs);
	sigaddset(&s->sigs, SIGINT);
	sigaddset(&s->sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &s->sigs, NULL);
	xio_srv_pace_init(&s->pace, cfg->rate_gbit);
	s->open_ns = xio_srv_now_ns();
	s->w = calloc(cfg->threads, sizeof(*s->w));
	if (!s->w) {
		xio_cli_error("out of memory");
		free(s);
		return NULL;
	}
	if (cfg->threads > 1 && check_port_free(s) < 0) {
		srv_free(s);
		return NULL;
	}
	for (s->n = 0; s->n < cfg->threads; s->n++)
		if (!(s->w[s->n] = worker_new(s, s->n))) {
			srv_free(s);
			return NULL;
		}
	if (cfg->metrics_str &&
	    !(s->metrics = xio_httpd_start(&cfg->metrics, cfg->metrics_len, metrics_fill, s, why,
					  sizeof(why)))) {
		xio_cli_error("--metrics %s: %s", cfg->metrics_str, why);
		srv_free(s);
		return NULL;
	}
	return s;
}

void xio_srv_announce(const struct xio_srv *s, FILE *out)
{
	const struct xio_srv_config *c = s->cfg;
	char allow[512];

	xio_srv_allow_format(&c->allow, allow, sizeof(allow));
	fprintf(out, "xio-server: serving %s on %s%s%s port %u to %s | mtu %u: %u tokens per "
		"datagram over IPv4", c->root, c->bind.ss_family == AF_INET6 ? "[" : "", c->bind_str,
		c->bind.ss_family == AF_INET6 ? "]" : "", c->port, allow, c->mtu,
		s->w[0]->payload4 / 4);
	if (c->bind.ss_family == AF_INET6)
		fprintf(out, ", %u over IPv6", s->w[0]->payload6 / 4);
	fprintf(out, " | %u thread%s, bursts of %u datagrams", c->threads,
		c->threads > 1 ? "s" : "", c->burst);
	if (c->flow_rate_gbit > 0)
		fprintf(out, " at %g Gbit/s a client", c->flow_rate_gbit);
	fprintf(out, ", ");
	if (c->rate_gbit > 0)
		fprintf(out, "paced at %g Gbit/s", c->rate_gbit);
	else
		fprintf(out, "not paced");
	fprintf(out, ", %s", s->w[0]->sock.gso ? "UDP GSO" : "sendmmsg");
	if (c->cookies)
		fprintf(out, " | address cookies, secret rotated every %u s%s\n", c->cookie_rotate,
			c->cookie_secret ? " (from --cookie-secret)" : "");
	else
		fprintf(out, " | no address validation (--cookies off)\n");
	fflush(out);
}

static void sum(const struct xio_srv *s, struct xio_srv_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < s->n; i++)
		xio_srv_counters_add(c, &s->w[i]->counters);
}

/* Whether --duration or --idle-exit says stop now. */
static bool time_up(const struct xio_srv *s, const struct xio_srv_counters *c, uint64_t now)
{
	uint64_t last = c->last_rx_ns > s->t0_ns ? c->last_rx_ns : s->t0_ns;

	if (s->cfg->duration > 0 && (double)(now - s->t0_ns) >= s->cfg->duration * 1e9)
		return true;
	return s->cfg->idle_exit_ms > 0 && now - last >= s->cfg->idle_exit_ms * 1000000u;
}

int xio_srv_serve(struct xio_srv *s)
{
	struct timespec tick = { .tv_nsec = MAIN_TICK_NS };
	struct xio_srv_counters now_c, prev = { 0 };
	uint64_t interval = (uint64_t)(s->cfg->stats_interval * 1e9), next, prev_t;

	for (unsigned i = 0; i < s->n; i++)
		if (pthread_create(&s->w[i]->thread, NULL, xio_srv_worker_main, s->w[i]) != 0) {
			xio_cli_error("cannot start worker %u", i);
			__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
			while (i-- > 0)
				pthread_join(s->w[i]->thread, NULL);
			return -1;
		}
	s->t0_ns = prev_t = xio_srv_now_ns();
	next = s->t0_ns + interval;
	for (;;) {
		uint64_t now;

		if (sigtimedwait(&s->sigs, NULL, &tick) > 0)
			break;
		now = xio_srv_now_ns();
		sum(s, &now_c);
		if (time_up(s, &now_c, now))
			break;
		if (interval && now >= next) {
			xio_srv_stats_line(stdout, (double)(now - s->t0_ns) / 1e9, &now_c, &prev,
					   (double)(now - prev_t) / 1e9);
			prev = now_c;
			prev_t = now;
			next += interval;
		}
	}
	s->t1_ns = xio_srv_now_ns();
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < s->n; i++)
		pthread_join(s->w[i]->thread, NULL);
	return 0;
}

int xio_srv_close(struct xio_srv *s)
{
	struct xio_srv_run_info info = { .threads = s->cfg->threads, .mtu = s->cfg->mtu,
					 .rate_gbit = s->cfg->rate_gbit, .gso = true,
					 .burst = s->cfg->burst, .cookies = s->cfg->cookies };
	double elapsed = (double)(s->t1_ns - s->t0_ns) / 1e9;
	struct xio_srv_counters c;
	int rc = 0;

	sum(s, &c);
	for (unsigned i = 0; i < s->n; i++)
		info.gso = info.gso && s->w[i]->sock.gso;
	printf("xio-server: received %" PRIu64 " refused %" PRIu64 " ignored %" PRIu64
	       " requests %" PRIu64 " errors %" PRIu64 " datagrams %" PRIu64 " bytes %" PRIu64
	       " send_errors %" PRIu64 " send_retries %" PRIu64 " in %.3f s\n",
	       c.received, c.refused, c.ignored, c.requests[0] + c.requests[1],
	       c.answers[XIO_SRV_ANS_ERROR], c.datagrams, c.bytes, c.send_errors, c.send_retries,
	       elapsed);
	fflush(stdout);
	if (s->cfg->stats_json && xio_srv_stats_save(s->cfg->stats_json, &c, elapsed, &info) < 0) {
		xio_cli_error("--stats-json: cannot write '%s': %s", s->cfg->stats_json,
			      strerror(errno));
		rc = 1;
	}
	srv_free(s);
	return rc;
}
