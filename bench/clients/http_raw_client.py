"""A raw keep-alive Streamable HTTP client, the baseline for
bench/http_bench.erl: one http.client connection, initialize, then N
sequential tools/call POSTs, each answer read whole (JSON or an event
stream) without validation. Prints one JSON line like the other bench
clients. Usage: python3 http_raw_client.py URL TOOL ARGS_JSON N
"""
import http.client
import json
import sys
import time
import urllib.parse

url, tool, args_json, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
parts = urllib.parse.urlsplit(url)
conn = http.client.HTTPConnection(parts.hostname, parts.port)
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(message):
    conn.request("POST", parts.path, json.dumps(message), headers)
    response = conn.getresponse()
    body = response.read()
    return response, body


response, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "bench-raw", "version": "1"}}})
session = response.getheader("mcp-session-id")
if session:
    headers["Mcp-Session-Id"] = session
headers["MCP-Protocol-Version"] = "2025-11-25"
post({"jsonrpc": "2.0", "method": "notifications/initialized"})
arguments = json.loads(args_json)


def call(i):
    _, body = post({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}})
    assert b'"result"' in body, body[:200]


for i in range(50):
    call(i + 1)
latencies = []
started = time.perf_counter()
for i in range(count):
    t = time.perf_counter()
    call(100 + i)
    latencies.append((time.perf_counter() - t) * 1000)
seconds = time.perf_counter() - started
latencies.sort()
pct = lambda p: latencies[min(len(latencies) - 1, int(len(latencies) * p))]
print(json.dumps({"sequential_per_s": count / seconds, "p50_ms": pct(0.5), "p99_ms": pct(0.99),
                  "concurrent_per_s": 0}))
