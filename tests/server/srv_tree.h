/* SPDX-License-Identifier: BSD-3-Clause
 * srv_tree.h: the directory tree the server's unit tests and fuzzer serve,
 * made under /tmp/xsv-<tag>-XXXXXX:
 *
 *   outside.bin, outdir/secret.bin                    never to be read
 *   root/tokens.bin (4000 bytes), odd.bin (4001), empty, dir/nested.bin (1444)
 *   root/link-in -> tokens.bin, dir/link-up -> ../tokens.bin   inside
 *   root/link-out -> ../outside.bin, link-abs -> <top>/outside.bin,
 *        link-dir-out -> ../outdir, link-proc -> /proc/self/root/etc/passwd
 *   root/link-loop -> link-loop, dangling -> nothing.bin, fifo, dir
 *
 * Byte i of a file made with salt s is srv_tree_byte(s, i): little-endian
 * INT32 tokens that differ from file to file.
 */
#ifndef SRV_TREE_H
#define SRV_TREE_H

#include <stdint.h>

struct srv_tree {
	char top[64];
	char root[96];
	int rootfd; /* root/, opened */
};

/* The files of root/ the server serves, with their sizes and salts. */
struct srv_tree_file {
	const char *name;
	uint64_t size;
	uint32_t salt;
};
extern const struct srv_tree_file srv_tree_files[4];

static inline uint8_t srv_tree_byte(uint32_t salt, uint64_t i)
{
	uint32_t t = (uint32_t)((i / 4 + 1) * 2654435761u) ^ salt;

	return (uint8_t)(t >> (8 * (i % 4)));
}

/* Writes dir/name: size bytes of salt. Exits 2 on failure. */
void srv_tree_write(const char *dir, const char *name, uint64_t size, uint32_t salt);

/* Makes the tree; tag names it. Exits 2 on failure. */
void srv_tree_make(struct srv_tree *t, const char *tag);

/* Closes root/ and removes the tree. 0, or -1 when rm failed. */
int srv_tree_remove(struct srv_tree *t);

#endif /* SRV_TREE_H */
