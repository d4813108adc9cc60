// SPDX-License-Identifier: GPL-2.0-only
/*
 * DRM client discovery over a proc tree and sample-to-sample state; see include/drmtop/proc_scan.h
 * for the identity rules. procfs behaviour relied on: fd/<n> magic links read as the file's
 * d_path() text and stat to the device node, fdinfo/<n> is text, exiting tasks give
 * ENOENT/ESRCH, foreign ones EACCES. Checked on the host's 6.18 procfs; 6.1 and 6.12 through the
 * VM suites.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "drmtop/guarded_read.h"
#include "drmtop/proc_read.h"
#include "drmtop/proc_scan.h"
#include "drmtop/sysfs_device.h"
#include "drmtop/util/span.h"
#include "drmtop/util/strmap.h"
#include "drmtop/util/vec.h"

/*
 * How long a sample waits for a command line before going on without it: paid once per hung
 * process, whose worker is then left blocked and replaced, a few times at most.
 */
#define CMDLINE_TIMEOUT_MS	500
#define CMDLINE_STUCK_MAX	4

struct clients {
	struct drm_client *v;
	size_t nr, cap;
};

/* A process's command line, read once in its life: keyed "<pid>@<start time>". */
struct proc_cmdline {
	char *key;
	char *cmdline;		/* NULL: empty, or blocked */
	bool blocked;		/* its read never returned in time: not tried again */
	unsigned long gen;	/* sample that last saw the process */
};

struct drm_scan {
	char *root;
	char *sys_root;		/* "" disables sysfs lookups */
	struct drm_scan_ops ops;
	bool read_cmdline;
	struct guarded_read *cmdline_reader;
	bool cmdline_in_place;		/* no thread to be had: read in the sampler itself */
	unsigned int cmdline_timeout_ms;
	unsigned int cmdline_stuck;	/* workers left blocked (then no reader past the max) */
	struct strmap cmdline_by_proc;	/* proc_cmdline.key -> entry of cmdlines */
	struct proc_cmdline **cmdlines;
	size_t nr_cmdlines, cap_cmdlines;
	unsigned long gen;		/* samples taken */
	bool pidns_known, own_pidns;	/* drm_scan_root_is_own_pidns, asked once */
	unsigned int read_flags;	/* DRM_READ_ONE_RECORD where the root is procfs itself */

	struct clients cur;	/* latest sample */
	struct clients gone;	/* of the previous sample, absent from the latest */
	struct drm_scan_stats stats;
	/* sysfs device key per node, looked up once a sample (drm_scan_node_key) */
	struct node_rec *nodes;
	size_t nr_nodes, cap_nodes;
	struct strmap node_at;		/* "major:minor" -> index + 1 in nodes */
};

/* One DRM/accel fd found in this sample, before grouping. */
struct fd_rec {
	pid_t pid;
	int fd;
	dev_t rdev;
	uint64_t ts;
	uint64_t read_ns;	/* how long the read took: the driver printed somewhere in it */
	struct drm_fdinfo info;
};

struct proc_rec {
	pid_t pid;
	char comm[17];
	char *cmdline;
	char *cgroup;
};

/* key NULL: sysfs could not tell */
struct node_rec {
	dev_t rdev;
	char *key;
};

static void forget_nodes(struct drm_scan *s);

struct walk {
	struct fd_rec *fds;
	size_t nr_fds, cap_fds;
	struct proc_rec *procs;		/* by pid, ascending */
	size_t nr_procs, cap_procs;
};

static long sys_readlink(void *ctx, const char *path, char *buf, size_t len)
{
	ssize_t n;

	(void)ctx;
	n = readlink(path, buf, len);
	return n < 0 ? -errno : (long)n;
}

static int sys_stat(void *ctx, const char *path, struct stat *st)
{
	(void)ctx;
	return stat(path, st) ? -errno : 0;
}

static int sys_same_file(void *ctx, pid_t pid1, int fd1, pid_t pid2, int fd2)
{
	long r;

	(void)ctx;
	r = syscall(SYS_kcmp, pid1, pid2, KCMP_FILE, fd1, fd2);
	return r < 0 ? -errno : (int)r;
}

static uint64_t sys_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void no_hook(void *ctx, enum drm_scan_point point, pid_t pid, int fd)
{
	(void)ctx;
	(void)point;
	(void)pid;
	(void)fd;
}

/* A tree of test files (--proc-root) reads to EOF; procfs's one-record files need not. */
static bool on_procfs(const char *root)
{
	struct statfs fs;

	return !statfs(root, &fs) && fs.f_type == PROC_SUPER_MAGIC;
}

struct drm_scan *drm_scan_new(const struct drm_scan_opts *opts)
{
	const char *root = opts && opts->proc_root ? opts->proc_root : "/proc";
	const char *sys = opts && opts->sys_root ? opts->sys_root : "/sys";
	struct drm_scan *s;

