/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drmtop_account.bpf.h: the accounting arithmetic of the tracer, free of kernel types so the
 * same code runs in the real programs (drmtop_sched.bpf.c, drmtop_drm.bpf.c) and in the test
 * object (drmtop_test.bpf.c) that tests/unit/test_bpf_account.c drives with BPF_PROG_TEST_RUN.
 */
#ifndef DRMTOP_ACCOUNT_BPF_H
#define DRMTOP_ACCOUNT_BPF_H

#include "drmtop_bpf.h"

#define EEXIST 17

/*
 * Whether an insert with BPF_NOEXIST lost the entry: a racing insert of the same key is no
 * loss; anything else is: E2BIG for a full map, and also EBUSY (a bucket lock held by a
 * program this one interrupted). Compared as int: on 6.1.0-56 the helper's result reaches the
 * program zero-extended (-EEXIST seen as 4294967279 in VM case 47), so a 64-bit compare with
 * -E2BIG never matched there and full maps went uncounted.
 */
static __always_inline bool drmtop_insert_lost(long err)
{
	return (int)err && (int)err != -EEXIST;
}

/*
 * Busy time of a job that ran from @run_ns to @done_ns on a ring whose previous job finished at
 * *@last_done_ns. A ring with a hardware queue deeper than one has several jobs "running" at
 * once, but jobs on one ring finish in order, so the job only adds the time after the previous
 * job finished: the union of the intervals, as drm_sched itself computes a job's start
 * (drm_sched_get_finished_job). *@last_done_ns advances to @done_ns.
 */
static __always_inline __u64 drmtop_busy_ns(__u64 run_ns, __u64 done_ns, __u64 *last_done_ns)
{
	__u64 start = run_ns > *last_done_ns ? run_ns : *last_done_ns;

	if (done_ns > *last_done_ns)
		*last_done_ns = done_ns;
	return done_ns > start ? done_ns - start : 0;
}

/*
 * Tries of a compare-and-swap loop: each failed try means another CPU moved the value on within
 * the few instructions of one try, so eight in a row take CPUs ending jobs of the same ring or
 * unit back to back, which done events a job apart do not. The verifier walks every try on
 * every path: 64 tries made the done program 270,560 instructions to verify on Debian 7.2 (a
 * quarter of the kernel's limit, paid at every tracer start), 8 make it 30,130
 * (`drmtop -J -n 1 --source bpf`, bpf.programs[].verified_insns; VM case 60 holds each program
 * under 100,000).
 */
#define DRMTOP_CAS_TRIES	8

/*
 * drmtop_flags_update()'s: it swaps on every call (a bit set or cleared, the count stored), so
 * CPUs updating one object at once collide at every try. The race test (three threads on two
 * CPUs, 60,000,000 updates) once saw 54,760 give up at 8 tries, and 6 at 32 in its sanitizer
 * build; at 64, as every loop had before 37f7796, no run of it failed. drmtop_handle_create then
 * verifies in 17,929 instructions on Debian 7.2 and 34,335 on 6.1 (case 60's
 * bpf.programs[].verified_insns, its budget 100,000).
 */
#define DRMTOP_FLAGS_CAS_TRIES	64

/*
 * A loop that gave up, its update lost or its figure possibly off: never silent. Each object
 * including this defines it (the tracer's count cas_gave_up, a loss, in drmtop_common.bpf.h).
 */
static __always_inline void drmtop_cas_gave_up(void);

/*
 * Called between a loop's read of its word and its swap: empty in the tracer
 * (drmtop_common.bpf.h). The test object moves the word there, as another CPU may at every
 * try, so that tests/unit/test_bpf_account.c can make each loop give up and see it counted.
 */
static __always_inline void drmtop_cas_race(__u64 *v);

/* *@v raised to @t if lower, against concurrent raises on other CPUs. */
static __always_inline void drmtop_raise(__u64 *v, __u64 t)
{
	__u64 old;
	int i;

	for (i = 0; i < DRMTOP_CAS_TRIES; i++) {
		old = *(volatile __u64 *)v;
		drmtop_cas_race(v);
		if (old >= t || __sync_val_compare_and_swap(v, old, t) == old)
			return;
	}
	drmtop_cas_gave_up();
}

