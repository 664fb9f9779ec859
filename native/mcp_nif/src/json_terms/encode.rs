//! `mcp_json:encode/1` in steps on the caller's scheduler.
//!
//! The walk reads terms with raw `enif_*` calls (tags compared as words,
//! list cells walked directly) and writes into a [`BinaryOutput`]: the
//! thread's reused scratch buffer while the text is short (copied into its
//! binary at the end), then a binary the VM will own (handed over without a
//! copy). Each step writes within
//! a [`Budget`] (output bytes, values); a string or key is measured before
//! its UTF-8 check and copy, a big integer is charged before it is read.
//! When the budget is spent the output moves into a resource and the walk
//! continues through `enif_schedule_nif` with what is left as Erlang terms
//! (each open container's unread list tail): no raw term is kept outside a
//! call. One string or key longer than a whole step's bytes is written on
//! a dirty CPU scheduler, which finishes the term.

use super::{reschedule, Continuation, IntReader, WideInt};
use crate::atoms;
use mcp_core::json::{self, Budget, Output, BIG_INT_WEIGHT, MAX_DEPTH, MAX_INTEGER_DIGITS};
use num_bigint::BigInt;
use rustler::sys::{self, ErlNifBinary, ErlNifEnv, ErlNifTerm};
use rustler::{Encoder, Env, OwnedBinary, Resource, ResourceArc, Term};
use std::os::raw::c_int;
use std::sync::Mutex;

/// Encodes `value` (plus `\n` when `newline`), `budget` per step; `None`
/// for a term outside `json()` (the caller raises `badarg`).
pub fn start<'a>(env: Env<'a>, value: Term<'a>, newline: bool, budget: Budget) -> Option<Term<'a>> {
    let walk = Walk { frames: Walk::spare_frames(), next: Some(value.as_c_arg()) };
    step(env, walk, BinaryOutput::new(), None, newline, budget)
}

/// Output bytes a string, key or integer may cost before it is read.
const I128_DIGITS: usize = 40;

/// One open container: the unread rest of its list.
struct Frame {
    rest: ErlNifTerm,
    object: bool,
    first: bool,
}

/// Where the walk is: open containers, and the value to write next
/// (`None`: go on with the innermost container).
struct Walk {
    frames: Vec<Frame>,
    next: Option<ErlNifTerm>,
}

thread_local! {
    /// The frame stack of the thread's last walk, emptied, for the next one
    /// (at most `MAX_DEPTH` frames: a few KiB).
    static SPARE_FRAMES: std::cell::Cell<Vec<Frame>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Walk {
    /// An empty frame stack, without allocating when the thread has one.
    fn spare_frames() -> Vec<Frame> {
        SPARE_FRAMES.take()
    }
}

impl Drop for Walk {
    fn drop(&mut self) {
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        SPARE_FRAMES.set(frames);
    }
}

enum Stop {
    BadArg,
    /// The budget is spent; `progressed` as in `mcp_core::json::Step`.
    Paused { progressed: bool },
}

fn step<'a>(
    env: Env<'a>,
    mut walk: Walk,
    mut out: BinaryOutput,
    resource: Option<ResourceArc<PendingOutput>>,
    newline: bool,
    budget: Budget,
) -> Option<Term<'a>> {
    let written_before = out.len;
    let mut writer = Writer::new(env, &mut out, budget);
    let outcome = writer.walk(&mut walk);
    if budget != Budget::UNLIMITED {
        super::charge_timeslice(env, out.len - written_before);
    }
    match outcome {
        Ok(()) => {
            if newline {
                out.push(b'\n');
            }
            Some(out.finish(env))
        }
        Err(Stop::BadArg) => None,
        Err(Stop::Paused { progressed }) => {
            let resource = resource.unwrap_or_else(|| ResourceArc::new(PendingOutput(Mutex::new(None))));
            *resource.0.lock().ok()? = Some(out);
            let (continuation, next) =
                if progressed { (Continuation::Normal, budget) } else { (Continuation::Dirty, Budget::UNLIMITED) };
            let args = [
                resource.encode(env).as_c_arg(),
                walk_term(env, &walk),
                newline.encode(env).as_c_arg(),
                (next.bytes, next.values).encode(env).as_c_arg(),
            ];
            Some(reschedule(env, c"json_encode_step", continuation, encode_step, &args))
        }
    }
}