	/* room for "/<pid>/fdinfo/<fd>" after the root */
	if (strlen(root) > PATH_MAX - 64) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->root = strdup(root);
	s->sys_root = strdup(sys);
	if (!s->root || !s->sys_root) {
		free(s->root);
		free(s->sys_root);
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	if (opts && opts->ops)
		s->ops = *opts->ops;
	if (!s->ops.readlink)
		s->ops.readlink = sys_readlink;
	if (!s->ops.stat)
		s->ops.stat = sys_stat;
	if (!s->ops.same_file)
		s->ops.same_file = sys_same_file;
	if (!s->ops.now_ns)
		s->ops.now_ns = sys_now_ns;
	if (!s->ops.hook)
		s->ops.hook = no_hook;
	s->read_flags = on_procfs(root) ? DRM_READ_ONE_RECORD : 0;
	s->read_cmdline = opts && opts->read_cmdline;
	if (s->read_cmdline) {
		s->cmdline_timeout_ms = opts->cmdline_timeout_ms ? opts->cmdline_timeout_ms
								 : CMDLINE_TIMEOUT_MS;
		s->cmdline_reader = guarded_read_new(s->cmdline_timeout_ms);
		/* Without a thread the read is done in place, as before: unguarded but not lost. */
		s->cmdline_in_place = !s->cmdline_reader;
	}
	return s;
}

static void drop_cmdline(struct drm_scan *s, size_t i)
{
	struct proc_cmdline *pc = s->cmdlines[i];

	strmap_del(&s->cmdline_by_proc, pc->key);
	free(pc->key);
	free(pc->cmdline);
	free(pc);
	s->cmdlines[i] = s->cmdlines[--s->nr_cmdlines];
}

/* Forgets the processes the latest sample did not see (gone, or without DRM files now). */
static void prune_cmdlines(struct drm_scan *s)
{
	size_t i = 0;

	while (i < s->nr_cmdlines) {
		if (s->cmdlines[i]->gen != s->gen)
			drop_cmdline(s, i);
		else
			i++;
	}
}

static void client_free(struct drm_client *c)
{
	size_t i;

	free(c->key);
	free(c->dev_key);
	free(c->cmdline);
	free(c->cgroup);
	free(c->holders);
	drm_fdinfo_free(&c->info);
	free(c->usage);
	for (i = 0; i < c->nr_tracks; i++)
		drm_engine_track_free(&c->tracks[i]);
	free(c->tracks);
	memset(c, 0, sizeof(*c));
}

static void clients_free(struct clients *cs)
{
	size_t i;

	for (i = 0; i < cs->nr; i++)
		client_free(&cs->v[i]);
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

void drm_scan_free(struct drm_scan *scan)
{
	if (!scan)
		return;
	clients_free(&scan->cur);
	clients_free(&scan->gone);
	while (scan->nr_cmdlines)
		drop_cmdline(scan, 0);
	free(scan->cmdlines);
	strmap_fini(&scan->cmdline_by_proc);
	guarded_read_free(scan->cmdline_reader);
	forget_nodes(scan);
	free(scan->root);
	free(scan->sys_root);
	free(scan);
}

static void walk_free(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->nr_fds; i++)
		drm_fdinfo_free(&w->fds[i].info);
	for (i = 0; i < w->nr_procs; i++) {
		free(w->procs[i].cmdline);
		free(w->procs[i].cgroup);
	}
	free(w->fds);
	free(w->procs);
}

static void forget_nodes(struct drm_scan *s)
{
	size_t i;

	for (i = 0; i < s->nr_nodes; i++)
		free(s->nodes[i].key);
	free(s->nodes);
	s->nodes = NULL;
	s->nr_nodes = s->cap_nodes = 0;
	strmap_fini(&s->node_at);
}

/* Count a per-process/per-fd failure; these never end a scan. */
static void count_error(struct drm_scan_stats *st, int err)
{
	switch (-err) {
	case ENOENT:
	case ESRCH:
		st->vanished++;
		break;
	case EACCES:
	case EPERM:
		st->denied++;
		break;
	default:
		st->errors++;
		break;
	}
}

static bool parse_num(const char *s, long max, long *out)
{
	long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (max - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return true;
}

uint64_t drm_proc_start_time(const char *stat)
{
	const char *p = strrchr(stat, ')');
	unsigned long long v;
	int field;

	/* comm may hold spaces and parentheses: fields are counted from the last ')' */
	if (!p)
		return 0;
	p++;
	for (field = 3; field < 22 && *p; field++) {
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
	}
	return sscanf(p, " %llu", &v) == 1 ? v : 0;
}

/* The process's start time (clock ticks after boot), 0 when its stat cannot tell. */
static uint64_t start_time_of(struct drm_scan *s, pid_t pid)
{
	char path[PATH_MAX];
	uint64_t t;
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/%d/stat", s->root, (int)pid);
	if (drm_read_file_flags(path, s->read_flags, &buf, &len))
		return 0;
	t = drm_proc_start_time(buf);
	free(buf);
	return t;
}

static int dup_cmdline(const char *cmdline, char **out)
{
	*out = cmdline ? strdup(cmdline) : NULL;
	return cmdline && !*out ? -ENOMEM : 0;
}

static int remember_cmdline(struct drm_scan *s, const char *key, const char *cmdline,
			    bool blocked)
{
	struct proc_cmdline *pc = calloc(1, sizeof(*pc)), **slot;

	if (!pc || !(pc->key = strdup(key)) || dup_cmdline(cmdline, &pc->cmdline) ||
	    !(slot = vec_push(s->cmdlines, s->nr_cmdlines, s->cap_cmdlines))) {
		if (pc) {
			free(pc->key);
			free(pc->cmdline);
		}
		free(pc);
		return -ENOMEM;
	}
	if (strmap_put(&s->cmdline_by_proc, key, pc)) {
		s->nr_cmdlines--;
		free(pc->key);
		free(pc->cmdline);
		free(pc);
		return -ENOMEM;
	}
	pc->blocked = blocked;
	pc->gen = s->gen;
	*slot = pc;
	return 0;
}

/* drm_read_cmdline on the guarded reader; -EBUSY when no reader is left to ask. */
static int read_cmdline(struct drm_scan *s, const char *path, char **cmdline)
{
	int err;

	if (s->cmdline_in_place)
		return drm_read_cmdline(path, cmdline);
	if (!s->cmdline_reader)
		return -EBUSY;
	err = guarded_read_cmdline(s->cmdline_reader, path, cmdline);
	if (err == -ETIMEDOUT) {
		/* The worker stays blocked with that process; a fresh one serves the others. */
		guarded_read_free(s->cmdline_reader);
		s->cmdline_reader = ++s->cmdline_stuck < CMDLINE_STUCK_MAX ?
				    guarded_read_new(s->cmdline_timeout_ms) : NULL;
	}
	return err;
}

/*
 * The command line of @pid, read once in the process's life (pid and start time: a reused pid
 * is another process) and on the guarded reader: reading it takes the process's mmap_lock, held
 * for ever by a fault on a hung mount. One not read in time is left NULL and counted at every
 * sample; a process whose read timed out is not asked again.
 */
static int note_cmdline(struct drm_scan *s, pid_t pid, char **cmdline)
{
	uint64_t start = start_time_of(s, pid);
	struct proc_cmdline *pc = NULL;
	char path[PATH_MAX], key[48];
	int err;

	*cmdline = NULL;
	snprintf(key, sizeof(key), "%d@%llu", (int)pid, (unsigned long long)start);
	if (start)
		pc = strmap_get(&s->cmdline_by_proc, key);
	if (pc) {
		pc->gen = s->gen;
		s->stats.cmdline_blocked += pc->blocked;
		return dup_cmdline(pc->cmdline, cmdline);
	}
	snprintf(path, sizeof(path), "%s/%d/cmdline", s->root, (int)pid);
	err = read_cmdline(s, path, cmdline);
	if (err == -ETIMEDOUT || err == -EBUSY) {
		s->stats.cmdline_blocked++;
		/* Without a start time the pid could be reused unseen: asked again next time. */
		return start && err == -ETIMEDOUT ? remember_cmdline(s, key, NULL, true) : 0;
	}
	if (err == -ENOMEM)
		return err;
	if (err) {
		count_error(&s->stats, err);
		return 0;
	}
	return start ? remember_cmdline(s, key, *cmdline, false) : 0;
}

/*
 * comm and cgroup (every sample: a process may rename itself, or be moved) and cmdline, on its
 * first DRM fd.
 */
static int note_process(struct drm_scan *s, struct walk *w, pid_t pid)
{
	char path[PATH_MAX];
	struct proc_rec *p;
	int err;

	if (w->nr_procs && w->procs[w->nr_procs - 1].pid == pid)
		return 0;
	p = vec_push(w->procs, w->nr_procs, w->cap_procs);
	if (!p)
		return -ENOMEM;
	p->pid = pid;
	snprintf(path, sizeof(path), "%s/%d/comm", s->root, (int)pid);
	err = drm_read_comm(path, s->read_flags, p->comm, sizeof(p->comm));
	if (err == -ENOMEM)
		return err;
	if (err)
		count_error(&s->stats, err);
	snprintf(path, sizeof(path), "%s/%d/cgroup", s->root, (int)pid);
	err = drm_read_cgroup(path, s->read_flags, &p->cgroup);
	if (err == -ENOMEM)
		return err;
	/* Not every proc tree has it (a kernel without cgroups, a test's tree): no error. */
	if (err && err != -ENOENT)
		count_error(&s->stats, err);
	return s->read_cmdline ? note_cmdline(s, pid, &p->cmdline) : 0;
}

/* @needle anywhere in the first @len bytes of @s (which need not be terminated). */
static bool contains(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; i + n <= len; i++)
		if (!memcmp(s + i, needle, n))
			return true;
	return false;
}

/*
 * Nodes every process has open (its standard descriptors: a terminal, /dev/null) whose names
 * the kernel's own drivers hold in devtmpfs: never a DRM node, so never stat()ed (at 2,000
 * processes of three such fds each, 6,000 stat calls a refresh).
 */
static bool standard_node(const char *link, size_t len)
{
	static const char *const names[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/console",
		"/dev/ptmx", "/dev/kmsg",
	};
	static const char *const prefixes[] = { "/dev/pts/", "/dev/tty", "/dev/hvc" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (len == strlen(names[i]) && !memcmp(link, names[i], len))
			return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (span_has_prefix(link, len, prefixes[i]))
			return true;
	return false;
}

bool drm_fd_link_may_be_node(const char *link, size_t len)
{
	static const char deleted[] = " (deleted)";
	const size_t dlen = sizeof(deleted) - 1;

	if (!len || link[0] != '/')
		return false;
	if (len > dlen && !memcmp(link + len - dlen, deleted, dlen))
		len -= dlen;
	if (standard_node(link, len))
		return false;
	return span_has_prefix(link, len, "/dev/") || contains(link, len, "/dev/dri/") ||
	       contains(link, len, "/dev/accel/");
}

static bool is_drm_node(const struct stat *st)
{
	return S_ISCHR(st->st_mode) &&
	       (major(st->st_rdev) == DRM_MAJOR || major(st->st_rdev) == ACCEL_MAJOR);
}

/* The path of <pid>/fd/<fd> under the proc root, for the test seam and listed fds. */
static const char *fd_path(struct drm_scan *s, char *path, size_t size, pid_t pid, int fd)
{
	snprintf(path, size, "%s/%d/fd/%d", s->root, (int)pid, fd);
	return path;
}

/*
 * readlink of <pid>/fd/<fd>: relative to the process's fd directory @fd_dir, by the @name its
 * listing gave, when the scan reads the system itself, so the kernel resolves one path
 * component, not four (a full path per fd was a quarter of a refresh's time at 2,000
 * processes) and nothing is formatted (snprintf per fd was 5 % of drmtop's CPU in a perf
 * profile of the 6.1 guest at 2,000 processes); through the test seam by its path else.
 */
static long link_text(struct drm_scan *s, int fd_dir, const char *name, pid_t pid, int fd,
		      char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	if (fd_dir < 0 || s->ops.readlink != sys_readlink)
		return s->ops.readlink(s->ops.ctx, fd_path(s, path, sizeof(path), pid, fd), buf,
				       len);
	n = readlinkat(fd_dir, name, buf, len);
	return n < 0 ? -errno : (long)n;
}

/* stat of <pid>/fd/<fd>, the node it links to: as link_text() reads it. */
static int link_stat(struct drm_scan *s, int fd_dir, const char *name, pid_t pid, int fd,
		     struct stat *st)
{
	char path[PATH_MAX];

	if (fd_dir < 0 || s->ops.stat != sys_stat)
		return s->ops.stat(s->ops.ctx, fd_path(s, path, sizeof(path), pid, fd), st);
	return fstatat(fd_dir, name, st, 0) ? -errno : 0;
}

/*
 * One fd of @pid: keep it if it is a DRM/accel device whose fdinfo could be read. @fd_dir is
 * the process's open fd directory and @name @fd's entry in it, or -1 and NULL (a listed fd: no
 * directory was read).
 */
static int scan_fd(struct drm_scan *s, struct walk *w, int fd_dir, const char *name, pid_t pid,
		   int fd)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct drm_fdinfo info;
	struct fd_rec *r;
	struct stat st;
	uint64_t ts, t0;
	size_t len;
	char *buf;
	long n;
	int err;

	s->stats.fds++;
	s->ops.hook(s->ops.ctx, DRM_SCAN_AT_FD, pid, fd);
	/*
	 * The link text first: stat() would reach the file's filesystem, and on a hung network
	 * mount it never returns. A path too long for d_path (ENAMETOOLONG) is no device node.
	 */
	n = link_text(s, fd_dir, name, pid, fd, link, sizeof(link));
	if (n < 0) {
		if (n != -ENAMETOOLONG)
			count_error(&s->stats, (int)n);
		return 0;
	}
	if (!drm_fd_link_may_be_node(link, (size_t)n))
		return 0;
	err = link_stat(s, fd_dir, name, pid, fd, &st);
	if (err) {
		count_error(&s->stats, err);
		return 0;
	}
	if (!is_drm_node(&st))
		return 0;

	s->ops.hook(s->ops.ctx, DRM_SCAN_AT_FDINFO, pid, fd);
	snprintf(path, sizeof(path), "%s/%d/fdinfo/%d", s->root, (int)pid, fd);
	t0 = s->ops.now_ns(s->ops.ctx);
	err = drm_read_file_flags(path, s->read_flags, &buf, &len);
	if (err == -ENOMEM)
		return err;
	if (err) {
		count_error(&s->stats, err);
		return 0;
	}
	ts = s->ops.now_ns(s->ops.ctx);
	drm_fdinfo_init(&info);
	err = drm_fdinfo_parse(&info, buf, len);
	free(buf);
	if (err)
		return err;
	r = vec_push(w->fds, w->nr_fds, w->cap_fds);
	if (!r) {
		drm_fdinfo_free(&info);
		return -ENOMEM;
	}
	r->ts = ts;
	r->read_ns = ts > t0 ? ts - t0 : 0;
	r->pid = pid;
	r->fd = fd;
	r->rdev = st.st_rdev;
	r->info = info;
	s->stats.drm_fds++;
	s->stats.malformed_lines += r->info.nr_malformed;
	if (r->info.format == DRM_FDINFO_FMT_AMDGPU_LEGACY)
		s->stats.unsupported++;
	if (!(r->info.present & DRM_FDINFO_HAS_CLIENT_ID))
		s->stats.no_client_id++;
	return note_process(s, w, pid);
}

/*
 * Every fd of @pid (@pid_name in the proc root, whose open directory is @root_dir). The fd
 * directory is listed with getdents64 on an O_DIRECTORY fd, not opendir(), whose fstat() of it
 * was one system call in six of a refresh at 2,000 processes.
 */
static int scan_pid(struct drm_scan *s, struct walk *w, int root_dir, const char *pid_name,
		    pid_t pid)
{
	size_t len = strlen(pid_name);
	char name[32], buf[4096];
	int dir, err = 0;
	ssize_t n, off;

	s->ops.hook(s->ops.ctx, DRM_SCAN_AT_PID, pid, -1);
	/* from the open root: two path components to resolve a process, not three and the mount */
	if (len > sizeof(name) - sizeof("/fd"))
		return 0;
	memcpy(name, pid_name, len);
	memcpy(name + len, "/fd", sizeof("/fd"));
	dir = openat(root_dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		count_error(&s->stats, -errno);
		return 0;
	}
	while (!err && (n = getdents64(dir, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n && !err; ) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);
			long fd;

			off += de->d_reclen;
			if (parse_num(de->d_name, INT_MAX, &fd))
				err = scan_fd(s, w, dir, de->d_name, pid, (int)fd);
		}
	}
	/*
	 * A task exiting under us ends the listing with ESRCH; ENOENT is the end of a directory
	 * removed meanwhile (as readdir() takes it), the task's exit already counted where seen.
	 */
	if (!err && n < 0 && errno != ENOENT)
		count_error(&s->stats, -errno);
	close(dir);
	return err;
}

