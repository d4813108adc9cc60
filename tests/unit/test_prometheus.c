// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exporter's model layer and view: the series accumulator (monotonic counters across client
 * churn, closed clients kept until scraped, folding past max_clients, series per command and
 * workload with container and pod labels) and the exposition (escaping, invalid UTF-8, text vs
 * OpenMetrics). Models are built by hand, as a source would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "drmtop/cgroup_name.h"
#include "drmtop/prometheus.h"
#include "drmtop/series.h"
#include "drmtop/util/utf8.h"

/* ---- building models ---- */

struct fake {
	struct drmtop_model m;
	struct drmtop_model_client clients[8];
	struct drmtop_model_engine engines[8][2];
	struct drmtop_model_bpf bpf[8];
	struct drmtop_model_closed closed[8];
	struct drmtop_model_closed_engine closed_engines[8];
	char workload[8][DRMTOP_UNIT_NAME_MAX + 64];
	struct drmtop_cgroup_name cgroup[8];
};

/* Client @i's process lives in cgroup @path: the fields the model fills from its name. */
static void set_cgroup(struct fake *f, size_t i, const char *path)
{
	struct drmtop_model_cgroup *g = &f->clients[i].cgroup;
	struct drmtop_cgroup_name *n = &f->cgroup[i];

	drmtop_cgroup_name_parse(path, n);
	g->path = path;
	g->workload = drmtop_cgroup_workload(n, path, f->workload[i], sizeof(f->workload[i]));
	g->unit = n->unit[0] ? n->unit : NULL;
	g->slice = n->slice[0] ? n->slice : NULL;
	g->runtime = drmtop_runtime_name(n->runtime);
	g->container = n->container[0] ? n->container : NULL;
	g->pod = n->pod[0] ? n->pod : NULL;
	g->qos = drmtop_pod_qos_name(n->qos);
}

static void fake_reset(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->m.clients = f->clients;
	f->m.closed = f->closed;
	f->m.status = DRMTOP_STATUS_OK;
}

/* An fdinfo client with one engine "gfx" at @fd_ns; @uid != 0 adds the tracer's side. */
static void add_client(struct fake *f, const char *key, const char *comm, pid_t pid,
		       uint64_t client_id, uint64_t fd_ns, uint64_t uid, uint64_t bpf_ns,
		       uint64_t jobs)
{
	size_t i = f->m.nr_clients++;
	struct drmtop_model_client *c = &f->clients[i];
	struct drmtop_model_engine *e = f->engines[i];

	c->key = key;
	c->in_fdinfo = true;
	c->dev_key = "pdev:0000:01:00.0";
	c->driver = "simgpu";
	c->node = "dri/renderD128";
	c->rdev = makedev(226, 128);
	c->comm = comm;
	c->pid = pid;
	c->fd = 3;
	c->has_client_id = client_id != 0;
	c->client_id = client_id;
	c->engines = e;
	c->nr_engines = 1;
	e->name = "gfx";
	e->in_fdinfo = true;
	e->fd.flags = DRMTOP_FD_BUSY;
	e->fd.busy_ns = fd_ns;
	e->fd.busy_effective_ns = fd_ns;
	if (uid) {
		e->in_bpf = true;
		e->bpf.busy_ns = bpf_ns;
		e->bpf.jobs = jobs;
		f->bpf[i].uid = uid;
		f->bpf[i].minor = 128;
		f->bpf[i].driver = "simgpu";
		c->bpf = &f->bpf[i];
	}
	f->m.nr_fdinfo_clients = f->m.nr_clients;
}

/* fdinfo saw the client with @key go. */
static void add_gone(struct fake *f, const char *key)
{
	struct drmtop_model_closed *c = &f->closed[f->m.nr_closed++];

	c->key = key;
	c->comm = "gone";
}

/* The tracer's close record of @uid, with its final gfx figures. */
static void add_closed_bpf(struct fake *f, uint64_t uid, const char *comm, pid_t pid,
			   uint64_t client_id, uint64_t busy_ns, uint64_t jobs)
{
	size_t i = f->m.nr_closed++;
	struct drmtop_model_closed *c = &f->closed[i];

	c->from_bpf = true;
	c->pid = pid;
	c->comm = comm;
	c->driver = "simgpu";
	c->has_client_id = true;
	c->client_id = client_id;
	c->bpf.uid = uid;
	c->bpf.minor = 128;
	c->bpf.comm = comm;
	c->bpf.driver = "simgpu";
	c->engines = &f->closed_engines[i];
	c->nr_engines = 1;
	f->closed_engines[i].name = "gfx";
	f->closed_engines[i].busy_ns = busy_ns;
	f->closed_engines[i].jobs = jobs;
}

/* The driver's own jobs on the GPU of DRM minor @minor: a client only the tracer sees. */
static void add_kernel_client(struct fake *f, uint64_t uid, int minor, uint64_t busy_ns)
{
	size_t i = f->m.nr_clients++;
	struct drmtop_model_client *c = &f->clients[i];
	struct drmtop_model_engine *e = f->engines[i];

	c->key = minor ? "bpf:k1" : "bpf:k0";
	c->driver = "simgpu";
	c->comm = "[kernel]";
	c->fd = -1;
	c->engines = e;
	c->nr_engines = 1;
	e->name = "gfx";
	e->in_bpf = true;
	e->bpf.busy_ns = busy_ns;
	e->bpf.jobs = 1;
	f->bpf[i].uid = uid;
	f->bpf[i].kernel = true;
	f->bpf[i].minor = minor;
	f->bpf[i].driver = "simgpu";
	c->bpf = &f->bpf[i];
}

/* ---- reading the exposition ---- */

