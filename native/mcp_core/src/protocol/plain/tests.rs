use super::super::read::{read, read_in_full, Answer, Expect, Outcome, Reading, ROUTED_FROM_BYTES};
use super::super::{CallToolResult, ContentBlock};
use super::scan;
use crate::json::MAX_DEPTH;
use proptest::prelude::*;

fn answer(id: i64, content: Vec<ContentBlock>, is_error: bool) -> Reading {
    Reading::Answer {
        id,
        outcome: Outcome::Answer(Answer::CallTool(CallToolResult { content, is_error, structured_content: None })),
    }
}

fn text(value: &str) -> ContentBlock {
    ContentBlock::Text(value.to_owned())
}

/// Reads `line` with the scan and in full, for each expectation, and
/// requires the same reading; the reading of a `CallTool`.
fn read_both_ways(line: &[u8]) -> Result<Reading, super::super::read::LineFault> {
    for expected in [None, Some(Expect::RoutedCallTool), Some(Expect::Ping), Some(Expect::ToolsPage), Some(Expect::RoutedResult)] {
        assert_eq!(
            read(line, |_| expected),
            read_in_full(line, |_| expected),
            "{expected:?}: {}",
            String::from_utf8_lossy(line)
        );
    }
    let scanned = read(line, |_| Some(Expect::CallTool));
    assert_eq!(scanned, read_in_full(line, |_| Some(Expect::CallTool)), "{}", String::from_utf8_lossy(line));
    scanned
}

#[test]
fn lines_of_the_common_shape_are_scanned() {
    for (line, expected) in [
        (&br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}"#[..], answer(7, vec![text("hi")], false)),
        (br#"{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":12345}"#, answer(12345, vec![text("Echo: hello")], false)),
        (
            b" {\t\"id\" : 0 ,\r\"result\": { \"isError\" : true , \"content\" : [ ] , \"_meta\" : {\"a\":[1,{\"b\":null}]} } , \"jsonrpc\" : \"2.0\" }\n",
            answer(0, vec![], true),
        ),
        (
            br#"{"jsonrpc":"2.0","id":999999999999999999,"result":{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"text":"a\nb\u00e9\"","annotations":{"audience":["user"]},"type":"text","_meta":{}}],"isError":false}}"#,
            answer(999_999_999_999_999_999, vec![ContentBlock::Other("image".into()), text("a\nbé\"")], false),
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"resource\",\"text\":5},{\"type\":\"text\",\"text\":\"\u{1F600} ü\"}]}}".as_bytes(),
            answer(3, vec![ContentBlock::Other("resource".into()), text("\u{1F600} ü")], false),
        ),
    ] {
        assert!(scan(line).is_some(), "{}", String::from_utf8_lossy(line));
        assert_eq!(read_both_ways(line), Ok(expected));
        let long = [&[b' '; ROUTED_FROM_BYTES][..], line].concat();
        assert!(scan(&long).is_some());
        let id = match read(&long, |_| Some(Expect::RoutedCallTool)) {
            Ok(Reading::Routed { id }) => id,
            other => panic!("{other:?}"),
        };
        assert!(id >= 0);
    }
}

#[test]
fn other_lines_are_read_in_full() {
    for line in [
        // What the decoder reads otherwise, or what only the full reading names.
        &br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"a":1}}}"#[..],
        br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","content":[]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":null}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":null}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text"}]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":null}]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":null,"text":"x"}]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[7]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"te\u0078t","text":"x"}]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"cont\u0065nt":[]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"content":[]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a","text":"b"}]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"extra":1}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]},"extra":1}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]},"id":7}"#,
        br#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":7,"result":{"content":[]}}"#,
        br#"{"jsonrpc":"1.0","id":7,"result":{"content":[]}}"#,
        br#"{"jsonrpc":"2.0","result":{"content":[]}}"#,
        br#"{"id":7,"result":{"content":[]}}"#,
        br#"{"jsonrpc":"2.0","id":7}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]},"error":{"code":1,"message":"x"}}"#,
        // Ids that are not plain non-negative integers below 10^18.
        br#"{"jsonrpc":"2.0","id":-7,"result":{"content":[]}}"#,
        br#"{"jsonrpc":"2.0","id":07,"result":{"content":[]}}"#,
        br#"{"jsonrpc":"2.0","id":7.0,"result":{"content":[]}}"#,
        br#"{"jsonrpc":"2.0","id":7e0,"result":{"content":[]}}"#,
        br#"{"jsonrpc":"2.0","id":"7","result":{"content":[]}}"#,
        br#"{"jsonrpc":"2.0","id":1000000000000000000,"result":{"content":[]}}"#,
        // Not JSON.
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a	b"}]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"\x"}]}}"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}}",
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":tru}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":truex}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"_meta":{"a":}}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[,]}}"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}} x"#,
        br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]},}"#,
    ] {
        // (A text with escapes is validated after the scan.)
        assert!(scan(line).is_none_or(|plain| !plain.validated()), "{}", String::from_utf8_lossy(line));
        let _ = read_both_ways(line);
    }
}

