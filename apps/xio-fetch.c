/* SPDX-License-Identifier: BSD-3-Clause
 * xio-fetch: reads an INT32 token file (or a Megatron-LM int32 dataset)
 * from an XIO server into a UINT16 file a trainer reads: raw tokens, a
 * Megatron-LM .bin/.idx pair, or an llm.c shard, from one server or spread
 * over a list of servers exporting the same files. Tokens go straight from
 * the socket into the mapped output; the output appears whole under its
 * name at the end or not at all. Exit 0: done; 1: the read failed; 2: bad
 * command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xio.h"
#include "xio_json.h"
#include "xio_main.h"
#include "xio_time.h"

enum format { FMT_RAW, FMT_MEGATRON, FMT_LLMC };
static const char *const format_names[] = { "raw", "megatron", "llmc" };

struct fetch_opts {
	const char *server, *path, *out, *stats_json;
	enum format format;
	uint64_t first, count;
	bool have_first, have_count, have_rank, have_world;
	uint32_t rank, world;
	int progress; /* -1: on a terminal, 0: never (--quiet), 1: always */
	struct xio_opts xo;
};

/* An output being written: a temporary file renamed over `path` at the end. */
struct output {
	const char *path;
	char tmp[4096];
	int fd;
	int which; /* its place in live_outputs */
	uint8_t *map;
	size_t len;
};

/* Temporaries to remove when a signal ends the run. */
static struct output *live_outputs[2];

struct progress {
	bool on, tty;
	uint64_t start_ns, last_ns;
	uint64_t total;       /* tokens to read */
};

struct fetch {
	struct fetch_opts o;
	struct xio_client *c;
	struct progress p;
	uint64_t tokens;
};

static struct xio_client *progress_client; /* for the servers' shares */

static void fetch_fail(struct fetch *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s --server HOST[:PORT][,HOST[:PORT]...] PATH --out OUT [options]\n"
		"Reads the INT32 token file PATH from an XIO server as UINT16 tokens into OUT.\n"
		"\n"
		"  --server HOST[:PORT]   the server (IPv4, IPv6 as [ADDR]:PORT, a name); port 7910;\n"
		"                         a comma-separated list of servers exporting the same\n"
		"                         files spreads the read over them (a server that stops\n"
		"                         answering is dropped, the others read its part)\n"
		"  --strict-mtime         with a list: refuse a file whose copies' mtimes differ\n"
		"                         (default: a warning)\n"
		"  --out OUT              the output; written to a temporary name, renamed when whole\n"
		"  --format raw|megatron|llmc\n"
		"                         raw (default): OUT holds the UINT16 tokens\n"
		"                         megatron: PATH is a Megatron-LM int32 dataset prefix\n"
		"                           (PATH.bin, PATH.idx); writes OUT.bin and OUT.idx (uint16)\n"
		"                         llmc: an llm.c shard, 256 int32 header then UINT16 tokens\n"
		"  --first N              first token to read (0)\n"
		"  --count N              tokens to read (all to the end of the file)\n"
		"  --rank R --world W     read only the R-th of W contiguous parts of the range\n"
		"  --crc                  ask for CRC32C on every datagram and check it\n"
		"  --overflow error|saturate\n"
		"                         a token outside 0..65535: fail naming it (default) or clamp\n"
		"  --chunk N              tokens per request (262144)\n"
		"  --window N             most requests outstanding per flow (32)\n"
		"  --timeout-ms N         first timeout and ceiling of the adaptive one (500)\n"
		"  --retries N            timeouts in a row before giving up (8)\n"
		"  --no-gro               receive datagrams one by one (default: UDP_GRO trains)\n"
		"  --flows N              UDP sockets and threads of the read in all, 1..64, at\n"
		"                         least one a server (the CPUs this process may use, at\n"
		"                         most 4)\n"
		"  --progress             a progress line even when stderr is not a terminal\n"
		"  --quiet                no progress and no summary\n"
		"  --stats-json FILE      counters as JSON when done (also on failure)\n"
		"  --help, --version\n"
		"\n"
		"Exit status: 0 done, 1 the read failed (nothing written), 2 bad command line.\n",
		xio_cli_prog());
}

