// SPDX-License-Identifier: GPL-2.0-only
/* Synthetic proc trees for the discovery tests; see fake_proc.h. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fake_proc.h"

/* trees not freed yet, so a failed test does not leave them in /tmp */
static struct fake_proc *live[32];

static void track(struct fake_proc *fp, bool add)
{
	size_t i;

	for (i = 0; i < sizeof(live) / sizeof(live[0]); i++) {
		if (add && !live[i]) {
			live[i] = fp;
			return;
		}
		if (!add && live[i] == fp) {
			live[i] = NULL;
			return;
		}
	}
}

static void fp_die(const char *what, const char *path)
{
	fprintf(stderr, "fake_proc: %s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static void write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		fp_die("create", path);
	if (len && write(fd, data, len) != (ssize_t)len)
		fp_die("write", path);
	close(fd);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		fp_die("mkdir", path);
}

static long fp_readlink(void *ctx, const char *path, char *buf, size_t len)
{
	struct fake_proc *fp = ctx;
	ssize_t n;

	fp->readlink_calls++;
	n = readlink(path, buf, len);
	return n < 0 ? -errno : (long)n;
}

static int fp_stat(void *ctx, const char *path, struct stat *st)
{
	static const char deleted[] = " (deleted)";
	struct fake_proc *fp = ctx;
	char link[300];
	ssize_t n;
	size_t i;

	n = readlink(path, link, sizeof(link) - 1);
	link[n < 0 ? 0 : n] = '\0';
	if (fp->stat_calls < sizeof(fp->stat_links) / sizeof(fp->stat_links[0]))
		snprintf(fp->stat_links[fp->stat_calls], sizeof(fp->stat_links[0]), "%s", link);
	fp->stat_calls++;
	if (stat(path, st)) {
		size_t dl = sizeof(deleted) - 1, ll = strlen(link);

		/* procfs stats a removed node's magic link fine; the symlink here dangles */
		if (errno != ENOENT || ll <= dl || strcmp(link + ll - dl, deleted))
			return -errno;
		link[ll - dl] = '\0';
		if (stat(link, st))
			return -errno;
	}
	for (i = 0; i < fp->nr_nodes; i++) {
		if (fp->nodes[i].rdev && fp->nodes[i].ino == st->st_ino &&
		    fp->nodes[i].dev == st->st_dev) {
			st->st_mode = (st->st_mode & ~S_IFMT) | S_IFCHR;
			st->st_rdev = fp->nodes[i].rdev;
			break;
		}
	}
	return 0;
}

static int file_of(const struct fake_proc *fp, pid_t pid, int fd)
{
	size_t i;

	for (i = 0; i < fp->nr_fds; i++)
		if (fp->fds[i].pid == pid && fp->fds[i].fd == fd)
			return fp->fds[i].file_id;
	return -1;
}

static int fp_same_file(void *ctx, pid_t pid1, int fd1, pid_t pid2, int fd2)
{
	struct fake_proc *fp = ctx;
	int a, b;

	fp->same_file_calls++;
	if (fp->same_file_err)
		return fp->same_file_err;
	a = file_of(fp, pid1, fd1);
	b = file_of(fp, pid2, fd2);
	if (a < 0 || b < 0)
		return -ESRCH;
	return a == b ? 0 : 3;
}

static uint64_t fp_now(void *ctx)
{
	struct fake_proc *fp = ctx;
	uint64_t t = fp->now;

	fp->now += fp->tick;
	return t;
}

static void fp_hook(void *ctx, enum drm_scan_point point, pid_t pid, int fd)
{
	struct fake_proc *fp = ctx;

	if (fp->hook)
		fp->hook(fp, point, pid, fd);
}

struct fake_proc *fp_new(void)
{
	struct fake_proc *fp = calloc(1, sizeof(*fp));
	char path[512];

	if (!fp)
		fp_die("calloc", "");
	snprintf(fp->root, sizeof(fp->root), "/tmp/drmtop-fakeproc-XXXXXX");
	if (!mkdtemp(fp->root))
		fp_die("mkdtemp", fp->root);
	if (chmod(fp->root, 0755))
		fp_die("chmod", fp->root);
	snprintf(fp->proc, sizeof(fp->proc), "%s/proc", fp->root);
	make_dir(fp->proc);
	snprintf(fp->sys, sizeof(fp->sys), "%s/sys", fp->root);
	make_dir(fp->sys);
	snprintf(path, sizeof(path), "%s/dev", fp->root);
	make_dir(path);
	/* procfs has non-pid entries too */
	snprintf(path, sizeof(path), "%s/sys", fp->proc);
	make_dir(path);
	snprintf(path, sizeof(path), "%s/self", fp->proc);
	if (symlink("1", path))
		fp_die("symlink", path);
	fp->ops.readlink = fp_readlink;
	fp->ops.stat = fp_stat;
	fp->ops.same_file = fp_same_file;
	fp->ops.now_ns = fp_now;
	fp->ops.hook = fp_hook;
	fp->ops.ctx = fp;
	fp->now = 1000000000;
	track(fp, true);
	return fp;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fp_release(struct fake_proc *fp)
{
	track(fp, false);
	free(fp->nodes);
	free(fp->fds);
	free(fp);
}

void fp_free(struct fake_proc *fp)
{
	track(fp, false);
	rm_tree(fp->root);
	free(fp->nodes);
	free(fp->fds);
	free(fp);
}

int fp_teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (live[i])
			fp_free(live[i]);
	return 0;
}

void fp_node(struct fake_proc *fp, const char *name, int maj, int min)
{
	const char *dir = maj == DRM_MAJOR ? "dri/" : maj == ACCEL_MAJOR ? "accel/" : "";
	struct fp_node *n;
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/dev/%s", fp->root, dir);
	make_dir(path);
	snprintf(path, sizeof(path), "%s/dev/%s%s", fp->root, dir, name);
	write_file(path, "", 0);
	if (stat(path, &st))
		fp_die("stat", path);
	fp->nodes = realloc(fp->nodes, (fp->nr_nodes + 1) * sizeof(*fp->nodes));
	if (!fp->nodes)
		fp_die("realloc", "");
	n = &fp->nodes[fp->nr_nodes++];
	n->ino = st.st_ino;
	n->dev = st.st_dev;
	/* a plain file: rdev 0 never matches in fp_stat's mapping */
	n->rdev = maj < 0 ? 0 : makedev((unsigned int)maj, (unsigned int)min);
	snprintf(n->rel, sizeof(n->rel), "%s%s", dir, name);
}

const char *fp_node_path(struct fake_proc *fp, const char *node)
{
	static char path[512];
	size_t i;

	for (i = 0; i < fp->nr_nodes; i++) {
		const char *base = strrchr(fp->nodes[i].rel, '/');

		if (!strcmp(base ? base + 1 : fp->nodes[i].rel, node)) {
			snprintf(path, sizeof(path), "%s/dev/%s", fp->root, fp->nodes[i].rel);
			return path;
		}
	}
	snprintf(path, sizeof(path), "%s/dev/%s", fp->root, node);
	return path;
}

/* mkdir -p */
static void make_dirs(const char *path)
{
	char buf[600];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			make_dir(buf);
			*p = '/';
		}
	}
	make_dir(buf);
}

