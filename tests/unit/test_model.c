// SPDX-License-Identifier: GPL-2.0-only
/* The model: -p everywhere, derived figures, the windowed cross-check, notes in the views. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drmtop/model_build.h"
#include "drmtop/sysfs_device.h"
#include "drmtop/views.h"
#include "fake_clients.h"
#include "fake_proc.h"

#define S 1000000000ull

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

static void identity(struct fake_fdinfo *f, const char *key, const char *comm)
{
	f->c.key = (char *)key;
	f->c.dev_key = "simgpu@226:128";
	f->c.info.driver = "simgpu";
	snprintf(f->c.comm, sizeof(f->c.comm), "%s", comm);
}

/*
 * -p 10 keeps pid 10's client and nothing of pid 20: not its fdinfo client, not its share of the
 * device totals, not its tracer-only client, not its close records, and no kernel client. Before
 * the model, the BPF-only and closed sections, the device totals and record ignored -p.
 */
static void test_pid_filter_everywhere(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct drmtop_bpf_client live[3], closed[1];
	struct drmtop_bpf_snapshot snap;
	struct fake_bpf b1, b3, b4, b5;
	struct fake_fdinfo a, b;
	struct drm_client both[2], gone[1];
	struct drmtop_model m = { 0 };
	pid_t want = 10;
	char *text, *json;
	struct drmtop_model_input in = {
		.bpf_active = true, .bpf_reason = "attached", .snap = &snap, .rec = r,
		.pids = &want, .nr_pids = 1, .diverge_pct = 5.0,
	};

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 30.0, 1000, 10, 3);
	identity(&a, "kA", "alpha");
	fake_fdinfo_init(&b, 2, "gfx", 60.0, 5000, 20, 3);
	identity(&b, "kB", "betaproc");
	both[0] = a.c;
	both[1] = b.c;
	gone[0] = b.c;
	gone[0].key = "kGone";
	fake_bpf_init(&b1, 1, 0x1000, 1, 1000);
	b1.bc.c.tgid = 10;
	fake_bpf_init(&b3, 3, 0x3000, 3, 100);
	b3.bc.c.tgid = 20;
	snprintf(b3.bc.c.comm, sizeof(b3.bc.c.comm), "betaproc");
	fake_bpf_init(&b4, 4, 0x4000, 0, 0);
	b4.bc.c.flags = DRMTOP_CLIENT_KERNEL;
	fake_bpf_init(&b5, 5, 0x5000, 5, 100);
	b5.bc.c.tgid = 20;
	snprintf(b5.bc.c.comm, sizeof(b5.bc.c.comm), "betaproc");
	live[0] = b1.bc;
	live[1] = b3.bc;
	live[2] = b4.bc;
	closed[0] = b5.bc;
	fake_snap(&snap, live, 3, S);
	snap.closed = closed;
	snap.n_closed = 1;
	in.clients = both;
	in.nr_clients = 2;
	in.gone = gone;
	in.nr_gone = 1;
	assert_int_equal(drmtop_reconcile(r, &snap, both, 2), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);

	assert_true(m.filtered);
	assert_int_equal(m.nr_clients, 1);
	assert_int_equal(m.nr_fdinfo_clients, 1);
	assert_string_equal(m.clients[0].key, "kA");
	assert_int_equal(m.nr_closed, 0);
	assert_int_equal(m.nr_devices, 1);
	assert_int_equal(m.devices[0].nr_clients, 1);
	assert_true(m.devices[0].engines[0].valid);
	assert_true(m.devices[0].engines[0].pct > 29.9 && m.devices[0].engines[0].pct < 30.1);
	assert_int_equal(m.devices[0].mem_total, 1000);

	text = render(drmtop_text_frame, &m);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(text, "alpha"));
	assert_null(strstr(text, "betaproc"));
	assert_null(strstr(text, "[kernel]"));
	assert_null(strstr(json, "betaproc"));
	assert_null(strstr(json, "kGone"));
	assert_non_null(strstr(json, "\"filtered\":true"));
	free(text);
	free(json);

	/* A client whose close record was lost is still listed, as an orphan, with its jobs. */
	in.nr_pids = 0;
	snap.orphans = &b5.bc;
	snap.n_orphans = 1;
	snap.n_closed = 0;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_closed, 2);
	assert_true(m.closed[1].from_bpf && m.closed[1].orphan);
	text = render(drmtop_text_frame, &m);
	assert_non_null(strstr(text, "closed (bpf, close record lost): 20 betaproc"));
	free(text);
	snap.orphans = NULL;
	snap.n_orphans = 0;
	snap.n_closed = 1;

	/* Without -p everything is there. */
	in.nr_pids = 0;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_fdinfo_clients, 2);
	assert_int_equal(m.nr_clients, 4);	/* + tracer-only pid 20 and the kernel client */
	assert_int_equal(m.nr_closed, 2);
	assert_int_equal(m.devices[0].mem_total, 6000);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(r);
}

/*
 * Rates over windows that do not coincide: the unshared part of the windows explains up to its
 * share of the span; beyond that plus the threshold the sources disagree.
 */
static void test_divergence_windows(void **state)
{
	(void)state;
	/* Same window: 10 points apart is over a 5-point threshold, 4 is not. */
	assert_true(drmtop_rates_diverge(50, 0, S, 60, 0, S, 5));
	assert_false(drmtop_rates_diverge(50, 0, S, 54, 0, S, 5));
	/* Windows 50 ms apart at each end: 10 points of slack, so 12 apart is no divergence... */
	assert_false(drmtop_rates_diverge(50, 0, S, 62, S / 20, S + S / 20, 5));
	/* ...but 20 apart still is. */
	assert_true(drmtop_rates_diverge(50, 0, S, 70, S / 20, S + S / 20, 5));
	/* No span, no verdict. */
	assert_false(drmtop_rates_diverge(0, S, S, 100, S, S, 5));
}

/* What the sampler says reaches the text and JSON views. */
static void test_notes_reach_views(void **state)
{
	const char *notes[] = { "reading the BPF maps failed: No space left on device" };
	struct drmtop_model_input in = { .notes = notes, .nr_notes = 1, .bpf_reason = "not root" };
	struct drmtop_model m = { 0 };
	char *text, *json;

	(void)state;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.status, DRMTOP_STATUS_NO_DEVICE);
	text = render(drmtop_text_frame, &m);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(text, "note: reading the BPF maps failed"));
	assert_non_null(strstr(json, "\"notes\":[\"reading the BPF maps failed"));
	free(text);
	free(json);
	drmtop_model_fini(&m);
}

