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

/// Where the writer's bytes go: a `Vec<u8>`, or (in the NIF) a binary the
/// VM will own, written in place.
pub trait Output {
    fn push(&mut self, byte: u8);
    fn extend(&mut self, bytes: &[u8]);
}

impl Output for Vec<u8> {
    fn push(&mut self, byte: u8) {
        Vec::push(self, byte);
    }
    fn extend(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
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
    let mut run_start = 0;
    loop {
        let special = next_special(bytes, run_start);
        out.extend(&bytes[run_start..special]);
        let Some(&byte) = bytes.get(special) else { break };
        run_start = special + 1;
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

/// The index of the first byte at or after `from` that a JSON string
/// cannot carry raw (`bytes.len()` when none), eight bytes at a time.
pub fn next_special(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let flags = special_flags(u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])));
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < bytes.len() && !STRING_SPECIAL[bytes[at] as usize] {
        at += 1;
    }
    at
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
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut magnitude = int.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    if int < 0 {
        out.push(b'-');
    }
    out.extend(&digits[at..]);
}

/// Appends a big integer in decimal.
pub fn write_big_int<O: Output>(out: &mut O, big: &BigInt) {
    out.extend(big.to_str_radix(10).as_bytes());
}
