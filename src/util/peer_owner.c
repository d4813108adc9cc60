// SPDX-License-Identifier: GPL-2.0-only
/*
 * The owner of a TCP peer. A peer on this machine is looked up in the kernel's socket table by
 * its exact address pair over NETLINK_SOCK_DIAG (as ss(8) does; no privilege needed), which
 * gives the user owning its socket. Checked on Linux 6.12 (VM case 70) and 6.18 (the host).
 */
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "drmtop/util/peer_owner.h"

#define OWNER_IS_USER	(1ull << 63)

static uint64_t address_key(const struct sockaddr_storage *ss)
{
	const unsigned char *p;
	size_t len, i;
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	if (ss->ss_family == AF_INET) {
		p = (const unsigned char *)&((const struct sockaddr_in *)ss)->sin_addr;
		len = 4;
	} else if (ss->ss_family == AF_INET6) {
		p = (const unsigned char *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
		len = 16;
	} else {
		return 0;
	}
	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h & ~OWNER_IS_USER;
}

static void fill_end(const struct sockaddr_storage *ss, __be16 *port, __be32 addr[4])
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		*port = in->sin_port;
		memcpy(addr, &in->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		*port = in6->sin6_port;
		memcpy(addr, &in6->sin6_addr, 16);
	}
}

/* The uid owning the socket whose own end is @peer and whose other end is @local. */
static bool socket_uid(int nl, const struct sockaddr_storage *peer,
		       const struct sockaddr_storage *local, unsigned int *uid)
{
	static unsigned int seq;
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} q = {
		.nlh = {
			.nlmsg_len = sizeof(q),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST,
			.nlmsg_seq = ++seq,
		},
		.req = {
			.sdiag_family = (__u8)peer->ss_family,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = ~0u,
			.id.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
		},
	};
	union {
		struct nlmsghdr nlh;
		char buf[1024];
	} r;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	fill_end(peer, &q.req.id.idiag_sport, q.req.id.idiag_src);
	fill_end(local, &q.req.id.idiag_dport, q.req.id.idiag_dst);
	if (sendto(nl, &q, sizeof(q), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return false;
	/* The kernel answers inside sendto (the lookup is synchronous): never wait for it. */
	do {
		n = recv(nl, &r, sizeof(r), MSG_DONTWAIT);
		if (n < (ssize_t)sizeof(struct nlmsghdr) || !NLMSG_OK(&r.nlh, (size_t)n))
			return false;
	} while (r.nlh.nlmsg_seq != seq);
	if (r.nlh.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    r.nlh.nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
		return false;
	*uid = ((const struct inet_diag_msg *)NLMSG_DATA(&r.nlh))->idiag_uid;
	return true;
}

uint64_t drmtop_peer_owner(int fd)
{
	static int nl = -1;
	struct sockaddr_storage peer, local;
	socklen_t plen = sizeof(peer), llen = sizeof(local);
	unsigned int uid;

	if (getpeername(fd, (struct sockaddr *)&peer, &plen) ||
	    getsockname(fd, (struct sockaddr *)&local, &llen) ||
	    (peer.ss_family != AF_INET && peer.ss_family != AF_INET6))
		return 0;
	if (nl < 0)
		nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl >= 0 && socket_uid(nl, &peer, &local, &uid))
		return OWNER_IS_USER | uid;
	return address_key(&peer);
}
