// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu-smoke: proves simgpu does what drmtop's tests rely on. Run as root in the test VM with
 * simgpu loaded (tests/vm/cases/10-simgpu-load.sh). Drives the render node through its uAPI and
 * the DRM core's PRIME / GEM_CLOSE ioctls with known sizes and durations, then checks the
 * driver's debugfs ground truth, its fdinfo and drm_sched's tracepoints against what it did.
 * Prints "PASS <name>" / "FAIL <name>: <reason>"; exits 0 only if every check passed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "simgpu_drm.h"

#define MS 1000000ULL
#define DEBUGFS "/sys/kernel/debug/simgpu"
#define PARAMS "/sys/module/simgpu/parameters"
#define TRACEFS "/sys/kernel/tracing"
#define PAGE 4096ULL

static int failures;

static void pass(const char *name)
{
	printf("PASS %s\n", name);
	fflush(stdout);
}

__attribute__((format(printf, 2, 3))) static void fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures++;
}

/* Fatal setup problems: the remaining checks cannot run, which is a failure, not a skip. */
__attribute__((noreturn, format(printf, 2, 3))) static void die(const char *name, const char *fmt,
								...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : 0;
}

/* ---- the device ---------------------------------------------------------------------------- */

static int open_simgpu(void)
{
	char path[64], name[32];
	int minor;

	for (minor = 128; minor < 192; minor++) {
		struct drm_version v = { 0 };
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (xioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && !strcmp(name, SIMGPU_DRIVER_NAME))
			return fd;
		close(fd);
	}
	return -1;
}

static uint32_t bo_create(int fd, uint64_t size)
{
	struct drm_simgpu_bo_create c = { .size = size };
	int ret = xioctl(fd, DRM_IOCTL_SIMGPU_BO_CREATE, &c);

	if (ret)
		die("bo-create", "BO_CREATE(%" PRIu64 "): %s", size, strerror(-ret));
	return c.handle;
}

static uint64_t submit(int fd, uint32_t engine, uint64_t ns, const uint32_t *bos, uint32_t nr)
{
	struct drm_simgpu_submit s = {
		.engine = engine, .duration_ns = ns, .nr_bos = nr, .bo_handles = (uintptr_t)bos,
	};
	int ret = xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s);

	if (ret)
		die("submit", "SUBMIT(engine %u, %" PRIu64 " ns): %s", engine, ns, strerror(-ret));
	return s.seqno;
}

static int wait_job(int fd, uint32_t engine, uint64_t seqno, int64_t timeout_ns)
{
	struct drm_simgpu_wait w = { .engine = engine, .seqno = seqno, .timeout_ns = timeout_ns };

	return xioctl(fd, DRM_IOCTL_SIMGPU_WAIT, &w);
}

static void wait_ok(int fd, uint32_t engine, uint64_t seqno)
{
	int ret = wait_job(fd, engine, seqno, 30LL * 1000 * MS);

	if (ret)
		die("wait", "WAIT(engine %u, seqno %" PRIu64 "): %s", engine, seqno, strerror(-ret));
}

/* ---- key=value records ------------------------------------------------------------------- */

#define MAX_KV 64

struct record {
	int n;
	char key[MAX_KV][48];
	char val[MAX_KV][64];
};

static void parse_record(const char *line, struct record *r)
{
	const char *p = line;

	r->n = 0;
	while (*p && r->n < MAX_KV) {
		const char *sp = strchr(p, ' '), *eq;
		size_t len = sp ? (size_t)(sp - p) : strcspn(p, "\n");

		eq = memchr(p, '=', len);
		if (eq && (size_t)(eq - p) < sizeof(r->key[0]) &&
		    len - (size_t)(eq - p) - 1 < sizeof(r->val[0])) {
			snprintf(r->key[r->n], sizeof(r->key[0]), "%.*s", (int)(eq - p), p);
			snprintf(r->val[r->n], sizeof(r->val[0]), "%.*s", (int)(len - (eq - p) - 1),
				 eq + 1);
			r->n++;
		}
		if (!sp)
			break;
		p = sp + 1;
	}
}

static const char *rec_str(const struct record *r, const char *key)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->key[i], key))
			return r->val[i];
	die("debugfs-format", "no key %s in a debugfs record", key);
}

static uint64_t rec_u64(const struct record *r, const char *key)
{
	return strtoull(rec_str(r, key), NULL, 10);
}

static uint64_t rec_eng(const struct record *r, const char *engine, const char *what)
{
	char key[48];

	snprintf(key, sizeof(key), "%s_%s", engine, what);
	return rec_u64(r, key);
}

/*
 * Finds the first line of debugfs file @file starting with "<kind> " and whose @key is @val
 * (the first such line at all if @key is NULL).
 */
static bool debugfs_find(const char *file, const char *kind, const char *key, const char *val,
			 struct record *r)
{
	char path[128], line[2048];
	size_t klen = strlen(kind);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), DEBUGFS "/%s", file);
	f = fopen(path, "r");
	if (!f)
		die("debugfs", "cannot open %s: %s", path, strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, kind, klen) || line[klen] != ' ')
			continue;
		parse_record(line + klen + 1, r);
		found = !key || !strcmp(rec_str(r, key), val);
	}
	fclose(f);
	return found;
}

static void client_record(uint64_t id, struct record *r)
{
	char v[32];

	snprintf(v, sizeof(v), "%" PRIu64, id);
	if (!debugfs_find("clients", "client", "id", v, r))
		die("debugfs-client", "client id=%" PRIu64 " not in " DEBUGFS "/clients", id);
}

/* ---- fdinfo -------------------------------------------------------------------------------- */

struct fdinfo {
	char driver[32];
	uint64_t client_id;
	uint64_t engine_ns[SIMGPU_ENGINE_COUNT];
	int capacity_lines;
	uint64_t total, shared, resident, active;
	bool have_total, have_shared, have_resident, have_active;
};

static const char *const engine_names[] = SIMGPU_ENGINE_NAMES;

static uint64_t parse_size(const char *v)
{
	char *end;
	uint64_t n = strtoull(v, &end, 10);

	while (*end == ' ')
		end++;
	if (!strncmp(end, "KiB", 3))
		return n * 1024;
	if (!strncmp(end, "MiB", 3))
		return n * 1024 * 1024;
	return n;
}

