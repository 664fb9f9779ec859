use super::*;
use crate::json;

fn parse(text: &str) -> Json {
    json::parse(text.as_bytes()).unwrap_or_else(|report| panic!("{text}: {report}"))
}

fn fault(path: &str, reason: &'static str) -> ProtocolFault {
    ProtocolFault::Fault { path: path.into(), reason }
}

#[test]
fn versions() {
    assert_eq!(REQUESTED_VERSION, "2025-11-25");
    assert_eq!(SUPPORTED_VERSIONS, ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
}

// ---- initialize -------------------------------------------------------------

/// The `InitializeResult` example of the MCP lifecycle specification.
const SPEC_INITIALIZE_RESULT: &str = r#"{
    "protocolVersion": "2025-06-18",
    "capabilities": {
      "logging": {},
      "prompts": { "listChanged": true },
      "resources": { "subscribe": true, "listChanged": true },
      "tools": { "listChanged": true }
    },
    "serverInfo": { "name": "ExampleServer", "title": "Example Server Display Name", "version": "1.0.0" },
    "instructions": "Optional instructions for the client"
}"#;

#[test]
fn spec_initialize_result() {
    assert_eq!(
        decode_initialize_result(&parse(SPEC_INITIALIZE_RESULT)),
        Ok(InitializeResult {
            protocol_version: "2025-06-18".into(),
            tools: Some(ToolsCapability { list_changed: true }),
            server_info: ServerInfo { name: "ExampleServer".into(), version: "1.0.0".into() },
            instructions: Some("Optional instructions for the client".into()),
        })
    );
}

