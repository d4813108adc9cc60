/* SPDX-License-Identifier: GPL-2.0-only */
/* A minimal indenting JSON emitter for the record and the ready file. */
#ifndef WL_JSON_OUT_H
#define WL_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 16

struct json_out {
	FILE *f;
	int depth;
	bool first[JSON_DEPTH_MAX];
};

/* key is NULL inside arrays and for the top-level value. */
void json_begin(struct json_out *j, const char *key, char open);
void json_end(struct json_out *j, char close);
void json_u64(struct json_out *j, const char *key, uint64_t v);
void json_i64(struct json_out *j, const char *key, int64_t v);
void json_str(struct json_out *j, const char *key, const char *s);
void json_bool(struct json_out *j, const char *key, bool v);
void json_null(struct json_out *j, const char *key);
/* A value already in JSON. */
void json_raw(struct json_out *j, const char *key, const char *json);

#endif
