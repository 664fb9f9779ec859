use super::*;
use proptest::prelude::*;

fn push_all(chunks: &[&[u8]]) -> Result<Vec<Vec<u8>>, FramingFault> {
    let mut buffer = Buffer::new();
    let mut lines = Vec::new();
    for chunk in chunks {
        lines.extend(buffer.push(chunk)?);
    }
    Ok(lines)
}

fn lines(texts: &[&str]) -> Vec<Vec<u8>> {
    texts.iter().map(|text| text.as_bytes().to_vec()).collect()
}

/// A recorded exchange: an initialize result, a notification, a CRLF
/// line, blank lines and a partial line at the end.
const RECORDED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\
\n\
{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"caf\xc3\xa9\"}}\r\n\
\r\n\
{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n\
{\"jsonrpc\":\"2.0\",\"id\":2,";

fn recorded_lines() -> Vec<Vec<u8>> {
    let text = std::str::from_utf8(RECORDED).unwrap();
    text.split('\n').filter(|l| !l.is_empty() && *l != "\r").map(|l| l.trim_end_matches('\r').as_bytes().to_vec()).take(3).collect()
}

#[test]
fn recorded_stream_whole_and_one_byte_at_a_time() {
    assert_eq!(recorded_lines().len(), 3);
    assert_eq!(push_all(&[RECORDED]).unwrap(), recorded_lines());
    let bytes: Vec<&[u8]> = RECORDED.chunks(1).collect();
    assert_eq!(push_all(&bytes).unwrap(), recorded_lines());
}

#[test]
fn crlf_and_lone_cr() {
    assert_eq!(push_all(&[b"a\r\nb\n"]).unwrap(), lines(&["a", "b"]));
    // Only one trailing CR is stripped; a CR elsewhere stays.
    assert_eq!(push_all(&[b"a\r\r\n\rb\n"]).unwrap(), lines(&["a\r", "\rb"]));
    // A CR held at the end of one chunk is stripped when LF opens the next.
    assert_eq!(push_all(&[b"ab\r", b"\ncd\r", b"x\n"]).unwrap(), lines(&["ab", "cd\rx"]));
    // A CR alone on a line makes an empty line, which is skipped.
    assert_eq!(push_all(&[b"\r", b"\n", b"\r\n"]).unwrap(), lines(&[]));
}

#[test]
fn empty_lines_and_chunks_are_skipped() {
    assert_eq!(push_all(&[b"", b"\n\n\n", b"", b"x", b"", b"\n"]).unwrap(), lines(&["x"]));
}

#[test]
fn partial_line_is_held() {
    let mut buffer = Buffer::new();
    assert_eq!(buffer.push(b"{\"a\":").unwrap(), lines(&[]));
    assert_eq!(buffer.push(b"1}\n{\"b\"").unwrap(), lines(&["{\"a\":1}"]));
    assert_eq!(buffer.push(b":2}\n").unwrap(), lines(&["{\"b\":2}"]));
}

#[test]
fn scan_reports_lines_as_ranges_of_the_chunk() {
    let framing = scan(Pending { bytes: 3, ends_with_cr: false }, b"de\nfg\r\n\nhi").unwrap();
    assert_eq!(framing.completion, Completion::Line { keep: 3, end: 2 });
    assert_eq!(framing.lines, vec![3..5]);
    assert_eq!(framing.rest, 8);
    assert_eq!(framing.pending, Pending { bytes: 2, ends_with_cr: false });
}

const MAX: usize = MAX_LINE_BYTES;

#[test]
fn completed_line_of_exactly_max_is_accepted_and_one_more_is_not() {
    let mut line = vec![b'x'; MAX];
    line.push(b'\n');
    assert_eq!(push_all(&[&line]).unwrap()[0].len(), MAX);
    line.insert(0, b'x');
    assert_eq!(push_all(&[&line]), Err(FramingFault::LineTooLong { bytes: MAX + 1 }));
    // Inside a chunk, after another line.
    let mut chunk = b"a\n".to_vec();
    chunk.extend_from_slice(&line);
    assert_eq!(push_all(&[&chunk]), Err(FramingFault::LineTooLong { bytes: MAX + 1 }));
}

#[test]
fn completed_line_of_max_with_crlf_is_accepted() {
    let mut line = vec![b'x'; MAX];
    line.extend_from_slice(b"\r\n");
    assert_eq!(push_all(&[&line]).unwrap()[0].len(), MAX);
    // The CR held as the last pending byte does not count either.
    assert_eq!(push_all(&[&line[..MAX + 1], b"\n"]).unwrap()[0].len(), MAX);
}

#[test]
fn completed_line_over_max_across_chunks() {
    let body = vec![b'x'; MAX];
    assert_eq!(push_all(&[&body, b"y\n"]), Err(FramingFault::LineTooLong { bytes: MAX + 1 }));
    assert_eq!(push_all(&[&body, b"\n"]).unwrap()[0].len(), MAX);
}

#[test]
fn pending_line_of_max_is_held_and_one_more_byte_is_refused() {
    let mut buffer = Buffer::new();
    let half = vec![b'x'; MAX / 2];
    assert_eq!(buffer.push(&half).unwrap(), lines(&[]));
    assert_eq!(buffer.push(&half).unwrap(), lines(&[]));
    // Exactly MAX pending plus a CR is still a line that could be accepted.
    assert_eq!(buffer.push(b"\r").unwrap(), lines(&[]));
    assert_eq!(buffer.clone().push(b"y"), Err(FramingFault::LineTooLong { bytes: MAX + 2 }));
    assert_eq!(buffer.push(b"\n").unwrap()[0].len(), MAX);
    // A fresh pending tail after a newline is limited too.
    let mut chunk = b"a\n".to_vec();
    chunk.extend(std::iter::repeat_n(b'x', MAX + 1));
    assert_eq!(Buffer::new().push(&chunk), Err(FramingFault::LineTooLong { bytes: MAX + 1 }));
    chunk.pop();
    assert_eq!(Buffer::new().push(&chunk).unwrap(), lines(&["a"]));
}

#[test]
fn pending_line_past_max_in_small_chunks() {
    let mut buffer = Buffer::new();
    let block = vec![b'x'; 4096];
    for _ in 0..MAX / 4096 {
        assert_eq!(buffer.push(&block).unwrap(), lines(&[]));
    }
    assert_eq!(buffer.push(b"z"), Err(FramingFault::LineTooLong { bytes: MAX + 1 }));
}

#[test]
fn frame_is_compact_json_and_one_newline() {
    let value = Json::Object(vec![("a".into(), Json::str("line\nbreak\r"))]);
    assert_eq!(frame(&value).unwrap(), b"{\"a\":\"line\\nbreak\\r\"}\n");
}

#[test]
fn find_newline_agrees_with_a_plain_search() {
    let text = b"0123456789abcdef\n0123456\n89\n";
    for from in 0..=text.len() {
        assert_eq!(find_newline(text, from), text[from..].iter().position(|&b| b == b'\n').map(|at| at + from), "{from}");
    }
    assert_eq!(find_newline(b"abc", 4), None);
}

#[test]
fn newline_budget_both_sides() {
    assert!(!has_more_newlines_than(b"", 0));
    assert!(!has_more_newlines_than(b"abc", 0));
    assert!(has_more_newlines_than(b"a\n", 0));
    assert!(!has_more_newlines_than(b"\n\nx\n", 3));
    assert!(has_more_newlines_than(b"\n\nx\n\n", 3));
}

proptest! {
    #[test]
    fn any_chunking_yields_the_lines_of_the_whole(stream in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), any::<u8>()], 0..200),
                                                   cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10)) {
        let whole = push_all(&[&stream]).unwrap();
        let mut offsets: Vec<usize> = cuts.iter().map(|cut| cut.index(stream.len() + 1)).collect();
        offsets.extend([0, stream.len()]);
        offsets.sort_unstable();
        let chunks: Vec<&[u8]> = offsets.windows(2).map(|w| &stream[w[0]..w[1]]).collect();
        prop_assert_eq!(&push_all(&chunks).unwrap(), &whole);
        // The lines are what splitting the stream says they are.
        let mut expected: Vec<Vec<u8>> = stream.split(|&b| b == b'\n').map(|line| line.strip_suffix(b"\r").unwrap_or(line).to_vec()).collect();
        expected.pop();
        expected.retain(|line| !line.is_empty());
        prop_assert_eq!(whole, expected);
    }

    #[test]
    fn frame_holds_exactly_one_newline(value in crate::jsonrpc::tests::arb_json()) {
        let framed = frame(&value).unwrap();
        prop_assert_eq!(framed.iter().filter(|&&b| b == b'\n').count(), 1);
        prop_assert_eq!(framed.last(), Some(&b'\n'));
    }
}
