//// The values generated modules build: `Arg` for one argument, `Value` for
//// anything a schema leaves open, `Optional` for parameters a caller may omit,
//// and `Outcome` for what a call returns. `Value` is the capability wire's
//// value (MessagePack): translated to JSON by `mcp/interchange` on the way
//// out, read straight from the server's line on the way back
//// (`client.call_tool_msgpack`).

import cap/report.{type Report}
import gleam/list
import gleam/option.{type Option}
import mcp/interchange

pub type Value =
  interchange.MsgpackValue

pub type Optional(a) {
  Omit
  Give(a)
}

/// One argument: a value, or nothing when an optional one was omitted
/// (an omitted member is left out of the `arguments` object).
pub opaque type Arg {
  Present(Value)
  Absent
}

/// What a tool answered: its text blocks, in order, and its
/// `structuredContent` when it sent one.
pub type Reply {
  Reply(text: List(String), structured: Option(Value))
}

pub type Outcome =
  Result(Reply, Report)

pub fn string(value: String) -> Arg {
  Present(interchange.StringValue(value))
}

pub fn int(value: Int) -> Arg {
  Present(interchange.IntValue(value))
}

pub fn float(value: Float) -> Arg {
  Present(interchange.FloatValue(value))
}

pub fn bool(value: Bool) -> Arg {
  Present(interchange.BoolValue(value))
}

/// A list argument from already-built items (omitted items are dropped).
pub fn list(items: List(Arg)) -> Arg {
  Present(interchange.ArrayValue(list.filter_map(items, to_value)))
}

pub fn value(value: Value) -> Arg {
  Present(value)
}

pub fn optional(value: Optional(a), build: fn(a) -> Arg) -> Arg {
  case value {
    Omit -> Absent
    Give(given) -> build(given)
  }
}

/// The value an argument carries, if it was given (for `cap/internal/mcp`).
pub fn to_value(arg: Arg) -> Result(Value, Nil) {
  case arg {
    Present(value) -> Ok(value)
    Absent -> Error(Nil)
  }
}
