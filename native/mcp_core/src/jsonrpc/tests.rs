use super::*;
use crate::json;
use crate::stdio::{encode_line, Buffer};
use proptest::prelude::*;

fn bad(line: &str) -> &'static str {
    match decode(line.as_bytes()) {
        Err(MessageFault::Bad(reason)) => reason,
        other => panic!("{line}: expected a bad message, got {other:?}"),
    }
}

fn ok(line: &str) -> Inbound {
    decode(line.as_bytes()).unwrap_or_else(|fault| panic!("{line}: {fault}"))
}

fn int_id(id: i64) -> Id {
    Id::Int(Integer::Small(id))
}

fn parse(text: &str) -> Json {
    json::parse(text.as_bytes()).unwrap()
}

// Examples from the JSON-RPC 2.0 specification, section 7.

#[test]
fn spec_request_with_named_params_is_a_server_request() {
    assert_eq!(
        ok(r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#),
        Inbound::ServerRequest {
            id: int_id(3),
            method: "subtract".into(),
            params: Some(parse(r#"{"subtrahend": 23, "minuend": 42}"#)),
        }
    );
}

#[test]
fn spec_notification_with_positional_params() {
    assert_eq!(
        ok(r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#),
        Inbound::Notification { method: "update".into(), params: Some(parse("[1,2,3,4,5]")) }
    );
}

#[test]
fn spec_result_response() {
    assert_eq!(ok(r#"{"jsonrpc": "2.0", "result": 19, "id": 1}"#), Inbound::Response { id: int_id(1), outcome: Ok(Json::Int(19)) });
}

#[test]
fn spec_error_response_with_string_id() {
    assert_eq!(
        ok(r#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#),
        Inbound::Response {
            id: Id::String("1".into()),
            outcome: Err(RpcError { code: Integer::Small(METHOD_NOT_FOUND), message: "Method not found".into(), data: None }),
        }
    );
}

#[test]
fn spec_invalid_json_is_malformed_with_its_offset() {
    let line = br#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#;
    assert_eq!(decode(line), Err(MessageFault::Malformed(json::parse(line).unwrap_err())));
}

#[test]
fn spec_batches_are_refused() {
    assert_eq!(bad("[]"), "batch not supported");
    assert_eq!(bad(r#"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]}]"#), "batch not supported");
}

#[test]
fn spec_error_with_null_id_is_refused() {
    assert_eq!(bad(r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#), "id is null");
}

// Examples from the MCP schema.

#[test]
fn mcp_ping_request_and_list_changed_notification() {
    assert_eq!(
        ok(r#"{"jsonrpc":"2.0","id":"srv-1","method":"ping"}"#),
        Inbound::ServerRequest { id: Id::String("srv-1".into()), method: "ping".into(), params: None }
    );
    assert_eq!(
        ok(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
        Inbound::Notification { method: "notifications/tools/list_changed".into(), params: None }
    );
}

#[test]
fn error_data_crosses_raw() {
    let message = ok(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool","data":{"tool":["x",null]}}}"#);
    let Inbound::Response { outcome: Err(error), .. } = message else { panic!("{message:?}") };
    assert_eq!(error.code, Integer::Small(INVALID_PARAMS));
    assert_eq!(error.data, Some(parse(r#"{"tool":["x",null]}"#)));
}

#[test]
fn unknown_members_are_ignored() {
    assert_eq!(
        ok(r#"{"x":1,"jsonrpc":"2.0","id":2,"result":{},"_meta":{"a":1},"x":2}"#),
        Inbound::Response { id: int_id(2), outcome: Ok(Json::Object(vec![])) }
    );
}

#[test]
fn ids_of_any_integer_size_and_strings() {
    let big = "123456789012345678901234567890";
    let Inbound::Response { id: Id::Int(Integer::Big(value)), .. } = ok(&format!(r#"{{"jsonrpc":"2.0","id":{big},"result":1}}"#)) else {
        panic!("bignum id")
    };
    assert_eq!(value.to_string(), big);
    assert_eq!(ok(r#"{"jsonrpc":"2.0","id":-1,"result":1}"#), Inbound::Response { id: int_id(-1), outcome: Ok(Json::Int(1)) });
}

#[test]
fn ids_that_are_not_integers_or_strings_are_faults() {
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":1.0,"result":1}"#), "id is not an integer or a string");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":1e3,"method":"m"}"#), "id is not an integer or a string");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":true,"result":1}"#), "id is not an integer or a string");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":{},"result":1}"#), "id is not an integer or a string");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":[1],"result":1}"#), "id is not an integer or a string");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#), "id is null");
}

#[test]
fn jsonrpc_must_be_exactly_2_0() {
    assert_eq!(bad(r#"{"id":1,"result":1}"#), "missing jsonrpc");
    assert_eq!(bad(r#"{"jsonrpc":"1.0","id":1,"result":1}"#), "jsonrpc is not \"2.0\"");
    assert_eq!(bad(r#"{"jsonrpc":"2.0 ","id":1,"result":1}"#), "jsonrpc is not \"2.0\"");
    assert_eq!(bad(r#"{"jsonrpc":2.0,"id":1,"result":1}"#), "jsonrpc is not \"2.0\"");
}

#[test]
fn a_response_has_exactly_one_of_result_and_error() {
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}"#), "response has both result and error");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":1}"#), "response has neither result nor error");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","result":1}"#), "response without id");
}

#[test]
fn a_null_result_is_a_result() {
    assert_eq!(ok(r#"{"jsonrpc":"2.0","id":1,"result":null}"#), Inbound::Response { id: int_id(1), outcome: Ok(Json::Null) });
}

#[test]
fn every_duplicated_envelope_key_is_a_fault() {
    let cases = [
        (r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"result":1}"#, "duplicate key jsonrpc"),
        (r#"{"jsonrpc":"2.0","id":1,"id":2,"result":1}"#, "duplicate key id"),
        (r#"{"jsonrpc":"2.0","method":"a","method":"b"}"#, "duplicate key method"),
        (r#"{"jsonrpc":"2.0","id":1,"result":1,"result":2}"#, "duplicate key result"),
        (r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"},"error":{"code":1,"message":"m"}}"#, "duplicate key error"),
        (r#"{"jsonrpc":"2.0","method":"m","params":{},"params":[]}"#, "duplicate key params"),
    ];
    for (line, reason) in cases {
        assert_eq!(bad(line), reason, "{line}");
    }
}

#[test]
fn params_must_be_an_object_or_an_array() {
    assert_eq!(bad(r#"{"jsonrpc":"2.0","method":"m","params":"bar"}"#), "params is not an object or an array");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#), "params is not an object or an array");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","method":"m","params":3}"#), "params is not an object or an array");
}

#[test]
fn method_must_be_a_string() {
    assert_eq!(bad(r#"{"jsonrpc":"2.0","id":1,"method":7}"#), "method is not a string");
    assert_eq!(bad(r#"{"jsonrpc":"2.0","method":null}"#), "method is not a string");
}

#[test]
fn error_objects_are_checked() {
    let line = |error: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"error":{error}}}"#);
    assert_eq!(bad(&line(r#""boom""#)), "error is not an object");
    assert_eq!(bad(&line(r#"{"message":"m"}"#)), "error without code");
    assert_eq!(bad(&line(r#"{"code":1.5,"message":"m"}"#)), "error code is not an integer");
    assert_eq!(bad(&line(r#"{"code":"1","message":"m"}"#)), "error code is not an integer");
    assert_eq!(bad(&line(r#"{"code":1}"#)), "error without message");
    assert_eq!(bad(&line(r#"{"code":1,"message":2}"#)), "error message is not a string");
    assert_eq!(bad(&line(r#"{"code":1,"code":2,"message":"m"}"#)), "duplicate key error.code");
}

#[test]
fn top_level_scalars_are_faults() {
    for line in ["1", "\"x\"", "null", "true"] {
        assert_eq!(bad(line), "message is not an object");
    }
}

#[test]
fn encoders_write_the_envelope_in_order() {
    let request = |id, method: &str, params| Inbound::ServerRequest { id, method: method.into(), params };
    let cases = [
        (encode_inbound(&request(int_id(1), "tools/list", Some(parse("{}")))), r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#),
        (encode_inbound(&request(Id::String("a".into()), "ping", None)), r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
        (
            encode_inbound(&Inbound::Notification { method: "notifications/initialized".into(), params: None }),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
        (result_response(&int_id(4), parse("{}")), r#"{"jsonrpc":"2.0","id":4,"result":{}}"#),
        (
            error_response(&Id::String("s".into()), &Integer::Small(METHOD_NOT_FOUND), "Method not found"),
            r#"{"jsonrpc":"2.0","id":"s","error":{"code":-32601,"message":"Method not found"}}"#,
        ),
    ];
    for (value, text) in cases {
        assert_eq!(String::from_utf8(json::to_bytes(&value).unwrap()).unwrap(), text);
    }
}

#[test]
fn standard_codes() {
    assert_eq!([PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR], [-32700, -32600, -32601, -32602, -32603]);
}

// ---- property: encode -> encode_line -> push -> decode ----------------------------

pub(crate) fn arb_json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(Json::Int),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Json::Float),
        any::<String>().prop_map(Json::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Json::Array),
            prop::collection::vec((any::<String>(), inner), 0..6).prop_map(Json::Object),
        ]
    })
}

fn arb_id() -> impl Strategy<Value = Id> {
    prop_oneof![
        any::<i64>().prop_map(|id| Id::Int(Integer::Small(id))),
        any::<u64>().prop_map(|id| Id::Int(match i64::try_from(id) {
            Ok(small) => Integer::Small(small),
            Err(_) => Integer::Big(BigInt::from(id)),
        })),
        any::<String>().prop_map(Id::String),
    ]
}

fn arb_params() -> impl Strategy<Value = Option<Json>> {
    prop::option::of(prop_oneof![
        prop::collection::vec(arb_json(), 0..4).prop_map(Json::Array),
        prop::collection::vec((any::<String>(), arb_json()), 0..4).prop_map(Json::Object),
    ])
}

pub(crate) fn arb_inbound() -> impl Strategy<Value = Inbound> {
    let error = (any::<i64>(), any::<String>(), prop::option::of(arb_json()))
        .prop_map(|(code, message, data)| RpcError { code: Integer::Small(code), message, data });
    prop_oneof![
        (arb_id(), arb_json()).prop_map(|(id, result)| Inbound::Response { id, outcome: Ok(result) }),
        (arb_id(), error).prop_map(|(id, error)| Inbound::Response { id, outcome: Err(error) }),
        (arb_id(), any::<String>(), arb_params()).prop_map(|(id, method, params)| Inbound::ServerRequest { id, method, params }),
        (any::<String>(), arb_params()).prop_map(|(method, params)| Inbound::Notification { method, params }),
    ]
}

proptest! {
    #[test]
    fn encode_frame_push_decode_round_trips(messages in prop::collection::vec(arb_inbound(), 1..6), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8)) {
        let mut stream = Vec::new();
        for message in &messages {
            stream.extend(encode_line(&encode_inbound(message)).unwrap());
        }
        let mut offsets: Vec<usize> = cuts.iter().map(|cut| cut.index(stream.len() + 1)).collect();
        offsets.push(0);
        offsets.push(stream.len());
        offsets.sort_unstable();
        let mut buffer = Buffer::new();
        let mut lines = Vec::new();
        for window in offsets.windows(2) {
            lines.extend(buffer.push(&stream[window[0]..window[1]]).unwrap());
        }
        let decoded: Vec<Inbound> = lines.iter().map(|line| decode(line).unwrap()).collect();
        prop_assert_eq!(decoded, messages);
    }
}

// ---- the lazy envelope agrees with a whole-line parse ------------------------

/// What the lazy reader must agree with: the whole-line parser's report for
/// a line that is not JSON, and no corruption report for one that is.
fn agrees_with_whole_line_parse(line: &[u8]) -> Result<(), String> {
    match (json::parse(line), decode(line)) {
        (Err(report), Err(MessageFault::Malformed(lazy))) if report == lazy => Ok(()),
        (Ok(_), Err(MessageFault::Malformed(lazy))) => Err(format!("valid JSON reported corrupt: {lazy}")),
        (Ok(_), _) => Ok(()),
        (Err(report), other) => Err(format!("expected {report}, got {other:?}")),
    }
}

#[test]
fn member_values_nest_as_deep_as_in_a_whole_line_parse() {
    for depth in [json::MAX_DEPTH - 1, json::MAX_DEPTH] {
        let params = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        for member in ["params", "result", "other"] {
            let line = format!(r#"{{"jsonrpc":"2.0","method":"m","id":1,"{member}":{params}}}"#);
            agrees_with_whole_line_parse(line.as_bytes()).unwrap();
            assert_eq!(json::parse(line.as_bytes()).is_ok(), decode(line.as_bytes()).is_ok(), "{member} at depth {depth}");
        }
    }
}

#[test]
fn brackets_and_quotes_inside_strings_do_not_cut_members() {
    let line = r#"{"params":{"a":"}]\"\\","b":["{"]},"jsonrpc":"2.0","x":"\"}","method":"m"}"#;
    let Inbound::Notification { method, params: Some(params) } = ok(line) else { panic!() };
    assert_eq!(method, "m");
    assert_eq!(params.get("a"), Some(&Json::str("}]\"\\")));
}

#[test]
fn escaped_envelope_keys_are_envelope_keys() {
    assert_eq!(bad(r#"{"jsonrpc":"2.0","\u0069d":1,"id":2,"result":{}}"#), "duplicate key id");
    assert!(matches!(ok(r#"{"json\u0072pc":"2.0","id":1,"result":{}}"#), Inbound::Response { .. }));
}

#[test]
fn the_version_is_read_however_it_is_written() {
    for version in [r#""2.0""#, r#""2\u002e0""#, r#""\u0032.0""#] {
        let line = format!(r#"{{"jsonrpc":{version},"id":1,"result":{{}}}}"#);
        assert!(matches!(ok(&line), Inbound::Response { .. }), "{version}");
    }
    for version in [r#""2.1""#, r#""2.0 ""#, "2.0", "null", r#"["2.0"]"#] {
        let line = format!(r#"{{"jsonrpc":{version},"id":1,"result":{{}}}}"#);
        assert_eq!(bad(&line), "jsonrpc is not \"2.0\"", "{version}");
    }
    assert_eq!(bad(r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"result":{}}"#), "duplicate key jsonrpc");
    assert_eq!(bad(r#"{"id":1,"result":{}}"#), "missing jsonrpc");
}

#[test]
fn a_corruption_anywhere_wins_over_an_envelope_fault() {
    for line in [
        r#"{"jsonrpc":"1.0","params":[1,}"#,
        r#"{"jsonrpc":"2.0","id":1,"id":2,"result":[}"#,
        r#"{"jsonrpc":"2.0","method":3,"error":{"a":tru}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"params":"x"#,
    ] {
        agrees_with_whole_line_parse(line.as_bytes()).unwrap();
    }
}

fn arb_mutation() -> impl Strategy<Value = (prop::sample::Index, u8)> {
    (any::<prop::sample::Index>(), prop_oneof![Just(b'"'), Just(b'\\'), Just(b'{'), Just(b']'), Just(b','), Just(b':'), Just(0xFF), any::<u8>()])
}

proptest! {
    #[test]
    fn lazy_decode_reports_what_a_whole_line_parse_reports(
        message in arb_inbound(),
        mutations in prop::collection::vec(arb_mutation(), 0..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut line = json::to_bytes(&encode_inbound(&message)).unwrap();
        for (at, byte) in mutations {
            let at = at.index(line.len());
            line[at] = byte;
        }
        if truncate {
            line.truncate(cut.index(line.len() + 1));
        }
        prop_assert_eq!(agrees_with_whole_line_parse(&line), Ok(()));
    }
}

/// A message's members in any order, with extra members (any key not an
/// envelope key, any value) mixed in, and random whitespace between tokens.
fn shuffled_with_extras(message: &Inbound, extras: Vec<(String, Json)>, order: &[prop::sample::Index], spaces: &[bool]) -> Vec<u8> {
    let Json::Object(mut members) = encode_inbound(message) else { unreachable!() };
    let envelope_keys = ["jsonrpc", "id", "method", "result", "error", "params"];
    members.extend(extras.into_iter().filter(|(key, _)| !envelope_keys.contains(&key.as_str())));
    for (at, index) in order.iter().enumerate() {
        let len = members.len();
        members.swap(at % len, index.index(len));
    }
    let mut line = Vec::new();
    let space = |line: &mut Vec<u8>, n: usize| {
        if spaces.get(n % spaces.len().max(1)).copied().unwrap_or(false) {
            line.extend_from_slice(b" \t");
        }
    };
    line.push(b'{');
    for (n, (key, value)) in members.iter().enumerate() {
        if n > 0 {
            line.push(b',');
        }
        space(&mut line, 3 * n);
        json::write_string(&mut line, key);
        space(&mut line, 3 * n + 1);
        line.push(b':');
        space(&mut line, 3 * n + 2);
        json::write(&mut line, value).unwrap();
    }
    line.push(b'}');
    line
}

proptest! {
    #[test]
    fn member_order_extra_members_and_whitespace_do_not_change_the_message(
        message in arb_inbound(),
        extras in prop::collection::vec((any::<String>(), arb_json()), 0..4),
        order in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        spaces in prop::collection::vec(any::<bool>(), 0..8),
    ) {
        let line = shuffled_with_extras(&message, extras, &order, &spaces);
        prop_assert_eq!(decode(&line), Ok(message));
    }
}