static void read_fdinfo(pid_t pid, int fd, struct fdinfo *fi)
{
	char path[64], line[256];
	FILE *f;

	memset(fi, 0, sizeof(*fi));
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	f = fopen(path, "r");
	if (!f)
		die("fdinfo", "cannot open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;
		unsigned int e;

		if (!colon || strncmp(line, "drm-", 4))
			continue;
		*colon = '\0';
		v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "drm-driver"))
			snprintf(fi->driver, sizeof(fi->driver), "%s", v);
		else if (!strcmp(line, "drm-client-id"))
			fi->client_id = strtoull(v, NULL, 10);
		else if (!strcmp(line, "drm-total-memory"))
			fi->total = parse_size(v), fi->have_total = true;
		else if (!strcmp(line, "drm-shared-memory"))
			fi->shared = parse_size(v), fi->have_shared = true;
		else if (!strcmp(line, "drm-active-memory"))
			fi->active = parse_size(v), fi->have_active = true;
		else if (!strcmp(line, "drm-resident-memory"))
			fi->resident = parse_size(v), fi->have_resident = true;
		else if (!strncmp(line, "drm-engine-capacity-", 20))
			fi->capacity_lines++;
		for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
			char key[48];

			snprintf(key, sizeof(key), "drm-engine-%s", engine_names[e]);
			if (!strcmp(line, key))
				fi->engine_ns[e] = strtoull(v, NULL, 10);
		}
	}
	fclose(f);
}

/* ---- module parameters -------------------------------------------------------------------- */

static unsigned long read_param(const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "/%s", name);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		die("param", "cannot read %s", path);
	fclose(f);
	if (buf[0] == 'Y')
		return 1;
	if (buf[0] == 'N')
		return 0;
	return strtoul(buf, NULL, 10);
}

static void write_param(const char *name, unsigned long v)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "/%s", name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%lu\n", v) < 0 || fclose(f))
		die("param", "cannot write %s", path);
}

/* Entry @idx of an array parameter such as queue_depth=2,1,1. */
static unsigned long read_param_at(const char *name, unsigned int idx)
{
	char path[128], buf[64] = "", *p = buf;
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "/%s", name);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		die("param", "cannot read %s", path);
	fclose(f);
	for (i = 0; i < idx; i++) {
		p = strchr(p, ',');
		if (!p)
			die("param", "%s has no entry %u: %s", path, idx, buf);
		p++;
	}
	return strtoul(p, NULL, 10);
}

static int capacity_lines_expected(void)
{
	int n = 0;
	unsigned int e;

	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++)
		n += read_param_at("engine_capacity", e) > 1;
	return n;
}

/* ---- checks -------------------------------------------------------------------------------- */