/* Memory is "total, else resident", summed once in the model; sort keys follow. */
static void test_derived_memory_and_sort(void **state)
{
	struct drmtop_model_input in = { .diverge_pct = 5.0 };
	struct drmtop_model m = { 0 };
	struct fake_fdinfo a, b;
	struct drm_client both[2];

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 10.0, 1000, 10, 3);
	identity(&a, "kA", "zeta");
	fake_fdinfo_init(&b, 2, "gfx", 70.0, 0, 20, 3);
	identity(&b, "kB", "alpha");
	/* B prints only resident (drm-memory-*), 4096 bytes. */
	b.reg.present = DRM_REGION_HAS_RESIDENT;
	b.reg.resident = 4096;
	both[0] = a.c;
	both[1] = b.c;
	in.clients = both;
	in.nr_clients = 2;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.clients[1].mem_total, 4096);
	assert_true(m.clients[1].has_mem);
	assert_true(drmtop_model_cmp(&m.clients[0], &m.clients[1], DRMTOP_SORT_BUSY, false) > 0);
	assert_true(drmtop_model_cmp(&m.clients[0], &m.clients[1], DRMTOP_SORT_MEMORY, false) > 0);
	assert_true(drmtop_model_cmp(&m.clients[0], &m.clients[1], DRMTOP_SORT_NAME, false) > 0);
	assert_true(drmtop_model_cmp(&m.clients[0], &m.clients[1], DRMTOP_SORT_NAME, true) < 0);
	assert_true(drmtop_model_cmp(&m.clients[0], &m.clients[1], DRMTOP_SORT_PID, false) < 0);
	drmtop_model_fini(&m);
}

/* Per-client memory sums saturate like the device sums: u64-max regions do not wrap to 0. */
static void test_client_memory_saturates(void **state)
{
	struct drmtop_model_input in = { .diverge_pct = 5.0 };
	struct drm_fdinfo_region reg[2];
	struct drmtop_model m = { 0 };
	struct fake_fdinfo a;

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 10.0, 0, 10, 3);
	identity(&a, "kA", "big");
	memset(reg, 0, sizeof(reg));
	reg[0].name = "vram";
	reg[1].name = "gtt";
	reg[0].present = reg[1].present = DRM_REGION_HAS_RESIDENT | DRM_REGION_HAS_SHARED;
	reg[0].resident = reg[1].resident = UINT64_MAX;
	reg[0].shared = reg[1].shared = UINT64_MAX - 1;
	a.c.info.regions = reg;
	a.c.info.nr_regions = 2;
	in.clients = &a.c;
	in.nr_clients = 1;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_true(m.clients[0].mem_resident == UINT64_MAX);
	assert_true(m.clients[0].mem_shared == UINT64_MAX);
	assert_true(m.clients[0].mem_total == UINT64_MAX);
	drmtop_model_fini(&m);
}

/*
 * Absent is not zero: a 7.x client with no buffer that reports a status prints drm-total-* but
 * no drm-resident-*; its resident figure is "-" in text and null in JSON (it was "0 B"), and
 * the tracer's memory is still compared against the total it did print.
 */
static void test_absent_is_not_zero(void **state)
{
	struct drmtop_model_input in = { .diverge_pct = 5.0 };
	struct drmtop_model m = { 0 };
	struct fake_fdinfo a;
	char *text, *json;

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 10.0, 8192, 10, 3);
	identity(&a, "kA", "alpha");
	a.reg.present = DRM_REGION_HAS_TOTAL;
	in.clients = &a.c;
	in.nr_clients = 1;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_true(m.clients[0].has_mem);
	assert_false(m.clients[0].has_resident);
	assert_false(m.clients[0].has_shared);
	text = render(drmtop_text_frame, &m);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(text, "8.0 KiB          -          -"));
	assert_non_null(strstr(json, "\"total_bytes\":8192,\"shared_bytes\":null,"
				     "\"resident_bytes\":null"));
	free(text);
	free(json);
	drmtop_model_fini(&m);
}

/* One matched client whose driver says 75 % while the tracer measured 50 % over 1 s. */
struct lossy {
	struct drmtop_reconciler *r;
	struct drmtop_bpf_snapshot snap;
	struct fake_fdinfo fi;
	struct fake_bpf b;
	struct drmtop_model_input in;
};

/*
 * One simgpu client seen by both sources, key "k7" and command @comm: fdinfo's gfx at @pct and
 * @total bytes, the tracer's @bpf_total bytes and (with @ring) a gfx ring; nothing sampled yet.
 */
static void lossy_init(struct lossy *l, const char *comm, double pct, uint64_t total,
		       uint64_t bpf_total, bool ring)
{
	l->r = drmtop_reconciler_new();
	fake_fdinfo_init(&l->fi, 7, "gfx", pct, total, 100, 3);
	identity(&l->fi, "k7", comm);
	fake_bpf_init(&l->b, 3, 0x2000, 7, bpf_total);
	if (ring)
		fake_ring(&l->b, 0xa000, "gfx", 0, 0);
	fake_snap(&l->snap, &l->b.bc, 1, S);
	l->in = (struct drmtop_model_input){
		.clients = &l->fi.c, .nr_clients = 1, .bpf_active = true, .snap = &l->snap,
		.rec = l->r, .diverge_pct = 5.0,
	};
}

static void lossy_step(struct lossy *l, struct drmtop_model *m)
{
	__u64 start, end;

	assert_int_equal(drmtop_reconcile(l->r, &l->snap, &l->fi.c, 1), 0);
	drmtop_reconcile_window(l->r, &start, &end);
	l->fi.c.sample_ns = end;
	l->fi.c.dt_ns = end - start;
	assert_int_equal(drmtop_model_build(m, &l->in), 0);
}

/*
 * What the tracer missed: counted since start and per interval (recursion misses of its
 * programs included); while it misses events its figures are lower bounds and a disagreement
 * with fdinfo is inconclusive, not the driver's misreport.
 */
static void test_losses_make_figures_lower_bounds(void **state)
{
	struct drmtop_bpf_prog_stat progs[1] = { { .name = "drmtop_queue_btf_617" } };
	struct drmtop_bpf_prog_stat prev[1];
	__u64 prev_counters[DRMTOP_CNT_MAX];
	struct drmtop_model m = { 0 };
	static struct lossy l;
	char *text, *json;

	(void)state;
	lossy_init(&l, "liar", 75.0, 0, 0, true);
	l.in.progs = progs;
	l.in.nr_progs = 1;
	/* First refresh: 3 jobs lost to a full map and 2 skipped runs since attach. */
	l.snap.counters[DRMTOP_CNT_JOBS_FULL] = 3;
	progs[0].recursion_misses = 2;
	lossy_step(&l, &m);
	assert_int_equal(m.missed.since_start, 5);
	assert_int_equal(m.missed.interval, 5);
	assert_int_equal(m.missed.skipped_runs, 2);

	/* A quiet interval: the misreport is flagged, nothing is a lower bound. */
	memcpy(prev_counters, l.snap.counters, sizeof(prev_counters));
	prev[0] = progs[0];
	l.in.prev_counters = prev_counters;
	l.in.prev_progs = prev;
	l.in.nr_prev_progs = 1;
	l.b.eng[0].busy_ns = S / 2;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.missed.since_start, 5);
	assert_int_equal(m.missed.interval, 0);
	assert_true(m.clients[0].engines[0].diverged);
	assert_false(m.clients[0].engines[0].inconclusive);
	assert_false(m.clients[0].lower_bound);
	text = render(drmtop_text_frame, &m);
	assert_non_null(strstr(text, "bpf missed: 5 events since start, 0 in the last interval"));
	assert_non_null(strstr(text, "[DIVERGES]"));
	free(text);

	/* One skipped run in the next interval: inconclusive, and a lower bound. */
	prev[0] = progs[0];
	progs[0].recursion_misses = 3;
	l.b.eng[0].busy_ns = S;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.missed.interval, 1);
	assert_int_equal(m.progs[0].misses_delta, 1);
	assert_false(m.clients[0].engines[0].diverged);
	assert_true(m.clients[0].engines[0].inconclusive);
	assert_true(m.clients[0].lower_bound);
	text = render(drmtop_text_frame, &m);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(text, "bpf missed: 6 events since start, 1 in the last interval"));
	assert_non_null(strstr(text, "[INCONCLUSIVE"));
	assert_non_null(strstr(text, "[lower bound"));
	assert_null(strstr(text, "[DIVERGES]"));
	assert_non_null(strstr(json, "\"missed\":{\"since_start\":6,\"interval\":1,"));
	assert_non_null(strstr(json, "\"lower_bound\":true"));
	free(text);
	free(json);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/* What reading the tracer's maps cost this refresh reaches the JSON (make bench reads it there). */
