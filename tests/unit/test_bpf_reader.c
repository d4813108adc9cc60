// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF reader (src/sources/bpf_reader.c, bpf_walk.c) on real BPF maps made here with
 * bpf_map_create, shaped like the tracer's (bpf/drmtop_common.bpf.h), filled and changed by the
 * test the way the tracer's programs change them: entries inserted and deleted while the reader
 * walks (through the walk test hook), close records handed in as the ring buffer callback gets
 * them. No BPF program is loaded. Needs root (bpf()): without it the tests fail and say so.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../src/sources/bpf_internal.h"
#include "drmtop/bpf_reader.h"

int drmtop_bpf_on_closed(void *ctx, void *data, size_t len);	/* src/sources/bpf_reader.c */

#define TEST_MAX	1024	/* entries per map: small maps walk the same way as big ones */

static int make_map(enum bpf_map_type type, const char *name, __u32 ksz, __u32 vsz, __u32 max)
{
	int fd = bpf_map_create(type, name, ksz, vsz, max, NULL);

	if (fd < 0)
		fail_msg("bpf_map_create(%s): %s (uid %u; these tests need root)", name,
			 strerror(errno), geteuid());
	return fd;
}

/* A tracer with the reader's maps and nothing loaded; drmtop_bpf_close() frees it. */
static struct drmtop_bpf *fake_tracer(void)
{
	struct drmtop_bpf *b = calloc(1, sizeof(*b));
	int i;

	assert_non_null(b);
	for (i = 0; i < MAP_COUNT; i++)
		b->map_fd[i] = -1;
	b->map_fd[MAP_CLIENTS] = make_map(BPF_MAP_TYPE_HASH, "clients", sizeof(__u64),
					  sizeof(struct drmtop_client), TEST_MAX);
	b->map_fd[MAP_ENGINES] = make_map(BPF_MAP_TYPE_HASH, "engines",
					  sizeof(struct drmtop_engine_key),
					  sizeof(struct drmtop_engine), TEST_MAX);
	b->map_fd[MAP_RINGS] = make_map(BPF_MAP_TYPE_HASH, "rings", sizeof(__u64),
					sizeof(struct drmtop_ring), TEST_MAX);
	b->map_fd[MAP_JOBS] = make_map(BPF_MAP_TYPE_HASH, "jobs", sizeof(__u64),
				       sizeof(struct drmtop_job), TEST_MAX);
	b->map_fd[MAP_HANDLES] = make_map(BPF_MAP_TYPE_HASH, "handles",
					  sizeof(struct drmtop_handle_key),
					  sizeof(struct drmtop_handle), TEST_MAX);
	b->map_fd[MAP_OBJECTS] = make_map(BPF_MAP_TYPE_HASH, "objects", sizeof(__u64),
					  sizeof(struct drmtop_object), TEST_MAX);
	b->map_fd[MAP_DEVICES] = make_map(BPF_MAP_TYPE_HASH, "devices", sizeof(__u64),
					  sizeof(struct drmtop_device), 64);
	b->map_fd[MAP_COUNTERS] = make_map(BPF_MAP_TYPE_ARRAY, "counters", sizeof(__u32),
					   sizeof(__u64), DRMTOP_CNT_MAX);
	b->map_fd[MAP_CLOSED] = make_map(BPF_MAP_TYPE_RINGBUF, "closed", 0, 0, 64 * 1024);
	b->rb = ring_buffer__new(b->map_fd[MAP_CLOSED], drmtop_bpf_on_closed, b, NULL);
	assert_non_null(b->rb);
	return b;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static struct drmtop_client client(__u64 uid)
{
	struct drmtop_client c = { .uid = uid, .file = 0x10000 + uid, .tgid = 100 + uid };

	snprintf(c.comm, sizeof(c.comm), "c%llu", (unsigned long long)uid);
	return c;
}

static void put_client(struct drmtop_bpf *b, __u64 uid)
{
	struct drmtop_client c = client(uid);

	assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_CLIENTS], &c.file, &c, BPF_ANY), 0);
}

