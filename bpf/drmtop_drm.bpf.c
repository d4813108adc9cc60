// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop_drm.bpf.c: hooks in the drm module: DRM clients (drm_file) and their GEM memory, the
 * per-device GEM object totals, the drm_file of every DRM ioctl in flight (job attribution on
 * kernels without drm_sched_fence.drm_client_id), and a task_file iterator mapping (pid, fd)
 * to drm_file.
 *
 * Every function hooked here has BTF in drm.ko, takes the arguments used below and is called
 * (not inlined) on the paths named, checked in the drm.ko of Debian 6.1.0-56 (6.1.192) and
 * 6.12.117+deb12 (BTF prototypes and call relocations) and in the 6.1, 6.12 and 6.17 sources:
 *   drm_file_alloc(minor) -> drm_file *      every open (drm_open_helper: of DRM and accel
 *                                            nodes) and in-kernel client
 *   drm_gem_release(dev, file)               every close of a GEM driver's file, from
 *                                            drm_file_free. On 6.1 drm_close_helper calls the
 *                                            .part.0 clone of drm_file_free (no fentry there),
 *                                            which still calls the global drm_gem_release.
 *   drm_prime_destroy_file_private(prime)    every drm_file_free, after drm_gem_release
 *   drm_ioctl(filp, cmd, arg)                every DRM ioctl (drivers' compat_ioctl ends here)
 *   drm_gem_private_object_init(dev, obj, size)  every GEM object (drm_gem_object_init calls it)
 *   drm_gem_object_release(obj)              every GEM object's end, normal and error paths,
 *                                            of every driver but i915
 *   dma_resv_fini(resv) (vmlinux)            of the object's own _resv: every GEM object's end,
 *                                            i915's too (it calls neither drm_gem_object_release
 *                                            nor drm_gem_private_object_fini, and
 *                                            drm_gem_object_free is inlined in drm.ko's handle
 *                                            close path: undefined symbols of i915.ko and calls
 *                                            in drm.ko of 6.1.0-56, 6.12.117 and 7.2.13)
 *   drm_gem_handle_create_tail(file, obj, handlep)  every new handle (create, open, import)
 *   drm_gem_object_release_handle(id, obj, file)  GEM_CLOSE and file close (static, address taken)
 *   drm_gem_prime_fd_to_handle(dev, file, fd, handlep)  PRIME import
 *   drm_gem_prime_handle_to_fd(dev, file, handle, flags, fdp)  PRIME export
 */
#include "drmtop_common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline __u32 current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

SEC("fentry/drm_file_alloc")
int BPF_PROG(drmtop_file_alloc_enter)
{
	struct drmtop_opening *op = bpf_task_storage_get(&opening, bpf_get_current_task_btf(), NULL,
							 BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!op) {
		drmtop_count(DRMTOP_CNT_TASKS_FULL);
		return 0;
	}
	__builtin_memset(op, 0, sizeof(*op));
	op->active = 1;
	return 0;
}

/* Set by the loader: a quarter of the closed ring buffer's bytes (drmtop_close_wakeup). */
const volatile __u64 drmtop_wake_bytes = DRMTOP_RINGBUF_BYTES / 4;
__u64 drmtop_last_wake_ns;

/*
 * Sends @c's close record to the reader. @seen false: the close itself was not seen (inferred
 * when its address came back), so its time is now and its memory what it last held.
 */
static __always_inline void drmtop_send_closed(const struct drmtop_client *c, bool seen)
{
	struct drmtop_client *rec = bpf_ringbuf_reserve(&closed, sizeof(*rec), 0);
	__u64 now;

	if (!rec) {
		drmtop_count(DRMTOP_CNT_RINGBUF_FULL);
		return;
	}
	now = bpf_ktime_get_ns();
	__builtin_memcpy(rec, c, sizeof(*rec));
	if (!seen || !(rec->flags & DRMTOP_CLIENT_CLOSING))
		rec->close_ns = now;
	rec->flags &= ~DRMTOP_CLIENT_CLOSING;
	rec->flags |= DRMTOP_CLIENT_CLOSED;
	bpf_ringbuf_submit(rec, drmtop_close_wakeup(&closed, now, &drmtop_last_wake_ns,
						    drmtop_wake_bytes));
}

/*
 * Test only, zero (off) unless a test writes them: bpfdump --drop-open N / --drop-close N /
 * --drop-release N / --drop-object N, through this object's mmapped .bss, as --drop-run in
 * drmtop_sched.bpf.c. Every Nth open of a new file skips drmtop_file_alloc ([0]), every Nth
 * close of a client the tracer knows skips drmtop_gem_release_exit ([1]), every Nth handle
 * release in a close skips drmtop_handle_release ([2]), every Nth GEM object end is missed by
 * both end hooks ([3]), every Nth end of a PRIME import skips drmtop_import_exit ([4]), as the
 * kernel may, so the second chances (a client learnt at its first buffer, drmtop_file_free, the
 * reader's pruning of handles and objects, a stale import mark ignored) are proven on every
 * kernel, not only when 7.x happens to skip.
 */
