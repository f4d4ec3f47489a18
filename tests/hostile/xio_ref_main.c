/* SPDX-License-Identifier: BSD-3-Clause
 * xio_ref_main.c: xio-ref-model, the reference model as a program. Reads a
 * capture and writes what a pipeline must transmit (expected.pcap) and the
 * counters it must end with (expected.json), from xio_ref.c alone: no stage
 * core and no project capture module.
 *
 *   xio-ref-model --in IN.pcap --out EXPECTED.pcap --json EXPECTED.json
 *                 [--udp-port P] [--overflow keep|saturate|drop] [--drop-invalid]
 */
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xio_ref.h"

struct totals {
	unsigned long long rx, tx, dropped, narrowed, tokens, saturated, bytes_in, bytes_out;
	unsigned long long reasons[REF_NREASONS];
};

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s --in IN.pcap --out EXPECTED.pcap --json EXPECTED.json\n"
		"          [--udp-port P] [--overflow keep|saturate|drop] [--drop-invalid]\n",
		prog);
}

static int parse_args(int argc, char **argv, struct xio_ref_cfg *cfg, const char **in,
		      const char **out, const char **json)
{
	static const struct option opts[] = {
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "udp-port", required_argument, NULL, 'p' },
		{ "overflow", required_argument, NULL, 'f' },
		{ "drop-invalid", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cfg->port = 7910;
	cfg->policy = REF_KEEP;
	cfg->drop_invalid = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i': *in = optarg; break;
		case 'o': *out = optarg; break;
		case 'j': *json = optarg; break;
		case 'p': cfg->port = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'd': cfg->drop_invalid = 1; break;
		case 'f':
			if (strcmp(optarg, "keep") == 0)
				cfg->policy = REF_KEEP;
			else if (strcmp(optarg, "saturate") == 0)
				cfg->policy = REF_SATURATE;
			else if (strcmp(optarg, "drop") == 0)
				cfg->policy = REF_DROP;
			else
				return -1;
			break;
		default: return -1;
		}
	}
	return *in && *out && *json ? 0 : -1;
}

/* Keys sorted, as in ../shared/vectors/NAME/expected.json. */
static int write_json(const char *path, const struct totals *t)
{
	static const enum xio_ref_reason order[REF_NREASONS] = {
		REF_ALREADY_NARROW, REF_BAD_CRC, REF_BAD_HEADER, REF_BAD_IP_CSUM, REF_BAD_LENGTH,
		REF_BAD_UDP_CSUM, REF_IP_FRAGMENT, REF_NARROWED, REF_NOT_IP, REF_NOT_REPLY,
		REF_NOT_UDP, REF_OTHER_PORT, REF_OUT_OF_RANGE, REF_TRUNCATED, REF_UNSUPPORTED,
	};
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "{\n \"bytes_in\": %llu,\n \"bytes_out\": %llu,\n \"dropped_packets\": %llu,\n",
		t->bytes_in, t->bytes_out, t->dropped);
	fprintf(f, " \"narrowed_packets\": %llu,\n \"reasons\": {\n", t->narrowed);
	for (int i = 0; i < REF_NREASONS; i++)
		fprintf(f, "  \"%s\": %llu%s\n", xio_ref_reason_name(order[i]), t->reasons[order[i]],
			i + 1 < REF_NREASONS ? "," : "");
	fprintf(f, " },\n \"rx_packets\": %llu,\n \"tokens_narrowed\": %llu,\n", t->rx, t->tokens);
	fprintf(f, " \"tokens_saturated\": %llu,\n \"tx_packets\": %llu\n}\n", t->saturated, t->tx);
	return fclose(f);
}

int main(int argc, char **argv)
{
	const char *in_path = NULL, *out_path = NULL, *json_path = NULL;
	char err[PCAP_ERRBUF_SIZE];
	struct xio_ref_cfg cfg;
	struct totals t;
	struct pcap_pkthdr *ph;
	const u_char *bytes;
	pcap_t *in, *dead;
	pcap_dumper_t *out;
	int rc;

	if (parse_args(argc, argv, &cfg, &in_path, &out_path, &json_path) < 0) {
		usage(argv[0]);
		return 2;
	}
	in = pcap_open_offline(in_path, err);
	if (!in) {
		fprintf(stderr, "xio-ref-model: %s\n", err);
		return 1;
	}
	dead = pcap_open_dead(DLT_EN10MB, 262144);
	out = pcap_dump_open(dead, out_path);
	if (!out) {
		fprintf(stderr, "xio-ref-model: %s: %s\n", out_path, pcap_geterr(dead));
		return 1;
	}
	memset(&t, 0, sizeof(t));
	while ((rc = pcap_next_ex(in, &ph, &bytes)) == 1) {
		uint8_t *frame = malloc(ph->caplen + 1);
		struct xio_ref_result res;
		struct pcap_pkthdr oh = *ph;

		if (!frame)
			return 1;
		xio_ref_process(&cfg, bytes, ph->caplen, frame, &res);
		t.rx++;
		t.bytes_in += ph->caplen;
		t.reasons[res.reason]++;
		if (res.action == REF_DISCARD) {
			t.dropped++;
		} else {
			t.tx++;
			t.bytes_out += res.out_len;
			if (res.action == REF_REWRITE) {
				t.narrowed++;
				t.tokens += res.tokens;
				t.saturated += res.saturated;
			}
			oh.caplen = oh.len = (bpf_u_int32)res.out_len;
			pcap_dump((u_char *)out, &oh, frame);
		}
		free(frame);
	}
	if (rc == -1) {
		fprintf(stderr, "xio-ref-model: %s: %s\n", in_path, pcap_geterr(in));
		return 1;
	}
	pcap_close(in);
	pcap_dump_close(out);
	pcap_close(dead);
	if (write_json(json_path, &t) != 0) {
		perror(json_path);
		return 1;
	}
	return 0;
}
