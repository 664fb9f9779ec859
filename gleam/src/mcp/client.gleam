//// The client actor (`mcp_client`): one BEAM process per MCP server, owning
//// the server's transport. Every call is answered (a value, a typed error, or
//// `CallTimedOut` at its deadline); the actor never leaves a server process
//// behind without saying so (`shutdown` returns the evidence of its exit).

import gleam/dynamic.{type Dynamic}
import gleam/erlang/atom
import gleam/erlang/process.{type Pid, type Selector}
import gleam/option.{type Option}
import mcp/json.{type JsonValue}
import mcp/jsonrpc.{type MessageFault, type RpcError}
import mcp/protocol.{
  type CallToolResult, type InitializeResult, type MsgpackCallToolResult,
  type ProtocolFault, type ToolDescriptor,
}
import mcp/transport.{type Transport}

/// A handle on one client actor.
pub type Client

/// Every timeout (here and in the calls' `timeout_ms`) is 0 to
/// `max_timeout_ms()` (a day). A value outside is refused before anything
/// is sent: `TimeoutOptionOutOfRange` from `prepare`/`start`,
/// `TimeoutOutOfRange` from a call, `ShutdownTimeoutOutOfRange` from
/// `shutdown`.
pub type Options {
  Options(
    /// `#(name, version)` sent as `clientInfo` in `initialize`.
    client_info: #(String, String),
    handshake_timeout_ms: Int,
    list_timeout_ms: Int,
    shutdown_timeout_ms: Int,
    /// Which protocol revisions to speak (docs/client.md, "Eras").
    era: Era,
    /// Answers the server's elicitation; `None` declares no elicitation
    /// capability and refuses it (docs/client.md, "Input: elicitation").
    input_handler: Option(fn(ElicitationRequest) -> InputAnswer),
    /// How long one run of `input_handler` may take before it is killed
    /// and answers `Cancel`.
    input_timeout_ms: Int,
    /// Whether a server that goes away after a connection was up is
    /// started (or reached) again; `None` leaves the client dead
    /// (docs/client.md, "Servers that come back").
    reconnect: Option(Reconnect),
  )
}

/// A reconnect policy: after a connection that was up dies (and its
/// transport proved the old server's end), at most `attempts` connections
/// are started in a row, the first after `backoff_ms`, each wait doubled up
/// to `max_backoff_ms`; a connection that stays up `reset_after_ms` starts
/// the count again. A server that has sent nothing for `unresponsive_ms`
/// when a call's deadline passes is pinged, and one that does not answer
/// the ping within as long is taken for dead (`Unresponsive`) and
/// reconnected. `attempts` is 1 to `max_reconnect_attempts()`, the
/// durations 0 to `max_timeout_ms()` (`reset_after_ms` from 1,000: a
/// server dying after every handshake is then given up; `unresponsive_ms`
/// from 100): a value outside
/// is refused by
/// `prepare`/`start` with `ReconnectOutOfRange` before anything starts.
/// Subscribers hear each step (`select_connection_events`).
pub type Reconnect {
  Reconnect(
    attempts: Int,
    backoff_ms: Int,
    max_backoff_ms: Int,
    reset_after_ms: Int,
    unresponsive_ms: Int,
  )
}

/// A policy of `attempts` with the Erlang client's default durations
/// (`mcp_reconnect:defaults()`: 500 ms doubled up to 30 s, the count
/// starting again after 60 s up, a server silent for 10 s pinged).
@external(erlang, "mcp_gleam_ffi", "reconnect")
pub fn reconnect(attempts: Int) -> Reconnect

/// The most `attempts` a `Reconnect` may name (1,000).
@external(erlang, "mcp_reconnect", "max_attempts")
pub fn max_reconnect_attempts() -> Int

pub type Era {
  /// `initialize`: revisions 2025-11-25 down to 2024-11-05 (the default).
  Handshake
  /// The stateless revision 2026-07-28 only: `server/discover`.
  Modern
  /// Probe `server/discover`, fall back to `initialize`.
  Auto
}

/// What the server asks the person: a message and the schema of a flat
/// object (a form).
pub type ElicitationRequest {
  ElicitationRequest(message: String, requested_schema: JsonValue)
}

