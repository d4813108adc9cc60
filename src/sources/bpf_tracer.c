// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_tracer.c: opens, probes, loads and attaches the two parts of the BPF tracer (see
 * include/drmtop/bpf_tracer.h). Kernel facts relied on: module BTF is in /sys/kernel/btf/<mod>
 * (drm, gpu_sched) and carries the hooked functions and the btf_trace_<tp> typedefs of its
 * tracepoints (Debian 6.1.0-56, 6.12.117+deb12; 6.17+ per its source); when DRM is built in,
 * vmlinux BTF carries them instead. libbpf >= 1.1 finds fentry/tp_btf targets in module BTF.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf_internal.h"
#include "drmtop_drm.skel.h"
#include "drmtop_sched.skel.h"

int drmtop_bpf_on_closed(void *ctx, void *data, size_t len);	/* src/bpf_reader.c */

const char *const drmtop_bpf_map_names[MAP_COUNT] = {
	[MAP_CLIENTS] = "clients",	[MAP_CLIENT_SLOTS] = "client_slots",
	[MAP_CLIENT_IDS] = "client_ids",
	[MAP_IOCTL_FILES] = "ioctl_files", [MAP_ENGINES] = "engines",
	[MAP_RINGS] = "rings",		[MAP_JOBS] = "jobs",
	[MAP_HANDLES] = "handles",	[MAP_OBJECTS] = "objects",
	[MAP_DEVICES] = "devices",	[MAP_IMPORTING] = "importing",
	[MAP_OPENING] = "opening",	[MAP_ENTITIES] = "entities",
	[MAP_COUNTERS] = "counters",	[MAP_CLOSED] = "closed",
	[MAP_UID_SEQ] = "uid_seq",	[MAP_TIMELINES] = "timelines",
	[MAP_PARKED] = "parked",
};

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* libbpf prints its own diagnostics; keep them for DRMTOP_BPF_DEBUG=1 only. */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int debug = -1;

	(void)level;
	if (debug < 0)
		debug = getenv("DRMTOP_BPF_DEBUG") != NULL;
	return debug ? vfprintf(stderr, fmt, ap) : 0;
}

/*
 * Kernel BTF, parsed when a poll needs it and freed at the poll's end (drmtop_bpf_poll): kept,
 * it held 5.5 MB of heap for a whole run, for modules that may never come.
 */
static struct btf *vmlinux(struct drmtop_bpf *b)
{
	if (!b->vmlinux_btf)
		b->vmlinux_btf = btf__load_vmlinux_btf();
	return b->vmlinux_btf;
}

/*
 * The BTF holding @module's types: /sys/kernel/btf/<module> when it is loaded as a module,
 * else vmlinux when it is built in (@probe, a function of the module, is in vmlinux BTF).
 * Returns NULL with errno ENOENT when the module is not loaded. *@not_builtin remembers that
 * it is not built in, so that later polls only look for the module's file.
 */
static struct btf *module_btf(struct drmtop_bpf *b, const char *module, const char *probe,
			      bool *not_builtin, bool *builtin)
{
	struct btf *base, *btf;
	char path[128];

	*builtin = false;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
	if (access(path, R_OK) && *not_builtin) {
		errno = ENOENT;
		return NULL;
	}
	base = vmlinux(b);
	if (!base)
		return NULL;
	if (access(path, R_OK)) {
		*builtin = btf__find_by_name_kind(base, probe, BTF_KIND_FUNC) > 0;
		if (*builtin)
			return base;
		*not_builtin = true;
		errno = ENOENT;
		return NULL;
	}
	btf = btf__load_module_btf(module, base);
	if (!btf && !errno)
		errno = EINVAL;
	return btf;
}

