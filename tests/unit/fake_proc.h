/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test helper: a synthetic proc tree in a temporary directory, plus the drm_scan_ops seam that
 * makes it look real. <tmp>/proc/<pid>/{comm,cmdline,fd/<n>,fdinfo/<n>} as procfs lays them out;
 * fd/<n> are symlinks to files under <tmp>/dev (DRM nodes in dev/dri, accel nodes in dev/accel,
 * as udev names them), or links with any text (sockets, pipes, files elsewhere). Regular files
 * registered as device nodes stat as character devices with the given numbers, so no mknod or
 * privilege is needed; a link to a node with " (deleted)" appended stats as that node, as
 * procfs does. Which fds are the same open file (what kcmp answers) is declared per fd with a
 * file id. Every readlink() and stat() the scanner makes is counted, stat()'s link text kept.
 */
#ifndef DRMTOP_TEST_FAKE_PROC_H
#define DRMTOP_TEST_FAKE_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "drmtop/proc_scan.h"

struct fake_proc;

typedef void (*fp_hook_fn)(struct fake_proc *fp, enum drm_scan_point point, pid_t pid, int fd);

struct fake_proc {
	char root[256];		/* the temp dir */
	char proc[300];		/* <root>/proc: the scanner's proc_root */
	char sys[300];		/* <root>/sys: the scanner's sys_root (empty unless fp_sys_node) */
	struct drm_scan_ops ops;	/* ctx = this */

	uint64_t now;		/* what now_ns returns ... */
	uint64_t tick;		/* ... then advanced by this much per call */
	int same_file_err;	/* when non-zero, same_file fails with this -errno */
	unsigned int same_file_calls;
	unsigned int readlink_calls;	/* fd links read: one per fd the scanner looks at */
	unsigned int stat_calls;
	char stat_links[64][300];	/* link text of the first 64 fds stat()ed */
	fp_hook_fn hook;	/* called from the scanner's hook, may be NULL */
	void *user;

	/* private */
	struct fp_node { ino_t ino; dev_t dev; dev_t rdev; char rel[64]; } *nodes;
	size_t nr_nodes;
	struct fp_fd { pid_t pid; int fd; int file_id; } *fds;
	size_t nr_fds;
};

/* Create the tree (mode 0755 so an unprivileged child can walk it). Aborts on failure. */
struct fake_proc *fp_new(void);
/* Remove the tree and free. */
void fp_free(struct fake_proc *fp);
/* Free the memory only, leaving the tree (a forked child's copy). */
void fp_release(struct fake_proc *fp);
/* fp_free every tree still alive: a cmocka teardown, for tests that failed half-way. */
int fp_teardown(void **state);

/*
 * <root>/dev/[dri/|accel/]<name> standing for a char device major:minor (or a plain file under
 * dev/ when major < 0).
 */
void fp_node(struct fake_proc *fp, const char *name, int major, int minor);
/* Process directory with comm and cmdline (@cmdline may hold NULs; @cmdline_len bytes). */
void fp_proc(struct fake_proc *fp, pid_t pid, const char *comm, const char *cmdline,
	     size_t cmdline_len);
/*
 * fd/<fd> -> <root>/dev/<node>, fdinfo/<fd> = @fdinfo (NULL: no fdinfo file). @file_id says
 * which open file it is for same_file (equal ids = same open file).
 */
void fp_fd(struct fake_proc *fp, pid_t pid, int fd, const char *node, int file_id,
	   const char *fdinfo);
/* fd/<fd> as a link with exactly the text @link (need not exist), no fdinfo; for same_file. */
void fp_fd_link(struct fake_proc *fp, pid_t pid, int fd, const char *link, int file_id);
/* The absolute path fp_fd would link to for @node, in a static buffer. */
const char *fp_node_path(struct fake_proc *fp, const char *node);
/*
 * sysfs for node major:minor as the driver core lays it out: <sys>/dev/char/<M>:<m>/device
 * resolving to <sys>/devices/<devpath>.
 */
void fp_sys_node(struct fake_proc *fp, int major, int minor, const char *devpath);
/* Rewrite fdinfo/<fd>. */
void fp_fdinfo(struct fake_proc *fp, pid_t pid, int fd, const char *fdinfo);
/* Remove fd/<fd> and fdinfo/<fd> (fd closed). */
void fp_close(struct fake_proc *fp, pid_t pid, int fd);
/* Remove the whole <pid> directory (process exited). */
void fp_exit(struct fake_proc *fp, pid_t pid);
/* Path helper: <proc>/<pid>/<rel>, in a static buffer. */
const char *fp_path(struct fake_proc *fp, pid_t pid, const char *rel);

#endif /* DRMTOP_TEST_FAKE_PROC_H */
