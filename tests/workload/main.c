// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu-workload: drives the simulated GPU (tests/kmod/simgpu) with the processes, clients,
 * buffers and jobs a scenario describes, and writes exactly what it did as JSON so tests can
 * compare drmtop and simgpu's own ground truth against it. See README.md.
 */
#include "builtin_scenarios.h"
#include "mailbox.h"
#include "record.h"
#include "runner.h"
#include "scenario.h"
#include "shared.h"
#include "simgpu_dev.h"
#include "truth_sampler.h"
#include "units.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TICK_NS (5LL * 1000000)

struct options {
	const char *scenario_name;
	const char *file;
	const char *script;
	const char *record;
	const char *ready;
	const char *device;
	bool hold;
	uint64_t hold_ns;	/* 0: until a signal */
	uint64_t duration_ns;	/* 0: no limit */
	bool check_only;
	bool verbose;
	uint64_t truth_period_ns;	/* 0: no sampling of simgpu's ground truth */
};

static struct truth_sampler truth;

struct launch {
	int decl;
	unsigned int instance;
	int64_t at;
};

static struct launch *pending;
static unsigned int nr_pending, cap_pending;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: simgpu-workload [options] SCENARIO\n"
		"       simgpu-workload [options] -f FILE | -s TEXT\n"
		"Drives the simgpu render node as SCENARIO says and records exactly what it did.\n"
		"\n"
		"  SCENARIO              a built-in scenario (see --list)\n"
		"  -f, --file FILE       read the scenario from FILE ('-': stdin)\n"
		"  -s, --script TEXT     the scenario itself; ';' ends a line as a newline does\n"
		"  -o, --record FILE     write the JSON record of the run to FILE\n"
		"  -r, --ready FILE      once every process holds its clients or runs until stopped,\n"
		"                        write FILE: JSON with the open clients' pid, fd, client id\n"
		"  -H, --hold[=DUR]      keep every client open after its script (not after 'exit')\n"
		"                        until SIGTERM/SIGINT, or until DUR after the ready point\n"
		"  -t, --duration DUR    stop the whole run DUR after it started\n"
		"  -D, --device PATH     use PATH instead of the render node whose driver is simgpu\n"
		"  -S, --sample-truth DUR  every DUR, read simgpu's per-client engine time from\n"
		"                        " SIMGPU_DEBUGFS_CLIENTS " into the record\n"
		"  -l, --list            list the built-in scenarios\n"
		"  -p, --print NAME      print a built-in scenario's text\n"
		"  -n, --check           parse the scenario and exit\n"
		"  -v, --verbose         log every step on stderr\n"
		"  -h, --help            this text\n"
		"DUR is a number with a unit: ns, us, ms, s, m. Exit status: 0 if every step of every\n"
		"process succeeded, 1 if one failed, 2 for bad usage or a bad scenario.\n");
}

