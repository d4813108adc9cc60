// SPDX-License-Identifier: GPL-2.0-only
/*
 * `drmtop probe` on the host without a GPU: tracepoint generation and drm_sched_fence.
 * drm_client_id detection against BTF fixtures built here with libbpf (the shapes of Debian's
 * 6.1, 6.12.117 and 7.2 gpu_sched BTF: checked by hand against those kernels' gpu-sched.ko),
 * a whole synthetic /sys with raw BTF files, DRM and accel class devices, and the JSON view
 * checked with jq; then the real /sys of this machine, whatever it has (no GPU, no gpu_sched
 * module, maybe no BTF), which must never fail the probe. The tracer is not opened here (it
 * needs root and loads BPF programs); the VM suites cover that.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/btf.h>

#include "drmtop/probe.h"

enum shape { SHAPE_6_1, SHAPE_6_12, SHAPE_6_17, SHAPE_EMPTY };

/* Add to @btf what gpu_sched's BTF has of the given kernel's shape. */
static void add_sched_types(struct btf *btf, int int_id, enum shape shape)
{
	static const char *const old[] = { "drm_sched_job", "drm_run_job",
					   "drm_sched_process_job" };
	static const char *const new[] = { "drm_sched_job_queue", "drm_sched_job_run",
					   "drm_sched_job_done" };
	const char *const *names = shape == SHAPE_6_17 ? new : old;
	char t[64];
	int i, fn;

	if (shape == SHAPE_EMPTY)
		return;
	fn = btf__add_ptr(btf, int_id);
	assert_true(fn > 0);
	for (i = 0; i < 3; i++) {
		snprintf(t, sizeof(t), "btf_trace_%s", names[i]);
		assert_true(btf__add_typedef(btf, t, fn) > 0);
	}
	assert_true(btf__add_struct(btf, "drm_sched_fence", 16) > 0);
	assert_int_equal(btf__add_field(btf, "owner", int_id, 0, 0), 0);
	if (shape != SHAPE_6_1)
		assert_int_equal(btf__add_field(btf, "drm_client_id", int_id, 64, 0), 0);
}

static struct btf *sched_btf(enum shape shape)
{
	struct btf *btf = btf__new_empty();
	int int_id;

	assert_non_null(btf);
	int_id = btf__add_int(btf, "long long unsigned int", 8, 0);
	assert_true(int_id > 0);
	add_sched_types(btf, int_id, shape);
	return btf;
}

static void generation_from_btf(void **state)
{
	static const struct {
		enum shape shape;
		enum drmtop_tp_gen gen;
		enum drmtop_tristate fence;
	} t[] = {
		{ SHAPE_6_1, DRMTOP_TP_GEN_6_1, DRMTOP_NO },	/* Debian 6.1.0-56 */
		{ SHAPE_6_12, DRMTOP_TP_GEN_6_1, DRMTOP_YES },	/* Debian 6.12.117 */
		{ SHAPE_6_17, DRMTOP_TP_GEN_6_17, DRMTOP_YES },	/* Debian 7.2.13 */
		{ SHAPE_EMPTY, DRMTOP_TP_GEN_NONE, DRMTOP_UNKNOWN },
	};
	static struct drmtop_probe p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct btf *btf = sched_btf(t[i].shape);

		memset(&p, 0, sizeof(p));
		drmtop_probe_sched_btf(&p, btf);
		assert_int_equal(p.tracepoints.generation, t[i].gen);
		assert_int_equal(p.tracepoints.fence_client_id, t[i].fence);
		assert_int_equal(p.tracepoints.present[1], t[i].shape <= SHAPE_6_12);
		assert_int_equal(p.tracepoints.present[3], t[i].shape == SHAPE_6_17);
		btf__free(btf);
	}
	memset(&p, 0, sizeof(p));
	drmtop_probe_sched_btf(&p, NULL);
	assert_int_equal(p.tracepoints.generation, DRMTOP_TP_GEN_UNKNOWN);
	assert_null(drmtop_tp_gen_name(DRMTOP_TP_GEN_UNKNOWN));
	assert_null(drmtop_tp_gen_name(DRMTOP_TP_GEN_NONE));
	assert_string_equal(drmtop_tp_gen_name(DRMTOP_TP_GEN_6_1), "6.1-6.16");
	assert_string_equal(drmtop_tp_gen_name(DRMTOP_TP_GEN_6_17), "6.17+");
}

/* ---- a synthetic machine ---- */

static char root[64];

static void path_of(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", root, rel);
}