static char *render(const struct drmtop_series *s, enum drmtop_prom_format fmt)
{
	struct drmtop_prom_info info = { .version = "9.9", .scrapes = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(drmtop_prom_write(f, s, fmt, &info), 0);
	fclose(f);
	return buf;
}

/* The value of the sample whose line starts with @prefix ("name{labels}"), or NULL. */
static const char *sample(const char *text, const char *prefix)
{
	static char val[64];
	const char *p = text;
	size_t pl = strlen(prefix);

	while (p && *p) {
		if (!strncmp(p, prefix, pl) && p[pl] == ' ') {
			size_t n = strcspn(p + pl + 1, "\n");

			snprintf(val, sizeof(val), "%.*s", (int)n, p + pl + 1);
			return val;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

#define PER_CLIENT DRMTOP_SERIES_LABELS_PER_CLIENT

/* A client whose cgroup is not known: the workload labels are there, empty. */
#define NO_WORKLOAD ",workload=\"\",container_id=\"\",pod_uid=\"\""

/* Per-client labels (--per-client). */
#define CLIENT(comm, id, pid)                                                               \
	"{driver=\"simgpu\",device=\"pdev:0000:01:00.0\",client_id=\"" id "\",pid=\"" pid \
	"\",comm=\"" comm "\"" NO_WORKLOAD
/* One source's figure ("fdinfo", "bpf") of a client's gfx engine, for cross-checking. */
#define BUSY(comm, id, pid, src)                                                            \
	"drmtop_" src "_client_engine_busy_seconds_total" CLIENT(comm, id, pid)             \
	",engine=\"gfx\"}"
/* The figure drmtop stands behind: one per client and engine. */
#define BEST(comm, id, pid)                                                                 \
	"drmtop_client_engine_busy_seconds_total" CLIENT(comm, id, pid) ",engine=\"gfx\"}"
#define JOBS(comm, id, pid) "drmtop_client_jobs_total" CLIENT(comm, id, pid) ",engine=\"gfx\"}"
#define DEV "{driver=\"simgpu\",device=\"pdev:0000:01:00.0\",engine=\"gfx\"}"
#define DEV_BUSY(src) "drmtop_" src "_device_engine_busy_seconds_total" DEV
#define DEV_BEST "drmtop_device_engine_busy_seconds_total" DEV
/* Default labels: one series per (driver, device, comm). */
#define COMM(comm) "{driver=\"simgpu\",device=\"pdev:0000:01:00.0\",comm=\"" comm "\"" NO_WORKLOAD
#define COMM_BEST(comm) "drmtop_client_engine_busy_seconds_total" COMM(comm) ",engine=\"gfx\"}"

static void expect(const char *text, const char *prefix, const char *want)
{
	const char *got = sample(text, prefix);

	if (!want) {
		if (got)
			fail_msg("%s: expected no sample, got %s", prefix, got);
		return;
	}
	if (!got)
		fail_msg("%s: no sample in\n%s", prefix, text);
	assert_string_equal(got, want);
}

/* ---- tests ---- */

static void test_utf8_sanitize(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "glxgears", "glxgears" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "a\xff" "b", "a\xef\xbf\xbd" "b" },			/* never valid */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },		/* overlong '/' */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },	/* surrogate */
		{ "x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd" },		/* cut short (comm is 15 bytes) */
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\x80z", "\xef\xbf\xbdz" },				/* lone continuation */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = utf8_sanitize(cases[i].in);

		assert_string_equal(s, cases[i].out);
		free(s);
	}
}

static void test_label_escaping(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	drmtop_prom_label_value(f, "a\\b\"c\nd\te\xff");
	fclose(f);
	/* backslash, quote and newline escaped; tab kept; the bad byte becomes U+FFFD */
	assert_string_equal(buf, "a\\\\b\\\"c\\nd\te\xef\xbf\xbd");
	free(buf);
}

static void test_comm_in_output(void **state)
{
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, PER_CLIENT);
	fake_reset(&f);
	add_client(&f, "k#1", "a\"b\\c\nd\xfe", 10, 1, 1000, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("a\\\"b\\\\c\\nd\xef\xbf\xbd", "1", "10", "fdinfo"), "0.000001000");
	free(out);
	drmtop_series_fini(&s);
}

