/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whole-file reads of small proc files (fdinfo, comm, cmdline, cgroup), which have no useful
 * st_size.
 */
#ifndef DRMTOP_PROC_READ_H
#define DRMTOP_PROC_READ_H

#include <stddef.h>

/*
 * Read all of @path into a malloc'd, NUL-terminated *@buf (*@len excludes the NUL).
 * Returns 0 or -errno of open/read (ENOENT, ESRCH, EACCES, ... as the kernel gave them).
 */
int drm_read_file(const char *path, char **buf, size_t *len);

/* /proc/<pid>/comm into @comm (at most @size - 1 chars, newline dropped). 0 or -errno. */
int drm_read_comm(const char *path, char *comm, size_t size);

/*
 * /proc/<pid>/cmdline with the NUL separators turned into spaces, trailing blanks dropped.
 * *@cmdline is NULL for an empty command line (kernel threads, zombies). 0 or -errno.
 */
int drm_read_cmdline(const char *path, char **cmdline);

/*
 * /proc/<pid>/cgroup's path of the process: the cgroup v2 one, else (cgroup v1 only) systemd's
 * named hierarchy's, else the first listed. *@cgroup is NULL if none is printed. 0 or -errno.
 */
int drm_read_cgroup(const char *path, char **cgroup);

#endif /* DRMTOP_PROC_READ_H */
