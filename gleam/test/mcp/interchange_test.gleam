import gleam/list
import gleam/string
import mcp/interchange.{
  ArrayValue, BinaryValue, BoolValue, Corrupt, ExtValue, FloatValue, IntValue,
  InterchangeFault, MapValue, NilValue, StringValue, Untranslatable,
}
import mcp/internal/scheduling
import mcp/json.{Array, Bool, CorruptionReport, Float, Int, Null, Object, String}

pub fn json_round_trip_test() {
  let value =
    Object([
      #("n", Null),
      #("b", Bool(True)),
      #("i", Int(-3)),
      #("f", Float(2.5)),
      #("s", String("x")),
      #("a", Array([Int(1)])),
    ])
  let assert Ok(
    MapValue([
      #(StringValue("n"), NilValue),
      #(StringValue("b"), BoolValue(True)),
      #(StringValue("i"), IntValue(-3)),
      #(StringValue("f"), FloatValue(2.5)),
      #(StringValue("s"), StringValue("x")),
      #(StringValue("a"), ArrayValue([IntValue(1)])),
    ]) as msgpack,
  ) = interchange.to_msgpack(value)
  let assert Ok(back) = interchange.to_json(msgpack)
  let assert True = back == value
  let assert Ok(bytes) = interchange.msgpack_encode(msgpack)
  let assert Ok(decoded) = interchange.msgpack_decode(bytes)
  let assert True = decoded == msgpack
}

pub fn integer_range_both_sides_test() {
  let max = interchange.max_msgpack_int()
  let min = interchange.min_msgpack_int()
  let assert Ok(IntValue(_)) = interchange.to_msgpack(Int(max))
  let assert Ok(IntValue(_)) = interchange.to_msgpack(Int(min))
  let assert Error(InterchangeFault("$", "integer outside msgpack range")) =
    interchange.to_msgpack(Int(max + 1))
  let assert Error(InterchangeFault("$", "integer outside msgpack range")) =
    interchange.to_msgpack(Int(min - 1))
}

/// What `msgpack_encode` cannot write is an error naming the value, never
/// a raise.
pub fn msgpack_encode_refusals_test() {
  let max = interchange.max_msgpack_int()
  let min = interchange.min_msgpack_int()
  let assert Ok(_) = interchange.msgpack_encode(IntValue(max))
  let assert Error(interchange.IntOutOfRange(value)) =
    interchange.msgpack_encode(ArrayValue([NilValue, IntValue(max + 1)]))
  let assert True = value == max + 1
  let assert Error(interchange.IntOutOfRange(_)) =
    interchange.msgpack_encode(MapValue([#(IntValue(min - 1), NilValue)]))
  let assert Error(interchange.ExtTypeOutOfRange(128)) =
    interchange.msgpack_encode(ExtValue(128, <<>>))
  let assert Ok(_) = interchange.msgpack_encode(ExtValue(-128, <<>>))
  let assert Error(interchange.MsgpackTooDeep) =
    interchange.msgpack_encode(nested(129))
}

fn nested(depth: Int) -> interchange.MsgpackValue {
  case depth {
    0 -> NilValue
    _ -> ArrayValue([nested(depth - 1)])
  }
}

pub fn faults_name_their_path_test() {
  let fault =
    interchange.to_json(
      MapValue([
        #(StringValue("args"), ArrayValue([NilValue, BinaryValue(<<1>>)])),
      ]),
    )
  let assert Error(
    InterchangeFault("$.args[1]", "binary has no json form") as f,
  ) = fault
  let assert "binary has no json form at $.args[1]" = interchange.describe(f)
  let assert Error(InterchangeFault(_, "ext has no json form")) =
    interchange.to_json(ExtValue(1, <<>>))
}

pub fn byte_paths_test() {
  let assert Ok("[1,true]") =
    interchange.msgpack_to_json_line(<<0x92, 0x01, 0xc3>>)
  let assert Ok(<<0x92, 0x01, 0xc3>>) =
    interchange.json_to_msgpack_bytes(<<"[1,true]":utf8>>)
  let assert Error(Untranslatable(InterchangeFault(
    "$",
    "binary has no json form",
  ))) = interchange.msgpack_to_json_line(<<0xc4, 1, 0>>)
  let assert Error(Corrupt(CorruptionReport(2, "unexpected end of input"))) =
    interchange.json_to_msgpack_bytes(<<"[1":utf8>>)
  let assert Error(Corrupt(CorruptionReport(_, "trailing bytes"))) =
    interchange.msgpack_to_json_line(<<0x01, 0x01>>)
}

/// A term translation past the work budget is redone on a dirty scheduler,
/// and a byte input of the dirty threshold's size runs on one: both answer
/// as the small inputs do.
pub fn past_the_work_budget_and_the_dirty_threshold_test() {
  let count = scheduling.interchange_work_budget() + 1
  let ints = list.repeat(1, count)
  let assert Ok(ArrayValue(items)) =
    interchange.to_msgpack(Array(list.map(ints, Int)))
  let assert True = items == list.map(ints, IntValue)
  let assert Ok(Array(back)) = interchange.to_json(ArrayValue(items))
  let assert True = back == list.map(ints, Int)
  let assert Ok(bytes) = interchange.msgpack_encode(ArrayValue(items))
  let assert Ok(ArrayValue(again)) = interchange.msgpack_decode(bytes)
  let assert True = again == items
  let line =
    "["
    <> string.join(
      list.repeat("1", scheduling.interchange_dirty_threshold()),
      ",",
    )
    <> "]"
  let assert Ok(packed) = interchange.json_to_msgpack_bytes(<<line:utf8>>)
  let assert Ok(ArrayValue(decoded)) = interchange.msgpack_decode(packed)
  let assert True =
    list.length(decoded) == scheduling.interchange_dirty_threshold()
  let assert Ok(text) = interchange.msgpack_to_json_line(packed)
  let assert True = text == line
}

/// Every bin and ext is refused on the way to JSON, also one that no
/// MessagePack value could hold (an ext type past a byte, a payload that
/// is not whole bytes): an error, not a crash.
pub fn any_bin_or_ext_is_refused_test() {
  let assert Error(InterchangeFault("$", "ext has no json form")) =
    interchange.to_json(ExtValue(300, <<>>))
  let assert Error(InterchangeFault("$[1]", "binary has no json form")) =
    interchange.to_json(ArrayValue([NilValue, BinaryValue(<<1:size(3)>>)]))
  let assert Error(InterchangeFault("$.k", "ext has no json form")) =
    interchange.to_json(
      MapValue([#(StringValue("k"), ExtValue(-129, <<1:size(1)>>))]),
    )
}