static char *read_all(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	size_t len = 0, cap = 4096;
	char *buf;

	if (!f) {
		fprintf(stderr, "simgpu-workload: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0)
			break;
		if (len + 1 == cap) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nbuf;
			cap *= 2;
		}
	}
	if (buf && ferror(f)) {
		fprintf(stderr, "simgpu-workload: reading %s failed\n", path);
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[len] = '\0';
	if (f != stdin)
		fclose(f);
	return buf;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "script", required_argument, NULL, 's' },
		{ "record", required_argument, NULL, 'o' },
		{ "ready", required_argument, NULL, 'r' },
		{ "hold", optional_argument, NULL, 'H' },
		{ "duration", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'D' },
		{ "sample-truth", required_argument, NULL, 'S' },
		{ "list", no_argument, NULL, 'l' },
		{ "print", required_argument, NULL, 'p' },
		{ "check", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct wl_builtin *b;
	int c;

	while ((c = getopt_long(argc, argv, "f:s:o:r:H::t:D:S:lp:nvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->file = optarg;
			break;
		case 's':
			o->script = optarg;
			break;
		case 'o':
			o->record = optarg;
			break;
		case 'r':
			o->ready = optarg;
			break;
		case 'H':
			o->hold = true;
			if (optarg && (!wl_parse_duration(optarg, &o->hold_ns) || !o->hold_ns)) {
				fprintf(stderr, "simgpu-workload: bad --hold duration '%s'\n", optarg);
				return 2;
			}
			break;
		case 't':
			if (!wl_parse_duration(optarg, &o->duration_ns) || !o->duration_ns) {
				fprintf(stderr, "simgpu-workload: bad --duration '%s'\n", optarg);
				return 2;
			}
			break;
		case 'D':
			o->device = optarg;
			break;
		case 'S':
			if (!wl_parse_duration(optarg, &o->truth_period_ns) ||
			    !o->truth_period_ns) {
				fprintf(stderr, "simgpu-workload: bad --sample-truth period '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'l':
			for (b = wl_builtins; b->name; b++)
				printf("%-12s %s\n", b->name, b->summary);
			return 0;
		case 'p':
			b = wl_builtin_find(optarg);
			if (!b) {
				fprintf(stderr, "simgpu-workload: no built-in scenario '%s'\n", optarg);
				return 2;
			}
			fputs(b->text, stdout);
			return 0;
		case 'n':
			o->check_only = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		o->scenario_name = argv[optind++];
	if (optind < argc || !!o->scenario_name + !!o->file + !!o->script != 1) {
		fprintf(stderr, "simgpu-workload: give exactly one of SCENARIO, -f FILE, -s TEXT\n");
		usage(stderr);
		return 2;
	}
	return -1;
}

static int load_scenario(const struct options *o, struct wl_scenario *sc)
{
	const char *origin, *text;
	char *owned = NULL;
	int ret;

	if (o->scenario_name) {
		const struct wl_builtin *b = wl_builtin_find(o->scenario_name);

		if (!b) {
			fprintf(stderr, "simgpu-workload: no built-in scenario '%s' (see --list)\n",
				o->scenario_name);
			return -1;
		}
		origin = b->name;
		text = b->text;
	} else if (o->file) {
		owned = read_all(o->file);
		if (!owned)
			return -1;
		origin = o->file;
		text = owned;
	} else {
		origin = "--script";
		text = o->script;
	}
	ret = wl_scenario_parse(text, origin, sc);
	if (!ret)
		snprintf(sc->name, sizeof(sc->name), "%s", origin);
	free(owned);
	return ret;
}

static void on_signal(int sig)
{
	(void)sig;
	wl_request_stop();
}

static void setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int schedule(int decl, unsigned int instance, int64_t at)
{
	if (nr_pending == cap_pending) {
		unsigned int cap = cap_pending ? cap_pending * 2 : 64;
		struct launch *p = realloc(pending, cap * sizeof(*p));

		if (!p)
			return -1;
		pending = p;
		cap_pending = cap;
	}
	pending[nr_pending++] = (struct launch){ decl, instance, at };
	return 0;
}

static int launch(const struct wl_run_opts *ro, const struct launch *l)
{
	const struct wl_proc_decl *d = &ro->sc->procs[l->decl];
	int slot;

	wl_lock();
	slot = wl_proc_new(l->decl, (int)l->instance, 0, d->name);
	wl_unlock();
	if (slot < 0)
		return -1;
	if (!d->transient)
		wl_proc_count_live(slot);
	if (wl_spawn(ro, l->decl, slot) < 0) {
		perror("simgpu-workload: fork");
		wl_proc_reaped(slot, -1);
		return -1;
	}
	return 0;
}

static void reap(const struct wl_run_opts *ro, pid_t pid, int status, unsigned int *instances)
{
	for (unsigned int i = 1; i < wl->nr_procs; i++) {
		struct wl_proc *p = &wl->procs[i];
		const struct wl_proc_decl *d;

		if (p->pid != pid || p->parent != 0 || p->reaped)
			continue;
		wl_proc_reaped((int)i, status);
		d = &ro->sc->procs[p->decl];
		if (status) {
			/* A failing step reported itself; a signal nobody asked for did not. */
			if (WIFSIGNALED(status))
				fprintf(stderr, "simgpu-workload: %s[%d] killed by signal %d\n",
					p->comm, (int)pid, WTERMSIG(status));
			atomic_store(&wl->failed, 1);
			wl_request_stop();
		} else if (d->respawn && !wl_stopping()) {
			int64_t at = wl_now_ns() + (int64_t)d->respawn_ns;

			schedule(p->decl, instances[p->decl]++, at);
		}
		return;
	}
}

static bool any_child_left(void)
{
	for (unsigned int i = 1; i < wl->nr_procs; i++)
		if (wl->procs[i].parent == 0 && !wl->procs[i].reaped)
			return true;
	return false;
}

/* Launches, reaps and watches deadlines until every process is gone. */
static void supervise(const struct options *o, const struct wl_run_opts *ro,
		      unsigned int *instances)
{
	int64_t hold_deadline = 0;
	bool ready = false;

	for (;;) {
		int64_t now = wl_now_ns(), next = now + TICK_NS;
		bool waiting_first_launches = false;
		int status;
		pid_t pid;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			reap(ro, pid, status, instances);
		if (o->duration_ns && now >= wl->start_ns + (int64_t)o->duration_ns)
			wl_request_stop();
		if (hold_deadline && now >= hold_deadline)
			wl_request_stop();
		for (unsigned int i = 0; i < nr_pending && !wl_stopping();) {
			const struct wl_proc_decl *d = &ro->sc->procs[pending[i].decl];

			if (pending[i].at > now) {
				waiting_first_launches |= !d->respawn || !pending[i].instance;
				if (pending[i].at < next)
					next = pending[i].at;
				i++;
				continue;
			}
			if (launch(ro, &pending[i])) {
				fprintf(stderr, "simgpu-workload: cannot start %s\n", d->name);
				atomic_store(&wl->failed, 1);
				wl_request_stop();
			}
			pending[i] = pending[--nr_pending];
		}
		if (wl_stopping())
			nr_pending = 0;
		if (!ready && !waiting_first_launches && !wl_stopping() &&
		    atomic_load(&wl->live) == atomic_load(&wl->parked)) {
			ready = true;
			wl->ready_ns = now;
			if (o->hold_ns)
				hold_deadline = now + (int64_t)o->hold_ns;
			if (o->ready && wl_write_ready(o->ready, ro->device)) {
				atomic_store(&wl->failed, 1);
				wl_request_stop();
			}
			fprintf(stderr, "simgpu-workload: ready\n");
		}
		if (!nr_pending && !any_child_left())
			break;
		if (wl_stopping()) {
			pid = waitpid(-1, &status, 0);
			if (pid > 0)
				reap(ro, pid, status, instances);
			else if (errno == ECHILD)
				break;
			continue;
		}
		if (o->duration_ns && wl->start_ns + (int64_t)o->duration_ns < next)
			next = wl->start_ns + (int64_t)o->duration_ns;
		if (hold_deadline && hold_deadline < next)
			next = hold_deadline;
		now = truth_sampler_tick(&truth, wl_now_ns());
		if (now < next)
			next = now;
		wl_sleep_until(next);
	}
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct wl_scenario sc;
	struct wl_run_opts ro = { .sc = &sc };
	char device[256];
	uint64_t probe_id = 0;
	unsigned int *instances;
	int ret, main_slot;

	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (load_scenario(&o, &sc))
		return 2;
	if (o.check_only) {
		printf("%s: %u process declarations, OK\n", sc.name, sc.nr_procs);
		wl_scenario_free(&sc);
		return 0;
	}
	if (wl_shared_init())
		return 1;
	wl->start_ns = wl_now_ns();
	wl->realtime_start_ns = wl_realtime_ns();
	/* Observers such as drmtop stamp frames with CLOCK_REALTIME: a tight pair maps them. */
	wl->realtime_offset_ns = wl->realtime_start_ns - (wl->start_ns + wl_now_ns()) / 2;
	main_slot = wl_proc_new(-1, 0, -1, "simgpu-workload");
	wl->procs[main_slot].pid = getpid();
	wl->procs[main_slot].ppid = getppid();
	wl->procs[main_slot].start_ns = wl->start_ns;
	if (o.device) {
		snprintf(device, sizeof(device), "%s", o.device);
	} else {
		if (simgpu_find_node(device, sizeof(device), &probe_id))
			return 1;
		/* The probe opened simgpu once: a client of this run like any other. */
		ret = wl_client_new(probe_id, main_slot, true);
		wl->clients[ret].closed_ns = wl->clients[ret].opened_ns;
	}
	instances = calloc(sc.nr_procs, sizeof(*instances));
	if (!instances || mb_init(sc.nr_procs))
		return 1;
	ro.device = device;
	ro.hold = o.hold;
	ro.verbose = o.verbose;
	if (o.truth_period_ns &&
	    truth_sampler_init(&truth, SIMGPU_DEBUGFS_CLIENTS, o.truth_period_ns))
		return 1;
	setup_signals();
	for (unsigned int i = 0; i < sc.nr_procs; i++) {
		const struct wl_proc_decl *d = &sc.procs[i];

		if (d->child)
			continue;
		for (; instances[i] < d->count; instances[i]++) {
			uint64_t offset = d->start_ns + instances[i] * d->every_ns;

			if (schedule((int)i, instances[i], wl->start_ns + (int64_t)offset))
				return 1;
		}
	}
	supervise(&o, &ro, instances);
	wl->end_ns = wl_now_ns();
	wl->procs[main_slot].end_ns = wl->end_ns;
	if (o.record) {
		struct wl_record_info info = {
			.scenario = sc.name,
			.device = device,
			.page_size = (unsigned int)sysconf(_SC_PAGESIZE),
			.sc = &sc,
			.truth = o.truth_period_ns ? &truth : NULL,
		};

		if (wl_write_record(o.record, &info))
			atomic_store(&wl->failed, 1);
	}
	ret = atomic_load(&wl->failed) ? 1 : 0;
	fprintf(stderr, "simgpu-workload: %s: %u processes, %u clients, %s\n", sc.name,
		wl->nr_procs - 1, wl->nr_clients, ret ? "FAILED" : "ok");
	wl_scenario_free(&sc);
	free(instances);
	free(pending);
	truth_sampler_free(&truth);
	return ret;
}
