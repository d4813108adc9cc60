// SPDX-License-Identifier: GPL-2.0-only
/*
 * floor.bpf.c: an empty program on every hook drmtop's tracer uses, named as drmtop's program
 * there (bpf/drmtop_drm.bpf.c, bpf/drmtop_sched.bpf.c). bench-floor loads those drmtop loaded,
 * so the bench's "floor" phase measures what any program on those hooks costs (the trampoline,
 * the tracepoint's call), the part of drmtop's overhead no change to its programs can remove.
 * A drmtop program missing here makes bench-floor fail, and with it bench-smoke.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define EMPTY(sec, name) SEC(sec) int name(void *ctx) { return 0; }

EMPTY("fentry/drm_file_alloc", drmtop_file_alloc_enter)
EMPTY("fexit/drm_file_alloc", drmtop_file_alloc)
EMPTY("raw_tp/gpu_mem_total", drmtop_gpu_mem_total)
EMPTY("fexit/drm_open", drmtop_open_exit)
EMPTY("fentry/drm_ioctl", drmtop_ioctl_enter)
EMPTY("fentry/drm_gem_release", drmtop_gem_release_enter)
EMPTY("fexit/drm_gem_release", drmtop_gem_release_exit)
EMPTY("fentry/drm_prime_destroy_file_private", drmtop_file_free)
EMPTY("fentry/drm_dev_unregister", drmtop_dev_unregister)
EMPTY("fexit/drm_gem_private_object_init", drmtop_gem_init)
EMPTY("fentry/drm_gem_object_release", drmtop_gem_object_release)
EMPTY("fentry/dma_resv_fini", drmtop_gem_resv_fini)
EMPTY("fexit/drm_gem_handle_create_tail", drmtop_handle_create)
EMPTY("fentry/drm_gem_object_release_handle", drmtop_handle_release)
EMPTY("fentry/drm_gem_prime_fd_to_handle", drmtop_import_enter)
EMPTY("fexit/drm_gem_prime_fd_to_handle", drmtop_import_exit)
EMPTY("fexit/drm_gem_prime_handle_to_fd", drmtop_export)
EMPTY("tp_btf/drm_sched_job", drmtop_queue_btf)
EMPTY("tp_btf/drm_run_job", drmtop_run_btf)
EMPTY("tp_btf/drm_sched_process_job", drmtop_done_btf)
EMPTY("raw_tp/drm_sched_job", drmtop_queue_raw)
EMPTY("raw_tp/drm_run_job", drmtop_run_raw)
EMPTY("raw_tp/drm_sched_process_job", drmtop_done_raw)
EMPTY("tp_btf/drm_sched_job_queue", drmtop_queue_btf_617)
EMPTY("tp_btf/drm_sched_job_run", drmtop_run_btf_617)
EMPTY("tp_btf/drm_sched_job_done", drmtop_done_btf_617)
EMPTY("raw_tp/drm_sched_job_queue", drmtop_queue_raw_617)
EMPTY("raw_tp/drm_sched_job_run", drmtop_run_raw_617)
EMPTY("raw_tp/drm_sched_job_done", drmtop_done_raw_617)
EMPTY("fentry/drm_sched_job_cleanup", drmtop_job_cleanup)
EMPTY("fentry/drm_sched_init", drmtop_sched_init)
EMPTY("fexit/drm_sched_fini", drmtop_sched_fini)
EMPTY("fexit/drm_sched_entity_init", drmtop_entity_init)
EMPTY("fentry/drm_sched_entity_fini", drmtop_entity_fini)
EMPTY("fentry/drm_sched_entity_destroy", drmtop_entity_destroy)

/* drmtop's iterators hook nothing (bench-floor does not load them): named, not measured */
SEC("iter/task_file") int drmtop_fds(struct bpf_iter__task_file *ctx) { return 0; }
SEC("iter/task_file") int drmtop_adopt(struct bpf_iter__task_file *ctx) { return 0; }
