/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Process ids as drmtop's /proc shows them. Tasks carry one pid per namespace level; the
 * tracer records a client's tgid in drmtop's own pid namespace, whose inode the loader sets
 * in drmtop_pidns_ino before loading (0: drmtop runs in the initial namespace, where the
 * kernel's tgid is that number already). A task outside drmtop's namespace has no pid there:
 * 0, never the number of an unrelated process drmtop can see.
 * One walk for the current task and any other (iterators, adoption), so
 * bpf_get_ns_current_pid_tgid() is not used. struct pid.{level,numbers[]}, upid.{nr,ns},
 * pid_namespace.ns.inum, task_struct.{group_leader,thread_pid} checked in 6.1, 6.12 and 7.2.
 */
#ifndef DRMTOP_PIDNS_BPF_H
#define DRMTOP_PIDNS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#define DRMTOP_PIDNS_LEVELS	33	/* MAX_PID_NS_LEVEL 32, plus the initial namespace */

const volatile __u64 drmtop_pidns_ino = 0;

static __always_inline __u32 drmtop_ns_tgid(struct task_struct *task)
{
	struct pid *pid;
	struct upid up;
	__u32 level, i;

	if (!drmtop_pidns_ino)
		return BPF_CORE_READ(task, tgid);
	pid = BPF_CORE_READ(task, group_leader, thread_pid);
	level = BPF_CORE_READ(pid, level);
	for (i = 0; i < DRMTOP_PIDNS_LEVELS && i <= level; i++) {
		if (bpf_probe_read_kernel(&up, sizeof(up), (void *)pid +
					  bpf_core_field_offset(struct pid, numbers) +
					  i * sizeof(struct upid)))
			return 0;
		if (BPF_CORE_READ(up.ns, ns.inum) == drmtop_pidns_ino)
			return up.nr;
	}
	return 0;
}

#endif /* DRMTOP_PIDNS_BPF_H */
