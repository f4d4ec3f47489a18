/* SPDX-License-Identifier: BSD-3-Clause
 * test_client_units.c: libxio's modules that need no server: the
 * missing-range bitmap against a byte-per-unit model (marks, fresh counts,
 * runs, the capped re-request list), the RFC 6298 timeout to the exact
 * microsecond, sharding, the llm.c header and the Megatron .idx rewrite
 * (byte for byte, and every refusal leaving the buffer as it was).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_msg.h"
#include "xio_priv.h"
#include "xio_unit.h"

/* ---- missing ranges ---- */

static uint64_t bits[(4100 + 63) / 64];

/* The model: one byte per unit. Returns how many of [a, b) were new. */
static uint64_t model_mark(uint8_t *got, uint64_t a, uint64_t b)
{
	uint64_t fresh = 0;

	for (uint64_t i = a; i < b; i++) {
		fresh += !got[i];
		got[i] = 1;
	}
	return fresh;
}

/* Every missing run of the model, in order, as the bitmap must list them. */
static size_t model_runs(const uint8_t *got, uint64_t n, struct xio_range *out, size_t cap)
{
	size_t k = 0;

	for (uint64_t i = 0; i < n;) {
		uint64_t j;

		if (got[i]) {
			i++;
			continue;
		}
		for (j = i; j < n && !got[j]; j++)
			;
		if (k < cap)
			out[k] = (struct xio_range){ i, j };
		k++;
		i = j;
	}
	return k;
}

static void test_missing_edges(void)
{
	struct xio_missing m;
	struct xio_range r;

	xio_missing_reset(&m, bits, 130);
	XIO_CHECK(xio_missing_next(&m, 0, &r) && r.a == 0 && r.b == 130, "all missing: %llu..%llu",
		  (unsigned long long)r.a, (unsigned long long)r.b);
	XIO_CHECK(xio_missing_mark(&m, 63, 65) == 2, "across a word boundary");
	XIO_CHECK(xio_missing_mark(&m, 60, 70) == 8, "overlapping: only the 8 new count");
	XIO_CHECK(xio_missing_mark(&m, 60, 70) == 0, "a duplicate counts nothing");
	XIO_CHECK(m.got == 10, "got %llu", (unsigned long long)m.got);
	XIO_CHECK(xio_missing_next(&m, 0, &r) && r.a == 0 && r.b == 60, "first run %llu..%llu",
		  (unsigned long long)r.a, (unsigned long long)r.b);
	XIO_CHECK(xio_missing_next(&m, 60, &r) && r.a == 70 && r.b == 130, "second run %llu..%llu",
		  (unsigned long long)r.a, (unsigned long long)r.b);
	XIO_CHECK(xio_missing_mark(&m, 0, 130) == 120, "the rest");
	XIO_CHECK(!xio_missing_next(&m, 0, &r), "complete: no run");
	XIO_CHECK(xio_missing_mark(&m, 129, 130) == 0, "last unit again");
	/* bits past n in the last word never show up as missing */
	xio_missing_reset(&m, bits, 64);
	xio_missing_mark(&m, 0, 64);
	XIO_CHECK(!xio_missing_next(&m, 0, &r), "exactly one word, complete");
	xio_missing_reset(&m, bits, 1);
	XIO_CHECK(xio_missing_next(&m, 0, &r) && r.a == 0 && r.b == 1, "one unit missing");
	XIO_CHECK(!xio_missing_next(&m, 1, &r), "nothing at or past n");
}

