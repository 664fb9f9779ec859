//// The client end to end from Gleam: the bundled example server (an
//// escript), npm server-everything (installed by the test setup), a missing
//// executable, a channel peer that never answers, and remote servers that
//// cannot be reached or may not be sent headers.

import gleam/erlang/process
import gleam/int
import gleam/list
import gleam/option.{None, Some}
import gleam/string
import mcp/client.{
  BadTransportSpec, CallTimedOut, ClientAlreadyGone, ClientGone,
  ExecutableNotFound, ExitCode, Exited, HandshakeFailed, HttpFailed,
  KilledBySignal, LineTooLong, NoResource, OtherTransportFailure, PeerDown,
  PeerStartFailed, RequestFailed, ShutdownTimeoutOutOfRange,
  TimeoutOptionOutOfRange, TimeoutOutOfRange, TransportFailed, Unavailable,
  UnencodableArguments,
}
import mcp/interchange.{IntValue, InterchangeFault, MapValue, StringValue}
import mcp/json.{Array, Float, Int, Object, String}
import mcp/protocol.{
  CallToolResult, InitializeResult, MsgpackCallToolResult, ServerInfo, Text,
}
import mcp/test_support
import mcp/transport.{ChannelTransport, HttpTransport, PortTransport, Remote}

fn example_server() -> transport.Transport {
  PortTransport(test_support.example_server())
}

fn everything_server() -> transport.Transport {
  PortTransport(
    transport.spawn("node", [
      "../test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
      "stdio",
    ]),
  )
}

fn tool_names(tools: List(protocol.ToolDescriptor)) -> List(String) {
  list.map(tools, fn(tool) { tool.name })
}

