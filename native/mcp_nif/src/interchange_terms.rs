//! `msgpack()` and `interchange_fault()` terms (docs/design.md) for the
//! interchange NIFs. The rules live in `mcp_core::interchange`; this file
//! only turns terms into the core's events and events into terms:
//! [`TermWalk`] reads terms, [`MsgpackTermSink`]
//! and `json_terms::TermSink` build them.
//!
//! Work on a normal scheduler is bounded by a [`Budget`] of units (one per
//! value, per list cell and per payload byte): past it the walk stops with
//! [`Stop::OverBudget`] and the NIF answers `dirty`, so the Erlang module
//! redoes the call on a dirty scheduler.

use crate::atoms;
use crate::json_terms::{
    binary_term, bytes, corruption_report_term, member, pair, text, IntReader, JsonTerm, ListCells, TermBuilder,
    TermSink, WideInt,
};
use mcp_core::interchange::{
    self, InterchangeFault, JsonBuilder, JsonScalar, JsonVisitor, LineFault, MsgpackBuilder, MsgpackSink,
    MsgpackVisitor, MsgpackWriter, Scalar, ToJson, ToMsgpack, MAX_DEPTH,
};
use num_bigint::BigInt;
use rustler::sys::ErlNifTerm;
use rustler::types::tuple::{get_tuple, make_tuple};
use rustler::{Encoder, Env, Error, NifResult, Term, TermType};
use std::vec::Drain;

/// Why a term walk stopped.
pub enum Stop<E> {
    /// The term is not of the expected type (or nests deeper than allowed).
    BadArg,
    /// The work budget ran out: redo on a dirty scheduler.
    OverBudget,
    Visitor(E),
}

impl<E> From<Error> for Stop<E> {
    fn from(_: Error) -> Stop<E> {
        Stop::BadArg
    }
}

/// Work units left for a call on a normal scheduler (`None`: unbounded).
struct Budget(Option<usize>);

impl Budget {
    fn new(units: Option<usize>) -> Budget {
        Budget(units)
    }

    fn spend<E>(&mut self, units: usize) -> Result<(), Stop<E>> {
        match &mut self.0 {
            Some(left) if *left < units => Err(Stop::OverBudget),
            Some(left) => {
                *left -= units;
                Ok(())
            }
            None => Ok(()),
        }
    }
}

/// `{interchange_fault, Path, Reason}` with binaries for both.
pub fn fault_term<'a>(env: Env<'a>, fault: &InterchangeFault) -> Term<'a> {
    make_tuple(
        env,
        &[
            atoms::interchange_fault().encode(env),
            binary_term(env, fault.path.as_bytes()),
            binary_term(env, fault.reason.as_str().as_bytes()),
        ],
    )
}

fn line_fault_term<'a>(env: Env<'a>, fault: &LineFault) -> Term<'a> {
    match fault {
        LineFault::Corrupt(report) => corruption_report_term(env, report),
        LineFault::Interchange(fault) => fault_term(env, fault),
    }
}

/// Builds `msgpack()` terms with the JSON module's raw [`TermBuilder`]
/// (no temporary vectors per tuple).
pub struct MsgpackTermSink<'a> {
    env: Env<'a>,
    build: TermBuilder<'a>,
}

