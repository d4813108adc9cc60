// SPDX-License-Identifier: GPL-2.0-only
/*
 * The facts behind `drmtop probe` (see include/drmtop/probe.h). Kernel facts relied on:
 * /sys/kernel/btf/<module> is split BTF on top of vmlinux's and is world-readable (6.1, 6.12,
 * 7.2, the host's 6.18); a module's tracepoints have btf_trace_<name> typedefs in its BTF;
 * /sys/class/drm/<node>/dev is "major:minor" and device/driver links to the bound driver;
 * /proc/<pid>/status has CapEff in hex since 2.6.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "drmtop/drivers.h"
#include "drmtop/bpf_tracer.h"
#include "drmtop/probe.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

/* Scheduler tracepoints: 6.1-6.16 names first, then the 6.17+ ones (KERNEL-NOTES). */
static const char *const tp_names[DRMTOP_PROBE_TP_NAMES] = {
	"drm_sched_job", "drm_run_job", "drm_sched_process_job",
	"drm_sched_job_queue", "drm_sched_job_run", "drm_sched_job_done",
};

/* snprintf where truncating is fine (reasons, names longer than any real one) */
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

const char *drmtop_tp_gen_name(enum drmtop_tp_gen g)
{
	switch (g) {
	case DRMTOP_TP_GEN_6_1:
		return "6.1-6.16";
	case DRMTOP_TP_GEN_6_17:
		return "6.17+";
	default:
		return NULL;
	}
}

const char *drmtop_probe_mod_name(enum drmtop_probe_mod m)
{
	return m == DRMTOP_MOD_MODULE ? "module" : m == DRMTOP_MOD_BUILTIN ? "built-in" : "absent";
}

static bool has_typedef(const struct btf *btf, const char *prefix, const char *name)
{
	char t[128];

	say(t, sizeof(t), "%s%s", prefix, name);
	return btf__find_by_name_kind(btf, t, BTF_KIND_TYPEDEF) > 0;
}

void drmtop_probe_sched_btf(struct drmtop_probe *p, const struct btf *btf)
{
	const struct btf_type *t;
	const struct btf_member *m;
	int id, i;

	for (i = 0; i < DRMTOP_PROBE_TP_NAMES; i++) {
		p->tracepoints.names[i] = tp_names[i];
		p->tracepoints.present[i] = btf && has_typedef(btf, "btf_trace_", tp_names[i]);
	}
	p->tracepoints.fence_client_id = DRMTOP_UNKNOWN;
	if (!btf) {
		p->tracepoints.generation = DRMTOP_TP_GEN_UNKNOWN;
		return;
	}
	/* the same test the tracer makes (bpf_tracer.c load_sched): the queue tracepoint's name */
	if (p->tracepoints.present[3])
		p->tracepoints.generation = DRMTOP_TP_GEN_6_17;
	else if (p->tracepoints.present[1])
		p->tracepoints.generation = DRMTOP_TP_GEN_6_1;
	else
		p->tracepoints.generation = DRMTOP_TP_GEN_NONE;

	id = btf__find_by_name_kind(btf, "drm_sched_fence", BTF_KIND_STRUCT);
	if (id <= 0)
		return;
	t = btf__type_by_id(btf, id);
	p->tracepoints.fence_client_id = DRMTOP_NO;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, "drm_client_id"))
			p->tracepoints.fence_client_id = DRMTOP_YES;
	}
}

static bool readable(const char *path)
{
	return !access(path, R_OK);
}

/* drm and gpu_sched: built in when vmlinux BTF has one of their functions, else their file. */
static enum drmtop_probe_mod module_state(const struct btf *vmlinux, const char *sys,
					  const char *module, const char *func)
{
	char path[PATH_MAX];

	if (vmlinux && btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) > 0)
		return DRMTOP_MOD_BUILTIN;
	say(path, sizeof(path), "%s/kernel/btf/%s", sys, module);
	return readable(path) ? DRMTOP_MOD_MODULE : DRMTOP_MOD_ABSENT;
}

