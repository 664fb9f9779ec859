//// The code-mode generator (`mcp_codegen`): a server's tool listing into the
//// Gleam source of `cap/mcp/<server>` and the one-line-per-tool surface the
//// model reads. It returns text; it never compiles or writes anything.

import mcp/protocol.{type ToolDescriptor}

pub type Generated {
  Generated(module_name: String, source: String, surface: String)
}

pub type GenerateError {
  TooManyTools(count: Int, max: Int)
  ToolNameCollision(a: String, b: String)
  SurfaceTooLarge(bytes: Int, max: Int)
  /// A `@` survived sanitizing at this byte of the source (a backstop).
  SanitizerBreach(byte_offset: Int)
}

@external(erlang, "mcp_codegen", "generate")
pub fn generate(
  server: String,
  tools: List(ToolDescriptor),
) -> Result(Generated, GenerateError)

/// One sentence for a person.
@external(erlang, "mcp_codegen", "describe")
pub fn describe(error: GenerateError) -> String

/// Server text made safe for a doc comment, at most `max_chars` characters
/// (a negative `max_chars` counts as 0, one above 2^32 as 2^32).
@external(erlang, "mcp_gleam_ffi", "sanitize")
pub fn sanitize(text: String, max_chars: Int) -> String

/// At most `max_chars` characters, a cut ending in `…` (`max_chars` taken
/// as in `sanitize`).
@external(erlang, "mcp_gleam_ffi", "truncate")
pub fn truncate(text: String, max_chars: Int) -> String

/// The Gleam string literal, quotes included, holding exactly `text`.
@external(erlang, "mcp_codegen", "escape")
pub fn escape(text: String) -> String

/// `Error(byte_offset)` of the first `@` in a source, `Ok(Nil)` if none.
@external(erlang, "mcp_gleam_ffi", "scan_for_at")
pub fn scan_for_at(source: String) -> Result(Nil, Int)

@external(erlang, "mcp_codegen", "max_tools")
pub fn max_tools() -> Int

@external(erlang, "mcp_codegen", "max_surface_bytes")
pub fn max_surface_bytes() -> Int

@external(erlang, "mcp_codegen", "description_chars")
pub fn description_chars() -> Int

@external(erlang, "mcp_codegen", "note_chars")
pub fn note_chars() -> Int

/// The cap of each fact in a parameter note (values, default, shape, hints).
@external(erlang, "mcp_codegen", "fact_chars")
pub fn fact_chars() -> Int

/// How deep a structured parameter's shape is shown.
@external(erlang, "mcp_codegen", "shape_depth")
pub fn shape_depth() -> Int