/* *@v lowered to @t if higher, as drmtop_raise(). */
static __always_inline void drmtop_lower(__u64 *v, __u64 t)
{
	__u64 old;
	int i;

	for (i = 0; i < DRMTOP_CAS_TRIES; i++) {
		old = *(volatile __u64 *)v;
		drmtop_cas_race(v);
		if (old <= t || __sync_val_compare_and_swap(v, old, t) == old)
			return;
	}
	drmtop_cas_gave_up();
}

/*
 * drmtop_busy_ns() on a *@last_done_ns in a map, that done events on other CPUs update at the
 * same time: each job counts only the time between the value it replaced and its end, so two
 * jobs never both count the same stretch (a read, then a store, let both count it, and let an
 * earlier end overwrite a later one). Should the value move on at every try, the last try's
 * figure stands and the end is not stored: counted (cas_gave_up), with no second loop to raise
 * it, which the verifier walked on every path once the give-up was counted (the done program
 * 63,293 instructions to verify on Debian 7.2, 44,626 without it: case 60's verified_insns).
 */
static __always_inline __u64 drmtop_busy_ns_shared(__u64 run_ns, __u64 done_ns,
						   __u64 *last_done_ns)
{
	__u64 last, next, busy = 0;
	int i;

	for (i = 0; i < DRMTOP_CAS_TRIES; i++) {
		last = *(volatile __u64 *)last_done_ns;
		next = last;
		busy = drmtop_busy_ns(run_ns, done_ns, &next);
		drmtop_cas_race(last_done_ns);
		if (next == last || __sync_val_compare_and_swap(last_done_ns, last, next) == last)
			return busy;
	}
	drmtop_cas_gave_up();
	return busy;
}

/*
 * Sets @set and clears @clear in the 32-bit flags that share an aligned 64-bit word with a count
 * (the word starts at @count, the flags its upper half: little-endian, as x86-64 and arm64), and
 * stores @new_count (if not negative) in the same swap: BPF has no 32-bit atomic or/and before
 * -mcpu=v3, so a compare-and-swap of the whole word. A read-modify-write of the flags lost a
 * bit another CPU set meanwhile. False if other CPUs kept changing the word.
 */
static __always_inline bool drmtop_flags_update(__u32 *count, long new_count, __u32 set,
						__u32 clear)
{
	__u64 *w = (__u64 *)count, old, next;
	int i;

	for (i = 0; i < DRMTOP_FLAGS_CAS_TRIES; i++) {
		old = *(volatile __u64 *)w;
		next = (old | (__u64)set << 32) & ~((__u64)clear << 32);
		if (new_count >= 0)
			next = (next & ~0xffffffffull) | (__u32)new_count;
		drmtop_cas_race(w);
		if (next == old || __sync_val_compare_and_swap(w, old, next) == old)
			return true;
	}
	drmtop_cas_gave_up();
	return false;
}

/* In and out of drmtop_timeline_busy_ns()'s *@flags */
#define DRMTOP_LANE_MAY_HOLD	(1u << 0)	/* in: a job past an unaccounted one is held */
#define DRMTOP_LANE_MADE	(1u << 1)	/* out: this call put the timeline in the map */
#define DRMTOP_LANE_HELD	(1u << 2)	/* out: nothing counted, the timeline unchanged */

/*
 * Busy time of a job that ran on the hardware timeline @ctx from @run_ns to @done_ns:
 * drmtop_busy_ns() against that timeline's previous completion, kept in @timelines.
 *
 * Why per timeline and not per ring: a ring (drm_gpu_scheduler) may feed several execution
 * units at once (simgpu's engine_capacity lanes; drm-engine-capacity-<e> in fdinfo), whose jobs
 * overlap and finish out of order, and drm-engine-<e> sums their busy time over the units. The
 * in-order rule only holds within one unit: dma_fence requires fences of one context to signal
 * in order, and says each execution context that can run independently gets its own context
 * (dma_fence_context_alloc), so the hardware fence's context names the unit. A job starts at
 * its run event unless that unit was still busy with the job before it. The tracer never needs
 * to know how many units there are. A ring whose hardware fences all come from one context (every
 * in-tree drm_sched driver checked, see drmtop_sched.bpf.c) gets the per-ring rule as before.
 *
 * @seqno is the job's hardware fence seqno (0: none). With DRMTOP_LANE_MAY_HOLD, a job whose
 * seqno is not the one after the timeline's latest accounted job is held: nothing counted,
 * DRMTOP_LANE_HELD set, for the caller to count it at its cleanup. The job before it on the unit
 * lost its done event and waits for its cleanup (drm_sched frees jobs in the order they ran, so
 * that one's comes first): counted now, this job would start at its run event, take the unit's
 * time the other ran, and leave that one nothing. A seqno the driver spent on a fence that is
 * no job (a gap that is no lost job) holds a job until its cleanup too: late, not wrong.
 *
 * A timeline the map cannot hold (an LRU map: evicted after about its size of busier ones)
 * starts again with no previous completion: its next job counts from its run event.
 */