/// The output of a paused encode, between its steps.
pub struct PendingOutput(Mutex<Option<BinaryOutput>>);

#[rustler::resource_impl]
impl Resource for PendingOutput {}

/// The continuation: `[Output, Walk, Newline, {Bytes, Values}]`.
unsafe extern "C" fn encode_step(raw_env: *mut ErlNifEnv, argc: c_int, argv: *const ErlNifTerm) -> ErlNifTerm {
    let marker = ();
    // SAFETY: the VM calls this with a valid env for the call.
    let env = unsafe { Env::new(&marker, raw_env) };
    super::guarded(env, || {
        if argc != 4 {
            return None;
        }
        // SAFETY: argc terms are readable at argv, all of this env.
        let arg = |at: usize| unsafe { Term::new(env, *argv.add(at)) };
        let resource = arg(0).decode::<ResourceArc<PendingOutput>>().ok()?;
        let out = resource.0.lock().ok()?.take()?;
        let walk = read_walk(env, arg(1).as_c_arg())?;
        let newline = arg(2).decode::<bool>().ok()?;
        let (bytes, values) = arg(3).decode::<(usize, usize)>().ok()?;
        step(env, walk, out, Some(resource), newline, Budget { bytes, values })
    })
}

/// `{[{Rest, IsObject, IsFirst}], {Next} | []}`, innermost frame first.
fn walk_term(env: Env<'_>, walk: &Walk) -> ErlNifTerm {
    let raw = Raw::new(env);
    let frames = walk.frames.iter().fold(raw.nil(), |list, frame| {
        let flags = [frame.object.encode(env).as_c_arg(), frame.first.encode(env).as_c_arg()];
        raw.cons(raw.tuple(&[frame.rest, flags[0], flags[1]]), list)
    });
    let next = walk.next.map_or(raw.nil(), |value| raw.tuple(&[value]));
    raw.tuple(&[frames, next])
}

fn read_walk(env: Env<'_>, term: ErlNifTerm) -> Option<Walk> {
    let raw = Raw::new(env);
    let [frames_term, next] = raw.elements::<2>(term)?;
    let mut frames = Walk::spare_frames();
    let mut rest = frames_term;
    while let Some((frame, tail)) = raw.cell(rest) {
        let [list, object, first] = raw.elements::<3>(frame)?;
        // SAFETY: terms of this env.
        let flag = |t: ErlNifTerm| unsafe { Term::new(env, t) }.decode::<bool>().ok();
        frames.push(Frame { rest: list, object: flag(object)?, first: flag(first)? });
        rest = tail;
    }
    if frames.len() > MAX_DEPTH {
        return None;
    }
    frames.reverse();
    let next = if raw.is_nil(next) { None } else { Some(raw.elements::<1>(next)?[0]) };
    Some(Walk { frames, next })
}

/// Raw term access: every read is one `enif_*` call, atoms are words.
#[derive(Clone, Copy)]
struct Raw {
    env: *mut ErlNifEnv,
    nil: ErlNifTerm,
}

impl Raw {
    fn new(env: Env<'_>) -> Raw {
        Raw { env: env.as_c_arg(), nil: Term::list_new_empty(env).as_c_arg() }
    }

    fn elements<const N: usize>(&self, tuple: ErlNifTerm) -> Option<[ErlNifTerm; N]> {
        let mut arity: c_int = 0;
        let mut elements: *const ErlNifTerm = std::ptr::null();
        // SAFETY: a valid env and term; on success `elements` points at `arity` terms.
        let is_tuple = unsafe { sys::enif_get_tuple(self.env, tuple, &mut arity, &mut elements) };
        if is_tuple == 0 || arity as usize != N {
            return None;
        }
        // SAFETY: arity is N.
        Some(std::array::from_fn(|at| unsafe { *elements.add(at) }))
    }

