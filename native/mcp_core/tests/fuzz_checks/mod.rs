//! One check per fuzz target, shared by the libFuzzer targets under `fuzz/`
//! (each target is `fuzz_target!` around one of these) and by the corpus
//! replay (`tests/fuzz_corpus.rs`), which runs every committed corpus input
//! through its target's check under `cargo test`. Each check panics exactly
//! when its decoder breaks a promise: totality, and where it applies a round
//! trip or agreement with a slower path. The including crate declares
//! `mod codegen_support;` beside this module.

// A fuzz target calls one check; the others are unused in its crate.
#![allow(dead_code)]

use crate::codegen_support::arbitrary_listing::listing_from_bytes;
use crate::codegen_support::{check_generation, sha256_hex, weak_digest};
use mcp_core::interchange::{self, LineFault as InterchangeFault};
use mcp_core::json::{self, Json};
use mcp_core::jsonrpc::{self, MessageFault};
use mcp_core::protocol::read::{read, read_in_full, Expect, LineFault as ReadFault};
use mcp_core::protocol;
use mcp_core::event_stream::{Decoder, EventStreamFault, Item, MAX_EVENT_BYTES};
use mcp_core::stdio::{self, Buffer, FramingFault, MAX_LINE_BYTES};

/// A fuzz target's name (its `[[bin]]` in `fuzz/Cargo.toml` and its corpus
/// folder `fuzz/corpus/<name>/`) and its check.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, by name.
pub const TARGETS: &[Target] = &[
    ("json_parse", json_parse),
    ("codegen_generate", codegen_generate),
    ("jsonrpc_decode", jsonrpc_decode),
    ("stdio_push", stdio_push),
    ("protocol_initialize_result", protocol_initialize_result),
    ("protocol_tools_page", protocol_tools_page),
    ("protocol_call_tool_result", protocol_call_tool_result),
    ("protocol_read", protocol_read),
    ("msgpack_decode", msgpack_decode),
    ("msgpack_to_json_line", msgpack_to_json_line),
    ("json_to_msgpack_bytes", json_to_msgpack_bytes),
    ("event_stream_push", event_stream_push),
];

/// JSON parse is total; whatever parses re-encodes and re-parses to itself.
pub fn json_parse(bytes: &[u8]) {
    if let Ok(value) = json::parse(bytes) {
        let encoded = json::to_bytes(&value).expect("a parsed value encodes");
        assert!(!encoded.contains(&b'\n'));
        assert_eq!(json::parse(&encoded), Ok(value));
    }
}

/// The generator on arbitrary tool listings (built from the bytes by the
/// same `listing_from_bytes` the proptest uses): every generated module
/// parses as Gleam with no ERROR/MISSING node and no attribute, keeps the
/// sanitizer cage, is deterministic, and every refusal is the right one.
/// Run with the production digest and with a 16-value digest that makes
/// names collide.
pub fn codegen_generate(bytes: &[u8]) {
    let (server, tools) = listing_from_bytes(bytes);
    check_generation(&server, &tools, sha256_hex);
    check_generation(&server, &tools, weak_digest);
}

/// JSON-RPC decode is total; every decoded message re-encodes, frames as
/// one line and decodes to itself.
pub fn jsonrpc_decode(bytes: &[u8]) {
    if let Ok(message) = jsonrpc::decode(bytes) {
        let framed = stdio::encode_line(&jsonrpc::encode_inbound(&message)).expect("a decoded message encodes");
        let (line, newline) = framed.split_at(framed.len() - 1);
        assert_eq!(newline, b"\n");
        assert!(!line.contains(&b'\n'));
        assert_eq!(jsonrpc::decode(line), Ok(message));
    }
}

/// A fuzz input read as a stream and the ways to feed it: up to eight
/// leading bytes are cut offsets, the rest is the stream, cut at those
/// offsets into `chunks`.
struct Chunked<'a> {
    cuts: &'a [u8],
    stream: &'a [u8],
    chunks: Vec<&'a [u8]>,
}

fn chunked(bytes: &[u8]) -> Chunked<'_> {
    let (cuts, stream) = bytes.split_at(bytes.len().min(8));
    let mut chunks = Vec::new();
    let mut rest = stream;
    for &cut in cuts {
        let (chunk, tail) = rest.split_at((cut as usize).min(rest.len()));
        chunks.push(chunk);
        rest = tail;
    }
    chunks.push(rest);
    Chunked { cuts, stream, chunks }
}

