// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracer's own drm_sched event programs (bpf/drmtop_sched.bpf.c, their raw_tp flavour) run
 * in the host kernel through BPF_PROG_TEST_RUN on made-up kernel objects. The host has no
 * gpu_sched module, so the object's CO-RE reads are resolved against the types it was built
 * with (its own BTF as btf_custom_path: the offsets of vmlinux/vmlinux.h, which the test lays
 * the objects out by); the objects live in kernel memory, the .bss of bpf/drmtop_test.bpf.c,
 * whose kernel address test_fake_kernel gives. Only the programs run here are loaded. What the
 * kernels' own layouts do is the VM suites' part (case 50 and others on 6.1, 6.12 and 7.2).
 * Needs root (CI runs as root): without it the test fails and says so, it never skips.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "drmtop_bpf.h"
#include "drmtop_sched.skel.h"
#include "drmtop_test.skel.h"

static struct drmtop_test_bpf *mem;		/* the fake kernel memory */
static struct drmtop_sched_bpf *sched;		/* the tracer's sched part, fresh per test */
static struct btf *types;			/* the types the sched part was built with */
static char obj_path[PATH_MAX];
static __u64 kbase;				/* kernel address of mem->bss->fake_kernel */

/*
 * The sched object this binary embeds, written out for btf_custom_path (a file): its types are
 * the ones its programs were built with.
 */
static int write_object(void)
{
	size_t sz;
	const void *elf = drmtop_sched_bpf__elf_bytes(&sz);
	int fd;

	snprintf(obj_path, sizeof(obj_path), "/tmp/drmtop_sched_types.XXXXXX");
	fd = mkstemp(obj_path);
	if (fd < 0)
		return -1;
	if (write(fd, elf, sz) != (ssize_t)sz) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int setup(void **state)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test_bpf_sched_events: must run as root to load BPF programs "
			"(BPF_PROG_TEST_RUN); uid is %u\n", geteuid());
		return -1;
	}
	if (write_object()) {
		fprintf(stderr, "test_bpf_sched_events: writing %s: %s\n", obj_path,
			strerror(errno));
		return -1;
	}
	types = btf__parse(obj_path, NULL);
	mem = drmtop_test_bpf__open_and_load();
	if (!types || !mem) {
		fprintf(stderr, "test_bpf_sched_events: loading %s or the test object: %s\n",
			obj_path, strerror(errno));
		return -1;
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(mem->progs.test_fake_kernel), &opts) ||
	    !mem->bss->out_fake_kernel) {
		fprintf(stderr, "test_bpf_sched_events: no kernel address for the fake objects\n");
		return -1;
	}
	kbase = mem->bss->out_fake_kernel;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	drmtop_test_bpf__destroy(mem);
	btf__free(types);
	unlink(obj_path);
	return 0;
}

/* The sched part with only its pre-6.17 raw_tp run and done programs, maps empty. */
static int load_sched(void **state)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .btf_custom_path = obj_path);
	struct bpf_program *p;

	(void)state;
	sched = drmtop_sched_bpf__open_opts(&o);
	if (!sched)
		return -1;
	bpf_object__for_each_program(p, sched->obj)
		bpf_program__set_autoload(p, p == sched->progs.drmtop_run_raw ||
					  p == sched->progs.drmtop_done_raw);
	if (drmtop_sched_bpf__load(sched)) {
		fprintf(stderr, "test_bpf_sched_events: loading %s: %s\n", obj_path,
			strerror(errno));
		drmtop_sched_bpf__destroy(sched);
		sched = NULL;
		return -1;
	}
	memset(mem->bss->fake_kernel, 0, sizeof(mem->bss->fake_kernel));
	return 0;
}

static int unload_sched(void **state)
{
	(void)state;
	drmtop_sched_bpf__destroy(sched);
	sched = NULL;
	return 0;
}

/* Byte offset of member @name in type @id, its anonymous unions and structs looked into; -1. */
static long member_in(int id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(types, id);
	const struct btf_member *m = btf_members(t);
	long off;
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (!strcmp(btf__name_by_offset(types, m->name_off), name))
			return btf_member_bit_offset(t, i) / 8;
		if (m->name_off)
			continue;
		off = member_in(btf__resolve_type(types, m->type), name);
		if (off >= 0)
			return btf_member_bit_offset(t, i) / 8 + off;
	}
	return -1;
}

/* Byte offset of member @name of struct @st as built. */
static long member_off(const char *st, const char *name)
{
	int id = btf__find_by_name_kind(types, st, BTF_KIND_STRUCT);
	long off;

	if (id < 0)
		fail_msg("no struct %s in %s", st, obj_path);
	off = member_in(id, name);
	if (off < 0)
		fail_msg("no member %s in struct %s", name, st);
	return off;
}

