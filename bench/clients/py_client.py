"""The official python-sdk client (PyPI `mcp`) driving one stdio server: N
sequential tools/call round trips, then N more from 16 concurrent callers.
Prints one JSON line: calls per second and latency percentiles (ms).
Usage: python py_client.py TOOL ARGS_JSON N -- COMMAND ARGS..."""
import asyncio
import json
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    tool, args_json, count, separator, command, *command_args = sys.argv[1:]
    assert separator == "--", __doc__
    n, args = int(count), json.loads(args_json)
    params = StdioServerParameters(command=command, args=command_args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for _ in range(50):
                await session.call_tool(tool, args)
            latencies = []
            started = time.perf_counter()
            for _ in range(n):
                t = time.perf_counter()
                await session.call_tool(tool, args)
                latencies.append((time.perf_counter() - t) * 1000)
            sequential = time.perf_counter() - started

            async def worker() -> None:
                for _ in range(n // 16):
                    await session.call_tool(tool, args)

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(16)))
            concurrent = time.perf_counter() - started
    latencies.sort()
    pct = lambda p: latencies[min(len(latencies) - 1, int(len(latencies) * p))]
    print(json.dumps({"sequential_per_s": n / sequential, "p50_ms": pct(0.5), "p99_ms": pct(0.99),
                      "concurrent_per_s": n / concurrent}))


asyncio.run(main())
