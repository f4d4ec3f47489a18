/* SPDX-License-Identifier: BSD-3-Clause
 * xio_log.h: xio-pipeline's log lines. In a DPDK build they go through
 * RTE_LOG with the USER1 log type, shown as "XIO: ..."; in a build without
 * DPDK, to stderr in the same shape.
 */
#ifndef XIO_LOG_H
#define XIO_LOG_H

#ifdef XIO_HAVE_DPDK
#include <rte_log.h>

#define RTE_LOGTYPE_XIO RTE_LOGTYPE_USER1
#define XIO_LOG(level, fmt, ...) RTE_LOG(level, XIO, fmt "\n", ##__VA_ARGS__)
#else
#include <stdio.h>

#define XIO_LOG(level, fmt, ...) fprintf(stderr, "XIO: " fmt "\n", ##__VA_ARGS__)
#endif

#endif /* XIO_LOG_H */
