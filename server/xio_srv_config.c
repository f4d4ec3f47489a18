/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_config.c: xio-server's command line (xio_srv_config.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xio_cli.h"
#include "xio_msg.h"
#include "xio_path.h"
#include "xio_srv_config.h"
#include "xio_srv_files.h"

static int usage(void)
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
	       "                      (default: the cores this process may use, at most %u;\n"
	       "                      %u here)\n"
	       "  --burst N           most datagrams sent to one client back to back while\n"
	       "                      other clients' answers wait, 1..%u (default %u)\n"
	       "  --flow-rate GBIT    pace each client's bursts to GBIT Gbit/s of UDP payload\n"
	       "                      (default 0: bursts back to back)\n"
	       "  --stats-json FILE   write the counters as JSON at exit\n"
	       "  --stats-interval S  print a counters line every S seconds (default 0: none)\n"
	       "  --duration S        stop after S seconds (default 0: at SIGINT/SIGTERM)\n"
	       "  --idle-exit MS      stop after MS milliseconds without a datagram\n"
	       "  --metrics ADDR:PORT serve the counters to Prometheus at\n"
	       "                      http://ADDR:PORT/metrics (127.0.0.1:9101, [::1]:9101)\n"
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
	       XIO_SRV_THREADS_AUTO_MAX, xio_srv_threads_default(), XIO_SRV_BURST_MAX,
	       XIO_SRV_BURST_DEFAULT, XIO_SRV_COOKIE_ROTATE_MAX, XIO_SRV_COOKIE_ROTATE_DEF,
	       XIO_SRV_COOKIE_SECRET_MAX);
	return XIO_CLI_DONE;
}

static int set_bind(struct xio_srv_config *c, const char *addr)
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
		return xio_cli_usage("--bind '%s': not an IPv4 or IPv6 address", addr);
	memcpy(&c->bind, ai->ai_addr, ai->ai_addrlen);
	c->bind_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static void set_port(struct xio_srv_config *c)
{
	if (c->bind.ss_family == AF_INET)
		((struct sockaddr_in *)&c->bind)->sin_port = htons(c->port);
	else
		((struct sockaddr_in6 *)&c->bind)->sin6_port = htons(c->port);
}

unsigned xio_srv_threads_default(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	if (n < 1)
		return 1;
	return n > XIO_SRV_THREADS_AUTO_MAX ? XIO_SRV_THREADS_AUTO_MAX : (unsigned)n;
}

bool xio_srv_config_bind_v4(struct xio_srv_config *c)
{
	if (c->bind_given || c->bind.ss_family != AF_INET6 || set_bind(c, "0.0.0.0") < 0)
		return false;
	set_port(c);
	c->bind_str = "0.0.0.0";
	return true;
}

static int open_root(struct xio_srv_config *c)
{
	if (!c->root)
		return xio_cli_usage("--root DIR is required");
	c->rootfd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->rootfd < 0)
		return xio_cli_usage("--root '%s': %s", c->root, strerror(errno));
	if (xio_srv_files_probe(c->rootfd) < 0)
		return xio_cli_error("--root '%s': cannot confine paths to it (openat2 with "
				     "RESOLVE_BENEATH, Linux 5.6): %s", c->root, strerror(errno));
	return 0;
}

static int build_allow(struct xio_srv_config *c, const char *spec)
{
	char err[256];

	if (spec ? xio_srv_allow_parse(&c->allow, spec, err, sizeof(err))
		 : xio_srv_allow_local(&c->allow, err, sizeof(err)))
		return xio_cli_usage("--allow: %s", err);
	return 0;
}

static int check_mtu(const struct xio_srv_config *c)
{
	bool v6 = c->bind.ss_family == AF_INET6;

	if (xio_mtu_payload(c->mtu, v6) == 0)
		return xio_cli_usage("--mtu %u: too small for the IP, UDP and XIO headers and one "
				     "token over %s (at least %u)",
				     c->mtu, v6 ? "IPv6" : "IPv4", v6 ? 84u : 64u);
	return 0;
}

/* The cookie secret of --cookie-secret, or a random one; none with
 * --cookies off. */
static int make_cookie_secret(struct xio_srv_config *c)
{
	char err[256];

	if (!c->cookies)
		return c->cookie_secret
			       ? xio_cli_usage("--cookie-secret with --cookies off: nothing to validate")
			       : 0;
	if (xio_srv_cookie_init(&c->cookie, c->cookie_secret, c->cookie_rotate, err, sizeof(err)))
		return c->cookie_secret ? xio_cli_usage("--cookie-secret: %s", err)
					: xio_cli_error("address cookies: %s", err);
	return 0;
}