static __always_inline __u64 drmtop_timeline_busy_ns(void *timelines, __u64 ctx, __u64 seqno,
						     __u64 run_ns, __u64 done_ns,
						     unsigned int *flags)
{
	struct drmtop_timeline zero = {}, *t;
	__u64 last = 0, busy;

	t = bpf_map_lookup_elem(timelines, &ctx);
	if (!t) {
		if (!bpf_map_update_elem(timelines, &ctx, &zero, BPF_NOEXIST))
			*flags |= DRMTOP_LANE_MADE;
		t = bpf_map_lookup_elem(timelines, &ctx);
	}
	if (!t)
		return drmtop_busy_ns(run_ns, done_ns, &last);
	if ((*flags & DRMTOP_LANE_MAY_HOLD) && seqno && t->last_seqno &&
	    seqno != t->last_seqno + 1) {
		*flags |= DRMTOP_LANE_HELD;
		return 0;
	}
	/*
	 * One context's fences signal in order, but their done callbacks may run on two CPUs at
	 * once (a job made up at its cleanup, or two completion paths).
	 */
	busy = drmtop_busy_ns_shared(run_ns, done_ns, &t->last_done_ns);
	/*
	 * After the end, and a plain store: a job that reads this seqno then finds the end moved
	 * on in its compare-and-swap. The latest stored, not the highest: a seqno that went back
	 * (a 32-bit counter wrapped, a job made up late) holds the next job once, no more.
	 */
	if (seqno)
		t->last_seqno = seqno;
	return busy;
}

/* When the last job on hardware timeline @ctx ended; 0 if the map holds no such timeline. */
static __always_inline __u64 drmtop_timeline_last(void *timelines, __u64 ctx)
{
	struct drmtop_timeline *t = bpf_map_lookup_elem(timelines, &ctx);

	return t ? t->last_done_ns : 0;
}

/*
 * The earliest a job can have started: its run event, or for a job whose run event the tracer
 * did not see, its queue time (0: unknown) if before @fence_ns, the time of its scheduled fence
 * (0: none; then the queue time, else 0: no start). Not the fence's time itself: drm_sched moves
 * it, when it frees a job, to that job's end (drm_sched_get_finished_job, in 6.1 to 7.2), which
 * on a ring of several execution units may be on another unit and well after this job started;
 * the timeline rule (drmtop_timeline_busy_ns) then moves the start up to its unit's previous
 * end, and drmtop_start_slack() says how much later it may have been.
 */
static __always_inline __u64 drmtop_job_start(__u64 run_ns, __u64 queue_ns, __u64 fence_ns)
{
	if (run_ns)
		return run_ns;
	return queue_ns && (!fence_ns || queue_ns < fence_ns) ? queue_ns : fence_ns;
}

/*
 * The latest a job can have started, for drmtop_start_slack(): its scheduled fence's time; for
 * a job whose run event was lost and whose fence has no time to trust (the scheduler thread was
 * preempted between run_job and signalling it until after the job ended: seen on 6.12 under
 * TCG), its end: the whole job is the bracket, rather than the job lost.
 */
static __always_inline __u64 drmtop_latest_start(__u64 run_ns, __u64 fence_ns, __u64 done_ns)
{
	return fence_ns || run_ns ? fence_ns : done_ns;
}

