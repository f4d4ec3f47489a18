/* SPDX-License-Identifier: BSD-3-Clause
 * xio-tcp-read: the TCP baseline's reader (tests/bench/xio_tcp.h): reads a
 * range of an INT32 token file from xio-tcp-server over N TCP streams, each
 * its contiguous part on its own connection and thread, and narrows every
 * token to UINT16 with the stage core's vectorised kernel
 * (xio_narrow_ops()->narrow_checked, the one the DPU and libxio use) into
 * one output buffer: --out FILE maps the file as xio-fetch maps its output,
 * else a buffer in memory. What a user reading the dataset over NFS or HTTP
 * and narrowing on the host does. A token outside 0..65535 fails the read,
 * naming it. Prints one line: tokens, seconds, tokens/s, GB/s of INT32 and
 * its own CPU time (getrusage: every thread, user and system); --json FILE
 * the same as JSON.
 *
 *   xio-tcp-read --server HOST[:PORT] PATH [--streams N] [--first T]
 *                [--count T] [--out FILE] [--json FILE]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xio_main.h"
#include "xio_narrow.h"
#include "xio_tcp.h"

#define RECV_BYTES (1u << 20)     /* one recv's buffer */
#define KERNEL_MAX 65536u          /* tokens per narrow_checked call */

struct opts {
	const char *host, *port, *path, *out, *json;
	unsigned streams;
	uint64_t first, count;
	bool count_given;
};

struct stream {
	pthread_t thread;
	const struct opts *o;
	uint8_t *dst;       /* UINT16 output of the part */
	uint64_t first, n;  /* tokens of the part */
	int err;            /* 0, or a message in msg */
	char msg[256];
};