/* Whether the kernel has what a program of section @sec needs, per @btf; why not in @why. */
static bool target_present(const struct btf *btf, const char *sec, char *why, size_t len)
{
	const char *slash = strchr(sec, '/');
	const char *name = slash ? slash + 1 : sec;
	char tname[96];

	if (!strncmp(sec, "iter/", 5))
		return true;
	if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6)) {
		if (btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0)
			return true;
		say(why, len, "no BTF for function %s", name);
		return false;
	}
	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	if (btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF) > 0)
		return true;
	say(why, len, "no tracepoint %s (no %s in BTF)", name, tname);
	return false;
}

/* Whether @btf's struct drm_sched_fence has drm_client_id (6.17+; checked on 7.2.13). */
static bool fence_has_client_id(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "drm_sched_fence", BTF_KIND_STRUCT);
	const struct btf_member *m;
	const struct btf_type *t;
	__u16 i;

	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "drm_client_id"))
			return true;
	return false;
}

/*
 * Where every job carries its client's id, the hooks that learn who queued a job on older
 * kernels (the per-ioctl hook, entity ownership and the opening thread it needs) are not
 * needed: not loaded, so no DRM ioctl or open pays for them. Known once gpu_sched's BTF can
 * be read; until then they are loaded.
 */
static const char *const attribution_progs[] = {
	"drmtop_ioctl_enter", "drmtop_entity_init", "drmtop_entity_fini",
	"drmtop_entity_destroy", "drmtop_file_alloc_enter",
};

static bool attribution_hook(const struct bpf_program *p)
{
	size_t i;

	for (i = 0; i < sizeof(attribution_progs) / sizeof(attribution_progs[0]); i++)
		if (!strcmp(bpf_program__name(p), attribution_progs[i]))
			return true;
	return false;
}

static void learn_job_client_ids(struct drmtop_bpf *b, const struct btf *sched_btf)
{
	struct btf *own = NULL;
	bool builtin = false;

	if (b->jobs_have_client_id)
		return;
	if (!sched_btf) {
		own = module_btf(b, "gpu_sched", "drm_sched_job_cleanup", &b->sched_not_builtin,
				 &builtin);
		sched_btf = own;
	}
	if (sched_btf)
		b->jobs_have_client_id = fence_has_client_id(sched_btf);
	if (own && !builtin)
		btf__free(own);
}

/* Detaches and forgets the hooks of @part, only program @prog of it if not NULL. */
static void forget_hooks(struct drmtop_bpf *b, const char *part, const char *prog)
{
	size_t i, j = 0;

	for (i = 0; i < b->n_hooks; i++) {
		if (!strcmp(b->hooks[i].part, part) && (!prog || !strcmp(b->hooks[i].prog, prog))) {
			bpf_link__destroy(b->links[i]);
			continue;
		}
		b->hooks[j] = b->hooks[i];
		b->links[j] = b->links[i];
		j++;
	}
	b->n_hooks = j;
}

static struct drmtop_bpf_hook *add_hook(struct drmtop_bpf *b, const char *part,
					 const struct bpf_program *p)
{
	struct drmtop_bpf_hook *h;

	if (b->n_hooks >= DRMTOP_BPF_MAX_HOOKS)
		return NULL;
	h = &b->hooks[b->n_hooks];
	memset(h, 0, sizeof(*h));
	b->links[b->n_hooks] = NULL;
	b->n_hooks++;
	snprintf(h->part, sizeof(h->part), "%s", part);
	snprintf(h->prog, sizeof(h->prog), "%s", bpf_program__name(p));
	snprintf(h->target, sizeof(h->target), "%s", bpf_program__section_name(p));
	return h;
}

/* Hands the maps of the part loaded first to @obj (before load), so both parts share them. */
static int reuse_maps(struct drmtop_bpf *b, struct bpf_object *obj)
{
	int i, err;

	for (i = 0; i < MAP_COUNT; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, drmtop_bpf_map_names[i]);

		if (!m || b->map_fd[i] < 0)
			return -ENOENT;
		err = bpf_map__reuse_fd(m, b->map_fd[i]);
		if (err)
			return err;
	}
	return 0;
}

