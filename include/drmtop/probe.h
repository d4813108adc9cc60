/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `drmtop probe`: what this kernel and machine give drmtop, gathered once into a struct the
 * views print (src/views/probe_text.c, src/views/probe_json.c).
 *
 * Nothing here fails for lack of a GPU, of BTF or of root: each missing piece is recorded with
 * the reason. Sources, all readable without root unless noted:
 *  - /sys/kernel/btf/{vmlinux,drm,gpu_sched} (mode 0444): whether drm and gpu_sched are
 *    modules (their BTF file), built in (vmlinux BTF has drm_ioctl / drm_sched_job_cleanup) or
 *    absent; the scheduler tracepoint generation from the btf_trace_<name> typedefs: 6.1-6.16
 *    drm_sched_job / drm_run_job / drm_sched_process_job, 6.17+ drm_sched_job_queue /
 *    drm_sched_job_run / drm_sched_job_done; whether struct drm_sched_fence has
 *    drm_client_id (6.17+, 6.12.10x stable).
 *  - gpu_mem/gpu_mem_total: the tracefs events directory (root) or btf_trace_gpu_mem_total in
 *    vmlinux BTF (CONFIG_TRACE_GPU_MEM is built in when set).
 *  - /proc/self/status CapEff for CAP_SYS_ADMIN (21), CAP_PERFMON (38), CAP_BPF (39).
 *  - the tracer itself (drmtop_bpf_open, root): every hook, attached or why not; closed again.
 *  - /sys/class/drm and /sys/class/accel: device nodes and their drivers; /dev/dri, /dev/accel.
 * Checked on the host's 6.18 (no GPU, vmlinux BTF only) and Debian's 6.1 and 6.12 BTF layout.
 */
#ifndef DRMTOP_PROBE_H
#define DRMTOP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "drmtop/bpf_limits.h"


struct btf;

/* Where a module's types are: its own BTF file, vmlinux (built in), or nowhere. */
enum drmtop_probe_mod { DRMTOP_MOD_ABSENT, DRMTOP_MOD_MODULE, DRMTOP_MOD_BUILTIN };

enum drmtop_tp_gen {
	DRMTOP_TP_GEN_UNKNOWN,	/* no BTF to look in (gpu_sched not loaded, no kernel BTF) */
	DRMTOP_TP_GEN_NONE,	/* BTF read, neither name set in it */
	DRMTOP_TP_GEN_6_1,	/* drm_sched_job, drm_run_job, drm_sched_process_job */
	DRMTOP_TP_GEN_6_17,	/* drm_sched_job_queue, drm_sched_job_run, drm_sched_job_done */
};

/* A yes/no the probe could not always answer. */
enum drmtop_tristate { DRMTOP_UNKNOWN = -1, DRMTOP_NO = 0, DRMTOP_YES = 1 };

#define DRMTOP_PROBE_TP_NAMES 6
#define DRMTOP_PROBE_MAX_DEVICES 64

struct drmtop_probe_device {
	char node[48];		/* "dri/card0", "dri/renderD128", "accel/accel0" (sysfs class name) */
	unsigned int major, minor;	/* from sysfs dev; 0:0 when unreadable */
	bool in_dev;		/* /dev/<node> exists */
	char driver[64];	/* sysfs device/driver basename, "" when unbound or unreadable */
	char parent[96];	/* sysfs device basename: PCI address, platform device name */
	bool in_table;		/* driver is in the driver table (drmtop_driver_find) */
};

/* One of the tracer's programs as the probe reports it: a copy, so its views need no tracer. */
struct drmtop_probe_hook {
	char part[8];		/* "drm" or "sched" */
	char prog[48];		/* BPF program name */
	char target[64];	/* section, e.g. "tp_btf/drm_run_job" */
	bool attached;
	char why[128];		/* empty when attached */
};

struct drmtop_probe {
	struct {
		char release[65];
		char machine[65];
		bool btf_vmlinux;		/* /sys/kernel/btf/vmlinux readable and parsed */
		char btf_why[128];		/* why not, when !btf_vmlinux */
		enum drmtop_probe_mod drm, gpu_sched;
	} kernel;
	struct {
		enum drmtop_tp_gen generation;
		char why[160];		/* what was looked at, or why nothing could be */
		/* the six scheduler tracepoint names and whether each has its typedef */
		const char *names[DRMTOP_PROBE_TP_NAMES];
		bool present[DRMTOP_PROBE_TP_NAMES];
		enum drmtop_tristate fence_client_id;	/* drm_sched_fence.drm_client_id */
		enum drmtop_tristate gpu_mem_total;
		char gpu_mem_where[64];	/* "tracefs ...", "vmlinux BTF", or what was looked at */
	} tracepoints;
	struct {
		uid_t euid;
		bool caps_known;	/* CapEff was read */
		bool cap_sys_admin, cap_perfmon, cap_bpf;
	} privileges;
	struct {
		bool tried;		/* false when the caller asked for no BPF */
		bool opened;		/* drmtop_bpf_open succeeded */
		char why[256];		/* drmtop_bpf_open's reason when not opened */
		char reason[512];	/* drmtop_bpf_reason() when opened */
		struct drmtop_probe_hook *hooks;
		size_t nr_hooks;
		/* the maps' default sizes (drmtop --bpf-map) and the kernel memory they hold */
		uint32_t map_limits[DRMTOP_LIMIT_COUNT];
		uint64_t map_bytes;
	} bpf;
	struct drmtop_probe_device devices[DRMTOP_PROBE_MAX_DEVICES];
	size_t nr_devices;
	bool devices_truncated;
};

struct drmtop_probe_opts {
	const char *sys_root;	/* NULL: "/sys" */
	const char *dev_root;	/* NULL: "/dev" */
	const char *proc_self_status;	/* NULL: "/proc/self/status" */
	bool no_bpf;		/* do not open the tracer (tests) */
};

/* Fill @p. Never fails for a missing piece; returns 0, or -ENOMEM. Free with drmtop_probe_free. */
int drmtop_probe_run(struct drmtop_probe *p, const struct drmtop_probe_opts *opts);
void drmtop_probe_free(struct drmtop_probe *p);

/*
 * The tracepoint generation and drm_sched_fence.drm_client_id per one BTF (gpu_sched's, or
 * vmlinux when it is built in); fills p->tracepoints.{generation,names,present,fence_client_id}.
 */
void drmtop_probe_sched_btf(struct drmtop_probe *p, const struct btf *btf);

/* "6.17+", "6.1-6.16", or NULL (unknown or none). */
const char *drmtop_tp_gen_name(enum drmtop_tp_gen g);
const char *drmtop_probe_mod_name(enum drmtop_probe_mod m);	/* "absent", "module", "built-in" */

/* Views. 0, or -1 when writing failed. */
int drmtop_probe_print_text(FILE *out, const struct drmtop_probe *p);
int drmtop_probe_print_json(FILE *out, const struct drmtop_probe *p);

/* `drmtop probe [-J|--json] [-h|--help]`: 0 success, 1 error, 2 bad usage. */
int drmtop_probe_main(int argc, char **argv);

#endif /* DRMTOP_PROBE_H */