/* Random marks against the model: fresh counts, got, every run. */
static void test_missing_model(void)
{
	static uint8_t got[4100];
	struct xio_range want[4100], have[4100];

	for (int round = 0; round < 200; round++) {
		uint64_t n = 1 + xio_unit_rand() % 4100;
		struct xio_missing m;
		size_t k;

		memset(got, 0, sizeof(got));
		xio_missing_reset(&m, bits, n);
		for (int q = 0; q < 40; q++) {
			uint64_t a = xio_unit_rand() % n;
			uint64_t b = a + 1 + xio_unit_rand() % (xio_unit_rand() % 2 ? 8 : n - a);
			uint64_t f;

			b = b > n ? n : b;
			f = xio_missing_mark(&m, a, b);
			if (!XIO_CHECK(f == model_mark(got, a, b), "round %d mark %llu..%llu: %llu new",
				       round, (unsigned long long)a, (unsigned long long)b,
				       (unsigned long long)f))
				return;
		}
		k = model_runs(got, n, want, 4100);
		{
			struct xio_range r;
			uint64_t from = 0, g = 0;
			size_t i = 0;

			for (uint64_t u = 0; u < n; u++)
				g += got[u];
			XIO_CHECK(m.got == g, "round %d: got %llu, model %llu", round,
				  (unsigned long long)m.got, (unsigned long long)g);
			while (xio_missing_next(&m, from, &r)) {
				have[i++] = r;
				from = r.b;
			}
			if (!XIO_CHECK(i == k && memcmp(have, want, k * sizeof(*want)) == 0,
				       "round %d: %zu runs, model %zu", round, i, k))
				return;
		}
		/* within a window [lo, hi): the model's runs cut to it */
		for (int q = 0; q < 20; q++) {
			uint64_t lo = xio_unit_rand() % n, hi = lo + 1 + xio_unit_rand() % (n - lo);
			uint64_t from = lo, u = lo;
			struct xio_range r;

			while (xio_missing_next_in(&m, from, hi, &r)) {
				while (u < hi && got[u])
					u++;
				if (!XIO_CHECK(r.a == u && r.b <= hi && r.a < r.b, "round %d in %llu..%llu: "
					       "run at %llu, model %llu", round, (unsigned long long)lo,
					       (unsigned long long)hi, (unsigned long long)r.a,
					       (unsigned long long)u))
					return;
				while (u < r.b && !got[u])
					u++;
				XIO_CHECK(u == r.b, "round %d: run ends at %llu, model %llu", round,
					  (unsigned long long)r.b, (unsigned long long)u);
				from = r.b;
			}
			while (u < hi && got[u])
				u++;
			XIO_CHECK(u == hi, "round %d: a missing unit %llu in %llu..%llu not listed", round,
				  (unsigned long long)u, (unsigned long long)lo, (unsigned long long)hi);
		}
	}
}

/* The re-request list: runs in order, the last stretched to cover the rest. */
static void test_missing_ranges_capped(void)
{
	struct xio_range out[XIO_RE_REQ_MAX];
	struct xio_missing m;
	size_t k;

	xio_missing_reset(&m, bits, 4000);
	for (uint64_t u = 0; u < 4000; u += 20)
		xio_missing_mark(&m, u, u + 10); /* 200 holes: [u+10, u+20) */
	k = xio_missing_ranges(&m, out, 4);
	XIO_CHECK(k == 4, "%zu ranges", k);
	XIO_CHECK(out[0].a == 10 && out[0].b == 20 && out[2].a == 50 && out[2].b == 60,
		  "first runs as they are");
	XIO_CHECK(out[3].a == 70 && out[3].b == 4000, "last covers the rest: %llu..%llu",
		  (unsigned long long)out[3].a, (unsigned long long)out[3].b);
	k = xio_missing_ranges(&m, out, XIO_RE_REQ_MAX);
	XIO_CHECK(k == XIO_RE_REQ_MAX && out[XIO_RE_REQ_MAX - 1].b == 4000, "cap %d", XIO_RE_REQ_MAX);
	xio_missing_reset(&m, bits, 100);
	xio_missing_mark(&m, 0, 40);
	xio_missing_mark(&m, 50, 100);
	k = xio_missing_ranges(&m, out, XIO_RE_REQ_MAX);
	XIO_CHECK(k == 1 && out[0].a == 40 && out[0].b == 50, "one hole: %zu", k);
	xio_missing_mark(&m, 40, 50);
	XIO_CHECK(xio_missing_ranges(&m, out, XIO_RE_REQ_MAX) == 0, "complete: nothing to ask");
}

/* ---- adaptive timeout ---- */

