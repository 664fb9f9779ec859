//! Newline-delimited framing (the `mcp/stdio` module): the rules that cut an
//! inbound byte stream into lines, and the one place outgoing bytes get
//! their wire shape ([`encode_line`]).
//!
//! Rules: a line ends at `\n`; one trailing `\r` is stripped; empty lines
//! are skipped; a line (pending or completed) whose content is longer than
//! the stream's cap is [`FramingFault::LineTooLong`] — exactly the cap is
//! accepted. The cap is the caller's `max_line_bytes`, at most (and by
//! default) [`MAX_LINE_BYTES`]. A pending line that ends in `\r` is
//! measured without it, so whether a line is refused never depends on where
//! the stream was cut (the length reported for a refused pending line is
//! what had arrived of it).
//!
//! [`scan`] looks at one new chunk only, given a summary of what is held
//! ([`Pending`]); it never needs the held bytes, so a caller that appends
//! chunks to an accumulator does amortised linear work for a line of any
//! length. [`Buffer`] is such a caller (the Erlang `mcp_stdio` is another).

use crate::json::{self, EncodeError, Json};
use std::ops::Range;

/// The longest line content any stream accepts, in bytes (16 MiB): the
/// default cap, and the most a caller's `max_line_bytes` can be.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Why the stream cannot be framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FramingFault {
    #[error("line of {bytes} bytes is longer than max_line_bytes")]
    LineTooLong { bytes: usize },
}

/// What is held of the current partial line: its length and whether its
/// last byte is `\r` (which is stripped if `\n` comes next).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pending {
    pub bytes: usize,
    pub ends_with_cr: bool,
}

impl Pending {
    fn of(tail: &[u8]) -> Pending {
        Pending { bytes: tail.len(), ends_with_cr: tail.last() == Some(&b'\r') }
    }

    /// The line's length were it completed now.
    fn content_bytes(&self) -> usize {
        self.bytes.saturating_sub(usize::from(self.ends_with_cr))
    }
}

/// What becomes of the held partial line when a chunk arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// No newline in the chunk: all of it joins the pending line.
    Continues,
    /// The pending line completed empty and is skipped.
    Empty,
    /// The line is the first `keep` held bytes followed by `chunk[..end]`.
    Line { keep: usize, end: usize },
}

/// The framing of one chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    pub completion: Completion,
    /// Complete, non-empty lines lying wholly inside the chunk, in order.
    pub lines: Vec<Range<usize>>,
    /// `chunk[rest..]` starts the next pending line (0 when it continues).
    pub rest: usize,
    /// The summary of what is held after this chunk.
    pub pending: Pending,
}

/// Frames `chunk`, arriving after `pending` held bytes, refusing the first
/// line (completed, then inside the chunk, then pending) whose content is
/// longer than `max_line_bytes`; a cap above [`MAX_LINE_BYTES`] is
/// `MAX_LINE_BYTES`. Looks at the chunk only, once.
pub fn scan(pending: Pending, chunk: &[u8], max_line_bytes: usize) -> Result<Scan, FramingFault> {
    let cap = max_line_bytes.min(MAX_LINE_BYTES);
    let check = |bytes: usize| if bytes > cap { Err(FramingFault::LineTooLong { bytes }) } else { Ok(()) };
    let Some(first_newline) = find_newline(chunk, 0) else {
        let held = if chunk.is_empty() {
            pending
        } else {
            Pending { bytes: pending.bytes.saturating_add(chunk.len()), ends_with_cr: chunk.last() == Some(&b'\r') }
        };
        check(held.content_bytes())?;
        return Ok(Scan { completion: Completion::Continues, lines: Vec::new(), rest: 0, pending: held });
    };
    let end = strip_cr(chunk, 0, first_newline);
    let keep = if first_newline == 0 { pending.content_bytes() } else { pending.bytes };
    let completion = match keep.saturating_add(end) {
        0 => Completion::Empty,
        bytes => {
            check(bytes)?;
            Completion::Line { keep, end }
        }
    };
    let mut lines = Vec::new();
    let mut start = first_newline + 1;
    while let Some(newline) = find_newline(chunk, start) {
        let end = strip_cr(chunk, start, newline);
        if end > start {
            check(end - start)?;
            lines.push(start..end);
        }
        start = newline + 1;
    }
    let tail = Pending::of(&chunk[start..]);
    check(tail.content_bytes())?;
    Ok(Scan { completion, lines, rest: start, pending: tail })
}

