// SPDX-License-Identifier: GPL-2.0-only
/* Device node names under /dev for DRM and accel device numbers (drm_drv.c, drm_accel.c). */
#include <stdio.h>
#include <sys/sysmacros.h>

#include "drmtop/proc_scan.h"

const char *drm_node_name(dev_t rdev, char *buf, size_t len)
{
	unsigned int maj = major(rdev), min = minor(rdev);
	int n;

	if (maj == DRM_MAJOR && min < 128)
		n = snprintf(buf, len, "dri/card%u", min);
	else if (maj == DRM_MAJOR)
		n = snprintf(buf, len, "dri/renderD%u", min);
	else if (maj == ACCEL_MAJOR)
		n = snprintf(buf, len, "accel/accel%u", min);
	else
		return NULL;
	if (n < 0 || (size_t)n >= len)
		return NULL;
	return buf;
}
