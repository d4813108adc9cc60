// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "drmtop/formats.h"
#include "drmtop/options.h"

#define ARGV(...) ((char *[]){ "drmtop", __VA_ARGS__, NULL })

/*
 * Parses a NULL-terminated argv as main() would dispatch it ("record" as argv[1] selects that
 * command); the error text (if any) goes to *errtext.
 */
static int parse(struct drmtop_options *o, char **argv, char **errtext)
{
	enum drmtop_command cmd = DRMTOP_CMD_TOP;
	size_t len = 0;
	FILE *err = open_memstream(errtext, &len);
	int argc = 0, rc;

	if (argv[1] && !strcmp(argv[1], "record")) {
		cmd = DRMTOP_CMD_RECORD;
		argv++;
	}
	while (argv[argc])
		argc++;
	rc = drmtop_options_parse(o, cmd, argc, argv, err);
	fclose(err);
	return rc;
}

static void test_defaults(void **state)
{
	struct drmtop_options o;
	char *e = NULL;

	(void)state;
	assert_int_equal(parse(&o, (char *[]){ "drmtop", NULL }, &e), 0);
	assert_int_equal(o.command, DRMTOP_CMD_TOP);
	/* the live views count idle closed clients; record (below) follows each */
	assert_false(o.each_closed);
	assert_int_equal(o.output, DRMTOP_OUT_AUTO);
	assert_int_equal(o.source, DRMTOP_SRC_AUTO);
	assert_true(o.interval_s == 2.0);
	assert_int_equal(o.iterations, 0);
	assert_string_equal(o.proc_root, "/proc");
	assert_string_equal(o.sys_root, "/sys");
	assert_true(drmtop_options_want_pid(&o, 1));
	assert_string_equal(e, "");
	drmtop_options_free(&o);
	free(e);
}

static void test_full_set(void **state)
{
	struct drmtop_options o;
	char *e = NULL;

	(void)state;
	assert_int_equal(parse(&o, ARGV("-d", "0.5", "-n", "3", "-p", "10,20", "--pid", "30", "-J",
					"--source", "fdinfo", "--proc-root", "/tmp/p", "--sys-root", "",
					"--diverge-threshold", "12.5"),
			       &e),
			 0);
	assert_true(o.interval_s == 0.5);
	assert_int_equal(o.iterations, 3);
	assert_int_equal(o.nr_pids, 3);
	assert_int_equal(o.pids[0], 10);
	assert_int_equal(o.pids[2], 30);
	assert_true(drmtop_options_want_pid(&o, 20));
	assert_false(drmtop_options_want_pid(&o, 21));
	assert_int_equal(o.output, DRMTOP_OUT_STREAM);
	assert_ptr_equal(o.format, drmtop_format_find("json"));
	assert_int_equal(o.source, DRMTOP_SRC_FDINFO);
	assert_string_equal(o.proc_root, "/tmp/p");
	assert_string_equal(o.sys_root, "");
	assert_true(o.diverge_pct == 12.5);
	drmtop_options_free(&o);
	free(e);
}

static void test_record_needs_duration(void **state)
{
	struct drmtop_options o;
	char *e = NULL;

	(void)state;
	assert_int_equal(parse(&o, ARGV("record", "-t", "1.5", "-J"), &e), 0);
	assert_int_equal(o.command, DRMTOP_CMD_RECORD);
	assert_true(o.each_closed);
	assert_true(o.duration_s == 1.5);
	drmtop_options_free(&o);
	free(e);

	e = NULL;
	assert_int_equal(parse(&o, ARGV("record", "-J"), &e), -1);
	assert_non_null(strstr(e, "record needs -t"));
	free(e);

	e = NULL;
	assert_int_equal(parse(&o, ARGV("-t", "3"), &e), -1);
	assert_non_null(strstr(e, "-t goes with record"));
	free(e);
}

/* -o picks a format from the table; -b after -J keeps JSON; an unknown name is an error. */
static void test_output_formats(void **state)
{
	struct drmtop_options o;
	char *e = NULL;

	(void)state;
	assert_int_equal(parse(&o, ARGV("-o", "text"), &e), 0);
	assert_int_equal(o.output, DRMTOP_OUT_STREAM);
	assert_string_equal(o.format->name, "text");
	drmtop_options_free(&o);
	free(e);
	e = NULL;
	assert_int_equal(parse(&o, ARGV("-J", "-b"), &e), 0);
	assert_string_equal(o.format->name, "json");
	drmtop_options_free(&o);
	free(e);
	e = NULL;
	assert_int_equal(parse(&o, ARGV("-o", "yaml"), &e), -1);
	assert_non_null(strstr(e, "unknown output format 'yaml'"));
	free(e);
}

