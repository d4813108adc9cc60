// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM client usage stats (fdinfo) parser. Key set: Documentation/gpu/drm-usage-stats.rst as of
 * 7.x, plus what 6.1's amdgpu/i915/msm print themselves; see include/drmtop/fdinfo.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drmtop/fdinfo.h"
#include "drmtop/util/utf8.h"
#include "drmtop/util/vec.h"

void drm_fdinfo_init(struct drm_fdinfo *fi)
{
	memset(fi, 0, sizeof(*fi));
}

void drm_fdinfo_free(struct drm_fdinfo *fi)
{
	size_t i;

	for (i = 0; i < fi->nr_engines; i++)
		free(fi->engines[i].name);
	for (i = 0; i < fi->nr_regions; i++)
		free(fi->regions[i].name);
	for (i = 0; i < fi->nr_extras; i++) {
		free(fi->extras[i].key);
		free(fi->extras[i].value);
	}
	free(fi->engines);
	free(fi->regions);
	free(fi->extras);
	free(fi->driver);
	free(fi->pdev);
	free(fi->client_name);
	drm_fdinfo_init(fi);
}

const char *drm_fdinfo_format_name(enum drm_fdinfo_format fmt)
{
	switch (fmt) {
	case DRM_FDINFO_FMT_NONE:
		return "none";
	case DRM_FDINFO_FMT_DRM:
		return "drm-usage-stats";
	case DRM_FDINFO_FMT_AMDGPU_LEGACY:
		return "amdgpu pre-5.19";
	}
	return "unknown";
}

const struct drm_fdinfo_engine *drm_fdinfo_engine(const struct drm_fdinfo *fi, const char *name)
{
	size_t i;

	for (i = 0; i < fi->nr_engines; i++)
		if (!strcmp(fi->engines[i].name, name))
			return &fi->engines[i];
	return NULL;
}

const struct drm_fdinfo_region *drm_fdinfo_region(const struct drm_fdinfo *fi, const char *name)
{
	size_t i;

	for (i = 0; i < fi->nr_regions; i++)
		if (!strcmp(fi->regions[i].name, name))
			return &fi->regions[i];
	return NULL;
}

const char *drm_fdinfo_extra(const struct drm_fdinfo *fi, const char *key)
{
	size_t i;

	for (i = 0; i < fi->nr_extras; i++)
		if (!strcmp(fi->extras[i].key, key))
			return fi->extras[i].value;
	return NULL;
}

static struct drm_fdinfo_engine *get_engine(struct drm_fdinfo *fi, const char *name)
{
	struct drm_fdinfo_engine *e = (struct drm_fdinfo_engine *)drm_fdinfo_engine(fi, name);
	char *copy;

	if (e)
		return e;
	copy = strdup(name);
	e = copy ? vec_push(fi->engines, fi->nr_engines, fi->engines_cap) : NULL;
	if (!e) {
		free(copy);
		return NULL;
	}
	e->name = copy;
	e->capacity = 1;
	return e;
}

static struct drm_fdinfo_region *get_region(struct drm_fdinfo *fi, const char *name)
{
	struct drm_fdinfo_region *r = (struct drm_fdinfo_region *)drm_fdinfo_region(fi, name);
	char *copy;

	if (r)
		return r;
	copy = strdup(name);
	r = copy ? vec_push(fi->regions, fi->nr_regions, fi->regions_cap) : NULL;
	if (!r) {
		free(copy);
		return NULL;
	}
	r->name = copy;
	return r;
}

/* Returns 1 if kept, 0 for a key printed before (its first value stays), -ENOMEM. */
static int add_extra(struct drm_fdinfo *fi, const char *key, const char *value)
{
	struct drm_fdinfo_extra *x;
	char *clean, *copy;

	/*
	 * Kept as every view can print it, so that two keys differing only in ill-formed bytes
	 * are seen as the one key they become: a key twice would make the JSON extras object
	 * ambiguous. As for the spec keys, the first value stays.
	 */
	clean = utf8_sanitize(key);
	if (!clean)
		return -ENOMEM;
	if (drm_fdinfo_extra(fi, clean)) {
		free(clean);
		return 0;
	}
	copy = strdup(value);
	x = copy ? vec_push(fi->extras, fi->nr_extras, fi->extras_cap) : NULL;
	if (!x) {
		free(clean);
		free(copy);
		return -ENOMEM;
	}
	x->key = clean;
	x->value = copy;
	return 1;
}

