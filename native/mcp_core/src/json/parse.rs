//! The total JSON parser. Iterative: containers live on an explicit stack
//! bounded by [`MAX_DEPTH`], so no input can overflow a native stack.
//!
//! The parser reports what it finds to a [`JsonSink`], which decides what a
//! value is: [`TreeSink`] builds [`Json`]; the NIF builds Erlang terms
//! directly, without an intermediate tree.

use super::{special_flags, special_mask16, Json, HIGHS, MAX_DEPTH, MAX_INTEGER_DIGITS, STRING_SPECIAL};
use num_bigint::BigInt;
use std::convert::Infallible;
use std::vec::Drain;

/// Why and where a byte string is not JSON. `offset` points at (or just
/// after) the first offending byte; `reason` is a short fixed phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("corrupt JSON at byte {offset}: {reason}")]
pub struct CorruptionReport {
    pub offset: usize,
    pub reason: &'static str,
}

/// Receives parsed values bottom-up. Containers arrive as drains of the
/// values (and keys) parsed since they opened, in wire order.
pub trait JsonSink {
    type Value;
    type Key;
    fn null(&mut self) -> Self::Value;
    fn bool(&mut self, value: bool) -> Self::Value;
    fn int(&mut self, value: i64) -> Self::Value;
    /// Only called for integers outside `i64`.
    fn big_int(&mut self, value: BigInt) -> Self::Value;
    fn float(&mut self, value: f64) -> Self::Value;
    fn string(&mut self, value: &str) -> Self::Value;
    /// Whether the sink keeps the strings it is given: then the parser hands
    /// a long unescaped string over by value ([`JsonSink::string_owned`])
    /// instead of copying it, and starts a new scratch buffer.
    const KEEPS_STRINGS: bool = false;
    /// Whether the sink reads the text of strings and keys at all: a sink
    /// that only validates (`false`) is given empty text for escaped
    /// strings, which the parser then checks without unescaping them.
    const READS_TEXT: bool = true;
    /// A long unescaped string, by value (only when `KEEPS_STRINGS`).
    fn string_owned(&mut self, value: String) -> Self::Value {
        self.string(&value)
    }
    fn key(&mut self, value: &str) -> Self::Key;
    fn array(&mut self, items: Drain<'_, Self::Value>) -> Self::Value;
    fn object(&mut self, keys: Drain<'_, Self::Key>, values: Drain<'_, Self::Value>) -> Self::Value;
}

/// Builds the [`Json`] tree.
pub struct TreeSink;

impl JsonSink for TreeSink {
    type Value = Json;
    type Key = String;
    fn null(&mut self) -> Json {
        Json::Null
    }
    fn bool(&mut self, value: bool) -> Json {
        Json::Bool(value)
    }
    fn int(&mut self, value: i64) -> Json {
        Json::Int(value)
    }
    fn big_int(&mut self, value: BigInt) -> Json {
        Json::from_big_int(value)
    }
    fn float(&mut self, value: f64) -> Json {
        Json::Float(value)
    }
    fn string(&mut self, value: &str) -> Json {
        Json::String(value.to_owned())
    }
    const KEEPS_STRINGS: bool = true;
    fn string_owned(&mut self, value: String) -> Json {
        Json::String(value)
    }
    fn key(&mut self, value: &str) -> String {
        value.to_owned()
    }
    fn array(&mut self, items: Drain<'_, Json>) -> Json {
        Json::Array(items.collect())
    }
    fn object(&mut self, keys: Drain<'_, String>, values: Drain<'_, Json>) -> Json {
        Json::Object(keys.zip(values).collect())
    }
}

/// Parses one JSON document (surrounding whitespace allowed) into a [`Json`].
pub fn parse(bytes: &[u8]) -> Result<Json, CorruptionReport> {
    parse_with(bytes, &mut TreeSink)
}

/// Parses one JSON document, reporting values to `sink`.
pub fn parse_with<S: JsonSink>(bytes: &[u8], sink: &mut S) -> Result<S::Value, CorruptionReport> {
    parse_within(bytes, sink, MAX_DEPTH)
}

/// [`parse_with`] for a document that sits inside another one: it may nest
/// at most `max_depth` containers (never more than [`MAX_DEPTH`]).
pub fn parse_within<S: JsonSink>(bytes: &[u8], sink: &mut S, max_depth: usize) -> Result<S::Value, CorruptionReport> {
    let mut parser: Parser<'_, S, Unsplit> = Parser::new(bytes, max_depth);
    loop {
        // An unlimited step only returns when the document is done (a
        // pause would simply continue here).
        if let Step::Done(value) = parser.run(sink, Budget::UNLIMITED)? {
            return Ok(value);
        }
    }
}

/// A sink whose containers can be split by a pause ([`Parser::suspend`]):
/// the members parsed before the pause are folded into one `Prefix`. A
/// split container is finished in steps too: its last members become the
/// `joined` part, and the prefix is moved onto it a bounded number of
/// members at a time ([`PausingSink::join`]), so no step does work in
/// proportion to the whole container.
pub trait PausingSink: JsonSink {
    /// A run of a container's members that outlives the parser (the NIF: a
    /// list term; a prefix is kept in reverse order).
    type Prefix;
    fn fold_array(&mut self, prefix: Option<Self::Prefix>, items: Drain<'_, Self::Value>) -> Self::Prefix;
    fn fold_object(
        &mut self,
        prefix: Option<Self::Prefix>,
        keys: Drain<'_, Self::Key>,
        values: Drain<'_, Self::Value>,
    ) -> Self::Prefix;
    /// The members after the last suspension, in order, as the start of
    /// the joined part.
    fn last_items(&mut self, items: Drain<'_, Self::Value>) -> Self::Prefix;
    fn last_members(&mut self, keys: Drain<'_, Self::Key>, values: Drain<'_, Self::Value>) -> Self::Prefix;
    /// Moves at most `most` members from the end of `prefix` to the front
    /// of `joined`; how many moved, and whether `prefix` is now empty.
    fn join(&mut self, prefix: &mut Self::Prefix, joined: &mut Self::Prefix, most: usize) -> (usize, bool);
    /// The container whose members are all in `joined`.
    fn finish(&mut self, object: bool, joined: Self::Prefix) -> Self::Value;
}

/// How a parse closes its containers: [`Unsplit`] for a parse that is never
/// suspended (its prefix type has no values, so every container is whole),
/// [`Split`] for a [`PausingSink`].
pub trait Closing<S: JsonSink> {
    type Prefix;
    /// The container of `frame`, whose closing bracket was just read, or
    /// `None` when it was split and is left to [`Closing::join`].
    fn close(sink: &mut S, frame: &mut Frame<Self::Prefix>, keys: Drain<'_, S::Key>, items: Drain<'_, S::Value>)
        -> Option<S::Value>;
    /// One bounded part of finishing a split container: at most `most`
    /// members; the container when it is done, and how many moved.
    fn join(sink: &mut S, frame: &mut Frame<Self::Prefix>, most: usize) -> (Option<S::Value>, usize);
}

/// Containers that are never split: there is no prefix to join.
pub enum Unsplit {}

impl<S: JsonSink> Closing<S> for Unsplit {
    type Prefix = Infallible;
    fn close(
        sink: &mut S,
        frame: &mut Frame<Infallible>,
        keys: Drain<'_, S::Key>,
        items: Drain<'_, S::Value>,
    ) -> Option<S::Value> {
        Some(if frame.object { sink.object(keys, items) } else { sink.array(items) })
    }
    fn join(sink: &mut S, frame: &mut Frame<Infallible>, _most: usize) -> (Option<S::Value>, usize) {
        // Never reached: nothing is ever split, so a container is whole.
        let mut none = Vec::new();
        let mut no_keys = Vec::new();
        let value = if frame.object { sink.object(no_keys.drain(..), none.drain(..)) } else { sink.array(none.drain(..)) };
        (Some(value), 0)
    }
}

/// Containers that a suspension may have split.
pub enum Split {}

impl<S: PausingSink> Closing<S> for Split {
    type Prefix = S::Prefix;
    fn close(sink: &mut S, frame: &mut Frame<S::Prefix>, keys: Drain<'_, S::Key>, items: Drain<'_, S::Value>) -> Option<S::Value> {
        if frame.prefix.is_none() {
            return Some(if frame.object { sink.object(keys, items) } else { sink.array(items) });
        }
        frame.joined = Some(if frame.object { sink.last_members(keys, items) } else { sink.last_items(items) });
        None
    }
    fn join(sink: &mut S, frame: &mut Frame<S::Prefix>, most: usize) -> (Option<S::Value>, usize) {
        let (moved, done) = match (&mut frame.prefix, &mut frame.joined) {
            (Some(prefix), Some(joined)) => sink.join(prefix, joined, most),
            _ => (0, true),
        };
        if !done {
            return (None, moved);
        }
        let joined = match frame.joined.take() {
            Some(joined) => joined,
            None if frame.object => sink.last_members(Vec::new().drain(..), Vec::new().drain(..)),
            None => sink.last_items(Vec::new().drain(..)),
        };
        (Some(sink.finish(frame.object, joined)), moved)
    }
}

/// How much one [`Parser::run`] may do before it pauses: input bytes (every
/// scan of a string, number or whitespace run stops at that many bytes past
/// where the run started) and values made (a big integer counts
/// [`BIG_INT_WEIGHT`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub bytes: usize,
    pub values: usize,
}

impl Budget {
    pub const UNLIMITED: Budget = Budget { bytes: usize::MAX, values: usize::MAX };
}

/// Values a big integer (19 to [`MAX_INTEGER_DIGITS`] digits) counts as in
/// a [`Budget`]: its decimal conversion is quadratic, about 100 us at the
/// limit, the time of some thousand small values.
pub const BIG_INT_WEIGHT: usize = 1024;

/// What one [`Parser::run`] ended with.
#[derive(Debug, PartialEq)]
pub enum Step<V> {
    Done(V),
    /// The budget is spent. `progressed` is false when the run could not
    /// take even its first step within the budget (one string, number or
    /// whitespace run longer than `Budget::bytes`): only an unlimited run
    /// gets past it.
    Paused { progressed: bool },
}

/// What the parser expects next; every state starts by skipping whitespace,
/// so a run can pause at the start of any of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A value.
    Value,
    /// A value or `]` (just after `[`).
    FirstItem,
    /// A key or `}` (just after `{`).
    FirstMember,
    /// A key (after `,` in an object).
    Key,
    /// The `:` after a key.
    Colon,
    /// `,` or the closing bracket after a value, or the end of the input.
    Separator,
    /// Nothing from the input: the innermost container's closing bracket
    /// was read, and its split members are being joined.
    Join,
}

/// An open container.
pub struct Frame<P> {
    object: bool,
    values_from: usize,
    keys_from: usize,
    /// The members before a suspension, folded by the sink.
    prefix: Option<P>,
    /// While a split container is finished ([`Expect::Join`]): the members
    /// joined so far.
    joined: Option<P>,
}

/// One open container of a suspended parse, outermost first.
pub struct SuspendedFrame<P, K> {
    pub object: bool,
    /// Its members so far (`None`: none yet).
    pub prefix: Option<P>,
    /// Its joined part, while it is being finished ([`Expect::Join`]).
    pub joined: Option<P>,
    /// An object's key whose value is not complete yet.
    pub key: Option<K>,
}

/// A paused parse with everything it built handed to the sink's own types,
/// so it can be kept outside the parser (the NIF keeps it as terms) and
/// resumed with [`Parser::resume`] on the same input.
pub struct Suspended<V, P, K> {
    pub pos: usize,
    pub expect: Expect,
    pub frames: Vec<SuspendedFrame<P, K>>,
    /// The whole document's value, when only trailing whitespace is left to
    /// check.
    pub done: Option<V>,
}

impl<V, P, K> Suspended<V, P, K> {
    /// Whether `expect` fits the innermost open container (and a finished
    /// document is only kept while its trailing whitespace is checked).
    fn is_consistent(&self) -> bool {
        let innermost = self.frames.last();
        let object = innermost.map(|frame| frame.object);
        let pending_key = innermost.is_some_and(|frame| frame.key.is_some());
        let keys_below = self.frames.iter().rev().skip(1).all(|frame| frame.object == frame.key.is_some());
        keys_below
            && match self.expect {
                Expect::Value => self.done.is_none() && (object != Some(true) || pending_key),
                Expect::FirstItem => self.done.is_none() && object == Some(false),
                Expect::FirstMember | Expect::Key => self.done.is_none() && object == Some(true) && !pending_key,
                Expect::Colon => self.done.is_none() && pending_key,
                Expect::Separator => (innermost.is_none() == self.done.is_some()) && !pending_key,
                Expect::Join => self.done.is_none() && innermost.is_some_and(|frame| frame.joined.is_some()),
            }
    }
}

/// A JSON parse that runs in budgeted steps ([`Parser::run`]) and can be
/// suspended between them. `C` is [`Unsplit`] for a plain parse, [`Split`]
/// for one that is suspended and resumed.
pub struct Parser<'b, S: JsonSink, C: Closing<S>> {
    reader: Reader<'b>,
    expect: Expect,
    max_depth: usize,
    frames: Vec<Frame<C::Prefix>>,
    values: Vec<S::Value>,
    keys: Vec<S::Key>,
}