static enum format parse_format(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, format_names[i]) == 0)
			return (enum format)i;
	xio_main_usage("--format '%s': expected raw, megatron or llmc", s);
}

static void check_args(struct fetch_opts *o)
{
	if (!o->server)
		xio_main_usage("--server HOST[:PORT] is required");
	if (!o->path)
		xio_main_usage("PATH (the file on the server) is required");
	if (!o->out)
		xio_main_usage("--out OUT is required");
	if (o->have_rank != o->have_world)
		xio_main_usage("--rank and --world go together");
	if (o->have_rank && o->rank >= o->world)
		xio_main_usage("--rank %u: must be below --world %u", o->rank, o->world);
	if (o->format == FMT_MEGATRON && (o->have_first || o->have_count || o->have_rank))
		xio_main_usage("--format megatron reads whole datasets: --first, --count, "
				    "--rank and --world do not apply");
	if (o->have_count && o->count == 0)
		xio_main_usage("--count 0: nothing to read");
}

static void parse_args(int argc, char **argv, struct fetch_opts *o)
{
	enum { O_SERVER = 256, O_OUT, O_FORMAT, O_FIRST, O_COUNT, O_CRC, O_OVERFLOW, O_CHUNK,
	       O_WINDOW, O_TIMEOUT, O_RETRIES, O_RANK, O_WORLD, O_PROGRESS, O_QUIET, O_STATS,
	       O_HELP, O_VERSION, O_NO_GRO, O_FLOWS, O_STRICT_MTIME };
	static const struct option longopts[] = {
		{ "server", required_argument, NULL, O_SERVER },
		{ "out", required_argument, NULL, O_OUT },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "first", required_argument, NULL, O_FIRST },
		{ "count", required_argument, NULL, O_COUNT },
		{ "crc", no_argument, NULL, O_CRC },
		{ "overflow", required_argument, NULL, O_OVERFLOW },
		{ "chunk", required_argument, NULL, O_CHUNK },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "timeout-ms", required_argument, NULL, O_TIMEOUT },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "rank", required_argument, NULL, O_RANK },
		{ "world", required_argument, NULL, O_WORLD },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "stats-json", required_argument, NULL, O_STATS },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ "no-gro", no_argument, NULL, O_NO_GRO },
		{ "flows", required_argument, NULL, O_FLOWS },
		{ "strict-mtime", no_argument, NULL, O_STRICT_MTIME },
		{ NULL, 0, NULL, 0 },
	};
	bool progress = false, quiet = false;
	int c;

	memset(o, 0, sizeof(*o));
	xio_opts_init(&o->xo);
	o->world = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		const char *name = c >= O_SERVER && c <= O_STRICT_MTIME ? longopts[c - O_SERVER].name : "";

		switch (c) {
		case O_SERVER: o->server = optarg; break;
		case O_OUT: o->out = optarg; break;
		case O_FORMAT: o->format = parse_format(optarg); break;
		case O_FIRST: o->first = xio_main_num(name, optarg, 0, INT64_MAX); o->have_first = true; break;
		case O_COUNT: o->count = xio_main_num(name, optarg, 0, INT64_MAX); o->have_count = true; break;
		case O_CRC: o->xo.crc = 1; break;
		case O_OVERFLOW:
			if (strcmp(optarg, "error") && strcmp(optarg, "saturate"))
				xio_main_usage("--overflow '%s': expected error or saturate", optarg);
			o->xo.saturate = strcmp(optarg, "saturate") == 0;
			break;
		case O_CHUNK: o->xo.chunk_tokens = (uint32_t)xio_main_num(name, optarg, 1, 16777216); break;
		case O_WINDOW: o->xo.window = (uint32_t)xio_main_num(name, optarg, 1, 256); break;
		case O_TIMEOUT: o->xo.timeout_ms = (uint32_t)xio_main_num(name, optarg, 1, 3600000); break;
		case O_RETRIES: o->xo.retries = (uint32_t)xio_main_num(name, optarg, 0, 1000); break;
		case O_RANK: o->rank = (uint32_t)xio_main_num(name, optarg, 0, 1u << 20); o->have_rank = true; break;
		case O_WORLD: o->world = (uint32_t)xio_main_num(name, optarg, 1, 1u << 20); o->have_world = true; break;
		case O_PROGRESS: progress = true; break;
		case O_QUIET: quiet = true; break;
		case O_STATS: o->stats_json = optarg; break;
		case O_NO_GRO: o->xo.gro = 0; break;
		case O_FLOWS: o->xo.flows = (uint32_t)xio_main_num(name, optarg, 1, 64); break;
		case O_STRICT_MTIME: o->xo.strict_mtime = 1; break;
		case O_HELP: usage(stdout); exit(0);
		case O_VERSION: xio_main_version();
		case ':': xio_main_usage("option '%s' needs a value", argv[optind - 1]);
		default: xio_main_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc)
		xio_main_usage("unexpected argument '%s' (one PATH only)", argv[optind]);
	if (progress && quiet)
		xio_main_usage("--progress and --quiet exclude each other");
	o->progress = quiet ? 0 : progress ? 1 : -1;
	check_args(o);
}

