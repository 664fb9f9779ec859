//! The client actor's line reader is total, and agrees with the whole-line
//! parser: a line that is not JSON is its corruption report (or bytes that
//! are not UTF-8), and a line that is JSON is never reported corrupt.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::json;
use mcp_core::jsonrpc::MessageFault;
use mcp_core::protocol::read::{read, Expect, LineFault};

fuzz_target!(|bytes: &[u8]| {
    let expect = |id: i64| match id.rem_euclid(5) {
        0 => Some(Expect::Initialize),
        1 => Some(Expect::ToolsPage),
        2 => Some(Expect::CallTool),
        3 => Some(Expect::Ping),
        _ => None,
    };
    match (json::parse(bytes), read(bytes, expect)) {
        (Ok(_), Err(LineFault::Message(MessageFault::Malformed(report)))) => panic!("valid JSON reported corrupt: {report}"),
        (Ok(_), Err(LineFault::InvalidUtf8(_))) => panic!("valid JSON reported as not UTF-8"),
        (Err(report), Err(LineFault::Message(MessageFault::Malformed(lazy)))) => assert_eq!(report, lazy),
        (Err(_), Err(LineFault::InvalidUtf8(at))) => assert!(std::str::from_utf8(&bytes[..at]).is_ok()),
        (Err(report), other) => panic!("expected {report}, got {other:?}"),
        (Ok(_), _) => {}
    }
});
