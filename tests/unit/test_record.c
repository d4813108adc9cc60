// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "drmtop/model_build.h"
#include "drmtop/record.h"
#include "fake_clients.h"

#define S 1000000000ull

static const struct record_client *rec_find(const struct record_session *rs, const char *key)
{
	size_t i;

	for (i = 0; i < rs->nr_clients; i++)
		if (!strcmp(rs->clients[i]->key, key))
			return rs->clients[i];
	fail_msg("no record client %s", key);
	return NULL;
}

static const struct record_ring *ring_of(const struct record_client *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_rings; i++)
		if (!strcmp(c->rings[i].name, name))
			return &c->rings[i];
	fail_msg("no ring %s", name);
	return NULL;
}

/* Builds the model of one refresh and folds it into the session at @t. */
static void add(struct record_session *rs, struct drmtop_model_input *in, uint64_t t)
{
	struct drmtop_model m = { 0 };

	assert_int_equal(drmtop_model_build(&m, in), 0);
	assert_int_equal(record_session_add(rs, &m, t), 0);
	drmtop_model_fini(&m);
}

/* Reconciles @snap with the fdinfo clients and folds the refresh into the session at @t. */
static void step(struct record_session *rs, struct drmtop_reconciler *r,
		 struct drmtop_bpf_snapshot *snap, struct drm_client *clients, size_t n,
		 const struct drm_client *gone, size_t nr_gone, uint64_t t)
{
	struct drmtop_model_input in = {
		.clients = clients,
		.nr_clients = n,
		.gone = gone,
		.nr_gone = nr_gone,
		.bpf_active = true,
		.snap = snap,
		.rec = r,
		.diverge_pct = 5.0,
	};

	assert_int_equal(drmtop_reconcile(r, snap, clients, n), 0);
	add(rs, &in, t);
}

static void set_identity(struct fake_fdinfo *fi, const char *key, const char *comm)
{
	fi->c.key = (char *)key;
	fi->c.dev_key = "simgpu@226:128";
	fi->c.info.driver = "simgpu";
	snprintf(fi->c.comm, sizeof(fi->c.comm), "%s", comm);
}