static int walk_root(struct drm_scan *s, struct walk *w)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	d = opendir(s->root);
	if (!d)
		return -errno;
	for (;;) {
		long pid;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				err = -errno;
			break;
		}
		if (!parse_num(de->d_name, INT_MAX, &pid) || pid == 0)
			continue;
		s->stats.pids++;
		err = scan_pid(s, w, dirfd(d), de->d_name, (pid_t)pid);
		if (err)
			break;
	}
	closedir(d);
	return err;
}

static int cmp_scan_fd(const void *a, const void *b)
{
	const struct drm_scan_fd *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->fd > y->fd) - (x->fd < y->fd);
}

/*
 * The listed fds only, in pid then fd order (as the sweep meets them): each is still checked
 * as the sweep checks it (link text, then the node), since the list is older than this walk
 * and a closed fd's number may be reused by any file.
 */
static int walk_list(struct drm_scan *s, struct walk *w, const struct drm_scan_fd *fds,
		     size_t nr)
{
	struct drm_scan_fd *v;
	pid_t last = 0;
	size_t i;
	int err = 0;

	if (!nr)
		return 0;
	v = malloc(nr * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, fds, nr * sizeof(*v));
	qsort(v, nr, sizeof(*v), cmp_scan_fd);
	/* a record per listed fd at most: room once, not doubled (200 bytes and more each) */
	if (vec_reserve(w->fds, w->cap_fds, nr)) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < nr && !err; i++) {
		/* pid 0: a holder outside the proc root's namespace; never a pid of this tree */
		if (v[i].pid <= 0 || v[i].fd < 0)
			continue;
		if (i && !cmp_scan_fd(&v[i - 1], &v[i]))
			continue;	/* two threads' records of one table */
		if (v[i].pid != last) {
			last = v[i].pid;
			s->stats.pids++;
			s->ops.hook(s->ops.ctx, DRM_SCAN_AT_PID, v[i].pid, -1);
		}
		err = scan_fd(s, w, -1, NULL, v[i].pid, v[i].fd);
	}
	free(v);
	return err;
}

