//// Which inputs the Erlang modules hand to a dirty CPU scheduler: the byte
//// sizes from which they do, and the work a term translation does on the
//// caller's scheduler before it moves. Internal (`gleam.toml`,
//// `internal_modules`): scheduling is not part of the package's API and may
//// change with no change to any answer; the package's own tests read these
//// to build inputs that take the dirty path.

/// Inputs of at least this many bytes are decoded (`json.decode`,
/// `json.parse`) on a dirty scheduler.
@external(erlang, "mcp_json", "dirty_threshold")
pub fn json_dirty_threshold() -> Int

/// Chunks of at least this many bytes are framed (`stdio.push`,
/// `stdio.push_with_offsets`) on a dirty scheduler.
@external(erlang, "mcp_stdio", "dirty_threshold")
pub fn stdio_dirty_threshold() -> Int

/// Names of at least this many bytes are mangled on a dirty scheduler.
@external(erlang, "mcp_name", "dirty_threshold")
pub fn name_dirty_threshold() -> Int

/// Texts of at least this many bytes are sanitized, truncated, escaped and
/// scanned on a dirty scheduler.
@external(erlang, "mcp_codegen", "dirty_threshold")
pub fn codegen_dirty_threshold() -> Int

/// Byte inputs of at least this many bytes (`msgpack_decode`,
/// `msgpack_to_json_line`, `json_to_msgpack_bytes`) run on a dirty
/// scheduler.
@external(erlang, "mcp_interchange", "dirty_threshold")
pub fn interchange_dirty_threshold() -> Int

/// The work units (one per value, one per list cell, one per payload byte)
/// a term translation (`to_json`, `to_msgpack`, `msgpack_encode`) spends on
/// the caller's scheduler before it is redone on a dirty one.
@external(erlang, "mcp_interchange", "work_budget")
pub fn interchange_work_budget() -> Int
