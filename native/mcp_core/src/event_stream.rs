//! Event-stream framing (`text/event-stream`, the WHATWG "server-sent
//! events" interpretation): the rules that cut a Streamable HTTP response
//! body into events, beside the newline framing of [`crate::stdio`].
//!
//! Rules: a line ends at `\r\n`, `\n` or `\r` (a `\r` at the end of one
//! chunk and a `\n` at the start of the next are one line end); a UTF-8 BOM
//! at the very start is skipped; a line starting with `:` is a comment; a
//! field is `name:value` with one leading space of the value stripped (no
//! colon: the whole line is the name, the value empty). `data` appends the
//! value and `\n` to the event's data, `event` sets its type, `id` sets the
//! last event id (ignored when it holds NUL), `retry` (ASCII digits only)
//! yields [`Item::Retry`]; other fields are ignored. An empty line
//! dispatches the event when its data is not empty (the final `\n`
//! removed), and makes the id the stream's last event id either way.
//!
//! What a push brought: [`Decoder::heard`] says whether it added a byte to
//! the value of a `data` field of an event whose type so far is empty or
//! `message` (an event of another type is not a message, whatever its
//! data), counting the line still being read, so a long `data` line is
//! heard while it arrives. Comments, other fields, lines of other names,
//! empty values and line ends are not heard. An `event` line after an
//! event's `data` lines does not take back what they brought.
//!
//! Ids: an `id` longer than [`MAX_EVENT_ID_BYTES`] is not kept; the stream
//! then has no last event id (none can be echoed, and an older one would
//! replay what was delivered) until a shorter one comes. What a push hands
//! back of the id and what a dispatch does with it are bounded by that cap,
//! not by the event's.
//!
//! Bound: the data held for the current event plus the line being read may
//! not pass the decoder's cap ([`EventStreamFault::EventTooLong`]); exactly
//! the cap is accepted. Completed lines are measured as pending ones are,
//! so whether a stream is refused never depends on where it was cut. What
//! the decoder holds is at most about twice the cap (data and line, type)
//! and two ids; [`Decoder::held_bytes`] counts all of it, what a push may
//! hand back beside its chunk.
//! After a fault the decoder is broken: every later push repeats the fault.

use crate::stdio::MAX_LINE_BYTES;

/// The largest event any stream accepts, in bytes: the stdio line cap.
pub const MAX_EVENT_BYTES: usize = MAX_LINE_BYTES;

/// The longest event id the decoder keeps, in bytes (the HTTP transport
/// echoes no longer one as `Last-Event-ID`).
pub const MAX_EVENT_ID_BYTES: usize = 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why the stream cannot be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EventStreamFault {
    #[error("event of {bytes} bytes is longer than max_event_bytes")]
    EventTooLong { bytes: usize },
}

/// What one push yields, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A dispatched event: its type (empty when none was given, which
    /// means `message`) and its data (the `data` lines joined by `\n`).
    Event { kind: Vec<u8>, data: Vec<u8> },
    /// The server's reconnection time, in milliseconds (saturating).
    Retry(u64),
}

/// An event-stream decoder holding the partial line and the event being
/// built.
#[derive(Debug, Clone)]
pub struct Decoder {
    max_event_bytes: usize,
    /// Bytes of a possible BOM seen at the very start (`None` once decided).
    start: Option<Vec<u8>>,
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a leading `\n` belongs to it.
    after_cr: bool,
    data: Vec<u8>,
    kind: Vec<u8>,
    id_buffer: Option<Vec<u8>>,
    /// An `id` field was read since the last dispatch.
    id_set: bool,
    last_event_id: Option<Vec<u8>>,
    broken: Option<EventStreamFault>,
    /// The last push added a byte to a message's `data` value.
    heard: bool,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::with_max_event_bytes(MAX_EVENT_BYTES)
    }
}

impl Decoder {
    /// A decoder refusing events longer than [`MAX_EVENT_BYTES`].
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// A decoder refusing events longer than `max_event_bytes` (at most
    /// [`MAX_EVENT_BYTES`]).
    pub fn with_max_event_bytes(max_event_bytes: usize) -> Decoder {
        Decoder {
            max_event_bytes: max_event_bytes.min(MAX_EVENT_BYTES),
            start: Some(Vec::new()),
            line: Vec::new(),
            after_cr: false,
            data: Vec::new(),
            kind: Vec::new(),
            id_buffer: None,
            id_set: false,
            last_event_id: None,
            broken: None,
            heard: false,
        }
    }

    /// The id of the last dispatched event (set by the latest empty line
    /// after an `id` field), for `Last-Event-ID`.
    pub fn last_event_id(&self) -> Option<&[u8]> {
        self.last_event_id.as_deref()
    }

    /// Whether the last push added a byte to the value of a `data` field
    /// of an event typed `message` (or untyped) so far, the line still
    /// being read included (the module doc).
    pub fn heard(&self) -> bool {
        self.heard
    }

