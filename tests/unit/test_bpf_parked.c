// SPDX-License-Identifier: GPL-2.0-only
/*
 * Clients parked at their open (bpf/drmtop_account.bpf.h, drmtop_park): the programs' side run
 * in the host kernel through BPF_PROG_TEST_RUN on bpf/drmtop_test.bpf.c's test_park, the
 * reader's side (src/sources/bpf_parked.c) on slots written here, torn ones among them. Needs
 * root for the first (CI runs as root): without it the test fails and says so.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../src/sources/bpf_internal.h"
#include "drmtop_bpf.h"
#include "bpf_test_object.h"

static struct drmtop_test_bpf *skel;

static int setup(void **state)
{
	(void)state;
	skel = bpf_test_object_load("test_bpf_parked");
	return skel ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	drmtop_test_bpf__destroy(skel);
	return 0;
}

enum { PARK, MEET, CLOSING, RELEASE, HOLDS };

static __u64 park_op(__u32 op, __u64 file, __u64 uid)
{
	__u64 a[3] = { op, file, uid };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = a, .ctx_size_in = sizeof(a));

	skel->bss->out_park = ~0ull;
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(skel->progs.test_park), &opts), 0);
	assert_int_equal(opts.retval, 0);
	return skel->bss->out_park;
}

/* The uid of @file's entry in the clients map, 0 if none. */
static __u64 in_map(__u64 file)
{
	struct drmtop_client c;

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.park_clients), &file, &c))
		return 0;
	return c.uid;
}

/* The slot index the programs give @file: by brute force, the first file after @from in it. */
static __u32 slot_of(__u64 file)
{
	return (file * 0x9e3779b97f4a7c15ull) >> (64 - DRMTOP_PARKED_BITS);
}

static __u64 file_in_slot(__u32 slot, __u64 from)
{
	__u64 f;

	for (f = from + 1024; slot_of(f) != slot; f += 1024)
		;
	return f;
}

/*
 * An open parks its client; the first hook that charges it anything moves it into the map,
 * once; its close takes the slot back for the next file there. A file whose slot another open
 * file holds does not park (the open inserts at once, drmtop_drm.bpf.c's client_new).
 */
static void test_park_promote_close(void **state)
{
	const __u64 f = 0xffff888012345400ull, g = file_in_slot(slot_of(f), f);

	(void)state;
	assert_int_equal(park_op(PARK, f, 11), 1);
	assert_int_equal(park_op(HOLDS, f, 0), 1);
	assert_int_equal(in_map(f), 0);
	assert_int_equal(park_op(PARK, g, 12), 0);
	assert_int_equal(park_op(HOLDS, g, 0), 0);
	/* a file parking nothing is met as unknown, its slot untouched */
	assert_int_equal(park_op(MEET, g, 0), 0);
	assert_int_equal(in_map(g), 0);
	assert_int_equal(park_op(MEET, f, 0), 11);
	assert_int_equal(in_map(f), 11);
	assert_int_equal(park_op(MEET, f, 0), 11);
	/* promoted, the slot stays the file's until its close */
	assert_int_equal(park_op(HOLDS, f, 0), 1);
	assert_int_equal(park_op(PARK, g, 12), 0);
	assert_int_equal(park_op(CLOSING, f, 0), 11);
	park_op(RELEASE, f, 0);
	assert_int_equal(park_op(HOLDS, f, 0), 0);
	assert_int_equal(park_op(CLOSING, f, 0), 0);
	assert_int_equal(bpf_map_delete_elem(bpf_map__fd(skel->maps.park_clients), &f), 0);
	assert_int_equal(park_op(PARK, g, 12), 1);
	park_op(CLOSING, g, 0);
	park_op(RELEASE, g, 0);
	assert_int_equal(park_op(HOLDS, g, 0), 0);
	/* a release by another file leaves the slot alone */
	assert_int_equal(park_op(PARK, f, 13), 1);
	park_op(RELEASE, g, 0);
	assert_int_equal(park_op(HOLDS, f, 0), 1);
	park_op(CLOSING, f, 0);
	park_op(RELEASE, f, 0);
}

