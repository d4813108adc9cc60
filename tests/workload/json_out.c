// SPDX-License-Identifier: GPL-2.0-only
#include "json_out.h"

#include <inttypes.h>

static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void member(struct json_out *j, const char *key)
{
	if (j->depth > 0) {
		fputs(j->first[j->depth - 1] ? "\n" : ",\n", j->f);
		j->first[j->depth - 1] = false;
		fprintf(j->f, "%*s", j->depth * 2, "");
	}
	if (key) {
		quoted(j->f, key);
		fputs(": ", j->f);
	}
}

void json_begin(struct json_out *j, const char *key, char open)
{
	member(j, key);
	fputc(open, j->f);
	if (j->depth < JSON_DEPTH_MAX)
		j->first[j->depth] = true;
	j->depth++;
}

void json_end(struct json_out *j, char close)
{
	bool empty = j->first[j->depth - 1];

	j->depth--;
	if (!empty)
		fprintf(j->f, "\n%*s", j->depth * 2, "");
	fputc(close, j->f);
	if (!j->depth)
		fputc('\n', j->f);
}

void json_u64(struct json_out *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json_out *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_str(struct json_out *j, const char *key, const char *s)
{
	member(j, key);
	quoted(j->f, s);
}

void json_bool(struct json_out *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void json_raw(struct json_out *j, const char *key, const char *json)
{
	member(j, key);
	fputs(json, j->f);
}
