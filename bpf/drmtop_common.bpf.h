/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drmtop_common.bpf.h: the maps every drmtop BPF object shares and the client bookkeeping the
 * DRM hooks (drmtop_drm.bpf.c) and the scheduler hooks (drmtop_sched.bpf.c) both need. The two
 * objects are loaded separately (the drm and gpu_sched modules may appear at different times);
 * the loader creates the maps with the first object and hands them to the second with
 * bpf_map__reuse_fd(), so the definitions here must stay identical for both.
 *
 * Kernel structures read here, checked against the BTF of Debian 6.1.0-56 (6.1.192) and
 * 6.12.117+deb12, and the sources of 6.1, 6.12 and 6.17: drm_file.{minor,client_id},
 * drm_minor.{index,kdev,dev}, drm_device.{dev,driver}, drm_driver.name, device.devt.
 * drm_file.client_id exists from 6.5 on (bpf_core_field_exists).
 */
#ifndef DRMTOP_COMMON_BPF_H
#define DRMTOP_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "drmtop_bpf.h"
#include "drmtop_account.bpf.h"
#include "drmtop_pidns.bpf.h"

#define DRMTOP_IS_ERR(p) ((unsigned long)(p) >= (unsigned long)-4095)

/*
 * Field @f of @p. @btf: @p is a BTF-typed argument of a tp_btf, fentry or fexit program, or a
 * pointer loaded from one: a plain load, which the verifier checks by BTF. Else (raw
 * tracepoints, the iterator's private_data: scalars to the verifier) bpf_probe_read_kernel, a
 * helper call a field, which under TCG costs like a map lookup. @btf is always a constant: the
 * branch not taken is compiled out, so a raw_tp program never holds the plain load. Checked by
 * VM cases 40-50 on Debian 6.1.0-56 and 6.12.117+deb12, 40-43, 45, 47, 48, 50 on 7.2.13+deb14,
 * 40 and 41 on arm64 6.12.117+deb12.
 */
#define DRMTOP_READ(btf, p, f) ((btf) ? (p)->f : BPF_CORE_READ(p, f))

/*
 * Argument @n (or the return value) of a fentry/fexit program's function as a plain number: a
 * BTF pointer may be offset and compared but not hashed (drmtop_parked_slot), and these
 * helpers, which the verifier inlines (5.17+), hand the value over as a scalar. Checked on
 * Debian 6.1.0-57, 6.12.117+deb12 and 7.2.13+deb14 (x86-64) and 6.12.117+deb12 (arm64).
 */
static __always_inline __u64 drmtop_arg_addr(void *ctx, __u32 n)
{
	__u64 v = 0;

	bpf_get_func_arg(ctx, n, &v);
	return v;
}

static __always_inline __u64 drmtop_ret_addr(void *ctx)
{
	__u64 v = 0;

	bpf_get_func_ret(ctx, &v);
	return v;
}

/* drm_file or struct device address -> client */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_CLIENTS);
	__type(key, __u64);
	__type(value, struct drmtop_client);
} clients SEC(".maps");

/* Clients parked at their open, not yet in clients (struct drmtop_parked); read mmapped. */
DRMTOP_PARKED_MAP(parked);

/*
 * drm_file.client_id -> drm_file address, for s_fence->drm_client_id attribution: the slots
 * first, the hash for ids whose slot is taken (drmtop_id_add). On 6.12 a hash insert and delete
 * a client and a lookup a job queued, which the slots' inlined lookups replace.
 */
DRMTOP_CLIENT_SLOTS_MAP(client_slots);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_CLIENTS);
	__type(key, __u64);
	__type(value, __u64);
} client_ids SEC(".maps");

/*
 * Per thread: the drm_file of its latest DRM ioctl, for kernels without drm_client_id (who
 * queued a job, who made an entity). Only fentry/drm_ioctl writes it, no fexit clears it: half
 * the trampoline cost of every ioctl, and task storage is a pointer off the task, no hash, and
 * freed with the thread. The value outlives the ioctl, so a reader must only trust it in paths
 * that run inside an ioctl of the thread (a job queued or an entity made by a client's thread
 * outside any ioctl or open: none seen in the 6.1 to 7.2 drivers; kernel threads do no ioctl).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} ioctl_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_ENGINES);
	__type(key, struct drmtop_engine_key);
	__type(value, struct drmtop_engine);
} engines SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_RINGS);
	__type(key, __u64);
	__type(value, struct drmtop_ring);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_JOBS);
	__type(key, __u64);
	__type(value, struct drmtop_job);
} jobs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_HANDLES);
	__type(key, struct drmtop_handle_key);
	__type(value, struct drmtop_handle);
} handles SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_OBJECTS);
	__type(key, __u64);
	__type(value, struct drmtop_object);
} objects SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_DEVICES);
	__type(key, __u64);
	__type(value, struct drmtop_device);
} devices SEC(".maps");

/*
 * Per thread inside drm_gem_prime_fd_to_handle: the drm_file importing (handles made there are
 * imports), 0 once out. Task storage, as the two below: freed with the thread, so an exit whose
 * program the kernel skipped (7.x) leaves nothing behind for longer than its thread lives, and
 * no map fills with such leftovers over a long run.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} importing SEC(".maps");

/*
 * Per thread inside drm_file_alloc: the entities the driver's open callback made so far; its
 * fexit hands them to the new file by key, no walk of the entities map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct drmtop_opening);
} opening SEC(".maps");

/*
 * Scheduler entity -> owner, for kernels without drm_sched_fence.drm_client_id. Drivers create
 * a client's entities in its open callback or in an ioctl of the client (amdgpu's context
 * ioctl), their own entities at probe time: who was running when the entity was created tells
 * whose jobs go through it, also for driver jobs queued while a client's ioctl runs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_ENTITIES);
	__type(key, __u64);
	__type(value, struct drmtop_entity);
} entities SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DRMTOP_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* closed clients, struct drmtop_client with DRMTOP_CLIENT_CLOSED */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, DRMTOP_RINGBUF_BYTES);
} closed SEC(".maps");