/*
 * How much of @busy (a job counted from @start, or from its unit's previous end if later, to
 * @done_ns) may be before the job really started: up to its scheduled fence's time @fence_ns,
 * which drm_sched signals after the driver's run_job took the job. A job seen at its run event
 * that waited for its unit started exactly at the unit's previous end: no slack. Capped at @busy.
 * A fence time that drm_sched moved earlier than the start (a job freed after the next one was
 * handed over) makes the slack short of the truth by that much; it can only matter to a job whose
 * run event was lost.
 */
static __always_inline __u64 drmtop_start_slack(__u64 run_ns, __u64 start, __u64 fence_ns,
						__u64 busy, __u64 done_ns)
{
	__u64 counted = done_ns - busy;

	if (!busy || fence_ns <= counted || (run_ns && counted != start))
		return 0;
	return fence_ns - counted < busy ? fence_ns - counted : busy;
}

/*
 * The rings entry of scheduler @key, made from @fresh (its name, device and a new seq, filled by
 * the caller) if missing; NULL and *@lost set when the map refused it (full). Entries live as
 * long as their scheduler: drmtop_ring_end() at drm_sched_init (a new scheduler at an address an
 * old one had: its name is read again, its seq is new) and at drm_sched_fini (firmware-scheduled
 * drivers make thousands over a day, one per user queue, each freed at queue destroy).
 */
static __always_inline struct drmtop_ring *drmtop_ring_get(void *rings, __u64 key,
							    const struct drmtop_ring *fresh,
							    bool *lost)
{
	struct drmtop_ring *r = bpf_map_lookup_elem(rings, &key);

	*lost = false;
	if (r)
		return r;
	*lost = drmtop_insert_lost(bpf_map_update_elem(rings, &key, fresh, BPF_NOEXIST));
	return bpf_map_lookup_elem(rings, &key);
}

static __always_inline void drmtop_ring_end(void *rings, __u64 key)
{
	bpf_map_delete_elem(rings, &key);
}

/*
 * The engines entry of (@uid, @ring) for the scheduler now at @ring (@r, its rings entry, may be
 * NULL: refused), made if missing with @r's name: the name stays with the client's figures after
 * the scheduler is gone. NULL and *@lost set when the map refused it.
 */
static __always_inline struct drmtop_engine *drmtop_engine_get(void *engines, __u64 uid,
								__u64 ring,
								const struct drmtop_ring *r,
								bool *lost)
{
	struct drmtop_engine_key k = { .uid = uid, .ring = ring, .ring_seq = r ? r->seq : 0 };
	struct drmtop_engine *e = bpf_map_lookup_elem(engines, &k);
	static const struct drmtop_engine zero;

	*lost = false;
	if (e)
		return e;
	if (drmtop_insert_lost(bpf_map_update_elem(engines, &k, &zero, BPF_NOEXIST))) {
		*lost = true;
		return NULL;
	}
	e = bpf_map_lookup_elem(engines, &k);
	if (e && r && !e->ring_name[0])
		__builtin_memcpy(e->ring_name, r->name, sizeof(e->ring_name));
	return e;
}

/*
 * Busy time of a job made from its done event alone (its queue and run events skipped), counted
 * when it is freed, and in *@slack how much of it may precede its start. The evidence: it started
 * no earlier than its unit's previous end @unit_end (0: unknown, the first job seen there or the
 * LRU dropped the entry) nor than it was queued, @queue_ns (drm_sched_job.submit_ts, read at its
 * cleanup; 0: unknown), and ended at @done_ns. Its scheduled fence's time @fence_ns is no bound:
 * drm_sched moves it, when the job before it in the ring is freed, to that one's end, which on a
 * ring of several units is another unit's and may be well after this job started (a 70 ms job
 * counted 39 ms from it) or, behind an idle gap, before it was queued. So the job counts from the
 * later of the two earliest starts (never a whole idle gap of its unit), and the time up to its
 * fence, or all of it if the fence is before that, is the bracket. Nothing earlier known: from
 * its fence, no bracket (as before).
 */
