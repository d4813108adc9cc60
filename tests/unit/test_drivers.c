// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver table against ring names taken from each driver's source (Debian linux-source
 * 6.1.192, 6.12.117, 7.2.13; the file is named beside each case): which fdinfo engine each ring
 * feeds, first-match-wins, unmapped rings, timing, kernel client ids, and the prefix rule for
 * drivers the table does not know.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "drmtop/drivers.h"
#include "drmtop/fdinfo.h"
#include "fixture.h"

#define EXE DRMTOP_TIMING_EXECUTION
#define OCC DRMTOP_TIMING_OCCUPANCY
#define UNMAPPED ((const char *)1)	/* no rule matches */

struct ring_case {
	const char *ring;
	const char *engine;	/* NULL: a rule with no engine; UNMAPPED: no rule */
	enum drmtop_timing timing;
};

static void check_rings(const char *driver, const struct ring_case *c, size_t n)
{
	const struct drmtop_driver_info *d = drmtop_driver_find(driver);
	size_t i;

	if (!d)
		fail_msg("%s not in the table", driver);
	for (i = 0; i < n; i++) {
		const struct drmtop_ring_rule *rule = drmtop_driver_ring_rule(d, c[i].ring);
		enum drmtop_timing t = drmtop_rule_timing(d, rule);
		const char *e = rule ? rule->engine : NULL;

		if (c[i].engine == UNMAPPED) {
			if (rule)
				fail_msg("%s %s: matched %s", driver, c[i].ring, rule->pattern);
			assert_null(e);
			continue;
		}
		if (!rule)
			fail_msg("%s %s: unmapped", driver, c[i].ring);
		if (!c[i].engine != !e || (e && strcmp(e, c[i].engine)))
			fail_msg("%s %s: engine %s, expected %s", driver, c[i].ring, e ? e : "NULL",
				 c[i].engine ? c[i].engine : "NULL");
		if (t != c[i].timing)
			fail_msg("%s %s: timing %s", driver, c[i].ring, drmtop_timing_name(t));
	}
}

#define CHECK(driver, ...)                                                         \
	do {                                                                       \
		static const struct ring_case c_[] = { __VA_ARGS__ };              \
		check_rings(driver, c_, sizeof(c_) / sizeof(c_[0]));               \
	} while (0)

static void amdgpu(void **state)
{
	(void)state;
	CHECK("amdgpu",
	      /* gfx_v8_0.c "gfx"; gfx_v9_0.c "gfx_%d"; gfx_v10/11/12 "gfx_%d.%d.%d" */
	      { "gfx", "gfx", EXE }, { "gfx_1", "gfx", EXE }, { "gfx_0.0.0", "gfx", EXE },
	      /* amdgpu_ring_mux.c software rings (6.12+) */
	      { "gfx_low", "gfx", EXE }, { "gfx_high", "gfx", EXE },
	      /* amdgpu_gfx.c / gfx_v*: "comp_%d.%d.%d"; gfx_v9_4_3.c "comp_%d.%d.%d.%d" */
	      { "comp_1.0.0", "compute", EXE }, { "comp_1.3.1.2", "compute", EXE },
	      /* sdma_v5_2.c "sdma%d"; sdma_v4_4_2.c "sdma%d.%d", "page%d.%d" */
	      { "sdma0", "dma", EXE }, { "sdma1.3", "dma", EXE }, { "page0", "dma", EXE },
	      { "page2.1", "dma", EXE },
	      /* uvd_v7_0.c "uvd_%d", "uvd_enc_%d.%d"; uvd_v6_0.c "uvd", "uvd_enc%d":
	       * uvd_enc* must win over uvd* (first match) */
	      { "uvd", "dec", EXE }, { "uvd_1", "dec", EXE }, { "uvd_enc0", "enc_1", EXE },
	      { "uvd_enc_1.0", "enc_1", EXE },
	      /* vce_v4_0.c "vce%d" */
	      { "vce0", "enc", EXE },
	      /* vcn_v1_0.c "vcn_dec", "vcn_enc%d"; vcn_v2_5.c "vcn_dec_%d", "vcn_enc_%d.%d" */
	      { "vcn_dec", "dec", EXE }, { "vcn_dec_1", "dec", EXE }, { "vcn_enc0", "enc", EXE },
	      { "vcn_enc_1.0", "enc", EXE },
	      /* vcn_v4_0.c "vcn_unified_%d" */
	      { "vcn_unified_0", "enc", EXE },
	      /* jpeg_v1_0.c "jpeg_dec"; jpeg_v2_5.c "jpeg_dec_%d"; jpeg_v4_0_3.c "jpeg_dec_%d.%d" */
	      { "jpeg_dec", "jpeg", EXE }, { "jpeg_dec_1", "jpeg", EXE },
	      { "jpeg_dec_0.3", "jpeg", EXE },
	      /* amdgpu_vpe.c "vpe" */
	      { "vpe", "vpe", EXE },
	      /* no_scheduler rings never run jobs; if one did, it is unmapped, not guessed */
	      { "kiq_0.2.1.0", UNMAPPED, EXE }, { "mes_3.0.0", UNMAPPED, EXE },
	      { "umsch", UNMAPPED, EXE }, { "cper", UNMAPPED, EXE },
	      { "vpe_1", UNMAPPED, EXE });
}

