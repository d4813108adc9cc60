#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""run-stage.py STAGE -- CMD...: one `make test` stage that may leave nothing running.

Runs CMD as a child subreaper (prctl PR_SET_CHILD_SUBREAPER): whatever CMD starts and leaves
behind, even through a double fork or setsid, is reparented here instead of to init. When CMD
has ended, every process still below this one is a survivor: each is listed (pid and command
line), sent SIGTERM, then SIGKILL after STAGE_GRACE seconds (default 5; a sanitizer stuck in
its exit-time leak check ignores SIGTERM), and reaped; the stage then counts one more failure
in $RESULTS/STAGE ("<passed> <failed>", "0 1" if the stage wrote nothing) and exits 1.
Otherwise it exits with CMD's status. A leftover of one stage would otherwise take a core from
every later one, and pass unnoticed.

CMD's output is passed through, and its "FAIL ..." lines are also kept in $RESULTS/STAGE.fails:
scripts/summarise-tests.sh repeats them under the totals, since CI shows only a log's tail. When
the stage started and ended (seconds since the epoch) go to $RESULTS/STAGE.time, which the
summary turns into each stage's time and start: where `make test`'s time went, in CI's log.
"""
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36


def descendants(root):
    """Every process whose chain of parents leads to root (root excluded), from /proc."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name in brackets may hold spaces and brackets: the state and ppid
        # follow the last ')'.
        fields = stat[stat.rfind(b")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def describe(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").strip().decode(errors="replace")
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        state = stat[stat.rfind(b")") + 2:].split()[0].decode()
    except OSError:
        return f"{pid} (gone)"
    return f"{pid} [{state}] {cmd[:300] or '(zombie)'}"


def reap():
    """Collect every child that has ended (orphans reparented here end up as our zombies)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def living(pids):
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2:].split()[0] != b"Z":
            alive.append(pid)
    return alive


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
            if sig == signal.SIGTERM:
                os.kill(pid, signal.SIGCONT)  # a stopped process acts on SIGTERM only so
        except ProcessLookupError:
            pass


def add_failure(stage):
    results = os.environ.get("RESULTS")
    if not results:
        return
    path = os.path.join(results, stage)
    passed, failed = 0, 0
    try:
        with open(path) as f:
            passed, failed = (int(x) for x in f.read().split()[:2])
    except (OSError, ValueError):
        pass
    os.makedirs(results, exist_ok=True)
    with open(path, "w") as f:
        f.write(f"{passed} {failed + 1}\n")


def pump(src, fails):
    """Copy CMD's output through, keeping its FAIL lines (at most 40, each cut at 400 bytes)."""
    for line in iter(src.readline, b""):
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
        if line.lstrip(b"\r").startswith(b"FAIL ") and len(fails) < 40:
            fails.append(line.strip()[:400])


def keep(name, data):
    """Writes data (bytes) to $RESULTS/name, if there is a $RESULTS."""
    results = os.environ.get("RESULTS")
    if not results:
        return
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, name), "wb") as f:
        f.write(data)


def keep_fails(stage, fails):
    keep(f"{stage}.fails", b"".join(x + b"\n" for x in fails))


def keep_time(stage, start):
    keep(f"{stage}.time", f"{start:.0f} {time.time():.0f}\n".encode())


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        sys.stderr.write("usage: run-stage.py STAGE -- CMD...\n")
        return 2
    stage, cmd = args[0], args[2:]
    start = time.time()
    try:
        return supervise(stage, cmd)
    finally:
        keep_time(stage, start)


def supervise(stage, cmd):
    grace = float(os.environ.get("STAGE_GRACE", "5"))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write(f"{stage}: prctl(PR_SET_CHILD_SUBREAPER): "
                         f"{os.strerror(ctypes.get_errno())}\n")
        return 1
    # make's SIGINT (Ctrl-C) reaches the whole process group; this wrapper stays to clean up.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # A survivor may hold the pipe open: the copy runs beside the wait, and ends once it is gone.
    fails = []
    copier = threading.Thread(target=pump, args=(proc.stdout, fails), daemon=True)
    copier.start()
    rc = proc.wait()
    reap()
    survivors = living(descendants(os.getpid()))
    if not survivors:
        copier.join()
        keep_fails(stage, fails)
        return rc if rc >= 0 else 128 - rc
    sys.stdout.flush()
    line = f"FAIL {stage}: {len(survivors)} process(es) it started outlived it (killed now):"
    print(line)
    named = [describe(pid) for pid in survivors]
    for text in named:
        print(f"  {text}")
    sys.stdout.flush()
    signal_all(survivors, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        reap()
        survivors = living(descendants(os.getpid()))
        if not survivors:
            break
        time.sleep(0.1)
    # Until nothing is left: a survivor may have started others while it went.
    for _ in range(50):
        reap()
        survivors = living(descendants(os.getpid()))
        if not survivors:
            break
        signal_all(survivors, signal.SIGKILL)
        time.sleep(0.1)
    reap()
    if survivors:
        print(f"{stage}: could not kill: {' '.join(describe(p) for p in survivors)}")
    copier.join(timeout=5)
    fails.append(f"{line} {'; '.join(named[:3])}"[:400].encode())
    keep_fails(stage, fails)
    add_failure(stage)
    return 1


if __name__ == "__main__":
    sys.exit(main())