__u32 drmtop_test_drm_drop_every[5];
__u64 drmtop_test_drm_seen[5];
__u64 drmtop_test_drm_dropped[5];

static __always_inline bool test_drop_drm(int role)
{
	return drmtop_test_drop(drmtop_test_drm_drop_every[role], &drmtop_test_drm_seen[role],
				&drmtop_test_drm_dropped[role]);
}

struct pending_walk {
	__u64 file;
	__u32 tid;
};

/* Entities the driver's open callback created in this thread belong to the new file. */
static long claim_entity(struct bpf_map *map, __u64 *key, struct drmtop_entity *e,
			 struct pending_walk *w)
{
	if (e->kind == DRMTOP_ENTITY_PENDING && e->tid == w->tid) {
		e->file = w->file;
		e->kind = DRMTOP_ENTITY_USER;
	}
	return 0;
}

/*
 * Set by the loader where the views count idle closes per process rather than follow each
 * client (all but record and serve): such a close adds to its process's entry here instead of
 * sending a record, which the reader would only have counted. A device probe opening a node
 * thousands of times a second was as many records to copy, drain and index.
 */
const volatile bool drmtop_count_idle = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_IDLE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct drmtop_idle_key);
	__type(value, struct drmtop_idle);
} idle_closed SEC(".maps");

struct drmtop_idle_sync drmtop_idle_sync;

/*
 * A client whose close was seen and is idle (drmtop_client_idle), counted in idle_closed; false
 * if it is not one, or was not counted (then its record goes as any other's).
 */
static __always_inline bool count_idle(const struct drmtop_client *c)
{
	struct drmtop_idle_key k = {
		.cgroup_id = c->cgroup_id,
		.tgid = c->tgid,
		.dev_major = c->dev_major,
		.dev_minor = c->dev_minor,
	};

	if (!drmtop_count_idle || !drmtop_client_idle(c))
		return false;
	__builtin_memcpy(k.comm, c->comm, sizeof(k.comm));
	return drmtop_idle_add(&idle_closed, &drmtop_idle_sync, &k, c->open_ns,
			       c->flags & DRMTOP_CLIENT_CLOSING ? c->close_ns : bpf_ktime_get_ns(),
			       c->minor_index, c->driver);
}

/*
 * The client at @key is gone: its close record to the reader (or its count, if idle), its
 * entries out of the maps. @seen as for drmtop_send_closed(). Returns whether there was one.
 */
static __always_inline bool forget_client(__u64 key, bool seen)
{
	struct drmtop_parked *p = drmtop_park_closing(&parked, key);
	struct drmtop_client *c = bpf_map_lookup_elem(&clients, &key);
	bool parked = false;
	__u64 id;

	if (!c && p && !p->promoted) {
		c = &p->c;
		parked = true;
	}
	if (!c) {
		drmtop_park_release(p, key);
		return false;
	}
	if (!seen || !count_idle(c))
		drmtop_send_closed(c, seen);
	id = c->client_id;
	if (id)
		drmtop_id_del(&client_slots, &client_ids, id);
	if (!parked)
		bpf_map_delete_elem(&clients, &key);
	drmtop_park_release(p, key);
	return true;
}

/*
 * The client of a new file, parked (drmtop_park: no hash insert) or, where another open file
 * holds its slot, inserted. A client still known at an address drm_file_alloc hands out again
 * closed unseen (the release hooks were skipped, see drmtop_gem_release_exit, and so was
 * drmtop_file_free) is settled first, as closed. @key is @file's address as a scalar (see
 * drmtop_arg_addr), @btf as for DRMTOP_READ.
 */
static __always_inline void client_new(struct drm_file *file, __u64 key, bool btf)
{
	struct drmtop_client c = {};
	long err = 0;

	drmtop_client_fill(&c, file, false, NULL, btf);
	if (forget_client(key, false))
		drmtop_count(DRMTOP_CNT_CLOSE_INFERRED);
	if (!drmtop_park(&parked, &c, key))
		err = bpf_map_update_elem(&clients, &key, &c, BPF_NOEXIST);
	if (!err)
		drmtop_client_added(&c, false);
	else if (drmtop_insert_lost(err))
		drmtop_count(DRMTOP_CNT_CLIENTS_FULL);
}

/*
 * A new file: its client, and the entities the driver's open callback made in this thread
 * (@op, while active) are its own. @btf as for DRMTOP_READ.
 */
static __always_inline void adopt_new_file(struct drm_file *file, __u64 key,
					   struct drmtop_opening *op, bool btf)
{
	struct pending_walk w = { .file = key, .tid = current_tid() };
	struct drmtop_entity *e;
	__u32 i;