#define CHECK_EQ(name, got, want)                                                              \
	do {                                                                                   \
		uint64_t g_ = (got), w_ = (want);                                              \
		if (g_ != w_) {                                                                \
			fail(name, "%s = %" PRIu64 ", expected %" PRIu64, #got, g_, w_);       \
			ok = false;                                                            \
		}                                                                              \
	} while (0)

static uint64_t page_round(uint64_t n)
{
	return (n + PAGE - 1) / PAGE * PAGE;
}

static void check_identity(int fd, struct fdinfo *fi)
{
	struct drm_simgpu_client_id cid = { 0 };
	struct record r;
	bool ok = true;

	read_fdinfo(getpid(), fd, fi);
	if (strcmp(fi->driver, SIMGPU_DRIVER_NAME)) {
		fail("fdinfo-identity", "drm-driver is '%s'", fi->driver);
		return;
	}
	if (!fi->client_id) {
		fail("fdinfo-identity", "drm-client-id missing or 0");
		return;
	}
	client_record(fi->client_id, &r);
	/* the workload's answer where a personality prints no fdinfo */
	if (xioctl(fd, DRM_IOCTL_SIMGPU_CLIENT_ID, &cid)) {
		fail("client-id-ioctl", "CLIENT_ID: %s", strerror(errno));
		ok = false;
	} else {
		CHECK_EQ("client-id-ioctl", cid.client_id, fi->client_id);
	}
	CHECK_EQ("debugfs-identity", rec_u64(&r, "pid"), (uint64_t)getpid());
	CHECK_EQ("debugfs-identity", rec_u64(&r, "tgid"), (uint64_t)getpid());
	if (strcmp(rec_str(&r, "state"), "open") || strcmp(rec_str(&r, "kind"), "user")) {
		fail("debugfs-identity", "state=%s kind=%s", rec_str(&r, "state"),
		     rec_str(&r, "kind"));
		ok = false;
	}
	CHECK_EQ("fdinfo-capacity", fi->capacity_lines, capacity_lines_expected());
	if (ok)
		pass("client-identity");
}

/*
 * Whether drm_show_memory_stats() prints a status key (drm-resident-memory, drm-active-memory)
 * when no object of the client has that status. 6.x prints resident at 0 for a client whose
 * objects have a status callback and active at 0 always; later kernels print each only when some
 * object reports that status (supported_status |= s, checked in 7.2.13's drm_file.c): absent
 * then means "not reported", not 0. Learnt from this kernel at the first such sample (printed in
 * the log), then held to: a kernel must not print a key at 0 for one sample and leave it out for
 * another. A client without objects gets neither key from either rule (nothing has a status).
 */
enum zero_key_rule { ZERO_KEY_UNKNOWN, ZERO_KEY_PRINTED, ZERO_KEY_LEFT_OUT };

static enum zero_key_rule resident_rule, active_rule;

static bool status_key_ok(const char *name, const char *key, enum zero_key_rule *rule,
			  bool have, uint64_t truth, uint64_t objects)
{
	enum zero_key_rule seen = have ? ZERO_KEY_PRINTED : ZERO_KEY_LEFT_OUT;

	if (truth) {
		if (!have)
			fail(name, "fdinfo lacks %s, simgpu has %" PRIu64 " bytes", key, truth);
		return have;
	}
	if (!objects && rule == &resident_rule) {
		if (have)
			fail(name, "fdinfo prints %s for a client without objects", key);
		return !have;
	}
	if (*rule == ZERO_KEY_UNKNOWN) {
		*rule = seen;
		printf("# fdinfo: this kernel %s %s when no object has that status\n",
		       have ? "prints 0 as" : "leaves out", key);
	} else if (*rule != seen) {
		fail(name, "fdinfo %s %s at 0 but %s it at 0 before", have ? "prints" : "leaves out",
		     key, have ? "left out" : "printed");
		return false;
	}
	return true;
}

/* Memory per fdinfo and debugfs, against what this client holds. */
static void check_memory(const char *name, int fd, uint64_t id, uint64_t count, uint64_t bytes,
			 uint64_t shared, uint64_t resident)
{
	struct fdinfo fi;
	struct record r;
	bool ok = true;

	client_record(id, &r);
	read_fdinfo(getpid(), fd, &fi);
	CHECK_EQ(name, rec_u64(&r, "bo_count"), count);
	CHECK_EQ(name, rec_u64(&r, "bo_bytes"), bytes);
	CHECK_EQ(name, rec_u64(&r, "shared_bytes"), shared);
	CHECK_EQ(name, rec_u64(&r, "resident_bytes"), resident);
	if (!fi.have_total || !fi.have_shared) {
		fail(name, "fdinfo lacks drm-total/shared-memory");
		return;
	}
	CHECK_EQ(name, fi.total, bytes);
	CHECK_EQ(name, fi.shared, shared);
	if (!status_key_ok(name, "drm-resident-memory", &resident_rule, fi.have_resident,
			   resident, count))
		ok = false;
	else if (fi.have_resident)
		CHECK_EQ(name, fi.resident, resident);
	if (ok)
		pass(name);
}

/* BOs used by unfinished jobs are drm-active-memory. */
static void check_active(const char *name, int fd, uint64_t id, uint64_t active)
{
	struct fdinfo fi;
	struct record r;
	bool ok = true;

	client_record(id, &r);
	read_fdinfo(getpid(), fd, &fi);
	CHECK_EQ(name, rec_u64(&r, "active_bytes"), active);
	if (!status_key_ok(name, "drm-active-memory", &active_rule, fi.have_active, active,
			   rec_u64(&r, "bo_count")))
		ok = false;
	else if (fi.have_active)
		CHECK_EQ(name, fi.active, active);
	if (ok)
		pass(name);
}

/* Engine figures of client @id: debugfs exact, fdinfo scaled by fdinfo_scale_pct. */
static void check_engines(const char *name, int fd, uint64_t id, const uint64_t busy[],
			  const uint64_t jobs[])
{
	unsigned long pct = read_param("fdinfo_scale_pct");
	struct fdinfo fi;
	struct record r;
	bool ok = true;
	unsigned int e;

	client_record(id, &r);
	read_fdinfo(getpid(), fd, &fi);
	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		char what[80];

		snprintf(what, sizeof(what), "%s: engine %s (fdinfo_scale_pct %lu)", name,
			 engine_names[e], pct);
		CHECK_EQ(what, rec_eng(&r, engine_names[e], "busy_ns"), busy[e]);
		CHECK_EQ(what, rec_eng(&r, engine_names[e], "submitted"), jobs[e]);
		CHECK_EQ(what, rec_eng(&r, engine_names[e], "completed"), jobs[e]);
		CHECK_EQ(what, rec_eng(&r, engine_names[e], "cancelled"), 0);
		CHECK_EQ(what, fi.engine_ns[e], busy[e] * pct / 100);
	}
	if (ok)
		pass(name);
}

static void check_bad_input(int fd, uint32_t bo)
{
	struct drm_simgpu_bo_create c = { .size = 0 };
	struct drm_simgpu_submit s = { .engine = SIMGPU_ENGINE_COUNT, .duration_ns = MS };
	uint32_t bad_handle = 0x7fffffff;
	bool ok = true;
	int ret;

#define EXPECT_ERR(what, call, err)                                                            \
	do {                                                                                   \
		ret = (call);                                                                  \
		if (ret != -(err)) {                                                           \
			fail("bad-input", "%s returned %d, expected -%s", what, ret, #err);    \
			ok = false;                                                            \
		}                                                                              \
	} while (0)

	EXPECT_ERR("BO_CREATE size 0", xioctl(fd, DRM_IOCTL_SIMGPU_BO_CREATE, &c), EINVAL);
	c.size = PAGE;
	c.flags = 1;
	EXPECT_ERR("BO_CREATE flags 1", xioctl(fd, DRM_IOCTL_SIMGPU_BO_CREATE, &c), EINVAL);
	EXPECT_ERR("SUBMIT engine 3", xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), EINVAL);
	s.engine = SIMGPU_ENGINE_GFX;
	s.nr_bos = 1;
	s.bo_handles = (uintptr_t)&bad_handle;
	EXPECT_ERR("SUBMIT unknown handle", xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), ENOENT);
	s.nr_bos = 2;
	{
		uint32_t two[2] = { bo, bad_handle };

		s.bo_handles = (uintptr_t)two;
		EXPECT_ERR("SUBMIT 2nd handle unknown", xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s),
			   ENOENT);
	}
	{
		uint32_t twice[2] = { bo, bo };

		s.bo_handles = (uintptr_t)twice;
		EXPECT_ERR("SUBMIT BO listed twice", xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s),
			   EINVAL);
	}
	s.nr_bos = 0;
	s.duration_ns = 61ULL * 1000 * MS;
	EXPECT_ERR("SUBMIT 61 s", xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), EINVAL);
	EXPECT_ERR("WAIT seqno 0", wait_job(fd, SIMGPU_ENGINE_GFX, 0, 0), EINVAL);
	EXPECT_ERR("WAIT unsubmitted seqno", wait_job(fd, SIMGPU_ENGINE_GFX, 1000000, 0), EINVAL);
	EXPECT_ERR("WAIT engine 3", wait_job(fd, 3, 1, 0), EINVAL);
	if (ok)
		pass("bad-input");
}

/*
 * gfx keeps queue_depth jobs on its ring: drm_sched hands several over at once, yet they
 * execute one after another. Four long jobs: the ring never holds more than the depth, it does
 * hold that many, the wall time covers the durations back to back, and busy = their sum.
 */