/* -o csv streams, record has none; -C, --no-color and NO_COLOR (set, not empty): no colour. */
static void test_csv_and_colour(void **state)
{
	struct drmtop_options o;
	char *e = NULL;

	(void)state;
	unsetenv("NO_COLOR");
	assert_int_equal(parse(&o, ARGV("-o", "csv"), &e), 0);
	assert_int_equal(o.output, DRMTOP_OUT_STREAM);
	assert_string_equal(o.format->name, "csv");
	assert_false(o.no_color);
	drmtop_options_free(&o);
	free(e);
	e = NULL;
	assert_int_equal(parse(&o, ARGV("record", "-t", "1", "-o", "csv"), &e), -1);
	assert_non_null(strstr(e, "record has no csv output"));
	free(e);
	e = NULL;
	assert_int_equal(parse(&o, ARGV("-C"), &e), 0);
	assert_true(o.no_color);
	drmtop_options_free(&o);
	free(e);
	e = NULL;
	assert_int_equal(parse(&o, ARGV("--no-color"), &e), 0);
	assert_true(o.no_color);
	drmtop_options_free(&o);
	free(e);
	e = NULL;
	setenv("NO_COLOR", "", 1);
	assert_int_equal(parse(&o, ARGV("-b"), &e), 0);
	assert_false(o.no_color);
	drmtop_options_free(&o);
	free(e);
	e = NULL;
	setenv("NO_COLOR", "1", 1);
	assert_int_equal(parse(&o, ARGV("-b"), &e), 0);
	assert_true(o.no_color);
	drmtop_options_free(&o);
	free(e);
	unsetenv("NO_COLOR");
}

/* The live view's +/- keys and -d share one range (the TUI used to stop at 3600 s). */
static void test_interval_limits(void **state)
{
	struct drmtop_options o;
	char *e = NULL;

	(void)state;
	assert_int_equal(parse(&o, ARGV("-d", "86400"), &e), 0);
	assert_true(o.interval_s == DRMTOP_MAX_INTERVAL_S);
	drmtop_options_free(&o);
	free(e);
	e = NULL;
	assert_int_equal(parse(&o, ARGV("-d", "0.001"), &e), -1);
	assert_non_null(strstr(e, "want seconds >= 0.01"));
	free(e);
}

static void expect_error(char **argv, const char *needle)
{
	struct drmtop_options o;
	char *e = NULL;

	assert_int_equal(parse(&o, argv, &e), -1);
	if (!strstr(e, needle))
		fail_msg("error '%s' lacks '%s'", e, needle);
	assert_null(o.pids);
	free(e);
}

static void test_bad_input_is_rejected_clearly(void **state)
{
	(void)state;
	expect_error(ARGV("-d", "0"), "invalid interval '0'");
	expect_error(ARGV("-d", "-1"), "invalid interval");
	expect_error(ARGV("-d", "nan"), "invalid interval");
	expect_error(ARGV("-d", "1x"), "invalid interval");
	expect_error(ARGV("-d", "100000"), "invalid interval");
	expect_error(ARGV("-n", "0"), "invalid iteration count");
	expect_error(ARGV("-n", "-3"), "invalid iteration count");
	expect_error(ARGV("-n", "99999999999999999999999"), "invalid iteration count");
	expect_error(ARGV("-p", "1,,2"), "invalid pid list");
	expect_error(ARGV("-p", "1,-2"), "invalid pid list");
	expect_error(ARGV("-p", "5", "-p", "x"), "invalid pid list");
	expect_error(ARGV("--source", "magic"), "invalid source 'magic'");
	expect_error(ARGV("--diverge-threshold", "-1"), "invalid divergence threshold");
	expect_error(ARGV("-x"), "unknown option '-x'");
	expect_error(ARGV("--frobnicate"), "unknown option '--frobnicate'");
	expect_error(ARGV("-d"), "needs a value");
	expect_error(ARGV("stray"), "unexpected argument 'stray'");
}

static void test_help_and_usage_text(void **state)
{
	struct drmtop_options o;
	char *e = NULL, *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(parse(&o, ARGV("--help"), &e), 0);
	assert_true(o.show_help);
	drmtop_options_free(&o);
	free(e);

	f = open_memstream(&text, &len);
	drmtop_usage(f, "drmtop");
	fclose(f);
	assert_non_null(strstr(text, "Examples:"));
	assert_non_null(strstr(text, "drmtop record -t 30 -J"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full_set),
		cmocka_unit_test(test_record_needs_duration),
		cmocka_unit_test(test_output_formats),
		cmocka_unit_test(test_csv_and_colour),
		cmocka_unit_test(test_interval_limits),
		cmocka_unit_test(test_bad_input_is_rejected_clearly),
		cmocka_unit_test(test_help_and_usage_text),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
