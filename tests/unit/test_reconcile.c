// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "drmtop/reconcile.h"

/* One fdinfo client with one engine whose interval rate is @pct and @total bytes of memory. */
struct fake_fdinfo {
	struct drm_client c;
	struct drm_fdinfo_engine eng[2];
	struct drm_engine_usage usage[2];
	struct drm_fdinfo_region reg;
	struct drm_client_holder holder;
};

static void fake_fdinfo_init(struct fake_fdinfo *f, uint64_t client_id, const char *engine,
			     double pct, uint64_t total, pid_t pid, int fd)
{
	memset(f, 0, sizeof(*f));
	f->c.rdev = makedev(226, 128);
	f->c.info.present = client_id ? DRM_FDINFO_HAS_CLIENT_ID : 0;
	f->c.info.client_id = client_id;
	f->eng[0].name = (char *)engine;
	f->eng[0].present = DRM_ENGINE_HAS_BUSY;
	f->eng[0].capacity = 1;
	f->usage[0].flags = DRM_USAGE_BUSY_VALID;
	f->usage[0].busy_pct = pct;
	f->usage[0].capacity = 1;
	f->c.info.engines = f->eng;
	f->c.info.nr_engines = 1;
	f->c.usage = f->usage;
	f->reg.name = "memory";
	f->reg.present = DRM_REGION_HAS_TOTAL;
	f->reg.total = total;
	f->c.info.regions = &f->reg;
	f->c.info.nr_regions = 1;
	f->holder.pid = pid;
	f->holder.fd = fd;
	f->c.holders = &f->holder;
	f->c.nr_holders = 1;
	f->c.pid = pid;
	f->c.fd = fd;
}

/* A BPF client with up to two rings. */
struct fake_bpf {
	struct drmtop_bpf_client bc;
	struct drmtop_bpf_engine eng[2];
};

static void fake_bpf_init(struct fake_bpf *b, uint64_t uid, uint64_t file, uint64_t client_id,
			  uint64_t mem_total)
{
	memset(b, 0, sizeof(*b));
	b->bc.c.uid = uid;
	b->bc.c.file = file;
	b->bc.c.client_id = client_id;
	b->bc.c.dev_major = 226;
	b->bc.c.dev_minor = 128;
	b->bc.c.mem_total = mem_total;
	b->bc.engines = b->eng;
}

static void fake_ring(struct fake_bpf *b, uint64_t ring, const char *name, uint64_t busy_ns,
		      uint64_t jobs)
{
	struct drmtop_bpf_engine *e = &b->eng[b->bc.n_engines++];

	e->ring = ring;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->busy_ns = busy_ns;
	e->jobs = jobs;
}

static void snap_of(struct drmtop_bpf_snapshot *s, struct drmtop_bpf_client *clients, size_t n,
		    uint64_t taken_ns)
{
	memset(s, 0, sizeof(*s));
	s->taken_ns = taken_ns;
	s->clients = clients;
	s->n_clients = n;
}

static void test_ring_names(void **state)
{
	(void)state;
	assert_true(drmtop_ring_matches_engine("gfx", "gfx"));
	assert_true(drmtop_ring_matches_engine("gfx_0.0.0", "gfx"));
	assert_true(drmtop_ring_matches_engine("sdma0", "sdma"));
	assert_true(drmtop_ring_matches_engine("comp.1", "comp"));
	assert_false(drmtop_ring_matches_engine("gfxhub", "gfx"));
	assert_false(drmtop_ring_matches_engine("gf", "gfx"));
	assert_false(drmtop_ring_matches_engine("gfx", ""));
}