static void test_negotiation(void **state)
{
	static const struct {
		const char *accept;
		enum drmtop_prom_format want;
	} cases[] = {
		{ NULL, DRMTOP_PROM_TEXT },
		{ "", DRMTOP_PROM_TEXT },
		{ "*/*", DRMTOP_PROM_TEXT },
		{ "text/plain", DRMTOP_PROM_TEXT },
		{ "application/openmetrics-text", DRMTOP_PROM_OPENMETRICS },
		/* What Prometheus 2.x sends */
		{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  DRMTOP_PROM_OPENMETRICS },
		{ "Application/OpenMetrics-Text; version=1.0.0", DRMTOP_PROM_OPENMETRICS },
		/* Only the older OpenMetrics draft: text, which every scraper reads */
		{ "application/openmetrics-text; version=0.0.1", DRMTOP_PROM_TEXT },
		{ "application/openmetrics-text;q=0.2, text/plain;q=0.9", DRMTOP_PROM_TEXT },
		{ "text/plain;q=0.3, application/openmetrics-text;q=0.8", DRMTOP_PROM_OPENMETRICS },
		{ "application/openmetrics-text;q=0", DRMTOP_PROM_TEXT },
		{ "application/json", DRMTOP_PROM_TEXT },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (drmtop_prom_negotiate(cases[i].accept) != cases[i].want)
			fail_msg("Accept '%s': wrong format", cases[i].accept ? cases[i].accept
									 : "(none)");
	assert_non_null(strstr(drmtop_prom_content_type(DRMTOP_PROM_OPENMETRICS),
			       "application/openmetrics-text; version=1.0.0"));
	assert_non_null(strstr(drmtop_prom_content_type(DRMTOP_PROM_TEXT), "version=0.0.4"));
}

static void test_formats(void **state)
{
	struct drmtop_series s;
	struct fake f;
	char *text, *om;

	(void)state;
	drmtop_series_init(&s, 10, PER_CLIENT);
	fake_reset(&f);
	add_client(&f, "k#1", "render", 10, 1, 1500000000, 7, 1400000000, 12);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	text = render(&s, DRMTOP_PROM_TEXT);
	om = render(&s, DRMTOP_PROM_OPENMETRICS);
	/* Text: the family is named with _total; OpenMetrics: without, samples with it. */
	assert_non_null(strstr(text, "# TYPE drmtop_client_engine_busy_seconds_total counter\n"));
	assert_non_null(strstr(om, "# TYPE drmtop_client_engine_busy_seconds counter\n"));
	assert_non_null(strstr(om, "# UNIT drmtop_client_engine_busy_seconds seconds\n"));
	expect(text, BUSY("render", "1", "10", "bpf"), "1.400000000");
	expect(om, BUSY("render", "1", "10", "fdinfo"), "1.500000000");
	expect(om, JOBS("render", "1", "10"), "12");
	expect(om, BEST("render", "1", "10"), "1.500000000");
	assert_non_null(strstr(text, "drmtop_build_info{version=\"9.9\"} 1\n"));
	assert_non_null(strstr(om, "# TYPE drmtop_build info\n"));
	assert_null(strstr(text, "# EOF"));
	assert_int_equal(strcmp(om + strlen(om) - 6, "# EOF\n"), 0);
	/* HELP: OpenMetrics escapes the double quote, text format does not. */
	assert_non_null(strstr(text, "--max-clients, pid=\"\" client_id=\"\")"));
	assert_non_null(strstr(om, "--max-clients, pid=\\\"\\\" client_id=\\\"\\\")"));
	free(text);
	free(om);
	drmtop_series_fini(&s);
}

/* A client closes between scrapes: its final value is exported once, nothing goes back. */
static void test_churn_monotonic(void **state)
{
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, PER_CLIENT);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 100, 11, 90, 3);
	add_client(&f, "k#2", "b", 20, 2, 50, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	drmtop_series_scraped(&s);
	expect(out, BUSY("b", "2", "20", "fdinfo"), "0.000000050");
	expect(out, DEV_BUSY("fdinfo"), "0.000000150");
	free(out);

	/* b goes (fdinfo saw it), c opened and closed between two samples (tracer only). */
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 200, 11, 190, 5);
	add_gone(&f, "k#2");
	add_closed_bpf(&f, 33, "c", 30, 3, 40, 2);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	/* No scrape yet: the next sample must not drop them. */
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 250, 11, 240, 6);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	drmtop_series_scraped(&s);
	expect(out, BUSY("b", "2", "20", "fdinfo"), "0.000000050");
	expect(out, "drmtop_client_open" CLIENT("b", "2", "20") "}", "0");
	expect(out, BUSY("c", "3", "30", "bpf"), "0.000000040");
	expect(out, JOBS("c", "3", "30"),
	       "2");
	expect(out, DEV_BUSY("fdinfo"), "0.000000300");
	expect(out, DEV_BUSY("bpf"), "0.000000280");
	expect(out, "drmtop_clients_closed_total", "2");
	free(out);

	/* Scraped once: folded away, but still in the device totals. */
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 300, 11, 290, 7);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	drmtop_series_scraped(&s);
	expect(out, BUSY("b", "2", "20", "fdinfo"), NULL);
	expect(out, BUSY("c", "3", "30", "bpf"), NULL);
	expect(out, BUSY("a", "1", "10", "fdinfo"), "0.000000300");
	expect(out, DEV_BUSY("fdinfo"), "0.000000350");
	expect(out, DEV_BUSY("bpf"), "0.000000330");
	free(out);

	/*
	 * A source's figure going back never takes back what was counted, nor is it counted
	 * twice when it comes back (the tracer's estimate of a running job can overshoot).
	 */
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 250, 11, 280, 7);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 260, 11, 295, 7);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("a", "1", "10", "fdinfo"), "0.000000300");
	expect(out, BUSY("a", "1", "10", "bpf"), "0.000000295");
	expect(out, DEV_BUSY("fdinfo"), "0.000000350");
	free(out);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 320, 11, 295, 7);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("a", "1", "10", "fdinfo"), "0.000000320");
	expect(out, DEV_BUSY("fdinfo"), "0.000000370");
	free(out);
	drmtop_series_fini(&s);
}

/* fdinfo sees a client go, a scrape hides it, then the tracer's close record brings more. */
static void test_late_final(void **state)
{
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, PER_CLIENT);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 100, 11, 100, 1);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	fake_reset(&f);
	add_gone(&f, "k#1");
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	drmtop_series_scraped(&s);
	fake_reset(&f);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("a", "1", "10", "bpf"), NULL);
	free(out);
	fake_reset(&f);
	add_closed_bpf(&f, 11, "a", 10, 1, 130, 2);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	/* Same series (labels of first sight), continued, not a second one from 0 */
	expect(out, BUSY("a", "1", "10", "bpf"), "0.000000130");
	expect(out, DEV_BUSY("bpf"), "0.000000130");
	free(out);
	/* A job running at close ends later: a further record of the same uid with what it adds. */
	fake_reset(&f);
	add_closed_bpf(&f, 11, "a", 10, 1, 7, 1);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("a", "1", "10", "bpf"), "0.000000137");
	expect(out, JOBS("a", "1", "10"),
	       "3");
	expect(out, DEV_BUSY("bpf"), "0.000000137");
	free(out);
	drmtop_series_fini(&s);
}

/* A client missing from one sample (a process denying access for a moment) is not new. */
static void test_missed_sample(void **state)
{
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, PER_CLIENT);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 100, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	fake_reset(&f);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 150, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("a", "1", "10", "fdinfo"), "0.000000150");
	expect(out, DEV_BUSY("fdinfo"), "0.000000150");
	free(out);
	/* A pid/fd key reused by another open file (lower figures): counted on top. */
	fake_reset(&f);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 20, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("a", "1", "10", "fdinfo"), "0.000000170");
	expect(out, DEV_BUSY("fdinfo"), "0.000000170");
	free(out);
	drmtop_series_fini(&s);
}

