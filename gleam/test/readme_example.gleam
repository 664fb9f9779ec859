import gleam/io
import gleam/list
import gleam/string
import mcp/client
import mcp/codegen
import mcp/json
import mcp/protocol.{Text}
import mcp/transport

pub fn main() -> Nil {
  // Any stdio MCP server: executable plus argv, never a shell string.
  let server =
    transport.spawn("npx", ["-y", "@modelcontextprotocol/server-everything"])
  io.println(tour(server))
}

/// Starts the server, lists and calls a tool, generates the code-mode module,
/// shuts the server down, and returns the module's source.
pub fn tour(server: transport.Spawn) -> String {
  let assert Ok(#(client, init)) =
    client.start(transport.PortTransport(server), client.default_options())
  io.println("connected to " <> init.server_info.name)

  let assert Ok(tools) = client.list_tools(client)
  io.println(string.join(list.map(tools, fn(tool) { tool.name }), ", "))

  let arguments = json.Object([#("message", json.String("hi"))])
  let assert Ok(protocol.CallToolResult(content: [Text(reply)], ..)) =
    client.call_tool(client, "echo", arguments, 5000)
  io.println(reply)

  // The typed Gleam module a model programs against (source text only).
  let assert Ok(generated) = codegen.generate("everything", tools)

  // Retire the server: the evidence says its process is gone.
  let assert Ok(client.Exited(_)) = client.shutdown(client, 5000)
  generated.source
}
