import gleam/int
import gleam/list
import gleam/string
import mcp/internal/scheduling
import mcp/json.{Array, Bool, CorruptionReport, Float, Int, Null, Object, String}

pub fn decode_gives_every_constructor_test() {
  let assert Ok(Object([
    #("a", Null),
    #("b", Bool(True)),
    #("c", Int(-7)),
    #("d", Float(1.5)),
    #("e", String("é")),
    #("f", Array([])),
    #("a", Int(2)),
  ])) =
    json.decode(<<
      "{\"a\":null,\"b\":true,\"c\":-7,\"d\":1.5,\"e\":\"é\",\"f\":[],\"a\":2}":utf8,
    >>)
}

pub fn bignums_are_exact_test() {
  let assert Ok(Int(n)) = json.parse("123456789012345678901234567890")
  let assert True = n == 123_456_789_012_345_678_901_234_567_890
}

pub fn corruption_is_a_report_test() {
  let assert Error(CorruptionReport(
    byte_offset: 1,
    reason: "unexpected character",
  )) = json.parse("[x]")
  let assert Error(CorruptionReport(reason: "invalid utf-8", ..)) =
    json.decode(<<"\"":utf8, 255, "\"":utf8>>)
}

pub fn encode_round_trips_test() {
  let value =
    Object([
      #("k", Array([Int(1), Float(0.1), String("a\nb"), Null, Bool(False)])),
    ])
  let assert Ok(text) = json.encode(value)
  let assert "{\"k\":[1,0.1,\"a\\nb\",null,false]}" = text
  let assert Ok(again) = json.parse(text)
  let assert True = again == value
  let assert Ok(line) = json.encode_line(value)
  let assert True = line == text <> "\n"
}

fn nested(depth: Int) -> json.JsonValue {
  case depth {
    0 -> Null
    _ -> Array([nested(depth - 1)])
  }
}

pub fn depth_limit_both_sides_test() {
  let limit = json.max_depth()
  let assert 128 = limit
  let at_limit = string.repeat("[", limit) <> string.repeat("]", limit)
  let past_limit = "[" <> at_limit <> "]"
  let assert Ok(_) = json.parse(at_limit)
  let assert Error(CorruptionReport(reason: "nesting too deep", ..)) =
    json.parse(past_limit)
  let assert Ok(_) = json.encode(nested(limit))
  let assert Error(json.NestedTooDeep) = json.encode(nested(limit + 1))
  let assert Error(json.NestedTooDeep) = json.encode_line(nested(limit + 1))
}

/// An integer of more than `max_integer_digits()` digits is refused as a
/// value, never raised.
pub fn integer_digit_limit_is_an_error_test() {
  let digits = json.max_integer_digits()
  let assert 4300 = digits
  let assert Ok(longest) = int.parse(string.repeat("9", digits))
  let assert Ok(_) = json.encode(Int(longest))
  let assert Error(json.IntegerTooLong) =
    json.encode(Array([Int(longest * 10 + 9)]))
  let assert Error(json.IntegerTooLong) =
    json.encode_line(Object([#("n", Int(-longest * 10))]))
}

pub fn dirty_threshold_sized_inputs_decode_test() {
  let big =
    "["
    <> string.join(list.repeat("1", scheduling.json_dirty_threshold()), ",")
    <> "]"
  let assert Ok(Array(items)) = json.parse(big)
  let assert True = list.length(items) == scheduling.json_dirty_threshold()
}
