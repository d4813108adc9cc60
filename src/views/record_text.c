// SPDX-License-Identifier: GPL-2.0-only
/* drmtop record: the session as a text table. */
#include "drmtop/record.h"
#include "drmtop/util/printable.h"
#include "drmtop/util/strbuf.h"

static double busy_pct(uint64_t busy, uint64_t span)
{
	return span ? 100.0 * (double)busy / (double)span : 0.0;
}

/* A client's line is built whole, then written terminal-safe (util/printable.h). */
static void print_client(FILE *out, const struct record_client *c, uint64_t span)
{
	char peak[32], now[32], id[24] = "-";
	char safe[DRMTOP_PRINTABLE_SIZE(STRBUF_LEN)];
	struct strbuf sb;
	size_t j;

	sb_reset(&sb);
	if (c->has_client_id)
		snprintf(id, sizeof(id), "%llu", (unsigned long long)c->client_id);
	sb_printf(&sb, "%8d %-16.16s %-22.22s %10s %-8s %10s %10s ", c->pid,
		  c->comm[0] ? c->comm : "?", c->dev_key, id,
		  c->closed ? "closed" : (c->at_start ? "open" : "new"),
		  drmtop_fmt_bytes(peak, sizeof(peak), c->peak_total_bytes),
		  drmtop_fmt_bytes(now, sizeof(now), c->closed ? 0 : c->last_total_bytes));
	for (j = 0; j < c->nr_engines; j++) {
		uint64_t busy = record_engine_busy(c, &c->engines[j]);
		uint64_t window = record_client_window(c, span);

		if (busy)	/* an idle engine says nothing here; JSON keeps it */
			sb_printf(&sb, " %s %.3f s (%.1f%%)", c->engines[j].name,
				  (double)busy / 1e9, busy_pct(busy, window));
	}
	if (c->has_bpf) {
		sb_printf(&sb, "%s bpf%s:%s", c->nr_engines ? " |" : "",
			  c->bpf_kernel ? " [kernel]" : "", c->nr_rings ? "" : " no jobs");
		for (j = 0; j < c->nr_rings; j++)
			sb_printf(&sb, " %s %.3f s %llu jobs", c->rings[j].name,
				  (double)record_ring_busy(c, &c->rings[j]) / 1e9,
				  (unsigned long long)record_ring_jobs(c, &c->rings[j]));
	}
	fprintf(out, "%s\n", drmtop_printable(safe, sizeof(safe), sb.s));
}

int record_session_print_text(const struct record_session *rs, const struct drmtop_model *last,
			      FILE *out)
{
	char safe[DRMTOP_PRINTABLE_SIZE(STRBUF_LEN)];
	uint64_t span = rs->end_ns - rs->start_ns;
	struct strbuf sb;
	size_t i;

	/* The reason may quote what the system said (an errno text, a path): written safe too. */
	sb_reset(&sb);
	sb_printf(&sb, "drmtop record: %.2f s, %lu samples, %zu client%s, source: %s",
		  (double)span / 1e9, rs->samples, rs->nr_clients, rs->nr_clients == 1 ? "" : "s",
		  last->bpf_active ? "fdinfo + BPF" : "fdinfo only");
	if (!last->bpf_active)
		sb_printf(&sb, " (BPF off: %s)",
			  last->bpf_reason ? last->bpf_reason : "not requested");
	fprintf(out, "%s\n", drmtop_printable(safe, sizeof(safe), sb.s));
	if (rs->bpf_seen)
		fprintf(out, "bpf missed: %llu events during the session (%llu skipped program runs)%s\n",
			(unsigned long long)rs->missed, (unsigned long long)rs->skipped_runs,
			rs->missed ? ": the bpf figures are lower bounds" : "");
	if (last->filtered)
		fprintf(out, "only the clients of the processes given with -p\n");
	if (!rs->nr_clients) {
		fprintf(out, "%s\n", drmtop_status_message(last->status));
		return fflush(out) ? -1 : 0;
	}
	fprintf(out, "%8s %-16s %-22s %10s %-8s %10s %10s  %s\n", "PID", "COMMAND", "DEVICE",
		"CLIENT", "STATE", "PEAK MEM", "END MEM", "ENGINES (busy in session)");
	for (i = 0; i < rs->nr_clients; i++)
		print_client(out, rs->clients[i], span);
	return fflush(out) || ferror(out) ? -1 : 0;
}