/// The answer: accepted content (a JSON object; the schema's defaults are
/// added for what it omits), a refusal, or a dismissal. A handler that
/// crashes answers `Decline`.
pub type InputAnswer {
  Accept(content: JsonValue)
  Decline
  Cancel
}

pub type ClientError {
  /// The client is not connected, or died; `reason` says why.
  Unavailable(reason: DeathReason)
  /// The deadline passed. A `tools/list`, `tools/call` or `ping` is then
  /// cancelled on the wire (`notifications/cancelled`); the handshake's
  /// `initialize` never is (`HandshakeFailed(CallTimedOut)` ends the
  /// connection instead).
  CallTimedOut
  ServerError(RpcError)
  ResultMalformed(ProtocolFault)
  /// `list_tools` met more than `max_tool_pages()` pages, or a repeated cursor.
  TooManyPages
  /// `list_tools` met pages whose lines take more than `max_bytes` together
  /// (the page past them is not read).
  ListingTooLarge(max_bytes: Int)
  /// The call's `timeout_ms` is outside 0..`max_timeout_ms()`: nothing was
  /// sent.
  TimeoutOutOfRange(timeout_ms: Int)
  /// The arguments have no JSON text: nested deeper than `json.max_depth()`
  /// or an integer longer than `json.max_integer_digits()` digits. Nothing
  /// was sent.
  UnencodableArguments
  /// A remote server refused the request without answering it (an HTTP
  /// status with no JSON-RPC response); `reason` says how, in words.
  RequestRefused(reason: String)
  /// The tool was left out of the listing (its `x-mcp-header` annotations
  /// are invalid), so no call of it is sent; `why` says what is wrong.
  ToolLeftOut(why: String)
  /// The server asked for input and `input_handler` is `None`.
  NoInputHandler
  /// The server asked for input other than a form elicitation.
  InputUnsupported(method: String)
  /// The server asked for input more than `max` times in one call.
  TooManyInputRounds(max: Int)
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
  /// An `Options` timeout (`option` is its field name, e.g.
  /// `"handshake_timeout_ms"`) is outside 0..`max_timeout_ms()`: no client
  /// was made.
  TimeoutOptionOutOfRange(option: String, timeout_ms: Int)
  /// A `Remote`'s `oauth` cannot be used as given (its secret's variable is
  /// unset, its key file unreadable, ...): no client was made.
  OAuthUnusable(OAuthConfigError)
  /// A field of `Options`' `reconnect` (`field` is its name, e.g.
  /// `"attempts"`) is outside its range (`Reconnect`): no client was made.
  ReconnectOutOfRange(field: String, value: Int)
}

/// Why a `Remote`'s `oauth` was refused before anything was started.
pub type OAuthConfigError {
  /// The environment variable naming the client secret is not set.
  SecretVariableUnset(variable: String)
  /// The private key file cannot be read; `reason` in words.
  PrivateKeyUnreadable(path: String, reason: String)
  /// `consent_timeout_ms` is outside 1..`max_timeout_ms()`.
  ConsentTimeoutOutOfRange(timeout_ms: Int)
  /// `redirect_port` is `Some` of a number outside 1..65535.
  RedirectPortOutOfRange(port: Int)
}

