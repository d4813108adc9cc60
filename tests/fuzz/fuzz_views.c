// SPDX-License-Identifier: GPL-2.0-only
/*
 * The output views on a model built from fuzzed clients. The input is split at form feeds:
 *
 *   <settings>\f<client>\f<client>...
 *
 * settings: byte 0 holds flags (bit 0 the tracer is active, bit 1 the last client is also gone,
 * bit 2 a -p filter, bit 3 the clients are new), byte 1 the interval in units of 10 ms, and the
 * rest is a note and the tracer's reason. A client is "<comm>\n<cmdline>\n<fdinfo>": comm and
 * cmdline arbitrary bytes, fdinfo parsed by the real parser; its previous sample is the same
 * counters halved, so rates exist. With the tracer on, each client with a client id gets a BPF
 * twin named by the same bytes, and the tracer also sees a client of its own and a closed one.
 *
 * The JSON frame must be one strictly valid JSON line. The text frame and every line of every
 * sort order must be safe on a terminal: no control character but the newline ending a line,
 * well-formed UTF-8, no C1 control (U+0080..U+009F). The same for drmtop record's summaries of
 * two samples of the model.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "drmtop/model_build.h"
#include "drmtop/record.h"
#include "drmtop/views.h"
#include "fake_clients.h"
#include "json_check.h"

#define MAX_CLIENTS 8
#define MS 1000000ull

struct fuzz_client {
	struct drm_client c;
	struct drm_client_holder holders[2];
	char key[64], dev_key[96];
	struct fake_bpf bpf[2];		/* [0] live twin, [1] a ring per engine beyond */
};

static void fail(const char *what, const char *text, size_t len, size_t at)
{
	fprintf(stderr, "%s at byte %zu of %zu:\n%.*s\n", what, at, len,
		(int)(len > 4000 ? 4000 : len), text);
	abort();
}

/* What a terminal may safely be given: printable UTF-8 and newlines (@nl_ok) only. */
static void check_terminal_safe(const char *text, size_t len, bool nl_ok)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, l;

	while (i < len) {
		if (s[i] == '\n' && nl_ok) {
			i++;
			continue;
		}
		if (s[i] < 0x20 || s[i] == 0x7f)
			fail("control character in text output", text, len, i);
		l = utf8_wellformed(s + i, len - i);
		if (!l)
			fail("ill-formed UTF-8 in text output", text, len, i);
		if (l == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)
			fail("C1 control in text output", text, len, i);
		i += l;
	}
}

static void check_line(void *ctx, enum drmtop_line_kind kind, const char *text)
{
	(void)ctx;
	(void)kind;
	check_terminal_safe(text, strlen(text), false);
}

static char *render(drmtop_frame_fn fn, const struct drmtop_model *m, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	if (!out || fn(out, m))
		abort();
	fclose(out);
	return text;
}

/* Split at the first '\n' (or the end): a NUL-terminated copy of the part before it. */
static char *take_line(const char **p, const char *end, size_t *len)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memcpy(s, *p, n);
	s[n] = '\0';
	*p += n + (nl ? 1 : 0);
	*len = n;
	return s;
}

static void half_counters(struct drm_fdinfo_engine *prev, const struct drm_fdinfo_engine *e)
{
	*prev = *e;
	prev->busy_ns /= 2;
	prev->cycles /= 2;
	prev->total_cycles /= 2;
}

