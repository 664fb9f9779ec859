//! JSON-RPC decode is total; every decoded message re-encodes, frames as one
//! line and decodes to itself.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mcp_core::{jsonrpc, stdio};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(message) = jsonrpc::decode(bytes) {
        let framed = stdio::encode_line(&jsonrpc::encode_inbound(&message)).expect("a decoded message encodes");
        let (line, newline) = framed.split_at(framed.len() - 1);
        assert_eq!(newline, b"\n");
        assert!(!line.contains(&b'\n'));
        assert_eq!(jsonrpc::decode(line), Ok(message));
    }
});
