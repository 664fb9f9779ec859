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

/// Sixteen bytes at once: a mask with bit `i` set when byte `i` is in
/// [`STRING_SPECIAL`], and one with bit `i` set when byte `i` has its high
/// bit set. SSE2 (every x86-64 CPU has it); elsewhere two words through
/// [`special_flags`], whose lowest flag is exact (higher flags may be
/// false, so only the lowest set bit of the first mask is meaningful).
#[inline]
fn special_mask16(chunk: &[u8; 16]) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the
        // 16 bytes of `chunk` (unaligned load).
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            let special = _mm_or_si128(control, _mm_or_si128(quote, backslash));
            (_mm_movemask_epi8(special) as u32, _mm_movemask_epi8(v) as u32)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mask = |word: u64| -> u32 {
            (0..8).fold(0u32, |bits, at| bits | (((word >> (at * 8 + 7)) & 1) as u32) << at)
        };
        let low = u64::from_le_bytes(chunk[..8].try_into().unwrap_or([0; 8]));
        let high = u64::from_le_bytes(chunk[8..].try_into().unwrap_or([0; 8]));
        (mask(special_flags(low)) | mask(special_flags(high)) << 8, mask(low & HIGHS) | mask(high & HIGHS) << 8)
    }
}

/// Longest integer literal (in digits, sign excluded) the parser converts.
/// The same bound CPython adopted for int/str conversion (CVE-2020-10735).
pub const MAX_INTEGER_DIGITS: usize = 4300;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte at every position of a 16-byte block: the lowest special
    /// bit is the first byte of `STRING_SPECIAL`, and the high-bit mask
    /// marks exactly the bytes above 0x7F.
    #[test]
    fn the_sixteen_byte_scan_finds_every_special_byte_at_every_position() {
        for at in 0..16 {
            for byte in 0..=255u8 {
                let mut chunk = [b'a'; 16];
                chunk[at] = byte;
                let (special, high) = special_mask16(&chunk);
                let expected = if STRING_SPECIAL[byte as usize] { 1u32 << at } else { 0 };
                assert_eq!(special & ((1u32 << at) | ((1u32 << at) - 1)), expected, "byte {byte:#x} at {at}");
                assert_eq!(high, if byte >= 0x80 { 1u32 << at } else { 0 }, "byte {byte:#x} at {at}");
            }
        }
    }
}