/// Why a state stopped before its end: a fault in the input, or a scan that
/// reached the step's byte limit (the state is then retried from its start).
enum Halt {
    Fault(CorruptionReport),
    Overrun,
}

impl From<CorruptionReport> for Halt {
    fn from(report: CorruptionReport) -> Halt {
        Halt::Fault(report)
    }
}

impl<'b, S: JsonSink, C: Closing<S>> Parser<'b, S, C> {
    /// A parse of `bytes` that may nest at most `max_depth` containers
    /// (never more than [`MAX_DEPTH`]).
    pub fn new(bytes: &'b [u8], max_depth: usize) -> Self {
        Parser {
            reader: Reader { bytes, pos: 0, end: bytes.len(), scratch: Vec::new(), keep_text: S::READS_TEXT },
            expect: Expect::Value,
            max_depth: max_depth.min(MAX_DEPTH),
            // (room for a small message's stacks at its first container,
            // `Parser::room`: a few allocations per parse instead of one
            // per doubling, and none for the stacks of a scalar)
            frames: Vec::new(),
            values: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// Parses until the document is done, a fault, or the budget is spent.
    pub fn run(&mut self, sink: &mut S, budget: Budget) -> Result<Step<S::Value>, CorruptionReport> {
        let started_at = self.reader.pos;
        let byte_limit = started_at.saturating_add(budget.bytes);
        self.reader.end = byte_limit.min(self.reader.bytes.len());
        let mut made = 0usize;
        loop {
            let progressed = self.reader.pos > started_at || made > 0;
            if made >= budget.values || (self.reader.pos >= byte_limit && progressed) {
                return Ok(Step::Paused { progressed });
            }
            let state_from = self.reader.pos;
            match self.state(sink, &mut made, budget) {
                Ok(Some(value)) => return Ok(Step::Done(value)),
                Ok(None) => {}
                Err(Halt::Fault(report)) => return Err(report),
                Err(Halt::Overrun) => {
                    self.reader.pos = state_from;
                    return Ok(Step::Paused { progressed });
                }
            }
        }
    }

    /// Handles one `expect` state; `Some` when the document is done.
    fn state(&mut self, sink: &mut S, made: &mut usize, budget: Budget) -> Result<Option<S::Value>, Halt> {
        if self.expect == Expect::Join {
            self.join(sink, made, budget);
            return Ok(None);
        }
        let reader = &mut self.reader;
        reader.skip_whitespace()?;
        match self.expect {
            Expect::Join => {}
            Expect::Value => {
                let value = match reader.peek() {
                    None => return Err(reader.fault("unexpected end of input").into()),
                    Some(open @ (b'[' | b'{')) => {
                        if self.frames.len() >= self.max_depth {
                            return Err(reader.fault("nesting too deep").into());
                        }
                        reader.pos += 1;
                        let object = open == b'{';
                        self.room();
                        self.frames.push(Frame {
                            object,
                            values_from: self.values.len(),
                            keys_from: self.keys.len(),
                            prefix: None,
                            joined: None,
                        });
                        self.expect = if object { Expect::FirstMember } else { Expect::FirstItem };
                        return Ok(None);
                    }
                    Some(b'"') => match reader.string()? {
                        Text::Input(text) => sink.string(text),
                        Text::Scratch if S::KEEPS_STRINGS && reader.scratch.len() >= HANDOVER_BYTES => {
                            sink.string_owned(reader.take_scratch())
                        }
                        Text::Scratch => sink.string(reader.scratch_text()),
                    },
                    Some(b't') => reader.literal(b"true", sink.bool(true))?,
                    Some(b'f') => reader.literal(b"false", sink.bool(false))?,
                    Some(b'n') => reader.literal(b"null", sink.null())?,
                    Some(b'-' | b'0'..=b'9') => reader.number(sink, made)?,
                    Some(_) => return Err(reader.fault("unexpected character").into()),
                };
                self.complete(value, made);
            }
            Expect::FirstItem => {
                if reader.peek() == Some(b']') {
                    reader.pos += 1;
                    self.close(sink, made);
                } else {
                    self.expect = Expect::Value;
                }
            }
            Expect::FirstMember if reader.peek() == Some(b'}') => {
                reader.pos += 1;
                self.close(sink, made);
            }
            Expect::FirstMember | Expect::Key => {
                if reader.peek() != Some(b'"') {
                    let reason = if reader.peek().is_none() { "unexpected end of input" } else { "expected string key" };
                    return Err(reader.fault(reason).into());
                }
                let key = match reader.string()? {
                    Text::Input(text) => sink.key(text),
                    Text::Scratch => sink.key(reader.scratch_text()),
                };
                self.keys.push(key);
                self.expect = Expect::Colon;
            }
            Expect::Colon => match reader.peek() {
                Some(b':') => {
                    reader.pos += 1;
                    self.expect = Expect::Value;
                }
                None => return Err(reader.fault("unexpected end of input").into()),
                Some(_) => return Err(reader.fault("expected ':'").into()),
            },
            Expect::Separator => {
                let Some(frame) = self.frames.last() else {
                    if reader.pos != reader.bytes.len() {
                        return Err(reader.fault("trailing characters").into());
                    }
                    return Ok(self.values.pop());
                };
                let (next, close, expected) = if frame.object {
                    (Expect::Key, b'}', "expected ',' or '}'")
                } else {
                    (Expect::Value, b']', "expected ',' or ']'")
                };
                match reader.peek() {
                    Some(b',') => {
                        reader.pos += 1;
                        self.expect = next;
                    }
                    Some(byte) if byte == close => {
                        reader.pos += 1;
                        self.close(sink, made);
                    }
                    None => return Err(reader.fault("unexpected end of input").into()),
                    Some(_) => return Err(reader.fault(expected).into()),
                }
            }
        }
        Ok(None)
    }

    /// The stacks' first room, when the first container opens.
    fn room(&mut self) {
        if self.frames.capacity() == 0 {
            self.frames.reserve(8);
            self.values.reserve(32);
            self.keys.reserve(16);
        }
    }

    /// A value is complete: it joins its container (or is the document).
    fn complete(&mut self, value: S::Value, made: &mut usize) {
        *made += 1;
        self.values.push(value);
        self.expect = Expect::Separator;
    }

    /// One bounded part of finishing the innermost (split) container.
    fn join(&mut self, sink: &mut S, made: &mut usize, budget: Budget) {
        let Some(frame) = self.frames.last_mut() else {
            self.expect = Expect::Separator;
            return;
        };
        let (value, moved) = C::join(sink, frame, budget.values.saturating_sub(*made).max(1));
        *made += moved;
        if let Some(value) = value {
            self.frames.pop();
            self.complete(value, made);
        }
    }

    /// Closes the innermost container, whose closing bracket was just read
    /// (a split one goes on to [`Expect::Join`]).
    fn close(&mut self, sink: &mut S, made: &mut usize) {
        let Some(frame) = self.frames.last_mut() else { return };
        let items = self.values.drain(frame.values_from..);
        let keys = self.keys.drain(frame.keys_from.min(self.keys.len())..);
        match C::close(sink, frame, keys, items) {
            Some(value) => {
                self.frames.pop();
                self.complete(value, made);
            }
            None => self.expect = Expect::Join,
        }
    }
}

impl<'b, S: PausingSink> Parser<'b, S, Split> {
    /// Hands everything built so far to the sink's types: each open
    /// container's members folded into its prefix.
    pub fn suspend(mut self, sink: &mut S) -> Suspended<S::Value, S::Prefix, S::Key> {
        let mut frames = Vec::with_capacity(self.frames.len());
        while let Some(frame) = self.frames.pop() {
            let open_keys = self.keys.len() - frame.keys_from;
            let open_values = self.values.len() - frame.values_from;
            let key = if open_keys > open_values { self.keys.pop() } else { None };
            let items = self.values.drain(frame.values_from..);
            let prefix = if frame.joined.is_some() {
                frame.prefix
            } else if frame.object {
                Some(sink.fold_object(frame.prefix, self.keys.drain(frame.keys_from..), items))
            } else {
                Some(sink.fold_array(frame.prefix, items))
            };
            frames.push(SuspendedFrame { object: frame.object, prefix, joined: frame.joined, key });
        }
        frames.reverse();
        Suspended { pos: self.reader.pos, expect: self.expect, frames, done: self.values.pop() }
    }

    /// Continues a suspended parse of the same `bytes`. `None` when the
    /// state cannot belong to a parse of them (a position past the end, or
    /// more containers than `max_depth`).
    pub fn resume(bytes: &'b [u8], max_depth: usize, state: Suspended<S::Value, S::Prefix, S::Key>) -> Option<Self> {
        let mut parser = Parser::new(bytes, max_depth);
        if state.pos > bytes.len() || state.frames.len() > parser.max_depth || !state.is_consistent() {
            return None;
        }
        parser.reader.pos = state.pos;
        parser.expect = state.expect;
        for frame in state.frames {
            parser.frames.push(Frame {
                object: frame.object,
                values_from: parser.values.len(),
                keys_from: parser.keys.len(),
                prefix: frame.prefix,
                joined: frame.joined,
            });
            parser.keys.extend(frame.key);
        }
        parser.values.extend(state.done);
        Some(parser)
    }
}

/// Where a string's text is: borrowed from the input (no escapes), or
/// unescaped into the reader's scratch buffer.
enum Text<'a> {
    Input(&'a str),
    Scratch,
}

/// An unescaped string at least this long is handed to a sink that keeps
/// strings by value (`JsonSink::string_owned`) instead of by reference: the
/// sink saves a copy (for a 1 MB text, the copy and its fresh pages were
/// ~10% of the client's inbound path), and the scratch buffer starts again
/// empty. Shorter strings are cheaper to copy than to regrow the buffer.
const HANDOVER_BYTES: usize = 64 * 1024;

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Where this run's scans stop (`bytes.len()` when unlimited): a scan
    /// that reaches it before the input ends is an [`Halt::Overrun`].
    end: usize,
    /// Unescaped text: UTF-8 once a string using it is checked.
    scratch: Vec<u8>,
    /// Whether escaped strings are unescaped into `scratch` (their sink
    /// reads text); otherwise they are only checked and `scratch` stays
    /// empty.
    keep_text: bool,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn fault(&self, reason: &'static str) -> CorruptionReport {
        CorruptionReport { offset: self.pos, reason }
    }

    fn fault_at(offset: usize, reason: &'static str) -> CorruptionReport {
        CorruptionReport { offset, reason }
    }

    /// `Overrun` when a scan stopped at `cursor` only because of the run's
    /// limit.
    fn overran(&self, cursor: usize) -> Result<(), Halt> {
        if cursor >= self.end && self.end < self.bytes.len() {
            return Err(Halt::Overrun);
        }
        Ok(())
    }

    fn skip_whitespace(&mut self) -> Result<(), Halt> {
        let end = self.end;
        while self.pos < end && matches!(self.bytes[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
        self.overran(self.pos)
    }

    fn literal<V>(&mut self, word: &[u8], value: V) -> Result<V, CorruptionReport> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.fault("invalid literal"))
        }
    }