/// The end of the line `chunk[start..newline]` without one trailing `\r`.
fn strip_cr(chunk: &[u8], start: usize, newline: usize) -> usize {
    if newline > start && chunk.get(newline - 1) == Some(&b'\r') {
        newline - 1
    } else {
        newline
    }
}

/// Whether `chunk` holds more than `budget` newlines. Stops at the
/// `budget + 1`th, so its cost is bounded by the budget as well as by the
/// chunk: a caller can decide cheaply whether framing the chunk (whose cost
/// grows with its lines) belongs on a dirty scheduler.
pub fn has_more_newlines_than(chunk: &[u8], budget: usize) -> bool {
    let mut from = 0;
    for _ in 0..=budget {
        match find_newline(chunk, from) {
            Some(newline) => from = newline + 1,
            None => return false,
        }
    }
    true
}

/// The index of the first `\n` at or after `from`, a word at a time.
fn find_newline(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let rest = bytes.get(from..)?;
    let mut words = rest.chunks_exact(8);
    let mut offset = from;
    for word in words.by_ref() {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let x = u64::from_le_bytes(eight) ^ NEWLINES;
        if (x.wrapping_sub(ONES) & !x & HIGHS) != 0 {
            return word.iter().position(|&b| b == b'\n').map(|at| offset + at);
        }
        offset += 8;
    }
    words.remainder().iter().position(|&b| b == b'\n').map(|at| offset + at)
}

/// A framer holding its partial line in memory: the reference use of
/// [`scan`], mirrored by the Erlang `mcp_stdio` buffer.
#[derive(Debug, Clone)]
pub struct Buffer {
    held: Vec<u8>,
    pending: Pending,
    max_line_bytes: usize,
}

impl Default for Buffer {
    fn default() -> Buffer {
        Buffer::with_max_line_bytes(MAX_LINE_BYTES)
    }
}

impl Buffer {
    /// A buffer refusing lines longer than [`MAX_LINE_BYTES`].
    pub fn new() -> Buffer {
        Buffer::default()
    }

    /// A buffer refusing lines longer than `max_line_bytes` (at most
    /// [`MAX_LINE_BYTES`], as for [`scan`]).
    pub fn with_max_line_bytes(max_line_bytes: usize) -> Buffer {
        Buffer { held: Vec::new(), pending: Pending::default(), max_line_bytes }
    }

    /// The complete lines `chunk` finishes, in order. After a fault the
    /// buffer is unusable (the stream is broken) and is left unchanged.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Vec<u8>>, FramingFault> {
        let framing = scan(self.pending, chunk, self.max_line_bytes)?;
        let mut lines = Vec::with_capacity(framing.lines.len() + 1);
        match framing.completion {
            Completion::Continues => {
                self.held.extend_from_slice(chunk);
                self.pending = framing.pending;
                return Ok(lines);
            }
            Completion::Empty => {}
            Completion::Line { keep, end } => {
                let mut line = std::mem::take(&mut self.held);
                line.truncate(keep);
                line.extend_from_slice(&chunk[..end]);
                lines.push(line);
            }
        }
        lines.extend(framing.lines.into_iter().map(|range| chunk[range].to_vec()));
        self.held.clear();
        self.held.extend_from_slice(&chunk[framing.rest..]);
        self.pending = framing.pending;
        Ok(lines)
    }
}

/// `value` as one wire line: compact JSON and `\n`. The JSON writer escapes
/// every control character, so the only newline is the last byte.
pub fn encode_line(value: &Json) -> Result<Vec<u8>, EncodeError> {
    let mut out = json::to_bytes(value)?;
    out.push(b'\n');
    Ok(out)
}

#[cfg(test)]
mod tests;