/* ---- output files ---- */

static void on_signal(int sig)
{
	for (int i = 0; i < 2; i++)
		if (live_outputs[i])
			unlink(live_outputs[i]->tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Creates the temporary beside path, len bytes reserved on disk (so that a
 * full disk fails here, not as SIGBUS in the mapping), mapped. */
static void output_open(struct fetch *x, struct output *out, int which, const char *path,
			size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;

	memset(out, 0, sizeof(*out));
	out->path = path;
	out->len = len;
	if (snprintf(out->tmp, sizeof(out->tmp), "%.*s.%s.xio-XXXXXX", dirlen, path,
		     path + dirlen) >= (int)sizeof(out->tmp))
		fetch_fail(x, "%s: path too long", path);
	out->fd = mkstemp(out->tmp);
	if (out->fd < 0)
		fetch_fail(x, "%s: cannot create a file beside it: %s", path, strerror(errno));
	out->which = which;
	live_outputs[which] = out;
	if (ftruncate(out->fd, (off_t)len) < 0)
		fetch_fail(x, "%s: cannot size it to %zu bytes: %s", out->tmp, len, strerror(errno));
	if (len && fallocate(out->fd, 0, 0, (off_t)len) < 0 && errno != EOPNOTSUPP)
		fetch_fail(x, "%s: cannot reserve %zu bytes: %s", out->tmp, len, strerror(errno));
	if (len) {
		out->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, out->fd, 0);
		if (out->map == MAP_FAILED)
			fetch_fail(x, "%s: cannot map it: %s", out->tmp, strerror(errno));
	}
}

/* Writes the file out to disk and gives it its name. */
static void output_commit(struct fetch *x, struct output *out)
{
	mode_t um = umask(0);

	umask(um);
	if (out->len && munmap(out->map, out->len) < 0)
		fetch_fail(x, "%s: %s", out->tmp, strerror(errno));
	if (fchmod(out->fd, 0666 & ~um) < 0 || fsync(out->fd) < 0 || close(out->fd) < 0)
		fetch_fail(x, "%s: cannot write it out: %s", out->tmp, strerror(errno));
	if (rename(out->tmp, out->path) < 0)
		fetch_fail(x, "cannot rename %s to %s: %s", out->tmp, out->path, strerror(errno));
	live_outputs[out->which] = NULL;
}

static void outputs_discard(void)
{
	for (int i = 0; i < 2; i++)
		if (live_outputs[i]) {
			unlink(live_outputs[i]->tmp);
			live_outputs[i] = NULL;
		}
}

/* ---- progress ---- */

/* With a list: each server's share of the tokens so far, or "dropped". */
static void show_shares(struct xio_client *c)
{
	uint32_t n = c ? xio_client_server_count(c) : 0;
	struct xio_server_stats st[XIO_SERVERS_MAX];
	uint64_t sum = 0;

	if (n < 2)
		return;
	for (uint32_t i = 0; i < n; i++) {
		xio_client_server_stats(c, i, &st[i], sizeof(st[i]), NULL);
		sum += st[i].tokens;
	}
	fputs(" |", stderr);
	for (uint32_t i = 0; i < n; i++)
		if (st[i].state == XIO_SERVER_UP)
			fprintf(stderr, " %s %.0f%%", st[i].address,
				sum ? 100.0 * (double)st[i].tokens / (double)sum : 0.0);
		else
			fprintf(stderr, " %s %s", st[i].address, xio_server_state_name(st[i].state));
}

static void show_progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;
	uint64_t now, all = done;
	double el, rate, eta;
	char bar[31];
	int fill;

	now = xio_now_ns();
	if (!p->on || (done < total && now - p->last_ns < (p->tty ? 200000000u : 1000000000u)))
		return;
	p->last_ns = now;
	el = (double)(now - p->start_ns) / 1e9;
	rate = el > 0 ? (double)all / el : 0;
	eta = rate > 0 ? (double)(p->total - all) / rate : 0;
	fill = p->total ? (int)(30 * all / p->total) : 30;
	memset(bar, '#', (size_t)fill);
	memset(bar + fill, '.', (size_t)(30 - fill));
	bar[30] = '\0';
	fprintf(stderr, "%s[%s] %5.1f%% %llu/%llu tokens %.1f Mtok/s ETA %d:%02d",
		p->tty ? "\r" : "", bar, p->total ? 100.0 * (double)all / (double)p->total : 100.0,
		(unsigned long long)all, (unsigned long long)p->total, rate / 1e6, (int)eta / 60,
		(int)eta % 60);
	show_shares(progress_client);
	fputs(p->tty ? "\033[K" : "\n", stderr);
	if (p->tty && all == p->total)
		fputc('\n', stderr);
}

