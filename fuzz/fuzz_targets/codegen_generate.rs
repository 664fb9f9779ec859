//! The generator on arbitrary tool listings (built from the input bytes by
//! the same `listing_from_bytes` the proptest uses): every generated module
//! parses as Gleam with no ERROR/MISSING node and no attribute, keeps the
//! sanitizer cage (no `@` in code, no control character, every comment line
//! `/// `), is deterministic, and every refusal is the right one. Run with the
//! production digest and with a 16-value digest that makes names collide.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../native/mcp_core/tests/codegen_support/mod.rs"]
mod codegen_support;

use codegen_support::arbitrary_listing::listing_from_bytes;
use codegen_support::{check_generation, sha256_hex, weak_digest};

fuzz_target!(|data: &[u8]| {
    let (server, tools) = listing_from_bytes(data);
    check_generation(&server, &tools, sha256_hex);
    check_generation(&server, &tools, weak_digest);
});