static __always_inline __u64 drmtop_done_only_busy(__u64 unit_end, __u64 queue_ns,
						   __u64 fence_ns, __u64 done_ns, __u64 *slack)
{
	__u64 start = unit_end > queue_ns ? unit_end : queue_ns, busy;

	*slack = 0;
	if (!start)
		start = fence_ns;
	if (!start || start >= done_ns)
		return 0;
	busy = done_ns - start;
	*slack = drmtop_start_slack(0, start, fence_ns >= start ? fence_ns : done_ns, busy,
				    done_ns);
	return busy;
}

/* log2 bucket of a latency in ns: 0 and 1 ns land in bucket 0, the last bucket is open-ended. */
static __always_inline __u32 drmtop_lat_bucket(__u64 ns)
{
	__u32 b = 0;

	if (ns >> 32) {
		ns >>= 32;
		b += 32;
	}
	if (ns >> 16) {
		ns >>= 16;
		b += 16;
	}
	if (ns >> 8) {
		ns >>= 8;
		b += 8;
	}
	if (ns >> 4) {
		ns >>= 4;
		b += 4;
	}
	if (ns >> 2) {
		ns >>= 2;
		b += 2;
	}
	if (ns >> 1)
		b += 1;
	return b < DRMTOP_LAT_BUCKETS ? b : DRMTOP_LAT_BUCKETS - 1;
}

/*
 * Memory counters never wrap, because both directions are single atomic operations and every
 * subtract follows its add: the programs add a handle's or object's bytes before they publish
 * the map entry a release looks up. The former check of the value followed by a subtract (or
 * a plain store of 0) was not atomic: two releases could both pass the check and wrap the
 * counter, a store of 0 lost adds racing with it, and a release that ran before its add was
 * clamped and its bytes then counted for ever. drmtop_mem_sub returns false when it took more
 * than the counter held (bytes never added: a missed event), for the caller to count.
 */
static __always_inline void drmtop_mem_add(__u64 *v, __u64 bytes)
{
	__sync_fetch_and_add(v, bytes);
}

static __always_inline bool drmtop_mem_sub(__u64 *v, __u64 bytes)
{
	return __sync_fetch_and_sub(v, bytes) >= bytes;
}

/*
 * A gpu_mem_total report into @totals: the driver's latest total for (@gpu_id, @pid) replaces
 * the one before, and a total of 0 (the process holds nothing on that GPU any more) removes
 * its entry. Returns false when the map refused a new entry (full), for the caller to count.
 */
static __always_inline bool drmtop_gpu_mem_report(void *totals, __u32 gpu_id, __u32 pid,
						  __u64 size)
{
	struct drmtop_gpu_mem_key k = { .gpu_id = gpu_id, .pid = pid };

	if (!size) {
		bpf_map_delete_elem(totals, &k);
		return true;
	}
	return !bpf_map_update_elem(totals, &k, &size, BPF_ANY);
}

/*
 * The bpf_ringbuf_submit() flags of a close record reserved in @ring at @now: a wake-up of the
 * reader only when none was sent for DRMTOP_DRAIN_WAKE_MS (*@last_wake_ns) or the ring holds
 * @wake_bytes, else none. The default, a wake-up whenever the reader had caught up, woke its
 * drain thread once per close, a context switch per close under an open/close loop; the thread
 * takes the records it was not woken for on a timeout.
 */
static __always_inline __u64 drmtop_close_wakeup(void *ring, __u64 now, __u64 *last_wake_ns,
						  __u64 wake_bytes)
{
	if (now - *last_wake_ns < DRMTOP_DRAIN_WAKE_MS * 1000000ull &&
	    bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) < wake_bytes)
		return BPF_RB_NO_WAKEUP;
	*last_wake_ns = now;
	return BPF_RB_FORCE_WAKEUP;
}

/*
 * @d added to *@v, fully ordered: the kernel runs a fetching atomic so on every architecture,
 * where one whose result is unused may be relaxed (arm64's stadd); barrier_var makes clang
 * keep the fetch.
 */
static __always_inline void drmtop_ordered_add(__u64 *v, __u64 d)
{
	__u64 old = __sync_fetch_and_add(v, d);

	barrier_var(old);
}

/*
 * The idle_closed epoch a program adds to, counted in @y->inflight until drmtop_idle_exit(); -1
 * when the reader moved it on at every try (it does so once a refresh: never seen). The count
 * is raised before the epoch is read again, and the reader moves the epoch on before it reads
 * the count (both fully ordered), so either this program sees the new epoch and tries again, or
 * the reader sees it in flight and waits: no program adds to entries the reader took.
 */
