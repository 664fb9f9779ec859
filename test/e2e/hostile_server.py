"""A hostile MCP server (stdio, Python standard library only) for the jail
tests (test/mcp_jail_tests.erl): each tool tries one escape and answers
with its outcome as text, "ok" or "ok:DETAIL" when the attempt worked,
"error:ERRNO" (EACCES, EROFS, ENOENT, ...) when the system refused it.

Tools (arguments in parentheses):
  read_file(path)             read a file
  write_file(path, text)      create or overwrite a file
  tcp_connect(host, port)     open a TCP connection
  unix_connect(path)          connect to a Unix stream socket
  list_pids()                 the numeric entries of /proc
  signal(pid)                 kill(pid, 0): can this process signal pid?
  daemonize(marker, pidfile)  a setsid double fork whose grandchild sleeps
                              with `marker' in its argv and writes its pid
                              (as seen inside) to pidfile
  env()                       the names of the environment variables
  writable_settings()         how many files of /proc outside the
                              processes' own directories open for writing
                              ("ok:COUNT"): kernel settings, interrupts
  rewrite_setting(path)       write a /proc/sys setting's own value back
  stderr_inode()              "ok:DEV:INODE" of what fd 2 is, after
                              reopening /proc/self/fd/2 for reading
  add_key()                   add a key to the session keyring (and
                              unlink it again)
  vsock()                     create and bind an AF_VSOCK socket
  ptrace_seize(pid)           PTRACE_SEIZE pid (0: a child of its own)
  read_memory(pid)            process_vm_readv of pid (0: a child of its
                              own): "ok:allowed" when the kernel let it
                              through
  symlink(target, path)       create a symbolic link
  rename(source, target)      rename a file or directory
  make_executable(path)       chmod 0755
  write_fifo(path, text)      open a FIFO for writing without blocking
                              (a host program reads it) and write text
  getenv(name)                the value of an environment variable
  open_memory(pid)            open /proc/PID/mem for reading and writing
                              (the takeover of the jail's init)
  unshare_user()              a child of its own enters a new user
                              namespace
  exhaust_inotify()           inotify instances until the kernel refuses
                              one ("ok:COUNT"), held until
  release_inotify()           closes them
  exhaust_signals()           sigqueues SIGRTMIN to itself (blocked) until
                              the kernel refuses ("ok:COUNT"), held until
  release_signals()           discards them
  set_id(path, how, source)   makes `path' a copy of `source' (default
                              /usr/bin/id) with mode 04755 by one way
                              (`how'): chmod, fchmod, fchmodat,
                              fchmodat2, open, openat, creat, mknod,
                              tmpfile (O_TMPFILE + linkat), openat2, cp
                              (`cp -p' of a set-user-ID source), install
                              (`install -m 4755'); "ok:MODE" with the
                              mode the file has (octal)
  take_lease(path)            a read lease (F_SETLEASE) on path, held
                              until
  release_lease()             drops it
  exhaust_aio()               io_setup until the kernel refuses one
                              ("ok:EVENTS" reserved), held until
  release_aio()               io_destroy of each
  exhaust_mqueue()            POSIX message queues (default size, each
                              unlinked once open) until the kernel
                              refuses one ("ok:COUNT"), held until
  release_mqueue()            closes them
  exhaust_ptys()              opens /dev/ptmx until the kernel refuses
                              ("ok:COUNT"), held until
  release_ptys()              closes them
"""
import ctypes
import errno
import json
import os
import socket
import sys


def outcome(action):
    try:
        detail = action()
        return "ok" if detail is None else "ok:" + str(detail)
    except OSError as e:
        return "error:" + errno.errorcode.get(e.errno, str(e.errno))


def read_file(args):
    with open(args["path"], "rb") as f:
        return f.read().decode("utf-8", "replace")


def write_file(args):
    with open(args["path"], "w") as f:
        f.write(args["text"])


def tcp_connect(args):
    with socket.create_connection((args["host"], int(args["port"])), timeout=5):
        return None


def unix_connect(args):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(5)
        s.connect(args["path"])
    finally:
        s.close()


def list_pids(_args):
    return ",".join(sorted((e for e in os.listdir("/proc") if e.isdigit()), key=int))


def signal(args):
    os.kill(int(args["pid"]), 0)


def daemonize(args):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            with open(args["pidfile"], "w") as f:
                f.write(str(os.getpid()))
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", args["marker"]])
        os._exit(0)
    os.wait()


def writable_settings(_args):
    count = 0
    for root, dirs, files in os.walk("/proc"):
        if root == "/proc":
            dirs[:] = [d for d in dirs if not d.isdigit() and d not in ("self", "thread-self")]
        for name in files:
            try:
                os.close(os.open(os.path.join(root, name), os.O_WRONLY | os.O_NONBLOCK))
                count += 1
            except OSError:
                pass
    return count


def rewrite_setting(args):
    with open(args["path"]) as f:
        value = f.read()
    with open(args["path"], "w") as f:
        f.write(value)


