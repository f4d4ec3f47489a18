/* SPDX-License-Identifier: BSD-3-Clause
 * xio-pipeline: receives storage reply frames, narrows XIO INT32 token
 * payloads to UINT16 in place and forwards every frame, on DPDK or, where
 * DPDK cannot run, on XDP.
 *
 *   xio-pipeline [EAL options] -- [options]
 *   xio-pipeline [options]          (EAL defaults; or --driver xdp)
 *
 * Options are read and checked first; then the driver runs until a signal,
 * --duration or --idle-exit; then the summary line, and the stats JSON is
 * written. Exit status: 0, 1 when the run fails, 2 for a bad command line.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_cli.h"
#include "xio_config.h"
#include "xio_counters.h"
#include "xio_httpd.h"
#include "xio_log.h"
#include "xio_run.h"
#include "xio_stats.h"
#ifdef XIO_HAVE_DPDK
#include "dpdk/xio_dpdk.h"
#endif
#ifdef XIO_HAVE_XDP
#include "xdp/xio_xdp.h"
#endif

static int xio_stop; /* XIO_STORE from the handler, XIO_LOAD in the run layer */

static void xio_on_signal(int sig)
{
	(void)sig;
	XIO_STORE(xio_stop, 1);
}

static void xio_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = xio_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* The arguments before "--" are the EAL's, the ones after are ours; with no
 * "--", all are ours and the EAL gets only the program name. */
struct xio_args {
	int eal_argc;
	char **eal_argv;
	int app_argc;
	char **app_argv;
};

static int xio_split_args(int argc, char **argv, struct xio_args *a)
{
	int sep = 0;

	for (int i = 1; i < argc && sep == 0; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	a->eal_argc = sep ? sep : 1;
	a->eal_argv = calloc((size_t)a->eal_argc + 1, sizeof(char *));
	a->app_argc = sep ? argc - sep : argc;
	a->app_argv = calloc((size_t)a->app_argc + 1, sizeof(char *));
	if (a->eal_argv == NULL || a->app_argv == NULL)
		return -1;
	memcpy(a->eal_argv, argv, (size_t)a->eal_argc * sizeof(char *));
	a->app_argv[0] = argv[0];
	memcpy(a->app_argv + 1, argv + (sep ? sep + 1 : 1), (size_t)(a->app_argc - 1) * sizeof(char *));
	return 0;
}

static int xio_run_xdp(const struct xio_config *cfg, struct xio_run_result *o)
{
#ifdef XIO_HAVE_XDP
	XIO_LOG(INFO, "XDP driver on %s%s%s", cfg->iface,
		cfg->egress ? (cfg->bidirectional ? " <-> " : " -> ") : "",
		cfg->egress ? cfg->egress : "");
	return xio_xdp_run(cfg, &xio_stop, o);
#else
	(void)o;
	XIO_LOG(ERR, "this xio-pipeline was built without the XDP driver (drivers/xdp): "
		"cannot run on %s", cfg->iface);
	return -1;
#endif
}

#ifdef XIO_HAVE_DPDK
/* DPDK, or the XDP fallback when allowed. */
static int xio_run_dpdk(const struct xio_config *cfg, const struct xio_args *a,
			struct xio_run_result *o)
{
	char why[256];
	int rc = xio_dpdk_open(cfg, a->eal_argc, a->eal_argv, why, sizeof(why));

	if (rc == XIO_DPDK_UNAVAILABLE) {
		if (cfg->driver == XIO_DRIVER_AUTO && cfg->iface != NULL && !cfg->list_ports) {
			XIO_LOG(NOTICE, "%s: falling back to XDP on %s", why, cfg->iface);
			return xio_run_xdp(cfg, o);
		}
		XIO_LOG(ERR, "%s. For DPDK: hugepages (or --no-huge -m 512), and a port: "
			"-a PCI[,devargs] (mlx5 on a BlueField: see --list-ports) or --vdev "
			"net_pcap0,rx_pcap=IN,tx_pcap=OUT. Without DPDK: -- --driver xdp --iface IF",
			why);
		return -1;
	}
	if (rc != XIO_DPDK_OK)
		return -1;
	if (cfg->list_ports) {
		xio_dpdk_list_ports();
		xio_dpdk_close();
		return 0;
	}
	rc = xio_dpdk_run(cfg, &xio_stop, o);
	xio_dpdk_close();
	return rc;
}
#else
static int xio_run_dpdk(const struct xio_config *cfg, const struct xio_args *a,
			struct xio_run_result *o)
{
	if (cfg->driver == XIO_DRIVER_DPDK || cfg->list_ports || cfg->iface == NULL) {
		XIO_LOG(ERR, "this xio-pipeline was built without DPDK: use --driver xdp --iface IF "
			"(or install libdpdk-dev and rebuild)");
		return -1;
	}
	if (a->eal_argc > 1)
		XIO_LOG(NOTICE, "built without DPDK: ignoring the EAL arguments before '--'");
	XIO_LOG(NOTICE, "built without DPDK: falling back to XDP on %s", cfg->iface);
	return xio_run_xdp(cfg, o);
}
#endif

/* The end of a run: the summary line, the stats JSON and where it is. */
static int xio_report(const struct xio_config *cfg, struct xio_run_result *o)
{
	xio_stats_summary(stdout, &o->total, o->elapsed_s);
	if (cfg->stats_json == NULL)
		return XIO_EXIT_OK;
	xio_json_end_object(&o->json);
	if (xio_json_save(&o->json, cfg->stats_json) < 0) {
		xio_cli_error("--stats-json: cannot write '%s': %s", cfg->stats_json, strerror(errno));
		return XIO_EXIT_FAIL;
	}
	printf("xio: stats JSON in %s\n", cfg->stats_json);
	return XIO_EXIT_OK;
}

/* Reads the options, runs the driver they name, reports; the exit status. */
static int xio_main(const struct xio_args *a)
{
	static struct xio_run_result o;
	struct xio_httpd *metrics = NULL;
	struct xio_config cfg;
	char why[256];
	int rc;

	xio_cli_init(a->app_argv[0]);
	xio_config_default(&cfg);
	rc = xio_config_parse(&cfg, a->app_argc, a->app_argv);
	if (rc != XIO_CLI_RUN)
		return xio_cli_exit_code(rc);
	if (cfg.metrics_str != NULL &&
	    !(metrics = xio_httpd_start(&cfg.metrics, cfg.metrics_len, xio_run_metrics, NULL, why,
					sizeof(why)))) {
		xio_cli_error("--metrics %s: %s", cfg.metrics_str, why);
		return XIO_EXIT_FAIL;
	}
	xio_signals();
	xio_run_result_init(&o);
	if (cfg.driver == XIO_DRIVER_XDP)
		rc = xio_run_xdp(&cfg, &o);
	else
		rc = xio_run_dpdk(&cfg, a, &o);
	if (rc < 0)
		rc = XIO_EXIT_FAIL;
	else if (cfg.list_ports)
		rc = XIO_EXIT_OK;
	else
		rc = xio_report(&cfg, &o);
	xio_httpd_stop(metrics);
	xio_run_result_free(&o);
	return rc;
}

int main(int argc, char **argv)
{
	struct xio_args a;
	int rc = 1;

	if (xio_split_args(argc, argv, &a) == 0)
		rc = xio_main(&a);
	else
		fprintf(stderr, "xio-pipeline: out of memory\n");
	free(a.eal_argv);
	free(a.app_argv);
	return rc;
}