/*
 * A hook meeting a client whose close has begun (a job's run event on another CPU) does not
 * leave it in the map: the close reports it as it was parked. Nor is a slot caught mid-write
 * (odd sequence number) copied into the map.
 */
static void test_park_close_race(void **state)
{
	const __u64 f = 0xffff888012346800ull;
	struct drmtop_parked p;
	__u32 k = slot_of(f);
	int fd = bpf_map__fd(skel->maps.parked);

	(void)state;
	assert_int_equal(park_op(PARK, f, 21), 1);
	assert_int_equal(park_op(CLOSING, f, 0), 21);
	assert_int_equal(park_op(MEET, f, 0), 0);
	assert_int_equal(in_map(f), 0);
	park_op(RELEASE, f, 0);

	assert_int_equal(park_op(PARK, f, 22), 1);
	assert_int_equal(bpf_map_lookup_elem(fd, &k, &p), 0);
	assert_int_equal(p.c.uid, 22);
	p.seq |= 1;
	assert_int_equal(bpf_map_update_elem(fd, &k, &p, BPF_ANY), 0);
	assert_int_equal(park_op(MEET, f, 0), 0);
	assert_int_equal(in_map(f), 0);
	p.seq++;
	assert_int_equal(bpf_map_update_elem(fd, &k, &p, BPF_ANY), 0);
	assert_int_equal(park_op(MEET, f, 0), 22);
	assert_int_equal(in_map(f), 22);
	park_op(CLOSING, f, 0);
	park_op(RELEASE, f, 0);
	assert_int_equal(bpf_map_delete_elem(bpf_map__fd(skel->maps.park_clients), &f), 0);
}

static int collect(const struct drmtop_client *c, void *ctx)
{
	__u64 *uids = ctx;

	uids[++uids[0]] = c->uid;
	return uids[0] == 8 ? -E2BIG : 0;
}

static void fill(struct drmtop_parked *p, __u64 file, __u64 uid, __u64 seq, __u64 promoted)
{
	memset(p, 0, sizeof(*p));
	p->claim = file;
	p->c.file = file;
	p->c.uid = uid;
	p->seq = seq;
	p->promoted = promoted;
}

/*
 * The reader lists the parked clients only: not a free slot, one promoted into the map (read
 * from there), one being written (odd sequence) or whose client is not its claim's (a copy
 * between two opens). An error of the callback ends the walk and is returned.
 */
static void test_reader_parked_slots(void **state)
{
	struct drmtop_parked s[8];
	__u64 uids[16] = { 0 };
	int i;

	(void)state;
	memset(s, 0, sizeof(s));
	fill(&s[1], 0x1000, 1, 2, 0);
	fill(&s[2], 0x2000, 2, 4, 1);
	fill(&s[3], 0x3000, 3, 5, 0);
	fill(&s[4], 0x4000, 4, 2, 0);
	s[4].c.file = 0x4400;
	fill(&s[5], 0x5000, 0, 2, 0);
	fill(&s[7], 0x7000, 7, 8, 0);
	assert_int_equal(drmtop_bpf_parked_each(s, 8, collect, uids), 0);
	assert_int_equal(uids[0], 2);
	assert_int_equal(uids[1], 1);
	assert_int_equal(uids[2], 7);

	for (i = 0; i < 8; i++)
		fill(&s[i], 0x1000 * (i + 1), i + 1, 0, 0);
	memset(uids, 0, sizeof(uids));
	assert_int_equal(drmtop_bpf_parked_each(s, 8, collect, uids), -E2BIG);
	assert_int_equal(uids[0], 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_park_promote_close),
		cmocka_unit_test(test_park_close_race),
		cmocka_unit_test(test_reader_parked_slots),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
