/* SPDX-License-Identifier: BSD-3-Clause
 * xio_hwcounters.h: hardware counters of one worker thread through
 * perf_event_open(2): cycles, instructions, cache misses, branch misses.
 * Where the machine has none (VMs often do not), opening fails, says why,
 * and every later call is a cheap no-op. Opened on the worker's own thread
 * before its loop and read after it: nothing on the data path.
 */
#ifndef XIO_HWCOUNTERS_H
#define XIO_HWCOUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xio_json.h"

enum xio_hw_event {
	XIO_HW_CYCLES = 0,
	XIO_HW_INSTRUCTIONS,
	XIO_HW_CACHE_MISSES,
	XIO_HW_BRANCH_MISSES,
	XIO_HW_COUNT
};

struct xio_hwcounters {
	int fd[XIO_HW_COUNT]; /* -1: closed */
	bool available;       /* opened: value[] holds counts once stopped */
	uint64_t value[XIO_HW_COUNT];
};

/* Opens the counters for the calling thread (any CPU), disabled. Returns 0,
 * or -1 when the machine does not support them (reason in why). */
int xio_hw_open(struct xio_hwcounters *hw, char *why, size_t why_len);

void xio_hw_start(struct xio_hwcounters *hw);

/* Stops counting and reads the totals into hw->value. */
void xio_hw_stop(struct xio_hwcounters *hw);

/* Closes the descriptors; available and value[] stay for the report. */
void xio_hw_close(struct xio_hwcounters *hw);

/* The counts of an available set as members of the open JSON object:
 * every event's total, "ipc", and "<event>_per_packet" over packets, e.g.
 * "cycles": 10, ..., "ipc": 1.500, "cycles_per_packet": 2.50. */
void xio_hw_json(struct xio_json *j, const struct xio_hwcounters *hw, uint64_t packets);

#endif /* XIO_HWCOUNTERS_H */
