//! Golden files: every `test/fixtures/codegen/<server>.listing.json` is
//! generated for server `<server>` and compared byte for byte with
//! `<server>.gleam`, `<server>.surface` and `<server>.module`. The goldens are
//! rewritten only when `MCP_REGEN_GOLDEN=1` is set (then review the diff).

mod codegen_support;

use codegen_support::{assert_valid_gleam, fixtures_dir, read_json, sha256_hex, tools_of};
use mcp_core::codegen::generate;

const LISTING_SUFFIX: &str = ".listing.json";

fn listings() -> Vec<String> {
    let mut servers: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures dir exists")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter_map(|name| name.strip_suffix(LISTING_SUFFIX).map(str::to_owned))
        .collect();
    servers.sort();
    servers
}

fn check_golden(file: &str, actual: &str, regenerate: bool) -> Option<String> {
    let path = fixtures_dir().join(file);
    if regenerate {
        std::fs::write(&path, actual).expect("golden written");
        return None;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    (expected != actual).then(|| format!("{file} differs from the generated output:\n{actual}"))
}

#[test]
fn every_listing_matches_its_goldens() {
    let regenerate = std::env::var("MCP_REGEN_GOLDEN").is_ok_and(|value| value == "1");
    let servers = listings();
    assert!(servers.len() >= 3, "expected the captured and hand-written listings, found {servers:?}");
    let mut failures = Vec::new();
    for server in &servers {
        let tools = tools_of(&read_json(&fixtures_dir().join(format!("{server}{LISTING_SUFFIX}"))));
        let generated = generate(server, &tools, sha256_hex).unwrap_or_else(|error| panic!("{server}: {error}"));
        assert_valid_gleam(&generated.source);
        failures.extend(check_golden(&format!("{server}.gleam"), &generated.source, regenerate));
        failures.extend(check_golden(&format!("{server}.surface"), &generated.surface, regenerate));
        failures.extend(check_golden(&format!("{server}.module"), &format!("{}\n", generated.module_name), regenerate));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn generation_is_deterministic() {
    for server in listings() {
        let tools = tools_of(&read_json(&fixtures_dir().join(format!("{server}{LISTING_SUFFIX}"))));
        assert_eq!(generate(&server, &tools, sha256_hex), generate(&server, &tools, sha256_hex));
    }
}
