//// Newline framing of the stdio wire (`mcp_stdio`): inbound bytes cut into
//// lines. A line is limited to `max_line_bytes()` of content (or a buffer's
//// own cap, `new_capped`), however the stream is chunked. The outbound line
//// is `json.encode_line`.

/// The partial line held between chunks.
pub type Buffer

pub type FramingFault {
  /// A line's content passed the buffer's cap; `bytes` is how much of it
  /// had arrived (more than the cap).
  LineTooLong(bytes: Int)
  /// The chunk is a `BitArray` of `bits` bits, not whole bytes: no stream
  /// carries one.
  ChunkNotWholeBytes(bits: Int)
}

/// An empty buffer with the `max_line_bytes()` cap.
@external(erlang, "mcp_stdio", "new")
pub fn new() -> Buffer

/// A buffer that refuses lines longer than `max_line_bytes` (`Error(Nil)`
/// unless it is from 1 to `max_line_bytes()`).
@external(erlang, "mcp_gleam_ffi", "stdio_new_capped")
pub fn new_capped(max_line_bytes: Int) -> Result(Buffer, Nil)

/// Feeds one chunk; returns the lines it completed (without `\n` or `\r\n`;
/// empty lines are skipped) and the buffer holding the rest. After an
/// `Error` the stream is broken: there is no buffer to go on with.
@external(erlang, "mcp_gleam_ffi", "stdio_push")
pub fn push(
  buffer: Buffer,
  chunk: BitArray,
) -> Result(#(List(BitArray), Buffer), FramingFault)

/// `push` with each line's stream offset: the position of its first byte in
/// everything pushed into this buffer.
@external(erlang, "mcp_gleam_ffi", "stdio_push_with_offsets")
pub fn push_with_offsets(
  buffer: Buffer,
  chunk: BitArray,
) -> Result(#(List(#(Int, BitArray)), Buffer), FramingFault)

/// The longest line content a buffer accepts: 16 MiB (16,777,216 bytes).
@external(erlang, "mcp_stdio", "max_line_bytes")
pub fn max_line_bytes() -> Int
