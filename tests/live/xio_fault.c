/* SPDX-License-Identifier: BSD-3-Clause
 * xio-fault: attaches the live test's fault-injection program
 * (tests/live/xio_fault.bpf.c) to a tc clsact egress hook of an interface, runs
 * until SIGINT/SIGTERM, then detaches it and writes what it did as JSON.
 *
 *   xio-fault --dev IF [--port P] [--tcp-port P] [--seed N] [--loss P] [--dup P]
 *             [--reorder P] [--max-loss N] [--max-dup N] [--max-reorder N]
 *             [--stats-json FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xio_main.h"
#include "xio_fault.h"
#include "xio_fault.skel.h"

struct opts {
	const char *dev;
	const char *stats_json;
	double loss, dup, reorder;
	struct xio_fault_cfg cfg;
};

static void usage(void)
{
	printf("Usage: %s --dev IF [options]\n\n"
	       "Drops, duplicates and reorders XIO datagrams from the XIO port leaving IF (tc\n"
	       "egress), from a seeded PRNG, until SIGINT/SIGTERM.\n"
	       "Every other frame (ARP, requests, other ports) passes untouched.\n\n"
	       "  --dev IF            the interface (a clsact qdisc is added if missing)\n"
	       "  --port P            the XIO port: datagrams from it are faulted (7910)\n"
	       "  --tcp-port P        also drop TCP segments with data from port P with\n"
	       "                      --loss's probability (a TCP baseline's; default none)\n"
	       "  --seed N            PRNG seed (default 1)\n"
	       "  --loss P            probability of a drop, 0..1 (default 0)\n"
	       "  --dup P             probability of a duplicate, 0..1 (default 0)\n"
	       "  --reorder P         probability of holding a datagram back behind the\n"
	       "                      next one, 0..1 (default 0); the three add up to <= 1\n"
	       "  --max-loss N, --max-dup N, --max-reorder N\n"
	       "                      most faults of each kind (default: no limit)\n"
	       "  --stats-json FILE   the counters at exit\n"
	       "  --help, --version\n\n"
	       "Prints \"xio-fault: attached\" when the program is in place.\n",
	       xio_cli_prog());
}

static void parse(int argc, char **argv, struct opts *o)
{
	enum { O_DEV = 256, O_PORT, O_SEED, O_LOSS, O_DUP, O_REORDER, O_MAX_LOSS,
	       O_MAX_DUP, O_MAX_REORDER, O_STATS, O_HELP, O_VERSION, O_TCP_PORT };
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, O_DEV },
		{ "port", required_argument, NULL, O_PORT },
		{ "seed", required_argument, NULL, O_SEED },
		{ "loss", required_argument, NULL, O_LOSS },
		{ "dup", required_argument, NULL, O_DUP },
		{ "reorder", required_argument, NULL, O_REORDER },
		{ "max-loss", required_argument, NULL, O_MAX_LOSS },
		{ "max-dup", required_argument, NULL, O_MAX_DUP },
		{ "max-reorder", required_argument, NULL, O_MAX_REORDER },
		{ "stats-json", required_argument, NULL, O_STATS },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ "tcp-port", required_argument, NULL, O_TCP_PORT },
		{ NULL, 0, NULL, 0 },
	};
	const double scale = 4294967296.0;
	int c;

	memset(o, 0, sizeof(*o));
	o->cfg.port = 7910;
	o->cfg.seed = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		const char *name = c >= O_DEV && c <= O_VERSION ? longopts[c - O_DEV].name : "";

		switch (c) {
		case O_DEV: o->dev = optarg; break;
		case O_PORT: o->cfg.port = (uint16_t)xio_main_num(name, optarg, 1, 65535); break;
		case O_TCP_PORT:
			o->cfg.tcp_port = (uint16_t)xio_main_num("tcp-port", optarg, 1, 65535);
			break;
		case O_SEED: o->cfg.seed = xio_main_num(name, optarg, 0, UINT64_MAX); break;
		case O_LOSS: o->loss = xio_main_real(name, optarg, 0, 1); break;
		case O_DUP: o->dup = xio_main_real(name, optarg, 0, 1); break;
		case O_REORDER: o->reorder = xio_main_real(name, optarg, 0, 1); break;
		case O_MAX_LOSS: o->cfg.max_loss = xio_main_num(name, optarg, 1, UINT32_MAX); break;
		case O_MAX_DUP: o->cfg.max_dup = xio_main_num(name, optarg, 1, UINT32_MAX); break;
		case O_MAX_REORDER: o->cfg.max_reorder = xio_main_num(name, optarg, 1, UINT32_MAX); break;
		case O_STATS: o->stats_json = optarg; break;
		case O_HELP: usage(); exit(0);
		case O_VERSION: xio_main_version();
		case ':': xio_main_usage("option '%s' needs a value", argv[optind - 1]);
		default: xio_main_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		xio_main_usage("unexpected argument '%s'", argv[optind]);
	if (!o->dev)
		xio_main_usage("--dev IF is required");
	if (o->loss + o->dup + o->reorder > 1.0)
		xio_main_usage("--loss + --dup + --reorder is %g, more than 1",
				    o->loss + o->dup + o->reorder);
	o->cfg.t_loss = (uint64_t)(o->loss * scale + 0.5);
	o->cfg.t_dup = (uint64_t)((o->loss + o->dup) * scale + 0.5);
	o->cfg.t_reorder = (uint64_t)((o->loss + o->dup + o->reorder) * scale + 0.5);
}

static void write_json(const char *path, const __u64 *c)
{
	static const char *const names[] = XIO_FAULT_COUNTER_NAMES;
	FILE *f = fopen(path, "w");
	int i;

	if (!f)
		xio_main_fail("%s: %s", path, strerror(errno));
	fputc('{', f);
	for (i = 0; i < XIO_FAULT_NCOUNTERS; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", names[i], (unsigned long long)c[i]);
	fputs("}\n", f);
	if (fclose(f))
		xio_main_fail("%s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	static const char *const names[] = XIO_FAULT_COUNTER_NAMES;
	struct xio_fault_bpf *skel;
	struct opts o;
	sigset_t set;
	int sig, err, i;

	xio_cli_init(argv[0]);
	parse(argc, argv, &o);
	unsigned ifindex = if_nametoindex(o.dev);
	if (!ifindex)
		xio_main_fail("--dev %s: no such interface", o.dev);
	if (o.stats_json) /* writable before anything is attached */
		write_json(o.stats_json, (__u64[XIO_FAULT_NCOUNTERS]){ 0 });

	/* SIGINT/SIGTERM are taken with sigwait, never by surprise */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	skel = xio_fault_bpf__open();
	if (!skel)
		xio_main_fail("cannot open the BPF program: %s", strerror(errno));
	skel->data->xio_fault_cfg = o.cfg;
	err = xio_fault_bpf__load(skel);
	if (err)
		xio_main_fail("cannot load the BPF program: %s", strerror(-err));

	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)ifindex,
			    .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, tc, .handle = 1, .priority = 1,
			    .prog_fd = bpf_program__fd(skel->progs.xio_fault));
	err = bpf_tc_hook_create(&hook);
	bool created = !err;
	if (err && err != -EEXIST)
		xio_main_fail("%s: cannot add the clsact qdisc: %s", o.dev, strerror(-err));
	err = bpf_tc_attach(&hook, &tc);
	if (err)
		xio_main_fail("%s: cannot attach at egress: %s", o.dev, strerror(-err));
	printf("xio-fault: attached to %s egress, seed %llu, loss %g dup %g reorder %g\n", o.dev,
	       (unsigned long long)o.cfg.seed, o.loss, o.dup, o.reorder);
	fflush(stdout);

	sigwait(&set, &sig);

	tc.prog_fd = tc.prog_id = tc.flags = 0;
	err = bpf_tc_detach(&hook, &tc);
	if (err)
		fprintf(stderr, "%s: %s: detach: %s\n", xio_cli_prog(), o.dev, strerror(-err));
	if (created) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
	printf("xio-fault:");
	for (i = 0; i < XIO_FAULT_NCOUNTERS; i++)
		printf(" %s %llu", names[i], (unsigned long long)skel->bss->xio_fault_count[i]);
	printf("\n");
	if (o.stats_json)
		write_json(o.stats_json, skel->bss->xio_fault_count);
	xio_fault_bpf__destroy(skel);
	return err ? 1 : 0;
}
