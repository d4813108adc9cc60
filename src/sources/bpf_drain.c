// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_drain.c: empties the closed-client ring buffer as it fills, not once a refresh. The ring
 * buffer holds about 1,500 close records: with a long refresh interval (-d 60) or a burst of
 * closes, records committed while it was full were lost (ringbuf_full). A thread blocked on the
 * ring buffer's epoll fd moves the records into the reader's queue (b->pending) when the kernel
 * signals them (once in DRMTOP_DRAIN_WAKE_MS at most, bpf/drmtop_account.bpf.h) and on a timeout
 * after that; the next snapshot takes the whole queue. The queue is bounded
 * (DRMTOP_BPF_PENDING_MAX records): a record beyond it is dropped and counted as a ring buffer
 * loss, never silently. One mutex serialises the two consumers of the ring buffer (this thread
 * and drmtop_bpf_snapshot, which drains what came since the thread last woke) and the queue.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf_internal.h"
#include "drmtop/util/vec.h"

/* Ring buffer callback (called with b->drain_lock held): queue a closed client's record. */
int drmtop_bpf_on_closed(void *ctx, void *data, size_t len)
{
	struct drmtop_bpf *b = ctx;
	size_t max = b->pending_max ? b->pending_max : DRMTOP_BPF_PENDING_MAX;
	struct drmtop_client *p;

	if (len < sizeof(struct drmtop_client))
		return 0;
	if (b->n_pending >= max) {
		b->pending_dropped++;
		return 0;
	}
	p = vec_push(b->pending, b->n_pending, b->cap_pending);
	if (!p) {
		b->pending_dropped++;
		return 0;
	}
	memcpy(p, data, sizeof(*p));
	/*
	 * Named now, cached: the opener is gone, and its cgroup may be next (a container's
	 * scope goes when its last process exits), well before the next refresh.
	 */
	drmtop_cgroup_ids_path(b->cgroup_ids, p->cgroup_id, NULL, 0);
	return 0;
}

static void *drain_main(void *arg)
{
	struct drmtop_bpf *b = arg;
	struct pollfd pfd[2] = {
		{ .fd = ring_buffer__epoll_fd(b->rb), .events = POLLIN },
		{ .fd = b->drain_stop_fd, .events = POLLIN },
	};
	int timeout = -1, n;

	for (;;) {
		n = poll(pfd, 2, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pfd[1].revents)
			break;
		if (n > 0 && !(pfd[0].revents & POLLIN))
			continue;
		pthread_mutex_lock(&b->drain_lock);
		n = ring_buffer__consume(b->rb);
		pthread_mutex_unlock(&b->drain_lock);
		/*
		 * A burst's records after the tracer's last wake-up come with none: taken on a
		 * timeout while records come (drmtop_close_wakeup), without one when idle.
		 */
		timeout = n > 0 ? DRMTOP_DRAIN_WAKE_MS : -1;
	}
	return NULL;
}

/*
 * Starts the drain thread for b->rb. Without it (an error) the snapshots still drain the ring
 * buffer, once each, as before. Signals stay with the main thread: the thread blocks them all.
 */
int drmtop_bpf_drain_start(struct drmtop_bpf *b)
{
	sigset_t all, old;
	int err;

	if (b->drain_running || !b->rb)
		return 0;
	b->drain_stop_fd = eventfd(0, EFD_CLOEXEC);
	if (b->drain_stop_fd < 0)
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&b->drain_thread, NULL, drain_main, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(b->drain_stop_fd);
		b->drain_stop_fd = -1;
		return -err;
	}
	b->drain_running = true;
	return 0;
}

void drmtop_bpf_drain_stop(struct drmtop_bpf *b)
{
	__u64 one = 1;

	if (!b->drain_running)
		return;
	/* an eventfd write of 1 fails only on overflow, which one writer cannot reach */
	if (write(b->drain_stop_fd, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(b->drain_thread);
	pthread_join(b->drain_thread, NULL);
	close(b->drain_stop_fd);
	b->drain_stop_fd = -1;
	b->drain_running = false;
}
