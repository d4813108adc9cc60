/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parser for one /proc/<pid>/fdinfo/<fd> buffer of a DRM or accel file, following the DRM client
 * usage stats spec (Documentation/gpu/drm-usage-stats.rst, newest revision).
 *
 * Key set from the spec and shared/KERNEL-NOTES.md (6.1's amdgpu/i915/msm printers, the generic
 * drm_show_fdinfo / drm_show_memory_stats of 6.5+); checked against the verbatim samples in
 * shared/fdinfo_samples (amdgpu 5.15 .. 6.18, i915, msm, panfrost, v3d).
 *
 * Nothing here has a fixed limit: engines, regions and extra keys live in growing arrays. A line
 * that cannot be understood is skipped and counted in nr_malformed; parsing never fails on input,
 * only on allocation failure.
 */
#ifndef DRMTOP_FDINFO_H
#define DRMTOP_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum drm_fdinfo_format {
	/* No DRM key at all: a DRM file whose driver prints nothing (e.g. 6.1 vgem, card nodes). */
	DRM_FDINFO_FMT_NONE = 0,
	/* At least one drm-* key of the usage stats spec; drm-driver may still be absent. */
	DRM_FDINFO_FMT_DRM,
	/*
	 * amdgpu before 5.19 ("gfx0: 70.59%", "vram mem: 17196 kB", "pdev:", no drm-driver).
	 * Recognised so callers can say "unsupported format"; no engine or region is filled from it
	 * (its lines are kept as extras).
	 */
	DRM_FDINFO_FMT_AMDGPU_LEGACY,
};

/* drm_fdinfo_engine.present bits */
#define DRM_ENGINE_HAS_BUSY		(1u << 0)	/* drm-engine-<e>: <ns> */
#define DRM_ENGINE_HAS_CAPACITY		(1u << 1)	/* drm-engine-capacity-<e> */
#define DRM_ENGINE_HAS_CYCLES		(1u << 2)	/* drm-cycles-<e> */
#define DRM_ENGINE_HAS_TOTAL_CYCLES	(1u << 3)	/* drm-total-cycles-<e> */
#define DRM_ENGINE_HAS_MAXFREQ		(1u << 4)	/* drm-maxfreq-<e> */

struct drm_fdinfo_engine {
	char *name;		/* "<e>" as printed, e.g. "gfx", "video-enhance", "cache_clean" */
	unsigned int present;	/* DRM_ENGINE_HAS_* */
	uint64_t busy_ns;
	uint64_t capacity;	/* 1 when not printed (spec default); a printed 0 is malformed */
	uint64_t cycles;
	uint64_t total_cycles;
	uint64_t maxfreq_hz;	/* Hz/KHz/MHz converted to Hz */
};

/* drm_fdinfo_region.present bits */
#define DRM_REGION_HAS_TOTAL		(1u << 0)
#define DRM_REGION_HAS_SHARED		(1u << 1)
/* drm-resident-<r>, or drm-memory-<r> alone */
#define DRM_REGION_HAS_RESIDENT		(1u << 2)
#define DRM_REGION_HAS_PURGEABLE	(1u << 3)
#define DRM_REGION_HAS_ACTIVE		(1u << 4)
#define DRM_REGION_HAS_LEGACY		(1u << 5)	/* deprecated drm-memory-<r> was printed */

struct drm_fdinfo_region {
	char *name;		/* "<r>", e.g. "vram", "gtt", "system0", "memory" (= system memory) */
	unsigned int present;	/* DRM_REGION_HAS_* */
	/* Bytes. KiB/MiB converted; a missing unit means bytes. */
	uint64_t total;
	uint64_t shared;
	/*
	 * drm-resident-<r> when printed; otherwise the deprecated drm-memory-<r> (which means
	 * resident). Both printed: drm-resident wins and drm-memory is only kept in legacy_memory,
	 * so nothing is counted twice.
	 */
	uint64_t resident;
	uint64_t purgeable;
	uint64_t active;
	uint64_t legacy_memory;	/* raw drm-memory-<r>, valid with DRM_REGION_HAS_LEGACY */
};

/*
 * A key the spec does not define (amd-*, v3d-jobs-*, pasid, drm-curfreq-*, ...), kept verbatim;
 * each key once.
 */
struct drm_fdinfo_extra {
	char *key;
	char *value;		/* trimmed of surrounding blanks */
};

