#!/bin/sh
# Builds the NIF cdylib in release mode and installs it into priv/.
# The old file is removed before the copy: overwriting a .so that a running
# VM has loaded in place corrupts its mapped pages and crashes it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --quiet -p mcp_nif
mkdir -p priv
rm -f priv/libmcp_nif.so
cp target/release/libmcp_nif.so priv/libmcp_nif.so
