/* SPDX-License-Identifier: GPL-2.0-only */
/* drmtop serve: the metrics exporter (src/cli/serve.c). */
#ifndef DRMTOP_SERVE_H
#define DRMTOP_SERVE_H

/* The subcommand, argv[0] being "serve"; returns the exit status. */
int drmtop_serve_main(int argc, char **argv);

#endif /* DRMTOP_SERVE_H */