static void test_snapshot_cost_in_json(void **state)
{
	struct drmtop_model m = { 0 };
	static struct lossy l;
	char *json;

	(void)state;
	lossy_init(&l, "cost", 50.0, 0, 0, true);
	l.snap.read_ns = 1234567;
	lossy_step(&l, &m);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(json, "\"snapshot_ns\":1234567"));
	free(json);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/*
 * An engine with two execution units (drm-engine-capacity-gfx: 2) busy 1.5 s in 1 s: fdinfo
 * says 75 %, and so must the tracer, whose busy time is summed over the units too; 150 % would
 * be flagged as a divergence.
 */
static void test_bpf_rate_divided_by_capacity(void **state)
{
	struct drmtop_model m = { 0 };
	static struct lossy l;
	char *json;

	(void)state;
	lossy_init(&l, "lanes", 75.0, 0, 0, true);
	l.fi.eng[0].present |= DRM_ENGINE_HAS_CAPACITY;
	l.fi.eng[0].capacity = 2;
	l.fi.usage[0].capacity = 2;
	lossy_step(&l, &m);
	l.b.eng[0].busy_ns = 3 * S / 2;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_true(m.clients[0].engines[0].bpf.has_rate);
	assert_int_equal(m.clients[0].engines[0].bpf.busy_delta_ns, 3 * S / 2);
	assert_float_equal(m.clients[0].engines[0].bpf.pct, 75.0, 0.001);
	assert_false(m.clients[0].engines[0].diverged);
	json = render(drmtop_json_frame, &m);
	assert_null(strstr(json, "\"busy_pct\":150.00"));
	free(json);

	/*
	 * The start bracket is per capacity too: 1.8 s busy (90 %) with 0.2 s of it bracketed
	 * (10 %) against fdinfo's 70 % is 10 points apart; the undivided 20 % would hide it.
	 */
	l.fi.usage[0].busy_pct = 70.0;
	l.b.eng[0].busy_ns += 9 * S / 5;
	l.b.eng[0].start_slack_ns += S / 5;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_float_equal(m.clients[0].engines[0].bpf.pct, 90.0, 0.001);
	assert_float_equal(m.clients[0].engines[0].bpf.start_slack_pct, 10.0, 0.001);
	assert_true(m.clients[0].engines[0].diverged);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/*
 * The tracer's busy time is known only to within its start bracket (a scheduler thread preempted
 * between the run event and the driver's run_job, reported as start_slack_ns): a tracer figure
 * above fdinfo's by no more than that is no finding against the driver, one above it beyond the
 * bracket is, and the bracket never excuses a driver that counts more than the tracer.
 */
static void test_start_bracket_is_not_divergence(void **state)
{
	struct drmtop_model m = { 0 };
	static struct lossy l;
	char *json;

	(void)state;
	lossy_init(&l, "honest", 40.0, 0, 0, true);
	lossy_step(&l, &m);

	/* 50 % by the tracer, 8 points of it before the driver's start may be: agreement. */
	l.b.eng[0].busy_ns = S / 2;
	l.b.eng[0].start_slack_ns = S * 8 / 100;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_false(m.clients[0].engines[0].diverged);
	assert_false(m.clients[0].engines[0].inconclusive);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(json, "\"start_slack_pct\":8.00"));
	free(json);

	/* 50 % again with 1 point of bracket: 9 points over fdinfo's 40 is a finding. */
	l.b.eng[0].busy_ns += S / 2;
	l.b.eng[0].start_slack_ns += S / 100;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_true(m.clients[0].engines[0].diverged);

	/* fdinfo 75 %, the tracer 50 % with a 20-point bracket: the bracket only lowers. */
	l.fi.usage[0].busy_pct = 75.0;
	l.b.eng[0].busy_ns += S / 2;
	l.b.eng[0].start_slack_ns += S / 5;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_true(m.clients[0].engines[0].diverged);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/*
 * A client whose buffers a full map refused holds more than the tracer says for as long as it
 * lives: a lower bound in every interval, quiet ones too, and its memory disagreeing with
 * fdinfo is no finding against the driver.
 */
static void test_client_missed_is_lasting_lower_bound(void **state)
{
	struct drmtop_model m = { 0 };
	static struct lossy l;
	char *json;

	(void)state;
	lossy_init(&l, "small", 0.0, 640 << 10, 256 << 10, false);
	/* nothing missed: 256 KiB against fdinfo's 640 KiB is the driver's word against ours */
	lossy_step(&l, &m);
	assert_true(m.clients[0].bpf->mem_diverged);
	assert_true(m.clients[0].diverged);
	assert_false(m.clients[0].lower_bound);

	/* six of its handles refused by a full map, long ago: no loss in this interval */
	l.b.bc.c.missed = 6;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.missed.interval, 0);
	assert_false(m.clients[0].bpf->mem_diverged);
	assert_false(m.clients[0].diverged);
	assert_true(m.clients[0].inconclusive);
	assert_true(m.clients[0].lower_bound);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(json, "\"lower_bound\":true,\"missed\":6"));
	free(json);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/*
 * xe prints cycles against total cycles (GPU timestamp ticks: a share of time) and no ns: that
 * figure is compared with the tracer's all the same. Its rings are occupancy (VM case 81: queues
 * waiting in firmware), so occupancy above execution is no finding and execution above
 * occupancy is one.
 */
