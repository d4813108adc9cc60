// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop_test.bpf.c: raw_tp wrappers around the accounting helpers of drmtop_account.bpf.h, so
 * tests/unit/test_bpf_account.c can run the very code the tracer runs on the host kernel with
 * BPF_PROG_TEST_RUN (raw_tp programs accept a made-up context: the u64 arguments below).
 * Touches no DRM type: it loads on any kernel with BPF, drm module or not.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "drmtop_account.bpf.h"

/* compare-and-swap loops that gave up (the tracer counts cas_gave_up): the race tests want none */
__u64 out_cas_gave_up;

static __always_inline void drmtop_cas_gave_up(void)
{
	__sync_fetch_and_add(&out_cas_gave_up, 1);
}

/* Set by a test: each loop's word moves between its read and its swap, so every try fails. */
__u32 cas_race;
/* the loops' tries, for the test to expect */
const volatile __u32 cas_tries = DRMTOP_CAS_TRIES;
const volatile __u32 flags_cas_tries = DRMTOP_FLAGS_CAS_TRIES;

static __always_inline void drmtop_cas_race(__u64 *v)
{
	if (cas_race)
		__sync_fetch_and_add(v, 1);
}

char LICENSE[] SEC("license") = "GPL";

/* Results of the latest run, read back by the test through the skeleton's bss. */
__u64 out_busy;
__u64 out_last_done;
__u32 out_bucket;
__u64 out_mem;
__u32 out_mem_ok;

SEC("raw_tp/drmtop_test_busy")
int BPF_PROG(test_busy, __u64 run_ns, __u64 done_ns, __u64 last_done_ns)
{
	__u64 last = last_done_ns;

	out_busy = drmtop_busy_ns(run_ns, done_ns, &last);
	out_last_done = last;
	return 0;
}

/* gpu_mem_total reports of test_gpu_mem, as the tracer's own map (drmtop_drm.bpf.c) but small. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct drmtop_gpu_mem_key);
	__type(value, __u64);
} gpu_mem SEC(".maps");

__u32 out_gpu_mem_ok;

SEC("raw_tp/drmtop_test_gpu_mem")
int BPF_PROG(test_gpu_mem, __u32 gpu_id, __u32 pid, __u64 size)
{
	out_gpu_mem_ok = drmtop_gpu_mem_report(&gpu_mem, gpu_id, pid, size);
	return 0;
}

/* Hardware timelines of test_lane_end, as the tracer's own map (drmtop_sched.bpf.c). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct drmtop_timeline);
} timelines SEC(".maps");

__u32 out_held;

/* A job's end with its hardware fence seqno, held or not as on_done (drmtop_sched.bpf.c) does. */
SEC("raw_tp/drmtop_test_lane_end")
int BPF_PROG(test_lane_end, __u64 ctx_id, __u64 seqno, __u64 run_ns, __u64 done_ns,
	     __u64 may_hold)
{
	unsigned int lane = may_hold ? DRMTOP_LANE_MAY_HOLD : 0;

	out_busy = drmtop_timeline_busy_ns(&timelines, ctx_id, seqno, run_ns, done_ns, &lane);
	out_held = !!(lane & DRMTOP_LANE_HELD);
	return 0;
}

__u64 out_slack;

/* A job's busy time and start slack, as on_done in drmtop_sched.bpf.c computes them. */
SEC("raw_tp/drmtop_test_job_time")
int BPF_PROG(test_job_time, __u64 ctx_id, __u64 run_ns, __u64 queue_ns, __u64 fence_ns,
	     __u64 done_ns)
{
	__u64 start = drmtop_job_start(run_ns, queue_ns, fence_ns);
	__u64 latest = drmtop_latest_start(run_ns, fence_ns, done_ns);
	unsigned int lane = 0;

	if (start)
		out_busy = drmtop_timeline_busy_ns(&timelines, ctx_id, 0, start, done_ns, &lane);
	else
		out_busy = 0;
	out_slack = drmtop_start_slack(run_ns, start, latest, out_busy, done_ns);
	return 0;
}

