/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bpf_tracer.h: loading and attaching drmtop's BPF tracer (bpf/drmtop_drm.bpf.c for the drm
 * module's hooks, bpf/drmtop_sched.bpf.c for gpu_sched's).
 *
 * Life cycle: drmtop_bpf_open() checks the prerequisites (root, kernel BTF, bpf()), then loads
 * each part whose kernel module is present; drmtop_bpf_poll() (call it at every refresh) loads
 * the parts whose module appeared since (drm and gpu_sched are modules in Debian and may load
 * after drmtop started); drmtop_bpf_close() detaches everything. The two parts share their
 * maps, so a part loaded later adds to the same figures.
 *
 * When the drm part attaches it walks the handle table of every DRM file already open (a
 * task_file iterator), so clients that existed before drmtop started report their memory
 * exactly too; their engine figures start at attach (jobs queued before attach count in
 * neither DRMTOP_CNT_JOBS_QUEUED nor the busy time, and show as done_unknown). Such clients
 * carry DRMTOP_CLIENT_LATE.
 *
 * Each hook is probed on its own against the BTF of the module that holds it (the function,
 * or the btf_trace_<tracepoint> typedef): a hook the kernel lacks is not loaded and is listed
 * with the reason; the scheduler's tracepoints are taken from whichever name set the kernel has
 * (6.1-6.16 or 6.17+), as tp_btf, or as raw_tp where tp_btf cannot load or attach.
 *
 * Process ids are those of drmtop's own pid namespace, as its /proc shows them (a container's):
 * the tracer records a client's tgid there, 0 for a process outside it.
 */
#ifndef DRMTOP_BPF_TRACER_H
#define DRMTOP_BPF_TRACER_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

struct drmtop_bpf;
struct drmtop_cgroup_ids;
struct drmtop_bpf_limits;

/* One BPF program: what it hooks and whether it is attached, or why not. */
struct drmtop_bpf_hook {
	char part[8];		/* "drm" or "sched" */
	char prog[48];		/* BPF program name */
	char target[64];	/* section, e.g. "fexit/drm_file_alloc", "tp_btf/drm_run_job" */
	bool attached;
	char why[128];		/* empty when attached */
};

/*
 * Opens the tracer. Returns 0 and *out on success, even when the drm or gpu_sched module is not
 * loaded yet (drmtop_bpf_ready() tells whether anything is attached). Returns a negative errno
 * and a precise reason in @why (what is missing: root, kernel BTF, bpf() support) otherwise;
 * *out is then NULL. @limits sizes the maps (NULL: the defaults). Process ids are given in the
 * pid namespace of the proc mount at @proc_root (NULL: "/proc"), the one the scan reads.
 * @count_idle: clients that close having run no job and held nothing are counted per process
 * (drmtop_bpf_snapshot.idle), not sent one by one (.closed), for consumers that only count them.
 */
int drmtop_bpf_open(struct drmtop_bpf **out, const struct drmtop_bpf_limits *limits,
		    const char *proc_root, bool count_idle, char *why, size_t why_len);

/*
 * Loads and attaches the parts whose module appeared since the last call. Returns the number
 * of parts newly attached (0 if none), or a negative errno if loading a present module's part
 * failed (drmtop_bpf_reason() says why; the other part keeps running).
 */
int drmtop_bpf_poll(struct drmtop_bpf *b);

/*
 * The inode of the pid namespace at @ns_path ("/proc/self/ns/pid"), which the tracer translates
 * tgids into; 0 for the initial namespace, or when it cannot be told (no translation).
 */
__u64 drmtop_pidns_of(const char *ns_path);

/* True once at least one hook is attached. */
bool drmtop_bpf_ready(const struct drmtop_bpf *b);


/* What is attached and what is missing, one line, e.g. for the CLI's header or JSON. */
const char *drmtop_bpf_reason(const struct drmtop_bpf *b);

/*
 * Names the cgroup ids of the tracer's clients (drmtop_client.cgroup_id); NULL if @b is. Close
 * records are resolved as the drain thread takes them, while their cgroup most likely exists.
 */
struct drmtop_cgroup_ids *drmtop_bpf_cgroup_ids(const struct drmtop_bpf *b);

/* Every program of the loaded (or attempted) parts; *hooks stays valid until the next call. */
size_t drmtop_bpf_hooks(const struct drmtop_bpf *b, const struct drmtop_bpf_hook **hooks);

void drmtop_bpf_close(struct drmtop_bpf *b);

#endif /* DRMTOP_BPF_TRACER_H */
