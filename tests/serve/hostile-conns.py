#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Hostile local user against drmtop serve: holds N connections to HOST:PORT for SECONDS, half
silent, half slowloris (a request head trickled a byte every half second, never finished),
each renewed every RENEW seconds and reconnected at once when the server closes it. Prints
"connects=<n> closed_by_server=<n>" at the end. Usage: hostile-conns.py HOST PORT N SECONDS RENEW
"""
import selectors
import socket
import sys
import time

HEAD = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4096


def main():
    host, port, n, seconds, renew = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                     float(sys.argv[4]), float(sys.argv[5]))
    sel = selectors.DefaultSelector()
    conns = {}  # index -> [socket or None, opened, next trickle, bytes sent, last attempt]
    stats = {"connects": 0, "closed_by_server": 0}

    def drop(i):
        s = conns[i][0]
        if s is not None:
            sel.unregister(s)
            s.close()
        conns[i][0] = None

    def connect(i, now):
        conns[i][4] = now
        try:
            s = socket.create_connection((host, port), timeout=1)
        except OSError:
            return
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, i)
        conns[i][:4] = [s, now, now, 0]
        stats["connects"] += 1

    end = time.monotonic() + seconds
    for i in range(n):
        conns[i] = [None, 0.0, 0.0, 0, 0.0]
        connect(i, time.monotonic())
    while True:
        now = time.monotonic()
        if now >= end:
            break
        for key, _ in sel.select(timeout=0.05):
            i = key.data
            try:
                data = key.fileobj.recv(4096)
            except OSError:
                data = b""
            if not data:  # closed (evicted or timed out): back at once
                stats["closed_by_server"] += 1
                drop(i)
        now = time.monotonic()
        for i, c in conns.items():
            if c[0] is not None and now - c[1] >= renew:
                drop(i)
            # never more than ten connects a second per slot: a flood, not a busy loop
            if c[0] is None and now - c[4] >= 0.1:
                connect(i, now)
            elif c[0] is not None and i % 2 and now >= c[2] and c[3] < len(HEAD):
                try:
                    c[0].send(HEAD[c[3]:c[3] + 1])
                    c[3] += 1
                except OSError:
                    pass
                c[2] = now + 0.5
    for i in conns:
        drop(i)
    print("connects=%d closed_by_server=%d" % (stats["connects"], stats["closed_by_server"]))


if __name__ == "__main__":
    main()