static void test_session_joins_sources_and_keeps_closed(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct record_session rs = { .start_ns = 0 };
	struct drmtop_bpf_client live[2], closed[1];
	struct drmtop_bpf_snapshot snap;
	struct fake_fdinfo a, c, both[2];
	struct fake_bpf b1, b2, b3;
	const struct record_client *rc;
	const struct record_ring *ring;
	struct drm_client fd2[2];

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 0, 8192, 100, 3);
	set_identity(&a, "kA", "alpha");
	a.eng[0].busy_ns = 1 * S;
	fake_fdinfo_init(&c, 3, "gfx", 0, 4096, 300, 4);
	set_identity(&c, "kC", "gamma");
	c.eng[0].busy_ns = S / 2;

	/* t=0: fdinfo shows A; the tracer has A (uid 1) and uid 3, which fdinfo missed. */
	fake_bpf_init(&b1, 1, 0x1000, 1, 8192);
	fake_ring(&b1, 0xa, "gfx", 1 * S, 10);
	fake_bpf_init(&b3, 3, 0x3000, 3, 4096);
	fake_ring(&b3, 0xa, "gfx", 3 * S / 10, 2);
	live[0] = b1.bc;
	live[1] = b3.bc;
	fake_snap(&snap, live, 2, 1);
	step(&rs, r, &snap, &a.c, 1, NULL, 0, 0);
	assert_int_equal(rs.nr_clients, 2);	/* kA and bpf:3 */
	rec_find(&rs, "bpf:3");

	/* t=1: fdinfo shows C too, so bpf:3 joins kC. uid 2 lived and closed meanwhile. */
	b1.eng[0].busy_ns = 3 * S / 2;
	b1.eng[0].jobs = 15;
	b3.eng[0].busy_ns = S / 2;
	b3.eng[0].jobs = 4;
	live[0] = b1.bc;
	live[1] = b3.bc;
	fake_bpf_init(&b2, 2, 0x2000, 2, 4096);
	fake_ring(&b2, 0xa, "gfx", S / 5, 3);
	b2.bc.c.flags = DRMTOP_CLIENT_CLOSED;
	snprintf(b2.bc.c.comm, sizeof(b2.bc.c.comm), "blink");
	closed[0] = b2.bc;
	fake_snap(&snap, live, 2, 1 + S);
	snap.closed = closed;
	snap.n_closed = 1;
	a.eng[0].busy_ns = 3 * S / 2;
	both[0] = a;
	both[1] = c;
	fd2[0] = both[0].c;
	fd2[1] = both[1].c;
	step(&rs, r, &snap, fd2, 2, NULL, 0, 1 * S);
	assert_int_equal(rs.nr_clients, 3);	/* kA, kC (merged), bpf:2 */

	/* t=2: A closed; its close record carries its totals. */
	b3.eng[0].busy_ns = 6 * S / 10;
	b3.eng[0].jobs = 5;
	live[0] = b3.bc;
	b1.eng[0].busy_ns = 16 * S / 10;
	b1.eng[0].jobs = 16;
	closed[0] = b1.bc;
	fake_snap(&snap, live, 1, 1 + 2 * S);
	snap.closed = closed;
	snap.n_closed = 1;
	step(&rs, r, &snap, &c.c, 1, &a.c, 1, 2 * S);

	/* t=3: a job of A that was running at close finished: a residue record. */
	b1.eng[0].busy_ns = S / 10;
	b1.eng[0].jobs = 1;
	b1.bc.c.mem_total = 0;
	closed[0] = b1.bc;
	fake_snap(&snap, live, 1, 1 + 3 * S);
	snap.closed = closed;
	snap.n_closed = 1;
	step(&rs, r, &snap, &c.c, 1, NULL, 0, 3 * S);

	assert_int_equal(rs.nr_clients, 3);
	rc = rec_find(&rs, "kA");
	assert_true(rc->has_fdinfo && rc->has_bpf && rc->bpf_at_start && rc->bpf_closed);
	assert_true(rc->closed);
	ring = ring_of(rc, "gfx");
	assert_int_equal(record_ring_busy(rc, ring), 7 * S / 10);	/* 1.6 + 0.1 - 1.0 */
	assert_int_equal(record_ring_jobs(rc, ring), 7);
	assert_int_equal(rc->bpf_mem_total, 8192);	/* held at close, not the residue's 0 */

	rc = rec_find(&rs, "kC");
	assert_true(rc->has_fdinfo && rc->has_bpf && rc->bpf_at_start && !rc->bpf_closed);
	ring = ring_of(rc, "gfx");
	assert_int_equal(record_ring_busy(rc, ring), 3 * S / 10);	/* 0.6 - 0.3 */
	assert_int_equal(record_ring_jobs(rc, ring), 3);

	rc = rec_find(&rs, "bpf:2");
	assert_true(!rc->has_fdinfo && rc->has_bpf && rc->bpf_closed && !rc->bpf_at_start);
	assert_string_equal(rc->comm, "blink");
	ring = ring_of(rc, "gfx");
	assert_int_equal(record_ring_busy(rc, ring), S / 5);
	assert_int_equal(record_ring_jobs(rc, ring), 3);
	assert_int_equal(rc->bpf_mem_total, 4096);

	record_session_free(&rs);
	drmtop_reconciler_free(r);
}

/*
 * A client whose close record was lost (the kernel skipped the close hook, or the ring buffer
 * was full) comes as an orphan: kept among the closed with its jobs, and marked as such, since
 * its identity and its memory at close are unknown.
 */
