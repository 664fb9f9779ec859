//// The client end to end over Streamable HTTP, from Gleam: a real server
//// (npm server-everything, `streamableHttp`) on a loopback port.

import gleam/list
import gleam/option.{None}
import gleam/string
import mcp/client.{Exited, PeerDown}
import mcp/json.{Object, String}
import mcp/protocol.{CallToolResult, InitializeResult, Text}
import mcp/transport.{HttpTransport, Remote}

type HttpPeer

@external(erlang, "mcp_test_ffi", "everything_over_http")
fn everything_over_http() -> #(String, HttpPeer)

@external(erlang, "mcp_test_ffi", "stop_http_peer")
fn stop_http_peer(peer: HttpPeer) -> Nil

/// Handshake, listing, a call and the session's end, all over HTTP; a
/// header given in the transport travels with every request.
pub fn server_everything_over_http_test() {
  let #(url, peer) = everything_over_http()
  let remote =
    Remote(
      url: url,
      headers: [#("X-Test", "gleam")],
      max_line_bytes: None,
      oauth: None,
    )
  let assert Ok(#(client, InitializeResult(protocol_version: version, ..))) =
    client.start(HttpTransport(remote), client.default_options())
  let assert True = list.contains(protocol.supported_versions(), version)
  let assert Ok(tools) = client.list_tools(client)
  let assert True = list.any(tools, fn(tool) { tool.name == "echo" })
  let assert Ok(CallToolResult([Text("Echo: over http")], False, _)) =
    client.call_tool(
      client,
      "echo",
      Object([#("message", String("over http"))]),
      5000,
    )
  let assert Ok(Nil) = client.ping(client, 5000)
  let assert Ok(Exited(PeerDown(reason))) = client.shutdown(client, 5000)
  let assert True = string.contains(reason, "session")
  stop_http_peer(peer)
}
