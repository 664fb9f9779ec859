use super::*;
use proptest::prelude::*;

fn push_all(chunks: &[&[u8]]) -> Result<Vec<Vec<u8>>, FramingFault> {
    push_all_capped(chunks, MAX_LINE_BYTES)
}

fn push_all_capped(chunks: &[&[u8]], max_line_bytes: usize) -> Result<Vec<Vec<u8>>, FramingFault> {
    let mut buffer = Buffer::with_max_line_bytes(max_line_bytes);
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
    let framing = scan(Pending { bytes: 3, ends_with_cr: false }, b"de\nfg\r\n\nhi", MAX_LINE_BYTES).unwrap();
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

// ---- a lower cap ----

const CAP: usize = 100;

fn x(bytes: usize) -> Vec<u8> {
    vec![b'x'; bytes]
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

#[test]
fn capped_line_of_exactly_the_cap_is_accepted_and_one_more_refused() {
    let (exact, over) = (x(CAP), x(CAP + 1));
    let too_long = Err(FramingFault::LineTooLong { bytes: CAP + 1 });
    assert_eq!(push_all_capped(&[&cat(&[&exact, b"\n"])], CAP), Ok(vec![exact.clone()]));
    assert_eq!(push_all_capped(&[&cat(&[&exact, b"\r\n"])], CAP), Ok(vec![exact.clone()]));
    // Completed inside the chunk, completing a held line, and pending.
    assert_eq!(push_all_capped(&[&cat(&[b"a\n", &over, b"\nb\n"])], CAP), too_long);
    assert_eq!(push_all_capped(&[&exact, b"y\n"], CAP), too_long);
    assert_eq!(push_all_capped(&[&exact, b"y"], CAP), too_long);
    assert_eq!(push_all_capped(&[&cat(&[b"a\n", &over])], CAP), too_long);
    assert_eq!(push_all_capped(&[&cat(&[b"a\n", &exact])], CAP), Ok(lines(&["a"])));
    // A held CR is not counted: the line could still end in CRLF.
    assert_eq!(push_all_capped(&[&exact, b"\r", b"\n"], CAP), Ok(vec![exact.clone()]));
    assert_eq!(push_all_capped(&[&exact, b"\r", b"z"], CAP), Err(FramingFault::LineTooLong { bytes: CAP + 2 }));
}

#[test]
fn scan_takes_the_cap_and_never_more_than_max_line_bytes() {
    let none = Pending::default();
    assert_eq!(scan(none, b"ab\n", 1), Err(FramingFault::LineTooLong { bytes: 2 }));
    assert!(scan(none, b"a\n", 1).is_ok());
    // A cap above MAX_LINE_BYTES is MAX_LINE_BYTES.
    let held = |bytes| Pending { bytes, ends_with_cr: false };
    assert!(scan(held(MAX_LINE_BYTES - 1), b"x", usize::MAX).is_ok());
    assert_eq!(scan(held(MAX_LINE_BYTES), b"x", usize::MAX), Err(FramingFault::LineTooLong { bytes: MAX_LINE_BYTES + 1 }));
    assert_eq!(
        scan(held(MAX_LINE_BYTES), b"\n", MAX_LINE_BYTES + 1).map(|framing| framing.completion),
        Ok(Completion::Line { keep: MAX_LINE_BYTES, end: 0 })
    );
    // The first line past the cap is the one reported, whatever comes after.
    assert_eq!(scan(none, &cat(&[&x(CAP + 1), b"\n", &x(CAP + 5)]), CAP), Err(FramingFault::LineTooLong { bytes: CAP + 1 }));
}

#[test]
fn buffer_new_is_capped_at_max_line_bytes() {
    assert_eq!(Buffer::new().max_line_bytes, MAX_LINE_BYTES);
    assert_eq!(Buffer::default().max_line_bytes, MAX_LINE_BYTES);
}

/// The cap holds for every later line, fed one byte at a time: the first
/// line at the cap comes out, the next one is refused at its cap + 1st byte.
#[test]
fn capped_stream_fed_one_byte_at_a_time() {
    let exact = x(CAP);
    let stream = cat(&[b"{}\n", &exact, b"\r\n", &exact, b"y\n"]);
    let mut buffer = Buffer::with_max_line_bytes(CAP);
    let mut lines = Vec::new();
    let mut verdict = Ok(());
    for (at, byte) in stream.iter().enumerate() {
        match buffer.push(&[*byte]) {
            Ok(completed) => lines.extend(completed),
            Err(fault) => {
                verdict = Err((at, fault));
                break;
            }
        }
    }
    assert_eq!(lines, vec![b"{}".to_vec(), exact.clone()]);
    let refused_at = 3 + CAP + 2 + CAP;
    assert_eq!(verdict, Err((refused_at, FramingFault::LineTooLong { bytes: CAP + 1 })));
    assert_eq!(stream[refused_at], b'y');
}

#[test]
fn encode_line_is_compact_json_and_one_newline() {
    let value = Json::Object(vec![("a".into(), Json::str("line\nbreak\r"))]);
    assert_eq!(encode_line(&value).unwrap(), b"{\"a\":\"line\\nbreak\\r\"}\n");
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

    /// Whether a capped stream is refused does not depend on the chunking:
    /// its lines come out when none is longer than the cap (a held last
    /// line counts); otherwise it is refused with a length past the cap
    /// and at most the first overlong line's (where it notices depends on
    /// the cuts, what it notices does not).
    #[test]
    fn a_capped_line_is_judged_the_same_whatever_the_chunking(
        cap in 1usize..24,
        stream in prop::collection::vec(prop_oneof![4 => Just(b'x'), 1 => Just(b'\r'), 1 => Just(b'\n')], 0..120),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
    ) {
        let mut offsets: Vec<usize> = cuts.iter().map(|cut| cut.index(stream.len() + 1)).collect();
        offsets.extend([0, stream.len()]);
        offsets.sort_unstable();
        let chunks: Vec<&[u8]> = offsets.windows(2).map(|w| &stream[w[0]..w[1]]).collect();
        let one_byte: Vec<&[u8]> = stream.chunks(1).collect();
        let contents: Vec<&[u8]> = stream.split(|&b| b == b'\n').map(|line| line.strip_suffix(b"\r").unwrap_or(line)).collect();
        let first_overlong = contents.iter().map(|line| line.len()).find(|&bytes| bytes > cap);
        for framing in [&[&stream[..]][..], &chunks, &one_byte] {
            match (first_overlong, push_all_capped(framing, cap)) {
                (None, Ok(lines)) => {
                    let expected: Vec<Vec<u8>> = contents[..contents.len() - 1].iter().filter(|line| !line.is_empty()).map(|line| line.to_vec()).collect();
                    prop_assert_eq!(lines, expected);
                }
                (Some(first), Err(FramingFault::LineTooLong { bytes })) => prop_assert!(bytes > cap && bytes <= first, "{} not in {}..={}", bytes, cap + 1, first),
                (expected, got) => prop_assert!(false, "first overlong {:?}, framed {:?}", expected, got),
            }
        }
    }

    #[test]
    fn encode_line_holds_exactly_one_newline(value in crate::jsonrpc::tests::arb_json()) {
        let framed = encode_line(&value).unwrap();
        prop_assert_eq!(framed.iter().filter(|&&b| b == b'\n').count(), 1);
        prop_assert_eq!(framed.last(), Some(&b'\n'));
    }
}