static void test_cardinality_folding(void **state)
{
	struct drmtop_series s;
	struct fake f;
	size_t i;
	char *out;

	(void)state;
	drmtop_series_init(&s, 2, PER_CLIENT);
	/* Clients opened and closed between two samples hold no per-client slot. */
	fake_reset(&f);
	add_closed_bpf(&f, 97, "probe", 9, 97, 0, 0);
	add_closed_bpf(&f, 98, "probe", 9, 98, 0, 0);
	add_closed_bpf(&f, 99, "probe", 9, 99, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	drmtop_series_scraped(&s);
	/* Each its own series, on the device fdinfo would name without sysfs. */
	expect(out, "drmtop_client_open{driver=\"simgpu\",device=\"simgpu@226:128\",client_id=\"99\","
		    "pid=\"9\",comm=\"probe\"" NO_WORKLOAD "}", "0");
	expect(out, "drmtop_clients_folded_total", "0");
	expect(out, "drmtop_clients_closed_total", "3");
	free(out);
	fake_reset(&f);
	add_client(&f, "k#1", "x", 10, 1, 100, 0, 0, 0);
	add_client(&f, "k#2", "x", 11, 2, 200, 0, 0, 0);
	add_client(&f, "k#3", "x", 12, 3, 300, 0, 0, 0);
	add_client(&f, "k#4", "y", 13, 4, 400, 0, 0, 0);
	add_client(&f, "k#5", "x", 14, 5, 500, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	drmtop_series_scraped(&s);
	expect(out, BUSY("x", "1", "10", "fdinfo"), "0.000000100");
	expect(out, BUSY("x", "2", "11", "fdinfo"), "0.000000200");
	expect(out, BUSY("x", "3", "12", "fdinfo"), NULL);
	expect(out, BUSY("x", "", "", "fdinfo"), "0.000000800");
	expect(out, BUSY("y", "", "", "fdinfo"), "0.000000400");
	expect(out, "drmtop_client_open" CLIENT("x", "", "") "}", "2");
	expect(out, "drmtop_clients_open_folded", "3");
	expect(out, "drmtop_clients_folded_total", "3");
	free(out);

	/*
	 * A folded client closes and a per-client slot frees up: the folded series keeps what
	 * the closed one did, and a folded client stays folded (moving it would make one series
	 * drop and the other jump).
	 */
	fake_reset(&f);
	add_client(&f, "k#2", "x", 11, 2, 210, 0, 0, 0);
	add_client(&f, "k#3", "x", 12, 3, 310, 0, 0, 0);
	add_client(&f, "k#4", "y", 13, 4, 410, 0, 0, 0);
	add_gone(&f, "k#1");
	add_gone(&f, "k#5");
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("x", "", "", "fdinfo"), "0.000000810");
	expect(out, BUSY("x", "3", "12", "fdinfo"), NULL);
	expect(out, "drmtop_client_open" CLIENT("x", "", "") "}", "1");
	free(out);
	/* A new client takes the free per-client slot. */
	fake_reset(&f);
	add_client(&f, "k#2", "x", 11, 2, 210, 0, 0, 0);
	add_client(&f, "k#3", "x", 12, 3, 310, 0, 0, 0);
	add_client(&f, "k#4", "y", 13, 4, 410, 0, 0, 0);
	add_client(&f, "k#6", "z", 15, 6, 5, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, BUSY("z", "6", "15", "fdinfo"), "0.000000005");
	expect(out, DEV_BUSY("fdinfo"), "0.000001535");
	free(out);
	/*
	 * The last folded "x" client closes: the folded series stays (its comm's clients come
	 * and go) until its closed members are dropped, then goes after a scrape.
	 */
	for (i = 0; i < 20; i++) {
		fake_reset(&f);
		add_client(&f, "k#2", "x", 11, 2, 210, 0, 0, 0);
		add_client(&f, "k#4", "y", 13, 4, 410, 0, 0, 0);
		assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
		out = render(&s, DRMTOP_PROM_TEXT);
		drmtop_series_scraped(&s);
		/* Closed members are kept 16 samples; then one scrape sees it memberless. */
		if (i <= 16 || i >= 18)
			expect(out, "drmtop_client_open" CLIENT("x", "", "") "}", i <= 16 ? "0" : NULL);
		free(out);
	}
	drmtop_series_fini(&s);
}

/* Without scrapes, closed series are bounded (max_clients), device totals still right. */
static void test_unscraped_bound(void **state)
{
	static char keys[40][16];
	struct drmtop_series s;
	struct fake f;
	size_t i, shown = 0;
	char *out, *p;

	(void)state;
	drmtop_series_init(&s, 4, PER_CLIENT);
	for (i = 0; i < 40; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k#%zu", i + 1);
		fake_reset(&f);
		add_client(&f, keys[i], "short", (pid_t)(100 + i), i + 1, 10, 0, 0, 0);
		if (i)
			add_gone(&f, keys[i - 1]);
		assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	}
	out = render(&s, DRMTOP_PROM_TEXT);
	for (p = out; (p = strstr(p, "\ndrmtop_client_open{")); p++)
		shown++;
	assert_true(shown <= 5);
	expect(out, DEV_BUSY("fdinfo"), "0.000000400");
	free(out);
	drmtop_series_fini(&s);
}

/* Past the bound on hidden series, per-client ones are forgotten before folded ones. */
static void test_forget_order(void **state)
{
	static char keys[100][16], comms[100][16];
	struct drmtop_series s;
	struct fake f;
	size_t i;
	char *out;

	(void)state;
	drmtop_series_init(&s, 1, PER_CLIENT);
	fake_reset(&f);
	add_client(&f, "k#a", "keep", 10, 1, 100, 0, 0, 0);
	add_client(&f, "k#b", "fold", 11, 2, 200, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	for (i = 0; i < 100; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k#%zu", i + 10);
		snprintf(comms[i], sizeof(comms[i]), "x%zu", i);
		fake_reset(&f);
		add_client(&f, keys[i], comms[i], (pid_t)(100 + i), i + 10, 1, 0, 0, 0);
		assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
		drmtop_series_scraped(&s);
	}
	/*
	 * Some 85 hidden series without a member left (closed members are kept 16 samples),
	 * bound 4 x 1 + 64: the oldest per-client ones went.
	 */
	assert_true(s.forgotten_total > 0);
	fake_reset(&f);
	add_client(&f, "k#z", "z", 20, 500, 1, 0, 0, 0);
	add_client(&f, "k#c", "fold", 12, 3, 5, 0, 0, 0);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	/* The folded series was kept: it goes on from 200, not from 0. */
	expect(out, BUSY("fold", "", "", "fdinfo"), "0.000000205");
	free(out);
	drmtop_series_fini(&s);
}

/* The tracer's own counters: every one exported, monotonic even if the tracer starts over. */
static void test_bpf_counters(void **state)
{
	struct drmtop_model_counter cnt = { .name = "clients_full", .kind = DRMTOP_COUNTER_LOSS };
	struct drmtop_model_prog prog = { .name = "drm_ioctl" };
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, PER_CLIENT);
	fake_reset(&f);
	f.m.bpf_active = true;
	f.m.bpf_hooks_attached = 20;
	f.m.bpf_hooks = 22;
	f.m.counters = &cnt;
	f.m.nr_counters = 1;
	f.m.progs = &prog;
	f.m.nr_progs = 1;
	cnt.value = 3;
	prog.recursion_misses = 2;
	f.m.missed.since_start = 5;
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	cnt.value = 1;	/* the tracer's maps started over */
	prog.recursion_misses = 0;
	f.m.missed.since_start = 1;
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	cnt.value = 2;
	f.m.missed.since_start = 2;
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, "drmtop_bpf_events_total{counter=\"clients_full\",kind=\"loss\"}", "4");
	expect(out, "drmtop_bpf_prog_recursion_misses_total{prog=\"drm_ioctl\"}", "2");
	expect(out, "drmtop_bpf_missed_events_total", "6");
	expect(out, "drmtop_bpf_hooks_attached", "20");
	expect(out, "drmtop_bpf_hooks", "22");
	expect(out, "drmtop_bpf_tracer_active", "1");
	expect(out, "drmtop_samples_total", "3");
	free(out);
	drmtop_series_fini(&s);
}

