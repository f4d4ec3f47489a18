/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_config.c: xio-server's command line (xio_srv_config.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xio_cli.h"
#include "xio_msg.h"
#include "xio_srv_config.h"
#include "xio_srv_files.h"

static void usage(void)
{
	printf("Usage: %s --root DIR [options]\n"
	       "Answers the XIO read protocol (xio-read-v1.md) with the files of DIR:\n"
	       "STAT_REQUEST and READ_REQUEST from the networks of --allow, over UDP.\n"
	       "\n"
	       "  --root DIR          the exported directory; no path leaves it (required)\n"
	       "  --bind ADDR         local address (default :: , IPv6 and IPv4 alike;\n"
	       "                      0.0.0.0 on a host without IPv6)\n"
	       "  --port P            UDP port, 1..65535 (default %u)\n"
	       "  --allow LIST        networks answered: CIDRs (IPv4 or IPv6, a bare address\n"
	       "                      is one host) separated by commas, or 'any' (default:\n"
	       "                      loopback and the subnets of this host's addresses)\n"
	       "  --mtu N             IP MTU of the path to the clients, %u..%u (default\n"
	       "                      1500): sets the most tokens per answer datagram\n"
	       "  --rate GBIT         pace the answers to GBIT Gbit/s of UDP payload, all\n"
	       "                      threads together (default 0: not paced)\n"
	       "  --threads N         worker threads on one port (SO_REUSEPORT), 1..%u\n"
	       "                      (default 1)\n"
	       "  --stats-json FILE   write the counters as JSON at exit\n"
	       "  --stats-interval S  print a counters line every S seconds (default 0: none)\n"
	       "  --duration S        stop after S seconds (default 0: at SIGINT/SIGTERM)\n"
	       "  --idle-exit MS      stop after MS milliseconds without a datagram\n"
	       "  --cookies on|off    address validation (xio-read 1.2): READ only with the\n"
	       "                      cookie STAT_REPLY gives, so forged sources get no data\n"
	       "                      (default on; off for 1.0 clients on a trusted network)\n"
	       "  --cookie-rotate S   the cookie secret's rotation period, 1..%u (default %u)\n"
	       "  --cookie-secret FILE  the secret (16..%u bytes, mode 600), shared by the\n"
	       "                      servers that answer on one address (default: random)\n"
	       "  --help              this text\n"
	       "  --version           the version\n"
	       "SIGINT or SIGTERM: finish the answer being sent, write the counters, exit 0.\n",
	       xio_cli_prog(), XIO_DEFAULT_UDP_PORT, 64u, XIO_SRV_MTU_MAX, XIO_SRV_THREADS_MAX,
	       XIO_SRV_COOKIE_ROTATE_MAX, XIO_SRV_COOKIE_ROTATE_DEF, XIO_SRV_COOKIE_SECRET_MAX);
	exit(0);
}

static void set_bind(struct xio_srv_config *c, const char *addr)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_PASSIVE,
				  .ai_socktype = SOCK_DGRAM };
	struct addrinfo *ai;
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 4];
	size_t len = strlen(addr);

	/* "[::1]" as well as "::1" */
	if (len >= 2 && addr[0] == '[' && addr[len - 1] == ']' && len - 2 < sizeof(buf)) {
		memcpy(buf, addr + 1, len - 2);
		buf[len - 2] = '\0';
	} else {
		snprintf(buf, sizeof(buf), "%s", addr);
	}
	if (getaddrinfo(buf, NULL, &hints, &ai) != 0)
		xio_cli_usage_error("--bind '%s': not an IPv4 or IPv6 address", addr);
	memcpy(&c->bind, ai->ai_addr, ai->ai_addrlen);
	c->bind_len = ai->ai_addrlen;
	freeaddrinfo(ai);
}

static void set_port(struct xio_srv_config *c)
{
	if (c->bind.ss_family == AF_INET)
		((struct sockaddr_in *)&c->bind)->sin_port = htons(c->port);
	else
		((struct sockaddr_in6 *)&c->bind)->sin6_port = htons(c->port);
}

bool xio_srv_config_bind_v4(struct xio_srv_config *c)
{
	if (c->bind_given || c->bind.ss_family != AF_INET6)
		return false;
	set_bind(c, "0.0.0.0");
	set_port(c);
	c->bind_str = "0.0.0.0";
	return true;
}

static void open_root(struct xio_srv_config *c)
{
	if (!c->root)
		xio_cli_usage_error("--root DIR is required");
	c->rootfd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->rootfd < 0)
		xio_cli_usage_error("--root '%s': %s", c->root, strerror(errno));
	if (xio_srv_files_probe(c->rootfd) < 0)
		xio_cli_fail("--root '%s': cannot confine paths to it (openat2 with "
			     "RESOLVE_BENEATH, Linux 5.6): %s", c->root, strerror(errno));
}

static void build_allow(struct xio_srv_config *c, const char *spec)
{
	char err[256];

	if (spec ? xio_srv_allow_parse(&c->allow, spec, err, sizeof(err))
		 : xio_srv_allow_local(&c->allow, err, sizeof(err)))
		xio_cli_usage_error("--allow: %s", err);
}

