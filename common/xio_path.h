/* SPDX-License-Identifier: BSD-3-Clause
 * xio_path.h: checks on paths the programs will write later (the stats
 * JSON at exit), made while the command line is read.
 */
#ifndef XIO_PATH_H
#define XIO_PATH_H

#include <stddef.h>

/* 0 when a file can be written at path: its directory takes a new file,
 * and path is neither a directory nor a file we may not write. Else -1
 * and why ("cannot write in 'DIR': Permission denied"). */
int xio_path_writable(const char *path, char *why, size_t len);

#endif /* XIO_PATH_H */
