// SPDX-License-Identifier: GPL-2.0-only
/* The live view's pure helpers: cells, the filter, the column fit, history and levels. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
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

/* The lines tui_wrap makes of @s, as the header draws them: indented, "..." when cut. */
static void wrap_lines(const char *s, int width, size_t max, char *out, size_t len)
{
	struct tui_span lines[16];
	size_t n, i, off = 0;
	bool cut;

	n = tui_wrap(s, width, lines, max, &cut);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		int w = (int)lines[i].len + (i ? TUI_WRAP_INDENT : 0) + (cut && i + 1 == n ? 3 : 0);

		/* every line fits the width */
		assert_true(w <= width);
		off += (size_t)snprintf(out + off, len - off, "%s%.*s%s|", i ? "  " : "",
					(int)lines[i].len, s + lines[i].off,
					cut && i + 1 == n ? "..." : "");
	}
}

/*
 * The source line was cut at the screen's edge: at 120 columns the tracer's reason (which
 * hooks failed and why) was lost. Wrapped after "; " at any width; cut with "..." only past the
 * lines allowed.
 */
static void test_wrap(void **state)
{
	static const char reason[] = "source: fdinfo + BPF (20/22 hooks attached (scheduler "
		"tracepoints as raw_tp); drm: attached; gpu_sched: attached; "
		"kprobe/drm_gem_object_release: not in this kernel; jobs carry drm_client_id: no "
		"per-ioctl or entity hook)";
	char out[1024];

	(void)state;
	wrap_lines("short", 80, 3, out, sizeof(out));
	assert_string_equal(out, "short|");
	wrap_lines(reason, 240, 3, out, sizeof(out));
	assert_int_equal(strlen(out), strlen(reason) + 1);
	/* 120 columns: broken after "; ", nothing lost */
	wrap_lines(reason, 120, 3, out, sizeof(out));
	assert_string_equal(out,
		"source: fdinfo + BPF (20/22 hooks attached (scheduler tracepoints as raw_tp); drm: "
		"attached; gpu_sched: attached;|"
		"  kprobe/drm_gem_object_release: not in this kernel; jobs carry drm_client_id: no "
		"per-ioctl or entity hook)|");
	/* 80 columns: three lines; a "; " too early in a line gives way to the last space */
	wrap_lines(reason, 80, 4, out, sizeof(out));
	assert_string_equal(out,
		"source: fdinfo + BPF (20/22 hooks attached (scheduler tracepoints as raw_tp);|"
		"  drm: attached; gpu_sched: attached; kprobe/drm_gem_object_release: not in this|"
		"  kernel; jobs carry drm_client_id: no per-ioctl or entity hook)|");
	/* 40 columns, two lines allowed: what does not fit ends in "..." */
	wrap_lines(reason, 40, 2, out, sizeof(out));
	assert_string_equal(out,
		"source: fdinfo + BPF (20/22 hooks|"
		"  attached (scheduler tracepoints as...|");
	/* A word longer than the line is cut mid-word, never lost */
	wrap_lines("abcdefghij klm", 4, 8, out, sizeof(out));
	assert_string_equal(out, "abcd|  ef|  gh|  ij|  kl|  m|");
}

/*
 * The live view said nothing of what the tracer missed (only the detail view's INCONCLUSIVE): a
 * line in every frame since it missed anything, naming the kinds and counting the clients whose
 * figures may be short; none while it missed nothing, or without the tracer.
 */
