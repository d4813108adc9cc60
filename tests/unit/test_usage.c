// SPDX-License-Identifier: GPL-2.0-only
/*
 * Utilisation math: the spec's backwards-counter rule, capacity, cycles against total-cycles and
 * against maxfreq (Hz/KHz/MHz), zero intervals, u64 edges, and per-device totals. Expected figures
 * are worked out by hand in the comments.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drmtop/fdinfo.h"
#include "drmtop/proc_scan.h"
#include "drmtop/usage.h"

#define EPS 1e-9

static struct drm_fdinfo_engine busy_engine(uint64_t ns, uint64_t capacity)
{
	struct drm_fdinfo_engine e = { 0 };

	e.name = "gfx";
	e.present = DRM_ENGINE_HAS_BUSY | (capacity != 1 ? DRM_ENGINE_HAS_CAPACITY : 0);
	e.busy_ns = ns;
	e.capacity = capacity;
	return e;
}

static void counter_rule(void **state)
{
	uint64_t eff = 100;
	bool back = false;

	(void)state;
	assert_int_equal(drm_counter_advance(&eff, 1000, &back), 900);
	assert_false(back);
	assert_int_equal(eff, 1000);
	/* backwards: stay with 1000, delta 0 */
	assert_int_equal(drm_counter_advance(&eff, 800, &back), 0);
	assert_true(back);
	assert_int_equal(eff, 1000);
	/* still behind: still 0, no wrap-around to ~2^64 */
	back = false;
	assert_int_equal(drm_counter_advance(&eff, 999, &back), 0);
	assert_true(back);
	assert_int_equal(eff, 1000);
	/* equal is not backwards */
	back = false;
	assert_int_equal(drm_counter_advance(&eff, 1000, &back), 0);
	assert_false(back);
	/* caught up: only the part past the larger previous value counts */
	assert_int_equal(drm_counter_advance(&eff, 1200, NULL), 200);
	assert_int_equal(eff, 1200);
	/* u64 edges */
	eff = UINT64_MAX - 1000;
	assert_int_equal(drm_counter_advance(&eff, UINT64_MAX, NULL), 1000);
	eff = 0;
	assert_true(drm_counter_advance(&eff, UINT64_MAX, NULL) == UINT64_MAX);
	back = false;
	assert_int_equal(drm_counter_advance(&eff, 0, &back), 0);
	assert_true(back);
	assert_true(eff == UINT64_MAX);
}

static void busy_percent_and_capacity(void **state)
{
	struct drm_fdinfo_engine e = busy_engine(1000, 1);
	struct drm_engine_track t;
	struct drm_engine_usage u;
	double pct;
	bool over;

	(void)state;
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	/* 0.5 s busy in 1 s */
	e.busy_ns = 1000 + 500000000;
	drm_engine_usage_update(&t, &e, 1000000000, 0, &u);
	assert_int_equal(u.flags, DRM_USAGE_BUSY_VALID);
	assert_true(fabs(u.busy_pct - 50.0) < EPS);
	assert_int_equal(u.busy_delta_ns, 500000000);
	assert_int_equal(u.dt_ns, 1000000000);
	assert_int_equal(u.capacity, 1);
	assert_true(drm_engine_usage_pct(&u, &pct, &over));
	assert_true(fabs(pct - 50.0) < EPS);
	assert_false(over);

	/* 1.5 s busy in 1 s on capacity 2: 75 %, not over */
	e = busy_engine(e.busy_ns + 1500000000, 2);
	drm_engine_usage_update(&t, &e, 1000000000, 0, &u);
	assert_true(fabs(u.busy_pct - 75.0) < EPS);
	assert_int_equal(u.capacity, 2);
	assert_false(u.flags & DRM_USAGE_BUSY_OVER);

	/* the same on capacity 1 is 150 %: reported as is and flagged */
	e = busy_engine(e.busy_ns + 1500000000, 1);
	drm_engine_usage_update(&t, &e, 1000000000, 0, &u);
	assert_true(fabs(u.busy_pct - 150.0) < EPS);
	assert_true(u.flags & DRM_USAGE_BUSY_OVER);
	assert_true(drm_engine_usage_pct(&u, &pct, &over));
	assert_true(over);
	assert_true(fabs(pct - 150.0) < EPS);

	/* exactly 100 % is not over; the measured interval (not a nominal one) divides */
	e = busy_engine(e.busy_ns + 987654321, 1);
	drm_engine_usage_update(&t, &e, 987654321, 0, &u);
	assert_true(fabs(u.busy_pct - 100.0) < EPS);
	assert_false(u.flags & DRM_USAGE_BUSY_OVER);
	/* one ns more than the interval is over */
	e = busy_engine(e.busy_ns + 987654322, 1);
	drm_engine_usage_update(&t, &e, 987654321, 0, &u);
	assert_true(u.flags & DRM_USAGE_BUSY_OVER);
	drm_engine_track_free(&t);
}