static void xe(void **state)
{
	(void)state;
	/* xe_exec_queue.c xe_exec_queue_assign_name(q, q->guc->id) */
	CHECK("xe", { "rcs0", "rcs", OCC }, { "rcs37", "rcs", OCC }, { "bcs2", "bcs", OCC },
	      { "vcs1", "vcs", OCC }, { "vecs0", "vecs", OCC }, { "ccs3", "ccs", OCC },
	      { "gsccs0", "other", OCC }, { "guc", UNMAPPED, OCC });
}

static void v3d(void **state)
{
	(void)state;
	/* v3d_sched.c v3d_sched_init */
	CHECK("v3d", { "v3d_bin", "bin", EXE }, { "v3d_render", "render", EXE },
	      { "v3d_tfu", "tfu", EXE }, { "v3d_csd", "csd", EXE },
	      { "v3d_cache_clean", "cache_clean", EXE }, { "v3d_cpu", "cpu", EXE },
	      { "v3d_bin2", UNMAPPED, EXE });
}

static void msm(void **state)
{
	(void)state;
	/* msm_ringbuffer.c "ring%d" (BO name), msm_gem_vma.c "msm-vm-bind" (7.2) */
	CHECK("msm", { "ring0", "gpu", EXE }, { "ring1", "gpu", OCC }, { "ring3", "gpu", OCC },
	      { "msm-vm-bind", NULL, EXE }, { "ringX", UNMAPPED, EXE });
}

static void panfrost(void **state)
{
	(void)state;
	/* panfrost_job.c: "pan_js" (6.1, 6.12), panfrost_engine_names[] (7.2) */
	CHECK("panfrost", { "fragment", "fragment", EXE }, { "vertex-tiler", "vertex-tiler", EXE },
	      { "compute-only", NULL, EXE }, { "pan_js", NULL, EXE });
}

static void panthor(void **state)
{
	(void)state;
	/* panthor_sched.c "panthor-queue" (6.12), "panthor-queue-%llu-%u-%u" (7.2);
	 * panthor_mmu.c "panthor-vm-bind" */
	CHECK("panthor", { "panthor-queue", "panthor", OCC },
	      { "panthor-queue-12-1-0", "panthor", OCC }, { "panthor-vm-bind", NULL, OCC });
}

static void the_others(void **state)
{
	(void)state;
	/* lima_device.c lima_sched_pipe_init(pipe, "gp" / "pp") */
	CHECK("lima", { "gp", NULL, EXE }, { "pp", NULL, EXE }, { "gpu", UNMAPPED, EXE });
	/* etnaviv_sched.c dev_name(gpu->dev) */
	CHECK("etnaviv", { "130000.gpu", NULL, EXE }, { "134000.gpu", NULL, EXE });
	/* nouveau_sched.c "nouveau_sched" */
	CHECK("nouveau", { "nouveau_sched", NULL, OCC });
	/* pvr_queue.c "pvr-queue" */
	CHECK("powervr", { "pvr-queue", NULL, OCC });
	/* aie2_ctx.c "amdxdna_js" */
	CHECK("amdxdna_accel_driver", { "amdxdna_js", NULL, OCC });
	/* rocket_job.c dev_name(core->dev); ethosu_job.c dev_name(dev) */
	CHECK("rocket", { "fdab0000.npu", NULL, EXE });
	CHECK("ethosu", { "4a180000.npu", NULL, EXE });
}

