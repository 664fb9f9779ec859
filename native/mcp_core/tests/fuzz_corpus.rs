//! Corpus replay: every input committed under `fuzz/corpus/<target>/`
//! (minimised libFuzzer corpora, `make fuzz`) runs through its target's
//! check (`fuzz_checks`), so a regression on a known input fails `cargo
//! test` without nightly or libFuzzer. Every `[[bin]]` of `fuzz/Cargo.toml`
//! must have a check here and a non-empty corpus, and every corpus folder a
//! target.

mod codegen_support;
mod fuzz_checks;

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The `name = "..."` of every `[[bin]]` table in `fuzz/Cargo.toml`.
fn declared_targets() -> BTreeSet<String> {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut names = BTreeSet::new();
    let mut in_bin = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let (true, Some(value)) = (in_bin, line.strip_prefix("name = ")) {
            names.insert(value.trim_matches('"').to_owned());
        }
    }
    names
}

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    files
}

#[test]
fn every_fuzz_target_has_a_check_and_a_corpus_and_every_corpus_a_target() {
    let checked: BTreeSet<String> = fuzz_checks::TARGETS.iter().map(|(name, _)| (*name).to_owned()).collect();
    assert_eq!(declared_targets(), checked, "fuzz/Cargo.toml's targets and fuzz_checks::TARGETS differ");
    let corpora: BTreeSet<String> = std::fs::read_dir(fuzz_dir().join("corpus"))
        .expect("fuzz/corpus/")
        .map(|entry| entry.expect("a corpus folder").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(corpora, checked, "fuzz/corpus/'s folders and the targets differ");
    for name in &corpora {
        assert!(!corpus_files(&fuzz_dir().join("corpus").join(name)).is_empty(), "fuzz/corpus/{name}/ is empty");
    }
}

#[test]
fn every_committed_corpus_input_passes_its_targets_check() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for (name, check) in fuzz_checks::TARGETS {
        let dir = fuzz_dir().join("corpus").join(name);
        if !dir.is_dir() {
            continue; // the test above names the missing corpus
        }
        for file in corpus_files(&dir) {
            let bytes = std::fs::read(&file).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
            if catch_unwind(AssertUnwindSafe(|| check(&bytes))).is_err() {
                failures.push(file.display().to_string());
            }
            replayed += 1;
        }
    }
    assert!(failures.is_empty(), "{} of {replayed} corpus inputs fail their check:\n{}", failures.len(), failures.join("\n"));
}
