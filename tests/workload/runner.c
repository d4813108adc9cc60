// SPDX-License-Identifier: GPL-2.0-only
/*
 * One process of a scenario. Every step that touches simgpu records what it did in the shared
 * record right after the ioctl succeeded, so the record is exactly what the driver was asked
 * to do. A failing step ends the script and stops the whole run.
 */
#include "runner.h"
#include "job_threads.h"
#include "mailbox.h"
#include "shared.h"
#include "simgpu_dev.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FDS		256
#define MAX_CHILDREN	256
#define MAX_DUTY	64

struct fd_ent {
	char name[WL_NAME_MAX];
	int fd;
	int client;
	int holder;
};

static struct {
	const struct wl_run_opts *o;
	int decl, proc;
	const struct wl_step *step;
	uint64_t page_size;
	bool exit_now;
	int status;
	unsigned int nr_fds;
	struct fd_ent fds[MAX_FDS];
	unsigned int nr_children;
	pid_t child_pids[MAX_CHILDREN];
	int child_procs[MAX_CHILDREN];
	unsigned int nr_duty;
	struct job_arg duty[MAX_DUTY];	/* background (until=stop) duty threads */
	unsigned int nr_streams;
	struct stream_arg streams[MAX_DUTY];	/* background streams */
	atomic_bool quit;		/* "exit" with background duties still running */
} R;

static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "simgpu-workload: %s[%d]", wl->procs[R.proc].comm, (int)getpid());
	if (R.step)
		fprintf(stderr, " line %d", R.step->line);
	fputs(": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	atomic_store(&wl->failed, 1);
	wl_request_stop();
	return -1;
}

static bool name_matches(const char *have, const char *want)
{
	size_t n = strlen(want);

	return !strcmp(want, "*") || !strcmp(have, want) ||
	       (!strncmp(have, want, n) && have[n] == '.');
}

/* fds named want, or members want.N of a group. */
static unsigned int fd_group(const char *want, int *idx)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < R.nr_fds; i++)
		if (name_matches(R.fds[i].name, want))
			idx[n++] = (int)i;
	return n;
}

static int one_fd(const char *want)
{
	for (unsigned int i = 0; i < R.nr_fds; i++)
		if (!strcmp(R.fds[i].name, want))
			return (int)i;
	return fail("no fd '%s' in this process", want);
}

static int fd_name_free(const char *base)
{
	int idx[MAX_FDS];

	if (fd_group(base, idx))
		return fail("fd name '%s' is already in use", base);
	return 0;
}