#[test]
fn every_supported_version_is_accepted_and_tools_default() {
    for version in SUPPORTED_VERSIONS {
        let text = format!(r#"{{"protocolVersion":"{version}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"s","version":"1"}}}}"#);
        let result = decode_initialize_result(&parse(&text)).unwrap();
        assert_eq!(result.protocol_version, version);
        assert_eq!(result.tools, Some(ToolsCapability { list_changed: false }));
        assert_eq!(result.instructions, None);
    }
}

#[test]
fn absent_tools_capability_is_none() {
    let text = r#"{"protocolVersion":"2024-11-05","capabilities":{"prompts":{}},"serverInfo":{"name":"s","version":"1"}}"#;
    assert_eq!(decode_initialize_result(&parse(text)).unwrap().tools, None);
}

#[test]
fn unsupported_version_carries_both_sides() {
    let text = r#"{"protocolVersion":"2026-07-28","capabilities":{},"serverInfo":{"name":"s","version":"1"}}"#;
    assert_eq!(
        decode_initialize_result(&parse(text)),
        Err(ProtocolFault::UnsupportedVersion { requested: "2025-11-25".into(), offered: "2026-07-28".into() })
    );
}

#[test]
fn initialize_faults_name_their_path() {
    let server_info = r#""serverInfo":{"name":"s","version":"1"}"#;
    let cases = [
        ("[]".to_owned(), fault("$", "expected an object")),
        (format!(r#"{{"capabilities":{{}},{server_info}}}"#), fault("$.protocolVersion", "missing")),
        (format!(r#"{{"protocolVersion":20250618,"capabilities":{{}},{server_info}}}"#), fault("$.protocolVersion", "expected a string")),
        (format!(r#"{{"protocolVersion":"2025-06-18",{server_info}}}"#), fault("$.capabilities", "missing")),
        (format!(r#"{{"protocolVersion":"2025-06-18","capabilities":[],{server_info}}}"#), fault("$.capabilities", "expected an object")),
        (format!(r#"{{"protocolVersion":"2025-06-18","capabilities":{{"tools":true}},{server_info}}}"#), fault("$.capabilities.tools", "expected an object")),
        (
            format!(r#"{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{"listChanged":"yes"}}}},{server_info}}}"#),
            fault("$.capabilities.tools.listChanged", "expected a boolean"),
        ),
        (r#"{"protocolVersion":"2025-06-18","capabilities":{}}"#.to_owned(), fault("$.serverInfo", "missing")),
        (r#"{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"version":"1"}}"#.to_owned(), fault("$.serverInfo.name", "missing")),
        (r#"{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":1}}"#.to_owned(), fault("$.serverInfo.version", "expected a string")),
        (format!(r#"{{"protocolVersion":"2025-06-18","capabilities":{{}},{server_info},"instructions":["x"]}}"#), fault("$.instructions", "expected a string")),
    ];
    for (text, expected) in cases {
        assert_eq!(decode_initialize_result(&parse(&text)), Err(expected), "{text}");
    }
}

// ---- tools/list -------------------------------------------------------------

/// The `tools/list` result example of the MCP tools specification (2025-06-18).
const SPEC_TOOLS_PAGE: &str = r#"{
    "tools": [
      {
        "name": "get_weather",
        "title": "Weather Information Provider",
        "description": "Get current weather information for a location",
        "inputSchema": {
          "type": "object",
          "properties": { "location": { "type": "string", "description": "City name or zip code" } },
          "required": ["location"]
        }
      }
    ],
    "nextCursor": "next-page-cursor"
}"#;

#[test]
fn spec_tools_page() {
    let page = decode_tools_page(&parse(SPEC_TOOLS_PAGE)).unwrap();
    assert_eq!(page.next_cursor.as_deref(), Some("next-page-cursor"));
    assert_eq!(page.tools.len(), 1);
    let tool = &page.tools[0];
    assert_eq!(tool.name, "get_weather");
    assert_eq!(tool.title.as_deref(), Some("Weather Information Provider"));
    assert_eq!(tool.description.as_deref(), Some("Get current weather information for a location"));
    assert_eq!(tool.input_schema.get("required"), Some(&parse(r#"["location"]"#)));
    assert_eq!((&tool.output_schema, &tool.annotations), (&None, &None));
}

#[test]
fn optional_tool_members_and_unknown_members() {
    let text = r#"{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},
        "annotations":{"readOnlyHint":true},"icons":[1],"_meta":{}}]}"#;
    let page = decode_tools_page(&parse(text)).unwrap();
    assert_eq!(page.next_cursor, None);
    assert_eq!(page.tools[0].output_schema, Some(parse(r#"{"type":"object"}"#)));
    assert_eq!(page.tools[0].annotations, Some(parse(r#"{"readOnlyHint":true}"#)));
    assert_eq!((&page.tools[0].title, &page.tools[0].description), (&None, &None));
}

#[test]
fn null_optional_members_count_as_absent() {
    let text = r#"{"tools":[{"name":"t","inputSchema":{},"title":null,"description":null,"outputSchema":null,"annotations":null}],"nextCursor":null}"#;
    let page = decode_tools_page(&parse(text)).unwrap();
    assert_eq!(page, ToolsPage { tools: vec![ToolDescriptor { name: "t".into(), title: None, description: None, input_schema: parse("{}"), output_schema: None, annotations: None, execution: None }], next_cursor: None });
}

#[test]
fn empty_page() {
    assert_eq!(decode_tools_page(&parse(r#"{"tools":[]}"#)), Ok(ToolsPage { tools: vec![], next_cursor: None }));
}

#[test]
fn one_lying_tool_fails_the_page_naming_its_index() {
    let good = r#"{"name":"ok","inputSchema":{}}"#;
    let page = |bad: &str| format!(r#"{{"tools":[{good},{good},{good},{bad}]}}"#);
    let cases = [
        ("7", fault("$.tools[3]", "expected an object")),
        (r#"{"inputSchema":{}}"#, fault("$.tools[3].name", "missing")),
        (r#"{"name":"","inputSchema":{}}"#, fault("$.tools[3].name", "empty")),
        (r#"{"name":5,"inputSchema":{}}"#, fault("$.tools[3].name", "expected a string")),
        (r#"{"name":"t"}"#, fault("$.tools[3].inputSchema", "missing")),
        (r#"{"name":"t","inputSchema":null}"#, fault("$.tools[3].inputSchema", "missing")),
        (r#"{"name":"t","inputSchema":"object"}"#, fault("$.tools[3].inputSchema", "expected an object")),
        (r#"{"name":"t","inputSchema":{},"title":1}"#, fault("$.tools[3].title", "expected a string")),
        (r#"{"name":"t","inputSchema":{},"description":{}}"#, fault("$.tools[3].description", "expected a string")),
        (r#"{"name":"t","inputSchema":{},"outputSchema":[]}"#, fault("$.tools[3].outputSchema", "expected an object")),
        (r#"{"name":"t","inputSchema":{},"annotations":"x"}"#, fault("$.tools[3].annotations", "expected an object")),
    ];
    for (entry, expected) in cases {
        assert_eq!(decode_tools_page(&parse(&page(entry))), Err(expected), "{entry}");
    }
}

#[test]
fn page_level_faults() {
    assert_eq!(decode_tools_page(&parse("{}")), Err(fault("$.tools", "missing")));
    assert_eq!(decode_tools_page(&parse(r#"{"tools":{}}"#)), Err(fault("$.tools", "expected an array")));
    assert_eq!(decode_tools_page(&parse(r#"{"tools":[],"nextCursor":2}"#)), Err(fault("$.nextCursor", "expected a string")));
    assert_eq!(decode_tools_page(&parse("null")), Err(fault("$", "expected an object")));
}

// ---- tools/call -------------------------------------------------------------

#[test]
fn spec_call_tool_result() {
    let text = r#"{"content":[{"type":"text","text":"Current weather in New York:\nTemperature: 72°F"}],"isError":false}"#;
    assert_eq!(
        decode_call_tool_result(parse(text)),
        Ok(CallToolResult {
            content: vec![ContentBlock::Text("Current weather in New York:\nTemperature: 72°F".into())],
            is_error: false,
            structured_content: None,
        })
    );
}

#[test]
fn spec_structured_content_example() {
    let text = r#"{"content":[{"type":"text","text":"{\"temperature\": 22.5}"}],"structuredContent":{"temperature":22.5,"conditions":"Partly cloudy"}}"#;
    let result = decode_call_tool_result(parse(text)).unwrap();
    assert_eq!(result.structured_content, Some(parse(r#"{"temperature":22.5,"conditions":"Partly cloudy"}"#)));
    assert!(!result.is_error);
}

#[test]
fn non_text_blocks_become_other_and_is_error_is_read() {
    let text = r#"{"content":[{"type":"image","data":"AAA=","mimeType":"image/png"},{"type":"text","text":"t"},
        {"type":"resource_link","uri":"file:///x"},{"type":"audio"}],"isError":true}"#;
    assert_eq!(
        decode_call_tool_result(parse(text)),
        Ok(CallToolResult {
            content: vec![
                ContentBlock::Other("image".into()),
                ContentBlock::Text("t".into()),
                ContentBlock::Other("resource_link".into()),
                ContentBlock::Other("audio".into()),
            ],
            is_error: true,
            structured_content: None,
        })
    );
}

#[test]
fn structured_content_without_content_is_accepted() {
    assert_eq!(
        decode_call_tool_result(parse(r#"{"structuredContent":[1,2]}"#)),
        Ok(CallToolResult { content: vec![], is_error: false, structured_content: Some(parse("[1,2]")) })
    );
}

#[test]
fn call_tool_result_faults() {
    let cases = [
        ("{}", fault("$.content", "missing")),
        (r#"{"content":"hi"}"#, fault("$.content", "expected an array")),
        (r#"{"content":[{"type":"text","text":"a"},"b"]}"#, fault("$.content[1]", "expected an object")),
        (r#"{"content":[{"text":"a"}]}"#, fault("$.content[0].type", "missing")),
        (r#"{"content":[{"type":3}]}"#, fault("$.content[0].type", "expected a string")),
        (r#"{"content":[{"type":"text"}]}"#, fault("$.content[0].text", "missing")),
        (r#"{"content":[{"type":"text","text":[]}]}"#, fault("$.content[0].text", "expected a string")),
        (r#"{"content":[],"isError":"true"}"#, fault("$.isError", "expected a boolean")),
        (r#"{"structuredContent":{},"content":7}"#, fault("$.content", "expected an array")),
        ("true", fault("$", "expected an object")),
    ];
    for (text, expected) in cases {
        assert_eq!(decode_call_tool_result(parse(text)), Err(expected), "{text}");
    }
}

// ---- properties: pages round trip; one bad entry names its index ---------------

use crate::jsonrpc::tests::arb_json;
use proptest::prelude::*;

fn arb_object() -> impl Strategy<Value = Json> {
    prop::collection::vec((any::<String>(), arb_json()), 0..4).prop_map(Json::Object)
}

fn arb_tool() -> impl Strategy<Value = ToolDescriptor> {
    (
        ".+",
        prop::option::of(any::<String>()),
        prop::option::of(any::<String>()),
        arb_object(),
        prop::option::of(arb_object()),
        prop::option::of(arb_object()),
        prop::option::of(arb_object()),
    )
        .prop_map(|(name, title, description, input_schema, output_schema, annotations, execution)| ToolDescriptor {
            name,
            title,
            description,
            input_schema,
            output_schema,
            annotations,
            execution,
        })
}

/// The wire form of a tool; an absent optional member is left out or,
/// when `nulls` says so, written as `null`.
fn tool_json(tool: &ToolDescriptor, nulls: bool) -> Json {
    let mut members = vec![("name".to_owned(), Json::str(&tool.name)), ("inputSchema".to_owned(), tool.input_schema.clone())];
    let optional = [
        ("title", tool.title.clone().map(Json::String)),
        ("description", tool.description.clone().map(Json::String)),
        ("outputSchema", tool.output_schema.clone()),
        ("annotations", tool.annotations.clone()),
        ("execution", tool.execution.clone()),
    ];
    for (key, value) in optional {
        match value {
            Some(value) => members.push((key.to_owned(), value)),
            None if nulls => members.push((key.to_owned(), Json::Null)),
            None => {}
        }
    }
    Json::Object(members)
}

fn page_json(tools: &[Json], cursor: &Option<String>) -> Json {
    let mut members = vec![("tools".to_owned(), Json::Array(tools.to_vec()))];
    members.extend(cursor.clone().map(|cursor| ("nextCursor".to_owned(), Json::String(cursor))));
    Json::Object(members)
}

/// An entry that breaks exactly one rule, and the path suffix it must name.
fn corrupt(tool: &Json, how: usize) -> (Json, &'static str) {
    let Json::Object(members) = tool else { return (Json::Null, "") };
    let without = |key: &str| members.iter().filter(|(k, _)| k != key).cloned().collect::<Vec<_>>();
    let with = |key: &str, value: Json| {
        let mut members = without(key);
        members.push((key.to_owned(), value));
        Json::Object(members)
    };
    match how % 6 {
        0 => (Json::Array(vec![]), ""),
        1 => (Json::Object(without("name")), ".name"),
        2 => (with("name", Json::str("")), ".name"),
        3 => (Json::Object(without("inputSchema")), ".inputSchema"),
        4 => (with("inputSchema", Json::Bool(true)), ".inputSchema"),
        _ => (with("description", Json::Int(1)), ".description"),
    }
}

proptest! {
    #[test]
    fn tools_pages_round_trip(tools in prop::collection::vec(arb_tool(), 0..5), cursor in prop::option::of(any::<String>()), nulls in any::<bool>()) {
        let entries: Vec<Json> = tools.iter().map(|tool| tool_json(tool, nulls)).collect();
        prop_assert_eq!(decode_tools_page(&page_json(&entries, &cursor)), Ok(ToolsPage { tools, next_cursor: cursor }));
    }

    #[test]
    fn one_bad_entry_fails_the_page_at_its_index(tools in prop::collection::vec(arb_tool(), 1..6), bad in any::<prop::sample::Index>(), how in 0usize..6) {
        let mut entries: Vec<Json> = tools.iter().map(|tool| tool_json(tool, false)).collect();
        let index = bad.index(entries.len());
        let (entry, suffix) = corrupt(&entries[index], how);
        entries[index] = entry;
        match decode_tools_page(&page_json(&entries, &None)) {
            Err(ProtocolFault::Fault { path, .. }) => prop_assert_eq!(path, format!("$.tools[{index}]{suffix}")),
            other => prop_assert!(false, "expected a fault, got {:?}", other),
        }
    }
}

// ---- read: one line as the actor needs it --------------------------------------

mod reading {
    use super::super::read::{
        read, read_in_full, read_with, Answer, Expect, LineFault, Outcome, Reading, MAX_ERROR_BYTES,
        MAX_WHOLE_RESULT_BYTES, ROUTED_FROM_BYTES, STRUCTURED_DEPTH,
    };
    use super::{decode_call_tool_result, parse, CallToolResult, ContentBlock};
    use crate::json::{self, Json};
    use crate::jsonrpc::MessageFault;
    use proptest::prelude::*;

    fn expecting(kind: Expect) -> impl FnOnce(i64) -> Option<Expect> {
        move |id| (id == 7).then_some(kind)
    }

    /// A response to id 7 whose `member` (`result` or `error`) takes
    /// `length` bytes: `head` (an object up to an open string) padded to
    /// the length and closed.
    fn response_of(length: usize, member: &str, head: &str) -> Vec<u8> {
        let value = format!("{head}{}\"}}", "x".repeat(length - head.len() - 2));
        assert_eq!(value.len(), length);
        format!(r#"{{"jsonrpc":"2.0","id":7,"{member}":{value}}}"#).into_bytes()
    }

    /// The reading of `line` for `expected`, and the bytes it built into
    /// trees.
    fn read_counting(line: &[u8], expected: Expect) -> (Result<Reading, LineFault>, usize) {
        crate::jsonrpc::envelope::TREE_BYTES.with(|bytes| bytes.set(0));
        let reading = read(line, expecting(expected));
        (reading, crate::jsonrpc::envelope::TREE_BYTES.with(|bytes| bytes.get()))
    }

    #[test]
    fn a_pending_id_is_decoded_as_expected() {
        let line = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}"#;
        let Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::CallTool(result)) }) = read(line, expecting(Expect::CallTool)) else {
            panic!()
        };
        assert_eq!(result.content, vec![super::ContentBlock::Text("hi".into())]);
        assert!(matches!(read(line, expecting(Expect::ToolsPage)), Ok(Reading::Answer { outcome: Outcome::Malformed(_), .. })));
        assert_eq!(read(line, expecting(Expect::Ping)), Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::Pong) }));
    }

    /// A tool result's line one byte shorter than `ROUTED_FROM_BYTES` is
    /// read whole for a routed call, as for a direct one; at the length, and
    /// whatever its shape (scanned or read in full), it is routed.
    #[test]
    fn a_routed_result_is_read_whole_below_the_length_and_routed_at_it() {
        for result in [r#"{"content":[{"type":"text","text":"hi"}]}"#, r#"{"content":[],"structuredContent":{"a":1}}"#] {
            let line = |length: usize| {
                let head = format!(r#"{{"jsonrpc":"2.0","id":7,"result":{result}"#);
                format!("{head}{}}}", " ".repeat(length - head.len() - 1)).into_bytes()
            };
            let shorter = line(ROUTED_FROM_BYTES - 1);
            assert_eq!(shorter.len(), ROUTED_FROM_BYTES - 1);
            let direct = read(&shorter, expecting(Expect::CallTool));
            assert!(matches!(direct, Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::CallTool(_)) })));
            assert_eq!(read(&shorter, expecting(Expect::RoutedCallTool)), direct);
            let at = line(ROUTED_FROM_BYTES);
            assert_eq!(read(&at, expecting(Expect::RoutedCallTool)), Ok(Reading::Routed { id: 7 }));
        }
    }

    #[test]
    fn an_input_required_call_result_is_kept_whole() {
        let line = br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create"}},"requestState":"s"}}"#;
        let Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::InputRequired(Json::Object(members))) }) =
            read(line, expecting(Expect::CallTool))
        else {
            panic!()
        };
        let keys: Vec<&str> = members.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(keys, ["resultType", "inputRequests", "requestState"]);
        // Any other resultType, or none, is a complete result.
        let line = br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[]}}"#;
        assert!(matches!(read(line, expecting(Expect::CallTool)), Ok(Reading::Answer { outcome: Outcome::Answer(Answer::CallTool(_)), .. })));
        let line = br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":7,"content":[]}}"#;
        assert!(matches!(read(line, expecting(Expect::CallTool)), Ok(Reading::Answer { outcome: Outcome::Answer(Answer::CallTool(_)), .. })));
        // Without `content`, a result that is not input_required stays malformed.
        let line = br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_requiredX"}}"#;
        assert!(matches!(read(line, expecting(Expect::CallTool)), Ok(Reading::Answer { outcome: Outcome::Malformed(_), .. })));
    }

    /// An `error` of `MAX_ERROR_BYTES` keeps its `data`; one byte longer,
    /// its `code` and `message` only, for every expectation; a repeated
    /// `data` is the same fault on both sides.
    #[test]
    fn an_error_keeps_its_data_up_to_the_length() {
        let error = |length: usize, extra: &str| {
            response_of(length, "error", &format!(r#"{{"code":-1,"message":"no",{extra}"data":""#))
        };
        for expected in [Expect::CallTool, Expect::RoutedCallTool, Expect::ToolsPage, Expect::RoutedResult, Expect::Ping, Expect::Initialize] {
            let data = |line: &[u8]| match read(line, expecting(expected)) {
                Ok(Reading::Answer { id: 7, outcome: Outcome::ServerError(error) }) => {
                    assert_eq!((error.code, error.message.as_str()), (crate::jsonrpc::Integer::Small(-1), "no"));
                    error.data
                }
                other => panic!("{other:?}"),
            };
            let at = error(MAX_ERROR_BYTES, "");
            assert!(matches!(data(&at), Some(Json::String(text)) if text.len() > 60_000));
            assert_eq!(data(&error(MAX_ERROR_BYTES + 1, "")), None);
            // What was built into trees: the data at the length, not past it.
            assert!(read_counting(&at, expected).1 >= MAX_ERROR_BYTES - 100);
            assert!(read_counting(&error(MAX_ERROR_BYTES + 1, ""), expected).1 < 100);
            for line in [at, error(MAX_ERROR_BYTES + 1, "")] {
                assert_eq!(read(&line, expecting(expected)), read_in_full(&line, expecting(expected)));
            }
            for length in [MAX_ERROR_BYTES, MAX_ERROR_BYTES + 1] {
                let twice = error(length, r#""data":1,"#);
                assert_eq!(
                    read(&twice, expecting(expected)),
                    Err(LineFault::Message(MessageFault::Bad("duplicate key error.data")))
                );
            }
        }
    }

    /// An `input_required` result of `MAX_WHOLE_RESULT_BYTES` is read
    /// whole; one byte longer, it is malformed, unbuilt.
    #[test]
    fn an_input_required_result_is_read_whole_up_to_the_length() {
        let line = |length: usize| response_of(length, "result", r#"{"resultType":"input_required","requestState":""#);
        for expected in [Expect::CallTool, Expect::RoutedCallTool] {
            assert!(matches!(
                read(&line(MAX_WHOLE_RESULT_BYTES), expecting(expected)),
                Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::InputRequired(_)) })
            ));
            match read_counting(&line(MAX_WHOLE_RESULT_BYTES + 1), expected) {
                (Ok(Reading::Answer { id: 7, outcome: Outcome::Malformed(fault) }), built) => {
                    assert!(fault.to_string().contains(&MAX_WHOLE_RESULT_BYTES.to_string()), "{fault}");
                    assert!(built < 100, "{built}");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    /// An `initialize` result of `MAX_WHOLE_RESULT_BYTES` is read; one byte
    /// longer, it is malformed, unbuilt.
    #[test]
    fn an_initialize_result_is_read_up_to_the_length() {
        let line = |length: usize| {
            let head = r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"instructions":""#;
            response_of(length, "result", head)
        };
        assert!(matches!(
            read(&line(MAX_WHOLE_RESULT_BYTES), expecting(Expect::Initialize)),
            Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::Initialize(_)) })
        ));
        match read_counting(&line(MAX_WHOLE_RESULT_BYTES + 1), Expect::Initialize) {
            (Ok(Reading::Answer { id: 7, outcome: Outcome::Malformed(fault) }), built) => {
                assert!(fault.to_string().contains(&MAX_WHOLE_RESULT_BYTES.to_string()), "{fault}");
                assert!(built < 100, "{built}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// What a long `error` builds of its `code` and `message` is bounded:
    /// a `code` of another shape than a short value, or a `message` that is
    /// not a string, is the fault a wrong one is, unbuilt; a long string
    /// message is read.
    #[test]
    fn a_long_error_builds_no_code_or_message_of_another_shape() {
        let pad = format!(r#""data":"{}""#, "x".repeat(MAX_ERROR_BYTES));
        let line = |code: &str, message: &str| format!(r#"{{"jsonrpc":"2.0","id":7,"error":{{"code":{code},"message":{message},{pad}}}}}"#).into_bytes();
        let long_array = format!("[{}0]", "0,".repeat(40_000));
        let (code, built) = read_counting(&line(&long_array, r#""no""#), Expect::CallTool);
        assert_eq!(code, Err(LineFault::Message(MessageFault::Bad("error code is not an integer"))));
        assert!(built < 100, "{built}");
        let (message, built) = read_counting(&line("-1", &long_array), Expect::CallTool);
        assert_eq!(message, Err(LineFault::Message(MessageFault::Bad("error message is not a string"))));
        assert!(built < 100, "{built}");
        let long_text = format!(r#""{}""#, "m".repeat(80_000));
        match read(&line("-1", &long_text), expecting(Expect::CallTool)) {
            Ok(Reading::Answer { outcome: Outcome::ServerError(error), .. }) => assert_eq!(error.message.len(), 80_000),
            other => panic!("{other:?}"),
        }
    }

    /// `resultType` is compared without building any value but a short
    /// string: an escaped `"input_required"` is one, a long array is not
    /// (and is not built).
    #[test]
    fn result_type_is_read_only_as_a_short_string() {
        let escaped: String = "input_required".chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
        let line = |result_type: &str| format!(r#"{{"jsonrpc":"2.0","id":7,"result":{{"resultType":{result_type},"content":[]}}}}"#).into_bytes();
        assert!(matches!(
            read(&line(&format!(r#""{escaped}""#)), expecting(Expect::CallTool)),
            Ok(Reading::Answer { outcome: Outcome::Answer(Answer::InputRequired(_)), .. })
        ));
        for expected in [Expect::CallTool, Expect::RoutedCallTool] {
            let (reading, built) = read_counting(&line(&format!("[{}0]", "[],".repeat(1000))), expected);
            assert!(matches!(reading, Ok(Reading::Answer { outcome: Outcome::Answer(Answer::CallTool(_)), .. }) | Ok(Reading::Routed { .. })));
            assert!(built < 100, "{built}");
        }
    }

    #[test]
    fn server_errors_and_their_faults() {
        let line = br#"{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"no"}}"#;
        assert!(matches!(read(line, expecting(Expect::CallTool)), Ok(Reading::Answer { outcome: Outcome::ServerError(_), .. })));
        let line = br#"{"jsonrpc":"2.0","id":7,"error":{"message":"no"}}"#;
        assert_eq!(read(line, expecting(Expect::CallTool)), Err(LineFault::Message(MessageFault::Bad("error without code"))));
    }

    #[test]
    fn what_nobody_waits_for_is_dropped_after_validation() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":8,"result":{"x":[1,2,3]}}"#[..],
            br#"{"jsonrpc":"2.0","id":"7","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":[[[]]]}}"#,
        ] {
            assert_eq!(read(line, expecting(Expect::CallTool)), Ok(Reading::Ignored));
        }
        let corrupt = br#"{"jsonrpc":"2.0","method":"n","params":{"a":[1,}}"#;
        assert!(matches!(read(corrupt, expecting(Expect::CallTool)), Err(LineFault::Message(MessageFault::Malformed(_)))));
    }

    #[test]
    fn server_requests_get_their_reply_line() {
        let ping = br#"{"jsonrpc":"2.0","id":"s\u00e9","method":"ping","params":{}}"#;
        assert_eq!(read(ping, |_| None), Ok(Reading::Reply(r#"{"jsonrpc":"2.0","id":"sé","result":{}}"#.into())));
        let other = br#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage"}"#;
        assert_eq!(
            read(other, |_| None),
            Ok(Reading::Reply(br#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}"#.to_vec()))
        );
        // A question, its method written with escapes or not, is named as one.
        for question in [
            &br#"{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{}}"#[..],
            br#"{"jsonrpc":"2.0","id":5,"method":"elicitation\/cr\u0065ate","params":{}}"#,
        ] {
            assert_eq!(
                read(question, |_| None),
                Ok(Reading::Question(br#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}"#.to_vec()))
            );
        }
        // A method that only holds the words is not.
        let near = br#"{"jsonrpc":"2.0","id":5,"method":"x/elicitation/create"}"#;
        assert!(matches!(read(near, |_| None), Ok(Reading::Reply(_))));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_named_at_the_first_one() {
        assert_eq!(read(b"{\"a\":\"\xFF\"}", |_| None), Err(LineFault::InvalidUtf8(6)));
        assert_eq!(read(b"{\"a\":1,\xC3(}", |_| None), Err(LineFault::InvalidUtf8(7)));
        // A corruption before the bad byte is a corruption.
        assert!(matches!(read(b"{\"a\":x\"\xFF\"}", |_| None), Err(LineFault::Message(MessageFault::Malformed(_)))));
    }

    fn response(result: &str) -> Vec<u8> {
        format!(r#"{{"jsonrpc":"2.0","id":7,"result":{result}}}"#).into_bytes()
    }

    /// What the whole-result decoder answers for the same line.
    fn decoded_whole(line: &[u8]) -> Outcome {
        let Json::Object(members) = json::parse(line).unwrap() else { panic!() };
        let result = members.into_iter().find(|(key, _)| key == "result").unwrap().1;
        decode_call_tool_result(result).map_or_else(Outcome::Malformed, |result| Outcome::Answer(Answer::CallTool(result)))
    }

    #[test]
    fn structured_content_is_built_from_its_own_bytes_once() {
        let line = response(r#"{"structuredContent" : {"a":[1, 2]} ,"content":[],"structuredContent":{"b":3}}"#);
        let mut calls = Vec::new();
        let reading = read_with(&line, expecting(Expect::CallTool), |bytes| {
            calls.push(bytes.to_vec());
            Ok(bytes.len())
        });
        assert_eq!(calls, vec![br#"{"a":[1, 2]}"#.to_vec()]);
        let expected = CallToolResult { content: vec![], is_error: false, structured_content: Some(12) };
        assert_eq!(reading, Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::CallTool(expected)) }));
    }

    #[test]
    fn structured_content_is_not_built_when_absent_null_or_beside_a_fault() {
        for result in [r#"{"content":[]}"#, r#"{"content":[],"structuredContent":null,"structuredContent":{}}"#, r#"{"content":3,"structuredContent":{}}"#] {
            let line = response(result);
            let reading = read_with(&line, expecting(Expect::CallTool), |_| -> Result<(), _> { panic!("built") });
            assert!(matches!(reading, Ok(Reading::Answer { .. })), "{result}");
        }
    }

    #[test]
    fn a_corruption_anywhere_beats_a_fault_and_is_the_lines() {
        for result in [r#"{"content":3,"structuredContent":[1,}"#, r#"{"content":[],"structuredContent":[1,}"#, r#"{"content":[],"x":tru}"#] {
            let line = response(result);
            let Err(json_fault) = json::parse(&line) else { panic!() };
            assert_eq!(read(&line, expecting(Expect::CallTool)), Err(LineFault::Message(MessageFault::Malformed(json_fault))), "{result}");
        }
        // The builder's own refusal counts as the line's corruption.
        let line = response(r#"{"content":[],"structuredContent":{}}"#);
        let refused = read_with(&line, expecting(Expect::CallTool), |_| -> Result<(), _> {
            Err(json::CorruptionReport { offset: 0, reason: "refused" })
        });
        assert!(matches!(refused, Err(LineFault::Message(MessageFault::Malformed(_)))));
    }

    #[test]
    fn escaped_keys_are_read_as_their_text() {
        let line = response(r#"{"is\u0045rror":true,"cont\u0065nt":[{"type":"text","text":"x"}],"structured\u0043ontent":1}"#);
        let expected = CallToolResult { content: vec![ContentBlock::Text("x".into())], is_error: true, structured_content: Some(Json::Int(1)) };
        assert_eq!(read(&line, expecting(Expect::CallTool)), Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::CallTool(expected)) }));
    }

    #[test]
    fn structured_content_nests_as_deep_as_the_line_allows() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let line = response(&format!(r#"{{"structuredContent":{}}}"#, nested(STRUCTURED_DEPTH)));
        assert!(json::parse(&line).is_ok());
        assert_eq!(read(&line, expecting(Expect::CallTool)).map(|_| ()), Ok(()));
        let line = response(&format!(r#"{{"structuredContent":{}}}"#, nested(STRUCTURED_DEPTH + 1)));
        let Err(json_fault) = json::parse(&line) else { panic!() };
        assert_eq!(read(&line, expecting(Expect::CallTool)), Err(LineFault::Message(MessageFault::Malformed(json_fault))));
    }

    fn member() -> impl Strategy<Value = (String, Json)> {
        let value = prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::Bool),
            (-3i64..3).prop_map(Json::Int),
            "[a-z]{0,3}".prop_map(Json::String),
            Just(parse("[]")),
            Just(parse(r#"[{"type":"text","text":"a"},{"type":"image"}]"#)),
            Just(parse(r#"[{"type":"text"}]"#)),
            Just(parse(r#"[{"type":"text","text":"b"},7]"#)),
            Just(parse(r#"{"rows":[{"id":1},{"id":2}],"n":null}"#)),
            Just(parse(r#"[{"name":"a","inputSchema":{"type":"object"}}]"#)),
        ];
        ("content|isError|structuredContent|tools|nextCursor|other", value)
    }

    proptest! {
        /// Member by member, the reader answers what decoding the whole
        /// result answers: keys in any order, repeated, `null`, mistyped.
        #[test]
        fn call_results_read_as_the_whole_result_decodes(members in prop::collection::vec(member(), 0..6)) {
            let line = json::to_bytes(&Json::Object(vec![
                ("jsonrpc".into(), Json::String("2.0".into())),
                ("id".into(), Json::Int(7)),
                ("result".into(), Json::Object(members)),
            ])).unwrap();
            let Ok(Reading::Answer { id: 7, outcome }) = read(&line, expecting(Expect::CallTool)) else {
                panic!("not an answer")
            };
            prop_assert_eq!(outcome, decoded_whole(&line));
        }

        /// A routed read answers what the direct read answers: the same
        /// fault for a line that is not JSON-RPC (whole or cut short, or
        /// with a byte changed), the same `input_required` result and server
        /// error, and, on a line of `ROUTED_FROM_BYTES` or more (the same
        /// lines led by spaces), `Routed` exactly where the direct read
        /// decodes a complete result (or finds it malformed), whose caller
        /// then reads the line again as `CallTool`; a shorter line's
        /// complete result is the direct read's. A routed page is
        /// `Routed` exactly where the direct read of a page decodes its
        /// result (or finds it malformed), at any length, and answers
        /// alike otherwise.
        #[test]
        fn a_routed_read_answers_what_the_direct_read_answers(
            members in prop::collection::vec(member(), 0..6),
            input_required in any::<bool>(),
            as_error in prop::sample::select(vec![0u8, 0, 0, 1, 2]),
            cut in any::<prop::sample::Index>(),
            change in prop::option::of((any::<prop::sample::Index>(), any::<u8>())),
        ) {
            let mut result = members;
            if input_required {
                result.insert(0, ("resultType".into(), Json::String("input_required".into())));
            }
            let outcome = match as_error {
                0 => ("result".into(), Json::Object(result)),
                1 => ("error".into(), parse(r#"{"code":-32022,"message":"no"}"#)),
                _ => ("error".into(), parse(r#"{"message":"no"}"#)),
            };
            let whole = json::to_bytes(&Json::Object(vec![
                ("jsonrpc".into(), Json::String("2.0".into())),
                ("id".into(), Json::Int(7)),
                outcome,
            ])).unwrap();
            let mut line = whole.clone();
            if let Some((at, byte)) = change {
                let at = at.index(line.len());
                line[at] = byte;
            }
            for line in [whole.clone(), line.clone(), line[..cut.index(line.len() + 1)].to_vec()] {
                let long = [vec![b' '; ROUTED_FROM_BYTES], line.clone()].concat();
                for line in [line, long] {
                    let direct = read(&line, expecting(Expect::CallTool));
                    let routed = read(&line, expecting(Expect::RoutedCallTool));
                    match direct {
                        Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::CallTool(_)) | Outcome::Malformed(_) })
                            if line.len() >= ROUTED_FROM_BYTES =>
                        {
                            prop_assert_eq!(routed, Ok(Reading::Routed { id: 7 }));
                        }
                        direct => prop_assert_eq!(routed, direct),
                    }
                    let page = read(&line, expecting(Expect::ToolsPage));
                    let routed_page = read(&line, expecting(Expect::RoutedResult));
                    match page {
                        Ok(Reading::Answer { id: 7, outcome: Outcome::Answer(Answer::ToolsPage(_)) | Outcome::Malformed(_) }) => {
                            prop_assert_eq!(routed_page, Ok(Reading::Routed { id: 7 }));
                        }
                        page => prop_assert_eq!(routed_page, page),
                    }
                }
            }
        }
    }
}
