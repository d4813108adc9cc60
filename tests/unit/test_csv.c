// SPDX-License-Identifier: GPL-2.0-only
/* -o csv: RFC 4180 quoting, the header once, one row per client and engine, empty = absent. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "drmtop/model_build.h"
#include "drmtop/views.h"
#include "fake_clients.h"

static char *field(const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	drmtop_csv_field(out, s);
	fclose(out);
	return text;
}

static void expect_field(const char *in, const char *want)
{
	char *got = field(in);

	assert_string_equal(got, want);
	free(got);
}

static void test_quoting(void **state)
{
	(void)state;
	expect_field("glxgears", "glxgears");
	expect_field("", "");
	expect_field(NULL, "");
	/* Spaces and semicolons are data, not structure: RFC 4180 leaves them bare. */
	expect_field("a b;d", "a b;d");
	expect_field("a,b", "\"a,b\"");
	expect_field("say \"hi\"", "\"say \"\"hi\"\"\"");
	expect_field("\"", "\"\"\"\"");
	/* Control characters are escaped as the text view does: no line break left to quote. */
	expect_field("line\nbreak", "line\\x0abreak");
	expect_field("cr\rhere", "cr\\x0dhere");
	expect_field("x,\"y\"\r\n", "\"x,\"\"y\"\"\\x0d\\x0a\"");
	assert_false(drmtop_csv_needs_quotes("plain"));
	assert_true(drmtop_csv_needs_quotes("a,b"));
	assert_false(drmtop_csv_needs_quotes(NULL));
}

/*
 * A process name is any bytes: before, `-o csv` wrote an OSC sequence, C1 controls and invalid
 * UTF-8 straight to whoever ran it on a terminal. Escaped as the text view escapes them.
 */
static void test_escapes_terminal_controls(void **state)
{
	(void)state;
	expect_field("\033]0;pwned\007", "\\x1b]0;pwned\\x07");
	expect_field("a\tb\x7f", "a\\x09b\\x7f");
	expect_field("\xc2\x9b" "31m", "\\xc2\\x9b31m");
	expect_field("\xff\xfe", "\\xff\\xfe");
	expect_field("a\\b", "a\\\\b");
	expect_field("caf\xc3\xa9", "caf\xc3\xa9");
	/* Longer than any fixed buffer: escaped whole, not cut. */
	{
		char in[3001], want[4 * 3000 + 1];
		size_t i;

		for (i = 0; i < 3000; i++)
			in[i] = i % 2 ? 'x' : '\033';
		in[3000] = '\0';
		want[0] = '\0';
		for (i = 0; i < 3000; i++)
			strcat(want, i % 2 ? "x" : "\\x1b");
		expect_field(in, want);
	}
}

/*
 * A field a spreadsheet would run as a formula (OWASP's CSV injection: a leading = + - @, or a
 * tab or CR) gets a leading single quote and is quoted: a comm of "=1+cmd|x" was a formula.
 */
static void test_neutralises_formulas(void **state)
{
	(void)state;
	expect_field("=1+cmd|x", "\"'=1+cmd|x\"");
	expect_field("+1", "\"'+1\"");
	expect_field("-1", "\"'-1\"");
	expect_field("@SUM(A1)", "\"'@SUM(A1)\"");
	expect_field("=a,\"b\"", "\"'=a,\"\"b\"\"\"");
	/* A leading tab or CR is escaped, so it no longer starts the cell. */
	expect_field("\t=1", "\\x09=1");
	expect_field("\r=1", "\\x0d=1");
	/* Only the start counts. */
	expect_field("a=1", "a=1");
	assert_true(drmtop_csv_needs_quotes("=1"));
}

static char *frame(const struct drmtop_model *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	assert_int_equal(drmtop_csv_frame(out, m), 0);
	fclose(out);
	return text;
}

