// SPDX-License-Identifier: GPL-2.0-only
/* drmtop record -J: the session as one JSON object. */
#include "drmtop/json_writer.h"
#include "drmtop/record.h"

static double busy_pct(uint64_t busy, uint64_t span)
{
	return span ? 100.0 * (double)busy / (double)span : 0.0;
}

static void json_record_bpf(struct json_writer *w, const struct record_client *c, uint64_t span)
{
	size_t i;

	jw_object_begin(w);
	jw_kv_u64(w, "uid", c->bpf_uid);
	jw_kv_bool(w, "kernel", c->bpf_kernel);
	jw_kv_u64(w, "tgid", c->bpf_tgid);
	jw_kv_string(w, "comm", c->bpf_comm);
	jw_kv_u64_or_null(w, "client_id", c->bpf_has_client_id, c->bpf_client_id);
	jw_kv_bool(w, "open_at_start", c->bpf_at_start);
	jw_kv_bool(w, "opened_before_trace", c->bpf_late);
	jw_kv_bool(w, "closed", c->bpf_closed);
	jw_kv_bool(w, "orphan", c->bpf_orphan);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (i = 0; i < c->nr_rings; i++) {
		uint64_t busy = record_ring_busy(c, &c->rings[i]);

		jw_object_begin(w);
		jw_kv_string(w, "name", c->rings[i].name);
		jw_kv_u64(w, "busy_ns", busy);
		jw_kv_double(w, "busy_pct", busy_pct(busy, span), 2);
		jw_kv_u64(w, "jobs", record_ring_jobs(c, &c->rings[i]));
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_kv_u64(w, "peak_total_bytes", c->bpf_peak_bytes);
	jw_key(w, c->bpf_closed ? "total_bytes_at_close" : "last_total_bytes");
	jw_u64(w, c->bpf_mem_total);
	jw_kv_u64(w, "imported_bytes", c->bpf_mem_imported);
	jw_object_end(w);
}

static void json_record_client(struct json_writer *w, const struct record_client *c,
			       uint64_t span, bool bpf_active)
{
	size_t j;

	jw_object_begin(w);
	jw_kv_string(w, "key", c->key);
	jw_kv_i64(w, "pid", c->pid);
	jw_kv_string(w, "comm", c->comm);
	if (c->cgroup) {
		jw_key(w, "cgroup");
		jw_object_begin(w);
		jw_kv_string(w, "path", c->cgroup);
		jw_kv_string(w, "workload", c->workload);
		jw_object_end(w);
	}
	jw_kv_string(w, "device", c->dev_key);
	jw_kv_string(w, "driver", c->driver);
	jw_kv_u64_or_null(w, "client_id", c->has_client_id, c->client_id);
	jw_kv_bool(w, "open_at_start", c->at_start);
	jw_kv_bool(w, "closed", c->closed);
	jw_kv_u64(w, "first_seen_ns", c->first_seen_ns);
	jw_kv_u64(w, "last_seen_ns", c->last_seen_ns);
	jw_key(w, "engines");
	jw_array_begin(w);
	for (j = 0; j < c->nr_engines; j++) {
		uint64_t busy = record_engine_busy(c, &c->engines[j]);

		jw_object_begin(w);
		jw_kv_string(w, "name", c->engines[j].name);
		jw_kv_u64(w, "busy_ns", busy);
		jw_kv_double(w, "busy_pct", busy_pct(busy, record_client_window(c, span)), 2);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_kv_u64(w, "peak_total_bytes", c->peak_total_bytes);
	jw_kv_u64(w, "last_total_bytes", c->last_total_bytes);
	jw_kv_bool(w, "seen_by_fdinfo", c->has_fdinfo);
	if (bpf_active || c->has_bpf) {
		jw_key(w, "bpf");
		if (c->has_bpf)
			json_record_bpf(w, c, span);
		else
			jw_null(w);
	}
	jw_object_end(w);
}

int record_session_print_json(const struct record_session *rs, const struct drmtop_model *last,
			      FILE *out)
{
	uint64_t span = rs->end_ns - rs->start_ns;
	struct json_writer w;
	size_t i;

	jw_init(&w, out);
	jw_object_begin(&w);
	jw_key(&w, "record");
	jw_object_begin(&w);
	jw_kv_u64(&w, "duration_ns", span);
	jw_kv_u64(&w, "samples", rs->samples);
	jw_kv_string(&w, "source", last->bpf_active ? "fdinfo+bpf" : "fdinfo");
	jw_kv_bool(&w, "filtered", last->filtered);
	jw_key(&w, "bpf");
	jw_object_begin(&w);
	jw_kv_bool(&w, "active", last->bpf_active);
	if (!last->bpf_active)
		jw_kv_string(&w, "reason", last->bpf_reason);
	if (rs->bpf_seen) {
		/* not 0: every tracer figure below is a lower bound */
		jw_kv_u64(&w, "missed", rs->missed);
		jw_kv_u64(&w, "skipped_runs", rs->skipped_runs);
	}
	jw_object_end(&w);
	jw_kv_string(&w, "status",
		     drmtop_status_name(rs->nr_clients ? DRMTOP_STATUS_OK : last->status));
	jw_object_end(&w);
	jw_key(&w, "clients");
	jw_array_begin(&w);
	for (i = 0; i < rs->nr_clients; i++)
		json_record_client(&w, rs->clients[i], span, last->bpf_active);
	jw_array_end(&w);
	jw_object_end(&w);
	return jw_finish_line(&w);
}