	client_new(file, key, btf);
	if (!op || !op->active)
		return;
	op->active = 0;
	if (op->overflow) {
		bpf_for_each_map_elem(&entities, claim_entity, &w, 0);
		return;
	}
	for (i = 0; i < DRMTOP_OPEN_ENTITIES && i < op->n; i++) {
		e = bpf_map_lookup_elem(&entities, &op->entity[i]);
		if (e)
			claim_entity(NULL, NULL, e, &w);
	}
}

/*
 * Set by the loader: whether drmtop_file_alloc_enter and the entity hooks are loaded (kernels
 * whose jobs do not carry drm_client_id), so that an open looks for the entities it made.
 */
const volatile bool drmtop_open_entities = true;

static __always_inline struct drmtop_opening *opening_of_current(void)
{
	if (!drmtop_open_entities)
		return NULL;
	return bpf_task_storage_get(&opening, bpf_get_current_task_btf(), NULL, 0);
}

/*
 * A new file: drm_file_alloc returns it for every open of a DRM or accel node (drm_open_helper,
 * after the driver's open callback made the entities of @op in this thread) and for every
 * in-kernel client (drm_client_init). Its client is made here, the one hook on the open path:
 * the typed return reads the file's fields with plain loads. A run the kernel skipped (7.x)
 * leaves the client to be learnt at its first buffer or ioctl (client_late).
 */
SEC("fexit/drm_file_alloc")
int BPF_PROG(drmtop_file_alloc, struct drm_minor *minor, struct drm_file *ret)
{
	struct drmtop_opening *op = opening_of_current();

	if (test_drop_drm(0))
		return 0;
	if (ret && !DRMTOP_IS_ERR(ret))
		adopt_new_file(ret, drmtop_ret_addr(ctx), op, true);
	else if (op)
		op->active = 0;
	return 0;
}

/* The last gpu_mem_total of each (GPU, process): drmtop_gpu_mem_report(). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DRMTOP_MAX_GPU_MEM);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct drmtop_gpu_mem_key);
	__type(value, __u64);
} gpu_mem SEC(".maps");

/*
 * gpu_mem/gpu_mem_total(gpu_id, pid, size): what a driver says a process (pid 0: the whole GPU)
 * holds, reported on every change (msm 6.12+ per process, xe 7.2 per device, with
 * CONFIG_TRACE_GPU_MEM). A raw tracepoint: loaded only where vmlinux BTF has
 * btf_trace_gpu_mem_total (bpf_tracer.c), which none of Debian's x86 kernels has (checked on
 * 6.1, 6.12 and 7.2); tests/unit/test_bpf_account.c runs the same helper.
 */
SEC("raw_tp/gpu_mem_total")
int BPF_PROG(drmtop_gpu_mem_total, __u32 gpu_id, __u32 pid, __u64 size)
{
	if (!drmtop_gpu_mem_report(&gpu_mem, gpu_id, pid, size))
		drmtop_count(DRMTOP_CNT_GPU_MEM_FULL);
	return 0;
}

/*
 * Per ioctl: one task-storage lookup; the clients map only when the thread's file changes
 * (a client opened before attach, or whose open was skipped, is learnt there). Not attached
 * at all where drm_sched_fence.drm_client_id attributes jobs (bpf_tracer.c).
 */
SEC("fentry/drm_ioctl")
int BPF_PROG(drmtop_ioctl_enter, struct file *filp)
{
	struct drm_file *file = DRMTOP_READ(true, filp, private_data);
	__u64 *last;

	if (!file)
		return 0;
	last = bpf_task_storage_get(&ioctl_files, bpf_get_current_task_btf(), NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!last) {
		drmtop_count(DRMTOP_CNT_TASKS_FULL);
		return 0;
	}
	if (*last == (__u64)file)
		return 0;
	*last = (__u64)file;
	/*
	 * Read by helper: a scalar on every kernel, which the parked slot's hash needs (6.17+
	 * types a plain load of a void * field as untrusted memory, a pointer).
	 */
	drmtop_client_get(BPF_CORE_READ(filp, private_data), true);
	return 0;
}

/*
 * Close, part 1: from here the file's handles are released one by one
 * (drmtop_handle_release): while the client is closing they leave its totals as they were at
 * close and add up its shared bytes, so the record sent at part 2 is what it held, with no
 * walk of the handles map. Its engine figures stay in the engines map under its uid for the
 * reader to collect (jobs of the client still in flight add to them until they end).
 */
SEC("fentry/drm_gem_release")
int BPF_PROG(drmtop_gem_release_enter, struct drm_device *dev, struct drm_file *file)
{
	__u64 key = (__u64)file;
	struct drmtop_client *c = bpf_map_lookup_elem(&clients, &key);

	if (!c)
		return 0;
	c->mem_shared = 0;
	c->close_ns = bpf_ktime_get_ns();
	c->flags |= DRMTOP_CLIENT_CLOSING;
	return 0;
}

