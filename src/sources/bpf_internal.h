/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_internal.h: the tracer state shared by src/bpf_tracer.c and src/bpf_reader.c. */
#ifndef DRMTOP_BPF_INTERNAL_H
#define DRMTOP_BPF_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drmtop_bpf.h"
#include "drmtop/bpf_limits.h"
#include "drmtop/bpf_tracer.h"
#include "drmtop/cgroup_ids.h"

/* Kernel-internal, returned by bpf() all the same (a batch op or a trampoline it lacks). */
#define ENOTSUPP	524
#include "drmtop/kernel_hz.h"
#include "drmtop/util/strmap.h"

struct drmtop_drm_bpf;
struct drmtop_sched_bpf;
struct btf;
struct bpf_link;
struct ring_buffer;

/* The maps both BPF objects share (bpf/drmtop_common.bpf.h); names as in the BPF source. */
enum drmtop_bpf_map {
	MAP_CLIENTS, MAP_CLIENT_SLOTS, MAP_CLIENT_IDS, MAP_IOCTL_FILES, MAP_ENGINES, MAP_RINGS,
	MAP_JOBS, MAP_HANDLES, MAP_OBJECTS, MAP_DEVICES, MAP_IMPORTING, MAP_OPENING, MAP_ENTITIES,
	MAP_COUNTERS, MAP_CLOSED, MAP_UID_SEQ, MAP_TIMELINES, MAP_PARKED, MAP_COUNT
};

/* A map a limit sizes: its name in the BPF source, the limit, key and value bytes. */
struct drmtop_bpf_map_size {
	const char *map;
	enum drmtop_bpf_limit limit;
	uint32_t key, value;
};

/* Every sized map, ended by a NULL name (src/sources/bpf_limits.c). */
extern const struct drmtop_bpf_map_size drmtop_bpf_map_sizes[];

#define DRMTOP_BPF_MAX_HOOKS	48
/*
 * Close records queued between two snapshots at most (184 bytes each: 5.8 MiB at worst, only
 * while that many closes wait): 10,000 closes in one refresh interval are kept.
 */
#define DRMTOP_BPF_PENDING_MAX	32768
#define DRMTOP_BPF_RETIRED	4096	/* closed clients remembered for late job residue */

/*
 * Test knobs of the map walks (tests/unit/test_bpf_reader.c): zero in normal use.
 * @hook runs between two steps of a walk (never after the last), with the last key the walk
 * returned and how many entries it returned since the previous call (1 for a key walk, a batch
 * for a batch read), so a test can insert and delete entries the way the tracer does while the
 * reader walks. The reader walks
 * keys; @batch non-zero makes it read in batches of that many entries instead (@no_batch:
 * keys all the same).
 */
struct drmtop_walk_test {
	void (*hook)(void *ctx, int fd, const void *last_key, unsigned int returned);
	void *ctx;
	unsigned int batch;
	bool no_batch;
};

/*
 * The reader's side of the idle_closed map (bpf_idle.c, drmtop_idle_sync in drmtop_bpf.h): the
 * map, the programs' epoch and in-flight counts (the drm part's mmapped .bss), and the keys the
 * latest take returned, deleted once a snapshot holds them.
 */
struct drmtop_idle_take {
	int fd;				/* -1: idle closes are sent as records */
	struct drmtop_idle_sync *sync;
	__u64 wait_ns;			/* for programs in flight; 0: DRMTOP_BPF_IDLE_WAIT_NS */
	struct drmtop_idle_key *keys;
	size_t n_keys, cap_keys;
};

/*
 * A program adds one close in microseconds; one still in flight after this long (preempted on
 * an overloaded machine) leaves the count it adds to short: counted idle_unsettled.
 */
#define DRMTOP_BPF_IDLE_WAIT_NS	1000000000ull

struct drmtop_bpf {
	struct drmtop_drm_bpf *drm;
	struct drmtop_sched_bpf *sched;
	struct btf *vmlinux_btf;	/* NULL between polls */
	int map_fd[MAP_COUNT];		/* our own dup of each shared map, -1 until a part loads */
	struct bpf_link *links[DRMTOP_BPF_MAX_HOOKS];
	struct drmtop_bpf_hook hooks[DRMTOP_BPF_MAX_HOOKS];
	size_t n_hooks;
	bool drm_failed, sched_failed;	/* a present module's part failed: not retried */
	bool drm_not_builtin, sched_not_builtin;	/* its functions are not in vmlinux BTF */
	bool sched_v617, sched_raw;	/* tracepoint name set (6.17+), flavour (raw_tp) in use */
	bool jobs_have_client_id;	/* drm_sched_fence.drm_client_id: no attribution hooks */
	struct drmtop_bpf_limits limits;	/* map sizes, 0 = default */
	char reason[512];
	char adopt_err[128];		/* why the adoption walk failed, empty if it ran */
	char drain_err[64];		/* why close records wait for refreshes, empty if not */
	int gpu_mem_fd;			/* the drm part's gpu_mem map where it is traced, else -1 */
	__u64 pidns_ino;		/* drmtop's pid namespace, 0 for the initial one */
	struct drmtop_cgroup_ids *cgroup_ids;	/* NULL: clients' cgroup ids are not named */
	bool count_idle;		/* drmtop_bpf_open()'s count_idle */
	struct drmtop_idle_take idle;
	__u64 idle_unsettled;		/* DRMTOP_CNT_IDLE_UNSETTLED */
	__u64 idle_counted;		/* DRMTOP_CNT_IDLE_COUNTED */