static int cmp_fd_rec(const void *a, const void *b)
{
	const struct fd_rec *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->fd > y->fd) - (x->fd < y->fd);
}

/*
 * The node's sysfs device key, looked up once a sample; *@key NULL when sysfs cannot tell.
 * The model names the tracer's clients' devices through it too (drm_scan_node_key).
 */
static int sysfs_key(struct drm_scan *s, dev_t rdev, const char **key)
{
	char name[32];
	struct node_rec *n;
	size_t i;

	snprintf(name, sizeof(name), "%u:%u", major(rdev), minor(rdev));
	i = (size_t)strmap_get(&s->node_at, name);
	if (i) {
		*key = s->nodes[i - 1].key;
		return 0;
	}
	n = vec_push(s->nodes, s->nr_nodes, s->cap_nodes);
	if (!n)
		return -ENOMEM;
	n->rdev = rdev;
	n->key = drm_sysfs_device_key(s->sys_root, rdev);
	if (strmap_put(&s->node_at, name, (void *)s->nr_nodes)) {
		free(n->key);
		s->nr_nodes--;
		return -ENOMEM;
	}
	*key = n->key;
	return 0;
}

const char *drm_scan_node_key(struct drm_scan *s, dev_t rdev)
{
	const char *key = NULL;

	return sysfs_key(s, rdev, &key) ? NULL : key;
}

