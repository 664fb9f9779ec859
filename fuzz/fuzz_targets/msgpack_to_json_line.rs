//! The msgpack -> JSON fast path is total and answers exactly what decoding,
//! translating and writing answer; its text is one line of valid JSON.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::interchange::{self, LineFault};
use mcp_core::json;

fn slow(bytes: &[u8]) -> Result<Vec<u8>, LineFault> {
    let value = interchange::decode(bytes)?;
    let json = interchange::to_json(&value)?;
    Ok(json::to_bytes(&json).expect("a translated value writes"))
}

fuzz_target!(|bytes: &[u8]| {
    let fast = interchange::msgpack_to_json_line(bytes);
    if let Ok(text) = &fast {
        assert!(!text.contains(&b'\n'));
        assert!(json::parse(text).is_ok());
    }
    assert_eq!(fast, slow(bytes));
});