/* ---- the run ---- */

/* Each flow's own counters, as "flow_stats": [{...}, ...]. */
static void write_flow_stats(struct xio_json *j, struct xio_client *c)
{
	uint32_t n = c ? xio_client_flows(c) : 0;

	xio_json_begin_array(j, "flow_stats");
	for (uint32_t i = 0; i < n; i++) {
		struct xio_stats s;

		if (xio_client_flow_stats(c, i, &s, NULL) < 0)
			break;
		xio_json_begin_object(j, NULL);
		xio_json_u64(j, "tokens", s.tokens);
		xio_json_u64(j, "bytes", s.bytes);
		xio_json_u64(j, "datagrams", s.datagrams);
		xio_json_u64(j, "requests", s.requests);
		xio_json_u64(j, "re_requests", s.re_requests);
		xio_json_u64(j, "timeouts", s.timeouts);
		xio_json_u64(j, "gap_re_requests", s.gap_re_requests);
		xio_json_u64(j, "duplicates", s.duplicates);
		xio_json_u64(j, "srtt_us", s.srtt_us);
		xio_json_u64(j, "cwnd", s.cwnd);
		xio_json_end_object(j);
	}
	xio_json_end_array(j);
}

/* Each server's state and counters, as "servers": [{...}, ...]. */
static void write_server_stats(struct xio_json *j, struct xio_client *c)
{
	uint32_t n = c ? xio_client_server_count(c) : 0;

	xio_json_begin_array(j, "servers");
	for (uint32_t i = 0; i < n; i++) {
		struct xio_server_stats s;

		if (xio_client_server_stats(c, i, &s, sizeof(s), NULL) < 0)
			break;
		xio_json_begin_object(j, NULL);
		xio_json_str(j, "address", s.address);
		xio_json_str(j, "state", xio_server_state_name(s.state));
		xio_json_u64(j, "flows", s.flows);
		xio_json_u64(j, "tokens", s.tokens);
		xio_json_u64(j, "bytes", s.bytes);
		xio_json_u64(j, "datagrams", s.datagrams);
		xio_json_u64(j, "requests", s.requests);
		xio_json_u64(j, "re_requests", s.re_requests);
		xio_json_u64(j, "timeouts", s.timeouts);
		xio_json_u64(j, "refused", s.refused);
		xio_json_u64(j, "drops", s.drops);
		xio_json_u64(j, "rejoins", s.rejoins);
		xio_json_u64(j, "mtime_ns", s.mtime_ns);
		xio_json_u64(j, "mtime_differs", s.mtime_differs);
		if (s.last_error.code)
			xio_json_str(j, "last_error", s.last_error.msg);
		xio_json_end_object(j);
	}
	xio_json_end_array(j);
}