SEC("raw_tp/drmtop_test_bucket")
int BPF_PROG(test_bucket, __u64 ns)
{
	out_bucket = drmtop_lat_bucket(ns);
	return 0;
}

/* Counter several CPUs add to and subtract from at once (test_mem_race). */
__u64 race_v;

struct race {
	__u64 op;
	__u64 bytes;
};

static long race_step(__u32 i, struct race *r)
{
	if (r->op) {
		drmtop_mem_sub(&race_v, r->bytes);
		drmtop_mem_add(&race_v, r->bytes);
	} else {
		drmtop_mem_add(&race_v, r->bytes);
		drmtop_mem_sub(&race_v, r->bytes);
	}
	return 0;
}

/*
 * @n times, on race_v: op 0 adds @bytes then releases them, op 1 releases them first (a release
 * that a CPU runs before the add it follows); a loop inside, so CPUs overlap
 */
SEC("raw_tp/drmtop_test_mem_race")
int BPF_PROG(test_mem_race, __u64 op, __u64 bytes, __u64 n)
{
	struct race r = { .op = op, .bytes = bytes };

	bpf_loop(n, race_step, &r, 0);
	return 0;
}

/* op 0 adds, op 1 subtracts @bytes from @start */
SEC("raw_tp/drmtop_test_mem")
int BPF_PROG(test_mem, __u64 start, __u64 op, __u64 bytes)
{
	__u64 v = start;

	out_mem_ok = 1;
	if (op)
		out_mem_ok = drmtop_mem_sub(&v, bytes);
	else
		drmtop_mem_add(&v, bytes);
	out_mem = v;
	return 0;
}

/* Schedulers and (client, scheduler) figures of test_ring_job, as the tracer's own maps, small. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u64);
	__type(value, struct drmtop_ring);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct drmtop_engine_key);
	__type(value, struct drmtop_engine);
} engines SEC(".maps");

__u32 out_ring_lost;
__u32 out_engine_lost;
__u64 ring_seq;

/*
 * A job of client @uid, @busy ns long, done on scheduler @sched named by the 32 bytes @n0..@n3, as
 * on_done in drmtop_sched.bpf.c meets it: the ring's entry (made with that name if missing), then
 * the client's engine entry on it.
 */
SEC("raw_tp/drmtop_test_ring_job")
int BPF_PROG(test_ring_job, __u64 sched, __u64 uid, __u64 n0, __u64 n1, __u64 n2, __u64 n3,
	     __u64 busy)
{
	struct drmtop_ring fresh = {}, *r;
	__u64 *name = (__u64 *)fresh.name;
	struct drmtop_engine *e;
	bool lost;

	name[0] = n0;
	name[1] = n1;
	name[2] = n2;
	name[3] = n3;
	fresh.name[DRMTOP_NAME_LEN - 1] = 0;
	fresh.seq = ++ring_seq;		/* the tracer's from its uid sequence */
	r = drmtop_ring_get(&rings, sched, &fresh, &lost);
	out_ring_lost = lost;
	e = drmtop_engine_get(&engines, uid, sched, r, &lost);
	out_engine_lost = lost;
	if (e)
		__sync_fetch_and_add(&e->busy_ns, busy);
	return 0;
}

/* drm_sched_init or drm_sched_fini of @sched */
SEC("raw_tp/drmtop_test_ring_end")
int BPF_PROG(test_ring_end, __u64 sched)
{
	drmtop_ring_end(&rings, sched);
	return 0;
}

/*
 * A hardware timeline whose done events several CPUs run at once (test_busy_race): race_last is
 * its latest end, race_busy what the jobs counted. Each of @n jobs is the 1 ns after the latest
 * end its CPU sees, so the CPUs keep finishing the same job at once: together they may count
 * no more than the timeline covers, race_last ns.
 */