static __always_inline long drmtop_idle_enter(struct drmtop_idle_sync *y)
{
	__u64 e;
	int i;

	for (i = 0; i < 2; i++) {
		e = *(volatile __u64 *)&y->epoch;
		drmtop_ordered_add(&y->inflight[e & 1], 1);
		if (*(volatile __u64 *)&y->epoch == e)
			return (long)(e & 0xffffffff);
		drmtop_ordered_add(&y->inflight[e & 1], -1);
	}
	return -1;
}

/* Ordered after the program's adds to the entry: the reader reads it once this is 0. */
static __always_inline void drmtop_idle_exit(struct drmtop_idle_sync *y, long epoch)
{
	drmtop_ordered_add(&y->inflight[epoch & 1], -1);
}

/*
 * One idle close (@k's process, cgroup and node; its client opened at @open_ns on minor
 * @minor_index of @driver, closed at @close_ns) counted in @idle under the current epoch of @y.
 * False when it was not (the map full, or no epoch to add to): the caller sends a record.
 */
static __always_inline bool drmtop_idle_add(void *idle, struct drmtop_idle_sync *y,
					    struct drmtop_idle_key *k, __u64 open_ns,
					    __u64 close_ns, __s32 minor_index, const char *driver)
{
	struct drmtop_idle fresh = { .first_open_ns = open_ns, .minor_index = minor_index };
	struct drmtop_idle *v;
	long epoch = drmtop_idle_enter(y);

	if (epoch < 0)
		return false;
	k->epoch = epoch;
	v = bpf_map_lookup_elem(idle, k);
	if (!v) {
		__builtin_memcpy(fresh.driver, driver, sizeof(fresh.driver));
		bpf_map_update_elem(idle, k, &fresh, BPF_NOEXIST);
		v = bpf_map_lookup_elem(idle, k);
	}
	if (v) {
		__sync_fetch_and_add(&v->clients, 1);
		drmtop_lower(&v->first_open_ns, open_ns);
		drmtop_raise(&v->last_close_ns, close_ns);
	}
	drmtop_idle_exit(y, epoch);
	return v != NULL;
}

/*
 * Client ids -> files: @slots an array of DRMTOP_CLIENT_SLOTS drmtop_client_slot, whose lookup
 * the verifier inlines (no helper call, hash or bucket lock at an open, a close or a job),
 * @spill a hash for an id whose slot another live client holds. A slot is claimed by
 * compare-and-swap of its id, then its file written: a reader can meet a claimed slot whose
 * file is not yet (or no longer) the id's, so it checks the client it finds by its id
 * (drmtop_client_of_id); ids are never reused, so a slot's id names one client only.
 */
#define DRMTOP_CLIENT_SLOTS_MAP(name)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(max_entries, DRMTOP_CLIENT_SLOTS);		\
		__type(key, __u32);					\
		__type(value, struct drmtop_client_slot);		\
	} name SEC(".maps")

static __always_inline struct drmtop_client_slot *drmtop_id_slot(void *slots, __u64 id)
{
	__u32 k = id & (DRMTOP_CLIENT_SLOTS - 1);

	return bpf_map_lookup_elem(slots, &k);
}

static __always_inline void drmtop_id_add(void *slots, void *spill, __u64 id, __u64 file)
{
	struct drmtop_client_slot *s = drmtop_id_slot(slots, id);

	if (s && __sync_val_compare_and_swap(&s->id, 0, id) == 0) {
		s->file = file;
		return;
	}
	bpf_map_update_elem(spill, &id, &file, BPF_ANY);
}

/* The file of client @id as drmtop_id_add recorded it, 0 if none. */
static __always_inline __u64 drmtop_id_file(void *slots, void *spill, __u64 id)
{
	struct drmtop_client_slot *s = drmtop_id_slot(slots, id);
	__u64 *f;

	if (s && s->id == id)
		return s->file;
	f = bpf_map_lookup_elem(spill, &id);
	return f ? *f : 0;
}

