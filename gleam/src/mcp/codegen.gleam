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
  /// A part of `tool` (`path`, e.g. `$.inputSchema.properties.a`) is past
  /// the JSON limits (`reason`: `"nesting too deep"`, `"integer too
  /// long"`), which no decoder produces: no module is generated.
  ValueBeyondLimits(tool: String, path: String, reason: String)
}

/// The module `cap/mcp/<server>` of a server's tools and its surface.
/// Refusals, in this order: more than `max_tools()` tools, two tool names
/// that mangle alike, a surface over `max_surface_bytes()`, an `@` in code;
/// and a tool with a part past the JSON limits (`ValueBeyondLimits`).
@external(erlang, "mcp_gleam_ffi", "codegen_generate")
pub fn generate(
  server: String,
  tools: List(ToolDescriptor),
) -> Result(Generated, GenerateError)

/// Whether `generate` leaves this tool out of the module: it declares
/// `execution.taskSupport` `"required"`, so it may only run as a task,
/// which this client does not speak (the surface names it).
@external(erlang, "mcp_gleam_ffi", "codegen_requires_tasks")
pub fn requires_tasks(tool: ToolDescriptor) -> Bool

/// One sentence for a person.
@external(erlang, "mcp_gleam_ffi", "codegen_describe")
pub fn describe(error: GenerateError) -> String

/// Server text made safe for a doc comment: whitespace folds to one space,
/// other controls and direction marks are removed, the ends are trimmed,
/// and the result is cut as `truncate` cuts it to at most `max_chars`
/// characters. A negative `max_chars` is `Error(Nil)`.
@external(erlang, "mcp_gleam_ffi", "sanitize")
pub fn sanitize(text: String, max_chars: Int) -> Result(String, Nil)

/// At most `max_chars` characters, a cut ending in `…`. A negative
/// `max_chars` is `Error(Nil)`.
@external(erlang, "mcp_gleam_ffi", "truncate")
pub fn truncate(text: String, max_chars: Int) -> Result(String, Nil)

/// The Gleam string literal, quotes included, holding exactly `text`.
@external(erlang, "mcp_codegen", "escape")
pub fn escape(text: String) -> String

/// `Error(byte_offset)` of the first `@` outside a `//` comment or a string
/// literal, `Ok(Nil)` when there is none.
@external(erlang, "mcp_gleam_ffi", "scan_for_at")
pub fn scan_for_at(source: String) -> Result(Nil, Int)

/// The most tools one module is generated for.
@external(erlang, "mcp_codegen", "max_tools")
pub fn max_tools() -> Int

/// The largest surface, in bytes.
@external(erlang, "mcp_codegen", "max_surface_bytes")
pub fn max_surface_bytes() -> Int

/// The cap, in characters, of a tool's sanitized description.
@external(erlang, "mcp_codegen", "description_chars")
pub fn description_chars() -> Int

/// The cap, in characters, of a sanitized note (a parameter's description
/// or title, or a planner reason).
@external(erlang, "mcp_codegen", "note_chars")
pub fn note_chars() -> Int

/// The cap of each fact in a parameter note (values, default, shape, hints).
@external(erlang, "mcp_codegen", "fact_chars")
pub fn fact_chars() -> Int

/// How deep a structured parameter's shape is shown.
@external(erlang, "mcp_codegen", "shape_depth")
pub fn shape_depth() -> Int