static void test_ticks_compared_with_occupancy(void **state)
{
	struct drmtop_model m = { 0 };
	static struct lossy l;

	(void)state;
	lossy_init(&l, "xe-client", 50.0, 0, 0, false);
	l.fi.c.info.driver = "xe";
	l.fi.eng[0].name = "rcs";
	l.fi.eng[0].present = DRM_ENGINE_HAS_CYCLES | DRM_ENGINE_HAS_TOTAL_CYCLES;
	l.fi.usage[0].flags = DRM_USAGE_CYCLES_VALID | DRM_USAGE_BY_TOTAL;
	l.fi.usage[0].cycles_pct = 50.0;
	fake_ring(&l.b, 0xa000, "rcs7", 0, 0);
	lossy_step(&l, &m);

	/* the tracer 100 %, the driver 50 %: another queue had the engine half the time */
	l.b.eng[0].busy_ns = S;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.clients[0].nr_engines, 1);
	assert_true(m.clients[0].engines[0].occupancy);
	assert_false(m.clients[0].engines[0].unmapped);
	assert_false(m.clients[0].engines[0].diverged);

	/* 40 % held against 75 % executed: the driver counts time its queue did not hold */
	l.fi.usage[0].cycles_pct = 75.0;
	l.b.eng[0].busy_ns += S * 4 / 10;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_true(m.clients[0].engines[0].diverged);
	assert_true(m.clients[0].diverged);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/*
 * gpu_mem_total, where the kernel has it: a process's reports over its GPUs beside the tracer's
 * GEM figure, in JSON and text; the GPU's global total (pid 0) and other processes' reports in
 * JSON's bpf.gpu_mem, and -p keeps only the reports of its processes. Where it is not traced,
 * JSON says so and no client has a figure (absent, not 0).
 */
static void test_gpu_mem_total(void **state)
{
	struct drmtop_bpf_gpu_mem reports[] = {
		{ .gpu_id = 0, .pid = 100, .bytes = 3 << 20 },
		{ .gpu_id = 1, .pid = 100, .bytes = 1 << 20 },
		{ .gpu_id = 0, .pid = 0, .bytes = 64 << 20 },
		{ .gpu_id = 0, .pid = 200, .bytes = 8192 },
	};
	struct drmtop_model m = { 0 };
	static struct lossy l;
	pid_t only = 100;
	char *text, *json;

	(void)state;
	lossy_init(&l, "mesa", 10.0, 4 << 20, 4 << 20, false);
	lossy_step(&l, &m);
	assert_false(m.gpu_mem_traced);
	assert_false(m.clients[0].has_gpu_mem);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(json, "\"gpu_mem\":{\"traced\":false,\"totals\":[]}"));
	assert_null(strstr(json, "gpu_mem_total_bytes"));
	free(json);

	l.snap.gpu_mem_traced = true;
	l.snap.gpu_mem = reports;
	l.snap.n_gpu_mem = 4;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_true(m.clients[0].has_gpu_mem);
	assert_int_equal(m.clients[0].gpu_mem_bytes, 4 << 20);
	assert_int_equal(m.nr_gpu_mem, 4);
	json = render(drmtop_json_frame, &m);
	text = render(drmtop_text_frame, &m);
	assert_non_null(strstr(json, "\"gpu_mem_total_bytes\":4194304"));
	assert_non_null(strstr(json, "{\"gpu_id\":0,\"pid\":0,\"bytes\":67108864}"));
	assert_non_null(strstr(text, "gpu_mem_total 4.0 MiB"));
	free(json);
	free(text);

	l.in.pids = &only;
	l.in.nr_pids = 1;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.nr_gpu_mem, 2);
	assert_int_equal(m.gpu_mem[0].pid, 100);
	assert_int_equal(m.gpu_mem[1].pid, 100);
	assert_int_equal(m.clients[0].gpu_mem_bytes, 4 << 20);

	/*
	 * drmtop in a pid namespace of its own: the reports' pids are the kernel's, and pid 100
	 * here is not the process the driver meant. Only the GPU totals are kept.
	 */
	l.in.nr_pids = 0;
	l.snap.gpu_mem_foreign_pids = true;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.nr_gpu_mem, 1);
	assert_int_equal(m.gpu_mem[0].pid, 0);
	assert_false(m.clients[0].has_gpu_mem);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/*
 * A driver that prints no fdinfo keys (virtio-gpu on 6.1: VM case 85) leaves the client's and
 * its device's driver to the tracer, which reads the name the DRM core would print; a driver
 * that prints one keeps its own word.
 */
static void test_driver_from_tracer_without_fdinfo(void **state)
{
	struct drmtop_model m = { 0 };
	static struct lossy l;

	(void)state;
	lossy_init(&l, "modetest", 0.0, 0, 4096000, false);
	l.fi.c.info.nr_regions = 0;
	l.fi.c.info.driver = NULL;
	snprintf(l.b.bc.c.driver, sizeof(l.b.bc.c.driver), "virtio_gpu");
	lossy_step(&l, &m);
	assert_non_null(m.clients[0].bpf);
	assert_string_equal(m.clients[0].driver, "virtio_gpu");
	assert_int_equal(m.nr_devices, 1);
	assert_string_equal(m.devices[0].driver, "virtio_gpu");
	l.fi.c.info.driver = "simgpu";
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_string_equal(m.clients[0].driver, "simgpu");
	assert_string_equal(m.devices[0].driver, "simgpu");
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/*
 * Skipped runs the tracer made up for (a job made from its run event per skipped queue event)
 * or that feed nothing it uses on this kernel (ioctl entry where jobs carry client ids) are
 * shown but not missed: the figures stay exact and a misreport is still flagged. Skips beyond
 * what was made up for in the same interval are missed again.
 */
static void test_covered_skips_are_not_missed(void **state)
{
	struct drmtop_bpf_prog_stat progs[3] = {
		{ .name = "drmtop_queue_btf_617", .skip_cost = DRMTOP_SKIP_MADE_UP,
		  .made_up_by = DRMTOP_CNT_JOB_FROM_RUN, .made_up_also = DRMTOP_CNT_JOB_FROM_DONE },
		{ .name = "drmtop_ioctl_enter", .skip_cost = DRMTOP_SKIP_HARMLESS },
		{ .name = "drmtop_done_btf_617", .skip_cost = DRMTOP_SKIP_LOST },
	};
	struct drmtop_bpf_prog_stat prev[3];
	__u64 prev_counters[DRMTOP_CNT_MAX];
	struct drmtop_model m = { 0 };
	static struct lossy l;
	char *text;

	(void)state;
	lossy_init(&l, "liar", 75.0, 0, 0, true);
	l.in.progs = progs;
	l.in.nr_progs = 3;
	lossy_step(&l, &m);

	/* 4 queue runs skipped, 4 jobs made from their run event; 10 ioctl entries skipped. */
	memcpy(prev_counters, l.snap.counters, sizeof(prev_counters));
	memcpy(prev, progs, sizeof(prev));
	l.in.prev_counters = prev_counters;
	l.in.prev_progs = prev;
	l.in.nr_prev_progs = 3;
	progs[0].recursion_misses = 4;
	l.snap.counters[DRMTOP_CNT_JOB_FROM_RUN] = 4;
	progs[1].recursion_misses = 10;
	l.b.eng[0].busy_ns = S / 2;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.missed.since_start, 0);
	assert_int_equal(m.missed.interval, 0);
	assert_int_equal(m.missed.skipped_runs, 14);
	assert_int_equal(m.missed.skipped_runs_covered, 14);
	assert_true(m.clients[0].engines[0].diverged);
	assert_false(m.clients[0].lower_bound);
	text = render(drmtop_text_frame, &m);
	assert_non_null(strstr(text, "bpf missed: 0 events since start, 0 in the last interval"));
	assert_non_null(strstr(text, "skipped program runs 14 (14), 14 of them made up for"));
	free(text);

	/*
	 * 4 more queue runs skipped, 1 job made from its run event and 1 from its done event (its
	 * run lost too); a done run skipped: 3 missed.
	 */
	memcpy(prev_counters, l.snap.counters, sizeof(prev_counters));
	memcpy(prev, progs, sizeof(prev));
	progs[0].recursion_misses = 8;
	l.snap.counters[DRMTOP_CNT_JOB_FROM_RUN] = 5;
	l.snap.counters[DRMTOP_CNT_JOB_FROM_DONE] = 1;
	progs[2].recursion_misses = 1;
	l.b.eng[0].busy_ns = S;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.missed.interval, 3);
	assert_int_equal(m.missed.since_start, 3);
	assert_int_equal(m.missed.skipped_runs_covered, 16);
	assert_true(m.clients[0].engines[0].inconclusive);
	assert_true(m.clients[0].lower_bound);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/*
 * Memory is a running sum of GEM events: one missed long ago may leave a client's figure wrong
 * until it closes, so a memory difference stays inconclusive after any such loss since start,
 * not only in the interval it happened in. Engine rates, measured per interval, are flagged
 * again once an interval is clean.
 */