/* The counters as JSON; error is NULL when the run succeeded. */
static void write_stats(const struct fetch *x, const char *error)
{
	const struct fetch_opts *o = &x->o;
	double el = (double)(xio_now_ns() - x->p.start_ns) / 1e9;
	struct xio_stats s = { 0 };
	struct xio_json j;
	int rc;

	if (x->c)
		xio_client_stats(x->c, &s);
	xio_json_init(&j);
	xio_json_begin_object(&j, NULL);
	xio_json_str(&j, "status", error ? "error" : "ok");
	xio_json_str(&j, "server", o->server);
	xio_json_str(&j, "path", o->path);
	xio_json_str(&j, "format", format_names[o->format]);
	xio_json_str(&j, "output", o->out);
	xio_json_u64(&j, "tokens", s.tokens);
	xio_json_u64(&j, "bytes", s.bytes);
	xio_json_double(&j, "elapsed_s", el, 6);
	xio_json_double(&j, "tokens_per_s", el > 0 ? (double)s.tokens / el : 0.0, 0);
	xio_json_u64(&j, "datagrams", s.datagrams);
	xio_json_u64(&j, "bytes_received", s.bytes_received);
	xio_json_u64(&j, "replies_uint16", s.replies_uint16);
	xio_json_u64(&j, "replies_int32", s.replies_int32);
	xio_json_u64(&j, "data_replies", s.data_replies);
	xio_json_u64(&j, "answers", s.answers);
	xio_json_u64(&j, "requests", s.requests);
	xio_json_u64(&j, "re_requests", s.re_requests);
	xio_json_u64(&j, "timeouts", s.timeouts);
	xio_json_u64(&j, "duplicates", s.duplicates);
	xio_json_u64(&j, "crc_errors", s.crc_errors);
	xio_json_u64(&j, "malformed", s.malformed);
	xio_json_u64(&j, "ignored", s.ignored);
	xio_json_u64(&j, "clamped", s.clamped);
	xio_json_u64(&j, "refused", s.refused);
	xio_json_u64(&j, "srtt_us", s.srtt_us);
	xio_json_u64(&j, "rttvar_us", s.rttvar_us);
	xio_json_u64(&j, "rto_us", s.rto_us);
	xio_json_u64(&j, "rcvbuf", s.rcvbuf);
	xio_json_u64(&j, "chunk", o->xo.chunk_tokens);
	xio_json_u64(&j, "window", o->xo.window);
	xio_json_u64(&j, "timeout_ms", o->xo.timeout_ms);
	xio_json_u64(&j, "retries", o->xo.retries);
	xio_json_bool(&j, "crc", o->xo.crc);
	xio_json_str(&j, "overflow", o->xo.saturate ? "saturate" : "error");
	xio_json_u64(&j, "rank", o->rank);
	xio_json_u64(&j, "world", o->world);
	xio_json_u64(&j, "recv_calls", s.recv_calls);
	xio_json_u64(&j, "rx_buffers", s.rx_buffers);
	xio_json_bool(&j, "gro", s.gro);
	xio_json_u64(&j, "flows", s.flows);
	xio_json_u64(&j, "gap_re_requests", s.gap_re_requests);
	xio_json_u64(&j, "timeout_re_requests", s.timeout_re_requests);
	xio_json_u64(&j, "cwnd", s.cwnd);
	xio_json_u64(&j, "cwnd_reductions", s.cwnd_reductions);
	xio_json_u64(&j, "cookie_refreshes", s.cookie_refreshes);
	write_flow_stats(&j, x->c);
	write_server_stats(&j, x->c);
	if (error)
		xio_json_str(&j, "error", error);
	xio_json_end_object(&j);
	rc = xio_json_save(&j, o->stats_json);
	xio_json_free(&j);
	if (rc < 0)
		xio_main_fail("--stats-json %s: %s", o->stats_json, strerror(errno));
}

