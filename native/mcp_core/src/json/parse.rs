//! The total JSON parser. Iterative: containers live on an explicit stack
//! bounded by [`MAX_DEPTH`], so no input can overflow a native stack.
//!
//! The parser reports what it finds to a [`JsonSink`], which decides what a
//! value is: [`TreeSink`] builds [`Json`]; the NIF builds Erlang terms
//! directly, without an intermediate tree.

use super::{Json, MAX_DEPTH, MAX_INTEGER_DIGITS, STRING_SPECIAL};
use num_bigint::BigInt;
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

enum Frame {
    Array { values_from: usize },
    Object { values_from: usize, keys_from: usize },
}

/// Parses one JSON document, reporting values to `sink`.
pub fn parse_with<S: JsonSink>(bytes: &[u8], sink: &mut S) -> Result<S::Value, CorruptionReport> {
    parse_within(bytes, sink, MAX_DEPTH)
}

/// [`parse_with`] for a document that sits inside another one: it may nest
/// at most `max_depth` containers (never more than [`MAX_DEPTH`]).
pub fn parse_within<S: JsonSink>(bytes: &[u8], sink: &mut S, max_depth: usize) -> Result<S::Value, CorruptionReport> {
    let max_depth = max_depth.min(MAX_DEPTH);
    let mut reader = Reader { bytes, pos: 0, scratch: String::new() };
    let mut frames: Vec<Frame> = Vec::new();
    let mut values: Vec<S::Value> = Vec::new();
    let mut keys: Vec<S::Key> = Vec::new();
    reader.skip_whitespace();
    'value: loop {
        // A value starts at reader.pos.
        let mut value = match reader.peek() {
            None => return Err(reader.fault("unexpected end of input")),
            Some(b'[') => {
                if frames.len() >= max_depth {
                    return Err(reader.fault("nesting too deep"));
                }
                reader.pos += 1;
                reader.skip_whitespace();
                if reader.peek() == Some(b']') {
                    reader.pos += 1;
                    sink.array(values.drain(values.len()..))
                } else {
                    frames.push(Frame::Array { values_from: values.len() });
                    continue 'value;
                }
            }
            Some(b'{') => {
                if frames.len() >= max_depth {
                    return Err(reader.fault("nesting too deep"));
                }
                reader.pos += 1;
                reader.skip_whitespace();
                if reader.peek() == Some(b'}') {
                    reader.pos += 1;
                    sink.object(keys.drain(keys.len()..), values.drain(values.len()..))
                } else {
                    frames.push(Frame::Object { values_from: values.len(), keys_from: keys.len() });
                    keys.push(reader.member_key(sink)?);
                    continue 'value;
                }
            }
            Some(b'"') => match reader.string()? {
                Text::Input(text) => sink.string(text),
                Text::Scratch if S::KEEPS_STRINGS && reader.scratch.len() >= HANDOVER_BYTES => {
                    sink.string_owned(std::mem::take(&mut reader.scratch))
                }
                Text::Scratch => sink.string(&reader.scratch),
            },
            Some(b't') => reader.literal(b"true", sink.bool(true))?,
            Some(b'f') => reader.literal(b"false", sink.bool(false))?,
            Some(b'n') => reader.literal(b"null", sink.null())?,
            Some(b'-' | b'0'..=b'9') => reader.number(sink)?,
            Some(_) => return Err(reader.fault("unexpected character")),
        };
        // A value is complete: hand it to its container, closing every
        // container that ends here.
        loop {
            reader.skip_whitespace();
            match frames.last() {
                None => {
                    if reader.pos != bytes.len() {
                        return Err(reader.fault("trailing characters"));
                    }
                    return Ok(value);
                }
                Some(&Frame::Array { values_from }) => {
                    values.push(value);
                    match reader.peek() {
                        Some(b',') => {
                            reader.pos += 1;
                            reader.skip_whitespace();
                            continue 'value;
                        }
                        Some(b']') => {
                            reader.pos += 1;
                            frames.pop();
                            value = sink.array(values.drain(values_from..));
                        }
                        None => return Err(reader.fault("unexpected end of input")),
                        Some(_) => return Err(reader.fault("expected ',' or ']'")),
                    }
                }
                Some(&Frame::Object { values_from, keys_from }) => {
                    values.push(value);
                    match reader.peek() {
                        Some(b',') => {
                            reader.pos += 1;
                            reader.skip_whitespace();
                            keys.push(reader.member_key(sink)?);
                            continue 'value;
                        }
                        Some(b'}') => {
                            reader.pos += 1;
                            frames.pop();
                            value = sink.object(keys.drain(keys_from..), values.drain(values_from..));
                        }
                        None => return Err(reader.fault("unexpected end of input")),
                        Some(_) => return Err(reader.fault("expected ',' or '}'")),
                    }
                }
            }
        }
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
    scratch: String,
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

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn literal<V>(&mut self, word: &[u8], value: V) -> Result<V, CorruptionReport> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.fault("invalid literal"))
        }
    }

    /// An object member's key and the `:` after it; whitespace is skipped.
    fn member_key<S: JsonSink>(&mut self, sink: &mut S) -> Result<S::Key, CorruptionReport> {
        if self.peek() != Some(b'"') {
            return Err(self.fault(if self.peek().is_none() { "unexpected end of input" } else { "expected string key" }));
        }
        let key = match self.string()? {
            Text::Input(text) => sink.key(text),
            Text::Scratch => sink.key(&self.scratch),
        };
        self.skip_whitespace();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                self.skip_whitespace();
                Ok(key)
            }
            None => Err(self.fault("unexpected end of input")),
            Some(_) => Err(self.fault("expected ':'")),
        }
    }

    /// A string starting at the opening quote. Borrows the input when the
    /// string has no escapes; otherwise unescapes into the scratch buffer.
    fn string(&mut self) -> Result<Text<'a>, CorruptionReport> {
        let bytes = self.bytes;
        let start = self.pos + 1;
        let mut cursor = start;
        let mut high_bits = 0u8;
        while cursor < bytes.len() && !STRING_SPECIAL[bytes[cursor] as usize] {
            high_bits |= bytes[cursor];
            cursor += 1;
        }
        match bytes.get(cursor) {
            Some(b'"') if high_bits < 0x80 => {
                self.pos = cursor + 1;
                // All ASCII: valid UTF-8 without a second pass.
                Ok(Text::Input(ascii_segment(&bytes[start..cursor])))
            }
            Some(b'"') => {
                self.pos = cursor + 1;
                utf8_segment(bytes, start, cursor).map(Text::Input)
            }
            Some(b'\\') => self.escaped_string(start, cursor),
            Some(_) => Err(Self::fault_at(cursor, "control character in string")),
            None => Err(Self::fault_at(cursor, "unterminated string")),
        }
    }

    fn escaped_string(&mut self, start: usize, first_escape: usize) -> Result<Text<'a>, CorruptionReport> {
        let bytes = self.bytes;
        self.scratch.clear();
        self.scratch.push_str(utf8_segment(bytes, start, first_escape)?);
        let mut cursor = first_escape;
        loop {
            // cursor is at a backslash
            let escape_at = cursor;
            let code = match bytes.get(cursor + 1) {
                Some(&code) => code,
                None => return Err(Self::fault_at(cursor + 1, "unterminated string")),
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
                    let unit = hex4(bytes, cursor)?;
                    cursor += 4;
                    match unit {
                        0xD800..=0xDBFF => {
                            let low = if bytes.get(cursor) == Some(&b'\\') && bytes.get(cursor + 1) == Some(&b'u') {
                                hex4(bytes, cursor + 2)?
                            } else {
                                return Err(Self::fault_at(escape_at, "lone surrogate escape"));
                            };
                            if !(0xDC00..=0xDFFF).contains(&low) {
                                return Err(Self::fault_at(escape_at, "lone surrogate escape"));
                            }
                            cursor += 6;
                            let scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            char::from_u32(scalar).ok_or(Self::fault_at(escape_at, "lone surrogate escape"))?
                        }
                        0xDC00..=0xDFFF => return Err(Self::fault_at(escape_at, "lone surrogate escape")),
                        _ => char::from_u32(unit).ok_or(Self::fault_at(escape_at, "invalid escape"))?,
                    }
                }
                _ => return Err(Self::fault_at(escape_at, "invalid escape")),
            };
            self.scratch.push(decoded);
            let segment_start = cursor;
            while cursor < bytes.len() && !STRING_SPECIAL[bytes[cursor] as usize] {
                cursor += 1;
            }
            let segment = utf8_segment(bytes, segment_start, cursor)?;
            self.scratch.push_str(segment);
            match bytes.get(cursor) {
                Some(b'"') => {
                    self.pos = cursor + 1;
                    return Ok(Text::Scratch);
                }
                Some(b'\\') => continue,
                Some(_) => return Err(Self::fault_at(cursor, "control character in string")),
                None => return Err(Self::fault_at(cursor, "unterminated string")),
            }
        }
    }

    fn number<S: JsonSink>(&mut self, sink: &mut S) -> Result<S::Value, CorruptionReport> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut cursor = start;
        let negative = bytes[cursor] == b'-';
        if negative {
            cursor += 1;
        }
        let digits_from = cursor;
        match bytes.get(cursor) {
            Some(b'0') => cursor += 1,
            Some(b'1'..=b'9') => cursor = skip_digits(bytes, cursor),
            _ => return Err(Self::fault_at(cursor, "invalid number")),
        }
        let integer_digits = cursor - digits_from;
        let mut is_float = false;
        if bytes.get(cursor) == Some(&b'.') {
            cursor += 1;
            if !matches!(bytes.get(cursor), Some(b'0'..=b'9')) {
                return Err(Self::fault_at(cursor, "invalid number"));
            }
            cursor = skip_digits(bytes, cursor);
            is_float = true;
        }
        if let Some(b'e' | b'E') = bytes.get(cursor) {
            cursor += 1;
            if let Some(b'+' | b'-') = bytes.get(cursor) {
                cursor += 1;
            }
            if !matches!(bytes.get(cursor), Some(b'0'..=b'9')) {
                return Err(Self::fault_at(cursor, "invalid number"));
            }
            cursor = skip_digits(bytes, cursor);
            is_float = true;
        }
        self.pos = cursor;
        let text = &bytes[start..cursor];
        if !is_float {
            if integer_digits <= 18 {
                let magnitude = text[digits_from - start..].iter().fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0'));
                return Ok(sink.int(if negative { -magnitude } else { magnitude }));
            }
            if integer_digits > MAX_INTEGER_DIGITS {
                return Err(Self::fault_at(start, "integer too long"));
            }
            return match BigInt::parse_bytes(text, 10) {
                Some(big) => Ok(match i64::try_from(&big) {
                    Ok(small) => sink.int(small),
                    Err(_) => sink.big_int(big),
                }),
                None => Err(Self::fault_at(start, "invalid number")),
            };
        }
        // The grammar above only admits ASCII, so the text is valid UTF-8.
        let parsed = std::str::from_utf8(text).ok().and_then(|t| t.parse::<f64>().ok());
        match parsed {
            Some(float) if float.is_finite() => Ok(sink.float(float)),
            Some(_) => Err(Self::fault_at(start, "number out of range")),
            None => Err(Self::fault_at(start, "invalid number")),
        }
    }
}

fn skip_digits(bytes: &[u8], mut cursor: usize) -> usize {
    while let Some(b'0'..=b'9') = bytes.get(cursor) {
        cursor += 1;
    }
    cursor
}

fn utf8_segment(bytes: &[u8], from: usize, to: usize) -> Result<&str, CorruptionReport> {
    std::str::from_utf8(&bytes[from..to])
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
