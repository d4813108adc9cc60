// SPDX-License-Identifier: GPL-2.0-only
/* A worker thread for reads that may block for ever; see include/drmtop/guarded_read.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drmtop/guarded_read.h"
#include "drmtop/proc_read.h"

enum state { IDLE, ASKED, DONE, QUIT };

struct guarded_read {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	unsigned int timeout_ms;
	enum state state;
	bool abandoned;		/* the caller gave up on the read in progress */
	bool orphaned;		/* freed by the caller while the worker was blocked */
	char *path;
	char *result;
	int err;
};

static void destroy(struct guarded_read *g)
{
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	free(g->path);
	free(g->result);
	free(g);
}

static void *worker(void *arg)
{
	struct guarded_read *g = arg;

	pthread_mutex_lock(&g->lock);
	for (;;) {
		char *path, *result = NULL;
		int err;

		while (g->state != ASKED && g->state != QUIT)
			pthread_cond_wait(&g->cond, &g->lock);
		if (g->state == QUIT)
			break;
		path = g->path;
		g->path = NULL;
		pthread_mutex_unlock(&g->lock);
		err = drm_read_cmdline(path, &result);	/* where it may block */
		free(path);
		pthread_mutex_lock(&g->lock);
		if (g->orphaned) {
			free(result);
			break;
		}
		if (g->abandoned) {
			free(result);
			g->abandoned = false;
			g->state = IDLE;
			continue;
		}
		g->result = result;
		g->err = err;
		g->state = DONE;
		pthread_cond_broadcast(&g->cond);
	}
	pthread_mutex_unlock(&g->lock);
	if (g->orphaned)
		destroy(g);
	return NULL;
}

struct guarded_read *guarded_read_new(unsigned int timeout_ms)
{
	struct guarded_read *g = calloc(1, sizeof(*g));
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (!g)
		return NULL;
	g->timeout_ms = timeout_ms;
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
	/*
	 * The worker takes no signal: the stop signals must reach the sampling thread, whose
	 * sleeps they end (a handler run on the worker would leave it sleeping on).
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&g->thread, NULL, worker, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		destroy(g);
		return NULL;
	}
	return g;
}

int guarded_read_cmdline(struct guarded_read *g, const char *path, char **cmdline)
{
	struct timespec end;
	int err = 0;

	*cmdline = NULL;
	pthread_mutex_lock(&g->lock);
	if (g->state != IDLE) {
		pthread_mutex_unlock(&g->lock);
		return -EBUSY;
	}
	g->path = strdup(path);
	if (!g->path) {
		pthread_mutex_unlock(&g->lock);
		return -ENOMEM;
	}
	g->state = ASKED;
	pthread_cond_broadcast(&g->cond);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += g->timeout_ms / 1000;
	end.tv_nsec += (long)(g->timeout_ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	while (g->state != DONE && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&g->cond, &g->lock, &end);
	if (g->state == DONE) {
		*cmdline = g->result;
		err = g->err;
		g->result = NULL;
		g->state = IDLE;
	} else {
		g->abandoned = true;	/* state stays ASKED until the worker returns */
		err = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&g->lock);
	return err;
}

void guarded_read_free(struct guarded_read *g)
{
	bool blocked;

	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	blocked = g->state == ASKED;
	if (blocked)
		g->orphaned = true;
	else
		g->state = QUIT;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	if (blocked) {
		pthread_detach(g->thread);
		return;
	}
	pthread_join(g->thread, NULL);
	destroy(g);
}