/* The part loaded first creates the shared maps: with the sizes asked for (--bpf-map). */
static int size_maps(struct drmtop_bpf *b, struct bpf_object *obj)
{
	const struct drmtop_bpf_map_size *s;
	int err;

	for (s = drmtop_bpf_map_sizes; s->map; s++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, s->map);

		if (!m)
			return -ENOENT;
		err = bpf_map__set_max_entries(m, drmtop_bpf_limit(&b->limits, s->limit));
		if (err)
			return err;
	}
	return 0;
}

/* Shares the maps of the part loaded first with @obj, or sizes them if @obj is first. */
static int prepare_maps(struct drmtop_bpf *b, struct bpf_object *obj)
{
	return b->map_fd[0] >= 0 ? reuse_maps(b, obj) : size_maps(b, obj);
}

/* After the first part loaded: keep our own reference to every shared map. */
static int adopt_maps(struct drmtop_bpf *b, struct bpf_object *obj)
{
	int i;

	if (b->map_fd[0] >= 0)
		return 0;
	for (i = 0; i < MAP_COUNT; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, drmtop_bpf_map_names[i]);
		int fd = m ? dup(bpf_map__fd(m)) : -1;

		if (fd < 0)
			return -errno ? -errno : -ENOENT;
		b->map_fd[i] = fd;
	}
	b->parked_bytes = sizeof(struct drmtop_parked) * DRMTOP_PARKED_SLOTS;
	b->parked = mmap(NULL, b->parked_bytes, PROT_READ, MAP_SHARED, b->map_fd[MAP_PARKED], 0);
	if (b->parked == MAP_FAILED) {
		b->parked = NULL;
		return -errno;
	}
	b->rb = ring_buffer__new(b->map_fd[MAP_CLOSED], drmtop_bpf_on_closed, b, NULL);
	if (!b->rb)
		return -errno;
	/* without the thread, each snapshot still drains the ring buffer (the old way) */
	if (drmtop_bpf_drain_start(b))
		say(b->drain_err, sizeof(b->drain_err), "close records drained once a refresh");
	return 0;
}

static bool hook_attached(const struct drmtop_bpf *b, const char *prog)
{
	size_t i;

	for (i = 0; i < b->n_hooks; i++)
		if (!strcmp(b->hooks[i].prog, prog))
			return b->hooks[i].attached;
	return false;
}

/*
 * Attaches every loaded program except iterators (attached on demand by drmtop_bpf_fds).
 * Returns the number attached; *tp_fail is set if a tracepoint program failed to attach.
 */
static int attach_all(struct drmtop_bpf *b, struct bpf_object *obj, const char *part,
		      bool *tp_fail)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, obj) {
		struct drmtop_bpf_hook *h;
		const char *sec = bpf_program__section_name(p);
		struct bpf_link *l;

		if (!bpf_program__autoload(p))
			continue;
		h = add_hook(b, part, p);
		if (!h)
			return n;
		if (!strncmp(sec, "iter/", 5)) {
			h->attached = true;	/* loaded: linked per use */
			n++;
			continue;
		}
		l = bpf_program__attach(p);
		if (!l && errno == ENOTSUPP &&
		    (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6))) {
			/* the kernel's answer, not a guess from the architecture (arm64 < 6.4) */
			say(h->why, sizeof(h->why), "kernel cannot attach fentry/fexit (no BPF "
			    "trampoline: ENOTSUPP)");
		} else if (!l) {
			say(h->why, sizeof(h->why), "attach failed: %s", strerror(errno));
		}
		if (!l) {
			if (!strncmp(sec, "tp_btf/", 7) || !strncmp(sec, "raw_tp/", 7))
				*tp_fail = true;
			continue;
		}
		b->links[h - b->hooks] = l;
		h->attached = true;
		n++;
	}
	return n;
}

static bool prog_is(const struct bpf_program *p, const char *role, bool raw, bool v617);