    fn cell(&self, list: ErlNifTerm) -> Option<(ErlNifTerm, ErlNifTerm)> {
        let (mut head, mut tail) = (self.nil(), self.nil());
        // SAFETY: a valid env and term; only the out-parameters are written.
        let is_cell = unsafe { sys::enif_get_list_cell(self.env, list, &mut head, &mut tail) };
        (is_cell != 0).then_some((head, tail))
    }

    fn is_nil(&self, term: ErlNifTerm) -> bool {
        // `[]` is an immediate: one word, compared as such.
        term == self.nil
    }

    fn nil(&self) -> ErlNifTerm {
        self.nil
    }

    fn cons(&self, head: ErlNifTerm, tail: ErlNifTerm) -> ErlNifTerm {
        // SAFETY: a valid env and terms of it.
        unsafe { sys::enif_make_list_cell(self.env, head, tail) }
    }

    fn tuple(&self, elements: &[ErlNifTerm]) -> ErlNifTerm {
        // SAFETY: a valid env and terms of it.
        unsafe { sys::enif_make_tuple_from_array(self.env, elements.as_ptr(), elements.len() as u32) }
    }

    /// A binary's bytes (the term keeps them alive for the call).
    fn bytes<'t>(&self, term: ErlNifTerm) -> Option<&'t [u8]> {
        let mut binary = std::mem::MaybeUninit::<ErlNifBinary>::uninit();
        // SAFETY: a valid env and term; on success `binary` describes bytes
        // owned by the term, readable for this call.
        unsafe {
            if sys::enif_inspect_binary(self.env, term, binary.as_mut_ptr()) == 0 {
                return None;
            }
            let binary = binary.assume_init();
            Some(if binary.size == 0 { &[] } else { std::slice::from_raw_parts(binary.data, binary.size) })
        }
    }

    fn int64(&self, term: ErlNifTerm) -> Option<i64> {
        let mut value: i64 = 0;
        // SAFETY: a valid env and term.
        (unsafe { sys::enif_get_int64(self.env, term, &mut value) } != 0).then_some(value)
    }

    fn double(&self, term: ErlNifTerm) -> Option<f64> {
        let mut value: f64 = 0.0;
        // SAFETY: a valid env and term; only floats are read (not integers).
        (unsafe { sys::enif_get_double(self.env, term, &mut value) } != 0).then_some(value)
    }
}

/// The tags of `json()` as words, read once per step.
#[derive(Clone, Copy)]
struct Tags {
    null: ErlNifTerm,
    bool: ErlNifTerm,
    int: ErlNifTerm,
    float: ErlNifTerm,
    string: ErlNifTerm,
    array: ErlNifTerm,
    object: ErlNifTerm,
    true_: ErlNifTerm,
    false_: ErlNifTerm,
}

struct Writer<'o, 'a> {
    env: Env<'a>,
    raw: Raw,
    tags: Tags,
    out: &'o mut BinaryOutput,
    ints: IntReader<'a>,
    budget: Budget,
    /// Output bytes this step may still write before it pauses.
    bytes_left: usize,
    values_left: usize,
}

impl<'o, 'a> Writer<'o, 'a> {
    fn new(env: Env<'a>, out: &'o mut BinaryOutput, budget: Budget) -> Self {
        let word = |atom: rustler::Atom| atom.as_c_arg();
        Writer {
            env,
            raw: Raw::new(env),
            tags: Tags {
                null: word(atoms::null()),
                bool: word(atoms::bool()),
                int: word(atoms::int()),
                float: word(atoms::float()),
                string: word(atoms::string()),
                array: word(atoms::array()),
                object: word(atoms::object()),
                true_: word(rustler::types::atom::true_()),
                false_: word(rustler::types::atom::false_()),
            },
            out,
            ints: IntReader::new(env),
            budget,
            bytes_left: budget.bytes,
            values_left: budget.values,
        }
    }

    /// Charges `bytes` of output and `values` before they are read;
    /// `Paused` when this step cannot afford them.
    fn charge(&mut self, bytes: usize, values: usize) -> Result<(), Stop> {
        if bytes > self.bytes_left || values > self.values_left {
            let progressed = self.bytes_left < self.budget.bytes || self.values_left < self.budget.values;
            return Err(Stop::Paused { progressed });
        }
        self.bytes_left -= bytes;
        self.values_left -= values;
        Ok(())
    }

