//! The generator (the `mcp/codegen` module): a server's tool listing into the
//! Gleam module `cap/mcp/<segment>` and its description surface
//! (docs/cap-contract.md).
//!
//! Invariants:
//! - Deterministic: the same server name, tools and digest give the same bytes.
//! - Server text reaches the source only as a mangled identifier, an
//!   [`escape`]d string literal, or [`sanitize`]d text after `/// ` on a
//!   line the generator breaks itself; [`scan_for_at`] then proves no `@`
//!   escaped into code, or generation fails with
//!   [`GenerateError::SanitizerBreach`].
//! - Refusals, checked in this order: more than [`MAX_TOOLS`] tools, two
//!   tool names that mangle alike, a surface over [`MAX_SURFACE_BYTES`], an
//!   `@` in code.
//! - A tool whose `execution.taskSupport` is `"required"` gets no function
//!   (the client speaks no task protocol, so a call could never succeed):
//!   the surface names it as unavailable, and its name takes no part in the
//!   collision check.
//! - The surface starts with the line that imports the module and a comment
//!   naming the module, its alias and the server.
//! - The source is byte-identical to `gleam format` of itself (Gleam 1.17):
//!   code is laid out by [`layout`], a port of the formatter's algorithm for
//!   the constructs a module uses, and doc comments are wrapped by the
//!   generator (the formatter leaves comments alone).
//! - It compiles against the `cap` counterpart with no warning (docs/cap-contract.md;
//!   `docs/codegen.md`): `gleam/list` is imported only when a body maps a
//!   list, `cap/report` is never imported (no body names a `Report`), and a
//!   server without tools gets an empty module.

mod facts;
mod gleam;
mod layout;
mod text;

pub use facts::{FACT_CHARS, SHAPE_DEPTH};
pub use text::{escape, sanitize, scan_for_at, scan_for_at_bytes, truncate, wrap, DESCRIPTION_CHARS, NOTE_CHARS};

use crate::json::Json;
use crate::name::{first_collision, mangle, Digest};
use crate::protocol::ToolDescriptor;
use gleam::ToolFunction;

/// Most tools one module is generated for.
pub const MAX_TOOLS: usize = 256;

/// Largest surface, in bytes, after truncation.
pub const MAX_SURFACE_BYTES: usize = 65_536;

/// Where generated modules live.
pub const MODULE_PREFIX: &str = "cap/mcp/";

/// A generated module: its name, its Gleam source and its surface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    pub module_name: String,
    pub source: String,
    pub surface: String,
}

/// Why a listing was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error("the server lists {count} tools, more than the {max} a module is generated for")]
    TooManyTools { count: usize, max: usize },
    #[error("tool names {a:?} and {b:?} mangle to the same Gleam name")]
    ToolNameCollision { a: String, b: String },
    #[error("the tool surface is {bytes} bytes after truncation, more than the {max} allowed")]
    SurfaceTooLarge { bytes: usize, max: usize },
    #[error("an @ at byte {offset} of the generated source is outside a comment or string: the sanitizer failed")]
    SanitizerBreach { offset: usize },
}

/// Generates the module for server `server` from its `tools`, in listing
/// order; names are mangled with `digest`.
pub fn generate(server: &str, tools: &[ToolDescriptor], digest: Digest) -> Result<Generated, GenerateError> {
    if tools.len() > MAX_TOOLS {
        return Err(GenerateError::TooManyTools { count: tools.len(), max: MAX_TOOLS });
    }
    let (task_only, callable): (Vec<&ToolDescriptor>, Vec<&ToolDescriptor>) = tools.iter().partition(|tool| requires_tasks(tool));
    let names: Vec<&str> = callable.iter().map(|tool| tool.name.as_str()).collect();
    if let Some((a, b)) = first_collision(&names, digest) {
        return Err(GenerateError::ToolNameCollision { a: a.to_owned(), b: b.to_owned() });
    }
    let functions: Vec<ToolFunction> = callable.iter().map(|tool| ToolFunction::new(tool, digest)).collect();
    let segment = mangle(server, digest);
    let surface = render_surface(server, &segment, &functions, &task_only, digest);
    if surface.len() > MAX_SURFACE_BYTES {
        return Err(GenerateError::SurfaceTooLarge { bytes: surface.len(), max: MAX_SURFACE_BYTES });
    }
    let source = render_module(server, &functions);
    scan_for_at(&source).map_err(|offset| GenerateError::SanitizerBreach { offset })?;
    Ok(Generated { module_name: format!("{MODULE_PREFIX}{segment}"), source, surface })
}

/// Whether a tool declares `execution.taskSupport: "required"`: it may
/// only be run as a task, which this client does not speak.
pub fn requires_tasks(tool: &ToolDescriptor) -> bool {
    tool.execution.as_ref().and_then(|execution| execution.get("taskSupport")).and_then(Json::as_str) == Some("required")
}

/// The module source: the imports its bodies use, then one function per
/// tool, separated by empty lines. A server with no tools gets an empty
/// module (what `gleam format` makes of nothing: one newline), since
/// imports nothing uses would each be a compiler warning.
fn render_module(server: &str, functions: &[ToolFunction]) -> String {
    if functions.is_empty() {
        return "\n".to_owned();
    }
    let mut source = String::from("import cap/internal/mcp as internal\nimport cap/mcp\n");
    if functions.iter().any(ToolFunction::maps_a_list) {
        source.push_str("import gleam/list\n");
    }
    let server_literal = escape(server);
    for function in functions {
        source.push('\n');
        function.render(&server_literal, &mut source);
    }
    source
}

/// The surface: the import line and a comment naming the module and the
/// server, each function's entry, then the task-only tools left out.
fn render_surface(server: &str, segment: &str, functions: &[ToolFunction], task_only: &[&ToolDescriptor], digest: Digest) -> String {
    let mut surface = format!(
        "import {MODULE_PREFIX}{segment}\n// The tools of MCP server {}, as functions of {MODULE_PREFIX}{segment}: call them as {segment}.name(...); each returns an Outcome.\n",
        escape(server)
    );
    for function in functions {
        function.render_surface(&mut surface);
    }
    if !task_only.is_empty() {
        surface.push_str("// Unavailable: these tools run only as tasks (execution.taskSupport \"required\"), which this client does not speak, so the module has no function for them:\n");
        for tool in task_only {
            surface.push_str(&format!("// - {} (tool {})\n", mangle(&tool.name, digest), escape(&tool.name)));
        }
    }
    surface
}
