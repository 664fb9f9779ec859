//// The calls generated bodies make (`docs/cap-contract.md`, "Calls"): a
//// server name, a wire tool name and the arguments become one `tools/call`
//// on the client the harness registered under that name.

import cap/mcp.{type Arg, type Outcome, type Value, Answer, CallFailed}
import gleam/list
import gleam/string
import mcp/client.{type Client}
import mcp/json
import mcp/protocol.{CallToolResult, Text}

/// Every call's deadline.
pub const timeout_ms = 20_000

/// Makes `client` the server called `server` in the generated modules.
@external(erlang, "harness_ffi", "put_client")
pub fn register(server: String, client: Client) -> Nil

@external(erlang, "harness_ffi", "drop_client")
pub fn unregister(server: String) -> Nil

@external(erlang, "harness_ffi", "find_client")
fn find(server: String) -> Result(Client, Nil)

pub fn invoke(
  server: String,
  tool: String,
  args: List(#(String, Arg)),
) -> Outcome {
  let members =
    list.filter_map(args, fn(arg) {
      case mcp.given(arg.1) {
        Ok(value) -> Ok(#(arg.0, value))
        Error(Nil) -> Error(Nil)
      }
    })
  invoke_whole(server, tool, json.Object(members))
}

pub fn invoke_whole(server: String, tool: String, arguments: Value) -> Outcome {
  case find(server) {
    Error(Nil) -> Error(mcp.NoSuchServer(server))
    Ok(client) ->
      case client.call_tool(client, tool, arguments, timeout_ms) {
        Ok(CallToolResult(content, is_error: False, structured_content:)) ->
          Ok(Answer(texts(content), structured_content))
        Ok(CallToolResult(content, is_error: True, ..)) ->
          Error(mcp.ToolError(string.join(texts(content), "\n")))
        Error(error) -> Error(CallFailed(client.describe_client_error(error)))
      }
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