/* A failed run: no output, the stats with the error, exit 1. */
static void fetch_fail(struct fetch *x, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	outputs_discard();
	if (x->p.on && x->p.tty)
		fputc('\n', stderr);
	if (x->o.stats_json)
		write_stats(x, msg);
	xio_main_fail("%s", msg);
}

/* Stats a file on every server; a warning when the copies' mtimes differ
 * (--strict-mtime refuses them in xio_stat). */
static void stat_file(struct fetch *x, const char *path, struct xio_stat *st)
{
	uint32_t n = xio_client_server_count(x->c);
	struct xio_error err;
	char list[512];
	size_t len = 0;
	bool differ = false;

	if (xio_stat(x->c, path, st, &err) < 0)
		fetch_fail(x, "%s", err.msg);
	for (uint32_t i = 0; i < n && len < sizeof(list); i++) {
		struct xio_server_stats s;

		xio_client_server_stats(x->c, i, &s, sizeof(s), NULL);
		if (s.state != XIO_SERVER_UP)
			continue;
		differ |= s.mtime_ns != st->mtime_ns;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s %llu.%09llu",
					len ? ", " : "", s.address,
					(unsigned long long)(s.mtime_ns / 1000000000u),
					(unsigned long long)(s.mtime_ns % 1000000000u));
	}
	if (differ && x->o.progress != 0)
		fprintf(stderr, "%s: warning: %s: the servers' copies have different mtimes (%s); "
			"--strict-mtime refuses them\n", xio_cli_prog(), path, list);
}

/* Stats a token file: it must hold whole INT32 tokens. */
static void stat_tokens(struct fetch *x, const char *path, struct xio_stat *st)
{
	stat_file(x, path, st);
	if (!st->is_tokens)
		fetch_fail(x, "%s: %llu bytes, not a multiple of 4: not an INT32 token file", path,
			   (unsigned long long)st->size);
}

/* The range to read of a file of st->tokens tokens, after sharding. */
static void token_range(struct fetch *x, const char *path, const struct xio_stat *st,
			uint64_t *first, uint64_t *count)
{
	const struct fetch_opts *o = &x->o;

	if (o->first > st->tokens)
		fetch_fail(x, "%s: has %llu tokens: --first %llu is past its end", path,
			   (unsigned long long)st->tokens, (unsigned long long)o->first);
	if (o->have_count && o->count > st->tokens - o->first)
		fetch_fail(x, "%s: has %llu tokens: --first %llu --count %llu runs past its end",
			   path, (unsigned long long)st->tokens, (unsigned long long)o->first,
			   (unsigned long long)o->count);
	xio_shard(o->first, o->have_count ? o->count : st->tokens - o->first, o->rank, o->world,
		  first, count);
	x->p.total = *count;
}

static void read_tokens(struct fetch *x, const char *path, uint64_t first, uint64_t count,
			uint8_t *dst)
{
	struct xio_error err;

	if (count && xio_read(x->c, path, first, count, (uint16_t *)dst, &err) < 0)
		fetch_fail(x, "%s", err.msg);
	x->tokens = count;
}

