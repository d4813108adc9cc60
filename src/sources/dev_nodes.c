// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "drmtop/dev_nodes.h"
#include "drmtop/proc_scan.h"

static unsigned int count_nodes_in(const char *dir, unsigned int major_nr)
{
	char path[PATH_MAX];
	unsigned int n = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (!stat(path, &st) && S_ISCHR(st.st_mode) && major(st.st_rdev) == major_nr)
			n++;
	}
	closedir(d);
	return n;
}

unsigned int drmtop_count_device_nodes(const char *dev_root)
{
	char path[PATH_MAX];
	unsigned int n = 0;

	if (snprintf(path, sizeof(path), "%s/dri", dev_root) < (int)sizeof(path))
		n += count_nodes_in(path, DRM_MAJOR);
	if (snprintf(path, sizeof(path), "%s/accel", dev_root) < (int)sizeof(path))
		n += count_nodes_in(path, ACCEL_MAJOR);
	return n;
}
