// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/util/strmap.h"

struct strmap_entry {
	struct strmap_entry *next;
	uint64_t hash;
	void *value;
	char key[];
};

/* FNV-1a: keys are short label tuples and client keys, not attacker-chosen in bulk. */
static uint64_t hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

static struct strmap_entry **slot(const struct strmap *m, const char *key, uint64_t h)
{
	struct strmap_entry **e = &m->buckets[h % m->nr_buckets];

	for (; *e; e = &(*e)->next)
		if ((*e)->hash == h && !strcmp((*e)->key, key))
			break;
	return e;
}

void *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_entry **e;

	if (!m->nr_buckets)
		return NULL;
	e = slot(m, key, hash_of(key));
	return *e ? (*e)->value : NULL;
}

static int grow(struct strmap *m)
{
	size_t n = m->nr_buckets ? m->nr_buckets * 2 : 64, i;
	struct strmap_entry **b = calloc(n, sizeof(*b));

	if (!b)
		return -1;
	for (i = 0; i < m->nr_buckets; i++) {
		struct strmap_entry *e = m->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash % n];
			b[e->hash % n] = e;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->nr_buckets = n;
	return 0;
}

int strmap_put(struct strmap *m, const char *key, void *value)
{
	uint64_t h = hash_of(key);
	struct strmap_entry **e, *n;
	size_t len = strlen(key);

	if (m->count >= m->nr_buckets && grow(m) && !m->nr_buckets)
		return -1;
	e = slot(m, key, h);
	if (*e) {
		(*e)->value = value;
		return 0;
	}
	n = malloc(sizeof(*n) + len + 1);
	if (!n)
		return -1;
	n->next = NULL;
	n->hash = h;
	n->value = value;
	memcpy(n->key, key, len + 1);
	*e = n;
	m->count++;
	return 0;
}

void strmap_del(struct strmap *m, const char *key)
{
	struct strmap_entry **e, *d;

	if (!m->nr_buckets)
		return;
	e = slot(m, key, hash_of(key));
	if (!*e)
		return;
	d = *e;
	*e = d->next;
	free(d);
	m->count--;
}

void strmap_fini(struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->nr_buckets; i++) {
		struct strmap_entry *e = m->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(m->buckets);
	memset(m, 0, sizeof(*m));
}

const char *strmap_key_u64(char buf[STRMAP_U64_KEY], uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[STRMAP_U64_KEY - 1], *p = tmp + sizeof(tmp);
	size_t n;

	do
		*--p = digits[v & 15];
	while (v >>= 4);
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}
