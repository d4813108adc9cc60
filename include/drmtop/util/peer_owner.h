/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef DRMTOP_UTIL_PEER_OWNER_H
#define DRMTOP_UTIL_PEER_OWNER_H

#include <stdint.h>

/*
 * Who is at the other end of an accepted TCP connection, as a key that is equal for two
 * connections of one owner: the local user that owns the peer's socket when the peer is on this
 * machine (a loopback address), else the peer's address. All local users share 127.0.0.1, so
 * only the user tells them apart. A loopback peer whose user cannot be read is keyed by its
 * address, as a remote one.
 */
uint64_t drmtop_peer_owner(int fd);

#endif
