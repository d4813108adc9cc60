// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpfdump: test tool for the BPF tracer's reader API (include/drmtop/bpf_reader.h). Attaches
 * the tracer, snapshots it every interval (so closed clients are drained as drmtop would),
 * and on exit prints one JSON object: hooks, live clients, every client that closed while it
 * ran (entries of one uid merged), the orphans (clients whose close record was lost, merged
 * the same way), devices, counters, each loaded program's recursion misses (runs the kernel
 * skipped) and, with --fds, the task_file iterator's (tgid, fd) -> drm_file records. Kernel
 * addresses are hex strings (jq reads numbers as doubles).
 *
 * Usage: bpfdump [-i MS] [-t SEC] [--ready FILE] [--status FILE] [--stop FILE] [--pause FILE]
 *                [--close-queue N] [--fds] [--drop-queue N] [--drop-run N] [--drop-done N]
 *                [--drop-open N] [--drop-close N] [--drop-release N] [--drop-object N]
 *                [--drop-import-exit N] [--leak]
 *   -i MS       snapshot interval (default 200)
 *   -t SEC      stop after SEC seconds (default: run until --stop FILE exists or SIGINT/TERM)
 *   --ready F   create F once the tracer is opened (the test starts its workload then)
 *   --status F  rewrite F with drmtop_bpf_reason() whenever a poll attached something
 *   --stop F    stop as soon as F exists
 *   --pause F   take no snapshot while F exists (a reader that falls behind: close records
 *               pile up in the drain thread's queue, which may overflow)
 *   --close-queue N
 *               test only: the drain thread's queue holds N close records, not 32,768, so a
 *               paused reader loses records (counted in ringbuf_full) as a stuck one would
 *   --fds       include the task_file iterator's records (taken at stop)
 *   --drop-queue N, --drop-run N, --drop-done N
 *               test only: the scheduler part drops every Nth queue / run / done event as if
 *               the kernel had skipped the program (bpf/drmtop_sched.bpf.c, test_drop; done:
 *               of jobs not the first counted on their execution unit); the JSON then has
 *               "test_dropped": {"queue": n, "run": n, "done": n, "open": n, "close": n,
 *               "release": n, "object": n, "import_exit": n}
 *   --leak      with --drop-done: the job whose done was dropped last is not made up at its
 *               cleanup either (both lost, as in a GPU reset on 7.x): the reader must age it out
 *   --drop-open N, --drop-close N, --drop-release N, --drop-object N
 *               test only: the DRM part skips every Nth run of drmtop_file_alloc / every Nth
 *               drm_gem_release exit of a known client / every Nth handle release in a close /
 *               both end hooks of every Nth GEM object (bpf/drmtop_drm.bpf.c, test_drop_drm)
 *   --drop-import-exit N
 *               test only: skips every Nth run of drmtop_import_exit (the end of a PRIME
 *               import), whose thread's mark then stays set
 * The JSON's "handles_left" and "objects_left" are the entries in the handles and objects maps
 * at stop.
 * Exit status: 0, or 1 when the tracer could not be opened (the JSON then has "error").
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "drmtop/bpf_reader.h"
#include "drmtop/bpf_tracer.h"
#include "drmtop/json_writer.h"
#include "drmtop/util/strmap.h"
#include "drmtop_drm.skel.h"
#include "drmtop_sched.skel.h"
#include "../../src/sources/bpf_internal.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void hex(struct json_writer *w, const char *key, __u64 v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	jw_key(w, key);
	jw_string(w, buf);
}

static void u64(struct json_writer *w, const char *key, __u64 v)
{
	jw_key(w, key);
	jw_u64(w, v);
}

/* Closed clients and orphans accumulated over the run, merged per uid. */
struct merged {
	struct drmtop_bpf_client *c;
	size_t n;
	struct strmap at;	/* uid -> index + 1: case 43 closes 10,000 clients in one run */
};

static struct merged closed, orphans;

/* --drop-queue, --drop-run, --drop-open, --drop-close, --drop-release, --drop-object,
 * --drop-done, --drop-import-exit: to each part's .bss. */
static __u32 drop_every[8];
static bool leak;