/*
 * Close, part 2: all handles are gone; the drm_file address may be reused once drm_file_free
 * returns. Were this program skipped (recursion, PREEMPT_LAZY kernels), drmtop_file_free settles
 * the client a little later in the same drm_file_free.
 */
SEC("fexit/drm_gem_release")
int BPF_PROG(drmtop_gem_release_exit, struct drm_device *dev, struct drm_file *file)
{
	__u64 key = drmtop_arg_addr(ctx, 1);

	if (drmtop_test_drm_drop_every[1] && drmtop_client_known(key) &&
	    test_drop_drm(1))
		return 0;
	forget_client(key, true);
	return 0;
}

/*
 * Close, settled: drm_file_free calls drm_prime_destroy_file_private(&file->prime) after
 * drm_gem_release, unconditionally, just before it frees the file; drm_file_alloc calls it
 * only on its error path, for a file never handed out (call sites in the drm.ko of Debian
 * 6.1.0-56, 6.12.117+deb12 and 7.2.13+deb14, a global function in each). A client still in the
 * map here had its release exit skipped: settled now, counted close_at_free, rather than at the
 * next drm_file_alloc at its address, which may never come (its engine entries would stay in
 * the map and the client listed open until then). Also closes the clients of a driver without
 * GEM, which has no drm_gem_release. The key is the drm_file the argument is a field of.
 */
SEC("fentry/drm_prime_destroy_file_private")
int BPF_PROG(drmtop_file_free, struct drm_prime_file_private *prime)
{
	__u64 key = drmtop_arg_addr(ctx, 0) - bpf_core_field_offset(struct drm_file, prime);

	if (prime && forget_client(key, true))
		drmtop_count(DRMTOP_CNT_CLOSE_AT_FREE);
	return 0;
}

/*
 * A device goes (unbind, module unload): its entry and its kernel client (keyed by the parent
 * device, drmtop_sched.bpf.c) leave the maps, the kernel client's figures in a close record, so
 * neither is listed for ever after nor taken for a later device at the same addresses. Every
 * driver's remove path calls drm_dev_unregister (Debian 6.1.0-56, 6.12.117, 7.2.13).
 */
SEC("fentry/drm_dev_unregister")
int BPF_PROG(drmtop_dev_unregister, struct drm_device *dev)
{
	__u64 key = (__u64)dev, parent = (__u64)BPF_CORE_READ(dev, dev);
	struct drmtop_device *d = bpf_map_lookup_elem(&devices, &key);
	struct drmtop_client *k = bpf_map_lookup_elem(&clients, &parent);

	/* the reader names a live kernel client from its device, which this record outlives */
	if (d && k && (k->flags & DRMTOP_CLIENT_KERNEL)) {
		__builtin_memcpy(k->driver, d->driver, sizeof(k->driver));
		k->minor_index = d->primary_index;
	}
	bpf_map_delete_elem(&devices, &key);
	if (k && (k->flags & DRMTOP_CLIENT_KERNEL))
		forget_client(parent, true);
	return 0;
}

static __always_inline struct drmtop_device *device_of(struct drm_device *dev)
{
	struct drmtop_device fresh = {};

	return drmtop_note_device(dev, -1, &fresh);
}

static __always_inline void mem_sub(__u64 *v, __u64 bytes)
{
	if (!drmtop_mem_sub(v, bytes))
		drmtop_count(DRMTOP_CNT_MEM_UNDERFLOW);
}

/* Takes GEM object entry @o out of its device's totals, if it was counted there. */
static __always_inline void device_sub(const struct drmtop_object *o)
{
	struct drmtop_device *d;

	if (!(o->flags & DRMTOP_OBJ_SEEN_INIT))
		return;
	d = bpf_map_lookup_elem(&devices, &o->drm_dev);
	if (d) {
		mem_sub(&d->gem_objects, 1);
		mem_sub(&d->gem_bytes, o->size);
	}
}

/*
 * The device totals count the object before its entry exists, and the entry says it was
 * counted only if it was: the end, which finds the entry, then always subtracts what an add
 * put there (drmtop_mem_sub). An entry already at this address is an object whose end no hook
 * saw (both end hooks skipped, or a free path neither reaches): freed, so out of the totals
 * now, counted objects_stale. The insert comes first: nearly every address is new, and the
 * insert finds an old entry as a lookup would. An fentry: the function cannot fail (void on
 * every kernel) and its arguments are all this needs; an fexit's trampoline would also call
 * the function itself and count itself in and out around it.
 */
