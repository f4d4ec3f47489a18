/* SPDX-License-Identifier: BSD-3-Clause
 * xio-tcp-server: the TCP baseline's server (tests/bench/xio_tcp.h): files
 * of --root over TCP with sendfile, a thread per connection, at most --conns
 * at once; what a user reading the dataset through NFS or HTTP would get from
 * a storage node. Paths are resolved beneath the root (openat2
 * RESOLVE_BENEATH). Prints "xio-tcp-server: listening ..." on stderr when
 * ready; SIGINT or SIGTERM ends it (exit 0).
 *
 *   xio-tcp-server --root DIR [--bind ADDR] [--port P] [--conns N]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/openat2.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xio_main.h"
#include "xio_tcp.h"

static int rootfd = -1;
static unsigned conns_max = 64, conns_now;
static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;

static void usage(void)
{
	printf("Usage: %s --root DIR [options]\n"
	       "Serves the files of DIR over TCP to xio-tcp-read (tests/bench/xio_tcp.h): the\n"
	       "baseline of make bench-transport. sendfile, a thread per connection.\n\n"
	       "  --root DIR     the directory served (required)\n"
	       "  --bind ADDR    local address (default 0.0.0.0)\n"
	       "  --port P       TCP port (default %u)\n"
	       "  --conns N      connections served at once, 1..4096 (default 64)\n"
	       "  --help, --version\n",
	       xio_cli_prog(), XIO_TCP_PORT);
	exit(0);
}

static int open_beneath(const char *path)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };

	return (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
}

/* One request on c: 0 when answered, -1 when the connection is done. */
static int serve_one(int c)
{
	struct xio_tcp_req q;
	struct xio_tcp_ans a = { 0 };
	char path[XIO_TCP_PATH_MAX + 1];
	struct stat st;
	int fd;

	if (xio_tcp_full(c, &q, sizeof(q), 0) < 0 || q.magic != XIO_TCP_MAGIC || q.path_len == 0 ||
	    q.path_len > XIO_TCP_PATH_MAX || xio_tcp_full(c, path, q.path_len, 0) < 0)
		return -1;
	path[q.path_len] = '\0';
	fd = open_beneath(path);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		uint64_t size = (uint64_t)st.st_size;

		a.size = size;
		if (q.offset < size)
			a.count = size - q.offset < q.length ? size - q.offset : q.length;
	}
	if (xio_tcp_full(c, &a, sizeof(a), 1) < 0)
		goto fail;
	for (off_t off = (off_t)q.offset; a.count > 0;) {
		ssize_t n = sendfile(c, fd, &off, a.count > (1u << 30) ? (1u << 30) : a.count);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		a.count -= (uint64_t)n;
	}
	if (fd >= 0)
		close(fd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

static void *conn_main(void *arg)
{
	int c = (int)(intptr_t)arg;

	while (serve_one(c) == 0)
		;
	close(c);
	pthread_mutex_lock(&conns_lock);
	conns_now--;
	pthread_mutex_unlock(&conns_lock);
	return NULL;
}

static int listen_on(const char *bind_str, unsigned port)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_PASSIVE, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	char ps[8];
	int fd;

	snprintf(ps, sizeof(ps), "%u", port);
	if (getaddrinfo(bind_str, ps, &hints, &ai) != 0)
		xio_main_usage("--bind '%s': not an IPv4 or IPv6 address", bind_str);
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 1024) < 0)
		xio_main_fail("cannot listen on %s port %u: %s", bind_str, port, strerror(errno));
	freeaddrinfo(ai);
	return fd;
}

int main(int argc, char **argv)
{
	enum { O_ROOT = 256, O_BIND, O_PORT, O_CONNS, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, O_ROOT },
		{ "bind", required_argument, NULL, O_BIND },
		{ "port", required_argument, NULL, O_PORT },
		{ "conns", required_argument, NULL, O_CONNS },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = NULL, *bind_str = "0.0.0.0";
	unsigned port = XIO_TCP_PORT;
	sigset_t sigs;
	int opt, lfd;

	xio_cli_init(argv[0]);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (opt) {
		case O_ROOT: root = optarg; break;
		case O_BIND: bind_str = optarg; break;
		case O_PORT: port = (unsigned)xio_main_num("port", optarg, 1, 65535); break;
		case O_CONNS: conns_max = (unsigned)xio_main_num("conns", optarg, 1, 4096); break;
		case O_HELP: usage(); break;
		case O_VERSION: xio_main_version();
		case ':': xio_main_usage("option '%s' needs a value", argv[optind - 1]);
		default: xio_main_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		xio_main_usage("unexpected argument '%s'", argv[optind]);
	if (!root)
		xio_main_usage("--root DIR is required");
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		xio_main_usage("--root '%s': %s", root, strerror(errno));
	lfd = listen_on(bind_str, port);
	/* the main thread takes the signals; accept() runs in its own thread */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	fprintf(stderr, "xio-tcp-server: listening on %s port %u, serving %s, %u connections at once\n",
		bind_str, port, root, conns_max);
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		pthread_t t;
		int c;

		if (sigtimedwait(&sigs, NULL, &(struct timespec){ 0 }) > 0)
			break;
		if (poll(&p, 1, 50) <= 0)
			continue;
		c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN)
				continue;
			xio_main_fail("accept: %s", strerror(errno));
		}
		pthread_mutex_lock(&conns_lock);
		if (conns_now >= conns_max) {
			pthread_mutex_unlock(&conns_lock);
			close(c);
			continue;
		}
		conns_now++;
		pthread_mutex_unlock(&conns_lock);
		if (pthread_create(&t, NULL, conn_main, (void *)(intptr_t)c) != 0)
			xio_main_fail("cannot start a connection thread");
		pthread_detach(t);
	}
	fprintf(stderr, "xio-tcp-server: stopped\n");
	return 0;
}
