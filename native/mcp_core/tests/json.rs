//! The JSON core against its contract: totality, limits on both sides,
//! exact numbers, strict strings, wire order, compact writing, and the
//! JSONTestSuite corpus (y_ accepted, n_ refused, i_ either without panic),
//! and the same answers from a parse suspended and resumed in small steps.

use mcp_core::json::{
    self, Budget, CorruptionReport, Json, JsonSink, Parser, PausingSink, Split, Step, MAX_DEPTH, MAX_INTEGER_DIGITS,
};
use num_bigint::BigInt;
use proptest::prelude::*;
use std::path::PathBuf;
use std::vec::Drain;

fn fault(bytes: &[u8]) -> CorruptionReport {
    json::parse(bytes).expect_err("expected a corruption report")
}

fn nested(depth: usize) -> Vec<u8> {
    let mut text = vec![b'['; depth];
    text.extend(std::iter::repeat_n(b']', depth));
    text
}

#[test]
fn depth_of_max_depth_is_accepted_and_one_more_is_refused() {
    assert_eq!(json::parse(&nested(MAX_DEPTH)).map(|v| v.depth()), Ok(MAX_DEPTH));
    let report = fault(&nested(MAX_DEPTH + 1));
    assert_eq!(report, CorruptionReport { offset: MAX_DEPTH, reason: "nesting too deep" });
    let objects = "{\"a\":".repeat(MAX_DEPTH + 1);
    assert_eq!(fault(objects.as_bytes()).reason, "nesting too deep");
}

#[test]
fn a_hundred_thousand_open_brackets_are_a_fault_not_a_stack_overflow() {
    // Run on a thread with the dirty scheduler's 320 KiB stack to prove it.
    let outcome = std::thread::Builder::new()
        .stack_size(320 * 1024)
        .spawn(|| json::parse(&vec![b'['; 100_000]).map(|_| ()))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(outcome.unwrap_err().reason, "nesting too deep");
}

#[test]
fn integers_are_exact_at_any_size() {
    assert_eq!(
        json::parse(b"123456789012345678901234567890"),
        Ok(Json::BigInt("123456789012345678901234567890".parse::<BigInt>().unwrap()))
    );
    assert_eq!(json::parse(b"-9223372036854775808"), Ok(Json::Int(i64::MIN)));
    assert_eq!(json::parse(b"9223372036854775807"), Ok(Json::Int(i64::MAX)));
    assert_eq!(
        json::parse(b"9223372036854775808"),
        Ok(Json::BigInt("9223372036854775808".parse::<BigInt>().unwrap()))
    );
    assert_eq!(json::parse(b"-0"), Ok(Json::Int(0)));
    assert_eq!(json::parse(b"0"), Ok(Json::Int(0)));
}

#[test]
fn integer_digit_limit_on_both_sides() {
    let at_limit = "9".repeat(MAX_INTEGER_DIGITS);
    assert!(matches!(json::parse(at_limit.as_bytes()), Ok(Json::BigInt(_))));
    let negative_at_limit = format!("-{at_limit}");
    assert!(matches!(json::parse(negative_at_limit.as_bytes()), Ok(Json::BigInt(_))));
    let past = "9".repeat(MAX_INTEGER_DIGITS + 1);
    assert_eq!(fault(past.as_bytes()), CorruptionReport { offset: 0, reason: "integer too long" });
}

#[test]
fn floats_decode_to_the_nearest_double_and_overflow_is_a_fault() {
    assert_eq!(json::parse(b"0.1"), Ok(Json::Float(0.1)));
    assert_eq!(json::parse(b"1E2"), Ok(Json::Float(100.0)));
    assert_eq!(json::parse(b"-0.0"), Ok(Json::Float(-0.0)));
    assert_eq!(json::parse(b"1e-400"), Ok(Json::Float(0.0)));
    // Just below the smallest normal double: the nearest double is the
    // largest subnormal, written by its bits so the oracle is not the
    // compiler's own float-literal parser.
    assert_eq!(json::parse(b"2.2250738585072011e-308"), Ok(Json::Float(f64::from_bits(0x000F_FFFF_FFFF_FFFF))));
    assert_eq!(fault(b"[1e400]"), CorruptionReport { offset: 1, reason: "number out of range" });
    assert_eq!(fault(b"-1e400").reason, "number out of range");
}