static uint64_t check_gfx_ring(int fd, uint64_t id, uint64_t *gfx_jobs)
{
	unsigned long depth = read_param_at("queue_depth", SIMGPU_ENGINE_GFX);
	unsigned long cap = read_param_at("engine_capacity", SIMGPU_ENGINE_GFX);
	/* Jobs execute in parallel on at most min(capacity, depth) lanes. */
	unsigned long par = cap < depth ? cap : depth;
	const uint64_t dur = 150 * MS;
	unsigned int max_on_hw = 0, i;
	uint64_t t0, seq = 0, busy_mid = 0, elapsed;
	struct record r, c;
	bool ok = true;

	t0 = now_ns();
	for (i = 0; i < 4; i++)
		seq = submit(fd, SIMGPU_ENGINE_GFX, dur, NULL, 0);
	*gfx_jobs += 4;
	while (wait_job(fd, SIMGPU_ENGINE_GFX, seq, 0) == -ETIME) {
		unsigned int on;

		if (!debugfs_find("engines", "engine", "name", "gfx", &r))
			die("gfx-ring", "no gfx engine line");
		on = (unsigned int)rec_u64(&r, "on_hardware");
		if (on > max_on_hw)
			max_on_hw = on;
		client_record(id, &c);
		if (rec_eng(&c, "gfx", "busy_ns") < busy_mid) {
			fail("gfx-busy-monotonic", "busy went from %" PRIu64 " to %" PRIu64,
			     busy_mid, rec_eng(&c, "gfx", "busy_ns"));
			ok = false;
		}
		busy_mid = rec_eng(&c, "gfx", "busy_ns");
		sleep_ms(5);
	}
	elapsed = now_ns() - t0;
	if (max_on_hw != (depth < 4 ? depth : 4)) {
		fail("gfx-ring-depth", "at most %u jobs on the gfx ring, queue_depth is %lu",
		     max_on_hw, depth);
		ok = false;
	}
	if (elapsed < (4 + par - 1) / par * dur) {
		fail("gfx-ring-fifo", "4 x %" PRIu64 " ns jobs on %lu lane(s) done after %" PRIu64
		     " ns", dur, par, elapsed);
		ok = false;
	}
	if (ok)
		pass("gfx-ring-overlap");
	return 4 * dur;
}

/* A second process imports an exported BO, uses it and exits; its figures stay in debugfs. */
static void check_prime_child(int fd, uint32_t bo, uint64_t bo_size, uint64_t *child_id)
{
	int pfd[2], dmabuf, status;
	struct drm_prime_handle ph = { .handle = bo, .flags = DRM_CLOEXEC | DRM_RDWR };
	struct record r;
	bool ok = true;
	pid_t pid;
	uint64_t msg[2] = { 0, 0 };

	if (xioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph))
		die("prime-export", "PRIME_HANDLE_TO_FD: %s", strerror(errno));
	dmabuf = ph.fd;
	if (pipe(pfd))
		die("prime-child", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("prime-child", "fork: %s", strerror(errno));
	if (pid == 0) {
		int cfd = open_simgpu();
		struct drm_prime_handle imp = { .fd = dmabuf };
		struct fdinfo fi;
		uint64_t seq;

		close(pfd[0]);
		if (cfd < 0 || xioctl(cfd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp))
			_exit(2);
		seq = submit(cfd, SIMGPU_ENGINE_COPY, 2 * MS, &imp.handle, 1);
		wait_ok(cfd, SIMGPU_ENGINE_COPY, seq);
		read_fdinfo(getpid(), cfd, &fi);
		/* Both processes hold a handle: shared for both. */
		msg[0] = fi.client_id;
		msg[1] = (fi.total == bo_size && fi.shared == bo_size && fi.resident == bo_size);
		if (write(pfd[1], msg, sizeof(msg)) != sizeof(msg))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], msg, sizeof(msg)) != sizeof(msg))
		msg[0] = 0;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	close(dmabuf);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !msg[0]) {
		fail("prime-import", "child failed (status %#x)", status);
		return;
	}
	*child_id = msg[0];
	if (!msg[1]) {
		fail("prime-import", "child's fdinfo memory is not total=shared=resident=%" PRIu64,
		     bo_size);
		ok = false;
	}
	client_record(msg[0], &r);
	if (strcmp(rec_str(&r, "state"), "closed")) {
		fail("closed-client", "child client %" PRIu64 " is %s", msg[0], rec_str(&r, "state"));
		ok = false;
	}
	CHECK_EQ("closed-client", rec_u64(&r, "pid"), (uint64_t)pid);
	CHECK_EQ("closed-client", rec_eng(&r, "copy", "busy_ns"), 2 * MS);
	CHECK_EQ("closed-client", rec_eng(&r, "copy", "completed"), 1);
	CHECK_EQ("closed-client", rec_u64(&r, "bo_bytes"), 0);
	if (ok)
		pass("prime-import-closed-client");
}

/* A client that closes with a job still queued: the job runs and is still counted. */
static void check_close_in_flight(void)
{
	struct fdinfo fi;
	struct record r;
	bool ok = true;
	int fd = open_simgpu();
	unsigned int i;

	if (fd < 0)
		die("close-in-flight", "cannot open simgpu");
	read_fdinfo(getpid(), fd, &fi);
	submit(fd, SIMGPU_ENGINE_COMPUTE, 30 * MS, NULL, 0);
	submit(fd, SIMGPU_ENGINE_COMPUTE, 30 * MS, NULL, 0);
	close(fd);
	for (i = 0; i < 400; i++) {
		client_record(fi.client_id, &r);
		if (rec_eng(&r, "compute", "completed") + rec_eng(&r, "compute", "cancelled") == 2)
			break;
		sleep_ms(10);
	}
	if (strcmp(rec_str(&r, "state"), "closed")) {
		fail("close-in-flight", "client %" PRIu64 " is %s", fi.client_id,
		     rec_str(&r, "state"));
		ok = false;
	}
	CHECK_EQ("close-in-flight", rec_eng(&r, "compute", "submitted"), 2);
	CHECK_EQ("close-in-flight", rec_eng(&r, "compute", "completed"), 2);
	CHECK_EQ("close-in-flight", rec_eng(&r, "compute", "busy_ns"), 60 * MS);
	if (ok)
		pass("close-in-flight");
}

