//! The hostile listing corpus (`test/fixtures/codegen/hostile.json`, written
//! by `make_hostile.py` with hand-written expectations): each case generates
//! to its expected outcome, and every generated module keeps the invariants.

mod codegen_support;

use codegen_support::{assert_invariants, fixtures_dir, read_json, sha256_hex, tools_of};
use mcp_core::codegen::{generate, GenerateError};
use mcp_core::json::Json;
use mcp_core::name::Digest;
use mcp_core::protocol::ToolDescriptor;

fn strings(value: Option<&Json>) -> Vec<&str> {
    match value {
        Some(Json::Array(items)) => items.iter().filter_map(Json::as_str).collect(),
        _ => Vec::new(),
    }
}

fn error_fields(error: &GenerateError) -> (&'static str, Json, Json) {
    let count = |n: &usize| Json::Int(i64::try_from(*n).unwrap_or(i64::MAX));
    match error {
        GenerateError::TooManyTools { count: c, max } => ("too_many_tools", count(c), count(max)),
        GenerateError::ToolNameCollision { a, b } => ("tool_name_collision", Json::str(a), Json::str(b)),
        GenerateError::SurfaceTooLarge { bytes, max } => ("surface_too_large", count(bytes), count(max)),
        GenerateError::SanitizerBreach { offset } => ("sanitizer_breach", count(offset), Json::Null),
    }
}

fn check_case(case: &Json) {
    let name = case.get("case").and_then(Json::as_str).unwrap_or("?");
    let server = case.get("server").and_then(Json::as_str).expect("case has a server");
    let tools = tools_of(case.get("tools").expect("case has tools"));
    let expect = case.get("expect").expect("case has an expectation");
    match (generate(server, &tools, sha256_hex), expect.get("ok"), expect.get("error")) {
        (Ok(generated), Some(ok), None) => {
            assert_invariants(&generated);
            if let Some(module) = ok.get("module").and_then(Json::as_str) {
                assert_eq!(generated.module_name, module, "{name}");
            }
            for needle in strings(ok.get("contains")) {
                assert!(generated.source.contains(needle), "{name}: source lacks {needle:?}:\n{}", generated.source);
            }
            for needle in strings(ok.get("lacks")) {
                assert!(!generated.source.contains(needle), "{name}: source holds {needle:?}");
            }
            for needle in strings(ok.get("surface_contains")) {
                assert!(generated.surface.contains(needle), "{name}: surface lacks {needle:?}");
            }
            for needle in strings(ok.get("surface_lacks")) {
                assert!(!generated.surface.contains(needle), "{name}: surface holds {needle:?}");
            }
        }
        (Err(error), None, Some(Json::Array(expected))) => {
            let (tag, first, second) = error_fields(&error);
            let matches = |expected: Option<&Json>, actual: &Json| matches!(expected, Some(Json::Null)) || expected == Some(actual);
            assert_eq!(expected.first().and_then(Json::as_str), Some(tag), "{name}: {error:?}");
            assert!(matches(expected.get(1), &first) && matches(expected.get(2), &second), "{name}: {error:?}");
        }
        (outcome, _, _) => panic!("{name}: unexpected outcome {outcome:?}"),
    }
}

#[test]
fn every_hostile_case_has_its_expected_outcome() {
    let corpus = read_json(&fixtures_dir().join("hostile.json"));
    let Json::Array(cases) = corpus else { panic!("hostile.json is not an array") };
    assert!(cases.len() >= 20);
    cases.iter().for_each(check_case);
}

fn tool(name: &str) -> ToolDescriptor {
    ToolDescriptor {
        name: name.to_owned(),
        title: None,
        description: None,
        input_schema: Json::Object(vec![("type".to_owned(), Json::str("object"))]),
        output_schema: None,
        annotations: None,
        execution: None,
    }
}

#[test]
fn a_forced_digest_collision_refuses_the_server_naming_both_originals() {
    let constant: Digest = |_| "00000000".to_owned();
    let tools = [tool("getItem"), tool("get-item")];
    let expected = GenerateError::ToolNameCollision { a: "getItem".to_owned(), b: "get-item".to_owned() };
    assert_eq!(generate("s", &tools, constant), Err(expected));
}

/// The surface bytes of `tools`, whether or not they are under the cap.
fn surface_bytes(tools: &[ToolDescriptor]) -> usize {
    match generate("s", tools, sha256_hex) {
        Ok(generated) => generated.surface.len(),
        Err(GenerateError::SurfaceTooLarge { bytes, .. }) => bytes,
        Err(error) => panic!("unexpected refusal {error:?}"),
    }
}

/// Tools whose surface is exactly `total` bytes: equal described tools,
/// then one last tool whose name and description length make up the rest
/// (a surface is its header followed by its tools' entries).
fn surface_of_bytes(total: usize) -> Vec<ToolDescriptor> {
    let described = |name: String, description_chars: usize| {
        let mut described = tool(&name);
        described.description = (description_chars > 0).then(|| "d".repeat(description_chars));
        described
    };
    let header = surface_bytes(&[]);
    let entry = |tools: &[ToolDescriptor]| surface_bytes(tools) - header;
    let per_tool = entry(&[described("t00000".to_owned(), 300)]);
    let count = (total - header - 400) / per_tool;
    let rest = total - header - count * per_tool;
    let last = (0..2 * per_tool)
        .flat_map(|description| (1..=32).map(move |name| (name, description)))
        .map(|(name, description)| described("y".repeat(name), description))
        .find(|candidate| entry(std::slice::from_ref(candidate)) == rest)
        .expect("some name and description length make up the rest");
    let mut tools: Vec<ToolDescriptor> = (0..count).map(|index| described(format!("t{index:05}"), 300)).collect();
    tools.push(last);
    tools
}

#[test]
fn the_surface_limit_holds_at_n_and_refuses_n_plus_one() {
    let max = mcp_core::codegen::MAX_SURFACE_BYTES;
    let at_limit = generate("s", &surface_of_bytes(max), sha256_hex).expect("a 64 KiB surface is accepted");
    assert_eq!(at_limit.surface.len(), max);
    assert_invariants(&at_limit);
    let over = generate("s", &surface_of_bytes(max + 1), sha256_hex);
    assert_eq!(over, Err(GenerateError::SurfaceTooLarge { bytes: max + 1, max }));
}