static long struct_size(const char *st)
{
	return btf__resolve_size(types, btf__find_by_name_kind(types, st, BTF_KIND_STRUCT));
}

/* Kernel address of fake memory at @off. */
static __u64 kaddr(size_t off)
{
	return kbase + off;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

static void put_u64(size_t off, __u64 v)
{
	assert_true(off + sizeof(v) <= sizeof(mem->bss->fake_kernel));
	memcpy(mem->bss->fake_kernel + off, &v, sizeof(v));
}

struct fake {
	__u64 job, fence, sched;
};

static size_t rounded(const char *st)
{
	return (struct_size(st) + 63) & ~63ul;
}

/* Value of enumerator @name as built (this kernel's, through CO-RE, in the programs). */
static long enum_value(const char *name)
{
	int id, n = (int)btf__type_cnt(types), i;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(types, id);
		const struct btf_enum *e = btf_enum(t);

		if (!btf_is_enum(t))
			continue;
		for (i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(types, e->name_off), name))
				return e->val;
	}
	fail_msg("no enumerator %s in %s", name, obj_path);
	return -1;
}

/*
 * Job @i of client id @client_id on the one scheduler of device @dev: the drm_gpu_scheduler at 0,
 * then per job its drm_sched_job, drm_sched_fence and hardware fence. @seqno 0: no hardware fence
 * (s_fence->parent NULL), the done event takes its own time; else one of timeline @ctx with that
 * seqno, signalled at @end. Their kernel addresses into @k.
 */
static void fake_job_on(int i, __u64 client_id, __u64 dev, __u64 ctx, __u64 seqno, __u64 end,
			struct fake *k)
{
	size_t s = 0, j = rounded("drm_gpu_scheduler") +
		   (size_t)i * (rounded("drm_sched_job") + rounded("drm_sched_fence") +
				rounded("dma_fence"));
	size_t f = j + rounded("drm_sched_job"), h = f + rounded("drm_sched_fence");

	assert_true(h + struct_size("dma_fence") <= sizeof(mem->bss->fake_kernel));
	put_u64(j + member_off("drm_sched_job", "s_fence"), kaddr(f));
	put_u64(j + member_off("drm_sched_job", "sched"), kaddr(s));
	put_u64(f + member_off("drm_sched_fence", "sched"), kaddr(s));
	put_u64(f + member_off("drm_sched_fence", "drm_client_id"), client_id);
	put_u64(s + member_off("drm_gpu_scheduler", "dev"), dev);
	if (seqno) {
		put_u64(f + member_off("drm_sched_fence", "parent"), kaddr(h));
		put_u64(h + member_off("dma_fence", "context"), ctx);
		put_u64(h + member_off("dma_fence", "seqno"), seqno);
		put_u64(h + member_off("dma_fence", "flags"),
			1ull << enum_value("DMA_FENCE_FLAG_TIMESTAMP_BIT"));
		put_u64(h + member_off("dma_fence", "timestamp"), end);
	}
	k->job = kaddr(j);
	k->fence = kaddr(f);
	k->sched = kaddr(s);
}

static void fake_job(__u64 client_id, __u64 dev, struct fake *k)
{
	fake_job_on(0, client_id, dev, 0, 0, 0, k);
}

static void run(struct bpf_program *prog, __u64 arg)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &arg, .ctx_size_in = sizeof(arg));

	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(prog), &opts), 0);
	assert_int_equal(opts.retval, 0);
}

static __u64 counter(unsigned int c)
{
	__u32 k = c;
	__u64 v = 0;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(sched->maps.counters), &k, &v), 0);
	return v;
}

static bool job_present(__u64 fence)
{
	struct drmtop_job j;

	return !bpf_map_lookup_elem(bpf_map__fd(sched->maps.jobs), &fence, &j);
}

/*
 * Issue 18 item 13: a job whose client id no open client has (its open event missed) was counted
 * job_client_unknown at its run event and again at its done event, which found no entry and
 * looked the client up once more. Counted once: the run event leaves an entry of uid 0 that
 * tells the done event so, and the done event takes it out of the jobs map.
 */
static void test_unknown_client_counted_once(void **state)
{
	struct fake k;

	(void)state;
	fake_job(42, 0xd000, &k);
	run(sched->progs.drmtop_run_raw, k.job);
	assert_int_equal(counter(DRMTOP_CNT_JOB_CLIENT_UNKNOWN), 1);
	run(sched->progs.drmtop_done_raw, k.fence);
	if (counter(DRMTOP_CNT_JOB_CLIENT_UNKNOWN) != 1)
		fail_msg("one job of an unknown client counted job_client_unknown %llu times",
			 (unsigned long long)counter(DRMTOP_CNT_JOB_CLIENT_UNKNOWN));
	assert_int_equal(counter(DRMTOP_CNT_DONE_UNKNOWN), 1);
	assert_false(job_present(k.fence));
}

