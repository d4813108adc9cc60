// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdinfo parser edge cases: number and unit grammar, u64 overflow, malformed lines, layout
 * (tabs, spaces, CRLF, missing final newline), legacy drm-memory vs drm-resident, key prefix
 * ambiguities, and sizes far beyond any fixed table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drmtop/fdinfo.h"

static void parse_str(struct drm_fdinfo *fi, const char *text)
{
	drm_fdinfo_init(fi);
	assert_int_equal(drm_fdinfo_parse(fi, text, strlen(text)), 0);
}

static void u64_grammar(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(drm_parse_u64("18446744073709551615", 10, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(drm_parse_u64("18446744073709551616", 10, &v), -ERANGE);
	assert_int_equal(drm_parse_u64("99999999999999999999", 10, &v), -ERANGE);
	/* Junk is junk however long the digits before it (fuzz_number found these). */
	assert_int_equal(drm_parse_u64("99999999999999999999x", 10, &v), -EINVAL);
	assert_int_equal(drm_parse_u64_unit("99999999999999999999 ns ns", "ns", &v), -EINVAL);
	assert_int_equal(drm_parse_u64(" \t42 \t", 10, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(drm_parse_u64("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(drm_parse_u64("", 10, &v), -EINVAL);
	assert_int_equal(drm_parse_u64("-1", 10, &v), -EINVAL);
	assert_int_equal(drm_parse_u64("+1", 10, &v), -EINVAL);
	assert_int_equal(drm_parse_u64("12a", 10, &v), -EINVAL);
	assert_int_equal(drm_parse_u64("1 2", 10, &v), -EINVAL);
	assert_int_equal(drm_parse_u64("5 ns", 10, &v), -EINVAL);
	assert_int_equal(drm_parse_u64("0x10", 10, &v), -EINVAL);
	/* octal, for the flags line */
	assert_int_equal(drm_parse_u64("02100002", 8, &v), 0);
	assert_int_equal(v, 557058);
	assert_int_equal(drm_parse_u64("089", 8, &v), -EINVAL);
	assert_int_equal(drm_parse_u64("1777777777777777777777", 8, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(drm_parse_u64("2000000000000000000000", 8, &v), -ERANGE);
	/* explicit unit */
	assert_int_equal(drm_parse_u64_unit("7 ns", "ns", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(drm_parse_u64_unit("8", "ns", &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(drm_parse_u64_unit("8 us", "ns", &v), -EINVAL);
	assert_int_equal(drm_parse_u64_unit("8 ns ns", "ns", &v), -EINVAL);
	assert_int_equal(drm_parse_u64_unit("8ns", "ns", &v), -EINVAL);
}

static void bytes_units_and_overflow(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(drm_parse_bytes("123", &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(drm_parse_bytes("3 KiB", &v), 0);
	assert_int_equal(v, 3072);
	assert_int_equal(drm_parse_bytes("3\tMiB", &v), 0);
	assert_int_equal(v, 3145728);
	/* 2^54 - 1 KiB = 2^64 - 1024 fits, 2^54 KiB = 2^64 does not */
	assert_int_equal(drm_parse_bytes("18014398509481983 KiB", &v), 0);
	assert_true(v == UINT64_MAX - 1023);
	assert_int_equal(drm_parse_bytes("18014398509481984 KiB", &v), -ERANGE);
	assert_int_equal(drm_parse_bytes("17592186044415 MiB", &v), 0);
	assert_true(v == UINT64_MAX - 1048575);
	assert_int_equal(drm_parse_bytes("17592186044416 MiB", &v), -ERANGE);
	assert_int_equal(drm_parse_bytes("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(drm_parse_bytes("5 GiB", &v), -EINVAL);
	assert_int_equal(drm_parse_bytes("5 kB", &v), -EINVAL);
	assert_int_equal(drm_parse_bytes("5 kib", &v), -EINVAL);
	assert_int_equal(drm_parse_bytes("KiB", &v), -EINVAL);
}

static void hz_units_and_overflow(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(drm_parse_hz("800000000 Hz", &v), 0);
	assert_int_equal(v, 800000000);
	assert_int_equal(drm_parse_hz("800000000", &v), 0);
	assert_int_equal(v, 800000000);
	assert_int_equal(drm_parse_hz("800000 KHz", &v), 0);
	assert_int_equal(v, 800000000);
	assert_int_equal(drm_parse_hz("800000 kHz", &v), 0);
	assert_int_equal(v, 800000000);
	assert_int_equal(drm_parse_hz("800 MHz", &v), 0);
	assert_int_equal(v, 800000000);
	assert_int_equal(drm_parse_hz("18446744073709 MHz", &v), 0);
	assert_true(v == 18446744073709000000ull);
	assert_int_equal(drm_parse_hz("18446744073710 MHz", &v), -ERANGE);
	assert_int_equal(drm_parse_hz("18446744073709552 KHz", &v), -ERANGE);
	assert_int_equal(drm_parse_hz("1 GHz", &v), -EINVAL);
	assert_int_equal(drm_parse_hz("1 mhz", &v), -EINVAL);
}

/* Every malformed line is skipped and counted; the good lines around them still count. */
static void malformed_lines_counted(void **state)
{
	static const char text[] =
		"drm-driver:\tsim\n"
		"garbage without separator\n"
		": value without key\n"
		"drm-engine-gfx: 12 us\n"			/* unknown unit */
		"drm-engine-gfx: twelve ns\n"
		"drm-engine-: 5 ns\n"				/* empty engine name */
		"drm-engine-capacity-gfx: 0\n"			/* zero capacity not allowed */
		"drm-engine-gfx: 18446744073709551616 ns\n"	/* overflow */
		"drm-total-vram: 5 GiB\n"
		"drm-total-vram: 18014398509481984 KiB\n"	/* overflow after scaling */
		"drm-client-id: -3\n"
		"drm-maxfreq-gfx: 5 GHz\n"
		"flags: 0189\n"
		"ino: 12x\n"
		"drm-engine-gfx: 7 ns\n"			/* the good one */
		"drm-client-id: 9\n"
		"drm-client-id: 10\n"				/* duplicate: first kept */
		"drm-engine-gfx: 8 ns\n"			/* duplicate */
		"drm-driver: other\n"				/* duplicate */
		"drm-pdev:\n"					/* empty string */
		"\n"
		"   \t \n";					/* blank lines are not malformed */
	struct drm_fdinfo fi;

	(void)state;
	parse_str(&fi, text);
	assert_int_equal(fi.nr_malformed, 17);
	assert_int_equal(fi.format, DRM_FDINFO_FMT_DRM);
	assert_string_equal(fi.driver, "sim");
	assert_null(fi.pdev);
	assert_int_equal(fi.client_id, 9);
	assert_int_equal(fi.nr_engines, 1);
	assert_string_equal(fi.engines[0].name, "gfx");
	assert_int_equal(fi.engines[0].present, DRM_ENGINE_HAS_BUSY);
	assert_int_equal(fi.engines[0].busy_ns, 7);
	assert_int_equal(fi.engines[0].capacity, 1);
	/* a bad value creates no region or engine */
	assert_int_equal(fi.nr_regions, 0);
	assert_false(fi.present & (DRM_FDINFO_HAS_FLAGS | DRM_FDINFO_HAS_INO));
	assert_int_equal(fi.nr_extras, 0);
	drm_fdinfo_free(&fi);
}

static void layout_tabs_spaces_crlf_no_final_newline(void **state)
{
	static const char text[] =
		"pos:0\r\n"
		"drm-driver: \t sim \t\r\n"
		"  drm-client-id\t: 5\n"
		"drm-engine-a:\t\t 100   ns  \n"
		"drm-engine-b:100\n"					/* no unit, no blank */
		"drm-resident-memory:\t  4\tKiB";			/* no final newline */
	struct drm_fdinfo fi;

	(void)state;
	parse_str(&fi, text);
	assert_int_equal(fi.nr_malformed, 0);
	assert_true(fi.present & DRM_FDINFO_HAS_POS);
	assert_string_equal(fi.driver, "sim");
	assert_int_equal(fi.client_id, 5);
	assert_int_equal(fi.nr_engines, 2);
	assert_int_equal(fi.engines[0].busy_ns, 100);
	assert_int_equal(fi.engines[1].busy_ns, 100);
	assert_int_equal(fi.nr_regions, 1);
	assert_int_equal(fi.regions[0].resident, 4096);
	drm_fdinfo_free(&fi);
}

/* The buffer is taken by length, not by NUL; a NUL inside a line spoils only that line. */
static void embedded_nul(void **state)
{
	static const char text[] = "drm-driver: sim\ndrm-client-id: 4\0 5\ndrm-engine-x: 3 ns\n";
	struct drm_fdinfo fi;

	(void)state;
	drm_fdinfo_init(&fi);
	assert_int_equal(drm_fdinfo_parse(&fi, text, sizeof(text) - 1), 0);
	assert_int_equal(fi.nr_malformed, 1);
	assert_false(fi.present & DRM_FDINFO_HAS_CLIENT_ID);
	assert_int_equal(fi.nr_engines, 1);
	assert_int_equal(fi.engines[0].busy_ns, 3);
	drm_fdinfo_free(&fi);
}

/* drm-memory-<r> is resident; with drm-resident-<r> also there, in either order: no double count */
static void legacy_memory_vs_resident(void **state)
{
	struct drm_fdinfo fi;

	(void)state;
	parse_str(&fi, "drm-memory-vram: 10 KiB\ndrm-resident-vram: 20 KiB\n");
	assert_int_equal(fi.nr_regions, 1);
	assert_int_equal(fi.regions[0].resident, 20480);
	assert_int_equal(fi.regions[0].legacy_memory, 10240);
	assert_int_equal(fi.regions[0].present,
			 DRM_REGION_HAS_RESIDENT | DRM_REGION_HAS_LEGACY);
	drm_fdinfo_free(&fi);

	parse_str(&fi, "drm-resident-vram: 20 KiB\ndrm-memory-vram: 10 KiB\n");
	assert_int_equal(fi.regions[0].resident, 20480);
	assert_int_equal(fi.regions[0].legacy_memory, 10240);
	drm_fdinfo_free(&fi);

	parse_str(&fi, "drm-memory-gtt: 3\n");
	assert_int_equal(fi.regions[0].resident, 3);
	assert_int_equal(fi.regions[0].present,
			 DRM_REGION_HAS_RESIDENT | DRM_REGION_HAS_LEGACY);
	drm_fdinfo_free(&fi);
}

/* xe style: cycles + total-cycles + capacity, and "drm-total-cycles-" is not a region */
static void total_cycles_is_not_a_region(void **state)
{
	static const char text[] =
		"drm-driver:\txe\n"
		"drm-client-id:\t3\n"
		"drm-cycles-rcs:\t1000\n"
		"drm-total-cycles-rcs:\t5000\n"
		"drm-engine-capacity-rcs:\t2\n"
		"drm-total-system:\t8 KiB\n"
		"drm-engine-capacity-x-capacity-y:\t3\n";
	struct drm_fdinfo fi;
	const struct drm_fdinfo_engine *e;

	(void)state;
	parse_str(&fi, text);
	assert_int_equal(fi.nr_malformed, 0);
	assert_int_equal(fi.nr_engines, 2);
	e = drm_fdinfo_engine(&fi, "rcs");
	assert_non_null(e);
	assert_int_equal(e->present, DRM_ENGINE_HAS_CYCLES | DRM_ENGINE_HAS_TOTAL_CYCLES |
				     DRM_ENGINE_HAS_CAPACITY);
	assert_int_equal(e->cycles, 1000);
	assert_int_equal(e->total_cycles, 5000);
	assert_int_equal(e->capacity, 2);
	e = drm_fdinfo_engine(&fi, "x-capacity-y");
	assert_non_null(e);
	assert_int_equal(e->capacity, 3);
	assert_int_equal(fi.nr_regions, 1);
	assert_string_equal(fi.regions[0].name, "system");
	assert_null(drm_fdinfo_region(&fi, "cycles-rcs"));
	drm_fdinfo_free(&fi);
}

static void client_name_and_unknown_drm_keys(void **state)
{
	static const char text[] =
		"drm-driver: sim\n"
		"drm-client-name: my-app\n"
		"drm-future-key: some value\n"
		"drm-curfreq-gpu: 5 Hz\n"
		"pasid: 7\n";
	struct drm_fdinfo fi;

	(void)state;
	parse_str(&fi, text);
	assert_string_equal(fi.client_name, "my-app");
	assert_int_equal(fi.nr_extras, 3);
	assert_string_equal(drm_fdinfo_extra(&fi, "drm-future-key"), "some value");
	assert_string_equal(drm_fdinfo_extra(&fi, "drm-curfreq-gpu"), "5 Hz");
	assert_string_equal(drm_fdinfo_extra(&fi, "pasid"), "7");
	assert_int_equal(fi.nr_engines, 0);
	assert_int_equal(fi.nr_malformed, 0);
	drm_fdinfo_free(&fi);
}

static void formats(void **state)
{
	struct drm_fdinfo fi;

	(void)state;
	/* a DRM file of a driver that prints nothing of its own */
	parse_str(&fi, "pos:\t0\nflags:\t02\nmnt_id:\t5\nino:\t77\n");
	assert_int_equal(fi.format, DRM_FDINFO_FMT_NONE);
	assert_int_equal(fi.ino, 77);
	assert_int_equal(fi.flags, 2);
	drm_fdinfo_free(&fi);

	parse_str(&fi, "");
	assert_int_equal(fi.format, DRM_FDINFO_FMT_NONE);
	assert_int_equal(fi.nr_malformed, 0);
	drm_fdinfo_free(&fi);

	/* one legacy marker is enough without drm- keys ... */
	parse_str(&fi, "pos: 0\ncompute: 12.50%\n");
	assert_int_equal(fi.format, DRM_FDINFO_FMT_AMDGPU_LEGACY);
	drm_fdinfo_free(&fi);

	/* ... but drm- keys win: pasid alone is not a legacy marker */
	parse_str(&fi, "pasid: 1\ndrm-driver: amdgpu\n");
	assert_int_equal(fi.format, DRM_FDINFO_FMT_DRM);
	drm_fdinfo_free(&fi);

	parse_str(&fi, "pasid: 1\n");
	assert_int_equal(fi.format, DRM_FDINFO_FMT_NONE);
	drm_fdinfo_free(&fi);

	assert_string_equal(drm_fdinfo_format_name(DRM_FDINFO_FMT_AMDGPU_LEGACY),
			    "amdgpu pre-5.19");
}

/* Far more engines, regions and extras than any plausible fixed table, all kept. */
static void no_fixed_limits(void **state)
{
	const int n = 3000;
	size_t cap = (size_t)n * 200, len = 0;
	char *text = malloc(cap);
	struct drm_fdinfo fi;
	char name[64];
	int i;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"drm-engine-e%d: %d ns\ndrm-total-r%d: %d KiB\nx-%d: v%d\n",
					i, i * 3, i, i, i, i);
	parse_str(&fi, text);
	free(text);
	assert_int_equal(fi.nr_engines, n);
	assert_int_equal(fi.nr_regions, n);
	assert_int_equal(fi.nr_extras, n);
	for (i = 0; i < n; i += 997) {
		snprintf(name, sizeof(name), "e%d", i);
		assert_int_equal(drm_fdinfo_engine(&fi, name)->busy_ns, i * 3);
		snprintf(name, sizeof(name), "r%d", i);
		assert_int_equal(drm_fdinfo_region(&fi, name)->total, (uint64_t)i * 1024);
	}
	assert_string_equal(fi.engines[n - 1].name, "e2999");
	assert_string_equal(fi.extras[n - 1].value, "v2999");
	drm_fdinfo_free(&fi);
}

/* Parsing into a used struct replaces its content (valgrind shows the old one is freed). */
static void reparse_replaces(void **state)
{
	static const char a[] = "drm-driver: a\ndrm-engine-x: 1 ns\nk: v\n";
	static const char b[] = "drm-driver: b\n";
	struct drm_fdinfo fi;

	(void)state;
	parse_str(&fi, a);
	assert_int_equal(drm_fdinfo_parse(&fi, b, strlen(b)), 0);
	assert_string_equal(fi.driver, "b");
	assert_int_equal(fi.nr_engines, 0);
	assert_int_equal(fi.nr_extras, 0);
	drm_fdinfo_free(&fi);
	drm_fdinfo_free(&fi);	/* idempotent */
}

/* total where printed, else resident (legacy drm-memory-), regions with neither not counted */
/* Parsed arrays are held in their own size: two samples of 5,000 clients are held at once. */
static void test_arrays_held_in_their_size(void **state)
{
	static const char buf[] = "drm-driver:\tx\n"
				  "drm-engine-gfx:\t1 ns\ndrm-engine-compute:\t2 ns\n"
				  "drm-engine-copy:\t3 ns\ndrm-total-memory:\t4 KiB\n"
				  "x-extra:\t1\n";
	struct drm_fdinfo fi;

	(void)state;
	drm_fdinfo_init(&fi);
	assert_int_equal(drm_fdinfo_parse(&fi, buf, sizeof(buf) - 1), 0);
	assert_int_equal(fi.nr_engines, 3);
	assert_int_equal(fi.engines_cap, 3);
	assert_int_equal(fi.nr_regions, 1);
	assert_int_equal(fi.regions_cap, 1);
	assert_int_equal(fi.extras_cap, fi.nr_extras);
	/* and parsed again into the same struct, grown from there as before */
	assert_int_equal(drm_fdinfo_parse(&fi, buf, sizeof(buf) - 1), 0);
	assert_string_equal(fi.engines[2].name, "copy");
	drm_fdinfo_free(&fi);
}

static void test_total_bytes_over_regions(void **state)
{
	static const char buf[] = "drm-driver:\tx\n"
				  "drm-total-system:\t4 KiB\n"
				  "drm-resident-system:\t1 KiB\n"
				  "drm-memory-vram:\t2 KiB\n"
				  "drm-purgeable-gtt:\t8 KiB\n";
	static const char none[] = "drm-purgeable-gtt:\t8\n";
	struct drm_fdinfo fi;
	bool any = false;

	(void)state;
	drm_fdinfo_init(&fi);
	assert_int_equal(drm_fdinfo_parse(&fi, buf, sizeof(buf) - 1), 0);
	assert_int_equal(drm_fdinfo_total_bytes(&fi, &any), 6 * 1024);
	assert_true(any);
	drm_fdinfo_free(&fi);
	assert_int_equal(drm_fdinfo_parse(&fi, none, sizeof(none) - 1), 0);
	assert_int_equal(drm_fdinfo_total_bytes(&fi, &any), 0);
	assert_false(any);
	drm_fdinfo_free(&fi);
}

/*
 * Regions each near 2^64 (hostile or buggy fdinfo) saturate the sum instead of wrapping to a
 * small figure (fuzz_fdinfo found the wrap).
 */
static void test_total_bytes_saturates(void **state)
{
	static const char buf[] = "drm-total-vram:\t18446744073709551615\n"
				  "drm-total-gtt:\t18446744073709551615\n"
				  "drm-memory-cpu:\t2\n";
	struct drm_fdinfo fi;
	bool any = false;

	(void)state;
	parse_str(&fi, buf);
	assert_true(drm_fdinfo_total_bytes(&fi, &any) == UINT64_MAX);
	assert_true(any);
	drm_fdinfo_free(&fi);
}

/*
 * A non-spec key printed twice keeps its first value, like the spec keys, and counts as
 * malformed: JSON's extras object must not hold one name twice (fuzz_fdinfo found it).
 */
static void test_duplicate_extra_first_kept(void **state)
{
	static const char buf[] = "pasid:\t1\ndrm-curfreq-x:\t5\npasid:\t2\ndrm-curfreq-x:\t6\n";
	struct drm_fdinfo fi;

	(void)state;
	parse_str(&fi, buf);
	assert_int_equal(fi.nr_extras, 2);
	assert_string_equal(drm_fdinfo_extra(&fi, "pasid"), "1");
	assert_string_equal(drm_fdinfo_extra(&fi, "drm-curfreq-x"), "5");
	assert_int_equal(fi.nr_malformed, 2);
	drm_fdinfo_free(&fi);
}

/*
 * Extras keys are kept as valid UTF-8; two keys that differ only in ill-formed bytes are one
 * key then, the second counted as malformed (fuzz_views found the JSON object holding it twice).
 */
static void test_extra_key_repaired_before_dedup(void **state)
{
	static const char buf[] = "drm-foo\xff:\t1\ndrm-foo\xfe:\t2\ndrm-bar\xef\xbf\xbd:\t3\n"
				  "drm-bar\xc0:\t4\n";
	struct drm_fdinfo fi;

	(void)state;
	parse_str(&fi, buf);
	assert_int_equal(fi.nr_extras, 2);
	assert_string_equal(fi.extras[0].key, "drm-foo\xef\xbf\xbd");
	assert_string_equal(fi.extras[0].value, "1");
	assert_string_equal(fi.extras[1].key, "drm-bar\xef\xbf\xbd");
	assert_string_equal(fi.extras[1].value, "3");
	assert_int_equal(fi.nr_malformed, 2);
	drm_fdinfo_free(&fi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(u64_grammar),
		cmocka_unit_test(bytes_units_and_overflow),
		cmocka_unit_test(hz_units_and_overflow),
		cmocka_unit_test(malformed_lines_counted),
		cmocka_unit_test(layout_tabs_spaces_crlf_no_final_newline),
		cmocka_unit_test(embedded_nul),
		cmocka_unit_test(legacy_memory_vs_resident),
		cmocka_unit_test(total_cycles_is_not_a_region),
		cmocka_unit_test(client_name_and_unknown_drm_keys),
		cmocka_unit_test(formats),
		cmocka_unit_test(no_fixed_limits),
		cmocka_unit_test(reparse_replaces),
		cmocka_unit_test(test_total_bytes_over_regions),
		cmocka_unit_test(test_total_bytes_saturates),
		cmocka_unit_test(test_duplicate_extra_first_kept),
		cmocka_unit_test(test_extra_key_repaired_before_dedup),
		cmocka_unit_test(test_arrays_held_in_their_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
