"""A FastMCP server (PyPI `mcp`, pinned in requirements.txt) for the Erlang
end-to-end suite: tools/list split into pages, a huge result, a tool that
sleeps past any sensible deadline, and a tool that exits the process mid-call.

Run over stdio: `.venv/bin/python test/e2e/fastmcp_fixture.py`; over
Streamable HTTP on 127.0.0.1:PORT/mcp:
`.venv/bin/python test/e2e/fastmcp_fixture.py http PORT sse|json|stateless`
(answers as event streams, as JSON bodies, or as event streams without a
session).
"""

import asyncio
import os
import sys

import mcp.types as types
from mcp.server.fastmcp import FastMCP

PAGE_SIZE = 3
HUGE_BYTES = 4 * 1024 * 1024

server = FastMCP("fastmcp-fixture", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def huge(size: int = HUGE_BYTES) -> str:
    """Return `size` bytes of ASCII text (default 4 MiB)."""
    return "x" * size


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then answer (used to outlive the caller's deadline). Async, so
    the server keeps serving other requests and can honour the cancel."""
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
def exit_now(status: int = 3) -> str:
    """Exit the whole server process while the call is in flight."""
    os._exit(status)


for index in range(5):
    def filler(index: int = index) -> int:
        return index

    server.add_tool(filler, name=f"filler_{index}", description=f"Filler tool {index}.")


@server._mcp_server.list_tools()
async def list_tools_paged(request: types.ListToolsRequest) -> types.ListToolsResult:
    """tools/list in pages of PAGE_SIZE; the cursor is the decimal offset.

    The SDK also calls this with no request to refresh its tool cache before
    a tools/call; that internal call gets every tool.
    """
    every = await server.list_tools()
    if request is None:
        return types.ListToolsResult(tools=every)
    cursor = request.params.cursor if request.params else None
    start = int(cursor) if cursor else 0
    end = start + PAGE_SIZE
    next_cursor = str(end) if end < len(every) else None
    return types.ListToolsResult(tools=every[start:end], nextCursor=next_cursor)


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        port, variant = int(sys.argv[2]), sys.argv[3]
        server.settings.port = port
        server.settings.json_response = variant == "json"
        server.settings.stateless_http = variant == "stateless"
        server.run("streamable-http")
    else:
        server.run("stdio")