static void probe_sched(struct drmtop_probe *p, struct btf *vmlinux, const char *sys)
{
	char path[PATH_MAX];
	struct btf *btf;

	switch (p->kernel.gpu_sched) {
	case DRMTOP_MOD_BUILTIN:
		drmtop_probe_sched_btf(p, vmlinux);
		say(p->tracepoints.why, sizeof(p->tracepoints.why),
			 "gpu_sched is built in: read vmlinux BTF");
		return;
	case DRMTOP_MOD_ABSENT:
		drmtop_probe_sched_btf(p, NULL);
		say(p->tracepoints.why, sizeof(p->tracepoints.why),
			 "gpu_sched module not loaded (no %s/kernel/btf/gpu_sched): load a "
			 "drm_sched driver or modprobe gpu-sched", sys);
		return;
	case DRMTOP_MOD_MODULE:
		break;
	}
	say(path, sizeof(path), "%s/kernel/btf/gpu_sched", sys);
	if (!vmlinux) {
		drmtop_probe_sched_btf(p, NULL);
		say(p->tracepoints.why, sizeof(p->tracepoints.why),
			 "%s is split BTF and vmlinux BTF could not be read", path);
		return;
	}
	btf = btf__parse_split(path, vmlinux);
	if (!btf) {
		drmtop_probe_sched_btf(p, NULL);
		say(p->tracepoints.why, sizeof(p->tracepoints.why), "cannot parse %s: %s",
			 path, strerror(errno));
		return;
	}
	drmtop_probe_sched_btf(p, btf);
	say(p->tracepoints.why, sizeof(p->tracepoints.why), "read %s", path);
	btf__free(btf);
}

static void probe_gpu_mem(struct drmtop_probe *p, const struct btf *vmlinux, const char *sys)
{
	static const char *const dirs[] = { "kernel/tracing", "kernel/debug/tracing" };
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		say(path, sizeof(path), "%s/%s/events/gpu_mem/gpu_mem_total", sys, dirs[i]);
		if (!access(path, F_OK)) {
			p->tracepoints.gpu_mem_total = DRMTOP_YES;
			say(p->tracepoints.gpu_mem_where, sizeof(p->tracepoints.gpu_mem_where),
				 "tracefs (%s)", dirs[i]);
			return;
		}
	}
	/* CONFIG_TRACE_GPU_MEM is a bool: when set, the tracepoint is in vmlinux and its BTF */
	if (vmlinux) {
		bool yes = has_typedef(vmlinux, "btf_trace_", "gpu_mem_total");

		p->tracepoints.gpu_mem_total = yes ? DRMTOP_YES : DRMTOP_NO;
		say(p->tracepoints.gpu_mem_where, sizeof(p->tracepoints.gpu_mem_where), "%s",
			 yes ? "vmlinux BTF" : "not in vmlinux BTF (CONFIG_TRACE_GPU_MEM off)");
		return;
	}
	p->tracepoints.gpu_mem_total = DRMTOP_UNKNOWN;
	say(p->tracepoints.gpu_mem_where, sizeof(p->tracepoints.gpu_mem_where),
		 "no vmlinux BTF and no tracefs entry");
}

static void probe_privileges(struct drmtop_probe *p, const char *status)
{
	char line[256];
	FILE *f;

	p->privileges.euid = geteuid();
	f = fopen(status, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) != 1)
			continue;
		p->privileges.caps_known = true;
		p->privileges.cap_sys_admin = caps >> CAP_SYS_ADMIN_BIT & 1;
		p->privileges.cap_perfmon = caps >> CAP_PERFMON_BIT & 1;
		p->privileges.cap_bpf = caps >> CAP_BPF_BIT & 1;
		break;
	}
	fclose(f);
}