/* A job whose run event was lost too is still counted, once, at its done event. */
static void test_unknown_client_at_done_alone(void **state)
{
	struct fake k;

	(void)state;
	fake_job(43, 0xd000, &k);
	run(sched->progs.drmtop_done_raw, k.fence);
	assert_int_equal(counter(DRMTOP_CNT_JOB_CLIENT_UNKNOWN), 1);
	assert_int_equal(counter(DRMTOP_CNT_JOB_FROM_DONE), 0);
	assert_false(job_present(k.fence));
}

/*
 * Client @c open with its id: in its slot of the id array (@slotted) or, as one whose slot
 * another client holds, in the spill hash (drmtop_id_add).
 */
static void client_open(const struct drmtop_client *c, bool slotted)
{
	struct drmtop_client_slot s = { .id = c->client_id, .file = c->file };
	__u32 k = c->client_id & (DRMTOP_CLIENT_SLOTS - 1);

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(sched->maps.clients), &c->file, c,
					     BPF_ANY), 0);
	if (slotted)
		assert_int_equal(bpf_map_update_elem(bpf_map__fd(sched->maps.client_slots), &k, &s,
						     BPF_ANY), 0);
	else
		assert_int_equal(bpf_map_update_elem(bpf_map__fd(sched->maps.client_ids),
						     &c->client_id, &c->file, BPF_ANY), 0);
}

/* Client @uid's figures on the made-up scheduler @ring; false if it has no engine entry. */
static bool engine_of(__u64 uid, __u64 ring, struct drmtop_engine *e)
{
	struct drmtop_engine_key key = { .uid = uid, .ring = ring };
	struct drmtop_ring r;

	/* the engine entry is the scheduler's of this life: its rings entry's sequence number */
	if (bpf_map_lookup_elem(bpf_map__fd(sched->maps.rings), &key.ring, &r))
		return false;
	assert_true(r.seq != 0);
	key.ring_seq = r.seq;
	return !bpf_map_lookup_elem(bpf_map__fd(sched->maps.engines), &key, e);
}

/* Jobs of client @uid on the made-up scheduler @ring (0: no engine entry). */
static __u64 engine_jobs(__u64 uid, __u64 ring)
{
	struct drmtop_engine e;

	return engine_of(uid, ring, &e) ? e.jobs : 0;
}

/* Ground truth for the made-up objects: a job of a known client is its, and counts no loss. */
static void known_client_charged(bool slotted)
{
	struct drmtop_client c = { .uid = 7, .file = 0xf11e, .client_id = 44 };
	struct fake k;

	client_open(&c, slotted);
	fake_job(c.client_id, 0xd000, &k);
	run(sched->progs.drmtop_run_raw, k.job);
	assert_true(job_present(k.fence));
	run(sched->progs.drmtop_done_raw, k.fence);
	assert_int_equal(counter(DRMTOP_CNT_JOB_CLIENT_UNKNOWN), 0);
	assert_false(job_present(k.fence));
	assert_int_equal(engine_jobs(c.uid, k.sched), 1);
}

static void test_known_client_charged(void **state)
{
	(void)state;
	known_client_charged(false);
}

static void test_known_client_by_slot_charged(void **state)
{
	(void)state;
	known_client_charged(true);
}

/*
 * A slot whose id is the job's but whose file is another client's (read while the slot changed
 * hands: its id claimed, its file not yet written): the job is no one's, never that client's.
 */
static void test_slot_of_another_client(void **state)
{
	struct drmtop_client c = { .uid = 8, .file = 0xf22e, .client_id = 45 };
	struct drmtop_client_slot s = { .id = 45 + DRMTOP_CLIENT_SLOTS, .file = c.file };
	__u32 slot = 45;
	struct fake k;

	(void)state;
	client_open(&c, false);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(sched->maps.client_slots), &slot, &s,
					     BPF_ANY), 0);
	fake_job(s.id, 0xd000, &k);
	run(sched->progs.drmtop_run_raw, k.job);
	run(sched->progs.drmtop_done_raw, k.fence);
	assert_int_equal(counter(DRMTOP_CNT_JOB_CLIENT_UNKNOWN), 1);
	assert_int_equal(engine_jobs(c.uid, k.sched), 0);
}

/* A job of @uid handed to the hardware at @run_ns, as its queue and run events leave it. */
static void job_running(__u64 fence, __u64 uid, __u64 ring, __u64 run_ns)
{
	struct drmtop_job j = { .uid = uid, .ring = ring, .queue_ns = run_ns - 10,
				.run_ns = run_ns };

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(sched->maps.jobs), &fence, &j, BPF_ANY),
			 0);
}

