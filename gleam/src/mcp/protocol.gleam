//// MCP messages (`mcp_protocol`): the params the client sends, and the
//// handshake, `tools/list` pages and `tools/call` results decoded from a
//// response's raw `result`. The decoders answer a `ProtocolFault` for what
//// they cannot read, never a crash, on any `JsonValue`: one nested deeper
//// than `json.max_depth()` or holding an integer longer than
//// `json.max_integer_digits()` (which no decoder produces) is a
//// `ProtocolFault` at that part's path (`"nesting too deep"`,
//// `"integer too long"`).

import gleam/option.{type Option}
import mcp/interchange.{type InterchangeFault, type MsgpackValue}
import mcp/json.{type JsonValue}

pub type InitializeResult {
  InitializeResult(
    protocol_version: String,
    tools: Option(ToolsCapability),
    server_info: ServerInfo,
    instructions: Option(String),
  )
}

pub type ToolsCapability {
  ToolsCapability(list_changed: Bool)
}

pub type ServerInfo {
  ServerInfo(name: String, version: String)
}

/// One listed tool. `input_schema`, `output_schema`, `annotations` and
/// `execution` are carried raw, exactly as the server sent them. A tool
/// whose `execution` says `"taskSupport": "required"` can only run as a
/// task, which this client does not speak: `codegen.generate` leaves it out.
pub type ToolDescriptor {
  ToolDescriptor(
    name: String,
    title: Option(String),
    description: Option(String),
    input_schema: JsonValue,
    output_schema: Option(JsonValue),
    annotations: Option(JsonValue),
    execution: Option(JsonValue),
  )
}

pub type ToolsPage {
  ToolsPage(tools: List(ToolDescriptor), next_cursor: Option(String))
}

/// A `tools/call` result: `Text` blocks survive, any other block kind is
/// reduced to `Other(kind)`; `structured_content` is raw.
pub type CallToolResult {
  CallToolResult(
    content: List(ContentBlock),
    is_error: Bool,
    structured_content: Option(JsonValue),
  )
}

/// A `tools/call` result as `client.call_tool_msgpack` reads it: its
/// `structuredContent` built once, straight from the server's line, as a
/// MessagePack value (`Ok`, what `interchange.to_msgpack` of
/// `CallToolResult`'s would give), or the fault that keeps it from having
/// one (`Error`, e.g. an integer past the MessagePack range).
pub type MsgpackCallToolResult {
  MsgpackCallToolResult(
    content: List(ContentBlock),
    is_error: Bool,
    structured_content: Option(Result(MsgpackValue, InterchangeFault)),
  )
}

pub type ContentBlock {
  Text(String)
  Other(kind: String)
}

/// `path` is rendered `$.tools[3].inputSchema`-style; `reason` is a fixed phrase.
pub type ProtocolFault {
  ProtocolFault(path: String, reason: String)
  UnsupportedVersion(requested: String, offered: String)
}

/// The version the client asks for: `"2025-11-25"`.
@external(erlang, "mcp_protocol", "requested_version")
pub fn requested_version() -> String

/// The versions accepted, newest first.
@external(erlang, "mcp_protocol", "supported_versions")
pub fn supported_versions() -> List(String)

/// `initialize` params with empty client capabilities.
@external(erlang, "mcp_protocol", "initialize_params")
pub fn initialize_params(
  client_name: String,
  client_version: String,
) -> JsonValue

@external(erlang, "mcp_gleam_ffi", "decode_initialize_result")
pub fn decode_initialize_result(
  result: JsonValue,
) -> Result(InitializeResult, ProtocolFault)

@external(erlang, "mcp_protocol", "tools_list_params")
pub fn tools_list_params(cursor: Option(String)) -> JsonValue

@external(erlang, "mcp_gleam_ffi", "decode_tools_page")
pub fn decode_tools_page(result: JsonValue) -> Result(ToolsPage, ProtocolFault)

@external(erlang, "mcp_protocol", "tools_call_params")
pub fn tools_call_params(name: String, arguments: JsonValue) -> JsonValue

@external(erlang, "mcp_gleam_ffi", "decode_call_tool_result")
pub fn decode_call_tool_result(
  result: JsonValue,
) -> Result(CallToolResult, ProtocolFault)