    fn walk(&mut self, walk: &mut Walk) -> Result<(), Stop> {
        loop {
            if let Some(value) = walk.next {
                self.value(walk, value)?;
                continue;
            }
            let Some(frame) = walk.frames.last_mut() else { return Ok(()) };
            let Some((head, tail)) = self.raw.cell(frame.rest) else {
                if !self.raw.is_nil(frame.rest) {
                    return Err(Stop::BadArg);
                }
                self.out.push(if frame.object { b'}' } else { b']' });
                walk.frames.pop();
                continue;
            };
            let comma = usize::from(!frame.first);
            if frame.object {
                let [key, value] = self.raw.elements::<2>(head).ok_or(Stop::BadArg)?;
                let key = self.raw.bytes(key).ok_or(Stop::BadArg)?;
                self.charge(key.len() + 4, 1)?;
                if comma == 1 {
                    self.out.push(b',');
                }
                json::write_utf8_string(self.out, key).map_err(|_| Stop::BadArg)?;
                self.out.push(b':');
                walk.next = Some(value);
            } else {
                if comma == 1 {
                    self.out.push(b',');
                }
                walk.next = Some(head);
            }
            frame.first = false;
            frame.rest = tail;
        }
    }

    /// Writes one value (a container: its opening bracket, and a frame).
    fn value(&mut self, walk: &mut Walk, value: ErlNifTerm) -> Result<(), Stop> {
        let tags = self.tags;
        if value == tags.null {
            self.charge(4, 1)?;
            self.out.extend(b"null");
            walk.next = None;
            return Ok(());
        }
        let [tag, payload] = self.raw.elements::<2>(value).ok_or(Stop::BadArg)?;
        if tag == tags.string {
            let text = self.raw.bytes(payload).ok_or(Stop::BadArg)?;
            self.charge(text.len() + 2, 1)?;
            json::write_utf8_string(self.out, text).map_err(|_| Stop::BadArg)?;
        } else if tag == tags.object || tag == tags.array {
            let object = tag == tags.object;
            if !self.raw.is_nil(payload) && self.raw.cell(payload).is_none() {
                return Err(Stop::BadArg);
            }
            if walk.frames.len() == MAX_DEPTH {
                return Err(Stop::BadArg);
            }
            self.charge(2, 1)?;
            self.out.push(if object { b'{' } else { b'[' });
            walk.frames.push(Frame { rest: payload, object, first: true });
        } else if tag == tags.int {
            self.int(payload)?;
        } else if tag == tags.float {
            let float = self.raw.double(payload).ok_or(Stop::BadArg)?;
            self.charge(24, 1)?;
            json::write_float(self.out, float).map_err(|_| Stop::BadArg)?;
        } else if tag == tags.bool && (payload == tags.true_ || payload == tags.false_) {
            self.charge(5, 1)?;
            self.out.extend(if payload == tags.true_ { b"true" } else { b"false" });
        } else {
            return Err(Stop::BadArg);
        }
        walk.next = None;
        Ok(())
    }

    fn int(&mut self, payload: ErlNifTerm) -> Result<(), Stop> {
        if let Some(small) = self.raw.int64(payload) {
            self.charge(20, 1)?;
            json::write_int(self.out, small);
            return Ok(());
        }
        // SAFETY: a term of this env.
        let term = unsafe { Term::new(self.env, payload) };
        match self.ints.wide(term).map_err(|_| Stop::BadArg)? {
            WideInt::Fits(value) => {
                self.charge(I128_DIGITS, 1)?;
                json::write_big_int(self.out, &BigInt::from(value));
            }
            WideInt::Above | WideInt::Below => {
                // Its decimal conversion is quadratic: charged as many values.
                self.charge(MAX_INTEGER_DIGITS + 1, BIG_INT_WEIGHT)?;
                let value = self.ints.json_big_int(term).map_err(|_| Stop::BadArg)?;
                json::write_big_int(self.out, &value);
            }
        }
        Ok(())
    }
}

