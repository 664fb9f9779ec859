//// This harness's side of the `cap` contract (`docs/cap-contract.md`):
//// values are plain `mcp/json` values, so arguments cross to the client
//// with no translation and every result has a `Value` form.

import gleam/list
import gleam/option.{type Option}
import mcp/json.{type JsonValue}

/// Any JSON value.
pub type Value =
  JsonValue

/// A parameter the schema does not require: left out, or given.
pub type Optional(a) {
  Absent
  Present(a)
}

/// One built argument; `Omitted` is left out of the arguments object.
pub opaque type Arg {
  Given(JsonValue)
  Omitted
}

/// What a tool answered: its text blocks in order, and its
/// `structuredContent` when it sent one.
pub type Answer {
  Answer(text: List(String), structured: Option(Value))
}

/// Why a call gave no answer.
pub type Failure {
  /// No client is registered under this server name.
  NoSuchServer(server: String)
  /// The tool ran and reported an error (`isError`); what it said.
  ToolError(text: String)
  /// The call did not complete; `client.describe_client_error`'s sentence.
  CallFailed(sentence: String)
}

pub type Outcome =
  Result(Answer, Failure)

pub fn string(value: String) -> Arg {
  Given(json.String(value))
}

pub fn int(value: Int) -> Arg {
  Given(json.Int(value))
}

pub fn float(value: Float) -> Arg {
  Given(json.Float(value))
}

pub fn bool(value: Bool) -> Arg {
  Given(json.Bool(value))
}

pub fn value(value: Value) -> Arg {
  Given(value)
}

/// A JSON array of the given items (generated code never passes an omitted
/// one; one would be skipped).
pub fn list(items: List(Arg)) -> Arg {
  Given(json.Array(list.filter_map(items, given)))
}

pub fn optional(value: Optional(a), build: fn(a) -> Arg) -> Arg {
  case value {
    Absent -> Omitted
    Present(present) -> build(present)
  }
}

/// The JSON an argument carries, `Error(Nil)` when it was omitted.
pub fn given(arg: Arg) -> Result(JsonValue, Nil) {
  case arg {
    Given(value) -> Ok(value)
    Omitted -> Error(Nil)
  }
}
