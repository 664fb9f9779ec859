//! JSON text to a MessagePack value in one parse: [`MsgpackFromJson`] is a
//! [`JsonSink`] that hands each parsed value to a [`MsgpackSink`] in its
//! MessagePack form, so the value is built once, in the sink's
//! representation (the NIF's terms), with no JSON value in between.
//!
//! The rules are [`to_msgpack`](super::to_msgpack)'s: [`msgpack_scalar`]
//! and msgpack's 32-bit lengths. A value that cannot cross is noticed where
//! it is parsed, but the parser reports bottom-up, so its path is not known
//! there; once one is seen nothing more is built, and
//! [`MsgpackFromJson::finish`] names the fault with the streaming route
//! ([`json_to_msgpack_bytes`]), which reports exactly what `to_msgpack` of
//! the parsed value would.

use super::events::JsonScalar;
use super::fault::{InterchangeFault, LineFault, Reason};
use super::scalar::{msgpack_scalar, MAX_MSGPACK_LEN};
use super::stream::json_to_msgpack_bytes;
use super::value::{MsgpackSink, Scalar};
use crate::json::JsonSink;
use num_bigint::BigInt;
use std::vec::Drain;

/// Builds the MessagePack form of parsed JSON with `M` (see the module doc).
pub struct MsgpackFromJson<M: MsgpackSink> {
    sink: M,
    /// Why the first value that cannot cross could not.
    refused: Option<Reason>,
    /// A map's keys and values, interleaved for [`MsgpackSink::map`]; kept
    /// between maps so its allocation is reused.
    entries: Vec<M::Value>,
}

impl<M: MsgpackSink> MsgpackFromJson<M> {
    pub fn new(sink: M) -> Self {
        MsgpackFromJson { sink, refused: None, entries: Vec::new() }
    }

    /// `value`, what a parse of `text` with this sink returned, or the
    /// fault that keeps the value from crossing (its path and reason, as
    /// `to_msgpack` names them).
    pub fn finish(self, value: M::Value, text: &[u8]) -> Result<M::Value, InterchangeFault> {
        match self.refused {
            None => Ok(value),
            Some(reason) => Err(match json_to_msgpack_bytes(text) {
                Err(LineFault::Interchange(fault)) => fault,
                // The streaming route refuses every value this sink refuses.
                _ => InterchangeFault { path: "$".to_owned(), reason },
            }),
        }
    }

    /// The placeholder that stands for anything parsed after a refusal.
    fn nothing(&mut self) -> M::Value {
        self.sink.scalar(Scalar::Nil)
    }

    fn scalar(&mut self, value: JsonScalar<'_>) -> M::Value {
        if self.refused.is_none() {
            match msgpack_scalar(value) {
                Ok(scalar) => return self.sink.scalar(scalar),
                Err(reason) => self.refused = Some(reason),
            }
        }
        self.nothing()
    }

    /// Whether a container of `len` items can still be built.
    fn admits(&mut self, len: usize) -> bool {
        if self.refused.is_none() && len > MAX_MSGPACK_LEN {
            self.refused = Some(Reason::TooLong);
        }
        self.refused.is_none()
    }
}

impl<M: MsgpackSink> JsonSink for MsgpackFromJson<M> {
    type Value = M::Value;
    type Key = M::Value;
    fn null(&mut self) -> M::Value {
        self.scalar(JsonScalar::Null)
    }
    fn bool(&mut self, value: bool) -> M::Value {
        self.scalar(JsonScalar::Bool(value))
    }
    fn int(&mut self, value: i64) -> M::Value {
        self.scalar(JsonScalar::Int(value))
    }
    fn big_int(&mut self, value: BigInt) -> M::Value {
        self.scalar(JsonScalar::BigInt(&value))
    }
    fn float(&mut self, value: f64) -> M::Value {
        self.scalar(JsonScalar::Float(value))
    }
    fn string(&mut self, value: &str) -> M::Value {
        self.scalar(JsonScalar::String(value))
    }
    fn key(&mut self, value: &str) -> M::Value {
        self.scalar(JsonScalar::String(value))
    }
    fn array(&mut self, items: Drain<'_, M::Value>) -> M::Value {
        if !self.admits(items.len()) {
            return self.nothing();
        }
        self.sink.array(items)
    }
    fn object(&mut self, keys: Drain<'_, M::Value>, values: Drain<'_, M::Value>) -> M::Value {
        if !self.admits(keys.len()) {
            return self.nothing();
        }
        self.entries.clear();
        for (key, value) in keys.zip(values) {
            self.entries.push(key);
            self.entries.push(value);
        }
        self.sink.map(self.entries.drain(..))
    }
}
