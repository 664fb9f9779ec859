//! `json()` terms (see DESIGN §2) to and from `mcp_core::json`.
//!
//! Decoding builds terms straight from the parser ([`TermSink`]), with no
//! intermediate tree. Encoding walks the term and writes bytes with the
//! core's primitives. [`JsonTerm::classify`] is the one place the term shape
//! is read, shared by the encoder and by [`json_from_term`].

use crate::atoms;
use mcp_core::json::{self, CorruptionReport, Json, JsonSink, MAX_DEPTH};
use num_bigint::BigInt;
use rustler::types::tuple::{get_tuple, make_tuple};
use rustler::{Binary, Encoder, Env, Error, NewBinary, NifResult, Term, TermType};
use std::vec::Drain;

/// A new binary term holding `bytes`.
pub fn binary_term<'a>(env: Env<'a>, bytes: &[u8]) -> Term<'a> {
    let mut binary = NewBinary::new(env, bytes.len());
    binary.as_mut_slice().copy_from_slice(bytes);
    Binary::from(binary).to_term(env)
}

/// `{corruption_report, Offset, Reason}`.
pub fn corruption_report_term<'a>(env: Env<'a>, report: &CorruptionReport) -> Term<'a> {
    make_tuple(
        env,
        &[atoms::corruption_report().encode(env), report.offset.encode(env), binary_term(env, report.reason.as_bytes())],
    )
}

/// `{ok, json()} | {error, corruption_report()}` for one JSON document.
pub fn decode_to_result<'a>(env: Env<'a>, bytes: &[u8]) -> Term<'a> {
    match json::parse_with(bytes, &mut TermSink { env }) {
        Ok(value) => (atoms::ok(), value).encode(env),
        Err(report) => (atoms::error(), corruption_report_term(env, &report)).encode(env),
    }
}

/// The compact encoding of a `json()` term as a binary; `badarg` for a term
/// outside `json()` or nested deeper than `max_depth`. With a `budget`, the
/// atom `dirty` instead once the output would pass that many bytes: the
/// caller then retries on a dirty scheduler, so a normal-scheduler call does
/// bounded work whatever the term's size.
pub fn encode_to_binary<'a>(env: Env<'a>, value: Term<'a>, budget: Option<usize>) -> NifResult<Term<'a>> {
    let mut out = Vec::new();
    match write_term(&mut out, value, 0, budget.unwrap_or(usize::MAX)) {
        Ok(()) => Ok(binary_term(env, &out)),
        Err(Stop::OverBudget) => Ok(atoms::dirty().encode(env)),
        Err(Stop::BadArg) => Err(Error::BadArg),
    }
}

/// Why [`write_term`] stopped early.
enum Stop {
    BadArg,
    OverBudget,
}

impl From<Error> for Stop {
    fn from(_: Error) -> Stop {
        Stop::BadArg
    }
}

/// Builds `json()` terms as the parser reports values.
pub struct TermSink<'a> {
    pub env: Env<'a>,
}

impl<'a> JsonSink for TermSink<'a> {
    type Value = Term<'a>;
    type Key = Term<'a>;
    fn null(&mut self) -> Term<'a> {
        atoms::null().encode(self.env)
    }
    fn bool(&mut self, value: bool) -> Term<'a> {
        (atoms::bool(), value).encode(self.env)
    }
    fn int(&mut self, value: i64) -> Term<'a> {
        (atoms::int(), value).encode(self.env)
    }
    fn big_int(&mut self, value: BigInt) -> Term<'a> {
        (atoms::int(), value).encode(self.env)
    }
    fn float(&mut self, value: f64) -> Term<'a> {
        (atoms::float(), value).encode(self.env)
    }
    fn string(&mut self, value: &str) -> Term<'a> {
        (atoms::string(), binary_term(self.env, value.as_bytes())).encode(self.env)
    }
    fn key(&mut self, value: &str) -> Term<'a> {
        binary_term(self.env, value.as_bytes())
    }
    fn array(&mut self, items: Drain<'_, Term<'a>>) -> Term<'a> {
        let items: Vec<Term<'a>> = items.collect();
        (atoms::array(), items).encode(self.env)
    }
    fn object(&mut self, keys: Drain<'_, Term<'a>>, values: Drain<'_, Term<'a>>) -> Term<'a> {
        let env = self.env;
        let members: Vec<Term<'a>> = keys.zip(values).map(|(key, value)| make_tuple(env, &[key, value])).collect();
        (atoms::object(), members).encode(env)
    }
}