static void test_orphan_is_marked(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct record_session rs = { .start_ns = 0 };
	struct drmtop_bpf_client orphans[1];
	struct drmtop_bpf_snapshot snap;
	const struct record_client *rc;
	struct fake_bpf b;

	(void)state;
	fake_snap(&snap, NULL, 0, 1);
	step(&rs, r, &snap, NULL, 0, NULL, 0, 0);
	fake_bpf_init(&b, 9, 0, 0, 0);
	fake_ring(&b, 0xa, "gfx", S / 4, 2);
	b.bc.c.flags = DRMTOP_CLIENT_CLOSED | DRMTOP_CLIENT_ORPHAN;
	orphans[0] = b.bc;
	fake_snap(&snap, NULL, 0, 1 + S);
	snap.orphans = orphans;
	snap.n_orphans = 1;
	step(&rs, r, &snap, NULL, 0, NULL, 0, S);
	rc = rec_find(&rs, "bpf:9");
	assert_true(rc->bpf_closed && rc->bpf_orphan);
	assert_int_equal(record_ring_jobs(rc, ring_of(rc, "gfx")), 2);
	record_session_free(&rs);
	drmtop_reconciler_free(r);
}

/*
 * A driver whose rings are not its engines' names (xe: queue rcs957 is engine rcs): the client
 * was open at the start and closed during the session, so its close record's totals less what
 * it had at the start is its session's share, under the engine's name. record kept the live
 * figures under the engine and the closed ones under the ring: a zero "rcs" row, and the whole
 * lifetime's time and jobs under "rcs957" (case 80 on 6.1, fw personality).
 */
static void test_closed_figures_fold_under_the_live_engine(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct record_session rs = { .start_ns = 0 };
	struct drmtop_bpf_client live[1], closed[1];
	struct drmtop_bpf_snapshot snap;
	const struct record_client *rc;
	struct fake_bpf b;

	(void)state;
	fake_bpf_init(&b, 5, 0x5000, 5, 4096);
	snprintf(b.bc.c.driver, sizeof(b.bc.c.driver), "xe");
	fake_ring(&b, 0xa, "rcs957", 1 * S, 10);
	live[0] = b.bc;
	fake_snap(&snap, live, 1, 1);
	step(&rs, r, &snap, NULL, 0, NULL, 0, 0);
	b.eng[0].busy_ns = 3 * S / 2;
	b.eng[0].jobs = 15;
	b.bc.c.flags = DRMTOP_CLIENT_CLOSED;
	closed[0] = b.bc;
	fake_snap(&snap, NULL, 0, 1 + S);
	snap.closed = closed;
	snap.n_closed = 1;
	step(&rs, r, &snap, NULL, 0, NULL, 0, S);
	rc = rec_find(&rs, "bpf:5");
	assert_true(rc->bpf_at_start && rc->bpf_closed);
	assert_int_equal(rc->nr_rings, 1);
	assert_string_equal(rc->rings[0].name, "rcs");
	assert_int_equal(record_ring_busy(rc, &rc->rings[0]), S / 2);
	assert_int_equal(record_ring_jobs(rc, &rc->rings[0]), 5);
	record_session_free(&rs);
	drmtop_reconciler_free(r);
}

/* fdinfo alone: a client open at the start counts from its first reading, a new one from 0. */
static void test_fdinfo_only_session(void **state)
{
	struct record_session rs = { .start_ns = 0 };
	struct fake_fdinfo a, b;
	struct drm_client both[2];
	struct drmtop_model_input f = { 0 };
	const struct record_client *rc;

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 0, 100, 10, 3);
	set_identity(&a, "kA", "alpha");
	a.eng[0].busy_ns = 5 * S;
	f.clients = &a.c;
	f.nr_clients = 1;
	add(&rs, &f, 0);

	a.eng[0].busy_ns = 6 * S;
	a.reg.total = 300;
	fake_fdinfo_init(&b, 2, "gfx", 0, 50, 20, 3);
	set_identity(&b, "kB", "beta");
	b.eng[0].busy_ns = S / 4;
	both[0] = a.c;
	both[1] = b.c;
	f.clients = both;
	f.nr_clients = 2;
	add(&rs, &f, S);

	/* A went backwards (spec: keep the larger value), B closed. */
	a.eng[0].busy_ns = 5 * S;
	a.reg.total = 200;
	f.clients = &a.c;
	f.nr_clients = 1;
	f.gone = &b.c;
	f.nr_gone = 1;
	add(&rs, &f, 2 * S);

	rc = rec_find(&rs, "kA");
	assert_true(rc->at_start);
	assert_int_equal(record_engine_busy(rc, &rc->engines[0]), 1 * S);
	assert_int_equal(rc->peak_total_bytes, 300);
	assert_int_equal(rc->last_total_bytes, 200);
	assert_false(rc->has_bpf);
	rc = rec_find(&rs, "kB");
	assert_false(rc->at_start);
	assert_true(rc->closed);
	assert_int_equal(record_engine_busy(rc, &rc->engines[0]), S / 4);
	record_session_free(&rs);
}

