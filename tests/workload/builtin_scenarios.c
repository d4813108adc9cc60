// SPDX-License-Identifier: GPL-2.0-only
/*
 * Durations stay in milliseconds: the VM suite runs under QEMU TCG, about ten times slower
 * than the host, and the whole suite has a time budget.
 */
#include "builtin_scenarios.h"

#include <stddef.h>
#include <string.h>

static const char basic[] =
	"# One process with two clients, then three processes with two clients and two submit\n"
	"# threads each: BOs created and freed, jobs on every engine, back-to-back gfx jobs that\n"
	"# overlap on the depth-2 ring.\n"
	"proc basic\n"
	"  open a\n"
	"  open b\n"
	"  bo a frame size=1M\n"
	"  bo a tex size=256K count=3\n"
	"  bo b ring size=64K\n"
	"  submit a engine=gfx dur=2ms count=8 bos=frame    # back to back, waited for at the end\n"
	"  submit a engine=compute dur=3ms count=4 wait=each\n"
	"  submit b engine=copy dur=1ms count=5 bos=ring\n"
	"  submit b engine=gfx dur=1ms count=3 threads=3\n"
	"  free a tex.1\n"
	"  bo b odd size=5000                               # rounded up to whole pages\n"
	"proc worker count=3 every=5ms\n"
	"  open c count=2\n"
	"  bo c buf size=128K\n"
	"  submit c engine=compute dur=1ms count=4 threads=2\n"
	"  submit c engine=gfx dur=500us count=6\n"
	"  free c buf\n"
	"  bo c keep size=32K\n";

static const char shared[] =
	"# One client shared by dup, fork and SCM_RIGHTS (four descriptors, three processes),\n"
	"# and a BO shared with another process's client by dma-buf.\n"
	"proc owner\n"
	"  open a\n"
	"  dup a a2                        # same client through a second descriptor\n"
	"  bo a tex size=1M\n"
	"  bo a big size=2M\n"
	"  submit a engine=gfx dur=2ms count=4\n"
	"  submit a2 engine=copy dur=1ms count=3\n"
	"  fork helper                     # the child inherits a and a2: still one client\n"
	"  recv helped\n"
	"  submit a engine=compute dur=1ms count=2\n"
	"  sendfd a to=guest               # SCM_RIGHTS: a third process holds the client\n"
	"  export a tex to=importer        # dma-buf into another process's client\n"
	"  recv imported\n"
	"  free a big\n"
	"  close a2\n"
	"proc helper child\n"
	"  submit a engine=gfx dur=1ms count=3\n"
	"  bo a scratch size=128K\n"
	"  send helped to=owner\n"
	"proc guest\n"
	"  recvfd a\n"
	"  submit a engine=compute dur=2ms count=2\n"
	"  bo a guestbuf size=256K\n"
	"proc importer\n"
	"  open b\n"
	"  bo b own size=64K\n"
	"  import b tex\n"
	"  submit b engine=gfx dur=1ms count=2 bos=tex\n"
	"  send imported to=owner\n";

static const char short_lived[] =
	"# Clients that live a few ms: open, allocate, submit, exit. Some exit while their job\n"
	"# is still queued or running.\n"
	"proc blip count=16 every=20ms\n"
	"  open a\n"
	"  bo a scratch size=64K\n"
	"  submit a engine=gfx dur=1ms count=2\n"
	"  exit\n"
	"proc drop count=4 every=50ms start=10ms\n"
	"  open a\n"
	"  submit a engine=compute dur=2ms wait=none     # exits before the job finished\n"
	"  exit\n"
	"proc flash count=4 every=40ms start=5ms\n"
	"  open a\n"
	"  open b\n"
	"  submit a engine=copy dur=500us wait=each\n"
	"  submit b engine=gfx dur=500us\n"
	"  exit\n";