static void check_mtu(const struct xio_srv_config *c)
{
	bool v6 = c->bind.ss_family == AF_INET6;

	if (xio_mtu_payload(c->mtu, v6) == 0)
		xio_cli_usage_error("--mtu %u: too small for the IP, UDP and XIO headers and one "
				    "token over %s (at least %u)",
				    c->mtu, v6 ? "IPv6" : "IPv4", v6 ? 84u : 64u);
}

static bool on_off(const char *name, const char *v)
{
	if (strcmp(v, "on") == 0)
		return true;
	if (strcmp(v, "off") != 0)
		xio_cli_usage_error("--%s '%s': on or off", name, v);
	return false;
}

static void make_cookie_secret(struct xio_srv_config *c)
{
	char err[256];

	if (!c->cookies) {
		if (c->cookie_secret)
			xio_cli_usage_error("--cookie-secret with --cookies off: nothing to validate");
		return;
	}
	if (xio_srv_cookie_init(&c->cookie, c->cookie_secret, c->cookie_rotate, err, sizeof(err)))
		xio_cli_usage_error("%s: %s", c->cookie_secret ? "--cookie-secret" : "address cookies",
				    err);
}

/* The stats file is written at exit: its directory must take it. */
static void check_stats_json(const char *path)
{
	char *copy = strdup(path), *dir;

	if (!copy)
		xio_cli_fail("out of memory");
	dir = dirname(copy);
	if (access(dir, W_OK | X_OK) < 0)
		xio_cli_usage_error("--stats-json '%s': cannot write in '%s': %s", path, dir,
				    strerror(errno));
	free(copy);
}

void xio_srv_config_parse(int argc, char **argv, struct xio_srv_config *c)
{
	enum { O_ROOT = 256, O_BIND, O_PORT, O_ALLOW, O_MTU, O_RATE, O_THREADS, O_STATS_JSON,
	       O_STATS_INTERVAL, O_DURATION, O_IDLE_EXIT, O_HELP, O_VERSION, O_COOKIES,
	       O_COOKIE_ROTATE, O_COOKIE_SECRET };
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, O_ROOT },
		{ "bind", required_argument, NULL, O_BIND },
		{ "port", required_argument, NULL, O_PORT },
		{ "allow", required_argument, NULL, O_ALLOW },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "rate", required_argument, NULL, O_RATE },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "stats-json", required_argument, NULL, O_STATS_JSON },
		{ "stats-interval", required_argument, NULL, O_STATS_INTERVAL },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "idle-exit", required_argument, NULL, O_IDLE_EXIT },
		{ "cookies", required_argument, NULL, O_COOKIES },
		{ "cookie-rotate", required_argument, NULL, O_COOKIE_ROTATE },
		{ "cookie-secret", required_argument, NULL, O_COOKIE_SECRET },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *allow = NULL;
	int opt;

	*c = (struct xio_srv_config){ .rootfd = -1, .bind_str = "::", .port = XIO_DEFAULT_UDP_PORT,
				      .mtu = 1500, .threads = 1, .cookies = true,
				      .cookie_rotate = XIO_SRV_COOKIE_ROTATE_DEF };
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (opt) {
		case O_ROOT: c->root = optarg; break;
		case O_BIND: c->bind_str = optarg; c->bind_given = true; break;
		case O_PORT: c->port = (uint16_t)xio_cli_num("port", optarg, 1, 65535); break;
		case O_ALLOW: allow = optarg; break;
		case O_MTU: c->mtu = (uint32_t)xio_cli_num("mtu", optarg, 1, XIO_SRV_MTU_MAX); break;
		case O_RATE: c->rate_gbit = xio_cli_real("rate", optarg, 0, 1000); break;
		case O_THREADS:
			c->threads = (unsigned)xio_cli_num("threads", optarg, 1, XIO_SRV_THREADS_MAX);
			break;
		case O_STATS_JSON: c->stats_json = optarg; break;
		case O_STATS_INTERVAL:
			c->stats_interval = xio_cli_real("stats-interval", optarg, 0, 86400);
			break;
		case O_DURATION: c->duration = xio_cli_real("duration", optarg, 0, 1e9); break;
		case O_IDLE_EXIT:
			c->idle_exit_ms = xio_cli_num("idle-exit", optarg, 0, 1000000000);
			break;
		case O_COOKIES: c->cookies = on_off("cookies", optarg); break;
		case O_COOKIE_ROTATE:
			c->cookie_rotate = (unsigned)xio_cli_num("cookie-rotate", optarg, 1,
								 XIO_SRV_COOKIE_ROTATE_MAX);
			break;
		case O_COOKIE_SECRET: c->cookie_secret = optarg; break;
		case O_HELP: usage(); break;
		case O_VERSION: xio_cli_version(); break;
		case ':': xio_cli_usage_error("option '%s' needs a value", argv[optind - 1]);
		default: xio_cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		xio_cli_usage_error("unexpected argument '%s'", argv[optind]);
	open_root(c);
	set_bind(c, c->bind_str);
	set_port(c);
	check_mtu(c);
	build_allow(c, allow);
	if (c->stats_json)
		check_stats_json(c->stats_json);
	make_cookie_secret(c);
}
