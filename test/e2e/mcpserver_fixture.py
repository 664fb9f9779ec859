"""An MCPServer (PyPI `mcp` 2.x, pinned in requirements-sdk2.txt) for the
Erlang suite test/mcp_sdk2_e2e_tests.erl. The SDK serves both protocol eras
on one endpoint: the handshake (`initialize`) and the stateless revision
2026-07-28 (`server/discover`, `_meta` on every request).

Tools: `add` (two integers; its result is also structured content),
`echo` (text only, no structured content) and `locate` (a point's
coordinates and its distance from the origin, as structured content
with an output schema).

Run over stdio: `.venv-sdk2/bin/python test/e2e/mcpserver_fixture.py stdio
[PIDFILE]` (the process id is written to PIDFILE first, so a test can check
the process gone after a client it did not start has retired it); over
Streamable HTTP: `... mcpserver_fixture.py http`, which binds a free port
on 127.0.0.1 and, once its socket listens, prints one line
`listening http://127.0.0.1:PORT/mcp` on stdout.
"""

import asyncio
import math
import os
import socket
import sys

import uvicorn
from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer

server = MCPServer("mcpserver-fixture", version="1.0.0", log_level="WARNING")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool(structured_output=False)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


class Location(BaseModel):
    x: float
    y: float
    distance: float


@server.tool()
def locate(x: float, y: float) -> Location:
    """A point and its distance from the origin."""
    return Location(x=x, y=y, distance=math.hypot(x, y))


async def serve_http() -> None:
    """Streamable HTTP on a port the kernel picks: the socket is listening
    before the URL is printed, so the reader never races the bind."""
    # IPPROTO_TCP named, not 0: asyncio turns Nagle off (TCP_NODELAY) only
    # on accepted sockets whose proto says TCP; with 0 every answer on a
    # reused connection waits ~40 ms for the client's delayed ACK.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning")
    print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
    await uvicorn.Server(config).serve(sockets=[listener])


if __name__ == "__main__":
    if sys.argv[1:2] == ["stdio"] and len(sys.argv) <= 3:
        if len(sys.argv) == 3:
            with open(sys.argv[2], "w") as pidfile:
                pidfile.write(str(os.getpid()))
        server.run("stdio")
    elif sys.argv[1:] == ["http"]:
        asyncio.run(serve_http())
    else:
        sys.exit("usage: mcpserver_fixture.py stdio [PIDFILE] | http")
