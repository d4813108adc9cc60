// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <string.h>

#include "drmtop/json_writer.h"
#include "drmtop/util/utf8.h"

/*
 * Output gathered in the writer's own buffer and handed to stdio a buffer at a time: a frame of
 * the JSON view holds every client that came and went since the last, tens of thousands a
 * second under an open/close loop, and stdio's per-call work on keys and values of a few bytes
 * each was most of the writer's cost.
 */
static void flush(struct json_writer *w)
{
	if (w->len)
		fwrite_unlocked(w->buf, 1, w->len, w->out);
	w->len = 0;
}

static void put(struct json_writer *w, const void *p, size_t n)
{
	if (n > sizeof(w->buf) - w->len) {
		flush(w);
		if (n >= sizeof(w->buf)) {
			fwrite_unlocked(p, 1, n, w->out);
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_c(struct json_writer *w, char c)
{
	if (w->len == sizeof(w->buf))
		flush(w);
	w->buf[w->len++] = c;
}

static void put_u64(struct json_writer *w, uint64_t v)
{
	char buf[20], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put(w, p, (size_t)(buf + sizeof(buf) - p));
}

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
		put_c(w, ',');
	w->first[w->depth] = false;
}

static void jw_open(struct json_writer *w, char c)
{
	jw_before_value(w);
	if (w->depth + 1 >= JSON_WRITER_MAX_DEPTH) {
		w->error = true;
		return;
	}
	put_c(w, c);
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
	put_c(w, c);
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

/*
 * The escape of ASCII byte @c, one jw_escaped does not pass as it is: a quote, a backslash, a
 * control character or DEL.
 */
static const char *escape_of(unsigned char c, char buf[7])
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	}
	snprintf(buf, 7, "\\u%04x", c);
	return buf;
}

/* @str as a JSON string: runs of bytes that need no escape written at once. */
static void jw_escaped(struct json_writer *w, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, len;
	const char *esc;
	char buf[7];

	put_c(w, '"');
	while (i < n) {
		/* plain ASCII, most of every name and value: no escape to look up */
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\') {
			i++;
			continue;
		}
		if (s[i] >= 0x80) {
			len = utf8_seq_len(s + i, n - i);
			if (len) {
				i += len;
				continue;
			}
			esc = "\\ufffd";
		} else {
			esc = escape_of(s[i], buf);
		}
		put(w, s + run, i - run);
		put(w, esc, strlen(esc));
		run = ++i;
	}
	put(w, s + run, i - run);
	put_c(w, '"');
}

void jw_key(struct json_writer *w, const char *key)
{
	if (w->after_key || !w->object[w->depth]) {
		w->error = true;
		return;
	}
	if (!w->first[w->depth])
		put_c(w, ',');
	w->first[w->depth] = false;
	jw_escaped(w, key, strlen(key));
	put_c(w, ':');
	w->after_key = true;
}

void jw_string_len(struct json_writer *w, const char *s, size_t len)
{
	jw_before_value(w);
	jw_escaped(w, s, len);
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
	put_u64(w, v);
}

void jw_i64(struct json_writer *w, int64_t v)
{
	jw_before_value(w);
	if (v < 0)
		put_c(w, '-');
	put_u64(w, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

void jw_double(struct json_writer *w, double v, int decimals)
{
	char buf[64];
	int n;

	if (!isfinite(v)) {
		jw_null(w);
		return;
	}
	jw_before_value(w);
	n = snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		/* too long for buf (1e50 and up): stdio prints it, after what the writer holds */
		flush(w);
		fprintf(w->out, "%.*f", decimals, v);
		return;
	}
	put(w, buf, (size_t)n);
}

void jw_bool(struct json_writer *w, bool v)
{
	jw_before_value(w);
	put(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(struct json_writer *w)
{
	jw_before_value(w);
	put(w, "null", 4);
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

	put_c(w, '\n');
	flush(w);
	if (fflush(w->out) || ferror(w->out))
		bad = true;
	jw_init(w, w->out);
	return bad ? -1 : 0;
}
