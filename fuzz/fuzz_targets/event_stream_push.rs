//! libFuzzer target: `fuzz_checks::event_stream_push` (the check and what it
//! promises live in `native/mcp_core/tests/fuzz_checks/mod.rs`, shared with
//! the corpus replay that `cargo test` runs).
#![no_main]

#[path = "../../native/mcp_core/tests/codegen_support/mod.rs"]
mod codegen_support;
#[path = "../../native/mcp_core/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| fuzz_checks::event_stream_push(bytes));