fn push_all(mut buffer: Buffer, chunks: &[&[u8]]) -> Result<Vec<Vec<u8>>, FramingFault> {
    let mut lines = Vec::new();
    for chunk in chunks {
        lines.extend(buffer.push(chunk)?);
    }
    Ok(lines)
}

/// Framing is total and independent of chunking: the input is cut at
/// offsets taken from its first bytes, and the lines must equal those of
/// the whole stream, each without a newline, within the limit. Under a
/// small cap (from the first byte), whether the stream is refused does not
/// depend on the chunking either.
pub fn stdio_push(bytes: &[u8]) {
    let Chunked { cuts, stream, chunks } = chunked(bytes);
    let whole = push_all(Buffer::new(), &[stream]).expect("a short stream frames");
    assert_eq!(push_all(Buffer::new(), &chunks).expect("a short stream frames"), whole);
    let one_byte: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(push_all(Buffer::new(), &one_byte).expect("a short stream frames"), whole);
    for line in &whole {
        assert!(!line.is_empty() && line.len() <= MAX_LINE_BYTES);
        assert!(!line.contains(&b'\n'));
    }
    let cap = usize::from(cuts.first().copied().unwrap_or(0)) % 64 + 1;
    let capped = push_all(Buffer::with_max_line_bytes(cap), &[stream]);
    for framing in [&chunks, &one_byte] {
        assert_eq!(push_all(Buffer::with_max_line_bytes(cap), framing).is_ok(), capped.is_ok());
    }
    if let Ok(lines) = capped {
        assert_eq!(lines, whole);
    }
}

/// decode_initialize_result is total on any JSON value; an accepted result
/// speaks a supported version.
pub fn protocol_initialize_result(bytes: &[u8]) {
    if let Ok(value) = json::parse(bytes) {
        if let Ok(result) = protocol::decode_initialize_result(&value) {
            assert!(protocol::SUPPORTED_VERSIONS.contains(&result.protocol_version.as_str()));
        }
    }
}

/// decode_tools_page is total on any JSON value; every accepted tool has a
/// non-empty name and an object input schema.
pub fn protocol_tools_page(bytes: &[u8]) {
    if let Ok(value) = json::parse(bytes) {
        if let Ok(page) = protocol::decode_tools_page(&value) {
            for tool in &page.tools {
                assert!(!tool.name.is_empty());
                assert!(matches!(tool.input_schema, Json::Object(_)));
            }
        }
    }
}

/// decode_call_tool_result is total on any JSON value; content may be
/// missing only beside structuredContent.
pub fn protocol_call_tool_result(bytes: &[u8]) {
    if let Ok(value) = json::parse(bytes) {
        let has_content = value.get("content").is_some();
        if let Ok(result) = protocol::decode_call_tool_result(value) {
            assert!(has_content || result.structured_content.is_some());
        }
    }
}

/// The client actor's line reader is total, reads what it reads in full
/// (without the scan of a common answer first), and agrees with the whole-line
/// parser: a line that is not JSON is its corruption report (or bytes that
/// are not UTF-8), and a line that is JSON is never reported corrupt.
pub fn protocol_read(bytes: &[u8]) {
    let expect = |id: i64| match id.rem_euclid(7) {
        0 => Some(Expect::Initialize),
        1 => Some(Expect::ToolsPage),
        2 => Some(Expect::CallTool),
        3 => Some(Expect::Ping),
        4 => Some(Expect::RoutedCallTool),
        5 => Some(Expect::RoutedResult),
        _ => None,
    };
    // The scan of a common tools/call answer changes no reading.
    assert_eq!(read(bytes, expect), read_in_full(bytes, expect));
    match (json::parse(bytes), read(bytes, expect)) {
        (Ok(_), Err(ReadFault::Message(MessageFault::Malformed(report)))) => panic!("valid JSON reported corrupt: {report}"),
        (Ok(_), Err(ReadFault::InvalidUtf8(_))) => panic!("valid JSON reported as not UTF-8"),
        (Err(report), Err(ReadFault::Message(MessageFault::Malformed(lazy)))) => assert_eq!(report, lazy),
        (Err(_), Err(ReadFault::InvalidUtf8(at))) => assert!(std::str::from_utf8(&bytes[..at]).is_ok()),
        (Err(report), other) => panic!("expected {report}, got {other:?}"),
        (Ok(_), _) => {}
    }
}