__u64 race_last;
__u64 race_busy;

static long busy_race_step(__u32 i, void *ctx)
{
	__u64 t = *(volatile __u64 *)&race_last;

	__sync_fetch_and_add(&race_busy, drmtop_busy_ns_shared(t, t + 1, &race_last));
	return 0;
}

SEC("raw_tp/drmtop_test_busy_race")
int BPF_PROG(test_busy_race, __u64 unused, __u64 n)
{
	bpf_loop(n, busy_race_step, NULL, 0);
	return 0;
}

/*
 * Flags of one object that several CPUs update (test_flags_race): each call sets its bit @bit,
 * checks that it is set, clears it and checks that it is clear, @n times, while other CPUs do
 * the same with other bits, storing the handle count beside the flags; flags_broken counts the
 * checks that failed (an update of another CPU undid this one's, or never got its turn).
 */
struct drmtop_object race_obj;
__u64 flags_broken;

static long flags_race_step(__u32 i, __u32 *bit)
{
	__u32 b = 1u << (*bit & 15);

	if (!drmtop_flags_update(&race_obj.handle_count, i, b, 0) ||
	    !(*(volatile __u32 *)&race_obj.flags & b))
		__sync_fetch_and_add(&flags_broken, 1);
	if (!drmtop_flags_update(&race_obj.handle_count, -1, 0, b) ||
	    *(volatile __u32 *)&race_obj.flags & b)
		__sync_fetch_and_add(&flags_broken, 1);
	return 0;
}

SEC("raw_tp/drmtop_test_flags_race")
int BPF_PROG(test_flags_race, __u64 bit, __u64 n)
{
	__u32 b = bit;

	bpf_loop(n, flags_race_step, &b, 0);
	return 0;
}

/*
 * Each compare-and-swap loop once on out_mem (@kind 0 raise to @t, 1 lower to @t, 2 a job from
 * @t to @t + 10 after an end at out_mem, 3 flags of race_obj): out_busy is its result (the busy
 * ns; the flags' update 1 if done).
 */
SEC("raw_tp/drmtop_test_cas")
int BPF_PROG(test_cas, __u64 kind, __u64 t)
{
	if (kind == 0)
		drmtop_raise(&out_mem, t);
	else if (kind == 1)
		drmtop_lower(&out_mem, t);
	else if (kind == 2)
		out_busy = drmtop_busy_ns_shared(t, t + 10, &out_mem);
	else
		out_busy = drmtop_flags_update(&race_obj.handle_count, t, 1, 0);
	return 0;
}

/* A job made from its done event alone, counted at its cleanup (drmtop_sched.bpf.c). */
SEC("raw_tp/drmtop_test_done_only")
int BPF_PROG(test_done_only, __u64 unit_end, __u64 queue_ns, __u64 fence_ns, __u64 done_ns)
{
	out_busy = drmtop_done_only_busy(unit_end, queue_ns, fence_ns, done_ns, &out_slack);
	return 0;
}

/*
 * Kernel memory for made-up kernel objects (tests/unit/test_bpf_sched_events.c): the test writes
 * a drm_sched_job, its fence and its scheduler here through the skeleton's mapping, and hands
 * their kernel addresses (from out_fake_kernel) to the tracer's own programs, whose
 * BPF_CORE_READs read them as they read the kernel's.
 */
__u8 fake_kernel[16384];
__u64 out_fake_kernel;

SEC("raw_tp/drmtop_test_fake_kernel")
int BPF_PROG(test_fake_kernel)
{
	out_fake_kernel = (__u64)fake_kernel;
	return 0;
}

