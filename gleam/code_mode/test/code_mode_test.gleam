//// Code mode end to end: the generated module of the bundled example server
//// (`cap/mcp/example`, the CLI golden), compiled against the `cap`
//// counterpart in src/, calling the real server through `mcp/client`.

import cap/internal/mcp as internal
import cap/mcp.{Give, Omit, Reply}
import cap/mcp/example
import cap/report.{ResultUntranslatable, ToolFailed, UnknownServer}
import gleam/option.{None, Some}
import gleeunit
import mcp/client
import mcp/interchange.{ArrayValue, FloatValue, IntValue, MapValue, StringValue}
import mcp/transport.{PortTransport}

pub fn main() -> Nil {
  gleeunit.main()
}

@external(erlang, "code_mode_test_ffi", "build_lib_dir")
fn build_lib_dir() -> String

/// Starts the example server, registers it as "example" for the generated
/// module, runs `body`, and retires the server whatever `body` did.
fn with_example_server(body: fn() -> a) -> a {
  let spawn =
    transport.Spawn(
      ..transport.spawn("escript", ["../../examples/example_server.escript"]),
      env: [#("ERL_LIBS", transport.Set(build_lib_dir()))],
    )
  let assert Ok(#(client, _)) =
    client.start(PortTransport(spawn), client.default_options())
  internal.register("example", client)
  let result = body()
  internal.unregister("example")
  let assert Ok(client.Exited(_)) = client.shutdown(client, 5000)
  result
}

pub fn typed_tool_with_optional_arguments_test() {
  use <- with_example_server
  let assert Ok(Reply(["HI, ADA!"], None)) =
    example.greet(
      name: "Ada",
      greeting: Give("Hi"),
      times: Omit,
      shout: Give(True),
    )
  let assert Ok(Reply(["Hello, Bo! Hello, Bo!"], None)) =
    example.greet(name: "Bo", greeting: Omit, times: Give(2), shout: Omit)
}

pub fn structured_content_comes_back_as_a_value_test() {
  use <- with_example_server
  let assert Ok(Reply(
    ["5"],
    Some(MapValue([#(StringValue("sum"), IntValue(5))])),
  )) = example.add(a: 2, b: 3)
}

pub fn list_parameter_test() {
  use <- with_example_server
  let assert Ok(Reply(["4.0"], None)) =
    example.sum_list_9b720a48(numbers: [1.5, 2.5])
}

pub fn structured_parameters_test() {
  use <- with_example_server
  let place =
    MapValue([
      #(StringValue("lat"), FloatValue(1.5)),
      #(StringValue("lon"), FloatValue(2.0)),
    ])
  let assert Ok(Reply(
    ["created Launch at {\"lat\":1.5,\"lon\":2.0} with 2 attendees"],
    Some(_),
  )) =
    example.create_event(
      title: "Launch",
      place:,
      attendees: Give(ArrayValue([MapValue([]), MapValue([])])),
    )
}

pub fn whole_value_tool_test() {
  use <- with_example_server
  let assert Ok(Reply(["received {\"text\":\"1+2\"}"], None)) =
    example.evaluate(
      arguments: MapValue([#(StringValue("text"), StringValue("1+2"))]),
    )
}

/// A result with no `Value` form is a report, not a reply missing its
/// structured part: the sum of two in-range integers leaves the MessagePack
/// range.
pub fn untranslatable_result_is_a_report_test() {
  use <- with_example_server
  let assert Error(ResultUntranslatable("example", "add", detail)) =
    example.add(a: interchange.max_msgpack_int(), b: 1)
  let assert "integer outside msgpack range at $.sum" = detail
}

pub fn tool_error_is_a_report_test() {
  use <- with_example_server
  let assert Error(ToolFailed("example", "divide", "division by zero")) =
    example.divide(dividend: 1.0, divisor: 0.0)
}

pub fn unregistered_server_is_a_report_test() {
  let assert Error(UnknownServer("example")) = example.add(a: 1, b: 1)
}