/* Non-tracepoint programs, and the tracepoint programs of the set and flavour in use. */
static bool chosen_tp(const struct drmtop_bpf *b, const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);

	if (strncmp(sec, "tp_btf/", 7) && strncmp(sec, "raw_tp/", 7))
		return true;
	return prog_is(p, "queue", b->sched_raw, b->sched_v617) ||
	       prog_is(p, "run", b->sched_raw, b->sched_v617) ||
	       prog_is(p, "done", b->sched_raw, b->sched_v617);
}

/* Records the programs that were not loaded because their target is absent. */
static void note_absent(struct drmtop_bpf *b, const char *part, struct bpf_object *obj,
			const struct btf *btf)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct drmtop_bpf_hook *h;
		char why[128] = "";

		if (bpf_program__autoload(p))
			continue;
		/*
		 * gpu_mem_total is a figure a kernel may offer, not a hook drmtop needs: its
		 * absence is the probe's to say (and the views'), not a hook missing (case 85).
		 */
		if (!strcmp(bpf_program__name(p), "drmtop_gpu_mem_total"))
			continue;
		/* the other tracepoint name set or flavour is not missing, just not in use */
		if (!strcmp(part, "sched") && !chosen_tp(b, p))
			continue;
		if (target_present(btf, bpf_program__section_name(p), why, sizeof(why)))
			continue;
		h = add_hook(b, part, p);
		if (h)
			snprintf(h->why, sizeof(h->why), "%s", why);
	}
}

static int load_drm(struct drmtop_bpf *b)
{
	struct drmtop_drm_bpf *skel;
	struct bpf_program *p;
	struct btf *btf;
	bool builtin, tp_fail = false;
	int err;

	btf = module_btf(b, "drm", "drm_ioctl", &b->drm_not_builtin, &builtin);
	if (!btf)
		return errno == ENOENT ? 0 : -errno;
	skel = drmtop_drm_bpf__open();
	if (!skel) {
		err = -errno;
		goto out;
	}
	learn_job_client_ids(b, NULL);
	skel->rodata->drmtop_pidns_ino = b->pidns_ino;
	skel->rodata->drmtop_wake_bytes = drmtop_bpf_limit(&b->limits, DRMTOP_LIMIT_RINGBUF) / 4;
	skel->rodata->drmtop_open_entities = !b->jobs_have_client_id;
	skel->rodata->drmtop_count_idle = b->count_idle;
	bpf_object__for_each_program(p, skel->obj) {
		char why[128];

		bpf_program__set_autoload(p, target_present(btf, bpf_program__section_name(p),
							    why, sizeof(why)) &&
					     !(b->jobs_have_client_id && attribution_hook(p)));
	}
	err = prepare_maps(b, skel->obj);
	if (err)
		goto out_destroy;
	err = drmtop_drm_bpf__load(skel);
	if (err)
		goto out_destroy;
	err = adopt_maps(b, skel->obj);
	if (err)
		goto out_destroy;
	forget_hooks(b, "drm", NULL);
	note_absent(b, "drm", skel->obj, btf);
	attach_all(b, skel->obj, "drm", &tp_fail);
	b->drm = skel;
	if (hook_attached(b, bpf_program__name(skel->progs.drmtop_gpu_mem_total)))
		b->gpu_mem_fd = dup(bpf_map__fd(skel->maps.gpu_mem));
	if (b->count_idle) {
		b->idle.fd = dup(bpf_map__fd(skel->maps.idle_closed));
		b->idle.sync = &skel->bss->drmtop_idle_sync;
	}
	/* hooks first, then the walk: a handle made in between is seen by one or both, once */
	if (bpf_program__autoload(skel->progs.drmtop_adopt)) {
		err = drmtop_bpf_run_iter(skel->progs.drmtop_adopt, 0, NULL, NULL);
		if (err)
			say(b->adopt_err, sizeof(b->adopt_err),
			    "handles that existed at attach are not counted: %s", strerror(-err));
	}
	if (!builtin)
		btf__free(btf);
	return 1;

out_destroy:
	drmtop_drm_bpf__destroy(skel);
out:
	if (!builtin)
		btf__free(btf);
	return err;
}

