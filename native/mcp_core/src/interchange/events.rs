//! The JSON event vocabulary, its writer and builder, and the walkers that
//! turn trees of either format into events.

use super::value::{Msgpack, MsgpackVisitor, Scalar};
use super::MAX_DEPTH;
use crate::json::{self, EncodeError, Json, JsonSink};
use num_bigint::BigInt;
use std::convert::Infallible;

/// A JSON value without children.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JsonScalar<'a> {
    Null,
    Bool(bool),
    Int(i64),
    /// Only for integers outside `i64`.
    BigInt(&'a BigInt),
    Float(f64),
    String(&'a str),
}

/// Receives a JSON value top-down: a container announces its length, then
/// its items (an object's members as `key` then the value), then `end`.
pub trait JsonVisitor {
    type Error;
    fn scalar(&mut self, value: JsonScalar<'_>) -> Result<(), Self::Error>;
    fn array(&mut self, len: usize) -> Result<(), Self::Error>;
    fn object(&mut self, len: usize) -> Result<(), Self::Error>;
    fn key(&mut self, key: &str) -> Result<(), Self::Error>;
    fn end(&mut self) -> Result<(), Self::Error>;
}

/// Why a walk over a tree stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum WalkError<E> {
    /// The tree nests deeper than [`MAX_DEPTH`] containers.
    TooDeep,
    Visitor(E),
}

/// Reports a [`Msgpack`] tree to `visitor`. A container is announced before
/// the depth is checked, so a visitor with its own depth rule speaks first.
pub fn walk_msgpack<V: MsgpackVisitor>(value: &Msgpack, visitor: &mut V) -> Result<(), WalkError<V::Error>> {
    walk_msgpack_at(value, visitor, 0)
}

fn walk_msgpack_at<V: MsgpackVisitor>(
    value: &Msgpack,
    visitor: &mut V,
    above: usize,
) -> Result<(), WalkError<V::Error>> {
    let scalar = match value {
        Msgpack::Nil => Scalar::Nil,
        Msgpack::Bool(b) => Scalar::Bool(*b),
        Msgpack::Int(i) => Scalar::Int(*i),
        Msgpack::Float(f) => Scalar::Float(*f),
        Msgpack::String(s) => Scalar::String(s),
        Msgpack::Binary(b) => Scalar::Binary(b),
        Msgpack::Ext(kind, data) => Scalar::Ext(*kind, data),
        Msgpack::Array(items) => {
            visitor.array(items.len()).map_err(WalkError::Visitor)?;
            if above == MAX_DEPTH {
                return Err(WalkError::TooDeep);
            }
            for item in items {
                walk_msgpack_at(item, visitor, above + 1)?;
            }
            return visitor.end().map_err(WalkError::Visitor);
        }
        Msgpack::Map(entries) => {
            visitor.map(entries.len()).map_err(WalkError::Visitor)?;
            if above == MAX_DEPTH {
                return Err(WalkError::TooDeep);
            }
            for (key, item) in entries {
                walk_msgpack_at(key, visitor, above + 1)?;
                walk_msgpack_at(item, visitor, above + 1)?;
            }
            return visitor.end().map_err(WalkError::Visitor);
        }
    };
    visitor.scalar(scalar).map_err(WalkError::Visitor)
}

/// Reports a [`Json`] tree to `visitor`, like [`walk_msgpack`].
pub fn walk_json<V: JsonVisitor>(value: &Json, visitor: &mut V) -> Result<(), WalkError<V::Error>> {
    walk_json_at(value, visitor, 0)
}

fn walk_json_at<V: JsonVisitor>(value: &Json, visitor: &mut V, above: usize) -> Result<(), WalkError<V::Error>> {
    let scalar = match value {
        Json::Null => JsonScalar::Null,
        Json::Bool(b) => JsonScalar::Bool(*b),
        Json::Int(i) => JsonScalar::Int(*i),
        Json::BigInt(big) => JsonScalar::BigInt(big),
        Json::Float(f) => JsonScalar::Float(*f),
        Json::String(s) => JsonScalar::String(s),
        Json::Array(items) => {
            visitor.array(items.len()).map_err(WalkError::Visitor)?;
            if above == MAX_DEPTH {
                return Err(WalkError::TooDeep);
            }
            for item in items {
                walk_json_at(item, visitor, above + 1)?;
            }
            return visitor.end().map_err(WalkError::Visitor);
        }
        Json::Object(members) => {
            visitor.object(members.len()).map_err(WalkError::Visitor)?;
            if above == MAX_DEPTH {
                return Err(WalkError::TooDeep);
            }
            for (key, item) in members {
                visitor.key(key).map_err(WalkError::Visitor)?;
                walk_json_at(item, visitor, above + 1)?;
            }
            return visitor.end().map_err(WalkError::Visitor);
        }
    };
    visitor.scalar(scalar).map_err(WalkError::Visitor)
}

/// A [`JsonVisitor`] writing compact JSON text with the `json` module's
/// primitives, so the output is byte for byte what [`json::write`] gives.
#[derive(Default)]
pub struct JsonWriter {
    out: Vec<u8>,
    /// The closing bracket of each open container.
    closers: Vec<u8>,
    /// A value or key was written at this level: the next one needs a comma.
    comma_due: bool,
}

impl JsonWriter {
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }

    fn separate(&mut self) {
        if self.comma_due {
            self.out.push(b',');
        }
    }

    fn open(&mut self, opener: u8, closer: u8) {
        self.separate();
        self.out.push(opener);
        self.closers.push(closer);
        self.comma_due = false;
    }
}

