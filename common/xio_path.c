/* SPDX-License-Identifier: BSD-3-Clause
 * xio_path.c: path checks (xio_path.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xio_path.h"

int xio_path_writable(const char *path, char *why, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;
	size_t n;

	if (*path == '\0') {
		snprintf(why, len, "empty file name");
		return -1;
	}
	if (slash == NULL) {
		strcpy(dir, ".");
	} else {
		n = (size_t)(slash - path);
		if (n >= sizeof(dir)) {
			snprintf(why, len, "path too long");
			return -1;
		}
		memcpy(dir, path, n ? n : 1);
		dir[n ? n : 1] = '\0';
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(why, len, "cannot write in '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(why, len, "cannot write: %s", strerror(EISDIR));
		return -1;
	}
	if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
		snprintf(why, len, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}