	/* the parked array (bpf_parked.c), mapped read-only once the first part loaded */
	const struct drmtop_parked *parked;
	size_t parked_bytes;

	struct ring_buffer *rb;
	/*
	 * The drain (src/sources/bpf_drain.c): a thread moving close records from the ring
	 * buffer into pending as they come. drain_lock guards rb's consumption and pending.
	 */
	pthread_mutex_t drain_lock;
	pthread_t drain_thread;
	bool drain_running;
	int drain_stop_fd;
	struct drmtop_client *pending;	/* closed records drained, not yet in a snapshot */
	size_t n_pending, cap_pending;
	size_t pending_max;		/* 0: DRMTOP_BPF_PENDING_MAX (tests set others) */
	__u64 pending_dropped;		/* records the full queue refused: in ringbuf_full */
	struct drmtop_client retired[DRMTOP_BPF_RETIRED];	/* ring of recent closed clients */
	size_t n_retired;
	struct strmap retired_at;	/* by uid, the slot of its latest entry (index + 1) */
	/*
	 * Engine entries of closed clients already reported, kept in the map until a snapshot
	 * finds them unchanged: a job of the client may still end meanwhile, and only what it
	 * adds is reported then (see read_engines).
	 */
	struct drmtop_reported *reported;
	size_t n_reported, cap_reported;
	/*
	 * Indices into reported (index + 1 as the value): by "uid:ring" of each entry, and by
	 * "uid" of the first entry of that uid's list (whose .owner names the client). Indices,
	 * not pointers: reported grows while the engines walk goes on.
	 */
	struct strmap reported_at, reported_uid;
	/*
	 * Engine entries whose uid is neither live nor known closed: a client that closed after
	 * the ring buffer was drained (its record comes with the next snapshot), one opened after
	 * the clients map was read, or one whose close record was lost (ring buffer full, or
	 * closed so long ago that it left the retired ring). After a grace period only the last
	 * kind can still be unknown: it is settled as an orphan (see read_engines).
	 */
	struct drmtop_orphan *orphans;
	size_t n_orphans, cap_orphans;
	struct strmap orphan_at;	/* by uid, its entry in orphans (index + 1) */
	__u64 orphan_engines;		/* entries settled as orphans: DRMTOP_CNT_ORPHAN_ENGINES */
	__u64 orphan_grace_ns;		/* 0: DRMTOP_BPF_ORPHAN_GRACE_NS (tests set others) */
	unsigned int orphan_grace_snaps;	/* 0: DRMTOP_BPF_ORPHAN_GRACE_SNAPS */
	__u64 seq;			/* snapshots taken */
	struct drmtop_client *prev_live;	/* the latest snapshot's live clients */
	size_t n_prev_live, cap_prev_live;
	struct drmtop_walk_test walk_test;
	/*
	 * Jobs that lost their done and cleanup (add_running): found overtaken on a ring of one
	 * unit in the previous snapshot, aged out if they still are in this one.
	 */
	struct drmtop_aging *aging;
	size_t n_aging, cap_aging;
	struct strmap aging_at;		/* by "fence:run_ns", its entry in aging (index + 1) */
	__u64 jobs_aged_out;		/* DRMTOP_CNT_JOBS_AGED_OUT */
	struct drmtop_kernel_hz hz;	/* what a ring's timeout is counted in */
	__u64 timelines_made;		/* the timelines counter when the map was last counted */
	__u64 timelines_present;	/* entries it had then */
	__u64 handle_release_misses;	/* drmtop_handle_release's skips when handles were pruned */
	__u64 handles_pruned;		/* DRMTOP_CNT_HANDLES_PRUNED */
	/* object entries whose end went unseen, see bpf_stale_objects.c */
	__u64 object_end_misses;	/* skips and drops of the end hooks when last settled */
	struct drmtop_object_candidate *obj_cand;	/* sorted by key */
	size_t n_obj_cand, cap_obj_cand;
	struct drmtop_gem_pruned *gem_pruned;	/* per device: what pruning took out */
	size_t n_gem_pruned, cap_gem_pruned;
	__u64 object_next_ns;		/* when to look again for objects ended unseen */
	__u64 object_wait_ns;		/* and how long after that */
	__u64 objects_pruned;		/* of DRMTOP_CNT_OBJECTS_STALE */
	__u64 object_grace_ns;		/* 0: DRMTOP_BPF_OBJECT_GRACE_NS (tests set others) */
	/* clients' shared bytes as last counted, see compute_shared */
	bool shared_counted;
	__u64 shared_events;		/* what moves when they may change, as of that count */
	struct drmtop_shared_bytes *shared;	/* by uid, sorted; only clients with some */
	size_t n_shared, cap_shared;
	unsigned long shared_walks;	/* counts taken: for tests */
};

