import gleam/bit_array
import gleam/list
import mcp/internal/scheduling
import mcp/json.{Object}
import mcp/stdio.{LineTooLong}
import mcp/test_support

fn feed_bytes(buffer: stdio.Buffer, bytes: BitArray, lines: List(BitArray)) {
  case bytes {
    <<byte:bytes-size(1), rest:bytes>> -> {
      let assert Ok(#(new_lines, next)) = stdio.push(buffer, byte)
      feed_bytes(next, rest, list.append(lines, new_lines))
    }
    _ -> lines
  }
}

// Empty lines are skipped; `\r\n` ends a line like `\n`.
pub fn one_byte_at_a_time_test() {
  let stream = <<"{\"a\":1}\r\n\n[2]\nrest":utf8>>
  let assert [<<"{\"a\":1}":utf8>>, <<"[2]":utf8>>] =
    feed_bytes(stdio.new(), stream, [])
}

pub fn whole_chunk_test() {
  let assert Ok(#([<<"x":utf8>>, <<"y":utf8>>], _)) =
    stdio.push(stdio.new(), <<"x\ny\nz":utf8>>)
}

pub fn line_cap_both_sides_test() {
  let max = stdio.max_line_bytes()
  let assert 16_777_216 = max
  let at_cap = test_support.bytes_of(<<"a":utf8>>, max)
  let assert Ok(#([line], _)) =
    stdio.push(stdio.new(), bit_array.append(at_cap, <<"\n":utf8>>))
  let assert True = bit_array.byte_size(line) == max
  let assert Error(LineTooLong(bytes)) =
    stdio.push(stdio.new(), bit_array.append(at_cap, <<"a\n":utf8>>))
  let assert True = bytes == max + 1
}

pub fn capped_buffer_both_sides_test() {
  let assert Ok(capped) = stdio.new_capped(10)
  let assert Ok(#([<<"0123456789":utf8>>], _)) =
    stdio.push(capped, <<"0123456789\n":utf8>>)
  let assert Error(LineTooLong(11)) = stdio.push(capped, <<"01234567890":utf8>>)
  let assert Ok(_) = stdio.new_capped(stdio.max_line_bytes())
  let assert Error(Nil) = stdio.new_capped(0)
  let assert Error(Nil) = stdio.new_capped(stdio.max_line_bytes() + 1)
}

pub fn encode_line_is_the_outbound_line_test() {
  let assert Ok("{}\n") = json.encode_line(Object([]))
  let assert Error(json.NestedTooDeep) =
    json.encode_line(nested(json.max_depth() + 1))
}

fn nested(depth: Int) -> json.JsonValue {
  case depth {
    0 -> Object([])
    _ -> json.Array([nested(depth - 1)])
  }
}

pub fn push_with_offsets_gives_stream_offsets_test() {
  let assert Ok(#([#(0, <<"ab":utf8>>)], buffer)) =
    stdio.push_with_offsets(stdio.new(), <<"ab\ncd":utf8>>)
  let assert Ok(#([#(3, <<"cde":utf8>>)], _)) =
    stdio.push_with_offsets(buffer, <<"e\n":utf8>>)
}

/// A chunk of the dirty threshold's size is framed on a dirty scheduler,
/// with the answer a small chunk gets.
pub fn dirty_threshold_sized_chunk_test() {
  let pairs = scheduling.stdio_dirty_threshold() / 2
  let chunk = test_support.bytes_of(<<"a\n":utf8>>, pairs)
  let assert True =
    bit_array.byte_size(chunk) >= scheduling.stdio_dirty_threshold()
  let assert Ok(#(lines, _)) = stdio.push(stdio.new(), chunk)
  let assert True = list.length(lines) == pairs
  let assert True = list.all(lines, fn(line) { line == <<"a":utf8>> })
}
