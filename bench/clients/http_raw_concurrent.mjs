// A raw keep-alive Streamable HTTP client with C concurrent callers, the
// baseline of bench/http_bench.erl's load table: Node's own http module, a
// keep-alive agent of at most C sockets, initialize once, then C callers each
// making its share of N tools/call POSTs, each answer read whole (JSON or an
// event stream) and checked only for a "result". Prints one JSON line.
// Usage: node http_raw_concurrent.mjs URL TOOL ARGS_JSON N C
import http from "node:http";

const [url, tool, argsJson, count, callers] = process.argv.slice(2);
const n = Number(count);
const c = Number(callers);
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: c });
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const args = JSON.parse(argsJson);

function post(message) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(message);
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST",
                               agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => resolve({ res, body: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const init = await post({ jsonrpc: "2.0", id: 0, method: "initialize",
                          params: { protocolVersion: "2025-11-25", capabilities: {},
                                    clientInfo: { name: "bench-raw-concurrent", version: "1" } } });
const session = init.res.headers["mcp-session-id"];
if (session) headers["mcp-session-id"] = session;
headers["mcp-protocol-version"] = "2025-11-25";
await post({ jsonrpc: "2.0", method: "notifications/initialized" });

let next = 1;
async function call() {
  const { body } = await post({ jsonrpc: "2.0", id: next++, method: "tools/call", params: { name: tool, arguments: args } });
  if (!body.includes('"result"')) throw new Error(body.slice(0, 200));
}
async function caller(calls, latencies) {
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await call();
    latencies.push(performance.now() - t);
  }
}

await Promise.all(Array.from({ length: c }, () => caller(Math.ceil(50 / c), [])));
const latencies = [];
const started = performance.now();
await Promise.all(Array.from({ length: c }, () => caller(Math.floor(n / c), latencies)));
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
console.log(JSON.stringify({ concurrent_per_s: latencies.length / seconds, p50_ms: pct(0.5), p99_ms: pct(0.99) }));
agent.destroy();