/* Close records of test_close_wake: small, so a few records fill a quarter of it. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} closed SEC(".maps");

__u64 last_wake_ns;
__u64 out_wake_flags;

/* A close record of client @uid reserved at @now and submitted as drmtop_send_closed() does. */
SEC("raw_tp/drmtop_test_close_wake")
int BPF_PROG(test_close_wake, __u64 now, __u64 wake_bytes, __u64 uid)
{
	struct drmtop_client *rec = bpf_ringbuf_reserve(&closed, sizeof(*rec), 0);

	if (!rec)
		return 1;
	__builtin_memset(rec, 0, sizeof(*rec));
	rec->uid = uid;
	rec->flags = DRMTOP_CLIENT_CLOSED;
	out_wake_flags = drmtop_close_wakeup(&closed, now, &last_wake_ns, wake_bytes);
	bpf_ringbuf_submit(rec, out_wake_flags);
	return 0;
}

/* Idle closes of test_idle, as the tracer's own map (drmtop_drm.bpf.c) but small. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct drmtop_idle_key);
	__type(value, struct drmtop_idle);
} idle_closed SEC(".maps");

struct drmtop_idle_sync idle_sync;
__u32 out_idle_counted;

/* One idle close of process @tgid on node 226:@minor, opened at @open_ns, closed at @close_ns. */
SEC("raw_tp/drmtop_test_idle")
int BPF_PROG(test_idle, __u32 tgid, __u32 minor, __u64 open_ns, __u64 close_ns)
{
	struct drmtop_idle_key k = { .cgroup_id = 7, .tgid = tgid, .dev_major = 226,
				     .dev_minor = minor, .comm = "prober" };
	char driver[DRMTOP_NAME_LEN] = "simgpu";

	out_idle_counted = drmtop_idle_add(&idle_closed, &idle_sync, &k, open_ns, close_ns,
					   minor - 128, driver);
	return 0;
}

/* Client ids of test_client_id, as the tracer's maps (drmtop_common.bpf.h); the spill small. */
DRMTOP_CLIENT_SLOTS_MAP(client_slots);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u64);
	__type(value, __u64);
} client_ids SEC(".maps");

__u64 out_id_file;

/* @op 0: client @id opens @file; 1: looks the id's file up (out_id_file); 2: closes. */
SEC("raw_tp/drmtop_test_client_id")
int BPF_PROG(test_client_id, __u32 op, __u64 id, __u64 file)
{
	if (op == 0)
		drmtop_id_add(&client_slots, &client_ids, id, file);
	else if (op == 1)
		out_id_file = drmtop_id_file(&client_slots, &client_ids, id);
	else
		drmtop_id_del(&client_slots, &client_ids, id);
	return 0;
}

/* Parked clients of test_park, as the tracer's maps (drmtop_common.bpf.h); the hash small. */
DRMTOP_PARKED_MAP(parked);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u64);
	__type(value, struct drmtop_client);
} park_clients SEC(".maps");

__u64 out_park;

/*
 * @op 0: client @uid of @file parks (out_park 1 if it did); 1: a hook meets @file (out_park the
 * uid of its client in park_clients, 0 if none); 2: @file's close begins (out_park the uid of
 * the client its slot holds, 0 if none); 3: the close gives the slot up; 4: whether @file holds
 * its slot.
 */
SEC("raw_tp/drmtop_test_park")
int BPF_PROG(test_park, __u32 op, __u64 file, __u64 uid)
{
	struct drmtop_client c = { .uid = uid, .file = file }, *cp;
	struct drmtop_parked *p;

	if (op == 0) {
		out_park = drmtop_park(&parked, &c, file);
	} else if (op == 1) {
		cp = drmtop_unpark(&parked, &park_clients, file);
		out_park = cp ? cp->uid : 0;
	} else if (op == 2) {
		p = drmtop_park_closing(&parked, file);
		out_park = p ? p->c.uid : 0;
	} else if (op == 3) {
		drmtop_park_release(drmtop_parked_slot(&parked, file), file);
	} else {
		out_park = drmtop_park_holds(&parked, file);
	}
	return 0;
}
