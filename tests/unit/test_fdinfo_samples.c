// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fdinfo parser against every verbatim sample in shared/fdinfo_samples. Every expected value
 * below was read off the sample text by hand (units converted by hand: KiB x 1024, MiB x 1048576).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drmtop/fdinfo.h"
#include "fixture.h"

#define ALL_MEM (DRM_REGION_HAS_TOTAL | DRM_REGION_HAS_SHARED | DRM_REGION_HAS_RESIDENT | \
		 DRM_REGION_HAS_PURGEABLE | DRM_REGION_HAS_ACTIVE)
#define GENERIC4 (DRM_FDINFO_HAS_POS | DRM_FDINFO_HAS_FLAGS | DRM_FDINFO_HAS_MNT_ID | \
		  DRM_FDINFO_HAS_INO)

static struct drm_fdinfo parse_sample(const char *file, size_t idx, size_t expect_nr)
{
	struct drm_fdinfo fi;
	struct fx_file f;

	fx_load(file, &f);
	assert_int_equal(f.nr, expect_nr);
	drm_fdinfo_init(&fi);
	assert_int_equal(drm_fdinfo_parse(&fi, f.samples[idx].text, f.samples[idx].len), 0);
	fx_free(&f);
	return fi;
}

static void check_engine(const struct drm_fdinfo *fi, size_t idx, const char *name,
			 unsigned int present, uint64_t busy, uint64_t capacity, uint64_t cycles,
			 uint64_t maxfreq)
{
	const struct drm_fdinfo_engine *e;

	assert_true(idx < fi->nr_engines);
	e = &fi->engines[idx];
	assert_string_equal(e->name, name);
	assert_int_equal(e->present, present);
	assert_int_equal(e->busy_ns, busy);
	assert_int_equal(e->capacity, capacity);
	assert_int_equal(e->cycles, cycles);
	assert_int_equal(e->maxfreq_hz, maxfreq);
	assert_int_equal(e->total_cycles, 0);
	assert_ptr_equal(drm_fdinfo_engine(fi, name), e);
}

static void check_region(const struct drm_fdinfo *fi, size_t idx, const char *name,
			 unsigned int present, uint64_t total, uint64_t shared, uint64_t resident,
			 uint64_t purgeable, uint64_t active, uint64_t legacy)
{
	const struct drm_fdinfo_region *r;

	assert_true(idx < fi->nr_regions);
	r = &fi->regions[idx];
	assert_string_equal(r->name, name);
	assert_int_equal(r->present, present);
	assert_int_equal(r->total, total);
	assert_int_equal(r->shared, shared);
	assert_int_equal(r->resident, resident);
	assert_int_equal(r->purgeable, purgeable);
	assert_int_equal(r->active, active);
	assert_int_equal(r->legacy_memory, legacy);
	assert_ptr_equal(drm_fdinfo_region(fi, name), r);
}

static void check_extra(const struct drm_fdinfo *fi, size_t idx, const char *key,
			const char *value)
{
	assert_true(idx < fi->nr_extras);
	assert_string_equal(fi->extras[idx].key, key);
	assert_string_equal(fi->extras[idx].value, value);
}

static void check_generic(const struct drm_fdinfo *fi, unsigned int present, uint64_t pos,
			  uint64_t flags, uint64_t mnt_id, uint64_t ino)
{
	assert_int_equal(fi->present & GENERIC4, present);
	assert_int_equal(fi->pos, pos);
	assert_int_equal(fi->flags, flags);
	assert_int_equal(fi->mnt_id, mnt_id);
	assert_int_equal(fi->ino, ino);
}

static void check_identity(const struct drm_fdinfo *fi, const char *driver, const char *pdev,
			   uint64_t client_id)
{
	assert_int_equal(fi->format, DRM_FDINFO_FMT_DRM);
	assert_string_equal(fi->driver, driver);
	if (pdev)
		assert_string_equal(fi->pdev, pdev);
	else
		assert_null(fi->pdev);
	assert_true(fi->present & DRM_FDINFO_HAS_CLIENT_ID);
	assert_int_equal(fi->client_id, client_id);
	assert_null(fi->client_name);
	assert_int_equal(fi->nr_malformed, 0);
}