/* Device identity, rules 1-4 of proc_scan.h. */
static char *dev_key_of(struct drm_scan *s, const struct fd_rec *r)
{
	const char *sys_key;
	char *k = NULL;
	int n;

	if (r->info.pdev)
		return asprintf(&k, "pdev:%s", r->info.pdev) < 0 ? NULL : k;
	if (sysfs_key(s, r->rdev, &sys_key))
		return NULL;
	if (sys_key)
		return strdup(sys_key);
	if (r->info.driver)
		n = asprintf(&k, "%s@%u:%u", r->info.driver, major(r->rdev), minor(r->rdev));
	else
		n = asprintf(&k, "%u:%u", major(r->rdev), minor(r->rdev));
	return n < 0 ? NULL : k;
}

static char *client_key_of(const struct fd_rec *r, const char *dev_key)
{
	char *k = NULL;
	int n;

	if (r->info.present & DRM_FDINFO_HAS_CLIENT_ID)
		n = asprintf(&k, "%s#%llu", dev_key, (unsigned long long)r->info.client_id);
	else
		n = asprintf(&k, "%u:%u#%d/%d", major(r->rdev), minor(r->rdev), (int)r->pid, r->fd);
	return n < 0 ? NULL : k;
}

static int add_holder(struct drm_client *c, pid_t pid, int fd)
{
	struct drm_client_holder *h = vec_push(c->holders, c->nr_holders, c->cap_holders);

	if (!h)
		return -ENOMEM;
	h->pid = pid;
	h->fd = fd;
	return 0;
}

