//! `json()` terms (see DESIGN §2) to and from `mcp_core::json`.
//!
//! Decoding builds terms straight from the parser ([`TermSink`]), with no
//! intermediate tree. Encoding walks the term and writes bytes with the
//! core's primitives. [`JsonTerm::classify`] is the one place the term shape
//! is read, shared by the encoder and by [`json_from_term`].

use crate::atoms;
use mcp_core::json::{self, CorruptionReport, Json, JsonSink, MAX_DEPTH};
use num_bigint::BigInt;
use rustler::sys::{self, ErlNifTerm};
use rustler::types::tuple::make_tuple;
use rustler::{Binary, Encoder, Env, Error, NewBinary, NifResult, Term, TermType};
use std::vec::Drain;

/// A new binary term holding `bytes`.
pub fn binary_term<'a>(env: Env<'a>, bytes: &[u8]) -> Term<'a> {
    let mut term = std::mem::MaybeUninit::<ErlNifTerm>::uninit();
    // SAFETY: enif_make_new_binary returns a writable buffer of exactly
    // `bytes.len()` bytes (or null when out of memory, then we fall back to
    // rustler's checked path, which raises).
    unsafe {
        let data = sys::enif_make_new_binary(env.as_c_arg(), bytes.len(), term.as_mut_ptr());
        if data.is_null() {
            let mut binary = NewBinary::new(env, bytes.len());
            binary.as_mut_slice().copy_from_slice(bytes);
            return Binary::from(binary).to_term(env);
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len());
        Term::new(env, term.assume_init())
    }
}

/// Tells the scheduler what a normal-scheduler call cost, so a process
/// calling in a loop is preempted on time: one full timeslice (~1 ms) per
/// 64 KiB of JSON, a generous rate (measured decode and encode speeds are
/// 50-250 MB/s, i.e. 64 KiB in 0.25-1.3 ms).
pub fn charge_timeslice(env: Env<'_>, bytes: usize) {
    let percent = (bytes.saturating_mul(100) / 65536).clamp(1, 100) as i32;
    rustler::schedule::consume_timeslice(env, percent);
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
    let mut sink = TermSink::new(env);
    match json::parse_with(bytes, &mut sink) {
        Ok(value) => (atoms::ok(), sink.build.term(value)).encode(env),
        Err(report) => (atoms::error(), corruption_report_term(env, &report)).encode(env),
    }
}

/// The compact encoding of a `json()` term as a binary; `badarg` for a term
/// outside `json()` or nested deeper than `max_depth`. With a `budget`, the
/// atom `dirty` instead once the output would pass that many bytes: the
/// caller then retries on a dirty scheduler, so a normal-scheduler call does
/// bounded work whatever the term's size. `newline` appends `\n` in the same
/// pass (stdio framing), so a framed line is never copied again.
pub fn encode_to_binary<'a>(env: Env<'a>, value: Term<'a>, budget: Option<usize>, newline: bool) -> NifResult<Term<'a>> {
    let mut out = Vec::new();
    match write_term(&mut out, value, 0, budget.unwrap_or(usize::MAX)) {
        Ok(()) => {
            if newline {
                out.push(b'\n');
            }
            Ok(binary_term(env, &out))
        }
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

/// Makes `json()` terms with raw `enif_*` calls: one tuple or list per
/// call and no temporary vectors (rustler's `make_tuple` and list encoders
/// allocate a copy per call, which dominated decode time).
#[derive(Clone, Copy)]
pub struct TermBuilder<'a> {
    env: Env<'a>,
}

impl<'a> TermBuilder<'a> {
    pub fn new(env: Env<'a>) -> TermBuilder<'a> {
        TermBuilder { env }
    }

    pub fn term(&self, raw: ErlNifTerm) -> Term<'a> {
        // SAFETY: every raw term here was made in `self.env`.
        unsafe { Term::new(self.env, raw) }
    }

    fn atom(&self, atom: rustler::Atom) -> ErlNifTerm {
        atom.encode(self.env).as_c_arg()
    }

    pub fn tuple(&self, elements: &[ErlNifTerm]) -> ErlNifTerm {
        // SAFETY: a valid env and a slice of valid terms of that env.
        unsafe { sys::enif_make_tuple_from_array(self.env.as_c_arg(), elements.as_ptr(), elements.len() as u32) }
    }

    pub fn list(&self, elements: &[ErlNifTerm]) -> ErlNifTerm {
        // SAFETY: as for `tuple`.
        unsafe { sys::enif_make_list_from_array(self.env.as_c_arg(), elements.as_ptr(), elements.len() as u32) }
    }

    fn list_cell(&self, head: ErlNifTerm, tail: ErlNifTerm) -> ErlNifTerm {
        // SAFETY: as for `tuple`.
        unsafe { sys::enif_make_list_cell(self.env.as_c_arg(), head, tail) }
    }

    pub fn binary(&self, bytes: &[u8]) -> ErlNifTerm {
        binary_term(self.env, bytes).as_c_arg()
    }

    pub fn null(&self) -> ErlNifTerm {
        self.atom(atoms::null())
    }
    pub fn bool(&self, value: bool) -> ErlNifTerm {
        self.tuple(&[self.atom(atoms::bool()), value.encode(self.env).as_c_arg()])
    }
    pub fn int(&self, value: i64) -> ErlNifTerm {
        // SAFETY: a valid env.
        let int = unsafe { sys::enif_make_int64(self.env.as_c_arg(), value) };
        self.tuple(&[self.atom(atoms::int()), int])
    }
    pub fn big_int(&self, value: &BigInt) -> ErlNifTerm {
        self.tuple(&[self.atom(atoms::int()), value.encode(self.env).as_c_arg()])
    }
    pub fn float(&self, value: f64) -> ErlNifTerm {
        // SAFETY: a valid env; the core only hands out finite floats.
        let float = unsafe { sys::enif_make_double(self.env.as_c_arg(), value) };
        self.tuple(&[self.atom(atoms::float()), float])
    }
    pub fn string(&self, value: &str) -> ErlNifTerm {
        self.tuple(&[self.atom(atoms::string()), self.binary(value.as_bytes())])
    }
    pub fn array(&self, items: &[ErlNifTerm]) -> ErlNifTerm {
        self.tuple(&[self.atom(atoms::array()), self.list(items)])
    }
    /// `{object, [{Key, Value}]}` from members given in wire order.
    pub fn object<I>(&self, members: I) -> ErlNifTerm
    where
        I: DoubleEndedIterator<Item = (ErlNifTerm, ErlNifTerm)>,
    {
        let mut list = Term::list_new_empty(self.env).as_c_arg();
        for (key, value) in members.rev() {
            list = self.list_cell(self.tuple(&[key, value]), list);
        }
        self.tuple(&[self.atom(atoms::object()), list])
    }
}

/// Builds `json()` terms as the parser reports values (raw terms, wrapped
/// once at the end).
pub struct TermSink<'a> {
    build: TermBuilder<'a>,
}

