//! The total MessagePack byte decoder. Iterative: open containers are a
//! stack of item counts capped at [`MAX_DEPTH`]; a count or length is
//! checked against the bytes left before anything is read, so a peer's
//! declared length never sizes an allocation; payloads are borrowed.
//!
//! Why not `rmpv::decode::read_value`: it recurses (its depth budget is
//! spent twice per container level, so it cannot express "128 containers"),
//! pre-allocates up to 64 KiB on a declared length, reports no byte offset,
//! and always builds an `rmpv::Value`; this decoder drives any
//! [`MsgpackVisitor`] instead, so terms, trees and JSON text are produced
//! straight from the bytes. rmpv stays the reference it is tested against.

use super::value::{Msgpack, MsgpackBuilder, MsgpackSink, MsgpackVisitor, Scalar, TreeSink};
use super::MAX_DEPTH;
use crate::json::CorruptionReport;

/// Why decoding stopped: the bytes are corrupt, or the visitor refused.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeError<E> {
    Corrupt(CorruptionReport),
    Visitor(E),
}

/// Decodes one MessagePack value into a [`Msgpack`] tree.
pub fn decode(bytes: &[u8]) -> Result<Msgpack, CorruptionReport> {
    decode_into(bytes, TreeSink)
}

/// Decodes one MessagePack value, building it with `sink`.
pub fn decode_into<S: MsgpackSink>(bytes: &[u8], sink: S) -> Result<S::Value, CorruptionReport> {
    let mut builder = MsgpackBuilder::new(sink);
    match decode_with(bytes, &mut builder) {
        Ok(()) => builder.finish().ok_or(CorruptionReport { offset: bytes.len(), reason: "unexpected end of input" }),
        Err(DecodeError::Corrupt(report)) => Err(report),
        Err(DecodeError::Visitor(never)) => match never {},
    }
}

fn corrupt<E>(offset: usize, reason: &'static str) -> DecodeError<E> {
    DecodeError::Corrupt(CorruptionReport { offset, reason })
}

struct Input<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes of a fixed-width field.
    fn fixed<E>(&mut self, n: usize) -> Result<&'a [u8], DecodeError<E>> {
        if n > self.left() {
            return Err(corrupt(self.bytes.len(), "unexpected end of input"));
        }
        let field = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(field)
    }

    fn be<E, const N: usize>(&mut self) -> Result<[u8; N], DecodeError<E>> {
        let mut field = [0u8; N];
        field.copy_from_slice(self.fixed(N)?);
        Ok(field)
    }

    /// A length field of `width` bytes (1, 2 or 4), big-endian.
    fn length<E>(&mut self, width: usize) -> Result<usize, DecodeError<E>> {
        Ok(self.fixed(width)?.iter().fold(0usize, |acc, &b| (acc << 8) | usize::from(b)))
    }

    /// A payload of a declared `len`, refused when longer than the input.
    fn payload<E>(&mut self, len: usize, marker_at: usize) -> Result<&'a [u8], DecodeError<E>> {
        if len > self.left() {
            return Err(corrupt(marker_at, "length exceeds input"));
        }
        self.fixed(len)
    }
}

/// What one marker (with its fields) stands for.
enum Item<'a> {
    Scalar(Scalar<'a>),
    Array(usize),
    Map(usize),
}

fn float<'a, E>(value: f64, marker_at: usize) -> Result<Item<'a>, DecodeError<E>> {
    if value.is_finite() {
        Ok(Item::Scalar(Scalar::Float(value)))
    } else {
        Err(corrupt(marker_at, "non-finite float"))
    }
}

