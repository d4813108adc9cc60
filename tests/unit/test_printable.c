// SPDX-License-Identifier: GPL-2.0-only
/*
 * Terminal-safe text: escapes for what a terminal would act on, and the text views (batch and
 * TUI lines, record) never passing a process's or driver's control characters through.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drmtop/model_build.h"
#include "drmtop/util/printable.h"
#include "drmtop/views.h"
#include "fake_clients.h"

static void test_escapes(void **state)
{
	char out[128];

	(void)state;
	assert_string_equal(drmtop_printable(out, sizeof(out), "glxgears"), "glxgears");
	assert_string_equal(drmtop_printable(out, sizeof(out), "a\033[2Jb"), "a\\x1b[2Jb");
	assert_string_equal(drmtop_printable(out, sizeof(out), "t\tn\nd\x7f"), "t\\x09n\\x0ad\\x7f");
	assert_string_equal(drmtop_printable(out, sizeof(out), "a\\b"), "a\\\\b");
	/* Printable UTF-8 stays; C1 controls, stray and overlong bytes and surrogates do not. */
	assert_string_equal(drmtop_printable(out, sizeof(out), "caf\xc3\xa9 \xe2\x82\xac"),
			    "caf\xc3\xa9 \xe2\x82\xac");
	assert_string_equal(drmtop_printable(out, sizeof(out), "\xc2\x9b" "31m"), "\\xc2\\x9b31m");
	assert_string_equal(drmtop_printable(out, sizeof(out), "\x9b\xff\xc0\xaf"),
			    "\\x9b\\xff\\xc0\\xaf");
	assert_string_equal(drmtop_printable(out, sizeof(out), "\xed\xa0\x80"),
			    "\\xed\\xa0\\x80");
	assert_string_equal(drmtop_printable(out, sizeof(out), "\xe2\x82"), "\\xe2\\x82");
	/* Cut before what does not fit whole, always terminated. */
	assert_string_equal(drmtop_printable(out, 4, "abcdef"), "abc");
	assert_string_equal(drmtop_printable(out, 6, "ab\033cd"), "ab");
	assert_string_equal(drmtop_printable(out, 4, "a\xe2\x82\xac"), "a");
	assert_string_equal(drmtop_printable(out, 1, "abc"), "");
}

static char *render(drmtop_frame_fn fn, const struct drmtop_model *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	assert_int_equal(fn(out, m), 0);
	fclose(out);
	return text;
}

static void no_control_chars(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;

	for (; *s; s++)
		if (*s != '\n')
			assert_true(*s >= 0x20 && *s != 0x7f && *s != 0x9b);
}

static void collect(void *ctx, enum drmtop_line_kind kind, const char *text)
{
	(void)ctx;
	(void)kind;
	assert_null(strchr(text, '\n'));
	no_control_chars(text);
}

/*
 * A process named with an escape sequence, a driver and an engine with control characters:
 * before, the text view wrote them raw (a comm could clear the screen of whoever ran drmtop -b).
 */
static void test_text_view_escapes_hostile_names(void **state)
{
	struct drmtop_model_input in = { .diverge_pct = 5.0, .bpf_reason = "off\033]0;x\007" };
	struct drmtop_model m = { 0 };
	struct drm_client gone;
	struct fake_fdinfo a;
	char *text;
	int sort;

	(void)state;
	fake_fdinfo_init(&a, 1, "g\033fx", 10.0, 1000, 10, 3);
	a.c.key = "k\033A";
	a.c.dev_key = "pdev:\033[31m";
	a.c.info.driver = "sim\x9bgpu";
	snprintf(a.c.comm, sizeof(a.c.comm), "evil\033[2J\x9b");
	gone = a.c;
	in.clients = &a.c;
	in.nr_clients = 1;
	in.gone = &gone;
	in.nr_gone = 1;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	text = render(drmtop_text_frame, &m);
	no_control_chars(text);
	assert_non_null(strstr(text, "evil\\x1b[2J\\x9b"));
	assert_non_null(strstr(text, "sim\\x9bgpu"));
	free(text);
	for (sort = 0; sort < DRMTOP_SORT_COUNT; sort++)
		drmtop_render_lines(&m, (enum drmtop_sort)sort, false, collect, NULL);
	drmtop_model_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_text_view_escapes_hostile_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
