#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A scraper slow to send its request while another local user renews connections as fast as it
can, against drmtop serve at HOST:PORT (its 64 connection slots). Run as root: a child becomes
user nobody (65534), takes every slot with silent connections, then, once the scraper is in,
opens 200 more; the scraper sends its request only after the server has taken them (their
evictions seen by the child, 1 s at most), as a scraper on a loaded machine may. Prints "answered <status
line>" or "lost: <why>", then the child's "closed=<n>" (its own connections the server closed).
Usage: slow-scraper.py HOST PORT
"""
import encodings.idna  # noqa: F401 (imported before becoming nobody, who may not read it)
import os
import socket
import sys
import time

FLOOD = 200


def attacker(host, port, to_parent, from_parent):
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
    held = [socket.create_connection((host, port), timeout=5) for _ in range(64)]
    os.write(to_parent, b"r")
    os.read(from_parent, 1)
    for _ in range(FLOOD):
        held.append(socket.create_connection((host, port), timeout=5))
    # Each new connection evicts one: wait until the server has taken all of them (1 s at most:
    # the scraper's connection must stay within the server's 5 s for a whole request head).
    closed = set()
    end = time.monotonic() + 1
    while len(closed) < FLOOD and time.monotonic() < end:
        for s in held[:64 + FLOOD]:
            if s in closed:
                continue
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    closed.add(s)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(s)
        time.sleep(0.01)
    os.write(to_parent, b"%d" % len(closed))
    os.read(from_parent, 1)
    os._exit(0)


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    up_r, up_w = os.pipe()
    down_r, down_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(up_r)
        os.close(down_w)
        try:
            attacker(host, port, up_w, down_r)
        except Exception as e:
            sys.stderr.write("slow-scraper: the other user: %r\n" % e)
        os._exit(1)
    os.close(up_w)
    os.close(down_r)
    if os.read(up_r, 1) != b"r":
        print("lost: the other user could not take the slots")
        return 1
    s = socket.create_connection((host, port), timeout=5)
    t0 = time.monotonic()
    # Its request line at once, the rest later: 5 s to finish the head, not 2 s to start it (a
    # slow guest takes seconds over the flood).
    s.sendall(b"GET /metrics HTTP/1.0\r\n")
    time.sleep(0.1)  # accepted before the flood
    os.write(down_w, b"g")
    closed = os.read(up_r, 16).decode() or "? (the other user failed)"
    try:
        s.sendall(b"\r\n")
        head = s.recv(100).split(b"\r\n")[0].decode(errors="replace")
        print(("answered " + head) if head else "lost: closed before an answer", end="")
    except OSError as e:
        print("lost: %s" % e, end="")
    print(" closed=%s after %.2f s" % (closed, time.monotonic() - t0))
    os.write(down_w, b"x")
    os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
