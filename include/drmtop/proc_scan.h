/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DRM client discovery through a proc tree: every fd that is a DRM (char major 226) or compute
 * accelerator (char major 261, /dev/accel) device, its fdinfo, de-duplicated into clients, with
 * usage computed against the previous sample.
 *
 * Device identity (drm_client.dev_key, what per-device totals group by), first that applies:
 *  1. "pdev:<drm-pdev>" when fdinfo prints drm-pdev;
 *  2. "pdev:<addr>" when sysfs places the node on PCI device <addr> (a client whose driver prints
 *     nothing then joins the same device as those that print drm-pdev);
 *  3. "sys:<path below /sys/devices>" of the node's parent device (platform devices: card and
 *     render node of one GPU are one device);
 *  4. without sysfs: "<driver>@<major>:<minor>", or "<major>:<minor>" when no drm-driver.
 *
 * Client identity (drm_client.key, which de-duplicates dup(), fork() and fd passing):
 *  - fdinfo has drm-client-id: "<dev_key>#<client-id>". With drm-pdev ids may be per device;
 *    without it the spec makes them globally unique, so the device part is only extra safety.
 *  - no drm-client-id (drivers that print nothing, e.g. 6.1 vgem/virtio-gpu/card nodes): the fds
 *    of one node are compared with kcmp(KCMP_FILE); fds that are the same open file form one
 *    client keyed "<major>:<minor>#<pid>/<fd>" of its primary holder. When kcmp is not possible
 *    (EPERM, ENOSYS) each fd is its own client and scan stats count kcmp_failed.
 * The primary holder (drm_client.pid/.fd, for display) is the lowest pid, then its lowest fd.
 *
 * Processes and fds that vanish (ENOENT, ESRCH) or deny access (EACCES, EPERM) during a scan are
 * skipped and counted; only an unreadable proc root or allocation failure fails a scan.
 *
 * Only /proc/<pid> is walked, not /proc/<pid>/task/<tid>: a thread created without CLONE_FILES
 * (own fd table) is not seen. The default same_file (kcmp) compares pids of the caller's pid
 * namespace, so with a proc_root of another namespace pass an ops.same_file of your own.
 * Checked on the host's Linux 6.18 procfs (unit test real_proc) and synthetic trees; the VM
 * suites exercise 6.1 and 6.12.
 */
#ifndef DRMTOP_PROC_SCAN_H
#define DRMTOP_PROC_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "drmtop/fdinfo.h"
#include "drmtop/usage.h"

#define DRM_MAJOR	226
#define ACCEL_MAJOR	261

/* Places in a scan where drm_scan_ops.hook is called (tests change the tree there). */
enum drm_scan_point {
	DRM_SCAN_AT_PID,	/* pid directory listed, before opendir(<pid>/fd) (listed
				 * sample: before its first fd); fd = -1 */
	DRM_SCAN_AT_FD,		/* fd listed, before readlink(<pid>/fd/<fd>) */
	DRM_SCAN_AT_FDINFO,	/* fd is a DRM/accel device, before open(<pid>/fdinfo/<fd>) */
};

/* Seam for tests; every member may be NULL (then the real system call is used). */
struct drm_scan_ops {
	/*
	 * readlink(2) of <pid>/fd/<n>: the link text's length (not terminated, may fill @len
	 * when truncated) or -errno. Only fds whose text drm_fd_link_may_be_node() accepts are
	 * stat()ed.
	 */
	long (*readlink)(void *ctx, const char *path, char *buf, size_t len);
	/* stat(2) following the link: 0 or -errno. Tests map fake fd links to device numbers. */
	int (*stat)(void *ctx, const char *path, struct stat *st);
	/* kcmp(pid1, pid2, KCMP_FILE, fd1, fd2): 0 same open file, >0 different, -errno. */
	int (*same_file)(void *ctx, pid_t pid1, int fd1, pid_t pid2, int fd2);
	/* CLOCK_MONOTONIC in ns; taken right after each fdinfo read. */
	uint64_t (*now_ns)(void *ctx);
	void (*hook)(void *ctx, enum drm_scan_point point, pid_t pid, int fd);
	void *ctx;
};

