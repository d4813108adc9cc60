// SPDX-License-Identifier: GPL-2.0-only
#include "job_threads.h"
#include "shared.h"
#include "simgpu_dev.h"
#include "units.h"

#include <errno.h>
#include <stdlib.h>

void *wl_submit_thread(void *p)
{
	struct job_arg *a = p;
	uint64_t seqno = 0;
	int ret = 0;

	for (unsigned int k = 0; k < a->count && !ret; k++) {
		ret = simgpu_submit(a->fd, a->engine, a->dur_ns, a->handles, a->nr_handles, &seqno);
		if (ret) {
			a->what = "SUBMIT";
			break;
		}
		wl_note_submit(a->client, a->engine, a->dur_ns);
		if (a->wait == WAIT_EACH) {
			ret = simgpu_wait(a->fd, a->engine, seqno, WL_WAIT_TIMEOUT_NS);
			a->what = "WAIT";
		}
	}
	/* Jobs of one client on one engine finish in order: the last one covers them all. */
	if (!ret && a->wait == WAIT_END && a->count) {
		ret = simgpu_wait(a->fd, a->engine, seqno, WL_WAIT_TIMEOUT_NS);
		a->what = "WAIT";
	}
	a->err = ret;
	return NULL;
}

/*
 * One job every period on a fixed cadence, submitted without waiting for the previous one, so
 * a late wake-up of this thread (QEMU TCG under load) delays one job but not the ones after
 * it. The phase ends when its last job finished. The achieved rate is busy_ns over the phase;
 * within a short window it wobbles with this thread's stalls (a stream does not).
 */
void *wl_duty_thread(void *p)
{
	struct job_arg *a = p;
	struct wl_phase *ph = &wl->phases[a->phase];
	int64_t start = wl_now_ns(), next = start;
	uint64_t seqno = 0;
	int ret = 0;

	ph->start_ns = start;
	while (!wl_stopping() && !atomic_load(a->quit)) {
		if (!a->until_stop && next >= start + (int64_t)a->for_ns)
			break;
		ret = simgpu_submit(a->fd, a->engine, a->dur_ns, NULL, 0, &seqno);
		if (ret) {
			a->what = "SUBMIT";
			break;
		}
		wl_note_submit(a->client, a->engine, a->dur_ns);
		ph->jobs++;
		ph->busy_ns += a->dur_ns;
		next += (int64_t)a->period_ns;
		if (wl_sleep_until(next))
			break;
	}
	if (!ret && seqno) {
		ret = simgpu_wait(a->fd, a->engine, seqno, WL_WAIT_TIMEOUT_NS);
		a->what = "WAIT";
	}
	ph->end_ns = wl_now_ns();
	a->err = ret;
	return NULL;
}

#define STREAM_RING 65536
#define STREAM_POLL_NS (50LL * 1000000)

/* Waits for a job in short slices so that a stop request is noticed. 1: stopped. */
static int wait_or_stop(int fd, int engine, uint64_t seqno, const atomic_bool *quit, int *err)
{
	int64_t deadline = wl_now_ns() + WL_WAIT_TIMEOUT_NS;

	for (;;) {
		int ret = simgpu_wait(fd, engine, seqno, STREAM_POLL_NS);

		if (ret != -ETIME) {
			*err = ret;
			return 0;
		}
		if (wl_stopping() || atomic_load(quit))
			return 1;
		if (wl_now_ns() > deadline) {
			*err = ret;
			return 0;
		}
	}
}

/*
 * Keeps an engine backlogged with jobs of several clients in a fixed rotation (a1 b1 a2 b2 ..),
 * between half and all of backlog_ns of queued work. drm_sched runs them in submission order
 * (FIFO on 6.12, round robin over the entities on 6.1), so while the engine never runs dry each
 * client's busy share is its job duration over the rotation's, in any window longer than a few
 * jobs: a figure that stalls of this process (QEMU TCG under load) cannot move. A drained
 * backlog is counted as an underrun, which a test must treat as "truth unknown".
 */
void *wl_stream_thread(void *p)
{
	struct stream_arg *a = p;
	uint64_t cycle_ns = 0, high, low, cyc = 0, done = 0, last_seq = 0, seqno = 0;
	uint64_t *ring = malloc(STREAM_RING * sizeof(*ring));
	int64_t start = wl_now_ns();
	int ret = 0;

	if (!ring) {
		a->err = -ENOMEM;
		a->what = "stream setup";
		return NULL;
	}
	for (unsigned int i = 0; i < a->n; i++) {
		cycle_ns += a->ns[i];
		wl->phases[a->phase[i]].start_ns = start;
	}
	high = (a->backlog_ns + cycle_ns - 1) / cycle_ns;
	if (high < 2)
		high = 2;
	if (high > STREAM_RING / 2)
		high = STREAM_RING / 2;
	low = high / 2;
	while (!ret && !wl_stopping() && !atomic_load(a->quit)) {
		if (!a->until_stop && wl_now_ns() >= start + (int64_t)a->for_ns)
			break;
		for (; cyc - done < high && !ret; cyc++) {
			for (unsigned int i = 0; i < a->n && !ret; i++) {
				struct wl_phase *ph = &wl->phases[a->phase[i]];

				ret = simgpu_submit(a->fd[i], a->engine, a->ns[i], NULL, 0, &seqno);
				if (ret) {
					a->what = "SUBMIT";
					break;
				}
				wl_note_submit(a->client[i], a->engine, a->ns[i]);
				ph->jobs++;
				ph->busy_ns += a->ns[i];
				if (i == 0)
					ring[cyc % STREAM_RING] = seqno;
			}
			last_seq = seqno;
		}
		if (ret)
			break;
		/* Sleep until only `low` rotations are left queued. */
		if (wait_or_stop(a->fd[0], a->engine, ring[(cyc - low - 1) % STREAM_RING], a->quit,
				 &ret))
			break;
		if (ret) {
			a->what = "WAIT";
			break;
		}
		done = cyc - low;
		if (!simgpu_wait(a->fd[a->n - 1], a->engine, last_seq, 0)) {
			struct wl_phase *ph0 = &wl->phases[a->phase[0]];

			for (unsigned int i = 0; i < a->n; i++)
				wl->phases[a->phase[i]].underruns++;
			if (!ph0->first_underrun_ns)
				for (unsigned int i = 0; i < a->n; i++)
					wl->phases[a->phase[i]].first_underrun_ns = wl_now_ns();
		}
	}
	/* The phase ends when the engine ran the last queued job. */
	if (!ret && last_seq) {
		ret = simgpu_wait(a->fd[a->n - 1], a->engine, last_seq, WL_WAIT_TIMEOUT_NS);
		a->what = "WAIT";
	}
	for (unsigned int i = 0; i < a->n; i++)
		wl->phases[a->phase[i]].end_ns = wl_now_ns();
	free(ring);
	a->err = ret;
	return NULL;
}