    /// The end of the run of plain string bytes from `cursor` (at most
    /// `self.end`), sixteen bytes at a time, and whether it holds a byte with
    /// its high bit set (not ASCII: its UTF-8 must be checked).
    fn plain_run(&self, mut cursor: usize) -> (usize, bool) {
        let bytes = &self.bytes[..self.end];
        let mut high_mask = 0u32;
        while let Some(chunk) = bytes.get(cursor..cursor + 16) {
            let (special, high) = special_mask16(chunk.try_into().unwrap_or(&[0; 16]));
            if special != 0 {
                let plain = special.trailing_zeros();
                high_mask |= high & ((1u32 << plain) - 1);
                return (cursor + plain as usize, high_mask != 0);
            }
            high_mask |= high;
            cursor += 16;
        }
        let mut high_bits = if high_mask != 0 { HIGHS } else { 0 };
        while let Some(chunk) = bytes.get(cursor..cursor + 8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            let flags = special_flags(word);
            if flags != 0 {
                let plain = flags.trailing_zeros() / 8;
                high_bits |= word & ((1u64 << (plain * 8)) - 1);
                return (cursor + plain as usize, high_bits & HIGHS != 0);
            }
            high_bits |= word;
            cursor += 8;
        }
        let mut tail_high_bits = 0u8;
        while cursor < bytes.len() && !STRING_SPECIAL[bytes[cursor] as usize] {
            tail_high_bits |= bytes[cursor];
            cursor += 1;
        }
        (cursor, high_bits & HIGHS != 0 || tail_high_bits >= 0x80)
    }

