// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_parked.c: the clients parked at their open (struct drmtop_parked, bpf/drmtop_account.bpf.h),
 * read from the mmapped "parked" array. The programs write a slot under an odd sequence number,
 * so a copy is kept only when the number was even and the same before and after it and the slot
 * still names the copied client's file; a slot rewritten meanwhile (its client closed, another
 * parked) is read again, a few times, then left to the next refresh.
 */
#include <string.h>

#include "bpf_internal.h"

#define PARKED_TRIES	4

/* One slot's client into *@out: 1 if it parks one (not promoted), 0 if not, -1 if torn. */
static int read_slot(const struct drmtop_parked *p, struct drmtop_client *out)
{
	__u64 seq = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
	__u64 claim = __atomic_load_n(&p->claim, __ATOMIC_ACQUIRE);
	__u64 promoted = __atomic_load_n(&p->promoted, __ATOMIC_ACQUIRE);

	if (seq & 1)
		return -1;
	if (!claim || promoted)
		return 0;
	memcpy(out, &p->c, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&p->seq, __ATOMIC_RELAXED) != seq ||
	    __atomic_load_n(&p->claim, __ATOMIC_RELAXED) != claim ||
	    out->file != claim || !out->uid)
		return -1;
	return 1;
}

/*
 * Calls @each with every client parked in @slots (@n of them); returns its first error, else
 * 0. A slot whose copy stays torn PARKED_TRIES times is skipped: one busy slot is not worth a
 * refresh's wait, and it shows again at the next.
 */
int drmtop_bpf_parked_each(const struct drmtop_parked *slots, size_t n,
			   int (*each)(const struct drmtop_client *c, void *ctx), void *ctx)
{
	struct drmtop_client c;
	size_t i;
	int t, got, err;

	for (i = 0; i < n; i++) {
		if (!__atomic_load_n(&slots[i].claim, __ATOMIC_RELAXED))
			continue;
		for (t = 0, got = -1; t < PARKED_TRIES && got < 0; t++)
			got = read_slot(&slots[i], &c);
		if (got > 0) {
			err = each(&c, ctx);
			if (err)
				return err;
		}
	}
	return 0;
}
