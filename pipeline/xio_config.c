/* SPDX-License-Identifier: BSD-3-Clause
 * xio_config.c: xio-pipeline's application options: defaults, getopt_long
 * parsing, --help, and validation. Every bad value is reported as one line
 * naming the option, before the EAL starts or any port is touched.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_cli.h"
#include "xio_config.h"

#define XIO_MAX_PORT_ID    1023   /* RTE_MAX_ETHPORTS in any sane DPDK build */
#define XIO_MIN_RING_SIZE  2u
#define XIO_MAX_RING_SIZE  (1u << 20)
#define XIO_MIN_MBUF_SIZE  128u
#define XIO_MAX_MBUF_SIZE  (65535u - 128u) /* data room + headroom fit uint16 */
#define XIO_MAX_SECONDS    (365.0 * 24 * 3600)

enum {
	OPT_UDP_PORT = 256,
	OPT_OVERFLOW,
	OPT_DROP_INVALID,
	OPT_DRIVER,
	OPT_MODE,
	OPT_RX_PORT,
	OPT_TX_PORT,
	OPT_BIDIRECTIONAL,
	OPT_RXQ,
	OPT_BURST,
	OPT_RING_SIZE,
	OPT_STAGE_LCORES,
	OPT_MBUF_SIZE,
	OPT_IDLE_EXIT,
	OPT_DURATION,
	OPT_STATS_INTERVAL,
	OPT_STATS_JSON,
	OPT_LIST_PORTS,
	OPT_IFACE,
	OPT_EGRESS,
	OPT_XDP_MODE,
	OPT_XDP_ATTACH,
	OPT_METRICS,
	OPT_VERSION,
	OPT_HELP = 'h',
};

