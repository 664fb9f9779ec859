//! One line's JSON-RPC envelope, read lazily: the top-level object is cut
//! into members, the small envelope members (`jsonrpc`, `id`, `method`) are
//! parsed, and `result`, `error` and `params` stay spans of the line until
//! the reader knows whether it needs them. A span nobody needs is validated
//! by [`SkipSink`], which builds nothing: dropping a message costs a scan,
//! not a decode. A `result` that is an object is cut into member spans in
//! the same scan ([`Envelope::result_members`]), so a reader can build one
//! member (a `tools/call` result's `structuredContent`) its own way.
//!
//! Invariants:
//! - Every byte of the line is validated exactly as [`json::parse`] would
//!   (by the span's own parse or by [`SkipSink`]) before any outcome other
//!   than a corruption report is returned, and every corruption report is
//!   the one [`json::parse`] gives for the whole line ([`canonical`]): the
//!   lazy reading is invisible in the faults.
//! - Member values may nest `MAX_DEPTH - 1` containers (the object around
//!   them is the first), as in a whole-line parse.
//! - Cutting is total: [`value_end`] finds where a value would end by
//!   bracket counting, and a span cut wrongly from malformed input fails its
//!   own parse, which sends the line to [`canonical`].

use super::{decode_id, Id, MessageFault};
use crate::json::{self, CorruptionReport, Json, JsonSink, TreeSink, MAX_DEPTH};
use num_bigint::BigInt;
use std::borrow::Cow;
use std::vec::Drain;

/// Validates without building anything; a value is its nesting depth.
pub struct SkipSink;

impl JsonSink for SkipSink {
    type Value = usize;
    type Key = ();
    const READS_TEXT: bool = false;
    fn null(&mut self) -> usize {
        0
    }
    fn bool(&mut self, _: bool) -> usize {
        0
    }
    fn int(&mut self, _: i64) -> usize {
        0
    }
    fn big_int(&mut self, _: BigInt) -> usize {
        0
    }
    fn float(&mut self, _: f64) -> usize {
        0
    }
    fn string(&mut self, _: &str) -> usize {
        0
    }
    fn key(&mut self, _: &str) {}
    fn array(&mut self, items: Drain<'_, usize>) -> usize {
        1 + items.max().unwrap_or(0)
    }
    fn object(&mut self, _keys: Drain<'_, ()>, values: Drain<'_, usize>) -> usize {
        1 + values.max().unwrap_or(0)
    }
}

/// A member's bytes, a slice of the line.
#[derive(Debug, Clone, Copy)]
pub struct Span<'a> {
    pub bytes: &'a [u8],
}

/// An object member: its key's span and its value's span.
pub type Member<'a> = (Span<'a>, Span<'a>);

/// The envelope members of one line, each seen at most once (a repeat is
/// remembered as `duplicate` and reported once the line is validated).
pub struct Envelope<'a> {
    line: &'a [u8],
    /// Whether the first `jsonrpc` is the string `"2.0"`.
    jsonrpc: Option<bool>,
    id: Option<Json>,
    method: Option<Json>,
    result: Option<Span<'a>>,
    /// The members of `result` when it is an object, cut in the same scan.
    result_members: Option<Vec<Member<'a>>>,
    error: Option<Span<'a>>,
    params: Option<Span<'a>>,
    duplicate: Option<&'static str>,
}

/// What an envelope is, with the spans its reader still has to parse or
/// skip (every other span of the line has been validated already).
pub enum Shape<'a> {
    Request { id: Id, method: String, params: Option<Span<'a>> },
    Notification { method: String, params: Option<Span<'a>> },
    Response { id: Id, outcome: Result<Span<'a>, Span<'a>> },
}

/// The corruption report [`json::parse`] gives for the whole line.
pub fn canonical(line: &[u8]) -> MessageFault {
    match json::parse_with(line, &mut SkipSink) {
        Err(report) => MessageFault::Malformed(report),
        // Only reachable if cutting disagreed with the parser on valid JSON.
        Ok(_) => MessageFault::Malformed(CorruptionReport { offset: 0, reason: "unreadable envelope" }),
    }
}

/// Cuts `line` into its envelope members.
pub fn split(line: &[u8]) -> Result<Envelope<'_>, MessageFault> {
    let pos = skip_whitespace(line, 0);
    if line.get(pos) != Some(&b'{') {
        return Err(not_an_object(line, pos));
    }
    let mut envelope = Envelope {
        line,
        jsonrpc: None,
        id: None,
        method: None,
        result: None,
        result_members: None,
        error: None,
        params: None,
        duplicate: None,
    };
    let end = cut_object(line, pos, |key, at| envelope.member(key, at))?;
    if skip_whitespace(line, end) != line.len() {
        return Err(canonical(line));
    }
    Ok(envelope)
}