static void test_rtt_rfc6298(void)
{
	struct xio_rtt r;

	xio_rtt_init(&r, 100, 500000);
	XIO_CHECK(r.rto == 500000 && r.srtt == 0, "before a sample: the ceiling, %llu",
		  (unsigned long long)r.rto);
	xio_rtt_sample(&r, 1000); /* SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR */
	XIO_CHECK(r.srtt == 1000 && r.rttvar == 500 && r.rto == 3000, "first: %llu %llu %llu",
		  (unsigned long long)r.srtt, (unsigned long long)r.rttvar, (unsigned long long)r.rto);
	xio_rtt_sample(&r, 2000); /* RTTVAR = (3*500 + 1000)/4, SRTT = (7*1000 + 2000)/8 */
	XIO_CHECK(r.srtt == 1125 && r.rttvar == 625 && r.rto == 3625, "second: %llu %llu %llu",
		  (unsigned long long)r.srtt, (unsigned long long)r.rttvar, (unsigned long long)r.rto);
	xio_rtt_sample(&r, 0); /* counted as 1 us */
	XIO_CHECK(r.srtt == 984 && r.rttvar == 749 && r.rto == 3980, "third: %llu %llu %llu",
		  (unsigned long long)r.srtt, (unsigned long long)r.rttvar, (unsigned long long)r.rto);
	XIO_CHECK(xio_rtt_timeout(&r, 0) == 3980 && xio_rtt_timeout(&r, 1) == 7960 &&
		  xio_rtt_timeout(&r, 3) == 31840, "doubling per timeout in a row");
	XIO_CHECK(xio_rtt_timeout(&r, 10) == 500000 && xio_rtt_timeout(&r, 200) == 500000,
		  "backoff capped at the ceiling");
	xio_rtt_backoff(&r, 2); /* RFC 6298 5.7: the doubled timeout stays... */
	xio_rtt_backoff(&r, 1);
	XIO_CHECK(xio_rtt_timeout(&r, 0) == 15920 && xio_rtt_timeout(&r, 3) == 31840,
		  "backed off twice: %llu", (unsigned long long)xio_rtt_timeout(&r, 0));
	xio_rtt_sample(&r, 984); /* ...until the next sample: RTTVAR = 3*749/4, 984 + 4*561 */
	XIO_CHECK(r.backoff == 0 && xio_rtt_timeout(&r, 0) == 3228, "a sample ends it: %llu",
		  (unsigned long long)xio_rtt_timeout(&r, 0));
	xio_rtt_sample(&r, 100000000);
	XIO_CHECK(r.rto == 500000, "a huge sample: the ceiling, %llu", (unsigned long long)r.rto);

	xio_rtt_init(&r, 10000, 500000);
	for (int i = 0; i < 50; i++)
		xio_rtt_sample(&r, 20);
	XIO_CHECK(r.rto == 10000, "tiny samples: the floor, %llu", (unsigned long long)r.rto);
	xio_rtt_init(&r, 10000, 5000);
	XIO_CHECK(r.min == 5000 && r.rto == 5000, "a ceiling below the floor wins");
}

/* ---- sharding ---- */

static void test_shard(void)
{
	static const uint64_t counts[] = { 0, 1, 2, 7, 100, 1000003, 1ull << 40 };
	uint64_t f = 0, n = 0;

	XIO_CHECK(xio_shard(10, 10, 0, 3, &f, &n) == 0 && f == 10 && n == 4, "rank 0: %llu+%llu",
		  (unsigned long long)f, (unsigned long long)n);
	XIO_CHECK(xio_shard(10, 10, 1, 3, &f, &n) == 0 && f == 14 && n == 3, "rank 1");
	XIO_CHECK(xio_shard(10, 10, 2, 3, &f, &n) == 0 && f == 17 && n == 3, "rank 2");
	XIO_CHECK(xio_shard(0, 10, 3, 3, &f, &n) == -XIO_EARG, "rank >= world");
	XIO_CHECK(xio_shard(0, 10, 0, 0, &f, &n) == -XIO_EARG, "world 0");
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		for (uint32_t w = 1; w <= 9; w++) {
			uint64_t at = 5;

			for (uint32_t r = 0; r < w; r++) {
				xio_shard(5, counts[c], r, w, &f, &n);
				if (!XIO_CHECK(f == at && n >= counts[c] / w && n <= counts[c] / w + 1,
					       "count %llu world %u rank %u", (unsigned long long)counts[c],
					       w, r))
					return;
				at += n;
			}
			XIO_CHECK(at == 5 + counts[c], "parts concatenate to the whole");
		}
}

