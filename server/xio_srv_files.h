/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_files.h: the files of xio-server's root. Owns path confinement
 * (the spec's path rules, then openat2 with RESOLVE_BENEATH and
 * RESOLVE_NO_MAGICLINKS on the root's directory fd, so no path, symbolic
 * links included, resolves outside the root) and a bounded cache of open
 * files: a hot file is not reopened per request, and a file replaced on
 * disk is seen (one fstatat per file per receive batch compares the path's
 * device and inode with the cached descriptor's and reads the size: a
 * change made before a request was sent is seen by it, and a batch of
 * requests for one file costs one system call, not one each). Each cached
 * file is also mapped whole, read-only and shared, once (again when it has
 * grown past the mapping): READ answers are sent from the mapping, the
 * kernel's copy into the socket buffer being the only copy of the payload.
 * One cache per worker thread.
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
	uint64_t checked; /* batch of the last fstatat */
	uint64_t size, mtime_ns; /* as of that fstatat */
	const uint8_t *map; /* the file's first map_len bytes, or NULL (mmap failed, empty) */
	uint64_t map_len;
	uint16_t path_len;
	char path[XIO_PATH_MAX + 1];
};

struct xio_srv_files {
	int rootfd;
	unsigned cap;
	uint64_t tick;
	uint64_t batch; /* the receive batch (xio_srv_files_batch) */
	uint64_t hits, opens, evictions; /* cache statistics */
	uint64_t checks; /* fstatat of a cached path */
	struct xio_srv_file *slot;
};

/* What a request needs to know of an open file. fd and map belong to the
 * cache: valid until the next xio_srv_files_batch() (or eviction, which a
 * batch never causes to its own files: see xio_srv_worker.c) or
 * xio_srv_files_fini(). The map holds at least size bytes, or is NULL; the
 * file may still shrink under it (sending from it is then EFAULT). */
struct xio_srv_fileinfo {
	int fd;
	uint64_t size;
	uint64_t mtime_ns;
	const uint8_t *map;
	uint64_t map_len;
};

/* 0 when the kernel resolves paths beneath rootfd (openat2, Linux 5.6);
 * -1 with errno otherwise. */
int xio_srv_files_probe(int rootfd);

/* A cache of cap files under the directory rootfd (not owned). Returns 0, or
 * -1 when out of memory. */
int xio_srv_files_init(struct xio_srv_files *f, int rootfd, unsigned cap);

/* Closes every cached file and frees the cache. */
void xio_srv_files_fini(struct xio_srv_files *f);

/* Starts a receive batch: each cached file is checked against its path
 * again (once) by its next xio_srv_files_open(). */
static inline void xio_srv_files_batch(struct xio_srv_files *f)
{
	f->batch++;
}

/* Opens the regular file path[0..len) of the root, through the cache.
 * Returns 0 and fills *info, or the ERROR_REPLY code (XIO_E_NOT_FOUND,
 * XIO_E_ACCESS, XIO_E_IO) with *why naming the cause: access for a path the
 * spec refuses (absolute, empty, "." or ".." component, NUL byte), one
 * that resolves outside the root, through a magic link, or to anything but
 * a regular file, and for no permission; not_found when nothing is there.
 * A file cached and checked in this batch is not looked at again. */
int xio_srv_files_open(struct xio_srv_files *f, const char *path, size_t len,
		       struct xio_srv_fileinfo *info, const char **why);

#endif /* XIO_SRV_FILES_H */