pub fn example_server_end_to_end_test() {
  let assert Ok(#(
    client,
    InitializeResult(
      protocol_version: "2025-11-25",
      server_info: ServerInfo("example", "1.0.0"),
      ..,
    ),
  )) = client.start(example_server(), client.default_options())
  let assert Some(os_pid) = client.os_pid(client)
  let assert True = test_support.os_process_alive(os_pid)

  let assert Ok(tools) = client.list_tools(client)
  let assert [
    "echo",
    "add",
    "divide",
    "greet",
    "sumList",
    "create_event",
    "evaluate",
    "sleep",
  ] = tool_names(tools)
  let assert Ok(_) = client.list_tools_within(client, 5000)

  let assert Ok(CallToolResult(
    [Text("5")],
    False,
    Some(Object([#("sum", Int(5))])),
  )) =
    client.call_tool(
      client,
      "add",
      Object([#("a", Int(2)), #("b", Int(3))]),
      5000,
    )
  // The same result with its structuredContent read as MessagePack, and
  // one that has no MessagePack form (the sum leaves the range).
  let assert Ok(MsgpackCallToolResult(
    [Text("5")],
    False,
    Some(Ok(MapValue([#(StringValue("sum"), IntValue(5))]))),
  )) =
    client.call_tool_msgpack(
      client,
      "add",
      Object([#("a", Int(2)), #("b", Int(3))]),
      5000,
    )
  let assert Ok(MsgpackCallToolResult(
    _,
    False,
    Some(Error(InterchangeFault("$.sum", "integer outside msgpack range"))),
  )) =
    client.call_tool_msgpack(
      client,
      "add",
      Object([#("a", Int(interchange.max_msgpack_int())), #("b", Int(1))]),
      5000,
    )
  // A tool error is a result with is_error set, not a client error.
  let assert Ok(CallToolResult([Text("division by zero")], True, None)) =
    client.call_tool(
      client,
      "divide",
      Object([#("dividend", Float(1.0)), #("divisor", Float(0.0))]),
      5000,
    )
  let assert Ok(Nil) = client.ping(client, 5000)

  let assert Ok(Exited(KilledBySignal(9))) = client.shutdown(client, 5000)
  let assert False = test_support.os_process_alive(os_pid)
  // The actor is gone: a call says so, and a second shutdown cannot prove
  // more than the first did.
  let assert Error(Unavailable(ClientGone) as gone) = client.ping(client, 1000)
  let assert True =
    string.contains(client.describe_client_error(gone), "no longer exists")
  let assert Error(ClientAlreadyGone) = client.shutdown(client, 1000)
  let assert Error(Unavailable(ClientGone)) =
    client.call_tool(client, "add", Object([]), 1000)
}

/// `tools` lists first, then answers the current listing with its
/// generation; a subscription hears nothing while the listing stays the
/// same, and a selector built for it waits.
pub fn the_listing_and_its_generation_test() {
  let assert Ok(#(client, _)) =
    client.start(example_server(), client.default_options())
  let assert Ok(#(1, tools)) = client.tools(client)
  let assert Ok(listed) = client.list_tools(client)
  assert tool_names(tools) == tool_names(listed)
  let assert Ok(#(1, _)) = client.tools(client)
  let assert Ok(Nil) = client.subscribe(client)
  let selector =
    process.new_selector()
    |> client.select_tools_changed(fn(changed) { changed.generation })
  let assert Error(Nil) = process.selector_receive(selector, 50)
  let assert Ok(_) = client.shutdown(client, 5000)
}

pub fn server_everything_test() {
  let assert Ok(#(client, InitializeResult(protocol_version: version, ..))) =
    client.start(everything_server(), client.default_options())
  let assert True = list.contains(protocol.supported_versions(), version)
  let assert Ok(tools) = client.list_tools(client)
  let assert True = list.contains(tool_names(tools), "echo")
  let assert Ok(CallToolResult([Text(text)], False, _)) =
    client.call_tool(client, "echo", Object([#("message", String("hi"))]), 5000)
  let assert "Echo: hi" = text
  let assert Ok(Exited(_)) = client.shutdown(client, 5000)
}

/// Nothing listens on port 1: the handshake's POST fails, typed.
pub fn unreachable_remote_server_test() {
  let assert Error(HandshakeFailed(Unavailable(HttpFailed(RequestFailed(_))))) =
    client.start(
      HttpTransport(transport.remote("http://127.0.0.1:1/mcp")),
      client.default_options(),
    )
}

/// Headers never go in plaintext to a host other than the loopback, and
/// the refusal names the host, not the header's value.
pub fn plaintext_headers_to_another_host_are_refused_test() {
  let remote =
    Remote(
      url: "http://192.0.2.1/mcp",
      headers: [#("Authorization", "Bearer secret-value")],
      max_line_bytes: None,
      oauth: None,
    )
  let assert Error(TransportFailed(OtherTransportFailure(description))) =
    client.start(HttpTransport(remote), client.default_options())
  let assert False = string.contains(description, "secret-value")
  let assert True = string.contains(description, "192.0.2.1")
}

pub fn missing_executable_test() {
  let missing = "no-such-mcp-server-" <> "9f1c"
  let assert Error(TransportFailed(ExecutableNotFound(name))) =
    client.start(
      PortTransport(transport.spawn(missing, [])),
      client.default_options(),
    )
  let assert True = name == missing
}

/// A spawn's `max_line_bytes` caps what the server may write: the example
/// server's initialize response (over 64 bytes) ends the handshake; a cap
/// outside 1..16 MiB is refused before anything is spawned.
pub fn line_cap_of_a_spawn_test() {
  let capped = fn(cap) {
    PortTransport(
      transport.Spawn(
        ..test_support.example_server(),
        max_line_bytes: Some(cap),
      ),
    )
  }
  let assert Error(HandshakeFailed(Unavailable(LineTooLong(bytes)))) =
    client.start(capped(64), client.default_options())
  let assert True = bytes > 64
  let assert Error(TransportFailed(BadTransportSpec(_))) =
    client.start(capped(0), client.default_options())
}

/// With a grace the example server (its VM stops on SIGTERM) exits on its
/// own; without one it is killed by our SIGKILL.
pub fn shutdown_grace_test() {
  let assert 60_000 = transport.max_shutdown_grace_ms()
  let graced =
    PortTransport(
      transport.Spawn(
        ..test_support.example_server(),
        shutdown_grace_ms: 10_000,
      ),
    )
  let assert Ok(#(client, _)) = client.start(graced, client.default_options())
  let assert Ok(Exited(ExitCode(_))) = client.shutdown(client, 20_000)
  let assert Ok(#(client, _)) =
    client.start(example_server(), client.default_options())
  let assert Ok(Exited(KilledBySignal(9))) = client.shutdown(client, 20_000)
}

pub fn limits_test() {
  let assert 86_400_000 = client.max_timeout_ms()
  let assert 64 = client.max_tool_pages()
}

pub fn parked_client_needs_no_cleanup_test() {
  let assert Ok(client) =
    client.prepare(example_server(), client.default_options())
  let assert None = client.os_pid(client)
  let assert Ok(NoResource) = client.shutdown(client, 1000)
}

pub fn silent_channel_peer_times_out_the_handshake_test() {
  let silent =
    ChannelTransport(fn(_channel) {
      Ok(process.spawn_unlinked(fn() { process.sleep_forever() }))
    })
  let options =
    client.Options(..client.default_options(), handshake_timeout_ms: 200)
  let assert Ok(client) = client.prepare_owned(silent, options, process.self())
  let assert Error(HandshakeFailed(CallTimedOut)) = client.connect(client)
  let assert Ok(Exited(PeerDown(reason))) = client.shutdown(client, 2000)
  let assert "killed" = reason
}

pub fn channel_peer_that_cannot_start_says_why_test() {
  let refusing = ChannelTransport(fn(_channel) { Error("no peer today") })
  let assert Error(TransportFailed(PeerStartFailed("no peer today")) as error) =
    client.start(refusing, client.default_options())
  let assert "could not start the server: no peer today" =
    client.describe_start_error(error)
}

/// Timeouts outside 0..max_timeout_ms() are refused as values before
/// anything is sent; the client stays usable.
pub fn out_of_range_timeouts_are_errors_test() {
  let max = client.max_timeout_ms()
  let too_long =
    client.Options(..client.default_options(), list_timeout_ms: max + 1)
  let assert Error(TimeoutOptionOutOfRange("list_timeout_ms", over) as error) =
    client.start(example_server(), too_long)
  let assert True = over == max + 1
  let assert True =
    string.contains(client.describe_start_error(error), "list_timeout_ms")
  let negative =
    client.Options(..client.default_options(), handshake_timeout_ms: -1)
  let assert Error(TimeoutOptionOutOfRange("handshake_timeout_ms", -1)) =
    client.prepare(example_server(), negative)
  let assert Error(TimeoutOptionOutOfRange("handshake_timeout_ms", -1)) =
    client.prepare_owned(example_server(), negative, process.self())

  let assert Ok(#(client, _)) =
    client.start(example_server(), client.default_options())
  let assert Error(TimeoutOutOfRange(-1)) =
    client.call_tool(client, "add", Object([]), -1)
  let assert Error(TimeoutOutOfRange(-1)) =
    client.call_tool_msgpack(client, "add", Object([]), -1)
  let assert Error(TimeoutOutOfRange(_)) = client.ping(client, max + 1)
  let assert Error(TimeoutOutOfRange(-5)) = client.list_tools_within(client, -5)
  let assert Error(ShutdownTimeoutOutOfRange(-1) as refused) =
    client.shutdown(client, -1)
  let assert True =
    string.contains(client.describe_retirement_error(refused), "-1 ms")
  let assert Ok(Nil) = client.ping(client, max)
  let assert Ok(Exited(_)) = client.shutdown(client, 5000)
}

fn nested(depth: Int) -> json.JsonValue {
  case depth {
    0 -> Object([])
    _ -> Array([nested(depth - 1)])
  }
}

/// Arguments with no JSON text are an error in the caller; nothing is sent
/// and the client keeps serving.
pub fn unencodable_arguments_are_an_error_test() {
  let assert Ok(#(client, _)) =
    client.start(example_server(), client.default_options())
  let assert Error(UnencodableArguments) =
    client.call_tool(
      client,
      "echo",
      Object([#("message", nested(json.max_depth() + 1))]),
      5000,
    )
  let assert Ok(long) =
    int.parse(string.repeat("7", json.max_integer_digits() + 1))
  let assert Error(UnencodableArguments) =
    client.call_tool(client, "echo", Object([#("n", Int(long))]), 5000)
  let assert Error(UnencodableArguments) =
    client.call_tool_msgpack(client, "echo", Object([#("n", Int(long))]), 5000)
  let assert Ok(Nil) = client.ping(client, 5000)
  let assert Ok(Exited(_)) = client.shutdown(client, 5000)
}

/// `describe_*` say what the command line says for the same reason: every
/// reason of the vocabulary, translated and described, matches
/// `mcp_describe`'s sentence for the Erlang original.
pub fn descriptions_are_the_command_lines_test() {
  let assert [] = test_support.describe_disagreements()
}

pub fn default_environment_is_an_allow_list_test() {
  let names = transport.inherited_env_names()
  let assert True = list.contains(names, "PATH")
  let assert False = list.contains(names, "MCP_GEN_ROOT")
}

/// A server's stderr appended to a file (the example server's VM writes
/// nothing there, so the file only has to exist and the start succeed),
/// and a file that cannot be written refused before anything is spawned.
pub fn stderr_to_a_file_test() {
  let path = "/tmp/mcp-gleam-stderr-test.log"
  let to_file = fn(path) {
    PortTransport(
      transport.Spawn(
        ..test_support.example_server(),
        stderr: transport.StderrToFile(path, 1000),
      ),
    )
  }
  let assert Ok(#(client, _)) =
    client.start(to_file(path), client.default_options())
  let assert Ok(Exited(KilledBySignal(9))) = client.shutdown(client, 5000)
  let assert Error(TransportFailed(client.BadStderr(_))) =
    client.start(to_file("/nonexistent-dir/x.log"), client.default_options())
  let assert True =
    transport.default_stderr_file_bytes() < transport.max_stderr_file_bytes()
}

/// The era and the input handler travel to the client: `Auto` against
/// the example server (a handshake-era server) falls back to `initialize`
/// and lists nothing left out; an input timeout out of range is refused.
pub fn era_and_input_handler_options_test() {
  let options =
    client.Options(
      ..client.default_options(),
      era: client.Auto,
      input_handler: option.Some(fn(_request) { client.Decline }),
    )
  let assert Ok(#(client, _)) = client.start(example_server(), options)
  let assert Ok([]) = client.left_out_tools(client)
  let assert Ok(_) = client.shutdown(client, 5000)
  let assert Error(TimeoutOptionOutOfRange("input_timeout_ms", -1)) =
    client.prepare(
      example_server(),
      client.Options(..client.default_options(), input_timeout_ms: -1),
    )
}