static void backwards_sequence(void **state)
{
	static const struct {
		uint64_t raw, delta;
		bool back;
	} seq[] = {
		{ 1000, 900, false },	/* from 100 */
		{ 800, 0, true },
		{ 900, 0, true },	/* still behind 1000 */
		{ 1000, 0, false },
		{ 1200, 200, false },
	};
	struct drm_fdinfo_engine e = busy_engine(100, 1);
	struct drm_engine_track t;
	struct drm_engine_usage u;
	size_t i;

	(void)state;
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		e.busy_ns = seq[i].raw;
		drm_engine_usage_update(&t, &e, 1000, 0, &u);
		assert_int_equal(u.busy_delta_ns, seq[i].delta);
		assert_int_equal(!!(u.flags & DRM_USAGE_BACKWARDS), seq[i].back);
		assert_true(u.flags & DRM_USAGE_BUSY_VALID);
		assert_true(fabs(u.busy_pct - (double)seq[i].delta / 10.0) < EPS);
	}
	drm_engine_track_free(&t);
}

static void zero_interval_gives_no_figure(void **state)
{
	struct drm_fdinfo_engine e = busy_engine(0, 1);
	struct drm_engine_track t;
	struct drm_engine_usage u;
	double pct = -1;
	bool over = true;

	(void)state;
	e.present |= DRM_ENGINE_HAS_CYCLES | DRM_ENGINE_HAS_MAXFREQ;
	e.maxfreq_hz = 1000;
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	e.busy_ns = 500;
	e.cycles = 50;
	drm_engine_usage_update(&t, &e, 0, 0, &u);
	assert_int_equal(u.flags & (DRM_USAGE_BUSY_VALID | DRM_USAGE_CYCLES_VALID), 0);
	assert_false(drm_engine_usage_pct(&u, &pct, &over));
	assert_true(u.busy_pct == 0.0 && u.cycles_pct == 0.0);
	assert_false(isnan(u.busy_pct) || isinf(u.busy_pct));
	/* counters advanced anyway: the next interval sees only what came after */
	assert_int_equal(u.busy_delta_ns, 500);
	e.busy_ns = 600;
	e.cycles = 60;
	drm_engine_usage_update(&t, &e, 1000, 0, &u);
	assert_int_equal(u.busy_delta_ns, 100);
	assert_true(fabs(u.busy_pct - 10.0) < EPS);
	/* 10 cycles in 1 us at 1000 Hz: 1e-3 cycles possible -> 1e6 %, flagged */
	assert_true(u.flags & DRM_USAGE_CYCLES_OVER);
	assert_true(fabs(u.cycles_pct - 1e6) < 1e-3);
	drm_engine_track_free(&t);
}

