// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracer's accounting helpers (bpf/drmtop_account.bpf.h), run in the host kernel through
 * BPF_PROG_TEST_RUN on the raw_tp wrappers of bpf/drmtop_test.bpf.c, checked against reference
 * computations done here in C by a different method (interval union by sweep, log2 by loop).
 * Needs root (CI runs as root): without it the test fails and says so, it never skips.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../src/sources/bpf_snapshot_parts.h"
#include "drmtop_bpf.h"
#include "bpf_test_object.h"

static struct drmtop_test_bpf *skel;

static int setup(void **state)
{
	(void)state;
	skel = bpf_test_object_load("test_bpf_account");
	return skel ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	drmtop_test_bpf__destroy(skel);
	return 0;
}

static void run(struct bpf_program *prog, __u64 *args, size_t n)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = n * sizeof(*args));

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(prog), &opts), 0);
	assert_int_equal(opts.retval, 0);
}

static __u64 busy(__u64 run_ns, __u64 done_ns, __u64 *last)
{
	__u64 a[3] = { run_ns, done_ns, *last };

	run(skel->progs.test_busy, a, 3);
	*last = skel->bss->out_last_done;
	return skel->bss->out_busy;
}

static void test_busy_sequential(void **state)
{
	__u64 last = 50;

	(void)state;
	assert_int_equal(busy(100, 250, &last), 150);
	assert_int_equal(last, 250);
	/* idle gap between jobs is not busy */
	assert_int_equal(busy(400, 410, &last), 10);
	assert_int_equal(last, 410);
}

static void test_busy_overlap(void **state)
{
	__u64 last = 0;

	(void)state;
	/* two jobs on a ring of depth 2: 100..300 and 150..500 -> union 100..500 */
	assert_int_equal(busy(100, 300, &last), 200);
	assert_int_equal(busy(150, 500, &last), 200);
	assert_int_equal(last, 500);
	/* a job wholly inside the previous one adds nothing and does not move last back */
	assert_int_equal(busy(200, 450, &last), 0);
	assert_int_equal(last, 500);
}

/* Reference: length of the union of [run, done) intervals, by sorting endpoints and sweeping. */
struct ev {
	__u64 t;
	int d;
};

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return y->d - x->d;	/* starts before ends at the same instant */
}

static __u64 union_len(const __u64 *run_ns, const __u64 *done_ns, int n)
{
	struct ev *e = calloc(2 * n, sizeof(*e));
	__u64 total = 0, open_at = 0;
	int i, depth = 0;

	assert_non_null(e);
	for (i = 0; i < n; i++) {
		e[2 * i] = (struct ev){ run_ns[i], +1 };
		e[2 * i + 1] = (struct ev){ done_ns[i], -1 };
	}
	qsort(e, 2 * n, sizeof(*e), ev_cmp);
	for (i = 0; i < 2 * n; i++) {
		if (e[i].d > 0 && depth++ == 0)
			open_at = e[i].t;
		else if (e[i].d < 0 && --depth == 0)
			total += e[i].t - open_at;
	}
	free(e);
	return total;
}

/*
 * A deep ring: jobs start in order, run concurrently up to the queue depth and finish in order
 * (the drm_sched contract). The helper fed done events in order must give the union length.
 */
static void test_busy_deep_ring_matches_union(void **state)
{
	enum { N = 500 };
	__u64 run_ns[N], done_ns[N], t = 1000, prev_done = 0, last = 0, sum = 0;
	int i;

	(void)state;
	srand(42);
	for (i = 0; i < N; i++) {
		t += rand() % 3000;		/* gaps and overlaps both happen */
		run_ns[i] = t;
		done_ns[i] = t + 1 + rand() % 5000;
		if (done_ns[i] < prev_done)
			done_ns[i] = prev_done + rand() % 2;	/* finish in order */
		prev_done = done_ns[i];
	}
	for (i = 0; i < N; i++)
		sum += busy(run_ns[i], done_ns[i], &last);
	assert_int_equal(sum, union_len(run_ns, done_ns, N));
	assert_int_equal(last, done_ns[N - 1]);
}

/* busy ns of a job's end on timeline @ctx (its fence's @seqno); *@held if it was held instead */
static __u64 lane_end(__u64 ctx, __u64 seqno, __u64 run_ns, __u64 done_ns, bool may_hold,
		      bool *held)
{
	__u64 a[5] = { ctx, seqno, run_ns, done_ns, may_hold };

	run(skel->progs.test_lane_end, a, 5);
	*held = skel->bss->out_held;
	return skel->bss->out_busy;
}

/* busy ns of a job's end on timeline @ctx, no seqno: never held */
static __u64 timeline_busy(__u64 ctx, __u64 run_ns, __u64 done_ns)
{
	bool held;

	return lane_end(ctx, 0, run_ns, done_ns, false, &held);
}

/* busy ns of a job (run_ns 0: its run event lost), its start slack in *@slack */
static __u64 job_time(__u64 ctx, __u64 run_ns, __u64 queue_ns, __u64 fence_ns, __u64 done_ns,
		      __u64 *slack)
{
	__u64 a[5] = { ctx, run_ns, queue_ns, fence_ns, done_ns };

	run(skel->progs.test_job_time, a, 5);
	*slack = skel->bss->out_slack;
	return skel->bss->out_busy;
}

static void test_timeline_busy_basic(void **state)
{
	(void)state;
	/* two timelines of one ring: 100..300 on A and 150..500 on B both count in full */
	assert_int_equal(timeline_busy(7001, 100, 300), 200);
	assert_int_equal(timeline_busy(7002, 150, 500), 350);
	/* handed to A at 200, behind A's job that ended at 300: starts at 300 */
	assert_int_equal(timeline_busy(7001, 200, 450), 150);
	/* B's next job, after an idle gap */
	assert_int_equal(timeline_busy(7002, 600, 610), 10);
}

/*
 * A run event lost on a ring of two units: X is handed to idle unit B at 10 (queued at 5) while
 * W runs on A from 0 to 100; W is freed at its end, and drm_sched moves X's scheduled fence time
 * to 100, long after X started. X, counted from its fence, came out at 50 of its 140 ns; it counts
 * from its queue time, with the bracket up to the fence.
 */
static void test_lost_run_start(void **state)
{
	__u64 slack;

	(void)state;
	/* no queue time either: from the fence */
	assert_int_equal(job_time(8001, 0, 0, 1, 100, &slack), 99);
	assert_int_equal(slack, 0);
	assert_int_equal(job_time(8002, 0, 5, 100, 150, &slack), 145);
	assert_int_equal(slack, 95);
	/* queued behind its unit's job (ends 150): starts there, whatever its fence says */
	assert_int_equal(job_time(8002, 0, 120, 130, 200, &slack), 50);
	assert_int_equal(slack, 0);
	/* seen at its run event: from there, the bracket to the fence when its unit was idle */
	assert_int_equal(job_time(8002, 300, 290, 302, 400, &slack), 100);
	assert_int_equal(slack, 2);
	assert_int_equal(job_time(8002, 350, 340, 420, 500, &slack), 100);
	assert_int_equal(slack, 0);
	/* no fence time and no run event: from its queue time, the whole job the bracket */
	assert_int_equal(job_time(8003, 0, 5, 0, 50, &slack), 45);
	assert_int_equal(slack, 45);
	/* nor a queue time: no start to trust, no busy time */
	assert_int_equal(job_time(8004, 0, 0, 0, 50, &slack), 0);
	assert_int_equal(slack, 0);
}

