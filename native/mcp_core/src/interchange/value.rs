//! The MessagePack value (the Rust mirror of the cap package's ADT), its
//! event vocabulary, and the generic builder that turns events into values.

use std::convert::Infallible;
use std::vec::Drain;

/// A MessagePack value. `String` holds the bytes of a str as sent, which may
/// not be UTF-8 (the wire allows it; [`to_json`](super::to_json) refuses it).
/// `Int` is within [`MIN_MSGPACK_INT`](super::MIN_MSGPACK_INT) ..=
/// [`MAX_MSGPACK_INT`](super::MAX_MSGPACK_INT) when decoded; the encoder
/// refuses anything outside. `Map` keeps entries in wire order.
#[derive(Debug, Clone, PartialEq)]
pub enum Msgpack {
    Nil,
    Bool(bool),
    Int(i128),
    Float(f64),
    String(Vec<u8>),
    Binary(Vec<u8>),
    Array(Vec<Msgpack>),
    Map(Vec<(Msgpack, Msgpack)>),
    Ext(i8, Vec<u8>),
}

/// A value without children, its payload borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    Nil,
    Bool(bool),
    Int(i128),
    Float(f64),
    String(&'a [u8]),
    Binary(&'a [u8]),
    Ext(i8, &'a [u8]),
}

/// Receives a MessagePack value top-down: a container announces its length,
/// then its items (a map's keys and values alternate), then `end`.
pub trait MsgpackVisitor {
    type Error;
    fn scalar(&mut self, value: Scalar<'_>) -> Result<(), Self::Error>;
    fn array(&mut self, len: usize) -> Result<(), Self::Error>;
    fn map(&mut self, len: usize) -> Result<(), Self::Error>;
    fn end(&mut self) -> Result<(), Self::Error>;
}

/// Builds values bottom-up, as [`crate::json::JsonSink`] does for JSON.
pub trait MsgpackSink {
    type Value;
    fn scalar(&mut self, value: Scalar<'_>) -> Self::Value;
    fn array(&mut self, items: Drain<'_, Self::Value>) -> Self::Value;
    /// `items` alternate key, value, key, value.
    fn map(&mut self, items: Drain<'_, Self::Value>) -> Self::Value;
}

/// Builds [`Msgpack`] trees.
pub struct TreeSink;

impl MsgpackSink for TreeSink {
    type Value = Msgpack;
    fn scalar(&mut self, value: Scalar<'_>) -> Msgpack {
        match value {
            Scalar::Nil => Msgpack::Nil,
            Scalar::Bool(b) => Msgpack::Bool(b),
            Scalar::Int(i) => Msgpack::Int(i),
            Scalar::Float(f) => Msgpack::Float(f),
            Scalar::String(s) => Msgpack::String(s.to_vec()),
            Scalar::Binary(b) => Msgpack::Binary(b.to_vec()),
            Scalar::Ext(kind, data) => Msgpack::Ext(kind, data.to_vec()),
        }
    }
    fn array(&mut self, items: Drain<'_, Msgpack>) -> Msgpack {
        Msgpack::Array(items.collect())
    }
    fn map(&mut self, mut items: Drain<'_, Msgpack>) -> Msgpack {
        let mut entries = Vec::with_capacity(items.len() / 2);
        while let (Some(key), Some(value)) = (items.next(), items.next()) {
            entries.push((key, value));
        }
        Msgpack::Map(entries)
    }
}

enum Open {
    Array,
    Map,
}

/// A [`MsgpackVisitor`] that assembles values with a [`MsgpackSink`],
/// keeping open containers on an explicit stack.
pub struct MsgpackBuilder<S: MsgpackSink> {
    sink: S,
    open: Vec<(Open, usize)>,
    values: Vec<S::Value>,
}

impl<S: MsgpackSink> MsgpackBuilder<S> {
    pub fn new(sink: S) -> Self {
        MsgpackBuilder { sink, open: Vec::new(), values: Vec::new() }
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

impl<S: MsgpackSink> MsgpackVisitor for MsgpackBuilder<S> {
    type Error = Infallible;
    fn scalar(&mut self, value: Scalar<'_>) -> Result<(), Infallible> {
        let value = self.sink.scalar(value);
        self.values.push(value);
        Ok(())
    }
    fn array(&mut self, _len: usize) -> Result<(), Infallible> {
        self.open.push((Open::Array, self.values.len()));
        Ok(())
    }
    fn map(&mut self, _len: usize) -> Result<(), Infallible> {
        self.open.push((Open::Map, self.values.len()));
        Ok(())
    }
    fn end(&mut self) -> Result<(), Infallible> {
        if let Some((kind, from)) = self.open.pop() {
            let items = self.values.drain(from..);
            let value = match kind {
                Open::Array => self.sink.array(items),
                Open::Map => self.sink.map(items),
            };
            self.values.push(value);
        }
        Ok(())
    }
}
