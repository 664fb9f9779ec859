#!/bin/sh
# Every client scenario of the pinned MCP conformance suite against
# bin/mcp-gen (test/conformance/client), each judged against the baseline
# test/conformance/expected-failures.yml: exit 1 on a scenario that fails
# unexpectedly or passes while listed. Not part of `make test` (the three
# scenarios mcp-gen must pass are, in cli/test/mcp_cli_conformance_tests.erl);
# the table of results is docs/conformance.md. Usage: scripts/conformance-all.sh [OUT_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
sh "$root/scripts/ensure-deps.sh" test
node=$root/test/conformance/node_modules/.bin/node
suite=$root/test/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js
out=${1:-$root/_build/conformance}
mkdir -p "$out"
status=0
for scenario in $("$node" "$suite" list 2>/dev/null | sed -n '/^Client scenarios/,/^$/p' | sed -n 's/^  - \([^ ]*\).*/\1/p'); do
  if "$node" "$suite" client --command "$root/test/conformance/client" --scenario "$scenario" \
       --expected-failures "$root/test/conformance/expected-failures.yml" -o "$out" >"$out/$(echo "$scenario" | tr / _).log" 2>&1; then
    echo "conformance: $scenario: as expected"
  else
    echo "conformance: $scenario: NOT as expected (see $out)"; status=1
  fi
done
exit $status
