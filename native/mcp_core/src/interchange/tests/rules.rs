//! The translation rules, each fault with the path it names, and the fast
//! paths giving the same answers as decoding and translating.

use super::*;
use num_bigint::BigInt;

fn map(entries: Vec<(Msgpack, Msgpack)>) -> Msgpack {
    Msgpack::Map(entries)
}

fn big(text: &str) -> Json {
    Json::from_big_int(text.parse::<BigInt>().expect("decimal"))
}

#[test]
fn nil_and_null_are_each_other() {
    assert_eq!(to_json(&Msgpack::Nil), Ok(Json::Null));
    assert_eq!(to_msgpack(&Json::Null), Ok(Msgpack::Nil));
}

#[test]
fn scalars_cross_both_ways() {
    let pairs = [
        (Msgpack::Bool(true), Json::Bool(true)),
        (Msgpack::Int(-5), Json::Int(-5)),
        (Msgpack::Float(2.5), Json::Float(2.5)),
        (s("héllo"), Json::str("héllo")),
        (Msgpack::Array(vec![Msgpack::Int(1), s("x")]), Json::Array(vec![Json::Int(1), Json::str("x")])),
        (
            map(vec![(s("b"), Msgpack::Nil), (s("a"), Msgpack::Nil), (s("b"), Msgpack::Int(2))]),
            Json::Object(vec![("b".into(), Json::Null), ("a".into(), Json::Null), ("b".into(), Json::Int(2))]),
        ),
    ];
    for (msgpack, json) in pairs {
        assert_eq!(to_json(&msgpack), Ok(json.clone()));
        assert_eq!(to_msgpack(&json), Ok(msgpack));
    }
}

#[test]
fn every_msgpack_integer_fits_json_exactly() {
    assert_eq!(to_json(&Msgpack::Int(MAX_MSGPACK_INT)), Ok(big("18446744073709551615")));
    assert_eq!(to_json(&Msgpack::Int(MIN_MSGPACK_INT)), Ok(Json::Int(i64::MIN)));
    assert_eq!(to_json(&Msgpack::Int(i128::from(i64::MAX) + 1)), Ok(big("9223372036854775808")));
}

#[test]
fn json_integers_cross_up_to_each_bound_and_fail_one_past_it() {
    assert_eq!(to_msgpack(&big("18446744073709551615")), Ok(Msgpack::Int(MAX_MSGPACK_INT)));
    assert_eq!(to_msgpack(&big("18446744073709551616")), Err(fault("$", Reason::IntOutOfRange)));
    assert_eq!(to_msgpack(&Json::Int(i64::MIN)), Ok(Msgpack::Int(MIN_MSGPACK_INT)));
    assert_eq!(to_msgpack(&big("-9223372036854775809")), Err(fault("$", Reason::IntOutOfRange)));
    assert_eq!(to_msgpack(&big("1000000000000000000000000000000000000000000")), Err(fault("$", Reason::IntOutOfRange)));
}

#[test]
fn one_out_of_range_integer_fails_the_whole_result_at_its_path() {
    let result = Json::Object(vec![
        ("ok".into(), Json::Int(1)),
        ("rows".into(), Json::Array(vec![Json::Int(1), Json::Object(vec![("n".into(), big("18446744073709551616"))])])),
    ]);
    assert_eq!(to_msgpack(&result), Err(fault("$.rows[1].n", Reason::IntOutOfRange)));
}

#[test]
fn each_refusal_names_its_path() {
    let args = |bad: Msgpack| {
        map(vec![(
            s("args"),
            Msgpack::Array(vec![Msgpack::Nil, Msgpack::Nil, map(vec![(s("id"), Msgpack::Int(1)), (s("name"), bad)])]),
        )])
    };
    let cases = [
        (Msgpack::Binary(vec![1]), Reason::Binary),
        (Msgpack::Ext(1, vec![1]), Reason::Ext),
        (Msgpack::String(vec![0xc3, 0x28]), Reason::InvalidUtf8),
        (Msgpack::Float(f64::NAN), Reason::NonFiniteFloat),
        (Msgpack::Float(f64::NEG_INFINITY), Reason::NonFiniteFloat),
    ];
    for (bad, reason) in cases {
        assert_eq!(to_json(&args(bad)), Err(fault("$.args[2].name", reason)));
    }
}

