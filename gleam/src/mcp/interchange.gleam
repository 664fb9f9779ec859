//// The value translation between the capability wire (MessagePack) and the
//// MCP wire (JSON), and the MessagePack byte codec (`mcp_interchange`).
//// Total both ways; a fault names the path where it was found.

import mcp/json.{type CorruptionReport, type JsonValue}

/// A MessagePack value. `StringValue` holds the bytes of a msgpack str as
/// decoded: `msgpack_decode` does not require UTF-8 there (`to_json` does).
pub type MsgpackValue {
  NilValue
  BoolValue(Bool)
  IntValue(Int)
  FloatValue(Float)
  StringValue(String)
  BinaryValue(BitArray)
  ArrayValue(List(MsgpackValue))
  MapValue(List(#(MsgpackValue, MsgpackValue)))
  ExtValue(ext_type: Int, data: BitArray)
}

/// `path` is `$.args[2].name`-style; `reason` a fixed phrase.
pub type InterchangeFault {
  InterchangeFault(path: String, reason: String)
}

/// What the byte-to-byte paths can answer.
pub type LineFault {
  /// The input bytes are corrupt.
  Corrupt(CorruptionReport)
  /// The value they hold cannot cross to the other wire.
  Untranslatable(InterchangeFault)
}

/// A MessagePack value as JSON, or the first fault (with its path): a
/// `BinaryValue`, an `ExtValue`, a map key that is not a UTF-8 string, a
/// string that is not UTF-8, or nesting past 128.
@external(erlang, "mcp_gleam_ffi", "to_json")
pub fn to_json(value: MsgpackValue) -> Result(JsonValue, InterchangeFault)

/// A JSON value as MessagePack, or the first fault (with its path): an
/// integer outside `min_msgpack_int()`..`max_msgpack_int()` (never wrapped,
/// clamped or made a float), or nesting past 128.
@external(erlang, "mcp_interchange", "to_msgpack")
pub fn to_msgpack(value: JsonValue) -> Result(MsgpackValue, InterchangeFault)

/// `"binary has no json form at $.args[2]"`.
@external(erlang, "mcp_interchange", "describe")
pub fn describe(fault: InterchangeFault) -> String

/// 2^64 - 1
@external(erlang, "mcp_interchange", "max_msgpack_int")
pub fn max_msgpack_int() -> Int

/// -2^63
@external(erlang, "mcp_interchange", "min_msgpack_int")
pub fn min_msgpack_int() -> Int

/// One MessagePack value, the whole input (trailing bytes are a report).
/// Total: truncated input, a declared length past the input, nesting past
/// 128, the reserved byte `0xc1`, NaN or infinity, and a `BitArray` that is
/// not whole bytes are reports.
@external(erlang, "mcp_gleam_ffi", "msgpack_decode")
pub fn msgpack_decode(bytes: BitArray) -> Result(MsgpackValue, CorruptionReport)

/// Why a `MsgpackValue` has no MessagePack bytes.
pub type MsgpackEncodeError {
  /// An `IntValue` outside `min_msgpack_int()`..`max_msgpack_int()`.
  IntOutOfRange(value: Int)
  /// An `ExtValue` type outside -128..127.
  ExtTypeOutOfRange(ext_type: Int)
  /// Arrays and maps nested deeper than 128.
  MsgpackTooDeep
  /// A `BinaryValue` or `ExtValue` whose `BitArray` is not whole bytes.
  PayloadNotWholeBytes
}

/// Smallest-form MessagePack, or the first value out of range or payload
/// that is not whole bytes (else the nesting) that has no encoding.
@external(erlang, "mcp_gleam_ffi", "msgpack_encode")
pub fn msgpack_encode(
  value: MsgpackValue,
) -> Result(BitArray, MsgpackEncodeError)

/// MessagePack bytes straight to one JSON line (no `\n`). Bits that are not
/// whole bytes are `Corrupt`, as in `msgpack_decode`.
@external(erlang, "mcp_gleam_ffi", "msgpack_to_json_line")
pub fn msgpack_to_json_line(bytes: BitArray) -> Result(String, LineFault)

/// A JSON line straight to MessagePack bytes.
@external(erlang, "mcp_gleam_ffi", "json_to_msgpack_bytes")
pub fn json_to_msgpack_bytes(line: BitArray) -> Result(BitArray, LineFault)
