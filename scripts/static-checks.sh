#!/bin/sh
# Static analysis, part of `make test`; any warning fails it (docs/testing.md).
#   1. clippy over the Rust workspace (native/*; fuzz/ is outside it), every
#      target, warnings denied;
#   2. xref over erlang_src/, cli/ and their tests (checks in rebar.config);
#   3. dialyzer over the same (warnings and PLT in rebar.config).
# xref and dialyzer run in rebar3's `static' profile, which compiles test/
# as sources (into _build/static/). The dialyzer PLT is built offline from
# the installed OTP applications (erts, kernel, stdlib, crypto, eunit and
# Debian's erlang-proper): the first run builds it (under a minute on two
# cores), later runs reuse it. The base PLT is cached per OTP
# version in ~/.cache/rebar3/mcp_oauth_<OTP version>_plt, shared by every
# checkout on the machine; the project PLT is _build/static/*_plt.
set -eu
cd "$(dirname "$0")/.."

echo "static-checks: cargo clippy" >&2
cargo clippy --quiet --workspace --all-targets -- -D warnings

echo "static-checks: xref (erlang_src, cli and tests)" >&2
rebar3 as static xref

echo "static-checks: dialyzer (erlang_src, cli and tests)" >&2
rebar3 as static dialyzer
