/* SPDX-License-Identifier: BSD-3-Clause
 * xio_xdp.h: the eBPF/XDP driver's entry point, xio-pipeline's path where
 * DPDK cannot run: attaches the XDP program to cfg->iface, runs the kernel or
 * AF_XDP mode until idle-exit/duration/signal, and fills the counters.
 */
#ifndef XIO_XDP_H
#define XIO_XDP_H

#include "xio_config.h"
#include "xio_counters.h"
#include "xio_run.h"

/* Runs the XDP path under the run layer. Returns 0 with res filled, or -1
 * after logging why. The driver's own JSON members: the mode, and the
 * frames the kernel could not hand to AF_XDP, which never reach the
 * counters. Stops when *stop becomes non-zero (signal handler, XIO_LOAD),
 * or on cfg->idle_exit_ms / cfg->duration_s. */
int xio_xdp_run(const struct xio_config *cfg, const int *stop, struct xio_run_result *res);

#endif /* XIO_XDP_H */
