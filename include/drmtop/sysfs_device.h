/* SPDX-License-Identifier: GPL-2.0-only */
/* Which device a DRM/accel character node belongs to, from sysfs (/sys/dev/char/M:m/device). */
#ifndef DRMTOP_SYSFS_DEVICE_H
#define DRMTOP_SYSFS_DEVICE_H

#include <sys/types.h>

/*
 * Device identity of node @rdev under @sys_root (e.g. "/sys"): "pdev:<addr>" when the parent
 * device is a PCI function (same string as fdinfo drm-pdev), else "sys:<path below devices/>".
 * Returns a malloc'd string, or NULL when sysfs has no such node (or @sys_root is NULL or "",
 * or memory ran out).
 */
char *drm_sysfs_device_key(const char *sys_root, dev_t rdev);

#endif /* DRMTOP_SYSFS_DEVICE_H */
