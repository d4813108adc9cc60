/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A map from strings to pointers: chained buckets that double when the map gets full, so
 * lookups stay cheap with thousands of clients. The map copies keys; values belong to the caller.
 */
#ifndef DRMTOP_UTIL_STRMAP_H
#define DRMTOP_UTIL_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_entry;

struct strmap {
	struct strmap_entry **buckets;
	size_t nr_buckets;
	size_t count;
};

void strmap_init(struct strmap *m);
/* The value of @key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Sets @key to @value (replacing any). 0, or -1 when memory runs out (the map is unchanged). */
int strmap_put(struct strmap *m, const char *key, void *value);
/* Removes @key if present. */
void strmap_del(struct strmap *m, const char *key);
void strmap_fini(struct strmap *m);

/* Room for strmap_key_u64's key: 16 hex digits and the NUL. */
#define STRMAP_U64_KEY 17
/*
 * @v as a key, in hex as "%llx" writes it, without printf (the reader keys every client and
 * cgroup by a number, thousands a refresh): returns @buf.
 */
const char *strmap_key_u64(char buf[STRMAP_U64_KEY], uint64_t v);

#endif /* DRMTOP_UTIL_STRMAP_H */
