//! The compact JSON writer. The primitives (`write_string`, `write_float`,
//! `write_int`, `write_big_int`) are public so the NIF can encode Erlang
//! terms straight to bytes with exactly the same output as [`write`].

use super::{special_flags, Json, MAX_DEPTH, STRING_SPECIAL};
use num_bigint::BigInt;

/// Why a value cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("nesting deeper than max_depth")]
    TooDeep,
    #[error("float is not finite")]
    NonFiniteFloat,
}

/// The compact encoding of `value`.
pub fn to_bytes(value: &Json) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    write(&mut out, value)?;
    Ok(out)
}

/// Appends the compact encoding of `value` to `out`. Recursion is bounded:
/// a container nested deeper than [`MAX_DEPTH`] is refused
/// ([`EncodeError::TooDeep`]), `out` then holding what was written before it.
pub fn write(out: &mut Vec<u8>, value: &Json) -> Result<(), EncodeError> {
    write_nested(out, value, 0)
}

fn write_nested(out: &mut Vec<u8>, value: &Json, depth: usize) -> Result<(), EncodeError> {
    match value {
        Json::Null => out.extend_from_slice(b"null"),
        Json::Bool(true) => out.extend_from_slice(b"true"),
        Json::Bool(false) => out.extend_from_slice(b"false"),
        Json::Int(int) => write_int(out, *int),
        Json::BigInt(big) => write_big_int(out, big),
        Json::Float(float) => write_float(out, *float)?,
        Json::String(text) => write_string(out, text),
        Json::Array(items) => {
            if depth == MAX_DEPTH {
                return Err(EncodeError::TooDeep);
            }
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_nested(out, item, depth + 1)?;
            }
            out.push(b']');
        }
        Json::Object(members) => {
            if depth == MAX_DEPTH {
                return Err(EncodeError::TooDeep);
            }
            out.push(b'{');
            for (index, (key, item)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_string(out, key);
                out.push(b':');
                write_nested(out, item, depth + 1)?;
            }
            out.push(b'}');
        }
    }
    Ok(())
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Where the writer's bytes go: a `Vec<u8>`, or (in the NIF) a buffer that
/// becomes a binary.
pub trait Output {
    /// Makes room for `extra` more bytes (a hint: every write below still
    /// makes its own room).
    fn reserve(&mut self, extra: usize);
    fn push(&mut self, byte: u8);
    fn extend(&mut self, bytes: &[u8]);
    /// Appends `word[..count]` (`count` at most 8); may store all eight
    /// bytes into spare room past the end, which stays unwritten text.
    fn push_word(&mut self, word: [u8; 8], count: usize);
}

