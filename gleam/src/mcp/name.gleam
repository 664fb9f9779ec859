//// The name mangler (`mcp_name`): a server-chosen name into a Gleam
//// identifier. A tool name that mangling changed or truncated carries an
//// eight-character SHA-256 digest of the original, so `createIssue` and
//// `create_issue` stay distinct; `first_collision` finds the pair that still
//// mangles alike (and `codegen.generate` refuses it).

import gleam/option.{type Option}

/// A tool (or server) name as a Gleam function name: snake_case, at most
/// `max_name_chars()` characters before the digest suffix.
@external(erlang, "mcp_name", "mangle")
pub fn mangle(name: String) -> String

/// A parameter name as a Gleam label: snake_case, no truncation, no digest
/// (`dryRun` -> `dry_run`, `type` -> `type_`) except for a name with no
/// ASCII letter or digit (`unnamed_<digest>`).
@external(erlang, "mcp_name", "mangle_label")
pub fn mangle_label(name: String) -> String

/// The eight characters a changed name carries after its `_` (and
/// `unnamed_` its digest): the first lowercase hex characters of the
/// SHA-256 of `name`'s UTF-8 bytes. `mangle("echo")` is
/// `"echo_" <> digest("echo")`.
@external(erlang, "mcp_name", "digest")
pub fn digest(name: String) -> String

/// The first pair of names (the earlier one first) that `mangle` maps to one
/// identifier; a name given twice counts.
@external(erlang, "mcp_name", "first_collision")
pub fn first_collision(names: List(String)) -> Option(#(String, String))

/// Characters kept before the digest suffix (32).
@external(erlang, "mcp_name", "max_name_chars")
pub fn max_name_chars() -> Int
