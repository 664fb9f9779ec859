//! The compact JSON writer. The primitives (`write_string`, `write_float`,
//! `write_int`, `write_big_int`) are public so the NIF can encode Erlang
//! terms straight to bytes with exactly the same output as [`write`].

use super::{Json, MAX_DEPTH, STRING_SPECIAL};
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

/// Appends `text` as a JSON string. Non-ASCII is written as UTF-8 as-is.
pub fn write_string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run_start = 0;
    for (index, &byte) in bytes.iter().enumerate() {
        if !STRING_SPECIAL[byte as usize] {
            continue;
        }
        out.extend_from_slice(&bytes[run_start..index]);
        run_start = index + 1;
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(byte >> 4) as usize], HEX[(byte & 15) as usize]]),
        }
    }
    out.extend_from_slice(&bytes[run_start..]);
    out.push(b'"');
}

/// Appends a finite float in shortest round-trip form; the text always
/// holds a `.` or an exponent, so it reads back as a float.
pub fn write_float(out: &mut Vec<u8>, float: f64) -> Result<(), EncodeError> {
    if !float.is_finite() {
        return Err(EncodeError::NonFiniteFloat);
    }
    let mut buffer = ryu::Buffer::new();
    out.extend_from_slice(buffer.format_finite(float).as_bytes());
    Ok(())
}

/// Appends an integer in decimal.
pub fn write_int(out: &mut Vec<u8>, int: i64) {
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
    out.extend_from_slice(&digits[at..]);
}

/// Appends a big integer in decimal.
pub fn write_big_int(out: &mut Vec<u8>, big: &BigInt) {
    out.extend_from_slice(big.to_str_radix(10).as_bytes());
}
