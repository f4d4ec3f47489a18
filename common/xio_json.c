/* SPDX-License-Identifier: BSD-3-Clause
 * xio_json.c: the JSON writer (xio_json.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xio_json.h"

void xio_json_init(struct xio_json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
}

void xio_json_free(struct xio_json *j)
{
	xio_buf_free(&j->b);
}

void xio_json_escape(struct xio_buf *b, const char *s)
{
	xio_buf_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			xio_buf_printf(b, "\\%c", ch);
		else if (ch < 0x20)
			xio_buf_printf(b, "\\u%04x", ch);
		else
			xio_buf_put(b, (const char *)&ch, 1);
	}
	xio_buf_put(b, "\"", 1);
}

static void xio_json_indent(struct xio_json *j, unsigned depth)
{
	xio_buf_put(&j->b, "\n", 1);
	for (unsigned i = 0; i < depth; i++)
		xio_buf_put(&j->b, "  ", 2);
}

/* The separator, the line break and the key before a value. */
static void xio_json_member(struct xio_json *j, const char *key)
{
	if (!j->first[j->depth])
		xio_buf_put(&j->b, ",", 1);
	if (j->depth > 0 && j->depth <= 2)
		xio_json_indent(j, j->depth);
	else if (!j->first[j->depth])
		xio_buf_put(&j->b, " ", 1);
	j->first[j->depth] = false;
	if ((key != NULL) != (j->depth > 0 && j->kind[j->depth] == '{'))
		j->bad = true;
	if (key) {
		xio_json_escape(&j->b, key);
		xio_buf_put(&j->b, ": ", 2);
	}
}

static void xio_json_open(struct xio_json *j, const char *key, char c)
{
	xio_json_member(j, key);
	xio_buf_put(&j->b, &c, 1);
	if (j->depth + 1 >= XIO_JSON_MAX_DEPTH) {
		j->bad = true;
		return;
	}
	j->first[++j->depth] = true;
	j->kind[j->depth] = c;
}

static void xio_json_close(struct xio_json *j, char c)
{
	if (j->depth == 0 || j->kind[j->depth] != (c == '}' ? '{' : '[')) {
		j->bad = true;
		return;
	}
	if (!j->first[j->depth] && j->depth <= 2)
		xio_json_indent(j, j->depth - 1);
	j->depth--;
	xio_buf_put(&j->b, &c, 1);
	if (j->depth == 0)
		xio_buf_put(&j->b, "\n", 1);
}

void xio_json_begin_object(struct xio_json *j, const char *key)
{
	xio_json_open(j, key, '{');
}

void xio_json_end_object(struct xio_json *j)
{
	xio_json_close(j, '}');
}

void xio_json_begin_array(struct xio_json *j, const char *key)
{
	xio_json_open(j, key, '[');
}

void xio_json_end_array(struct xio_json *j)
{
	xio_json_close(j, ']');
}

void xio_json_u64(struct xio_json *j, const char *key, uint64_t v)
{
	xio_json_member(j, key);
	xio_buf_printf(&j->b, "%" PRIu64, v);
}

void xio_json_i64(struct xio_json *j, const char *key, int64_t v)
{
	xio_json_member(j, key);
	xio_buf_printf(&j->b, "%" PRId64, v);
}

void xio_json_double(struct xio_json *j, const char *key, double v, int decimals)
{
	xio_json_member(j, key);
	if (!isfinite(v))
		xio_buf_puts(&j->b, "null");
	else if (decimals < 0)
		xio_buf_printf(&j->b, "%.15g", v);
	else
		xio_buf_printf(&j->b, "%.*f", decimals, v);
}

void xio_json_str(struct xio_json *j, const char *key, const char *s)
{
	xio_json_member(j, key);
	xio_json_escape(&j->b, s ? s : "");
}

void xio_json_bool(struct xio_json *j, const char *key, bool v)
{
	xio_json_member(j, key);
	xio_buf_puts(&j->b, v ? "true" : "false");
}

void xio_json_null(struct xio_json *j, const char *key)
{
	xio_json_member(j, key);
	xio_buf_puts(&j->b, "null");
}

const char *xio_json_text(const struct xio_json *j)
{
	return xio_buf_str(&j->b);
}

int xio_json_check(const struct xio_json *j)
{
	if (xio_buf_failed(&j->b)) {
		errno = ENOMEM;
		return -1;
	}
	if (j->bad || j->depth != 0 || j->b.len == 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int xio_json_write(const struct xio_json *j, FILE *f)
{
	if (xio_json_check(j) < 0)
		return -1;
	if (fwrite(j->b.p, 1, j->b.len, f) != j->b.len || fflush(f) != 0)
		return -1;
	return 0;
}

int xio_json_save(const struct xio_json *j, const char *path)
{
	size_t n = strlen(path) + 32;
	char *tmp;
	FILE *f;
	int err;

	if (strcmp(path, "-") == 0)
		return xio_json_write(j, stdout);
	if (xio_json_check(j) < 0)
		return -1;
	tmp = malloc(n);
	if (!tmp)
		return -1;
	snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		err = errno;
		free(tmp);
		errno = err;
		return -1;
	}
	if (xio_json_write(j, f) < 0) {
		err = errno;
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		err = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	errno = err;
	return -1;
}