/* pre-5.19: recognised, not interpreted */
static void amdgpu_a_legacy(void **state)
{
	struct drm_fdinfo fi = parse_sample("amdgpu.txt", 0, 5);

	(void)state;
	assert_int_equal(fi.format, DRM_FDINFO_FMT_AMDGPU_LEGACY);
	check_generic(&fi, GENERIC4, 0, 02100002, 26, 623);
	assert_null(fi.driver);
	assert_null(fi.pdev);
	assert_false(fi.present & DRM_FDINFO_HAS_CLIENT_ID);
	assert_int_equal(fi.nr_engines, 0);
	assert_int_equal(fi.nr_regions, 0);
	assert_int_equal(fi.nr_extras, 6);
	check_extra(&fi, 0, "pdev", "0000:04:00.0");
	check_extra(&fi, 1, "pasid", "32774");
	check_extra(&fi, 2, "vram mem", "17196 kB");
	check_extra(&fi, 3, "gtt mem", "6144 kB");
	check_extra(&fi, 4, "cpu mem", "0 kB");
	check_extra(&fi, 5, "gfx0", "70.59%");
	assert_int_equal(fi.nr_malformed, 0);
	drm_fdinfo_free(&fi);
}

static void amdgpu_b_memory_legacy_only(void **state)
{
	const unsigned int res = DRM_REGION_HAS_RESIDENT | DRM_REGION_HAS_LEGACY;
	struct drm_fdinfo fi = parse_sample("amdgpu.txt", 1, 5);

	(void)state;
	check_identity(&fi, "amdgpu", "0000:08:00.0", 217);
	check_generic(&fi, GENERIC4, 0, 02104002, 24, 614);
	assert_int_equal(fi.nr_regions, 3);
	check_region(&fi, 0, "vram", res, 0, 0, 2117632, 0, 0, 2117632);
	check_region(&fi, 1, "gtt", res, 0, 0, 8388608, 0, 0, 8388608);
	check_region(&fi, 2, "cpu", res, 0, 0, 0, 0, 0, 0);
	assert_int_equal(fi.nr_engines, 1);
	check_engine(&fi, 0, "gfx", DRM_ENGINE_HAS_BUSY, 107322799, 1, 0, 0);
	assert_int_equal(fi.nr_extras, 1);
	check_extra(&fi, 0, "pasid", "32784");
	drm_fdinfo_free(&fi);
}

static void amdgpu_c_memory_stats_and_legacy(void **state)
{
	const unsigned int all = ALL_MEM | DRM_REGION_HAS_LEGACY;
	struct drm_fdinfo fi = parse_sample("amdgpu.txt", 2, 5);

	(void)state;
	check_identity(&fi, "amdgpu", "0000:04:00.0", 4);
	check_generic(&fi, GENERIC4, 0, 02100002, 24, 1239);
	assert_int_equal(fi.nr_regions, 3);
	check_region(&fi, 0, "cpu", all, 0, 0, 0, 0, 0, 0);
	/* resident comes from drm-resident-gtt; drm-memory-gtt does not add to it */
	check_region(&fi, 1, "gtt", all, 2449408, 0, 2449408, 0, 0, 2449408);
	check_region(&fi, 2, "vram", all, 45633536, 32718848, 45633536, 0, 0, 45633536);
	assert_int_equal(fi.nr_engines, 1);
	check_engine(&fi, 0, "compute", DRM_ENGINE_HAS_BUSY, 46464671, 1, 0, 0);
	assert_int_equal(fi.nr_extras, 7);
	check_extra(&fi, 0, "pasid", "32771");
	check_extra(&fi, 1, "amd-memory-visible-vram", "44564 KiB");
	check_extra(&fi, 2, "amd-evicted-vram", "0 KiB");
	check_extra(&fi, 3, "amd-evicted-visible-vram", "0 KiB");
	check_extra(&fi, 4, "amd-requested-vram", "44564 KiB");
	check_extra(&fi, 5, "amd-requested-visible-vram", "11952 KiB");
	check_extra(&fi, 6, "amd-requested-gtt", "2392 KiB");
	assert_string_equal(drm_fdinfo_extra(&fi, "amd-requested-gtt"), "2392 KiB");
	assert_null(drm_fdinfo_extra(&fi, "amd-requested"));
	drm_fdinfo_free(&fi);
}

