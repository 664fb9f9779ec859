//! `json()` terms (docs/design.md, "The term contract") to and from `mcp_core::json`.
//!
//! Decoding builds terms straight from the parser ([`TermSink`]), with no
//! intermediate tree. Encoding walks the term and writes bytes with the
//! core's primitives. [`JsonTerm::classify`] is the one place the term shape
//! is read, shared by the encoder and by [`json_from_term`].

pub mod decode;
pub mod encode;

use crate::atoms;
use mcp_core::json::{CorruptionReport, Json, JsonSink, Repeats, MAX_DEPTH, MAX_INTEGER_DIGITS};
use num_bigint::BigInt;
use rustler::sys::{self, ErlNifTerm};
use rustler::types::tuple::make_tuple;
use rustler::{Binary, Encoder, Env, Error, NewBinary, NifResult, Resource, ResourceArc, Term, TermType};
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
/// 50-250 MB/s, i.e. 64 KiB in 0.25-1.3 ms), rounded to the nearest
/// percent, the VM's unit (655 bytes). A call of under 328 bytes is charged
/// nothing beyond the reductions of the calls that made it: its work, a
/// microsecond or two, is what those reductions stand for. (Rounding every
/// call up to a whole percent charged a 189-byte request some 3.5 times its
/// bytes, and measured a fifth slower.)
pub fn charge_timeslice(env: Env<'_>, bytes: usize) {
    let percent = (bytes.saturating_mul(100).saturating_add(65536 / 2) / 65536).min(100) as i32;
    if percent > 0 {
        rustler::schedule::consume_timeslice(env, percent);
    }
}

/// Where a call continues after `enif_schedule_nif`.
pub enum Continuation {
    Normal,
    Dirty,
}

/// Ends this call and continues with `fun(args)` (terms of this call's env,
/// which the VM keeps for the continuation) on the given scheduler kind.
pub fn reschedule<'a>(
    env: Env<'a>,
    name: &'static std::ffi::CStr,
    on: Continuation,
    fun: unsafe extern "C" fn(*mut sys::ErlNifEnv, std::os::raw::c_int, *const ErlNifTerm) -> ErlNifTerm,
    args: &[ErlNifTerm],
) -> Term<'a> {
    let flags = match on {
        Continuation::Normal => 0,
        Continuation::Dirty => sys::ERL_NIF_DIRTY_JOB_CPU_BOUND as std::os::raw::c_int,
    };
    // SAFETY: a valid env, a static name, and `args.len()` terms of this env.
    let scheduled =
        unsafe { sys::enif_schedule_nif(env.as_c_arg(), name.as_ptr(), flags, fun, args.len() as std::os::raw::c_int, args.as_ptr()) };
    // SAFETY: the VM's answer for this env, to be returned as is.
    unsafe { Term::new(env, scheduled) }
}

/// Runs a continuation's body: `badarg` when it answers `None` (arguments
/// that no step of ours made) or panics.
pub fn guarded<'a>(env: Env<'a>, body: impl FnOnce() -> Option<Term<'a>>) -> ErlNifTerm {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Some(term)) => term.as_c_arg(),
        // SAFETY: a valid env.
        _ => unsafe { sys::enif_make_badarg(env.as_c_arg()) },
    }
}

/// `{corruption_report, Offset, Reason}`.
pub fn corruption_report_term<'a>(env: Env<'a>, report: &CorruptionReport) -> Term<'a> {
    make_tuple(
        env,
        &[atoms::corruption_report().encode(env), report.offset.encode(env), binary_term(env, report.reason.as_bytes())],
    )
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

    pub fn cons(&self, head: ErlNifTerm, tail: ErlNifTerm) -> ErlNifTerm {
        // SAFETY: as for `tuple`.
        unsafe { sys::enif_make_list_cell(self.env.as_c_arg(), head, tail) }
    }

    pub fn nil(&self) -> ErlNifTerm {
        Term::list_new_empty(self.env).as_c_arg()
    }

    /// `{Tag, Payload}`.
    pub fn tagged(&self, tag: rustler::Atom, payload: ErlNifTerm) -> ErlNifTerm {
        self.tuple(&[self.atom(tag), payload])
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
        self.string_bytes(value.as_bytes())
    }
    /// `{string, Binary}` of bytes the caller knows to be UTF-8.
    fn string_bytes(&self, value: &[u8]) -> ErlNifTerm {
        self.tuple(&[self.atom(atoms::string()), self.binary(value)])
    }
    /// `{string, Binary}` whose binary is `value`'s own memory, kept by a
    /// resource (no copy).
    pub fn owned_string(&self, value: String) -> ErlNifTerm {
        self.tuple(&[self.atom(atoms::string()), owned_binary(self.env, value).as_c_arg()])
    }
    pub fn array(&self, items: &[ErlNifTerm]) -> ErlNifTerm {
        self.tuple(&[self.atom(atoms::array()), self.list(items)])
    }
    /// `{object, [{Key, Value}]}` from members given in wire order.
    pub fn object<I>(&self, members: I) -> ErlNifTerm
    where
        I: DoubleEndedIterator<Item = (ErlNifTerm, ErlNifTerm)>,
    {
        self.tagged(atoms::object(), self.members(members))
    }

    /// `[{Key, Value}]` from members given in wire order.
    pub fn members<I>(&self, members: I) -> ErlNifTerm
    where
        I: DoubleEndedIterator<Item = (ErlNifTerm, ErlNifTerm)>,
    {
        members.rev().fold(self.nil(), |list, (key, value)| self.cons(self.tuple(&[key, value]), list))
    }
}