impl<'a> TermSink<'a> {
    pub fn new(env: Env<'a>) -> TermSink<'a> {
        TermSink { build: TermBuilder::new(env) }
    }
}

impl<'a> JsonSink for TermSink<'a> {
    type Value = ErlNifTerm;
    type Key = ErlNifTerm;
    fn null(&mut self) -> ErlNifTerm {
        self.build.null()
    }
    fn bool(&mut self, value: bool) -> ErlNifTerm {
        self.build.bool(value)
    }
    fn int(&mut self, value: i64) -> ErlNifTerm {
        self.build.int(value)
    }
    fn big_int(&mut self, value: BigInt) -> ErlNifTerm {
        self.build.big_int(&value)
    }
    fn float(&mut self, value: f64) -> ErlNifTerm {
        self.build.float(value)
    }
    fn string(&mut self, value: &str) -> ErlNifTerm {
        self.build.string(value)
    }
    fn key(&mut self, value: &str) -> ErlNifTerm {
        self.build.binary(value.as_bytes())
    }
    fn array(&mut self, items: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        self.build.array(items.as_slice())
    }
    fn object(&mut self, keys: Drain<'_, ErlNifTerm>, values: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        self.build.object(keys.zip(values))
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
        let (tag, payload) = pair(term)?;
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
    let (key, value) = pair(term)?;
    Ok((utf8_binary(key)?, value))
}

/// The two elements of a 2-tuple, else `badarg` (no allocation, unlike
/// rustler's `get_tuple`).
pub fn pair(term: Term<'_>) -> NifResult<(Term<'_>, Term<'_>)> {
    let env = term.get_env();
    let mut arity: std::os::raw::c_int = 0;
    let mut elements: *const ErlNifTerm = std::ptr::null();
    // SAFETY: enif_get_tuple only writes the out-parameters, and on success
    // `elements` points at `arity` terms that live as long as `term`.
    let is_tuple = unsafe { sys::enif_get_tuple(env.as_c_arg(), term.as_c_arg(), &mut arity, &mut elements) };
    if is_tuple == 0 || arity != 2 {
        return Err(Error::BadArg);
    }
    // SAFETY: arity is 2, so both reads are in bounds.
    unsafe { Ok((Term::new(env, *elements), Term::new(env, *elements.add(1)))) }
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
    let build = TermBuilder::new(env);
    build.term(raw_json(&build, value))
}

fn raw_json(build: &TermBuilder<'_>, value: &Json) -> ErlNifTerm {
    match value {
        Json::Null => build.null(),
        Json::Bool(b) => build.bool(*b),
        Json::Int(i) => build.int(*i),
        Json::BigInt(big) => build.big_int(big),
        Json::Float(f) => build.float(*f),
        Json::String(s) => build.string(s),
        Json::Array(items) => {
            let items: Vec<ErlNifTerm> = items.iter().map(|item| raw_json(build, item)).collect();
            build.array(&items)
        }
        Json::Object(members) => {
            build.object(members.iter().map(|(key, item)| (build.binary(key.as_bytes()), raw_json(build, item))))
        }
    }
}
