/* SPDX-License-Identifier: BSD-3-Clause
 * xio_hwcounters.h: hardware counters of one worker thread through
 * perf_event_open(2): cycles, instructions, cache misses, branch misses.
 * Where the machine has none (VMs often do not), opening fails once, is
 * reported once, and every later call is a cheap no-op.
 */
#ifndef XIO_HWCOUNTERS_H
#define XIO_HWCOUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum xio_hw_event {
	XIO_HW_CYCLES = 0,
	XIO_HW_INSTRUCTIONS,
	XIO_HW_CACHE_MISSES,
	XIO_HW_BRANCH_MISSES,
	XIO_HW_COUNT
};

struct xio_hwcounters {
	int fd[XIO_HW_COUNT]; /* -1: not available */
	bool available;
	uint64_t value[XIO_HW_COUNT];
};

/* Opens the counters for the calling thread (any CPU), disabled. Returns 0,
 * or -1 when the machine does not support them (reason in why). */
int xio_hw_open(struct xio_hwcounters *hw, char *why, size_t why_len);

void xio_hw_start(struct xio_hwcounters *hw);

/* Stops counting and reads the totals into hw->value. */
void xio_hw_stop(struct xio_hwcounters *hw);

void xio_hw_close(struct xio_hwcounters *hw);

const char *xio_hw_event_name(enum xio_hw_event e);

/* Writes the "hardware" JSON member: per event totals, IPC, and per-packet
 * figures for packets (no trailing comma or newline); for an unavailable
 * set, {"available": false, "reason": "..."}. */
void xio_hw_write_json(FILE *out, const struct xio_hwcounters *hw, uint64_t packets,
		       const char *why);

#endif /* XIO_HWCOUNTERS_H */