static int probe_bpf(struct drmtop_probe *p)
{
	const struct drmtop_bpf_hook *hooks;
	struct drmtop_bpf *b;
	size_t n, i;

	p->bpf.tried = true;
	for (i = 0; i < DRMTOP_LIMIT_COUNT; i++)
		p->bpf.map_limits[i] = drmtop_bpf_limit(NULL, i);
	p->bpf.map_bytes = drmtop_bpf_limits_bytes(NULL);
	if (drmtop_bpf_open(&b, NULL, NULL, false, p->bpf.why, sizeof(p->bpf.why)))
		return 0;
	p->bpf.opened = true;
	say(p->bpf.reason, sizeof(p->bpf.reason), "%s", drmtop_bpf_reason(b));
	n = drmtop_bpf_hooks(b, &hooks);
	if (n) {
		p->bpf.hooks = calloc(n, sizeof(*p->bpf.hooks));
		if (!p->bpf.hooks) {
			drmtop_bpf_close(b);
			return -ENOMEM;
		}
		for (i = 0; i < n; i++) {
			struct drmtop_probe_hook *h = &p->bpf.hooks[i];

			say(h->part, sizeof(h->part), "%s", hooks[i].part);
			say(h->prog, sizeof(h->prog), "%s", hooks[i].prog);
			say(h->target, sizeof(h->target), "%s", hooks[i].target);
			say(h->why, sizeof(h->why), "%s", hooks[i].why);
			h->attached = hooks[i].attached;
		}
		p->bpf.nr_hooks = n;
	}
	drmtop_bpf_close(b);
	return 0;
}

/* Basename of the target of the link @dir/@name into @out; "" when not a readable link. */
static void link_base(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *slash;
	ssize_t n;

	out[0] = '\0';
	say(path, sizeof(path), "%s/%s", dir, name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	slash = strrchr(target, '/');
	say(out, len, "%s", slash ? slash + 1 : target);
}

static void add_device(struct drmtop_probe *p, const char *sys, const char *dev,
		       const char *class, const char *name, const char *subdir)
{
	char dir[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
	struct drmtop_probe_device *d;
	FILE *f;

	if (p->nr_devices >= DRMTOP_PROBE_MAX_DEVICES) {
		p->devices_truncated = true;
		return;
	}
	d = &p->devices[p->nr_devices++];
	memset(d, 0, sizeof(*d));
	say(d->node, sizeof(d->node), "%s/%s", subdir, name);
	say(dir, sizeof(dir), "%s/class/%s/%s", sys, class, name);
	say(path, sizeof(path), "%s/dev", dir);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%u:%u", &d->major, &d->minor) != 2)
			d->major = d->minor = 0;
		fclose(f);
	}
	link_base(dir, "device/driver", d->driver, sizeof(d->driver));
	/* sysfs's own link text is "../../../0000:03:00.0"; resolve rather than trust its form */
	say(path, sizeof(path), "%s/device", dir);
	if (realpath(path, real)) {
		const char *slash = strrchr(real, '/');

		say(d->parent, sizeof(d->parent), "%s", slash ? slash + 1 : real);
	}
	d->in_table = d->driver[0] && drmtop_driver_find(d->driver);
	say(path, sizeof(path), "%s/%s", dev, d->node);
	d->in_dev = !access(path, F_OK);
}

/* DRM minors are card<N>, renderD<N> (and controlD<N> before 6.8); connectors have a '-'. */
static bool is_drm_minor(const char *name)
{
	return !strchr(name, '-') && (!strncmp(name, "card", 4) || !strncmp(name, "renderD", 7) ||
				      !strncmp(name, "controlD", 8));
}

static void scan_class(struct drmtop_probe *p, const char *sys, const char *dev,
		       const char *class, const char *subdir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	say(path, sizeof(path), "%s/class/%s", sys, class);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!strcmp(class, "drm") ? !is_drm_minor(de->d_name) :
					    strncmp(de->d_name, "accel", 5))
			continue;
		add_device(p, sys, dev, class, de->d_name, subdir);
	}
	closedir(d);
}