struct drm_scan_opts {
	const char *proc_root;		/* NULL: "/proc" */
	const char *sys_root;		/* NULL: "/sys"; "": no sysfs lookups (dev_key rule 4) */
	const struct drm_scan_ops *ops;	/* NULL: real system calls */
	/*
	 * Also read /proc/<pid>/cmdline: once per process (pid and start time), on a worker
	 * thread waited for cmdline_timeout_ms at most (0: 500 ms; see guarded_read.h).
	 */
	bool read_cmdline;
	unsigned int cmdline_timeout_ms;
};

/* One (pid, fd) through which a client's open file is reachable. */
struct drm_client_holder {
	pid_t pid;
	int fd;
};

struct drm_client {
	char *key;		/* unique per client, stable across samples (see top of file) */
	char *dev_key;		/* device identity, see top of file */
	dev_t rdev;		/* st_rdev of the node (same for every holder) */
	bool accel;		/* major 261 */

	/* Primary holder, see top of file. */
	pid_t pid;
	int fd;
	char comm[17];		/* /proc/<pid>/comm of the primary, "" if unreadable */
	char *cmdline;		/* args joined by ' ', NULL unless read_cmdline and readable */
	char *cgroup;		/* the primary's cgroup v2 path (drm_read_cgroup), NULL if unread */

	struct drm_client_holder *holders;	/* sorted by pid, then fd */
	size_t nr_holders, cap_holders;		/* cap_holders private: allocation size */

	struct drm_fdinfo info;	/* fdinfo of this sample, read through the primary holder */
	uint64_t sample_ns;	/* monotonic time right after that read */
	uint64_t read_ns;	/* how long that read took (the driver printed somewhere in it) */

	bool is_new;		/* not present in the previous sample */
	uint64_t dt_ns;		/* time since the previous sample of this client (0 if new) */
	uint64_t dt_slack_ns;	/* the driver's interval may be this much longer (prev read_ns) */

	/*
	 * Per engine, parallel to info.engines (same index): usage over dt_ns. No figure for a
	 * new client (flags has no *_VALID bit).
	 */
	struct drm_engine_usage *usage;

	/* private: effective counters, may hold engines the current sample lacks */
	struct drm_engine_track *tracks;
	size_t nr_tracks, cap_tracks;
};

struct drm_scan_stats {
	uint64_t sample_ns;		/* monotonic time when the scan started */
	bool listed;			/* drm_scan_sample_fds: only the listed fds were visited */
	unsigned int pids;		/* numeric entries of the proc root (listed: processes) */
	unsigned int fds;		/* fd entries looked at */
	unsigned int drm_fds;		/* of which DRM/accel devices with fdinfo read */
	unsigned int vanished;		/* ENOENT/ESRCH anywhere: process or fd gone mid-scan */
	unsigned int denied;		/* EACCES/EPERM anywhere */
	unsigned int errors;		/* any other errno on a per-process/per-fd step */
	unsigned int malformed_lines;	/* sum of drm_fdinfo.nr_malformed over fds read */
	unsigned int unsupported;	/* fds in DRM_FDINFO_FMT_AMDGPU_LEGACY format */
	unsigned int no_client_id;	/* DRM fds without drm-client-id */
	unsigned int kcmp_failed;	/* fd comparisons kcmp could not do */
	unsigned int cmdline_blocked;	/* command lines not read: their read blocked */
	unsigned int clients;
	unsigned int new_clients;
	unsigned int gone_clients;
};

struct drm_scan;

/* NULL on failure with errno set (ENOMEM, ENAMETOOLONG for an over-long proc_root). */
struct drm_scan *drm_scan_new(const struct drm_scan_opts *opts);
void drm_scan_free(struct drm_scan *scan);

/*
 * Take one sample. Returns 0, or -errno when the proc root cannot be listed or memory runs out;
 * then the previous sample's results are kept, except after an allocation failure in the final
 * matching step, which drops them (the next sample sees every client as new). Everything
 * returned by the accessors below stays valid until the next drm_scan_sample() or
 * drm_scan_free().
 */
int drm_scan_sample(struct drm_scan *scan);

/* An fd known from elsewhere to be (or have been) a DRM/accel file: the tracer's iterator. */
struct drm_scan_fd {
	pid_t pid;		/* in the proc root's pid namespace; <= 0 is skipped */
	int fd;
};

