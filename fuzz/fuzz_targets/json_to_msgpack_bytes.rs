//! The JSON -> msgpack fast path is total and answers exactly what parsing,
//! translating and encoding answer; its bytes translate back to the JSON.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::interchange::{self, LineFault};
use mcp_core::json;

fn slow(text: &[u8]) -> Result<Vec<u8>, LineFault> {
    let json = json::parse(text)?;
    let value = interchange::to_msgpack(&json)?;
    Ok(interchange::encode(&value).expect("a translated value encodes"))
}

fuzz_target!(|text: &[u8]| {
    let fast = interchange::json_to_msgpack_bytes(text);
    if let Ok(bytes) = &fast {
        let value = interchange::decode(bytes).expect("our encoding decodes");
        assert_eq!(interchange::to_json(&value).ok(), json::parse(text).ok());
    }
    assert_eq!(fast, slow(text));
});