static void amdgpu_d_many_regions_mixed_units(void **state)
{
	const unsigned int all = ALL_MEM | DRM_REGION_HAS_LEGACY;
	struct drm_fdinfo fi = parse_sample("amdgpu.txt", 3, 5);

	(void)state;
	check_identity(&fi, "amdgpu", "0000:04:00.0", 30);
	check_generic(&fi, GENERIC4, 0, 02100002, 24, 1181);
	assert_int_equal(fi.nr_regions, 7);
	check_region(&fi, 0, "cpu", all, 0, 0, 0, 0, 0, 0);
	/* "20 MiB" resident and "20480 KiB" legacy: one figure, 20971520 bytes, not twice that */
	check_region(&fi, 1, "gtt", all, 20971520, 0, 20971520, 0, 0, 20971520);
	check_region(&fi, 2, "vram", all, 158789632, 13910016, 158789632, 0, 0, 158789632);
	check_region(&fi, 3, "gds", ALL_MEM, 0, 0, 0, 0, 0, 0);
	check_region(&fi, 4, "gws", ALL_MEM, 0, 0, 0, 0, 0, 0);
	check_region(&fi, 5, "oa", ALL_MEM, 0, 0, 0, 0, 0, 0);
	check_region(&fi, 6, "doorbell", ALL_MEM, 0, 0, 0, 0, 0, 0);
	assert_int_equal(fi.nr_engines, 1);
	check_engine(&fi, 0, "gfx", DRM_ENGINE_HAS_BUSY, 19291217545ull, 1, 0, 0);
	assert_int_equal(fi.nr_extras, 4);
	check_extra(&fi, 0, "pasid", "32785");
	check_extra(&fi, 1, "amd-evicted-vram", "0 KiB");
	check_extra(&fi, 2, "amd-requested-vram", "155068 KiB");
	check_extra(&fi, 3, "amd-requested-gtt", "20480 KiB");
	drm_fdinfo_free(&fi);
}

/* partial (grep'd) file: DRM keys without drm-driver or any generic line */
static void amdgpu_e_partial_huge_gtt(void **state)
{
	const unsigned int res = DRM_REGION_HAS_RESIDENT | DRM_REGION_HAS_LEGACY;
	struct drm_fdinfo fi = parse_sample("amdgpu.txt", 4, 5);

	(void)state;
	assert_int_equal(fi.format, DRM_FDINFO_FMT_DRM);
	assert_null(fi.driver);
	assert_int_equal(fi.present, 0);
	assert_int_equal(fi.nr_regions, 3);
	check_region(&fi, 0, "cpu", res, 0, 0, 0, 0, 0, 0);
	check_region(&fi, 1, "gtt", res, 0, 0, 25864192000ull, 0, 0, 25864192000ull);
	check_region(&fi, 2, "vram", res, 0, 0, 5476352, 0, 0, 5476352);
	assert_int_equal(fi.nr_engines, 0);
	assert_int_equal(fi.nr_extras, 0);
	assert_int_equal(fi.nr_malformed, 0);
	drm_fdinfo_free(&fi);
}

static void i915_a_engines_capacity(void **state)
{
	const unsigned int b = DRM_ENGINE_HAS_BUSY;
	struct drm_fdinfo fi = parse_sample("i915.txt", 0, 3);

	(void)state;
	check_identity(&fi, "i915", "0000:00:02.0", 7);
	check_generic(&fi, DRM_FDINFO_HAS_POS | DRM_FDINFO_HAS_FLAGS | DRM_FDINFO_HAS_MNT_ID,
		      0, 0100002, 21, 0);
	assert_int_equal(fi.nr_engines, 4);
	check_engine(&fi, 0, "render", b, 9288864723ull, 1, 0, 0);
	check_engine(&fi, 1, "copy", b, 2035071108ull, 1, 0, 0);
	check_engine(&fi, 2, "video", b | DRM_ENGINE_HAS_CAPACITY, 0, 2, 0, 0);
	check_engine(&fi, 3, "video-enhance", b, 0, 1, 0, 0);
	assert_int_equal(fi.nr_regions, 0);
	assert_int_equal(fi.nr_extras, 0);
	drm_fdinfo_free(&fi);
}

