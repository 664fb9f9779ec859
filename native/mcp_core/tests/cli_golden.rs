//! The command line's golden module (`test/fixtures/cli/*.gleam`, written by
//! `bin/mcp-gen generate` through the NIF against the example server) parses
//! with tree-sitter-gleam: zero ERROR/MISSING nodes, no attribute.

mod codegen_support;

use codegen_support::assert_valid_gleam;
use std::path::PathBuf;

#[test]
fn cli_goldens_are_valid_gleam() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/cli");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("test/fixtures/cli exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_some_and(|ext| ext == "gleam") {
            let source = std::fs::read_to_string(&path).expect("golden is UTF-8");
            assert_valid_gleam(&source);
            checked += 1;
        }
    }
    assert!(checked > 0, "no .gleam golden under {}", dir.display());
}