enum engine_field { EF_BUSY, EF_CAPACITY, EF_CYCLES, EF_TOTAL_CYCLES, EF_MAXFREQ };
enum region_field { RF_TOTAL, RF_SHARED, RF_RESIDENT, RF_PURGEABLE, RF_ACTIVE, RF_LEGACY };

/* Longer prefixes first: "drm-engine-capacity-" before "drm-engine-", "drm-total-cycles-" before
 * "drm-total-". A region literally named "cycles-x" is therefore unrepresentable, as in the spec.
 */
static const struct {
	const char *prefix;
	enum engine_field field;
} engine_keys[] = {
	{ "drm-engine-capacity-", EF_CAPACITY },
	{ "drm-total-cycles-", EF_TOTAL_CYCLES },
	{ "drm-engine-", EF_BUSY },
	{ "drm-cycles-", EF_CYCLES },
	{ "drm-maxfreq-", EF_MAXFREQ },
};

static const struct {
	const char *prefix;
	enum region_field field;
} region_keys[] = {
	{ "drm-total-", RF_TOTAL },
	{ "drm-shared-", RF_SHARED },
	{ "drm-resident-", RF_RESIDENT },
	{ "drm-purgeable-", RF_PURGEABLE },
	{ "drm-active-", RF_ACTIVE },
	{ "drm-memory-", RF_LEGACY },
};

static const char *after_prefix(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(key, prefix, n) ? NULL : key + n;
}

/* Returns 1 if consumed, 0 if malformed, -ENOMEM. */
static int set_engine(struct drm_fdinfo *fi, const char *name, enum engine_field f,
		      const char *value)
{
	static const unsigned int bit[] = {
		[EF_BUSY] = DRM_ENGINE_HAS_BUSY,
		[EF_CAPACITY] = DRM_ENGINE_HAS_CAPACITY,
		[EF_CYCLES] = DRM_ENGINE_HAS_CYCLES,
		[EF_TOTAL_CYCLES] = DRM_ENGINE_HAS_TOTAL_CYCLES,
		[EF_MAXFREQ] = DRM_ENGINE_HAS_MAXFREQ,
	};
	struct drm_fdinfo_engine *e;
	uint64_t v;
	int err;

	switch (f) {
	case EF_BUSY:
		err = drm_parse_u64_unit(value, "ns", &v);
		break;
	case EF_MAXFREQ:
		err = drm_parse_hz(value, &v);
		break;
	default:
		err = drm_parse_u64(value, 10, &v);
		break;
	}
	if (err || (f == EF_CAPACITY && v == 0))
		return 0;
	/* Only create the engine once the value is known good. */
	e = get_engine(fi, name);
	if (!e)
		return -ENOMEM;
	if (e->present & bit[f])
		return 0;
	e->present |= bit[f];
	switch (f) {
	case EF_BUSY:
		e->busy_ns = v;
		break;
	case EF_CAPACITY:
		e->capacity = v;
		break;
	case EF_CYCLES:
		e->cycles = v;
		break;
	case EF_TOTAL_CYCLES:
		e->total_cycles = v;
		break;
	case EF_MAXFREQ:
		e->maxfreq_hz = v;
		break;
	}
	return 1;
}