static int cmp_proc_rec(const void *a, const void *b)
{
	const struct proc_rec *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static const struct proc_rec *find_proc(const struct walk *w, pid_t pid)
{
	struct proc_rec key = { .pid = pid };

	return w->nr_procs ? bsearch(&key, w->procs, w->nr_procs, sizeof(key), cmp_proc_rec) : NULL;
}

/* Which existing client (index) does fd record @r belong to, or -1 for a new one. */
static long find_client(struct drm_scan *s, const struct clients *cs, const struct fd_rec *r,
			const char *key)
{
	size_t i;

	if (r->info.present & DRM_FDINFO_HAS_CLIENT_ID) {
		for (i = 0; i < cs->nr; i++)
			if (!strcmp(cs->v[i].key, key))
				return (long)i;
		return -1;
	}
	/* No id: the same open file is what kcmp(KCMP_FILE) says it is. */
	for (i = 0; i < cs->nr; i++) {
		const struct drm_client *c = &cs->v[i];
		int same;

		if (c->rdev != r->rdev || (c->info.present & DRM_FDINFO_HAS_CLIENT_ID))
			continue;
		same = s->ops.same_file(s->ops.ctx, c->pid, c->fd, r->pid, r->fd);
		if (same == 0)
			return (long)i;
		if (same < 0)
			s->stats.kcmp_failed++;
	}
	return -1;
}

/* Group the (sorted) fd records into clients; records' fdinfo is moved into the clients. */
static int group(struct drm_scan *s, struct walk *w, struct clients *out)
{
	size_t i;

	/* at most a client per fd: room for all at once, not doubled (320 bytes a client) */
	if (w->nr_fds && vec_reserve(out->v, out->cap, w->nr_fds))
		return -ENOMEM;
	for (i = 0; i < w->nr_fds; i++) {
		struct fd_rec *r = &w->fds[i];
		const struct proc_rec *p;
		struct drm_client *c;
		char *dev_key, *key;
		long idx;

		dev_key = dev_key_of(s, r);
		key = dev_key ? client_key_of(r, dev_key) : NULL;
		if (!key) {
			free(dev_key);
			return -ENOMEM;
		}
		idx = find_client(s, out, r, key);
		if (idx >= 0) {
			free(dev_key);
			free(key);
			if (add_holder(&out->v[idx], r->pid, r->fd))
				return -ENOMEM;
			continue;
		}
		c = vec_push(out->v, out->nr, out->cap);
		if (!c) {
			free(dev_key);
			free(key);
			return -ENOMEM;
		}
		c->key = key;
		c->dev_key = dev_key;
		c->rdev = r->rdev;
		c->accel = major(r->rdev) == ACCEL_MAJOR;
		c->pid = r->pid;
		c->fd = r->fd;
		c->sample_ns = r->ts;
		c->read_ns = r->read_ns;
		c->info = r->info;
		drm_fdinfo_init(&r->info);
		p = find_proc(w, r->pid);
		if (p) {
			memcpy(c->comm, p->comm, sizeof(c->comm));
			if (p->cmdline) {
				c->cmdline = strdup(p->cmdline);
				if (!c->cmdline)
					return -ENOMEM;
			}
			if (p->cgroup) {
				c->cgroup = strdup(p->cgroup);
				if (!c->cgroup)
					return -ENOMEM;
			}
		}
		if (add_holder(c, r->pid, r->fd))
			return -ENOMEM;
	}
	return 0;
}

static struct drm_engine_track *find_track(struct drm_client *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_tracks; i++)
		if (!strcmp(c->tracks[i].name, name))
			return &c->tracks[i];
	return NULL;
}

