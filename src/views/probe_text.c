// SPDX-License-Identifier: GPL-2.0-only
/*
 * `drmtop probe`: the probe as readable sections, each missing piece with what to do about it
 * where there is something to do.
 */
#include <inttypes.h>
#include <stdio.h>

#include "drmtop/drivers.h"
#include "drmtop/probe.h"

static const char *yn(bool v)
{
	return v ? "yes" : "no";
}

static const char *tri(enum drmtop_tristate v)
{
	return v == DRMTOP_YES ? "yes" : v == DRMTOP_NO ? "no" : "unknown";
}

static void kernel(FILE *out, const struct drmtop_probe *p)
{
	fprintf(out, "Kernel\n");
	fprintf(out, "  release            %s (%s)\n", p->kernel.release, p->kernel.machine);
	fprintf(out, "  vmlinux BTF        %s%s%s\n", yn(p->kernel.btf_vmlinux),
		p->kernel.btf_vmlinux ? "" : ": ", p->kernel.btf_vmlinux ? "" : p->kernel.btf_why);
	fprintf(out, "  drm                %s\n", drmtop_probe_mod_name(p->kernel.drm));
	fprintf(out, "  gpu_sched          %s\n", drmtop_probe_mod_name(p->kernel.gpu_sched));
}

static void tracepoints(FILE *out, const struct drmtop_probe *p)
{
	const char *gen = drmtop_tp_gen_name(p->tracepoints.generation);
	size_t i;

	fprintf(out, "\nTracepoints\n");
	fprintf(out, "  scheduler names    %s (%s)\n",
		gen ? gen : p->tracepoints.generation == DRMTOP_TP_GEN_NONE ? "none found" :
		"unknown", p->tracepoints.why);
	if (p->tracepoints.generation != DRMTOP_TP_GEN_UNKNOWN) {
		for (i = 0; i < DRMTOP_PROBE_TP_NAMES; i++)
			fprintf(out, "    %-22s %s\n", p->tracepoints.names[i],
				p->tracepoints.present[i] ? "present" : "-");
	}
	fprintf(out, "  fence client id    %s (struct drm_sched_fence.drm_client_id)\n",
		tri(p->tracepoints.fence_client_id));
	fprintf(out, "  gpu_mem_total      %s (%s)\n", tri(p->tracepoints.gpu_mem_total),
		p->tracepoints.gpu_mem_where);
}

static void privileges(FILE *out, const struct drmtop_probe *p)
{
	fprintf(out, "\nPrivileges\n");
	fprintf(out, "  euid               %u%s\n", (unsigned int)p->privileges.euid,
		p->privileges.euid == 0 ? " (root)" : "");
	if (p->privileges.caps_known)
		fprintf(out, "  capabilities       CAP_BPF %s, CAP_PERFMON %s, CAP_SYS_ADMIN %s\n",
			yn(p->privileges.cap_bpf), yn(p->privileges.cap_perfmon),
			yn(p->privileges.cap_sys_admin));
	else
		fprintf(out, "  capabilities       unknown (no CapEff in /proc/self/status)\n");
}

static void hooks(FILE *out, const struct drmtop_probe *p)
{
	size_t i;

	fprintf(out, "\nBPF tracer\n");
	if (!p->bpf.tried) {
		fprintf(out, "  not tried\n");
		return;
	}
	fprintf(out, "  maps (default sizes, drmtop --bpf-map NAME=N):");
	for (i = 0; i < DRMTOP_LIMIT_COUNT; i++)
		fprintf(out, "%s %s %u", i ? "," : "", drmtop_bpf_limit_names[i],
			p->bpf.map_limits[i]);
	fprintf(out, "\n  maps hold %.1f MiB of kernel memory (preallocated)\n",
		(double)p->bpf.map_bytes / (1 << 20));
	if (!p->bpf.opened) {
		fprintf(out, "  not available: %s\n", p->bpf.why);
		return;
	}
	fprintf(out, "  %s\n", p->bpf.reason);
	for (i = 0; i < p->bpf.nr_hooks; i++) {
		const struct drmtop_probe_hook *h = &p->bpf.hooks[i];

		fprintf(out, "  %-5s %-34s %s%s%s\n", h->part, h->target,
			h->attached ? "attached" : "not attached", h->attached ? "" : ": ",
			h->attached ? "" : h->why);
	}
}

static void devices(FILE *out, const struct drmtop_probe *p)
{
	size_t i;

	fprintf(out, "\nDevices\n");
	if (!p->nr_devices) {
		fprintf(out, "  none (no DRM or accel node in sysfs or /dev)\n");
		return;
	}
	for (i = 0; i < p->nr_devices; i++) {
		const struct drmtop_probe_device *d = &p->devices[i];

		fprintf(out, "  %-18s %3u:%-4u %-12s %-24s%s%s\n", d->node, d->major, d->minor,
			d->driver[0] ? d->driver : "(no driver)", d->parent,
			d->in_dev ? "" : " [no /dev node]",
			!d->driver[0] || d->in_table ? "" : " [not in driver table: prefix rule]");
	}
	if (p->devices_truncated)
		fprintf(out, "  (more devices not listed)\n");
}

static void drivers(FILE *out)
{
	const struct drmtop_driver_info *const *all;
	size_t n = drmtop_drivers(&all), i, j;

	fprintf(out, "\nDriver table (ring pattern -> fdinfo engine or (shown as), timing)\n");
	for (i = 0; i < n; i++) {
		const struct drmtop_driver_info *d = all[i];

		fprintf(out, "  %s%s%s: %s by default, drm_sched since %s\n", d->driver,
			d->nr_aliases ? " aka " : "", d->nr_aliases ? d->aliases[0] : "",
			drmtop_timing_name(d->timing), d->since);
		for (j = 0; j < d->nr_rings; j++) {
			const struct drmtop_ring_rule *r = &d->rings[j];

			char shown[64];

			snprintf(shown, sizeof(shown), "(%s)", r->label ? r->label : "ring name");
			fprintf(out, "    %-16s -> %-14s %s\n", r->pattern,
				r->engine ? r->engine : shown,
				drmtop_timing_name(drmtop_rule_timing(d, r)));
		}
		for (j = 0; j < d->nr_kernel_ids; j++)
			fprintf(out, "    kernel client ids %" PRIu64 "..%" PRIu64 "\n",
				d->kernel_ids[j].first, d->kernel_ids[j].last);
		fprintf(out, "    %s\n", d->notes);
	}
}

int drmtop_probe_print_text(FILE *out, const struct drmtop_probe *p)
{
	kernel(out, p);
	tracepoints(out, p);
	privileges(out, p);
	hooks(out, p);
	devices(out, p);
	drivers(out);
	fflush(out);
	return ferror(out) ? -1 : 0;
}