/* ---- formats ---- */

static void test_llmc_header(void)
{
	uint8_t h[XIO_LLMC_HEADER_BYTES], want[XIO_LLMC_HEADER_BYTES] = { 0 };
	struct xio_error err;

	/* 20240520 = 0x0134D888, 1, 123456789 = 0x075BCD15, little-endian */
	memcpy(want, "\x88\xD8\x34\x01" "\x01\x00\x00\x00" "\x15\xCD\x5B\x07", 12);
	memset(h, 0xEE, sizeof(h));
	XIO_CHECK(xio_llmc_header(h, 123456789, &err) == 0, "header");
	XIO_CHECK_BYTES(h, want, sizeof(h), "llm.c header");
	XIO_CHECK(xio_llmc_header(h, 2147483647u, &err) == 0, "INT32_MAX tokens fit");
	XIO_CHECK(xio_llmc_header(h, 2147483648u, &err) == -XIO_EFORMAT &&
		  strstr(err.msg, "2147483648 tokens do not fit"), "too many: %s", err.msg);
}

struct idx_spec {
	uint8_t dtype;
	uint64_t nseq, ndoc;
	const int32_t *sizes;
	const int64_t *ptrs;
	const int64_t *docs;
	const char *tail; /* bytes after the document indices (multimodal modes) */
	size_t tail_len;
};

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* An index laid out as Megatron-LM's _IndexWriter writes it. */
static size_t build_idx(uint8_t *b, const struct idx_spec *s)
{
	size_t o = 0;

	memcpy(b, "MMIDIDX\0\0", 9);
	o = 9;
	put_le(b + o, 1, 8);
	o += 8;
	b[o++] = s->dtype;
	put_le(b + o, s->nseq, 8);
	o += 8;
	put_le(b + o, s->ndoc, 8);
	o += 8;
	for (uint64_t i = 0; i < s->nseq; i++, o += 4)
		put_le(b + o, (uint64_t)(uint32_t)s->sizes[i], 4);
	for (uint64_t i = 0; i < s->nseq; i++, o += 8)
		put_le(b + o, (uint64_t)s->ptrs[i], 8);
	for (uint64_t i = 0; i < s->ndoc; i++, o += 8)
		put_le(b + o, (uint64_t)s->docs[i], 8);
	memcpy(b + o, s->tail, s->tail_len);
	return o + s->tail_len;
}

static const int32_t sizes3[] = { 5, 3, 8 };
static const int64_t ptrs3[] = { 0, 20, 32 };
static const int64_t half3[] = { 0, 10, 16 };
static const int64_t docs3[] = { 0, 2, 3 };

static void test_megatron_narrow(void)
{
	struct idx_spec in = { 4, 3, 3, sizes3, ptrs3, docs3, "\x01\x00\x01", 3 };
	struct idx_spec out = in;
	uint8_t b[256], want[256];
	struct xio_megatron_idx info;
	struct xio_error err;
	size_t n = build_idx(b, &in), wn;

	out.dtype = 8;
	out.ptrs = half3;
	wn = build_idx(want, &out);
	XIO_CHECK(xio_megatron_idx_narrow(b, n, 16, &info, &err) == 0, "narrow: %s", err.msg);
	XIO_CHECK(n == wn, "same length");
	XIO_CHECK_BYTES(b, want, n, "uint16 index: dtype 8, pointers halved, the rest unchanged");
	XIO_CHECK(info.sequences == 3 && info.documents == 3 && info.tokens == 16 && info.dtype == 4,
		  "info %llu %llu %llu", (unsigned long long)info.sequences,
		  (unsigned long long)info.documents, (unsigned long long)info.tokens);
}

/* Each refusal names the problem and leaves the buffer as it was. */
static void refuse(const struct idx_spec *s, size_t cut, uint64_t bin_tokens, const char *want)
{
	uint8_t b[256], copy[256];
	struct xio_megatron_idx info;
	struct xio_error err = { 0 };
	size_t n = build_idx(b, s) - cut;

	memcpy(copy, b, n);
	XIO_CHECK(xio_megatron_idx_narrow(b, n, bin_tokens, &info, &err) == -XIO_EFORMAT &&
		  err.code == XIO_EFORMAT && strstr(err.msg, want),
		  "expected '%s', got '%s'", want, err.msg);
	XIO_CHECK_BYTES(b, copy, n, "refused index unchanged");
}

