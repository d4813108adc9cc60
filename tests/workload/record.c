// SPDX-License-Identifier: GPL-2.0-only
#include "record.h"
#include "json_out.h"
#include "shared.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static const char *const how_names[] = { "open", "dup", "fork", "scm_rights" };

static void ts(struct json_out *j, const char *key, int64_t v)
{
	if (v)
		json_i64(j, key, v);
	else
		json_null(j, key);
}

static void write_proc(struct json_out *j, const struct wl_record_info *info,
		       const struct wl_proc *p)
{
	json_begin(j, NULL, '{');
	json_i64(j, "pid", p->pid);
	json_i64(j, "ppid", p->ppid);
	if (p->decl >= 0)
		json_str(j, "proc", info->sc->procs[p->decl].name);
	else
		json_null(j, "proc");
	json_u64(j, "instance", (uint64_t)p->instance);
	json_str(j, "comm", p->comm);
	ts(j, "start_ns", p->start_ns);
	ts(j, "end_ns", p->end_ns);
	if (p->decl < 0) {
		json_null(j, "exit_code");
	} else if (!p->reaped || p->exit_status < 0) {
		json_null(j, "exit_code");
	} else if (WIFEXITED(p->exit_status)) {
		json_i64(j, "exit_code", WEXITSTATUS(p->exit_status));
	} else {
		json_null(j, "exit_code");
		json_i64(j, "signal", WTERMSIG(p->exit_status));
	}
	json_end(j, '}');
}

static void write_holders(struct json_out *j, int client)
{
	json_begin(j, "pids", '[');
	for (unsigned int i = 0; i < wl->nr_holders; i++) {
		const struct wl_holder *h = &wl->holders[i];
		bool seen = false;

		if (h->client != client)
			continue;
		for (unsigned int k = 0; k < i; k++)
			seen |= wl->holders[k].client == client &&
				wl->procs[wl->holders[k].proc].pid == wl->procs[h->proc].pid;
		if (!seen)
			json_i64(j, NULL, wl->procs[h->proc].pid);
	}
	json_end(j, ']');
	json_begin(j, "holders", '[');
	for (unsigned int i = 0; i < wl->nr_holders; i++) {
		const struct wl_holder *h = &wl->holders[i];

		if (h->client != client)
			continue;
		json_begin(j, NULL, '{');
		json_i64(j, "pid", wl->procs[h->proc].pid);
		json_str(j, "comm", wl->procs[h->proc].comm);
		json_i64(j, "fd", h->fd);
		json_str(j, "how", how_names[h->how]);
		ts(j, "since_ns", h->since_ns);
		ts(j, "until_ns", h->until_ns);
		json_end(j, '}');
	}
	json_end(j, ']');
}

static void write_memory(struct json_out *j, const struct wl_client *c)
{
	json_begin(j, "memory", '{');
	json_u64(j, "created_count", c->created_count);
	json_u64(j, "created_bytes", c->created_bytes);
	json_u64(j, "freed_count", c->freed_count);
	json_u64(j, "freed_bytes", c->freed_bytes);
	json_u64(j, "imported_count", c->imported_count);
	json_u64(j, "imported_bytes", c->imported_bytes);
	json_u64(j, "exported_count", c->exported_count);
	json_u64(j, "exported_bytes", c->exported_bytes);
	json_u64(j, "held_count", c->held_count);
	json_u64(j, "held_bytes", c->held_bytes);
	json_u64(j, "shared_held_bytes", c->shared_held_bytes);
	json_u64(j, "resident_held_bytes", c->resident_held_bytes);
	json_end(j, '}');
}

static void write_phases(struct json_out *j, int client)
{
	json_begin(j, "phases", '[');
	for (unsigned int i = 0; i < wl->nr_phases; i++) {
		const struct wl_phase *ph = &wl->phases[i];

		if (ph->client != client)
			continue;
		json_begin(j, NULL, '{');
		json_str(j, "kind", ph->stream ? "stream" : "duty");
		json_i64(j, "pid", wl->procs[ph->proc].pid);
		json_str(j, "engine", wl_engine_name(ph->engine));
		json_u64(j, "job_ns", ph->job_ns);
		json_u64(j, "period_ns", ph->period_ns);
		ts(j, "start_ns", ph->start_ns);
		ts(j, "end_ns", ph->end_ns);
		json_u64(j, "jobs", ph->jobs);
		json_u64(j, "busy_ns", ph->busy_ns);
		if (ph->stream) {
			json_u64(j, "underruns", ph->underruns);
			ts(j, "first_underrun_ns", ph->first_underrun_ns);
		}
		json_end(j, '}');
	}
	json_end(j, ']');
}