/* Two snapshots 1 s apart; the BPF rate must come from the difference, grouped by engine. */
static void test_match_by_id_rates_and_agreement(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new(5.0);
	struct drmtop_bpf_snapshot s;
	struct fake_fdinfo fi;
	struct fake_bpf b;
	const struct drmtop_client_view *v;

	(void)state;
	assert_non_null(r);
	fake_fdinfo_init(&fi, 42, "gfx", 60.0, 4096, 100, 3);
	fake_bpf_init(&b, 1, 0xffff1000, 42, 4096);
	fake_ring(&b, 0xa000, "gfx", 1000000000ull, 10);
	fake_ring(&b, 0xb000, "gfx_1", 0, 0);
	snap_of(&s, &b.bc, 1, 10000000000ull);
	assert_int_equal(drmtop_reconcile(r, &s, &fi.c, 1), 0);
	v = drmtop_reconciled_for(r, 0);
	assert_non_null(v);
	assert_int_equal(v->match, DRMTOP_MATCH_CLIENT_ID);
	assert_int_equal(v->nr_engines, 1);	/* both rings belong to fdinfo's "gfx" */
	assert_false(v->engines[0].has_rate);	/* first snapshot: totals only */
	assert_false(v->diverged);

	/* +0.4 s on ring a and +0.2 s on ring b over 1 s: 60 %, as fdinfo says. */
	b.eng[0].busy_ns += 400000000ull;
	b.eng[0].jobs += 4;
	b.eng[1].busy_ns += 200000000ull;
	b.eng[1].jobs += 2;
	s.taken_ns += 1000000000ull;
	assert_int_equal(drmtop_reconcile(r, &s, &fi.c, 1), 0);
	v = drmtop_reconciled_for(r, 0);
	assert_non_null(v);
	assert_true(v->engines[0].has_rate);
	assert_int_equal(v->engines[0].busy_delta_ns, 600000000ull);
	assert_int_equal(v->engines[0].jobs_delta, 6);
	assert_int_equal(v->engines[0].jobs, 16);
	assert_true(v->engines[0].bpf_pct > 59.99 && v->engines[0].bpf_pct < 60.01);
	assert_true(v->engines[0].fdinfo_has_rate);
	assert_false(v->engines[0].diverged);
	assert_true(v->mem_compared);
	assert_false(v->mem_diverged);
	assert_false(v->diverged);
	drmtop_reconciler_free(r);
}

/* A driver that reports 1.5x the real busy time (simgpu's misreport) is flagged; 5 % is not. */
static void test_misreport_is_flagged(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new(5.0);
	struct drmtop_bpf_snapshot s;
	struct fake_fdinfo fi;
	struct fake_bpf b;
	const struct drmtop_client_view *v;

	(void)state;
	fake_fdinfo_init(&fi, 7, "gfx", 75.0, 8192, 100, 3);
	fake_bpf_init(&b, 3, 0xffff2000, 7, 8192);
	fake_ring(&b, 0xa000, "gfx", 0, 0);
	snap_of(&s, &b.bc, 1, 1000);
	assert_int_equal(drmtop_reconcile(r, &s, &fi.c, 1), 0);
	b.eng[0].busy_ns = 500000000ull;
	s.taken_ns += 1000000000ull;
	assert_int_equal(drmtop_reconcile(r, &s, &fi.c, 1), 0);
	v = drmtop_reconciled_for(r, 0);
	assert_true(v->engines[0].diverged);
	assert_true(v->diverged);

	/* 54.9 % against 50 %: within the 5-point threshold. */
	fi.usage[0].busy_pct = 54.9;
	b.eng[0].busy_ns += 500000000ull;
	s.taken_ns += 1000000000ull;
	assert_int_equal(drmtop_reconcile(r, &s, &fi.c, 1), 0);
	v = drmtop_reconciled_for(r, 0);
	assert_false(v->engines[0].diverged);
	assert_false(v->diverged);
	drmtop_reconciler_free(r);
}