static void test_megatron_refusals(void)
{
	static const int64_t odd[] = { 0, 22, 32 };
	struct idx_spec s = { 4, 3, 3, sizes3, ptrs3, docs3, "", 0 };
	struct idx_spec u16 = s, bad_ptr = s, bad_magic = s;
	uint8_t b[256];
	struct xio_error err;
	struct xio_megatron_idx info;
	size_t n;

	u16.dtype = 8;
	refuse(&u16, 0, 16, "dtype code 8 (uint16): only int32 (4) datasets are narrowed");
	s.dtype = 5;
	refuse(&s, 0, 16, "dtype code 5 (int64)");
	s.dtype = 4;
	refuse(&s, 1, 16, "truncated");
	refuse(&s, 0, 15, "sequence 2 (8 tokens at byte 32) is not inside the 15 int32 tokens");
	bad_ptr.ptrs = odd;
	refuse(&bad_ptr, 0, 16, "sequence 1 (3 tokens at byte 22)");
	n = build_idx(b, &bad_magic);
	b[0] = 'X';
	XIO_CHECK(xio_megatron_idx_narrow(b, n, 16, &info, &err) == -XIO_EFORMAT &&
		  strstr(err.msg, "no MMIDIDX header"), "magic: %s", err.msg);
	n = build_idx(b, &s);
	b[9] = 2; /* version 2 */
	XIO_CHECK(xio_megatron_idx_narrow(b, n, 16, &info, &err) == -XIO_EFORMAT &&
		  strstr(err.msg, "version 2"), "version: %s", err.msg);
	n = build_idx(b, &s);
	put_le(b + 18, 1ull << 60, 8); /* a sequence count no file holds */
	XIO_CHECK(xio_megatron_idx_narrow(b, n, 16, &info, &err) == -XIO_EFORMAT &&
		  strstr(err.msg, "truncated"), "huge count: %s", err.msg);
	XIO_CHECK(xio_megatron_idx_narrow(b, 10, 16, &info, &err) == -XIO_EFORMAT, "10 bytes");
}

static void test_codes_and_opts(void)
{
	struct xio_opts o;
	struct xio_error err;

	XIO_CHECK(strcmp(xio_code_name(XIO_ETIMEOUT), "timeout") == 0 &&
		  strcmp(xio_code_name(-XIO_ETOKEN), "token") == 0 &&
		  strcmp(xio_code_name(999), "unknown") == 0, "code names");
	xio_opts_init(&o);
	XIO_CHECK(o.chunk_tokens == 262144 && o.window == 32 && o.timeout_ms == 500 &&
		  o.retries == 8 && o.max_count == 0 && !o.crc && !o.saturate && o.gro == 1 &&
		  o.flows == xio_default_flows() && o.flows >= 1 && o.flows <= 4, "defaults");
	XIO_CHECK(xio_opts_check(&o, &err) == 0, "defaults are valid");
	o.flows = 0;
	XIO_CHECK(xio_opts_check(&o, &err) == -XIO_EARG && strstr(err.msg, "flows 0: must be 1..64"),
		  "%s", err.msg);
	o.flows = 65;
	XIO_CHECK(xio_opts_check(&o, &err) == -XIO_EARG, "flows 65");
	xio_opts_init(&o);
	o.gro = 2;
	XIO_CHECK(xio_opts_check(&o, &err) == -XIO_EARG && strstr(err.msg, "gro"), "%s", err.msg);
	xio_opts_init(&o);
	o.chunk_tokens = 16777217;
	XIO_CHECK(xio_opts_check(&o, &err) == -XIO_EARG && strstr(err.msg, "chunk_tokens 16777217"),
		  "%s", err.msg);
	xio_opts_init(&o);
	o.window = 0;
	XIO_CHECK(xio_opts_check(&o, &err) == -XIO_EARG && strstr(err.msg, "window 0"), "%s",
		  err.msg);
}

/* ---- splitting a UDP GRO buffer ---- */