pub type TransportFailure {
  ExecutableNotFound(executable: String)
  /// The OS refused to start the executable; `os_error` is the POSIX name
  /// (`"eacces"`, `"enoent"`, ...) or, for anything else, the reason in
  /// words.
  SpawnFailed(os_error: String)
  /// The spawn is not valid (e.g. `max_line_bytes` or `shutdown_grace_ms`
  /// out of range); `detail` is what was refused, in words.
  BadTransportSpec(detail: String)
  /// The port transport refused the spawn as a whole (not a spawn
  /// specification); `detail` in words.
  BadSpawn(detail: String)
  /// `connect` on a client that is already connected.
  AlreadyConnected
  /// The NIF library of the `mcp` application (`priv/libmcp_nif.so`) did
  /// not load (never built, or built for another system): no server can
  /// run. `describe_start_error` says how to build it.
  NativeLibraryNotLoaded
  /// `connect` on a client that is no longer parked; `reason` is why it
  /// stopped (`CustodianDown` when its custodian died before it connected).
  NotParked(reason: DeathReason)
  /// The spawn asked for a jail that cannot run on this machine (no bwrap,
  /// no user namespaces, ...): nothing was started. `reason` says why.
  JailUnavailable(reason: String)
  /// The spawn's jail is not valid (a relative, missing or hidden path, an
  /// unknown option): nothing was started. `reason` says which.
  BadJail(reason: String)
  /// The spawn's stderr file cannot be appended to, or its bound is out of
  /// range: nothing was started. `reason` says why.
  BadStderr(reason: String)
  /// A `ChannelTransport`'s `start` returned `Error(reason)`.
  PeerStartFailed(reason: String)
  /// A `Remote`'s token store cannot be used (`TokenFilePermissions`, or
  /// `OtherAuthorizationFailure` saying why): nothing was sent.
  TokenStoreRefused(reason: AuthorizationFailure)
  /// Any other reason the transport gave for not opening (a transport of
  /// one's own may give any), in words.
  OtherTransportFailure(description: String)
}

/// Why a client stopped serving requests: what `Unavailable` carries. The
/// same closed set as the Erlang type `mcp_client:death_reason()` (the list
/// in `docs/client.md`), one constructor per alternative; a suite checks
/// that every alternative of the Erlang type has its constructor.
pub type DeathReason {
  /// The client is parked: `connect` has not been called.
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
  /// Writing to the server failed.
  WriteFailed(WriteFailure)
  /// The server wrote bytes that are not UTF-8, at this stream offset.
  InvalidUtf8(offset: Int)
  /// The server wrote a line longer than the cap (16 MiB, or the spawn's
  /// `max_line_bytes`).
  LineTooLong(bytes: Int)
  /// The server wrote a line that is not a JSON-RPC message.
  InvalidMessage(MessageFault)
  /// The server sent more unprocessed input than the client's budget.
  Flooded(bytes: Int)
  /// With a `reconnect` policy: the server sent nothing for `silent_ms`
  /// although a call's deadline passed and a ping went unanswered (it hung,
  /// or a remote one stopped answering); the policy starts another.
  Unresponsive(silent_ms: Int)
  /// A remote server's HTTP answer could not be used.
  HttpFailed(HttpFault)
  /// The handshake failed: the server did not declare the `tools`
  /// capability (`connect` answered `ToolsNotDeclared`).
  HandshakeWithoutTools
  /// The handshake failed: the server offered a protocol version this
  /// client does not support (`connect` answered `VersionUnsupported`).
  HandshakeVersionUnsupported(requested: String, offered: String)
  /// The handshake failed: the `initialize` request itself failed
  /// (`connect` answered `HandshakeFailed(error)`).
  HandshakeRequestFailed(error: ClientError)
  /// The connection died and the `reconnect` policy is waiting to start
  /// another; `reason` is why the last one ended. Calls are answered so,
  /// at once, until the next connection is up or the policy gives up.
  Reconnecting(reason: DeathReason)
  /// The client's process had already ended when the call was made: an
  /// earlier `shutdown` or `stop` retired it, its custodian died, or it
  /// crashed. The handle is spent.
  ClientGone
  /// The client's process ended while the call waited; `reason` is its exit
  /// reason in words.
  ClientDown(reason: String)
}

/// What went wrong with a remote server's HTTP answer (`mcp_http:fault()`).
pub type HttpFault {
  /// A status other than 2xx (a redirect is one: none is followed).
  HttpStatus(code: Int)
  /// A content type that is neither JSON nor an event stream.
  UnexpectedContentType(content_type: String)
  /// The request itself failed (refused, reset, TLS, timeout), in words.
  RequestFailed(reason: String)
  /// An event longer than the cap (16 MiB, or the remote's `max_line_bytes`).
  EventTooLong(bytes: Int)
  /// What the HTTP client held of an answer it could not yet hand over
  /// (endless headers, or the body of a status other than 200) passed the
  /// allowance `max_line_bytes` sets.
  ResponseTooLarge(bytes: Int)
  /// The server answered 404 to a request carrying the session.
  SessionExpired
  /// The session id the server assigned is not visible ASCII of at most
  /// 1,024 bytes.
  BadSessionId(bytes: Int)
  /// A request's event stream ended before its response and could not be
  /// resumed; `reason` in words.
  StreamLost(reason: String)
  /// The server asked for a token (401, or 403 `insufficient_scope`) and
  /// the `Remote`'s `oauth` could not obtain one it accepts.
  AuthorizationFailed(reason: AuthorizationFailure)
}

