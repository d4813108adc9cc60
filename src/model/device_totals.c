// SPDX-License-Identifier: GPL-2.0-only
/* Per-device totals: engine figures and memory regions summed over a device's clients. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/proc_scan.h"
#include "drmtop/usage.h"

static void device_free(struct drm_device *d)
{
	size_t i;

	for (i = 0; i < d->nr_engines; i++)
		free(d->engines[i].name);
	for (i = 0; i < d->nr_regions; i++)
		free(d->regions[i].name);
	free(d->engines);
	free(d->regions);
	free(d->key);
	free(d->driver);
	free(d->pdev);
}

void drm_devices_free(struct drm_device *devices, size_t nr_devices)
{
	size_t i;

	for (i = 0; i < nr_devices; i++)
		device_free(&devices[i]);
	free(devices);
}

/* Appends a zeroed element, returns it or NULL. Arrays grow one by one: they are short. */
static void *append(void **arr, size_t *nr, size_t size)
{
	char *n = realloc(*arr, (*nr + 1) * size);

	if (!n)
		return NULL;
	memset(n + *nr * size, 0, size);
	*arr = n;
	return n + (*nr)++ * size;
}

static struct drm_device_engine *device_engine(struct drm_device *d, const char *name)
{
	struct drm_device_engine *e;
	size_t i;

	for (i = 0; i < d->nr_engines; i++)
		if (!strcmp(d->engines[i].name, name))
			return &d->engines[i];
	e = append((void **)&d->engines, &d->nr_engines, sizeof(*e));
	if (!e)
		return NULL;
	e->name = strdup(name);
	if (!e->name) {
		d->nr_engines--;
		return NULL;
	}
	return e;
}

static struct drm_device_region *device_region(struct drm_device *d, const char *name)
{
	struct drm_device_region *r;
	size_t i;

	for (i = 0; i < d->nr_regions; i++)
		if (!strcmp(d->regions[i].name, name))
			return &d->regions[i];
	r = append((void **)&d->regions, &d->nr_regions, sizeof(*r));
	if (!r)
		return NULL;
	r->name = strdup(name);
	if (!r->name) {
		d->nr_regions--;
		return NULL;
	}
	return r;
}

/* Saturating: a sum that no longer fits is pinned at the maximum instead of wrapping. */
static void add_sat(uint64_t *sum, uint64_t v)
{
	*sum = v > UINT64_MAX - *sum ? UINT64_MAX : *sum + v;
}

static int copy_opt(char **dst, const char *src)
{
	if (*dst || !src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

static int add_client(struct drm_device *d, const struct drm_client *c)
{
	const struct drm_fdinfo *fi = &c->info;
	size_t i;

	if (copy_opt(&d->driver, fi->driver) || copy_opt(&d->pdev, fi->pdev))
		return -ENOMEM;
	d->nr_clients++;
	for (i = 0; i < fi->nr_engines; i++) {
		struct drm_device_engine *e = device_engine(d, fi->engines[i].name);
		double pct;
		bool over;

		if (!e)
			return -ENOMEM;
		if (!c->usage || !drm_engine_usage_pct(&c->usage[i], &pct, &over))
			continue;
		e->pct += pct;
		e->valid = true;
		e->over |= over || e->pct > 100.0;
		e->nr_clients++;
	}
	for (i = 0; i < fi->nr_regions; i++) {
		const struct drm_fdinfo_region *cr = &fi->regions[i];
		struct drm_device_region *r = device_region(d, cr->name);

		if (!r)
			return -ENOMEM;
		r->present |= cr->present;
		add_sat(&r->total, cr->total);
		add_sat(&r->shared, cr->shared);
		add_sat(&r->resident, cr->resident);
		add_sat(&r->purgeable, cr->purgeable);
		add_sat(&r->active, cr->active);
	}
	return 0;
}

int drm_devices_build(const struct drm_client *clients, size_t nr_clients,
		      struct drm_device **devices, size_t *nr_devices)
{
	struct drm_device *devs = NULL, *d;
	size_t nr = 0, i, j;

	for (i = 0; i < nr_clients; i++) {
		const struct drm_client *c = &clients[i];

		for (j = 0; j < nr; j++)
			if (!strcmp(devs[j].key, c->dev_key))
				break;
		if (j == nr) {
			d = append((void **)&devs, &nr, sizeof(*d));
			if (!d)
				goto nomem;
			d->key = strdup(c->dev_key);
			d->rdev = c->rdev;
			if (!d->key)
				goto nomem;
		}
		if (add_client(&devs[j], c))
			goto nomem;
	}
	*devices = devs;
	*nr_devices = nr;
	return 0;
nomem:
	drm_devices_free(devs, nr);
	*devices = NULL;
	*nr_devices = 0;
	return -ENOMEM;
}