/* 6.1: no client ids in drm_file; the task_file map ties (pid, fd) to the drm_file. */
static void test_match_by_fd_and_memory(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new(5.0);
	struct drmtop_fd_rec fds[2] = {
		{ .file = 0xffff3000, .tgid = 200, .fd = 9 },
		{ .file = 0xffff4000, .tgid = 100, .fd = 3 },
	};
	struct drmtop_bpf_client both[2];
	struct drmtop_bpf_snapshot s;
	struct fake_fdinfo fi;
	struct fake_bpf a, b;
	const struct drmtop_client_view *v;

	(void)state;
	fake_fdinfo_init(&fi, 5 /* driver-private id */, "gfx", 0, 8192, 100, 3);
	fake_bpf_init(&a, 1, 0xffff3000, 0, 4096);
	fake_bpf_init(&b, 2, 0xffff4000, 0, 4096);	/* fdinfo says 8192: lying about memory */
	both[0] = a.bc;
	both[1] = b.bc;
	snap_of(&s, both, 2, 1000);
	assert_int_equal(drmtop_reconcile(r, &s, &fi.c, 1), 0);
	assert_null(drmtop_reconciled_for(r, 0));
	assert_true(drmtop_reconcile_wants_fds(r));
	assert_int_equal(drmtop_reconcile_fds(r, &fi.c, 1, fds, 2), 0);
	v = drmtop_reconciled_for(r, 0);
	assert_non_null(v);
	assert_int_equal(v->match, DRMTOP_MATCH_FD);
	assert_int_equal(v->c.uid, 2);
	assert_true(v->mem_compared);
	assert_true(v->mem_diverged);
	assert_false(drmtop_reconcile_wants_fds(r));

	/* Opened before the tracer attached: its BPF memory misses older buffers, no verdict. */
	both[1].c.flags = DRMTOP_CLIENT_LATE;
	assert_int_equal(drmtop_reconcile(r, &s, &fi.c, 1), 0);
	assert_int_equal(drmtop_reconcile_fds(r, &fi.c, 1, fds, 2), 0);
	v = drmtop_reconciled_for(r, 0);
	assert_non_null(v);
	assert_false(v->mem_compared);
	assert_false(v->diverged);
	drmtop_reconciler_free(r);
}

/* Kernel clients never match fdinfo; same id on another node does not match either. */
static void test_unmatched_stay_visible(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new(5.0);
	struct drmtop_bpf_client arr[2];
	struct drmtop_bpf_snapshot s;
	const struct drmtop_client_view *views;
	struct fake_fdinfo fi;
	struct fake_bpf k, other;
	size_t n;

	(void)state;
	fake_fdinfo_init(&fi, 9, "gfx", 10.0, 0, 100, 3);
	fake_bpf_init(&k, 1, 0xffff5000, 9, 0);
	k.bc.c.flags = DRMTOP_CLIENT_KERNEL;
	fake_ring(&k, 0xa000, "copy", 5, 1);
	fake_bpf_init(&other, 2, 0xffff6000, 9, 0);
	other.bc.c.dev_minor = 129;
	arr[0] = k.bc;
	arr[1] = other.bc;
	snap_of(&s, arr, 2, 1000);
	assert_int_equal(drmtop_reconcile(r, &s, &fi.c, 1), 0);
	assert_null(drmtop_reconciled_for(r, 0));
	views = drmtop_reconciled(r, &n);
	assert_int_equal(n, 2);
	assert_int_equal(views[0].match, DRMTOP_MATCH_NONE);
	assert_int_equal(views[0].nr_engines, 1);
	assert_string_equal(views[0].engines[0].name, "copy");
	assert_int_equal(views[1].match, DRMTOP_MATCH_NONE);
	drmtop_reconciler_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_names),
		cmocka_unit_test(test_match_by_id_rates_and_agreement),
		cmocka_unit_test(test_misreport_is_flagged),
		cmocka_unit_test(test_match_by_fd_and_memory),
		cmocka_unit_test(test_unmatched_stay_visible),
	};

	return cmocka_run_group_tests_name("reconcile", tests, NULL, NULL);
}