/*
 * A process that exits with jobs queued: drm_sched waits ~1 s for the queue to drain into the
 * hardware, then kills the rest. Each job is counted exactly once, as completed or cancelled,
 * and only completed jobs add busy time.
 */
static void check_exit_with_queue(void)
{
	const uint64_t dur = 400 * MS;
	int pfd[2], status;
	uint64_t cid = 0, done, cancelled;
	struct record r;
	bool ok = true;
	unsigned int i;
	pid_t pid;

	if (pipe(pfd))
		die("exit-with-queue", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("exit-with-queue", "fork: %s", strerror(errno));
	if (pid == 0) {
		struct fdinfo fi;
		int fd = open_simgpu();

		if (fd < 0)
			_exit(2);
		read_fdinfo(getpid(), fd, &fi);
		for (i = 0; i < 6; i++)
			submit(fd, SIMGPU_ENGINE_COMPUTE, dur, NULL, 0);
		if (write(pfd[1], &fi.client_id, sizeof(fi.client_id)) != sizeof(fi.client_id))
			_exit(3);
		_exit(0);	/* fd still open: closed by the exit */
	}
	close(pfd[1]);
	if (read(pfd[0], &cid, sizeof(cid)) != sizeof(cid))
		cid = 0;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !cid) {
		fail("exit-with-queue", "child failed (status %#x)", status);
		return;
	}
	for (i = 0; i < 500; i++) {
		client_record(cid, &r);
		done = rec_eng(&r, "compute", "completed");
		cancelled = rec_eng(&r, "compute", "cancelled");
		if (done + cancelled == 6)
			break;
		sleep_ms(10);
	}
	if (strcmp(rec_str(&r, "state"), "closed")) {
		fail("exit-with-queue", "client %" PRIu64 " is %s", cid, rec_str(&r, "state"));
		ok = false;
	}
	CHECK_EQ("exit-with-queue", rec_eng(&r, "compute", "submitted"), 6);
	CHECK_EQ("exit-with-queue", done + cancelled, 6);
	CHECK_EQ("exit-with-queue", rec_eng(&r, "compute", "busy_ns"), done * dur);
	/* Within the 1 s flush at most depth + 3 x capacity jobs can reach the hardware. */
	if (cancelled == 0 && read_param_at("queue_depth", SIMGPU_ENGINE_COMPUTE) +
				      3 * read_param_at("engine_capacity", SIMGPU_ENGINE_COMPUTE) <
			      6) {
		fail("exit-with-queue", "no job cancelled although 6 x 400 ms exceed the 1 s flush");
		ok = false;
	}
	if (ok)
		pass("exit-with-queue");
	printf("# exit-with-queue: %" PRIu64 " completed, %" PRIu64 " cancelled\n", done, cancelled);
}

/*
 * Several processes submit at once on every engine; each one's figures, kept after it exits,
 * must be exactly what it submitted.
 */
#define NR_CONC 4
#define CONC_JOBS 40

static void conc_child(int wfd, unsigned int seed)
{
	uint64_t msg[1 + 2 * SIMGPU_ENGINE_COUNT] = { 0 }, last[SIMGPU_ENGINE_COUNT] = { 0 };
	struct fdinfo fi;
	uint32_t bo;
	unsigned int i, e;
	int fd = open_simgpu();

	if (fd < 0)
		_exit(2);
	read_fdinfo(getpid(), fd, &fi);
	msg[0] = fi.client_id;
	bo = bo_create(fd, PAGE);
	for (i = 0; i < CONC_JOBS; i++) {
		uint64_t dur;

		seed = seed * 1103515245u + 12345u;
		e = (seed >> 16) % SIMGPU_ENGINE_COUNT;
		dur = ((seed >> 4) % 3000) * 1000 + (seed & 7);
		last[e] = submit(fd, e, dur, (seed & 8) ? &bo : NULL, (seed & 8) ? 1 : 0);
		msg[1 + e] += dur;
		msg[1 + SIMGPU_ENGINE_COUNT + e]++;
	}
	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++)
		if (last[e])
			wait_ok(fd, e, last[e]);
	if (write(wfd, msg, sizeof(msg)) != sizeof(msg))
		_exit(3);
	_exit(0);
}

static void check_concurrent_clients(void)
{
	uint64_t msg[NR_CONC][1 + 2 * SIMGPU_ENGINE_COUNT];
	pid_t pids[NR_CONC];
	int pfd[NR_CONC][2], status;
	unsigned int i, e;
	bool ok = true;
	struct record r;

	for (i = 0; i < NR_CONC; i++) {
		if (pipe(pfd[i]))
			die("concurrent-clients", "pipe: %s", strerror(errno));
		pids[i] = fork();
		if (pids[i] < 0)
			die("concurrent-clients", "fork: %s", strerror(errno));
		if (pids[i] == 0) {
			close(pfd[i][0]);
			conc_child(pfd[i][1], 7919 * (i + 1));
		}
		close(pfd[i][1]);
	}
	for (i = 0; i < NR_CONC; i++) {
		if (read(pfd[i][0], msg[i], sizeof(msg[i])) != sizeof(msg[i]))
			msg[i][0] = 0;
		close(pfd[i][0]);
		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) || !msg[i][0]) {
			fail("concurrent-clients", "child %u failed (status %#x)", i, status);
			return;
		}
	}
	for (i = 0; i < NR_CONC; i++) {
		client_record(msg[i][0], &r);
		for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
			CHECK_EQ("concurrent-clients", rec_eng(&r, engine_names[e], "busy_ns"),
				 msg[i][1 + e]);
			CHECK_EQ("concurrent-clients", rec_eng(&r, engine_names[e], "completed"),
				 msg[i][1 + SIMGPU_ENGINE_COUNT + e]);
		}
		CHECK_EQ("concurrent-clients", rec_u64(&r, "pid"), (uint64_t)pids[i]);
	}
	if (ok)
		pass("concurrent-clients");
}