#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HEADER "time,iteration,interval_s,pid,uid,comm,device,node,driver,client_id,source," \
	"engine,busy_pct,busy_ns,capacity,bpf_busy_pct,bpf_busy_ns,bpf_jobs,bpf_jobs_delta," \
	"diverged,mem_total_bytes,mem_shared_bytes,mem_resident_bytes,bpf_mem_total_bytes," \
	"mem_diverged,inconclusive,mem_inconclusive,lower_bound,bpf_missed,bpf_missed_interval," \
	"workload,cgroup\n"

/*
 * Two fdinfo clients, one with a hostile name, a cgroup and two engines: a row per engine, the
 * name quoted, memory and workload repeated on each row of the client, figures the source
 * lacks left empty.
 */
static void test_frame_rows(void **state)
{
	struct drmtop_model_input in = {
		.diverge_pct = 5.0, .realtime_ns = 1700000000123456789ull,
	};
	struct drmtop_model m = { 0 };
	struct fake_fdinfo a, b;
	struct drm_client both[2];
	char *text;

	(void)state;
	fake_fdinfo_init(&a, 7, "gfx", 50.0, 4096, 10, 3);
	a.c.key = "kA";
	a.c.dev_key = "simgpu@226:128";
	a.c.info.driver = "simgpu";
	snprintf(a.c.comm, sizeof(a.c.comm), "a,\"b\"");
	a.c.cgroup = "/system.slice/docker-" CID ".scope";
	a.eng[0].busy_ns = 123;
	a.c.dt_ns = 2000000000ull;
	a.eng[1] = a.eng[0];
	a.eng[1].name = "copy";
	a.eng[1].busy_ns = 5;
	a.usage[1] = a.usage[0];
	a.usage[1].busy_pct = 12.5;
	a.c.info.nr_engines = 2;
	fake_fdinfo_init(&b, 0, "ce", 0, 0, 20, 4);
	b.c.key = "kB";
	b.c.dev_key = "226:129";
	b.c.rdev = makedev(226, 129);
	b.c.is_new = true;
	b.c.usage = NULL;
	b.c.info.nr_regions = 0;
	snprintf(b.c.comm, sizeof(b.c.comm), "plain");
	both[0] = a.c;
	both[1] = b.c;
	in.clients = both;
	in.nr_clients = 2;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	m.iteration = 1;
	text = frame(&m);
	assert_string_equal(text,
		HEADER
		"2023-11-14T22:13:20.123Z,1,2.000000,10,,\"a,\"\"b\"\"\",simgpu@226:128,dri/renderD128,"
		"simgpu,7,fdinfo,gfx,50.00,123,1,,,,,,4096,,,,,,,,,,docker/0123456789ab,"
		"/system.slice/docker-" CID ".scope\n"
		"2023-11-14T22:13:20.123Z,1,2.000000,10,,\"a,\"\"b\"\"\",simgpu@226:128,dri/renderD128,"
		"simgpu,7,fdinfo,copy,12.50,5,1,,,,,,4096,,,,,,,,,,docker/0123456789ab,"
		"/system.slice/docker-" CID ".scope\n"
		"2023-11-14T22:13:20.123Z,1,,20,,plain,226:129,dri/renderD129,,,fdinfo,ce,,0,1,,,,,,"
		",,,,,,,,,,,\n");
	free(text);

	/* Later frames carry no header. */
	m.iteration = 2;
	text = frame(&m);
	assert_null(strstr(text, "time,iteration"));
	assert_int_equal(strncmp(text, "2023-11-14T22:13:20.123Z,2,", 27), 0);
	free(text);
	drmtop_model_fini(&m);
}

/*
 * In a frame, the text fields (comm, device, driver, engine) are neutralised and escaped; the
 * figures are not: a pid of -1 stays the number -1.
 */