static void cycles_against_total_cycles(void **state)
{
	struct drm_fdinfo_engine e = { 0 };
	struct drm_engine_track t;
	struct drm_engine_usage u;
	double pct;
	bool over;

	(void)state;
	e.name = "rcs";
	e.present = DRM_ENGINE_HAS_CYCLES | DRM_ENGINE_HAS_TOTAL_CYCLES;
	e.cycles = 5000;
	e.total_cycles = 1000000;
	e.capacity = 1;
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	/* 300 of 1000 cycles: 30 %, whatever the wall interval */
	e.cycles += 300;
	e.total_cycles += 1000;
	drm_engine_usage_update(&t, &e, 123456789, 0, &u);
	assert_int_equal(u.flags, DRM_USAGE_CYCLES_VALID | DRM_USAGE_BY_TOTAL);
	assert_true(fabs(u.cycles_pct - 30.0) < EPS);
	assert_int_equal(u.cycles_delta, 300);
	assert_int_equal(u.total_cycles_delta, 1000);
	assert_true(drm_engine_usage_pct(&u, &pct, &over));
	assert_true(fabs(pct - 30.0) < EPS);

	/* capacity 2 (xe: cycles summed over the class's engines): 1500 of 2 x 1000 = 75 % */
	e.present |= DRM_ENGINE_HAS_CAPACITY;
	e.capacity = 2;
	e.cycles += 1500;
	e.total_cycles += 1000;
	drm_engine_usage_update(&t, &e, 1, 0, &u);
	assert_true(fabs(u.cycles_pct - 75.0) < EPS);
	assert_false(u.flags & DRM_USAGE_CYCLES_OVER);
	e.cycles += 2001;
	e.total_cycles += 1000;
	drm_engine_usage_update(&t, &e, 1, 0, &u);
	assert_true(u.flags & DRM_USAGE_CYCLES_OVER);

	/* no total-cycles progress: no figure (not inf) */
	e.cycles += 10;
	drm_engine_usage_update(&t, &e, 1000, 0, &u);
	assert_false(u.flags & DRM_USAGE_CYCLES_VALID);

	/* total-cycles going backwards is held too */
	e.total_cycles -= 500;
	e.cycles += 10;
	drm_engine_usage_update(&t, &e, 1000, 0, &u);
	assert_true(u.flags & DRM_USAGE_BACKWARDS);
	assert_false(u.flags & DRM_USAGE_CYCLES_VALID);
	drm_engine_track_free(&t);
}

/* msm/panfrost style: cycles + maxfreq, the frequency read through the parser in each unit */
static void cycles_against_maxfreq_units(void **state)
{
	static const char *const freq[] = { "800000000 Hz", "800000 KHz", "800 MHz", "800000000" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(freq) / sizeof(freq[0]); i++) {
		char text[256];
		struct drm_fdinfo a, b;
		struct drm_engine_track t;
		struct drm_engine_usage u;

		snprintf(text, sizeof(text),
			 "drm-driver: msm\ndrm-cycles-gpu: 1000\ndrm-maxfreq-gpu: %s\n", freq[i]);
		drm_fdinfo_init(&a);
		assert_int_equal(drm_fdinfo_parse(&a, text, strlen(text)), 0);
		/* 0.5 s at 800 MHz = 4e8 possible cycles; 1e8 used = 25 % */
		snprintf(text, sizeof(text),
			 "drm-driver: msm\ndrm-cycles-gpu: 100001000\ndrm-maxfreq-gpu: %s\n",
			 freq[i]);
		drm_fdinfo_init(&b);
		assert_int_equal(drm_fdinfo_parse(&b, text, strlen(text)), 0);
		assert_int_equal(drm_engine_track_init(&t, &a.engines[0]), 0);
		drm_engine_usage_update(&t, &b.engines[0], 500000000, 0, &u);
		assert_int_equal(u.flags, DRM_USAGE_CYCLES_VALID | DRM_USAGE_BY_MAXFREQ);
		assert_true(fabs(u.cycles_pct - 25.0) < 1e-9);
		drm_engine_track_free(&t);
		drm_fdinfo_free(&a);
		drm_fdinfo_free(&b);
	}
}

/* drm-engine and cycles both printed: busy time is the figure shown, cycles kept beside it */
static void busy_preferred_over_cycles(void **state)
{
	struct drm_fdinfo_engine e = busy_engine(0, 1);
	struct drm_engine_track t;
	struct drm_engine_usage u;
	double pct;
	bool over;

	(void)state;
	e.present |= DRM_ENGINE_HAS_CYCLES | DRM_ENGINE_HAS_MAXFREQ;
	e.maxfreq_hz = 1000000000;
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	e.busy_ns = 200;	/* 20 % of 1000 ns */
	e.cycles = 400;		/* 40 % of 1000 cycles possible in 1000 ns at 1 GHz */
	drm_engine_usage_update(&t, &e, 1000, 0, &u);
	assert_true(u.flags & DRM_USAGE_BUSY_VALID);
	assert_true(u.flags & DRM_USAGE_CYCLES_VALID);
	assert_true(fabs(u.cycles_pct - 40.0) < EPS);
	assert_true(drm_engine_usage_pct(&u, &pct, &over));
	assert_true(fabs(pct - 20.0) < EPS);
	drm_engine_track_free(&t);
}

