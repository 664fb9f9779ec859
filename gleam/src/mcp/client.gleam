//// The client actor (`mcp_client`): one BEAM process per MCP server, owning
//// the server's transport. Every call is answered (a value, a typed error, or
//// `CallTimedOut` at its deadline); the actor never leaves a server process
//// behind without saying so (`shutdown` returns the evidence of its exit).

import gleam/dynamic.{type Dynamic}
import gleam/erlang/process.{type Pid}
import gleam/option.{type Option}
import mcp/json.{type JsonValue}
import mcp/jsonrpc.{type MessageFault, type RpcError}
import mcp/protocol.{
  type CallToolResult, type InitializeResult, type ProtocolFault,
  type ToolDescriptor,
}
import mcp/transport.{type Transport}

/// A handle on one client actor.
pub type Client

/// Every timeout (here and in the calls' `timeout_ms`) is 0 to 86,400,000 ms
/// (a day); a value outside crashes the caller (Erlang `badarg` /
/// `function_clause`) before anything is sent.
pub type Options {
  Options(
    /// `#(name, version)` sent as `clientInfo` in `initialize`.
    client_info: #(String, String),
    handshake_timeout_ms: Int,
    list_timeout_ms: Int,
    shutdown_timeout_ms: Int,
  )
}

pub type ClientError {
  /// The client is not connected, or died; `reason` says why.
  Unavailable(reason: DeathReason)
  /// The deadline passed; the request was cancelled on the wire.
  CallTimedOut
  ServerError(RpcError)
  ResultMalformed(ProtocolFault)
  /// `list_tools` met more than `max_tool_pages()` pages, or a repeated cursor.
  TooManyPages
}

pub type StartError {
  TransportFailed(TransportFailure)
  HandshakeFailed(ClientError)
  VersionUnsupported(requested: String, offered: String)
  /// The server did not declare the `tools` capability.
  ToolsNotDeclared
  /// Start failed (`cause`) and the server's exit could not be proven
  /// (`retirement` says why): the handle is returned so the caller can retry
  /// `shutdown`.
  CleanupUnconfirmed(
    cause: StartError,
    retirement: RetirementError,
    client: Client,
  )
}

pub type TransportFailure {
  ExecutableNotFound(executable: String)
  SpawnFailed(reason: Dynamic)
  BadTransportSpec(reason: Dynamic)
  AlreadyConnected
  /// `connect` on a client that is no longer parked; `reason` is why it
  /// stopped (`CustodianDown` when its custodian died before it connected).
  NotParked(reason: DeathReason)
  /// The spawn asked for a jail that cannot run on this machine (no bwrap,
  /// no user namespaces, ...): nothing was started. `reason` is a sentence.
  JailUnavailable(reason: String)
  /// The spawn's jail is not valid (a relative, missing or hidden path, an
  /// unknown option): nothing was started. `reason` is a sentence.
  BadJail(reason: String)
  /// The spawn's stderr file cannot be appended to, or its bound is out of
  /// range: nothing was started. `reason` is a sentence.
  BadStderr(reason: String)
}

/// Why a client stopped serving requests (the closed list of
/// `docs/client.md`; `OtherReason` keeps anything newer than these bindings).
pub type DeathReason {
  NotConnected
  /// `shutdown` retired it.
  Retired
  /// `stop` was called.
  Stopped
  /// The process that owns the client (its custodian) died.
  CustodianDown
  /// The server's process ended on its own.
  TransportEnded(TransportEnd)
  /// Opening the transport failed.
  OpenFailed(TransportFailure)
  WriteFailed(reason: Dynamic)
  /// The server wrote bytes that are not UTF-8, at this stream offset.
  InvalidUtf8(offset: Int)
  /// The server wrote a line longer than the cap (16 MiB, or the spawn's
  /// `max_line_bytes`).
  LineTooLong(bytes: Int)
  /// The server wrote a line that is not a JSON-RPC message.
  InvalidMessage(MessageFault)
  /// The server sent more unprocessed input than the client's budget.
  Flooded(bytes: Int)
  /// The handshake failed (the start error `connect` answered).
  HandshakeEnded(StartError)
  /// The actor itself is gone (seen by a caller).
  ClientDown(reason: Dynamic)
  OtherReason(Dynamic)
}