/* A dma-buf from another driver (vgem) imported through the DRM core's PRIME path. */
static int open_vgem(void)
{
	char path[64], name[32];
	int minor;

	for (minor = 0; minor < 64; minor++) {
		struct drm_version v = { 0 };
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (xioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	return -1;
}

/* Whether simgpu's PRIME import maps the exporter's sg table (its debugfs device line says). */
static bool import_maps(void)
{
	struct record r;

	if (!debugfs_find("device", "device", NULL, NULL, &r))
		die("vgem-import", "no device line in " DEBUGFS "/device");
	return rec_u64(&r, "prime_import_maps") != 0;
}

static void check_vgem_import(int fd, uint64_t id, uint64_t count, uint64_t bytes,
			      uint64_t shared, uint64_t resident, uint64_t *copy_busy,
			      uint64_t *copy_jobs)
{
	struct drm_mode_create_dumb dumb = { .width = 1024, .height = 16, .bpp = 32 };
	struct drm_prime_handle exp = { .flags = DRM_CLOEXEC | DRM_RDWR };
	struct drm_prime_handle imp = { 0 };
	struct drm_gem_close gc = { 0 };
	int vfd = open_vgem();
	uint64_t size, seq;

	if (vfd < 0) {
		fail("vgem-import", "no vgem card (the VM loads vgem)");
		return;
	}
	if (xioctl(vfd, DRM_IOCTL_MODE_CREATE_DUMB, &dumb)) {
		fail("vgem-import", "vgem CREATE_DUMB: %s", strerror(errno));
		close(vfd);
		return;
	}
	exp.handle = dumb.handle;
	if (xioctl(vfd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp)) {
		fail("vgem-import", "vgem PRIME_HANDLE_TO_FD: %s", strerror(errno));
		close(vfd);
		return;
	}
	size = (uint64_t)lseek(exp.fd, 0, SEEK_END);
	imp.fd = exp.fd;
	if (xioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp)) {
		fail("vgem-import", "simgpu PRIME_FD_TO_HANDLE: %s", strerror(errno));
		close(exp.fd);
		close(vfd);
		return;
	}
	/*
	 * Imported: shared (it has a dma_buf), and resident where the kernel's shmem helper maps
	 * the exporter's pages at import (simgpu says whether it does: prime_import_maps).
	 */
	check_memory("vgem-import-memory", fd, id, count + 1, bytes + size, shared + size,
		     resident + (import_maps() ? size : 0));
	seq = submit(fd, SIMGPU_ENGINE_COPY, 2 * MS, &imp.handle, 1);
	wait_ok(fd, SIMGPU_ENGINE_COPY, seq);
	*copy_busy += 2 * MS;
	*copy_jobs += 1;
	gc.handle = imp.handle;
	if (xioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc))
		fail("vgem-import", "GEM_CLOSE of the import: %s", strerror(errno));
	check_memory("vgem-import-closed", fd, id, count, bytes, shared, resident);
	close(exp.fd);
	close(vfd);
}

/* Driver-internal clears: jobs of the kernel client that user jobs wait for. */
static void check_clear_jobs(int fd, uint64_t id, uint64_t *copy_busy, uint64_t *copy_jobs)
{
	unsigned long ns_per_mib = read_param("clear_ns_per_mib");
	const uint64_t size = 2 * 1024 * 1024;
	uint64_t clear_ns = (size * ns_per_mib + (1 << 20) - 1) >> 20;
	struct record k0, k1, r;
	uint64_t seq;
	uint32_t bo;
	bool ok = true;

	client_record(0, &k0);
	write_param("clear_jobs", 1);
	bo = bo_create(fd, size);
	write_param("clear_jobs", 0);
	client_record(id, &r);
	/* The clear made it resident before the handle existed. */
	if (rec_u64(&r, "resident_bytes") < size) {
		fail("clear-job", "new cleared BO not resident (resident_bytes=%s)",
		     rec_str(&r, "resident_bytes"));
		ok = false;
	}
	seq = submit(fd, SIMGPU_ENGINE_COPY, MS, &bo, 1);
	wait_ok(fd, SIMGPU_ENGINE_COPY, seq);
	*copy_busy += MS;
	*copy_jobs += 1;
	client_record(0, &k1);
	if (strcmp(rec_str(&k1, "kind"), "kernel")) {
		fail("clear-job", "client 0 is not the kernel client");
		ok = false;
	}
	CHECK_EQ("clear-job", rec_eng(&k1, "copy", "submitted"),
		 rec_eng(&k0, "copy", "submitted") + 1);
	/* The user job depended on the clear: the clear finished first. */
	CHECK_EQ("clear-job", rec_eng(&k1, "copy", "completed"),
		 rec_eng(&k0, "copy", "completed") + 1);
	CHECK_EQ("clear-job", rec_eng(&k1, "copy", "busy_ns"),
		 rec_eng(&k0, "copy", "busy_ns") + clear_ns);
	CHECK_EQ("clear-job", rec_eng(&k1, "gfx", "submitted"), rec_eng(&k0, "gfx", "submitted"));
	if (ok)
		pass("clear-job");
}

static void check_fdinfo_scale(int fd, uint64_t id, const uint64_t busy[], const uint64_t jobs[])
{
	unsigned long old = read_param("fdinfo_scale_pct");

	write_param("fdinfo_scale_pct", 50);
	check_engines("fdinfo-scale-50", fd, id, busy, jobs);
	write_param("fdinfo_scale_pct", 250);
	check_engines("fdinfo-scale-250", fd, id, busy, jobs);
	write_param("fdinfo_scale_pct", old);
}