static __always_inline void drmtop_id_del(void *slots, void *spill, __u64 id)
{
	struct drmtop_client_slot *s = drmtop_id_slot(slots, id);

	if (s && __sync_val_compare_and_swap(&s->id, id, 0) == id)
		return;
	bpf_map_delete_elem(spill, &id);
}

/* The parked array, as the tracer (drmtop_common.bpf.h) and the test object define it. */
#define DRMTOP_PARKED_MAP(name)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(max_entries, DRMTOP_PARKED_SLOTS);		\
		__uint(map_flags, BPF_F_MMAPABLE);			\
		__type(key, __u32);					\
		__type(value, struct drmtop_parked);			\
	} name SEC(".maps")

/*
 * Parked clients (struct drmtop_parked): @parked the array, @clients the clients map. A
 * file's slot by a multiplicative hash: drm_file addresses share their low bits (one slab).
 */
static __always_inline struct drmtop_parked *drmtop_parked_slot(void *parked, __u64 file)
{
	__u32 k = (file * 0x9e3779b97f4a7c15ull) >> (64 - DRMTOP_PARKED_BITS);

	/* a free slot's claim is 0: no file */
	return file ? bpf_map_lookup_elem(parked, &k) : NULL;
}

/* Client @c of the new file @file parked; false if another open file holds its slot. */
static __always_inline bool drmtop_park(void *parked, const struct drmtop_client *c,
					__u64 file)
{
	struct drmtop_parked *p = drmtop_parked_slot(parked, file);

	if (!p || __sync_val_compare_and_swap(&p->claim, 0, file) != 0)
		return false;
	/* odd while written: the reader and drmtop_unpark copy only what one write left */
	__sync_fetch_and_add(&p->seq, 1);
	p->promoted = 0;
	p->closed = 0;
	__builtin_memcpy(&p->c, c, sizeof(p->c));
	__sync_fetch_and_add(&p->seq, 1);
	return true;
}

/* Whether @file's slot is held by it: a client parked, or promoted and not yet closed. */
static __always_inline bool drmtop_park_holds(void *parked, __u64 file)
{
	struct drmtop_parked *p = drmtop_parked_slot(parked, file);

	return p && p->claim == file;
}

/*
 * The parked client of @file moved into @clients, its entry there returned; NULL if @file parks
 * none, or if its close took it meanwhile: a job's run or done event may meet the client as it
 * closes, and the close, which announced itself in ->closed before it looked in @clients,
 * reports the client as it was parked; the insert is undone.
 */
static __always_inline struct drmtop_client *drmtop_unpark(void *parked, void *clients,
							   __u64 file)
{
	struct drmtop_parked *p = drmtop_parked_slot(parked, file);
	__u64 seq, uid;
	long err;

	if (!p || p->claim != file)
		return NULL;
	if (p->promoted)
		return bpf_map_lookup_elem(clients, &file);
	seq = __sync_fetch_and_add(&p->seq, 0);
	uid = p->c.uid;
	if (seq & 1)
		return NULL;
	err = bpf_map_update_elem(clients, &file, &p->c, BPF_NOEXIST);
	/* full barriers: the insert is seen by the close, or its announcement here */
	if (__sync_fetch_and_add(&p->seq, 0) != seq || p->claim != file ||
	    __sync_fetch_and_add(&p->closed, 0) == uid) {
		if (!err)
			bpf_map_delete_elem(clients, &file);
		return NULL;
	}
	p->promoted = 1;
	return bpf_map_lookup_elem(clients, &file);
}

/*
 * The close of @file begins: its slot if the file holds one (see drmtop_unpark), else NULL.
 * Given up with drmtop_park_release once the client is reported.
 */
static __always_inline struct drmtop_parked *drmtop_park_closing(void *parked, __u64 file)
{
	struct drmtop_parked *p = drmtop_parked_slot(parked, file);

	if (!p || p->claim != file)
		return NULL;
	__sync_lock_test_and_set(&p->closed, p->c.uid);
	return p;
}

static __always_inline void drmtop_park_release(struct drmtop_parked *p, __u64 file)
{
	if (p)
		__sync_val_compare_and_swap(&p->claim, file, 0);
}

#endif /* DRMTOP_ACCOUNT_BPF_H */