/* A header of a READ_REPLY of n tokens from first, of width 2 (UINT16 +
 * NARROWED) or 4 (INT32), at b. */
static size_t put_reply(uint8_t *b, uint64_t first, uint32_t n, unsigned width)
{
	struct xio_hdr h = {
		.opcode = XIO_OP_READ_REPLY, .dtype = width == 2 ? XIO_DT_UINT16 : XIO_DT_INT32,
		.flags = width == 2 ? XIO_F_NARROWED : 0, .hdr_len = XIO_HDR_LEN,
		.stream_id = 7, .first_token = first, .token_count = n,
	};

	xio_hdr_put(b, &h);
	memset(b + XIO_HDR_LEN, (int)(first & 0xff), (size_t)n * width);
	return XIO_HDR_LEN + (size_t)n * width;
}

static void test_gro_split(void)
{
	enum { SEG = XIO_HDR_LEN + 1200 };
	static uint8_t buf[5 * SEG];
	/* INT32, not XIO, UINT16, INT32, and a shorter INT32 last */
	static const struct { uint64_t first; uint32_t n; unsigned width; } want[] = {
		{ 1000, 300, 4 }, { 0, 0, 0 }, { 1300, 600, 2 }, { 1900, 300, 4 }, { 2200, 17, 4 },
	};
	uint32_t len = 0, off, n;
	struct xio_hdr h;

	for (size_t i = 0; i < 5; i++) {
		if (want[i].width == 0) {
			memset(buf + len, 0xa5, SEG);
			len += SEG;
		} else {
			len += (uint32_t)put_reply(buf + len, want[i].first, want[i].n, want[i].width);
		}
	}
	XIO_CHECK(len == 4 * SEG + XIO_HDR_LEN + 68, "built %u bytes", len);
	n = xio_gro_count(len, SEG);
	XIO_CHECK(n == 5, "5 segments, got %u", n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t l = xio_gro_segment(len, SEG, i, &off);

		XIO_CHECK(off == i * SEG && l == (i == 4 ? XIO_HDR_LEN + 68 : SEG),
			  "segment %u at %u, %u bytes", i, off, l);
		if (want[i].width == 0) {
			XIO_CHECK(xio_hdr_parse(buf + off, l, &h) < 0, "segment %u is not XIO", i);
			continue;
		}
		XIO_CHECK(xio_hdr_parse(buf + off, l, &h) == 0 && h.first_token == want[i].first &&
			  h.token_count == want[i].n &&
			  h.dtype == (want[i].width == 2 ? XIO_DT_UINT16 : XIO_DT_INT32) &&
			  l == XIO_HDR_LEN + want[i].n * want[i].width &&
			  buf[off + l - 1] == (uint8_t)(want[i].first & 0xff),
			  "segment %u: first %llu count %u dtype %u", i,
			  (unsigned long long)h.first_token, h.token_count, h.dtype);
	}
	/* datagrams one by one: no segment size, or one that covers the buffer */
	XIO_CHECK(xio_gro_count(1500, 0) == 1 && xio_gro_segment(1500, 0, 0, &off) == 1500 &&
		  off == 0, "no GRO: one datagram");
	XIO_CHECK(xio_gro_count(1500, 1500) == 1 && xio_gro_count(1500, 9000) == 1 &&
		  xio_gro_segment(1500, 9000, 0, &off) == 1500, "one segment");
	XIO_CHECK(xio_gro_count(3000, 1500) == 2 && xio_gro_segment(3000, 1500, 1, &off) == 1500 &&
		  off == 1500, "two whole segments");
	XIO_CHECK(xio_gro_count(0, 0) == 1 && xio_gro_segment(0, 1472, 0, &off) == 0,
		  "a truncated buffer is one empty datagram (malformed)");
}

/* ---- the congestion window ---- */