impl<'a> MsgpackTermSink<'a> {
    pub fn new(env: Env<'a>) -> MsgpackTermSink<'a> {
        MsgpackTermSink { env, build: TermBuilder::new(env) }
    }

    fn tagged(&self, tag: rustler::Atom, payload: ErlNifTerm) -> ErlNifTerm {
        self.build.tuple(&[tag.encode(self.env).as_c_arg(), payload])
    }
}

impl<'a> MsgpackSink for MsgpackTermSink<'a> {
    type Value = ErlNifTerm;
    fn scalar(&mut self, value: Scalar<'_>) -> ErlNifTerm {
        let env = self.env;
        match value {
            Scalar::Nil => atoms::nil_value().encode(env).as_c_arg(),
            Scalar::Bool(b) => self.tagged(atoms::bool_value(), b.encode(env).as_c_arg()),
            Scalar::Int(int) => self.tagged(atoms::int_value(), int.encode(env).as_c_arg()),
            Scalar::Float(f) => self.tagged(atoms::float_value(), f.encode(env).as_c_arg()),
            Scalar::String(text) => self.tagged(atoms::string_value(), self.build.binary(text)),
            Scalar::Binary(data) => self.tagged(atoms::binary_value(), self.build.binary(data)),
            Scalar::Ext(kind, data) => self.build.tuple(&[
                atoms::ext_value().encode(env).as_c_arg(),
                i64::from(kind).encode(env).as_c_arg(),
                self.build.binary(data),
            ]),
        }
    }
    fn array(&mut self, items: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        self.tagged(atoms::array_value(), self.build.list(items.as_slice()))
    }
    fn map(&mut self, items: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        let entries: Vec<ErlNifTerm> = items.as_slice().chunks_exact(2).map(|pair| self.build.tuple(pair)).collect();
        self.tagged(atoms::map_value(), self.build.list(&entries))
    }
}

/// An integer term as the core's `i128`. Beyond `i128` it saturates: every
/// such value is outside msgpack's range, which is all the core then checks
/// (and the bignum is never copied, see [`IntReader`]).
fn int_payload<'a>(ints: &mut IntReader<'a>, term: Term<'a>) -> NifResult<i128> {
    Ok(match ints.wide(term)? {
        WideInt::Fits(int) => int,
        WideInt::Above => i128::MAX,
        WideInt::Below => i128::MIN,
    })
}

/// An ext type: an integer in -128..127 (rustler's own `i8` decoder wraps).
fn ext_type(term: Term<'_>) -> NifResult<i8> {
    i8::try_from(term.decode::<i64>()?).map_err(|_| Error::BadArg)
}

/// The elements of a 2- or 3-tuple (the arities of `msgpack()`), else `badarg`.
fn tuple_elements(term: Term<'_>) -> NifResult<Vec<Term<'_>>> {
    match pair(term) {
        Ok((tag, payload)) => Ok(vec![tag, payload]),
        Err(_) => get_tuple(term),
    }
}

/// Reads terms into events, spending its budget before each thing it
/// touches: one unit per value and per list cell (a container's length is
/// counted by walking its list under the budget, so the walk is paid for
/// before the items are read), one per byte of a string, key or binary
/// (before its UTF-8 is checked). Integers beyond `i128` are never read.
pub struct TermWalk<'a> {
    budget: Budget,
    /// Containers open around the term being read.
    depth: usize,
    ints: IntReader<'a>,
}