    /// A string starting at the opening quote. Borrows the input when the
    /// string has no escapes; otherwise unescapes into the scratch buffer.
    fn string(&mut self) -> Result<Text<'a>, Halt> {
        let bytes = self.bytes;
        let start = self.pos + 1;
        let (cursor, non_ascii) = self.plain_run(start);
        self.overran(cursor)?;
        match bytes.get(cursor) {
            Some(b'"') if !non_ascii => {
                self.pos = cursor + 1;
                // All ASCII: valid UTF-8 without a second pass.
                Ok(Text::Input(ascii_segment(&bytes[start..cursor])))
            }
            Some(b'"') => {
                self.pos = cursor + 1;
                Ok(utf8_segment(bytes, start, cursor).map(Text::Input)?)
            }
            Some(b'\\') => self.escaped_string(start, cursor, non_ascii),
            Some(_) => Err(Self::fault_at(cursor, "control character in string").into()),
            None => Err(Self::fault_at(cursor, "unterminated string").into()),
        }
    }

    /// A string with escapes, unescaped into the scratch buffer. Its UTF-8
    /// is checked once, over the input between the quotes (an escape is
    /// ASCII, so that is the same as checking each run between escapes),
    /// and only when a byte has its high bit set; a fault found later in
    /// the string is reported after any earlier invalid UTF-8.
    fn escaped_string(&mut self, start: usize, first_escape: usize, mut non_ascii: bool) -> Result<Text<'a>, Halt> {
        let bytes = self.bytes;
        let fault = |non_ascii: bool, report: CorruptionReport| -> Halt {
            let earlier = if non_ascii { utf8_segment(bytes, start, report.offset).err() } else { None };
            Halt::Fault(earlier.unwrap_or(report))
        };
        self.scratch.clear();
        let keep = self.keep_text;
        if keep {
            self.push_text(start, first_escape);
        }
        let mut cursor = first_escape;
        loop {
            // cursor is at a backslash
            let escape_at = cursor;
            let code = match bytes.get(cursor + 1) {
                Some(&code) => code,
                None => return Err(fault(non_ascii, Self::fault_at(cursor + 1, "unterminated string"))),
            };
            cursor += 2;
            let decoded = match code {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let unit = hex4(bytes, cursor).map_err(|report| fault(non_ascii, report))?;
                    cursor += 4;
                    let lone = || fault(non_ascii, Self::fault_at(escape_at, "lone surrogate escape"));
                    match unit {
                        0xD800..=0xDBFF => {
                            if bytes.get(cursor) != Some(&b'\\') || bytes.get(cursor + 1) != Some(&b'u') {
                                return Err(lone());
                            }
                            let low = hex4(bytes, cursor + 2).map_err(|report| fault(non_ascii, report))?;
                            if !(0xDC00..=0xDFFF).contains(&low) {
                                return Err(lone());
                            }
                            cursor += 6;
                            let scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            char::from_u32(scalar).ok_or_else(lone)?
                        }
                        0xDC00..=0xDFFF => return Err(lone()),
                        _ => char::from_u32(unit)
                            .ok_or_else(|| fault(non_ascii, Self::fault_at(escape_at, "invalid escape")))?,
                    }
                }
                _ => return Err(fault(non_ascii, Self::fault_at(escape_at, "invalid escape"))),
            };
            if keep {
                if decoded.is_ascii() {
                    self.scratch.push(decoded as u8);
                } else {
                    let mut encoded = [0u8; 4];
                    self.scratch.extend_from_slice(decoded.encode_utf8(&mut encoded).as_bytes());
                }
            }
            let segment_start = cursor;
            let segment_non_ascii;
            (cursor, segment_non_ascii) = self.plain_run(segment_start);
            self.overran(cursor)?;
            non_ascii |= segment_non_ascii;
            if keep {
                self.push_text(segment_start, cursor);
            }
            match bytes.get(cursor) {
                Some(b'"') => {
                    if non_ascii {
                        utf8_segment(bytes, start, cursor)?;
                    }
                    self.pos = cursor + 1;
                    return Ok(Text::Scratch);
                }
                Some(b'\\') => continue,
                Some(_) => return Err(fault(non_ascii, Self::fault_at(cursor, "control character in string"))),
                None => return Err(fault(non_ascii, Self::fault_at(cursor, "unterminated string"))),
            }
        }
    }

    /// Appends the input's `from..to` to the scratch buffer. Once the text
    /// outgrows [`HANDOVER_BYTES`], the buffer gets, in one reservation,
    /// room for the most the string can still need: the rest of this run's
    /// input (unescaping never lengthens text). A multi-megabyte text is
    /// then written into one allocation, not copied from buffer to buffer
    /// as it doubles (which, with its fresh pages, was half the time of
    /// decoding a 4 MiB text with escapes); a shorter one grows as usual.
    fn push_text(&mut self, from: usize, to: usize) {
        let needed = self.scratch.len() + (to - from);
        if needed > self.scratch.capacity() && needed >= HANDOVER_BYTES {
            self.scratch.reserve_exact(self.end - from);
        }
        self.scratch.extend_from_slice(&self.bytes[from..to]);
    }

    /// The scratch buffer as text: only called after [`Reader::string`]
    /// answered `Text::Scratch`, which it does only once the UTF-8 of the
    /// string is checked.
    fn scratch_text(&self) -> &str {
        // SAFETY: see above; the escapes' own bytes are encoded chars.
        unsafe { std::str::from_utf8_unchecked(&self.scratch) }
    }

    /// The scratch buffer handed over as a `String` (same condition as
    /// [`Reader::scratch_text`]), shrunk to the text: its reservation was
    /// the rest of the input ([`Reader::push_text`]), which a sink that
    /// keeps many long strings must not hold once per string. The reader
    /// starts a new buffer.
    fn take_scratch(&mut self) -> String {
        let mut text = std::mem::take(&mut self.scratch);
        text.shrink_to_fit();
        // SAFETY: as for `scratch_text`.
        unsafe { String::from_utf8_unchecked(text) }
    }

    /// A number literal; `made` is charged [`BIG_INT_WEIGHT`] for an
    /// integer beyond `i64`'s 18 safe digits.
    fn number<S: JsonSink>(&mut self, sink: &mut S, made: &mut usize) -> Result<S::Value, Halt> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut cursor = start;
        let negative = bytes[cursor] == b'-';
        if negative {
            cursor += 1;
        }
        // The digits' value as they are read (exact while they are at most
        // 19; only used then).
        let mut mantissa = 0u64;
        let digits_from = cursor;
        match bytes.get(cursor) {
            Some(b'0') => cursor += 1,
            Some(b'1'..=b'9') => (cursor, mantissa) = self.digits(cursor, mantissa)?,
            _ => return Err(Self::fault_at(cursor, "invalid number").into()),
        }
        let integer_digits = cursor - digits_from;
        let mut fraction_digits = 0;
        let mut is_float = false;
        if bytes.get(cursor) == Some(&b'.') {
            cursor += 1;
            if !matches!(bytes.get(cursor), Some(b'0'..=b'9')) {
                return Err(Self::fault_at(cursor, "invalid number").into());
            }
            let fraction_from = cursor;
            (cursor, mantissa) = self.digits(cursor, mantissa)?;
            fraction_digits = cursor - fraction_from;
            is_float = true;
        }
        let mut exponent = 0i64;
        if let Some(b'e' | b'E') = bytes.get(cursor) {
            cursor += 1;
            let exponent_negative = bytes.get(cursor) == Some(&b'-');
            if let Some(b'+' | b'-') = bytes.get(cursor) {
                cursor += 1;
            }
            if !matches!(bytes.get(cursor), Some(b'0'..=b'9')) {
                return Err(Self::fault_at(cursor, "invalid number").into());
            }
            let exponent_from = cursor;
            cursor = self.skip_digits(cursor)?;
            // (only a small exponent takes the fast path below)
            exponent = bytes[exponent_from..cursor.min(exponent_from + 4)]
                .iter()
                .fold(0i64, |acc, digit| acc * 10 + i64::from(digit - b'0'));
            if cursor - exponent_from > 4 {
                exponent = 100_000;
            }
            if exponent_negative {
                exponent = -exponent;
            }
            is_float = true;
        }
        self.pos = cursor;
        let text = &bytes[start..cursor];
        if !is_float {
            if integer_digits <= 18 {
                let magnitude = mantissa as i64;
                return Ok(sink.int(if negative { -magnitude } else { magnitude }));
            }
            if integer_digits > MAX_INTEGER_DIGITS {
                return Err(Self::fault_at(start, "integer too long").into());
            }
            *made += BIG_INT_WEIGHT;
            return match BigInt::parse_bytes(text, 10) {
                Some(big) => Ok(match i64::try_from(&big) {
                    Ok(small) => sink.int(small),
                    Err(_) => sink.big_int(big),
                }),
                None => Err(Self::fault_at(start, "invalid number").into()),
            };
        }
        if integer_digits + fraction_digits <= 19 {
            if let Some(float) = exact_float(mantissa, exponent - fraction_digits as i64) {
                return Ok(sink.float(if negative { -float } else { float }));
            }
        }
        // The grammar above only admits ASCII, so the text is valid UTF-8.
        let parsed = ascii_segment(text).parse::<f64>().ok();
        match parsed {
            Some(float) if float.is_finite() => Ok(sink.float(float)),
            Some(_) => Err(Self::fault_at(start, "number out of range").into()),
            None => Err(Self::fault_at(start, "invalid number").into()),
        }
    }

    /// [`Reader::skip_digits`], adding the digits to `value` (wrapping: a
    /// value of more than 19 digits is never used).
    fn digits(&self, mut cursor: usize, mut value: u64) -> Result<(usize, u64), Halt> {
        while cursor < self.end && self.bytes[cursor].is_ascii_digit() {
            value = value.wrapping_mul(10).wrapping_add(u64::from(self.bytes[cursor] - b'0'));
            cursor += 1;
        }
        self.overran(cursor)?;
        Ok((cursor, value))
    }

    /// The end of the run of digits from `cursor`, within the run's limit.
    fn skip_digits(&self, mut cursor: usize) -> Result<usize, Halt> {
        while cursor < self.end && self.bytes[cursor].is_ascii_digit() {
            cursor += 1;
        }
        self.overran(cursor)?;
        Ok(cursor)
    }
}