SEC("fentry/drm_gem_private_object_init")
int BPF_PROG(drmtop_gem_init, struct drm_device *dev, struct drm_gem_object *obj, size_t size)
{
	__u64 key = (__u64)obj;
	struct drmtop_object o = {
		.size = size,
		.drm_dev = (__u64)dev,
	};
	struct drmtop_device *d = device_of(dev);
	struct drmtop_object *stale;
	long err;

	if (d) {
		__sync_fetch_and_add(&d->gem_objects, 1);
		drmtop_mem_add(&d->gem_bytes, size);
		o.flags = DRMTOP_OBJ_SEEN_INIT;
	}
	err = bpf_map_update_elem(&objects, &key, &o, BPF_NOEXIST);
	if ((int)err == -EEXIST) {
		stale = bpf_map_lookup_elem(&objects, &key);
		if (stale && (stale->flags & DRMTOP_OBJ_SEEN_INIT)) {
			device_sub(stale);
			drmtop_count(DRMTOP_CNT_OBJECTS_STALE);
		}
		err = bpf_map_update_elem(&objects, &key, &o, BPF_ANY);
	}
	if (!err)
		return 0;
	drmtop_count(DRMTOP_CNT_OBJECTS_FULL);
	if (d) {
		mem_sub(&d->gem_objects, 1);
		mem_sub(&d->gem_bytes, size);
	}
	return 0;
}

/*
 * Whether drm_show_memory_stats counts GEM object @o shared (handle_count > 1 or a dma-buf),
 * with @gone handles more than its entry holds. A change of it, or of the handles of an
 * object so counted, is counted SHARED_EVENTS after the maps show it: the reader recounts
 * shared bytes (a walk of the objects and handles maps) only when that counter moved.
 */
static __always_inline bool object_shared(const struct drmtop_object *o, __u32 gone)
{
	return o->handle_count + gone > 1 || (o->flags & DRMTOP_OBJ_DMABUF);
}

/*
 * The end of the GEM object at @key, whose entry the caller found (@o, NULL if none), from either
 * end hook: out of its device's totals and the map; the second hook to meet the same end finds
 * nothing. Returns whether it ended one.
 */
static __always_inline bool object_end(__u64 key, struct drmtop_object *o)
{
	bool shared;

	if (!o || (o->flags & DRMTOP_OBJ_END_DROPPED))
		return false;
	if (drmtop_test_drm_drop_every[3] && test_drop_drm(3)) {
		o->flags |= DRMTOP_OBJ_END_DROPPED;
		return false;
	}
	device_sub(o);
	shared = object_shared(o, 0);
	bpf_map_delete_elem(&objects, &key);
	/* a handle entry a skipped release left may still name it */
	if (shared)
		drmtop_count(DRMTOP_CNT_SHARED_EVENTS);
	return true;
}

SEC("fentry/drm_gem_object_release")
int BPF_PROG(drmtop_gem_object_release, struct drm_gem_object *obj)
{
	__u64 key = (__u64)obj;
	struct drmtop_object *o = bpf_map_lookup_elem(&objects, &key);

	if (!o)
		drmtop_count(DRMTOP_CNT_OBJECT_UNKNOWN);
	else
		object_end(key, o);
	return 0;
}

/*
 * The second end hook. drm_gem_object_release calls dma_resv_fini(&obj->_resv) after the hook
 * above ended the object (nothing left here then); i915 calls it from its own free path. Most
 * calls are of other reservation objects, at addresses no entry is at: one lookup each. No
 * other dma_resv can sit at a live object's _resv, so a hit is that object's end.
 */
SEC("fentry/dma_resv_fini")
int BPF_PROG(drmtop_gem_resv_fini, struct dma_resv *resv)
{
	__u64 key = (__u64)resv - bpf_core_field_offset(struct drm_gem_object, _resv);

	if (resv && object_end(key, bpf_map_lookup_elem(&objects, &key)))
		drmtop_count(DRMTOP_CNT_OBJECT_END_AT_RESV);
	return 0;
}

/*
 * Refreshes what shared-ness depends on: the handle count and whether a dma-buf is attached.
 * @btf as for DRMTOP_READ (the release hook's object is a void *: a scalar).
 */
static __always_inline struct drmtop_object *object_sync(struct drm_gem_object *obj, int delta,
							 bool btf)
{
	__u64 key = (__u64)obj;
	struct drmtop_object *o = bpf_map_lookup_elem(&objects, &key), n = {};
	__u32 set, count;

	if (!o) {
		/* created before attach: known from now on, not in the device totals */
		n.size = BPF_CORE_READ(obj, size);
		n.drm_dev = (__u64)BPF_CORE_READ(obj, dev);
		if (drmtop_insert_lost(bpf_map_update_elem(&objects, &key, &n, BPF_NOEXIST)))
			drmtop_count(DRMTOP_CNT_OBJECTS_FULL);
		o = bpf_map_lookup_elem(&objects, &key);
		if (!o)
			return NULL;
	}
	/* the object may be another client's too, its flags updated on another CPU meanwhile */
	count = DRMTOP_READ(btf, obj, handle_count) + delta;
	set = DRMTOP_READ(btf, obj, import_attach) ? DRMTOP_OBJ_FOREIGN : 0;
	if (DRMTOP_READ(btf, obj, dma_buf))
		drmtop_flags_update(&o->handle_count, count, set | DRMTOP_OBJ_DMABUF, 0);
	else
		drmtop_flags_update(&o->handle_count, count, set, DRMTOP_OBJ_DMABUF);
	return o;
}