/// msgpack decode is total; whatever decodes re-encodes, never longer than
/// the input (smallest forms), and decodes back to itself.
pub fn msgpack_decode(bytes: &[u8]) {
    if let Ok(value) = interchange::decode(bytes) {
        let encoded = interchange::encode(&value).expect("a decoded value encodes");
        assert!(encoded.len() <= bytes.len());
        assert_eq!(interchange::decode(&encoded), Ok(value));
    }
}

/// The msgpack -> JSON fast path is total and answers exactly what
/// decoding, translating and writing answer; its text is one line of valid
/// JSON.
pub fn msgpack_to_json_line(bytes: &[u8]) {
    let slow = || -> Result<Vec<u8>, InterchangeFault> {
        let value = interchange::decode(bytes)?;
        let json = interchange::to_json(&value)?;
        Ok(json::to_bytes(&json).expect("a translated value writes"))
    };
    let fast = interchange::msgpack_to_json_line(bytes);
    if let Ok(text) = &fast {
        assert!(!text.contains(&b'\n'));
        assert!(json::parse(text).is_ok());
    }
    assert_eq!(fast, slow());
}

/// The JSON -> msgpack fast path is total and answers exactly what parsing,
/// translating and encoding answer; its bytes translate back to the JSON.
pub fn json_to_msgpack_bytes(text: &[u8]) {
    let slow = || -> Result<Vec<u8>, InterchangeFault> {
        let json = json::parse(text)?;
        let value = interchange::to_msgpack(&json)?;
        Ok(interchange::encode(&value).expect("a translated value encodes"))
    };
    let fast = interchange::json_to_msgpack_bytes(text);
    if let Ok(bytes) = &fast {
        let value = interchange::decode(bytes).expect("our encoding decodes");
        assert_eq!(interchange::to_json(&value).ok(), json::parse(text).ok());
    }
    assert_eq!(fast, slow());
}

type DecodedEvents = (Vec<Item>, Option<Vec<u8>>);

fn push_events(mut decoder: Decoder, chunks: &[&[u8]]) -> Result<DecodedEvents, EventStreamFault> {
    let mut items = Vec::new();
    for chunk in chunks {
        items.extend(decoder.push(chunk)?);
    }
    Ok((items, decoder.last_event_id().map(<[u8]>::to_vec)))
}

/// Whether some push of `chunks` was heard (`Decoder::heard`), each push
/// checked to hand back (items and last event id) at most what the decoder
/// held before it and its chunk, the bound the NIF schedules by.
fn heard_in(chunks: &[&[u8]]) -> bool {
    let mut decoder = Decoder::new();
    let mut heard = false;
    for chunk in chunks {
        let held = decoder.held_bytes();
        let items = decoder.push(chunk).expect("a short stream decodes");
        let handed_back: usize = items
            .iter()
            .map(|item| match item {
                Item::Event { kind, data } => kind.len() + data.len(),
                Item::Retry(_) => 8,
            })
            .sum::<usize>()
            + decoder.last_event_id().map_or(0, <[u8]>::len);
        assert!(handed_back <= held + chunk.len());
        heard |= decoder.heard();
    }
    heard
}

/// Event-stream decoding is total and independent of chunking: the input
/// is cut at offsets taken from its first bytes, and the items and last
/// event id must equal those of the whole stream and of the stream fed one
/// byte at a time, and so must whether some push was heard; no push hands
/// back more than was held and its chunk. Under a small cap (from the
/// first byte), whether the stream is refused does not depend on the
/// chunking either.
pub fn event_stream_push(bytes: &[u8]) {
    let Chunked { cuts, stream, chunks } = chunked(bytes);
    let whole = push_events(Decoder::new(), &[stream]).expect("a short stream decodes");
    assert_eq!(push_events(Decoder::new(), &chunks).expect("a short stream decodes"), whole);
    let one_byte: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(push_events(Decoder::new(), &one_byte).expect("a short stream decodes"), whole);
    let heard = heard_in(&[stream]);
    assert_eq!(heard_in(&chunks), heard);
    assert_eq!(heard_in(&one_byte), heard);
    for item in &whole.0 {
        if let Item::Event { data, .. } = item {
            assert!(data.len() <= MAX_EVENT_BYTES);
        }
    }
    let cap = usize::from(cuts.first().copied().unwrap_or(0)) % 64 + 1;
    let capped = push_events(Decoder::with_max_event_bytes(cap), &[stream]);
    for framing in [&chunks, &one_byte] {
        assert_eq!(push_events(Decoder::with_max_event_bytes(cap), framing).is_ok(), capped.is_ok());
    }
    if let Ok(decoded) = capped {
        assert_eq!(decoded, whole);
    }
}