static void test_cc(void)
{
	struct xio_cc cc;
	uint64_t w;

	xio_cc_init(&cc, 32u << 20);
	XIO_CHECK(cc.cwnd == XIO_CC_INITIAL && cc.min == XIO_CC_MIN && cc.max == 32u << 20 &&
		  cc.ssthresh == UINT64_MAX, "init: cwnd %llu", (unsigned long long)cc.cwnd);
	/* slow start: every byte received adds one, up to the cap */
	xio_cc_on_received(&cc, 1u << 20, 10);
	XIO_CHECK(cc.cwnd == XIO_CC_INITIAL + (1u << 20), "slow start: %llu",
		  (unsigned long long)cc.cwnd);
	xio_cc_on_received(&cc, 64u << 20, 11);
	XIO_CHECK(cc.cwnd == 32u << 20, "capped at max: %llu", (unsigned long long)cc.cwnd);
	/* a loss halves it, once per recovery period */
	xio_cc_on_loss(&cc, 20, 100);
	XIO_CHECK(cc.cwnd == 16u << 20 && cc.ssthresh == 16u << 20 && cc.reductions == 1,
		  "a loss halves: %llu", (unsigned long long)cc.cwnd);
	xio_cc_on_loss(&cc, 90, 110); /* sent before the reduction: the same event */
	XIO_CHECK(cc.cwnd == 16u << 20 && cc.reductions == 1, "one cut per period: %llu",
		  (unsigned long long)cc.cwnd);
	xio_cc_on_received(&cc, 1u << 20, 99); /* sent before it: no growth in recovery */
	XIO_CHECK(cc.cwnd == 16u << 20, "no growth in recovery: %llu", (unsigned long long)cc.cwnd);
	/* congestion avoidance: one step a window's worth of bytes */
	xio_cc_on_received(&cc, (16u << 20) - 1, 200);
	XIO_CHECK(cc.cwnd == 16u << 20, "not a window yet: %llu", (unsigned long long)cc.cwnd);
	xio_cc_on_received(&cc, 1, 200);
	XIO_CHECK(cc.cwnd == (16u << 20) + XIO_CC_STEP, "additive increase: %llu",
		  (unsigned long long)cc.cwnd);
	/* a loss of a request sent after the period began cuts again */
	w = cc.cwnd;
	xio_cc_on_loss(&cc, 300, 400);
	XIO_CHECK(cc.cwnd == w / 2 && cc.reductions == 2, "second loss: %llu",
		  (unsigned long long)cc.cwnd);
	/* a timeout: to the floor, then slow start up to ssthresh */
	xio_cc_on_timeout(&cc, 500, 600);
	XIO_CHECK(cc.cwnd == XIO_CC_MIN && cc.ssthresh == w / 4 && cc.reductions == 3,
		  "timeout: cwnd %llu ssthresh %llu", (unsigned long long)cc.cwnd,
		  (unsigned long long)cc.ssthresh);
	xio_cc_on_received(&cc, 100000, 700);
	XIO_CHECK(cc.cwnd == XIO_CC_MIN + 100000, "slow start again: %llu",
		  (unsigned long long)cc.cwnd);
	/* the floor holds; a small receive buffer caps everything */
	for (int k = 0; k < 40; k++)
		xio_cc_on_loss(&cc, 1000 + 2 * (uint64_t)k, 1001 + 2 * (uint64_t)k);
	XIO_CHECK(cc.cwnd == XIO_CC_MIN, "floor: %llu", (unsigned long long)cc.cwnd);
	xio_cc_init(&cc, 100000);
	XIO_CHECK(cc.cwnd == 100000 && cc.min == 100000 && cc.max == 100000, "tiny buffer: %llu",
		  (unsigned long long)cc.cwnd);
}

static const struct xio_unit_test tests[] = {
	XIO_UNIT_TEST(test_missing_edges),
	XIO_UNIT_TEST(test_missing_model),
	XIO_UNIT_TEST(test_missing_ranges_capped),
	XIO_UNIT_TEST(test_rtt_rfc6298),
	XIO_UNIT_TEST(test_shard),
	XIO_UNIT_TEST(test_llmc_header),
	XIO_UNIT_TEST(test_megatron_narrow),
	XIO_UNIT_TEST(test_megatron_refusals),
	XIO_UNIT_TEST(test_codes_and_opts),
	XIO_UNIT_TEST(test_gro_split),
	XIO_UNIT_TEST(test_cc),
	{ NULL, NULL },
};

int main(int argc, char **argv)
{
	return xio_unit_main(argc, argv, "client_units", tests, NULL, NULL);
}