static const struct option xio_long_opts[] = {
	{ "udp-port", required_argument, NULL, OPT_UDP_PORT },
	{ "overflow", required_argument, NULL, OPT_OVERFLOW },
	{ "drop-invalid", no_argument, NULL, OPT_DROP_INVALID },
	{ "driver", required_argument, NULL, OPT_DRIVER },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "rx-port", required_argument, NULL, OPT_RX_PORT },
	{ "tx-port", required_argument, NULL, OPT_TX_PORT },
	{ "bidirectional", no_argument, NULL, OPT_BIDIRECTIONAL },
	{ "rxq", required_argument, NULL, OPT_RXQ },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "ring-size", required_argument, NULL, OPT_RING_SIZE },
	{ "stage-lcores", required_argument, NULL, OPT_STAGE_LCORES },
	{ "mbuf-size", required_argument, NULL, OPT_MBUF_SIZE },
	{ "idle-exit", required_argument, NULL, OPT_IDLE_EXIT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
	{ "stats-json", required_argument, NULL, OPT_STATS_JSON },
	{ "list-ports", no_argument, NULL, OPT_LIST_PORTS },
	{ "iface", required_argument, NULL, OPT_IFACE },
	{ "egress", required_argument, NULL, OPT_EGRESS },
	{ "xdp-mode", required_argument, NULL, OPT_XDP_MODE },
	{ "xdp-attach", required_argument, NULL, OPT_XDP_ATTACH },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

void xio_config_default(struct xio_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	xio_stage_cfg_default(&cfg->stage);
	cfg->driver = XIO_DRIVER_AUTO;
	cfg->mode = XIO_MODE_RTC;
	cfg->rxq = 1;
	cfg->burst = XIO_DEFAULT_BURST;
	cfg->ring_size = XIO_DEFAULT_RING_SIZE;
	cfg->xdp_mode = XIO_XDP_MODE_AUTO;
	cfg->xdp_attach = XIO_XDP_ATTACH_NATIVE;
}

void xio_config_usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "  or:  %s [options]            (no EAL options: EAL defaults, or the XDP driver)\n"
	       "\n"
	       "Narrows XIO v1 INT32 READ_REPLY payloads to UINT16 in place and forwards\n"
	       "every frame (spec: docs/framing.md).\n"
	       "\n"
	       "XIO:\n"
	       "  --udp-port P          XIO UDP port, destination or source (default %u)\n"
	       "  --overflow POLICY     out-of-range tokens: keep|saturate|drop (default keep)\n"
	       "  --drop-invalid        drop invalid XIO frames instead of forwarding them\n"
	       "  --bidirectional       forward both ways between the two ports (DPDK\n"
	       "                        --rx-port A --tx-port B) or interfaces (XDP --iface A\n"
	       "                        --egress B): B -> A as well as A -> B\n"
	       "Driver:\n"
	       "  --driver D            auto|dpdk|xdp (default auto: DPDK if the EAL starts\n"
	       "                        and has a usable port, else XDP on --iface)\n"
	       "DPDK:\n"
	       "  --mode M              rtc (run to completion) | pipeline (rx, work, tx\n"
	       "                        stages over SP/SC rings) (default rtc)\n"
	       "  --rx-port N           RX port id (default 0)\n"
	       "  --tx-port N           TX port id (default: the RX port)\n"
	       "  --rxq N               RX queues, one pipeline each, 1..%u (default 1)\n"
	       "  --burst N             burst size, 1..%u (default %u)\n"
	       "  --ring-size N         ring size, a power of two (default %u)\n"
	       "  --stage-lcores LIST   pipeline mode: lcore of each stage, rx,work,tx per\n"
	       "                        queue (e.g. 1,2,1); stages may share an lcore; with\n"
	       "                        --bidirectional the same for B -> A, or a list as long\n"
	       "                        again for B -> A\n"
	       "  --mbuf-size N         mbuf data room in bytes, %u..%u (default: DPDK's\n"
	       "                        2048; smaller than a frame gives chained mbufs)\n"
	       "  --list-ports          list DPDK ports and RDMA (mlx5) devices, then exit\n"
	       "XDP:\n"
	       "  --iface IF            ingress interface (XDP driver, or auto fallback)\n"
	       "  --egress IF           egress interface (default: --iface, with XDP_TX)\n"
	       "  --xdp-mode M          kernel|afxdp (default: the faster that fits)\n"
	       "  --xdp-attach A        native|generic (default native)\n"
	       "Run control and stats:\n"
	       "  --idle-exit MS        stop when no packet arrived for MS ms\n"
	       "  --duration S          stop after S seconds\n"
	       "  --stats-interval S    print a stats line every S seconds\n"
	       "  --stats-json FILE     write the counters as JSON at exit\n"
	       "  --metrics ADDR:PORT   serve the counters to Prometheus at\n"
	       "                        http://ADDR:PORT/metrics (127.0.0.1:9102, [::1]:9102)\n"
	       "  -h, --help            this text\n"
	       "  --version             print the version\n"
	       "\n"
	       "Examples:\n"
	       "  %s --no-huge --no-shconf --no-pci --lcores '0@0,1@1' \\\n"
	       "      --vdev net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap -- --idle-exit 500\n"
	       "  %s -- --driver xdp --iface eth1 --egress eth2\n",
	       prog, prog, XIO_DEFAULT_UDP_PORT, XIO_MAX_QUEUES, XIO_MAX_BURST, XIO_DEFAULT_BURST,
	       XIO_DEFAULT_RING_SIZE, XIO_MIN_MBUF_SIZE, XIO_MAX_MBUF_SIZE, prog, prog);
}