#[test]
fn map_keys_must_be_utf8_strings_and_a_bad_key_names_its_map() {
    let with_key = |key: Msgpack| map(vec![(s("args"), map(vec![(s("ok"), Msgpack::Nil), (key, Msgpack::Nil)]))]);
    assert_eq!(to_json(&with_key(Msgpack::Int(1))), Err(fault("$.args", Reason::NonStringKey)));
    assert_eq!(to_json(&with_key(Msgpack::Nil)), Err(fault("$.args", Reason::NonStringKey)));
    assert_eq!(to_json(&with_key(Msgpack::Binary(b"k".to_vec()))), Err(fault("$.args", Reason::NonStringKey)));
    assert_eq!(to_json(&with_key(Msgpack::Array(vec![]))), Err(fault("$.args", Reason::NonStringKey)));
    assert_eq!(to_json(&with_key(map(vec![]))), Err(fault("$.args", Reason::NonStringKey)));
    assert_eq!(to_json(&with_key(Msgpack::String(vec![0xff]))), Err(fault("$.args", Reason::InvalidUtf8Key)));
    assert_eq!(to_json(&map(vec![(Msgpack::Int(1), Msgpack::Nil)])), Err(fault("$", Reason::NonStringKey)));
}

#[test]
fn the_first_fault_in_document_order_is_reported() {
    let value = Msgpack::Array(vec![Msgpack::Array(vec![Msgpack::Ext(0, vec![])]), Msgpack::Binary(vec![])]);
    assert_eq!(to_json(&value), Err(fault("$[0][0]", Reason::Ext)));
}