static __always_inline void client_mem(struct drmtop_client *c, const struct drmtop_handle *h,
				       bool add)
{
	if (add) {
		drmtop_mem_add(&c->mem_total, h->size);
		__sync_fetch_and_add(&c->handles, 1);
		if (h->imported)
			drmtop_mem_add(&c->mem_imported, h->size);
		return;
	}
	mem_sub(&c->mem_total, h->size);
	mem_sub(&c->handles, 1);
	if (h->imported)
		mem_sub(&c->mem_imported, h->size);
}

/*
 * Records handle @handle of @file for @obj and adds it to the client's totals, unless it is
 * known already (the adoption walk below and the create hook may both meet a new handle).
 * The totals grow before the handle's entry exists: userspace may close the handle on another
 * CPU before this program ends, and the release subtracts only what it finds an entry for.
 */
static __always_inline bool handle_insert(struct drmtop_client *c,
					  const struct drmtop_handle_key *k,
					  const struct drmtop_handle *h)
{
	long err;

	if (c)
		client_mem(c, h, true);
	err = bpf_map_update_elem(&handles, k, h, BPF_NOEXIST);
	if (!err)
		return true;
	if ((int)err == -EEXIST) {
		struct drmtop_handle *old = bpf_map_lookup_elem(&handles, k);

		/* left by an earlier client at this address whose release the kernel skipped */
		if (old && old->uid != h->uid) {
			*old = *h;
			drmtop_count(DRMTOP_CNT_HANDLES_PRUNED);
			return true;
		}
	}
	if (c)
		client_mem(c, h, false);
	if (drmtop_insert_lost(err)) {
		drmtop_count(DRMTOP_CNT_HANDLES_FULL);
		if (c)
			__sync_fetch_and_add(&c->missed, 1);
	}
	return false;
}

static __always_inline bool handle_add(struct drmtop_client *c, __u64 file, __u32 handle,
				       struct drm_gem_object *obj, bool imported, bool btf)
{
	struct drmtop_handle_key k = { .file = file, .handle = handle };
	struct drmtop_handle h = { .obj = (__u64)obj };
	struct drmtop_object *o = object_sync(obj, 0, btf);
	bool added;

	h.size = o ? o->size : BPF_CORE_READ(obj, size);
	h.uid = c ? c->uid : 0;
	/* whose exit lets the reader prune it if its end goes unseen (bpf_stale_objects.c) */
	if (o && !o->uid)
		o->uid = h.uid;
	h.imported = imported || (o && (o->flags & DRMTOP_OBJ_FOREIGN));
	added = handle_insert(c, &k, &h);
	if (o && object_shared(o, 0))
		drmtop_count(DRMTOP_CNT_SHARED_EVENTS);
	return added;
}

/*
 * Threads inside drm_gem_prime_fd_to_handle whose entry was seen, so that every other handle's
 * creation skips the task storage lookup. Raised once per marked thread and dropped only by
 * the exit that clears its mark: an exit the kernel skipped (7.x) leaves it high (the lookup
 * made for nothing), never low (an import missed).
 */
__s64 imports_in_flight;

SEC("fexit/drm_gem_handle_create_tail")
int BPF_PROG(drmtop_handle_create, struct drm_file *file, struct drm_gem_object *obj,
	     u32 *handlep, int ret)
{
	struct drmtop_client *c;
	__u64 *imp;
	__u32 handle;

	if (ret)
		return 0;
	if (bpf_probe_read_kernel(&handle, sizeof(handle), handlep))
		return 0;
	/* the scalar: drmtop_client_get hashes it (drmtop_arg_addr) */
	c = drmtop_client_get((struct drm_file *)drmtop_arg_addr(ctx, 0), true);
	/* an import in this thread raised the count before its handle is made (program order) */
	imp = *(volatile __s64 *)&imports_in_flight > 0 ?
	      bpf_task_storage_get(&importing, bpf_get_current_task_btf(), NULL, 0) : NULL;
	/*
	 * An import sets obj->dma_buf before it makes the handle (drm_gem_prime_fd_to_handle,
	 * 6.1 to 7.2); a new object has none: a mark an import's skipped exit left in this
	 * thread does not make its next buffer imported.
	 */
	handle_add(c, (__u64)file, handle, obj,
		   imp && *imp == (__u64)file && DRMTOP_READ(true, obj, dma_buf), true);
	return 0;
}