/*
 * An engine that first appears mid-session (amdgpu prints one only once the client used it)
 * counts from 0. Before the fix its first reading was taken as the baseline: 1 s instead of 3.
 */
static void test_engine_appearing_later_counts_from_zero(void **state)
{
	struct record_session rs = { .start_ns = 0 };
	struct drmtop_model_input in = { 0 };
	const struct record_client *rc;
	struct fake_fdinfo a;
	size_t i;

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 0, 100, 10, 3);
	set_identity(&a, "kA", "alpha");
	a.eng[0].busy_ns = 5 * S;
	in.clients = &a.c;
	in.nr_clients = 1;
	add(&rs, &in, 0);

	/* The client starts using "compute": 2 s of it by the next sample, 3 s by the one after. */
	a.eng[1] = a.eng[0];
	a.eng[1].name = "compute";
	a.eng[1].busy_ns = 2 * S;
	a.usage[1] = a.usage[0];
	a.c.info.nr_engines = 2;
	a.eng[0].busy_ns = 6 * S;
	add(&rs, &in, S);
	a.eng[1].busy_ns = 3 * S;
	add(&rs, &in, 2 * S);

	rc = rec_find(&rs, "kA");
	assert_int_equal(rc->nr_engines, 2);
	for (i = 0; i < rc->nr_engines; i++) {
		if (!strcmp(rc->engines[i].name, "gfx"))
			assert_int_equal(record_engine_busy(rc, &rc->engines[i]), 1 * S);
		else
			assert_int_equal(record_engine_busy(rc, &rc->engines[i]), 3 * S);
	}
	record_session_free(&rs);
}

/*
 * A client's busy share is over the window its readings cover. The session's samples were
 * taken at 0, 1 and 2 s but the scan read the client only at 0.9, 1.4 and 1.9 s (a slow scan):
 * 0.5 s of busy time over the 1 s between its first and last reading is 50 %, not the 25 % a
 * 2 s session span gave (the CLI test read 35-44 % for a 50 % client on a loaded host).
 */
static void test_busy_share_over_the_clients_window(void **state)
{
	struct record_session rs = { 0 };
	struct drmtop_model_input in = { 0 };
	const struct record_client *rc;
	struct drmtop_model m = { 0 };
	struct fake_fdinfo a;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 0, 100, 10, 3);
	set_identity(&a, "kA", "alpha");
	in.clients = &a.c;
	in.nr_clients = 1;
	a.eng[0].busy_ns = 5 * S;
	a.c.sample_ns = 9 * S / 10;
	add(&rs, &in, 0);
	a.eng[0].busy_ns = 5 * S + S / 4;
	a.c.sample_ns = 14 * S / 10;
	add(&rs, &in, S);
	a.eng[0].busy_ns = 5 * S + S / 2;
	a.c.sample_ns = 19 * S / 10;
	add(&rs, &in, 2 * S);
	rc = rec_find(&rs, "kA");
	assert_int_equal(record_engine_busy(rc, &rc->engines[0]), S / 2);
	assert_int_equal(record_client_window(rc, 2 * S), S);

	assert_int_equal(drmtop_model_build(&m, &in), 0);
	out = open_memstream(&text, &len);
	assert_int_equal(record_session_print_json(&rs, &m, out), 0);
	fclose(out);
	assert_non_null(strstr(text, "\"busy_ns\":500000000,\"busy_pct\":50.00"));
	free(text);
	drmtop_model_fini(&m);
	record_session_free(&rs);
}