/* busy ns of a job made from its done event alone, its start slack in *@slack */
static __u64 done_only(__u64 unit_end, __u64 queue_ns, __u64 fence_ns, __u64 done_ns,
		       __u64 *slack)
{
	__u64 a[4] = { unit_end, queue_ns, fence_ns, done_ns };

	run(skel->progs.test_done_only, a, 4);
	*slack = skel->bss->out_slack;
	return skel->bss->out_busy;
}

/*
 * A job whose queue and run events were both skipped, made from its done event. Counted from
 * its unit's previous end, a job queued after a minute's idle counted the minute; counted from
 * its scheduled fence, which drm_sched moved to the end of the ring's previous job on the other
 * unit, a 70 ms job counted 39 ms with no bracket. It counts from the later of its unit's previous
 * end and its queue time, the truth within the bracket (busy - slack .. busy).
 */
static void test_done_only_start(void **state)
{
	const __u64 s = 1000000000ull, ms = 1000000ull;
	__u64 slack;

	(void)state;
	/* its unit idle since 1 s, queued at 61 s, started at once, fence at 61.001, end 61.010 */
	assert_int_equal(done_only(1 * s, 61 * s, 61 * s + 1 * ms, 61 * s + 10 * ms, &slack),
			 10 * ms);
	assert_int_equal(slack, 1 * ms);
	/* the first job seen on its unit (no previous end): queued at 100 ms, ran 100 to 170 ms,
	 * its fence moved to the other unit's end at 131 ms */
	assert_int_equal(done_only(0, 100 * ms, 131 * ms, 170 * ms, &slack), 70 * ms);
	assert_int_equal(slack, 31 * ms);
	/* queued behind its unit's job (ends 120 ms): from there; the fence moved to 120 ms */
	assert_int_equal(done_only(120 * ms, 100 * ms, 120 * ms, 170 * ms, &slack), 50 * ms);
	assert_int_equal(slack, 0);
	/* a fence moved before the job was queued (an idle gap): no bound from it, all bracket */
	assert_int_equal(done_only(0, 100 * ms, 90 * ms, 150 * ms, &slack), 50 * ms);
	assert_int_equal(slack, 50 * ms);
	/* nothing but the fence: from it, as before */
	assert_int_equal(done_only(0, 0, 131 * ms, 170 * ms, &slack), 39 * ms);
	assert_int_equal(slack, 0);
	/* nothing at all: no busy time */
	assert_int_equal(done_only(0, 0, 0, 170 * ms, &slack), 0);
}

/*
 * simgpu's engine model (tests/kmod/simgpu/simgpu_ring.c), independently written: @cap lanes,
 * each a FIFO with its own fence context; drm_sched hands a job over (the run event) while
 * fewer than @depth are unfinished, and the job goes to the lane that frees up first, starting
 * at max(run, that lane's previous end). Done events come in time order (a lane's in FIFO
 * order), each a little after the modelled end that its hardware fence carries. Three clients
 * with different job lengths keep the ring backlogged, with idle gaps now and then. The tracer's
 * per-client busy time must be the sum of the client's durations, exactly; the per-ring rule
 * (drmtop_busy_ns, one "previous done" per ring) must give the same for one lane, and less with
 * several (what it did before timelines).
 * With @drop_every, every so many run events are lost (7.x skips them): such a job counts from
 * its queue time or its unit's previous end, and the truth must lie within its start bracket
 * (busy - start slack .. busy). The scheduled fence is modelled as drm_sched keeps it: signalled
 * just after the run event, and moved to the end of the job before it in the ring when that one
 * is freed (at its done here), which with several lanes is often after this job started.
 */
enum { SIM_JOBS = 400, SIM_CLIENTS = 3, SIM_MAX_LANES = 8 };

struct sim_job {
	int client;
	__u64 arrive, dur, run, fence, start, end, event;
	__u64 seqno;	/* of its hardware fence, on its lane */
	int lane;
	int state;	/* 0 waiting, 1 on the hardware, 2 done */
};

struct sim_lanes {
	__u64 until[SIM_MAX_LANES];	/* end of the lane's last job */
	__u64 event[SIM_MAX_LANES];	/* its done event */
	__u64 seqno[SIM_MAX_LANES];
};

/*
 * SIM_JOBS jobs of SIM_CLIENTS clients, each client's of its own length (@unit ns times 1, 3, 5,
 * and a little): mostly a backlog, every 100 jobs a pause that lets the ring drain. Each client's
 * total into @truth.
 */
static void sim_jobs(struct sim_job *j, __u64 unit, __u64 *truth)
{
	__u64 arrive = 0;
	int i;

	for (i = 0; i < SIM_JOBS; i++) {
		j[i] = (struct sim_job){ .client = i % SIM_CLIENTS };
		arrive += i % 100 == 99 ? 10000 + rand() % 5000 : rand() % 50;
		j[i].arrive = arrive;
		j[i].dur = unit * (__u64)(1 + 2 * j[i].client) + rand() % (unit * 7 / 10);
		truth[j[i].client] += j[i].dur;
	}
}

/*
 * drm_sched hands job @x to the hardware at about @t: it goes to the lane that frees up first
 * (of @cap), starts at max(run, that lane's previous end), and its completion interrupt comes up
 * to @late ns after its end, in order on its lane.
 */
static void sim_hand_over(struct sim_job *x, struct sim_lanes *ln, int cap, __u64 t, int late)
{
	int l;

	x->run = t + rand() % 20;
	x->fence = x->run + 1 + rand() % 5;
	x->lane = 0;
	for (l = 1; l < cap; l++)
		if (ln->until[l] < ln->until[x->lane])
			x->lane = l;
	x->start = ln->until[x->lane] > x->run ? ln->until[x->lane] : x->run;
	x->end = x->start + x->dur;
	ln->until[x->lane] = x->end;
	x->event = x->end + rand() % late;
	if (x->event < ln->event[x->lane])
		x->event = ln->event[x->lane];
	ln->event[x->lane] = x->event;
	x->seqno = ++ln->seqno[x->lane];
	x->state = 1;
}