static void test_memory_losses_stay_inconclusive(void **state)
{
	struct drmtop_bpf_prog_stat progs[1] = {
		{ .name = "drmtop_handle_create", .memory = true },
	};
	struct drmtop_bpf_prog_stat prev[1];
	__u64 prev_counters[DRMTOP_CNT_MAX];
	struct drmtop_model m = { 0 };
	static struct lossy l;

	(void)state;
	/* fdinfo: 8 MiB; the tracer missed the handle: 0 */
	lossy_init(&l, "liar", 75.0, 8 << 20, 0, true);
	l.in.progs = progs;
	l.in.nr_progs = 1;
	progs[0].recursion_misses = 1;
	lossy_step(&l, &m);
	assert_int_equal(m.missed.memory_since_start, 1);

	/* A clean interval: the rate misreport is flagged, the memory difference is not. */
	memcpy(prev_counters, l.snap.counters, sizeof(prev_counters));
	prev[0] = progs[0];
	l.in.prev_counters = prev_counters;
	l.in.prev_progs = prev;
	l.in.nr_prev_progs = 1;
	l.b.eng[0].busy_ns = S / 2;
	l.snap.taken_ns += S;
	lossy_step(&l, &m);
	assert_int_equal(m.missed.interval, 0);
	assert_true(m.clients[0].engines[0].diverged);
	assert_non_null(m.clients[0].bpf);
	assert_true(m.clients[0].bpf->mem_compared);
	assert_false(m.clients[0].bpf->mem_diverged);
	assert_true(m.clients[0].bpf->mem_inconclusive);
	assert_true(m.clients[0].inconclusive);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(l.r);
}

/* Every counter that means a lost or misattributed event reaches the "missed" total. */
static void test_every_loss_counter_counts(void **state)
{
	static const unsigned int losses[] = {
		DRMTOP_CNT_CLIENTS_FULL, DRMTOP_CNT_ENGINES_FULL, DRMTOP_CNT_RINGS_FULL,
		DRMTOP_CNT_JOBS_FULL, DRMTOP_CNT_HANDLES_FULL, DRMTOP_CNT_OBJECTS_FULL,
		DRMTOP_CNT_DEVICES_FULL, DRMTOP_CNT_TASKS_FULL, DRMTOP_CNT_RINGBUF_FULL,
		DRMTOP_CNT_DONE_WITHOUT_RUN,
		DRMTOP_CNT_ENDED_WITHOUT_DONE, DRMTOP_CNT_JOB_CLIENT_UNKNOWN,
		DRMTOP_CNT_ENTITIES_FULL, DRMTOP_CNT_ENTITY_GUESSED, DRMTOP_CNT_ADOPT_TRUNCATED,
		DRMTOP_CNT_MEM_UNDERFLOW, DRMTOP_CNT_ORPHAN_ENGINES, DRMTOP_CNT_GPU_MEM_FULL,
		DRMTOP_CNT_OBJECTS_STALE,
		DRMTOP_CNT_JOBS_AGED_OUT, DRMTOP_CNT_IDLE_UNSETTLED, DRMTOP_CNT_CAS_GAVE_UP,
	};
	struct drmtop_bpf_snapshot snap;
	struct drmtop_model m = { 0 };
	struct drmtop_model_input in = { .bpf_active = true, .snap = &snap };
	size_t i, k;

	(void)state;
	for (i = 0; i < DRMTOP_CNT_MAX; i++) {
		bool loss = false;

		for (k = 0; k < sizeof(losses) / sizeof(losses[0]); k++)
			loss |= losses[k] == i;
		fake_snap(&snap, NULL, 0, S);
		snap.counters[i] = 4;
		assert_int_equal(drmtop_model_build(&m, &in), 0);
		assert_int_equal(m.counters[i].kind == DRMTOP_COUNTER_LOSS, loss);
		assert_int_equal(m.missed.interval, loss ? 4 : 0);
	}
	drmtop_model_fini(&m);
}

/* Device engine "render" over @n clients of 1 s intervals ending at @end_ms, busy @busy_ms. */
static bool device_over(size_t n, const double *end_ms, const double *busy_ms, double slack_ms)
{
	struct drmtop_model_input in = { .diverge_pct = 5.0 };
	struct drmtop_model m = { 0 };
	static char *const keys[] = { "k1", "k2" };
	struct fake_fdinfo f[2];
	struct drm_client c[2];
	bool over;
	size_t i;

	for (i = 0; i < n; i++) {
		fake_fdinfo_init(&f[i], i + 1, "render", busy_ms[i] / 10.0, 0, 10 + (pid_t)i, 3);
		f[i].c.key = keys[i];
		f[i].c.dev_key = "pdev:0000:00:02.0";
		f[i].c.sample_ns = (uint64_t)(end_ms[i] * 1e6);
		f[i].c.dt_ns = 1000000000;
		f[i].c.dt_slack_ns = (uint64_t)(slack_ms * 1e6);
		f[i].usage[0].busy_delta_ns = (uint64_t)(busy_ms[i] * 1e6);
		c[i] = f[i].c;
	}
	in.clients = c;
	in.nr_clients = n;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_devices, 1);
	assert_true(m.devices[0].engines[0].valid);
	over = m.devices[0].engines[0].over;
	drmtop_model_fini(&m);
	return over;
}

/*
 * A saturated engine's device total read 100.07-100.58 % and was flagged over 100 % in half the
 * frames. Each client's interval runs from its previous read to its last (the slack: the
 * previous read's length) and clients are read one after another: what the engine could have
 * run is the whole span their intervals cover, and only busy time beyond it is an over-report.
 */