/* Nodes under /dev that sysfs did not list (a container's /dev, a stale node). */
static void scan_dev(struct drmtop_probe *p, const char *dev, const char *subdir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	say(path, sizeof(path), "%s/%s", dev, subdir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct drmtop_probe_device *pd;
		char node[48];
		struct stat st;
		size_t i;
		bool known = false;

		if (de->d_name[0] == '.')
			continue;
		say(node, sizeof(node), "%s/%s", subdir, de->d_name);
		for (i = 0; i < p->nr_devices && !known; i++)
			known = !strcmp(p->devices[i].node, node);
		say(path, sizeof(path), "%s/%s", dev, node);
		/* devtmpfs or a container's tmpfs: a stat here cannot hang */
		if (known || stat(path, &st) || !S_ISCHR(st.st_mode))
			continue;
		if (p->nr_devices >= DRMTOP_PROBE_MAX_DEVICES) {
			p->devices_truncated = true;
			break;
		}
		pd = &p->devices[p->nr_devices++];
		memset(pd, 0, sizeof(*pd));
		say(pd->node, sizeof(pd->node), "%s", node);
		pd->major = major(st.st_rdev);
		pd->minor = minor(st.st_rdev);
		pd->in_dev = true;
	}
	closedir(d);
}

static int cmp_device(const void *a, const void *b)
{
	const struct drmtop_probe_device *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return strcmp(x->node, y->node);
}

int drmtop_probe_run(struct drmtop_probe *p, const struct drmtop_probe_opts *opts)
{
	const char *sys = opts && opts->sys_root ? opts->sys_root : "/sys";
	const char *dev = opts && opts->dev_root ? opts->dev_root : "/dev";
	const char *status = opts && opts->proc_self_status ? opts->proc_self_status :
							      "/proc/self/status";
	struct btf *vmlinux = NULL;
	char path[PATH_MAX];
	struct utsname u;
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (!uname(&u)) {
		say(p->kernel.release, sizeof(p->kernel.release), "%s", u.release);
		say(p->kernel.machine, sizeof(p->kernel.machine), "%s", u.machine);
	}
	say(path, sizeof(path), "%s/kernel/btf/vmlinux", sys);
	if (!readable(path)) {
		say(p->kernel.btf_why, sizeof(p->kernel.btf_why),
			 "no %s (CONFIG_DEBUG_INFO_BTF off): no CO-RE tracer", path);
	} else {
		vmlinux = btf__parse(path, NULL);
		if (!vmlinux)
			say(p->kernel.btf_why, sizeof(p->kernel.btf_why), "cannot parse %s: %s",
				 path, strerror(errno));
	}
	p->kernel.btf_vmlinux = vmlinux != NULL;
	p->kernel.drm = module_state(vmlinux, sys, "drm", "drm_ioctl");
	p->kernel.gpu_sched = module_state(vmlinux, sys, "gpu_sched", "drm_sched_job_cleanup");
	probe_sched(p, vmlinux, sys);
	probe_gpu_mem(p, vmlinux, sys);
	btf__free(vmlinux);

	probe_privileges(p, status);
	if (!opts || !opts->no_bpf)
		err = probe_bpf(p);

	scan_class(p, sys, dev, "drm", "dri");
	scan_class(p, sys, dev, "accel", "accel");
	scan_dev(p, dev, "dri");
	scan_dev(p, dev, "accel");
	qsort(p->devices, p->nr_devices, sizeof(p->devices[0]), cmp_device);
	return err;
}

void drmtop_probe_free(struct drmtop_probe *p)
{
	free(p->bpf.hooks);
	p->bpf.hooks = NULL;
	p->bpf.nr_hooks = 0;
}