static void simulate(int cap, int depth, __u64 ctx_base, unsigned int seed, int drop_every)
{
	static struct sim_job j[SIM_JOBS];
	struct sim_lanes ln = { 0 };
	__u64 truth[SIM_CLIENTS] = { 0 }, got[SIM_CLIENTS] = { 0 }, ring[SIM_CLIENTS] = { 0 };
	__u64 slack[SIM_CLIENTS] = { 0 };
	__u64 t = 0, ring_last = 0, total = 0, wall;
	int i, next_run = 0, done = 0, in_flight = 0, pending = 0;

	srand(seed);
	sim_jobs(j, 1000, truth);
	while (done < SIM_JOBS) {
		int best = -1, lost;
		__u64 s_ns;

		/* drm_sched: hand over in submission order while the ring has room */
		while (next_run < SIM_JOBS && in_flight < depth && j[next_run].arrive <= t) {
			sim_hand_over(&j[next_run++], &ln, cap, t, 300);
			in_flight++;
		}
		for (i = 0; i < next_run; i++)
			if (j[i].state == 1 && (best < 0 || j[i].event < j[best].event))
				best = i;
		if (best < 0) {
			t = j[next_run].arrive;
			continue;
		}
		t = j[best].event;
		j[best].state = 2;
		in_flight--;
		done++;
		lost = drop_every && best % drop_every == drop_every - 1;
		/* now and then a lost run's fence has no time yet when the job ends */
		got[j[best].client] += job_time(ctx_base + (__u64)j[best].lane,
						lost ? 0 : j[best].run, j[best].arrive,
						lost && best % 5 == 0 ? 0 : j[best].fence,
						j[best].end, &s_ns);
		slack[j[best].client] += s_ns;
		ring[j[best].client] += busy(j[best].run, j[best].end, &ring_last);
		/* drm_sched frees finished jobs in ring order, moving the next one's fence time */
		while (pending < next_run && j[pending].state == 2) {
			pending++;
			if (pending < next_run && j[pending].fence <= t)
				j[pending].fence = j[pending - 1].event;
		}
	}
	wall = j[SIM_JOBS - 1].end;
	for (i = 0; i < SIM_CLIENTS; i++) {
		total += truth[i];
		if (drop_every ? got[i] < truth[i] || got[i] - slack[i] > truth[i] :
				 got[i] != truth[i])
			fail_msg("capacity %d depth %d drop %d: client %d busy %llu "
				 "(start slack %llu), truth %llu", cap, depth, drop_every, i,
				 (unsigned long long)got[i],
				 (unsigned long long)slack[i], (unsigned long long)truth[i]);
		if (cap == 1 && ring[i] != truth[i])
			fail_msg("capacity 1: per-ring rule %llu, truth %llu",
				 (unsigned long long)ring[i], (unsigned long long)truth[i]);
	}
	/* the lanes really ran side by side, and one "previous done" per ring missed that */
	if (cap > 1 && (total <= wall + wall / 4 || ring[0] + ring[1] + ring[2] >= total))
		fail_msg("capacity %d depth %d: busy %llu in %llu ns of wall time, per-ring rule %llu",
			 cap, depth, (unsigned long long)total, (unsigned long long)wall,
			 (unsigned long long)(ring[0] + ring[1] + ring[2]));
}

static void test_timeline_busy_lanes(void **state)
{
	int cap;

	(void)state;
	for (cap = 1; cap <= SIM_MAX_LANES; cap++) {
		simulate(cap, cap, 1000 + 100 * (__u64)cap, 1, 0);
		simulate(cap, 2 * cap, 2000 + 100 * (__u64)cap, 2, 0);
		simulate(cap, cap + 1, 3000 + 100 * (__u64)cap, 3, 0);
		simulate(cap, 2 * cap, 4000 + 100 * (__u64)cap, 4, 7);
		simulate(cap, cap + 1, 5000 + 100 * (__u64)cap, 5, 3);
	}
}

/*
 * One unit: job 1 runs 100..200; job 2 (handed over at 120) ends at 300, its done event skipped;
 * job 3 (handed over at 150) ends at 400 and its done comes before job 2's cleanup. Job 3 is held,
 * job 2 made up at its cleanup counts 200..300, job 3 at its own 300..400. Counted at its done,
 * job 3 took 200..400 and job 2 nothing.
 */
static void test_lane_end_held(void **state)
{
	bool held;

	(void)state;
	assert_int_equal(lane_end(8101, 1, 100, 200, true, &held), 100);
	assert_false(held);
	assert_int_equal(lane_end(8101, 3, 150, 400, true, &held), 0);
	assert_true(held);
	/* cleanups: job 2 made up, then job 3 counted */
	assert_int_equal(lane_end(8101, 2, 120, 300, false, &held), 100);
	assert_false(held);
	assert_int_equal(lane_end(8101, 3, 150, 400, false, &held), 100);
	assert_int_equal(lane_end(8101, 4, 500, 600, true, &held), 100);
	assert_false(held);
	/* a seqno that went back (a 32-bit counter wrapped): held once, then followed */
	assert_int_equal(lane_end(8101, 1, 700, 800, true, &held), 0);
	assert_true(held);
	assert_int_equal(lane_end(8101, 1, 700, 800, false, &held), 100);
	assert_int_equal(lane_end(8101, 2, 900, 950, true, &held), 50);
	assert_false(held);
	/* no seqno (a fence the tracer cannot read one from), or a new timeline: never held */
	assert_int_equal(lane_end(8101, 0, 1000, 1100, true, &held), 100);
	assert_false(held);
	assert_int_equal(lane_end(8102, 9, 100, 200, true, &held), 100);
	assert_false(held);
}

/*
 * Not a unit's first job: a timeline first seen at a done has no seqno to find a gap from (at
 * attach, or after the LRU map dropped it), and its job counts from its run event as before.
 */
static bool skipped(int i, __u64 seqno, int skip_every)
{
	return seqno > 1 && i % skip_every == skip_every - 1;
}

/*
 * simulate()'s ring, with every @skip_every-th done event lost (7.x skips the program; the fence
 * still signals, so the job's credit comes back and its cleanup follows). drm_sched's free worker
 * takes finished jobs in the order they ran, @free_lag after the later of the job's end event and
 * the previous free: done events of later jobs on the same unit come before it. A skipped job is
 * made up at its cleanup; a held one counted there. Every client's busy time must be exact, and
 * the case must have held jobs (else it proved nothing).
 */
