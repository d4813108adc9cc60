// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device identity of a char node from sysfs. /sys/dev/char/<M>:<m> links to the node's class
 * device (.../drm/card0, .../accel/accel0) whose "device" link is the parent: the PCI function or
 * platform device that card, render and accel nodes of one GPU share. Layout checked on the
 * host's 6.18 sysfs; it dates back to the driver core's /sys/dev (2.6.27).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "drmtop/sysfs_device.h"

static bool hex_run(const char **p, size_t min, size_t max)
{
	size_t n = 0;

	while (n < max && ((**p >= '0' && **p <= '9') || (**p >= 'a' && **p <= 'f'))) {
		(*p)++;
		n++;
	}
	return n >= min;
}

/* dev_name() of a PCI function: "%04x:%02x:%02x.%d" (domains may be wider, e.g. VMD) */
static bool is_pci_name(const char *s)
{
	return hex_run(&s, 4, 8) && *s++ == ':' && hex_run(&s, 2, 2) && *s++ == ':' &&
	       hex_run(&s, 2, 2) && *s++ == '.' && *s >= '0' && *s <= '7' && !s[1];
}

char *drm_sysfs_device_key(const char *sys_root, dev_t rdev)
{
	char link[PATH_MAX], dev[PATH_MAX], devroot[PATH_MAX];
	const char *rel, *base;
	char *key = NULL;
	size_t n;
	int len;

	if (!sys_root || !*sys_root)
		return NULL;
	len = snprintf(link, sizeof(link), "%s/dev/char/%u:%u/device", sys_root, major(rdev),
		       minor(rdev));
	if (len < 0 || (size_t)len >= sizeof(link) || !realpath(link, dev))
		return NULL;
	rel = dev;
	len = snprintf(link, sizeof(link), "%s/devices", sys_root);
	if (len >= 0 && (size_t)len < sizeof(link) && realpath(link, devroot)) {
		n = strlen(devroot);
		if (!strncmp(dev, devroot, n) && dev[n] == '/')
			rel = dev + n + 1;
	}
	base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	if (is_pci_name(base))
		len = asprintf(&key, "pdev:%s", base);
	else
		len = asprintf(&key, "sys:%s", rel);
	return len < 0 ? NULL : key;
}
