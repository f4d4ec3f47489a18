/* SPDX-License-Identifier: BSD-3-Clause
 * xio_hwcounters.c: perf_event_open(2) counters for a worker thread. Opened
 * before the worker loop and read after it: nothing on the data path.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xio_hwcounters.h"

static const struct {
	const char *name;
	uint64_t config;
} events[XIO_HW_COUNT] = {
	[XIO_HW_CYCLES] = { "cycles", PERF_COUNT_HW_CPU_CYCLES },
	[XIO_HW_INSTRUCTIONS] = { "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	[XIO_HW_CACHE_MISSES] = { "cache_misses", PERF_COUNT_HW_CACHE_MISSES },
	[XIO_HW_BRANCH_MISSES] = { "branch_misses", PERF_COUNT_HW_BRANCH_MISSES },
};

static int open_event(uint64_t config)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

int xio_hw_open(struct xio_hwcounters *hw, char *why, size_t why_len)
{
	unsigned e;

	memset(hw, 0, sizeof(*hw));
	for (e = 0; e < XIO_HW_COUNT; e++)
		hw->fd[e] = -1;
	for (e = 0; e < XIO_HW_COUNT; e++) {
		hw->fd[e] = open_event(events[e].config);
		if (hw->fd[e] < 0) {
			snprintf(why, why_len, "perf_event_open(%s): %s", events[e].name,
				 strerror(errno));
			xio_hw_close(hw);
			hw->available = false;
			return -1;
		}
	}
	hw->available = true;
	return 0;
}

void xio_hw_start(struct xio_hwcounters *hw)
{
	unsigned e;

	if (!hw->available)
		return;
	for (e = 0; e < XIO_HW_COUNT; e++) {
		ioctl(hw->fd[e], PERF_EVENT_IOC_RESET, 0);
		ioctl(hw->fd[e], PERF_EVENT_IOC_ENABLE, 0);
	}
}

void xio_hw_stop(struct xio_hwcounters *hw)
{
	unsigned e;

	if (!hw->available)
		return;
	for (e = 0; e < XIO_HW_COUNT; e++) {
		uint64_t v = 0;

		ioctl(hw->fd[e], PERF_EVENT_IOC_DISABLE, 0);
		if (read(hw->fd[e], &v, sizeof(v)) == (ssize_t)sizeof(v))
			hw->value[e] = v;
	}
}

void xio_hw_close(struct xio_hwcounters *hw)
{
	unsigned e;

	for (e = 0; e < XIO_HW_COUNT; e++) {
		if (hw->fd[e] >= 0)
			close(hw->fd[e]);
		hw->fd[e] = -1;
	}
}

static double xio_hw_ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

void xio_hw_json(struct xio_json *j, const struct xio_hwcounters *hw, uint64_t packets)
{
	char key[64];
	unsigned e;

	for (e = 0; e < XIO_HW_COUNT; e++)
		xio_json_u64(j, events[e].name, hw->value[e]);
	xio_json_double(j, "ipc",
			xio_hw_ratio(hw->value[XIO_HW_INSTRUCTIONS], hw->value[XIO_HW_CYCLES]), 3);
	for (e = 0; e < XIO_HW_COUNT; e++) {
		snprintf(key, sizeof(key), "%s_per_packet", events[e].name);
		xio_json_double(j, key, xio_hw_ratio(hw->value[e], packets), 2);
	}
}