/* The lines of @text that start with @prefix. */
static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, pl);
	return n;
}

/*
 * Both sources on: the plain family has one figure per client and engine (fdinfo's where the
 * driver prints one, the tracer's for a client only it saw), so summing it by comm counts each
 * job once; each source's own figures are in families of their own. Same for memory.
 */
static void test_best_once_per_engine(void **state)
{
	struct drmtop_model_region reg = { .name = "memory", .present = DRMTOP_MEM_TOTAL,
					   .total = 4096 };
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 100, 11, 90, 3);
	add_client(&f, "k#2", "a", 20, 2, 50, 12, 60, 2);
	f.clients[0].regions = &reg;
	f.clients[0].nr_regions = 1;
	f.bpf[0].mem_total = 4000;
	f.bpf[1].mem_total = 8192;
	add_closed_bpf(&f, 33, "c", 30, 3, 40, 2);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, COMM_BEST("a"), "0.000000150");
	expect(out, COMM_BEST("c"), "0.000000040");
	expect(out, "drmtop_fdinfo_client_engine_busy_seconds_total" COMM("a") ",engine=\"gfx\"}",
	       "0.000000150");
	expect(out, "drmtop_bpf_client_engine_busy_seconds_total" COMM("a") ",engine=\"gfx\"}",
	       "0.000000150");
	expect(out, "drmtop_client_jobs_total" COMM("a") ",engine=\"gfx\"}", "5");
	/* Every sample of the plain family is a distinct (comm, engine): sum by (comm) is right. */
	assert_int_equal(count_lines(out, "drmtop_client_engine_busy_seconds_total{"), 2);
	assert_null(strstr(out, "source=\""));
	assert_null(strstr(out, ",pid=\""));
	assert_null(strstr(out, ",client_id=\""));
	expect(out, DEV_BEST, "0.000000190");
	expect(out, DEV_BUSY("fdinfo"), "0.000000150");
	expect(out, DEV_BUSY("bpf"), "0.000000190");
	/* Memory: fdinfo's regions where it prints any, else the tracer's GEM bytes. */
	expect(out, "drmtop_client_memory_bytes" COMM("a") ",region=\"memory\"}", "4096");
	expect(out, "drmtop_client_memory_bytes" COMM("a") ",region=\"gem\"}", "8192");
	expect(out, "drmtop_bpf_client_memory_bytes" COMM("a") ",region=\"gem\"}", "12192");
	expect(out, "drmtop_fdinfo_client_memory_bytes" COMM("a") ",region=\"memory\"}", "4096");
	expect(out, "drmtop_device_memory_bytes{driver=\"simgpu\",device=\"pdev:0000:01:00.0\","
		    "region=\"memory\"}", "4096");
	expect(out, "drmtop_device_memory_bytes{driver=\"simgpu\",device=\"pdev:0000:01:00.0\","
		    "region=\"gem\"}", "8192");
	free(out);
	drmtop_series_fini(&s);
}

/*
 * By default the series follow the commands, not the clients: a thousand short-lived clients of
 * one command make one series whose counter keeps all their work and never goes back.
 */
static void test_default_bounded_churn(void **state)
{
	static char keys[1000][16];
	struct drmtop_series s;
	struct fake f;
	uint64_t last = 0;
	size_t i;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	for (i = 0; i < 1000; i++) {
		char want[32];
		uint64_t v;

		snprintf(keys[i], sizeof(keys[i]), "k#%zu", i + 1);
		fake_reset(&f);
		add_client(&f, "k#0", "steady", 1, 1000000, 7 * (i + 1), 0, 0, 0);
		add_client(&f, keys[i], "vainfo", (pid_t)(1000 + i), i + 1, 10, 0, 0, 0);
		if (i)
			add_gone(&f, keys[i - 1]);
		add_closed_bpf(&f, 5000 + i, "vainfo", (pid_t)(3000 + i), 5000 + i, 5, 1);
		assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
		if (i % 3)
			drmtop_series_scraped(&s);
		if (i % 97 && i != 999)
			continue;
		out = render(&s, DRMTOP_PROM_TEXT);
		drmtop_series_scraped(&s);
		assert_int_equal(count_lines(out, "drmtop_client_engine_busy_seconds_total{"), 2);
		assert_int_equal(count_lines(out, "drmtop_client_open{"), 2);
		v = strtoull(sample(out, COMM_BEST("vainfo")) + 2, NULL, 10);
		assert_true(v >= last);
		last = v;
		snprintf(want, sizeof(want), "0.%09zu", 15 * (i + 1));
		expect(out, COMM_BEST("vainfo"), want);
		free(out);
	}
	/* All kept: the series, the members of the last 16 samples, nothing per pid. */
	assert_true(s.nr_clients <= 2);
	assert_true(s.nr_trackers <= 40);
	drmtop_series_fini(&s);
}

/*
 * A short-lived client both sources follow: fdinfo's figure is its best, but fdinfo cannot be
 * read after the close, so what ran after its last read comes from the tracer's close records.
 */
