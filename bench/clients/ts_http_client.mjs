// The official TypeScript SDK client over Streamable HTTP, for
// bench/http_bench.erl: N sequential tools/call round trips. Prints one JSON
// line like the other bench clients. Usage: node ts_http_client.mjs URL TOOL ARGS_JSON N
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, tool, argsJson, count] = process.argv.slice(2);
const n = Number(count);
const args = JSON.parse(argsJson);
const client = new Client({ name: "bench-ts-http", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const call = () => client.callTool({ name: tool, arguments: args });

for (let i = 0; i < 50; i++) await call();
const latencies = [];
const started = performance.now();
for (let i = 0; i < n; i++) {
  const t = performance.now();
  await call();
  latencies.push(performance.now() - t);
}
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
console.log(JSON.stringify({ sequential_per_s: n / seconds, p50_ms: pct(0.5), p99_ms: pct(0.99), concurrent_per_s: 0 }));
await client.close();
