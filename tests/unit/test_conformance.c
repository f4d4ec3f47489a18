/* SPDX-License-Identifier: BSD-3-Clause
 * test_conformance.c: every capture of ../shared/vectors through the stage
 * core, frame by frame, as one buffer and split into segments at every kind
 * of boundary: the transmitted frames must equal expected.pcap byte for byte
 * and the counters expected.json exactly.
 */
#include <dirent.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "xio_counters.h"
#include "xio_stage.h"

#define MAX_FRAMES 4096
#define MAX_FRAME  16384

struct capture {
	unsigned n;
	uint32_t len[MAX_FRAMES];
	uint8_t *data[MAX_FRAMES];
};

static const char *vectors_dir(void)
{
	const char *d = getenv("XIO_VECTORS");

	return d ? d : "../shared/vectors";
}

static int load_capture(const char *path, struct capture *c)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *bytes;
	pcap_t *p = pcap_open_offline(path, err);

	c->n = 0;
	if (!p) {
		fprintf(stderr, "%s: %s\n", path, err);
		return -1;
	}
	while (pcap_next_ex(p, &ph, &bytes) == 1 && c->n < MAX_FRAMES) {
		c->len[c->n] = ph->caplen;
		c->data[c->n] = malloc(ph->caplen ? ph->caplen : 1);
		memcpy(c->data[c->n], bytes, ph->caplen);
		c->n++;
	}
	pcap_close(p);
	return 0;
}

static void free_capture(struct capture *c)
{
	while (c->n)
		free(c->data[--c->n]);
}

