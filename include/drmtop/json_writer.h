/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A streaming JSON writer for drmtop's -J output: one compact object per line.
 * Strings are escaped per RFC 8259: quotes, backslash and every control character; bytes that
 * are not valid UTF-8 (process names and fdinfo values are arbitrary bytes) become U+FFFD so
 * every line stays valid JSON. Output is held in the writer and reaches @out when its buffer
 * fills and at jw_finish_line.
 */
#ifndef DRMTOP_JSON_WRITER_H
#define DRMTOP_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITER_MAX_DEPTH 32

#define JSON_WRITER_BUF 4096

struct json_writer {
	FILE *out;
	size_t len;				/* bytes held in buf, written to out when full */
	char buf[JSON_WRITER_BUF];
	int depth;
	bool first[JSON_WRITER_MAX_DEPTH];	/* no member written yet at this depth */
	bool object[JSON_WRITER_MAX_DEPTH];	/* the container at this depth is an object */
	bool after_key;				/* a key was written, its value is next */
	bool error;				/* misuse; the output is unusable */
};

void jw_init(struct json_writer *w, FILE *out);
void jw_object_begin(struct json_writer *w);
void jw_object_end(struct json_writer *w);
void jw_array_begin(struct json_writer *w);
void jw_array_end(struct json_writer *w);
void jw_key(struct json_writer *w, const char *key);
void jw_string(struct json_writer *w, const char *s);
void jw_string_len(struct json_writer *w, const char *s, size_t len);
void jw_u64(struct json_writer *w, uint64_t v);
void jw_i64(struct json_writer *w, int64_t v);
/* Non-finite values have no JSON form; they are written as null. */
void jw_double(struct json_writer *w, double v, int decimals);
void jw_bool(struct json_writer *w, bool v);
void jw_null(struct json_writer *w);
/* A member: key and value in one call. The _or_null forms write null unless @valid. */
void jw_kv_string(struct json_writer *w, const char *key, const char *s);
void jw_kv_u64(struct json_writer *w, const char *key, uint64_t v);
void jw_kv_i64(struct json_writer *w, const char *key, int64_t v);
void jw_kv_bool(struct json_writer *w, const char *key, bool v);
void jw_kv_double(struct json_writer *w, const char *key, double v, int decimals);
void jw_kv_u64_or_null(struct json_writer *w, const char *key, bool valid, uint64_t v);
void jw_kv_double_or_null(struct json_writer *w, const char *key, bool valid, double v,
			  int decimals);

/*
 * Ends the top-level value with a newline and flushes; returns -1 if anything went wrong: a
 * write error, or a line that would not be one JSON value (no value or two, a key outside an
 * object, a member without a key, an unclosed container, nesting beyond the maximum).
 */
int jw_finish_line(struct json_writer *w);

#endif /* DRMTOP_JSON_WRITER_H */