/// A binary term whose bytes are `value`'s own memory, kept by a resource
/// (no copy). For long texts: the resource and its binary cost a few hundred
/// bytes, and a text of 64 KiB or more is in a block of the VM's allocator
/// (`beam_alloc`), so `erlang:memory/0` counts it.
pub fn owned_binary(env: Env<'_>, mut value: String) -> Term<'_> {
    value.shrink_to_fit();
    let text = ResourceArc::new(OwnedText(value));
    text.make_binary(env, |text| text.0.as_bytes()).to_term(env)
}

/// A long string's text, owned by the binary term made from it.
pub struct OwnedText(String);

#[rustler::resource_impl]
impl Resource for OwnedText {}

/// Builds `json()` terms as the parser reports values (raw terms, wrapped
/// once at the end).
pub struct TermSink<'a> {
    build: TermBuilder<'a>,
    /// Keys and short `{string, _}` values made so far, handed out again
    /// for a repeat (`with_repeats`); terms of this call's env only.
    repeats: Option<(Repeats<ErlNifTerm>, Repeats<ErlNifTerm>)>,
}

impl<'a> TermSink<'a> {
    pub fn new(env: Env<'a>) -> TermSink<'a> {
        TermSink { build: TermBuilder::new(env), repeats: None }
    }

    /// A sink that makes each short key and string once per call and
    /// shares it (`mcp_core::json::Repeats`): the same `json()` value with
    /// less heap, worth its two tables on inputs of a few KiB and more.
    pub fn with_repeats(env: Env<'a>) -> TermSink<'a> {
        TermSink { build: TermBuilder::new(env), repeats: Some((Repeats::new(), Repeats::new())) }
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
        let build = self.build;
        match &mut self.repeats {
            Some((_, strings)) => strings.get_or_make(value.as_bytes(), |bytes| build.string_bytes(bytes)),
            None => build.string_bytes(value.as_bytes()),
        }
    }
    const KEEPS_STRINGS: bool = true;
    fn string_owned(&mut self, value: String) -> ErlNifTerm {
        self.build.owned_string(value)
    }
    fn key(&mut self, value: &str) -> ErlNifTerm {
        let build = self.build;
        match &mut self.repeats {
            Some((keys, _)) => keys.get_or_make(value.as_bytes(), |bytes| build.binary(bytes)),
            None => build.binary(value.as_bytes()),
        }
    }
    fn array(&mut self, items: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        self.build.array(items.as_slice())
    }
    fn object(&mut self, keys: Drain<'_, ErlNifTerm>, values: Drain<'_, ErlNifTerm>) -> ErlNifTerm {
        self.build.object(keys.zip(values))
    }
}

/// The elements of a list term, one `badarg` for an improper list.
/// Cloning it is O(1): a clone walks the same cells again.
/// (rustler's `ListIterator` panics on an improper list; never use it on
/// caller-supplied terms.)
#[derive(Clone)]
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
    /// An integer outside `i64`, not yet read: see [`IntReader`].
    BigInt(Term<'a>),
    Float(f64),
    /// A binary's bytes, not yet checked as UTF-8 ([`text`]): a caller with
    /// a work budget measures them first.
    String(&'a [u8]),
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
            Ok(JsonTerm::String(bytes(payload)?))
        } else if is(atoms::int()) && payload.is_integer() {
            match payload.decode::<i64>() {
                Ok(small) => Ok(JsonTerm::Int(small)),
                Err(_) => Ok(JsonTerm::BigInt(payload)),
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

/// The bytes of a binary term (read in place, O(1)), else `badarg`.
pub fn bytes(term: Term<'_>) -> NifResult<&[u8]> {
    Ok(term.decode::<Binary>()?.as_slice())
}

/// Bytes that are valid UTF-8, else `badarg`.
pub fn text(bytes: &[u8]) -> NifResult<&str> {
    std::str::from_utf8(bytes).map_err(|_| Error::BadArg)
}

/// A binary holding valid UTF-8, else `badarg`.
pub fn utf8_binary(term: Term<'_>) -> NifResult<&str> {
    text(bytes(term)?)
}

/// An object member `{Key, Value}`: the key's bytes (UTF-8 not yet checked).
pub fn member(term: Term<'_>) -> NifResult<(&[u8], Term<'_>)> {
    let (key, value) = pair(term)?;
    Ok((bytes(key)?, value))
}

/// Where an integer outside `i64` lies relative to `i128` (`Below` includes
/// `i128::MIN`).
pub enum WideInt {
    Fits(i128),
    Above,
    Below,
}

/// Reads integer terms outside `i64` without copying them first. rustler's
/// `i128` and `BigInt` decoders start with `enif_term_to_binary`, a copy of
/// the whole bignum (and `BigInt`'s decimal conversion is quadratic), so a
/// hand-built `1 bsl 16000000` would be read in full before any limit is
/// checked. Here a bignum is first compared (`enif_compare`) with bound
/// terms built once per call; comparing integers of different sizes looks
/// at their sizes only, so refusing a huge one costs O(1).
pub struct IntReader<'a> {
    env: Env<'a>,
    /// i128::MIN and i128::MAX as terms.
    i128_bounds: Option<(Term<'a>, Term<'a>)>,
    /// -(10^MAX_INTEGER_DIGITS) and 10^MAX_INTEGER_DIGITS as terms.
    digit_bounds: Option<(Term<'a>, Term<'a>)>,
}

impl<'a> IntReader<'a> {
    pub fn new(env: Env<'a>) -> IntReader<'a> {
        IntReader { env, i128_bounds: None, digit_bounds: None }
    }

    /// An integer term's value if it fits `i128`, else its side.
    pub fn wide(&mut self, term: Term<'a>) -> NifResult<WideInt> {
        if !term.is_integer() {
            return Err(Error::BadArg);
        }
        let env = self.env;
        let (min, max) = *self
            .i128_bounds
            .get_or_insert_with(|| (BigInt::from(i128::MIN).encode(env), BigInt::from(i128::MAX).encode(env)));
        // i128::MIN itself counts as below: rustler's i128 decoder negates
        // its magnitude, which overflows for that one value.
        Ok(if term > max {
            WideInt::Above
        } else if term <= min {
            WideInt::Below
        } else {
            WideInt::Fits(term.decode()?)
        })
    }

    /// The value of an integer term of at most `MAX_INTEGER_DIGITS` decimal
    /// digits (what the JSON decoder accepts), else `badarg`.
    pub fn json_big_int(&mut self, term: Term<'a>) -> NifResult<BigInt> {
        if !term.is_integer() {
            return Err(Error::BadArg);
        }
        let env = self.env;
        let (below, above) = *self.digit_bounds.get_or_insert_with(|| {
            let bound = BigInt::from(10u32).pow(MAX_INTEGER_DIGITS as u32);
            ((-&bound).encode(env), bound.encode(env))
        });
        if term >= above || term <= below {
            return Err(Error::BadArg);
        }
        term.decode()
    }
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

/// A `json()` term as a core [`Json`] value (for the codecs that interpret
/// JSON rather than just move it); `badarg` outside `json()` or too deep.
pub fn json_from_term(term: Term<'_>) -> NifResult<Json> {
    json_from_term_at(term, 0, &mut IntReader::new(term.get_env()))
}

fn json_from_term_at<'a>(term: Term<'a>, depth: usize, ints: &mut IntReader<'a>) -> NifResult<Json> {
    Ok(match JsonTerm::classify(term)? {
        JsonTerm::Null => Json::Null,
        JsonTerm::Bool(value) => Json::Bool(value),
        JsonTerm::Int(value) => Json::Int(value),
        JsonTerm::BigInt(value) => Json::from_big_int(ints.json_big_int(value)?),
        JsonTerm::Float(value) => Json::Float(value),
        JsonTerm::String(bytes) => Json::String(text(bytes)?.to_owned()),
        JsonTerm::Array(items) => {
            if depth == MAX_DEPTH {
                return Err(Error::BadArg);
            }
            Json::Array(items.map(|item| json_from_term_at(item?, depth + 1, ints)).collect::<NifResult<_>>()?)
        }
        JsonTerm::Object(members) => {
            if depth == MAX_DEPTH {
                return Err(Error::BadArg);
            }
            let members = members
                .map(|entry| {
                    let (key, value) = member(entry?)?;
                    Ok((text(key)?.to_owned(), json_from_term_at(value, depth + 1, ints)?))
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