void fp_sys_node(struct fake_proc *fp, int maj, int min, const char *devpath)
{
	char dev[600], class_dev[700], link[800], target[700];

	snprintf(dev, sizeof(dev), "%s/devices/%s", fp->sys, devpath);
	snprintf(class_dev, sizeof(class_dev), "%s/drm/node%d_%d", dev, maj, min);
	make_dirs(class_dev);
	/* class device's "device" link points up to the parent device */
	snprintf(link, sizeof(link), "%s/device", class_dev);
	if (symlink("../..", link))
		fp_die("symlink", link);
	snprintf(link, sizeof(link), "%s/dev/char", fp->sys);
	make_dirs(link);
	snprintf(link, sizeof(link), "%s/dev/char/%d:%d", fp->sys, maj, min);
	snprintf(target, sizeof(target), "%s", class_dev);
	if (symlink(target, link))
		fp_die("symlink", link);
}

const char *fp_path(struct fake_proc *fp, pid_t pid, const char *rel)
{
	static char path[600];

	snprintf(path, sizeof(path), "%s/%d%s%s", fp->proc, (int)pid, *rel ? "/" : "", rel);
	return path;
}

void fp_proc(struct fake_proc *fp, pid_t pid, const char *comm, const char *cmdline,
	     size_t cmdline_len)
{
	char buf[64];

	make_dir(fp_path(fp, pid, ""));
	make_dir(fp_path(fp, pid, "fd"));
	make_dir(fp_path(fp, pid, "fdinfo"));
	snprintf(buf, sizeof(buf), "%s\n", comm);
	write_file(fp_path(fp, pid, "comm"), buf, strlen(buf));
	write_file(fp_path(fp, pid, "cmdline"), cmdline, cmdline_len);
}

void fp_fdinfo(struct fake_proc *fp, pid_t pid, int fd, const char *fdinfo)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "fdinfo/%d", fd);
	write_file(fp_path(fp, pid, rel), fdinfo, strlen(fdinfo));
}

void fp_fd_link(struct fake_proc *fp, pid_t pid, int fd, const char *link, int file_id)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "fd/%d", fd);
	if (symlink(link, fp_path(fp, pid, rel)))
		fp_die("symlink", fp_path(fp, pid, rel));
	fp->fds = realloc(fp->fds, (fp->nr_fds + 1) * sizeof(*fp->fds));
	if (!fp->fds)
		fp_die("realloc", "");
	fp->fds[fp->nr_fds].pid = pid;
	fp->fds[fp->nr_fds].fd = fd;
	fp->fds[fp->nr_fds].file_id = file_id;
	fp->nr_fds++;
}

void fp_fd(struct fake_proc *fp, pid_t pid, int fd, const char *node, int file_id,
	   const char *fdinfo)
{
	char target[512];

	snprintf(target, sizeof(target), "%s", fp_node_path(fp, node));
	fp_fd_link(fp, pid, fd, target, file_id);
	if (fdinfo)
		fp_fdinfo(fp, pid, fd, fdinfo);
}

void fp_close(struct fake_proc *fp, pid_t pid, int fd)
{
	char rel[64];
	size_t i;

	snprintf(rel, sizeof(rel), "fd/%d", fd);
	unlink(fp_path(fp, pid, rel));
	snprintf(rel, sizeof(rel), "fdinfo/%d", fd);
	unlink(fp_path(fp, pid, rel));
	for (i = 0; i < fp->nr_fds; i++)
		if (fp->fds[i].pid == pid && fp->fds[i].fd == fd)
			fp->fds[i].pid = -1;
}

void fp_exit(struct fake_proc *fp, pid_t pid)
{
	size_t i;

	rm_tree(fp_path(fp, pid, ""));
	for (i = 0; i < fp->nr_fds; i++)
		if (fp->fds[i].pid == pid)
			fp->fds[i].pid = -1;
}