/// Where an encode writes. It starts in the thread's scratch buffer
/// ([`SCRATCH_BYTES`], reused from call to call, so a small encode
/// allocates only its binary, copied from it at the end); a text that
/// outgrows it moves once into a binary the VM will own, grown by doubling,
/// shrunk to its length and handed over without a copy. The scratch buffer
/// is the one buffer a thread keeps, and it is bounded.
pub struct BinaryOutput {
    store: Store,
    /// The start of `store`'s buffer and its size: `len` bytes written,
    /// the rest free. (Both buffers are on the heap: moving `self` does not
    /// move them.)
    room: *mut u8,
    capacity: usize,
    len: usize,
}

// SAFETY: `room` points into memory `store` owns, which moves between
// threads with it (a paused encode may resume on another scheduler).
unsafe impl Send for BinaryOutput {}

enum Store {
    /// The written bytes are the first `len` bytes of the buffer's spare
    /// capacity (its own length stays 0: all of it is ours to write).
    Scratch(Vec<u8>),
    Binary(OwnedBinary),
}

/// Size of the buffer each thread keeps for its next encode.
const SCRATCH_BYTES: usize = 16 * 1024;

thread_local! {
    static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl BinaryOutput {
    fn new() -> BinaryOutput {
        let mut scratch = SCRATCH.take();
        scratch.clear();
        scratch.reserve_exact(SCRATCH_BYTES);
        let (room, capacity) = (scratch.as_mut_ptr(), scratch.capacity());
        BinaryOutput { store: Store::Scratch(scratch), room, capacity, len: 0 }
    }

    #[inline]
    fn make_room(&mut self, extra: usize) {
        if extra > self.capacity - self.len {
            self.grow(self.len + extra);
        }
    }

    #[cold]
    fn grow(&mut self, needed: usize) {
        let capacity = needed.max(self.capacity * 2);
        match &mut self.store {
            Store::Binary(binary) => {
                binary.realloc_or_copy(capacity);
            }
            Store::Scratch(buffer) => {
                let mut binary = OwnedBinary::new(capacity);
                // SAFETY: the first `len` bytes of the spare capacity were written.
                let written = unsafe { std::slice::from_raw_parts(buffer.as_ptr(), self.len) };
                binary.as_mut_slice()[..self.len].copy_from_slice(written);
                SCRATCH.set(std::mem::take(buffer));
                self.store = Store::Binary(binary);
            }
        }
        if let Store::Binary(binary) = &mut self.store {
            self.capacity = binary.len();
            self.room = binary.as_mut_slice().as_mut_ptr();
        }
    }

    fn finish(mut self, env: Env<'_>) -> Term<'_> {
        match std::mem::replace(&mut self.store, Store::Scratch(Vec::new())) {
            Store::Scratch(buffer) => {
                // SAFETY: the first `len` bytes of the spare capacity were written.
                let term = super::binary_term(env, unsafe { std::slice::from_raw_parts(buffer.as_ptr(), self.len) });
                SCRATCH.set(buffer);
                term
            }
            Store::Binary(mut binary) => {
                binary.realloc_or_copy(self.len);
                binary.release(env).to_term(env)
            }
        }
    }
}

impl Output for BinaryOutput {
    fn reserve(&mut self, extra: usize) {
        self.make_room(extra);
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        self.make_room(1);
        // SAFETY: room for one byte at `len` (made above).
        unsafe { *self.room.add(self.len) = byte };
        self.len += 1;
    }

    #[inline]
    fn extend(&mut self, bytes: &[u8]) {
        self.make_room(bytes.len());
        // SAFETY: room for `bytes.len()` bytes at `len` (made above), in a
        // buffer `bytes` is not part of.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.room.add(self.len), bytes.len()) };
        self.len += bytes.len();
    }

    #[inline]
    fn push_word(&mut self, word: [u8; 8], count: usize) {
        assert!(count <= word.len());
        self.make_room(word.len());
        // SAFETY: room for eight bytes at `len` (made above).
        unsafe { std::ptr::write_unaligned(self.room.add(self.len).cast::<[u8; 8]>(), word) };
        self.len += count;
    }
}