/// How a transport ended.
pub type TransportEnd {
  /// Its exit was witnessed.
  Proven(ExitEvidence)
  /// It ended without proof that the server did.
  Unconfirmed(reason: Dynamic)
}

pub type ExitEvidence {
  /// The server's process exited with this code.
  ExitCode(code: Int)
  /// The server's process was ended by this signal (9: our SIGKILL).
  KilledBySignal(number: Int)
  /// The server's process exited, witnessed after its pipe closed (a write
  /// met EPIPE), which loses the exit status.
  StatusUnknown
  /// A channel peer (a BEAM process) ended with this exit reason.
  PeerDown(reason: Dynamic)
}

pub type RetirementEvidence {
  /// The client never started a server: nothing to clean up.
  NoResource
  Exited(ExitEvidence)
}

pub type RetirementError {
  RetirementTimedOut
  RetirementUnconfirmed(reason: Dynamic)
}

/// Handshake 30 s, listing 30 s, shutdown 5 s, client info `mcp-erlang`.
@external(erlang, "mcp_gleam_ffi", "default_options")
pub fn default_options() -> Options

/// A parked client: an actor holding the transport, no server running yet.
/// The caller owns it (the client retires when the caller dies).
@external(erlang, "mcp_gleam_ffi", "prepare")
pub fn prepare(transport: Transport, options: Options) -> Client

/// `prepare` with a separate custodian: the client retires when the
/// custodian dies.
@external(erlang, "mcp_gleam_ffi", "prepare_owned")
pub fn prepare_owned(
  transport: Transport,
  options: Options,
  custodian: Pid,
) -> Client

/// Starts the server and performs the handshake.
@external(erlang, "mcp_gleam_ffi", "connect")
pub fn connect(client: Client) -> Result(InitializeResult, StartError)

/// `prepare` then `connect`; on failure the client is retired first.
@external(erlang, "mcp_gleam_ffi", "start")
pub fn start(
  transport: Transport,
  options: Options,
) -> Result(#(Client, InitializeResult), StartError)

/// Every tool, following `nextCursor`, within `list_timeout_ms`.
@external(erlang, "mcp_gleam_ffi", "list_tools")
pub fn list_tools(client: Client) -> Result(List(ToolDescriptor), ClientError)

/// `list_tools` with an explicit deadline.
@external(erlang, "mcp_gleam_ffi", "list_tools_within")
pub fn list_tools_within(
  client: Client,
  timeout_ms: Int,
) -> Result(List(ToolDescriptor), ClientError)

/// One `tools/call`. `arguments` is normally a `json.Object`.
@external(erlang, "mcp_gleam_ffi", "call_tool")
pub fn call_tool(
  client: Client,
  name: String,
  arguments: JsonValue,
  timeout_ms: Int,
) -> Result(CallToolResult, ClientError)

@external(erlang, "mcp_gleam_ffi", "ping")
pub fn ping(client: Client, timeout_ms: Int) -> Result(Nil, ClientError)

/// Requests retirement and returns at once. Proves nothing; use `shutdown`.
@external(erlang, "mcp_gleam_ffi", "stop")
pub fn stop(client: Client) -> Nil

/// Retires the client and returns the evidence that its server is gone.
@external(erlang, "mcp_gleam_ffi", "shutdown")
pub fn shutdown(
  client: Client,
  timeout_ms: Int,
) -> Result(RetirementEvidence, RetirementError)

/// The server's OS pid while it runs (diagnostics).
@external(erlang, "mcp_gleam_ffi", "os_pid")
pub fn os_pid(client: Client) -> Option(Int)

/// The most `tools/list` pages followed (64).
@external(erlang, "mcp_client", "max_tool_pages")
pub fn max_tool_pages() -> Int

/// The largest timeout, option or argument, in milliseconds (a day); a
/// larger one is refused before anything is sent.
@external(erlang, "mcp_client", "max_timeout_ms")
pub fn max_timeout_ms() -> Int
