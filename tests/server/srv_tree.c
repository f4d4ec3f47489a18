/* SPDX-License-Identifier: BSD-3-Clause
 * srv_tree.c: the tree the server's tests serve (srv_tree.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "srv_tree.h"

const struct srv_tree_file srv_tree_files[4] = {
	{ "tokens.bin", 4000, 1 }, { "odd.bin", 4001, 2 }, { "empty", 0, 3 },
	{ "dir/nested.bin", 1444, 4 },
};

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "srv_tree: %s %s\n", what, path);
	exit(2);
}

void srv_tree_write(const char *dir, const char *name, uint64_t size, uint32_t salt)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	for (uint64_t i = 0; f && i < size; i++)
		fputc(srv_tree_byte(salt, i), f);
	if (!f || fclose(f) != 0)
		fail("cannot write", path);
}

/* kind: 'l' a symbolic link to target, 'f' a FIFO, 'd' a directory. */
static void make(const struct srv_tree *t, char kind, const char *name, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", t->root, name);
	if ((kind == 'l' ? symlink(target, path) : kind == 'f' ? mkfifo(path, 0600)
							       : mkdir(path, 0755)) < 0)
		fail("cannot make", path);
}

void srv_tree_make(struct srv_tree *t, const char *tag)
{
	char path[256];

	snprintf(t->top, sizeof(t->top), "/tmp/xsv-%s-XXXXXX", tag);
	if (!mkdtemp(t->top))
		fail("cannot make", t->top);
	snprintf(t->root, sizeof(t->root), "%s/root", t->top);
	snprintf(path, sizeof(path), "%s/outdir", t->top);
	if (mkdir(t->root, 0755) < 0 || mkdir(path, 0755) < 0)
		fail("cannot make", t->root);
	srv_tree_write(t->top, "outside.bin", 4000, 0xBAD0BAD0);
	srv_tree_write(path, "secret.bin", 4000, 0xBAD1BAD1);
	make(t, 'd', "dir", NULL);
	for (unsigned i = 0; i < 4; i++)
		srv_tree_write(t->root, srv_tree_files[i].name, srv_tree_files[i].size,
			       srv_tree_files[i].salt);
	make(t, 'l', "link-in", "tokens.bin");
	make(t, 'l', "dir/link-up", "../tokens.bin");
	make(t, 'l', "link-out", "../outside.bin");
	snprintf(path, sizeof(path), "%s/outside.bin", t->top);
	make(t, 'l', "link-abs", path);
	make(t, 'l', "link-dir-out", "../outdir");
	make(t, 'l', "link-proc", "/proc/self/root/etc/passwd");
	make(t, 'l', "link-loop", "link-loop");
	make(t, 'l', "dangling", "nothing.bin");
	make(t, 'f', "fifo", NULL);
	t->rootfd = open(t->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->rootfd < 0)
		fail("cannot open", t->root);
}

int srv_tree_remove(struct srv_tree *t)
{
	char cmd[128];

	close(t->rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->top);
	return system(cmd) == 0 ? 0 : -1;
}
