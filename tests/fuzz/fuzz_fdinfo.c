// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fdinfo parser on arbitrary bytes. Besides the sanitizers' checks, what fdinfo.h promises:
 * parsing never fails on input, names are unique and non-empty, a printed capacity is never 0,
 * drm-memory alone counts as resident, the memory sum does not wrap, and parsing the same bytes
 * twice (into a struct that already holds a parse) gives the same result.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/fdinfo.h"

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                \
			abort();                                                       \
		}                                                                      \
	} while (0)

static void check_info(const struct drm_fdinfo *fi, const uint8_t *data, size_t size)
{
	size_t i, j, lines = 0;
	uint64_t total, part;
	bool any;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	lines++;
	CHECK(fi->nr_malformed <= lines);
	CHECK(fi->nr_engines + fi->nr_regions + fi->nr_extras <= lines);
	for (i = 0; i < fi->nr_engines; i++) {
		const struct drm_fdinfo_engine *e = &fi->engines[i];

		CHECK(e->name && e->name[0]);
		CHECK(e->present);
		CHECK(e->capacity != 0);
		CHECK(drm_fdinfo_engine(fi, e->name) == e);
		CHECK(!strchr(e->name, '\n'));
	}
	for (i = 0; i < fi->nr_regions; i++) {
		const struct drm_fdinfo_region *r = &fi->regions[i];

		CHECK(r->name && r->name[0]);
		CHECK(r->present);
		CHECK(drm_fdinfo_region(fi, r->name) == r);
		if (r->present & DRM_REGION_HAS_LEGACY)
			CHECK(r->present & DRM_REGION_HAS_RESIDENT);
	}
	for (i = 0; i < fi->nr_extras; i++) {
		CHECK(fi->extras[i].key && fi->extras[i].key[0] && fi->extras[i].value);
		/* A key printed twice keeps its first value, like the spec keys. */
		for (j = 0; j < i; j++)
			CHECK(strcmp(fi->extras[i].key, fi->extras[j].key));
	}
	CHECK(!fi->driver || fi->driver[0]);
	CHECK(fi->format != DRM_FDINFO_FMT_DRM || fi->nr_engines || fi->nr_regions ||
	      fi->driver || fi->pdev || fi->client_name ||
	      (fi->present & DRM_FDINFO_HAS_CLIENT_ID) || fi->nr_malformed || fi->nr_extras);
	total = drm_fdinfo_total_bytes(fi, &any);
	for (i = 0; i < fi->nr_regions; i++) {
		const struct drm_fdinfo_region *r = &fi->regions[i];

		if (r->present & DRM_REGION_HAS_TOTAL)
			part = r->total;
		else if (r->present & DRM_REGION_HAS_RESIDENT)
			part = r->resident;
		else
			continue;
		CHECK(any);
		/* The sum saturates: it can never come out below one of its parts. */
		CHECK(total >= part);
	}
}

static bool same(const struct drm_fdinfo *a, const struct drm_fdinfo *b)
{
	size_t i;

	if (a->format != b->format || a->present != b->present || a->nr_engines != b->nr_engines ||
	    a->nr_regions != b->nr_regions || a->nr_extras != b->nr_extras ||
	    a->nr_malformed != b->nr_malformed || a->client_id != b->client_id)
		return false;
	for (i = 0; i < a->nr_engines; i++)
		if (strcmp(a->engines[i].name, b->engines[i].name) ||
		    a->engines[i].busy_ns != b->engines[i].busy_ns)
			return false;
	for (i = 0; i < a->nr_regions; i++)
		if (strcmp(a->regions[i].name, b->regions[i].name) ||
		    a->regions[i].total != b->regions[i].total)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_fdinfo a, b;
	/* An exact-size copy, so reading one byte past the input is caught by ASan. */
	char *buf = malloc(size ? size : 1);

	if (!buf)
		abort();
	memcpy(buf, data, size);
	drm_fdinfo_init(&a);
	drm_fdinfo_init(&b);
	CHECK(drm_fdinfo_parse(&a, buf, size) == 0);
	check_info(&a, data, size);
	/* Into a struct that already holds a parse: the old contents go first. */
	CHECK(drm_fdinfo_parse(&b, "drm-engine-x: 1 ns\nfoo: bar\n", 28) == 0);
	CHECK(drm_fdinfo_parse(&b, buf, size) == 0);
	CHECK(same(&a, &b));
	drm_fdinfo_free(&a);
	drm_fdinfo_free(&b);
	free(buf);
	return 0;
}