static int set_region(struct drm_fdinfo *fi, const char *name, enum region_field f,
		      const char *value)
{
	static const unsigned int bit[] = {
		[RF_TOTAL] = DRM_REGION_HAS_TOTAL,
		[RF_SHARED] = DRM_REGION_HAS_SHARED,
		[RF_RESIDENT] = DRM_REGION_HAS_RESIDENT,
		[RF_PURGEABLE] = DRM_REGION_HAS_PURGEABLE,
		[RF_ACTIVE] = DRM_REGION_HAS_ACTIVE,
		[RF_LEGACY] = DRM_REGION_HAS_LEGACY,
	};
	struct drm_fdinfo_region *r;
	uint64_t v;

	if (drm_parse_bytes(value, &v))
		return 0;
	r = get_region(fi, name);
	if (!r)
		return -ENOMEM;
	if (r->present & bit[f])
		return 0;
	r->present |= bit[f];
	switch (f) {
	case RF_TOTAL:
		r->total = v;
		break;
	case RF_SHARED:
		r->shared = v;
		break;
	case RF_RESIDENT:
		r->resident = v;
		break;
	case RF_PURGEABLE:
		r->purgeable = v;
		break;
	case RF_ACTIVE:
		r->active = v;
		break;
	case RF_LEGACY:
		r->legacy_memory = v;
		break;
	}
	return 1;
}

static int set_string(char **dst, const char *value)
{
	if (*dst || !*value)
		return 0;
	*dst = strdup(value);
	return *dst ? 1 : -ENOMEM;
}

static int set_u64(struct drm_fdinfo *fi, unsigned int bit, uint64_t *dst, unsigned int base,
		   const char *value)
{
	uint64_t v;

	if ((fi->present & bit) || drm_parse_u64(value, base, &v))
		return 0;
	*dst = v;
	fi->present |= bit;
	return 1;
}

struct parse_state {
	bool saw_drm;
	bool saw_legacy;
};

/*
 * Markers of amdgpu's pre-5.19 printer (amdgpu_fdinfo.c in 5.14..5.18): "pdev:", "<x> mem: N kB"
 * and "<ring>: NN.NN%". None of them can appear in a spec-conforming file (keys have no blanks,
 * the PCI address is drm-pdev).
 */
static bool is_legacy_amdgpu(const char *key, const char *value)
{
	size_t kl = strlen(key), vl = strlen(value);

	if (!strcmp(key, "pdev"))
		return true;
	if (kl > 4 && !strcmp(key + kl - 4, " mem"))
		return true;
	return vl > 1 && value[vl - 1] == '%';
}