static void test_best_close_tail(void **state)
{
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 100, 11, 95, 1);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	fake_reset(&f);
	add_gone(&f, "k#1");
	add_closed_bpf(&f, 11, "a", 10, 1, 130, 2);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	/* fdinfo's 100 and the tracer's 35 since the last sample */
	expect(out, COMM_BEST("a"), "0.000000135");
	expect(out, DEV_BEST, "0.000000135");
	expect(out, "drmtop_fdinfo_client_engine_busy_seconds_total" COMM("a") ",engine=\"gfx\"}",
	       "0.000000100");
	expect(out, "drmtop_bpf_client_engine_busy_seconds_total" COMM("a") ",engine=\"gfx\"}",
	       "0.000000130");
	free(out);
	/* A job running at close ends later: its further record adds to the best figure too. */
	fake_reset(&f);
	add_closed_bpf(&f, 11, "a", 10, 1, 7, 1);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, COMM_BEST("a"), "0.000000142");
	expect(out, DEV_BEST, "0.000000142");
	free(out);
	drmtop_series_fini(&s);
}

/*
 * The tracer's work on a ring the driver table does not map (engine "?") of a client fdinfo
 * times is in the driver's figures already: it is not a second best figure.
 */
static void test_best_unmapped_ring(void **state)
{
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	fake_reset(&f);
	add_client(&f, "k#1", "a", 10, 1, 100, 11, 70, 3);
	f.clients[0].nr_engines = 2;
	f.engines[0][1].name = "?";
	f.engines[0][1].in_bpf = true;
	f.engines[0][1].bpf.busy_ns = 30;
	f.engines[0][1].bpf.jobs = 1;
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	fake_reset(&f);
	add_gone(&f, "k#1");
	add_closed_bpf(&f, 11, "a", 10, 1, 70, 3);
	f.closed_engines[1].name = "?";	/* closed[0] is fdinfo's word */
	f.closed_engines[1].busy_ns = 40;
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, COMM_BEST("a"), "0.000000100");
	expect(out, "drmtop_client_engine_busy_seconds_total" COMM("a") ",engine=\"?\"}", NULL);
	expect(out, "drmtop_bpf_client_engine_busy_seconds_total" COMM("a") ",engine=\"?\"}",
	       "0.000000040");
	expect(out, DEV_BEST, "0.000000100");
	free(out);
	drmtop_series_fini(&s);
}

/*
 * A firmware-scheduled GPU names a scheduler per user queue ("rcs<GuC id>" on xe): the closed
 * clients' rings are counted under the engine the driver's table maps them to, as live clients'
 * are, two rings of one engine summed, so the series stay two however many queues came and went.
 */
static void test_closed_queue_names_bounded(void **state)
{
	static char rings[300][3][16];
	struct drmtop_series s;
	struct fake f;
	const char *line;
	size_t i;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	for (i = 0; i < 300; i++) {
		struct drmtop_model_closed *c;

		fake_reset(&f);
		add_closed_bpf(&f, 100 + i, "q", (pid_t)(200 + i), 100 + i, 5, 1);
		c = &f.closed[0];
		c->driver = c->bpf.driver = "xe";
		snprintf(rings[i][0], sizeof(rings[i][0]), "rcs%zu", 3 * i + 1);
		snprintf(rings[i][1], sizeof(rings[i][1]), "rcs%zu", 3 * i + 2);
		snprintf(rings[i][2], sizeof(rings[i][2]), "bcs%zu", 3 * i + 3);
		c->engines = f.closed_engines;
		c->nr_engines = 3;
		for (size_t k = 0; k < 3; k++) {
			struct drmtop_model_closed_engine *e = &f.closed_engines[k];

			e->name = rings[i][k];
			e->engine = k < 2 ? "rcs" : "bcs";
			e->busy_ns = k == 0 ? 5 : k == 1 ? 7 : 3;
			e->jobs = 1;
		}
		assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
		drmtop_series_scraped(&s);
	}
	out = render(&s, DRMTOP_PROM_TEXT);
	assert_int_equal(count_lines(out, "drmtop_client_engine_busy_seconds_total{"), 2);
	assert_int_equal(count_lines(out, "drmtop_device_engine_busy_seconds_total{"), 2);
	line = strstr(out, "comm=\"q\"" NO_WORKLOAD ",engine=\"rcs\"} ");
	assert_non_null(line);
	assert_string_equal(strtok(strchr(line, ' ') + 1, "\n"), "0.000003600");
	free(out);
	drmtop_series_fini(&s);
}

/* The driver's own jobs on two GPUs of one driver: a series per device, not one merged. */
static void test_kernel_clients_per_device(void **state)
{
	struct drmtop_series s;
	struct fake f;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	fake_reset(&f);
	add_kernel_client(&f, 1, 0, 100);
	add_kernel_client(&f, 2, 1, 300);
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, "drmtop_client_engine_busy_seconds_total{driver=\"simgpu\",device=\"simgpu@226:0\","
		    "comm=\"[kernel]\"" NO_WORKLOAD ",engine=\"gfx\"}", "0.000000100");
	expect(out, "drmtop_client_engine_busy_seconds_total{driver=\"simgpu\",device=\"simgpu@226:1\","
		    "comm=\"[kernel]\"" NO_WORKLOAD ",engine=\"gfx\"}", "0.000000300");
	free(out);
	drmtop_series_fini(&s);
}

/* ---- series by workload ---- */

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define ID_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define POD_1 "0f0e0d0c-1111-2222-3333-444455556666"
#define POD_2 "9a8b7c6d-aaaa-bbbb-cccc-ddddeeeeffff"
/* containerd in a burstable pod (systemd driver), Docker, a besteffort pod's (cgroupfs) */
#define CG_POD_1                                                                            \
	"/kubepods.slice/kubepods-burstable.slice/"                                          \
	"kubepods-burstable-pod0f0e0d0c_1111_2222_3333_444455556666.slice/cri-containerd-" ID_A \
	".scope"
#define CG_DOCKER "/system.slice/docker-" ID_B ".scope"
#define CG_POD_2 "/kubepods/besteffort/pod" POD_2 "/" ID_C
#define CG_UNIT "/system.slice/ollama.service"