/*
 * Three jobs on one timeline (hardware fence context 0x77): 1 runs 100..200, 2 (handed over at
 * 120) 200..300, 3 (at 150) 300..400. 2's done event is skipped (its cleanup makes it up later),
 * and 3's comes first: 3 is held, nothing counted, its entry left marked for its cleanup (which
 * drm_sched runs after 2's). Counted then, it took 200..400 and left 2 nothing to count (a
 * rehearsal on 6.1 under TCG moved 70 ms between two clients so). A done that follows its
 * timeline's last (1's) is counted as ever.
 */
static void test_done_held_behind_skipped(void **state)
{
	struct drmtop_client c = { .uid = 9, .file = 0xf33e, .client_id = 46 };
	__u64 t = now_ns() - 10000000;
	struct fake k1, k2, k3;
	struct drmtop_engine e;
	struct drmtop_job j;

	(void)state;
	client_open(&c, true);
	fake_job_on(0, c.client_id, 0xd000, 0x77, 1, t + 200, &k1);
	fake_job_on(1, c.client_id, 0xd000, 0x77, 2, t + 300, &k2);
	fake_job_on(2, c.client_id, 0xd000, 0x77, 3, t + 400, &k3);
	job_running(k1.fence, c.uid, k1.sched, t + 100);
	job_running(k2.fence, c.uid, k2.sched, t + 120);
	job_running(k3.fence, c.uid, k3.sched, t + 150);
	sched->bss->drmtop_cleanup_hooked = 1;	/* as the loader once it attached the cleanup */
	run(sched->progs.drmtop_done_raw, k1.fence);
	assert_true(engine_of(c.uid, k1.sched, &e));
	assert_int_equal(e.busy_ns, 100);
	assert_int_equal(e.jobs, 1);
	run(sched->progs.drmtop_done_raw, k3.fence);
	assert_int_equal(counter(DRMTOP_CNT_DONE_HELD), 1);
	assert_true(engine_of(c.uid, k1.sched, &e));
	if (e.busy_ns != 100 || e.jobs != 1)
		fail_msg("a job ended past a skipped one counted at its done: busy %llu, %llu jobs",
			 (unsigned long long)e.busy_ns, (unsigned long long)e.jobs);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(sched->maps.jobs), &k3.fence, &j), 0);
	assert_int_equal(j.uid, c.uid | DRMTOP_JOB_ENDED | DRMTOP_JOB_HELD);
	assert_int_equal(j.run_ns, t + 150);
	assert_true(job_present(k2.fence));
	assert_int_equal(counter(DRMTOP_CNT_JOBS_DONE), 2);
}

/*
 * Where the cleanup program is not attached (no BPF trampolines: Debian's arm64 6.1) nothing
 * would count a held job, and a done event is never skipped there to be made up: the job after
 * a seqno gap counts at its done, as it did before jobs were held (it was left in the jobs map,
 * uncounted, until the reader dropped it as lost).
 */
static void test_no_hold_without_cleanup(void **state)
{
	struct drmtop_client c = { .uid = 10, .file = 0xf44e, .client_id = 47 };
	__u64 t = now_ns() - 10000000;
	struct fake k1, k3;
	struct drmtop_engine e;

	(void)state;
	client_open(&c, true);
	fake_job_on(0, c.client_id, 0xd000, 0x78, 1, t + 200, &k1);
	fake_job_on(1, c.client_id, 0xd000, 0x78, 3, t + 400, &k3);
	job_running(k1.fence, c.uid, k1.sched, t + 100);
	job_running(k3.fence, c.uid, k3.sched, t + 300);
	run(sched->progs.drmtop_done_raw, k1.fence);
	run(sched->progs.drmtop_done_raw, k3.fence);
	assert_true(engine_of(c.uid, k1.sched, &e));
	if (counter(DRMTOP_CNT_DONE_HELD) || e.jobs != 2 || job_present(k3.fence))
		fail_msg("no cleanup program, yet a job held: %llu held, %llu jobs counted",
			 (unsigned long long)counter(DRMTOP_CNT_DONE_HELD),
			 (unsigned long long)e.jobs);
	assert_int_equal(e.busy_ns, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unknown_client_counted_once, load_sched,
						unload_sched),
		cmocka_unit_test_setup_teardown(test_unknown_client_at_done_alone, load_sched,
						unload_sched),
		cmocka_unit_test_setup_teardown(test_known_client_charged, load_sched,
						unload_sched),
		cmocka_unit_test_setup_teardown(test_known_client_by_slot_charged, load_sched,
						unload_sched),
		cmocka_unit_test_setup_teardown(test_slot_of_another_client, load_sched,
						unload_sched),
		cmocka_unit_test_setup_teardown(test_done_held_behind_skipped, load_sched,
						unload_sched),
		cmocka_unit_test_setup_teardown(test_no_hold_without_cleanup, load_sched,
						unload_sched),
	};

	return cmocka_run_group_tests_name("bpf_sched_events", tests, setup, teardown);
}
