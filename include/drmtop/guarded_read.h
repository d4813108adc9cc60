/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reads that may never return, done by a worker thread the caller waits for only so long.
 * /proc/<pid>/cmdline takes the target's mmap_lock: a process stuck in a page fault on a hung
 * NFS or FUSE mapping (or with a writer queued behind one) blocks the reader with it, in an
 * uninterruptible sleep nothing can end. The sampler must go on: it gives up on the read, and
 * while the worker stays stuck further reads are refused at once.
 */
#ifndef DRMTOP_GUARDED_READ_H
#define DRMTOP_GUARDED_READ_H

struct guarded_read;

/* A reader whose reads wait at most @timeout_ms. NULL when out of memory or threads. */
struct guarded_read *guarded_read_new(unsigned int timeout_ms);

/*
 * drm_read_cmdline(@path) on the worker: 0 and *@cmdline (NULL for an empty command line),
 * -ETIMEDOUT when it did not finish in time (the worker then finishes it in the background
 * and drops the result), -EBUSY while a read given up on is still blocked, or its -errno.
 */
int guarded_read_cmdline(struct guarded_read *g, const char *path, char **cmdline);

/* Frees @g; a worker still blocked is left to free what it shares when its read returns. */
void guarded_read_free(struct guarded_read *g);

#endif /* DRMTOP_GUARDED_READ_H */
