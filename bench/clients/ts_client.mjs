// The official TypeScript SDK client driving one stdio server: N sequential
// tools/call round trips, then runs of N from 16 and from 64 concurrent
// callers. Prints one JSON line: calls per second and per-call latency
// percentiles (ms).
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
// 16 and 64 concurrent callers alternated, five runs each (as client_bench
// runs mcp_client): the median rate of each.
const rate = async (callers) => {
  const per = Math.floor(n / callers);
  const began = performance.now();
  await Promise.all(Array.from({ length: callers }, async () => { for (let i = 0; i < per; i++) await call(); }));
  return (per * callers) / ((performance.now() - began) / 1000);
};
const rates16 = [];
const rates64 = [];
for (let run = 0; run < 5; run++) {
  rates16.push(await rate(16));
  rates64.push(await rate(64));
}
const median = (rates) => rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)];
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
console.log(JSON.stringify({ sequential_per_s: n / sequentialSeconds, p50_ms: pct(0.5), p99_ms: pct(0.99), concurrent_per_s: median(rates16), concurrent64_per_s: median(rates64) }));
await client.close();