static void simulate_skipped_done(int cap, int depth, __u64 ctx_base, unsigned int seed,
				  int skip_every, __u64 free_lag)
{
	static struct sim_job j[SIM_JOBS];
	static bool held[SIM_JOBS];
	struct sim_lanes ln = { 0 };
	__u64 truth[SIM_CLIENTS] = { 0 }, got[SIM_CLIENTS] = { 0 };
	__u64 t = 0, last_free = 0;
	int i, next_run = 0, in_flight = 0, freed = 0, n_held = 0;

	srand(seed);
	memset(held, 0, sizeof(held));
	sim_jobs(j, 200, truth);
	while (freed < SIM_JOBS) {
		__u64 free_at = 0;
		int best = -1;
		bool h;

		while (next_run < SIM_JOBS && in_flight < depth && j[next_run].arrive <= t) {
			sim_hand_over(&j[next_run++], &ln, cap, t, 100);
			in_flight++;
		}
		/* the free worker's next job: the oldest, once finished */
		if (freed < next_run && j[freed].state == 2) {
			free_at = j[freed].event > last_free ? j[freed].event : last_free;
			free_at += free_lag;
		}
		for (i = 0; i < next_run; i++)
			if (j[i].state == 1 && (best < 0 || j[i].event < j[best].event))
				best = i;
		if (best >= 0 && (!free_at || j[best].event <= free_at)) {
			/* a done event: the fence signals whether or not the program runs */
			t = j[best].event;
			j[best].state = 2;
			in_flight--;
			if (skipped(best, j[best].seqno, skip_every))
				continue;
			got[j[best].client] += lane_end(ctx_base + (__u64)j[best].lane,
							j[best].seqno, j[best].run, j[best].end,
							true, &h);
			held[best] = h;
			n_held += h;
		} else if (free_at) {
			struct sim_job *f = &j[freed];

			/* the free worker: made up if its done was lost, counted if held */
			t = last_free = free_at;
			if (held[freed] || skipped(freed, f->seqno, skip_every))
				got[f->client] += lane_end(ctx_base + (__u64)f->lane, f->seqno,
							   f->run, f->end, false, &h);
			freed++;
		} else {
			t = j[next_run].arrive;
		}
	}
	for (i = 0; i < SIM_CLIENTS; i++)
		if (got[i] != truth[i])
			fail_msg("capacity %d depth %d skip %d lag %llu: client %d busy %llu, "
				 "truth %llu (%d held)", cap, depth, skip_every,
				 (unsigned long long)free_lag, i, (unsigned long long)got[i],
				 (unsigned long long)truth[i], n_held);
	if (!n_held)
		fail_msg("capacity %d depth %d skip %d lag %llu: no job held", cap, depth,
			 skip_every, (unsigned long long)free_lag);
}

static void test_skipped_done_lanes(void **state)
{
	int cap;

	(void)state;
	for (cap = 1; cap <= 4; cap++) {
		simulate_skipped_done(cap, 2 * cap, 9000 + 100 * (__u64)cap, 11, 5, 700);
		simulate_skipped_done(cap, 3 * cap, 9020 + 100 * (__u64)cap, 12, 3, 2500);
		simulate_skipped_done(cap, cap + 1, 9040 + 100 * (__u64)cap, 13, 7, 300);
	}
}

static __u32 bucket(__u64 ns)
{
	__u64 a[1] = { ns };

	run(skel->progs.test_bucket, a, 1);
	return skel->bss->out_bucket;
}

static __u32 ref_bucket(__u64 ns)
{
	__u32 b = 0;

	while (ns > 1) {
		ns /= 2;
		b++;
	}
	return b > 31 ? 31 : b;
}

static void test_lat_bucket(void **state)
{
	static const __u64 v[] = { 0, 1, 2, 3, 4, 7, 8, 1023, 1024, 1000000, 999999999,
				   (1ull << 31) - 1, 1ull << 31, 1ull << 32, 1ull << 40, ~0ull };
	size_t i;
	int s;

	(void)state;
	assert_int_equal(bucket(0), 0);
	assert_int_equal(bucket(1024), 10);
	assert_int_equal(bucket(~0ull), 31);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(bucket(v[i]), ref_bucket(v[i]));
	for (s = 0; s < 64; s++) {
		assert_int_equal(bucket(1ull << s), ref_bucket(1ull << s));
		assert_int_equal(bucket((1ull << s) + 1), ref_bucket((1ull << s) + 1));
	}
}

static __u64 mem(__u64 start, int sub, __u64 bytes)
{
	__u64 a[3] = { start, (__u64)sub, bytes };

	run(skel->progs.test_mem, a, 3);
	return skel->bss->out_mem;
}

static void test_mem_add_sub(void **state)
{
	__u64 v;
	__u32 ok;

	(void)state;
	assert_int_equal(mem(0, 0, 4096), 4096);
	assert_int_equal(mem(4096, 0, 1ull << 33), 4096 + (1ull << 33));
	assert_int_equal(mem(3 * 4096, 1, 4096), 2 * 4096);
	assert_true(skel->bss->out_mem_ok);
	assert_int_equal(mem(4096, 1, 4096), 0);
	assert_true(skel->bss->out_mem_ok);
	/*
	 * A release run before the add it follows (two CPUs): the sum is exact once both ran,
	 * and the subtract that took more than the counter held says so. A check-then-subtract
	 * clamped it to 0, and the add then left 4096 bytes counted for ever.
	 */
	v = mem(0, 1, 4096);
	ok = skel->bss->out_mem_ok;
	v = mem(v, 0, 4096);
	if (v != 0)
		fail_msg("release then add of 4096 bytes left %llu", (unsigned long long)v);
	assert_false(ok);
}

/*
 * Adds and releases racing on one counter from three CPUs, each thread adding bytes and
 * releasing them, one of them in the other order (the release first): the counter must end
 * exactly where it started. A release that checks the value and then subtracts, or stores 0
 * when the value is short, loses or keeps bytes as the CPUs interleave.
 */
struct race_arg {
	__u64 op;
	unsigned int calls;
};

#define RACE_LOOP	200000	/* iterations per BPF_PROG_TEST_RUN, inside the program */

static void *race_thread(void *p)
{
	const struct race_arg *a = p;
	__u64 args[3] = { a->op, 4096, RACE_LOOP };
	unsigned int i;

	for (i = 0; i < a->calls; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));

		if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.test_mem_race), &opts))
			return (void *)1;
	}
	return NULL;
}

static void test_mem_concurrent_release(void **state)
{
	struct race_arg in_order = { .op = 0, .calls = 20 }, reversed = { .op = 1, .calls = 20 };
	pthread_t t[3];
	void *ret;
	int i;

	(void)state;
	skel->bss->race_v = 0;
	assert_int_equal(pthread_create(&t[0], NULL, race_thread, &in_order), 0);
	assert_int_equal(pthread_create(&t[1], NULL, race_thread, &in_order), 0);
	assert_int_equal(pthread_create(&t[2], NULL, race_thread, &reversed), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(t[i], &ret), 0);
		assert_null(ret);
	}
	if (skel->bss->race_v != 0)
		fail_msg("counter at %llu after 3 x %u x %u adds and releases of 4096 bytes",
			 (unsigned long long)skel->bss->race_v, in_order.calls, RACE_LOOP);
}

/* One gpu_mem_total report (gpu, pid, bytes) through the tracer's helper; true if taken. */
static bool gpu_mem(__u32 gpu_id, __u32 pid, __u64 bytes)
{
	__u64 a[3] = { gpu_id, pid, bytes };

	run(skel->progs.test_gpu_mem, a, 3);
	return skel->bss->out_gpu_mem_ok;
}

