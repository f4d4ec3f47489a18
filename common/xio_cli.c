/* SPDX-License-Identifier: BSD-3-Clause
 * xio_cli.c: the command-line helpers of every program (xio_cli.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_cli.h"
#include "xio_path.h"

#ifndef XIO_VERSION_STRING
#error "XIO_VERSION_STRING comes from the Makefile's XIO_VERSION"
#endif

static const char *cli_prog = "xio";

int xio_cli_exit_code(int rc)
{
	switch (rc) {
	case XIO_CLI_RUN:
	case XIO_CLI_DONE:
		return XIO_EXIT_OK;
	case XIO_CLI_USAGE:
		return XIO_EXIT_USAGE;
	default:
		return XIO_EXIT_FAIL;
	}
}

void xio_cli_init(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	cli_prog = slash ? slash + 1 : (argv0 && *argv0 ? argv0 : cli_prog);
}

const char *xio_cli_prog(void)
{
	return cli_prog;
}

int xio_cli_vusage(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (try --help)\n");
	return XIO_CLI_USAGE;
}

int xio_cli_verror(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return XIO_CLI_FAIL;
}

int xio_cli_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xio_cli_vusage(fmt, ap);
	va_end(ap);
	return XIO_CLI_USAGE;
}

int xio_cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xio_cli_verror(fmt, ap);
	va_end(ap);
	return XIO_CLI_FAIL;
}

int xio_cli_num(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *s == '-' || *s == '+' || *s == ' ' || *end || errno || v < min || v > max)
		return xio_cli_usage("--%s '%s': expected a number in %llu..%llu", opt, s,
				     (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

int xio_cli_real(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *s == ' ' || *end || errno || !isfinite(v) || v < min || v > max)
		return xio_cli_usage("--%s '%s': expected a number in %g..%g", opt, s, min, max);
	*out = v;
	return 0;
}

int xio_cli_enum(const char *opt, const char *s, const char *const *names)
{
	char list[256];
	size_t n = 0;

	for (int i = 0; names[i] != NULL; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	list[0] = '\0';
	for (int i = 0; names[i] != NULL && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? "|" : "", names[i]);
	return xio_cli_usage("--%s '%s': expected %s", opt, s, list);
}

int xio_cli_writable(const char *opt, const char *path)
{
	char why[512];

	if (xio_path_writable(path, why, sizeof(why)) < 0)
		return xio_cli_usage("--%s '%s': %s", opt, path, why);
	return 0;
}

int xio_cli_listen_addr(const char *opt, const char *s, struct sockaddr_storage *ss,
			socklen_t *len)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(s, ':'), *h = s;
	struct addrinfo *ai;
	uint64_t port;
	size_t hl;

	if (!colon || colon == s)
		return xio_cli_usage("--%s '%s': expected ADDR:PORT (127.0.0.1:9100, [::1]:9100)",
				     opt, s);
	hl = (size_t)(colon - s);
	if (s[0] == '[' && hl >= 2 && s[hl - 1] == ']') {
		h = s + 1;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return xio_cli_usage("--%s '%s': not a numeric IPv4 or IPv6 address", opt, s);
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (xio_cli_num(opt, colon + 1, 1, 65535, &port) < 0)
		return XIO_CLI_USAGE;
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
		return xio_cli_usage("--%s '%s': '%s' is not a numeric IPv4 or IPv6 address "
				     "(IPv6 in brackets: [::1]:9100)", opt, s, host);
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int xio_cli_version(void)
{
	printf("%s %s\n", cli_prog, XIO_VERSION_STRING);
	return XIO_CLI_DONE;
}