static void setup_client(struct fuzz_client *fc, size_t k, const char *text, size_t len,
			 uint64_t dt_ns, bool is_new)
{
	const char *p = text, *end = text + len;
	struct drm_client *c = &fc->c;
	size_t n, i;
	char *comm;

	memset(fc, 0, sizeof(*fc));
	comm = take_line(&p, end, &n);
	memcpy(c->comm, comm, n < sizeof(c->comm) - 1 ? n : sizeof(c->comm) - 1);
	free(comm);
	c->cmdline = take_line(&p, end, &n);
	drm_fdinfo_init(&c->info);
	if (drm_fdinfo_parse(&c->info, p, (size_t)(end - p)))
		abort();
	/* Identity the way the scanner makes it (proc_scan.h): device from drm-pdev if printed. */
	if (c->info.pdev)
		snprintf(fc->dev_key, sizeof(fc->dev_key), "pdev:%s", c->info.pdev);
	else
		snprintf(fc->dev_key, sizeof(fc->dev_key), "%s@226:%zu",
			 c->info.driver ? c->info.driver : "?", 128 + k % 3);
	if (c->info.present & DRM_FDINFO_HAS_CLIENT_ID)
		snprintf(fc->key, sizeof(fc->key), "%s#%llu", fc->dev_key,
			 (unsigned long long)c->info.client_id);
	else
		snprintf(fc->key, sizeof(fc->key), "226:%zu#%zu/3", 128 + k % 3, 100 + k);
	c->key = fc->key;
	c->dev_key = fc->dev_key;
	c->rdev = makedev(k % 4 == 3 ? 261 : 226, 128 + k % 3);
	c->accel = k % 4 == 3;
	c->pid = (pid_t)(100 + k);
	c->fd = 3;
	fc->holders[0].pid = c->pid;
	fc->holders[0].fd = 3;
	fc->holders[1].pid = (pid_t)(200 + k);
	fc->holders[1].fd = (int)k;
	c->holders = fc->holders;
	c->nr_holders = 1 + k % 2;
	c->sample_ns = 10000 * MS;
	c->is_new = is_new;
	c->dt_ns = is_new ? 0 : dt_ns;
	if (is_new || !c->info.nr_engines)
		return;
	c->usage = calloc(c->info.nr_engines, sizeof(*c->usage));
	c->tracks = calloc(c->info.nr_engines, sizeof(*c->tracks));
	if (!c->usage || !c->tracks)
		abort();
	c->nr_tracks = c->info.nr_engines;
	for (i = 0; i < c->info.nr_engines; i++) {
		struct drm_fdinfo_engine prev;

		half_counters(&prev, &c->info.engines[i]);
		if (drm_engine_track_init(&c->tracks[i], &prev))
			abort();
		drm_engine_usage_update(&c->tracks[i], &c->info.engines[i], dt_ns, 0,
					&c->usage[i]);
	}
}

static void free_client(struct fuzz_client *fc)
{
	size_t i;

	for (i = 0; i < fc->c.nr_tracks; i++)
		drm_engine_track_free(&fc->c.tracks[i]);
	free(fc->c.tracks);
	free(fc->c.usage);
	free(fc->c.cmdline);
	drm_fdinfo_free(&fc->c.info);
}

/* The tracer's twin of @fc: same client id, the raw bytes of its comm and driver. */
static void setup_twin(struct fake_bpf *b, const struct fuzz_client *fc, size_t k,
		       uint64_t busy_ns)
{
	const struct drm_fdinfo *fi = &fc->c.info;
	size_t i;

	fake_bpf_init(b, 1 + k, 0x1000 * (1 + k), fi->client_id, 4096 * k);
	b->bc.c.tgid = (uint32_t)fc->c.pid;
	b->bc.c.dev_minor = (uint32_t)(128 + k % 3);
	memcpy(b->bc.c.comm, fc->c.comm, sizeof(b->bc.c.comm));
	if (fi->driver)
		strncpy(b->bc.c.driver, fi->driver, sizeof(b->bc.c.driver));
	for (i = 0; i < fi->nr_engines && i < 2; i++) {
		fake_ring(b, 0x100 + i, "", busy_ns * (i + 1), busy_ns / MS);
		strncpy(b->eng[i].name, fi->engines[i].name, sizeof(b->eng[i].name));
	}
}

/* drmtop record over two samples of the model: its text and JSON summaries. */
static void run_record(const struct drmtop_model *m)
{
	struct record_session rs = { .start_ns = 1000 * MS };
	const char *why = NULL;
	char *text = NULL;
	size_t len = 0, at;
	FILE *out;

	if (record_session_add(&rs, m, 2000 * MS) || record_session_add(&rs, m, 3000 * MS))
		abort();
	out = open_memstream(&text, &len);
	if (!out || record_session_print_text(&rs, m, out))
		abort();
	fclose(out);
	check_terminal_safe(text, len, true);
	free(text);
	text = NULL;
	out = open_memstream(&text, &len);
	if (!out || record_session_print_json(&rs, m, out))
		abort();
	fclose(out);
	if (!len || text[len - 1] != '\n' || memchr(text, '\n', len - 1))
		fail("record JSON is not one line", text, len, 0);
	if (json_check(text, len - 1, true, &why, &at))
		fail(why, text, len, at);
	free(text);
	record_session_free(&rs);
}