int xio_srv_config_parse(int argc, char **argv, struct xio_srv_config *c)
{
	enum { O_ROOT = 256, O_BIND, O_PORT, O_ALLOW, O_MTU, O_RATE, O_THREADS, O_STATS_JSON,
	       O_STATS_INTERVAL, O_DURATION, O_IDLE_EXIT, O_HELP, O_VERSION, O_METRICS, O_BURST,
	       O_FLOW_RATE, O_COOKIES, O_COOKIE_ROTATE, O_COOKIE_SECRET };
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, O_ROOT },
		{ "bind", required_argument, NULL, O_BIND },
		{ "port", required_argument, NULL, O_PORT },
		{ "allow", required_argument, NULL, O_ALLOW },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "rate", required_argument, NULL, O_RATE },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "burst", required_argument, NULL, O_BURST },
		{ "flow-rate", required_argument, NULL, O_FLOW_RATE },
		{ "stats-json", required_argument, NULL, O_STATS_JSON },
		{ "stats-interval", required_argument, NULL, O_STATS_INTERVAL },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "idle-exit", required_argument, NULL, O_IDLE_EXIT },
		{ "metrics", required_argument, NULL, O_METRICS },
		{ "cookies", required_argument, NULL, O_COOKIES },
		{ "cookie-rotate", required_argument, NULL, O_COOKIE_ROTATE },
		{ "cookie-secret", required_argument, NULL, O_COOKIE_SECRET },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const on_off[] = { "off", "on", NULL };
	const char *allow = NULL;
	uint64_t v;
	int opt, rc = 0;

	*c = (struct xio_srv_config){ .rootfd = -1, .bind_str = "::", .port = XIO_DEFAULT_UDP_PORT,
				      .mtu = 1500, .threads = xio_srv_threads_default(),
				      .burst = XIO_SRV_BURST_DEFAULT, .cookies = true,
				      .cookie_rotate = XIO_SRV_COOKIE_ROTATE_DEF };
	optind = 1;
	opterr = 0;
	while (rc == 0 && (opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (opt) {
		case O_ROOT: c->root = optarg; break;
		case O_BIND: c->bind_str = optarg; c->bind_given = true; break;
		case O_PORT: if (!(rc = xio_cli_num("port", optarg, 1, 65535, &v))) c->port = (uint16_t)v; break;
		case O_ALLOW: allow = optarg; break;
		case O_MTU: if (!(rc = xio_cli_num("mtu", optarg, 1, XIO_SRV_MTU_MAX, &v))) c->mtu = (uint32_t)v; break;
		case O_RATE: rc = xio_cli_real("rate", optarg, 0, 1000, &c->rate_gbit); break;
		case O_THREADS:
			if (!(rc = xio_cli_num("threads", optarg, 1, XIO_SRV_THREADS_MAX, &v)))
				c->threads = (unsigned)v;
			break;
		case O_BURST:
			if (!(rc = xio_cli_num("burst", optarg, 1, XIO_SRV_BURST_MAX, &v)))
				c->burst = (unsigned)v;
			break;
		case O_FLOW_RATE:
			rc = xio_cli_real("flow-rate", optarg, 0, 1000, &c->flow_rate_gbit);
			break;
		case O_STATS_JSON: c->stats_json = optarg; break;
		case O_STATS_INTERVAL:
			rc = xio_cli_real("stats-interval", optarg, 0, 86400, &c->stats_interval);
			break;
		case O_DURATION: rc = xio_cli_real("duration", optarg, 0, 1e9, &c->duration); break;
		case O_IDLE_EXIT:
			rc = xio_cli_num("idle-exit", optarg, 0, 1000000000, &c->idle_exit_ms);
			break;
		case O_COOKIES:
			if ((rc = xio_cli_enum("cookies", optarg, on_off)) >= 0) {
				c->cookies = rc == 1;
				rc = 0;
			}
			break;
		case O_COOKIE_ROTATE:
			if (!(rc = xio_cli_num("cookie-rotate", optarg, 1, XIO_SRV_COOKIE_ROTATE_MAX, &v)))
				c->cookie_rotate = (unsigned)v;
			break;
		case O_COOKIE_SECRET: c->cookie_secret = optarg; break;
		case O_METRICS:
			c->metrics_str = optarg;
			rc = xio_cli_listen_addr("metrics", optarg, &c->metrics, &c->metrics_len);
			break;
		case O_HELP: return usage();
		case O_VERSION: return xio_cli_version();
		case ':': return xio_cli_usage("option '%s' needs a value", argv[optind - 1]);
		default: return xio_cli_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (rc != 0)
		return rc;
	if (optind < argc)
		return xio_cli_usage("unexpected argument '%s'", argv[optind]);
	if ((rc = open_root(c)) != 0 || (rc = set_bind(c, c->bind_str)) != 0)
		return rc;
	set_port(c);
	if ((rc = check_mtu(c)) != 0 || (rc = build_allow(c, allow)) != 0)
		return rc;
	if (c->stats_json)
		if ((rc = xio_cli_writable("stats-json", c->stats_json)) != 0)
			return rc;
	if ((rc = make_cookie_secret(c)) != 0)
		return rc;
	return XIO_CLI_RUN;
}
