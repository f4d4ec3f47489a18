/* SPDX-License-Identifier: BSD-3-Clause
 * xio_dpdk.h: xio-pipeline on DPDK: EAL start and port check, then one run:
 * mbuf pool, ports, the mode's tasks on worker lcores, the control loop on
 * the main lcore (stop conditions, stats lines), drain and teardown.
 */
#ifndef XIO_DPDK_H
#define XIO_DPDK_H

#include <stddef.h>

#include "xio_config.h"
#include "xio_counters.h"
#include "xio_run.h"

enum xio_dpdk_status {
	XIO_DPDK_FAILED = -1,     /* logged: a configuration or setup error */
	XIO_DPDK_OK = 0,
	XIO_DPDK_UNAVAILABLE = 1, /* no EAL or no port: why says so; XDP may take over */
};

/* Starts the EAL with argv[0..argc) (the arguments before "--") and, unless
 * cfg->list_ports, checks that the ports cfg names exist. */
int xio_dpdk_open(const struct xio_config *cfg, int argc, char **argv, char *why, size_t len);

/* --list-ports, once the EAL is open. */
void xio_dpdk_list_ports(void);

/* Forwards until *stop (XIO_LOAD), --duration or --idle-exit under the run
 * layer, drains and closes the ports. Fills res: the run layer's part, then
 * the driver's own JSON members (mode, stages, lcores, hardware, ports,
 * leaked_mbufs). 0 or -1. */
int xio_dpdk_run(const struct xio_config *cfg, const int *stop, struct xio_run_result *res);

/* Releases the EAL. */
void xio_dpdk_close(void);

#endif /* XIO_DPDK_H */