impl JsonVisitor for JsonWriter {
    type Error = EncodeError;
    fn scalar(&mut self, value: JsonScalar<'_>) -> Result<(), EncodeError> {
        self.separate();
        match value {
            JsonScalar::Null => self.out.extend_from_slice(b"null"),
            JsonScalar::Bool(true) => self.out.extend_from_slice(b"true"),
            JsonScalar::Bool(false) => self.out.extend_from_slice(b"false"),
            JsonScalar::Int(i) => json::write_int(&mut self.out, i),
            JsonScalar::BigInt(big) => json::write_big_int(&mut self.out, big),
            JsonScalar::Float(f) => json::write_float(&mut self.out, f)?,
            JsonScalar::String(text) => json::write_string(&mut self.out, text),
        }
        self.comma_due = true;
        Ok(())
    }
    fn array(&mut self, _len: usize) -> Result<(), EncodeError> {
        self.open(b'[', b']');
        Ok(())
    }
    fn object(&mut self, _len: usize) -> Result<(), EncodeError> {
        self.open(b'{', b'}');
        Ok(())
    }
    fn key(&mut self, key: &str) -> Result<(), EncodeError> {
        self.separate();
        json::write_string(&mut self.out, key);
        self.out.push(b':');
        self.comma_due = false;
        Ok(())
    }
    fn end(&mut self) -> Result<(), EncodeError> {
        if let Some(closer) = self.closers.pop() {
            self.out.push(closer);
        }
        self.comma_due = true;
        Ok(())
    }
}

enum Open {
    Array { values_from: usize },
    Object { values_from: usize, keys_from: usize },
}

/// A [`JsonVisitor`] that assembles values with a [`JsonSink`] (the same
/// sinks the JSON parser feeds), keeping open containers on a stack.
pub struct JsonBuilder<S: JsonSink> {
    sink: S,
    open: Vec<Open>,
    values: Vec<S::Value>,
    keys: Vec<S::Key>,
}

impl<S: JsonSink> JsonBuilder<S> {
    pub fn new(sink: S) -> Self {
        JsonBuilder { sink, open: Vec::new(), values: Vec::new(), keys: Vec::new() }
    }

    /// The finished value, once every container has ended.
    pub fn finish(mut self) -> Option<S::Value> {
        if self.open.is_empty() && self.values.len() == 1 {
            self.values.pop()
        } else {
            None
        }
    }
}

impl<S: JsonSink> JsonVisitor for JsonBuilder<S> {
    type Error = Infallible;
    fn scalar(&mut self, value: JsonScalar<'_>) -> Result<(), Infallible> {
        let sink = &mut self.sink;
        let value = match value {
            JsonScalar::Null => sink.null(),
            JsonScalar::Bool(b) => sink.bool(b),
            JsonScalar::Int(i) => sink.int(i),
            JsonScalar::BigInt(big) => sink.big_int(big.clone()),
            JsonScalar::Float(f) => sink.float(f),
            JsonScalar::String(text) => sink.string(text),
        };
        self.values.push(value);
        Ok(())
    }
    fn array(&mut self, _len: usize) -> Result<(), Infallible> {
        self.open.push(Open::Array { values_from: self.values.len() });
        Ok(())
    }
    fn object(&mut self, _len: usize) -> Result<(), Infallible> {
        self.open.push(Open::Object { values_from: self.values.len(), keys_from: self.keys.len() });
        Ok(())
    }
    fn key(&mut self, key: &str) -> Result<(), Infallible> {
        let key = self.sink.key(key);
        self.keys.push(key);
        Ok(())
    }
    fn end(&mut self) -> Result<(), Infallible> {
        let value = match self.open.pop() {
            Some(Open::Array { values_from }) => self.sink.array(self.values.drain(values_from..)),
            Some(Open::Object { values_from, keys_from }) => {
                self.sink.object(self.keys.drain(keys_from..), self.values.drain(values_from..))
            }
            None => return Ok(()),
        };
        self.values.push(value);
        Ok(())
    }
}
