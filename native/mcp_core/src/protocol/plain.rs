//! A `tools/call` response of the common shape read in one scan, without a
//! tree: `{"jsonrpc":"2.0","id":N,"result":{"content":[...],"isError":B}}`
//! in any member order, with any whitespace, `_meta` members anywhere in
//! the result and blocks, and any members in the blocks. Most answers a
//! client reads have that shape, and [`read`](super::read::read_with)
//! tries this scan first.
//!
//! Invariants:
//! - Every byte of a line [`scan`] answers for is validated as the full
//!   reading validates it (strings, keys, literals and punctuation by
//!   hand; members it does not read by [`SkipSink`] within the line's
//!   nesting limit), a text block's text with escapes once its answer is
//!   used ([`PlainAnswer::content`] or [`PlainAnswer::validated`]; `None` or
//!   `false` send the line to the full reading). What it then answers is
//!   the full reading's: for any line, [`read_with`](super::read::read_with)
//!   and [`read_in_full`](super::read::read_in_full) give the same reading
//!   (property tests, and the `protocol_read` fuzz target, check this).
//! - Anything else gives `None` and the line is read the full way: an
//!   escaped key, a repeated member, `structuredContent`, `resultType`,
//!   another top-level member, an id that is not a plain non-negative
//!   integer below 10^18, a `null` where the decoder would read one as
//!   absent, a fault of any kind.
//! - No recursion, no allocation sized by the peer beyond the blocks and
//!   texts it returns.
//!
//! The price: a line of the common shape that is then read the full way
//! anyway (an answer to a request that expects another result, or one
//! whose last member the scan does not take) is scanned, then read. A red
//! team's worst cases cost 2-3x one full read (357 us for a 16 KiB line on
//! a normal scheduler; 341 ms against 127 ms at 16 MiB, on a dirty one),
//! linear in the line.

use super::ContentBlock;
use crate::json::{self, Json, TreeSink, MAX_DEPTH};
use crate::jsonrpc::envelope::{skip_whitespace, value_end, SkipSink};

/// A `tools/call` answer read by [`scan`]: its blocks are still slices of
/// the line, and a text with escapes is not read yet: [`PlainAnswer::content`]
/// reads and builds them, [`PlainAnswer::validated`] only validates them
/// (one pass over such a text either way).
#[derive(Debug, Clone, PartialEq)]
pub struct PlainAnswer<'a> {
    pub id: i64,
    pub is_error: bool,
    blocks: Vec<PlainBlock<'a>>,
}

#[derive(Debug, Clone, PartialEq)]
enum PlainBlock<'a> {
    /// A text block's text without escapes (validated).
    Text(&'a str),
    /// A text block's text with escapes: the bytes from its opening quote
    /// to where its closing quote was found, not validated yet.
    Escaped(&'a [u8]),
    /// Any other block, by its `type`.
    Other(&'a str),
}

impl PlainAnswer<'_> {
    /// Whether every text with escapes is a valid JSON string.
    pub fn validated(&self) -> bool {
        self.blocks.iter().all(|block| match block {
            PlainBlock::Escaped(value) => json::parse_with(value, &mut SkipSink).is_ok(),
            _ => true,
        })
    }

    /// The content blocks, as the decoder gives them; `None` when a text
    /// with escapes is not a valid JSON string.
    pub fn content(self) -> Option<Vec<ContentBlock>> {
        self.blocks
            .into_iter()
            .map(|block| match block {
                PlainBlock::Text(text) => Some(ContentBlock::Text(text.to_owned())),
                PlainBlock::Escaped(value) => match json::parse_with(value, &mut TreeSink) {
                    Ok(Json::String(text)) => Some(ContentBlock::Text(text)),
                    _ => None,
                },
                PlainBlock::Other(kind) => Some(ContentBlock::Other(kind.to_owned())),
            })
            .collect()
    }
}

/// The answer a line of the common shape carries; `None` for any other line.
pub fn scan(line: &[u8]) -> Option<PlainAnswer<'_>> {
    let mut at = skip_whitespace(line, 0);
    let (mut jsonrpc, mut id, mut result) = (None, None, None);
    at = object(line, at, |key, value_at| match key {
        b"jsonrpc" if jsonrpc.is_none() => filled(&mut jsonrpc, version(line, value_at)),
        b"id" if id.is_none() => filled(&mut id, integer(line, value_at)),
        b"result" if result.is_none() => filled(&mut result, call_tool_result(line, value_at)),
        _ => None,
    })?;
    if jsonrpc.is_none() || skip_whitespace(line, at) != line.len() {
        return None;
    }
    let (blocks, is_error) = result?;
    Some(PlainAnswer { id: id?, is_error, blocks })
}

