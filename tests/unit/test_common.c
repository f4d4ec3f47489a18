/* SPDX-License-Identifier: BSD-3-Clause
 * test_common.c: common/'s JSON writer and counter tables, byte for byte:
 * nesting and layout, escaping, numbers, misuse detected, the atomic save;
 * a table's sums, JSON members, stats-line totals and Prometheus text
 * (labels, sets, # HELP and # TYPE).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xio_json.h"
#include "xio_metrics.h"
#include "xio_unit.h"

static void check_text(const struct xio_json *j, const char *want)
{
	XIO_CHECK(strcmp(xio_json_text(j), want) == 0, "got\n%s\nwant\n%s", xio_json_text(j), want);
}

static void test_layout(void)
{
	struct xio_json j;

	xio_json_init(&j);
	xio_json_begin_object(&j, NULL);
	xio_json_u64(&j, "a", 18446744073709551615ull);
	xio_json_i64(&j, "b", -3);
	xio_json_begin_array(&j, "c");
	xio_json_begin_object(&j, NULL);
	xio_json_str(&j, "s", "x");
	xio_json_begin_object(&j, "deep");
	xio_json_bool(&j, "t", true);
	xio_json_null(&j, "n");
	xio_json_end_object(&j);
	xio_json_end_object(&j);
	xio_json_end_array(&j);
	xio_json_begin_object(&j, "empty");
	xio_json_end_object(&j);
	xio_json_double(&j, "d", 1.5, 3);
	xio_json_double(&j, "g", 0.1, -1);
	xio_json_double(&j, "inf", 1.0 / 0.0, 2);
	xio_json_end_object(&j);
	check_text(&j, "{\n"
		       "  \"a\": 18446744073709551615,\n"
		       "  \"b\": -3,\n"
		       "  \"c\": [\n"
		       "    {\"s\": \"x\", \"deep\": {\"t\": true, \"n\": null}}\n"
		       "  ],\n"
		       "  \"empty\": {},\n"
		       "  \"d\": 1.500,\n"
		       "  \"g\": 0.1,\n"
		       "  \"inf\": null\n"
		       "}\n");
	XIO_CHECK(xio_json_check(&j) == 0, "a whole value is not accepted");
	xio_json_free(&j);
}

static void test_escape(void)
{
	struct xio_json j;

	xio_json_init(&j);
	xio_json_begin_array(&j, NULL);
	xio_json_str(&j, NULL, "q\"b\\s\n\x01/\xc3\xa9");
	xio_json_end_array(&j);
	check_text(&j, "[\n  \"q\\\"b\\\\s\\u000a\\u0001/\xc3\xa9\"\n]\n");
	xio_json_free(&j);
}

static void test_misuse(void)
{
	struct xio_json j;

	/* a member without a key in an object */
	xio_json_init(&j);
	xio_json_begin_object(&j, NULL);
	xio_json_u64(&j, NULL, 1);
	xio_json_end_object(&j);
	XIO_CHECK(xio_json_check(&j) < 0 && errno == EINVAL, "keyless member accepted");
	xio_json_free(&j);
	/* a key in an array, an object closed as an array, an open value */
	xio_json_init(&j);
	xio_json_begin_array(&j, NULL);
	xio_json_u64(&j, "k", 1);
	xio_json_end_array(&j);
	XIO_CHECK(xio_json_check(&j) < 0, "key in an array accepted");
	xio_json_free(&j);
	xio_json_init(&j);
	xio_json_begin_object(&j, NULL);
	xio_json_end_array(&j);
	XIO_CHECK(xio_json_check(&j) < 0, "object closed as an array accepted");
	xio_json_free(&j);
	xio_json_init(&j);
	xio_json_begin_object(&j, NULL);
	XIO_CHECK(xio_json_check(&j) < 0 && errno == EINVAL, "open object accepted");
	XIO_CHECK(xio_json_save(&j, "/nonexistent-dir/x.json") < 0, "saved an open object");
	xio_json_free(&j);
}

/* Large text (the growable buffer, no truncation), saved atomically: the
 * file holds all of it and no temporary file is left. */