/* What the map holds for (gpu, pid): its bytes, or 0 when there is no entry. */
static __u64 gpu_mem_held(__u32 gpu_id, __u32 pid)
{
	struct drmtop_gpu_mem_key k = { .gpu_id = gpu_id, .pid = pid };
	__u64 v;

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.gpu_mem), &k, &v))
		return 0;
	return v;
}

/*
 * gpu_mem_total reports a process's new total on every change: the latest replaces the one
 * before, 0 removes the entry (a map of its size stays usable for ever), and a report a full
 * map refuses is said to be refused (the program counts it: gpu_mem_full).
 */
static void test_gpu_mem_report(void **state)
{
	(void)state;
	assert_true(gpu_mem(0, 100, 4096));
	assert_true(gpu_mem(0, 100, 3 << 20));
	assert_int_equal(gpu_mem_held(0, 100), 3 << 20);
	assert_true(gpu_mem(0, 0, 1ull << 33));		/* the GPU's global total */
	assert_int_equal(gpu_mem_held(0, 0), 1ull << 33);
	assert_false(gpu_mem(1, 200, 8192));		/* a third entry: the map holds two */
	assert_int_equal(gpu_mem_held(1, 200), 0);
	assert_true(gpu_mem(0, 100, 0));
	assert_int_equal(gpu_mem_held(0, 100), 0);
	assert_true(gpu_mem(1, 200, 8192));
	assert_int_equal(gpu_mem_held(1, 200), 8192);
	assert_true(gpu_mem(1, 200, 0));
	assert_true(gpu_mem(0, 0, 0));
}

/*
 * A job of client @uid done on scheduler @sched named @name, @busy ns long; true if no map refused
 * an entry.
 */
static bool ring_job(__u64 sched, __u64 uid, const char *name, __u64 busy)
{
	__u64 a[7] = { sched, uid, 0, 0, 0, 0, busy };

	memcpy(&a[2], name, strnlen(name, 4 * sizeof(__u64) - 1));
	run(skel->progs.test_ring_job, a, 7);
	return !skel->bss->out_ring_lost && !skel->bss->out_engine_lost;
}

static void ring_end(__u64 sched)
{
	__u64 a[1] = { sched };

	run(skel->progs.test_ring_end, a, 1);
}

/*
 * The ring name the (client, scheduler) figures carry, the first entry of (@uid, @sched) found
 * (its key in *@k); "" if there is no such entry.
 */
static const char *engine_name(__u64 uid, __u64 sched, struct drmtop_engine_key *k,
			       struct drmtop_engine *e)
{
	int fd = bpf_map__fd(skel->maps.engines);
	struct drmtop_engine_key next, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		*k = next;
		prev = k;
		if (k->uid == uid && k->ring == sched && !bpf_map_lookup_elem(fd, k, e)) {
			e->ring_name[DRMTOP_NAME_LEN - 1] = 0;
			return e->ring_name;
		}
	}
	e->ring_name[0] = 0;
	return "";
}

/*
 * Firmware-scheduled GPUs make a scheduler per user queue, thousands over a day, freed at queue
 * destroy and their addresses handed out again. 2,000 of them, at most four alive at once, on 64
 * addresses, in a rings map of 8 (the tracer's holds 4,096): none may be refused, and each
 * client's figures carry the name its own scheduler had, also once that scheduler is gone and
 * its address another's. A map that only ever grows refused the ninth; one whose entries outlive
 * their scheduler gave the next scheduler at the address the old name.
 */
static void test_rings_follow_schedulers(void **state)
{
	enum { SCHEDS = 2000, ALIVE = 4, ADDRS = 64 };
	__u64 base = 0xffff888100000000ull;
	struct drmtop_engine_key k;
	struct drmtop_engine e;
	char want[32];
	int i;

	(void)state;
	for (i = 0; i < SCHEDS; i++) {
		__u64 sched = base + (__u64)(i % ADDRS) * 0x1000, uid = 1000 + (__u64)i;

		if (i >= ALIVE)
			ring_end(base + (__u64)((i - ALIVE) % ADDRS) * 0x1000);
		ring_end(sched);		/* drm_sched_init */
		snprintf(want, sizeof(want), "%s%d", i % 3 ? "rcs" : "bcs", i);
		if (!ring_job(sched, uid, want, 1))
			fail_msg("scheduler %d of %d: an entry refused (ring %u, engine %u)", i,
				 SCHEDS, skel->bss->out_ring_lost, skel->bss->out_engine_lost);
		assert_true(ring_job(sched, uid, "not read again", 1));
		if (strcmp(engine_name(uid, sched, &k, &e), want))
			fail_msg("scheduler %d at %#llx: figures named \"%s\", not \"%s\"", i,
				 (unsigned long long)sched, e.ring_name, want);
		/* the reader deletes a closed client's figures once read */
		bpf_map_delete_elem(bpf_map__fd(skel->maps.engines), &k);
	}
	/* the last one's figures keep its name once it is gone */
	assert_true(ring_job(base + 0x1000 * 5, 7, "ccs7", 1));
	ring_end(base + 0x1000 * 5);
	assert_string_equal(engine_name(7, base + 0x1000 * 5, &k, &e), "ccs7");
}

/* Busy time of client @uid's figures under ring name @name, summed over its engine entries. */
static __u64 busy_named(__u64 uid, const char *name)
{
	int fd = bpf_map__fd(skel->maps.engines);
	struct drmtop_engine_key k, next, *prev = NULL;
	struct drmtop_engine e;
	__u64 sum = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (k.uid != uid || bpf_map_lookup_elem(fd, &k, &e))
			continue;
		e.ring_name[DRMTOP_NAME_LEN - 1] = 0;
		if (!strcmp(e.ring_name, name))
			sum += e.busy_ns;
	}
	return sum;
}

/*
 * One client, one open file, its user queues made and destroyed while the file stays open (xe
 * exec queues, panthor groups): a scheduler at an address where the client's previous one was,
 * under another name. Its jobs' time goes to the new queue's name, the old queue's figures stay
 * as they were; an engine entry keyed by the scheduler's address alone put it under the old name.
 */
static void test_ring_reused_by_same_client(void **state)
{
	__u64 sched = 0xffff888100040000ull, uid = 42;

	(void)state;
	ring_end(sched);			/* drm_sched_init */
	assert_true(ring_job(sched, uid, "exec-queue-1", 100));
	assert_true(ring_job(sched, uid, "exec-queue-1", 20));
	ring_end(sched);			/* drm_sched_fini */
	ring_end(sched);			/* drm_sched_init, same address */
	assert_true(ring_job(sched, uid, "exec-queue-2", 7000));
	if (busy_named(uid, "exec-queue-2") != 7000 || busy_named(uid, "exec-queue-1") != 120)
		fail_msg("second queue at %#llx: exec-queue-1 %llu ns (want 120), exec-queue-2 %llu "
			 "ns (want 7000)", (unsigned long long)sched,
			 (unsigned long long)busy_named(uid, "exec-queue-1"),
			 (unsigned long long)busy_named(uid, "exec-queue-2"));
	ring_end(sched);
}