/// Why authorization failed (`docs/authorization.md`): the steps, statuses
/// and OAuth error codes the Erlang side reports, never a token, secret,
/// code or header value. URLs are shown as scheme, host, port and path;
/// text from a server is printable and capped.
pub type AuthorizationFailure {
  /// The authorization code grant needs a person and `consent` is
  /// `NoConsent` (run `mcp-gen login`, or give a `Browser`).
  ConsentNeeded
  /// No authorization response reached the loopback redirect within
  /// `consent_timeout_ms`.
  ConsentTimedOut
  /// The browser executable was not found.
  BrowserNotFound(executable: String)
  /// The server refused the token after three authorizations in a row.
  TooManyChallenges
  /// The protected-resource metadata names another `resource` than this
  /// server: no authorization server was asked anything.
  ResourceMismatch(resource: String)
  /// The protected-resource metadata names no `resource`.
  NoResourceInMetadata
  /// The protected-resource metadata names no authorization server.
  NoAuthorizationServer
  /// The authorization server named is not a URL.
  BadIssuer(issuer: String)
  /// No metadata document was found for the authorization server.
  NoAuthorizationServerMetadata(issuer: String)
  /// The authorization server's metadata names another `issuer` (or none)
  /// than the one it was looked up for: none of its endpoints was used.
  IssuerMismatch(issuer: Option(String))
  /// The metadata lacks an endpoint the flow needs (`name` is its key,
  /// `"token_endpoint"`, ...).
  NoEndpoint(name: String)
  /// An endpoint of the metadata is not an `http`/`https` URL.
  BadEndpoint(name: String)
  /// An endpoint is plain `http` to a host other than the loopback.
  PlaintextEndpoint(url: String)
  /// A remote server pointed the flow at this machine (the loopback, the
  /// unspecified or a link-local address): nothing was requested there.
  LocalEndpoint(url: String)
  /// An answer of the flow held this many bytes, more than it may (1 MiB).
  AnswerTooLarge(bytes: Int)
  /// No client id was given and the authorization server offers no
  /// registration this client can use.
  NoClientRegistration
  /// Dynamic registration was refused with this status and OAuth `error`.
  RegistrationRefused(status: Int, error_code: Option(String))
  /// Dynamic registration answered 2xx without a `client_id`.
  RegistrationWithoutClientId(status: Int)
  /// The authorization response's `state` is not the one sent.
  StateMismatch
  /// The authorization response came from another issuer (RFC 9207 `iss`).
  IssMismatch
  /// The authorization response lacks the `iss` its server advertises.
  IssMissing
  /// The authorization server answered the redirect with this OAuth `error`.
  AuthorizationDenied(error_code: String)
  /// The redirect carried neither a code nor an error.
  NoAuthorizationCode
  /// The token endpoint answered this status (not 200) with this OAuth
  /// `error` (`"invalid_client"`, ...).
  TokenRefused(status: Int, error_code: Option(String))
  /// The token endpoint answered 200 without an `access_token`.
  NoAccessToken
  /// The private key could not sign a client assertion.
  BadPrivateKey
  /// The token store's file or directory may be read or written by others
  /// than its owner: it was not used.
  TokenFilePermissions(path: String)
  /// A request of the flow (metadata, registration, token) failed;
  /// `reason` in words.
  AuthorizationRequestFailed(url: String, reason: String)
  /// Anything else the flow reported, in words.
  OtherAuthorizationFailure(description: String)
}