static void put_engine(struct drmtop_bpf *b, __u64 uid, __u64 ring, __u64 busy, __u64 jobs)
{
	struct drmtop_engine_key k = { .uid = uid, .ring = ring };
	struct drmtop_engine e = { .busy_ns = busy, .jobs = jobs };

	assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_ENGINES], &k, &e, BPF_ANY), 0);
}

/*
 * Churn hook: every @every-th step of a walk over the map @fd, the entry the walk just returned
 * is deleted (a client closing, a handle released: the tracer deletes entries at any time) and,
 * if @insert, a fresh entry is added with the next key of @next_key.
 */
struct churn {
	int fd;
	unsigned int every, steps, deleted;
	bool (*may_delete)(const void *key);
};

static void churn_hook(void *ctx, int fd, const void *last_key)
{
	struct churn *ch = ctx;

	if (fd != ch->fd || ++ch->steps % ch->every)
		return;
	if (ch->may_delete && !ch->may_delete(last_key))
		return;
	if (!bpf_map_delete_elem(fd, last_key))
		ch->deleted++;
}

/*
 * How the walks read: batch reads of the default size, of 1 and 3 entries (a hook call after
 * each), and the key walk that kernels without batch reads get.
 */
static const struct mode {
	const char *name;
	unsigned int batch;
	bool no_batch;
} modes[] = {
	{ "batch", 0, false }, { "batch of 1", 1, false }, { "batch of 3", 3, false },
	{ "key walk", 0, true },
};

#define N_MODES	(sizeof(modes) / sizeof(modes[0]))

static void set_mode(struct drmtop_bpf *b, const struct mode *m)
{
	b->walk_test.batch = m->batch;
	b->walk_test.no_batch = m->no_batch;
}

/* A plain walk collects keys; the test checks each one came back once. */
struct seen {
	__u64 keys[4 * TEST_MAX];
	size_t n;
};