#define WL(comm, workload, container, pod)                                                  \
	"{driver=\"simgpu\",device=\"pdev:0000:01:00.0\",comm=\"" comm "\",workload=\""      \
	workload "\",container_id=\"" container "\",pod_uid=\"" pod "\""
#define WL_POD_1(comm) WL(comm, "pod/" POD_1 "/aaaaaaaaaaaa", "containerd://" ID_A, POD_1)
#define WL_DOCKER(comm) WL(comm, "docker/bbbbbbbbbbbb", "docker://" ID_B, "")
#define WL_POD_2(comm) WL(comm, "pod/" POD_2 "/cccccccccccc", ID_C, POD_2)
#define WL_UNIT(comm) WL(comm, "ollama.service", "", "")
#define WL_BUSY(labels) "drmtop_client_engine_busy_seconds_total" labels ",engine=\"gfx\"}"

/* "S.NNNNNNNNN" as nanoseconds. */
static uint64_t seconds_ns(const char *v)
{
	unsigned long long sec = 0, ns = 0;

	assert_int_equal(sscanf(v, "%llu.%9llu", &sec, &ns), 2);
	return (uint64_t)sec * 1000000000u + ns;
}

/* sum by (label) of the best busy time: the samples whose label set holds @pair. */
static uint64_t busy_sum_by(const char *text, const char *pair)
{
	static const char fam[] = "drmtop_client_engine_busy_seconds_total{";
	const char *p;
	uint64_t sum = 0;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *end = strchr(p, '}');

		if (strncmp(p, fam, sizeof(fam) - 1) || !end)
			continue;
		if (memmem(p, (size_t)(end - p), pair, strlen(pair)))
			sum += seconds_ns(end + 2);
	}
	return sum;
}

/*
 * Clients in two pods' containers, a Docker container, a systemd service and a cgroup not
 * known: one series per (comm, workload), labelled so that sum by (container_id), by
 * (pod_uid) and by (workload) are exact, and container_id joins kube_pod_container_info's.
 */
static void test_workload_labels(void **state)
{
	struct drmtop_model_region reg[6];
	struct drmtop_series s;
	struct fake f;
	size_t i;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	fake_reset(&f);
	add_client(&f, "k#1", "infer", 10, 1, 1000, 0, 0, 0);
	set_cgroup(&f, 0, CG_POD_1);
	add_client(&f, "k#2", "helper", 11, 2, 200, 0, 0, 0);
	set_cgroup(&f, 1, CG_POD_1);
	add_client(&f, "k#3", "infer", 12, 3, 30, 0, 0, 0);
	set_cgroup(&f, 2, CG_DOCKER);
	add_client(&f, "k#4", "infer", 13, 4, 4, 0, 0, 0);
	set_cgroup(&f, 3, CG_POD_2);
	add_client(&f, "k#5", "infer", 14, 5, 50000, 0, 0, 0);
	set_cgroup(&f, 4, CG_UNIT);
	add_client(&f, "k#6", "infer", 15, 6, 600000, 0, 0, 0);
	for (i = 0; i < 6; i++) {
		reg[i] = (struct drmtop_model_region){ .name = "vram", .present = DRMTOP_MEM_TOTAL,
						       .total = 4096u << i };
		f.clients[i].regions = &reg[i];
		f.clients[i].nr_regions = 1;
	}
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	expect(out, WL_BUSY(WL_POD_1("infer")), "0.000001000");
	expect(out, WL_BUSY(WL_POD_1("helper")), "0.000000200");
	expect(out, WL_BUSY(WL_DOCKER("infer")), "0.000000030");
	expect(out, WL_BUSY(WL_POD_2("infer")), "0.000000004");
	expect(out, WL_BUSY(WL_UNIT("infer")), "0.000050000");
	expect(out, WL_BUSY(WL("infer", "", "", "")), "0.000600000");
	expect(out, "drmtop_client_memory_bytes" WL_POD_1("helper") ",region=\"vram\"}", "8192");
	expect(out, "drmtop_client_memory_bytes" WL_DOCKER("infer") ",region=\"vram\"}", "16384");
	expect(out, "drmtop_client_open" WL_POD_2("infer") "}", "1");
	assert_int_equal(count_lines(out, "drmtop_client_engine_busy_seconds_total{"), 6);
	assert_int_equal(busy_sum_by(out, "container_id=\"containerd://" ID_A "\""), 1200);
	assert_int_equal(busy_sum_by(out, "pod_uid=\"" POD_1 "\""), 1200);
	assert_int_equal(busy_sum_by(out, "pod_uid=\"" POD_2 "\""), 4);
	assert_int_equal(busy_sum_by(out, "container_id=\"docker://" ID_B "\""), 30);
	assert_int_equal(busy_sum_by(out, "workload=\"ollama.service\""), 50000);
	/* Outside containers: container_id="" and pod_uid="" */
	assert_int_equal(busy_sum_by(out, "container_id=\"\""), 650000);
	assert_int_equal(busy_sum_by(out, "pod_uid=\"\""), 650030);
	free(out);
	drmtop_series_fini(&s);
}

/*
 * A client that opened and closed between two samples, known only from the tracer's close
 * record: its work goes to the series of the workload its opener's cgroup names, not to one
 * without a workload.
 */
static void test_closed_between_samples_keeps_workload(void **state)
{
	struct drmtop_cgroup_name n;
	struct drmtop_series s;
	char wl[256], *out;
	struct fake f;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	fake_reset(&f);
	add_closed_bpf(&f, 77, "infer", 40, 7, 900, 3);
	drmtop_cgroup_name_parse(CG_DOCKER, &n);
	f.closed[0].cgroup = (struct drmtop_model_cgroup){
		.path = CG_DOCKER,
		.workload = drmtop_cgroup_workload(&n, CG_DOCKER, wl, sizeof(wl)),
		.runtime = drmtop_runtime_name(n.runtime),
		.container = n.container,
	};
	assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
	out = render(&s, DRMTOP_PROM_TEXT);
	assert_int_equal(busy_sum_by(out, "workload=\"docker/bbbbbbbbbbbb\""), 900);
	assert_int_equal(busy_sum_by(out, "container_id=\"docker://" ID_B "\""), 900);
	assert_int_equal(busy_sum_by(out, "workload=\"\""), 0);
	free(out);
	drmtop_series_fini(&s);
}

