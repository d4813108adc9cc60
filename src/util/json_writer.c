// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <inttypes.h>
#include <string.h>

#include "drmtop/json_writer.h"
#include "drmtop/util/utf8.h"

void jw_init(struct json_writer *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->first[0] = true;
}

/*
 * Emits the separator owed before a value at the current depth. A second top-level value or an
 * object member without a key would make the line invalid JSON: flagged, not written around.
 */
static void jw_before_value(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if ((w->depth == 0 && !w->first[0]) || w->object[w->depth])
		w->error = true;
	if (!w->first[w->depth])
		fputc(',', w->out);
	w->first[w->depth] = false;
}

static void jw_open(struct json_writer *w, char c)
{
	jw_before_value(w);
	if (w->depth + 1 >= JSON_WRITER_MAX_DEPTH) {
		w->error = true;
		return;
	}
	fputc(c, w->out);
	w->depth++;
	w->first[w->depth] = true;
	w->object[w->depth] = c == '{';
}

static void jw_close(struct json_writer *w, char c)
{
	if (w->depth == 0 || w->after_key || w->object[w->depth] != (c == '}')) {
		w->error = true;
		return;
	}
	fputc(c, w->out);
	w->depth--;
}

void jw_object_begin(struct json_writer *w)
{
	jw_open(w, '{');
}

void jw_object_end(struct json_writer *w)
{
	jw_close(w, '}');
}

void jw_array_begin(struct json_writer *w)
{
	jw_open(w, '[');
}

void jw_array_end(struct json_writer *w)
{
	jw_close(w, ']');
}

static void jw_escaped(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	fputc('"', out);
	while (i < n) {
		unsigned char c = s[i];

		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(out, "\\u%04x", c);
				break;
			}
			len = utf8_seq_len(s + i, n - i);
			if (!len) {
				fputs("\\ufffd", out);
				break;
			}
			fwrite(s + i, 1, len, out);
			i += len;
			continue;
		}
		i++;
	}
	fputc('"', out);
}

void jw_key(struct json_writer *w, const char *key)
{
	if (w->after_key || !w->object[w->depth]) {
		w->error = true;
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->out);
	w->first[w->depth] = false;
	jw_escaped(w->out, key, strlen(key));
	fputc(':', w->out);
	w->after_key = true;
}

void jw_string_len(struct json_writer *w, const char *s, size_t len)
{
	jw_before_value(w);
	jw_escaped(w->out, s, len);
}

void jw_string(struct json_writer *w, const char *s)
{
	if (!s) {
		jw_null(w);
		return;
	}
	jw_string_len(w, s, strlen(s));
}

void jw_u64(struct json_writer *w, uint64_t v)
{
	jw_before_value(w);
	fprintf(w->out, "%" PRIu64, v);
}

void jw_i64(struct json_writer *w, int64_t v)
{
	jw_before_value(w);
	fprintf(w->out, "%" PRId64, v);
}

void jw_double(struct json_writer *w, double v, int decimals)
{
	if (!isfinite(v)) {
		jw_null(w);
		return;
	}
	jw_before_value(w);
	fprintf(w->out, "%.*f", decimals, v);
}

void jw_bool(struct json_writer *w, bool v)
{
	jw_before_value(w);
	fputs(v ? "true" : "false", w->out);
}

void jw_null(struct json_writer *w)
{
	jw_before_value(w);
	fputs("null", w->out);
}

void jw_kv_string(struct json_writer *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_string(w, s);
}

void jw_kv_u64(struct json_writer *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	jw_u64(w, v);
}

void jw_kv_i64(struct json_writer *w, const char *key, int64_t v)
{
	jw_key(w, key);
	jw_i64(w, v);
}

void jw_kv_bool(struct json_writer *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_bool(w, v);
}

void jw_kv_double(struct json_writer *w, const char *key, double v, int decimals)
{
	jw_key(w, key);
	jw_double(w, v, decimals);
}

void jw_kv_u64_or_null(struct json_writer *w, const char *key, bool valid, uint64_t v)
{
	jw_key(w, key);
	if (valid)
		jw_u64(w, v);
	else
		jw_null(w);
}

void jw_kv_double_or_null(struct json_writer *w, const char *key, bool valid, double v,
			  int decimals)
{
	jw_key(w, key);
	if (valid)
		jw_double(w, v, decimals);
	else
		jw_null(w);
}

int jw_finish_line(struct json_writer *w)
{
	bool bad = w->error || w->depth != 0 || w->after_key || w->first[0];

	fputc('\n', w->out);
	if (fflush(w->out) || ferror(w->out))
		bad = true;
	jw_init(w, w->out);
	return bad ? -1 : 0;
}