/* -p applies to record too: only the wanted process's clients, closed ones included. */
static void test_pid_filter_applies_to_record(void **state)
{
	struct drmtop_reconciler *r = drmtop_reconciler_new();
	struct record_session rs = { .start_ns = 0 };
	struct drmtop_bpf_client live[2], closed[1];
	struct drmtop_bpf_snapshot snap;
	struct fake_fdinfo a, b;
	struct fake_bpf b1, b2, b3;
	struct drm_client both[2];
	pid_t want = 10;
	struct drmtop_model_input in = {
		.bpf_active = true, .snap = &snap, .rec = r, .pids = &want, .nr_pids = 1,
	};

	(void)state;
	fake_fdinfo_init(&a, 1, "gfx", 0, 100, 10, 3);
	set_identity(&a, "kA", "alpha");
	fake_fdinfo_init(&b, 2, "gfx", 0, 100, 20, 3);
	set_identity(&b, "kB", "beta");
	both[0] = a.c;
	both[1] = b.c;
	fake_bpf_init(&b1, 1, 0x1000, 1, 100);
	b1.bc.c.tgid = 10;
	fake_bpf_init(&b2, 2, 0x2000, 2, 100);
	b2.bc.c.tgid = 20;
	/* A client of pid 20 only the tracer saw, and one of pid 20 that closed. */
	fake_bpf_init(&b3, 3, 0x3000, 3, 100);
	b3.bc.c.tgid = 20;
	live[0] = b1.bc;
	live[1] = b3.bc;
	closed[0] = b2.bc;
	fake_snap(&snap, live, 2, 1);
	snap.closed = closed;
	snap.n_closed = 1;
	in.clients = both;
	in.nr_clients = 2;
	assert_int_equal(drmtop_reconcile(r, &snap, both, 2), 0);
	add(&rs, &in, 0);
	assert_int_equal(rs.nr_clients, 1);
	rec_find(&rs, "kA");
	record_session_free(&rs);
	drmtop_reconciler_free(r);
}

/*
 * A session that has seen @n clients (closed ones stay in it): the tracer's close records of
 * uids 1..n, folded in batches as the refreshes of a long record would bring them.
 */
static void grow_session(struct record_session *rs, size_t n)
{
	struct drmtop_model_closed_engine eng = { .name = "gfx", .engine = "gfx", .busy_ns = 1,
						   .jobs = 1 };
	struct drmtop_model_closed *closed = calloc(1000, sizeof(*closed));
	struct drmtop_model m = { .bpf_active = true };
	size_t done, i;

	assert_non_null(closed);
	for (done = 0; done < n; done += m.nr_closed) {
		m.nr_closed = n - done < 1000 ? n - done : 1000;
		for (i = 0; i < m.nr_closed; i++) {
			closed[i] = (struct drmtop_model_closed){ .from_bpf = true, .pid = 1,
				.comm = "gone", .driver = "simgpu", .engines = &eng, .nr_engines = 1 };
			closed[i].bpf.uid = done + i + 1;
			closed[i].bpf.comm = "gone";
			closed[i].bpf.driver = "simgpu";
		}
		m.closed = closed;
		assert_int_equal(record_session_add(rs, &m, 1 + done), 0);
	}
	free(closed);
	assert_int_equal(rs->nr_clients, n);
}

#define LIVE 64

/* The refresh of a long record's steady state: LIVE clients both sources know, still open. */
struct live_refresh {
	struct drmtop_model m;
	struct drmtop_model_client c[LIVE];
	struct drmtop_model_bpf b[LIVE];
	struct drmtop_model_engine e[LIVE];
	char keys[LIVE][16];
};

