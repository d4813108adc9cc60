/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whole-file reads of small proc files (fdinfo, comm, cmdline, cgroup), which have no useful
 * st_size.
 */
#ifndef DRMTOP_PROC_READ_H
#define DRMTOP_PROC_READ_H

#include <stddef.h>

/*
 * @path is a procfs file that one seq_file record makes (single_open: /proc/<pid>/stat, comm,
 * cgroup, fdinfo/<n>): its first read returns all of it when it fits, so a read short of the
 * room it had is the end, and the read that would return 0 is not made. Only for such files:
 * a short read of a pipe, a FUSE file or a cmdline is no end (kernels checked: see
 * proc_read.c).
 */
#define DRM_READ_ONE_RECORD	1u

/*
 * Read all of @path into a malloc'd, NUL-terminated *@buf (*@len excludes the NUL).
 * Returns 0 or -errno of open/read (ENOENT, ESRCH, EACCES, ... as the kernel gave them).
 */
int drm_read_file(const char *path, char **buf, size_t *len);

/* drm_read_file with DRM_READ_* @flags. */
int drm_read_file_flags(const char *path, unsigned int flags, char **buf, size_t *len);

/* /proc/<pid>/comm into @comm (at most @size - 1 chars, newline dropped). 0 or -errno. */
int drm_read_comm(const char *path, unsigned int flags, char *comm, size_t size);

/*
 * /proc/<pid>/cmdline with the NUL separators turned into spaces, trailing blanks dropped.
 * *@cmdline is NULL for an empty command line (kernel threads, zombies). 0 or -errno.
 */
int drm_read_cmdline(const char *path, char **cmdline);

/*
 * /proc/<pid>/cgroup's path of the process: the cgroup v2 one, else (cgroup v1 only) systemd's
 * named hierarchy's, else the first listed. *@cgroup is NULL if none is printed. 0 or -errno.
 */
int drm_read_cgroup(const char *path, unsigned int flags, char **cgroup);

#endif /* DRMTOP_PROC_READ_H */
