//! The rules of the bridge, in one place: [`ToJson`] (a msgpack value going
//! to an MCP server as an argument) and [`ToMsgpack`] (a JSON result going to
//! a program). Both are event adapters, so the same rules serve trees, the
//! NIF's terms and the byte fast paths.
//!
//! msgpack -> JSON: nil is null; integers always fit; floats must be
//! finite; strings and map keys must be UTF-8 strs; bin and ext are refused.
//! JSON -> msgpack: total except integers outside [-2^63, 2^64 - 1] (never
//! wrapped, clamped or turned into floats). Either way the first fault in
//! document order fails the whole conversion and names its path.

use super::decode::{decode_with, DecodeError};
use super::events::{walk_json, walk_msgpack, JsonBuilder, JsonScalar, JsonVisitor, JsonWriter, WalkError};
use super::fault::{InterchangeFault, LineFault, Reason};
use super::path::Path;
use super::value::{Msgpack, MsgpackBuilder, MsgpackVisitor, Scalar, TreeSink};
use super::scalar::{msgpack_scalar, MAX_MSGPACK_LEN};
use super::{MAX_DEPTH, MAX_MSGPACK_INT, MIN_MSGPACK_INT};
use crate::json::{self, Json};
use num_bigint::BigInt;
use std::convert::Infallible;
use std::marker::PhantomData;


/// The state both translators share: the output and the path of the value
/// being translated. `D` marks the direction ([`ToJson`] or [`ToMsgpack`]).
pub struct Translator<O, D> {
    out: O,
    path: Path,
    direction: PhantomData<D>,
}

/// Direction marker: msgpack events in, JSON events out.
pub enum MsgpackToJson {}
/// Direction marker: JSON events in, msgpack events out.
pub enum JsonToMsgpack {}

/// Translates msgpack events into JSON events for `out`.
pub type ToJson<O> = Translator<O, MsgpackToJson>;
/// Translates JSON events into msgpack events for `out`.
pub type ToMsgpack<O> = Translator<O, JsonToMsgpack>;

impl<O, D> Translator<O, D> {
    pub fn new(out: O) -> Self {
        Translator { out, path: Path::default(), direction: PhantomData }
    }

    pub fn into_output(self) -> O {
        self.out
    }

    fn fault(&self, reason: Reason) -> InterchangeFault {
        InterchangeFault { path: self.path.render(), reason }
    }

    fn emit<E: Into<Reason>>(&mut self, result: Result<(), E>) -> Result<(), InterchangeFault> {
        result.map_err(|error| self.fault(error.into()))
    }
}

impl<O: JsonVisitor> ToJson<O>
where
    O::Error: Into<Reason>,
{
    fn key(&mut self, key: Scalar<'_>) -> Result<(), InterchangeFault> {
        let Scalar::String(bytes) = key else { return Err(self.fault(Reason::NonStringKey)) };
        let text = std::str::from_utf8(bytes).map_err(|_| self.fault(Reason::InvalidUtf8Key))?;
        let written = self.out.key(text);
        self.emit(written)?;
        self.path.set_key(text);
        Ok(())
    }

    fn open(&mut self) -> Result<(), InterchangeFault> {
        if self.path.awaiting_key() {
            return Err(self.fault(Reason::NonStringKey));
        }
        if self.path.depth() == MAX_DEPTH {
            return Err(self.fault(Reason::TooDeep));
        }
        Ok(())
    }
}

impl<O: JsonVisitor> MsgpackVisitor for ToJson<O>
where
    O::Error: Into<Reason>,
{
    type Error = InterchangeFault;
    fn scalar(&mut self, value: Scalar<'_>) -> Result<(), InterchangeFault> {
        if self.path.awaiting_key() {
            return self.key(value);
        }
        let wide;
        let json = match value {
            Scalar::Nil => JsonScalar::Null,
            Scalar::Bool(b) => JsonScalar::Bool(b),
            Scalar::Int(int) => match i64::try_from(int) {
                Ok(small) => JsonScalar::Int(small),
                Err(_) if (MIN_MSGPACK_INT..=MAX_MSGPACK_INT).contains(&int) => {
                    wide = BigInt::from(int);
                    JsonScalar::BigInt(&wide)
                }
                Err(_) => return Err(self.fault(Reason::IntOutOfRange)),
            },
            Scalar::Float(f) if f.is_finite() => JsonScalar::Float(f),
            Scalar::Float(_) => return Err(self.fault(Reason::NonFiniteFloat)),
            Scalar::String(bytes) => match std::str::from_utf8(bytes) {
                Ok(text) => JsonScalar::String(text),
                Err(_) => return Err(self.fault(Reason::InvalidUtf8)),
            },
            Scalar::Binary(_) => return Err(self.fault(Reason::Binary)),
            Scalar::Ext(..) => return Err(self.fault(Reason::Ext)),
        };
        let written = self.out.scalar(json);
        self.emit(written)?;
        self.path.value_done();
        Ok(())
    }
    fn array(&mut self, len: usize) -> Result<(), InterchangeFault> {
        self.open()?;
        let written = self.out.array(len);
        self.emit(written)?;
        self.path.enter_array();
        Ok(())
    }
    fn map(&mut self, len: usize) -> Result<(), InterchangeFault> {
        self.open()?;
        let written = self.out.object(len);
        self.emit(written)?;
        self.path.enter_map();
        Ok(())
    }
    fn end(&mut self) -> Result<(), InterchangeFault> {
        let written = self.out.end();
        self.emit(written)?;
        self.path.leave();
        Ok(())
    }
}