static void test_save(void)
{
	char dir[] = "/tmp/xio-json-XXXXXX", path[64], buf[64];
	struct xio_json j;
	struct stat st;
	size_t len;
	FILE *f;
	char *got;

	XIO_CHECK(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/s.json", dir);
	xio_json_init(&j);
	xio_json_begin_object(&j, NULL);
	for (unsigned i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "key_%05u", i);
		xio_json_u64(&j, buf, i);
	}
	xio_json_end_object(&j);
	len = strlen(xio_json_text(&j));
	XIO_CHECK(len > 256 * 1024, "only %zu bytes", len);
	XIO_CHECK(xio_json_save(&j, path) == 0, "save: %s", strerror(errno));
	XIO_CHECK(stat(path, &st) == 0 && (size_t)st.st_size == len, "file size %lld, text %zu",
		  (long long)st.st_size, len);
	got = malloc(len + 1);
	f = fopen(path, "r");
	XIO_CHECK(got && f && fread(got, 1, len + 1, f) == len &&
		  memcmp(got, xio_json_text(&j), len) == 0, "file differs from the text");
	if (f)
		fclose(f);
	free(got);
	snprintf(buf, sizeof(buf), "%s/s.json.tmp%ld", dir, (long)getpid());
	XIO_CHECK(access(buf, F_OK) != 0, "temporary file left: %s", buf);
	XIO_CHECK(xio_json_save(&j, dir) < 0, "saved over a directory");
	unlink(path);
	rmdir(dir);
	xio_json_free(&j);
}

struct tcnt {
	uint64_t one;
	uint64_t arr[3];
	uint64_t gauge;
};

static const char *tlabel(unsigned i)
{
	static const char *const names[] = { NULL, "b", "c" }; /* element 0 not shown */

	return i < 3 ? names[i] : NULL;
}

static const struct xio_metric ttable[] = {
	{ .name = "one", .help = "One thing", .off = offsetof(struct tcnt, one), .line = "o" },
	{ .name = "arr", .help = "By kind", .off = offsetof(struct tcnt, arr), .n = 3,
	  .label = tlabel, .label_key = "kind", .by_key = "arr_by_kind", .line = "a" },
	{ .name = "gauge", .help = "A level", .off = offsetof(struct tcnt, gauge),
	  .flags = XIO_METRIC_GAUGE | XIO_METRIC_NO_JSON },
};

static void test_metrics(void)
{
	struct tcnt a = { 1, { 9, 2, 3 }, 7 }, b = { 10, { 0, 20, 30 }, 70 }, s = { 0 };
	const struct xio_metric_set sets[2] = { { &a, "dir=\"x\"" }, { &b, "dir=\"y\"" } };
	struct xio_buf buf = XIO_BUF_INIT;
	struct xio_json j;

	xio_metrics_add(ttable, 3, &s, &a);
	xio_metrics_add(ttable, 3, &s, &b);
	XIO_CHECK(s.one == 11 && s.arr[0] == 9 && s.arr[1] == 22 && s.arr[2] == 33 && s.gauge == 77,
		  "sum %llu %llu %llu %llu %llu", (unsigned long long)s.one,
		  (unsigned long long)s.arr[0], (unsigned long long)s.arr[1],
		  (unsigned long long)s.arr[2], (unsigned long long)s.gauge);
	xio_json_init(&j);
	xio_json_begin_object(&j, NULL);
	xio_metrics_json(&j, ttable, 3, &s);
	xio_json_end_object(&j);
	check_text(&j, "{\n  \"one\": 11,\n  \"arr\": 55,\n  \"arr_by_kind\": {\n    \"b\": 22,\n"
		       "    \"c\": 33\n  }\n}\n");
	xio_json_free(&j);
	xio_metrics_line(&buf, ttable, 3, &s);
	XIO_CHECK(strcmp(xio_buf_str(&buf), " o 11 a 55") == 0, "stats line totals '%s'",
		  xio_buf_str(&buf));
	xio_buf_reset(&buf);
	xio_metrics_prom(&buf, "t", ttable, 3, sets, 2);
	xio_metrics_prom_one(&buf, "t", "up_seconds", "Seconds up", true, NULL, 2.5);
	XIO_CHECK(strcmp(xio_buf_str(&buf),
			 "# HELP t_one_total One thing\n# TYPE t_one_total counter\n"
			 "t_one_total{dir=\"x\"} 1\nt_one_total{dir=\"y\"} 10\n"
			 "# HELP t_arr_total By kind\n# TYPE t_arr_total counter\n"
			 "t_arr_total{dir=\"x\",kind=\"b\"} 2\nt_arr_total{dir=\"x\",kind=\"c\"} 3\n"
			 "t_arr_total{dir=\"y\",kind=\"b\"} 20\nt_arr_total{dir=\"y\",kind=\"c\"} 30\n"
			 "# HELP t_gauge A level\n# TYPE t_gauge gauge\n"
			 "t_gauge{dir=\"x\"} 7\nt_gauge{dir=\"y\"} 70\n"
			 "# HELP t_up_seconds Seconds up\n# TYPE t_up_seconds gauge\n"
			 "t_up_seconds 2.5\n") == 0,
		  "prometheus text:\n%s", xio_buf_str(&buf));
	xio_buf_free(&buf);
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_layout), XIO_UNIT_TEST(test_escape), XIO_UNIT_TEST(test_misuse),
	XIO_UNIT_TEST(test_save), XIO_UNIT_TEST(test_metrics), { NULL, NULL } };

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "common", tests, NULL, NULL);
}
