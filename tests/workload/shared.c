// SPDX-License-Identifier: GPL-2.0-only
#include "shared.h"
#include "units.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct wl_shared *wl;

int wl_shared_init(void)
{
	pthread_mutexattr_t attr;

	/* MAP_ANONYMOUS pages are zero and allocated when touched: the big tables cost nothing. */
	wl = mmap(NULL, sizeof(*wl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (wl == MAP_FAILED) {
		perror("simgpu-workload: mmap");
		return -1;
	}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	/* A process killed while holding it must not hang the others. */
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&wl->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	return 0;
}

void wl_lock(void)
{
	if (pthread_mutex_lock(&wl->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&wl->lock);
}

void wl_unlock(void)
{
	pthread_mutex_unlock(&wl->lock);
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts,
		  uint32_t bitset)
{
	/* Not FUTEX_PRIVATE_FLAG: the word is in memory shared by several processes. */
	return syscall(SYS_futex, (uint32_t *)word, op, val, ts, NULL, bitset);
}

void wl_request_stop(void)
{
	uint32_t expected = 0;

	if (atomic_compare_exchange_strong(&wl->stop, &expected, 1)) {
		wl->stop_ns = wl_now_ns();
		futex(&wl->stop, FUTEX_WAKE, INT_MAX, NULL, 0);
	}
}

bool wl_stopping(void)
{
	return atomic_load(&wl->stop) != 0;
}

bool wl_sleep_until(int64_t deadline_ns)
{
	struct timespec ts = { .tv_sec = deadline_ns / 1000000000,
			       .tv_nsec = deadline_ns % 1000000000 };

	while (!wl_stopping()) {
		/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline. */
		if (futex(&wl->stop, FUTEX_WAIT_BITSET, 0, &ts, FUTEX_BITSET_MATCH_ANY) &&
		    errno == ETIMEDOUT)
			return false;
		if (wl_now_ns() >= deadline_ns)
			return wl_stopping();
	}
	return true;
}

static int full(const char *what, unsigned int max)
{
	fprintf(stderr, "simgpu-workload: the record holds at most %u %s\n", max, what);
	return -1;
}

int wl_proc_new(int decl, int instance, int parent, const char *comm)
{
	struct wl_proc *p;

	if (wl->nr_procs == WL_MAX_PROCS)
		return full("processes", WL_MAX_PROCS);
	p = &wl->procs[wl->nr_procs];
	p->decl = decl;
	p->instance = instance;
	p->parent = parent;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return (int)wl->nr_procs++;
}

int wl_client_new(uint64_t id, int opener, bool probe)
{
	struct wl_client *c;

	if (wl->nr_clients == WL_MAX_CLIENTS)
		return full("clients", WL_MAX_CLIENTS);
	c = &wl->clients[wl->nr_clients];
	c->id = id;
	c->opener = opener;
	c->probe = probe;
	c->opened_ns = wl_now_ns();
	return (int)wl->nr_clients++;
}

int wl_holder_new(int client, int proc, int fd, enum wl_how how)
{
	struct wl_holder *h;

	if (wl->nr_holders == WL_MAX_HOLDERS)
		return full("fd holders", WL_MAX_HOLDERS);
	h = &wl->holders[wl->nr_holders];
	h->client = client;
	h->proc = proc;
	h->fd = fd;
	h->how = how;
	h->since_ns = wl_now_ns();
	/* An fd sent over SCM_RIGHTS was counted when sent: the receiver takes that reference. */
	if (how != HOW_SCM)
		wl->clients[client].fd_refs++;
	return (int)wl->nr_holders++;
}

int wl_bo_new(int client, uint32_t handle, uint64_t size, const char *name)
{
	struct wl_bo *b;

	if (wl->nr_bos == WL_MAX_BOS)
		return full("BO handles", WL_MAX_BOS);
	b = &wl->bos[wl->nr_bos];
	b->client = client;
	b->handle = handle;
	b->size = size;
	b->origin = (int)wl->nr_bos;
	b->live = true;
	snprintf(b->name, sizeof(b->name), "%s", name);
	return (int)wl->nr_bos++;
}

int wl_phase_new(int client, int proc, int engine, uint64_t job_ns, uint64_t period_ns)
{
	struct wl_phase *ph;

	if (wl->nr_phases == WL_MAX_PHASES)
		return full("duty phases", WL_MAX_PHASES);
	ph = &wl->phases[wl->nr_phases];
	ph->client = client;
	ph->proc = proc;
	ph->engine = engine;
	ph->job_ns = job_ns;
	ph->period_ns = period_ns;
	return (int)wl->nr_phases++;
}

/* The kernel drops every handle of a file when it is released; so does the record. */
static void client_closed(int client)
{
	struct wl_client *c = &wl->clients[client];

	c->closed_ns = wl_now_ns();
	for (unsigned int i = 0; i < wl->nr_bos; i++) {
		struct wl_bo *b = &wl->bos[i];

		if (b->client != client || !b->live)
			continue;
		c->held_count++;
		c->held_bytes += b->size;
		if (wl->bos[b->origin].obj_shared)
			c->shared_held_bytes += b->size;
		if (wl->bos[b->origin].obj_resident)
			c->resident_held_bytes += b->size;
		b->live = false;
	}
}

void wl_holder_close(int holder)
{
	struct wl_holder *h = &wl->holders[holder];

	wl_lock();
	h->until_ns = wl_now_ns();
	if (--wl->clients[h->client].fd_refs == 0)
		client_closed(h->client);
	wl_unlock();
}

static void atomic_min_max(_Atomic int64_t *min, _Atomic int64_t *max, int64_t v)
{
	int64_t cur = atomic_load(min);

	while ((cur == 0 || v < cur) && !atomic_compare_exchange_weak(min, &cur, v))
		;
	cur = atomic_load(max);
	while (v > cur && !atomic_compare_exchange_weak(max, &cur, v))
		;
}

void wl_note_submit(int client, int engine, uint64_t duration_ns)
{
	struct wl_client *c = &wl->clients[client];

	atomic_fetch_add(&c->jobs[engine], 1);
	atomic_fetch_add(&c->busy_ns[engine], duration_ns);
	atomic_min_max(&c->first_submit_ns, &c->last_submit_ns, wl_now_ns());
}

void wl_proc_count_live(int proc)
{
	wl_lock();
	if (!wl->procs[proc].in_live) {
		wl->procs[proc].in_live = true;
		atomic_fetch_add(&wl->live, 1);
	}
	wl_unlock();
}

void wl_proc_park(int proc, bool parked)
{
	struct wl_proc *p = &wl->procs[proc];

	wl_lock();
	if (p->in_live && p->in_parked != parked) {
		p->in_parked = parked;
		atomic_fetch_add(&wl->parked, parked ? 1 : -1);
	}
	wl_unlock();
}

void wl_proc_reaped(int proc, int status)
{
	struct wl_proc *p = &wl->procs[proc];

	wl_lock();
	p->exit_status = status;
	p->reaped = true;
	if (!p->end_ns)
		p->end_ns = wl_now_ns();
	if (p->in_parked)
		atomic_fetch_add(&wl->parked, -1);
	if (p->in_live)
		atomic_fetch_add(&wl->live, -1);
	p->in_parked = p->in_live = false;
	wl_unlock();
}