def stderr_inode(_args):
    fd = os.open("/proc/self/fd/2", os.O_RDONLY | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        return "%d:%d" % (st.st_dev, st.st_ino)
    finally:
        os.close(fd)


LIBC = ctypes.CDLL(None, use_errno=True)
SYS = {"x86_64": {"add_key": 248, "keyctl": 250, "process_vm_readv": 310, "open": 2, "creat": 85, "chmod": 90,
                  "fchmod": 91, "mknod": 133, "fchmodat": 268, "fchmodat2": 452, "openat": 257, "openat2": 437,
                  "linkat": 265, "io_setup": 206, "io_destroy": 207},
       "aarch64": {"add_key": 217, "keyctl": 219, "process_vm_readv": 270, "fchmod": 52, "fchmodat": 53,
                   "fchmodat2": 452, "openat": 56, "openat2": 437, "linkat": 37, "io_setup": 0,
                   "io_destroy": 1}}[os.uname().machine]


def checked(result):
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def add_key(_args):
    session = ctypes.c_int(-3)  # KEY_SPEC_SESSION_KEYRING
    key = checked(LIBC.syscall(SYS["add_key"], b"user", b"mcp-hostile", b"x", 1, session))
    checked(LIBC.syscall(SYS["keyctl"], 9, key, session))  # KEYCTL_UNLINK


def vsock(_args):
    s = socket.socket(40, socket.SOCK_STREAM)  # AF_VSOCK
    s.close()


def on_process(pid, action):
    """action(pid), where pid 0 is a sleeping child of this server's own."""
    child = None
    if pid == 0:
        child = os.fork()
        if child == 0:
            os.execv("/bin/sleep", ["sleep", "30"])
        pid = child
    try:
        return action(pid)
    finally:
        if child:
            os.kill(child, 9)
            os.waitpid(child, 0)


def ptrace_seize(args):
    on_process(int(args["pid"]), lambda pid: checked(LIBC.ptrace(0x4206, pid, None, None)) and None)


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def read_memory(args):
    def read(pid):
        buf = ctypes.create_string_buffer(1)
        local = IoVec(ctypes.cast(buf, ctypes.c_void_p), 1)
        remote = IoVec(ctypes.c_void_p(0x10000), 1)
        result = LIBC.syscall(SYS["process_vm_readv"], pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if result == -1 and ctypes.get_errno() == errno.EFAULT:
            return "allowed"  # the call went through; the address is not mapped
        checked(result)
        return "allowed"
    return on_process(int(args["pid"]), read)


def symlink(args):
    os.symlink(args["target"], args["path"])


def rename(args):
    os.rename(args["source"], args["target"])


def make_executable(args):
    os.chmod(args["path"], 0o755)


def write_fifo(args):
    fd = os.open(args["path"], os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(fd, args["text"].encode())
    finally:
        os.close(fd)


def env(_args):
    return ",".join(sorted(os.environ))


def open_memory(args):
    os.close(os.open("/proc/%d/mem" % int(args["pid"]), os.O_RDWR))


def unshare_user(_args):
    child = os.fork()
    if child == 0:
        code = 0 if LIBC.unshare(0x10000000) == 0 else ctypes.get_errno()  # CLONE_NEWUSER
        os._exit(code)
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise OSError(code, os.strerror(code))


HELD = []


def released(held, close):
    """Closes what `held` holds, newest first, and empties it."""
    while held:
        close(held.pop())


def exhaust_inotify(_args):
    try:
        while True:
            HELD.append(checked(LIBC.inotify_init()))
    except OSError:
        return len(HELD)


def release_inotify(_args):
    released(HELD, os.close)


def exhaust_signals(_args):
    import signal as signals
    signals.pthread_sigmask(signals.SIG_BLOCK, [signals.SIGRTMIN])
    count = 0
    # sigqueue, not kill: a kill() past the limit is merged silently.
    while LIBC.sigqueue(os.getpid(), signals.SIGRTMIN, ctypes.c_void_p(0)) == 0:
        count += 1
    return count


def release_signals(_args):
    import signal as signals
    signals.signal(signals.SIGRTMIN, signals.SIG_IGN)  # discards the pending ones
    signals.pthread_sigmask(signals.SIG_UNBLOCK, [signals.SIGRTMIN])
    signals.signal(signals.SIGRTMIN, signals.SIG_DFL)


AT_FDCWD = -100
SET_ID_MODE = 0o4755


def created(how, path):
    """A new file at path with mode 04755 made by one system call, as a descriptor."""
    raw = path.encode()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    if how == "open":
        return checked(LIBC.syscall(SYS["open"], raw, flags, SET_ID_MODE))
    if how == "openat":
        return checked(LIBC.syscall(SYS["openat"], AT_FDCWD, raw, flags, SET_ID_MODE))
    if how == "creat":
        return checked(LIBC.syscall(SYS["creat"], raw, SET_ID_MODE))
    if how == "mknod":
        checked(LIBC.syscall(SYS["mknod"], raw, 0o100000 | SET_ID_MODE, 0))
        return os.open(path, os.O_WRONLY)
    if how == "openat2":
        how_struct = (ctypes.c_uint64 * 3)(flags, SET_ID_MODE, 0)  # struct open_how
        return checked(LIBC.syscall(SYS["openat2"], AT_FDCWD, raw, ctypes.byref(how_struct), 24))
    if how == "tmpfile":
        fd = checked(LIBC.syscall(SYS["openat"], AT_FDCWD, os.path.dirname(raw) or b".",
                                  os.O_WRONLY | os.O_TMPFILE, SET_ID_MODE))
        proc = b"/proc/self/fd/%d" % fd
        checked(LIBC.syscall(SYS["linkat"], AT_FDCWD, proc, AT_FDCWD, raw, 0x400))  # AT_SYMLINK_FOLLOW
        return fd
    raise ValueError(how)


def chmodded(how, path, fd):
    if how == "chmod":
        checked(LIBC.syscall(SYS["chmod"], path.encode(), SET_ID_MODE))
    elif how == "fchmod":
        checked(LIBC.syscall(SYS["fchmod"], fd, SET_ID_MODE))
    elif how == "fchmodat":
        checked(LIBC.syscall(SYS["fchmodat"], AT_FDCWD, path.encode(), SET_ID_MODE))
    elif how == "fchmodat2":
        checked(LIBC.syscall(SYS["fchmodat2"], AT_FDCWD, path.encode(), SET_ID_MODE, 0))
    else:
        raise ValueError(how)


def set_id(args):
    import subprocess
    path, how, source = args["path"], args["how"], args.get("source", "/usr/bin/id")
    with open(source, "rb") as f:
        program = f.read()
    if how in ("cp", "install"):
        command = ["cp", "-p", source, path] if how == "cp" else ["install", "-m", "4755", source, path]
        done = subprocess.run(command, capture_output=True)
        if not os.path.exists(path) and done.returncode:
            raise OSError(errno.EIO, done.stderr.decode(errors="replace"))
    elif how in ("chmod", "fchmod", "fchmodat", "fchmodat2"):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o755)
        try:
            os.write(fd, program)
            chmodded(how, path, fd)
        finally:
            os.close(fd)
    else:
        fd = created(how, path)
        try:
            os.write(fd, program)
        finally:
            os.close(fd)
    return "%o" % (os.stat(path).st_mode & 0o7777)


LEASES = []


def take_lease(args):
    import fcntl
    import signal as signals
    signals.signal(signals.SIGIO, signals.SIG_IGN)  # the lease break's signal
    fd = os.open(args["path"], os.O_RDONLY)
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except OSError:
        os.close(fd)
        raise
    LEASES.append(fd)


def release_lease(_args):
    released(LEASES, os.close)


AIO = []


def exhaust_aio(_args):
    events = 0
    for size in (65536, 4096, 256, 16, 1):
        while True:
            context = ctypes.c_ulong(0)
            if LIBC.syscall(SYS["io_setup"], size, ctypes.byref(context)) != 0:
                if ctypes.get_errno() != errno.EAGAIN:
                    checked(-1)
                break
            AIO.append(context)
            events += size
    return events


def release_aio(_args):
    released(AIO, lambda context: LIBC.syscall(SYS["io_destroy"], context))


QUEUES = []


def exhaust_mqueue(_args):
    while True:
        name = b"/mcp-hostile-%d-%d" % (os.getpid(), len(QUEUES))
        queue = LIBC.mq_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, None)
        if queue == -1:
            if not QUEUES:
                checked(-1)
            return len(QUEUES)
        LIBC.mq_unlink(name)
        QUEUES.append(queue)


def release_mqueue(_args):
    released(QUEUES, LIBC.mq_close)


PTYS = []


def exhaust_ptys(_args):
    import resource
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        while True:
            PTYS.append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        if not PTYS:
            raise
        return len(PTYS)


def release_ptys(_args):
    released(PTYS, os.close)


def getenv(args):
    value = os.environ.get(args["name"])
    if value is None:
        raise OSError(errno.ENOENT, "unset")
    return value


TOOLS = {f.__name__: f for f in [read_file, write_file, tcp_connect, unix_connect, list_pids, signal, daemonize, env,
                                  writable_settings, rewrite_setting, stderr_inode, add_key, vsock,
                                  ptrace_seize, read_memory, symlink, rename, make_executable, write_fifo, getenv,
                                  open_memory, unshare_user, exhaust_inotify, release_inotify,
                                  exhaust_signals, release_signals, set_id, take_lease, release_lease,
                                  exhaust_aio, release_aio, exhaust_mqueue, release_mqueue,
                                  exhaust_ptys, release_ptys]}


def reply(message_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            reply(message_id, {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                               "capabilities": {"tools": {}},
                               "serverInfo": {"name": "hostile", "version": "1.0.0"}})
        elif method == "tools/list":
            reply(message_id, {"tools": [{"name": name, "inputSchema": {"type": "object"}} for name in TOOLS]})
        elif method == "tools/call":
            tool = TOOLS[params["name"]]
            text = outcome(lambda: tool(params.get("arguments") or {}))
            reply(message_id, {"content": [{"type": "text", "text": text}], "isError": False})
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id,
                                         "error": {"code": -32601, "message": "no such method"}}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