static void i915_b_memory_mib(void **state)
{
	const unsigned int b = DRM_ENGINE_HAS_BUSY;
	struct drm_fdinfo fi = parse_sample("i915.txt", 1, 3);

	(void)state;
	check_identity(&fi, "i915", "0000:00:02.0", 18);
	check_generic(&fi, GENERIC4, 0, 02100002, 21, 397);
	assert_int_equal(fi.nr_regions, 2);
	check_region(&fi, 0, "system", ALL_MEM, 131072000, 16777216, 131072000, 2097152,
		     115343360, 0);
	check_region(&fi, 1, "stolen-system", ALL_MEM, 0, 0, 0, 0, 0, 0);
	assert_int_equal(fi.nr_engines, 4);
	check_engine(&fi, 0, "render", b, 25662044495ull, 1, 0, 0);
	check_engine(&fi, 1, "copy", b, 0, 1, 0, 0);
	check_engine(&fi, 2, "video", b, 0, 1, 0, 0);
	check_engine(&fi, 3, "video-enhance", b, 0, 1, 0, 0);
	assert_int_equal(fi.nr_extras, 0);
	drm_fdinfo_free(&fi);
}

static void i915_c_indexed_regions(void **state)
{
	const unsigned int b = DRM_ENGINE_HAS_BUSY;
	struct drm_fdinfo fi = parse_sample("i915.txt", 2, 3);

	(void)state;
	check_identity(&fi, "i915", "0000:00:02.0", 39);
	check_generic(&fi, GENERIC4, 0, 02100002, 26, 284);
	assert_int_equal(fi.nr_regions, 2);
	check_region(&fi, 0, "system0", ALL_MEM, 6189056, 0, 6189056, 1728512, 0, 0);
	check_region(&fi, 1, "stolen-system0", ALL_MEM, 0, 0, 0, 0, 0, 0);
	assert_int_equal(fi.nr_engines, 4);
	check_engine(&fi, 0, "render", b, 346249, 1, 0, 0);
	check_engine(&fi, 1, "copy", b, 0, 1, 0, 0);
	check_engine(&fi, 2, "video", b | DRM_ENGINE_HAS_CAPACITY, 0, 2, 0, 0);
	check_engine(&fi, 3, "video-enhance", b, 0, 1, 0, 0);
	drm_fdinfo_free(&fi);
}

static void msm_cycles_maxfreq(void **state)
{
	struct drm_fdinfo fi = parse_sample("msm.txt", 0, 1);

	(void)state;
	check_identity(&fi, "msm", NULL, 7);
	check_generic(&fi, GENERIC4, 0, 02400002, 21, 162);
	assert_int_equal(fi.nr_engines, 1);
	check_engine(&fi, 0, "gpu",
		     DRM_ENGINE_HAS_BUSY | DRM_ENGINE_HAS_CYCLES | DRM_ENGINE_HAS_MAXFREQ,
		     1734371319, 1, 1153645024, 800000000);
	assert_int_equal(fi.nr_regions, 0);
	assert_int_equal(fi.nr_extras, 0);
	drm_fdinfo_free(&fi);
}

static void panfrost_two_engines_curfreq_memory(void **state)
{
	const unsigned int all = DRM_ENGINE_HAS_BUSY | DRM_ENGINE_HAS_CYCLES |
				 DRM_ENGINE_HAS_MAXFREQ;
	struct drm_fdinfo fi = parse_sample("panfrost.txt", 0, 1);

	(void)state;
	check_identity(&fi, "panfrost", NULL, 14);
	check_generic(&fi, GENERIC4, 0, 02400002, 27, 531);
	assert_int_equal(fi.nr_engines, 2);
	check_engine(&fi, 0, "fragment", all, 1846584880, 1, 1424359409, 799999987);
	check_engine(&fi, 1, "vertex-tiler", all, 71932239, 1, 52617357, 799999987);
	assert_int_equal(fi.nr_extras, 2);
	check_extra(&fi, 0, "drm-curfreq-fragment", "799999987 Hz");
	check_extra(&fi, 1, "drm-curfreq-vertex-tiler", "799999987 Hz");
	assert_int_equal(fi.nr_regions, 1);
	check_region(&fi, 0, "memory", ALL_MEM, 304087040, 0, 37371904, 131072, 236978176, 0);
	drm_fdinfo_free(&fi);
}

