"""An MCPServer (PyPI `mcp` 2.x, the .venv-sdk2 of scripts/ensure-deps.sh)
whose tools follow a file, for cli/test/mcp_cli_watch_tests.erl.

Run over stdio: `.venv-sdk2/bin/python cli/test/listing_server.py TOOLS
[PIDFILE]` (the process id is written to PIDFILE first). TOOLS is a JSON
object {"tool name": DESCRIPTION or {"description": D, "title": T}, ...};
each tool takes one string `text` and answers it. The server declares `tools.listChanged`,
reads TOOLS every 20 ms and, when its bytes change, replaces its tools and
sends `notifications/tools/list_changed` (through the SDK's own write
stream, so the line never interleaves with an answer). A test replaces
TOOLS with rename(2), so the server never reads half a file.
"""

import json
import os
import sys

import anyio

from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCNotification

server = MCPServer("listing-fixture", version="1.0.0", log_level="WARNING")
current: list[str] = []


def answer(text: str) -> str:
    return text


def load(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def install(data: bytes) -> None:
    for name in current:
        server.remove_tool(name)
    current.clear()
    for name, given in json.loads(data).items():
        fields = given if isinstance(given, dict) else {"description": given}
        server.add_tool(answer, name=name, structured_output=False, **fields)
        current.append(name)


async def follow(path: str, seen: bytes, write_stream) -> None:
    while True:
        await anyio.sleep(0.02)
        data = load(path)
        if data != seen:
            seen = data
            install(data)
            notice = JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed")
            await write_stream.send(SessionMessage(notice))


async def main(path: str) -> None:
    seen = load(path)
    install(seen)
    lowlevel = server._lowlevel_server
    options = lowlevel.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        async with anyio.create_task_group() as group:
            group.start_soon(follow, path, seen, write_stream)
            await lowlevel.run(read_stream, write_stream, options)
            group.cancel_scope.cancel()


if __name__ == "__main__":
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as pidfile:
            pidfile.write(str(os.getpid()))
    anyio.run(main, sys.argv[1])