/* Appends @t (taking what it holds) to @c's tracks; on -ENOMEM @t is freed. */
static int add_track(struct drm_client *c, struct drm_engine_track *t)
{
	struct drm_engine_track *slot = vec_push(c->tracks, c->nr_tracks, c->cap_tracks);

	if (!slot) {
		drm_engine_track_free(t);
		return -ENOMEM;
	}
	*slot = *t;
	return 0;
}

/* First sample of a client: counters become the base, no figures. */
static int start_client(struct drm_client *c)
{
	size_t i;

	c->is_new = true;
	c->usage = calloc(c->info.nr_engines ? c->info.nr_engines : 1, sizeof(*c->usage));
	/* kept as long as the client lives: room for its engines, not a vector's first 8 */
	if (!c->usage || (c->info.nr_engines &&
			  vec_reserve(c->tracks, c->cap_tracks, c->info.nr_engines)))
		return -ENOMEM;
	for (i = 0; i < c->info.nr_engines; i++) {
		struct drm_engine_track t;

		if (drm_engine_track_init(&t, &c->info.engines[i]) || add_track(c, &t))
			return -ENOMEM;
	}
	return 0;
}

/* Later sample: take over @prev's counters and compute usage over the interval. */
static int continue_client(struct drm_client *c, struct drm_client *prev)
{
	size_t i;

	c->tracks = prev->tracks;
	c->nr_tracks = prev->nr_tracks;
	c->cap_tracks = prev->cap_tracks;
	prev->tracks = NULL;
	prev->nr_tracks = prev->cap_tracks = 0;
	c->dt_ns = c->sample_ns > prev->sample_ns ? c->sample_ns - prev->sample_ns : 0;
	/* dt_ns starts at the end of the previous read; the driver's reading may precede it */
	c->dt_slack_ns = prev->read_ns;
	c->usage = calloc(c->info.nr_engines ? c->info.nr_engines : 1, sizeof(*c->usage));
	if (!c->usage)
		return -ENOMEM;
	for (i = 0; i < c->info.nr_engines; i++) {
		const struct drm_fdinfo_engine *e = &c->info.engines[i];
		struct drm_engine_track *t = find_track(c, e->name);

		if (!t) {
			struct drm_engine_track nt = { .name = strdup(e->name) };

			if (!nt.name || add_track(c, &nt))
				return -ENOMEM;
			t = &c->tracks[c->nr_tracks - 1];
		}
		drm_engine_usage_update(t, e, c->dt_ns, c->dt_slack_ns, &c->usage[i]);
	}
	return 0;
}

static int cmp_client_key(const void *a, const void *b)
{
	const struct drm_client *const *x = a, *const *y = b;

	return strcmp((*x)->key, (*y)->key);
}