/*
 * The figure a column shows: fdinfo's where it has a rate; the tracer's where fdinfo has no such
 * engine, and where it prints the engine with no time at all (panthor 7.x with its profiling
 * off prints drm-maxfreq-panthor and drm-curfreq-panthor only): that column said "..." for
 * ever (case 80 on 7.2).
 */
static void test_shown_figure_where_fdinfo_has_no_time(void **state)
{
	struct drmtop_model_engine e = { .name = "panthor", .in_fdinfo = true, .in_bpf = true };
	double pct = -1;

	(void)state;
	e.fd.flags = DRMTOP_FD_MAXFREQ;
	e.bpf.has_rate = true;
	e.bpf.pct = 42.0;
	assert_true(drmtop_model_engine_pct(&e, &pct));
	assert_true(pct == 42.0);
	/* with a time counter but no rate yet (its first sample): not the tracer's, "..." */
	e.fd.flags = DRMTOP_FD_MAXFREQ | DRMTOP_FD_CYCLES;
	assert_false(drmtop_model_engine_pct(&e, &pct));
	e.fd.flags |= DRMTOP_FD_RATE;
	e.fd.pct = 40.0;
	assert_true(drmtop_model_engine_pct(&e, &pct));
	assert_true(pct == 40.0);
	/* no such engine in fdinfo */
	e.in_fdinfo = false;
	e.fd.flags = 0;
	assert_true(drmtop_model_engine_pct(&e, &pct));
	assert_true(pct == 42.0);
}

static void test_device_over_allows_for_timing(void **state)
{
	(void)state;
	/* One client, 1 s measured after a 5 ms read: 100.5 % is timing, 103 % is not. */
	assert_false(device_over(1, (double[]){ 2000 }, (double[]){ 1005 }, 5));
	assert_true(device_over(1, (double[]){ 2000 }, (double[]){ 1030 }, 5));
	/* Two clients read 10 ms apart sharing a saturated engine: 51 + 50 % over 1.01 s. */
	assert_false(device_over(2, (double[]){ 2000, 2010 }, (double[]){ 510, 500 }, 0));
	/* ... but 53 + 50 % is 20 ms more than the 1.01 s they cover, though neither is over. */
	assert_true(device_over(2, (double[]){ 2000, 2010 }, (double[]){ 530, 500 }, 0));
}

/*
 * Device totals: engine figures and regions summed per device over the clients, in the model
 * (the scan used to build a second copy of these).
 */
static void test_device_totals(void **state)
{
	static const char *const text[] = {
		"drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 1\n"
		"drm-engine-render: 0 ns\ndrm-resident-system: 4 KiB\ndrm-total-system: 8 KiB\n",
		"drm-driver: i915\ndrm-pdev: 0000:00:02.0\ndrm-client-id: 2\n"
		"drm-engine-render: 0 ns\ndrm-engine-copy: 0 ns\ndrm-resident-system: 1 KiB\n",
		"drm-driver: v3d\ndrm-client-id: 3\ndrm-engine-bin: 0 ns\n"
		"drm-total-memory: 18446744073709551615\n",
		"drm-driver: v3d\ndrm-client-id: 4\ndrm-total-memory: 1\n",
	};
	/* busy per client engine, in % of the 1000 ns interval; -1: no figure (new client) */
	static const double pct[][2] = { { 60, 0 }, { 50, 10 }, { -1, 0 }, { 0, 0 } };
	static char *const keys[] = { "k1", "k2", "k3", "k4" };
	struct drmtop_model_input in = { .diverge_pct = 5.0 };
	struct drmtop_model m = { 0 };
	struct drmtop_model_device *d;
	struct drm_client c[4];
	size_t i, j;

	(void)state;
	memset(c, 0, sizeof(c));
	for (i = 0; i < 4; i++) {
		drm_fdinfo_init(&c[i].info);
		assert_int_equal(drm_fdinfo_parse(&c[i].info, text[i], strlen(text[i])), 0);
		c[i].dev_key = i < 2 ? "pdev:0000:00:02.0" : "v3d@226:128";
		c[i].key = keys[i];
		c[i].usage = calloc(4, sizeof(*c[i].usage));
		assert_non_null(c[i].usage);
		for (j = 0; j < c[i].info.nr_engines; j++) {
			if (pct[i][j] < 0)
				continue;
			c[i].usage[j].flags = DRM_USAGE_BUSY_VALID;
			c[i].usage[j].busy_pct = pct[i][j];
		}
	}
	in.clients = c;
	in.nr_clients = 4;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_devices, 2);
	d = m.devices;

	assert_string_equal(d[0].key, "pdev:0000:00:02.0");
	assert_string_equal(d[0].driver, "i915");
	assert_string_equal(d[0].pdev, "0000:00:02.0");
	assert_int_equal(d[0].nr_clients, 2);
	assert_int_equal(d[0].nr_engines, 2);
	assert_string_equal(d[0].engines[0].name, "render");
	assert_true(fabs(d[0].engines[0].pct - 110.0) < 1e-9);	/* 60 + 50: over, flagged */
	assert_true(d[0].engines[0].over);
	assert_true(d[0].engines[0].valid);
	assert_int_equal(d[0].engines[0].nr_clients, 2);
	assert_string_equal(d[0].engines[1].name, "copy");
	assert_true(fabs(d[0].engines[1].pct - 10.0) < 1e-9);
	assert_false(d[0].engines[1].over);
	assert_int_equal(d[0].nr_regions, 1);
	assert_int_equal(d[0].regions[0].resident, 5120);
	assert_int_equal(d[0].regions[0].total, 8192);
	assert_int_equal(d[0].regions[0].present, DRMTOP_MEM_RESIDENT | DRMTOP_MEM_TOTAL);

	assert_string_equal(d[1].key, "v3d@226:128");
	assert_null(d[1].pdev);
	assert_int_equal(d[1].nr_clients, 2);
	assert_int_equal(d[1].nr_engines, 1);
	assert_false(d[1].engines[0].valid);	/* only a new client: no figure */
	assert_int_equal(d[1].engines[0].nr_clients, 0);
	/* u64 max + 1 saturates instead of wrapping to 0 */
	assert_true(d[1].regions[0].total == UINT64_MAX);

	drmtop_model_fini(&m);
	for (i = 0; i < 4; i++) {
		drm_fdinfo_free(&c[i].info);
		free(c[i].usage);
	}
}

/*
 * A client of a process outside drmtop's pid namespace: the tracer gives tgid 0 (no pid there).
 * It is listed with pid 0, its owner is not read from <proc root>/0 or any other entry, and
 * -p never selects it; a client of pid 10 inside is matched as usual.
 */