static void write_client(struct json_out *j, int idx)
{
	const struct wl_client *c = &wl->clients[idx];
	const struct wl_proc *opener = &wl->procs[c->opener];
	uint64_t jobs = 0, busy = 0;

	json_begin(j, NULL, '{');
	json_u64(j, "client_id", c->id);
	json_bool(j, "probe", c->probe);
	json_str(j, "comm", opener->comm);
	json_i64(j, "opener_pid", opener->pid);
	ts(j, "opened_ns", c->opened_ns);
	ts(j, "closed_ns", c->closed_ns);
	write_holders(j, idx);
	json_begin(j, "engines", '{');
	for (int e = 0; e < WL_ENGINES; e++) {
		json_begin(j, wl_engine_name(e), '{');
		json_u64(j, "jobs", c->jobs[e]);
		json_u64(j, "busy_ns", c->busy_ns[e]);
		json_end(j, '}');
		jobs += c->jobs[e];
		busy += c->busy_ns[e];
	}
	json_end(j, '}');
	json_u64(j, "jobs", jobs);
	json_u64(j, "busy_ns", busy);
	ts(j, "first_submit_ns", c->first_submit_ns);
	ts(j, "last_submit_ns", c->last_submit_ns);
	write_memory(j, c);
	write_phases(j, idx);
	json_end(j, '}');
}

static int finish(FILE *f, const char *tmp, const char *path)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "simgpu-workload: writing %s failed\n", tmp);
		remove(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		perror("simgpu-workload: rename");
		return -1;
	}
	return 0;
}

static FILE *open_tmp(const char *path, char *tmp, size_t len)
{
	FILE *f;

	snprintf(tmp, len, "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		fprintf(stderr, "simgpu-workload: cannot write %s\n", tmp);
	return f;
}

int wl_write_record(const char *path, const struct wl_record_info *info)
{
	struct json_out j = { 0 };
	uint64_t busy[WL_ENGINES] = { 0 }, jobs[WL_ENGINES] = { 0 };
	char tmp[4096];
	FILE *f = open_tmp(path, tmp, sizeof(tmp));

	if (!f)
		return -1;
	j.f = f;
	json_begin(&j, NULL, '{');
	json_str(&j, "tool", "simgpu-workload");
	json_u64(&j, "format", 1);
	json_str(&j, "scenario", info->scenario);
	json_str(&j, "device", info->device);
	json_u64(&j, "page_size", info->page_size);
	json_str(&j, "clock", "CLOCK_MONOTONIC");
	json_i64(&j, "realtime_at_start_ns", wl->realtime_start_ns);
	json_i64(&j, "realtime_minus_monotonic_ns", wl->realtime_offset_ns);
	ts(&j, "start_ns", wl->start_ns);
	ts(&j, "ready_ns", wl->ready_ns);
	ts(&j, "stop_ns", wl->stop_ns);
	ts(&j, "end_ns", wl->end_ns);
	json_bool(&j, "ok", !atomic_load(&wl->failed));
	json_begin(&j, "engines", '[');
	for (int e = 0; e < WL_ENGINES; e++)
		json_str(&j, NULL, wl_engine_name(e));
	json_end(&j, ']');
	json_begin(&j, "processes", '[');
	for (unsigned int i = 0; i < wl->nr_procs; i++)
		write_proc(&j, info, &wl->procs[i]);
	json_end(&j, ']');
	json_begin(&j, "clients", '[');
	for (unsigned int i = 0; i < wl->nr_clients; i++) {
		write_client(&j, (int)i);
		for (int e = 0; e < WL_ENGINES; e++) {
			busy[e] += wl->clients[i].busy_ns[e];
			jobs[e] += wl->clients[i].jobs[e];
		}
	}
	json_end(&j, ']');
	json_begin(&j, "totals", '{');
	json_u64(&j, "clients", wl->nr_clients);
	for (int e = 0; e < WL_ENGINES; e++) {
		json_begin(&j, wl_engine_name(e), '{');
		json_u64(&j, "jobs", jobs[e]);
		json_u64(&j, "busy_ns", busy[e]);
		json_end(&j, '}');
	}
	json_end(&j, '}');
	if (info->truth)
		truth_sampler_write(info->truth, &j);
	json_end(&j, '}');
	return finish(f, tmp, path);
}

int wl_write_ready(const char *path, const char *device)
{
	struct json_out j = { 0 };
	char tmp[4096];
	FILE *f = open_tmp(path, tmp, sizeof(tmp));

	if (!f)
		return -1;
	j.f = f;
	wl_lock();
	json_begin(&j, NULL, '{');
	json_i64(&j, "pid", wl->procs[0].pid);
	json_i64(&j, "ready_ns", wl->ready_ns);
	json_str(&j, "device", device);
	json_begin(&j, "open", '[');
	for (unsigned int i = 0; i < wl->nr_holders; i++) {
		const struct wl_holder *h = &wl->holders[i];

		if (h->until_ns)
			continue;
		json_begin(&j, NULL, '{');
		json_u64(&j, "client_id", wl->clients[h->client].id);
		json_i64(&j, "pid", wl->procs[h->proc].pid);
		json_i64(&j, "fd", h->fd);
		json_str(&j, "comm", wl->procs[h->proc].comm);
		json_str(&j, "how", how_names[h->how]);
		json_end(&j, '}');
	}
	json_end(&j, ']');
	json_end(&j, '}');
	wl_unlock();
	return finish(f, tmp, path);
}
