/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Mailboxes between the processes of a run: one datagram socketpair per process declaration,
 * made before the first fork so every process can send to every declaration. Client fds and
 * dma-buf fds travel as SCM_RIGHTS; tokens order steps across processes.
 */
#ifndef WL_MAILBOX_H
#define WL_MAILBOX_H

#include "scenario.h"

enum mb_kind { MB_TOKEN, MB_CLIENT_FD, MB_DMABUF };

struct mb_msg {
	enum mb_kind kind;
	char tag[WL_NAME_MAX];	/* token name, fd name or BO name */
	int client;		/* client slot of the fd, or of the exporting client */
	int bo;			/* bo slot of the exported handle */
	int from_proc;
};

int mb_init(unsigned int nr_decls);
/* fd < 0: no descriptor attached. Returns 0 or -1 with a message. */
int mb_send(int decl, const struct mb_msg *m, int fd);
/*
 * Waits for the message of this kind and tag in decl's mailbox (others are kept for later
 * receives). Returns 0 (*fd set, -1 if none came), 1 if the run is stopping, -1 on error.
 */
int mb_recv(int decl, enum mb_kind kind, const char *tag, struct mb_msg *m, int *fd);
/* A forked child must not keep the fds its parent received but has not used yet. */
void mb_forget_pending(void);

#endif