/* Runs @prog with @args (@n of them) @calls times, from a thread of its own. */
struct prog_thread {
	struct bpf_program *prog;
	__u64 args[2];
	unsigned int calls;
	pthread_t t;
};

static void *prog_thread_run(void *p)
{
	struct prog_thread *a = p;
	unsigned int i;

	for (i = 0; i < a->calls; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = a->args,
			    .ctx_size_in = sizeof(a->args));

		if (bpf_prog_test_run_opts(bpf_program__fd(a->prog), &opts))
			return (void *)1;
	}
	return NULL;
}

static void run_threads(struct prog_thread *t, int n)
{
	void *ret;
	int i;

	for (i = 0; i < n; i++)
		assert_int_equal(pthread_create(&t[i].t, NULL, prog_thread_run, &t[i]), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(pthread_join(t[i].t, &ret), 0);
		assert_null(ret);
	}
}

/*
 * Done events of one timeline (or ring) run on several CPUs at once: three CPUs keep ending the
 * job just after the timeline's latest end, 20 x 1,000,000 times each, so they often end the
 * same one together. What they count together must be what the timeline covers, no more: a read
 * of the previous end, then a store, let two CPUs both count the same job (and an earlier end
 * overwrite a later one).
 */
static void test_busy_concurrent_done(void **state)
{
	struct prog_thread t[3];
	int i;

	(void)state;
	skel->bss->race_last = 0;
	skel->bss->race_busy = 0;
	skel->bss->out_cas_gave_up = 0;
	for (i = 0; i < 3; i++)
		t[i] = (struct prog_thread){ .prog = skel->progs.test_busy_race,
					     .args = { 0, 1000000 }, .calls = 20 };
	run_threads(t, 3);
	if (skel->bss->race_busy != skel->bss->race_last || !skel->bss->race_last ||
	    skel->bss->out_cas_gave_up)
		fail_msg("busy %llu counted for a timeline covering %llu ns, %llu loops gave up",
			 (unsigned long long)skel->bss->race_busy,
			 (unsigned long long)skel->bss->race_last,
			 (unsigned long long)skel->bss->out_cas_gave_up);
}

/*
 * A shared GEM object's flags, updated from several CPUs (two clients' handle events): three
 * CPUs each set and clear a bit of their own 20 x 1,000,000 times, storing the handle count beside
 * them. No CPU may find its own update undone by another's: an update that did not happen is one
 * whose loop gave up, counted (cas_gave_up, a loss every view shows), and those stay rare. None
 * gave up in most runs at 64 tries; one of the 120,000,000 did in a make test whose host stages
 * ran two at a time (the sanitizer build's), 6 at 32 tries, 54,760 at 8.
 */
#define FLAGS_UPDATES (3ull * 20 * 1000000 * 2)

static void test_flags_concurrent_update(void **state)
{
	struct prog_thread t[3];
	__u64 broken, gave_up;
	int i;

	(void)state;
	skel->bss->flags_broken = 0;
	skel->bss->out_cas_gave_up = 0;
	memset(&skel->bss->race_obj, 0, sizeof(skel->bss->race_obj));
	for (i = 0; i < 3; i++)
		t[i] = (struct prog_thread){ .prog = skel->progs.test_flags_race,
					     .args = { (__u64)i, 1000000 }, .calls = 20 };
	run_threads(t, 3);
	broken = skel->bss->flags_broken;
	gave_up = skel->bss->out_cas_gave_up;
	/* a bit left set is a clear that gave up */
	if (broken != gave_up || gave_up > FLAGS_UPDATES / 1000000 ||
	    (__u64)__builtin_popcount(skel->bss->race_obj.flags) > gave_up)
		fail_msg("%llu updates undone by another CPU's, flags left %#x, %llu loops gave up "
			 "(at most %llu may)", (unsigned long long)broken,
			 skel->bss->race_obj.flags, (unsigned long long)gave_up,
			 FLAGS_UPDATES / 1000000);
}

/* One compare-and-swap loop of test_cas: @kind as there, its value @t. */
static void cas(__u64 kind, __u64 t)
{
	__u64 a[2] = { kind, t };

	run(skel->progs.test_cas, a, 2);
}

/*
 * Each compare-and-swap loop with its word moved at every try, as other CPUs may (the test
 * object's cas_race): it gives up after its tries, counts it (the tracer's cas_gave_up, a loss
 * every view shows) and leaves what it could not store unstored. Without the race each does its
 * job and counts nothing.
 */
static void test_cas_gave_up_counted(void **state)
{
	__u64 tries = skel->rodata->cas_tries;

	(void)state;
	skel->bss->out_cas_gave_up = 0;
	skel->bss->cas_race = 1;
	/* raise 0 to 100, lower 100 to 0: the race's adds alone moved it */
	skel->bss->out_mem = 0;
	cas(0, 100);
	assert_int_equal(skel->bss->out_cas_gave_up, 1);
	assert_int_equal(skel->bss->out_mem, tries);
	skel->bss->out_mem = 100;
	cas(1, 0);
	assert_int_equal(skel->bss->out_cas_gave_up, 2);
	assert_int_equal(skel->bss->out_mem, 100 + tries);
	/* a job from 50 to 60 after an end at 0: its last try's busy, its end not stored */
	skel->bss->out_mem = 0;
	cas(2, 50);
	assert_int_equal(skel->bss->out_cas_gave_up, 3);
	assert_int_equal(skel->bss->out_busy, 10);
	assert_int_equal(skel->bss->out_mem, tries);
	/* a flag set with the count 5: not done, said so */
	memset(&skel->bss->race_obj, 0, sizeof(skel->bss->race_obj));
	cas(3, 5);
	assert_int_equal(skel->bss->out_cas_gave_up, 4);
	assert_int_equal(skel->bss->out_busy, 0);
	assert_int_equal(skel->bss->race_obj.flags, 0);
	assert_int_equal(skel->bss->race_obj.handle_count, skel->rodata->flags_cas_tries);

	skel->bss->cas_race = 0;
	skel->bss->out_mem = 0;
	cas(0, 100);
	assert_int_equal(skel->bss->out_mem, 100);
	cas(1, 40);
	assert_int_equal(skel->bss->out_mem, 40);
	skel->bss->out_mem = 0;
	cas(2, 50);
	assert_int_equal(skel->bss->out_busy, 10);
	assert_int_equal(skel->bss->out_mem, 60);
	cas(3, 5);
	assert_int_equal(skel->bss->out_busy, 1);
	assert_int_equal(skel->bss->race_obj.flags, 1);
	assert_int_equal(skel->bss->race_obj.handle_count, 5);
	assert_int_equal(skel->bss->out_cas_gave_up, 4);
}

static int count_record(void *ctx, void *data, size_t len)
{
	(void)data;
	(void)len;
	(*(int *)ctx)++;
	return 0;
}

