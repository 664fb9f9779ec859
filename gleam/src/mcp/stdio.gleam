//// Newline framing of the stdio wire (`mcp_stdio`), both ways. A line is
//// limited to `max_line_bytes()` of content, however the stream is chunked.

import mcp/json.{type EncodeError, type JsonValue}

/// The partial line held between chunks.
pub type Buffer

pub type FramingFault {
  LineTooLong(bytes: Int)
}

@external(erlang, "mcp_stdio", "new")
pub fn new() -> Buffer

/// A buffer that refuses lines longer than `max_line_bytes` (`Error(Nil)`
/// unless it is from 1 to `max_line_bytes()`).
@external(erlang, "mcp_gleam_ffi", "stdio_new_capped")
pub fn new_capped(max_line_bytes: Int) -> Result(Buffer, Nil)

/// Feeds one chunk; returns the lines it completed (without `\n` or `\r\n`)
/// and the buffer holding the rest.
@external(erlang, "mcp_gleam_ffi", "stdio_push")
pub fn push(
  buffer: Buffer,
  chunk: BitArray,
) -> Result(#(List(BitArray), Buffer), FramingFault)

/// `push` with each line's stream offset: the position of its first byte in
/// everything pushed into this buffer.
@external(erlang, "mcp_gleam_ffi", "stdio_read")
pub fn read(
  buffer: Buffer,
  chunk: BitArray,
) -> Result(#(List(#(Int, BitArray)), Buffer), FramingFault)

/// Compact single-line JSON plus `"\n"`, or which encoder limit the
/// message breaks.
@external(erlang, "mcp_gleam_ffi", "stdio_frame")
pub fn frame(message: JsonValue) -> Result(String, EncodeError)

/// 16 MiB.
@external(erlang, "mcp_stdio", "max_line_bytes")
pub fn max_line_bytes() -> Int
