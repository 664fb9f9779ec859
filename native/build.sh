#!/bin/sh
# Builds the NIF cdylib and the jail's Landlock launcher in release mode and
# installs them into priv/.
# The old files are removed before the copy: overwriting a .so that a running
# VM has loaded in place corrupts its mapped pages and crashes it, and a
# launcher a jail is executing cannot be overwritten (ETXTBSY).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --quiet -p mcp_nif -p mcp_os --bin mcp-landlock --lib
mkdir -p priv
rm -f priv/libmcp_nif.so priv/mcp-landlock
cp target/release/libmcp_nif.so priv/libmcp_nif.so
cp target/release/mcp-landlock priv/mcp-landlock