static void v3d_a_engines_jobs(void **state)
{
	const unsigned int b = DRM_ENGINE_HAS_BUSY;
	struct drm_fdinfo fi = parse_sample("v3d.txt", 0, 2);

	(void)state;
	check_identity(&fi, "v3d", NULL, 44);
	check_generic(&fi, GENERIC4, 0, 02400002, 24, 209);
	assert_int_equal(fi.nr_engines, 5);
	check_engine(&fi, 0, "bin", b, 1661076898, 1, 0, 0);
	check_engine(&fi, 1, "render", b, 31469427170ull, 1, 0, 0);
	check_engine(&fi, 2, "tfu", b, 5002964, 1, 0, 0);
	check_engine(&fi, 3, "csd", b, 188038329691ull, 1, 0, 0);
	check_engine(&fi, 4, "cache_clean", b, 27736024038ull, 1, 0, 0);
	assert_int_equal(fi.nr_extras, 5);
	check_extra(&fi, 0, "v3d-jobs-bin", "19576 jobs");
	check_extra(&fi, 1, "v3d-jobs-render", "19575 jobs");
	check_extra(&fi, 2, "v3d-jobs-tfu", "13 jobs");
	check_extra(&fi, 3, "v3d-jobs-csd", "250393 jobs");
	check_extra(&fi, 4, "v3d-jobs-cache_clean", "250392 job");
	assert_int_equal(fi.nr_regions, 0);
	drm_fdinfo_free(&fi);
}

static void v3d_b_engines_memory(void **state)
{
	const unsigned int b = DRM_ENGINE_HAS_BUSY;
	struct drm_fdinfo fi = parse_sample("v3d.txt", 1, 2);

	(void)state;
	check_identity(&fi, "v3d", NULL, 81);
	check_generic(&fi, GENERIC4, 0, 02400002, 25, 521);
	assert_int_equal(fi.nr_engines, 6);
	check_engine(&fi, 0, "bin", b, 4916187, 1, 0, 0);
	check_engine(&fi, 1, "render", b, 154563573, 1, 0, 0);
	check_engine(&fi, 2, "tfu", b, 10574, 1, 0, 0);
	check_engine(&fi, 3, "csd", b, 0, 1, 0, 0);
	check_engine(&fi, 4, "cache_clean", b, 0, 1, 0, 0);
	check_engine(&fi, 5, "cpu", b, 0, 1, 0, 0);
	assert_int_equal(fi.nr_extras, 6);
	check_extra(&fi, 0, "v3d-jobs-bin", "98 jobs");
	check_extra(&fi, 1, "v3d-jobs-render", "98 jobs");
	check_extra(&fi, 2, "v3d-jobs-tfu", "1 jobs");
	check_extra(&fi, 3, "v3d-jobs-csd", "0 jobs");
	check_extra(&fi, 4, "v3d-jobs-cache_clean", "0 jobs");
	check_extra(&fi, 5, "v3d-jobs-cpu", "0 jobs");
	assert_int_equal(fi.nr_regions, 1);
	check_region(&fi, 0, "memory",
		     DRM_REGION_HAS_TOTAL | DRM_REGION_HAS_SHARED | DRM_REGION_HAS_ACTIVE,
		     15532032, 9560064, 0, 0, 0, 0);
	drm_fdinfo_free(&fi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(amdgpu_a_legacy),
		cmocka_unit_test(amdgpu_b_memory_legacy_only),
		cmocka_unit_test(amdgpu_c_memory_stats_and_legacy),
		cmocka_unit_test(amdgpu_d_many_regions_mixed_units),
		cmocka_unit_test(amdgpu_e_partial_huge_gtt),
		cmocka_unit_test(i915_a_engines_capacity),
		cmocka_unit_test(i915_b_memory_mib),
		cmocka_unit_test(i915_c_indexed_regions),
		cmocka_unit_test(msm_cycles_maxfreq),
		cmocka_unit_test(panfrost_two_engines_curfreq_memory),
		cmocka_unit_test(v3d_a_engines_jobs),
		cmocka_unit_test(v3d_b_engines_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
