//! decode_call_tool_result is total on any JSON value; content may be
//! missing only beside structuredContent.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::{json, protocol};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(value) = json::parse(bytes) {
        let has_content = value.get("content").is_some();
        if let Ok(result) = protocol::decode_call_tool_result(value) {
            assert!(has_content || result.structured_content.is_some());
        }
    }
});