/// Every prefix of a scanned line (a line cut anywhere) is read in full.
#[test]
fn a_line_cut_short_is_read_in_full() {
    let line = br#"{"jsonrpc":"2.0","id":42,"result":{"_meta":{"k":[1,2]},"content":[{"type":"text","text":"x\ty"},{"type":"audio","data":""}],"isError":false}}"#;
    assert!(scan(line).is_some());
    for end in 0..line.len() {
        assert_eq!(scan(&line[..end]), None, "cut at {end}");
        assert!(read_both_ways(&line[..end]).is_err(), "cut at {end}");
    }
}

/// A block member nests as deep as the line allows (four containers are
/// around it), and one more is the line's corruption.
#[test]
fn members_nest_as_deep_as_the_line_allows() {
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    for (around, place) in [(4, "block"), (2, "meta")] {
        let line = |depth: usize| {
            let value = nested(depth);
            match place {
                "block" => format!(
                    r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"t","x":{value}}}]}}}}"#
                ),
                _ => format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[],"_meta":{value}}}}}"#),
            }
        };
        let deepest = line(MAX_DEPTH - around);
        assert!(scan(deepest.as_bytes()).is_some(), "{place}");
        assert!(read_both_ways(deepest.as_bytes()).is_ok());
        let deeper = line(MAX_DEPTH - around + 1);
        assert_eq!(scan(deeper.as_bytes()), None, "{place}");
        assert!(read_both_ways(deeper.as_bytes()).is_err());
    }
}

fn whitespace() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["", "", "", " ", "\t", "\r\n ", "  "]).prop_map(str::to_owned)
}

/// A JSON string's text as written on the wire: plain or with escapes.
fn wire_string() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        r#""text""#,
        r#""image""#,
        r#""""#,
        r#""a b""#,
        r#""t\u0065xt""#,
        r#""\n\"\\""#,
        r#""\ud83d\ude00""#,
        "\"\u{e9}\u{1F600}\"",
        r#""\ud800""#,
        r#""\q""#,
        "\"a\tb\"",
    ])
    .prop_map(str::to_owned)
}

fn wire_value() -> impl Strategy<Value = String> {
    prop_oneof![
        wire_string(),
        prop::sample::select(vec![
            "null",
            "true",
            "false",
            "0",
            "-1",
            "07",
            "1.5",
            "1e400",
            "[]",
            "{}",
            r#"{"a":[1,{"b":null}]}"#,
            "[1,]",
            "tru",
            "nul"
        ])
        .prop_map(str::to_owned),
    ]
}

fn wire_object(members: Vec<(String, String)>, ws: Vec<String>) -> String {
    let mut out = String::from("{");
    for (index, (key, value)) in members.iter().enumerate() {
        let w = |k: usize| ws[(index * 4 + k) % ws.len()].as_str();
        if index > 0 {
            out.push(',');
        }
        out.push_str(&format!("{}{key}{}:{}{value}{}", w(0), w(1), w(2), w(3)));
    }
    out.push('}');
    out
}