static int collect(const void *key, const void *value, void *ctx)
{
	struct seen *s = ctx;

	(void)value;
	if (s->n == sizeof(s->keys) / sizeof(s->keys[0]))
		return -E2BIG;
	s->keys[s->n++] = *(const __u64 *)key;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * drmtop_bpf_map_walk on a hash map whose entries are deleted (and others inserted) while it
 * walks, at several churn rates: every key comes back at most once, and every key that was in
 * the map during the whole walk comes back.
 */
static void test_walk_under_churn(void **state)
{
	static const unsigned int rates[] = { 2, 3, 7, 50 };
	size_t r, m;

	(void)state;
	for (r = 0; r < sizeof(rates) / sizeof(rates[0]) * N_MODES; r++) {
		int fd = make_map(BPF_MAP_TYPE_HASH, "walk", sizeof(__u64), sizeof(__u64),
				  TEST_MAX);
		struct churn ch = { .fd = fd, .every = rates[r / N_MODES] };
		struct drmtop_walk w = { .fd = fd, .each = collect, .hook = churn_hook,
					 .hook_ctx = &ch };
		struct seen *s = calloc(1, sizeof(*s));
		bool *present = calloc(TEST_MAX, sizeof(*present));
		size_t i, dups = 0;
		__u64 k;

		assert_non_null(s);
		assert_non_null(present);
		m = r % N_MODES;
		w.batch = modes[m].batch;
		w.no_batch = modes[m].no_batch;
		w.ctx = s;
		for (k = 0; k < 600; k++)
			assert_int_equal(bpf_map_update_elem(fd, &k, &k, BPF_NOEXIST), 0);
		assert_int_equal(drmtop_bpf_map_walk(&w), 0);
		qsort(s->keys, s->n, sizeof(s->keys[0]), cmp_u64);
		for (i = 1; i < s->n; i++)
			dups += s->keys[i] == s->keys[i - 1];
		for (i = 0; i < s->n; i++)
			present[s->keys[i]] = true;
		/* what is still in the map was there all along: it must have been returned */
		for (k = 0; k < 600; k++)
			if (!bpf_map_lookup_elem(fd, &k, &(__u64){ 0 }))
				assert_true(present[k]);
		if (dups)
			fail_msg("%s, churn every %u steps: %zu keys returned twice (%zu returned, "
				 "%u deleted)", modes[m].name, ch.every, dups, s->n, ch.deleted);
		if (modes[m].batch || modes[m].no_batch)
			assert_true(ch.deleted > 0);
		assert_int_equal(s->n, 600);
		free(present);
		free(s);
		close(fd);
	}
}

static bool live_uid_twice(const struct drmtop_bpf_snapshot *s, size_t *dups)
{
	size_t i, j;

	*dups = 0;
	for (i = 0; i < s->n_clients; i++)
		for (j = i + 1; j < s->n_clients; j++)
			*dups += s->clients[i].c.uid == s->clients[j].c.uid;
	return *dups != 0;
}

/* Clients closing while the reader walks the clients map give no ghost (duplicate) rows. */
static void test_clients_close_mid_walk(void **state)
{
	static const unsigned int rates[] = { 2, 5, 40 };
	size_t r;

	(void)state;
	for (r = 0; r < sizeof(rates) / sizeof(rates[0]) * N_MODES; r++) {
		struct drmtop_bpf *b = fake_tracer();
		struct churn ch = { .fd = b->map_fd[MAP_CLIENTS], .every = rates[r / N_MODES] };
		const struct mode *m = &modes[r % N_MODES];
		struct drmtop_bpf_snapshot s;
		size_t dups;
		__u64 uid;

		for (uid = 1; uid <= 300; uid++)
			put_client(b, uid);
		b->walk_test.hook = churn_hook;
		b->walk_test.ctx = &ch;
		set_mode(b, m);
		assert_int_equal(drmtop_bpf_snapshot(b, &s), 0);
		if (live_uid_twice(&s, &dups))
			fail_msg("%s, a client closing every %u steps: %zu duplicate rows in %zu",
				 m->name, ch.every, dups, s.n_clients);
		/* each client was live when read: all 300 once, closed ones included */
		assert_int_equal(s.n_clients, 300);
		drmtop_bpf_snapshot_free(&s);
		drmtop_bpf_close(b);
	}
}

#define SHARED_SZ	4096ull
#define PRIVATE_SZ	(1ull << 20)

static bool private_handle(const void *key)
{
	return ((const struct drmtop_handle_key *)key)->handle >= 1000;
}

/*
 * Shared bytes while handles are released mid-walk: clients 1 and 2 share 10 objects (one
 * handle each), client 1 also holds 200 private objects, some released while the reader walks
 * the handles. Each client's shared bytes are exactly its 10 shared handles.
 */
static void shared_bytes_case(const struct mode *m)
{
	struct drmtop_bpf *b = fake_tracer();
	struct churn ch = { .fd = b->map_fd[MAP_HANDLES], .every = 3,
			    .may_delete = private_handle };
	struct drmtop_bpf_snapshot s;
	__u32 i, c;

	put_client(b, 1);
	put_client(b, 2);
	for (i = 0; i < 10; i++) {
		__u64 obj = 0xa000 + i;
		struct drmtop_object o = { .size = SHARED_SZ, .handle_count = 2 };

		assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_OBJECTS], &obj, &o, BPF_ANY),
				 0);
		for (c = 1; c <= 2; c++) {
			struct drmtop_handle_key k = { .file = 0x10000 + c, .handle = i + 1 };
			struct drmtop_handle h = { .obj = obj, .size = SHARED_SZ, .uid = c };

			assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_HANDLES], &k, &h,
							     BPF_ANY), 0);
		}
	}
	for (i = 0; i < 200; i++) {
		__u64 obj = 0xb000 + i;
		struct drmtop_object o = { .size = PRIVATE_SZ, .handle_count = 1 };
		struct drmtop_handle_key k = { .file = 0x10001, .handle = 1000 + i };
		struct drmtop_handle h = { .obj = obj, .size = PRIVATE_SZ, .uid = 1 };

		assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_OBJECTS], &obj, &o, BPF_ANY),
				 0);
		assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_HANDLES], &k, &h, BPF_ANY), 0);
	}
	b->walk_test.hook = churn_hook;
	b->walk_test.ctx = &ch;
	set_mode(b, m);
	assert_int_equal(drmtop_bpf_snapshot(b, &s), 0);
	if (m->batch || m->no_batch)
		assert_true(ch.deleted > 0);
	assert_int_equal(s.n_clients, 2);
	for (i = 0; i < s.n_clients; i++)
		if (s.clients[i].c.mem_shared != 10 * SHARED_SZ)
			fail_msg("%s: client %llu: %llu shared bytes, holds %llu (%u handles "
				 "released mid-walk)", m->name,
				 (unsigned long long)s.clients[i].c.uid,
				 (unsigned long long)s.clients[i].c.mem_shared, 10 * SHARED_SZ,
				 ch.deleted);
	drmtop_bpf_snapshot_free(&s);
	drmtop_bpf_close(b);
}