static void lookup_and_table(void **state)
{
	const struct drmtop_driver_info *const *all;
	size_t n, i, j;

	(void)state;
	n = drmtop_drivers(&all);
	assert_int_equal(n, 13);
	for (i = 0; i < n; i++) {
		assert_ptr_equal(drmtop_driver_find(all[i]->driver), all[i]);
		assert_non_null(all[i]->since);
		assert_non_null(all[i]->notes);
		assert_true(all[i]->nr_rings > 0);
		for (j = 0; j < all[i]->nr_rings; j++)
			assert_true(all[i]->rings[j].timing >= -1 && all[i]->rings[j].timing <= 1);
	}
	/* module / sysfs names of drivers whose drm-driver differs */
	assert_ptr_equal(drmtop_driver_find("amdxdna"), drmtop_driver_find("amdxdna_accel_driver"));
	assert_ptr_equal(drmtop_driver_find("imagination"), drmtop_driver_find("powervr"));
	assert_null(drmtop_driver_find("i915"));	/* no drm_sched */
	assert_null(drmtop_driver_find("simgpu"));
	assert_null(drmtop_driver_find(NULL));
	assert_string_equal(drmtop_timing_name(EXE), "execution");
	assert_string_equal(drmtop_timing_name(OCC), "occupancy");
}

static void kernel_client_ids(void **state)
{
	const struct drmtop_driver_info *amd = drmtop_driver_find("amdgpu");
	const struct drmtop_driver_info *xe = drmtop_driver_find("xe");
	const struct drmtop_driver_info *v3d = drmtop_driver_find("v3d");

	(void)state;
	/* amdgpu_job.h AMDGPU_KERNEL_JOB_ID_VM_UPDATE .. _VCN_RING_TEST (6.12.117),
	 * .. _RUN_SHADER (7.2) */
	assert_true(drmtop_driver_is_kernel_client_id(amd, 18446744073709551615ULL));
	assert_true(drmtop_driver_is_kernel_client_id(amd, 18446744073709551602ULL));
	assert_true(drmtop_driver_is_kernel_client_id(amd, 18446744073709551598ULL));
	assert_false(drmtop_driver_is_kernel_client_id(amd, 0));
	assert_false(drmtop_driver_is_kernel_client_id(amd, 42));
	/* xe_sched_job.c: q->xef ? q->xef->drm->client_id : 0 */
	assert_true(drmtop_driver_is_kernel_client_id(xe, 0));
	assert_false(drmtop_driver_is_kernel_client_id(xe, 1));
	assert_false(drmtop_driver_is_kernel_client_id(xe, UINT64_MAX));
	/* v3d_submit.c: every job carries its file's client id */
	assert_false(drmtop_driver_is_kernel_client_id(v3d, 0));
	assert_false(drmtop_driver_is_kernel_client_id(v3d, UINT64_MAX));
	assert_false(drmtop_driver_is_kernel_client_id(NULL, 0));
}

static void fallback_for_unknown_drivers(void **state)
{
	static const char *const engines[] = { "gfx", "compute", "copy", "render" };
	enum drmtop_timing t = OCC;
	bool known = true;

	(void)state;
	assert_string_equal(drmtop_ring_prefix_engine("gfx", engines, 4), "gfx");
	assert_string_equal(drmtop_ring_prefix_engine("gfx_0.0.0", engines, 4), "gfx");
	assert_string_equal(drmtop_ring_prefix_engine("gfx.1", engines, 4), "gfx");
	assert_string_equal(drmtop_ring_prefix_engine("gfx0", engines, 4), "gfx");
	assert_string_equal(drmtop_ring_prefix_engine("copy-2", engines, 4), "copy");
	assert_null(drmtop_ring_prefix_engine("gfxhub", engines, 4));
	assert_null(drmtop_ring_prefix_engine("dma0", engines, 4));
	assert_null(drmtop_ring_prefix_engine("gfx", NULL, 0));

	/* simgpu (the VM suites' driver) is not in the table: prefix rule, timing execution */
	assert_string_equal(drmtop_ring_engine("simgpu", "compute0", engines, 4, &t, &known),
			    "compute");
	assert_false(known);
	assert_int_equal(t, EXE);
	assert_null(drmtop_ring_engine(NULL, "render_x", engines, 3, &t, &known));
	assert_false(known);

	/* a known driver uses its table, never the prefix rule: v3d's "v3d_render" feeds
	 * "render" though it does not start with it; xe's "ccs0" is ccs even when fdinfo lacks it */
	assert_string_equal(drmtop_ring_engine("v3d", "v3d_render", engines, 4, &t, &known),
			    "render");
	assert_true(known);
	assert_int_equal(t, EXE);
	assert_string_equal(drmtop_ring_engine("xe", "ccs0", engines, 4, &t, NULL), "ccs");
	assert_int_equal(t, OCC);
	/* and a known driver's unmapped ring stays unmapped */
	assert_null(drmtop_ring_engine("amdgpu", "render0", engines, 4, &t, &known));
	assert_true(known);
}

