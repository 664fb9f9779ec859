"""A process tree for the jail's exit tests (test/mcp_jail_tests.erl):
`memory_holder.py MARKER MIB` double-forks a grandchild into a session of
its own that ignores SIGTERM, SIGINT and SIGHUP, holds MIB mebibytes of
touched memory, has MARKER-held in its argv and its stdio on /dev/null; the
process itself then sleeps. Freeing the memory makes the grandchild's
death take a while after a SIGKILL.
"""
import os
import sys
import time

HOLD = """
import signal, sys, time
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
held = bytearray(int(sys.argv[2]) * 1024 * 1024)
for i in range(0, len(held), 4096):
    held[i] = 1
time.sleep(3600)
"""

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execv(sys.executable, [sys.executable, "-c", HOLD, sys.argv[1] + "-held", sys.argv[2]])
    os._exit(0)
os.wait()
time.sleep(3600)
