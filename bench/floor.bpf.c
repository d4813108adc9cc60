// SPDX-License-Identifier: GPL-2.0-only
/*
 * floor.bpf.c: a program on every hook drmtop's tracer uses, named as drmtop's program there
 * (bpf/drmtop_drm.bpf.c, bpf/drmtop_sched.bpf.c). bench-floor loads those drmtop loaded, so
 * the bench's "floor" phase measures what any program on those hooks costs (the trampoline,
 * the tracepoint's call), the part of drmtop's overhead no change to its programs can remove.
 * Built again with FLOOR_LOOKUP (floor-lookup.bpf.o, the "lookup" phase), each program looks
 * one key up in a hash map as drmtop's are (preallocated, an 8-byte key, present: bench-floor
 * puts it there): the least a program pays that keeps anything per event. Built with
 * FLOOR_LEAST too (floor-least.bpf.o, the "least" phase), the programs on a GEM buffer's life
 * and a scheduler entity's (hooked where jobs do not carry drm_client_id: 6.1) keep what an
 * exact count in hash maps, as drmtop's, must: an entry made where the object, handle or entity
 * begins and deleted where it ends, nothing else (no totals, flags, owners or second chances),
 * the other hooks a lookup each. Not a client's: drmtop parks a new one in an array slot, no
 * hash entry. A drmtop program missing here makes bench-floor fail, and with it bench-smoke.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#ifdef FLOOR_LOOKUP
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} floor_map SEC(".maps");

static __always_inline int floor_prog(void)
{
	__u64 k = 0;

	bpf_map_lookup_elem(&floor_map, &k);
	return 0;
}
#else
static __always_inline int floor_prog(void)
{
	return 0;
}
#endif

#define FLOOR(sec, name) SEC(sec) int name(void *ctx) { return floor_prog(); }

#ifdef FLOOR_LEAST
/* A GEM object, a scheduler entity, a handle (its file and object: what its release names). */
struct least_key {
	__u64 a, b;
};

#define LEAST_MAP(name)						\
	struct {						\
		__uint(type, BPF_MAP_TYPE_HASH);		\
		__uint(max_entries, 65536);			\
		__type(key, struct least_key);			\
		__type(value, __u64);				\
	} name SEC(".maps")

LEAST_MAP(least_objects);
LEAST_MAP(least_handles);
LEAST_MAP(least_entities);

/*
 * Arguments @a and @b (-1: none) of the hooked function, or its return value at index nr_args of
 * an fexit's context, as the key: inserted into or deleted from @map.
 */
#define ARG(ctx, i)	((i) < 0 ? 0 : ((__u64 *)(ctx))[i])
#define LEAST_ADD(sec, name, map, a, b)						\
	SEC(sec) int name(void *ctx)						\
	{									\
		struct least_key k = { ARG(ctx, a), ARG(ctx, b) };		\
		__u64 v = 1;							\
										\
		bpf_map_update_elem(&map, &k, &v, BPF_ANY);			\
		return 0;							\
	}
#define LEAST_DEL(sec, name, map, a, b)						\
	SEC(sec) int name(void *ctx)						\
	{									\
		struct least_key k = { ARG(ctx, a), ARG(ctx, b) };		\
										\
		bpf_map_delete_elem(&map, &k);					\
		return 0;							\
	}
#else
#define LEAST_ADD(sec, name, map, a, b)	FLOOR(sec, name)
#define LEAST_DEL(sec, name, map, a, b)	FLOOR(sec, name)
#endif

FLOOR("fentry/drm_file_alloc", drmtop_file_alloc_enter)
FLOOR("fexit/drm_file_alloc", drmtop_file_alloc)
FLOOR("raw_tp/gpu_mem_total", drmtop_gpu_mem_total)
FLOOR("fentry/drm_ioctl", drmtop_ioctl_enter)
FLOOR("fentry/drm_gem_release", drmtop_gem_release_enter)
FLOOR("fexit/drm_gem_release", drmtop_gem_release_exit)
FLOOR("fentry/drm_prime_destroy_file_private", drmtop_file_free)
FLOOR("fentry/drm_dev_unregister", drmtop_dev_unregister)
LEAST_ADD("fentry/drm_gem_private_object_init", drmtop_gem_init, least_objects, 1, -1)
LEAST_DEL("fentry/drm_gem_object_release", drmtop_gem_object_release, least_objects, 0, -1)
FLOOR("fentry/dma_resv_fini", drmtop_gem_resv_fini)
LEAST_ADD("fexit/drm_gem_handle_create_tail", drmtop_handle_create, least_handles, 0, 1)
LEAST_DEL("fentry/drm_gem_object_release_handle", drmtop_handle_release, least_handles, 2, 1)
FLOOR("fentry/drm_gem_prime_fd_to_handle", drmtop_import_enter)
FLOOR("fexit/drm_gem_prime_fd_to_handle", drmtop_import_exit)
FLOOR("fexit/drm_gem_prime_handle_to_fd", drmtop_export)
FLOOR("tp_btf/drm_sched_job", drmtop_queue_btf)
FLOOR("tp_btf/drm_run_job", drmtop_run_btf)
FLOOR("tp_btf/drm_sched_process_job", drmtop_done_btf)
FLOOR("raw_tp/drm_sched_job", drmtop_queue_raw)
FLOOR("raw_tp/drm_run_job", drmtop_run_raw)
FLOOR("raw_tp/drm_sched_process_job", drmtop_done_raw)
FLOOR("tp_btf/drm_sched_job_queue", drmtop_queue_btf_617)
FLOOR("tp_btf/drm_sched_job_run", drmtop_run_btf_617)
FLOOR("tp_btf/drm_sched_job_done", drmtop_done_btf_617)
FLOOR("raw_tp/drm_sched_job_queue", drmtop_queue_raw_617)
FLOOR("raw_tp/drm_sched_job_run", drmtop_run_raw_617)
FLOOR("raw_tp/drm_sched_job_done", drmtop_done_raw_617)
FLOOR("fentry/drm_sched_job_cleanup", drmtop_job_cleanup)
FLOOR("fentry/drm_sched_init", drmtop_sched_init)
FLOOR("fexit/drm_sched_fini", drmtop_sched_fini)
LEAST_ADD("fexit/drm_sched_entity_init", drmtop_entity_init, least_entities, 0, -1)
LEAST_DEL("fentry/drm_sched_entity_fini", drmtop_entity_fini, least_entities, 0, -1)
LEAST_DEL("fentry/drm_sched_entity_destroy", drmtop_entity_destroy, least_entities, 0, -1)

/* drmtop's iterators hook nothing (bench-floor does not load them): named, not measured */
SEC("iter/task_file") int drmtop_fds(struct bpf_iter__task_file *ctx) { return 0; }
SEC("iter/task_file") int drmtop_adopt(struct bpf_iter__task_file *ctx) { return 0; }
