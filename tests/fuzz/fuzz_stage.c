/* SPDX-License-Identifier: BSD-3-Clause
 * fuzz_stage.c: the libFuzzer target over the stage core. One input is one
 * frame behind an 8-byte prefix:
 *
 *   byte 0  bit 0 UDP port 9999 (else 7910); bits 1-2 overflow policy
 *           (0 keep, 1 saturate, 2 drop, 3 keep); bit 3 drop_invalid;
 *           bit 4 pass the NIC checksum hints (true ones, computed here);
 *           bits 5-7 the narrowing kernel (index among those this CPU runs)
 *   byte 1  bits 0-1 segments: 1 + (bits 0-1); bits 2-4 recompute the
 *           payload CRC, UDP and IPv4 checksums over the frame first
 *           (fuzz_fix), so that mutations get past rules 7, 8 and 16
 *   2..7    three 16-bit little-endian cut points, each taken modulo
 *           (frame length + 1) and sorted: segments may be empty
 *
 * The frame goes through xio_process() once in one exactly-sized buffer and
 * once cut into segments, each in its own exactly-sized allocation, so
 * ASan sees any access outside the frame. Properties, any violation aborts:
 * both layouts give the same result and bytes; the result has exactly one
 * reason and the action the configuration gives that reason; a forwarded
 * frame is byte-identical; a rewritten one passes fuzz_check.c; and reason,
 * action and output bytes equal those of the independent reference model
 * (tests/hostile/xio_ref.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "xio_counters.h"
#include "xio_narrow.h"
#include "xio_ref.h"
#include "xio_stage.h"

#define PREFIX   8
#define MAX_SEGS 4

struct fuzz_case {
	struct xio_stage_cfg cfg;
	int hints;
	const char *kernel;
	unsigned nseg;
	unsigned fix;
	uint32_t cuts[MAX_SEGS + 1];
};

static void die(const struct fuzz_case *fc, const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_stage: %s%s%s (port %u, overflow %s, drop_invalid %d, hints %d, "
		"kernel %s, %u segments, fix %#x)\n", what, detail ? ": " : "", detail ? detail : "",
		fc->cfg.udp_port, xio_overflow_name(fc->cfg.overflow), fc->cfg.drop_invalid,
		fc->hints, fc->kernel, fc->nseg, fc->fix);
	abort();
}

/* The kernels this CPU runs, and the one byte 0 picks. */
static const char *pick_kernel(unsigned idx)
{
	const struct xio_narrow_ops *const *all = xio_narrow_all();
	const char *usable[8];
	unsigned n = 0;

	for (; *all != NULL && n < 8; all++)
		if (xio_narrow_supported(*all))
			usable[n++] = (*all)->name;
	return usable[idx % n];
}

static void decode(const uint8_t *data, uint32_t len, struct fuzz_case *fc)
{
	static const enum xio_overflow pol[4] = { XIO_OVERFLOW_KEEP, XIO_OVERFLOW_SATURATE,
						  XIO_OVERFLOW_DROP, XIO_OVERFLOW_KEEP };
	unsigned i, j;

	xio_stage_cfg_default(&fc->cfg);
	fc->cfg.udp_port = (data[0] & 1) ? 9999 : XIO_DEFAULT_UDP_PORT;
	fc->cfg.overflow = pol[(data[0] >> 1) & 3];
	fc->cfg.drop_invalid = (data[0] >> 3) & 1;
	fc->hints = (data[0] >> 4) & 1;
	fc->kernel = pick_kernel(data[0] >> 5);
	fc->nseg = 1 + (data[1] & 3);
	fc->fix = (data[1] >> 2) & 7;
	fc->cuts[0] = 0;
	fc->cuts[fc->nseg] = len;
	for (i = 1; i < fc->nseg; i++)
		fc->cuts[i] = (uint32_t)(data[2 * i] | data[2 * i + 1] << 8) % (len + 1);
	for (i = 1; i < fc->nseg; i++)
		for (j = i + 1; j < fc->nseg; j++)
			if (fc->cuts[j] < fc->cuts[i]) {
				uint32_t t = fc->cuts[i];

				fc->cuts[i] = fc->cuts[j];
				fc->cuts[j] = t;
			}
}

static void run(const struct fuzz_case *fc, struct xio_seg *segs, unsigned nseg,
		const uint8_t *frame, struct xio_result *res)
{
	struct fuzz_hints fh;
	struct xio_rx_hints h;

	if (!fc->hints) {
		xio_process(&fc->cfg, segs, nseg, NULL, res);
		return;
	}
	fuzz_true_hints(frame, fc->cuts[fc->nseg], &fh);
	h.ip_csum = fh.ip;
	h.l4_csum = fh.l4;
	xio_process(&fc->cfg, segs, nseg, &h, res);
}

static int is_invalid(enum xio_reason r)
{
	return r == XIO_R_BAD_LENGTH || r == XIO_R_BAD_IP_CSUM || r == XIO_R_BAD_UDP_CSUM ||
	       r == XIO_R_BAD_HEADER || r == XIO_R_UNSUPPORTED || r == XIO_R_BAD_CRC;
}

/* The action the configuration gives a reason (rewrites aside). */
static enum xio_action action_of(const struct xio_stage_cfg *cfg, enum xio_reason r)
{
	if (r == XIO_R_NARROWED)
		return XIO_ACT_REWRITTEN;
	if (r == XIO_R_OUT_OF_RANGE)
		return cfg->overflow == XIO_OVERFLOW_SATURATE ? XIO_ACT_REWRITTEN
		       : cfg->overflow == XIO_OVERFLOW_DROP   ? XIO_ACT_DROP
							      : XIO_ACT_FORWARD;
	return cfg->drop_invalid && is_invalid(r) ? XIO_ACT_DROP : XIO_ACT_FORWARD;
}

