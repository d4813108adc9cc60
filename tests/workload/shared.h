/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The record every process of a run writes into: one MAP_SHARED mapping made before the first
 * fork, so the main process can write the JSON record after all of them exited. Tables only
 * grow; their entries are found by index. Engine counters are atomics (submit threads of many
 * processes add to one client); everything else changes under the process-shared lock.
 */
#ifndef WL_SHARED_H
#define WL_SHARED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "scenario.h"

#define WL_ENGINES	3
#define WL_MAX_PROCS	8192
#define WL_MAX_CLIENTS	16384
#define WL_MAX_HOLDERS	32768
#define WL_MAX_BOS	65536
#define WL_MAX_PHASES	4096

enum wl_how { HOW_OPEN, HOW_DUP, HOW_FORK, HOW_SCM };

struct wl_proc {
	pid_t pid, ppid;
	int decl;		/* index in the scenario, -1 for the main process */
	int instance;
	int parent;		/* proc slot of the process that started it */
	char comm[WL_COMM_MAX];
	int64_t start_ns, end_ns;
	int exit_status;	/* as from waitpid(), recorded by the parent */
	bool reaped;
	bool in_live, in_parked;	/* counted in wl_shared.live / .parked right now */
};

struct wl_client {
	uint64_t id;		/* drm-client-id */
	int opener;		/* proc slot */
	bool probe;		/* the main process's node probe, never used */
	int64_t opened_ns, closed_ns;	/* closed: when its last fd was closed */
	int fd_refs;		/* descriptors in all processes (and in flight over SCM_RIGHTS) */
	_Atomic uint64_t jobs[WL_ENGINES];
	_Atomic uint64_t busy_ns[WL_ENGINES];	/* sum of submitted duration_ns */
	_Atomic int64_t first_submit_ns, last_submit_ns;
	uint64_t created_count, created_bytes;
	uint64_t freed_count, freed_bytes;
	uint64_t imported_count, imported_bytes;
	uint64_t exported_count, exported_bytes;
	/* Handles the client held when its last fd closed: its drm-total/shared-memory then. */
	uint64_t held_count, held_bytes, shared_held_bytes, resident_held_bytes;
};

struct wl_holder {
	int client, proc, fd;
	enum wl_how how;
	int64_t since_ns, until_ns;	/* until 0: still open */
};

/* A GEM handle of one client. Imports point at the entry of the client that created it. */
struct wl_bo {
	int client;
	uint32_t handle;
	uint64_t size;		/* page-rounded, as the driver allocates it */
	int origin;		/* bo slot of the creating client's handle (itself if created) */
	bool live;
	bool imported;
	bool exported;		/* this client exported this handle */
	bool obj_shared;	/* on the origin entry: a dma-buf of the object exists */
	bool obj_resident;	/* on the origin entry: a job used it, so simgpu gave it pages */
	char name[WL_NAME_MAX];
};

struct wl_phase {
	int client, proc, engine;
	uint64_t job_ns, period_ns;
	int64_t start_ns, end_ns;
	uint64_t jobs, busy_ns;
	bool stream;		/* one member of a stream: period_ns is the stream's cycle */
	unsigned int underruns;	/* stream: times its backlog was found drained */
	int64_t first_underrun_ns;
};

struct wl_shared {
	pthread_mutex_t lock;
	/* Futex word: set once, by a signal, a deadline or an error. */
	_Atomic uint32_t stop;
	_Atomic int failed;
	_Atomic int live;		/* non-transient processes running */
	/* Of those, the ones holding or waiting for their children. */
	_Atomic int parked;
	int64_t start_ns, ready_ns, stop_ns, end_ns, realtime_start_ns;
	int64_t realtime_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC at the start */
	unsigned int nr_procs, nr_clients, nr_holders, nr_bos, nr_phases;
	struct wl_proc procs[WL_MAX_PROCS];
	struct wl_client clients[WL_MAX_CLIENTS];
	struct wl_holder holders[WL_MAX_HOLDERS];
	struct wl_bo bos[WL_MAX_BOS];
	struct wl_phase phases[WL_MAX_PHASES];
};

extern struct wl_shared *wl;

int wl_shared_init(void);
void wl_lock(void);
void wl_unlock(void);

/* Sets stop once (recording when) and wakes every sleeper of every process. */
void wl_request_stop(void);
bool wl_stopping(void);
/*
 * Sleeps until the CLOCK_MONOTONIC deadline or until stop is requested.
 * Returns true if stopped before the deadline.
 */
bool wl_sleep_until(int64_t deadline_ns);

/* Table slots, under the lock; -1 with a message if a table is full. */
int wl_proc_new(int decl, int instance, int parent, const char *comm);
int wl_client_new(uint64_t id, int opener, bool probe);
int wl_holder_new(int client, int proc, int fd, enum wl_how how);
int wl_bo_new(int client, uint32_t handle, uint64_t size, const char *name);
int wl_phase_new(int client, int proc, int engine, uint64_t job_ns, uint64_t period_ns);

/*
 * Readiness: a run is ready when every non-transient process is parked (holding its clients
 * or waiting for its children). A process counts itself; its reaper undoes what it left.
 */
void wl_proc_count_live(int proc);
void wl_proc_park(int proc, bool parked);
void wl_proc_reaped(int proc, int status);

/* Ends a holder; when it was the client's last fd, snapshots the client's handles as closed. */
void wl_holder_close(int holder);
void wl_note_submit(int client, int engine, uint64_t duration_ns);


#endif