static void test_shared_bytes_handles_released_mid_walk(void **state)
{
	size_t m;

	(void)state;
	for (m = 0; m < N_MODES; m++)
		shared_bytes_case(&modes[m]);
}

/*
 * A job running on a ring: its running time and the snapshot's time are one instant, so busy
 * time up to taken_ns never exceeds the wall time up to it (no rate above 100 %).
 */
static void test_running_time_at_taken_ns(void **state)
{
	struct drmtop_bpf *b = fake_tracer();
	struct drmtop_bpf_snapshot s;
	__u64 ring = 0xfeed, fence = 0xf00d, run = mono_ns() - 1000000000ull;
	struct drmtop_job j = { .uid = 1, .ring = ring, .queue_ns = run - 5, .run_ns = run };
	struct drmtop_ring rg = { .last_done_ns = run - 100 };
	const struct drmtop_bpf_engine *e;

	(void)state;
	put_client(b, 1);
	put_engine(b, 1, ring, 7000, 3);
	assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_RINGS], &ring, &rg, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_JOBS], &fence, &j, BPF_ANY), 0);
	/* a job on another ring that starts later than any snapshot taken now adds nothing */
	j.ring = ring + 1;
	j.run_ns = mono_ns() + 3600000000000ull;
	fence++;
	assert_int_equal(bpf_map_update_elem(b->map_fd[MAP_JOBS], &fence, &j, BPF_ANY), 0);
	assert_int_equal(drmtop_bpf_snapshot(b, &s), 0);
	assert_int_equal(s.n_clients, 1);
	assert_int_equal(s.clients[0].n_engines, 1);
	e = &s.clients[0].engines[0];
	assert_int_equal(e->busy_ns, 7000);
	if (e->running_ns != s.taken_ns - run)
		fail_msg("running_ns %llu, but the job ran %llu ns up to taken_ns: %lld ns later "
			 "than the snapshot's time", (unsigned long long)e->running_ns,
			 (unsigned long long)(s.taken_ns - run),
			 (long long)(e->running_ns - (s.taken_ns - run)));
	drmtop_bpf_snapshot_free(&s);
	drmtop_bpf_close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_under_churn),
		cmocka_unit_test(test_clients_close_mid_walk),
		cmocka_unit_test(test_shared_bytes_handles_released_mid_walk),
		cmocka_unit_test(test_running_time_at_taken_ns),
	};

	if (geteuid() != 0)
		fprintf(stderr, "test_bpf_reader: bpf() needs root; uid is %u\n", geteuid());
	return cmocka_run_group_tests_name("bpf_reader", tests, NULL, NULL);
}