/// The elements of a list term, one `badarg` for an improper list.
/// (rustler's `ListIterator` panics on an improper list; never use it on
/// caller-supplied terms.)
pub struct ListCells<'a> {
    rest: Term<'a>,
}

impl<'a> ListCells<'a> {
    /// `badarg` unless `term` is a list (proper or not; the tail is checked
    /// as iteration reaches it).
    pub fn new(term: Term<'a>) -> NifResult<ListCells<'a>> {
        if term.is_list() {
            Ok(ListCells { rest: term })
        } else {
            Err(Error::BadArg)
        }
    }
}

impl<'a> Iterator for ListCells<'a> {
    type Item = NifResult<Term<'a>>;
    fn next(&mut self) -> Option<NifResult<Term<'a>>> {
        if self.rest.is_empty_list() {
            return None;
        }
        match self.rest.list_get_cell() {
            Ok((head, tail)) => {
                self.rest = tail;
                Some(Ok(head))
            }
            Err(error) => {
                self.rest = Term::list_new_empty(self.rest.get_env());
                Some(Err(error))
            }
        }
    }
}

/// One level of a `json()` term, read without descending.
pub enum JsonTerm<'a> {
    Null,
    Bool(bool),
    Int(i64),
    BigInt(BigInt),
    Float(f64),
    String(&'a str),
    Array(ListCells<'a>),
    Object(ListCells<'a>),
}

impl<'a> JsonTerm<'a> {
    /// Reads the outer shape of a `json()` term; `badarg` outside the type.
    pub fn classify(term: Term<'a>) -> NifResult<JsonTerm<'a>> {
        if term.get_type() == TermType::Atom {
            return if term == atoms::null().encode(term.get_env()) { Ok(JsonTerm::Null) } else { Err(Error::BadArg) };
        }
        let parts = get_tuple(term)?;
        let [tag, payload] = parts[..] else { return Err(Error::BadArg) };
        let env = term.get_env();
        let is = |atom: rustler::Atom| tag == atom.encode(env);
        if is(atoms::string()) {
            Ok(JsonTerm::String(utf8_binary(payload)?))
        } else if is(atoms::int()) {
            match payload.decode::<i64>() {
                Ok(small) => Ok(JsonTerm::Int(small)),
                Err(_) => Ok(JsonTerm::BigInt(payload.decode::<BigInt>()?)),
            }
        } else if is(atoms::object()) {
            Ok(JsonTerm::Object(ListCells::new(payload)?))
        } else if is(atoms::array()) {
            Ok(JsonTerm::Array(ListCells::new(payload)?))
        } else if is(atoms::float()) && payload.get_type() == TermType::Float {
            // (rustler's f64 decoder also takes integers; json() does not)
            Ok(JsonTerm::Float(payload.decode()?))
        } else if is(atoms::bool()) {
            Ok(JsonTerm::Bool(payload.decode()?))
        } else {
            Err(Error::BadArg)
        }
    }
}

/// A binary holding valid UTF-8, else `badarg`.
pub fn utf8_binary(term: Term<'_>) -> NifResult<&str> {
    let binary: Binary = term.decode()?;
    std::str::from_utf8(binary.as_slice()).map_err(|_| Error::BadArg)
}

/// An object member `{Key, Value}` with a UTF-8 binary key.
fn member(term: Term<'_>) -> NifResult<(&str, Term<'_>)> {
    let parts = get_tuple(term)?;
    let [key, value] = parts[..] else { return Err(Error::BadArg) };
    Ok((utf8_binary(key)?, value))
}

fn write_term(out: &mut Vec<u8>, term: Term<'_>, depth: usize, budget: usize) -> Result<(), Stop> {
    if out.len() > budget {
        return Err(Stop::OverBudget);
    }
    match JsonTerm::classify(term)? {
        JsonTerm::Null => out.extend_from_slice(b"null"),
        JsonTerm::Bool(value) => out.extend_from_slice(if value { b"true" } else { b"false" }),
        JsonTerm::Int(value) => json::write_int(out, value),
        JsonTerm::BigInt(value) => json::write_big_int(out, &value),
        JsonTerm::Float(value) => json::write_float(out, value).map_err(|_| Stop::BadArg)?,
        JsonTerm::String(text) if out.len() + text.len() > budget => return Err(Stop::OverBudget),
        JsonTerm::String(text) => json::write_string(out, text),
        JsonTerm::Array(items) => {
            if depth == MAX_DEPTH {
                return Err(Stop::BadArg);
            }
            out.push(b'[');
            for (index, item) in items.enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_term(out, item?, depth + 1, budget)?;
            }
            out.push(b']');
        }
        JsonTerm::Object(members) => {
            if depth == MAX_DEPTH {
                return Err(Stop::BadArg);
            }
            out.push(b'{');
            for (index, entry) in members.enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                let (key, value) = member(entry?)?;
                json::write_string(out, key);
                out.push(b':');
                write_term(out, value, depth + 1, budget)?;
            }
            out.push(b'}');
        }
    }
    Ok(())
}

/// A `json()` term as a core [`Json`] value (for the codecs that interpret
/// JSON rather than just move it); `badarg` outside `json()` or too deep.
pub fn json_from_term(term: Term<'_>) -> NifResult<Json> {
    json_from_term_at(term, 0)
}

fn json_from_term_at(term: Term<'_>, depth: usize) -> NifResult<Json> {
    Ok(match JsonTerm::classify(term)? {
        JsonTerm::Null => Json::Null,
        JsonTerm::Bool(value) => Json::Bool(value),
        JsonTerm::Int(value) => Json::Int(value),
        JsonTerm::BigInt(value) => Json::from_big_int(value),
        JsonTerm::Float(value) => Json::Float(value),
        JsonTerm::String(text) => Json::String(text.to_owned()),
        JsonTerm::Array(items) => {
            if depth == MAX_DEPTH {
                return Err(Error::BadArg);
            }
            Json::Array(items.map(|item| json_from_term_at(item?, depth + 1)).collect::<NifResult<_>>()?)
        }
        JsonTerm::Object(members) => {
            if depth == MAX_DEPTH {
                return Err(Error::BadArg);
            }
            let members = members
                .map(|entry| {
                    let (key, value) = member(entry?)?;
                    Ok((key.to_owned(), json_from_term_at(value, depth + 1)?))
                })
                .collect::<NifResult<_>>()?;
            Json::Object(members)
        }
    })
}

/// A core [`Json`] value as a `json()` term. Recursion is bounded because
/// every `Json` the core hands out was parsed or checked at `MAX_DEPTH`.
pub fn json_to_term<'a>(env: Env<'a>, value: &Json) -> Term<'a> {
    let mut sink = TermSink { env };
    match value {
        Json::Null => sink.null(),
        Json::Bool(b) => sink.bool(*b),
        Json::Int(i) => sink.int(*i),
        Json::BigInt(big) => sink.big_int(big.clone()),
        Json::Float(f) => sink.float(*f),
        Json::String(s) => sink.string(s),
        Json::Array(items) => {
            let items: Vec<Term<'a>> = items.iter().map(|item| json_to_term(env, item)).collect();
            (atoms::array(), items).encode(env)
        }
        Json::Object(members) => {
            let members: Vec<Term<'a>> = members
                .iter()
                .map(|(key, item)| make_tuple(env, &[binary_term(env, key.as_bytes()), json_to_term(env, item)]))
                .collect();
            (atoms::object(), members).encode(env)
        }
    }
}