static bool prog_is(const struct bpf_program *p, const char *role, bool raw, bool v617)
{
	char want[48];

	snprintf(want, sizeof(want), "drmtop_%s_%s%s", role, raw ? "raw" : "btf",
		 v617 ? "_617" : "");
	return !strcmp(bpf_program__name(p), want);
}

/* Opens, loads and attaches the sched part with tracepoints as tp_btf (@raw false) or raw_tp. */
static int try_sched(struct drmtop_bpf *b, const struct btf *btf, bool v617, bool raw,
		     bool *tp_fail)
{
	static const char *const roles[] = { "queue", "run", "done" };
	struct drmtop_sched_bpf *skel;
	struct bpf_program *p;
	int err;

	b->sched_v617 = v617;
	b->sched_raw = raw;
	skel = drmtop_sched_bpf__open();
	if (!skel)
		return -errno;
	bpf_object__for_each_program(p, skel->obj) {
		const char *sec = bpf_program__section_name(p);
		bool is_tp = !strncmp(sec, "tp_btf/", 7) || !strncmp(sec, "raw_tp/", 7);
		bool on = false;
		char why[128];
		size_t r;

		if (!is_tp) {
			on = target_present(btf, sec, why, sizeof(why)) &&
			     !(b->jobs_have_client_id && attribution_hook(p));
		} else {
			/*
			 * The queue program stays where the run event could make the job: a
			 * client that closes with jobs queued is gone from the maps before the
			 * last of them run (drm_sched_entity_flush waits only for its queue to
			 * be popped), so only the queue event can name it (VM case 43).
			 */
			for (r = 0; r < sizeof(roles) / sizeof(roles[0]); r++)
				on |= prog_is(p, roles[r], raw, v617);
			on = on && target_present(btf, sec, why, sizeof(why));
		}
		bpf_program__set_autoload(p, on);
	}
	err = prepare_maps(b, skel->obj);
	if (err)
		goto fail;
	err = drmtop_sched_bpf__load(skel);
	if (err)
		goto fail;
	err = adopt_maps(b, skel->obj);
	if (err)
		goto fail;
	forget_hooks(b, "sched", NULL);
	note_absent(b, "sched", skel->obj, btf);
	*tp_fail = false;
	attach_all(b, skel->obj, "sched", tp_fail);
	if (*tp_fail && !raw) {
		forget_hooks(b, "sched", NULL);
		drmtop_sched_bpf__destroy(skel);
		return -EAGAIN;
	}
	/* after every attach: a job held before its cleanup program ran would never be counted */
	if (skel->bss)
		skel->bss->drmtop_cleanup_hooked = hook_attached(b, "drmtop_job_cleanup");
	b->sched = skel;
	return 1;
fail:
	drmtop_sched_bpf__destroy(skel);
	return err;
}

static int load_sched(struct drmtop_bpf *b)
{
	struct btf *btf;
	bool builtin, v617, tp_fail = false;
	size_t i;
	int err;

	btf = module_btf(b, "gpu_sched", "drm_sched_job_cleanup", &b->sched_not_builtin, &builtin);
	if (!btf)
		return errno == ENOENT ? 0 : -errno;
	learn_job_client_ids(b, btf);
	/* the drm part, loaded before gpu_sched's BTF could say so, has it attached */
	if (b->jobs_have_client_id) {
		for (i = 0; i < sizeof(attribution_progs) / sizeof(attribution_progs[0]); i++)
			forget_hooks(b, "drm", attribution_progs[i]);
	}
	/* 6.17 renamed the tracepoints (and declared them stable): take what this kernel has */
	v617 = btf__find_by_name_kind(btf, "btf_trace_drm_sched_job_queue", BTF_KIND_TYPEDEF) > 0;
	/*
	 * Test only: the raw_tp fallback, which no kernel here needs, loaded and run by VM case 40
	 * (its programs read every field with probe reads, the tp_btf ones with plain loads).
	 */
	err = getenv("DRMTOP_TEST_SCHED_RAW") ? -ENOENT : try_sched(b, btf, v617, false, &tp_fail);
	if (err < 0)
		err = try_sched(b, btf, v617, true, &tp_fail);
	if (!builtin)
		btf__free(btf);
	return err;
}

