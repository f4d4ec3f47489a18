/* SPDX-License-Identifier: BSD-3-Clause
 * xio_telemetry.h: xio-pipeline's DPDK telemetry commands, readable while
 * it runs (dpdk-telemetry.py -f PREFIX, or any client of the
 * dpdk_telemetry.v2 socket):
 *
 *   /xio/stats            the run's counters (those of the stats JSON)
 *   /xio/reasons          frames per reason; /xio/reasons,dropped: drops
 *   /xio/stages           every task's counters, by name (q0_rx, q0_work)
 *   /xio/stages,NAME      one task in full: histogram, rings, drops
 *   /xio/lcores           busy and run cycles per worker lcore
 *   /xio/ports            the ethdev counters of the run's ports (by id)
 *
 * Keys are snake_case (DPDK 22.11 drops other keys). Values are read from
 * the workers' counters with relaxed loads, no lock on the data path; a
 * command answers null when no run is attached.
 */
#ifndef XIO_TELEMETRY_H
#define XIO_TELEMETRY_H

#include "xio_worker.h"

/* Registers the commands, once per process, after rte_eal_init. */
void xio_telemetry_register(void);

/* Makes the commands read dp (NULL: no run, before dp is freed). */
void xio_telemetry_attach(const struct xio_dp *dp);

#endif /* XIO_TELEMETRY_H */