/// Why a write to the server failed.
pub type WriteFailure {
  /// The server stopped reading its input: more than
  /// `transport.max_queue_bytes()` were waiting for it.
  InputBacklogFull
  /// The connection was already closed.
  WriteAfterClose
  /// Anything else the transport reported, in words.
  OtherWriteFailure(description: String)
}

/// How a transport ended.
pub type TransportEnd {
  /// Its exit was witnessed.
  Proven(ExitEvidence)
  /// It ended without proof that the server did; `reason` in words.
  Unconfirmed(reason: String)
}

pub type ExitEvidence {
  /// The server's process exited with this code.
  ExitCode(code: Int)
  /// The server's process was ended by this signal (9: our SIGKILL).
  KilledBySignal(number: Int)
  /// The server's process exited, witnessed after its pipe closed (a write
  /// met EPIPE), which loses the exit status.
  StatusUnknown
  /// A channel peer (a BEAM process) ended with this exit reason, in words
  /// (`"normal"`, `"killed"`, ...).
  PeerDown(reason: String)
}

pub type RetirementEvidence {
  /// The client never started a server: nothing to clean up.
  NoResource
  /// The server's exit was witnessed.
  Exited(ExitEvidence)
}

/// Why `shutdown` could not prove the server gone. Every case but the
/// out-of-range timeout is uncertainty, never success.
pub type RetirementError {
  RetirementTimedOut
  /// The server's connection closed without an exit status (`reason` in
  /// words), so nothing proves its process is gone.
  ClosedWithoutStatus(reason: String)
  /// The client's process ended during the shutdown, before it proved the
  /// server's exit (`reason` is its exit reason in words).
  ClientEndedFirst(reason: String)
  /// The client's process had already ended (an earlier `shutdown` or
  /// `stop` retired it, or it crashed): this call can prove nothing more.
  ClientAlreadyGone
  /// Any other reason the exit is unproven, in words.
  RetirementUnconfirmed(reason: String)
  /// `timeout_ms` is outside 0..`max_timeout_ms()`: nothing was asked.
  ShutdownTimeoutOutOfRange(timeout_ms: Int)
}

/// Handshake 30 s, listing 30 s, shutdown 5 s, client info `mcp-erlang`,
/// no `reconnect` policy.
@external(erlang, "mcp_gleam_ffi", "default_options")
pub fn default_options() -> Options

/// A parked client: an actor holding the transport, no server running yet.
/// The caller owns it (the client retires when the caller dies). The only
/// errors are the refusals of `Options` and of a `Remote`'s `oauth`
/// (`TimeoutOptionOutOfRange`, `ReconnectOutOfRange`, `OAuthUnusable`).
@external(erlang, "mcp_gleam_ffi", "prepare")
pub fn prepare(
  transport: Transport,
  options: Options,
) -> Result(Client, StartError)

/// `prepare` with a separate custodian: the client retires when the
/// custodian dies. The only errors are `prepare`'s.
@external(erlang, "mcp_gleam_ffi", "prepare_owned")
pub fn prepare_owned(
  transport: Transport,
  options: Options,
  custodian: Pid,
) -> Result(Client, StartError)

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