fn wire_block() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        r#""type""#,
        r#""type""#,
        r#""text""#,
        r#""text""#,
        r#""data""#,
        r#""_meta""#,
        r#""t\u0065xt""#,
    ]);
    let any_members = prop::collection::vec((key.prop_map(str::to_owned), wire_value()), 0..4);
    // Mostly a block the scan reads: a text block, or another kind.
    let readable = (wire_string(), prop::option::of(wire_value()), any::<bool>()).prop_map(|(text, extra, other)| {
        let mut members = vec![(r#""type""#.to_owned(), if other { r#""image""# } else { r#""text""# }.to_owned())];
        members.push((r#""text""#.to_owned(), text));
        members.extend(extra.map(|value| (r#""annotations""#.to_owned(), value)));
        members
    });
    (
        prop_oneof![3 => readable, 1 => any_members],
        prop::collection::vec(whitespace(), 1..8),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(mut members, ws, turn)| {
            let turn = turn.index(members.len() + 1).min(members.len());
            members.rotate_left(turn);
            wire_object(members, ws)
        })
}

fn wire_content() -> impl Strategy<Value = String> {
    (prop::collection::vec(wire_block(), 0..3), whitespace())
        .prop_map(|(blocks, w)| format!("[{w}{}{w}]", blocks.join(",")))
}

fn wire_result() -> impl Strategy<Value = String> {
    let member = prop_oneof![
        4 => wire_content().prop_map(|value| (r#""content""#.to_owned(), value)),
        2 => prop::sample::select(vec!["true", "false", "null", "1"]).prop_map(|value| (r#""isError""#.to_owned(), value.to_owned())),
        1 => wire_value().prop_map(|value| (r#""_meta""#.to_owned(), value)),
        1 => wire_value().prop_map(|value| (r#""structuredContent""#.to_owned(), value)),
        1 => Just((r#""resultType""#.to_owned(), r#""input_required""#.to_owned())),
    ];
    // Mostly a result the scan reads: content, maybe isError and _meta.
    let readable =
        (wire_content(), prop::option::of(any::<bool>()), prop::option::of(wire_value()), any::<prop::sample::Index>())
            .prop_map(|(content, is_error, meta, turn)| {
                let mut members = vec![(r#""content""#.to_owned(), content)];
                members.extend(is_error.map(|flag| (r#""isError""#.to_owned(), flag.to_string())));
                members.extend(meta.map(|value| (r#""_meta""#.to_owned(), value)));
                let turn = turn.index(members.len());
                members.rotate_left(turn);
                members
            });
    (prop_oneof![3 => readable, 1 => prop::collection::vec(member, 0..4)], prop::collection::vec(whitespace(), 1..8))
        .prop_map(|(members, ws)| wire_object(members, ws))
}

fn wire_line() -> impl Strategy<Value = String> {
    let id = prop::sample::select(vec![
        "7",
        "7",
        "0",
        "12345",
        "12345",
        "-7",
        "07",
        "7.0",
        "\"7\"",
        "999999999999999999",
        "1000000000000000000",
    ]);
    (wire_result(), id, 0..6usize, prop::collection::vec(whitespace(), 1..8)).prop_map(|(result, id, order, ws)| {
        let mut members = vec![
            (r#""jsonrpc""#.to_owned(), r#""2.0""#.to_owned()),
            (r#""id""#.to_owned(), id.to_owned()),
            (r#""result""#.to_owned(), result),
        ];
        members.rotate_left(order % 3);
        if order >= 3 {
            members.swap(0, 1);
        }
        wire_object(members, ws)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// For any line, whitespace, member order, escapes, repeats, mistyped
    /// and malformed members, cut short or with a byte changed, shorter
    /// than `ROUTED_FROM_BYTES` or led by that many spaces, reading
    /// with the scan gives what reading in full gives, whatever the
    /// expectation.
    #[test]
    fn the_scan_reads_what_the_full_reading_reads(
        line in wire_line(),
        cut in prop::option::weighted(0.2, any::<prop::sample::Index>()),
        change in prop::option::weighted(0.2, (any::<prop::sample::Index>(), any::<u8>())),
        long in any::<bool>(),
    ) {
        let mut line = line.into_bytes();
        if long {
            line.splice(0..0, [b' '; ROUTED_FROM_BYTES]);
        }
        if let Some((at, byte)) = change {
            let at = at.index(line.len());
            line[at] = byte;
        }
        if let Some(cut) = cut {
            line.truncate(cut.index(line.len() + 1));
        }
        let _ = read_both_ways(&line);
    }
}

/// The property above says something: a fair share of its lines are
/// scanned (the others are read in full both ways).
#[test]
fn the_generated_lines_are_often_scanned() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let scanned =
        (0..2000).filter(|_| scan(wire_line().new_tree(&mut runner).unwrap().current().as_bytes()).is_some()).count();
    assert!(scanned >= 200, "{scanned} of 2000");
}

/// What a plain string is, written the simplest way: the first quote after
/// the opening one ends it, and the bytes before it hold no backslash and
/// no control character and are UTF-8.
fn plain_string_by_bytes(line: &[u8], at: usize) -> Option<(&str, usize)> {
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let end = at + 1 + line.get(at + 1..)?.iter().position(|&byte| byte == b'"')?;
    let inner = &line[at + 1..end];
    if inner.iter().any(|&byte| byte == b'\\' || byte < 0x20) {
        return None;
    }
    Some((std::str::from_utf8(inner).ok()?, end + 1))
}

/// Bytes a string's scan tells apart: quotes, backslashes, controls,
/// ASCII, the bytes of multi-byte characters and stray ones.
fn string_byte() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::sample::select(vec![b'a', b' ', b'~', 0x7f]).prop_map(|byte| vec![byte]),
        1 => Just(vec![b'"']),
        1 => Just(vec![b'\\']),
        1 => (0u8..0x20).prop_map(|byte| vec![byte]),
        1 => prop::sample::select(vec!["\u{e9}", "\u{20ac}", "\u{1F600}"]).prop_map(|c| c.as_bytes().to_vec()),
        1 => (0x80u8..=0xff).prop_map(|byte| vec![byte]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The scan of a string, sixteen bytes at a time and then by bytes,
    /// answers what the byte-by-byte definition answers, wherever the
    /// quotes, backslashes, controls and non-ASCII bytes fall (strings
    /// of up to three chunks, starting anywhere in the line).
    #[test]
    fn a_plain_string_is_found_as_byte_by_byte(
        before in 0usize..20,
        quoted in any::<bool>(),
        pieces in prop::collection::vec(string_byte(), 0..60),
    ) {
        let mut line = vec![b'x'; before];
        if quoted {
            line.push(b'"');
        }
        line.extend(pieces.concat());
        prop_assert_eq!(super::plain_string(&line, before), plain_string_by_bytes(&line, before));
    }
}