/* raw and llmc: one file, an optional header, the tokens. */
static void fetch_tokens(struct fetch *x)
{
	size_t hdr = x->o.format == FMT_LLMC ? XIO_LLMC_HEADER_BYTES : 0;
	uint8_t h[XIO_LLMC_HEADER_BYTES];
	uint64_t first, count;
	struct xio_error err;
	struct output out;
	struct xio_stat st;

	stat_tokens(x, x->o.path, &st);
	token_range(x, x->o.path, &st, &first, &count);
	if (hdr && xio_llmc_header(h, count, &err) < 0)
		fetch_fail(x, "%s: %s", x->o.path, err.msg);
	output_open(x, &out, 0, x->o.out, hdr + 2 * count);
	if (hdr)
		memcpy(out.map, h, hdr);
	read_tokens(x, x->o.path, first, count, out.map + hdr);
	output_commit(x, &out);
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);

	if (!s)
		xio_main_fail("out of memory");
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

/* megatron: PATH.idx read RAW and checked first, then PATH.bin narrowed. */
static void fetch_megatron(struct fetch *x)
{
	char *idx_path = join(x->o.path, ".idx"), *bin_path = join(x->o.path, ".bin");
	char *out_idx = join(x->o.out, ".idx"), *out_bin = join(x->o.out, ".bin");
	struct xio_megatron_idx info;
	struct output idx, bin;
	struct xio_stat ist, bst;
	struct xio_error err;
	uint64_t first, count;

	stat_file(x, idx_path, &ist);
	stat_file(x, bin_path, &bst);
	output_open(x, &idx, 0, out_idx, ist.size);
	if (ist.size && xio_read_bytes(x->c, idx_path, 0, ist.size, idx.map, &err) < 0)
		fetch_fail(x, "%s", err.msg);
	if (xio_megatron_idx_narrow(idx.map, ist.size, bst.tokens, &info, &err) < 0)
		fetch_fail(x, "%s: %s", idx_path, err.msg);
	if (!bst.is_tokens)
		fetch_fail(x, "%s: %llu bytes, not a multiple of 4: not an INT32 token file",
			   bin_path, (unsigned long long)bst.size);
	token_range(x, bin_path, &bst, &first, &count);
	output_open(x, &bin, 1, out_bin, 2 * count);
	read_tokens(x, bin_path, first, count, bin.map);
	output_commit(x, &bin);
	output_commit(x, &idx);
	free(idx_path);
	free(bin_path);
	free(out_idx);
	free(out_bin);
}

static void summary(const struct fetch *x)
{
	double el = (double)(xio_now_ns() - x->p.start_ns) / 1e9;
	struct xio_stats s;

	xio_client_stats(x->c, &s);
	fprintf(stderr,
		"%s: %llu tokens to %s in %.2f s (%.1f Mtok/s): %llu datagrams, %llu narrowed on "
		"the way, %llu here, %llu re-requests, %llu duplicates, %llu CRC errors\n",
		xio_cli_prog(), (unsigned long long)x->tokens, x->o.out, el,
		el > 0 ? (double)x->tokens / el / 1e6 : 0.0, (unsigned long long)s.datagrams,
		(unsigned long long)s.replies_uint16, (unsigned long long)s.replies_int32,
		(unsigned long long)s.re_requests, (unsigned long long)s.duplicates,
		(unsigned long long)s.crc_errors);
}

int main(int argc, char **argv)
{
	struct fetch x = { 0 };
	struct xio_error err;

	xio_cli_init(argv[0]);
	parse_args(argc, argv, &x.o);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	x.p.tty = isatty(STDERR_FILENO);
	x.p.on = x.o.progress == 1 || (x.o.progress == -1 && x.p.tty);
	x.p.start_ns = xio_now_ns();
	if (xio_connect(x.o.server, &x.o.xo, &x.c, &err) < 0)
		fetch_fail(&x, "%s", err.msg);
	progress_client = x.c;
	xio_set_progress(x.c, show_progress, &x.p);
	if (x.o.format == FMT_MEGATRON)
		fetch_megatron(&x);
	else
		fetch_tokens(&x);
	if (x.o.stats_json)
		write_stats(&x, NULL);
	if (x.o.progress != 0)
		summary(&x);
	xio_close(x.c);
	return 0;
}
