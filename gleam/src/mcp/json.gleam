//// JSON values and the total JSON codec (`mcp_json` in Erlang, a Rust NIF).
////
//// `JsonValue` has exactly the runtime layout of the Erlang `json()` term, so
//// values cross with no conversion. Objects keep every member in wire order,
//// duplicates included; integers are exact up to `max_integer_digits()`
//// digits, and longer ones are refused both ways.

/// A JSON document. `Object` members stay in wire order, duplicates kept.
pub type JsonValue {
  Null
  Bool(Bool)
  Int(Int)
  Float(Float)
  String(String)
  Array(List(JsonValue))
  Object(List(#(String, JsonValue)))
}

/// Why bytes are not one value of their format (JSON here, MessagePack for
/// `interchange.msgpack_decode`): the byte offset where decoding stopped and
/// a short fixed phrase (`"unexpected character"`, `"nesting too deep"`,
/// ...).
pub type CorruptionReport {
  CorruptionReport(byte_offset: Int, reason: String)
}

/// Decodes one JSON document. Total: any bytes give a value or a report (a
/// `BitArray` that is not whole bytes is reported at its last whole byte,
/// `"input is not whole bytes"`).
@external(erlang, "mcp_gleam_ffi", "json_decode")
pub fn decode(bytes: BitArray) -> Result(JsonValue, CorruptionReport)

/// `decode` for text already held as a `String`. A report's `byte_offset`
/// counts the text's UTF-8 bytes, not its graphemes.
@external(erlang, "mcp_json", "decode")
pub fn parse(text: String) -> Result(JsonValue, CorruptionReport)

/// Why a `JsonValue` has no JSON text (the encoder's two limits).
pub type EncodeError {
  /// Arrays and objects nested deeper than `max_depth()`.
  NestedTooDeep
  /// An `Int` of more than `max_integer_digits()` digits.
  IntegerTooLong
}

/// Compact JSON text, or which limit the value breaks.
@external(erlang, "mcp_gleam_ffi", "json_encode")
pub fn encode(value: JsonValue) -> Result(String, EncodeError)

/// `encode` plus the terminating `"\n"` of a stdio frame, in one pass.
@external(erlang, "mcp_gleam_ffi", "json_encode_line")
pub fn encode_line(value: JsonValue) -> Result(String, EncodeError)

/// The deepest nesting the decoder and encoder accept (128).
@external(erlang, "mcp_json", "max_depth")
pub fn max_depth() -> Int

/// The longest integer literal, in digits, the decoder reads and the
/// encoder writes (4,300; longer ones are refused both ways).
@external(erlang, "mcp_json", "max_integer_digits")
pub fn max_integer_digits() -> Int
