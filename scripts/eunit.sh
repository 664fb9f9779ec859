#!/bin/sh
# The EUnit/PropEr suites (`rebar3 eunit`), with their output kept in
# _build/eunit.log; when any test fails, the failures are printed again at
# the end (a full run prints some 2,000 lines, and a CI log may keep only
# its tail). The exit status is rebar3's.
set -u
cd "$(dirname "$0")/.."
mkdir -p _build
log=_build/eunit.log
status_file=_build/eunit.status
( rebar3 eunit "$@" 2>&1; echo $? > "$status_file" ) | tee "$log"
status=$(cat "$status_file")
if [ "$status" != 0 ]; then
  echo
  echo "=== what failed (from $log) ==="
  # A failing test's line, its stack and error up to the blank line after it;
  # a fixture that failed or was cancelled; a test process that died.
  awk '/\*failed\*$|\*timed out\*$|\*skipped\*$|^ *\*\*\* |\*unexpected termination|tests were cancelled/ {show = 30}
       show > 0 {print; show--; if ($0 ~ /^$/) show = 0}' "$log"
fi
exit "$status"