static void test_client_outside_pid_namespace(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct drmtop_bpf_client live[2];
	struct drmtop_bpf_snapshot snap;
	struct drmtop_model m = { 0 };
	struct fake_bpf in_ns, out_ns;
	struct fake_fdinfo a;
	pid_t want = 10;
	char root[] = "/tmp/drmtop-pidns-XXXXXX", dir[64];
	struct drmtop_model_input in = {
		.bpf_active = true, .bpf_reason = "attached", .snap = &snap, .rec = r,
		.diverge_pct = 5.0, .proc_root = root,
	};

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/0", root);	/* a trap: no process has pid 0 */
	assert_int_equal(mkdir(dir, 0755), 0);
	fake_fdinfo_init(&a, 1, "gfx", 30.0, 1000, 10, 3);
	identity(&a, "kA", "inside");
	fake_bpf_init(&in_ns, 1, 0x1000, 1, 1000);
	in_ns.bc.c.tgid = 10;
	fake_bpf_init(&out_ns, 2, 0x2000, 2, 100);
	out_ns.bc.c.tgid = 0;
	snprintf(out_ns.bc.c.comm, sizeof(out_ns.bc.c.comm), "outside");
	live[0] = in_ns.bc;
	live[1] = out_ns.bc;
	fake_snap(&snap, live, 2, S);
	in.clients = &a.c;
	in.nr_clients = 1;
	assert_int_equal(drmtop_reconcile(r, &snap, &a.c, 1), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_clients, 2);
	assert_non_null(m.clients[0].bpf);		/* the inside one, matched */
	assert_int_equal(m.clients[0].pid, 10);
	assert_string_equal(m.clients[1].comm, "outside");
	assert_int_equal(m.clients[1].pid, 0);
	assert_false(m.clients[1].has_uid);

	in.pids = &want;
	in.nr_pids = 1;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_clients, 1);
	assert_string_equal(m.clients[0].key, "kA");
	drmtop_model_fini(&m);
	drmtop_reconciler_free(r);
	rmdir(dir);
	rmdir(root);
}

/*
 * A client opened between the scan and the tracer's snapshot is the tracer's alone for one
 * refresh; the exporter fixes its labels there. Its device is named from its node as the
 * scan names fdinfo's, not left to be guessed from other clients (which once named simgpu's
 * clients after vgem's device); so is a closed one's.
 */
/* The scan's node keys, as the sampler hands them on: from the fake sysfs in @sys. */
static const char *sysfs_node_key(void *sys, dev_t rdev)
{
	static char *last;

	free(last);
	last = drm_sysfs_device_key(sys, rdev);
	return last;
}

static void test_tracer_only_device_named_from_node(void **state)
{
	struct drmtop_bpf_client live[1], closed[1];
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct fake_proc *fp = fp_new();
	struct drmtop_bpf_snapshot snap;
	struct drmtop_model m = { 0 };
	struct fake_bpf b, gone;
	struct drmtop_model_input in = {
		.bpf_active = true, .bpf_reason = "attached", .snap = &snap, .rec = r,
		.diverge_pct = 5.0, .node_key = sysfs_node_key, .node_key_ctx = fp->sys,
		.each_closed = true,
	};

	(void)state;
	fp_sys_node(fp, 226, 128, "platform/vgem");
	fp_sys_node(fp, 226, 129, "platform/simgpu");
	fake_bpf_init(&b, 1, 0x1000, 12192, 3145728);
	b.bc.c.dev_minor = 129;
	fake_bpf_init(&gone, 2, 0x2000, 12191, 0);
	gone.bc.c.dev_minor = 129;
	live[0] = b.bc;
	closed[0] = gone.bc;
	fake_snap(&snap, live, 1, S);
	snap.closed = closed;
	snap.n_closed = 1;
	assert_int_equal(drmtop_reconcile(r, &snap, NULL, 0), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_clients, 1);
	assert_string_equal(m.clients[0].dev_key, "sys:platform/simgpu");
	assert_int_equal(m.nr_closed, 1);
	assert_string_equal(m.closed[0].dev_key, "sys:platform/simgpu");
	assert_int_equal(m.nr_idle_closed, 1);
	assert_string_equal(m.idle_closed[0].dev_key, "sys:platform/simgpu");

	/* A node sysfs does not know (the device went): no name rather than a guess. */
	live[0].c.dev_minor = 130;
	assert_int_equal(drmtop_reconcile(r, &snap, NULL, 0), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_null(m.clients[0].dev_key);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(r);
	fp_free(fp);
}

/*
 * Engine columns, built once in the model for the text and live views: a device's fdinfo
 * engines, then a ring only the tracer times once it ran a job (none for a ring without one);
 * the one table's columns add a tracer-only client's rings. The text view prints the device's.
 */
static void test_engine_columns(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct drmtop_bpf_client live[2];
	struct drmtop_bpf_snapshot snap;
	struct drmtop_model m = { 0 };
	struct fake_bpf matched, alone;
	struct fake_fdinfo a;
	char *text;
	struct drmtop_model_input in = {
		.bpf_active = true, .bpf_reason = "attached", .snap = &snap, .rec = r,
		.diverge_pct = 5.0,
	};

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 30.0, 1000, 10, 3);
	identity(&a, "kA", "alpha");
	fake_bpf_init(&matched, 1, 0x1000, 1, 1000);
	matched.bc.c.tgid = 10;
	fake_ring(&matched, 0xa000, "gfx", 1000, 2);
	fake_ring(&matched, 0xb000, "blit", 1000, 3);
	fake_ring(&matched, 0xc000, "idle", 0, 0);
	fake_bpf_init(&alone, 2, 0x2000, 2, 100);
	alone.bc.c.tgid = 20;
	fake_ring(&alone, 0xd000, "video", 500, 1);
	live[0] = matched.bc;
	live[1] = alone.bc;
	fake_snap(&snap, live, 2, S);
	in.clients = &a.c;
	in.nr_clients = 1;
	assert_int_equal(drmtop_reconcile(r, &snap, &a.c, 1), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);

	assert_int_equal(m.nr_devices, 1);
	assert_int_equal(m.devices[0].nr_columns, 2);
	assert_string_equal(m.devices[0].columns[0], "gfx");
	assert_string_equal(m.devices[0].columns[1], "blit");
	assert_int_equal(m.nr_columns, 3);
	assert_string_equal(m.columns[0], "gfx");
	assert_string_equal(m.columns[1], "blit");
	assert_string_equal(m.columns[2], "video");
	text = render(drmtop_text_frame, &m);
	assert_non_null(strstr(text, " CLIENT       gfx      blit      TOTAL "));
	assert_null(strstr(text, "idle"));
	free(text);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(r);
}

/*
 * Clients the tracer saw close with no job and nothing held are counted per process (command,
 * cgroup and node) in idle_closed, and the text and JSON views list them as one line each;
 * a closed client that held memory or ran a job is listed on its own, as before. closed[]
 * keeps the idle ones only where the model is built for record or the exporter (each_closed).
 */
