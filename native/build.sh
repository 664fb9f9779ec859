#!/bin/sh
# Builds the NIF cdylib and the jail's Landlock launcher in release mode and
# installs them into priv/.
# The old files are removed before the copy: overwriting a .so that a running
# VM has loaded in place corrupts its mapped pages and crashes it, and a
# launcher a jail is executing cannot be overwritten (ETXTBSY).
#
# Functions are aligned to 64 bytes and branch targets to 32: the JSON
# codec's per-value loops otherwise moved by a tenth with unrelated code
# changes (a 189-byte request's encode at 1.45x or 1.57x jiffy depending on
# where the linker put them; docs/performance.md). The flags change every
# crate's build, so this build has its own target directory (target/nif)
# and does not rebuild what `cargo test` and clippy use in target/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
CARGO_TARGET_DIR="$root/target/nif" \
RUSTFLAGS="-C llvm-args=-align-all-functions=6 -C llvm-args=-align-all-nofallthru-blocks=5" \
    cargo build --release --quiet -p mcp_nif -p mcp_os --bin mcp-landlock --lib
mkdir -p priv
rm -f priv/libmcp_nif.so priv/mcp-landlock
cp target/nif/release/libmcp_nif.so priv/libmcp_nif.so
cp target/nif/release/mcp-landlock priv/mcp-landlock
