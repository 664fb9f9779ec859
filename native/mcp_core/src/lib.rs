//! mcp_core: the pure half of the MCP client. No rustler, no I/O, no threads.
//!
//! Every decoder here is total: for any input it returns a value or a typed
//! fault, never panics, never recurses without a depth bound, and never
//! allocates in proportion to a length the peer merely declared.
//!
//! One module per concern, mirroring the Erlang public modules.

/// JSON value, total parser, compact writer.
pub mod json;

// ---- wire codecs ----
/// The JSON-RPC 2.0 envelope.
pub mod jsonrpc;
/// MCP protocol messages.
pub mod protocol;
/// Newline-delimited stdio framing.
pub mod stdio;
/// Event-stream (`text/event-stream`) framing for Streamable HTTP.
pub mod event_stream;

// ---- code mode generator ----
/// Schema planner: a raw `inputSchema` into typed parameters.
pub mod schema;
/// Name mangler: server-chosen names into Gleam identifiers.
pub mod name;
/// Gleam module and surface generator.
pub mod codegen;

// ---- interchange ----
/// MessagePack values, their total byte codec, and JSON <-> MessagePack.
pub mod interchange;

// ---- jail ----
/// The seccomp filter (classic BPF) a jailed server runs under.
pub mod seccomp;