/* uid sequence; slot 0 of an array so both objects share it */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} uid_seq SEC(".maps");

/*
 * Hardware timeline (dma_fence.context of a job's hardware fence) -> its latest completion:
 * the execution units behind one ring, see drmtop_timeline_busy_ns(). Only the scheduler part
 * uses it; here so that --bpf-map sizes it as the others. LRU, so timelines of exec queues long
 * gone (xe, panthor make one per user queue) make room by themselves: the reader counts what it
 * dropped (timelines_evicted, all that were made minus those present: nothing else deletes).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DRMTOP_MAX_TIMELINES);
	__type(key, __u64);
	__type(value, struct drmtop_timeline);
} timelines SEC(".maps");

static __always_inline void drmtop_count(enum drmtop_counter c)
{
	__u32 k = c;
	__u64 *v = bpf_map_lookup_elem(&counters, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
}

static __always_inline void drmtop_cas_gave_up(void)
{
	drmtop_count(DRMTOP_CNT_CAS_GAVE_UP);
}

/* Only the test object races its loops (drmtop_account.bpf.h): nothing is emitted here. */
static __always_inline void drmtop_cas_race(__u64 *v)
{
	(void)v;
}

/*
 * Test only (bpfdump --drop-*): true on every @every-th call (never when 0), as if the kernel
 * had skipped the program there; calls counted in *@seen, drops in *@dropped.
 */
static __always_inline bool drmtop_test_drop(__u32 every, __u64 *seen, __u64 *dropped)
{
	if (!every || __sync_fetch_and_add(seen, 1) % every != every - 1)
		return false;
	__sync_fetch_and_add(dropped, 1);
	return true;
}

static __always_inline __u64 drmtop_next_uid(void)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&uid_seq, &k);

	/* uid 0 means "none"; the array slot starts at 0, so the first uid is 1 */
	return v ? __sync_fetch_and_add(v, 1) + 1 : 0;
}

/*
 * Records a DRM device (driver name, parent) the first time any hook meets it; returns its
 * entry, found with one lookup on every later call (every GEM object's init makes one). @d
 * holds what was read when it had to be made (the entry is NULL if the map refused it).
 */
static __always_inline struct drmtop_device *drmtop_note_device(struct drm_device *dev,
								int minor_index,
								struct drmtop_device *d)
{
	__u64 key = (__u64)dev;
	struct drmtop_device *dp;
	const char *name;

	dp = bpf_map_lookup_elem(&devices, &key);
	if (dp || !dev)
		return dp;
	d->parent_dev = (__u64)BPF_CORE_READ(dev, dev);
	d->primary_index = minor_index;
	name = BPF_CORE_READ(dev, driver, name);
	if (name)
		bpf_probe_read_kernel_str(d->driver, sizeof(d->driver), name);
	if (drmtop_insert_lost(bpf_map_update_elem(&devices, &key, d, BPF_NOEXIST)))
		drmtop_count(DRMTOP_CNT_DEVICES_FULL);
	return bpf_map_lookup_elem(&devices, &key);
}

/* The node @file was opened on, into @c; returns its device. @btf as for DRMTOP_READ. */
static __always_inline struct drm_device *drmtop_client_node(struct drmtop_client *c,
							     struct drm_file *file, bool btf)
{
	struct drm_minor *minor = DRMTOP_READ(btf, file, minor);
	struct drm_device *dev = minor ? DRMTOP_READ(btf, minor, dev) : NULL;
	struct device *kdev = minor ? DRMTOP_READ(btf, minor, kdev) : NULL;
	__u32 devt = kdev ? DRMTOP_READ(btf, kdev, devt) : 0;

	c->minor_index = minor ? DRMTOP_READ(btf, minor, index) : -1;
	c->dev_major = devt >> 20;
	c->dev_minor = devt & 0xfffff;
	c->drm_dev = (__u64)dev;
	return dev;
}

