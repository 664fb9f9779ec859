//! decode_tools_page is total on any JSON value; every accepted tool has a
//! non-empty name and an object input schema.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::json::{self, Json};
use mcp_core::protocol;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(value) = json::parse(bytes) {
        if let Ok(page) = protocol::decode_tools_page(&value) {
            for tool in &page.tools {
                assert!(!tool.name.is_empty());
                assert!(matches!(tool.input_schema, Json::Object(_)));
            }
        }
    }
});