/* Every engine's total is the sum over all clients listed (nothing dropped in this run). */
static void check_engine_totals(void)
{
	char line[2048];
	uint64_t sum_busy[SIMGPU_ENGINE_COUNT] = { 0 }, sum_jobs[SIMGPU_ENGINE_COUNT] = { 0 };
	uint64_t sum_sub[SIMGPU_ENGINE_COUNT] = { 0 }, sum_can[SIMGPU_ENGINE_COUNT] = { 0 };
	struct record r;
	unsigned int e;
	bool ok = true;
	FILE *f = fopen(DEBUGFS "/clients", "r");

	if (!f)
		die("engine-totals", "cannot open " DEBUGFS "/clients");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "closed_dropped ", 15)) {
			parse_record(line + 15, &r);
			CHECK_EQ("engine-totals", rec_u64(&r, "count"), 0);
		}
		if (strncmp(line, "client ", 7))
			continue;
		parse_record(line + 7, &r);
		for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
			sum_busy[e] += rec_eng(&r, engine_names[e], "busy_ns");
			sum_jobs[e] += rec_eng(&r, engine_names[e], "completed");
			sum_sub[e] += rec_eng(&r, engine_names[e], "submitted");
			sum_can[e] += rec_eng(&r, engine_names[e], "cancelled");
		}
	}
	fclose(f);
	for (e = 0; e < SIMGPU_ENGINE_COUNT; e++) {
		if (!debugfs_find("engines", "engine", "name", engine_names[e], &r))
			die("engine-totals", "no engine %s", engine_names[e]);
		CHECK_EQ("engine-totals", rec_u64(&r, "busy_ns"), sum_busy[e]);
		CHECK_EQ("engine-totals", rec_u64(&r, "completed"), sum_jobs[e]);
		CHECK_EQ("engine-totals", rec_u64(&r, "submitted"), sum_sub[e]);
		CHECK_EQ("engine-totals", rec_u64(&r, "cancelled"), sum_can[e]);
		CHECK_EQ("engine-totals", rec_u64(&r, "submitted"), sum_jobs[e] + sum_can[e]);
		CHECK_EQ("engine-totals", rec_u64(&r, "on_hardware"), 0);
	}
	if (ok)
		pass("engine-totals");
}

/* drm_sched's own tracepoints saw every job: queue, run and done, on the right ring. */
static void trace_write(const char *file, const char *v)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	f = fopen(path, "w");
	if (!f || fputs(v, f) < 0 || fclose(f))
		die("tracepoints", "cannot write %s", path);
}

static void trace_append(const char *file, const char *v)
{
	char path[128];
	ssize_t len = (ssize_t)strlen(v);
	int fd;

	/* Plain write(2): stdio's append mode seeks, which tracefs refuses. */
	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0 || write(fd, v, len) != len)
		die("tracepoints", "cannot append '%s' to %s: %s", v, path, strerror(errno));
	close(fd);
}

/* Whether gpu_sched's BTF has the string @name (a type or member name), NUL included. */
static bool gpu_sched_btf_has(const char *name)
{
	size_t len = strlen(name) + 1, n, keep = 0;
	char buf[65536];
	bool found = false;
	FILE *f = fopen("/sys/kernel/btf/gpu_sched", "rb");

	if (!f)
		die("tracepoints", "cannot read /sys/kernel/btf/gpu_sched");
	while (!found && (n = fread(buf + keep, 1, sizeof(buf) - keep, f)) > 0) {
		n += keep;
		found = memmem(buf, n, name, len) != NULL;
		keep = n < len - 1 ? n : len - 1;
		memmove(buf, buf + n - keep, keep);
	}
	fclose(f);
	return found;
}

/*
 * Whether tracefs takes tracepoint probes ("t:" dynamic events, CONFIG_FPROBE_EVENTS): its README
 * lists the syntax then. Debian's amd64 6.12 has them, its arm64 6.12 not (no FPROBE there).
 */
static bool tracefs_has_tprobes(void)
{
	char line[512];
	bool has = false;
	FILE *f = fopen(TRACEFS "/README", "r");

	if (!f)
		return false;
	while (!has && fgets(line, sizeof(line), f))
		has = strstr(line, "t[:[<group>/][<event>]]") != NULL;
	fclose(f);
	return has;
}

static void check_tracepoints(int fd, uint64_t id)
{
	/*
	 * Whether drm_sched_fence has drm_client_id (6.12.10x+ stable, 6.17+): then a BTF-typed
	 * tracepoint probe reads the client id drm_sched stored in the job's fence.
	 */
	bool has_cid = gpu_sched_btf_has("drm_client_id"), tprobes = tracefs_has_tprobes();
	bool cid = has_cid && tprobes;
	unsigned int cid_ok = 0, cid_bad = 0;
	/*
	 * Queue, run and done: 6.1 .. 6.16 names, or those 6.17 renamed them to (KERNEL-NOTES.md),
	 * whichever this kernel has: its gpu_sched BTF holds a btf_trace_<name> typedef per event.
	 */
	static const char *const old_events[] = { "drm_sched_job", "drm_run_job",
						   "drm_sched_process_job" };
	static const char *const new_events[] = { "drm_sched_job_queue", "drm_sched_job_run",
						   "drm_sched_job_done" };
	const char *const *events = gpu_sched_btf_has("btf_trace_drm_sched_job_queue") ?
				    new_events : old_events;
	unsigned int counts[3] = { 0 }, i, n = 3;
	char line[1024], pat[64];
	uint64_t seq = 0;
	bool ok = true;
	FILE *f;

	printf("# tracepoints: %s, %s, %s\n", events[0], events[1], events[2]);
	for (i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "events/gpu_scheduler/%s/enable", events[i]);
		trace_write(line, "1");
	}
	if (cid) {
		snprintf(line, sizeof(line), "t:simgpu_smoke/run %s "
			 "cid=sched_job->s_fence->drm_client_id:u64\n", events[1]);
		trace_append("dynamic_events", line);
		trace_write("events/simgpu_smoke/run/enable", "1");
	}
	trace_write("trace", "");
	for (i = 0; i < n; i++)
		seq = submit(fd, SIMGPU_ENGINE_COMPUTE, MS, NULL, 0);
	wait_ok(fd, SIMGPU_ENGINE_COMPUTE, seq);
	for (i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "events/gpu_scheduler/%s/enable", events[i]);
		trace_write(line, "0");
	}
	if (cid)
		trace_write("events/simgpu_smoke/run/enable", "0");
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		die("tracepoints", "cannot read " TRACEFS "/trace");
	while (fgets(line, sizeof(line), f)) {
		char *c = strstr(line, " run: ");

		if (c)
			c = strstr(c, "cid=");
		if (c) {
			if (strtoull(c + 4, NULL, 10) == id)
				cid_ok++;
			else
				cid_bad++;
		}
		for (i = 0; i < 3; i++) {
			snprintf(pat, sizeof(pat), " %s: ", events[i]);
			/* done prints only the fence; queue and run print the ring. */
			if (strstr(line, pat) && (i == 2 || strstr(line, "ring=compute")))
				counts[i]++;
		}
	}
	fclose(f);
	for (i = 0; i < 3; i++)
		if (counts[i] != n) {
			fail("tracepoints", "%u %s events for %u compute jobs", counts[i], events[i],
			     n);
			ok = false;
		}
	if (ok)
		pass("tracepoints");
	if (!cid) {
		printf("# fence-client-id: not checked, %s\n",
		       has_cid ? "this kernel's tracefs has no tracepoint probes (t:)"
			       : "this kernel's drm_sched_fence has no drm_client_id");
		return;
	}
	trace_append("dynamic_events", "-:simgpu_smoke/run\n");
	if (cid_ok == n && cid_bad == 0)
		pass("fence-client-id");
	else
		fail("fence-client-id", "%u run events carried client id %" PRIu64 ", %u another "
		     "(expected %u and 0)", cid_ok, id, cid_bad, n);
}