/*
 * A new client of @file in @c, as @task (NULL: the current task) sees it: at drm_file_alloc
 * (@late false), or at the first hook that meets a drm_file opened before drmtop attached, or
 * whose open's exit the kernel skipped (@late true: the current task, or @task, is the first
 * user seen, not necessarily the opener). The driver's name and the GPU are the device entry's:
 * no string read per open. @btf as for DRMTOP_READ.
 */
static __always_inline void drmtop_client_fill(struct drmtop_client *c, struct drm_file *file,
					       bool late, struct task_struct *task, bool btf)
{
	struct drmtop_device fresh = {}, *d;
	struct drm_device *dev;
	__u64 pid_tgid;

	c->file = (__u64)file;
	c->uid = drmtop_next_uid();
	c->open_ns = bpf_ktime_get_ns();
	if (task) {
		c->tgid = drmtop_ns_tgid(task);
		c->pid = BPF_CORE_READ(task, pid);
		bpf_probe_read_kernel_str(c->comm, sizeof(c->comm), &task->comm);
	} else {
		pid_tgid = bpf_get_current_pid_tgid();
		c->tgid = drmtop_pidns_ino ?
			drmtop_ns_tgid((struct task_struct *)bpf_get_current_task()) :
			pid_tgid >> 32;
		c->pid = (__u32)pid_tgid;
		bpf_get_current_comm(c->comm, sizeof(c->comm));
		c->cgroup_id = bpf_get_current_cgroup_id();
	}
	c->flags = late ? DRMTOP_CLIENT_LATE : 0;
	dev = drmtop_client_node(c, file, btf);
	d = drmtop_note_device(dev, c->minor_index, &fresh);
	if (d) {
		c->parent_dev = d->parent_dev;
		__builtin_memcpy(c->driver, d->driver, sizeof(c->driver));
	} else {
		c->parent_dev = fresh.parent_dev;
		__builtin_memcpy(c->driver, fresh.driver, sizeof(c->driver));
	}
	if (bpf_core_field_exists(file->client_id))
		c->client_id = DRMTOP_READ(btf, file, client_id);
}

/* Client @c is in the map now: counted if @late, and found by its id from jobs. */
static __always_inline void drmtop_client_added(struct drmtop_client *c, bool late)
{
	if (late)
		drmtop_count(DRMTOP_CNT_CLIENT_LATE);
	if (c->client_id)
		drmtop_id_add(&client_slots, &client_ids, c->client_id, c->file);
}

/*
 * The client of @file in the clients map, moved there first if it was parked at its open
 * (drmtop_park): what every hook that charges a client anything uses. NULL if none.
 */
static __always_inline struct drmtop_client *drmtop_client_find(__u64 file)
{
	struct drmtop_client *c = bpf_map_lookup_elem(&clients, &file);

	return c ? c : drmtop_unpark(&parked, &clients, file);
}

/* The uid of @file's client, parked or not, 0 if none: for iterators, which move nothing. */
static __always_inline __u64 drmtop_client_uid(__u64 file)
{
	struct drmtop_client *c = bpf_map_lookup_elem(&clients, &file);
	struct drmtop_parked *p;

	if (c)
		return c->uid;
	p = drmtop_parked_slot(&parked, file);
	return p && p->claim == file ? p->c.uid : 0;
}

/* Whether the tracer knows @file's client, parked or not. */
static __always_inline bool drmtop_client_known(__u64 file)
{
	return bpf_map_lookup_elem(&clients, &file) || drmtop_park_holds(&parked, file);
}

/* The open client whose drm_file.client_id is @id, NULL if none (see drmtop_id_add). */
static __always_inline struct drmtop_client *drmtop_client_of_id(__u64 id)
{
	__u64 file = drmtop_id_file(&client_slots, &client_ids, id);
	struct drmtop_client *c = file ? drmtop_client_find(file) : NULL;

	return c && c->client_id == id ? c : NULL;
}

/* The client of @file, made if missing (drmtop_client_fill). */
static __always_inline struct drmtop_client *drmtop_client_get_task(struct drm_file *file,
								     bool late,
								     struct task_struct *task)
{
	__u64 key = (__u64)file;
	struct drmtop_client c = {}, *cp;

	cp = drmtop_client_find(key);
	if (cp || !file)
		return cp;
	drmtop_client_fill(&c, file, late, task, false);
	if (bpf_map_update_elem(&clients, &key, &c, BPF_NOEXIST)) {
		/* a racing hook may have inserted it; anything else means the map is full */
		cp = bpf_map_lookup_elem(&clients, &key);
		if (!cp)
			drmtop_count(DRMTOP_CNT_CLIENTS_FULL);
		return cp;
	}
	drmtop_client_added(&c, late);
	return bpf_map_lookup_elem(&clients, &key);
}

static __always_inline struct drmtop_client *drmtop_client_get(struct drm_file *file, bool late)
{
	return drmtop_client_get_task(file, late, NULL);
}

#endif /* DRMTOP_COMMON_BPF_H */
