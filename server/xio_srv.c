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
};

static struct xio_srv_worker *worker_new(struct xio_srv *s, unsigned id)
{
	size_t size = (sizeof(struct xio_srv_worker) + 63) & ~(size_t)63;
	struct xio_srv_worker *w = aligned_alloc(64, size);
	const char *what;

	if (!w)
		xio_cli_fail("out of memory");
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
	while (xio_srv_sock_open(&w->sock, id, (struct sockaddr *)&s->cfg->bind, s->cfg->bind_len,
				 s->cfg->threads > 1, &what) < 0) {
		/* the default "::" on a host without IPv6 */
		if (errno == EAFNOSUPPORT && xio_srv_config_bind_v4(s->cfg))
			continue;
		xio_cli_fail("cannot %s %s port %u: %s", what, s->cfg->bind_str, s->cfg->port,
			     strerror(errno));
	}
	if (xio_srv_files_init(&w->files, s->cfg->rootfd, XIO_SRV_FILES_DEFAULT) < 0 ||
	    xio_srv_train_init(&w->train, XIO_SRV_TRAIN_BYTES) < 0)
		xio_cli_fail("out of memory");
	return w;
}

static void worker_free(struct xio_srv_worker *w)
{
	xio_srv_sock_close(&w->sock);
	xio_srv_files_fini(&w->files);
	xio_srv_train_fini(&w->train);
	free(w);
}

struct xio_srv *xio_srv_open(struct xio_srv_config *cfg)
{
	struct xio_srv *s = calloc(1, sizeof(*s));

	if (!s)
		xio_cli_fail("out of memory");
	s->cfg = cfg;
	sigemptyset(&s->sigs);
	sigaddset(&s->sigs, SIGINT);
	sigaddset(&s->sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &s->sigs, NULL);
	xio_srv_pace_init(&s->pace, cfg->rate_gbit);
	s->w = calloc(cfg->threads, sizeof(*s->w));
	if (!s->w)
		xio_cli_fail("out of memory");
	for (s->n = 0; s->n < cfg->threads; s->n++)
		s->w[s->n] = worker_new(s, s->n);
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
	fprintf(out, " | %u thread%s, ", c->threads, c->threads > 1 ? "s" : "");
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

void xio_srv_serve(struct xio_srv *s)
{
	struct timespec tick = { .tv_nsec = MAIN_TICK_NS };
	struct xio_srv_counters now_c, prev = { 0 };
	uint64_t interval = (uint64_t)(s->cfg->stats_interval * 1e9), next, prev_t;

	for (unsigned i = 0; i < s->n; i++)
		if (pthread_create(&s->w[i]->thread, NULL, xio_srv_worker_main, s->w[i]) != 0)
			xio_cli_fail("cannot start worker %u", i);
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
}

int xio_srv_close(struct xio_srv *s)
{
	struct xio_srv_run_info info = { .threads = s->cfg->threads, .mtu = s->cfg->mtu,
					 .rate_gbit = s->cfg->rate_gbit, .gso = true,
					 .cookies = s->cfg->cookies };
	double elapsed = (double)(s->t1_ns - s->t0_ns) / 1e9;
	struct xio_srv_counters c;
	int rc = 0;

	sum(s, &c);
	for (unsigned i = 0; i < s->n; i++)
		info.gso = info.gso && s->w[i]->sock.gso;
	printf("xio-server: received %" PRIu64 " refused %" PRIu64 " ignored %" PRIu64
	       " requests %" PRIu64 " errors %" PRIu64 " datagrams %" PRIu64 " bytes %" PRIu64
	       " send_errors %" PRIu64 " in %.3f s\n",
	       c.received, c.refused, c.ignored, c.requests[0] + c.requests[1],
	       c.answers[XIO_SRV_ANS_ERROR], c.datagrams, c.bytes, c.send_errors, elapsed);
	fflush(stdout);
	if (s->cfg->stats_json && xio_srv_stats_save(s->cfg->stats_json, &c, elapsed, &info) < 0) {
		fprintf(stderr, "xio-server: --stats-json: cannot write '%s': %s\n",
			s->cfg->stats_json, strerror(errno));
		rc = 1;
	}
	for (unsigned i = 0; i < s->n; i++)
		worker_free(s->w[i]);
	free(s->w);
	close(s->cfg->rootfd);
	xio_srv_cookie_fini(&s->cfg->cookie);
	free(s);
	return rc;
}