/* Returns 1 consumed, 0 malformed, -ENOMEM. */
static int parse_pair(struct drm_fdinfo *fi, struct parse_state *st, const char *key,
		      const char *value)
{
	const char *name;
	size_t i;

	if (!strcmp(key, "pos"))
		return set_u64(fi, DRM_FDINFO_HAS_POS, &fi->pos, 10, value);
	if (!strcmp(key, "flags"))
		return set_u64(fi, DRM_FDINFO_HAS_FLAGS, &fi->flags, 8, value);
	if (!strcmp(key, "mnt_id"))
		return set_u64(fi, DRM_FDINFO_HAS_MNT_ID, &fi->mnt_id, 10, value);
	if (!strcmp(key, "ino"))
		return set_u64(fi, DRM_FDINFO_HAS_INO, &fi->ino, 10, value);

	if (strncmp(key, "drm-", 4)) {
		if (is_legacy_amdgpu(key, value))
			st->saw_legacy = true;
		return add_extra(fi, key, value);
	}
	st->saw_drm = true;

	if (!strcmp(key, "drm-driver"))
		return set_string(&fi->driver, value);
	if (!strcmp(key, "drm-pdev"))
		return set_string(&fi->pdev, value);
	if (!strcmp(key, "drm-client-name"))
		return set_string(&fi->client_name, value);
	if (!strcmp(key, "drm-client-id"))
		return set_u64(fi, DRM_FDINFO_HAS_CLIENT_ID, &fi->client_id, 10, value);

	for (i = 0; i < sizeof(engine_keys) / sizeof(engine_keys[0]); i++) {
		name = after_prefix(key, engine_keys[i].prefix);
		if (name)
			return *name ? set_engine(fi, name, engine_keys[i].field, value) : 0;
	}
	for (i = 0; i < sizeof(region_keys) / sizeof(region_keys[0]); i++) {
		name = after_prefix(key, region_keys[i].prefix);
		if (name)
			return *name ? set_region(fi, name, region_keys[i].field, value) : 0;
	}
	/* drm-curfreq-* (panfrost) and anything newer than this parser */
	return add_extra(fi, key, value);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* @line is a writable NUL-terminated copy of one line. */
static int parse_line(struct drm_fdinfo *fi, struct parse_state *st, char *line)
{
	char *colon, *key, *value, *end;
	int ret;

	key = line;
	while (blank(*key))
		key++;
	if (!*key)
		return 0;	/* empty lines are not malformed, just nothing */
	colon = strchr(key, ':');
	if (!colon) {
		fi->nr_malformed++;
		return 0;
	}
	end = colon;
	while (end > key && blank(end[-1]))
		end--;
	*end = '\0';
	value = colon + 1;
	while (blank(*value))
		value++;
	end = value + strlen(value);
	while (end > value && blank(end[-1]))
		end--;
	*end = '\0';
	if (!*key) {
		fi->nr_malformed++;
		return 0;
	}
	ret = parse_pair(fi, st, key, value);
	if (ret < 0)
		return ret;
	if (!ret)
		fi->nr_malformed++;
	return 0;
}

static void finish(struct drm_fdinfo *fi, const struct parse_state *st)
{
	size_t i;

	for (i = 0; i < fi->nr_regions; i++) {
		struct drm_fdinfo_region *r = &fi->regions[i];

		if ((r->present & DRM_REGION_HAS_LEGACY) &&
		    !(r->present & DRM_REGION_HAS_RESIDENT)) {
			r->resident = r->legacy_memory;
			r->present |= DRM_REGION_HAS_RESIDENT;
		}
	}
	if (st->saw_drm)
		fi->format = DRM_FDINFO_FMT_DRM;
	else if (st->saw_legacy)
		fi->format = DRM_FDINFO_FMT_AMDGPU_LEGACY;
	else
		fi->format = DRM_FDINFO_FMT_NONE;
}

/*
 * Parsed arrays are held for two samples of every client: in their own size, not the 8 the
 * growth starts at (7 MiB with 5,000 clients, most of which have 1 region and 3 engines).
 */
static void fit(void *arr, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (!n || n >= *cap)
		return;
	p = realloc(*(void **)arr, n * size);
	if (!p)
		return;
	*(void **)arr = p;
	*cap = n;
}

int drm_fdinfo_parse(struct drm_fdinfo *fi, const char *buf, size_t len)
{
	struct parse_state st = { 0 };
	char *line = NULL;
	size_t line_cap = 0, pos = 0;
	int err = 0;

	drm_fdinfo_free(fi);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		err = vec_reserve(line, line_cap, n + 1);
		if (err)
			break;
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		/* A NUL inside a line would silently cut it: treat the line as malformed. */
		if (memchr(buf + pos, '\0', n))
			fi->nr_malformed++;
		else
			err = parse_line(fi, &st, line);
		if (err)
			break;
		pos += n + 1;
	}
	free(line);
	if (err) {
		drm_fdinfo_free(fi);
		return err;
	}
	finish(fi, &st);
	fit(&fi->engines, &fi->engines_cap, fi->nr_engines, sizeof(*fi->engines));
	fit(&fi->regions, &fi->regions_cap, fi->nr_regions, sizeof(*fi->regions));
	fit(&fi->extras, &fi->extras_cap, fi->nr_extras, sizeof(*fi->extras));
	return 0;
}

uint64_t drm_fdinfo_total_bytes(const struct drm_fdinfo *fi, bool *any)
{
	uint64_t total = 0, part;
	bool seen = false;
	size_t i;

	for (i = 0; i < fi->nr_regions; i++) {
		const struct drm_fdinfo_region *r = &fi->regions[i];

		if (r->present & DRM_REGION_HAS_TOTAL)
			part = r->total;
		else if (r->present & DRM_REGION_HAS_RESIDENT)
			part = r->resident;
		else
			continue;
		/* Saturating: regions near 2^64 (a driver bug, hostile input) must not wrap. */
		total = part > UINT64_MAX - total ? UINT64_MAX : total + part;
		seen = true;
	}
	if (any)
		*any = seen;
	return total;
}
