/* SPDX-License-Identifier: BSD-3-Clause
 * xio_srv_files.c: path confinement and the open-file cache of xio-server
 * (xio_srv_files.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xio_srv_files.h"

#define OPENAT2_TRIES 8 /* EAGAIN: a rename raced the resolution of ".." */

static void drop(struct xio_srv_file *e);

int xio_srv_files_init(struct xio_srv_files *f, int rootfd, unsigned cap)
{
	memset(f, 0, sizeof(*f));
	f->rootfd = rootfd;
	f->cap = cap ? cap : 1;
	f->slot = calloc(f->cap, sizeof(*f->slot));
	if (!f->slot)
		return -1;
	for (unsigned i = 0; i < f->cap; i++)
		f->slot[i].fd = -1;
	return 0;
}

void xio_srv_files_fini(struct xio_srv_files *f)
{
	for (unsigned i = 0; f->slot && i < f->cap; i++)
		if (f->slot[i].fd >= 0)
			drop(&f->slot[i]);
	free(f->slot);
	f->slot = NULL;
}

/* Resolves path under the root only: no absolute symlink target, no ".."
 * above the root, no /proc magic links. */
static int open_beneath(int rootfd, const char *path, uint64_t flags)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int fd, tries = 0;

	do
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < OPENAT2_TRIES);
	return fd;
}

int xio_srv_files_probe(int rootfd)
{
	int fd = open_beneath(rootfd, ".", O_PATH);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int open_error(int err, const char **why)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
	case ENAMETOOLONG:
		*why = "no such file";
		return XIO_E_NOT_FOUND;
	case EXDEV:
		*why = "path leaves the root";
		return XIO_E_ACCESS;
	case ELOOP:
		*why = "too many symbolic links, or a magic link";
		return XIO_E_ACCESS;
	case EACCES:
	case EPERM:
		*why = "permission denied";
		return XIO_E_ACCESS;
	default:
		*why = strerrordesc_np(err);
		return XIO_E_IO;
	}
}

static uint64_t path_hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
	return h;
}

/* Maps the file's size bytes (again, when it has grown past the mapping).
 * A failed mmap leaves no mapping: answers then read with preadv. */
static void map_file(struct xio_srv_file *e)
{
	void *m;

	if (e->map && e->map_len >= e->size)
		return;
	if (e->map)
		munmap((void *)e->map, e->map_len);
	e->map = NULL;
	e->map_len = 0;
	if (e->size == 0 || e->size > SIZE_MAX)
		return;
	m = mmap(NULL, (size_t)e->size, PROT_READ, MAP_SHARED, e->fd, 0);
	if (m == MAP_FAILED)
		return;
	e->map = m;
	e->map_len = e->size;
}

static void take_stat(struct xio_srv_file *e, const struct stat *st, uint64_t batch)
{
	e->size = (uint64_t)st->st_size;
	e->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
	e->checked = batch;
	map_file(e);
}

static void fill_info(struct xio_srv_fileinfo *info, const struct xio_srv_file *e)
{
	*info = (struct xio_srv_fileinfo){ .fd = e->fd, .size = e->size, .mtime_ns = e->mtime_ns,
					   .map = e->map, .map_len = e->map_len };
}

static void drop(struct xio_srv_file *e)
{
	if (e->map)
		munmap((void *)e->map, e->map_len);
	e->map = NULL;
	e->map_len = 0;
	close(e->fd);
	e->fd = -1;
}

/* The cached entry of path, still the file the path names as of this
 * batch; NULL on a miss (an entry whose path now names another file is
 * dropped). */
static struct xio_srv_file *lookup(struct xio_srv_files *f, const char *cpath, size_t len,
				   uint64_t hash)
{
	struct stat st;

	for (unsigned i = 0; i < f->cap; i++) {
		struct xio_srv_file *e = &f->slot[i];

		if (e->fd < 0 || e->hash != hash || e->path_len != len ||
		    memcmp(e->path, cpath, len) != 0)
			continue;
		if (e->checked == f->batch)
			return e;
		/* Only compared with a descriptor opened beneath the root: a path
		 * that now leads elsewhere misses and goes through openat2. */
		f->checks++;
		if (fstatat(f->rootfd, cpath, &st, AT_NO_AUTOMOUNT) == 0 && st.st_dev == e->dev &&
		    st.st_ino == e->ino) {
			take_stat(e, &st, f->batch);
			return e;
		}
		drop(e);
		return NULL;
	}
	return NULL;
}

static struct xio_srv_file *free_slot(struct xio_srv_files *f)
{
	struct xio_srv_file *lru = &f->slot[0];

	for (unsigned i = 0; i < f->cap; i++) {
		if (f->slot[i].fd < 0)
			return &f->slot[i];
		if (f->slot[i].used < lru->used)
			lru = &f->slot[i];
	}
	drop(lru);
	f->evictions++;
	return lru;
}

/* Opens a regular file beneath the root. The first open is O_PATH, which
 * opens nothing (no FIFO wait, no device side effect), to see what the
 * path names; only a regular file is then opened for reading. */
static int open_regular(int rootfd, const char *cpath, struct stat *st, const char **why)
{
	int pfd = open_beneath(rootfd, cpath, O_PATH), fd;

	if (pfd < 0)
		return -open_error(errno, why);
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(pfd);
		*why = "not a regular file";
		return -XIO_E_ACCESS;
	}
	close(pfd);
	fd = open_beneath(rootfd, cpath, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -open_error(errno, why);
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) { /* replaced in between */
		close(fd);
		*why = "not a regular file";
		return -XIO_E_ACCESS;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return fd;
}

int xio_srv_files_open(struct xio_srv_files *f, const char *path, size_t len,
		       struct xio_srv_fileinfo *info, const char **why)
{
	char cpath[XIO_PATH_MAX + 1];
	struct xio_srv_file *e;
	struct stat st;
	uint64_t hash;
	int fd;

	if (len > XIO_PATH_MAX || xio_path_check(path, len) < 0) {
		*why = "path refused: absolute, empty, '.' or '..' component, or NUL byte";
		return XIO_E_ACCESS;
	}
	memcpy(cpath, path, len);
	cpath[len] = '\0';
	hash = path_hash(cpath, len);
	e = lookup(f, cpath, len, hash);
	if (e) {
		f->hits++;
	} else {
		fd = open_regular(f->rootfd, cpath, &st, why);
		if (fd < 0)
			return -fd;
		f->opens++;
		e = free_slot(f);
		*e = (struct xio_srv_file){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino,
					    .hash = hash, .path_len = (uint16_t)len };
		memcpy(e->path, cpath, len + 1);
		take_stat(e, &st, f->batch);
	}
	e->used = ++f->tick;
	fill_info(info, e);
	return 0;
}
