//// The JSON-RPC 2.0 envelope (`mcp_jsonrpc`): a strict decoder for one
//// inbound line and the builders of outbound messages.

import gleam/option.{type Option}
import mcp/json.{type CorruptionReport, type JsonValue}

/// A request id. The client mints `IdInt`; a server may pick either kind.
pub type Id {
  IdInt(Int)
  IdString(String)
}

/// A JSON-RPC error object; `data` is carried raw.
pub type RpcError {
  RpcError(code: Int, message: String, data: Option(JsonValue))
}

/// One inbound message, discriminated as JSON-RPC discriminates.
pub type Inbound {
  Response(id: Id, outcome: Result(JsonValue, RpcError))
  ServerRequest(id: Id, method: String, params: Option(JsonValue))
  Notification(method: String, params: Option(JsonValue))
}

/// Why a line is not a JSON-RPC message: not JSON at all, or JSON with a bad
/// envelope (`reason` is a fixed phrase such as `"jsonrpc is not \"2.0\""`).
pub type MessageFault {
  MalformedMessage(CorruptionReport)
  BadMessage(reason: String)
}

/// Decodes one line (without its newline). Total (a `BitArray` that is not
/// whole bytes is a `MalformedMessage`).
@external(erlang, "mcp_gleam_ffi", "jsonrpc_decode")
pub fn decode(line: BitArray) -> Result(Inbound, MessageFault)

@external(erlang, "mcp_jsonrpc", "request")
pub fn request(id: Id, method: String, params: Option(JsonValue)) -> JsonValue

@external(erlang, "mcp_jsonrpc", "notification")
pub fn notification(method: String, params: Option(JsonValue)) -> JsonValue

@external(erlang, "mcp_jsonrpc", "result_response")
pub fn result_response(id: Id, result: JsonValue) -> JsonValue

@external(erlang, "mcp_jsonrpc", "error_response")
pub fn error_response(id: Id, code: Int, message: String) -> JsonValue

/// -32700
@external(erlang, "mcp_jsonrpc", "parse_error")
pub fn parse_error() -> Int

/// -32600
@external(erlang, "mcp_jsonrpc", "invalid_request")
pub fn invalid_request() -> Int

/// -32601
@external(erlang, "mcp_jsonrpc", "method_not_found")
pub fn method_not_found() -> Int

/// -32602
@external(erlang, "mcp_jsonrpc", "invalid_params")
pub fn invalid_params() -> Int

/// -32603
@external(erlang, "mcp_jsonrpc", "internal_error")
pub fn internal_error() -> Int