SEC("fentry/drm_gem_object_release_handle")
int BPF_PROG(drmtop_handle_release, int id, void *ptr, void *data)
{
	struct drmtop_handle_key k = { .file = (__u64)data, .handle = id };
	struct drmtop_handle *h = bpf_map_lookup_elem(&handles, &k);
	struct drmtop_client *c;
	struct drmtop_object *o;

	/* test: releases at a close only, which leave the client's figures as they are anyway */
	if (drmtop_test_drm_drop_every[2]) {
		c = bpf_map_lookup_elem(&clients, &k.file);
		if (c && (c->flags & DRMTOP_CLIENT_CLOSING) && test_drop_drm(2))
			return 0;
	}
	/* the kernel drops its handle_count inside this function */
	o = object_sync(ptr, -1, false);
	if (!h) {
		drmtop_count(DRMTOP_CNT_HANDLE_UNKNOWN);
	} else {
		c = bpf_map_lookup_elem(&clients, &k.file);
		/*
		 * Shared as before the kernel's drop: this handle still counts. One object
		 * held by two handles of this file counts at its first release only.
		 */
		if (c && c->uid == h->uid) {
			if (!(c->flags & DRMTOP_CLIENT_CLOSING))
				client_mem(c, h, false);
			else if (o && object_shared(o, 1))
				drmtop_mem_add(&c->mem_shared, h->size);
		}
		bpf_map_delete_elem(&handles, &k);
	}
	/* the other holders' handles may have stopped counting shared */
	if (o && object_shared(o, 1))
		drmtop_count(DRMTOP_CNT_SHARED_EVENTS);
	return 0;
}

SEC("fentry/drm_gem_prime_fd_to_handle")
int BPF_PROG(drmtop_import_enter, struct drm_device *dev, struct drm_file *file)
{
	__u64 *imp = bpf_task_storage_get(&importing, bpf_get_current_task_btf(), NULL,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!imp) {
		drmtop_count(DRMTOP_CNT_TASKS_FULL);
		return 0;
	}
	if (!*imp)
		__sync_fetch_and_add(&imports_in_flight, 1);
	*imp = (__u64)file;
	return 0;
}

SEC("fexit/drm_gem_prime_fd_to_handle")
int BPF_PROG(drmtop_import_exit)
{
	__u64 *imp;

	if (test_drop_drm(4))
		return 0;
	imp = bpf_task_storage_get(&importing, bpf_get_current_task_btf(), NULL, 0);
	if (imp && *imp) {
		*imp = 0;
		__sync_fetch_and_sub(&imports_in_flight, 1);
	}
	return 0;
}

/* Export attaches a dma-buf to the object: from now on every handle of it counts as shared. */
SEC("fexit/drm_gem_prime_handle_to_fd")
int BPF_PROG(drmtop_export, struct drm_device *dev, struct drm_file *file, u32 handle, u32 flags,
	     int *prime_fd, int ret)
{
	struct drmtop_handle_key k = { .file = (__u64)file, .handle = handle };
	struct drmtop_handle *h;
	struct drmtop_object *o;
	struct drm_gem_object *obj;

	if (ret)
		return 0;
	h = bpf_map_lookup_elem(&handles, &k);
	if (!h)
		return 0;
	o = bpf_map_lookup_elem(&objects, &h->obj);
	obj = (struct drm_gem_object *)h->obj;
	if (o && BPF_CORE_READ(obj, dma_buf)) {
		drmtop_flags_update(&o->handle_count, -1, DRMTOP_OBJ_DMABUF, 0);
		drmtop_count(DRMTOP_CNT_SHARED_EVENTS);
	}
	return 0;
}

#define DRM_MAJOR	226
#define ACCEL_MAJOR	261
#define S_IFMT		00170000
#define S_IFCHR		0020000

