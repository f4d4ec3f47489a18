/* SPDX-License-Identifier: BSD-3-Clause
 * xio_config.h: xio-pipeline's application options (what follows "--" after
 * the EAL arguments), their defaults and their parsing. Plain C: the DPDK
 * and XDP drivers both read this structure.
 */
#ifndef XIO_CONFIG_H
#define XIO_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "xio_stage.h"

enum xio_driver { XIO_DRIVER_AUTO = 0, XIO_DRIVER_DPDK, XIO_DRIVER_XDP };
enum xio_mode { XIO_MODE_RTC = 0, XIO_MODE_PIPELINE };
enum xio_xdp_mode { XIO_XDP_MODE_AUTO = 0, XIO_XDP_MODE_KERNEL, XIO_XDP_MODE_AFXDP };
enum xio_xdp_attach { XIO_XDP_ATTACH_NATIVE = 0, XIO_XDP_ATTACH_GENERIC };

#define XIO_DEFAULT_BURST     32
#define XIO_MAX_BURST         512
#define XIO_DEFAULT_RING_SIZE 1024
#define XIO_MAX_QUEUES        16
#define XIO_MAX_DIRS          2   /* a_to_b, and b_to_a with --bidirectional */
#define XIO_STAGE_LCORES_MAX  (6 * XIO_MAX_QUEUES) /* rx,work,tx per queue, both ways */

struct xio_config {
	struct xio_stage_cfg stage; /* --udp-port --overflow --drop-invalid */

	enum xio_driver driver;     /* --driver auto|dpdk|xdp */
	enum xio_mode mode;         /* --mode rtc|pipeline */
	uint16_t rx_port;           /* --rx-port N */
	uint16_t tx_port;           /* --tx-port N (default: rx_port) */
	bool tx_port_set;
	bool bidirectional;         /* --bidirectional: B -> A as well as A -> B */
	uint16_t rxq;               /* --rxq N */
	uint16_t burst;             /* --burst N, 1..512 */
	uint32_t ring_size;         /* --ring-size N, power of two */
	uint16_t stage_lcores[XIO_STAGE_LCORES_MAX]; /* --stage-lcores rx,work,tx,... */
	unsigned n_stage_lcores;    /* 0: round-robin over the workers */

	uint32_t idle_exit_ms;      /* --idle-exit MS (0: off) */
	double duration_s;          /* --duration S (0: off) */
	double stats_interval_s;    /* --stats-interval S (0: off) */
	const char *stats_json;     /* --stats-json FILE */
	bool list_ports;            /* --list-ports */
	const char *metrics_str;    /* --metrics ADDR:PORT (NULL: none) */
	struct sockaddr_storage metrics;
	socklen_t metrics_len;

	const char *iface;          /* --iface IF (XDP ingress) */
	const char *egress;         /* --egress IF (default: iface) */
	enum xio_xdp_mode xdp_mode; /* --xdp-mode kernel|afxdp */
	enum xio_xdp_attach xdp_attach; /* --xdp-attach native|generic */

	uint32_t mbuf_size;         /* --mbuf-size N: mbuf data room (0: default) */
};

void xio_config_default(struct xio_config *cfg);

/* Parses the application options argv[0..argc) (argv[0] is the program
 * name). Returns XIO_CLI_RUN; XIO_CLI_DONE when --help or --version was
 * printed; XIO_CLI_USAGE after printing one line naming the bad option
 * (common/xio_cli.h: the exit code). */
int xio_config_parse(struct xio_config *cfg, int argc, char **argv);

void xio_config_usage(const char *prog);

#endif /* XIO_CONFIG_H */