static void usage(void)
{
	printf("Usage: %s --server HOST[:PORT] PATH [options]\n"
	       "Reads the INT32 token file PATH from xio-tcp-server over TCP and narrows it\n"
	       "to UINT16 on this host (the baseline of make bench-transport).\n\n"
	       "  --server HOST[:PORT]  the server (port %u)\n"
	       "  --streams N           TCP connections, each a contiguous part, 1..256 (1)\n"
	       "  --first T             first token (0)\n"
	       "  --count T             tokens (to the end of the file)\n"
	       "  --out FILE            the UINT16 tokens into FILE (mapped); default a buffer\n"
	       "  --json FILE           the figures as JSON\n"
	       "  --help, --version\n",
	       xio_cli_prog(), XIO_TCP_PORT);
	exit(0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dial(const struct opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	int fd = -1, rc = getaddrinfo(o->host, o->port, &hints, &ai);

	if (rc != 0)
		xio_main_fail("--server %s: %s", o->host, gai_strerror(rc));
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* Sends the request for bytes [off, off + len) of PATH, reads the answer's
 * header. Returns 0 or -1. */
static int ask(int fd, const struct opts *o, uint64_t off, uint64_t len, struct xio_tcp_ans *a)
{
	size_t plen = strlen(o->path);
	uint8_t req[XIO_TCP_REQ_LEN + XIO_TCP_PATH_MAX];
	struct xio_tcp_req q = { .magic = XIO_TCP_MAGIC, .path_len = (uint16_t)plen,
				 .offset = off, .length = len };

	memcpy(req, &q, sizeof(q));
	memcpy(req + sizeof(q), o->path, plen);
	if (xio_tcp_full(fd, req, sizeof(q) + plen, 1) < 0)
		return -1;
	return xio_tcp_full(fd, a, sizeof(*a), 0);
}

/* Narrows n tokens at src into dst; fails naming the first out of range. */
static int narrow(struct stream *s, uint8_t *dst, const uint8_t *src, uint64_t n, uint64_t at)
{
	const struct xio_narrow_ops *k = xio_narrow_ops();
	uint64_t sum = 0;

	for (uint64_t i = 0; i < n;) {
		size_t m = n - i < KERNEL_MAX ? (size_t)(n - i) : KERNEL_MAX;
		size_t got = k->narrow_checked(dst + 2 * i, src + 4 * i, m, &sum);

		if (got < m) {
			int32_t v;

			memcpy(&v, src + 4 * (i + got), 4);
			snprintf(s->msg, sizeof(s->msg), "token %" PRIu64 " is %d, outside 0..65535",
				 at + i + got, v);
			return -1;
		}
		i += m;
	}
	return 0;
}

static void *stream_main(void *arg)
{
	struct stream *s = arg;
	struct xio_tcp_ans a;
	uint8_t *buf = malloc(RECV_BYTES);
	uint64_t done = 0; /* tokens narrowed */
	size_t have = 0;   /* bytes in buf */
	int fd = dial(s->o);

	s->err = 1;
	if (!buf || fd < 0) {
		snprintf(s->msg, sizeof(s->msg), "cannot connect: %s", strerror(errno));
		goto out;
	}
	if (ask(fd, s->o, s->first * 4, s->n * 4, &a) < 0 || a.count != s->n * 4) {
		snprintf(s->msg, sizeof(s->msg), "the server answered %" PRIu64 " bytes, asked %"
			 PRIu64, a.count, s->n * 4);
		goto out;
	}
	while (done < s->n) {
		ssize_t r = recv(fd, buf + have, RECV_BYTES - have, 0);
		size_t whole;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(s->msg, sizeof(s->msg), "connection ended after %" PRIu64 " tokens",
				 done);
			goto out;
		}
		have += (size_t)r;
		whole = have / 4;
		if (narrow(s, s->dst + 2 * done, buf, whole, s->first + done) < 0)
			goto out;
		done += whole;
		memmove(buf, buf + whole * 4, have - whole * 4);
		have -= whole * 4;
	}
	s->err = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static void parse(int argc, char **argv, struct opts *o)
{
	enum { O_SERVER = 256, O_STREAMS, O_FIRST, O_COUNT, O_OUT, O_JSON, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{ "server", required_argument, NULL, O_SERVER },
		{ "streams", required_argument, NULL, O_STREAMS },
		{ "first", required_argument, NULL, O_FIRST },
		{ "count", required_argument, NULL, O_COUNT },
		{ "out", required_argument, NULL, O_OUT },
		{ "json", required_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	static char host[256], port[8];
	int opt;

	*o = (struct opts){ .streams = 1 };
	snprintf(port, sizeof(port), "%u", XIO_TCP_PORT);
	o->port = port;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (opt) {
		case O_SERVER: {
			const char *colon = strrchr(optarg, ':');
			bool v6 = optarg[0] == '[';

			snprintf(host, sizeof(host), "%s", optarg + v6);
			if (v6 && strchr(host, ']')) {
				char *end = strchr(host, ']');

				if (end[1] == ':')
					snprintf(port, sizeof(port), "%s", end + 2);
				*end = '\0';
			} else if (!v6 && colon && strchr(optarg, ':') == colon) {
				host[colon - optarg] = '\0';
				snprintf(port, sizeof(port), "%s", colon + 1);
			}
			o->host = host;
			break;
		}
		case O_STREAMS: o->streams = (unsigned)xio_main_num("streams", optarg, 1, 256); break;
		case O_FIRST: o->first = xio_main_num("first", optarg, 0, UINT64_MAX / 8); break;
		case O_COUNT:
			o->count = xio_main_num("count", optarg, 1, UINT64_MAX / 8);
			o->count_given = true;
			break;
		case O_OUT: o->out = optarg; break;
		case O_JSON: o->json = optarg; break;
		case O_HELP: usage(); break;
		case O_VERSION: xio_main_version();
		case ':': xio_main_usage("option '%s' needs a value", argv[optind - 1]);
		default: xio_main_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!o->host)
		xio_main_usage("--server HOST[:PORT] is required");
	if (optind != argc - 1)
		xio_main_usage("one PATH expected");
	o->path = argv[optind];
	if (strlen(o->path) == 0 || strlen(o->path) > XIO_TCP_PATH_MAX)
		xio_main_usage("PATH: 1..%u bytes", XIO_TCP_PATH_MAX);
}

/* The output: FILE mapped (as xio-fetch maps its own) or anonymous memory. */
static uint8_t *output(const struct opts *o, size_t len)
{
	void *m;

	if (o->out) {
		int fd = open(o->out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || ftruncate(fd, (off_t)len) < 0)
			xio_main_fail("--out %s: %s", o->out, strerror(errno));
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (m == MAP_FAILED)
		xio_main_fail("cannot map %zu bytes of output: %s", len, strerror(errno));
	return m;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct xio_tcp_ans a;
	struct stream *st;
	struct rusage ru;
	uint64_t tokens, part;
	double t0, el, user, sys;
	uint8_t *dst;
	int fd, failed = 0;

	xio_cli_init(argv[0]);
	parse(argc, argv, &o);
	t0 = now_s();
	fd = dial(&o);
	if (fd < 0)
		xio_main_fail("cannot connect to %s port %s: %s", o.host, o.port, strerror(errno));
	if (ask(fd, &o, 0, 0, &a) < 0)
		xio_main_fail("%s: no answer from the server", o.path);
	close(fd);
	if (a.size == 0 || a.size % 4)
		xio_main_fail("%s: size %" PRIu64 ": not an INT32 token file (missing?)", o.path, a.size);
	if (o.first >= a.size / 4)
		xio_main_fail("--first %" PRIu64 ": the file has %" PRIu64 " tokens", o.first, a.size / 4);
	tokens = a.size / 4 - o.first;
	if (o.count_given && o.count < tokens)
		tokens = o.count;
	dst = output(&o, (size_t)tokens * 2);
	st = calloc(o.streams, sizeof(*st));
	if (!st)
		xio_main_fail("out of memory");
	part = (tokens + o.streams - 1) / o.streams;
	for (unsigned i = 0; i < o.streams; i++) {
		uint64_t lo = (uint64_t)i * part, hi = lo + part < tokens ? lo + part : tokens;

		st[i] = (struct stream){ .o = &o, .dst = dst + 2 * lo, .first = o.first + lo,
					 .n = hi > lo ? hi - lo : 0 };
		if (st[i].n && pthread_create(&st[i].thread, NULL, stream_main, &st[i]) != 0)
			xio_main_fail("cannot start stream %u", i);
	}
	for (unsigned i = 0; i < o.streams; i++) {
		if (!st[i].n)
			continue;
		pthread_join(st[i].thread, NULL);
		if (st[i].err) {
			fprintf(stderr, "%s: stream %u: %s\n", xio_cli_prog(), i, st[i].msg);
			failed = 1;
		}
	}
	if (o.out && msync(dst, (size_t)tokens * 2, MS_ASYNC) < 0)
		failed = 1;
	el = now_s() - t0;
	getrusage(RUSAGE_SELF, &ru);
	user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	if (failed) {
		if (o.out)
			unlink(o.out);
		return 1;
	}
	printf("xio-tcp-read: %" PRIu64 " tokens in %.3f s: %.1f Mtok/s, %.2f GB/s of INT32, "
	       "%u stream%s, %s kernel, cpu user %.3f s sys %.3f s\n", tokens, el,
	       (double)tokens / el / 1e6, (double)tokens * 4 / el / 1e9, o.streams,
	       o.streams > 1 ? "s" : "", xio_narrow_ops()->name, user, sys);
	if (o.json) {
		FILE *f = fopen(o.json, "w");

		if (!f)
			xio_main_fail("--json %s: %s", o.json, strerror(errno));
		fprintf(f, "{\"tokens\": %" PRIu64 ", \"elapsed_s\": %.6f, \"tokens_per_s\": %.1f, "
			"\"streams\": %u, \"kernel\": \"%s\", \"cpu_user_s\": %.6f, \"cpu_sys_s\": %.6f}\n",
			tokens, el, (double)tokens / el, o.streams, xio_narrow_ops()->name, user, sys);
		fclose(f);
	}
	return 0;
}