/// A member read (`read`: its value and where it ends) put in its slot;
/// where it ends.
fn filled<T>(slot: &mut Option<T>, read: Option<(T, usize)>) -> Option<usize> {
    let (value, end) = read?;
    *slot = Some(value);
    Some(end)
}

/// The items of the container whose `open` byte is at `at`, separated by
/// commas: `item` reads one starting at its argument and answers where it
/// ends. Just after the `close` byte.
fn items(line: &[u8], at: usize, open: u8, close: u8, mut item: impl FnMut(usize) -> Option<usize>) -> Option<usize> {
    if line.get(at) != Some(&open) {
        return None;
    }
    let mut at = skip_whitespace(line, at + 1);
    if line.get(at) == Some(&close) {
        return Some(at + 1);
    }
    loop {
        at = skip_whitespace(line, item(at)?);
        match line.get(at) {
            Some(b',') => at = skip_whitespace(line, at + 1),
            Some(&byte) if byte == close => return Some(at + 1),
            _ => return None,
        }
    }
}

/// The members of the object whose `{` is at `at`, each key plain (no
/// escape): `member` reads the value starting at its second argument and
/// answers where it ends. Just after the `}`.
fn object(line: &[u8], at: usize, mut member: impl FnMut(&[u8], usize) -> Option<usize>) -> Option<usize> {
    items(line, at, b'{', b'}', |at| {
        let (key, key_end) = plain_string(line, at)?;
        let colon = skip_whitespace(line, key_end);
        if line.get(colon) != Some(&b':') {
            return None;
        }
        member(key.as_bytes(), skip_whitespace(line, colon + 1))
    })
}

/// `"2.0"` exactly.
fn version(line: &[u8], at: usize) -> Option<((), usize)> {
    (line.get(at..at + 5)? == b"\"2.0\"").then_some(((), at + 5))
}

/// A string without escapes or control characters whose opening quote is
/// at `at`, and where it ends (just after its closing quote). One pass finds
/// the closing quote and checks the bytes before it, sixteen at a time;
/// only a string with bytes above ASCII is validated as UTF-8 after it.
fn plain_string(line: &[u8], at: usize) -> Option<(&str, usize)> {
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let (end, ascii) = plain_end(line, at + 1)?;
    let inner = &line[at + 1..end];
    let text = if ascii {
        debug_assert!(inner.is_ascii());
        // SAFETY: every byte of `inner` is below 0x80 (`plain_end`), and
        // ASCII is UTF-8.
        unsafe { std::str::from_utf8_unchecked(inner) }
    } else {
        std::str::from_utf8(inner).ok()?
    };
    Some((text, end + 1))
}

/// The first quote at or after `pos`, and whether every byte before it is
/// ASCII; `None` when a backslash or a control character comes before it,
/// or no quote does.
fn plain_end(line: &[u8], mut pos: usize) -> Option<(usize, bool)> {
    let mut ascii = true;
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = line.get(pos..pos + 16) {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of the x86-64 baseline; the unaligned load
        // reads the 16 bytes of `chunk`. A byte above 0x7f is negative to
        // the signed comparison, so `below` counts it only with `high`.
        let (quotes, special, high) = unsafe {
            let bytes = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let quotes = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8)));
            let backslashes = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8)));
            let high = _mm_movemask_epi8(bytes);
            let below = _mm_movemask_epi8(_mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20)));
            (quotes, backslashes | (below & !high), high)
        };
        if quotes != 0 {
            let before = (1i32 << quotes.trailing_zeros()) - 1;
            return (special & before == 0).then_some((pos + quotes.trailing_zeros() as usize, ascii && high & before == 0));
        }
        if special != 0 {
            return None;
        }
        ascii &= high == 0;
        pos += 16;
    }
    for (offset, &byte) in line.get(pos..)?.iter().enumerate() {
        match byte {
            b'"' => return Some((pos + offset, ascii)),
            b'\\' | 0..=0x1f => return None,
            0x80.. => ascii = false,
            _ => {}
        }
    }
    None
}

