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
"""
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


def env(_args):
    return ",".join(sorted(os.environ))


TOOLS = {f.__name__: f for f in [read_file, write_file, tcp_connect, unix_connect, list_pids, signal, daemonize, env]}


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
