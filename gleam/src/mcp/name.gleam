//// The name mangler (`mcp_name`): a server-chosen name into a Gleam
//// identifier. Changed names carry an eight-character SHA-256 digest suffix,
//// so two different wire names never mangle alike.

import gleam/option.{type Option}

/// A tool name as a Gleam function name.
@external(erlang, "mcp_name", "mangle")
pub fn mangle(name: String) -> String

/// A parameter name as a Gleam label.
@external(erlang, "mcp_name", "mangle_label")
pub fn mangle_label(name: String) -> String

/// The first pair of distinct names whose mangled forms are equal.
@external(erlang, "mcp_name", "first_collision")
pub fn first_collision(names: List(String)) -> Option(#(String, String))

/// Characters kept before the digest suffix (32).
@external(erlang, "mcp_name", "max_name_chars")
pub fn max_name_chars() -> Int
