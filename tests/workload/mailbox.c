// SPDX-License-Identifier: GPL-2.0-only
#include "mailbox.h"
#include "shared.h"
#include "units.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RECV_TIMEOUT_NS (180LL * 1000000000)	/* QEMU TCG runs ~10x slower than the host */
#define PENDING_MAX 64

static int (*boxes)[2];	/* [0] is read by the declaration's processes, [1] written by all */
static unsigned int nr_boxes;

struct pending {
	struct mb_msg m;
	int fd;
};

static struct pending pending[PENDING_MAX];
static unsigned int nr_pending;

int mb_init(unsigned int nr_decls)
{
	boxes = calloc(nr_decls, sizeof(*boxes));
	if (!boxes)
		return -1;
	for (nr_boxes = 0; nr_boxes < nr_decls; nr_boxes++)
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, boxes[nr_boxes])) {
			perror("simgpu-workload: socketpair");
			return -1;
		}
	return 0;
}

int mb_send(int decl, const struct mb_msg *m, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(boxes[decl][1], &msg, MSG_NOSIGNAL) != (ssize_t)sizeof(*m)) {
		perror("simgpu-workload: sendmsg");
		return -1;
	}
	return 0;
}

/* One datagram, without blocking: 1 if one came, 0 if none, -1 on error. */
static int receive_one(int decl, struct pending *out)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &out->m, .iov_len = sizeof(out->m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t n;

	n = recvmsg(boxes[decl][0], &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : (perror("simgpu-workload: recvmsg"), -1);
	out->fd = -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&out->fd, CMSG_DATA(c), sizeof(int));
	if (n != (ssize_t)sizeof(out->m) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		fprintf(stderr, "simgpu-workload: malformed mailbox message\n");
		return -1;
	}
	return 1;
}

static bool take_pending(enum mb_kind kind, const char *tag, struct mb_msg *m, int *fd)
{
	for (unsigned int i = 0; i < nr_pending; i++) {
		if (pending[i].m.kind != kind || strcmp(pending[i].m.tag, tag))
			continue;
		*m = pending[i].m;
		*fd = pending[i].fd;
		pending[i] = pending[--nr_pending];
		return true;
	}
	return false;
}

int mb_recv(int decl, enum mb_kind kind, const char *tag, struct mb_msg *m, int *fd)
{
	int64_t deadline = wl_now_ns() + RECV_TIMEOUT_NS;

	while (!take_pending(kind, tag, m, fd)) {
		struct pollfd p = { .fd = boxes[decl][0], .events = POLLIN };
		int ret;

		if (wl_stopping())
			return 1;
		if (wl_now_ns() > deadline) {
			fprintf(stderr, "simgpu-workload: nothing named '%s' arrived in %llds\n", tag,
				RECV_TIMEOUT_NS / 1000000000);
			return -1;
		}
		/* Short polls: a stop request must end the wait promptly. */
		if (poll(&p, 1, 50) <= 0)
			continue;
		if (nr_pending == PENDING_MAX) {
			fprintf(stderr, "simgpu-workload: more than %d unclaimed messages\n",
				PENDING_MAX);
			return -1;
		}
		ret = receive_one(decl, &pending[nr_pending]);
		if (ret < 0)
			return -1;
		nr_pending += (unsigned int)ret;
	}
	return 0;
}

void mb_forget_pending(void)
{
	for (unsigned int i = 0; i < nr_pending; i++)
		if (pending[i].fd >= 0)
			close(pending[i].fd);
	nr_pending = 0;
}
