//// Values the Gleam types admit and no decoder produces (nesting past
//// `json.max_depth()`, integers past `json.max_integer_digits()` digits,
//// bits that are not whole bytes): each function answers them with its own
//// typed error, at both sides of each limit. `totality_test.erl` checks
//// that no public function raises on them; these check the answers.

import gleam/int
import gleam/option.{None, Some}
import gleam/string
import mcp/codegen.{ValueBeyondLimits}
import mcp/interchange.{BinaryValue, Corrupt, ExtValue, PayloadNotWholeBytes}
import mcp/json.{Array, CorruptionReport, Int, Null, Object, String}
import mcp/jsonrpc.{MalformedMessage}
import mcp/name
import mcp/protocol.{ProtocolFault, ToolDescriptor}
import mcp/schema.{WholeValue}
import mcp/stdio.{ChunkNotWholeBytes}
import mcp/transport

fn nested(depth: Int) -> json.JsonValue {
  case depth {
    0 -> Null
    _ -> Array([nested(depth - 1)])
  }
}

/// `$` followed by `depth` times `[0]`.
fn path_into(depth: Int) -> String {
  "$" <> string.repeat("[0]", depth)
}

fn long_integer(digits: Int) -> Int {
  let assert Ok(value) = int.parse(string.repeat("9", digits))
  value
}

fn tool(input_schema: json.JsonValue, execution) -> protocol.ToolDescriptor {
  ToolDescriptor("t", None, None, input_schema, None, None, execution)
}

pub fn bits_that_are_not_whole_bytes_are_reported_test() {
  let report = CorruptionReport(1, "input is not whole bytes")
  let assert Error(r1) = json.decode(<<"[", 1:3>>)
  let assert True = r1 == report
  let assert Error(MalformedMessage(r2)) = jsonrpc.decode(<<"[", 1:3>>)
  let assert True = r2 == report
  let assert Error(r3) = interchange.msgpack_decode(<<"[", 1:3>>)
  let assert True = r3 == report
  let assert Error(Corrupt(r4)) = interchange.msgpack_to_json_line(<<"[", 1:3>>)
  let assert True = r4 == report
  let assert Error(Corrupt(r5)) =
    interchange.json_to_msgpack_bytes(<<"[", 1:3>>)
  let assert True = r5 == report
  let assert Error(ChunkNotWholeBytes(11)) =
    stdio.push(stdio.new(), <<"[", 1:3>>)
  let assert Error(ChunkNotWholeBytes(3)) =
    stdio.push_with_offsets(stdio.new(), <<1:3>>)
  let assert Error(PayloadNotWholeBytes) =
    interchange.msgpack_encode(BinaryValue(<<1:3>>))
  let assert Error(PayloadNotWholeBytes) =
    interchange.msgpack_encode(ExtValue(1, <<1:7>>))
  // whole bytes, the other side: decoded as usual
  let assert Ok(Array([])) = json.decode(<<"[]">>)
  let assert Ok(#([], _)) = stdio.push(stdio.new(), <<"[">>)
  let assert Ok(_) = interchange.msgpack_encode(BinaryValue(<<1>>))
}

pub fn protocol_decoders_name_the_part_past_the_limits_test() {
  let limit = json.max_depth()
  let assert Error(ProtocolFault(path, "nesting too deep")) =
    protocol.decode_tools_page(nested(limit + 1))
  let assert True = path == path_into(limit)
  // at the limit the decoder reads the value and refuses it for what it is
  let assert Error(ProtocolFault(_, reason)) =
    protocol.decode_tools_page(nested(limit))
  let assert False = reason == "nesting too deep"
  let long =
    Object([
      #("content", Array([])),
      #("structuredContent", Int(long_integer(json.max_integer_digits() + 1))),
    ])
  let assert Error(ProtocolFault("$.structuredContent", "integer too long")) =
    protocol.decode_call_tool_result(long)
  let at_limit =
    Object([
      #("content", Array([])),
      #("structuredContent", Int(long_integer(json.max_integer_digits()))),
    ])
  let assert Ok(_) = protocol.decode_call_tool_result(at_limit)
  let assert Error(ProtocolFault(_, "nesting too deep")) =
    protocol.decode_initialize_result(
      Object([#("capabilities", nested(limit))]),
    )
}

pub fn a_schema_past_the_limits_is_a_whole_value_test() {
  let limit = json.max_depth()
  let schema = fn(property) {
    Object([
      #("type", String("object")),
      #("properties", Object([#("a", property)])),
    ])
  }
  let assert WholeValue(reason) = schema.plan(schema(nested(limit - 1)))
  let assert True =
    reason
    == "nesting too deep at $.properties.a" <> string.repeat("[0]", limit - 2)
  let assert schema.Typed([_]) = schema.plan(schema(nested(limit - 2)))
}

pub fn generate_refuses_a_tool_past_the_limits_test() {
  let limit = json.max_depth()
  let assert Error(ValueBeyondLimits("t", path, "nesting too deep")) =
    codegen.generate("s", [tool(nested(limit + 1), None)])
  let assert True = path == "$.inputSchema" <> string.repeat("[0]", limit)
  let assert Error(ValueBeyondLimits("t", "$.execution.n", "integer too long")) =
    codegen.generate("s", [
      tool(Object([]), Some(Object([#("n", Int(long_integer(4301)))]))),
    ])
  let assert Error(error) =
    codegen.generate("s", [tool(nested(limit + 1), None)])
  let assert True = string.contains(codegen.describe(error), "$.inputSchema")
  // requires_tasks still answers from execution.taskSupport
  let deep_execution = fn(support) {
    Some(Object([#("taskSupport", String(support)), #("deep", nested(limit))]))
  }
  let assert True =
    codegen.requires_tasks(tool(nested(limit + 1), deep_execution("required")))
  let assert False =
    codegen.requires_tasks(tool(nested(limit + 1), deep_execution("optional")))
}

pub fn describe_spells_impossible_counts_in_words_test() {
  let assert True =
    string.length(
      codegen.describe(codegen.TooManyTools(-1, 1_000_000_000_000_000_000_000)),
    )
    > 0
}

pub fn write_refuses_bits_that_are_not_whole_bytes_test() {
  let channel = test_channel()
  let assert Error(transport.ChunkNotWholeBytes(3)) =
    transport.write(channel, <<1:3>>)
  let assert Ok(Nil) = transport.write(channel, <<"{}\n">>)
}

@external(erlang, "totality_test", "channel")
fn test_channel() -> transport.Channel

pub fn digest_is_what_a_changed_name_carries_test() {
  let assert "092c79e8" = name.digest("echo")
  let assert True = name.mangle("echo") == "echo_" <> name.digest("echo")
  let assert True = string.length(name.digest("")) == 8
}
