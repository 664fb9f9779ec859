//! decode_call_tool_result is total on any JSON value; content may be
//! missing only beside structuredContent.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::{json, protocol};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(value) = json::parse(bytes) {
        if let Ok(result) = protocol::decode_call_tool_result(&value) {
            assert!(value.get("content").is_some() || result.structured_content.is_some());
        }
    }
});
