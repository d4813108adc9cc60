/* SPDX-License-Identifier: GPL-2.0-only */
/* drmtop's version, for --version and the exporter's build info (-DDRMTOP_VERSION overrides). */
#ifndef DRMTOP_VERSION_H
#define DRMTOP_VERSION_H

#ifndef DRMTOP_VERSION
#define DRMTOP_VERSION "0.2.0"
#endif

#endif /* DRMTOP_VERSION_H */