static const char steady[] =
	"# Busy shares that do not depend on when an observer samples: every engine is kept\n"
	"# backlogged by one stream whose clients' jobs alternate, so each client's share is its job\n"
	"# duration over the rotation's (gfx 75/25, compute 50/50, copy 100) for as long as the\n"
	"# stream never drains (the record counts underruns). For drmtop busy % checks.\n"
	"proc render\n"
	"  open a\n"
	"  open b\n"
	"  dup b b2                                      # b is held through two fds\n"
	"  bo a fb size=8M\n"
	"  bo b2 buf size=512K\n"
	"  stream a:3ms,b2:1ms engine=gfx until=stop     # a 75 %, b 25 %\n"
	"proc infer\n"
	"  open c\n"
	"  open e\n"
	"  bo c weights size=4M count=2\n"
	"  bo e frames size=1M\n"
	"  fork infer-kid                                # c and e are held by two processes\n"
	"  stream c:2ms engine=copy until=stop           # c 100 % of copy\n"
	"proc infer-kid child\n"
	"  bo e kidbuf size=512K\n"
	"  stream c:1ms,e:1ms engine=compute until=stop  # c 50 %, e 50 %, from the child\n"
	"proc idle\n"
	"  open i\n"
	"  bo i cache size=3M\n"
	"  hold\n";

static const char mixed[] =
	"# A desktop-like mix for demos: named processes with their own engine mixes and memory,\n"
	"# some coming and going. Runs until stopped (SIGTERM, SIGINT or --duration).\n"
	"proc blender\n"
	"  open a\n"
	"  bo a scene size=16M\n"
	"  bo a textures size=2M count=4\n"
	"  duty a engine=gfx dur=8ms period=16ms until=stop\n"
	"  duty a engine=copy dur=2ms period=50ms until=stop\n"
	"proc llama-server\n"
	"  open c\n"
	"  bo c weights size=8M count=2\n"
	"  bo c kv-cache size=4M\n"
	"  duty c engine=compute dur=30ms period=40ms until=stop\n"
	"proc ffmpeg\n"
	"  open v\n"
	"  bo v frames size=2M count=4\n"
	"  duty v engine=copy dur=5ms period=20ms until=stop\n"
	"  duty v engine=compute dur=3ms period=20ms until=stop\n"
	"proc glxgears count=2 every=200ms\n"
	"  open g\n"
	"  bo g fb size=1M count=2\n"
	"  duty g engine=gfx dur=1ms period=16ms until=stop\n"
	"proc Xorg\n"
	"  open x\n"
	"  bo x screen size=8M\n"
	"  export x screen to=compositor\n"
	"  duty x engine=gfx dur=2ms period=16ms until=stop\n"
	"proc compositor\n"
	"  open k\n"
	"  import k screen\n"
	"  duty k engine=copy dur=1ms period=16ms until=stop\n"
	"proc vulkaninfo respawn=2s start=500ms\n"
	"  open q\n"
	"  bo q probe size=256K\n"
	"  submit q engine=gfx dur=1ms count=3\n"
	"  sleep 300ms\n"
	"  exit\n"
	"proc thumbnailer respawn=3s start=1s\n"
	"  open t\n"
	"  bo t img size=4M\n"
	"  submit t engine=copy dur=20ms count=5 wait=each\n"
	"  submit t engine=compute dur=10ms count=5 wait=each\n"
	"  sleep 1s\n"
	"  free t img\n"
	"  exit\n";

const struct wl_builtin wl_builtins[] = {
	{ "basic", "processes x fds x threads; BO create/free; jobs on every engine", basic },
	{ "shared", "fds shared by dup, fork and SCM_RIGHTS; dma-buf between processes", shared },
	{ "short-lived", "clients that open, submit and exit within a few ms", short_lived },
	{ "steady", "backlogged engines with fixed client shares, for busy % checks", steady },
	{ "mixed", "named processes coming and going, until stopped (demo)", mixed },
	{ NULL, NULL, NULL },
};

const struct wl_builtin *wl_builtin_find(const char *name)
{
	for (const struct wl_builtin *b = wl_builtins; b->name; b++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}