fn read_item<'a, E>(input: &mut Input<'a>) -> Result<Item<'a>, DecodeError<E>> {
    let marker_at = input.pos;
    let [marker] = input.be::<E, 1>()?;
    let scalar = |s: Scalar<'a>| Ok(Item::Scalar(s));
    match marker {
        0x00..=0x7f => scalar(Scalar::Int(i128::from(marker))),
        0x80..=0x8f => Ok(Item::Map(usize::from(marker & 0x0f))),
        0x90..=0x9f => Ok(Item::Array(usize::from(marker & 0x0f))),
        0xa0..=0xbf => scalar(Scalar::String(input.payload(usize::from(marker & 0x1f), marker_at)?)),
        0xc0 => scalar(Scalar::Nil),
        0xc1 => Err(corrupt(marker_at, "reserved marker")),
        0xc2 => scalar(Scalar::Bool(false)),
        0xc3 => scalar(Scalar::Bool(true)),
        0xc4..=0xc6 => {
            let len = input.length(1 << (marker - 0xc4))?;
            scalar(Scalar::Binary(input.payload(len, marker_at)?))
        }
        0xc7..=0xc9 => {
            let len = input.length(1 << (marker - 0xc7))?;
            let [kind] = input.be::<E, 1>()?;
            scalar(Scalar::Ext(kind as i8, input.payload(len, marker_at)?))
        }
        0xca => float(f64::from(f32::from_be_bytes(input.be()?)), marker_at),
        0xcb => float(f64::from_be_bytes(input.be()?), marker_at),
        0xcc => scalar(Scalar::Int(i128::from(u8::from_be_bytes(input.be()?)))),
        0xcd => scalar(Scalar::Int(i128::from(u16::from_be_bytes(input.be()?)))),
        0xce => scalar(Scalar::Int(i128::from(u32::from_be_bytes(input.be()?)))),
        0xcf => scalar(Scalar::Int(i128::from(u64::from_be_bytes(input.be()?)))),
        0xd0 => scalar(Scalar::Int(i128::from(i8::from_be_bytes(input.be()?)))),
        0xd1 => scalar(Scalar::Int(i128::from(i16::from_be_bytes(input.be()?)))),
        0xd2 => scalar(Scalar::Int(i128::from(i32::from_be_bytes(input.be()?)))),
        0xd3 => scalar(Scalar::Int(i128::from(i64::from_be_bytes(input.be()?)))),
        0xd4..=0xd8 => {
            let [kind] = input.be::<E, 1>()?;
            scalar(Scalar::Ext(kind as i8, input.payload(1 << (marker - 0xd4), marker_at)?))
        }
        0xd9..=0xdb => {
            let len = input.length(1 << (marker - 0xd9))?;
            scalar(Scalar::String(input.payload(len, marker_at)?))
        }
        0xdc | 0xdd => Ok(Item::Array(input.length(if marker == 0xdc { 2 } else { 4 })?)),
        0xde | 0xdf => Ok(Item::Map(input.length(if marker == 0xde { 2 } else { 4 })?)),
        0xe0..=0xff => scalar(Scalar::Int(i128::from(marker as i8))),
    }
}

/// Decodes one MessagePack value, reporting it to `visitor` top-down. The
/// whole input must be that one value.
pub fn decode_with<V: MsgpackVisitor>(bytes: &[u8], visitor: &mut V) -> Result<(), DecodeError<V::Error>> {
    let mut input = Input { bytes, pos: 0 };
    // Items still to come in each open container.
    let mut pending: Vec<usize> = Vec::new();
    loop {
        let marker_at = input.pos;
        let item = read_item(&mut input)?;
        let (items, is_map) = match item {
            Item::Scalar(value) => {
                visitor.scalar(value).map_err(DecodeError::Visitor)?;
                (0, false)
            }
            Item::Array(len) => (len, false),
            Item::Map(len) => (len.saturating_mul(2), true),
        };
        if let Item::Array(len) | Item::Map(len) = item {
            if pending.len() == MAX_DEPTH {
                return Err(corrupt(marker_at, "nesting too deep"));
            }
            // Every item takes at least one byte.
            if items > input.left() {
                return Err(corrupt(marker_at, "length exceeds input"));
            }
            let opened = if is_map { visitor.map(len) } else { visitor.array(len) };
            opened.map_err(DecodeError::Visitor)?;
            if items > 0 {
                pending.push(items);
                continue;
            }
            visitor.end().map_err(DecodeError::Visitor)?;
        }
        // An item is complete: count it, closing every container it completes.
        loop {
            match pending.last_mut() {
                None => {
                    if input.pos != bytes.len() {
                        return Err(corrupt(input.pos, "trailing bytes"));
                    }
                    return Ok(());
                }
                Some(left) if *left > 1 => {
                    *left -= 1;
                    break;
                }
                Some(_) => {
                    pending.pop();
                    visitor.end().map_err(DecodeError::Visitor)?;
                }
            }
        }
    }
}