/* "xio-pipeline: --opt: MESSAGE (try --help)"; returns XIO_CLI_USAGE. */
static int xio_opt_error(const char *opt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int xio_opt_error(const char *opt, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return xio_cli_usage("--%s: %s", opt, msg);
}

/* A number of seconds in min..XIO_MAX_SECONDS. */
static int xio_parse_seconds(const char *opt, const char *s, double min, double *out)
{
	return xio_cli_real(opt, s, min, XIO_MAX_SECONDS, out);
}

static int xio_parse_iface(const char *opt, const char *s)
{
	if (*s == '\0' || strlen(s) >= IF_NAMESIZE)
		return xio_opt_error(opt, "'%s' is not an interface name", s);
	if (if_nametoindex(s) == 0)
		return xio_opt_error(opt, "no interface '%s' here: %s", s, strerror(errno));
	return 0;
}

/* --stage-lcores: comma-separated lcore ids, parsed once here; the count
 * is checked against --rxq once every option is read. */
static int xio_parse_stage_lcores(const char *opt, const char *s, struct xio_config *cfg)
{
	const char *p = s;

	cfg->n_stage_lcores = 0;
	for (;;) {
		char *end;
		unsigned long v;

		if (*p < '0' || *p > '9')
			return xio_opt_error(opt, "'%s' is not a comma-separated list of lcore ids", s);
		v = strtoul(p, &end, 10);
		if (v >= 1024)
			return xio_opt_error(opt, "lcore id %lu is out of range 0..1023", v);
		if (cfg->n_stage_lcores == XIO_STAGE_LCORES_MAX)
			return xio_opt_error(opt, "%u lcores at most", XIO_STAGE_LCORES_MAX);
		cfg->stage_lcores[cfg->n_stage_lcores++] = (uint16_t)v;
		if (*end == '\0')
			break;
		if (*end != ',')
			return xio_opt_error(opt, "'%s' is not a comma-separated list of lcore ids", s);
		p = end + 1;
	}
	return 0;
}

/* --bidirectional needs two ends; with --driver auto the driver that runs
 * checks its own (xio_dpdk.c, xio_xdp.c). */
static int xio_config_validate_bidir(const struct xio_config *cfg)
{
	if (!cfg->bidirectional)
		return 0;
	if (cfg->driver == XIO_DRIVER_DPDK && cfg->tx_port == cfg->rx_port)
		return xio_opt_error("bidirectional", "needs two ports: --rx-port A --tx-port B");
	if (cfg->driver == XIO_DRIVER_XDP &&
	    (cfg->egress == NULL || strcmp(cfg->egress, cfg->iface) == 0))
		return xio_opt_error("bidirectional",
				     "needs two interfaces: --iface A --egress B");
	return 0;
}

/* Checks the options against each other once all are read. */
static int xio_config_validate(const struct xio_config *cfg, const char *iface_opt)
{
	unsigned n;

	if (cfg->driver == XIO_DRIVER_XDP && cfg->iface == NULL)
		return xio_opt_error("driver", "xdp needs --iface IF");
	if (cfg->driver == XIO_DRIVER_DPDK && cfg->iface != NULL)
		return xio_opt_error("iface", "is for the XDP driver, not with --driver dpdk");
	if (iface_opt != NULL && cfg->iface == NULL)
		return xio_opt_error(iface_opt, "needs --iface IF (XDP driver)");
	if (cfg->list_ports && cfg->driver == XIO_DRIVER_XDP)
		return xio_opt_error("list-ports", "lists DPDK ports: not with --driver xdp");
	if (cfg->n_stage_lcores != 0) {
		if (cfg->mode != XIO_MODE_PIPELINE)
			return xio_opt_error("stage-lcores", "needs --mode pipeline");
		n = cfg->n_stage_lcores;
		if (n != 3u * cfg->rxq && !(cfg->bidirectional && n == 6u * cfg->rxq))
			return xio_opt_error("stage-lcores",
					     "%u lcores given, %u needed (rx,work,tx for each of --rxq %u%s)",
					     n, 3u * cfg->rxq, cfg->rxq,
					     cfg->bidirectional ? "; or twice that: B -> A apart" : "");
	}
	return xio_config_validate_bidir(cfg);
}

static const char *const xio_driver_names[] = { "auto", "dpdk", "xdp", NULL };
static const char *const xio_mode_names[] = { "rtc", "pipeline", NULL };
static const char *const xio_xdp_mode_names[] = { "auto", "kernel", "afxdp", NULL };
static const char *const xio_xdp_attach_names[] = { "native", "generic", NULL };

/* Applies one option; 0 or -1. */
static int xio_config_apply(struct xio_config *cfg, int opt, const char *name, const char *arg)
{
	uint64_t v;
	int e;

	switch (opt) {
	case OPT_UDP_PORT:
		if (xio_cli_num(name, arg, 1, 65535, &v) < 0)
			return XIO_CLI_USAGE;
		cfg->stage.udp_port = (uint16_t)v;
		return 0;
	case OPT_OVERFLOW:
		if (xio_overflow_parse(arg, &cfg->stage.overflow) < 0)
			return xio_cli_usage("--%s '%s': expected keep|saturate|drop", name, arg);
		return 0;
	case OPT_DROP_INVALID:
		cfg->stage.drop_invalid = true;
		return 0;
	case OPT_DRIVER:
		if ((e = xio_cli_enum(name, arg, xio_driver_names)) < 0)
			return -1;
		cfg->driver = (enum xio_driver)e;
		return 0;
	case OPT_MODE:
		if ((e = xio_cli_enum(name, arg, xio_mode_names)) < 0)
			return -1;
		cfg->mode = (enum xio_mode)e;
		return 0;
	case OPT_RX_PORT:
		if (xio_cli_num(name, arg, 0, XIO_MAX_PORT_ID, &v) < 0)
			return XIO_CLI_USAGE;
		cfg->rx_port = (uint16_t)v;
		return 0;
	case OPT_TX_PORT:
		if (xio_cli_num(name, arg, 0, XIO_MAX_PORT_ID, &v) < 0)
			return XIO_CLI_USAGE;
		cfg->tx_port = (uint16_t)v;
		cfg->tx_port_set = true;
		return 0;
	case OPT_BIDIRECTIONAL:
		cfg->bidirectional = true;
		return 0;
	case OPT_RXQ:
		if (xio_cli_num(name, arg, 1, XIO_MAX_QUEUES, &v) < 0)
			return XIO_CLI_USAGE;
		cfg->rxq = (uint16_t)v;
		return 0;
	case OPT_BURST:
		if (xio_cli_num(name, arg, 1, XIO_MAX_BURST, &v) < 0)
			return XIO_CLI_USAGE;
		cfg->burst = (uint16_t)v;
		return 0;
	case OPT_RING_SIZE:
		if (xio_cli_num(name, arg, XIO_MIN_RING_SIZE, XIO_MAX_RING_SIZE, &v) < 0)
			return XIO_CLI_USAGE;
		if (v & (v - 1))
			return xio_opt_error(name, "%llu is not a power of two", (unsigned long long)v);
		cfg->ring_size = (uint32_t)v;
		return 0;
	case OPT_STAGE_LCORES:
		return xio_parse_stage_lcores(name, arg, cfg);
	case OPT_MBUF_SIZE:
		if (xio_cli_num(name, arg, XIO_MIN_MBUF_SIZE, XIO_MAX_MBUF_SIZE, &v) < 0)
			return XIO_CLI_USAGE;
		cfg->mbuf_size = (uint32_t)v;
		return 0;
	case OPT_IDLE_EXIT:
		if (xio_cli_num(name, arg, 1, UINT32_MAX, &v) < 0)
			return XIO_CLI_USAGE;
		cfg->idle_exit_ms = (uint32_t)v;
		return 0;
	case OPT_DURATION:
		if (xio_parse_seconds(name, arg, 0.001, &cfg->duration_s) < 0)
			return -1;
		return 0;
	case OPT_STATS_INTERVAL:
		if (xio_parse_seconds(name, arg, 0.01, &cfg->stats_interval_s) < 0)
			return -1;
		return 0;
	case OPT_STATS_JSON:
		if (xio_cli_writable(name, arg) < 0)
			return XIO_CLI_USAGE;
		cfg->stats_json = arg;
		return 0;
	case OPT_LIST_PORTS:
		cfg->list_ports = true;
		return 0;
	case OPT_IFACE:
		if (xio_parse_iface(name, arg) < 0)
			return -1;
		cfg->iface = arg;
		return 0;
	case OPT_EGRESS:
		if (xio_parse_iface(name, arg) < 0)
			return -1;
		cfg->egress = arg;
		return 0;
	case OPT_XDP_MODE:
		if ((e = xio_cli_enum(name, arg, xio_xdp_mode_names)) < 0)
			return -1;
		cfg->xdp_mode = (enum xio_xdp_mode)e;
		return 0;
	case OPT_METRICS:
		cfg->metrics_str = arg;
		return xio_cli_listen_addr(name, arg, &cfg->metrics, &cfg->metrics_len);
	case OPT_XDP_ATTACH:
		if ((e = xio_cli_enum(name, arg, xio_xdp_attach_names)) < 0)
			return -1;
		cfg->xdp_attach = (enum xio_xdp_attach)e;
		return 0;
	}
	return -1;
}

static const char *xio_opt_name(int opt)
{
	for (const struct option *o = xio_long_opts; o->name != NULL; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

int xio_config_parse(struct xio_config *cfg, int argc, char **argv)
{
	const char *iface_opt = NULL;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", xio_long_opts, NULL)) != -1) {
		if (opt == OPT_HELP) {
			xio_config_usage(argv[0]);
			return XIO_CLI_DONE;
		}
		if (opt == OPT_VERSION)
			return xio_cli_version();
		if (opt == ':')
			return xio_cli_usage("option '%s' needs a value", argv[optind - 1]);
		if (opt == '?')
			return xio_cli_usage("unknown option '%s'", argv[optind - 1]);
		if (xio_config_apply(cfg, opt, xio_opt_name(opt), optarg) < 0)
			return XIO_CLI_USAGE;
		if (opt == OPT_EGRESS || opt == OPT_XDP_MODE || opt == OPT_XDP_ATTACH)
			iface_opt = xio_opt_name(opt);
	}
	if (optind < argc)
		return xio_cli_usage("unexpected argument '%s'", argv[optind]);
	if (!cfg->tx_port_set)
		cfg->tx_port = cfg->rx_port;
	return xio_config_validate(cfg, iface_opt);
}
