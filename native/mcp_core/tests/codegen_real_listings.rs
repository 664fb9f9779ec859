//! The six captured real servers (`test/fixtures/codegen/SOURCE.md`) keep
//! what their schemas tell a caller: no label carries a digest unless a
//! collision made the tool whole-value, every parameter's enum, const,
//! default and (when it has no description) title shows in its note, every
//! structured parameter shows its shape, every declared hint and output
//! schema appears, and every surface is under the cap.

mod codegen_support;

use codegen_support::{fixtures_dir, read_json, sha256_hex, tools_of};
use mcp_core::codegen::{escape, generate, requires_tasks, MAX_SURFACE_BYTES};
use mcp_core::json::{to_bytes, Json};
use mcp_core::name::mangle;
use mcp_core::protocol::ToolDescriptor;
use mcp_core::schema::{plan, ParamType, Plan};

const REAL_SERVERS: [&str; 6] = ["everything", "filesystem", "memory", "sequential-thinking", "time", "git"];

/// A function's doc comment as one line: `/// ` and hanging indents
/// removed, lines joined by single spaces (the generator wraps at spaces).
fn doc_of(source: &str, function: &str) -> String {
    let header = format!("pub fn {function}(");
    let lines: Vec<&str> = source.lines().collect();
    let at = lines.iter().position(|line| line.starts_with(&header)).unwrap_or_else(|| panic!("no {header}"));
    let start = lines[..at].iter().rposition(|line| !line.starts_with("///")).map_or(0, |index| index + 1);
    lines[start..at].iter().map(|line| line.trim_start_matches('/').trim()).filter(|line| !line.is_empty()).collect::<Vec<_>>().join(" ")
}

fn compact(value: &Json) -> String {
    String::from_utf8(to_bytes(value).expect("listing values encode")).expect("JSON is UTF-8")
}

/// Records `what` as missing unless `needle` is in `haystack`.
fn require(missing: &mut Vec<String>, context: &str, haystack: &str, needle: &str, what: &str) {
    if !haystack.contains(needle) {
        missing.push(format!("{context}: {what} {needle:?} not in {haystack:?}"));
    }
}

fn check_tool(server: &str, source: &str, tool: &ToolDescriptor) -> Vec<String> {
    let mut missing = Vec::new();
    let context = format!("{server}/{}", tool.name);
    let doc = doc_of(source, &mangle(&tool.name, sha256_hex));
    if tool.annotations.is_some() {
        require(&mut missing, &context, &doc, "Hints: ", "hints");
    }
    if tool.output_schema.is_some() {
        require(&mut missing, &context, &doc, "Returns structuredContent: ", "returned shape");
    }
    let Plan::Typed(params) = plan(&tool.input_schema, sha256_hex) else { return missing };
    let Some(Json::Object(properties)) = tool.input_schema.get("properties") else { return missing };
    for (param, (_, property)) in params.iter().zip(properties) {
        let digest = &sha256_hex(&param.wire_name)[..8];
        assert!(!param.label.ends_with(digest), "{context}: label {} carries a digest", param.label);
        let label = format!("- {}: ", param.label);
        // The parameter's note: from its `- label: ` to the next item.
        let note = doc.find(&label).map_or(String::new(), |at| {
            let rest = &doc[at + label.len()..];
            rest.split(" - ").next().unwrap_or(rest).to_owned()
        });
        if note.is_empty() && (property.get("description").is_some() || property.get("title").is_some()) {
            missing.push(format!("{context}: no note for {}", param.label));
        }
        if let Some(Json::Array(values)) = property.get("enum") {
            values.iter().for_each(|value| require(&mut missing, &context, &note, &compact(value), "allowed value"));
        }
        if let Some(value) = property.get("const") {
            require(&mut missing, &context, &note, &format!("Always: {}.", compact(value)), "const");
        }
        if let Some(value) = property.get("default") {
            require(&mut missing, &context, &note, &format!("Default: {}.", compact(value)), "default");
        }
        if let (None, Some(title)) = (property.get("description"), property.get("title").and_then(Json::as_str)) {
            require(&mut missing, &context, &note, title, "title");
        }
        if let ParamType::Structured(_) = param.param_type {
            require(&mut missing, &context, &note, "Shape: ", "shape");
        }
    }
    missing
}

#[test]
fn real_listings_keep_their_schema_facts() {
    let mut missing = Vec::new();
    let mut tools_checked = 0;
    for server in REAL_SERVERS {
        let tools = tools_of(&read_json(&fixtures_dir().join(format!("{server}.listing.json"))));
        let generated = generate(server, &tools, sha256_hex).unwrap_or_else(|error| panic!("{server}: {error}"));
        assert!(generated.surface.len() <= MAX_SURFACE_BYTES);
        for tool in &tools {
            if requires_tasks(tool) {
                // No function: the surface names it as unavailable instead.
                let line = format!("// - {} (tool {})", mangle(&tool.name, sha256_hex), escape(&tool.name));
                require(&mut missing, server, &generated.surface, &line, "task-only tool");
            } else {
                missing.extend(check_tool(server, &generated.source, tool));
            }
            tools_checked += 1;
        }
    }
    assert_eq!(tools_checked, 51, "the six listings hold 51 tools");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn no_real_description_is_cut() {
    for server in REAL_SERVERS {
        let source = std::fs::read_to_string(fixtures_dir().join(format!("{server}.gleam"))).expect("golden exists");
        assert!(!source.contains('\u{2026}'), "{server}: a description or fact was truncated");
    }
}