/* (pid, fd) -> drm_file for every open DRM or accel char device file: one record per fd. */
SEC("iter/task_file")
int drmtop_fds(struct bpf_iter__task_file *ctx)
{
	struct file *f = ctx->file;
	struct task_struct *task = ctx->task;
	struct drmtop_fd_rec r = {};
	struct drm_file *file;
	struct inode *inode;
	__u32 rdev, major;

	if (!f || !task)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	if ((BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFCHR)
		return 0;
	rdev = BPF_CORE_READ(inode, i_rdev);
	major = rdev >> 20;
	if (major != DRM_MAJOR && major != ACCEL_MAJOR)
		return 0;
	file = BPF_CORE_READ(f, private_data);
	if (!file)
		return 0;
	r.file = (__u64)file;
	/* the uid ties this fd to one client, not to whichever file takes the address later */
	r.uid = drmtop_client_uid(r.file);
	if (bpf_core_field_exists(file->client_id))
		r.client_id = BPF_CORE_READ(file, client_id);
	r.tgid = drmtop_ns_tgid(task);
	r.fd = ctx->fd;
	r.rdev_major = major;
	r.rdev_minor = rdev & 0xfffff;
	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}

/*
 * Adoption of what existed before attach: for every open DRM file, walk its handle table
 * (drm_file.object_idr, an IDR, i.e. an XArray of drm_gem_object pointers indexed by handle -
 * idr_base) and record each handle as the create hook would have. The loader runs this once
 * right after attaching, so clients opened earlier report their memory from the start (a
 * same-device PRIME import is not told apart from the original there: imported bytes of such
 * handles are missed; foreign imports carry import_attach and are counted).
 * Reads the table without its lock: a handle created meanwhile is also seen by the create hook
 * (BPF_NOEXIST keeps it single), one released meanwhile may be seen by neither or stay behind.
 * XArray layout (xa_head, xa_node.{shift,slots[64]}, internal entries tagged 2 in the low
 * bits, nodes above 4096) checked in 6.1, 6.12 and 7.2 (lib/xarray.c, include/linux/xarray.h).
 */
#define WALK_DEPTH	8		/* 64^8 handles: deeper than any IDR */
#define WALK_STEPS	(1 << 20)	/* slots visited per file at most */
#define XA_SLOTS	64

struct walk_frame {
	__u64 node;
	__u64 base;	/* index of slot 0 */
	__u32 slot;	/* next slot to visit */
	__u32 shift;
};

struct walk {
	struct walk_frame f[WALK_DEPTH];
	__u32 depth;
	__u32 idr_base;
	__u64 file;
};

/*
 * The walk's state lives in a per-CPU map, not on the stack: the iterator and its bpf_loop
 * callback share the 512-byte stack. Iterators run with migration disabled; drmtop runs this
 * one once, from one thread.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk);
} walk_state SEC(".maps");

static __always_inline bool xa_internal(__u64 entry)
{
	return (entry & 3) == 2;
}

static __always_inline void walk_push(struct walk *w, __u64 entry, __u64 base)
{
	struct xa_node *node = (struct xa_node *)(entry - 2);
	struct walk_frame *f;

	if (w->depth >= WALK_DEPTH) {
		drmtop_count(DRMTOP_CNT_ADOPT_TRUNCATED);
		return;
	}
	f = &w->f[w->depth & (WALK_DEPTH - 1)];
	f->node = (__u64)node;
	f->base = base;
	f->slot = 0;
	f->shift = BPF_CORE_READ(node, shift);
	w->depth++;
}

static long walk_step(__u32 i, void *unused)
{
	__u32 zero = 0, slot;
	struct walk *w = bpf_map_lookup_elem(&walk_state, &zero);
	struct walk_frame *f;
	__u64 entry = 0, index;
	void **slots;

	if (!w || !w->depth)
		return 1;
	f = &w->f[(w->depth - 1) & (WALK_DEPTH - 1)];
	if (f->slot >= XA_SLOTS) {
		w->depth--;
		return 0;
	}
	slot = f->slot++;
	slots = (void **)(f->node + bpf_core_field_offset(struct xa_node, slots));
	if (bpf_probe_read_kernel(&entry, sizeof(entry), &slots[slot & (XA_SLOTS - 1)]))
		return 0;
	index = f->base + ((__u64)slot << (f->shift & 63));
	if (!entry)
		return 0;
	if (xa_internal(entry)) {
		/* a child node; retry, zero (reserved) and sibling entries hold no object */
		if (entry > 4096 && f->shift)
			walk_push(w, entry, index);
		return 0;
	}
	/* one drm_file may sit behind several descriptors: count each handle once */
	if (handle_add(bpf_map_lookup_elem(&clients, &w->file), w->file, index + w->idr_base,
		       (struct drm_gem_object *)entry, false, false))
		drmtop_count(DRMTOP_CNT_ADOPTED);
	return 0;
}

SEC("iter/task_file")
int drmtop_adopt(struct bpf_iter__task_file *ctx)
{
	struct file *f = ctx->file;
	struct task_struct *task = ctx->task;
	struct drmtop_client *c;
	struct drm_file *file;
	struct inode *inode;
	struct walk *w;
	__u32 zero = 0, major;
	__u64 head;

	if (!f || !task)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	if ((BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFCHR)
		return 0;
	major = BPF_CORE_READ(inode, i_rdev) >> 20;
	if (major != DRM_MAJOR && major != ACCEL_MAJOR)
		return 0;
	file = BPF_CORE_READ(f, private_data);
	w = bpf_map_lookup_elem(&walk_state, &zero);
	if (!file || !w)
		return 0;
	c = drmtop_client_get_task(file, true, task);
	head = (__u64)BPF_CORE_READ(file, object_idr.idr_rt.xa_head);
	w->depth = 0;
	w->file = (__u64)file;
	w->idr_base = BPF_CORE_READ(file, object_idr.idr_base);
	if (!head)
		return 0;
	if (!xa_internal(head)) {
		/* a lone entry at index 0 */
		if (handle_add(c, w->file, w->idr_base, (struct drm_gem_object *)head, false,
			       false))
			drmtop_count(DRMTOP_CNT_ADOPTED);
		return 0;
	}
	if (head <= 4096)
		return 0;
	walk_push(w, head, 0);
	bpf_loop(WALK_STEPS, walk_step, NULL, 0);
	if (w->depth)
		drmtop_count(DRMTOP_CNT_ADOPT_TRUNCATED);
	return 0;
}
