//! Writes the modules the code-mode compile check builds (`make test`, via
//! `scripts/gleam-tests.sh`): every golden module of
//! `test/fixtures/codegen/`, the module of every hostile-corpus case that
//! generates, and modules generated from pseudo-random listings with at
//! least one tool (the property tests' arbitrary-listing builder fed from a
//! fixed seed).
//!
//! Usage: `code_mode_modules OUT_DIR [RANDOM_COUNT]` (default 200). Each
//! module is written as `OUT_DIR/<name>.gleam`, a valid Gleam module path
//! whatever the server was called (generated source never names its own
//! module). Prints one summary line.

#[path = "../tests/codegen_support/mod.rs"]
mod codegen_support;

use codegen_support::arbitrary_listing::listing_from_bytes;
use codegen_support::{fixtures_dir, read_json, sha256_hex, tools_of};
use mcp_core::codegen::generate;
use mcp_core::json::Json;
use std::path::Path;

/// The seed of the random listings: fixed, so every run compiles the same modules.
const SEED: u64 = 0x6d63_705f_636f_6465;

/// splitmix64: a tiny deterministic generator (no dependency needed).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, max_len: u64) -> Vec<u8> {
        let len = self.next() % (max_len + 1);
        (0..len).map(|_| self.next().to_le_bytes()[0]).collect()
    }
}

fn write(out: &Path, name: &str, source: &str) {
    let path = out.join(format!("{name}.gleam"));
    std::fs::write(&path, source).unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
}

fn module_file_name(stem: &str) -> String {
    stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

fn golden_modules(out: &Path) -> usize {
    let mut count = 0;
    for entry in std::fs::read_dir(fixtures_dir()).expect("fixtures dir exists") {
        let path = entry.expect("directory entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("gleam") {
            continue;
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("UTF-8 file name");
        let source = std::fs::read_to_string(&path).expect("golden is UTF-8");
        write(out, &format!("golden_{}", module_file_name(stem)), &source);
        count += 1;
    }
    count
}

fn hostile_modules(out: &Path) -> (usize, usize) {
    let Json::Array(cases) = read_json(&fixtures_dir().join("hostile.json")) else {
        panic!("hostile.json is not an array")
    };
    let mut written = 0;
    for (index, case) in cases.iter().enumerate() {
        let server = case.get("server").and_then(Json::as_str).expect("case has a server");
        let tools = tools_of(case.get("tools").expect("case has tools"));
        if let Ok(generated) = generate(server, &tools, sha256_hex) {
            write(out, &format!("hostile_{index:03}"), &generated.source);
            written += 1;
        }
    }
    (written, cases.len())
}

fn random_modules(out: &Path, wanted: usize) -> usize {
    let mut random = SplitMix(SEED);
    let mut written = 0;
    let mut tried = 0;
    while written < wanted && tried < wanted * 20 {
        tried += 1;
        let (server, tools) = listing_from_bytes(&random.bytes(600));
        // A listing without tools is an empty module (the hostile corpus has
        // those); the random ones are spent on modules with functions.
        if tools.is_empty() {
            continue;
        }
        if let Ok(generated) = generate(&server, &tools, sha256_hex) {
            write(out, &format!("random_{written:03}"), &generated.source);
            written += 1;
        }
    }
    assert_eq!(written, wanted, "only {written} of {tried} random listings generated");
    written
}

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().expect("usage: code_mode_modules OUT_DIR [RANDOM_COUNT]");
    let wanted: usize = args.next().map_or(200, |n| n.parse().expect("RANDOM_COUNT is a number"));
    let out = Path::new(&out);
    std::fs::create_dir_all(out).expect("output directory");
    let goldens = golden_modules(out);
    let (hostile, cases) = hostile_modules(out);
    let random = random_modules(out, wanted);
    println!(
        "code mode: wrote {} modules ({goldens} goldens, {hostile} of {cases} hostile cases that generate, {random} random listings with tools, seed {SEED:#x})",
        goldens + hostile + random
    );
}