static uint64_t json_u64(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return strtoull(p + strlen(pat), NULL, 10);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void check_counters(const char *dir, const struct xio_counters *c)
{
	char path[4096];
	char *json;
	unsigned r;

	snprintf(path, sizeof(path), "%s/expected.json", dir);
	json = read_file(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	CU_ASSERT_EQUAL(c->rx_packets, json_u64(json, "rx_packets"));
	CU_ASSERT_EQUAL(c->tx_packets, json_u64(json, "tx_packets"));
	CU_ASSERT_EQUAL(c->dropped_packets, json_u64(json, "dropped_packets"));
	CU_ASSERT_EQUAL(c->narrowed_packets, json_u64(json, "narrowed_packets"));
	CU_ASSERT_EQUAL(c->tokens_narrowed, json_u64(json, "tokens_narrowed"));
	CU_ASSERT_EQUAL(c->tokens_saturated, json_u64(json, "tokens_saturated"));
	CU_ASSERT_EQUAL(c->bytes_in, json_u64(json, "bytes_in"));
	CU_ASSERT_EQUAL(c->bytes_out, json_u64(json, "bytes_out"));
	for (r = 0; r < XIO_R_COUNT; r++) {
		uint64_t want = json_u64(json, xio_reason_name((enum xio_reason)r));

		if (c->reasons[r] != want)
			fprintf(stderr, "\n  %s: reason %s: got %llu want %llu", dir,
				xio_reason_name((enum xio_reason)r), (unsigned long long)c->reasons[r],
				(unsigned long long)want);
		CU_ASSERT_EQUAL(c->reasons[r], want);
	}
	free(json);
}

/* Splits a frame copy into up to three segments at cut1 < cut2 (0: no cut)
 * and processes it; the output is gathered back into out. */
static void process_split(const struct xio_stage_cfg *cfg, const uint8_t *in, uint32_t len,
			  uint32_t cut1, uint32_t cut2, uint8_t *out, struct xio_result *res)
{
	static uint8_t seg_mem[3][MAX_FRAME];
	struct xio_seg segs[3];
	uint32_t bounds[4] = { 0, cut1, cut2 > cut1 ? cut2 : cut1, len };
	unsigned n = 0, i;

	for (i = 0; i < 3; i++) {
		if (bounds[i + 1] <= bounds[i])
			continue;
		memcpy(seg_mem[n], in + bounds[i], bounds[i + 1] - bounds[i]);
		segs[n].data = seg_mem[n];
		segs[n].len = bounds[i + 1] - bounds[i];
		n++;
	}
	if (n == 0) { /* empty frame */
		segs[0].data = seg_mem[0];
		segs[0].len = 0;
		n = 1;
	}
	xio_process(cfg, segs, n, NULL, res);
	for (i = 0, len = 0; i < n; i++) {
		memcpy(out + len, segs[i].data, segs[i].len);
		len += segs[i].len;
	}
}

/* Runs one vector folder; split selects how frames are cut into segments:
 * 0 one buffer, 1 cut at 7 and 61 bytes (inside the headers), 2 cut at odd
 * places in the payload, 3 cut every frame at a pseudo-random place. */
static void run_vector(const char *name, int split)
{
	char dir[2048], path[4096];
	static struct capture in, want;
	static uint8_t frame[MAX_FRAME], out[MAX_FRAME];
	struct xio_counters c;
	struct xio_stage_cfg cfg;
	unsigned i, sent = 0;

	snprintf(dir, sizeof(dir), "%s/%s", vectors_dir(), name);
	xio_unit_vector_cfg(name, &cfg);
	snprintf(path, sizeof(path), "%s/in.pcap", dir);
	CU_ASSERT_EQUAL_FATAL(load_capture(path, &in), 0);
	snprintf(path, sizeof(path), "%s/expected.pcap", dir);
	CU_ASSERT_EQUAL_FATAL(load_capture(path, &want), 0);
	memset(&c, 0, sizeof(c));

	for (i = 0; i < in.n; i++) {
		struct xio_result res;
		uint32_t len = in.len[i], c1 = 0, c2 = 0;

		if (len > MAX_FRAME)
			continue;
		if (split == 1) {
			c1 = len > 7 ? 7 : 0;
			c2 = len > 61 ? 61 : 0;
		} else if (split == 2) {
			c1 = len > 3 ? len / 3 | 1 : 0;
			c2 = len > 3 ? (2 * len / 3) | 1 : 0;
		} else if (split == 3) {
			c1 = len ? (i * 2654435761u) % len : 0;
		}
		if (split) {
			process_split(&cfg, in.data[i], len, c1, c2, out, &res);
		} else {
			memcpy(frame, in.data[i], len);
			xio_process_buf(&cfg, frame, len, &res);
			memcpy(out, frame, len);
		}
		xio_counters_account(&c, len, &res);
		if (res.action == XIO_ACT_DROP)
			continue;
		if (res.action == XIO_ACT_FORWARD)
			CU_ASSERT_EQUAL(memcmp(out, in.data[i], len), 0);
		CU_ASSERT_FATAL(sent < want.n);
		if (res.out_len != want.len[sent] || memcmp(out, want.data[sent], res.out_len) != 0) {
			fprintf(stderr, "\n  %s split %d: frame %u (out %u) differs: len %u want %u reason %s",
				name, split, i + 1, sent + 1, res.out_len, want.len[sent],
				xio_reason_name((enum xio_reason)res.reason));
			CU_FAIL("output frame differs from expected.pcap");
		}
		sent++;
	}
	CU_ASSERT_EQUAL(sent, want.n);
	check_counters(dir, &c);
	free_capture(&in);
	free_capture(&want);
}

static void run_all(int split)
{
	DIR *d = opendir(vectors_dir());
	struct dirent *e;
	unsigned n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/in.pcap", vectors_dir(), e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		fclose(f);
		run_vector(e->d_name, split);
		n++;
	}
	closedir(d);
	CU_ASSERT(n >= 6);
}

static void test_vectors_one_buffer(void) { run_all(0); }
static void test_vectors_split_in_headers(void) { run_all(1); }
static void test_vectors_split_odd_payload(void) { run_all(2); }
static void test_vectors_split_anywhere(void) { run_all(3); }

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("conformance", NULL, NULL);
	CU_add_test(s, "vectors, one buffer", test_vectors_one_buffer);
	CU_add_test(s, "vectors, segments cut inside the headers", test_vectors_split_in_headers);
	CU_add_test(s, "vectors, segments cut at odd payload offsets", test_vectors_split_odd_payload);
	CU_add_test(s, "vectors, segments cut anywhere", test_vectors_split_anywhere);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures();
	CU_cleanup_registry();
	return fails ? 1 : 0;
}