struct drmtop_shared_bytes {
	__u64 uid;
	__u64 bytes;
};

/*
 * An object entry no handle holds, of a client gone, neither exported nor imported: its end
 * went unseen if it stays so this long (jobs of a closed client may hold it until they end).
 */
#define DRMTOP_BPF_OBJECT_GRACE_NS	(2 * 1000000000ull)
#define DRMTOP_BPF_OBJECT_WAIT_MAX_NS	(300 * 1000000000ull)

struct drmtop_object_candidate {
	__u64 key;			/* drm_gem_object address */
	struct drmtop_object o;
	__u64 first_ns;			/* first found prunable */
};

struct drmtop_gem_pruned {
	__u64 drm_dev;
	__u64 objects, bytes;
};

/*
 * An unknown uid stays unknown for this long and this many snapshots before it is settled:
 * a close record committed after a drain is consumed by the next one, and the grace in time
 * covers a record its program reserved but has not submitted yet (it holds up those behind).
 */
#define DRMTOP_BPF_ORPHAN_GRACE_NS	(5 * 1000000000ull)
#define DRMTOP_BPF_ORPHAN_GRACE_SNAPS	2

struct drmtop_reported {
	struct drmtop_engine_key key;
	struct drmtop_engine e;		/* the figures reported so far */
	bool quiet;			/* unchanged in the latest snapshot: delete in the next */
	struct drmtop_client owner;	/* the closed (or orphan) client they were reported for */
	size_t prev_uid, next_uid;	/* the other entries of its uid: indices, SIZE_MAX none */
};

/* A job found overtaken on its ring (add_running): the jobs map's key and its run time. */
struct drmtop_aging {
	__u64 fence, run_ns;
};

struct drmtop_orphan {
	__u64 uid;
	__u64 first_seq, first_ns;	/* snapshot and time it was first found unknown */
	__u64 last_seq;			/* latest snapshot that found it unknown */
	struct drmtop_client c;		/* identity if it was live in the snapshot before */
};

extern const char *const drmtop_bpf_map_names[MAP_COUNT];

struct bpf_program;

/*
 * Runs iterator program @prog once over all tasks' files; records of @rec_size bytes are
 * appended to *out (malloc'ed, count in *n) unless @out is NULL. 0 or a negative errno.
 */
int drmtop_bpf_run_iter(struct bpf_program *prog, size_t rec_size, void **out, size_t *n);

/*
 * One walk over every entry of a BPF map while BPF programs insert and delete entries (see
 * src/sources/bpf_walk.c): @each gets each entry's key and value at most once and returns 0 to
 * go on, or a negative errno that ends the walk and is returned. Every entry that is in the map
 * from the start to the end of the walk is passed; one inserted or deleted meanwhile may be or
 * not. @each must not delete from the map (collect keys, delete after the walk).
 */
struct drmtop_walk {
	int fd;
	int (*each)(const void *key, const void *value, void *ctx);
	void *ctx;
	/* tests only: see struct drmtop_walk_test */
	void (*hook)(void *hook_ctx, int fd, const void *last_key, unsigned int returned);
	void *hook_ctx;
	unsigned int batch;	/* entries per batch read, 0: the default */
	bool no_batch;		/* walk keys even where batch reads work (tests) */
};

int drmtop_bpf_map_walk(const struct drmtop_walk *w);

/*
 * The clients parked in @slots (bpf_parked.c), each passed to @each once at most; its first
 * error ends the walk and is returned.
 */
int drmtop_bpf_parked_each(const struct drmtop_parked *slots, size_t n,
			   int (*each)(const struct drmtop_client *c, void *ctx), void *ctx);

/* The ring buffer's drain thread (bpf_drain.c): 0 or a negative errno; stop is idempotent. */
int drmtop_bpf_drain_start(struct drmtop_bpf *b);
void drmtop_bpf_drain_stop(struct drmtop_bpf *b);
/* Ring buffer callback, with drain_lock held: queues a close record in b->pending. */
int drmtop_bpf_on_closed(void *ctx, void *data, size_t len);


/* Walks that fell back to the key walk because the kernel refused batch reads (tests). */
extern unsigned long drmtop_bpf_batch_refused;

#endif /* DRMTOP_BPF_INTERNAL_H */