/* drm_fdinfo.present bits for the single-valued keys */
#define DRM_FDINFO_HAS_POS		(1u << 0)
#define DRM_FDINFO_HAS_FLAGS		(1u << 1)
#define DRM_FDINFO_HAS_MNT_ID		(1u << 2)
#define DRM_FDINFO_HAS_INO		(1u << 3)
#define DRM_FDINFO_HAS_CLIENT_ID	(1u << 4)

struct drm_fdinfo {
	enum drm_fdinfo_format format;
	unsigned int present;		/* DRM_FDINFO_HAS_* */

	/* Generic fdinfo lines (fs/proc/fd.c). flags is printed in octal. */
	uint64_t pos;
	uint64_t flags;
	uint64_t mnt_id;
	uint64_t ino;

	char *driver;			/* drm-driver, NULL if absent */
	char *pdev;			/* drm-pdev, NULL if absent (platform devices) */
	char *client_name;		/* drm-client-name (7.x), NULL if absent */
	uint64_t client_id;		/* drm-client-id, valid with DRM_FDINFO_HAS_CLIENT_ID */

	struct drm_fdinfo_engine *engines;	/* in order of first appearance */
	size_t nr_engines;
	struct drm_fdinfo_region *regions;	/* in order of first appearance */
	size_t nr_regions;
	struct drm_fdinfo_extra *extras;	/* in input order */
	size_t nr_extras;

	/*
	 * Lines skipped: no ':' separator, empty key, a spec key whose value is not a u64 (or
	 * overflows u64 after the unit is applied), an unknown unit, capacity 0, or a key printed
	 * twice (the first value is kept; extras too).
	 */
	unsigned int nr_malformed;

	size_t engines_cap, regions_cap, extras_cap;	/* private: allocation sizes */
};

/* Empty, ready to parse into. A zeroed struct is equally valid. */
void drm_fdinfo_init(struct drm_fdinfo *fi);

/*
 * Parse @len bytes of @buf (need not be NUL-terminated) into @fi, which must be initialised
 * (drm_fdinfo_init); anything it held is released first. Lines end at '\n'; key and value are
 * separated by the first ':' and the value may be indented with tabs and/or spaces.
 * Returns 0, or -ENOMEM (then @fi is left empty).
 */
int drm_fdinfo_parse(struct drm_fdinfo *fi, const char *buf, size_t len);

/* Release everything @fi owns and leave it empty (initialised). */
void drm_fdinfo_free(struct drm_fdinfo *fi);

/* Lookups by exact name; NULL when absent. */
const struct drm_fdinfo_engine *drm_fdinfo_engine(const struct drm_fdinfo *fi, const char *name);
const struct drm_fdinfo_region *drm_fdinfo_region(const struct drm_fdinfo *fi, const char *name);
/*
 * A client's memory over all its regions: drm-total where printed, else resident (drivers that
 * print only drm-memory-<r>), saturating at UINT64_MAX. *@any (if non-NULL) tells whether any
 * region had either.
 */
uint64_t drm_fdinfo_total_bytes(const struct drm_fdinfo *fi, bool *any);

/* Value of the first extra key @key, NULL when absent. */
const char *drm_fdinfo_extra(const struct drm_fdinfo *fi, const char *key);

/*
 * Number parsing shared with the scanner and the tests. All return 0 or -EINVAL (not a plain
 * decimal u64, trailing junk, unknown unit) or -ERANGE (u64 overflow, also after scaling).
 * drm_parse_bytes accepts "<uint>", "<uint> KiB", "<uint> MiB"; drm_parse_hz accepts "<uint>",
 * "<uint> Hz", "<uint> KHz" (also "kHz"), "<uint> MHz". Leading/trailing blanks are allowed.
 */
int drm_parse_bytes(const char *s, uint64_t *out);
int drm_parse_hz(const char *s, uint64_t *out);
/* "<uint>" in @base (10, or 8 for the fdinfo flags line), nothing else. */
int drm_parse_u64(const char *s, unsigned int base, uint64_t *out);
/* "<uint>" or "<uint> <unit>" with exactly @unit (e.g. "ns"). */
int drm_parse_u64_unit(const char *s, const char *unit, uint64_t *out);

/* Human name of a format, e.g. for "unsupported fdinfo format: amdgpu pre-5.19". */
const char *drm_fdinfo_format_name(enum drm_fdinfo_format fmt);

#endif /* DRMTOP_FDINFO_H */
