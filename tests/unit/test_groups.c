// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live view's grouped rows: clients summed per holding process and per workload (cgroup
 * name), from the figures each client's own row shows (fdinfo's engine rate, else the tracer's;
 * memory), with the filter applied before; sums exact, marks carried, order as the clients'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drmtop/groups.h"

#define MIB (1024ull * 1024)

/* An engine as fdinfo shows it (@fd true), else as only the tracer does. */
static struct drmtop_model_engine engine(const char *name, bool fd, double pct)
{
	struct drmtop_model_engine e = { .name = name };

	if (fd) {
		e.in_fdinfo = true;
		e.fd.flags = DRMTOP_FD_RATE | (pct > 100 ? DRMTOP_FD_OVER : 0);
		e.fd.pct = pct;
	} else {
		e.in_bpf = true;
		e.bpf.has_rate = true;
		e.bpf.pct = pct;
	}
	return e;
}

/*
 * pid 10 (a pod's container): two clients, gfx 20 + 30, compute 5 (tracer only), 1 + 2 MiB;
 * pid 11 (the same container): gfx 10, 4 MiB; pid 20 (a systemd service): gfx 15, no memory
 * printed, its tracer figures may be short; pid 30: no cgroup known, gfx 40 and a client
 * without any figure yet.
 */
static struct drmtop_model_engine e10a[] = { { 0 }, { 0 } }, e10b[1], e11[1], e20[1], e30[1];
static struct drmtop_model_client clients[6];
static struct drmtop_model model = { .clients = clients, .nr_clients = 6 };

static int setup(void **state)
{
	const char *pod = "pod/2b8a4f1e-7c3d-4e5f-9a0b-1c2d3e4f5a6b/3f4e1c2b9a8d";
	size_t i;

	(void)state;
	e10a[0] = engine("gfx", true, 20);
	e10a[1] = engine("compute", false, 5);
	e10b[0] = engine("gfx", true, 30);
	e11[0] = engine("gfx", true, 10);
	e20[0] = engine("gfx", true, 15);
	e30[0] = engine("gfx", true, 40);
	clients[0] = (struct drmtop_model_client){ .key = "a", .pid = 10, .comm = "render",
		.engines = e10a, .nr_engines = 2, .has_mem = true, .mem_total = MIB,
		.has_shared = true, .mem_shared = MIB, .busy_sum_pct = 25 };
	clients[1] = (struct drmtop_model_client){ .key = "b", .pid = 10, .comm = "render",
		.engines = e10b, .nr_engines = 1, .has_mem = true, .mem_total = 2 * MIB,
		.busy_sum_pct = 30 };
	clients[2] = (struct drmtop_model_client){ .key = "c", .pid = 11, .comm = "encode",
		.engines = e11, .nr_engines = 1, .has_mem = true, .mem_total = 4 * MIB,
		.busy_sum_pct = 10, .diverged = true };
	clients[3] = (struct drmtop_model_client){ .key = "d", .pid = 20, .comm = "kiosk",
		.engines = e20, .nr_engines = 1, .busy_sum_pct = 15, .lower_bound = true };
	clients[4] = (struct drmtop_model_client){ .key = "e", .pid = 30, .comm = "game",
		.engines = e30, .nr_engines = 1, .busy_sum_pct = 40 };
	clients[5] = (struct drmtop_model_client){ .key = "f", .pid = 30, .comm = "game",
		.is_new = true };
	for (i = 0; i < 5; i++)
		clients[i].in_fdinfo = true;	/* the last one only the tracer has */
	clients[0].cgroup.workload = pod;
	clients[1].cgroup.workload = pod;
	clients[2].cgroup.workload = pod;
	clients[3].cgroup.workload = "kiosk.service";
	return 0;
}

static const struct drmtop_group *find(const struct drmtop_groups *g, const char *key)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].key, key))
			return &g->v[i];
	fail_msg("no group %s", key);
	return NULL;
}

static double pct(const struct drmtop_groups *g, const struct drmtop_group *grp, const char *e)
{
	const struct drmtop_group_engine *ge = drmtop_group_engine(g, grp, e);

	return ge ? ge->pct : -1;
}

static void by_workload(void **state)
{
	struct drmtop_groups g;
	const struct drmtop_group *pod, *svc, *none;

	(void)state;
	drmtop_groups_init(&g);
	assert_int_equal(drmtop_groups_build(&g, &model, DRMTOP_GROUP_WORKLOAD, NULL, NULL), 0);
	assert_int_equal(g.n, 3);
	pod = find(&g, "pod/2b8a4f1e-7c3d-4e5f-9a0b-1c2d3e4f5a6b/3f4e1c2b9a8d");
	assert_int_equal(pod->nr_clients, 3);
	assert_true(pct(&g, pod, "gfx") == 60.0);
	assert_true(pct(&g, pod, "compute") == 5.0);	/* the tracer's, where fdinfo has none */
	assert_true(pod->has_mem && pod->mem_total == 7 * MIB && pod->mem_shared == MIB);
	assert_true(pod->busy_sum_pct == 65.0);
	assert_true(pod->diverged && !pod->maybe_short);
	assert_true(pod->in_fdinfo && !pod->traced);
	assert_int_equal(pod->pid, 10);
	svc = find(&g, "kiosk.service");
	assert_true(pct(&g, svc, "gfx") == 15.0 && !svc->has_mem && svc->maybe_short);
	none = find(&g, "?");			/* no cgroup known */
	assert_int_equal(none->nr_clients, 2);
	assert_true(pct(&g, none, "gfx") == 40.0);
	assert_null(drmtop_group_engine(&g, none, "compute"));
	assert_true(none->in_fdinfo && none->traced);
	drmtop_groups_fini(&g);
}

