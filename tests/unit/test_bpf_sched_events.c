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

/* Byte offset of member @name of struct @st as built (anonymous unions and structs looked into). */
static long member_off(const char *st, const char *name)
{
	const struct btf_type *t;
	const struct btf_member *m;
	int id = btf__find_by_name_kind(types, st, BTF_KIND_STRUCT), i;

	if (id < 0)
		fail_msg("no struct %s in %s", st, obj_path);
	t = btf__type_by_id(types, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(types, m->name_off), name))
			return btf_member_bit_offset(t, i) / 8;
	fail_msg("no member %s in struct %s", name, st);
	return -1;
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

static void put_u64(size_t off, __u64 v)
{
	assert_true(off + sizeof(v) <= sizeof(mem->bss->fake_kernel));
	memcpy(mem->bss->fake_kernel + off, &v, sizeof(v));
}

/*
 * A job of client id @client_id on one scheduler of device @dev: its drm_sched_job at 0, its
 * drm_sched_fence after it, the drm_gpu_scheduler after that. No hardware fence (s_fence->parent
 * NULL): the done event takes its own time. Their kernel addresses into @k.
 */
struct fake {
	__u64 job, fence, sched;
};

static void fake_job(__u64 client_id, __u64 dev, struct fake *k)
{
	size_t j = 0, f = (struct_size("drm_sched_job") + 63) & ~63ul;
	size_t s = f + ((struct_size("drm_sched_fence") + 63) & ~63ul);

	assert_true(s + struct_size("drm_gpu_scheduler") <= sizeof(mem->bss->fake_kernel));
	put_u64(j + member_off("drm_sched_job", "s_fence"), kaddr(f));
	put_u64(j + member_off("drm_sched_job", "sched"), kaddr(s));
	put_u64(f + member_off("drm_sched_fence", "sched"), kaddr(s));
	put_u64(f + member_off("drm_sched_fence", "drm_client_id"), client_id);
	put_u64(s + member_off("drm_gpu_scheduler", "dev"), dev);
	k->job = kaddr(j);
	k->fence = kaddr(f);
	k->sched = kaddr(s);
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

/* Jobs of client @uid on the made-up scheduler @ring (0: no engine entry). */
static __u64 engine_jobs(__u64 uid, __u64 ring)
{
	struct drmtop_engine_key key = { .uid = uid, .ring = ring };
	struct drmtop_engine e;
	struct drmtop_ring r;

	/* the engine entry is the scheduler's of this life: its rings entry's sequence number */
	if (bpf_map_lookup_elem(bpf_map__fd(sched->maps.rings), &key.ring, &r))
		return 0;
	assert_true(r.seq != 0);
	key.ring_seq = r.seq;
	if (bpf_map_lookup_elem(bpf_map__fd(sched->maps.engines), &key, &e))
		return 0;
	return e.jobs;
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
	};

	return cmocka_run_group_tests_name("bpf_sched_events", tests, setup, teardown);
}
