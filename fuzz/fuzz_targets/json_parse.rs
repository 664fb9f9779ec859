//! JSON parse is total; whatever parses re-encodes and re-parses to itself.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::json;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(value) = json::parse(bytes) {
        let encoded = json::to_bytes(&value).expect("a parsed value encodes");
        assert!(!encoded.contains(&b'\n'));
        assert_eq!(json::parse(&encoded), Ok(value));
    }
});