static void run_views(const struct drmtop_model *m)
{
	char *text;
	size_t len, at;
	const char *why = NULL;
	int sort;

	text = render(drmtop_json_frame, m, &len);
	if (!len || text[len - 1] != '\n' || memchr(text, '\n', len - 1))
		fail("JSON frame is not one line", text, len, 0);
	if (json_check(text, len - 1, true, &why, &at))
		fail(why, text, len, at);
	free(text);
	text = render(drmtop_text_frame, m, &len);
	check_terminal_safe(text, len, true);
	free(text);
	for (sort = 0; sort < DRMTOP_SORT_COUNT; sort++) {
		drmtop_render_lines(m, (enum drmtop_sort)sort, false, check_line, NULL);
		drmtop_render_lines(m, (enum drmtop_sort)sort, true, check_line, NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *ff;
	static struct fuzz_client fc[MAX_CLIENTS];
	struct drm_client clients[MAX_CLIENTS];
	struct drmtop_bpf_client live[MAX_CLIENTS + 2], closed[1];
	struct fake_bpf own, kern, gone_bpf, twins[MAX_CLIENTS];
	struct drmtop_bpf_snapshot snap;
	struct drmtop_reconciler *rec = NULL;
	struct drmtop_model m = { 0 };
	struct drm_scan_stats stats = { .pids = 3, .malformed_lines = 1 };
	size_t nr = 0, nr_live = 0, i, settings_len;
	const char *notes[1];
	char *settings;
	uint8_t flags = 0;
	uint64_t dt_ns = 0;
	pid_t want = 101;
	int round;
	struct drmtop_model_input in = { .realtime_ns = 1700000000ull * 1000 * MS,
					 .mono_ns = 10000 * MS, .device_nodes = 2,
					 .diverge_pct = 5.0, .stats = &stats };

	ff = memchr(p, '\f', size);
	settings = take_line(&p, ff ? ff : end, &settings_len);
	p = ff ? ff + 1 : end;
	if (settings_len > 0)
		flags = (uint8_t)settings[0];
	if (settings_len > 1)
		dt_ns = (uint64_t)(uint8_t)settings[1] * 10 * MS;
	notes[0] = settings_len > 2 ? settings + 2 : "";
	while (p < end && nr < MAX_CLIENTS) {
		ff = memchr(p, '\f', (size_t)(end - p));
		setup_client(&fc[nr], nr, p, (size_t)((ff ? ff : end) - p), dt_ns, flags & 8);
		clients[nr] = fc[nr].c;
		nr++;
		p = ff ? ff + 1 : end;
	}
	in.clients = clients;
	in.nr_clients = nr;
	in.interval_ns = dt_ns;
	in.notes = notes;
	in.nr_notes = 1;
	in.bpf_reason = notes[0];
	if (flags & 2 && nr) {
		in.gone = &clients[nr - 1];
		in.nr_gone = 1;
	}
	if (flags & 4) {
		in.pids = &want;
		in.nr_pids = 1;
	}
	if (flags & 1) {
		rec = drmtop_reconciler_new();
		if (!rec)
			abort();
		/* Two snapshots, so the tracer has rates too. */
		for (round = 1; round <= 2; round++) {
			nr_live = 0;
			for (i = 0; i < nr; i++) {
				if (!(clients[i].info.present & DRM_FDINFO_HAS_CLIENT_ID))
					continue;
				setup_twin(&twins[i], &fc[i], i, (uint64_t)round * 300 * MS);
				live[nr_live++] = twins[i].bc;
			}
			fake_bpf_init(&own, 100, 0x100000, 0, 0);
			memcpy(own.bc.c.comm, settings, settings_len < 16 ? settings_len : 16);
			memcpy(own.bc.c.driver, settings, settings_len < 32 ? settings_len : 32);
			own.bc.c.tgid = 101;
			fake_ring(&own, 0x900, "", (uint64_t)round * 100 * MS, round);
			memcpy(own.eng[0].name, notes[0], strnlen(notes[0], 32));
			live[nr_live++] = own.bc;
			fake_bpf_init(&kern, 101, 0x200000, 0, 0);
			kern.bc.c.flags = DRMTOP_CLIENT_KERNEL;
			live[nr_live++] = kern.bc;
			fake_bpf_init(&gone_bpf, 102, 0x300000, 7, 8192);
			memcpy(gone_bpf.bc.c.comm, settings, settings_len < 16 ? settings_len : 16);
			gone_bpf.bc.c.tgid = 101;
			fake_ring(&gone_bpf, 0x901, "", 5 * MS, 3);
			memcpy(gone_bpf.eng[0].name, notes[0], strnlen(notes[0], 32));
			closed[0] = gone_bpf.bc;
			fake_snap(&snap, live, nr_live, (uint64_t)round * 1000 * MS);
			snap.closed = closed;
			snap.n_closed = round == 2;
			if (drmtop_reconcile(rec, &snap, clients, nr))
				abort();
		}
		in.bpf_active = true;
		in.snap = &snap;
		in.rec = rec;
	}
	if (drmtop_model_build(&m, &in))
		abort();
	run_views(&m);
	run_record(&m);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(rec);
	for (i = 0; i < nr; i++)
		free_client(&fc[i]);
	free(settings);
	return 0;
}
