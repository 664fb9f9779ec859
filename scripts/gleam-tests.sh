#!/bin/sh
# The Gleam suites, run by `make test` after the Rust and EUnit suites:
#   1. gleam/            the package's gleeunit suite (bindings, client end to end)
#   2. gleam/code_mode/   every golden, hostile-corpus and random generated module
#                        compiled against the test-only `cap` counterpart (zero
#                        errors; warnings only of the kinds docs/gleam.md
#                        justifies), then gleeunit calling generated functions
#                        against the running example server.
# The compiler is MCP_GLEAM_HOME/bin/gleam (a directory laid out like
# ../shared/gleam, whose offline-deps makes resolution work without Hex) or
# `gleam` on PATH. Without either, one line says the suites did not run.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

offline=""
if [ -n "${MCP_GLEAM_HOME:-}" ]; then
  home=$(cd "$MCP_GLEAM_HOME" && pwd)
  [ -x "$home/bin/gleam" ] || { echo "gleam-tests: MCP_GLEAM_HOME=$MCP_GLEAM_HOME has no bin/gleam" >&2; exit 1; }
  PATH="$home/bin:$PATH"; export PATH
  [ -x "$home/offline-deps" ] && offline="$home/offline-deps"
elif ! command -v gleam >/dev/null 2>&1; then
  echo "*** Gleam suites NOT run: no Gleam compiler. Set MCP_GLEAM_HOME=../shared/gleam (or put gleam on PATH) and rerun make test. ***"
  exit 0
fi
echo "gleam-tests: $(gleam --version)"

# Offline machines: seed build/packages and a manifest from MCP_GLEAM_HOME.
# The code-mode project's path dependency on gleam/ is added to the manifest
# by hand; Gleam's first look at a path dependency records its gleam.toml
# fingerprint and wants to resolve, so that first look is allowed to fail.
seed_offline() {
  [ -n "$offline" ] || return 0
  rm -f "$1/manifest.toml"
  "$offline" "$1" 2>/dev/null
  if [ -n "${2:-}" ]; then
    python3 - "$1/manifest.toml" "$2" <<'PY'
import sys
path, dep = sys.argv[1], sys.argv[2]
text = open(path).read()
if '{ name = "mcp",' in text:
    sys.exit(0)  # offline-deps already recorded the path dependency
text = text.replace("packages = [\n", 'packages = [\n  { name = "mcp", version = "0.1.0", build_tools = ["gleam"], requirements = ["gleam_erlang", "gleam_stdlib"], source = "local", path = "%s" },\n' % dep, 1)
text = text.replace("[requirements]\n", '[requirements]\nmcp = { path = "%s" }\n' % dep, 1)
open(path, "w").write(text)
PY
    (cd "$1" && gleam deps list >/dev/null 2>&1) || true
  fi
}

echo "== gleam format --check (the package, the cap counterpart, the tests)"
(cd "$root" && gleam format --check gleam/src gleam/test gleam/code_mode/test \
   gleam/code_mode/src/cap/mcp.gleam gleam/code_mode/src/cap/report.gleam gleam/code_mode/src/cap/internal)

echo "== gleam/: gleeunit"
seed_offline "$root/gleam"
(cd "$root/gleam" && gleam test)

echo "== gleam/code_mode: compile every generated module"
project=$root/gleam/code_mode
generated=$project/src/cap/mcp
rm -rf "$generated" "$project/build/dev/erlang/code_mode"
mkdir -p "$generated"
cp "$root/test/fixtures/cli/example.gleam" "$generated/example.gleam"
cargo run --release -q -p mcp_core --example code_mode_modules -- "$generated/gen" 200
seed_offline "$project" ".."
log=$project/build/compile.log
mkdir -p "$project/build"
if ! (cd "$project" && gleam build) > "$log" 2>&1; then
  cat "$log"; echo "gleam-tests: generated modules do not compile" >&2; exit 1
fi
modules=$(find "$generated" -name '*.gleam' | wc -l)
# Gleam's own warnings (erlc's "Warning: behaviour ..." lines for the
# package's Erlang sources are not about generated code; see docs/gleam.md).
grep '^warning: ' "$log" | sort | uniq -c | sed 's/^/  /' > "$log.kinds" || true
allowed='warning: Empty module$'
if grep -v "$allowed" "$log.kinds" | grep -q .; then
  cat "$log"; echo "gleam-tests: unexpected kinds of warning in generated modules:" >&2
  grep -v "$allowed" "$log.kinds" >&2; exit 1
fi
echo "code mode: $modules generated modules compiled with no error; warnings by kind:"
if [ -s "$log.kinds" ]; then cat "$log.kinds"; else echo "  none"; fi

echo "== gleam/code_mode: gleeunit (generated functions against the example server)"
(cd "$project" && gleam test)