static void compose_reason(struct drmtop_bpf *b, const char *extra)
{
	size_t i, att = 0, n = 0, off;
	const char *flavour = "";

	for (i = 0; i < b->n_hooks; i++) {
		n++;
		att += b->hooks[i].attached;
		if (!strcmp(b->hooks[i].part, "sched") && b->hooks[i].attached &&
		    !strncmp(b->hooks[i].target, "raw_tp/", 7))
			flavour = " (scheduler tracepoints as raw_tp)";
	}
	off = snprintf(b->reason, sizeof(b->reason),
		       "%zu/%zu hooks attached%s; drm: %s; gpu_sched: %s", att, n, flavour,
		       b->drm ? "attached" : b->drm_failed ? "failed" :
		       "module not loaded (no /sys/kernel/btf/drm)",
		       b->sched ? "attached" : b->sched_failed ? "failed" :
		       "module not loaded (no /sys/kernel/btf/gpu_sched)");
	for (i = 0; i < b->n_hooks && off < sizeof(b->reason); i++)
		if (!b->hooks[i].attached)
			off += snprintf(b->reason + off, sizeof(b->reason) - off, "; %s: %s",
					b->hooks[i].target, b->hooks[i].why);
	if (b->jobs_have_client_id && off < sizeof(b->reason))
		off += snprintf(b->reason + off, sizeof(b->reason) - off,
				"; jobs carry drm_client_id: no per-ioctl or entity hook");
	if (extra && off < sizeof(b->reason))
		snprintf(b->reason + off, sizeof(b->reason) - off, "; %s", extra);
}

int drmtop_bpf_poll(struct drmtop_bpf *b)
{
	char extra[256] = "";
	int n = 0, err, ret = 0;

	if (!b->drm && !b->drm_failed) {
		err = load_drm(b);
		if (err < 0) {
			b->drm_failed = true;
			say(extra, sizeof(extra), "loading the drm part failed: %s",
			    strerror(-err));
			ret = err;
		}
		n += err > 0;
	}
	if (!b->sched && !b->sched_failed) {
		err = load_sched(b);
		if (err < 0) {
			b->sched_failed = true;
			say(extra, sizeof(extra), "loading the gpu_sched part failed: %s",
			    strerror(-err));
			ret = err;
		}
		n += err > 0;
	}
	if (!extra[0] && b->adopt_err[0])
		say(extra, sizeof(extra), "%s", b->adopt_err);
	if (!extra[0] && b->drain_err[0])
		say(extra, sizeof(extra), "%s", b->drain_err);
	if (n || ret || !b->reason[0])
		compose_reason(b, extra[0] ? extra : NULL);
	btf__free(b->vmlinux_btf);
	b->vmlinux_btf = NULL;
	return ret < 0 ? ret : n;
}

/* The kernel's inode number of the initial pid namespace (PROC_PID_INIT_INO). */
#define PID_INIT_INO	0xEFFFFFFCu

__u64 drmtop_pidns_of(const char *ns_path)
{
	struct stat st;

	/* Unknown (no /proc): pids stay the kernel's, as in the initial namespace. */
	if (stat(ns_path, &st) || st.st_ino == PID_INIT_INO)
		return 0;
	return st.st_ino;
}

