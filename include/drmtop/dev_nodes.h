/* SPDX-License-Identifier: GPL-2.0-only */
/* The DRM and accel device nodes of a /dev tree, to tell "no device" from "no client". */
#ifndef DRMTOP_DEV_NODES_H
#define DRMTOP_DEV_NODES_H

/* Counts DRM (/dev/dri) and accel (/dev/accel) character devices below dev_root. */
unsigned int drmtop_count_device_nodes(const char *dev_root);

#endif /* DRMTOP_DEV_NODES_H */