/// `0` or a non-negative integer of at most 18 digits without a leading
/// zero, ending where a number ends.
fn integer(line: &[u8], at: usize) -> Option<(i64, usize)> {
    let digits = line.get(at..)?.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let end = at + digits;
    if digits == 0 || digits > 18 || (digits > 1 && line[at] == b'0') {
        return None;
    }
    if matches!(line.get(end), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    let value = line[at..end].iter().fold(0i64, |value, digit| value * 10 + i64::from(digit - b'0'));
    Some((value, end))
}

/// A value validated without being built, `around` containers deep in the
/// line; where it ends.
fn skipped(line: &[u8], at: usize, around: usize) -> Option<usize> {
    let end = value_end(line, at);
    let depth = json::parse_with(&line[at..end], &mut SkipSink).ok()?;
    (depth + around <= MAX_DEPTH).then_some(end)
}

/// `true` or `false`.
fn boolean(line: &[u8], at: usize) -> Option<(bool, usize)> {
    match line.get(at..)? {
        [b't', b'r', b'u', b'e', ..] => Some((true, at + 4)),
        [b'f', b'a', b'l', b's', b'e', ..] => Some((false, at + 5)),
        _ => None,
    }
}

/// A result object with `content` and maybe `isError` and `_meta`.
fn call_tool_result(line: &[u8], at: usize) -> Option<((Vec<PlainBlock<'_>>, bool), usize)> {
    let (mut content, mut is_error, mut meta) = (None, None, None);
    let end = object(line, at, |key, value_at| match key {
        b"content" if content.is_none() => filled(&mut content, blocks(line, value_at)),
        b"isError" if is_error.is_none() => filled(&mut is_error, boolean(line, value_at)),
        b"_meta" if meta.is_none() => filled(&mut meta, skipped(line, value_at, 2).map(|end| ((), end))),
        _ => None,
    })?;
    Some(((content?, is_error.unwrap_or(false)), end))
}

/// The content array: objects whose `type` is a plain string and, for a
/// text block, whose `text` is a string.
fn blocks(line: &[u8], at: usize) -> Option<(Vec<PlainBlock<'_>>, usize)> {
    let mut blocks = Vec::new();
    let end = items(line, at, b'[', b']', |at| {
        let (block, end) = block(line, at)?;
        blocks.push(block);
        Some(end)
    })?;
    Some((blocks, end))
}

/// One content block, four containers deep in the line.
fn block(line: &[u8], at: usize) -> Option<(PlainBlock<'_>, usize)> {
    const AROUND: usize = 4;
    let (mut kind, mut text) = (None, None);
    let end = object(line, at, |key, value_at| match key {
        b"type" if kind.is_none() => filled(&mut kind, plain_string(line, value_at)),
        b"text" if text.is_none() => filled(&mut text, text_value(line, value_at, AROUND)),
        b"type" | b"text" => None,
        _ => skipped(line, value_at, AROUND),
    })?;
    let block = match (kind?, text) {
        ("text", Some(TextValue::Plain(plain))) => PlainBlock::Text(plain),
        ("text", Some(TextValue::Escaped(value))) => PlainBlock::Escaped(value),
        ("text", _) => return None,
        // Another block's text with escapes, validated now.
        (other, Some(TextValue::Escaped(value))) => {
            json::parse_with(value, &mut SkipSink).ok()?;
            PlainBlock::Other(other)
        }
        (other, _) => PlainBlock::Other(other),
    };
    Some((block, end))
}

/// A block's `text` member as the scan leaves it.
enum TextValue<'a> {
    /// A string without escapes (validated).
    Plain(&'a str),
    /// A string with escapes, up to where its closing quote was found: read
    /// or validated later, once.
    Escaped(&'a [u8]),
    /// Any other value (validated).
    NotAString,
}

/// The `text` member's value starting at `at`, `around` containers deep in
/// the line, and where it ends.
fn text_value(line: &[u8], at: usize, around: usize) -> Option<(TextValue<'_>, usize)> {
    if let Some((plain, end)) = plain_string(line, at) {
        return Some((TextValue::Plain(plain), end));
    }
    if line.get(at) == Some(&b'"') {
        let end = value_end(line, at);
        return Some((TextValue::Escaped(&line[at..end]), end));
    }
    Some((TextValue::NotAString, skipped(line, at, around)?))
}

#[cfg(test)]
mod tests;