    /// Bytes held that a push may copy or hand back beside its chunk: the
    /// current event's data and type, the line being read, and the ids (at
    /// most [`MAX_EVENT_ID_BYTES`] each). The cap bounds the data and the
    /// line; this bounds a push's work for the NIF's scheduling.
    pub fn held_bytes(&self) -> usize {
        let id_bytes = |id: &Option<Vec<u8>>| id.as_ref().map_or(0, Vec::len);
        self.data
            .len()
            .saturating_add(self.line.len())
            .saturating_add(self.kind.len())
            .saturating_add(id_bytes(&self.id_buffer))
            .saturating_add(id_bytes(&self.last_event_id))
    }

    /// The items `chunk` completes, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Item>, EventStreamFault> {
        self.heard = false;
        if let Some(fault) = self.broken {
            return Err(fault);
        }
        let mut items = Vec::new();
        let result = self.push_into(chunk, &mut items);
        if let Err(fault) = result {
            self.broken = Some(fault);
            return Err(fault);
        }
        Ok(items)
    }

    fn push_into(&mut self, chunk: &[u8], items: &mut Vec<Item>) -> Result<(), EventStreamFault> {
        let chunk = match self.start.take() {
            None => chunk,
            Some(mut seen) => {
                let take = (BOM.len() - seen.len()).min(chunk.len());
                seen.extend_from_slice(&chunk[..take]);
                if !BOM.starts_with(&seen) {
                    self.lines(&seen, items)?;
                } else if seen.len() < BOM.len() {
                    self.start = Some(seen);
                    return Ok(());
                }
                &chunk[take..]
            }
        };
        self.lines(chunk, items)
    }

    fn lines(&mut self, mut bytes: &[u8], items: &mut Vec<Item>) -> Result<(), EventStreamFault> {
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if bytes[0] == b'\n' {
                bytes = &bytes[1..];
            }
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            let line = &bytes[..end];
            if self.line.is_empty() {
                self.check(line.len())?;
                self.heard |= self.hears(0, line);
                self.field(line, items);
            } else {
                self.check(self.line.len().saturating_add(line.len()))?;
                let mut held = std::mem::take(&mut self.line);
                let before = data_value_bytes(&held);
                held.extend_from_slice(line);
                self.heard |= self.hears(before, &held);
                self.field(&held, items);
            }
            let crlf = bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n');
            if bytes[end] == b'\r' && end + 1 == bytes.len() {
                self.after_cr = true;
            }
            bytes = &bytes[end + 1 + usize::from(crlf)..];
        }
        self.check(self.line.len().saturating_add(bytes.len()))?;
        let before = data_value_bytes(&self.line);
        self.line.extend_from_slice(bytes);
        self.heard |= self.hears(before, &self.line);
        Ok(())
    }

    /// Whether a line (whole, or as read so far) whose `data` value held
    /// `before` bytes before this push is heard: it holds more now, in an
    /// event typed `message` or untyped so far.
    fn hears(&self, before: usize, line: &[u8]) -> bool {
        data_value_bytes(line) > before && (self.kind.is_empty() || self.kind == b"message")
    }

    /// Refuses a line of `line_bytes` on top of the event's data.
    fn check(&self, line_bytes: usize) -> Result<(), EventStreamFault> {
        let bytes = self.data.len().saturating_add(line_bytes);
        if bytes > self.max_event_bytes {
            Err(EventStreamFault::EventTooLong { bytes })
        } else {
            Ok(())
        }
    }

    fn field(&mut self, line: &[u8], items: &mut Vec<Item>) {
        if line.is_empty() {
            self.dispatch(items);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => self.kind = value.to_vec(),
            b"id" if !value.contains(&0) => {
                self.id_buffer = (value.len() <= MAX_EVENT_ID_BYTES).then(|| value.to_vec());
                self.id_set = true;
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms = value.iter().fold(0u64, |ms, &digit| ms.saturating_mul(10).saturating_add(u64::from(digit - b'0')));
                items.push(Item::Retry(ms));
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, items: &mut Vec<Item>) {
        // The last event id is the id buffer at every dispatch; it changes
        // only when an `id` field was read (a blank line costs no copy or
        // comparison of it).
        if std::mem::take(&mut self.id_set) {
            self.last_event_id.clone_from(&self.id_buffer);
        }
        let kind = std::mem::take(&mut self.kind);
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        items.push(Item::Event { kind, data });
    }
}

/// The bytes of a `data` field's value in `line` (whole, or as read so
/// far): after `data:` and the one space the field strips; 0 for any other
/// line.
fn data_value_bytes(line: &[u8]) -> usize {
    match line.strip_prefix(b"data:") {
        Some(value) => value.strip_prefix(b" ").unwrap_or(value).len(),
        None => 0,
    }
}

#[cfg(test)]
mod tests;