static bool not_pid_11(const struct drmtop_model_client *c, const void *arg)
{
	(void)arg;
	return c->pid != 11;
}

static void by_process_filtered(void **state)
{
	struct drmtop_groups g;
	const struct drmtop_group *p10;

	(void)state;
	drmtop_groups_init(&g);
	assert_int_equal(drmtop_groups_build(&g, &model, DRMTOP_GROUP_PROCESS, not_pid_11, NULL),
			 0);
	assert_int_equal(g.n, 3);		/* 10, 20, 30: 11 filtered out */
	p10 = find(&g, "10");
	assert_int_equal(p10->nr_clients, 2);
	assert_true(pct(&g, p10, "gfx") == 50.0 && p10->mem_total == 3 * MIB);
	assert_string_equal(p10->name, "render");
	assert_false(p10->diverged);
	/* built again: the groups of the latest model only */
	assert_int_equal(drmtop_groups_build(&g, &model, DRMTOP_GROUP_PROCESS, NULL, NULL), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(find(&g, "11")->nr_clients, 1);
	drmtop_groups_fini(&g);
}

/* Over 100 %: a member's own figure, or the sum of several. */
static void over(void **state)
{
	struct drmtop_model_engine a[] = { engine("gfx", true, 70) };
	struct drmtop_model_engine b[] = { engine("gfx", true, 60) };
	struct drmtop_model_client two[] = {
		{ .key = "x", .pid = 1, .engines = a, .nr_engines = 1, .busy_sum_pct = 70 },
		{ .key = "y", .pid = 1, .engines = b, .nr_engines = 1, .busy_sum_pct = 60 },
	};
	struct drmtop_model m = { .clients = two, .nr_clients = 2 };
	struct drmtop_groups g;

	(void)state;
	drmtop_groups_init(&g);
	assert_int_equal(drmtop_groups_build(&g, &m, DRMTOP_GROUP_PROCESS, NULL, NULL), 0);
	assert_true(drmtop_group_engine(&g, &g.v[0], "gfx")->over);
	drmtop_groups_fini(&g);
}

/* A member's own figure over 100 % marks that engine of the group, not the last one added. */
static void over_marks_its_engine(void **state)
{
	struct drmtop_model_engine a[] = { engine("gfx", true, 10), engine("compute", true, 5) };
	struct drmtop_model_engine b[] = { engine("gfx", true, 50) };
	struct drmtop_model_client two[] = {
		{ .key = "x", .pid = 1, .engines = a, .nr_engines = 2, .busy_sum_pct = 15 },
		{ .key = "y", .pid = 1, .engines = b, .nr_engines = 1, .busy_sum_pct = 50 },
	};
	struct drmtop_model m = { .clients = two, .nr_clients = 2 };
	struct drmtop_groups g;

	(void)state;
	b[0].fd.flags |= DRMTOP_FD_OVER;	/* the driver's figure over 100 % of its interval */
	drmtop_groups_init(&g);
	assert_int_equal(drmtop_groups_build(&g, &m, DRMTOP_GROUP_PROCESS, NULL, NULL), 0);
	assert_true(drmtop_group_engine(&g, &g.v[0], "gfx")->over);
	assert_false(drmtop_group_engine(&g, &g.v[0], "compute")->over);
	drmtop_groups_fini(&g);
}

static void order(void **state)
{
	struct drmtop_groups g;
	const struct drmtop_group *p10, *p30;

	(void)state;
	drmtop_groups_init(&g);
	assert_int_equal(drmtop_groups_build(&g, &model, DRMTOP_GROUP_PROCESS, NULL, NULL), 0);
	p10 = find(&g, "10");
	p30 = find(&g, "30");
	/* busy: 10 (50) before 30 (40); memory: 10 (3 MiB) first; name: "game" < "render" */
	assert_true(drmtop_group_cmp(p10, p30, DRMTOP_SORT_BUSY, false) < 0);
	assert_true(drmtop_group_cmp(p10, p30, DRMTOP_SORT_BUSY, true) > 0);
	assert_true(drmtop_group_cmp(p10, p30, DRMTOP_SORT_MEMORY, false) < 0);
	assert_true(drmtop_group_cmp(p30, p10, DRMTOP_SORT_NAME, false) < 0);
	assert_true(drmtop_group_cmp(p10, p30, DRMTOP_SORT_PID, false) < 0);
	drmtop_groups_fini(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(by_workload, setup),
		cmocka_unit_test_setup(by_process_filtered, setup),
		cmocka_unit_test(over),
		cmocka_unit_test(over_marks_its_engine),
		cmocka_unit_test_setup(order, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
