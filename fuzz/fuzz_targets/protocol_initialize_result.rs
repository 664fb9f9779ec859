//! decode_initialize_result is total on any JSON value; an accepted result
//! speaks a supported version.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::{json, protocol};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(value) = json::parse(bytes) {
        if let Ok(result) = protocol::decode_initialize_result(&value) {
            assert!(protocol::SUPPORTED_VERSIONS.contains(&result.protocol_version.as_str()));
        }
    }
});
