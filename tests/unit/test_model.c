// SPDX-License-Identifier: GPL-2.0-only
/* The model: -p everywhere, derived figures, the windowed cross-check, notes in the views. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "drmtop/model_build.h"
#include "drmtop/views.h"
#include "fake_clients.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_filter_everywhere),
		cmocka_unit_test(test_divergence_windows),
		cmocka_unit_test(test_notes_reach_views),
		cmocka_unit_test(test_derived_memory_and_sort),
		cmocka_unit_test(test_client_memory_saturates),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
