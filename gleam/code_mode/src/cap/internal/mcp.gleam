//// What generated bodies call: `invoke` / `invoke_whole` turn a server name,
//// a wire tool name and the arguments into one `tools/call` on that server's
//// client, and its result into an `mcp.Outcome`. The arguments are
//// translated to JSON with `interchange.to_json`; the result's
//// `structuredContent` comes back already a `Value`
//// (`client.call_tool_msgpack` builds it once, from the server's line), or
//// as the fault that keeps it from being one (`ResultUntranslatable`).
////
//// Servers are found by name in a registry the harness fills at boot
//// (`register`), one started `mcp/client.Client` per configured server.
//// The contract these two functions keep is `docs/cap-contract.md`.

import cap/mcp.{type Arg, type Outcome, type Value, Reply}
import cap/report
import gleam/list
import gleam/option
import gleam/result
import gleam/string
import mcp/client.{type Client}
import mcp/interchange
import mcp/protocol.{MsgpackCallToolResult, Text}

/// Every call's deadline.
pub const call_timeout_ms = 30_000

/// Makes `client` the server called `server` in generated modules.
@external(erlang, "cap_registry_ffi", "register")
pub fn register(server: String, client: Client) -> Nil

@external(erlang, "cap_registry_ffi", "unregister")
pub fn unregister(server: String) -> Nil

@external(erlang, "cap_registry_ffi", "lookup")
fn lookup(server: String) -> Result(Client, Nil)

/// A typed tool: named arguments, omitted ones left out of the object.
pub fn invoke(
  server: String,
  tool: String,
  args: List(#(String, Arg)),
) -> Outcome {
  let members =
    list.filter_map(args, fn(arg) {
      let #(name, value) = arg
      mcp.to_value(value)
      |> result.map(fn(value) { #(interchange.StringValue(name), value) })
    })
  invoke_whole(server, tool, interchange.MapValue(members))
}

/// A whole-value tool: `arguments` is the whole `arguments` object.
pub fn invoke_whole(server: String, tool: String, arguments: Value) -> Outcome {
  use client <- result.try(
    lookup(server) |> result.replace_error(report.UnknownServer(server)),
  )
  use json_arguments <- result.try(
    interchange.to_json(arguments)
    |> result.map_error(fn(fault) {
      report.BadArguments(server, tool, interchange.describe(fault))
    }),
  )
  case client.call_tool_msgpack(client, tool, json_arguments, call_timeout_ms) {
    Ok(MsgpackCallToolResult(content, is_error: False, structured_content:)) ->
      case structured_content {
        option.None -> Ok(Reply(texts(content), option.None))
        option.Some(Ok(value)) -> Ok(Reply(texts(content), option.Some(value)))
        option.Some(Error(fault)) ->
          Error(report.ResultUntranslatable(
            server,
            tool,
            interchange.describe(fault),
          ))
      }
    Ok(MsgpackCallToolResult(content, is_error: True, ..)) ->
      Error(report.ToolFailed(server, tool, string.join(texts(content), "\n")))
    Error(error) ->
      Error(report.CallFailed(server, tool, client.describe_client_error(error)))
  }
}

fn texts(content: List(protocol.ContentBlock)) -> List(String) {
  list.filter_map(content, fn(block) {
    case block {
      Text(text) -> Ok(text)
      _ -> Error(Nil)
    }
  })
}