/// `mantissa * 10^exponent` when both are exact doubles (a mantissa below
/// 2^53 and |exponent| at most 22): one multiplication or division is then
/// the correctly rounded result (Clinger's fast path, the one the standard
/// library's parser takes first). `None` otherwise.
fn exact_float(mantissa: u64, exponent: i64) -> Option<f64> {
    const POWERS: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ];
    if mantissa >= 1 << 53 {
        return None;
    }
    let power = *POWERS.get(exponent.unsigned_abs() as usize)?;
    let value = mantissa as f64;
    Some(if exponent >= 0 { value * power } else { value / power })
}

fn utf8_segment(bytes: &[u8], from: usize, to: usize) -> Result<&str, CorruptionReport> {
    simdutf8::compat::from_utf8(&bytes[from..to])
        .map_err(|error| CorruptionReport { offset: from + error.valid_up_to(), reason: "invalid utf-8" })
}

fn ascii_segment(ascii: &[u8]) -> &str {
    debug_assert!(ascii.is_ascii());
    // SAFETY: the caller saw every byte below 0x80, and ASCII is UTF-8.
    unsafe { std::str::from_utf8_unchecked(ascii) }
}

fn hex4(bytes: &[u8], at: usize) -> Result<u32, CorruptionReport> {
    let mut unit = 0u32;
    for offset in at..at + 4 {
        let digit = match bytes.get(offset) {
            Some(&b) => (b as char).to_digit(16),
            None => return Err(CorruptionReport { offset, reason: "unterminated string" }),
        };
        match digit {
            Some(d) => unit = unit * 16 + d,
            None => return Err(CorruptionReport { offset, reason: "invalid unicode escape" }),
        }
    }
    Ok(unit)
}
