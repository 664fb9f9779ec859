"""A churning MCPServer (PyPI `mcp` 2.x, pinned in requirements-sdk2.txt)
for test/mcp_churn_tests.erl and bench/churn_bench.erl: a server whose
tools change, whose sessions are forgotten and which is killed and
started again, while a client calls it all along.

Tools:

- `work(caller, seq)`: appends the line `caller seq` to the execution
  log (flushed before the tool sleeps 10 ms, so a server killed during
  the sleep has run the call without answering it) and answers the same
  text. The log is the witness that no call ran twice.
- `set_tools(names)`: the tools besides the fixed four become exactly
  `names` (each answers its own name), then `notifications/tools/list_changed`
  goes to the session that asked (over HTTP on its standalone GET
  stream). Answers the whole sorted list of names the server now lists.
- `evict_sessions()`: over HTTP, every session id seen so far is
  forgotten: a later request in one of them is answered 404 (the SDK's
  own "Session not found" body) and never reaches the server, as after a
  server's restart or redeployment. Over stdio it does nothing. Answers
  the number of sessions forgotten.
- `refusals()`: how many requests in a forgotten session this server
  refused so far (0 over stdio).

The server declares `tools.listChanged`: MCPServer has no public switch
for it in the handshake era (the SDK derives the capability from
`NotificationOptions` given to `create_initialization_options`, which
MCPServer calls without any), so the low-level server's options are
wrapped.

Run over stdio: `.venv-sdk2/bin/python test/e2e/churn_server.py stdio
LOG`; over Streamable HTTP: `... churn_server.py http PORT LOG`, which
binds 127.0.0.1:PORT (SO_REUSEADDR, so a server started again right
after a killed one gets the same port) and, once its socket listens,
prints one line `listening http://127.0.0.1:PORT/mcp` on stdout.
"""

import asyncio
import socket
import sys

import uvicorn

from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer

FIXED_TOOLS = ["evict_sessions", "refusals", "set_tools", "work"]

server = MCPServer("churn-server", version="1.0.0", log_level="WARNING")

_lowlevel = server._lowlevel_server
_initialization_options = _lowlevel.create_initialization_options
_lowlevel.create_initialization_options = lambda *_args, **_kwargs: _initialization_options(
    NotificationOptions(tools_changed=True)
)

execution_log = None
dynamic_tools: list[str] = []


class SessionEvictor:
    """ASGI wrapper: records every session id the server hands out and,
    once told to evict, answers 404 to any request in one of them."""

    def __init__(self, app):
        self.app = app
        self.known: set[bytes] = set()
        self.evicted: set[bytes] = set()
        self.refused = 0

    def evict(self) -> int:
        fresh = self.known - self.evicted
        self.evicted |= self.known
        return len(fresh)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        session = dict(scope["headers"]).get(b"mcp-session-id")
        if session in self.evicted:
            self.refused += 1
            body = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}'
            await send({"type": "http.response.start", "status": 404,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return

        async def recording(message):
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", []):
                    if name.lower() == b"mcp-session-id":
                        self.known.add(value)
            await send(message)

        await self.app(scope, receive, recording)


evictor: SessionEvictor | None = None


@server.tool(structured_output=False)
async def work(caller: int, seq: int) -> str:
    """Record one execution of (caller, seq) and answer it."""
    line = f"{caller} {seq}"
    execution_log.write(line + "\n")
    execution_log.flush()
    await asyncio.sleep(0.01)
    return line


def answering(name: str):
    def tool() -> str:
        return name

    return tool


@server.tool(structured_output=False)
async def set_tools(names: list[str], ctx: Context) -> str:
    """Make the changing tools exactly `names` and say the list changed."""
    for name in dynamic_tools:
        server.remove_tool(name)
    dynamic_tools[:] = [name for name in dict.fromkeys(names) if name not in FIXED_TOOLS]
    for name in dynamic_tools:
        server.add_tool(answering(name), name=name, description=f"Answers {name}.", structured_output=False)
    await ctx.session.send_tool_list_changed()
    return " ".join(sorted(FIXED_TOOLS + dynamic_tools))


@server.tool(structured_output=False)
def evict_sessions() -> str:
    """Forget every session seen so far (HTTP only)."""
    return str(evictor.evict() if evictor is not None else 0)


@server.tool(structured_output=False)
def refusals() -> str:
    """How many requests in a forgotten session were refused (HTTP only)."""
    return str(evictor.refused if evictor is not None else 0)


async def serve_http(port: int) -> None:
    """Streamable HTTP on the given loopback port; the URL is printed once
    the socket listens."""
    global evictor
    # IPPROTO_TCP named, not 0: asyncio turns Nagle off only on accepted
    # sockets whose proto says TCP (see mcpserver_fixture.py).
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    # Evicted sessions are left idle by the client; the SDK reaps them.
    evictor = SessionEvictor(server.streamable_http_app(host="127.0.0.1", session_idle_timeout=30))
    config = uvicorn.Config(evictor, log_level="warning")
    print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
    await uvicorn.Server(config).serve(sockets=[listener])


def main(argv: list[str]) -> None:
    global execution_log
    if len(argv) == 2 and argv[0] == "stdio":
        execution_log = open(argv[1], "a", encoding="utf-8")
        server.run("stdio")
    elif len(argv) == 3 and argv[0] == "http" and argv[1].isdigit():
        execution_log = open(argv[2], "a", encoding="utf-8")
        asyncio.run(serve_http(int(argv[1])))
    else:
        sys.exit("usage: churn_server.py stdio LOG | http PORT LOG")


if __name__ == "__main__":
    main(sys.argv[1:])