static void test_frame_neutralises_text_not_numbers(void **state)
{
	struct drmtop_model_engine e = { .name = "+gfx", .in_bpf = true };
	struct drmtop_model_bpf b = { .mem_total = 4096 };
	struct drmtop_model_client c = {
		.pid = -1, .comm = "=1+cmd|x", .dev_key = "@dev", .driver = "-drv\033[2J",
		.bpf = &b, .engines = &e, .nr_engines = 1,
		.cgroup = { .path = "/=x\033]0;t\a", .workload = "=HYPERLINK(1)" },
	};
	struct drmtop_model m = { .iteration = 2, .clients = &c, .nr_clients = 1 };
	char *text;

	(void)state;
	e.bpf.busy_ns = 7;
	e.bpf.jobs = 1;
	text = frame(&m);
	assert_string_equal(text,
		"1970-01-01T00:00:00.000Z,2,,-1,,\"'=1+cmd|x\",\"'@dev\",,\"'-drv\\x1b[2J\",,bpf,"
		"\"'+gfx\",,,,,7,1,,,,,,4096,,,,0,,,\"'=HYPERLINK(1)\",/=x\\x1b]0;t\\x07\n");
	free(text);
}

/*
 * What the tracer missed, on every row: before, CSV had no loss columns, so a row whose tracer
 * figures were short (a lower bound) read like any other. Per engine whether a disagreement is
 * inconclusive, per client whether its memory comparison is and whether its tracer figures may
 * be short, and the frame's missed events since start and in the interval.
 */
static void test_frame_loss_columns(void **state)
{
	struct drmtop_model_engine e[2] = {
		{ .name = "gfx", .in_fdinfo = true, .in_bpf = true, .inconclusive = true },
		{ .name = "copy", .in_bpf = true },
	};
	struct drmtop_model_bpf b = { .mem_total = 8, .mem_compared = true };
	struct drmtop_model_client c[2] = {
		{ .pid = 5, .comm = "short", .in_fdinfo = true, .bpf = &b, .engines = e,
		  .nr_engines = 2, .lower_bound = true, .inconclusive = true },
		{ .pid = 6, .comm = "fdinfo-only", .in_fdinfo = true },
	};
	struct drmtop_model m = {
		.iteration = 2, .clients = c, .nr_clients = 2, .bpf_active = true,
		.missed = { .since_start = 12, .interval = 3 },
	};
	char *text;

	(void)state;
	e[0].fd.flags = DRMTOP_FD_RATE;
	e[0].fd.pct = 80.0;
	e[0].fd.capacity = 1;
	text = frame(&m);
	assert_string_equal(text,
		"1970-01-01T00:00:00.000Z,2,,5,,short,,,,,both,gfx,80.00,,1,,0,0,,0,,,,8,0,1,0,1,12,3,,\n"
		"1970-01-01T00:00:00.000Z,2,,5,,short,,,,,both,copy,,,,,0,0,,,,,,8,0,,0,1,12,3,,\n"
		"1970-01-01T00:00:00.000Z,2,,6,,fdinfo-only,,,,,fdinfo,,,,,,,,,,,,,,,,,,12,3,,\n");
	free(text);

	/* Without the tracer the loss columns are empty: nothing was traced, nothing missed. */
	m.bpf_active = false;
	m.nr_clients = 1;
	c[0].bpf = NULL;
	c[0].nr_engines = 0;
	text = frame(&m);
	assert_string_equal(text,
		"1970-01-01T00:00:00.000Z,2,,5,,short,,,,,fdinfo,,,,,,,,,,,,,,,,,,,,,\n");
	free(text);
}

/* A frame without clients is the header alone (first frame) or nothing. */
static void test_no_clients(void **state)
{
	struct drmtop_model_input in = { .bpf_reason = "not root" };
	struct drmtop_model m = { 0 };
	char *text;

	(void)state;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	m.iteration = 1;
	text = frame(&m);
	assert_string_equal(text, HEADER);
	free(text);
	m.iteration = 3;
	text = frame(&m);
	assert_string_equal(text, "");
	free(text);
	drmtop_model_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_escapes_terminal_controls),
		cmocka_unit_test(test_neutralises_formulas),
		cmocka_unit_test(test_frame_rows),
		cmocka_unit_test(test_frame_neutralises_text_not_numbers),
		cmocka_unit_test(test_frame_loss_columns),
		cmocka_unit_test(test_no_clients),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
