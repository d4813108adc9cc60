// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON writer driven by arbitrary calls: the input is a program of writer operations with
 * arbitrary strings (control characters, NULs, invalid UTF-8) as keys and values. Whenever
 * jw_finish_line() reports success, the line must be exactly one strictly valid JSON value (a
 * name twice in one object is the caller's doing, not the writer's, so it is allowed); and
 * every string, written alone, must decode back to its bytes with each byte that is not part of
 * well-formed UTF-8 replaced by U+FFFD, as json_writer.h promises.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/json_writer.h"
#include "json_check.h"

struct input {
	const uint8_t *p;
	size_t n;
};

static uint8_t take_byte(struct input *in)
{
	uint8_t b = 0;

	if (in->n) {
		b = *in->p++;
		in->n--;
	}
	return b;
}

static uint64_t take_u64(struct input *in)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | take_byte(in);
	return v;
}

/* A string of up to 255 arbitrary bytes (NULs included), as a malloc'd NUL-terminated copy. */
static char *take_str(struct input *in, size_t *len)
{
	size_t n = take_byte(in);
	char *s;

	if (n > in->n)
		n = in->n;
	s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, in->p, n);
	s[n] = '\0';
	in->p += n;
	in->n -= n;
	*len = n;
	return s;
}

static void report(const char *what, const char *buf, size_t len, const char *why, size_t at)
{
	fprintf(stderr, "%s: %s at byte %zu of %zu: %.*s\n", what, why ? why : "?", at, len,
		(int)(len > 2000 ? 2000 : len), buf);
	abort();
}

/* @s written on its own must decode to @s with ill-formed bytes as U+FFFD. */
static void check_roundtrip(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char *text = NULL, *want, *got;
	size_t len = 0, i = 0, w = 0, glen;
	struct json_writer jw;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		abort();
	jw_init(&jw, out);
	jw_string_len(&jw, s, n);
	if (jw_finish_line(&jw))
		abort();
	fclose(out);
	if (!len || text[len - 1] != '\n')
		report("string line", text, len, "no newline", len);
	want = malloc(3 * n + 1);
	got = malloc(len);
	if (!want || !got)
		abort();
	while (i < n) {
		size_t l = utf8_wellformed(u + i, n - i);

		if (l) {
			memcpy(want + w, u + i, l);
			w += l;
			i += l;
		} else {
			memcpy(want + w, "\xef\xbf\xbd", 3);
			w += 3;
			i++;
		}
	}
	if (json_decode_string(text, len - 1, got, &glen))
		report("string literal", text, len, "not one valid string", 0);
	if (glen != w || memcmp(got, want, w))
		report("string round trip", text, len, "decodes to other bytes", 0);
	free(want);
	free(got);
	free(text);
}

/* The line from *@start to @len (jw_finish_line flushed it) was reported as @ret. */
static void check_line(int ret, const char *text, size_t len, size_t *start)
{
	const char *why = NULL;
	size_t at = 0;

	if (!ret && json_check(text + *start, len - *start, false, &why, &at))
		report("line reported valid", text + *start, len - *start, why, at);
	*start = len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct json_writer jw;
	char *text = NULL, *s;
	size_t len = 0, slen, line_start = 0;
	FILE *out = open_memstream(&text, &len);
	double d;
	uint64_t v;
	int ret, ops = 0;

	if (!out)
		abort();
	jw_init(&jw, out);
	while (in.n && ops++ < 4096) {
		switch (take_byte(&in) % 16) {
		case 0:
			jw_object_begin(&jw);
			break;
		case 1:
			jw_object_end(&jw);
			break;
		case 2:
			jw_array_begin(&jw);
			break;
		case 3:
			jw_array_end(&jw);
			break;
		case 4:
			s = take_str(&in, &slen);
			jw_key(&jw, s);
			check_roundtrip(s, strlen(s));
			free(s);
			break;
		case 5:
			s = take_str(&in, &slen);
			jw_string(&jw, s);
			check_roundtrip(s, strlen(s));
			free(s);
			break;
		case 6:
			s = take_str(&in, &slen);
			jw_string_len(&jw, s, slen);
			check_roundtrip(s, slen);
			free(s);
			break;
		case 7:
			jw_u64(&jw, take_u64(&in));
			break;
		case 8:
			jw_i64(&jw, (int64_t)take_u64(&in));
			break;
		case 9:
			v = take_u64(&in);
			memcpy(&d, &v, sizeof(d));
			jw_double(&jw, d, take_byte(&in) % 20);
			break;
		case 10:
			jw_bool(&jw, take_byte(&in) & 1);
			break;
		case 11:
			jw_null(&jw);
			break;
		case 12:
			s = take_str(&in, &slen);
			jw_kv_string(&jw, s, take_byte(&in) & 1 ? s + slen / 2 : NULL);
			free(s);
			break;
		case 13:
			s = take_str(&in, &slen);
			v = take_u64(&in);
			jw_kv_u64_or_null(&jw, s, v & 1, v);
			free(s);
			break;
		case 14:
			s = take_str(&in, &slen);
			v = take_u64(&in);
			memcpy(&d, &v, sizeof(d));
			jw_kv_double_or_null(&jw, s, take_byte(&in) & 1, d, 2);
			free(s);
			break;
		case 15:
			/* A line ends: what was reported good must be good. */
			ret = jw_finish_line(&jw);
			check_line(ret, text, len, &line_start);
			break;
		}
	}
	ret = jw_finish_line(&jw);
	check_line(ret, text, len, &line_start);
	fclose(out);
	free(text);
	return 0;
}