static void u64_edges(void **state)
{
	struct drm_fdinfo_engine e = busy_engine(UINT64_MAX - 1000, 1);
	struct drm_engine_track t;
	struct drm_engine_usage u;

	(void)state;
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	e.busy_ns = UINT64_MAX;
	drm_engine_usage_update(&t, &e, 2000, 0, &u);
	assert_int_equal(u.busy_delta_ns, 1000);
	assert_true(fabs(u.busy_pct - 50.0) < EPS);
	drm_engine_track_free(&t);

	/* the whole u64 range in the whole u64 interval: 100 %, not over */
	e = busy_engine(0, 1);
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	e.busy_ns = UINT64_MAX;
	drm_engine_usage_update(&t, &e, UINT64_MAX, 0, &u);
	assert_true(fabs(u.busy_pct - 100.0) < EPS);
	assert_false(u.flags & DRM_USAGE_BUSY_OVER);
	drm_engine_track_free(&t);

	/* dt x capacity overflows u64: (2^64-1) ns in 2^63 ns on capacity 4 is ~50 %, not over */
	e = busy_engine(0, 4);
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	e.busy_ns = UINT64_MAX;
	drm_engine_usage_update(&t, &e, 1ull << 63, 0, &u);
	assert_true(fabs(u.busy_pct - 50.0) < 1e-6);
	assert_false(u.flags & DRM_USAGE_BUSY_OVER);
	drm_engine_track_free(&t);

	/* (2^64-1) ns in 1 ns: a huge but finite figure, flagged */
	e = busy_engine(0, 1);
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	e.busy_ns = UINT64_MAX;
	drm_engine_usage_update(&t, &e, 1, 0, &u);
	assert_true(u.flags & DRM_USAGE_BUSY_OVER);
	assert_false(isinf(u.busy_pct) || isnan(u.busy_pct));
	assert_true(u.busy_pct > 1e20);
	drm_engine_track_free(&t);

	/* maxfreq at the top of u64 and a huge dt: finite */
	e = busy_engine(0, 1);
	e.present = DRM_ENGINE_HAS_CYCLES | DRM_ENGINE_HAS_MAXFREQ;
	e.maxfreq_hz = UINT64_MAX;
	assert_int_equal(drm_engine_track_init(&t, &e), 0);
	e.cycles = UINT64_MAX;
	drm_engine_usage_update(&t, &e, UINT64_MAX, 0, &u);
	assert_true(u.flags & DRM_USAGE_CYCLES_VALID);
	assert_false(isinf(u.cycles_pct) || isnan(u.cycles_pct));
	assert_true(fabs(u.cycles_pct - 100.0 * 1e9 / 18446744073709551615.0) < 1e-15);
	drm_engine_track_free(&t);
}

/* An engine a known client prints for the first time (amdgpu: first use) counts from 0. */
static void new_engine_counts_from_zero(void **state)
{
	struct drm_fdinfo_engine e = busy_engine(300, 1);
	struct drm_engine_track t = { 0 };
	struct drm_engine_usage u;

	(void)state;
	t.name = strdup("gfx");
	assert_non_null(t.name);
	drm_engine_usage_update(&t, &e, 1000, 0, &u);
	assert_int_equal(u.busy_delta_ns, 300);
	assert_true(fabs(u.busy_pct - 30.0) < EPS);
	drm_engine_track_free(&t);

	/* but a first total-cycles reading is only a base: no cycles figure yet */
	e.present = DRM_ENGINE_HAS_CYCLES | DRM_ENGINE_HAS_TOTAL_CYCLES;
	e.cycles = 10;
	e.total_cycles = 1000000;
	t.name = strdup("gfx");
	assert_non_null(t.name);
	drm_engine_usage_update(&t, &e, 1000, 0, &u);
	assert_false(u.flags & DRM_USAGE_CYCLES_VALID);
	e.cycles = 60;
	e.total_cycles = 1000100;
	drm_engine_usage_update(&t, &e, 1000, 0, &u);
	assert_true(fabs(u.cycles_pct - 50.0) < EPS);
	drm_engine_track_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counter_rule),
		cmocka_unit_test(busy_percent_and_capacity),
		cmocka_unit_test(backwards_sequence),
		cmocka_unit_test(zero_interval_gives_no_figure),
		cmocka_unit_test(cycles_against_total_cycles),
		cmocka_unit_test(cycles_against_maxfreq_units),
		cmocka_unit_test(busy_preferred_over_cycles),
		cmocka_unit_test(u64_edges),
		cmocka_unit_test(new_engine_counts_from_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