/*
 * drm_scan_sample visiting only the @nr listed (pid, fd) pairs (any order, duplicates allowed),
 * not every process and fd of the proc root: the refresh then costs what the GPU's clients
 * hold, not what the system runs. Each listed fd is checked as the sweep checks it (its link
 * text, then its node), so one closed and reused for another file is skipped, and one gone is
 * counted as vanished. Processes, comm, command lines, grouping, usage and the new/gone logic
 * are the sweep's; stats.listed is set and stats.pids counts the processes listed. An fd the
 * list lacks is not seen: the list must hold every DRM/accel fd of the tree (an fd opened
 * after the list was made appears at the next sample, as one opened behind the sweep does).
 * A pid's fds are those of /proc/<pid>/fd, the process's table: an fd of a thread with a table
 * of its own (listed by the tracer under its tgid, never seen by the sweep) is looked up there,
 * so a number the process lacks counts as vanished and one it holds is read as what it holds.
 */
int drm_scan_sample_fds(struct drm_scan *scan, const struct drm_scan_fd *fds, size_t nr);

/*
 * Whether the proc root shows the pids of the caller's own pid namespace (its "self" link is
 * getpid()), the condition for listing fds by pids the caller's namespace gives. Asked of the
 * tree once; false for a synthetic tree or a proc of another namespace.
 */
bool drm_scan_root_is_own_pidns(struct drm_scan *scan);

/* Clients of the latest sample, sorted by primary pid, then fd. */
const struct drm_client *drm_scan_clients(const struct drm_scan *scan, size_t *nr);
/* Clients of the previous sample that the latest one no longer has (with their last data). */
const struct drm_client *drm_scan_gone(const struct drm_scan *scan, size_t *nr);
const struct drm_scan_stats *drm_scan_stats(const struct drm_scan *scan);
/*
 * The sysfs device key of node @rdev (rule 3 of the device identity above), looked up once a
 * sample, the scan's clients' nodes included; NULL where sysfs cannot tell or memory ran out.
 * Valid until the next sample.
 */
const char *drm_scan_node_key(struct drm_scan *scan, dev_t rdev);

/*
 * Whether the text of a /proc/<pid>/fd/<n> link may name a DRM or accel device node, decided
 * without touching the file: stat() of an fd open on a hung network filesystem blocks (procfs
 * follows the magic link, then the filesystem's revalidation and getattr may wait on the
 * server), while readlink() only prints the path the kernel already holds (d_path).
 *
 * Accepted: absolute paths starting with "/dev/" (any node under /dev, renamed ones included:
 * devtmpfs or a container's tmpfs, never a network filesystem), and paths with a "/dev/dri/" or
 * "/dev/accel/" part anywhere (a process chroot()ed into a tree with its own dev directory, as
 * the scanner sees it from outside), each also with the " (deleted)" suffix d_path adds when
 * the node was removed after open (hot unplug, a container's /dev gone).
 * Refused: pseudo files, whose text is not a path ("socket:[N]", "pipe:[N]", "anon_inode:...",
 * "net:[N]") or is a made-up one ("/memfd:x (deleted)", "/dmabuf:", "/SYSV..."), the nodes of
 * every process's standard descriptors (/dev/null, /dev/zero, /dev/full, /dev/random,
 * /dev/urandom, /dev/tty..., /dev/console, /dev/ptmx, /dev/kmsg, /dev/pts/N, /dev/hvcN), and
 * every other path. The price: a DRM node mknod()ed outside any dev directory, or under one of
 * those names, is not found.
 * Link texts as printed by d_path() on 6.1, 6.12 and the host's 6.18.
 */
bool drm_fd_link_may_be_node(const char *link, size_t len);

/* starttime (field 22) of the text of /proc/<pid>/stat, 0 when it has none. */
uint64_t drm_proc_start_time(const char *stat);

/*
 * Name of a device node from its number, as under /dev: "dri/card<N>" (226, minor < 128),
 * "dri/renderD<N>" (226, minor >= 128), "accel/accel<N>" (261). Returns @buf, or NULL for
 * another major or when @len is too small.
 */
const char *drm_node_name(dev_t rdev, char *buf, size_t len);

#endif /* DRMTOP_PROC_SCAN_H */