impl<'a> TermWalk<'a> {
    pub fn new(env: Env<'a>, budget: Option<usize>) -> TermWalk<'a> {
        TermWalk { budget: Budget::new(budget), depth: 0, ints: IntReader::new(env) }
    }

    /// The length of a list term, walked one budget unit per cell
    /// (`enif_get_list_length` would walk ten million cells unbudgeted);
    /// `badarg` for an improper list.
    fn list_len<E>(&mut self, cells: ListCells<'_>) -> Result<usize, Stop<E>> {
        let mut len = 0;
        for cell in cells {
            cell?;
            self.budget.spend(1)?;
            len += 1;
        }
        Ok(len)
    }

    /// Steps into a container's items, or `badarg` past `max_depth`. Called
    /// after the container is announced, so a translator's fault comes first.
    fn enter<E>(&mut self) -> Result<(), Stop<E>> {
        if self.depth == MAX_DEPTH {
            return Err(Stop::BadArg);
        }
        self.depth += 1;
        Ok(())
    }

    /// Reports a `msgpack()` term to `visitor`; `badarg` outside the type (an
    /// ext type must be -128..127) or deeper than `max_depth`.
    pub fn msgpack<V: MsgpackVisitor>(&mut self, term: Term<'a>, visitor: &mut V) -> Result<(), Stop<V::Error>> {
        self.budget.spend(1)?;
        let env = term.get_env();
        if term.get_type() == TermType::Atom {
            if term != atoms::nil_value().encode(env) {
                return Err(Stop::BadArg);
            }
            return visitor.scalar(Scalar::Nil).map_err(Stop::Visitor);
        }
        let parts = tuple_elements(term)?;
        let is = |atom: rustler::Atom| parts.first() == Some(&atom.encode(env));
        let scalar = match parts[..] {
            [_, payload] if is(atoms::string_value()) => {
                let text = bytes(payload)?;
                self.budget.spend(text.len())?;
                Scalar::String(text)
            }
            [_, payload] if is(atoms::int_value()) => Scalar::Int(int_payload(&mut self.ints, payload)?),
            [_, payload] if is(atoms::map_value()) => {
                let len = self.list_len(ListCells::new(payload)?)?;
                visitor.map(len).map_err(Stop::Visitor)?;
                self.enter()?;
                for entry in ListCells::new(payload)? {
                    let (key, value) = pair(entry?)?;
                    self.msgpack(key, visitor)?;
                    self.msgpack(value, visitor)?;
                }
                self.depth -= 1;
                return visitor.end().map_err(Stop::Visitor);
            }
            [_, payload] if is(atoms::array_value()) => {
                let len = self.list_len(ListCells::new(payload)?)?;
                visitor.array(len).map_err(Stop::Visitor)?;
                self.enter()?;
                for item in ListCells::new(payload)? {
                    self.msgpack(item?, visitor)?;
                }
                self.depth -= 1;
                return visitor.end().map_err(Stop::Visitor);
            }
            // (rustler's f64 decoder also takes integers; msgpack() does not)
            [_, payload] if is(atoms::float_value()) && payload.get_type() == TermType::Float => {
                Scalar::Float(payload.decode()?)
            }
            [_, payload] if is(atoms::bool_value()) => Scalar::Bool(payload.decode()?),
            [_, payload] if is(atoms::binary_value()) => {
                let data = bytes(payload)?;
                self.budget.spend(data.len())?;
                Scalar::Binary(data)
            }
            [_, kind, payload] if is(atoms::ext_value()) => {
                let data = bytes(payload)?;
                self.budget.spend(data.len())?;
                Scalar::Ext(ext_type(kind)?, data)
            }
            _ => return Err(Stop::BadArg),
        };
        visitor.scalar(scalar).map_err(Stop::Visitor)
    }

    /// Reports a `json()` term to `visitor`, reading it with the JSON module's
    /// own classifier; `badarg` outside `json()` or deeper than `max_depth`.
    pub fn json<V: JsonVisitor>(&mut self, term: Term<'a>, visitor: &mut V) -> Result<(), Stop<V::Error>> {
        self.budget.spend(1)?;
        let big;
        let scalar = match JsonTerm::classify(term)? {
            JsonTerm::Null => JsonScalar::Null,
            JsonTerm::Bool(b) => JsonScalar::Bool(b),
            JsonTerm::Int(int) => JsonScalar::Int(int),
            JsonTerm::BigInt(value) => {
                // saturated beyond i128: outside msgpack's range either way
                big = BigInt::from(int_payload(&mut self.ints, value)?);
                JsonScalar::BigInt(&big)
            }
            JsonTerm::Float(f) => JsonScalar::Float(f),
            JsonTerm::String(bytes) => {
                self.budget.spend(bytes.len())?;
                JsonScalar::String(text(bytes)?)
            }
            JsonTerm::Array(items) => {
                let len = self.list_len(items.clone())?;
                visitor.array(len).map_err(Stop::Visitor)?;
                self.enter()?;
                for item in items {
                    self.json(item?, visitor)?;
                }
                self.depth -= 1;
                return visitor.end().map_err(Stop::Visitor);
            }
            JsonTerm::Object(members) => {
                let len = self.list_len(members.clone())?;
                visitor.object(len).map_err(Stop::Visitor)?;
                self.enter()?;
                for entry in members {
                    let (key, value) = member(entry?)?;
                    self.budget.spend(key.len())?;
                    visitor.key(text(key)?).map_err(Stop::Visitor)?;
                    self.json(value, visitor)?;
                }
                self.depth -= 1;
                return visitor.end().map_err(Stop::Visitor);
            }
        };
        visitor.scalar(scalar).map_err(Stop::Visitor)
    }
}

/// `{ok, Value} | {error, Fault}`, `dirty`, or `badarg`, from a translation.
fn translated<'a>(
    env: Env<'a>,
    walked: Result<(), Stop<InterchangeFault>>,
    value: Option<ErlNifTerm>,
) -> NifResult<Term<'a>> {
    match walked {
        Ok(()) => {
            let value = value.ok_or(Error::BadArg)?;
            Ok((atoms::ok(), TermBuilder::new(env).term(value)).encode(env))
        }
        Err(Stop::Visitor(fault)) => Ok((atoms::error(), fault_term(env, &fault)).encode(env)),
        Err(Stop::OverBudget) => Ok(atoms::dirty().encode(env)),
        Err(Stop::BadArg) => Err(Error::BadArg),
    }
}

