// The official TypeScript SDK client driving one stdio server: N sequential
// tools/call round trips, then N more from 16 concurrent callers. Prints one
// JSON line: calls per second and per-call latency percentiles (ms).
// Usage: node ts_client.mjs TOOL ARGS_JSON N -- COMMAND ARGS...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tool, argsJson, count, separator, command, ...commandArgs] = process.argv.slice(2);
if (separator !== "--") throw new Error("usage: TOOL ARGS_JSON N -- COMMAND ARGS...");
const n = Number(count);
const args = JSON.parse(argsJson);
const client = new Client({ name: "bench-ts", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args: commandArgs, stderr: "inherit" }));
const call = () => client.callTool({ name: tool, arguments: args });

for (let i = 0; i < 50; i++) await call();
const latencies = [];
let started = performance.now();
for (let i = 0; i < n; i++) {
  const t = performance.now();
  await call();
  latencies.push(performance.now() - t);
}
const sequentialSeconds = (performance.now() - started) / 1000;
started = performance.now();
await Promise.all(Array.from({ length: 16 }, async () => { for (let i = 0; i < n / 16; i++) await call(); }));
const concurrentSeconds = (performance.now() - started) / 1000;
// 64 callers, each n / 64 calls (rounded down): the calls made are counted.
const per64 = Math.floor(n / 64);
started = performance.now();
await Promise.all(Array.from({ length: 64 }, async () => { for (let i = 0; i < per64; i++) await call(); }));
const concurrent64Seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
console.log(JSON.stringify({ sequential_per_s: n / sequentialSeconds, p50_ms: pct(0.5), p99_ms: pct(0.99), concurrent_per_s: n / concurrentSeconds, concurrent64_per_s: (per64 * 64) / concurrent64Seconds }));
await client.close();
