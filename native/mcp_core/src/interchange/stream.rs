//! JSON text to MessagePack bytes in one parse, without a tree.
//!
//! The JSON parser reports values bottom-up (a container after its items),
//! but msgpack wants each container's count before its items. So the sink
//! writes every scalar straight into a body buffer, and when a non-empty
//! container closes it records a header (kind, count) to be inserted where
//! its first item starts; an empty container is written in place. At the
//! end the headers are merged into the body in one pass: sorted by
//! position, and at one position outer (later-closed) headers first, since
//! only nested containers can share a first byte.
//!
//! A fault travels up as a value: each container that receives one adds its
//! step (index or key) to the fault's trail, so the path is known when the
//! parse ends. The first faulty item of a container is the one reported,
//! which is the first fault in document order, as the tree route gives.

use super::encode::MsgpackWriter;
use super::events::JsonScalar;
use super::fault::{InterchangeFault, LineFault, Reason};
use super::path::{render, Segment};
use super::scalar::msgpack_scalar;
use super::value::MsgpackVisitor;
use crate::json::{parse_with, JsonSink};
use num_bigint::BigInt;
use std::vec::Drain;

/// Where a parsed value starts in the body, or why it cannot cross.
enum Piece {
    At(usize),
    Fault(Box<Trail>),
}

/// A fault and its steps, innermost first.
struct Trail {
    reason: Reason,
    steps: Vec<Step>,
}

enum Step {
    Index(usize),
    Key(String),
}

/// A written key: where its encoding starts and where its text lies, or
/// why it cannot cross (only a key past msgpack's 32-bit length).
enum KeyPiece {
    At { at: usize, text_from: usize, text_to: usize },
    Refused(Reason),
}

#[derive(Clone, Copy)]
enum Kind {
    Array,
    Map,
}

/// A container header to insert at `at`; `closed` orders equal positions.
struct Header {
    at: usize,
    closed: usize,
    kind: Kind,
    len: usize,
}

#[derive(Default)]
struct StreamSink {
    body: MsgpackWriter,
    headers: Vec<Header>,
}

fn fault(reason: Reason) -> Piece {
    Piece::Fault(Box::new(Trail { reason, steps: Vec::new() }))
}

impl StreamSink {
    fn scalar(&mut self, value: JsonScalar<'_>) -> Piece {
        let at = self.body.len();
        match msgpack_scalar(value) {
            Ok(scalar) => match self.body.scalar(scalar) {
                Ok(()) => Piece::At(at),
                Err(error) => fault(error.into()),
            },
            Err(reason) => fault(reason),
        }
    }

    /// A container of `len` items whose first item starts at `first`.
    fn container(&mut self, kind: Kind, len: usize, first: Option<usize>) -> Piece {
        let Some(at) = first else {
            let at = self.body.len();
            let written = match kind {
                Kind::Array => self.body.array(0),
                Kind::Map => self.body.map(0),
            };
            return match written {
                Ok(()) => Piece::At(at),
                Err(error) => fault(error.into()),
            };
        };
        let closed = self.headers.len();
        self.headers.push(Header { at, closed, kind, len });
        Piece::At(at)
    }

    fn key_text(&self, text_from: usize, text_to: usize) -> String {
        let text = self.body.bytes().get(text_from..text_to).unwrap_or_default();
        String::from_utf8_lossy(text).into_owned()
    }

    /// The body with every header in place.
    fn assemble(mut self) -> Result<Vec<u8>, Reason> {
        self.headers.sort_unstable_by(|a, b| a.at.cmp(&b.at).then(b.closed.cmp(&a.closed)));
        let body = self.body.into_bytes();
        let mut out = MsgpackWriter::default();
        let mut copied = 0;
        for header in &self.headers {
            out.raw(body.get(copied..header.at).unwrap_or_default());
            copied = header.at;
            match header.kind {
                Kind::Array => out.array(header.len)?,
                Kind::Map => out.map(header.len)?,
            }
        }
        out.raw(body.get(copied..).unwrap_or_default());
        Ok(out.into_bytes())
    }
}

/// The first faulty item, with its index.
fn first_fault(items: &mut Drain<'_, Piece>) -> Option<(usize, Box<Trail>)> {
    items.enumerate().find_map(|(index, item)| match item {
        Piece::Fault(trail) => Some((index, trail)),
        Piece::At(_) => None,
    })
}

impl JsonSink for StreamSink {
    type Value = Piece;
    type Key = KeyPiece;
    fn null(&mut self) -> Piece {
        self.scalar(JsonScalar::Null)
    }
    fn bool(&mut self, value: bool) -> Piece {
        self.scalar(JsonScalar::Bool(value))
    }
    fn int(&mut self, value: i64) -> Piece {
        self.scalar(JsonScalar::Int(value))
    }
    fn big_int(&mut self, value: BigInt) -> Piece {
        self.scalar(JsonScalar::BigInt(&value))
    }
    fn float(&mut self, value: f64) -> Piece {
        self.scalar(JsonScalar::Float(value))
    }
    fn string(&mut self, value: &str) -> Piece {
        self.scalar(JsonScalar::String(value))
    }
    fn key(&mut self, value: &str) -> KeyPiece {
        let at = self.body.len();
        let written = match msgpack_scalar(JsonScalar::String(value)) {
            Ok(scalar) => self.body.scalar(scalar).map_err(Reason::from),
            Err(reason) => Err(reason),
        };
        match written {
            Ok(()) => {
                let text_to = self.body.len();
                KeyPiece::At { at, text_from: text_to - value.len().min(text_to), text_to }
            }
            Err(reason) => KeyPiece::Refused(reason),
        }
    }
    fn array(&mut self, mut items: Drain<'_, Piece>) -> Piece {
        let len = items.len();
        let first = match items.as_slice().first() {
            Some(Piece::At(at)) => Some(*at),
            _ => None,
        };
        if let Some((index, mut trail)) = first_fault(&mut items) {
            trail.steps.push(Step::Index(index));
            return Piece::Fault(trail);
        }
        self.container(Kind::Array, len, first)
    }
    fn object(&mut self, keys: Drain<'_, KeyPiece>, values: Drain<'_, Piece>) -> Piece {
        let len = keys.len();
        let mut first = None;
        // Keys and values in wire order: the first fault of either is reported;
        // a refused key names the map (as the tree route does), a value its key.
        for (key, value) in keys.zip(values) {
            let (at, text_from, text_to) = match key {
                KeyPiece::At { at, text_from, text_to } => (at, text_from, text_to),
                KeyPiece::Refused(reason) => return fault(reason),
            };
            first = first.or(Some(at));
            if let Piece::Fault(mut trail) = value {
                trail.steps.push(Step::Key(self.key_text(text_from, text_to)));
                return Piece::Fault(trail);
            }
        }
        self.container(Kind::Map, len, first)
    }
}

/// JSON text straight to MessagePack bytes: exactly
/// `encode(to_msgpack(json::parse(bytes)))`, faults included, without
/// building either tree (see the module doc).
pub fn json_to_msgpack_bytes(text: &[u8]) -> Result<Vec<u8>, LineFault> {
    let mut sink = StreamSink::default();
    match parse_with(text, &mut sink)? {
        Piece::At(_) => sink.assemble().map_err(|reason| InterchangeFault { path: "$".to_owned(), reason }.into()),
        Piece::Fault(trail) => {
            let path = render(trail.steps.iter().rev().map(|step| match step {
                Step::Index(index) => Segment::Index(*index),
                Step::Key(key) => Segment::Key(key),
            }));
            Err(InterchangeFault { path, reason: trail.reason }.into())
        }
    }
}