/// `to_json(msgpack())`: `{ok, json()} | {error, interchange_fault()}`.
/// With a budget the value is measured first (a walk that builds nothing)
/// and converted only when all of it fits: past the budget the answer is
/// `dirty` with no JSON made, so the dirty call that follows is the one
/// conversion (a code-mode call's arguments are converted once, whatever
/// their size).
pub fn to_json<'a>(env: Env<'a>, value: Term<'a>, budget: Option<usize>) -> NifResult<Term<'a>> {
    if budget.is_some() {
        match TermWalk::new(env, budget).msgpack(value, &mut Measure { depth: 0 }) {
            Err(Stop::OverBudget) => return Ok(atoms::dirty().encode(env)),
            Err(Stop::BadArg) => return Err(Error::BadArg),
            Ok(()) | Err(Stop::Visitor(_)) => {}
        }
    }
    let mut translator = ToJson::new(JsonBuilder::new(TermSink::new(env)));
    let walked = TermWalk::new(env, budget).msgpack(value, &mut translator);
    translated(env, walked, translator.into_output().finish())
}

/// A visitor that builds nothing: the budgeted walk of [`to_json`]'s
/// measurement. It stops at a container past `MAX_DEPTH`, where the walk
/// itself would answer `badarg`: the conversion reports that as a fault.
struct Measure {
    depth: usize,
}

/// The measured value nests deeper than the conversion allows.
struct TooDeep;

impl MsgpackVisitor for Measure {
    type Error = TooDeep;
    fn scalar(&mut self, _value: Scalar<'_>) -> Result<(), TooDeep> {
        Ok(())
    }
    fn array(&mut self, _len: usize) -> Result<(), TooDeep> {
        self.open()
    }
    fn map(&mut self, _len: usize) -> Result<(), TooDeep> {
        self.open()
    }
    fn end(&mut self) -> Result<(), TooDeep> {
        self.depth -= 1;
        Ok(())
    }
}

impl Measure {
    fn open(&mut self) -> Result<(), TooDeep> {
        if self.depth == MAX_DEPTH {
            return Err(TooDeep);
        }
        self.depth += 1;
        Ok(())
    }
}

/// `to_msgpack(json())`: `{ok, msgpack()} | {error, interchange_fault()}`.
pub fn to_msgpack<'a>(env: Env<'a>, value: Term<'a>, budget: Option<usize>) -> NifResult<Term<'a>> {
    let mut translator = ToMsgpack::new(MsgpackBuilder::new(MsgpackTermSink::new(env)));
    let walked = TermWalk::new(env, budget).json(value, &mut translator);
    translated(env, walked, translator.into_output().finish())
}

/// `{ok, msgpack()} | {error, corruption_report()}` for one value's bytes.
pub fn decode<'a>(env: Env<'a>, bytes: &[u8]) -> Term<'a> {
    match interchange::decode_into(bytes, MsgpackTermSink::new(env)) {
        Ok(value) => (atoms::ok(), TermBuilder::new(env).term(value)).encode(env),
        Err(report) => (atoms::error(), corruption_report_term(env, &report)).encode(env),
    }
}

/// The bytes of a `msgpack()` term, `dirty` past the budget, or `badarg`
/// (outside the type, an integer outside msgpack's range, too deep).
pub fn encode<'a>(env: Env<'a>, value: Term<'a>, budget: Option<usize>) -> NifResult<Term<'a>> {
    let mut writer = MsgpackWriter::default();
    match TermWalk::new(env, budget).msgpack(value, &mut writer) {
        Ok(()) => Ok(binary_term(env, &writer.into_bytes())),
        Err(Stop::OverBudget) => Ok(atoms::dirty().encode(env)),
        Err(Stop::BadArg | Stop::Visitor(_)) => Err(Error::BadArg),
    }
}

/// `{ok, Binary} | {error, corruption_report() | interchange_fault()}`.
pub fn line_result<'a>(env: Env<'a>, result: Result<Vec<u8>, LineFault>) -> Term<'a> {
    match result {
        Ok(bytes) => (atoms::ok(), binary_term(env, &bytes)).encode(env),
        Err(fault) => (atoms::error(), line_fault_term(env, &fault)).encode(env),
    }
}