static void test_loss_text(void **state)
{
	struct drmtop_model_counter counters[3] = {
		{ "jobs_full", DRMTOP_COUNTER_LOSS, 3, 1 },
		{ "rings_full", DRMTOP_COUNTER_LOSS, 0, 0 },
		{ "opened_before_trace", DRMTOP_COUNTER_NOTE, 4, 0 },
	};
	struct drmtop_model_client c[3] = {
		{ .lower_bound = true }, { .inconclusive = true }, { 0 },
	};
	struct drmtop_model m = {
		.bpf_active = true, .counters = counters, .nr_counters = 3, .clients = c,
		.nr_clients = 3,
	};
	char buf[512];
	bool now;

	(void)state;
	assert_false(tui_loss_text(buf, sizeof(buf), &m, &now));
	assert_string_equal(buf, "");
	m.missed = (struct drmtop_model_missed){ .since_start = 5, .interval = 1,
						 .skipped_runs = 2, .skipped_runs_interval = 0 };
	assert_true(tui_loss_text(buf, sizeof(buf), &m, &now));
	assert_true(now);
	assert_string_equal(buf, "bpf missed 5 events since start, 1 in the last interval; "
			    "jobs_full 3 (1); skipped program runs 2 (0); 2 clients' figures may "
			    "be short (SRC ?, +)");
	/* Nothing missed in this interval: still said (totals since attach are short), unflagged */
	m.missed.interval = 0;
	c[1].inconclusive = false;
	assert_true(tui_loss_text(buf, sizeof(buf), &m, &now));
	assert_false(now);
	assert_non_null(strstr(buf, "1 client's figures may be short"));
	m.bpf_active = false;
	assert_false(tui_loss_text(buf, sizeof(buf), &m, &now));
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
	/* The ring keeps the newest TUI_HIST_LEN samples, in half percent steps up to 127 %. */
	for (i = 0; i < TUI_HIST_LEN + 5; i++) {
		e.fd.pct = (i % 250) / 2.0;
		m.mono_ns += 1000;
		assert_int_equal(tui_history_add(&h, &m), 0);
	}
	s = tui_history_get(&h, "c:", "a");
	assert_int_equal(s->n, TUI_HIST_LEN);
	assert_int_equal(s->cap, TUI_HIST_LEN);
	assert_true(tui_series_at(s, 0) == ((TUI_HIST_LEN + 4) % 250) / 2.0);
	assert_true(tui_series_at(s, TUI_HIST_LEN - 1) == 5 / 2.0);
	assert_true(isnan(tui_series_at(s, TUI_HIST_LEN)));
	/* each sample's time is its frame's */
	assert_int_equal(tui_history_time(&h, 0), m.mono_ns);
	assert_int_equal(tui_history_time(&h, TUI_HIST_LEN - 1),
			 m.mono_ns - 1000 * (TUI_HIST_LEN - 1));
	e.fd.pct = 300;
	assert_int_equal(tui_history_add(&h, &m), 0);
	assert_true(tui_series_at(s, 0) == 127);
	tui_history_free(&h);
}

/*
 * 5,000 clients held 36 MB of history from their first frame (600 float samples with times
 * each), and each frame looked every client up by a walk of all series: a client seen for a
 * few frames holds a few bytes of samples now, and a lookup is a hash.
 */
static void test_history_small_for_new_clients(void **state)
{
	enum { N = 5000, FRAMES = 3 };
	struct drmtop_model_engine e = { .name = "gfx", .in_fdinfo = true,
					 .fd = { .flags = DRMTOP_FD_RATE, .pct = 42.5 } };
	struct drmtop_model_client *c = calloc(N, sizeof(*c));
	struct drmtop_model m = { .clients = c, .nr_clients = N, .mono_ns = 1 };
	struct tui_history h = { 0 };
	char (*keys)[16] = calloc(N, sizeof(*keys));
	size_t i, held = 0;
	int f;

	(void)state;
	assert_non_null(c);
	assert_non_null(keys);
	for (i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%zu", i);
		c[i].key = keys[i];
		c[i].engines = &e;
		c[i].nr_engines = 1;
	}
	for (f = 0; f < FRAMES; f++)
		assert_int_equal(tui_history_add(&h, &m), 0);
	for (i = 0; i < N; i++) {
		const struct tui_series *s = tui_history_get(&h, "c:", keys[i]);

		assert_non_null(s);
		assert_int_equal(s->n, FRAMES);
		assert_true(tui_series_at(s, FRAMES - 1) == 42.5);
		held += s->cap;
	}
	if (held > (size_t)N * 16)
		fail_msg("%zu sample slots for %d clients seen %d frames", held, N, FRAMES);
	tui_history_free(&h);
	free(keys);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_loss_text),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_cols_fit),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_history_small_for_new_clients),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