static bool any_drop(void)
{
	size_t i;

	for (i = 0; i < sizeof(drop_every) / sizeof(drop_every[0]); i++)
		if (drop_every[i])
			return true;
	return false;
}

static void set_drops(struct drmtop_bpf *b)
{
	if (b->sched && b->sched->bss) {
		b->sched->bss->drmtop_test_drop_every[0] = drop_every[0];
		b->sched->bss->drmtop_test_drop_every[1] = drop_every[1];
		b->sched->bss->drmtop_test_drop_every[2] = drop_every[6];
		b->sched->bss->drmtop_test_leak = leak;
	}
	if (b->drm && b->drm->bss) {
		b->drm->bss->drmtop_test_drm_drop_every[0] = drop_every[2];
		b->drm->bss->drmtop_test_drm_drop_every[1] = drop_every[3];
		b->drm->bss->drmtop_test_drm_drop_every[2] = drop_every[4];
		b->drm->bss->drmtop_test_drm_drop_every[3] = drop_every[5];
		b->drm->bss->drmtop_test_drm_drop_every[4] = drop_every[7];
	}
}

/* Entries in map @map now (taken at stop, when nothing changes it any more). */
static __u64 entries_left(const struct drmtop_bpf *b, enum drmtop_bpf_map map)
{
	struct drmtop_handle_key k, next;	/* the larger key of the two maps asked about */
	int fd = b->map_fd[map];
	__u64 n = 0;

	if (fd < 0 || bpf_map_get_next_key(fd, NULL, &k))
		return 0;
	do {
		n++;
	} while (!bpf_map_get_next_key(fd, &k, &next) && (k = next, 1));
	return n;
}

/* The objects map's entries at stop, the first 16: what a test finds left over is named. */
static void objects_left(struct json_writer *w, const struct drmtop_bpf *b)
{
	int fd = b->map_fd[MAP_OBJECTS], n = 0;
	struct drmtop_object o;
	__u64 k, next;

	jw_key(w, "objects_left_entries");
	jw_array_begin(w);
	for (int more = fd >= 0 && !bpf_map_get_next_key(fd, NULL, &k); more && n < 16;
	     more = !bpf_map_get_next_key(fd, &k, &next), k = next) {
		if (bpf_map_lookup_elem(fd, &k, &o))
			continue;
		jw_object_begin(w);
		hex(w, "obj", k);
		u64(w, "size", o.size);
		u64(w, "uid", o.uid);
		u64(w, "handle_count", o.handle_count);
		u64(w, "flags", o.flags);
		jw_object_end(w);
		n++;
	}
	jw_array_end(w);
}

