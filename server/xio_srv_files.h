/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_files.h: the files of xio-server's root. Owns path confinement
 * (the spec's path rules, then openat2 with RESOLVE_BENEATH and
 * RESOLVE_NO_MAGICLINKS on the root's directory fd, so no path, symbolic
 * links included, resolves outside the root) and a bounded cache of open
 * files: a hot file is not reopened per request, and a file replaced on
 * disk is seen (one fstatat per request compares the path's device and
 * inode with the cached descriptor's). One cache per worker thread.
 */
#ifndef XIO_SRV_FILES_H
#define XIO_SRV_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "xio_msg.h"

#define XIO_SRV_FILES_DEFAULT 64 /* open files cached per worker */

struct xio_srv_file {
	int fd; /* -1: free slot */
	dev_t dev;
	ino_t ino;
	uint64_t hash;
	uint64_t used; /* tick of the last use, for LRU eviction */
	uint16_t path_len;
	char path[XIO_PATH_MAX + 1];
};

struct xio_srv_files {
	int rootfd;
	unsigned cap;
	uint64_t tick;
	uint64_t hits, opens, evictions; /* cache statistics */
	struct xio_srv_file *slot;
};

/* What a request needs to know of an open file. fd belongs to the cache:
 * valid until the next xio_srv_files_open() or xio_srv_files_fini(). */
struct xio_srv_fileinfo {
	int fd;
	uint64_t size;
	uint64_t mtime_ns;
};

/* 0 when the kernel resolves paths beneath rootfd (openat2, Linux 5.6);
 * -1 with errno otherwise. */
int xio_srv_files_probe(int rootfd);

/* A cache of cap files under the directory rootfd (not owned). Returns 0, or
 * -1 when out of memory. */
int xio_srv_files_init(struct xio_srv_files *f, int rootfd, unsigned cap);

/* Closes every cached file and frees the cache. */
void xio_srv_files_fini(struct xio_srv_files *f);

/* Opens the regular file path[0..len) of the root, through the cache.
 * Returns 0 and fills *info, or the ERROR_REPLY code (XIO_E_NOT_FOUND,
 * XIO_E_ACCESS, XIO_E_IO) with *why naming the cause: access for a path the
 * spec refuses (absolute, empty, "." or ".." component, NUL byte), one
 * that resolves outside the root, through a magic link, or to anything but
 * a regular file, and for no permission; not_found when nothing is there. */
int xio_srv_files_open(struct xio_srv_files *f, const char *path, size_t len,
		       struct xio_srv_fileinfo *info, const char **why);

#endif /* XIO_SRV_FILES_H */