impl<O: MsgpackVisitor> ToMsgpack<O>
where
    O::Error: Into<Reason>,
{
    fn open(&mut self, len: usize) -> Result<(), InterchangeFault> {
        if self.path.depth() == MAX_DEPTH {
            return Err(self.fault(Reason::TooDeep));
        }
        if len > MAX_MSGPACK_LEN {
            return Err(self.fault(Reason::TooLong));
        }
        Ok(())
    }
}

impl<O: MsgpackVisitor> JsonVisitor for ToMsgpack<O>
where
    O::Error: Into<Reason>,
{
    type Error = InterchangeFault;
    fn scalar(&mut self, value: JsonScalar<'_>) -> Result<(), InterchangeFault> {
        let msgpack = msgpack_scalar(value).map_err(|reason| self.fault(reason))?;
        let written = self.out.scalar(msgpack);
        self.emit(written)?;
        self.path.value_done();
        Ok(())
    }
    fn array(&mut self, len: usize) -> Result<(), InterchangeFault> {
        self.open(len)?;
        let written = self.out.array(len);
        self.emit(written)?;
        self.path.enter_array();
        Ok(())
    }
    fn object(&mut self, len: usize) -> Result<(), InterchangeFault> {
        self.open(len)?;
        let written = self.out.map(len);
        self.emit(written)?;
        self.path.enter_map();
        Ok(())
    }
    fn key(&mut self, key: &str) -> Result<(), InterchangeFault> {
        if key.len() > MAX_MSGPACK_LEN {
            return Err(self.fault(Reason::TooLong));
        }
        let written = self.out.scalar(Scalar::String(key.as_bytes()));
        self.emit(written)?;
        self.path.set_key(key);
        Ok(())
    }
    fn end(&mut self) -> Result<(), InterchangeFault> {
        let written = self.out.end();
        self.emit(written)?;
        self.path.leave();
        Ok(())
    }
}

/// A walk's error as a fault: a tree deeper than the translators allow
/// is stopped by them first, so `TooDeep` from the walker is a backstop.
fn walk_fault(error: WalkError<InterchangeFault>) -> InterchangeFault {
    match error {
        WalkError::Visitor(fault) => fault,
        WalkError::TooDeep => InterchangeFault { path: "$".to_owned(), reason: Reason::TooDeep },
    }
}

/// An unfinished build means the events were unbalanced, which a walk
/// cannot produce; reported as a fault rather than a panic.
fn unfinished() -> InterchangeFault {
    InterchangeFault { path: "$".to_owned(), reason: Reason::TooDeep }
}

/// `value` as JSON (an argument going to a server).
pub fn to_json(value: &Msgpack) -> Result<Json, InterchangeFault> {
    let mut translator = ToJson::new(JsonBuilder::new(json::TreeSink));
    walk_msgpack(value, &mut translator).map_err(walk_fault)?;
    translator.into_output().finish().ok_or_else(unfinished)
}

/// `value` as msgpack (a result going to a program).
pub fn to_msgpack(value: &Json) -> Result<Msgpack, InterchangeFault> {
    let mut translator = ToMsgpack::new(MsgpackBuilder::new(TreeSink));
    walk_json(value, &mut translator).map_err(walk_fault)?;
    translator.into_output().finish().ok_or_else(unfinished)
}

/// Accepts every event: decoding with it only checks the bytes.
struct Check;

impl MsgpackVisitor for Check {
    type Error = Infallible;
    fn scalar(&mut self, _: Scalar<'_>) -> Result<(), Infallible> {
        Ok(())
    }
    fn array(&mut self, _: usize) -> Result<(), Infallible> {
        Ok(())
    }
    fn map(&mut self, _: usize) -> Result<(), Infallible> {
        Ok(())
    }
    fn end(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}

/// MessagePack bytes straight to compact JSON text (no trailing newline; the
/// text never holds one): exactly `json::write(to_json(decode(bytes)))`,
/// faults included, without building either tree.
pub fn msgpack_to_json_line(bytes: &[u8]) -> Result<Vec<u8>, LineFault> {
    let mut translator = ToJson::new(JsonWriter::default());
    match decode_with(bytes, &mut translator) {
        Ok(()) => Ok(translator.into_output().into_bytes()),
        Err(DecodeError::Corrupt(report)) => Err(LineFault::Corrupt(report)),
        // Corruption further on outranks the fault, as when decoding first.
        Err(DecodeError::Visitor(fault)) => match decode_with(bytes, &mut Check) {
            Err(DecodeError::Corrupt(report)) => Err(LineFault::Corrupt(report)),
            _ => Err(LineFault::Interchange(fault)),
        },
    }
}