/*
 * Drivers that print no engine time (lima, nouveau, powervr, etnaviv, rocket): a ring the table
 * knows is shown under the name its users know it by, never as unmapped (VM case 80 shows them
 * in every view); a ring it does not know is still unmapped. drmtop_ring_engine gave NULL for
 * every such ring, and the views said "(unmapped ring)" of lima's "gp".
 */
static void known_rings_without_engines(void **state)
{
	enum drmtop_timing t;

	(void)state;
	assert_string_equal(drmtop_ring_engine("lima", "gp", NULL, 0, &t, NULL), "gp");
	assert_int_equal(t, EXE);
	assert_string_equal(drmtop_ring_engine("lima", "pp", NULL, 0, &t, NULL), "pp");
	assert_null(drmtop_ring_engine("lima", "simgpu-copy", NULL, 0, &t, NULL));
	assert_string_equal(drmtop_ring_engine("nouveau", "nouveau_sched", NULL, 0, &t, NULL),
			    "gpu");
	assert_int_equal(t, OCC);
	assert_string_equal(drmtop_ring_engine("imagination", "pvr-queue", NULL, 0, &t, NULL),
			    "gpu");
	assert_string_equal(drmtop_ring_engine("etnaviv", "130000.gpu", NULL, 0, &t, NULL),
			    "130000.gpu");
	assert_string_equal(drmtop_ring_engine("panthor", "panthor-queue-7-1-0", NULL, 0, &t, NULL),
			    "panthor");
	assert_string_equal(drmtop_ring_engine("panthor", "panthor-vm-bind", NULL, 0, &t, NULL),
			    "panthor-vm-bind");
}

/*
 * The other direction, against real fdinfo (../shared/fdinfo_samples): every engine a driver's
 * fdinfo printed is fed by some ring of the table, so no figure is left without a ring to
 * compare with.
 */
static void sample_engines_have_rings(void **state)
{
	static const char *const files[] = { "amdgpu.txt", "msm.txt", "panfrost.txt", "v3d.txt" };
	size_t f, s, e, r, checked = 0;

	(void)state;
	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct fx_file fx;

		fx_load(files[f], &fx);
		for (s = 0; s < fx.nr; s++) {
			const struct fx_sample *x = &fx.samples[s];
			const struct drmtop_driver_info *d;
			struct drm_fdinfo fi;

			drm_fdinfo_init(&fi);
			assert_int_equal(drm_fdinfo_parse(&fi, x->text, x->len), 0);
			d = drmtop_driver_find(fi.driver);
			for (e = 0; d && e < fi.nr_engines; e++) {
				bool fed = false;

				for (r = 0; r < d->nr_rings && !fed; r++)
					fed = d->rings[r].engine &&
					      !strcmp(d->rings[r].engine, fi.engines[e].name);
				if (!fed)
					fail_msg("%s sample %zu: no ring feeds engine %s", files[f], s,
						 fi.engines[e].name);
				checked++;
			}
			drm_fdinfo_free(&fi);
		}
		fx_free(&fx);
	}
	assert_true(checked >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(amdgpu),
		cmocka_unit_test(xe),
		cmocka_unit_test(v3d),
		cmocka_unit_test(msm),
		cmocka_unit_test(panfrost),
		cmocka_unit_test(panthor),
		cmocka_unit_test(the_others),
		cmocka_unit_test(lookup_and_table),
		cmocka_unit_test(kernel_client_ids),
		cmocka_unit_test(fallback_for_unknown_drivers),
		cmocka_unit_test(known_rings_without_engines),
		cmocka_unit_test(sample_engines_have_rings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