int main(void)
{
	uint64_t busy[SIMGPU_ENGINE_COUNT] = { 0 }, jobs[SIMGPU_ENGINE_COUNT] = { 0 };
	const uint64_t sizes[3] = { PAGE, 64 * 1024, 1024 * 1024 + 1 };
	uint64_t id, bytes = 0, seq = 0, child_id = 0, rsize[3];
	uint32_t bos[3];
	struct fdinfo fi;
	unsigned int i;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open_simgpu();
	if (fd < 0)
		die("open", "no /dev/dri/renderD* driven by simgpu");
	if (read_param("fdinfo_scale_pct") != 100 || read_param("clear_jobs") != 0)
		die("params", "run with default fdinfo_scale_pct and clear_jobs");
	check_identity(fd, &fi);
	id = fi.client_id;

	for (i = 0; i < 3; i++) {
		bos[i] = bo_create(fd, sizes[i]);
		rsize[i] = page_round(sizes[i]);
		bytes += rsize[i];
	}
	/* shmem pages arrive with the first job that uses a BO. */
	check_memory("memory-created", fd, id, 3, bytes, 0, 0);

	/* Serialized jobs (compute and copy have depth 1): busy = exact sum of durations. */
	seq = submit(fd, SIMGPU_ENGINE_COMPUTE, 5 * MS, &bos[0], 1);
	seq = submit(fd, SIMGPU_ENGINE_COMPUTE, 7 * MS, &bos[1], 1);
	seq = submit(fd, SIMGPU_ENGINE_COMPUTE, 11 * MS, NULL, 0);
	wait_ok(fd, SIMGPU_ENGINE_COMPUTE, seq);
	busy[SIMGPU_ENGINE_COMPUTE] += 23 * MS;
	jobs[SIMGPU_ENGINE_COMPUTE] += 3;
	seq = submit(fd, SIMGPU_ENGINE_COPY, 3 * MS, bos, 2);
	seq = submit(fd, SIMGPU_ENGINE_COPY, 4 * MS + 1, NULL, 0);
	wait_ok(fd, SIMGPU_ENGINE_COPY, seq);
	busy[SIMGPU_ENGINE_COPY] += 7 * MS + 1;
	jobs[SIMGPU_ENGINE_COPY] += 2;
	check_engines("engines-serialized", fd, id, busy, jobs);
	check_memory("memory-resident", fd, id, 3, bytes, 0, rsize[0] + rsize[1]);

	busy[SIMGPU_ENGINE_GFX] += check_gfx_ring(fd, id, &jobs[SIMGPU_ENGINE_GFX]);
	check_engines("engines-gfx-overlap", fd, id, busy, jobs);

	if (wait_job(fd, SIMGPU_ENGINE_GFX, submit(fd, SIMGPU_ENGINE_GFX, 500 * MS, &bos[1], 1),
		     0) != -ETIME)
		fail("wait-timeout", "WAIT with timeout 0 on a 500 ms job did not return -ETIME");
	else
		pass("wait-timeout");
	check_active("memory-active-busy", fd, id, rsize[1]);
	wait_ok(fd, SIMGPU_ENGINE_GFX, jobs[SIMGPU_ENGINE_GFX] + 1);
	check_active("memory-active-idle", fd, id, 0);
	busy[SIMGPU_ENGINE_GFX] += 500 * MS;
	jobs[SIMGPU_ENGINE_GFX] += 1;

	check_bad_input(fd, bos[0]);
	check_engines("engines-after-bad-input", fd, id, busy, jobs);

	check_prime_child(fd, bos[2], rsize[2], &child_id);
	/* Exported: shared for its exporter too, by the usage-stats rule (dma_buf set). */
	check_memory("memory-shared", fd, id, 3, bytes, rsize[2], rsize[0] + rsize[1] + rsize[2]);

	{
		struct drm_gem_close gc = { .handle = bos[0] };

		if (xioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc))
			fail("gem-close", "GEM_CLOSE: %s", strerror(errno));
		check_memory("memory-gem-close", fd, id, 2, bytes - rsize[0], rsize[2],
			     rsize[1] + rsize[2]);
	}

	check_vgem_import(fd, id, 2, bytes - rsize[0], rsize[2], rsize[1] + rsize[2],
			  &busy[SIMGPU_ENGINE_COPY], &jobs[SIMGPU_ENGINE_COPY]);
	check_clear_jobs(fd, id, &busy[SIMGPU_ENGINE_COPY], &jobs[SIMGPU_ENGINE_COPY]);
	check_fdinfo_scale(fd, id, busy, jobs);
	check_engines("fdinfo-scale-restored", fd, id, busy, jobs);
	check_close_in_flight();
	check_exit_with_queue();
	check_concurrent_clients();
	check_tracepoints(fd, id);
	jobs[SIMGPU_ENGINE_COMPUTE] += 3;
	busy[SIMGPU_ENGINE_COMPUTE] += 3 * MS;
	check_engines("engines-final", fd, id, busy, jobs);
	check_engine_totals();
	close(fd);
	return failures ? 1 : 0;
}