/// The current listing and its generation: the tools as last listed (by
/// `list_tools`, or by the re-listing a server's
/// `notifications/tools/list_changed` starts when it declared
/// `tools.listChanged`), and a number that grows by one whenever a listing
/// differs from the one before. Lists first when nothing was listed yet.
@external(erlang, "mcp_gleam_ffi", "tools")
pub fn tools(
  client: Client,
) -> Result(#(Int, List(ToolDescriptor)), ClientError)

/// A new listing generation (`subscribe`): the client's actor and the
/// generation, as `tools` now returns it.
pub type ToolsChanged {
  ToolsChanged(client: Pid, generation: Int)
}

/// Subscribes the calling process to new listing generations and to the
/// connection's events, until it exits; receive them with
/// `select_tools_changed` and `select_connection_events`.
@external(erlang, "mcp_gleam_ffi", "subscribe")
pub fn subscribe(client: Client) -> Result(Nil, ClientError)

/// `selector` extended with the message a subscription sends.
pub fn select_tools_changed(
  selector: Selector(a),
  mapping: fn(ToolsChanged) -> a,
) -> Selector(a) {
  process.select_record(
    selector,
    atom.create("mcp_tools_changed"),
    2,
    fn(message) { mapping(tools_changed(message)) },
  )
}

@external(erlang, "mcp_gleam_ffi", "tools_changed")
fn tools_changed(message: Dynamic) -> ToolsChanged

/// What a subscription (`subscribe`) hears of the client's connection:
/// the `reconnect` policy's steps, and the end of a client that will not
/// connect again.
pub type ConnectionEvent {
  /// A connection died (or an attempt failed before it was up) and
  /// attempt number `attempt` is made after the policy's wait; `reason` is
  /// why the last connection ended. Calls meanwhile answer
  /// `Unavailable(Reconnecting(reason))`.
  ConnectionLost(client: Pid, attempt: Int, reason: DeathReason)
  /// Attempt number `attempt` is connected: the handshake is done and what
  /// was listed is listed again.
  ConnectionRestored(client: Pid, attempt: Int)
  /// A connection that was up is gone for good and the client is dead:
  /// there is no policy, its attempts are spent, or the end is one no policy
  /// follows (an exit the transport could not prove). `reason` is what calls
  /// now answer in `Unavailable`.
  ConnectionGivenUp(client: Pid, reason: DeathReason)
}

/// `selector` extended with the connection messages a subscription sends
/// (`{mcp_reconnecting, Pid, Attempt, Reason}`, `{mcp_reconnected, Pid,
/// Attempt}`, `{mcp_gave_up, Pid, Reason}`), all three through `mapping`.
pub fn select_connection_events(
  selector: Selector(a),
  mapping: fn(ConnectionEvent) -> a,
) -> Selector(a) {
  let event = fn(message) { mapping(connection_event(message)) }
  selector
  |> process.select_record(atom.create("mcp_reconnecting"), 3, event)
  |> process.select_record(atom.create("mcp_reconnected"), 2, event)
  |> process.select_record(atom.create("mcp_gave_up"), 2, event)
}

@external(erlang, "mcp_gleam_ffi", "connection_event")
fn connection_event(message: Dynamic) -> ConnectionEvent

/// The tools the last modern-era listing left out for invalid
/// `x-mcp-header` annotations, each with why (`[]` in the handshake era).
@external(erlang, "mcp_gleam_ffi", "left_out_tools")
pub fn left_out_tools(
  client: Client,
) -> Result(List(#(String, String)), ClientError)

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

/// `call_tool` for a program that wants the result's `structuredContent` as
/// a MessagePack value (a code-mode `cap`): it is built once, as the line
/// is read, with no `JsonValue` in between.
@external(erlang, "mcp_gleam_ffi", "call_tool_msgpack")
pub fn call_tool_msgpack(
  client: Client,
  name: String,
  arguments: JsonValue,
  timeout_ms: Int,
) -> Result(MsgpackCallToolResult, ClientError)

/// A `ping`: `Ok(Nil)` once the server answered.
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

/// The most bytes the lines of one `tools/list`'s pages take together
/// (4 MiB); the page past them is not read (`ListingTooLarge`).
@external(erlang, "mcp_client", "max_listing_bytes")
pub fn max_listing_bytes() -> Int

/// The largest timeout, option or argument, in milliseconds (a day); a
/// larger one is refused before anything is sent.
@external(erlang, "mcp_client", "max_timeout_ms")
pub fn max_timeout_ms() -> Int

/// One sentence for a person (lower case first, as the command line prints
/// it after `mcp-gen: `): the command line's own wording, shared through
/// `mcp_describe`.
@external(erlang, "mcp_gleam_ffi", "describe_client_error")
pub fn describe_client_error(error: ClientError) -> String

/// `describe_client_error` for a start error.
@external(erlang, "mcp_gleam_ffi", "describe_start_error")
pub fn describe_start_error(error: StartError) -> String

/// `describe_client_error` for a retirement error.
@external(erlang, "mcp_gleam_ffi", "describe_retirement_error")
pub fn describe_retirement_error(error: RetirementError) -> String