static int add_fd(const char *name, int fd, int client, int holder)
{
	struct fd_ent *e;

	if (R.nr_fds == MAX_FDS)
		return fail("more than %d fds in one process", MAX_FDS);
	e = &R.fds[R.nr_fds++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->fd = fd;
	e->client = client;
	e->holder = holder;
	return 0;
}

static int member_name(char *dst, const char *base, unsigned int count, unsigned int i)
{
	int n = count > 1 ? snprintf(dst, WL_NAME_MAX, "%s.%u", base, i) :
			    snprintf(dst, WL_NAME_MAX, "%s", base);

	if (n >= WL_NAME_MAX)
		return fail("name '%s.%u' is longer than %d characters", base, i, WL_NAME_MAX - 1);
	return 0;
}

/* A live handle of the client by exact name, under the lock. */
static int bo_find(int client, const char *name)
{
	for (unsigned int i = 0; i < wl->nr_bos; i++)
		if (wl->bos[i].live && wl->bos[i].client == client &&
		    !strcmp(wl->bos[i].name, name))
			return (int)i;
	return -1;
}

static int step_open(const struct wl_step *st)
{
	if (fd_name_free(st->fd))
		return -1;
	for (unsigned int i = 0; i < st->count; i++) {
		char name[WL_NAME_MAX];
		uint64_t id;
		int fd, c, h = -1;

		if (member_name(name, st->fd, st->count, i))
			return -1;
		fd = simgpu_open(R.o->device);
		if (fd < 0)
			return fail("open %s: %s", R.o->device, strerror(errno));
		if (simgpu_client_id(fd, &id)) {
			close(fd);
			return fail("%s: no client id for fd %d (fdinfo, CLIENT_ID)", R.o->device,
				    fd);
		}
		wl_lock();
		c = wl_client_new(id, R.proc, false);
		if (c >= 0)
			h = wl_holder_new(c, R.proc, fd, HOW_OPEN);
		wl_unlock();
		if (h < 0) {
			close(fd);
			return fail("record full");
		}
		if (add_fd(name, fd, c, h))
			return -1;
	}
	return 0;
}

static void close_fd_at(unsigned int i)
{
	close(R.fds[i].fd);
	wl_holder_close(R.fds[i].holder);
	R.fds[i] = R.fds[--R.nr_fds];
}

static int step_close(const struct wl_step *st)
{
	bool any = false;

	for (unsigned int i = 0; i < R.nr_fds;) {
		if (name_matches(R.fds[i].name, st->fd)) {
			close_fd_at(i);
			any = true;
		} else {
			i++;
		}
	}
	return any ? 0 : fail("no fd '%s' in this process", st->fd);
}

static int step_dup(const struct wl_step *st)
{
	int i = one_fd(st->fd), fd, h;

	if (i < 0 || fd_name_free(st->name))
		return -1;
	fd = fcntl(R.fds[i].fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return fail("dup: %s", strerror(errno));
	wl_lock();
	h = wl_holder_new(R.fds[i].client, R.proc, fd, HOW_DUP);
	wl_unlock();
	if (h < 0) {
		close(fd);
		return fail("record full");
	}
	return add_fd(st->name, fd, R.fds[i].client, h);
}

static int step_bo(const struct wl_step *st)
{
	uint64_t size = (st->size + R.page_size - 1) / R.page_size * R.page_size;
	int idx[MAX_FDS];
	unsigned int n = fd_group(st->fd, idx);

	if (!n)
		return fail("no fd '%s' in this process", st->fd);
	for (unsigned int m = 0; m < n; m++) {
		struct fd_ent *e = &R.fds[idx[m]];

		for (unsigned int k = 0; k < st->count; k++) {
			char name[WL_NAME_MAX];
			uint32_t handle;
			int b, ret;

			if (member_name(name, st->name, st->count, k))
				return -1;
			wl_lock();
			b = bo_find(e->client, name);
			wl_unlock();
			if (b >= 0)
				return fail("client of fd '%s' already has a BO '%s'", e->name, name);
			ret = simgpu_bo_create(e->fd, st->size, &handle);
			if (ret)
				return fail("BO_CREATE %llu bytes: %s", (unsigned long long)st->size,
					    strerror(-ret));
			wl_lock();
			b = wl_bo_new(e->client, handle, size, name);
			if (b >= 0) {
				wl->clients[e->client].created_count++;
				wl->clients[e->client].created_bytes += size;
			}
			wl_unlock();
			if (b < 0)
				return fail("record full");
		}
	}
	return 0;
}

static int step_free(const struct wl_step *st)
{
	int idx[MAX_FDS];
	unsigned int n = fd_group(st->fd, idx), freed = 0;

	if (!n)
		return fail("no fd '%s' in this process", st->fd);
	for (unsigned int m = 0; m < n; m++) {
		struct fd_ent *e = &R.fds[idx[m]];

		for (unsigned int i = 0;; i++) {
			struct wl_bo *b;
			int ret;

			wl_lock();
			for (; i < wl->nr_bos; i++)
				if (wl->bos[i].live && wl->bos[i].client == e->client &&
				    name_matches(wl->bos[i].name, st->name))
					break;
			b = i < wl->nr_bos ? &wl->bos[i] : NULL;
			wl_unlock();
			if (!b)
				break;
			ret = simgpu_gem_close(e->fd, b->handle);
			if (ret)
				return fail("GEM_CLOSE of '%s': %s", b->name, strerror(-ret));
			wl_lock();
			b->live = false;
			wl->clients[e->client].freed_count++;
			wl->clients[e->client].freed_bytes += b->size;
			wl_unlock();
			freed++;
		}
	}
	return freed ? 0 : fail("no BO '%s' on fd '%s'", st->name, st->fd);
}

static int step_stream(const struct wl_step *st)
{
	struct stream_arg fg, *a = st->until_stop ? &R.streams[R.nr_streams] : &fg;
	uint64_t cycle_ns = 0;

	if (st->until_stop && R.nr_streams == MAX_DUTY)
		return fail("more than %d background streams in one process", MAX_DUTY);
	memset(a, 0, sizeof(*a));
	for (unsigned int i = 0; i < st->nr_members; i++)
		cycle_ns += st->member_ns[i];
	for (unsigned int i = 0; i < st->nr_members; i++) {
		int f = one_fd(st->members[i]), ph;

		if (f < 0)
			return -1;
		wl_lock();
		ph = wl_phase_new(R.fds[f].client, R.proc, st->engine, st->member_ns[i], cycle_ns);
		if (ph >= 0)
			wl->phases[ph].stream = true;
		wl_unlock();
		if (ph < 0)
			return fail("record full");
		a->fd[i] = R.fds[f].fd;
		a->client[i] = R.fds[f].client;
		a->phase[i] = ph;
		a->ns[i] = st->member_ns[i];
	}
	a->n = st->nr_members;
	a->engine = st->engine;
	a->backlog_ns = st->backlog_ns;
	a->for_ns = st->for_ns;
	a->until_stop = st->until_stop;
	a->quit = &R.quit;
	if (!st->until_stop) {
		wl_stream_thread(a);
		return a->err ? fail("%s on %s: %s", a->what, wl_engine_name(a->engine),
				     strerror(-a->err)) : 0;
	}
	if (pthread_create(&a->thread, NULL, wl_stream_thread, a))
		return fail("pthread_create failed");
	R.nr_streams++;
	return 0;
}

static int run_threads(struct job_arg *args, unsigned int n, void *(*fn)(void *))
{
	unsigned int started = 0;
	int ret = 0;

	if (n == 1) {
		fn(&args[0]);
	} else {
		for (; started < n; started++)
			if (pthread_create(&args[started].thread, NULL, fn, &args[started])) {
				ret = fail("pthread_create failed");
				break;
			}
		for (unsigned int i = 0; i < started; i++)
			pthread_join(args[i].thread, NULL);
	}
	if (n == 1)
		started = 1;
	for (unsigned int i = 0; i < started; i++)
		if (args[i].err && !ret)
			ret = fail("%s on %s: %s", args[i].what, wl_engine_name(args[i].engine),
				   strerror(-args[i].err));
	return ret;
}

/* Handles of the client named by bos=, each name exact or a group. */
static int collect_handles(const struct wl_step *st, int client, struct job_arg *a)
{
	for (unsigned int j = 0; j < st->nr_bos; j++) {
		unsigned int before = a->nr_handles;

		wl_lock();
		for (unsigned int i = 0; i < wl->nr_bos && a->nr_handles < WL_MAX_HANDLES; i++)
			if (wl->bos[i].live && wl->bos[i].client == client &&
			    name_matches(wl->bos[i].name, st->bos[j])) {
				a->handles[a->nr_handles++] = wl->bos[i].handle;
				/* SUBMIT backs every BO it is given with pages. */
				wl->bos[wl->bos[i].origin].obj_resident = true;
			}
		wl_unlock();
		if (a->nr_handles == before)
			return fail("no BO '%s' on this client", st->bos[j]);
	}
	return 0;
}

static int step_submit(const struct wl_step *st)
{
	int idx[MAX_FDS];
	unsigned int n = fd_group(st->fd, idx), nr = 0;
	struct job_arg *args;
	int ret = 0;

	if (!n)
		return fail("no fd '%s' in this process", st->fd);
	args = calloc((size_t)n * st->threads, sizeof(*args));
	if (!args)
		return fail("out of memory");
	for (unsigned int m = 0; m < n && !ret; m++) {
		struct fd_ent *e = &R.fds[idx[m]];
		struct job_arg a = { .fd = e->fd, .client = e->client, .engine = st->engine,
				     .dur_ns = st->dur_ns, .count = st->count, .wait = st->wait,
				     .quit = &R.quit };

		ret = collect_handles(st, e->client, &a);
		for (unsigned int t = 0; t < st->threads; t++)
			args[nr++] = a;
	}
	if (!ret)
		ret = run_threads(args, nr, wl_submit_thread);
	free(args);
	return ret;
}

static int step_duty(const struct wl_step *st)
{
	int idx[MAX_FDS];
	unsigned int n = fd_group(st->fd, idx);
	struct job_arg fg[MAX_FDS];
	struct job_arg *args = st->until_stop ? &R.duty[R.nr_duty] : fg;

	if (!n)
		return fail("no fd '%s' in this process", st->fd);
	if (st->until_stop && R.nr_duty + n > MAX_DUTY)
		return fail("more than %d background duties in one process", MAX_DUTY);
	for (unsigned int m = 0; m < n; m++) {
		struct fd_ent *e = &R.fds[idx[m]];
		int ph;

		wl_lock();
		ph = wl_phase_new(e->client, R.proc, st->engine, st->dur_ns, st->period_ns);
		wl_unlock();
		if (ph < 0)
			return fail("record full");
		args[m] = (struct job_arg){ .fd = e->fd, .client = e->client,
					    .engine = st->engine, .dur_ns = st->dur_ns,
					    .phase = ph, .period_ns = st->period_ns,
					    .for_ns = st->for_ns, .until_stop = st->until_stop,
					    .quit = &R.quit };
	}
	if (!st->until_stop)
		return run_threads(fg, n, wl_duty_thread);
	/* Background: runs while the script goes on, until the run is stopped. */
	for (unsigned int m = 0; m < n; m++) {
		if (pthread_create(&args[m].thread, NULL, wl_duty_thread, &args[m]))
			return fail("pthread_create failed");
		R.nr_duty++;
	}
	return 0;
}

static int step_export(const struct wl_step *st)
{
	int i = one_fd(st->fd), b, dmabuf, ret;
	struct wl_client *c;
	struct mb_msg m = { .kind = MB_DMABUF, .from_proc = R.proc };

	if (i < 0)
		return -1;
	c = &wl->clients[R.fds[i].client];
	wl_lock();
	b = bo_find(R.fds[i].client, st->name);
	wl_unlock();
	if (b < 0)
		return fail("no BO '%s' on fd '%s'", st->name, st->fd);
	ret = simgpu_export(R.fds[i].fd, wl->bos[b].handle, &dmabuf);
	if (ret)
		return fail("PRIME_HANDLE_TO_FD of '%s': %s", st->name, strerror(-ret));
	wl_lock();
	if (!wl->bos[b].exported) {
		wl->bos[b].exported = true;
		c->exported_count++;
		c->exported_bytes += wl->bos[b].size;
	}
	wl->bos[wl->bos[b].origin].obj_shared = true;
	wl_unlock();
	snprintf(m.tag, sizeof(m.tag), "%s", st->name);
	m.client = R.fds[i].client;
	m.bo = b;
	ret = mb_send(st->peer, &m, dmabuf);
	close(dmabuf);
	return ret ? fail("sending dma-buf '%s' failed", st->name) : 0;
}

static int step_import(const struct wl_step *st)
{
	const char *name = st->as[0] ? st->as : st->name;
	int i = one_fd(st->fd), dmabuf, ret, b;
	struct mb_msg m;
	uint32_t handle;
	off_t size;

	if (i < 0)
		return -1;
	ret = mb_recv(R.decl, MB_DMABUF, st->name, &m, &dmabuf);
	if (ret)
		return ret < 0 ? fail("import of '%s' failed", st->name) : 1;
	if (dmabuf < 0)
		return fail("dma-buf '%s' came without an fd", st->name);
	size = lseek(dmabuf, 0, SEEK_END);
	if (size < 0 || (uint64_t)size != wl->bos[m.bo].size) {
		close(dmabuf);
		return fail("dma-buf '%s' has %lld bytes, the record says %llu", st->name,
			    (long long)size, (unsigned long long)wl->bos[m.bo].size);
	}
	ret = simgpu_import(R.fds[i].fd, dmabuf, &handle);
	close(dmabuf);
	if (ret)
		return fail("PRIME_FD_TO_HANDLE of '%s': %s", st->name, strerror(-ret));
	wl_lock();
	for (b = 0; b < (int)wl->nr_bos; b++)
		if (wl->bos[b].live && wl->bos[b].client == R.fds[i].client &&
		    wl->bos[b].handle == handle)
			break;
	if (b < (int)wl->nr_bos) {
		/* The client already had it (its own export): PRIME gave the same handle back. */
		wl_unlock();
		if (R.o->verbose)
			fprintf(stderr, "simgpu-workload: '%s' is already handle %u of this client\n",
				st->name, handle);
		return 0;
	}
	if (bo_find(R.fds[i].client, name) >= 0) {
		wl_unlock();
		return fail("client of fd '%s' already has a BO '%s'", st->fd, name);
	}
	b = wl_bo_new(R.fds[i].client, handle, wl->bos[m.bo].size, name);
	if (b >= 0) {
		struct wl_client *c = &wl->clients[R.fds[i].client];

		wl->bos[b].imported = true;
		wl->bos[b].origin = wl->bos[m.bo].origin;
		wl->bos[wl->bos[b].origin].obj_shared = true;
		c->imported_count++;
		c->imported_bytes += wl->bos[b].size;
	}
	wl_unlock();
	return b < 0 ? fail("record full") : 0;
}

static int step_sendfd(const struct wl_step *st)
{
	int i = one_fd(st->fd);
	struct mb_msg m = { .kind = MB_CLIENT_FD, .from_proc = R.proc, .bo = -1 };

	if (i < 0)
		return -1;
	snprintf(m.tag, sizeof(m.tag), "%s", st->fd);
	m.client = R.fds[i].client;
	/* The fd in flight keeps the client open: it counts until the receiver takes it. */
	wl_lock();
	wl->clients[m.client].fd_refs++;
	wl_unlock();
	if (mb_send(st->peer, &m, R.fds[i].fd)) {
		wl_lock();
		wl->clients[m.client].fd_refs--;
		wl_unlock();
		return fail("sending fd '%s' failed", st->fd);
	}
	return 0;
}

static int step_recvfd(const struct wl_step *st)
{
	struct mb_msg m;
	uint64_t id;
	int fd, ret, h;

	if (fd_name_free(st->fd))
		return -1;
	ret = mb_recv(R.decl, MB_CLIENT_FD, st->fd, &m, &fd);
	if (ret)
		return ret < 0 ? fail("receiving fd '%s' failed", st->fd) : 1;
	if (fd < 0)
		return fail("fd '%s' came without an fd", st->fd);
	if (simgpu_client_id(fd, &id) || id != wl->clients[m.client].id) {
		close(fd);
		return fail("received fd '%s' is not drm client %llu", st->fd,
			    (unsigned long long)wl->clients[m.client].id);
	}
	wl_lock();
	h = wl_holder_new(m.client, R.proc, fd, HOW_SCM);
	wl_unlock();
	if (h < 0) {
		close(fd);
		return fail("record full");
	}
	return add_fd(st->fd, fd, m.client, h);
}

static int step_send(const struct wl_step *st)
{
	struct mb_msg m = { .kind = MB_TOKEN, .from_proc = R.proc, .client = -1, .bo = -1 };

	snprintf(m.tag, sizeof(m.tag), "%s", st->fd);
	return mb_send(st->peer, &m, -1) ? fail("send '%s' failed", st->fd) : 0;
}

static int step_recv(const struct wl_step *st)
{
	struct mb_msg m;
	int fd, ret = mb_recv(R.decl, MB_TOKEN, st->fd, &m, &fd);

	if (ret < 0)
		return fail("recv '%s' failed", st->fd);
	if (!ret && fd >= 0)
		close(fd);
	return ret;
}

static int wait_children(void)
{
	int ret = 0;

	for (unsigned int i = 0; i < R.nr_children; i++) {
		int status;

		while (waitpid(R.child_pids[i], &status, 0) < 0)
			if (errno != EINTR) {
				status = -1;
				break;
			}
		wl_proc_reaped(R.child_procs[i], status);
		if (status)
			ret = fail("child %s[%d] failed (wait status %d)",
				   wl->procs[R.child_procs[i]].comm, (int)R.child_pids[i], status);
	}
	R.nr_children = 0;
	return ret;
}

static int step_join(void)
{
	int ret;

	wl_proc_park(R.proc, true);
	ret = wait_children();
	wl_proc_park(R.proc, false);
	return ret;
}

static _Noreturn void run_script(void);

static int step_fork(const struct wl_step *st)
{
	const struct wl_proc_decl *d = &R.o->sc->procs[st->peer];
	int holders[MAX_FDS], slot;
	bool ok = true;
	pid_t pid;

	if (R.nr_children == MAX_CHILDREN)
		return fail("more than %d children", MAX_CHILDREN);
	/* The child's share of every fd is recorded before it exists: no window without it. */
	wl_lock();
	slot = wl_proc_new(st->peer, 0, R.proc, d->name);
	for (unsigned int i = 0; i < R.nr_fds && slot >= 0 && ok; i++) {
		holders[i] = wl_holder_new(R.fds[i].client, slot, R.fds[i].fd, HOW_FORK);
		ok = holders[i] >= 0;
	}
	wl_unlock();
	if (slot < 0 || !ok)
		return fail("record full");
	if (!d->transient)
		wl_proc_count_live(slot);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		wl_proc_reaped(slot, -1);
		return fail("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		for (unsigned int i = 0; i < R.nr_fds; i++)
			R.fds[i].holder = holders[i];
		R.decl = st->peer;
		R.proc = slot;
		R.nr_children = 0;
		R.nr_duty = 0;	/* threads are not inherited by fork */
		R.nr_streams = 0;
		atomic_store(&R.quit, false);
		mb_forget_pending();
		run_script();
	}
	wl->procs[slot].pid = pid;
	R.child_pids[R.nr_children] = pid;
	R.child_procs[R.nr_children++] = slot;
	return 0;
}

static void park_until_stopped(void)
{
	wl_proc_park(R.proc, true);
	wl_sleep_until(INT64_MAX);
	wl_proc_park(R.proc, false);
}

/* 0: next step, 1: the script ends here, -1: failed (reported). */
static int run_step(const struct wl_step *st)
{
	switch (st->op) {
	case OP_OPEN:
		return step_open(st);
	case OP_CLOSE:
		return step_close(st);
	case OP_DUP:
		return step_dup(st);
	case OP_BO:
		return step_bo(st);
	case OP_FREE:
		return step_free(st);
	case OP_SUBMIT:
		return step_submit(st);
	case OP_DUTY:
		return step_duty(st);
	case OP_EXPORT:
		return step_export(st);
	case OP_IMPORT:
		return step_import(st);
	case OP_SENDFD:
		return step_sendfd(st);
	case OP_RECVFD:
		return step_recvfd(st);
	case OP_SEND:
		return step_send(st);
	case OP_RECV:
		return step_recv(st);
	case OP_FORK:
		return step_fork(st);
	case OP_JOIN:
		return step_join();
	case OP_SLEEP:
		return wl_sleep_until(wl_now_ns() + (int64_t)st->dur_ns) ? 1 : 0;
	case OP_HOLD:
		park_until_stopped();
		return 1;
	case OP_EXIT:
		R.exit_now = true;
		return 1;
	case OP_STREAM:
		return step_stream(st);
	}
	return fail("unknown step");
}

static const char *const op_names[] = {
	"open", "close", "dup", "bo", "free", "submit", "duty", "export", "import",
	"sendfd", "recvfd", "send", "recv", "fork", "join", "sleep", "hold", "exit", "stream",
};

/* Moves this process into the cgroup v2 directory @dir, so that its clients are that cgroup's. */
static int join_cgroup(const char *dir)
{
	char path[320];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fprintf(f, "%d\n", (int)getpid()) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static _Noreturn void run_script(void)
{
	const struct wl_proc_decl *d = &R.o->sc->procs[R.decl];
	struct wl_proc *p = &wl->procs[R.proc];

	p->pid = getpid();
	p->ppid = getppid();
	p->start_ns = wl_now_ns();
	prctl(PR_SET_NAME, d->name, 0, 0, 0);
	R.status = 0;
	R.exit_now = false;
	if (d->cgroup[0] && join_cgroup(d->cgroup)) {
		fprintf(stderr, "simgpu-workload: %s: cannot join cgroup %s: %s\n", d->name,
			d->cgroup, strerror(errno));
		R.status = 1;
	}
	for (unsigned int i = 0; i < d->nr_steps && !wl_stopping() && !R.status; i++) {
		int ret;

		R.step = &d->steps[i];
		if (R.o->verbose)
			fprintf(stderr, "simgpu-workload: %s[%d] line %d: %s %s\n", d->name,
				(int)getpid(), R.step->line, op_names[R.step->op], R.step->fd);
		ret = run_step(R.step);
		if (ret < 0)
			R.status = 1;
		if (ret)
			break;
	}
	R.step = NULL;
	/* Background duties run until the run stops, so the process holds till then too. */
	if (!R.exit_now && !R.status && (R.o->hold || R.nr_duty || R.nr_streams))
		park_until_stopped();
	atomic_store(&R.quit, true);
	for (unsigned int i = 0; i < R.nr_duty; i++) {
		pthread_join(R.duty[i].thread, NULL);
		if (R.duty[i].err) {
			fail("%s on %s: %s", R.duty[i].what, wl_engine_name(R.duty[i].engine),
			     strerror(-R.duty[i].err));
			R.status = 1;
		}
	}
	for (unsigned int i = 0; i < R.nr_streams; i++) {
		pthread_join(R.streams[i].thread, NULL);
		if (R.streams[i].err) {
			fail("%s on %s: %s", R.streams[i].what, wl_engine_name(R.streams[i].engine),
			     strerror(-R.streams[i].err));
			R.status = 1;
		}
	}
	while (R.nr_fds)
		close_fd_at(R.nr_fds - 1);
	wl_proc_park(R.proc, true);
	if (wait_children())
		R.status = 1;
	p->end_ns = wl_now_ns();
	fflush(NULL);
	exit(R.status);
}

_Noreturn void wl_run_process(const struct wl_run_opts *o, int decl, int proc)
{
	R.o = o;
	R.decl = decl;
	R.proc = proc;
	R.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	run_script();
}

int wl_spawn(const struct wl_run_opts *o, int decl, int proc)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		wl_run_process(o, decl, proc);
	if (pid > 0)
		wl->procs[proc].pid = pid;
	return pid;
}