/// Cuts the object whose `{` is at `open` into members, in wire order:
/// `member` gets each key's span and where its value starts, and answers
/// where the value ends. The position just after the object's `}`; bytes
/// that do not have an object's shape are the line's canonical fault.
fn cut_object<'a>(
    line: &'a [u8],
    open: usize,
    mut member: impl FnMut(Span<'a>, usize) -> Result<usize, MessageFault>,
) -> Result<usize, MessageFault> {
    let mut pos = skip_whitespace(line, open + 1);
    if line.get(pos) == Some(&b'}') {
        return Ok(pos + 1);
    }
    loop {
        if line.get(pos) != Some(&b'"') {
            return Err(canonical(line));
        }
        let key_end = string_end(line, pos);
        let key = Span { bytes: &line[pos..key_end] };
        pos = skip_whitespace(line, key_end);
        if line.get(pos) != Some(&b':') {
            return Err(canonical(line));
        }
        let end = member(key, skip_whitespace(line, pos + 1))?;
        pos = skip_whitespace(line, end);
        match line.get(pos) {
            Some(b',') => pos = skip_whitespace(line, pos + 1),
            Some(b'}') => return Ok(pos + 1),
            _ => return Err(canonical(line)),
        }
    }
}

#[cfg(test)]
thread_local! {
    /// The bytes this thread built into trees ([`Envelope::tree`],
    /// [`Envelope::tree_inner`]): what the tests of the reader's bounds
    /// measure.
    pub static TREE_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn built(span: Span<'_>) {
    TREE_BYTES.with(|bytes| bytes.set(bytes.get() + span.bytes.len()));
}

#[cfg(not(test))]
fn built(_span: Span<'_>) {}

/// The members of the object whose `{` is at `open`, and where it ends.
fn members_of(line: &[u8], open: usize) -> Result<(Vec<Member<'_>>, usize), MessageFault> {
    let mut members = Vec::new();
    let end = cut_object(line, open, |key, at| {
        let end = value_end(line, at);
        members.push((key, Span { bytes: &line[at..end] }));
        Ok(end)
    })?;
    Ok((members, end))
}

fn not_an_object(line: &[u8], first: usize) -> MessageFault {
    match json::parse_with(line, &mut SkipSink) {
        Err(report) => MessageFault::Malformed(report),
        Ok(_) if line.get(first) == Some(&b'[') => MessageFault::Bad("batch not supported"),
        Ok(_) => MessageFault::Bad("message is not an object"),
    }
}

impl<'a> Envelope<'a> {
    /// Takes the member whose value starts at `at`; where the value ends.
    /// The first `result` that is an object is cut into its members in the
    /// same scan that finds its end.
    fn member(&mut self, key: Span<'a>, at: usize) -> Result<usize, MessageFault> {
        let line = self.line;
        let slot = match &*self.key_text(key)? {
            "jsonrpc" => Slot::Jsonrpc,
            "id" => Slot::Id,
            "method" => Slot::Method,
            "result" => Slot::Result,
            "error" => Slot::Error,
            "params" => Slot::Params,
            _ => {
                let end = value_end(line, at);
                self.skip(Span { bytes: &line[at..end] })?;
                return Ok(end);
            }
        };
        let end = match slot {
            Slot::Result if self.result.is_none() && line.get(at) == Some(&b'{') => {
                let (members, end) = members_of(line, at)?;
                self.result_members = Some(members);
                end
            }
            _ => value_end(line, at),
        };
        let value = Span { bytes: &line[at..end] };
        let occupied = match slot {
            Slot::Jsonrpc => {
                // The version as it is written nearly always: no tree.
                let two = value.bytes == b"\"2.0\"" || matches!(self.tree(value)?, Json::String(version) if version == "2.0");
                let occupied = self.jsonrpc.is_some();
                self.jsonrpc.get_or_insert(two);
                occupied
            }
            Slot::Id | Slot::Method => {
                let parsed = self.tree(value)?;
                let held = match slot {
                    Slot::Id => &mut self.id,
                    _ => &mut self.method,
                };
                let occupied = held.is_some();
                held.get_or_insert(parsed);
                occupied
            }
            Slot::Result | Slot::Error | Slot::Params => {
                let held = match slot {
                    Slot::Result => &mut self.result,
                    Slot::Error => &mut self.error,
                    _ => &mut self.params,
                };
                let occupied = held.is_some();
                held.get_or_insert(value);
                if occupied {
                    self.skip(value)?;
                }
                occupied
            }
        };
        if occupied {
            self.duplicate.get_or_insert(slot.duplicate());
        }
        Ok(end)
    }

    /// Validates a span without building it.
    pub fn skip(&self, span: Span<'_>) -> Result<(), MessageFault> {
        self.parse(span, &mut SkipSink, |depth| *depth).map(drop)
    }

    /// Parses a span into a [`Json`] tree.
    pub fn tree(&self, span: Span<'_>) -> Result<Json, MessageFault> {
        built(span);
        self.parse(span, &mut TreeSink, Json::depth)
    }

    /// Parses a span with `sink`; `depth` measures the value built.
    pub fn parse<S: JsonSink>(
        &self,
        span: Span<'_>,
        sink: &mut S,
        depth: impl FnOnce(&S::Value) -> usize,
    ) -> Result<S::Value, MessageFault> {
        self.parse_inside(span, sink, depth, 1)
    }

    /// [`Envelope::skip`] for a member of a member (`result.content`): two
    /// containers are around it.
    pub fn skip_inner(&self, span: Span<'_>) -> Result<(), MessageFault> {
        self.parse_inside(span, &mut SkipSink, |depth| *depth, 2).map(drop)
    }

    /// [`Envelope::tree`] for a member of a member.
    pub fn tree_inner(&self, span: Span<'_>) -> Result<Json, MessageFault> {
        built(span);
        self.parse_inside(span, &mut TreeSink, Json::depth, 2)
    }

    /// Parses a span that `around` containers enclose in the line.
    fn parse_inside<S: JsonSink>(
        &self,
        span: Span<'_>,
        sink: &mut S,
        depth: impl FnOnce(&S::Value) -> usize,
        around: usize,
    ) -> Result<S::Value, MessageFault> {
        match json::parse_with(span.bytes, sink) {
            Ok(value) if depth(&value) + around <= MAX_DEPTH => Ok(value),
            _ => Err(canonical(self.line)),
        }
    }

    /// The members of a value when it is an object (`None` for any other
    /// value, or bytes that are not an object's); their values are not
    /// validated.
    pub fn members(&self, span: Span<'a>) -> Option<Vec<Member<'a>>> {
        match span.bytes.first() {
            Some(b'{') => members_of(span.bytes, 0).ok().map(|(members, _)| members),
            _ => None,
        }
    }

    /// The members of `result` when it is an object (`None` for any other
    /// value), cut when the line was; their values are not validated yet.
    pub fn result_members(&self) -> Option<&[Member<'a>]> {
        self.result_members.as_deref()
    }

    /// The text of a member's key (borrowed when it holds no escape).
    pub fn key_text(&self, key: Span<'a>) -> Result<Cow<'a, str>, MessageFault> {
        if let [b'"', inner @ .., b'"'] = key.bytes {
            if !inner.iter().any(|&byte| byte == b'\\' || byte < 0x20) {
                return std::str::from_utf8(inner).map(Cow::Borrowed).map_err(|_| canonical(self.line));
            }
        }
        match json::parse(key.bytes) {
            Ok(Json::String(text)) => Ok(Cow::Owned(text)),
            _ => Err(canonical(self.line)),
        }
    }

    /// The line's corruption report, for a span parsed elsewhere that failed.
    pub fn corruption(&self) -> MessageFault {
        canonical(self.line)
    }

    /// A fault found while interpreting: a corruption anywhere in the line
    /// wins over it, so the spans not yet validated are validated first.
    pub fn fault(&self, fault: MessageFault) -> MessageFault {
        match fault {
            MessageFault::Bad(reason) => self.bad(reason),
            malformed => malformed,
        }
    }

    fn bad(&self, reason: &'static str) -> MessageFault {
        for span in [self.result, self.error, self.params].into_iter().flatten() {
            if let Err(fault) = self.skip(span) {
                return fault;
            }
        }
        MessageFault::Bad(reason)
    }

    /// The message's shape under the strict envelope rules. The spans the
    /// shape ignores (`result`/`error` of a request, `params` of a
    /// response) are validated here.
    pub fn shape(&self) -> Result<Shape<'a>, MessageFault> {
        if let Some(duplicate) = self.duplicate {
            return Err(self.bad(duplicate));
        }
        match self.jsonrpc {
            Some(true) => {}
            Some(false) => return Err(self.bad("jsonrpc is not \"2.0\"")),
            None => return Err(self.bad("missing jsonrpc")),
        }
        let id = self.id.as_ref().map(decode_id).transpose().map_err(|fault| self.fault(fault))?;
        match &self.method {
            Some(Json::String(method)) => {
                if let Some(params) = self.params {
                    if !matches!(params.bytes.first(), Some(b'{' | b'[')) {
                        return Err(self.bad("params is not an object or an array"));
                    }
                }
                for span in [self.result, self.error].into_iter().flatten() {
                    self.skip(span)?;
                }
                let method = method.clone();
                Ok(match id {
                    Some(id) => Shape::Request { id, method, params: self.params },
                    None => Shape::Notification { method, params: self.params },
                })
            }
            Some(_) => Err(self.bad("method is not a string")),
            None => {
                let Some(id) = id else {
                    return Err(self.bad("response without id"));
                };
                let outcome = match (self.result, self.error) {
                    (Some(result), None) => Ok(result),
                    (None, Some(error)) => Err(error),
                    (Some(_), Some(_)) => return Err(self.bad("response has both result and error")),
                    (None, None) => return Err(self.bad("response has neither result nor error")),
                };
                if let Some(params) = self.params {
                    self.skip(params)?;
                }
                Ok(Shape::Response { id, outcome })
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Slot {
    Jsonrpc,
    Id,
    Method,
    Result,
    Error,
    Params,
}

impl Slot {
    fn duplicate(self) -> &'static str {
        match self {
            Slot::Jsonrpc => "duplicate key jsonrpc",
            Slot::Id => "duplicate key id",
            Slot::Method => "duplicate key method",
            Slot::Result => "duplicate key result",
            Slot::Error => "duplicate key error",
            Slot::Params => "duplicate key params",
        }
    }
}

pub(crate) fn skip_whitespace(line: &[u8], mut pos: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = line.get(pos) {
        pos += 1;
    }
    pos
}

/// Where the value starting at `from` would end: after the closing quote
/// of a string, after the bracket that closes a container (brackets inside
/// strings do not count), or before the delimiter ending a scalar. The end
/// of the line when nothing closes it.
pub(crate) fn value_end(line: &[u8], from: usize) -> usize {
    match line.get(from) {
        Some(b'"') => string_end(line, from),
        Some(b'[' | b'{') => {
            let mut depth = 0usize;
            let mut pos = from;
            while pos < line.len() {
                match line[pos] {
                    b'"' => {
                        pos = string_end(line, pos);
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return pos + 1;
                        }
                    }
                    _ => {}
                }
                pos += 1;
            }
            line.len()
        }
        _ => {
            let mut pos = from;
            while pos < line.len() && !matches!(line[pos], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                pos += 1;
            }
            pos
        }
    }
}

/// Just after the quote closing the string whose opening quote is at
/// `from`; the end of the line if it is unterminated. It looks for quotes
/// only, eight bytes at a time, and a quote preceded by an odd run of
/// backslashes is escaped.
fn string_end(line: &[u8], from: usize) -> usize {
    let mut pos = from + 1;
    while let Some(quote) = next_quote(line, pos) {
        let backslashes = line[from + 1..quote].iter().rev().take_while(|&&byte| byte == b'\\').count();
        if backslashes % 2 == 0 {
            return quote + 1;
        }
        pos = quote + 1;
    }
    line.len()
}

/// The position of the next `"` at or after `pos`: sixteen bytes at a time
/// with SSE2 (every x86-64 CPU has it), then eight.
fn next_quote(line: &[u8], mut pos: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = line.get(pos..pos + 16) {
        use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
        // SAFETY: SSE2 is part of the x86-64 baseline; the unaligned load
        // reads the 16 bytes of `chunk`.
        let quotes = unsafe {
            let bytes = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8)))
        };
        if quotes != 0 {
            return Some(pos + quotes.trailing_zeros() as usize);
        }
        pos += 16;
    }
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    while let Some(chunk) = line.get(pos..pos + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let probe = u64::from_le_bytes(word) ^ QUOTES;
        if probe.wrapping_sub(ONES) & !probe & HIGHS != 0 {
            break;
        }
        pos += 8;
    }
    line.get(pos..)?.iter().position(|&byte| byte == b'"').map(|offset| pos + offset)
}

#[cfg(test)]
mod tests {
    use super::{string_end, SkipSink};
    use crate::json::{self, TreeSink};
    use proptest::prelude::*;

    proptest! {
        /// Skipping checks what building checks: for strings and keys made
        /// of escapes (valid, cut, unknown, lone and paired surrogates),
        /// control characters, quotes and bytes that are not UTF-8, a skip
        /// succeeds exactly when the parse into a tree does, with the same
        /// fault (the skip unescapes nothing).
        #[test]
        fn a_skip_faults_exactly_where_a_parse_does(
            pieces in prop::collection::vec(prop::sample::select(vec![
                "a", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\udc00x", "\\u12",
                "\\x", "\\", "\u{e9}", "\u{1}", "\"", " ",
            ]), 0..12),
            high in prop::option::of((any::<prop::sample::Index>(), 0x80u8..=0xff)),
            as_key in any::<bool>(),
        ) {
            let mut text = pieces.concat().into_bytes();
            if let Some((at, byte)) = high {
                let at = at.index(text.len() + 1);
                text.insert(at, byte);
            }
            let mut line = Vec::from(if as_key { &b"{\""[..] } else { &b"[\""[..] });
            line.extend_from_slice(&text);
            line.extend_from_slice(if as_key { b"\":1}" } else { b"\"]" });
            let built = json::parse_with(&line, &mut TreeSink).map(drop);
            let skipped = json::parse_with(&line, &mut SkipSink).map(drop);
            prop_assert_eq!(skipped, built);
        }
    }

    /// A closing quote at every offset of the first two 16-byte blocks and
    /// the 8-byte and byte-wise tails, with and without an escaped quote
    /// (an odd run of backslashes) before it: the end is just after the
    /// unescaped one.
    #[test]
    fn string_end_finds_the_closing_quote_at_every_offset() {
        for len in 0..48 {
            let mut line = vec![b'"'];
            line.extend(std::iter::repeat_n(b'a', len));
            line.extend(b"\",1]");
            assert_eq!(string_end(&line, 0), len + 2, "plain, length {len}");
            if len >= 2 {
                let mut escaped = line.clone();
                escaped[len - 1] = b'\\';
                escaped[len] = b'"';
                assert_eq!(string_end(&escaped, 0), len + 2, "escaped quote before, length {len}");
                escaped[len - 1] = b'\\';
                escaped[len] = b'\\';
                assert_eq!(string_end(&escaped, 0), len + 2, "escaped backslash before, length {len}");
            }
        }
        assert_eq!(string_end(b"\"unterminated", 0), 13);
    }
}