/*
 * 2,000 short-lived clients of one command in one container, beside a long-lived one in
 * another: the series count stays flat, each container's sum is exact after every sample and
 * no counter goes back, also when the long-lived client closes (its series is then shown with
 * its final figure while closed members are kept, 16 samples, then hidden).
 */
static void test_workload_churn(void **state)
{
	static char keys[2000][16];
	struct drmtop_series s;
	uint64_t want_b = 0, last_a = 0, last_b = 0, a, b;
	struct fake f;
	size_t i, k, n = 0;
	bool shown;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	for (i = 0; i < 400; i++) {
		fake_reset(&f);
		/* client 0 closes at sample 300: its work stays */
		if (i < 300) {
			add_client(&f, "k#0", "infer", 10, 1, 1000 * (i + 1), 0, 0, 0);
			set_cgroup(&f, 0, CG_POD_1);
		}
		for (k = 0; k < 5; k++, n++) {
			snprintf(keys[n], sizeof(keys[n]), "p#%zu", n);
			add_client(&f, keys[n], "probe", (pid_t)(1000 + n), n + 2, n + 1, 0, 0, 0);
			set_cgroup(&f, f.m.nr_clients - 1, CG_DOCKER);
			want_b += n + 1;
		}
		assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
		out = render(&s, DRMTOP_PROM_TEXT);
		drmtop_series_scraped(&s);
		shown = sample(out, "drmtop_client_open" WL_POD_1("infer") "}") != NULL;
		assert_true(shown || i >= 300 + 16);
		assert_int_equal(count_lines(out, "drmtop_client_engine_busy_seconds_total{"),
				 1 + shown);
		assert_int_equal(count_lines(out, "drmtop_client_open{"), 1 + shown);
		a = busy_sum_by(out, "container_id=\"containerd://" ID_A "\"");
		b = busy_sum_by(out, "container_id=\"docker://" ID_B "\"");
		assert_int_equal(b, want_b);
		assert_true(b >= last_b);
		if (shown) {
			assert_int_equal(a, 1000 * (i < 300 ? i + 1 : 300));
			assert_true(a >= last_a);
			expect(out, "drmtop_client_open" WL_POD_1("infer") "}", i < 300 ? "1" : "0");
		}
		last_a = a;
		last_b = b;
		free(out);
	}
	assert_int_equal(n, 2000);
	assert_true(s.nr_clients <= 2);
	drmtop_series_fini(&s);
}

/* container_id as kube-state-metrics spells it: runtime://id, bare id when unknown, "". */
static void test_container_id_spelling(void **state)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
		{ CG_POD_1, "containerd://" ID_A },
		{ "/kubepods.slice/kubepods-pod" "0f0e0d0c_1111_2222_3333_444455556666.slice/crio-" ID_A
		  ".scope", "cri-o://" ID_A },
		{ CG_DOCKER, "docker://" ID_B },
		{ "/docker/" ID_B, "docker://" ID_B },
		{ "/machine.slice/libpod-" ID_C ".scope", "podman://" ID_C },
		{ CG_POD_2, ID_C },
		{ CG_UNIT, "" },
		{ "/", "" },
	};
	char buf[DRMTOP_SERIES_CONTAINER_ID_MAX];
	struct fake f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_reset(&f);
		add_client(&f, "k#1", "x", 1, 1, 1, 0, 0, 0);
		set_cgroup(&f, 0, cases[i].path);
		assert_string_equal(drmtop_series_container_id(&f.clients[0].cgroup, buf,
							       sizeof(buf)), cases[i].want);
	}
	assert_string_equal(drmtop_series_container_id(NULL, buf, sizeof(buf)), "");
}

/*
 * The model's finding that a client's driver and tracer figures disagree, per device: the
 * clients flagged in the last sample, 0 once they agree again.
 */
static void test_device_diverged(void **state)
{
	static const char *const gauge =
		"drmtop_device_clients_diverged{driver=\"simgpu\",device=\"pdev:0000:01:00.0\"}";
	struct drmtop_model_device dev = { .key = "pdev:0000:01:00.0", .driver = "simgpu",
					   .nr_clients = 3 };
	struct drmtop_series s;
	struct fake f;
	size_t i;
	char *out;

	(void)state;
	drmtop_series_init(&s, 10, DRMTOP_SERIES_LABELS_DEFAULT);
	for (i = 0; i < 3; i++) {
		fake_reset(&f);
		add_client(&f, "k#1", "a", 10, 1, 100 * (i + 1), 11, 50 * (i + 1), 1);
		add_client(&f, "k#2", "a", 20, 2, 100 * (i + 1), 12, 100 * (i + 1), 1);
		add_client(&f, "k#3", "b", 30, 3, 100 * (i + 1), 13, 10 * (i + 1), 1);
		f.clients[0].diverged = i < 2;
		f.clients[2].diverged = i < 1;
		f.m.devices = &dev;
		f.m.nr_devices = 1;
		assert_int_equal(drmtop_series_update(&s, &f.m, 0), 0);
		out = render(&s, DRMTOP_PROM_TEXT);
		expect(out, gauge, i == 0 ? "2" : i == 1 ? "1" : "0");
		free(out);
	}
	drmtop_series_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_sanitize),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_comm_in_output),
		cmocka_unit_test(test_negotiation),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_churn_monotonic),
		cmocka_unit_test(test_late_final),
		cmocka_unit_test(test_missed_sample),
		cmocka_unit_test(test_cardinality_folding),
		cmocka_unit_test(test_unscraped_bound),
		cmocka_unit_test(test_bpf_counters),
		cmocka_unit_test(test_forget_order),
		cmocka_unit_test(test_best_once_per_engine),
		cmocka_unit_test(test_best_close_tail),
		cmocka_unit_test(test_best_unmapped_ring),
		cmocka_unit_test(test_default_bounded_churn),
		cmocka_unit_test(test_kernel_clients_per_device),
		cmocka_unit_test(test_closed_queue_names_bounded),
		cmocka_unit_test(test_workload_labels),
		cmocka_unit_test(test_workload_churn),
		cmocka_unit_test(test_closed_between_samples_keeps_workload),
		cmocka_unit_test(test_container_id_spelling),
		cmocka_unit_test(test_device_diverged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