/* One close record of client @uid through test_close_wake; whether it woke the reader. */
static bool close_wake(__u64 now, __u64 wake_bytes, __u64 uid)
{
	__u64 a[3] = { now, wake_bytes, uid };

	run(skel->progs.test_close_wake, a, 3);
	assert_true(skel->bss->out_wake_flags == BPF_RB_FORCE_WAKEUP ||
		    skel->bss->out_wake_flags == BPF_RB_NO_WAKEUP);
	return skel->bss->out_wake_flags == BPF_RB_FORCE_WAKEUP;
}

/*
 * Close records wake the reader once in DRMTOP_DRAIN_WAKE_MS, or when the ring holds the bytes
 * asked: a record sent without a wake-up is in the ring all the same, and a reader waiting on
 * the ring is not woken for it (the drain thread's timeout takes it, test_bpf_reader.c).
 */
static void test_close_wakeup_batches(void **state)
{
	const __u64 ms = 1000000, t0 = 1000 * ms, window = DRMTOP_DRAIN_WAKE_MS * ms;
	const size_t rec = sizeof(struct drmtop_client) + 8;	/* BPF_RINGBUF_HDR_SZ */
	const __u64 wake = 5 * rec - 1;
	struct ring_buffer *rb;
	int got = 0, i;

	(void)state;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.closed), count_record, &got, NULL);
	assert_non_null(rb);
	skel->bss->last_wake_ns = 0;
	assert_true(close_wake(t0, wake, 1));
	assert_int_equal(ring_buffer__poll(rb, 0), 1);
	/* the reader caught up: it waits for the next wake-up */
	assert_int_equal(ring_buffer__poll(rb, 0), 0);
	assert_false(close_wake(t0 + ms, wake, 2));
	assert_int_equal(ring_buffer__poll(rb, 0), 0);
	assert_int_equal(ring_buffer__consume(rb), 1);
	assert_false(close_wake(t0 + window - 1, wake, 3));
	assert_true(close_wake(t0 + window, wake, 4));
	assert_int_equal(ring_buffer__consume(rb), 2);
	/* within one window: a wake-up when the ring holds what was asked, not before */
	for (i = 1; i <= 5; i++)
		assert_int_equal(close_wake(t0 + window + i, wake, 4 + i), i * rec >= wake);
	assert_int_equal(ring_buffer__consume(rb), 5);
	assert_int_equal(got, 9);
	ring_buffer__free(rb);
}

/* One idle close of process @tgid on node 226:@minor; true if the program counted it. */
static bool idle_close(__u32 tgid, __u32 minor, __u64 open_ns, __u64 close_ns)
{
	__u64 a[4] = { tgid, minor, open_ns, close_ns };

	run(skel->progs.test_idle, a, 4);
	return skel->bss->out_idle_counted;
}

static struct drmtop_idle_take idle_take_of_test(void)
{
	struct drmtop_idle_take t = { .fd = bpf_map__fd(skel->maps.idle_closed),
				      .sync = &skel->bss->idle_sync };

	return t;
}

/* The entry of @tgid in @s->idle, or NULL. */
static const struct drmtop_bpf_idle *idle_of(const struct drmtop_bpf_snapshot *s, __u32 tgid)
{
	size_t i;

	for (i = 0; i < s->n_idle; i++)
		if (s->idle[i].c.tgid == tgid)
			return &s->idle[i];
	return NULL;
}

static size_t idle_entries(void)
{
	struct drmtop_idle_key k, next;
	size_t n = 0;
	int fd = bpf_map__fd(skel->maps.idle_closed);

	while (!bpf_map_get_next_key(fd, n ? &k : NULL, &next)) {
		k = next;
		n++;
	}
	return n;
}

/*
 * Idle closes are counted per process under the reader's epoch: a take returns each process's
 * count, earliest open and latest close once; closes after the take's epoch change wait for the
 * next take, never counted twice nor lost between the read and the delete; a full map refuses
 * (the program then sends a record); a program still in flight is reported, not waited for ever.
 */
static void test_idle_closes_taken_once(void **state)
{
	struct drmtop_idle_take t = idle_take_of_test();
	struct drmtop_bpf_snapshot s = {}, s2 = {};
	const struct drmtop_bpf_idle *e;
	bool unsettled;
	__u32 pid;

	(void)state;
	assert_true(idle_close(10, 128, 100, 200));
	assert_true(idle_close(10, 128, 50, 300));
	assert_true(idle_close(11, 129, 70, 80));
	assert_int_equal(drmtop_bpf_idle_take(&t, &s, &unsettled), 0);
	assert_false(unsettled);
	assert_int_equal(s.n_idle, 2);
	e = idle_of(&s, 10);
	assert_non_null(e);
	assert_int_equal(e->clients, 2);
	assert_int_equal(e->c.open_ns, 50);
	assert_int_equal(e->c.close_ns, 300);
	assert_int_equal(e->c.dev_major, 226);
	assert_int_equal(e->c.dev_minor, 128);
	assert_int_equal(e->c.minor_index, 0);
	assert_int_equal(e->c.cgroup_id, 7);
	assert_string_equal(e->c.comm, "prober");
	assert_string_equal(e->c.driver, "simgpu");
	assert_int_equal(e->c.flags, DRMTOP_CLIENT_CLOSED);
	e = idle_of(&s, 11);
	assert_non_null(e);
	assert_int_equal(e->clients, 1);
	assert_int_equal(e->c.minor_index, 1);

	/* a close after the epoch moved on, before the taken entries are deleted */
	assert_true(idle_close(10, 128, 400, 500));
	drmtop_bpf_idle_forget(&t);
	assert_int_equal(idle_entries(), 1);
	assert_int_equal(drmtop_bpf_idle_take(&t, &s2, &unsettled), 0);
	assert_int_equal(s2.n_idle, 1);
	assert_int_equal(s2.idle[0].clients, 1);
	assert_int_equal(s2.idle[0].c.open_ns, 400);
	drmtop_bpf_idle_forget(&t);
	assert_int_equal(idle_entries(), 0);
	drmtop_bpf_snapshot_free(&s2);

	/* a take whose snapshot failed (no forget): the next one returns its entries again */
	assert_true(idle_close(12, 128, 1, 2));
	assert_int_equal(drmtop_bpf_idle_take(&t, &s2, &unsettled), 0);
	assert_int_equal(s2.n_idle, 1);
	drmtop_bpf_snapshot_free(&s2);
	assert_int_equal(drmtop_bpf_idle_take(&t, &s2, &unsettled), 0);
	assert_int_equal(s2.n_idle, 1);
	assert_int_equal(s2.idle[0].c.tgid, 12);
	drmtop_bpf_idle_forget(&t);
	drmtop_bpf_snapshot_free(&s2);

	/* the test map holds 4 processes: the fifth is refused */
	for (pid = 20; pid < 24; pid++)
		assert_true(idle_close(pid, 128, 1, 2));
	assert_false(idle_close(24, 128, 1, 2));
	assert_int_equal(drmtop_bpf_idle_take(&t, &s2, &unsettled), 0);
	assert_int_equal(s2.n_idle, 4);
	drmtop_bpf_idle_forget(&t);
	drmtop_bpf_snapshot_free(&s2);

	/* a program that never leaves the epoch the take moves away from */
	skel->bss->idle_sync.inflight[skel->bss->idle_sync.epoch & 1] = 1;
	t.wait_ns = 1000000;
	assert_int_equal(drmtop_bpf_idle_take(&t, &s2, &unsettled), 0);
	assert_true(unsettled);
	skel->bss->idle_sync.inflight[(skel->bss->idle_sync.epoch - 1) & 1] = 0;
	drmtop_bpf_snapshot_free(&s2);
	drmtop_bpf_snapshot_free(&s);
	free(t.keys);
}