#[test]
fn keys_that_are_not_identifiers_are_quoted_in_paths() {
    let value = map(vec![(
        s("two words"),
        map(vec![(s("a\"b"), map(vec![(s("_x1"), map(vec![(s("1st"), Msgpack::Binary(vec![]))]))]))]),
    )]);
    assert_eq!(to_json(&value), Err(fault(r#"$["two words"]["a\"b"]._x1["1st"]"#, Reason::Binary)));
    let empty_key = map(vec![(s(""), Msgpack::Binary(vec![]))]);
    assert_eq!(to_json(&empty_key), Err(fault(r#"$[""]"#, Reason::Binary)));
}

#[test]
fn paths_forget_the_keys_and_indices_they_have_left() {
    let value = map(vec![
        (s("first"), Msgpack::Array(vec![Msgpack::Nil, map(vec![(s("deep"), Msgpack::Nil)])])),
        (s("second"), Msgpack::Array(vec![Msgpack::Nil, Msgpack::Binary(vec![])])),
    ]);
    assert_eq!(to_json(&value), Err(fault("$.second[1]", Reason::Binary)));
}

#[test]
fn translation_refuses_built_trees_deeper_than_max_depth() {
    let mut value = Msgpack::Nil;
    for _ in 0..MAX_DEPTH {
        value = Msgpack::Array(vec![value]);
    }
    assert!(to_json(&value).is_ok());
    let too_deep = to_json(&Msgpack::Array(vec![value])).expect_err("129 containers");
    assert_eq!(too_deep.reason, Reason::TooDeep);
    assert_eq!(too_deep.path, format!("${}", "[0]".repeat(MAX_DEPTH)));
}

#[test]
fn describe_reads_reason_then_path() {
    assert_eq!(fault("$.args[2].name", Reason::Binary).to_string(), "binary has no json form at $.args[2].name");
}

#[test]
fn msgpack_to_json_line_matches_decode_then_translate() {
    let bytes =
        encode(&map(vec![(s("a"), Msgpack::Array(vec![Msgpack::Int(1), Msgpack::Float(0.5), s("x\ny")]))])).unwrap();
    assert_eq!(msgpack_to_json_line(&bytes), Ok(br#"{"a":[1,0.5,"x\ny"]}"#.to_vec()));
    assert_eq!(
        msgpack_to_json_line(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        Ok(b"18446744073709551615".to_vec())
    );
    assert_eq!(msgpack_to_json_line(&[0xc0]), Ok(b"null".to_vec()));
    assert_eq!(
        msgpack_to_json_line(&[0x81, 0xa1, b'k', 0xc4, 0x00]),
        Err(LineFault::Interchange(fault("$.k", Reason::Binary)))
    );
    assert_eq!(
        msgpack_to_json_line(&[0x81, 0x01, 0xc0]),
        Err(LineFault::Interchange(fault("$", Reason::NonStringKey)))
    );
}

#[test]
fn msgpack_to_json_line_reports_corruption_after_a_fault_first() {
    // A bin at $[0], then a truncated array: decoding first would fail.
    assert_eq!(
        msgpack_to_json_line(&[0x92, 0xc4, 0x00]),
        Err(LineFault::Corrupt(corrupt(3, "unexpected end of input")))
    );
    assert_eq!(msgpack_to_json_line(&[0x91, 0xc4, 0x00, 0xc0]), Err(LineFault::Corrupt(corrupt(3, "trailing bytes"))));
}

#[test]
fn json_to_msgpack_bytes_puts_each_header_before_its_items() {
    // Empty containers in place, nested headers outer first.
    assert_eq!(json_to_msgpack_bytes(b"[[],[1]]"), Ok(vec![0x92, 0x90, 0x91, 0x01]));
    assert_eq!(json_to_msgpack_bytes(b"[[[7]],{}]"), Ok(vec![0x92, 0x91, 0x91, 0x07, 0x80]));
    assert_eq!(
        json_to_msgpack_bytes(br#"{"a":{},"b":{"c":[]}}"#),
        Ok(vec![0x82, 0xa1, b'a', 0x80, 0xa1, b'b', 0x81, 0xa1, b'c', 0x90])
    );
    let sixteen = format!("[{}]", vec!["0"; 16].join(","));
    let mut expected = vec![0xdc, 0x00, 0x10];
    expected.extend_from_slice(&[0; 16]);
    assert_eq!(json_to_msgpack_bytes(sixteen.as_bytes()), Ok(expected));
}

#[test]
fn json_to_msgpack_bytes_names_the_first_fault_in_document_order() {
    let text = br#"{"a":[1,{"two words":[2,18446744073709551616]}],"b":-9223372036854775809}"#;
    assert_eq!(
        json_to_msgpack_bytes(text),
        Err(LineFault::Interchange(fault(r#"$.a[1]["two words"][1]"#, Reason::IntOutOfRange)))
    );
}

#[test]
fn json_to_msgpack_bytes_matches_parse_then_translate() {
    assert_eq!(
        json_to_msgpack_bytes(br#" {"a": [1, -1, 1.5, null, true]} "#),
        Ok(vec![0x81, 0xa1, b'a', 0x95, 0x01, 0xff, 0xca, 0x3f, 0xc0, 0, 0, 0xc0, 0xc3])
    );
    assert_eq!(json_to_msgpack_bytes(b"null"), Ok(vec![0xc0]));
    assert_eq!(json_to_msgpack_bytes(b"-9223372036854775808"), Ok(vec![0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]));
    assert_eq!(
        json_to_msgpack_bytes(br#"{"n":[18446744073709551616]}"#),
        Err(LineFault::Interchange(fault("$.n[0]", Reason::IntOutOfRange)))
    );
    assert_eq!(
        json_to_msgpack_bytes(b"[18446744073709551616,"),
        Err(LineFault::Corrupt(corrupt(22, "unexpected end of input")))
    );
}

#[test]
fn one_parse_build_names_the_first_fault_as_the_value_path_does() {
    let text = br#"{"a":[1,{"two words":[2,18446744073709551616]}],"b":-9223372036854775809}"#;
    let mut sink = MsgpackFromJson::new(TreeSink);
    let value = crate::json::parse_with(text, &mut sink).unwrap();
    assert_eq!(sink.finish(value, text), Err(fault(r#"$.a[1]["two words"][1]"#, Reason::IntOutOfRange)));
    let text = br#"{"a":[1,{"b":null}],"c":"d"}"#;
    let mut sink = MsgpackFromJson::new(TreeSink);
    let value = crate::json::parse_with(text, &mut sink).unwrap();
    let expected = Msgpack::Map(vec![
        (s("a"), Msgpack::Array(vec![Msgpack::Int(1), Msgpack::Map(vec![(s("b"), Msgpack::Nil)])])),
        (s("c"), s("d")),
    ]);
    assert_eq!(sink.finish(value, text), Ok(expected));
}