impl Output for Vec<u8> {
    fn reserve(&mut self, extra: usize) {
        Vec::reserve(self, extra);
    }
    fn push(&mut self, byte: u8) {
        Vec::push(self, byte);
    }
    fn extend(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    fn push_word(&mut self, word: [u8; 8], count: usize) {
        assert!(count <= word.len());
        Vec::reserve(self, word.len());
        // SAFETY: eight bytes of spare capacity (reserved above) are
        // written, and the length grows by at most that many.
        unsafe {
            std::ptr::write_unaligned(self.as_mut_ptr().add(self.len()).cast::<[u8; 8]>(), word);
            self.set_len(self.len() + count);
        }
    }
}

/// Appends `text` as a JSON string. Non-ASCII is written as UTF-8 as-is.
pub fn write_string<O: Output>(out: &mut O, text: &str) {
    write_string_bytes(out, text.as_bytes());
}

/// Appends `bytes` as a JSON string when they are UTF-8 (checked only when
/// a byte has its high bit set), else `Err(NotUtf8)` with nothing written.
pub fn write_utf8_string<O: Output>(out: &mut O, bytes: &[u8]) -> Result<(), NotUtf8> {
    if !bytes.is_ascii() && simdutf8::basic::from_utf8(bytes).is_err() {
        return Err(NotUtf8);
    }
    write_string_bytes(out, bytes);
    Ok(())
}

/// Bytes that are not UTF-8, refused by [`write_utf8_string`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8;

fn write_string_bytes<O: Output>(out: &mut O, bytes: &[u8]) {
    out.push(b'"');
    let mut at = 0;
    loop {
        // Room for the rest as it is, the closing quote and a word of slack.
        out.reserve(bytes.len() - at + 1 + WORD);
        at = copy_plain(out, bytes, at);
        let Some(&byte) = bytes.get(at) else { break };
        at += 1;
        match byte {
            b'"' => out.extend(b"\\\""),
            b'\\' => out.extend(b"\\\\"),
            b'\n' => out.extend(b"\\n"),
            b'\r' => out.extend(b"\\r"),
            b'\t' => out.extend(b"\\t"),
            0x08 => out.extend(b"\\b"),
            0x0c => out.extend(b"\\f"),
            _ => out.extend(&[b'\\', b'u', b'0', b'0', HEX[(byte >> 4) as usize], HEX[(byte & 15) as usize]]),
        }
    }
    out.push(b'"');
}

const WORD: usize = 8;

/// Copies `bytes[from..]` up to the first byte a JSON string cannot carry
/// raw and returns that byte's index (`bytes.len()` when none). Short runs
/// go a word at a time, each word stored whole and the length advanced past
/// its plain bytes only; a run past [`LONG_RUN`] is found first and copied
/// in one `memcpy`.
#[inline]
fn copy_plain<O: Output>(out: &mut O, bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + WORD) {
        if at - from == LONG_RUN {
            let end = plain_end(bytes, at);
            out.extend(&bytes[at..end]);
            return end;
        }
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; WORD]));
        let plain = plain_bytes(word, WORD);
        store_word(out, word, plain);
        at += plain;
        if plain < WORD {
            return at;
        }
    }
    let rest = &bytes[at..];
    if rest.is_empty() {
        return at;
    }
    // The last 1-7 bytes, padded with spaces (plain) to a word.
    let mut word = u64::from_le_bytes([b' '; WORD]);
    for (index, &byte) in rest.iter().enumerate() {
        let shift = 8 * index;
        word = (word & !(0xff << shift)) | (u64::from(byte) << shift);
    }
    let plain = plain_bytes(word, rest.len());
    store_word(out, word, plain);
    at + plain
}

/// Bytes of plain text after which [`copy_plain`] switches to one copy.
const LONG_RUN: usize = 2 * WORD;

/// The index of the first byte at or after `from` that is not plain
/// (`bytes.len()` when none), a word at a time.
#[inline]
fn plain_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + WORD) {
        let plain = plain_bytes(u64::from_le_bytes(chunk.try_into().unwrap_or([0; WORD])), WORD);
        at += plain;
        if plain < WORD {
            return at;
        }
    }
    at + bytes[at..].iter().take_while(|byte| !STRING_SPECIAL[usize::from(**byte)]).count()
}

/// How many of the first `count` bytes of `word` (little-endian) are plain.
#[inline]
fn plain_bytes(word: u64, count: usize) -> usize {
    let flags = special_flags(word);
    if flags == 0 {
        count
    } else {
        ((flags.trailing_zeros() / 8) as usize).min(count)
    }
}

/// Appends the first `count` bytes of the little-endian `word`.
#[inline]
fn store_word<O: Output>(out: &mut O, word: u64, count: usize) {
    out.push_word(word.to_le_bytes(), count);
}

/// Appends a finite float in shortest round-trip form; the text always
/// holds a `.` or an exponent, so it reads back as a float.
pub fn write_float<O: Output>(out: &mut O, float: f64) -> Result<(), EncodeError> {
    if !float.is_finite() {
        return Err(EncodeError::NonFiniteFloat);
    }
    let mut buffer = ryu::Buffer::new();
    out.extend(buffer.format_finite(float).as_bytes());
    Ok(())
}

/// Appends an integer in decimal.
pub fn write_int<O: Output>(out: &mut O, int: i64) {
    let mut magnitude = int.unsigned_abs();
    if int >= 0 && magnitude < 10 {
        out.push(b'0' + magnitude as u8);
        return;
    }
    let mut text = [0u8; 24];
    let digits = magnitude.checked_ilog10().unwrap_or(0) as usize + 1;
    let sign = usize::from(int < 0);
    text[0] = b'-';
    for at in (sign..sign + digits).rev() {
        text[at] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
    }
    let len = sign + digits;
    for (index, word) in text.chunks_exact(WORD).enumerate().take(len.div_ceil(WORD)) {
        out.push_word(word.try_into().unwrap_or([0; WORD]), (len - index * WORD).min(WORD));
    }
}

/// Appends a big integer in decimal.
pub fn write_big_int<O: Output>(out: &mut O, big: &BigInt) {
    out.extend(big.to_str_radix(10).as_bytes());
}
