// SPDX-License-Identifier: GPL-2.0-only
/* The live view's pure helpers: cells, the filter, the column fit, history and levels. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/views/tui_format.h"

static void test_bytes(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(tui_fmt_bytes(b, sizeof(b), 0), "0B");
	assert_string_equal(tui_fmt_bytes(b, sizeof(b), 123), "123B");
	assert_string_equal(tui_fmt_bytes(b, sizeof(b), 999), "999B");
	assert_string_equal(tui_fmt_bytes(b, sizeof(b), 1000), "1.0K");
	assert_string_equal(tui_fmt_bytes(b, sizeof(b), 1048576), "1.0M");
	assert_string_equal(tui_fmt_bytes(b, sizeof(b), 4194304), "4.0M");
	assert_string_equal(tui_fmt_bytes(b, sizeof(b), 12u << 20), "12M");
	assert_string_equal(tui_fmt_bytes(b, sizeof(b), 1536ull << 20), "1.5G");
	/* Never wider than the 5-cell column, up to the largest value. */
	assert_true(strlen(tui_fmt_bytes(b, sizeof(b), 1023ull << 20)) <= 5);
	assert_true(strlen(tui_fmt_bytes(b, sizeof(b), UINT64_MAX)) <= 5);
}

static void test_buckets(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(tui_fmt_bucket(b, sizeof(b), 0), "1-2ns");
	assert_string_equal(tui_fmt_bucket(b, sizeof(b), 9), "512ns-1us");
	assert_string_equal(tui_fmt_bucket(b, sizeof(b), 10), "1-2us");
	assert_string_equal(tui_fmt_bucket(b, sizeof(b), 19), "512us-1ms");
	assert_string_equal(tui_fmt_bucket(b, sizeof(b), 30), "1-2s");
	assert_string_equal(tui_fmt_bucket(b, sizeof(b), 30), "1-2s");
	/* The last bucket holds every longer wait too. */
	assert_string_equal(tui_fmt_bucket(b, sizeof(b), 31), ">=2s");
}

static void test_sanitize(void **state)
{
	char b[8];

	(void)state;
	assert_string_equal(tui_sanitize(b, sizeof(b), "a\tb\"c\n"), "a?b\"c?");
	assert_string_equal(tui_sanitize(b, sizeof(b), "\xc3\xa9t\xc3\xa9"), "??t??");
	assert_string_equal(tui_sanitize(b, sizeof(b), "0123456789"), "0123456");
	assert_string_equal(tui_sanitize(b, sizeof(b), NULL), "");
}

static void test_filter(void **state)
{
	struct drmtop_model_holder h[2] = { { 100, 3 }, { 1017, 4 } };
	struct drmtop_model_client c = {
		.pid = 100, .comm = "Blender", .driver = "amdgpu", .node = "dri/renderD128",
		.dev_key = "pdev:0000:03:00.0", .holders = h, .nr_holders = 2,
	};

	(void)state;
	assert_true(tui_filter_match(&c, ""));
	assert_true(tui_filter_match(&c, NULL));
	assert_true(tui_filter_match(&c, "blend"));
	assert_true(tui_filter_match(&c, "AMDGPU"));
	assert_true(tui_filter_match(&c, "renderD128"));
	assert_true(tui_filter_match(&c, "03:00"));
	assert_false(tui_filter_match(&c, "renderD129"));
	/* Digits: a holder's pid that starts with them, any holder. */
	assert_true(tui_filter_match(&c, "10"));
	assert_true(tui_filter_match(&c, "1017"));
	assert_false(tui_filter_match(&c, "17"));
	assert_false(tui_filter_match(&c, "2"));
	/* ...or a command that contains them. */
	c.comm = "worker2";
	assert_true(tui_filter_match(&c, "2"));
}