static void mkdirs(const char *rel)
{
	char p[512], *s;

	path_of(p, sizeof(p), rel);
	for (s = p + strlen(root) + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

static void put(const char *rel, const void *data, size_t len)
{
	char p[512];
	FILE *f;

	path_of(p, sizeof(p), rel);
	f = fopen(p, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void link_to(const char *target, const char *rel)
{
	char p[512];

	path_of(p, sizeof(p), rel);
	assert_int_equal(symlink(target, p), 0);
}

static void put_btf(const char *rel, const struct btf *btf)
{
	const void *raw;
	__u32 size;

	raw = btf__raw_data(btf, &size);
	assert_non_null(raw);
	put(rel, raw, size);
}

static void class_node(const char *class, const char *name, const char *dev, const char *pdev,
		       const char *driver)
{
	char rel[256], target[256];

	snprintf(rel, sizeof(rel), "sys/devices/%s/%s/%s", pdev, class, name);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "sys/devices/%s/%s/%s/dev", pdev, class, name);
	put(rel, dev, strlen(dev));
	snprintf(rel, sizeof(rel), "sys/devices/%s/%s/%s/device", pdev, class, name);
	link_to("../..", rel);
	snprintf(rel, sizeof(rel), "sys/class/%s/%s", class, name);
	snprintf(target, sizeof(target), "../../devices/%s/%s/%s", pdev, class, name);
	mkdirs("sys/class/drm");
	mkdirs("sys/class/accel");
	link_to(target, rel);
	if (driver) {
		snprintf(rel, sizeof(rel), "sys/devices/%s/driver", pdev);
		snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", driver);
		unlink(rel);
		link_to(target, rel);
	}
}

static void rm_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* jq -e @expr on @file: 0 when the expression is true. */
static int jq(const char *file, const char *expr)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "jq -e '%s' '%s' >/dev/null", expr, file);
	return system(cmd);
}

static void synthetic_machine(void **state)
{
	static const char caps[] = "Name:\tx\nCapEff:\t000000c000000000\n";	/* BPF, PERFMON */
	static struct drmtop_probe p;
	struct drmtop_probe_opts o = { .no_bpf = true };
	char sys[128], dev[128], status[128], json[128];
	struct btf *vmlinux, *sched;
	int int_id, fn;
	FILE *f;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/drmtop-probe-XXXXXX");
	assert_non_null(mkdtemp(root));
	mkdirs("sys/kernel/btf");
	mkdirs("dev/dri");

	/* vmlinux BTF with gpu_mem_total (CONFIG_TRACE_GPU_MEM=y); drm and gpu_sched as modules */
	vmlinux = btf__new_empty();
	int_id = btf__add_int(vmlinux, "long long unsigned int", 8, 0);
	fn = btf__add_ptr(vmlinux, int_id);
	assert_true(btf__add_typedef(vmlinux, "btf_trace_gpu_mem_total", fn) > 0);
	put_btf("sys/kernel/btf/vmlinux", vmlinux);
	sched = btf__new_empty_split(vmlinux);
	assert_non_null(sched);
	add_sched_types(sched, int_id, SHAPE_6_17);
	put_btf("sys/kernel/btf/gpu_sched", sched);
	put("sys/kernel/btf/drm", "", 0);
	btf__free(sched);
	btf__free(vmlinux);

	/* an amdgpu card with a connector, an NPU, and a node only /dev has */
	mkdirs("sys/bus/pci/drivers/amdgpu");
	class_node("drm", "card0", "226:0\n", "pci0000:00/0000:03:00.0", "amdgpu");
	class_node("drm", "renderD128", "226:128\n", "pci0000:00/0000:03:00.0", NULL);
	class_node("drm", "card0-DP-1", "", "pci0000:00/0000:03:00.0", NULL);
	class_node("accel", "accel0", "261:0\n", "pci0000:00/0000:c5:00.1", "amdxdna");
	put("dev/dri/card0", "", 0);
	put("dev/dri/renderD128", "", 0);
	put("status", caps, strlen(caps));

	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(dev, sizeof(dev), "%s/dev", root);
	snprintf(status, sizeof(status), "%s/status", root);
	o.sys_root = sys;
	o.dev_root = dev;
	o.proc_self_status = status;
	assert_int_equal(drmtop_probe_run(&p, &o), 0);

	assert_true(p.kernel.btf_vmlinux);
	assert_int_equal(p.kernel.drm, DRMTOP_MOD_MODULE);
	assert_int_equal(p.kernel.gpu_sched, DRMTOP_MOD_MODULE);
	assert_int_equal(p.tracepoints.generation, DRMTOP_TP_GEN_6_17);
	assert_int_equal(p.tracepoints.fence_client_id, DRMTOP_YES);
	assert_int_equal(p.tracepoints.gpu_mem_total, DRMTOP_YES);
	assert_true(p.privileges.caps_known);
	assert_true(p.privileges.cap_bpf && p.privileges.cap_perfmon);
	assert_false(p.privileges.cap_sys_admin);
	assert_false(p.bpf.tried);
	assert_int_equal(p.nr_devices, 3);
	assert_string_equal(p.devices[0].node, "dri/card0");
	assert_string_equal(p.devices[0].driver, "amdgpu");
	assert_string_equal(p.devices[0].parent, "0000:03:00.0");
	assert_true(p.devices[0].in_table && p.devices[0].in_dev);
	assert_string_equal(p.devices[1].node, "dri/renderD128");
	assert_string_equal(p.devices[2].node, "accel/accel0");
	assert_int_equal(p.devices[2].major, 261);
	assert_string_equal(p.devices[2].driver, "amdxdna");
	assert_true(p.devices[2].in_table);	/* the module name of amdxdna_accel_driver */
	assert_false(p.devices[2].in_dev);

	snprintf(json, sizeof(json), "%s/probe.json", root);
	f = fopen(json, "we");
	assert_non_null(f);
	assert_int_equal(drmtop_probe_print_json(f, &p), 0);
	fclose(f);
	assert_int_equal(jq(json, "keys == [\"bpf\",\"devices\",\"devices_truncated\",\"drivers\","
			     "\"hooks\",\"kernel\",\"privileges\",\"tracepoints\"]"), 0);
	assert_int_equal(jq(json, ".tracepoints.generation == \"6.17+\" and "
			     ".tracepoints.scheduler.drm_sched_job_run == true and "
			     ".tracepoints.scheduler.drm_run_job == false and "
			     ".tracepoints.fence_drm_client_id == true and "
			     ".tracepoints.gpu_mem_total.present == true"), 0);
	assert_int_equal(jq(json, ".kernel.btf == {\"vmlinux\":true,\"why\":null,"
			     "\"drm\":\"module\",\"gpu_sched\":\"module\"}"), 0);
	assert_int_equal(jq(json, ".privileges.cap_sys_admin == false and .bpf.tried == false "
			     "and .hooks == []"), 0);
	assert_int_equal(jq(json, "[.devices[] | .node] == [\"dri/card0\",\"dri/renderD128\","
			     "\"accel/accel0\"] and .devices[1].driver == \"amdgpu\""), 0);
	assert_int_equal(jq(json, "(.drivers | length) == 13 and (.drivers[] | "
			     "select(.driver == \"msm\") | .rings[1]) == {\"pattern\":\"ring[1-9]*\","
			     "\"engine\":\"gpu\",\"timing\":\"occupancy\"}"), 0);
	assert_int_equal(jq(json, ".drivers[] | select(.driver == \"xe\") | "
			     ".kernel_client_ids == [{\"first\":0,\"last\":0}]"), 0);
	assert_int_equal(jq(json, "[.drivers[].rings[] | select(.engine == null)] | length > 0"),
			 0);
	drmtop_probe_free(&p);

	/* the same machine with no BTF at all and gpu_sched gone: nothing fails, all is said */
	snprintf(json, sizeof(json), "%s/sys/kernel/btf/vmlinux", root);
	unlink(json);
	snprintf(json, sizeof(json), "%s/sys/kernel/btf/gpu_sched", root);
	unlink(json);
	assert_int_equal(drmtop_probe_run(&p, &o), 0);
	assert_false(p.kernel.btf_vmlinux);
	assert_non_null(strstr(p.kernel.btf_why, "CONFIG_DEBUG_INFO_BTF"));
	assert_int_equal(p.kernel.gpu_sched, DRMTOP_MOD_ABSENT);
	assert_int_equal(p.tracepoints.generation, DRMTOP_TP_GEN_UNKNOWN);
	assert_non_null(strstr(p.tracepoints.why, "not loaded"));
	assert_int_equal(p.tracepoints.gpu_mem_total, DRMTOP_UNKNOWN);
	snprintf(json, sizeof(json), "%s/probe.json", root);
	f = fopen(json, "we");
	assert_int_equal(drmtop_probe_print_json(f, &p), 0);
	fclose(f);
	assert_int_equal(jq(json, ".tracepoints.generation == null and "
			     ".tracepoints.scheduler.drm_run_job == null and "
			     ".tracepoints.fence_drm_client_id == null and "
			     ".kernel.btf.vmlinux == false"), 0);
	drmtop_probe_free(&p);
	rm_root();
}

/* The hooks as the tracer lists them (drmtop_bpf_hooks), one attached and one not. */
static void hooks_json(void **state)
{
	static struct drmtop_probe p;
	struct drmtop_probe_hook h[2] = {
		{ "sched", "drmtop_run_btf", "tp_btf/drm_run_job", true, "" },
		{ "drm", "drmtop_gem_free", "fentry/drm_gem_object_free", false,
		  "no BTF for function drm_gem_object_free" },
	};
	char json[] = "/tmp/drmtop-probe-hooks-XXXXXX";
	FILE *f;
	int fd;

	(void)state;
	p.bpf.tried = p.bpf.opened = true;
	snprintf(p.bpf.reason, sizeof(p.bpf.reason), "1/2 hooks attached");
	p.bpf.hooks = h;
	p.bpf.nr_hooks = 2;
	p.bpf.map_limits[DRMTOP_LIMIT_CLIENTS] = 4096;
	p.bpf.map_limits[DRMTOP_LIMIT_HANDLES] = 32768;
	p.bpf.map_limits[DRMTOP_LIMIT_RINGBUF] = 262144;
	p.bpf.map_limits[DRMTOP_LIMIT_TIMELINES] = 1024;
	p.bpf.map_bytes = 14000000;
	fd = mkstemp(json);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_int_equal(drmtop_probe_print_json(f, &p), 0);
	fclose(f);
	assert_int_equal(jq(json, ".hooks == [{\"part\":\"sched\",\"prog\":\"drmtop_run_btf\","
			     "\"target\":\"tp_btf/drm_run_job\",\"attached\":true,\"why\":null},"
			     "{\"part\":\"drm\",\"prog\":\"drmtop_gem_free\","
			     "\"target\":\"fentry/drm_gem_object_free\",\"attached\":false,"
			     "\"why\":\"no BTF for function drm_gem_object_free\"}] and "
			     "(.bpf | del(.maps)) == {\"tried\":true,\"opened\":true,\"why\":null,"
			     "\"reason\":\"1/2 hooks attached\"} and "
			     ".bpf.maps == {\"clients\":4096,\"engines\":0,\"rings\":0,\"jobs\":0,"
			     "\"handles\":32768,\"objects\":0,\"devices\":0,\"entities\":0,"
			     "\"ringbuf\":262144,\"timelines\":1024,"
			     "\"kernel_bytes\":14000000}"), 0);
	unlink(json);
}

/* This machine as it is: whatever it lacks, the probe works and its JSON is valid. */
static void this_machine(void **state)
{
	static struct drmtop_probe p;
	struct drmtop_probe_opts o = { .no_bpf = true };
	char json[] = "/tmp/drmtop-probe-host-XXXXXX";
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(drmtop_probe_run(&p, &o), 0);
	assert_true(p.kernel.release[0] != '\0');
	assert_int_equal(p.kernel.btf_vmlinux, access("/sys/kernel/btf/vmlinux", R_OK) == 0);
	if (access("/sys/kernel/btf/gpu_sched", F_OK) && p.kernel.gpu_sched != DRMTOP_MOD_BUILTIN) {
		assert_int_equal(p.tracepoints.generation, DRMTOP_TP_GEN_UNKNOWN);
		assert_non_null(strstr(p.tracepoints.why, "not loaded"));
	}
	assert_int_equal(p.privileges.euid, geteuid());

	fd = mkstemp(json);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_int_equal(drmtop_probe_print_json(f, &p), 0);
	fclose(f);
	assert_int_equal(jq(json, ".kernel.release | length > 0"), 0);
	unlink(json);
	f = fopen("/dev/null", "we");
	assert_int_equal(drmtop_probe_print_text(f, &p), 0);
	fclose(f);
	drmtop_probe_free(&p);
}

static void usage_errors(void **state)
{
	char *bad[] = { "probe", "--bogus", NULL };
	char *help[] = { "probe", "-h", NULL };

	(void)state;
	assert_int_equal(drmtop_probe_main(2, bad), 2);
	assert_int_equal(drmtop_probe_main(2, help), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(generation_from_btf),
		cmocka_unit_test(synthetic_machine),
		cmocka_unit_test(hooks_json),
		cmocka_unit_test(this_machine),
		cmocka_unit_test(usage_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