static void live_refresh_init(struct live_refresh *l, uint64_t first_uid)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < LIVE; i++) {
		snprintf(l->keys[i], sizeof(l->keys[i]), "live#%zu", i);
		l->b[i] = (struct drmtop_model_bpf){ .uid = first_uid + i, .tgid = 2,
			.comm = "live", .driver = "simgpu" };
		l->e[i] = (struct drmtop_model_engine){ .name = "gfx", .in_fdinfo = true,
			.in_bpf = true };
		l->e[i].fd.flags = DRMTOP_FD_BUSY;
		l->c[i] = (struct drmtop_model_client){ .key = l->keys[i], .dev_key = "d",
			.driver = "simgpu", .pid = 2, .comm = "live", .in_fdinfo = true,
			.engines = &l->e[i], .nr_engines = 1, .bpf = &l->b[i] };
	}
	l->m.bpf_active = true;
	l->m.clients = l->c;
	l->m.nr_clients = l->m.nr_fdinfo_clients = LIVE;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * S + (uint64_t)ts.tv_nsec;
}

/* Time of one round of refreshes folded into @rs. */
static uint64_t round_ns(struct record_session *rs, struct live_refresh *l, int refreshes)
{
	uint64_t t0 = mono_ns(), t;
	int k;

	for (k = 0; k < refreshes; k++) {
		l->e[k % LIVE].fd.busy_effective_ns++;
		assert_int_equal(record_session_add(rs, &l->m, rs->end_ns + 1), 0);
	}
	t = mono_ns() - t0;
	return t ? t : 1;
}

/*
 * A refresh costs the same whatever the session has already seen: a record of days keeps
 * thousands of closed clients, and finding each live one among them by a linear search made
 * every refresh slower than the last. A refresh of 64 live clients is timed over a session of
 * 10,000 and one of 40,000 clients, in interleaved rounds, the fastest round of each kept (a
 * loaded machine only ever adds time). Constant cost gives a ratio near 1, linear search 4 or
 * more; 2.5 leaves room for the larger session's caches.
 */
static void test_refresh_cost_does_not_grow_with_the_session(void **state)
{
	static struct live_refresh l10, l40;
	struct record_session s10 = { 0 }, s40 = { 0 };
	uint64_t best10 = UINT64_MAX, best40 = UINT64_MAX, t;
	double ratio;
	int round;

	(void)state;
	grow_session(&s10, 10000);
	grow_session(&s40, 40000);
	live_refresh_init(&l10, 10001);
	live_refresh_init(&l40, 40001);
	round_ns(&s10, &l10, 1);	/* the live clients join their sessions */
	round_ns(&s40, &l40, 1);
	assert_int_equal(s40.nr_clients, 40000 + LIVE);
	for (round = 0; round < 9; round++) {
		t = round_ns(&s10, &l10, 20);
		best10 = t < best10 ? t : best10;
		t = round_ns(&s40, &l40, 20);
		best40 = t < best40 ? t : best40;
	}
	ratio = (double)best40 / (double)best10;
	print_message("refresh of %d live clients: %.1f us at 10k session clients, %.1f us at "
		      "40k (ratio %.2f)\n", LIVE, best10 / 20e3, best40 / 20e3, ratio);
	assert_true(ratio < 2.5);
	assert_int_equal(s40.nr_clients, 40000 + LIVE);
	record_session_free(&s10);
	record_session_free(&s40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_joins_sources_and_keeps_closed),
		cmocka_unit_test(test_fdinfo_only_session),
		cmocka_unit_test(test_orphan_is_marked),
		cmocka_unit_test(test_closed_figures_fold_under_the_live_engine),
		cmocka_unit_test(test_engine_appearing_later_counts_from_zero),
		cmocka_unit_test(test_pid_filter_applies_to_record),
		cmocka_unit_test(test_busy_share_over_the_clients_window),
		cmocka_unit_test(test_refresh_cost_does_not_grow_with_the_session),
	};

	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
