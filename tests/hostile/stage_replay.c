/* SPDX-License-Identifier: BSD-3-Clause
 * stage_replay.c: xio-stage-replay, a capture through the stage core alone,
 * the way a driver would do it: frame by frame, transmitted frames written to
 * a capture and the counters to the stats JSON. With --segments each frame
 * is first cut into 1-4 segments at seeded places, each in its own
 * exactly-sized allocation, as a multi-segment mbuf chain delivers it.
 *
 *   xio-stage-replay --in IN.pcap --out OUT.pcap --json OUT.json
 *                    [--udp-port P] [--overflow keep|saturate|drop]
 *                    [--drop-invalid] [--segments SEED]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_counters.h"
#include "xio_pcap.h"
#include "xio_stage.h"

#define MAX_SEGS 4

struct replay {
	struct xio_stage_cfg cfg;
	const char *in, *out, *json;
	int segments;
	uint64_t seed;
};

static int parse_args(int argc, char **argv, struct replay *r)
{
	static const struct option opts[] = {
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "udp-port", required_argument, NULL, 'p' },
		{ "overflow", required_argument, NULL, 'f' },
		{ "drop-invalid", no_argument, NULL, 'd' },
		{ "segments", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	xio_stage_cfg_default(&r->cfg);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i': r->in = optarg; break;
		case 'o': r->out = optarg; break;
		case 'j': r->json = optarg; break;
		case 'p': r->cfg.udp_port = (uint16_t)strtoul(optarg, NULL, 10); break;
		case 'd': r->cfg.drop_invalid = true; break;
		case 's':
			r->segments = 1;
			r->seed = strtoull(optarg, NULL, 0) * 2 + 1; /* xorshift: never 0 */
			break;
		case 'f':
			if (xio_overflow_parse(optarg, &r->cfg.overflow) < 0)
				return -1;
			break;
		default: return -1;
		}
	}
	return r->in && r->out && r->json ? 0 : -1;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Processes one frame cut into segments; the output is gathered into out. */
static int process_segments(struct replay *r, const uint8_t *in, uint32_t len, uint8_t *out,
			    struct xio_result *res)
{
	struct xio_seg segs[MAX_SEGS];
	uint32_t cuts[MAX_SEGS + 1];
	unsigned n = 1 + (unsigned)(next_rand(&r->seed) % MAX_SEGS), i, j;

	cuts[0] = 0;
	cuts[n] = len;
	for (i = 1; i < n; i++) /* sorted cut points in [0, len] */
		cuts[i] = len ? (uint32_t)(next_rand(&r->seed) % (len + 1)) : 0;
	for (i = 1; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (cuts[j] < cuts[i]) {
				uint32_t t = cuts[i];

				cuts[i] = cuts[j];
				cuts[j] = t;
			}
	for (i = 0; i < n; i++) {
		segs[i].len = cuts[i + 1] - cuts[i];
		segs[i].data = malloc(segs[i].len ? segs[i].len : 1);
		if (!segs[i].data)
			return -1;
		memcpy(segs[i].data, in + cuts[i], segs[i].len);
	}
	xio_process(&r->cfg, segs, n, NULL, res);
	for (i = 0; i < n; i++) {
		memcpy(out + cuts[i], segs[i].data, segs[i].len);
		free(segs[i].data);
	}
	return 0;
}

static int replay(struct replay *r, struct xio_counters *c)
{
	char err[XIO_PCAP_ERRLEN];
	struct xio_pcap_reader *rd = xio_pcap_open_read(r->in, err, sizeof(err));
	struct xio_pcap_writer *wr;
	struct xio_pcap_pkt pkt;
	int rc;

	if (!rd) {
		fprintf(stderr, "xio-stage-replay: %s\n", err);
		return -1;
	}
	wr = xio_pcap_open_write(r->out, false, err, sizeof(err));
	if (!wr) {
		fprintf(stderr, "xio-stage-replay: %s\n", err);
		return -1;
	}
	while ((rc = xio_pcap_next(rd, &pkt, err, sizeof(err))) == 1) {
		uint8_t *frame = malloc(pkt.caplen ? pkt.caplen : 1);
		struct xio_result res;

		if (!frame)
			return -1;
		if (r->segments) {
			if (process_segments(r, pkt.data, pkt.caplen, frame, &res) < 0)
				return -1;
		} else {
			memcpy(frame, pkt.data, pkt.caplen);
			xio_process_buf(&r->cfg, frame, pkt.caplen, &res);
		}
		xio_counters_account(c, pkt.caplen, &res);
		if (res.action != XIO_ACT_DROP &&
		    xio_pcap_write(wr, frame, res.out_len, res.out_len, pkt.ts_ns, err, sizeof(err)) < 0) {
			fprintf(stderr, "xio-stage-replay: %s\n", err);
			return -1;
		}
		free(frame);
	}
	if (rc < 0) {
		fprintf(stderr, "xio-stage-replay: %s\n", err);
		return -1;
	}
	xio_pcap_close_read(rd);
	if (xio_pcap_close_write(wr, err, sizeof(err)) < 0) {
		fprintf(stderr, "xio-stage-replay: %s\n", err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct replay r;
	struct xio_counters c;
	struct xio_json j;
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	if (parse_args(argc, argv, &r) < 0) {
		fprintf(stderr,
			"usage: %s --in IN.pcap --out OUT.pcap --json OUT.json [--udp-port P]\n"
			"          [--overflow keep|saturate|drop] [--drop-invalid] [--segments SEED]\n",
			argv[0]);
		return 2;
	}
	if (replay(&r, &c) < 0)
		return 1;
	xio_json_init(&j);
	xio_json_begin_object(&j, NULL);
	xio_counters_json(&j, &c);
	xio_json_double(&j, "elapsed_s", 0.0, 6);
	xio_json_end_object(&j);
	rc = xio_json_save(&j, r.json);
	xio_json_free(&j);
	if (rc < 0) {
		fprintf(stderr, "xio-stage-replay: %s: %s\n", r.json, strerror(errno));
		return 1;
	}
	return 0;
}