static void test_idle_closed_counted_per_process(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct drmtop_bpf_client closed[5];
	struct drmtop_bpf_idle idle[2];
	struct drmtop_bpf_snapshot snap;
	struct drmtop_model m = { 0 };
	struct fake_bpf f[5];
	pid_t pid33 = 33;
	char *text, *json;
	size_t i;
	struct drmtop_model_input in = {
		.bpf_active = true, .bpf_reason = "attached", .snap = &snap, .rec = r,
		.diverge_pct = 5.0,
	};

	(void)state;
	/* probe x3 (pid 30), idle; other (pid 31), idle; worker (pid 32) with a job */
	for (i = 0; i < 5; i++) {
		fake_bpf_init(&f[i], 10 + i, 0x1000 * (i + 1), 10 + i, 0);
		f[i].bc.c.tgid = i < 3 ? 30 : 28 + (__u32)i;
		snprintf(f[i].bc.c.comm, sizeof(f[i].bc.c.comm), "%s",
			 i < 3 ? "probe" : i == 3 ? "other" : "worker");
		f[i].bc.c.open_ns = 100 + i;
		f[i].bc.c.close_ns = 200 + i;
	}
	fake_ring(&f[4], 0xa000, "gfx", 5000, 1);
	f[3].bc.c.minor_index = -1;	/* its node unknown: minor null */
	for (i = 0; i < 5; i++)
		closed[i] = f[i].bc;
	fake_snap(&snap, NULL, 0, S);
	snap.closed = closed;
	snap.n_closed = 5;
	assert_int_equal(drmtop_reconcile(r, &snap, NULL, 0), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);

	/* only counted: the live views' model */
	assert_int_equal(m.nr_closed, 1);
	assert_false(m.closed[0].idle);
	assert_int_equal(m.nr_idle_closed, 2);
	assert_int_equal(m.idle_closed[0].pid, 30);
	assert_string_equal(m.idle_closed[0].comm, "probe");
	assert_int_equal(m.idle_closed[0].clients, 3);
	assert_int_equal(m.idle_closed[0].first_open_ns, 100);
	assert_int_equal(m.idle_closed[0].last_close_ns, 202);
	assert_int_equal(m.idle_closed[1].pid, 31);
	assert_int_equal(m.idle_closed[1].clients, 1);

	text = render(drmtop_text_frame, &m);
	json = render(drmtop_json_frame, &m);
	assert_non_null(strstr(text, "closed (bpf), no job and nothing held: 30 probe 3 clients\n"));
	assert_non_null(strstr(text, "closed (bpf), no job and nothing held: 31 other 1 client\n"));
	assert_non_null(strstr(text, "closed (bpf): 32 worker client 14 held 0 B: gfx 0.000 s 1 jobs"));
	assert_null(strstr(text, "closed (bpf): 30"));
	assert_non_null(strstr(json, "\"closed_clients\":[{\"uid\":14,"));
	assert_non_null(strstr(json, "\"idle_closed\":[{\"tgid\":30,\"comm\":\"probe\""));
	assert_non_null(strstr(json, "\"clients\":3,\"first_open_ns\":100,\"last_close_ns\":202}"));
	assert_non_null(strstr(json, "\"minor\":0,\"clients\":3,"));
	assert_non_null(strstr(json, "\"minor\":null,\"clients\":1,"));
	free(text);
	free(json);

	/* the tracer's own counts (drmtop_bpf_open's count_idle) join the records' entries */
	memset(idle, 0, sizeof(idle));
	idle[0].c = closed[0].c;
	idle[0].c.open_ns = 50;
	idle[0].c.close_ns = 900;
	idle[0].clients = 40;
	idle[1].c = closed[3].c;
	idle[1].c.tgid = 33;
	snprintf(idle[1].c.comm, sizeof(idle[1].c.comm), "scanner");
	idle[1].clients = 7;
	snap.idle = idle;
	snap.n_idle = 2;
	assert_int_equal(drmtop_reconcile(r, &snap, NULL, 0), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_idle_closed, 3);
	assert_int_equal(m.idle_closed[0].pid, 30);
	assert_int_equal(m.idle_closed[0].clients, 43);
	assert_int_equal(m.idle_closed[0].first_open_ns, 50);
	assert_int_equal(m.idle_closed[0].last_close_ns, 900);
	assert_int_equal(m.idle_closed[2].pid, 33);
	assert_string_equal(m.idle_closed[2].comm, "scanner");
	assert_int_equal(m.idle_closed[2].clients, 7);
	/* a pid filter applies to them as to records */
	in.pids = &pid33;
	in.nr_pids = 1;
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_idle_closed, 1);
	assert_int_equal(m.idle_closed[0].clients, 7);
	in.nr_pids = 0;
	in.pids = NULL;
	snap.idle = NULL;
	snap.n_idle = 0;

	/* The same process in another cgroup is another entry. */
	closed[1].c.cgroup_id = 77;
	assert_int_equal(drmtop_reconcile(r, &snap, NULL, 0), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_idle_closed, 3);
	assert_int_equal(m.idle_closed[0].clients, 2);

	/* for record and the exporter closed[] has each of them too, flagged; views count them */
	in.each_closed = true;
	assert_int_equal(drmtop_reconcile(r, &snap, NULL, 0), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_closed, 5);
	assert_true(m.closed[0].idle && m.closed[3].idle);
	assert_false(m.closed[4].idle);
	assert_int_equal(m.nr_idle_closed, 3);
	text = render(drmtop_text_frame, &m);
	assert_null(strstr(text, "closed (bpf): 30"));
	free(text);

	/*
	 * A client charged a job is never idle, engine figures or not (a job cancelled before it
	 * ran has none): the programs' rule, drmtop_client_idle, in the model too.
	 */
	in.each_closed = false;
	closed[1].c.first_job_ns = 5;
	assert_int_equal(drmtop_reconcile(r, &snap, NULL, 0), 0);
	assert_int_equal(drmtop_model_build(&m, &in), 0);
	assert_int_equal(m.nr_idle_closed, 2);
	assert_int_equal(m.nr_closed, 2);
	assert_int_equal(m.closed[0].pid, 30);
	assert_false(m.closed[0].idle);
	drmtop_model_fini(&m);
	drmtop_reconciler_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_filter_everywhere),
		cmocka_unit_test(test_engine_columns),
		cmocka_unit_test(test_idle_closed_counted_per_process),
		cmocka_unit_test(test_client_outside_pid_namespace),
		cmocka_unit_test(test_tracer_only_device_named_from_node),
		cmocka_unit_test(test_divergence_windows),
		cmocka_unit_test(test_notes_reach_views),
		cmocka_unit_test(test_derived_memory_and_sort),
		cmocka_unit_test(test_client_memory_saturates),
		cmocka_unit_test(test_absent_is_not_zero),
		cmocka_unit_test(test_losses_make_figures_lower_bounds),
		cmocka_unit_test(test_start_bracket_is_not_divergence),
		cmocka_unit_test(test_bpf_rate_divided_by_capacity),
		cmocka_unit_test(test_client_missed_is_lasting_lower_bound),
		cmocka_unit_test(test_covered_skips_are_not_missed),
		cmocka_unit_test(test_driver_from_tracer_without_fdinfo),
		cmocka_unit_test(test_ticks_compared_with_occupancy),
		cmocka_unit_test(test_gpu_mem_total),
		cmocka_unit_test(test_memory_losses_stay_inconclusive),
		cmocka_unit_test(test_every_loss_counter_counts),
		cmocka_unit_test(test_device_totals),
		cmocka_unit_test(test_snapshot_cost_in_json),
		cmocka_unit_test(test_device_over_allows_for_timing),
		cmocka_unit_test(test_shown_figure_where_fdinfo_has_no_time),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
