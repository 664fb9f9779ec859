// A tiny MCP server for round-trip benchmarks: newline-delimited JSON-RPC
// on stdio, no dependencies. One tool, `echo`, returns its `message`.
import { createInterface } from "node:readline";

const supported = ["2025-06-18", "2025-03-26", "2024-11-05"];
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const echoTool = {
  name: "echo",
  description: "Echoes the message back.",
  inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
};

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return; // notifications
  switch (method) {
    case "initialize": {
      const asked = params?.protocolVersion;
      send({ jsonrpc: "2.0", id, result: {
        protocolVersion: supported.includes(asked) ? asked : supported[0],
        capabilities: { tools: {} },
        serverInfo: { name: "echo-server", version: "1.0.0" },
      } });
      break;
    }
    case "tools/list":
      send({ jsonrpc: "2.0", id, result: { tools: [echoTool] } });
      break;
    case "tools/call":
      send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: String(params?.arguments?.message ?? "") }], isError: false } });
      break;
    case "ping":
      send({ jsonrpc: "2.0", id, result: {} });
      break;
    default:
      send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
  }
});