static void check_result(const struct fuzz_case *fc, const uint8_t *in, uint32_t len,
			 const uint8_t *out, const struct xio_result *res)
{
	struct xio_counters c;
	uint64_t sum = 0;
	char why[256];

	if (res->reason >= XIO_R_COUNT)
		die(fc, "reason out of range", NULL);
	memset(&c, 0, sizeof(c));
	xio_counters_account(&c, len, res);
	for (unsigned r = 0; r < XIO_R_COUNT; r++)
		sum += c.reasons[r];
	if (sum != 1 || c.rx_packets != c.tx_packets + c.dropped_packets)
		die(fc, "frame not counted under exactly one reason", NULL);
	if (res->action != action_of(&fc->cfg, (enum xio_reason)res->reason))
		die(fc, "action does not follow from the reason", xio_reason_name(res->reason));
	if (res->action == XIO_ACT_FORWARD && (res->out_len != len || memcmp(out, in, len) != 0))
		die(fc, "forwarded frame not byte-identical", xio_reason_name(res->reason));
	if (res->action == XIO_ACT_REWRITTEN &&
	    fuzz_check_narrowed(in, len, out, res->out_len, fc->cfg.udp_port,
				fc->cfg.overflow == XIO_OVERFLOW_SATURATE, res->tokens,
				res->saturated, why, sizeof(why)) < 0)
		die(fc, "narrowed frame fails the independent check", why);
}

/* The same frame through the reference model: reason, action and bytes. */
static void check_model(const struct fuzz_case *fc, const uint8_t *in, uint32_t len,
			const uint8_t *out, const struct xio_result *res)
{
	static const enum xio_ref_policy pol[] = { [XIO_OVERFLOW_KEEP] = REF_KEEP,
						   [XIO_OVERFLOW_SATURATE] = REF_SATURATE,
						   [XIO_OVERFLOW_DROP] = REF_DROP };
	static const enum xio_action act[] = { [REF_FORWARD] = XIO_ACT_FORWARD,
					       [REF_REWRITE] = XIO_ACT_REWRITTEN,
					       [REF_DISCARD] = XIO_ACT_DROP };
	struct xio_ref_cfg rc = { fc->cfg.udp_port, pol[fc->cfg.overflow], fc->cfg.drop_invalid };
	struct xio_ref_result rr;
	uint8_t *want = malloc(len ? len : 1);
	char detail[128];

	xio_ref_process(&rc, in, len, want, &rr);
	snprintf(detail, sizeof(detail), "stage core %s, model %s",
		 xio_reason_name(res->reason), xio_ref_reason_name(rr.reason));
	if (strcmp(xio_reason_name(res->reason), xio_ref_reason_name(rr.reason)) != 0)
		die(fc, "reason differs from the reference model", detail);
	if (res->action != act[rr.action])
		die(fc, "action differs from the reference model", detail);
	if (res->action != XIO_ACT_DROP &&
	    (res->out_len != rr.out_len || memcmp(out, want, rr.out_len) != 0))
		die(fc, "output differs from the reference model", detail);
	if (res->action == XIO_ACT_REWRITTEN &&
	    (res->tokens != rr.tokens || res->saturated != rr.saturated))
		die(fc, "token counts differ from the reference model", detail);
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xio_result one, split;
	struct xio_seg seg, segs[MAX_SEGS];
	struct fuzz_case fc;
	uint32_t len;
	uint8_t *frame, *gathered;
	unsigned i;

	if (size < PREFIX || size - PREFIX > 65535)
		return 0;
	len = (uint32_t)(size - PREFIX);
	decode(data, len, &fc);
	if (xio_narrow_select(fc.kernel) < 0)
		die(&fc, "cannot select kernel", fc.kernel);
	frame = malloc(len ? len : 1);
	memcpy(frame, data + PREFIX, len);
	fuzz_fix(frame, len, fc.fix);

	/* one buffer, exactly the frame's size */
	seg.len = len;
	seg.data = malloc(len ? len : 1);
	memcpy(seg.data, frame, len);
	run(&fc, &seg, 1, frame, &one);
	check_result(&fc, frame, len, seg.data, &one);
	check_model(&fc, frame, len, seg.data, &one);

	/* segments, each exactly its size (malloc(0) for an empty one) */
	for (i = 0; i < fc.nseg; i++) {
		segs[i].len = fc.cuts[i + 1] - fc.cuts[i];
		segs[i].data = malloc(segs[i].len);
		if (segs[i].len)
			memcpy(segs[i].data, frame + fc.cuts[i], segs[i].len);
	}
	run(&fc, segs, fc.nseg, frame, &split);
	gathered = malloc(len ? len : 1);
	for (i = 0; i < fc.nseg; i++) {
		if (segs[i].len)
			memcpy(gathered + fc.cuts[i], segs[i].data, segs[i].len);
		free(segs[i].data);
	}
	if (one.reason != split.reason || one.action != split.action ||
	    one.out_len != split.out_len || one.tokens != split.tokens ||
	    one.saturated != split.saturated)
		die(&fc, "segmented result differs from one buffer", xio_reason_name(split.reason));
	if (one.action != XIO_ACT_DROP && memcmp(seg.data, gathered, one.out_len) != 0)
		die(&fc, "segmented output bytes differ from one buffer", NULL);
	free(gathered);
	free(seg.data);
	free(frame);
	return 0;
}