static int merge_closed(struct merged *m, const struct drmtop_bpf_client *in)
{
	struct drmtop_bpf_client *c, *p;
	char key[STRMAP_U64_KEY];
	size_t i, j, at;

	at = (size_t)(uintptr_t)strmap_get(&m->at, strmap_key_u64(key, in->c.uid));
	if (at) {
		c = &m->c[at - 1];
	} else {
		p = realloc(m->c, (m->n + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		m->c = p;
		if (strmap_put(&m->at, key, (void *)(uintptr_t)(m->n + 1)))
			return -ENOMEM;
		c = &m->c[m->n++];
		memset(c, 0, sizeof(*c));
		c->c = in->c;
	}
	for (i = 0; i < in->n_engines; i++) {
		const struct drmtop_bpf_engine *e = &in->engines[i];
		struct drmtop_bpf_engine *t = NULL, *q;
		unsigned int b;

		for (j = 0; j < c->n_engines; j++)
			if (c->engines[j].ring == e->ring && c->engines[j].ring_seq == e->ring_seq)
				t = &c->engines[j];
		if (!t) {
			q = realloc(c->engines, (c->n_engines + 1) * sizeof(*q));
			if (!q)
				return -ENOMEM;
			c->engines = q;
			t = &c->engines[c->n_engines++];
			*t = *e;
			continue;
		}
		t->busy_ns += e->busy_ns;
		t->jobs += e->jobs;
		t->start_slack_ns += e->start_slack_ns;
		for (b = 0; b < DRMTOP_LAT_BUCKETS; b++)
			t->lat_hist[b] += e->lat_hist[b];
	}
	return 0;
}

static void print_client(struct json_writer *w, const struct drmtop_bpf_client *cl)
{
	const struct drmtop_client *c = &cl->c;
	char dev[32];
	size_t i;
	int b;

	jw_object_begin(w);
	u64(w, "uid", c->uid);
	jw_key(w, "kind");
	jw_string(w, (c->flags & DRMTOP_CLIENT_KERNEL) ? "kernel" : "user");
	hex(w, "file", c->file);
	u64(w, "client_id", c->client_id);
	hex(w, "drm_dev", c->drm_dev);
	hex(w, "parent_dev", c->parent_dev);
	u64(w, "tgid", c->tgid);
	u64(w, "pid", c->pid);
	jw_key(w, "comm");
	jw_string_len(w, c->comm, strnlen(c->comm, sizeof(c->comm)));
	jw_key(w, "driver");
	jw_string_len(w, c->driver, strnlen(c->driver, sizeof(c->driver)));
	jw_key(w, "minor");
	jw_i64(w, c->minor_index);
	snprintf(dev, sizeof(dev), "%u:%u", c->dev_major, c->dev_minor);
	jw_key(w, "dev");
	jw_string(w, dev);
	jw_key(w, "late");
	jw_bool(w, c->flags & DRMTOP_CLIENT_LATE);
	jw_key(w, "closed");
	jw_bool(w, c->flags & DRMTOP_CLIENT_CLOSED);
	jw_key(w, "orphan");
	jw_bool(w, c->flags & DRMTOP_CLIENT_ORPHAN);
	u64(w, "open_ns", c->open_ns);
	u64(w, "close_ns", c->close_ns);
	u64(w, "mem_total", c->mem_total);
	u64(w, "mem_shared", c->mem_shared);
	u64(w, "mem_imported", c->mem_imported);
	u64(w, "handles", c->handles);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < cl->n_engines; i++) {
		const struct drmtop_bpf_engine *e = &cl->engines[i];

		jw_object_begin(w);
		jw_key(w, "name");
		jw_string_len(w, e->name, strnlen(e->name, sizeof(e->name)));
		hex(w, "ring", e->ring);
		u64(w, "ring_seq", e->ring_seq);
		u64(w, "busy_ns", e->busy_ns);
		u64(w, "jobs", e->jobs);
		u64(w, "start_slack_ns", e->start_slack_ns);
		u64(w, "running_ns", e->running_ns);
		jw_key(w, "lat_hist");
		jw_array_begin(w);
		for (b = 0; b < DRMTOP_LAT_BUCKETS; b++)
			jw_u64(w, e->lat_hist[b]);
		jw_array_end(w);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_object_end(w);
}

static void print_all(struct drmtop_bpf *b, const struct drmtop_bpf_snapshot *s, bool fds)
{
	struct drmtop_bpf_prog_stat progs[DRMTOP_BPF_MAX_PROGS];
	const struct drmtop_bpf_hook *hooks;
	struct json_writer w;
	size_t i, n;

	jw_init(&w, stdout);
	jw_object_begin(&w);
	jw_key(&w, "reason");
	jw_string(&w, drmtop_bpf_reason(b));
	jw_key(&w, "hooks");
	jw_array_begin(&w);
	n = drmtop_bpf_hooks(b, &hooks);
	for (i = 0; i < n; i++) {
		jw_object_begin(&w);
		jw_key(&w, "part");
		jw_string(&w, hooks[i].part);
		jw_key(&w, "prog");
		jw_string(&w, hooks[i].prog);
		jw_key(&w, "target");
		jw_string(&w, hooks[i].target);
		jw_key(&w, "attached");
		jw_bool(&w, hooks[i].attached);
		jw_key(&w, "why");
		jw_string(&w, hooks[i].why);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_key(&w, "clients");
	jw_array_begin(&w);
	for (i = 0; i < s->n_clients; i++)
		print_client(&w, &s->clients[i]);
	jw_array_end(&w);
	jw_key(&w, "closed");
	jw_array_begin(&w);
	for (i = 0; i < closed.n; i++)
		print_client(&w, &closed.c[i]);
	jw_array_end(&w);
	jw_key(&w, "orphans");
	jw_array_begin(&w);
	for (i = 0; i < orphans.n; i++)
		print_client(&w, &orphans.c[i]);
	jw_array_end(&w);
	jw_key(&w, "devices");
	jw_array_begin(&w);
	for (i = 0; i < s->n_devices; i++) {
		const struct drmtop_device *d = &s->devices[i].d;

		jw_object_begin(&w);
		hex(&w, "drm_dev", s->devices[i].drm_dev);
		hex(&w, "parent_dev", d->parent_dev);
		jw_key(&w, "driver");
		jw_string_len(&w, d->driver, strnlen(d->driver, sizeof(d->driver)));
		u64(&w, "gem_objects", d->gem_objects);
		u64(&w, "gem_bytes", d->gem_bytes);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_key(&w, "counters");
	jw_object_begin(&w);
	for (i = 0; i < DRMTOP_CNT_MAX; i++)
		u64(&w, drmtop_bpf_counter_name(i), s->counters[i]);
	jw_object_end(&w);
	if (any_drop()) {
		const __u64 *d = b->sched && b->sched->bss ? b->sched->bss->drmtop_test_dropped
							    : NULL;
		const __u64 *dd = b->drm && b->drm->bss ? b->drm->bss->drmtop_test_drm_dropped
							: NULL;

		jw_key(&w, "test_dropped");
		jw_object_begin(&w);
		u64(&w, "queue", d ? d[0] : 0);
		u64(&w, "run", d ? d[1] : 0);
		u64(&w, "done", d ? d[2] : 0);
		u64(&w, "open", dd ? dd[0] : 0);
		u64(&w, "close", dd ? dd[1] : 0);
		u64(&w, "release", dd ? dd[2] : 0);
		u64(&w, "object", dd ? dd[3] : 0);
		u64(&w, "import_exit", dd ? dd[4] : 0);
		jw_object_end(&w);
	}
	/* runs of each loaded program the kernel skipped (recursion_misses): events never seen */
	u64(&w, "handles_left", entries_left(b, MAP_HANDLES));
	u64(&w, "objects_left", entries_left(b, MAP_OBJECTS));
	objects_left(&w, b);
	jw_key(&w, "recursion_misses");
	jw_object_begin(&w);
	n = drmtop_bpf_prog_stats(b, progs, DRMTOP_BPF_MAX_PROGS);
	for (i = 0; i < n; i++)
		u64(&w, progs[i].name, progs[i].recursion_misses);
	jw_object_end(&w);
	if (fds) {
		struct drmtop_fd_rec *r = NULL;
		int err = drmtop_bpf_fds(b, &r, &n);

		jw_key(&w, "fds");
		if (err) {
			jw_string(&w, strerror(-err));
		} else {
			jw_array_begin(&w);
			for (i = 0; i < n; i++) {
				jw_object_begin(&w);
				u64(&w, "tgid", r[i].tgid);
				u64(&w, "fd", r[i].fd);
				hex(&w, "file", r[i].file);
				u64(&w, "client_id", r[i].client_id);
				u64(&w, "major", r[i].rdev_major);
				u64(&w, "minor", r[i].rdev_minor);
				jw_object_end(&w);
			}
			jw_array_end(&w);
		}
		free(r);
	}
	jw_object_end(&w);
	jw_finish_line(&w);
}

/* Writes the tracer's state line to @path (if given) through a rename: never half a file. */
static void write_reason(const char *path, struct drmtop_bpf *b)
{
	char tmp[4096];
	FILE *f;

	if (!path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", drmtop_bpf_reason(b));
	if (!fclose(f))
		rename(tmp, path);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ready", required_argument, NULL, 'r' },
		{ "status", required_argument, NULL, 'S' },
		{ "stop", required_argument, NULL, 's' },
		{ "pause", required_argument, NULL, 'p' },
		{ "close-queue", required_argument, NULL, 'q' },
		{ "fds", no_argument, NULL, 'f' },
		{ "drop-queue", required_argument, NULL, 'Q' },
		{ "drop-run", required_argument, NULL, 'R' },
		{ "drop-open", required_argument, NULL, 'O' },
		{ "drop-close", required_argument, NULL, 'C' },
		{ "drop-release", required_argument, NULL, 'L' },
		{ "drop-object", required_argument, NULL, 'J' },
		{ "drop-done", required_argument, NULL, 'D' },
		{ "drop-import-exit", required_argument, NULL, 'X' },
		{ "leak", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ready = NULL, *stopfile = NULL, *status = NULL, *pause = NULL;
	struct drmtop_bpf_snapshot s;
	struct drmtop_bpf *b;
	double duration = -1, t0;
	long interval_ms = 200;
	size_t close_queue = 0;
	bool fds = false;
	char why[512];
	size_t i;
	int c, err;

	while ((c = getopt_long(argc, argv, "i:t:", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interval_ms = strtol(optarg, NULL, 10);
			if (interval_ms <= 0) {
				fprintf(stderr, "bpfdump: bad interval '%s'\n", optarg);
				return 2;
			}
			break;
		case 't':
			duration = strtod(optarg, NULL);
			break;
		case 'r':
			ready = optarg;
			break;
		case 's':
			stopfile = optarg;
			break;
		case 'S':
			status = optarg;
			break;
		case 'p':
			pause = optarg;
			break;
		case 'q':
			close_queue = strtoul(optarg, NULL, 10);
			break;
		case 'f':
			fds = true;
			break;
		case 'Q':
			drop_every[0] = (__u32)strtoul(optarg, NULL, 10);
			break;
		case 'R':
			drop_every[1] = (__u32)strtoul(optarg, NULL, 10);
			break;
		case 'O':
			drop_every[2] = (__u32)strtoul(optarg, NULL, 10);
			break;
		case 'C':
			drop_every[3] = (__u32)strtoul(optarg, NULL, 10);
			break;
		case 'L':
			drop_every[4] = (__u32)strtoul(optarg, NULL, 10);
			break;
		case 'J':
			drop_every[5] = (__u32)strtoul(optarg, NULL, 10);
			break;
		case 'D':
			drop_every[6] = (__u32)strtoul(optarg, NULL, 10);
			break;
		case 'X':
			drop_every[7] = (__u32)strtoul(optarg, NULL, 10);
			break;
		case 'K':
			leak = true;
			break;
		default:
			fprintf(stderr, "usage: bpfdump [-i MS] [-t SEC] [--ready FILE] "
				"[--status FILE] [--stop FILE] [--pause FILE] [--close-queue N] [--fds] "
				"[--drop-queue N] [--drop-run N] [--drop-done N] [--drop-open N] [--drop-close N] "
				"[--drop-release N] [--drop-object N] [--drop-import-exit N] [--leak]\n");
			return 2;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = drmtop_bpf_open(&b, NULL, NULL, false, why, sizeof(why));
	if (err) {
		printf("{\"error\":\"%s\"}\n", why);
		return 1;
	}
	set_drops(b);
	b->pending_max = close_queue;
	write_reason(ready, b);
	write_reason(status, b);
	t0 = now_s();
	for (;;) {
		bool last = stop || (duration >= 0 && now_s() - t0 >= duration) ||
			    (stopfile && access(stopfile, F_OK) == 0);

		if (!last && pause && access(pause, F_OK) == 0) {
			usleep(interval_ms * 1000);
			continue;
		}
		if (drmtop_bpf_poll(b) > 0) {
			set_drops(b);
			write_reason(status, b);
		}
		err = drmtop_bpf_snapshot(b, &s);
		if (err) {
			if (err != -ENOENT)	/* ENOENT: no part loaded (yet) */
				fprintf(stderr, "bpfdump: snapshot: %s\n", strerror(-err));
			memset(&s, 0, sizeof(s));
		}
		for (i = 0; i < s.n_closed; i++)
			merge_closed(&closed, &s.closed[i]);
		for (i = 0; i < s.n_orphans; i++)
			merge_closed(&orphans, &s.orphans[i]);
		if (last) {
			print_all(b, &s, fds);
			drmtop_bpf_snapshot_free(&s);
			break;
		}
		drmtop_bpf_snapshot_free(&s);
		usleep(interval_ms * 1000);
	}
	drmtop_bpf_close(b);
	return 0;
}
