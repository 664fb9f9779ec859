//! msgpack decode is total; whatever decodes re-encodes, never longer than
//! the input (smallest forms), and decodes back to itself.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::interchange;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(value) = interchange::decode(bytes) {
        let encoded = interchange::encode(&value).expect("a decoded value encodes");
        assert!(encoded.len() <= bytes.len());
        assert_eq!(interchange::decode(&encoded), Ok(value));
    }
});
