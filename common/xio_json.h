/* SPDX-License-Identifier: BSD-3-Clause
 * xio_json.h: the one JSON writer of the programs' stats files: objects and
 * arrays opened and closed in order, named members (integers, reals,
 * escaped strings, booleans, null), into a growable buffer (xio_buf.h) and
 * saved whole, atomically (a temporary file in the same directory, then
 * rename), so a reader never sees half a file.
 *
 *   struct xio_json j;
 *   xio_json_init(&j);
 *   xio_json_begin_object(&j, NULL);
 *   xio_json_u64(&j, "rx_packets", n);
 *   xio_json_end_object(&j);
 *   xio_json_save(&j, path);  (0, or -1 with errno)
 *   xio_json_free(&j);
 *
 * key is the member's name inside an object, NULL inside an array or for
 * the outermost value. Members of the two outermost levels go one per
 * line, deeper ones on the line of their container.
 */
#ifndef XIO_JSON_H
#define XIO_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xio_buf.h"

#define XIO_JSON_MAX_DEPTH 16

struct xio_json {
	struct xio_buf b;
	unsigned depth;
	bool first[XIO_JSON_MAX_DEPTH]; /* nothing written yet at that level */
	char kind[XIO_JSON_MAX_DEPTH];  /* '{' or '[' */
	bool bad;                       /* nesting misuse: the text is not JSON */
};

void xio_json_init(struct xio_json *j);
void xio_json_free(struct xio_json *j);

void xio_json_begin_object(struct xio_json *j, const char *key);
void xio_json_end_object(struct xio_json *j);
void xio_json_begin_array(struct xio_json *j, const char *key);
void xio_json_end_array(struct xio_json *j);

void xio_json_u64(struct xio_json *j, const char *key, uint64_t v);
void xio_json_i64(struct xio_json *j, const char *key, int64_t v);
/* decimals digits after the point; -1: the shortest form (%g). Not finite:
 * null. */
void xio_json_double(struct xio_json *j, const char *key, double v, int decimals);
void xio_json_str(struct xio_json *j, const char *key, const char *s);
void xio_json_bool(struct xio_json *j, const char *key, bool v);
void xio_json_null(struct xio_json *j, const char *key);

/* s as a JSON string, quotes included, into b. */
void xio_json_escape(struct xio_buf *b, const char *s);

/* The text: complete once the outermost value is closed. */
const char *xio_json_text(const struct xio_json *j);

/* 0 when the text is a whole JSON value; -1 with errno ENOMEM (a failed
 * allocation) or EINVAL (unbalanced). */
int xio_json_check(const struct xio_json *j);

/* Writes the text to f and flushes it: 0, or -1 with errno. */
int xio_json_write(const struct xio_json *j, FILE *f);

/* Writes the text to path atomically: PATH.tmpPID in the same directory,
 * then rename. path "-": standard output. 0, or -1 with errno. */
int xio_json_save(const struct xio_json *j, const char *path);

#endif /* XIO_JSON_H */