/* Match @cur against the previous sample; what is left of @prev afterwards is gone. */
static int carry_over(struct clients *cur, struct clients *prev, bool *matched)
{
	struct drm_client **idx = NULL;
	size_t i;
	int err = 0;

	if (prev->nr) {
		idx = malloc(prev->nr * sizeof(*idx));
		if (!idx)
			return -ENOMEM;
		for (i = 0; i < prev->nr; i++)
			idx[i] = &prev->v[i];
		qsort(idx, prev->nr, sizeof(*idx), cmp_client_key);
	}
	for (i = 0; i < cur->nr && !err; i++) {
		struct drm_client *c = &cur->v[i], **hit = NULL;

		if (prev->nr) {
			struct drm_client *pc = c;

			hit = bsearch(&pc, idx, prev->nr, sizeof(*idx), cmp_client_key);
		}
		if (hit) {
			matched[*hit - prev->v] = true;
			err = continue_client(c, *hit);
		} else {
			err = start_client(c);
		}
	}
	free(idx);
	return err;
}

/* A sample over the listed fds, or (@all) over every process of the proc root. */
static int sample(struct drm_scan *s, bool all, const struct drm_scan_fd *fds, size_t nr)
{
	struct drm_scan_stats saved = s->stats;
	struct clients cur = { 0 }, gone = { 0 };
	size_t i;
	struct walk w = { 0 };
	bool *matched = NULL;
	int err;

	memset(&s->stats, 0, sizeof(s->stats));
	forget_nodes(s);	/* a node may name another device by now */
	s->stats.sample_ns = s->ops.now_ns(s->ops.ctx);
	s->gen++;
	s->stats.listed = !all;
	err = all ? walk_root(s, &w) : walk_list(s, &w, fds, nr);
	if (!err)
		prune_cmdlines(s);
	if (!err) {
		/* qsort's base must be valid even for no elements: a tree without fds has none. */
		if (w.nr_fds)
			qsort(w.fds, w.nr_fds, sizeof(*w.fds), cmp_fd_rec);
		if (w.nr_procs)
			qsort(w.procs, w.nr_procs, sizeof(*w.procs), cmp_proc_rec);
		err = group(s, &w, &cur);
	}
	walk_free(&w);
	if (!err && s->cur.nr) {
		matched = calloc(s->cur.nr, sizeof(*matched));
		if (!matched)
			err = -ENOMEM;
	}
	if (err) {
		clients_free(&cur);
		s->stats = saved;
		return err;
	}
	/*
	 * carry_over moves the effective counters out of the previous clients, so past this
	 * point a failure cannot restore the previous sample: it is dropped, and every client of
	 * the next sample starts as new rather than with counters missing.
	 */
	err = carry_over(&cur, &s->cur, matched);
	if (err) {
		free(matched);
		clients_free(&cur);
		clients_free(&s->cur);
		clients_free(&s->gone);
		s->stats = saved;
		return err;
	}

	for (i = 0; i < s->cur.nr; i++) {
		struct drm_client *pc = &s->cur.v[i], *g;

		if (matched && matched[i])
			continue;
		g = vec_push(gone.v, gone.nr, gone.cap);
		if (!g)
			break;	/* losing the gone list is better than failing a good sample */
		*g = *pc;
		memset(pc, 0, sizeof(*pc));
	}
	free(matched);
	clients_free(&s->cur);
	clients_free(&s->gone);
	s->cur = cur;
	s->gone = gone;

	s->stats.clients = (unsigned int)cur.nr;
	s->stats.gone_clients = (unsigned int)gone.nr;
	for (i = 0; i < cur.nr; i++)
		s->stats.new_clients += cur.v[i].is_new;
	return 0;
}

int drm_scan_sample(struct drm_scan *s)
{
	return sample(s, true, NULL, 0);
}

int drm_scan_sample_fds(struct drm_scan *s, const struct drm_scan_fd *fds, size_t nr)
{
	return sample(s, false, fds, nr);
}

/*
 * The proc root's "self" names the process reading it by its pid in the namespace the proc
 * mount belongs to: our own pid there means that namespace is ours. A proc of a namespace we
 * have no pid in leaves "self" dangling; a synthetic tree has none.
 */
bool drm_scan_root_is_own_pidns(struct drm_scan *s)
{
	char path[PATH_MAX], link[32];
	ssize_t n;
	long pid;

	if (!s->pidns_known) {
		snprintf(path, sizeof(path), "%s/self", s->root);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			s->own_pidns = parse_num(link, INT_MAX, &pid) && pid == (long)getpid();
		}
		s->pidns_known = true;
	}
	return s->own_pidns;
}

const struct drm_client *drm_scan_clients(const struct drm_scan *scan, size_t *nr)
{
	*nr = scan->cur.nr;
	return scan->cur.v;
}

const struct drm_client *drm_scan_gone(const struct drm_scan *scan, size_t *nr)
{
	*nr = scan->gone.nr;
	return scan->gone.v;
}

const struct drm_scan_stats *drm_scan_stats(const struct drm_scan *scan)
{
	return &scan->stats;
}
