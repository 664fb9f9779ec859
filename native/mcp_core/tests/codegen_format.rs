//! Generated source is byte-identical to `gleam format` of itself: every
//! golden (`test/fixtures/codegen/*.gleam`, `test/fixtures/cli/*.gleam`),
//! every module of the hostile corpus and 300 modules of listings built from
//! seeded pseudo-random bytes are piped through `gleam format --stdin`, the
//! oracle.
//!
//! The compiler is found through `MCP_GLEAM_HOME` (a directory with
//! `bin/gleam` (an offline Gleam toolchain); a relative path is taken from the
//! repository root) or `gleam` on `PATH`. Without either the test fails and
//! says how to fix it, unless `MCP_GLEAM_FORMAT_CHECK=skip` asks to skip it,
//! which it then reports on stderr: a missing oracle is never a silent pass.

mod codegen_support;

use codegen_support::arbitrary_listing::listing_from_bytes;
use codegen_support::{fixtures_dir, read_json, sha256_hex, tools_of};
use mcp_core::codegen::generate;
use mcp_core::json::Json;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Random listings checked (at least 200).
const RANDOM_LISTINGS: u64 = 300;

fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `gleam` executable: `$MCP_GLEAM_HOME/bin/gleam`, else `gleam` on `PATH`.
fn find_gleam() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("MCP_GLEAM_HOME").filter(|home| !home.is_empty()) {
        let home = PathBuf::from(home);
        let home = if home.is_absolute() { home } else { repository_root().join(home) };
        let gleam = home.join("bin/gleam");
        assert!(gleam.is_file(), "MCP_GLEAM_HOME is set but {} is not a file", gleam.display());
        return Some(gleam);
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("gleam"))
        .find(|candidate| candidate.is_file())
}

/// The oracle, or `None` when the check was explicitly skipped.
fn oracle() -> Option<PathBuf> {
    match find_gleam() {
        Some(gleam) => Some(gleam),
        None if std::env::var("MCP_GLEAM_FORMAT_CHECK").is_ok_and(|value| value == "skip") => {
            eprintln!("!!! gleam format check SKIPPED (MCP_GLEAM_FORMAT_CHECK=skip): no Gleam compiler was checked against");
            None
        }
        None => panic!(
            "the gleam format check needs a Gleam compiler: set MCP_GLEAM_HOME to a directory with bin/gleam \
             (MCP_GLEAM_HOME=an offline Gleam toolchain), put gleam on PATH, or set MCP_GLEAM_FORMAT_CHECK=skip to skip it"
        ),
    }
}

/// `gleam format --stdin` of `source`.
fn formatted(gleam: &Path, source: &str) -> String {
    let mut child = Command::new(gleam)
        .args(["format", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gleam starts");
    child.stdin.take().expect("stdin is piped").write_all(source.as_bytes()).expect("gleam reads the source");
    let output = child.wait_with_output().expect("gleam finishes");
    assert!(
        output.status.success(),
        "gleam format refused the source ({}):\n{}\n{source}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("gleam writes UTF-8")
}

/// `None` when `source` is format-stable, else a report with the first
/// differing line.
fn format_difference(gleam: &Path, what: &str, source: &str) -> Option<String> {
    let expected = formatted(gleam, source);
    if expected == source {
        return None;
    }
    let line = expected.lines().zip(source.lines()).position(|(a, b)| a != b).unwrap_or(0);
    let show = |text: &str| text.lines().skip(line.saturating_sub(3)).take(8).collect::<Vec<_>>().join("\n");
    Some(format!("{what}: not gleam-format-stable at line {}\n--- generated\n{}\n--- gleam format\n{}", line + 1, show(source), show(&expected)))
}

fn gleam_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture directory exists")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "gleam"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_golden_is_gleam_format_stable() {
    let Some(gleam) = oracle() else { return };
    let dirs = [fixtures_dir(), repository_root().join("test/fixtures/cli")];
    let files: Vec<PathBuf> = dirs.iter().flat_map(|dir| gleam_files(dir)).collect();
    assert!(files.len() >= 9, "expected the codegen and cli goldens, found {files:?}");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let source = std::fs::read_to_string(path).expect("golden is UTF-8");
            format_difference(&gleam, &path.display().to_string(), &source)
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_hostile_module_is_gleam_format_stable() {
    let Some(gleam) = oracle() else { return };
    let Json::Array(cases) = read_json(&fixtures_dir().join("hostile.json")) else { panic!("hostile.json is not an array") };
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let server = case.get("server").and_then(Json::as_str).expect("case has a server");
        let tools = tools_of(case.get("tools").expect("case has tools"));
        if let Ok(generated) = generate(server, &tools, sha256_hex) {
            let name = case.get("case").and_then(Json::as_str).unwrap_or("?");
            failures.extend(format_difference(&gleam, name, &generated.source));
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} hostile cases generated");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// xorshift64*: a fixed-seed byte source, so the listings are the same on every run.
fn pseudo_random_bytes(seed: u64, length: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..length)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

#[test]
fn random_listings_are_gleam_format_stable() {
    let Some(gleam) = oracle() else { return };
    let mut generated_count = 0;
    let mut failures = Vec::new();
    for seed in 0..RANDOM_LISTINGS * 2 {
        if generated_count == RANDOM_LISTINGS {
            break;
        }
        let (server, tools) = listing_from_bytes(&pseudo_random_bytes(seed, 1200));
        if let Ok(generated) = generate(&server, &tools, sha256_hex) {
            failures.extend(format_difference(&gleam, &format!("seed {seed}"), &generated.source));
            generated_count += 1;
        }
    }
    assert_eq!(generated_count, RANDOM_LISTINGS, "too few random listings generated");
    assert!(failures.is_empty(), "{} of {RANDOM_LISTINGS} differ:\n{}", failures.len(), failures.join("\n\n"));
}
