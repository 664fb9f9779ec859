//! JSON: the value type ([`Json`]), a total, non-recursive parser
//! ([`parse`], [`parse_with`]) and a compact writer ([`write`], [`to_bytes`]).
//!
//! Invariants:
//! - Parsing never recurses: nesting is an explicit stack capped at
//!   [`MAX_DEPTH`] containers, so 100,000 open brackets are a fault, not a
//!   stack overflow.
//! - Integers are exact: `i64` when they fit, [`num_bigint::BigInt`] beyond
//!   (normalised, so a value has one representation). Literals longer than
//!   [`MAX_INTEGER_DIGITS`] digits are refused: converting decimal text to a
//!   bignum is quadratic, and an unbounded literal is a CPU bomb.
//! - Floats are finite: a literal that overflows a double is a fault.
//! - Strings are valid UTF-8 after unescaping; a lone surrogate escape is a
//!   fault. Objects keep every member in wire order, duplicates included.
//! - The writer is compact and escapes every control character, so its output
//!   never holds a raw newline.

mod parse;
mod repeats;
mod value;
mod write;

pub use parse::{
    parse, parse_with, parse_within, Budget, Closing, CorruptionReport, Expect, JsonSink, Parser, PausingSink, Split, Step,
    Suspended, SuspendedFrame, TreeSink, Unsplit, BIG_INT_WEIGHT,
};
pub use repeats::Repeats;
pub use value::Json;
pub use write::{
    to_bytes, write, write_big_int, write_float, write_int, write_string, write_utf8_string, EncodeError, NotUtf8, Output,
};

/// Deepest container nesting the parsers and encoders accept.
pub const MAX_DEPTH: usize = 128;

/// Bytes a JSON string cannot carry raw: quote, backslash and the control
/// characters. The parser stops its fast scan at them; the writer escapes them.
static STRING_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Bytes of a little-endian word, one bit per byte, used by the scans that
/// go eight bytes at a time.
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `word` that is in [`STRING_SPECIAL`]. The
/// lowest flagged byte is exact (a false flag only ever sits above a true
/// one), so `trailing_zeros() / 8` is the index of the first special byte.
fn special_flags(word: u64) -> u64 {
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    control | zero_byte(word ^ (ONES * u64::from(b'"'))) | zero_byte(word ^ (ONES * u64::from(b'\\')))
}

/// Longest integer literal (in digits, sign excluded) the parser converts.
/// The same bound CPython adopted for int/str conversion (CVE-2020-10735).
pub const MAX_INTEGER_DIGITS: usize = 4300;
