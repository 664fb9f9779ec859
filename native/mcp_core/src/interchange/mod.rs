//! Interchange: the capability wire's MessagePack value ([`Msgpack`]), its
//! total byte codec, and the translation between it and [`Json`](crate::json::Json), both as
//! values and straight between bytes.
//!
//! Everything is built from one event vocabulary per format
//! ([`MsgpackVisitor`], [`JsonVisitor`]): sources (the byte decoder, tree
//! walkers, the NIF's term walkers) emit events, translators
//! ([`ToJson`], [`ToMsgpack`]) apply the rules and track the path, and sinks
//! (byte writers, tree builders, the NIF's term builders) consume them. So a
//! rule lives in exactly one place whatever the representation on either side.
//! The JSON parser's own sinks complete the picture: [`json_to_msgpack_bytes`]
//! writes bytes and [`MsgpackFromJson`] builds values, both in one parse.
//!
//! Invariants:
//! - The byte decoder is iterative: open containers are an explicit stack
//!   capped at [`MAX_DEPTH`] (the JSON parser's limit), so no input can
//!   overflow a native stack. It never allocates by a declared length: a
//!   count or a length larger than the bytes left is refused before anything
//!   is read, and payloads are borrowed from the input.
//! - Encoding picks the smallest encoding for each value (a float is written
//!   as float 32 when that is exact).
//! - Floats are finite everywhere: the BEAM has no NaN or infinity, so the
//!   codec refuses them and [`to_json`] refuses them in a Rust-built value.
//! - A translation fault names the path where it was found
//!   (`$.args[2].name`) and fails the whole conversion.

mod decode;
mod encode;
mod events;
mod fault;
mod from_json;
mod path;
mod scalar;
mod stream;
mod translate;
mod value;

pub use decode::{decode, decode_into, decode_with, DecodeError};
pub use encode::{encode, EncodeError, MsgpackWriter};
pub use events::{walk_json, walk_msgpack, JsonBuilder, JsonScalar, JsonVisitor, JsonWriter, WalkError};
pub use fault::{InterchangeFault, LineFault, Reason};
pub use from_json::MsgpackFromJson;
pub use stream::json_to_msgpack_bytes;
pub use translate::{msgpack_to_json_line, to_json, to_msgpack, ToJson, ToMsgpack};
pub use value::{Msgpack, MsgpackBuilder, MsgpackSink, MsgpackVisitor, Scalar, TreeSink};

pub use crate::json::MAX_DEPTH;

/// The largest integer MessagePack carries: 2^64 - 1.
pub const MAX_MSGPACK_INT: i128 = u64::MAX as i128;
/// The smallest integer MessagePack carries: -2^63.
pub const MIN_MSGPACK_INT: i128 = i64::MIN as i128;

#[cfg(test)]
mod tests;
