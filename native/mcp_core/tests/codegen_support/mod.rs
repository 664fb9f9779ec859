//! Shared by the generator's integration tests: the production digest, a
//! test-only listing reader, the tree-sitter-gleam syntax check, and the
//! fixture paths.

#![allow(dead_code)]

pub mod arbitrary_listing;

use mcp_core::codegen::{scan_for_at, GenerateError, Generated, MAX_SURFACE_BYTES, MAX_TOOLS};
use mcp_core::name::{mangle, Digest};
use mcp_core::json::{parse, Json};
use mcp_core::protocol::ToolDescriptor;
use sha2::{Digest as _, Sha256};
use std::path::PathBuf;

/// SHA-256 as lowercase hex: the digest the NIF injects in production.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// `test/fixtures/codegen/` at the repository root.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/codegen")
}

pub fn read_json(path: &PathBuf) -> Json {
    let bytes = std::fs::read(path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    parse(&bytes).unwrap_or_else(|report| panic!("{} is not JSON: {report:?}", path.display()))
}

/// The tools of a `tools/list` result (`{"tools": [...]}`) or of a bare
/// array of tools. Test-only and lenient: the wire codec is not under test.
pub fn tools_of(listing: &Json) -> Vec<ToolDescriptor> {
    let tools = match listing {
        Json::Array(tools) => tools,
        other => match other.get("tools") {
            Some(Json::Array(tools)) => tools,
            _ => panic!("listing has no tools array"),
        },
    };
    tools.iter().map(tool_of).collect()
}

fn tool_of(tool: &Json) -> ToolDescriptor {
    let text = |key: &str| tool.get(key).and_then(Json::as_str).map(str::to_owned);
    ToolDescriptor {
        name: text("name").expect("tool without a string name"),
        title: text("title"),
        description: text("description"),
        input_schema: tool.get("inputSchema").cloned().expect("tool without inputSchema"),
        output_schema: tool.get("outputSchema").cloned(),
        annotations: tool.get("annotations").cloned(),
        execution: tool.get("execution").cloned(),
    }
}

/// Panics unless `source` parses as Gleam with no ERROR or MISSING node and
/// holds no attribute node.
pub fn assert_valid_gleam(source: &str) {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_gleam::LANGUAGE.into()).expect("tree-sitter-gleam loads");
    let tree = parser.parse(source, None).expect("tree-sitter returns a tree");
    let mut cursor = tree.walk();
    // Pre-order walk without recursion.
    loop {
        let node = cursor.node();
        assert!(
            !node.is_error() && !node.is_missing() && node.kind() != "attribute",
            "{} node at {:?} in generated source:\n{source}",
            node.kind(),
            node.start_position()
        );
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        loop {
            if !cursor.goto_parent() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// The invariants every generated module keeps, whatever the listing.
pub fn assert_invariants(generated: &Generated) {
    let source = &generated.source;
    assert_valid_gleam(source);
    assert_eq!(scan_for_at(source), Ok(()));
    assert!(!source.chars().any(|c| c != '\n' && c.is_control()), "control character in source");
    for line in source.lines() {
        if line.trim_start().starts_with("//") {
            assert!(line == "///" || line.starts_with("/// "), "comment line not from the generator: {line:?}");
        }
    }
    // The surface adds its own `// ` lines (the header, the task-only tools),
    // where server text appears only as an escaped literal.
    for line in generated.surface.lines() {
        if line.trim_start().starts_with("//") {
            assert!(line == "///" || line.starts_with("/// ") || line.starts_with("// "), "comment line not from the generator: {line:?}");
        }
    }
}

/// A digest with sixteen values, so fuzzed names and labels collide often.
pub fn weak_digest(text: &str) -> String {
    format!("{:x}", text.bytes().fold(0u8, |sum, byte| sum.wrapping_add(byte)) % 16)
}

/// Generates `tools` for `server` and checks the outcome: a module keeps
/// [`assert_invariants`] and is deterministic; a refusal is the right one.
pub fn check_generation(server: &str, tools: &[ToolDescriptor], digest: Digest) {
    let result = mcp_core::codegen::generate(server, tools, digest);
    match &result {
        Ok(generated) => {
            assert!(tools.len() <= MAX_TOOLS && generated.surface.len() <= MAX_SURFACE_BYTES);
            assert_eq!(generated.module_name, format!("cap/mcp/{}", mangle(server, digest)));
            assert_invariants(generated);
            assert_eq!(mcp_core::codegen::generate(server, tools, digest), result, "generation is not deterministic");
        }
        Err(GenerateError::TooManyTools { count, max }) => assert!(*count == tools.len() && *count > *max),
        Err(GenerateError::ToolNameCollision { a, b }) => assert_eq!(mangle(a, digest), mangle(b, digest)),
        Err(GenerateError::SurfaceTooLarge { bytes, max }) => assert!(bytes > max),
        Err(GenerateError::SanitizerBreach { offset }) => panic!("sanitizer breach at {offset}"),
    }
}