/* At 80 columns the columns that matter most stay; the flex column gets what is left. */
static void test_cols_fit(void **state)
{
	struct tui_col c[] = {
		{ 0, 7, 0, false, false },	/* pid */
		{ 1, 15, 1, false, false },	/* command */
		{ 2, 30, 5, false, false },	/* too wide once the others are in */
		{ 3, 10, 6, false, false },	/* still fits after 2 was left out */
		{ 4, 12, 9, true, false },	/* history: the rest */
	};
	int used;

	(void)state;
	used = tui_cols_fit(c, 5, 80);
	assert_true(c[0].shown && c[1].shown && c[2].shown && c[3].shown && c[4].shown);
	assert_int_equal(used, 80);
	assert_int_equal(c[4].width, 80 - (7 + 1 + 15 + 1 + 30 + 1 + 10 + 1));
	c[4].width = 12;
	used = tui_cols_fit(c, 5, 50);
	assert_true(c[0].shown && c[1].shown && !c[2].shown && c[3].shown);
	assert_true(c[4].shown);
	assert_int_equal(used, 50);
	assert_int_equal(c[4].width, 50 - (7 + 1 + 15 + 1 + 10 + 1));
	c[4].width = 12;
	used = tui_cols_fit(c, 5, 30);
	assert_true(c[0].shown && c[1].shown && !c[2].shown && !c[3].shown && !c[4].shown);
	assert_int_equal(used, 23);
}

static void test_levels(void **state)
{
	(void)state;
	assert_int_equal(tui_level(0, 4, 0), 0);
	assert_int_equal(tui_level(NAN, 4, 0), 0);
	assert_int_equal(tui_level(100, 4, 3), 8);
	assert_int_equal(tui_level(150, 4, 3), 8);
	assert_int_equal(tui_level(50, 4, 1), 8);
	assert_int_equal(tui_level(50, 4, 2), 0);
	/* Anything above zero shows in the bottom row. */
	assert_int_equal(tui_level(0.1, 4, 0), 1);
	assert_int_equal(tui_level(0.1, 4, 1), 0);
	assert_int_equal(tui_level(56.25, 1, 0), 5);
}

/* History follows the clients of each frame: new ones start, closed ones go. */
static void test_history(void **state)
{
	struct drmtop_model_engine e = { .name = "gfx", .in_fdinfo = true };
	struct drmtop_model_client c[2] = {
		{ .key = "a", .engines = &e, .nr_engines = 1 },
		{ .key = "b" },
	};
	struct drmtop_model m = { .clients = c, .nr_clients = 2, .mono_ns = 1000 };
	struct tui_history h = { 0 };
	const struct tui_series *s;
	int i;

	(void)state;
	assert_int_equal(tui_history_add(&h, &m), 0);	/* a: no rate yet */
	e.fd.flags = DRMTOP_FD_RATE;
	for (i = 1; i <= 3; i++) {
		e.fd.pct = i * 10.0;
		m.mono_ns += 1000;
		assert_int_equal(tui_history_add(&h, &m), 0);
	}
	s = tui_history_get(&h, "c:", "a");
	assert_non_null(s);
	assert_int_equal(s->n, 4);
	assert_true(tui_series_at(s, 0) == 30.0);
	assert_true(tui_series_at(s, 2) == 10.0);
	assert_true(isnan(tui_series_at(s, 3)));
	assert_true(isnan(tui_series_at(s, 4)));
	assert_null(tui_history_get(&h, "d:", "a"));
	m.nr_clients = 1;	/* b closed */
	assert_int_equal(tui_history_add(&h, &m), 0);
	assert_null(tui_history_get(&h, "c:", "b"));
	assert_non_null(tui_history_get(&h, "c:", "a"));
	/* The ring keeps the newest TUI_HIST_LEN samples. */
	for (i = 0; i < TUI_HIST_LEN + 5; i++) {
		e.fd.pct = i;
		assert_int_equal(tui_history_add(&h, &m), 0);
	}
	s = tui_history_get(&h, "c:", "a");
	assert_int_equal(s->n, TUI_HIST_LEN);
	assert_true(tui_series_at(s, 0) == TUI_HIST_LEN + 4);
	assert_true(tui_series_at(s, TUI_HIST_LEN - 1) == 5);
	tui_history_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_cols_fit),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
