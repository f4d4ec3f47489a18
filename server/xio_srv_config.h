/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_config.h: xio-server's command line. Every value is checked here,
 * the root opened and the allow list built, so that a bad command line
 * ends with one line naming the problem before anything runs.
 */
#ifndef XIO_SRV_CONFIG_H
#define XIO_SRV_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "xio_srv_allow.h"
#include "xio_srv_cookie.h"

#define XIO_SRV_MTU_MAX     9000
#define XIO_SRV_THREADS_MAX 64
#define XIO_SRV_THREADS_AUTO_MAX 16 /* --threads' default: the usable cores, at most this */
#define XIO_SRV_BURST_DEFAULT 64    /* --burst: datagrams to one client per turn */
#define XIO_SRV_BURST_MAX 1024      /* XIO_SRV_TRAIN_SLOTS */

struct xio_srv_config {
	const char *root;  /* --root, as given */
	int rootfd;        /* the root directory, opened */
	const char *bind_str;
	bool bind_given;   /* --bind given: no IPv4 fallback for "::" */
	struct sockaddr_storage bind; /* with the port */
	socklen_t bind_len;
	uint16_t port;
	struct xio_srv_allow allow;
	uint32_t mtu;
	double rate_gbit;   /* 0: not paced */
	double flow_rate_gbit; /* --flow-rate: per client, 0: not paced */
	unsigned threads;
	unsigned burst;     /* most datagrams to one client back to back */
	const char *stats_json; /* NULL: none */
	double stats_interval;  /* s, 0: no line */
	double duration;        /* s, 0: until a signal */
	uint64_t idle_exit_ms;  /* 0: never */
	const char *metrics_str; /* --metrics ADDR:PORT, NULL: no endpoint */
	struct sockaddr_storage metrics;
	socklen_t metrics_len;
	bool cookies;           /* --cookies: address validation (default on) */
	unsigned cookie_rotate; /* --cookie-rotate, s */
	const char *cookie_secret; /* --cookie-secret FILE, NULL: getrandom() */
	struct xio_srv_cookie cookie; /* the secret, when cookies */
};

/* Fills *c from the command line. Returns XIO_CLI_RUN; XIO_CLI_DONE once
 * --help or --version is printed; XIO_CLI_USAGE or XIO_CLI_FAIL after one
 * line naming the problem (common/xio_cli.h: the exit code). */
int xio_srv_config_parse(int argc, char **argv, struct xio_srv_config *c);

/* --threads' default: the cores this process may run on (sched_getaffinity),
 * at most XIO_SRV_THREADS_AUTO_MAX; 1 if that cannot be read. */
unsigned xio_srv_threads_default(void);

/* The default bind address "::" as IPv4 "0.0.0.0", for hosts without
 * IPv6; false when the address was given (or is already IPv4). */
bool xio_srv_config_bind_v4(struct xio_srv_config *c);

#endif /* XIO_SRV_CONFIG_H */