int drmtop_bpf_open(struct drmtop_bpf **out, const struct drmtop_bpf_limits *limits,
		    const char *proc_root, bool count_idle, char *why, size_t why_len)
{
	char ns[PATH_MAX];
	struct drmtop_bpf *b;
	int i, err;

	*out = NULL;
	libbpf_set_print(quiet_print);
	if (geteuid() != 0) {
		say(why, why_len, "BPF tracing needs root (CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN): "
		    "running as uid %u", geteuid());
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		say(why, why_len, "kernel has no BTF (/sys/kernel/btf/vmlinux missing: "
		    "CONFIG_DEBUG_INFO_BTF is off)");
		return -ENOENT;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		say(why, why_len, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < MAP_COUNT; i++)
		b->map_fd[i] = -1;
	b->gpu_mem_fd = -1;
	b->idle.fd = -1;
	b->count_idle = count_idle;
	b->drain_stop_fd = -1;
	pthread_mutex_init(&b->drain_lock, NULL);
	/*
	 * The namespace of the proc mount the scan reads is its first process's: not ours where a
	 * fleet agent in a pid namespace of its own reads the host's proc (--proc-root).
	 */
	snprintf(ns, sizeof(ns), "%s/1/ns/pid", proc_root ? proc_root : "/proc");
	b->pidns_ino = drmtop_pidns_of(ns);
	b->cgroup_ids = drmtop_cgroup_ids_new(NULL);
	if (limits)
		b->limits = *limits;
	b->vmlinux_btf = btf__load_vmlinux_btf();
	if (!b->vmlinux_btf) {
		err = -errno;
		say(why, why_len, "cannot read kernel BTF: %s", strerror(errno));
		drmtop_cgroup_ids_free(b->cgroup_ids);
		free(b);
		return err;
	}
	err = drmtop_bpf_poll(b);
	if (err < 0 && !b->drm && !b->sched) {
		say(why, why_len, "%s", b->reason);
		drmtop_bpf_close(b);
		return err;
	}
	*out = b;
	return 0;
}

bool drmtop_bpf_ready(const struct drmtop_bpf *b)
{
	size_t i;

	for (i = 0; b && i < b->n_hooks; i++)
		if (b->hooks[i].attached)
			return true;
	return false;
}

const char *drmtop_bpf_reason(const struct drmtop_bpf *b)
{
	return b->reason;
}

size_t drmtop_bpf_hooks(const struct drmtop_bpf *b, const struct drmtop_bpf_hook **hooks)
{
	*hooks = b->hooks;
	return b->n_hooks;
}

struct drmtop_cgroup_ids *drmtop_bpf_cgroup_ids(const struct drmtop_bpf *b)
{
	return b ? b->cgroup_ids : NULL;
}

void drmtop_bpf_close(struct drmtop_bpf *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->n_hooks; i++)
		bpf_link__destroy(b->links[i]);
	drmtop_bpf_drain_stop(b);
	ring_buffer__free(b->rb);
	drmtop_drm_bpf__destroy(b->drm);
	drmtop_sched_bpf__destroy(b->sched);
	if (b->parked)
		munmap((void *)b->parked, b->parked_bytes);
	for (i = 0; i < MAP_COUNT; i++)
		if (b->map_fd[i] >= 0)
			close(b->map_fd[i]);
	if (b->gpu_mem_fd >= 0)
		close(b->gpu_mem_fd);
	if (b->idle.fd >= 0)
		close(b->idle.fd);
	free(b->idle.keys);
	btf__free(b->vmlinux_btf);
	free(b->pending);
	free(b->reported);
	strmap_fini(&b->reported_at);
	strmap_fini(&b->reported_uid);
	free(b->orphans);
	strmap_fini(&b->orphan_at);
	strmap_fini(&b->retired_at);
	free(b->obj_cand);
	free(b->gem_pruned);
	free(b->aging);
	strmap_fini(&b->aging_at);
	free(b->prev_live);
	free(b->shared);
	drmtop_cgroup_ids_free(b->cgroup_ids);
	pthread_mutex_destroy(&b->drain_lock);
	free(b);
}