#[test]
fn strings_must_be_valid_utf8_after_unescaping() {
    assert_eq!(json::parse(br#""\ud83d\ude00""#), Ok(Json::str("😀")));
    assert_eq!(json::parse("\"é\\n\"".as_bytes()), Ok(Json::str("é\n")));
    assert_eq!(fault(br#""\ud83d""#), CorruptionReport { offset: 1, reason: "lone surrogate escape" });
    assert_eq!(fault(br#""ab\ude00""#), CorruptionReport { offset: 3, reason: "lone surrogate escape" });
    assert_eq!(fault(br#""\ud83d\u0041""#).reason, "lone surrogate escape");
    assert_eq!(fault(b"\"a\xffb\""), CorruptionReport { offset: 2, reason: "invalid utf-8" });
    assert_eq!(fault(b"\"a\\n\xc3\""), CorruptionReport { offset: 4, reason: "invalid utf-8" });
    assert_eq!(fault(b"\"a\nb\""), CorruptionReport { offset: 2, reason: "control character in string" });
    assert_eq!(fault(br#""\x""#), CorruptionReport { offset: 1, reason: "invalid escape" });
    assert_eq!(fault(br#""\u12g4""#), CorruptionReport { offset: 5, reason: "invalid unicode escape" });
    assert_eq!(fault(b"\"abc"), CorruptionReport { offset: 4, reason: "unterminated string" });
}

#[test]
fn objects_keep_every_member_in_wire_order() {
    assert_eq!(
        json::parse(br#"{"b":1,"a":2,"b":3}"#),
        Ok(Json::Object(vec![
            ("b".into(), Json::Int(1)),
            ("a".into(), Json::Int(2)),
            ("b".into(), Json::Int(3)),
        ]))
    );
}

#[test]
fn whitespace_around_the_value_is_allowed_and_anything_else_is_not() {
    assert_eq!(json::parse(b" \t\r\n[ 1 , {\"a\" : null} ]\n "), Ok(Json::Array(vec![
        Json::Int(1),
        Json::Object(vec![("a".into(), Json::Null)]),
    ])));
    assert_eq!(fault(b"[1] x"), CorruptionReport { offset: 4, reason: "trailing characters" });
    assert_eq!(fault(b"1 2"), CorruptionReport { offset: 2, reason: "trailing characters" });
    assert_eq!(fault(b""), CorruptionReport { offset: 0, reason: "unexpected end of input" });
    assert_eq!(fault(b"[1,]"), CorruptionReport { offset: 3, reason: "unexpected character" });
    assert_eq!(fault(b"{\"a\" 1}"), CorruptionReport { offset: 5, reason: "expected ':'" });
    assert_eq!(fault(b"{\"a\":1,}"), CorruptionReport { offset: 7, reason: "expected string key" });
    assert_eq!(fault(b"[1 2]"), CorruptionReport { offset: 3, reason: "expected ',' or ']'" });
    assert_eq!(fault(b"{\"a\":1 2}"), CorruptionReport { offset: 7, reason: "expected ',' or '}'" });
    assert_eq!(fault(b"[tru]"), CorruptionReport { offset: 1, reason: "invalid literal" });
    assert_eq!(fault(b"01"), CorruptionReport { offset: 1, reason: "trailing characters" });
    assert_eq!(fault(b"-"), CorruptionReport { offset: 1, reason: "invalid number" });
    assert_eq!(fault(b"1."), CorruptionReport { offset: 2, reason: "invalid number" });
    assert_eq!(fault(b"1e+"), CorruptionReport { offset: 3, reason: "invalid number" });
}

#[test]
fn writer_is_compact_and_escapes_every_control_character() {
    let value = Json::Object(vec![
        ("k\"\\".into(), Json::Array(vec![Json::Null, Json::Bool(true), Json::Float(1.0), Json::Int(-5)])),
        ("s".into(), Json::str("a\n\r\t\u{8}\u{c}\u{1}\u{1f}é\u{7f}")),
    ]);
    assert_eq!(
        String::from_utf8(json::to_bytes(&value).unwrap()).unwrap(),
        "{\"k\\\"\\\\\":[null,true,1.0,-5],\"s\":\"a\\n\\r\\t\\b\\f\\u0001\\u001fé\u{7f}\"}"
    );
}

#[test]
fn writer_prints_floats_shortest_and_always_as_floats() {
    for (float, text) in [(0.1, "0.1"), (1e300, "1e300"), (-0.0, "-0.0"), (100.0, "100.0"), (5e-324, "5e-324")] {
        assert_eq!(json::to_bytes(&Json::Float(float)).unwrap(), text.as_bytes());
    }
    assert_eq!(json::to_bytes(&Json::Float(f64::NAN)), Err(json::EncodeError::NonFiniteFloat));
}

#[test]
fn writer_refuses_values_deeper_than_max_depth() {
    let mut value = Json::Null;
    for _ in 0..MAX_DEPTH {
        value = Json::Array(vec![value]);
    }
    assert!(json::to_bytes(&value).is_ok());
    assert_eq!(json::to_bytes(&Json::Array(vec![value])), Err(json::EncodeError::TooDeep));
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/JSONTestSuite/test_parsing")
}

#[test]
fn json_test_suite_accepts_y_refuses_n_and_survives_i() {
    let mut counted = 0;
    for entry in std::fs::read_dir(corpus_dir()).expect("vendored corpus") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let outcome = json::parse(&bytes);
        if name.starts_with("y_") {
            assert!(outcome.is_ok(), "{name} must be accepted: {outcome:?}");
        } else if name.starts_with("n_") {
            assert!(outcome.is_err(), "{name} must be refused: {outcome:?}");
        }
        if let Err(report) = outcome {
            assert!(report.offset <= bytes.len(), "{name}: offset past the input");
        }
        counted += 1;
    }
    assert_eq!(counted, 318);
}

fn arbitrary_json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(Json::Int),
        any::<i128>().prop_map(|i| Json::from_big_int(BigInt::from(i))),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Json::Float),
        any::<String>().prop_map(Json::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Json::Array),
            prop::collection::vec((any::<String>(), inner), 0..8).prop_map(Json::Object),
        ]
    })
}

/// The writer's escaping, one character at a time: what the word-at-a-time
/// writer must produce.
fn escaped_one_by_one(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

proptest! {
    /// Strings of every length around the eight-byte words, with specials
    /// anywhere (first, last, adjacent), and long plain runs with one
    /// special after them, appended after arbitrary output.
    #[test]
    fn strings_are_written_as_escaped_one_by_one(
        before in "[a-z]{0,9}",
        text in "([a-z0-9 é日😀]|[\"\\\\\u{0}-\u{1f}\u{7f}]){0,40}|[a-z ]{60,140}[\"\\n\u{1}]?[a-z]{0,12}",
    ) {
        let mut out = before.clone().into_bytes();
        json::write_string(&mut out, &text);
        prop_assert_eq!(String::from_utf8(out).unwrap(), format!("{before}{}", escaped_one_by_one(&text)));
    }

    #[test]
    fn integers_are_written_in_decimal(int in prop_oneof![any::<i64>(), -1000i64..1000, Just(i64::MIN), Just(i64::MAX)]) {
        let mut out = b"x".to_vec();
        json::write_int(&mut out, int);
        prop_assert_eq!(String::from_utf8(out).unwrap(), format!("x{int}"));
    }
}

proptest! {
    #[test]
    fn encode_then_parse_is_identity(value in arbitrary_json()) {
        let bytes = json::to_bytes(&value).unwrap();
        prop_assert!(!bytes.contains(&b'\n'));
        prop_assert_eq!(json::parse(&bytes), Ok(value));
    }

    #[test]
    fn parse_is_total_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        if let Err(report) = json::parse(&bytes) {
            prop_assert!(report.offset <= bytes.len());
        }
    }
}

/// Escaped strings of 64 KiB and more are written into one reservation and
/// handed from the parser's scratch buffer to the sink by value; on both sides of that length, in an array
/// with a short escaped string after each (so the scratch buffer is used
/// again after a hand-over), every string reads back exactly.
#[test]
fn long_escaped_strings_read_whole_around_the_handover_length() {
    for length in [65535usize, 65536, 65537, 1 << 20] {
        let long: String = "ab\"c\n".chars().cycle().take(length).collect();
        let value = Json::Array(vec![
            Json::String(long.clone()),
            Json::String("x\ty".to_owned()),
            Json::String(long.clone()),
            Json::String("\u{e9}\n".to_owned()),
        ]);
        let line = json::to_bytes(&value).unwrap();
        assert_eq!(json::parse(&line), Ok(value.clone()), "length {length}");
        // In the NIF's steps: a long string's one reservation is bounded by
        // the step's window, and a step that cannot pass it goes on unlimited.
        assert_eq!(parse_in_steps(&line, Budget { bytes: 65536, values: 4096 }), Ok(value), "length {length}, in steps");
        let Ok(Json::Object(members)) = json::parse(
            format!(
                "{{{}:1}}",
                String::from_utf8(json::to_bytes(&Json::String(long.clone())).unwrap()).unwrap()
            )
            .as_bytes(),
        ) else {
            panic!("an object with a long escaped key, length {length}");
        };
        assert_eq!(members[0].0, long, "key of length {length}");
    }
}

/// Builds [`Json`] like `TreeSink`, and can be suspended: a prefix is a run
/// of members in wire order (keys `None` in an array).
struct PausableTree;

type Members = Vec<(Option<String>, Json)>;

impl JsonSink for PausableTree {
    type Value = Json;
    type Key = String;
    fn null(&mut self) -> Json {
        Json::Null
    }
    fn bool(&mut self, value: bool) -> Json {
        Json::Bool(value)
    }
    fn int(&mut self, value: i64) -> Json {
        Json::Int(value)
    }
    fn big_int(&mut self, value: BigInt) -> Json {
        Json::from_big_int(value)
    }
    fn float(&mut self, value: f64) -> Json {
        Json::Float(value)
    }
    fn string(&mut self, value: &str) -> Json {
        Json::str(value)
    }
    fn key(&mut self, value: &str) -> String {
        value.to_owned()
    }
    fn array(&mut self, items: Drain<'_, Json>) -> Json {
        Json::Array(items.collect())
    }
    fn object(&mut self, keys: Drain<'_, String>, values: Drain<'_, Json>) -> Json {
        Json::Object(keys.zip(values).collect())
    }
}

impl PausingSink for PausableTree {
    type Prefix = Members;
    fn fold_array(&mut self, prefix: Option<Members>, items: Drain<'_, Json>) -> Members {
        let mut members = prefix.unwrap_or_default();
        members.extend(items.map(|item| (None, item)));
        members
    }
    fn fold_object(&mut self, prefix: Option<Members>, keys: Drain<'_, String>, values: Drain<'_, Json>) -> Members {
        let mut members = prefix.unwrap_or_default();
        members.extend(keys.zip(values).map(|(key, value)| (Some(key), value)));
        members
    }
    fn last_items(&mut self, items: Drain<'_, Json>) -> Members {
        self.fold_array(None, items)
    }
    fn last_members(&mut self, keys: Drain<'_, String>, values: Drain<'_, Json>) -> Members {
        self.fold_object(None, keys, values)
    }
    fn join(&mut self, prefix: &mut Members, joined: &mut Members, most: usize) -> (usize, bool) {
        let moved = most.min(prefix.len());
        let mut tail = prefix.split_off(prefix.len() - moved);
        tail.append(joined);
        *joined = tail;
        (moved, prefix.is_empty())
    }
    fn finish(&mut self, object: bool, joined: Members) -> Json {
        if object {
            Json::Object(joined.into_iter().map(|(key, value)| (key.unwrap_or_default(), value)).collect())
        } else {
            Json::Array(joined.into_iter().map(|(_, value)| value).collect())
        }
    }
}

/// `bytes` parsed in runs of `budget`, suspended and resumed after every
/// run (a run that cannot pass one token goes on unlimited, as the NIF's
/// dirty step does).
fn parse_in_steps(bytes: &[u8], budget: Budget) -> Result<Json, CorruptionReport> {
    let mut sink = PausableTree;
    let mut parser: Parser<'_, PausableTree, Split> = Parser::new(bytes, MAX_DEPTH);
    let mut next = budget;
    loop {
        match parser.run(&mut sink, next)? {
            Step::Done(value) => return Ok(value),
            Step::Paused { progressed } => {
                next = if progressed { budget } else { Budget::UNLIMITED };
                let state = parser.suspend(&mut sink);
                parser = Parser::resume(bytes, MAX_DEPTH, state).expect("a state the parser made");
            }
        }
    }
}

/// Valid documents with whitespace between tokens, and their mutations
/// (a byte replaced, the end cut off).
fn document_or_mutant() -> impl Strategy<Value = Vec<u8>> {
    let spaced = (arbitrary_json(), 0usize..3).prop_map(|(value, spaces)| {
        let bytes = json::to_bytes(&value).unwrap();
        let mut out = Vec::new();
        for byte in bytes {
            out.push(byte);
            if matches!(byte, b',' | b':' | b'[' | b'{') {
                out.extend(std::iter::repeat_n(b' ', spaces));
            }
        }
        out
    });
    (spaced, any::<u8>(), any::<prop::sample::Index>(), 0u8..3).prop_map(|(mut bytes, byte, at, mutation)| {
        if !bytes.is_empty() {
            let at = at.index(bytes.len());
            match mutation {
                0 => {}
                1 => bytes[at] = byte,
                _ => bytes.truncate(at),
            }
        }
        bytes
    })
}

proptest! {
    #[test]
    fn parsing_in_steps_gives_the_same_answer(bytes in document_or_mutant(), step_bytes in 1usize..48, values in 1usize..12) {
        prop_assert_eq!(parse_in_steps(&bytes, Budget { bytes: step_bytes, values }), json::parse(&bytes));
    }

    #[test]
    fn parsing_arbitrary_bytes_in_steps_gives_the_same_answer(bytes in prop::collection::vec(any::<u8>(), 0..64), step_bytes in 1usize..8, values in 1usize..4) {
        prop_assert_eq!(parse_in_steps(&bytes, Budget { bytes: step_bytes, values }), json::parse(&bytes));
    }
}

/// A step that suspends inside long containers finishes them in bounded
/// parts: a 10,000-item array closed with a budget of 7 values per step
/// takes more than a thousand runs, and reads back whole.
#[test]
fn split_containers_are_joined_in_bounded_steps() {
    let line = json::to_bytes(&Json::Array(vec![Json::Object(vec![("a".into(), Json::Int(1))]); 10_000])).unwrap();
    let mut sink = PausableTree;
    let mut parser: Parser<'_, PausableTree, Split> = Parser::new(&line, MAX_DEPTH);
    let budget = Budget { bytes: 1 << 20, values: 7 };
    let mut runs = 0;
    let value = loop {
        runs += 1;
        match parser.run(&mut sink, budget).unwrap() {
            Step::Done(value) => break value,
            Step::Paused { progressed } => {
                assert!(progressed);
                let state = parser.suspend(&mut sink);
                parser = Parser::resume(&line, MAX_DEPTH, state).unwrap();
            }
        }
    };
    assert_eq!(json::parse(&line), Ok(value));
    assert!(runs > 20_000 / 7, "{runs} runs");
}

proptest! {
    /// Floats of up to 19 digits with small exponents (the parser's exact
    /// fast path) and beyond it read exactly as the standard library reads
    /// them, sign and negative zero included.
    #[test]
    fn floats_read_as_the_standard_parser_reads_them(
        negative in any::<bool>(),
        integer in prop_oneof![Just(0u64), 1u64..10, 1u64..10_000_000_000, 1u64..u64::MAX],
        fraction in "[0-9]{0,12}",
        exponent in prop::option::of(-40i32..40),
    ) {
        let sign = if negative { "-" } else { "" };
        let fraction = if fraction.is_empty() && exponent.is_none() { "0".to_owned() } else { fraction };
        let mut text = format!("{sign}{integer}");
        if !fraction.is_empty() {
            text.push('.');
            text.push_str(&fraction);
        }
        if let Some(exponent) = exponent {
            text.push_str(&format!("e{exponent}"));
        }
        let expected: f64 = text.parse().unwrap();
        match json::parse(text.as_bytes()) {
            Ok(Json::Float(read)) => prop_assert_eq!(read.to_bits(), expected.to_bits(), "{}", text),
            other => prop_assert!(false, "{} read as {:?}", text, other),
        }
    }
}

/// A long escaped string handed to the sink by value holds its text, not
/// the reservation it was unescaped into (the rest of the input): a tree of
/// many such strings costs their length, not the line's once per string.
#[test]
fn handed_over_strings_hold_only_their_text() {
    let long: String = "ab\"c\n".chars().cycle().take(70_000).collect();
    let line = json::to_bytes(&Json::Array(vec![Json::String(long.clone()); 20])).unwrap();
    let mut sink = CapacitySink::default();
    json::parse_with(&line, &mut sink).unwrap();
    assert_eq!(sink.owned.len(), 20);
    for (len, capacity) in sink.owned {
        assert_eq!(len, long.len());
        assert!(capacity < 2 * len, "a string of {len} bytes held {capacity}");
    }
}

/// Records the length and capacity of every string handed over by value.
#[derive(Default)]
struct CapacitySink {
    owned: Vec<(usize, usize)>,
}

impl JsonSink for CapacitySink {
    type Value = ();
    type Key = ();
    fn null(&mut self) {}
    fn bool(&mut self, _value: bool) {}
    fn int(&mut self, _value: i64) {}
    fn big_int(&mut self, _value: BigInt) {}
    fn float(&mut self, _value: f64) {}
    fn string(&mut self, _value: &str) {}
    const KEEPS_STRINGS: bool = true;
    fn string_owned(&mut self, value: String) {
        self.owned.push((value.len(), value.capacity()));
    }
    fn key(&mut self, _value: &str) {}
    fn array(&mut self, _items: Drain<'_, ()>) {}
    fn object(&mut self, _keys: Drain<'_, ()>, _values: Drain<'_, ()>) {}
}
