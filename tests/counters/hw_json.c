/* SPDX-License-Identifier: BSD-3-Clause
 * hw_json.c: pipeline/xio_hwcounters.c without a worker: the JSON members
 * of an available set (machines with a PMU; this path cannot run on a VM
 * without one), and opening on this machine: counts, or a reason. Exit 0
 * when all holds.
 */
#include <stdio.h>
#include <string.h>

#include "xio_hwcounters.h"

static int fails;

static void expect(int ok, const char *what, const char *got)
{
	if (!ok) {
		fails++;
		printf("FAIL: %s: %s\n", what, got);
	}
}

/* The members inside an object of their own, as the stats JSON nests them. */
static void hw_text(struct xio_json *j, const struct xio_hwcounters *hw, uint64_t packets)
{
	xio_json_init(j);
	xio_json_begin_array(j, NULL);
	xio_json_begin_array(j, NULL);
	xio_json_begin_object(j, NULL);
	xio_hw_json(j, hw, packets);
	xio_json_end_object(j);
	xio_json_end_array(j);
	xio_json_end_array(j);
}

static void test_format(void)
{
	struct xio_hwcounters hw = { .available = true,
				     .value = { 3000, 4500, 30, 15 } };
	static const char want[] =
		"[\n  [\n    {\"cycles\": 3000, \"instructions\": 4500, \"cache_misses\": 30, "
		"\"branch_misses\": 15, \"ipc\": 1.500, \"cycles_per_packet\": 300.00, "
		"\"instructions_per_packet\": 450.00, \"cache_misses_per_packet\": 3.00, "
		"\"branch_misses_per_packet\": 1.50}\n  ]\n]\n";
	struct xio_json j;

	hw_text(&j, &hw, 10);
	expect(strcmp(xio_json_text(&j), want) == 0 && xio_json_check(&j) == 0, "format",
	       xio_json_text(&j));
	xio_json_free(&j);
	hw_text(&j, &hw, 0);
	expect(strstr(xio_json_text(&j), "\"cycles_per_packet\": 0.00") != NULL, "no packets",
	       xio_json_text(&j));
	xio_json_free(&j);
	hw.value[0] = 0;
	hw_text(&j, &hw, 10);
	expect(strstr(xio_json_text(&j), "\"ipc\": 0.000") != NULL, "no cycles", xio_json_text(&j));
	xio_json_free(&j);
}

/* Here: the counters open, count this loop and close; or they do not and
 * say why. */
static void test_open(void)
{
	struct xio_hwcounters hw;
	char why[128] = "";
	volatile unsigned x = 0;

	if (xio_hw_open(&hw, why, sizeof(why)) != 0) {
		expect(!hw.available && strncmp(why, "perf_event_open(cycles): ", 25) == 0,
		       "reason", why);
		xio_hw_start(&hw);
		xio_hw_stop(&hw);
		xio_hw_close(&hw);
		printf("hardware counters: unavailable (%s)\n", why);
		return;
	}
	xio_hw_start(&hw);
	for (unsigned i = 0; i < 1000000; i++)
		x += i;
	xio_hw_stop(&hw);
	xio_hw_close(&hw);
	expect(hw.available && hw.value[XIO_HW_CYCLES] > 0 &&
	       hw.value[XIO_HW_INSTRUCTIONS] > 1000000, "counts", "cycles or instructions 0");
	printf("hardware counters: %llu cycles, %llu instructions\n",
	       (unsigned long long)hw.value[XIO_HW_CYCLES],
	       (unsigned long long)hw.value[XIO_HW_INSTRUCTIONS]);
}

int main(void)
{
	test_format();
	test_open();
	printf("hw-json: %s\n", fails ? "FAILED" : "ok");
	return fails != 0;
}
