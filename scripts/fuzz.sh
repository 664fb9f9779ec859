#!/bin/sh
# `make fuzz`: every libFuzzer target of fuzz/Cargo.toml, one after the
# other, single job, for FUZZ_SECONDS each (default 180), then its corpus
# minimised (cargo fuzz cmin) back into fuzz/corpus/<target>/, the corpus
# that `cargo test` replays (native/mcp_core/tests/fuzz_corpus.rs).
# Installs cargo-fuzz when missing. Usage: fuzz.sh [TARGET...]
# Runs on stable Rust through RUSTC_BOOTSTRAP=1 (cargo-fuzz needs nightly
# flags). A crash leaves its input in fuzz/artifacts/<target>/ and makes
# the script exit 1 after the remaining targets ran. Per-target statistics
# (executions, coverage, corpus) are appended to fuzz/target/fuzz-stats.txt.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${FUZZ_SECONDS:-180}
command -v cargo-fuzz >/dev/null 2>&1 || {
  echo "fuzz: installing cargo-fuzz (cargo install cargo-fuzz)" >&2
  cargo install cargo-fuzz --locked
}
export RUSTC_BOOTSTRAP=1
if [ $# -gt 0 ]; then targets="$*"; else targets=$(cargo fuzz list --fuzz-dir fuzz); fi

# Seeds that are not committed corpora: inputs that already reach deep paths.
seeds_for() {
  case $1 in
    json_parse|jsonrpc_decode|protocol_read|json_to_msgpack_bytes) echo test/fixtures/JSONTestSuite/test_parsing ;;
    protocol_tools_page) echo test/fixtures/codegen ;;
  esac
}

stats=fuzz/target/fuzz-stats.txt
mkdir -p fuzz/target
failed=""
for target in $targets; do
  corpus=fuzz/corpus/$target
  work=fuzz/target/corpus-work/$target
  log=fuzz/target/$target.log
  mkdir -p "$corpus" "$work"
  echo "fuzz: $target for ${seconds}s (log $log)" >&2
  # shellcheck disable=SC2046 # the seed folders are words on purpose
  if ! cargo fuzz run --fuzz-dir fuzz "$target" "$work" "$corpus" $(seeds_for "$target") -- \
      -max_total_time="$seconds" -print_final_stats=1 -max_len=4096 >"$log" 2>&1; then
    echo "fuzz: $target FAILED, see $log and fuzz/artifacts/$target/" >&2
    failed="$failed $target"
  fi
  cp "$work"/* "$corpus"/ 2>/dev/null || true
  # Edge coverage only (no hit counters): every edge kept by the fewest inputs.
  cargo fuzz cmin --fuzz-dir fuzz "$target" "$corpus" -- -use_counters=0 >>"$log" 2>&1
  {
    printf '%s %s seconds=%s ' "$(date -u +%FT%TZ)" "$target" "$seconds"
    grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | tr -d '\n'
    printf ' '
    grep -E '^#[0-9]+.*(DONE|cov:)' "$log" | grep -v MERGE | tail -1 | grep -o 'cov: [0-9]* ft: [0-9]*' | tr -d '\n'
    printf ' corpus_files=%s crash=%s\n' "$(ls "$corpus" | wc -l)" "$(case " $failed " in *" $target "*) echo yes ;; *) echo no ;; esac)"
  } >>"$stats"
  tail -1 "$stats" >&2
done
[ -z "$failed" ] || { echo "fuzz: failing targets:$failed" >&2; exit 1; }