#define IDLE_RACE_CLOSES	20000

static void *idle_race_thread(void *arg)
{
	__u32 tgid = (__u32)(uintptr_t)arg, i;

	for (i = 0; i < IDLE_RACE_CLOSES; i++)
		if (!idle_close(tgid, 128, i + 1, i + 2))
			return (void *)"refused";
	return NULL;
}

/*
 * Two threads closing idle clients while the reader takes and deletes, as often as it can:
 * every close is in exactly one take.
 */
static void test_idle_closes_concurrent_take(void **state)
{
	struct drmtop_idle_take t = idle_take_of_test();
	__u64 taken[2] = { 0, 0 };
	pthread_t th[2];
	void *ret[2];
	bool unsettled, joined[2] = { false, false }, running = true;
	size_t i, takes = 0;
	int k;

	(void)state;
	for (k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&th[k], NULL, idle_race_thread,
						(void *)(uintptr_t)(30 + k)), 0);
	while (running) {
		struct drmtop_bpf_snapshot s = {};

		/* the threads' ends are checked before the take: nothing is added after it */
		for (k = 0; k < 2; k++)
			joined[k] = joined[k] || !pthread_tryjoin_np(th[k], &ret[k]);
		running = !joined[0] || !joined[1];
		assert_int_equal(drmtop_bpf_idle_take(&t, &s, &unsettled), 0);
		takes++;
		assert_false(unsettled);
		for (i = 0; i < s.n_idle; i++)
			taken[s.idle[i].c.tgid - 30] += s.idle[i].clients;
		drmtop_bpf_idle_forget(&t);
		drmtop_bpf_snapshot_free(&s);
	}
	assert_null(ret[0]);
	assert_null(ret[1]);
	/* the closes were spread over many takes, each racing the threads */
	assert_true(takes > 10);
	assert_int_equal(taken[0], IDLE_RACE_CLOSES);
	assert_int_equal(taken[1], IDLE_RACE_CLOSES);
	assert_int_equal(idle_entries(), 0);
	free(t.keys);
}

/* Client id @id's file as the tracer records it at an open (@op 0), finds it (1), closes it (2). */
static __u64 client_id_op(__u32 op, __u64 id, __u64 file)
{
	__u64 a[3] = { op, id, file };

	skel->bss->out_id_file = ~0ull;
	run(skel->progs.test_client_id, a, 3);
	return skel->bss->out_id_file;
}

static __u64 id_file(__u64 id)
{
	return client_id_op(1, id, 0);
}

static bool id_spilled(__u64 id)
{
	__u64 f;

	return !bpf_map_lookup_elem(bpf_map__fd(skel->maps.client_ids), &id, &f);
}

/*
 * Ids map to files through a slot each (id modulo DRMTOP_CLIENT_SLOTS) and a small hash for an
 * id whose slot a client still open holds, as a compositor opened at boot holds its slot while
 * thousands of later opens come round to it. Every file is found by its own id only, whichever
 * place holds it, and a close frees that place for the next id: the slot, or the hash entry
 * (four here, none left over after the closes).
 */
static void test_client_id_slots(void **state)
{
	const __u64 n = DRMTOP_CLIENT_SLOTS, old = 5;
	__u64 i;

	(void)state;
	client_id_op(0, old, 0xf0);
	assert_int_equal(id_file(old), 0xf0);
	assert_false(id_spilled(old));
	/* the ids that come round to the compositor's slot go to the hash, found there */
	for (i = 1; i <= 4; i++) {
		client_id_op(0, old + i * n, 0xf0 + i);
		assert_true(id_spilled(old + i * n));
	}
	for (i = 1; i <= 4; i++)
		assert_int_equal(id_file(old + i * n), 0xf0 + i);
	assert_int_equal(id_file(old), 0xf0);
	/* ids not open: none, neither in a held slot nor in a free one */
	assert_int_equal(id_file(old + 5 * n), 0);
	assert_int_equal(id_file(old + 1), 0);
	/* closing a spilled id leaves the slot's client in place, and the reverse */
	client_id_op(2, old + 2 * n, 0);
	assert_false(id_spilled(old + 2 * n));
	assert_int_equal(id_file(old + 2 * n), 0);
	assert_int_equal(id_file(old), 0xf0);
	client_id_op(2, old, 0);
	assert_int_equal(id_file(old), 0);
	assert_int_equal(id_file(old + 3 * n), 0xf3);
	/* the freed slot takes the next id to come round: no hash entry for it */
	client_id_op(0, old + 6 * n, 0xf6);
	assert_false(id_spilled(old + 6 * n));
	assert_int_equal(id_file(old + 6 * n), 0xf6);
	for (i = 1; i <= 6; i++)
		if (i != 2 && i != 5)
			client_id_op(2, old + i * n, 0);
	for (i = 0; i <= 6; i++) {
		assert_int_equal(id_file(old + i * n), 0);
		assert_false(id_spilled(old + i * n));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_sequential),
		cmocka_unit_test(test_busy_overlap),
		cmocka_unit_test(test_busy_deep_ring_matches_union),
		cmocka_unit_test(test_timeline_busy_basic),
		cmocka_unit_test(test_timeline_busy_lanes),
		cmocka_unit_test(test_lane_end_held),
		cmocka_unit_test(test_skipped_done_lanes),
		cmocka_unit_test(test_lost_run_start),
		cmocka_unit_test(test_done_only_start),
		cmocka_unit_test(test_lat_bucket),
		cmocka_unit_test(test_mem_add_sub),
		cmocka_unit_test(test_mem_concurrent_release),
		cmocka_unit_test(test_gpu_mem_report),
		cmocka_unit_test(test_rings_follow_schedulers),
		cmocka_unit_test(test_ring_reused_by_same_client),
		cmocka_unit_test(test_busy_concurrent_done),
		cmocka_unit_test(test_flags_concurrent_update),
		cmocka_unit_test(test_cas_gave_up_counted),
		cmocka_unit_test(test_close_wakeup_batches),
		cmocka_unit_test(test_idle_closes_taken_once),
		cmocka_unit_test(test_idle_closes_concurrent_take),
		cmocka_unit_test(test_client_id_slots),
	};

	return cmocka_run_group_tests_name("bpf_account", tests, setup, teardown);
}
