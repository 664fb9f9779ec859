//// `client.DeathReason` is the Erlang type `mcp_client:death_reason()`, one
//// constructor per alternative. The type is read from `mcp_client`'s debug
//// info (`mcp_type_examples`), so an alternative added there fails these
//// tests until the adapter and this table have it.

import gleam/dynamic.{type Dynamic}
import gleam/erlang/atom.{type Atom}
import gleam/list
import gleam/option.{None, Some}
import mcp/client.{
  AnswerTooLarge, AuthorizationDenied, AuthorizationFailed,
  AuthorizationRequestFailed, BadEndpoint, BadIssuer, BadPrivateKey,
  BadSessionId, BrowserNotFound, CallTimedOut, ClientDown, ClientGone,
  ConsentNeeded, ConsentTimedOut, CustodianDown, EventTooLong,
  ExecutableNotFound, ExitCode, Flooded, HandshakeRequestFailed,
  HandshakeVersionUnsupported, HandshakeWithoutTools, HttpFailed, HttpStatus,
  InputBacklogFull, InvalidMessage, InvalidUtf8, IssMismatch, IssMissing,
  IssuerMismatch, KilledBySignal, LineTooLong, LocalEndpoint, NoAccessToken,
  NoAuthorizationCode, NoAuthorizationServer, NoAuthorizationServerMetadata,
  NoClientRegistration, NoEndpoint, NoResourceInMetadata, NotConnected,
  OpenFailed, OtherAuthorizationFailure, OtherWriteFailure, PeerDown,
  PlaintextEndpoint, Proven, Reconnecting, RegistrationRefused,
  RegistrationWithoutClientId, RequestFailed, ResourceMismatch, ResponseTooLarge,
  Retired, SessionExpired, StateMismatch, StatusUnknown, Stopped, StreamLost,
  TokenFilePermissions, TokenRefused, TokenStoreRefused, TooManyChallenges,
  TransportEnded, Unavailable, Unconfirmed, UnexpectedContentType, Unresponsive,
  WriteAfterClose, WriteFailed,
}
import mcp/json.{CorruptionReport}
import mcp/jsonrpc.{BadMessage, MalformedMessage}

/// A Gleam value as the Erlang term it is.
@external(erlang, "mcp_test_ffi", "term")
fn term(value: a) -> Dynamic

/// What the adapter makes of an Erlang death reason.
@external(erlang, "mcp_test_ffi", "death_reason")
fn death_reason(reason: Dynamic) -> client.DeathReason

/// The alternatives of `mcp_client:death_reason()` none of the terms has.
@external(erlang, "mcp_test_ffi", "death_reasons_uncovered")
fn uncovered(reasons: List(Dynamic)) -> List(String)

@external(erlang, "mcp_test_ffi", "death_reason_examples")
fn example_count() -> Int

@external(erlang, "mcp_test_ffi", "death_reason_disagreements")
fn disagreements() -> List(String)

@external(erlang, "mcp_test_ffi", "authorization_disagreements")
fn authorization_disagreements() -> List(String)

/// What the adapter makes of an Erlang start error.
@external(erlang, "mcp_gleam_ffi", "start_error")
fn start_error(reason: Dynamic) -> client.StartError

fn a(name: String) -> Atom {
  atom.create(name)
}

fn ended(evidence: a) -> Dynamic {
  term(#(a("transport_ended"), evidence))
}

/// Each Erlang death reason and the Gleam value it becomes; every
/// alternative of the Erlang type, and the cases inside one that the
/// adapter tells apart.
fn cases() -> List(#(Dynamic, client.DeathReason)) {
  [
    #(term(a("not_connected")), NotConnected),
    #(term(a("retired")), Retired),
    #(term(a("stopped")), Stopped),
    #(term(a("custodian_down")), CustodianDown),
    #(
      ended(#(a("exited"), #(a("status"), 3))),
      TransportEnded(Proven(ExitCode(3))),
    ),
    #(
      ended(#(a("exited"), #(a("signal"), 9))),
      TransportEnded(Proven(KilledBySignal(9))),
    ),
    #(
      ended(#(a("exited"), a("unknown"))),
      TransportEnded(Proven(StatusUnknown)),
    ),
    #(
      ended(#(a("exited"), #(a("peer_down"), a("killed")))),
      TransportEnded(Proven(PeerDown("killed"))),
    ),
    #(
      ended(#(a("unconfirmed"), #(a("port_exited"), a("epipe")))),
      TransportEnded(Unconfirmed("port exited (epipe)")),
    ),
    #(
      term(#(a("transport_failed"), #(a("executable_not_found"), "nope"))),
      OpenFailed(ExecutableNotFound("nope")),
    ),
    #(term(#(a("write_failed"), a("busy"))), WriteFailed(InputBacklogFull)),
    #(term(#(a("write_failed"), a("closed"))), WriteFailed(WriteAfterClose)),
    #(
      term(#(a("write_failed"), a("einval"))),
      WriteFailed(OtherWriteFailure("einval")),
    ),
    #(term(#(a("invalid_utf8"), 7)), InvalidUtf8(7)),
    #(term(#(a("line_too_long"), 99)), LineTooLong(99)),
    #(
      term(#(
        a("malformed_message"),
        #(a("corruption_report"), 3, "unexpected character"),
      )),
      InvalidMessage(
        MalformedMessage(CorruptionReport(3, "unexpected character")),
      ),
    ),
    #(
      term(#(a("bad_message"), "id is null")),
      InvalidMessage(BadMessage("id is null")),
    ),
    #(term(#(a("flooded"), 1000)), Flooded(1000)),
    #(term(#(a("unresponsive"), 900)), Unresponsive(900)),
    #(term(#(a("http_status"), 500)), HttpFailed(HttpStatus(500))),
    #(
      term(#(a("content_type"), "text/html")),
      HttpFailed(UnexpectedContentType("text/html")),
    ),
    #(
      term(#(a("http_failed"), a("timeout"))),
      HttpFailed(RequestFailed("timeout")),
    ),
    #(term(#(a("event_too_long"), 99)), HttpFailed(EventTooLong(99))),
    #(
      term(#(a("response_too_large"), 3_145_728)),
      HttpFailed(ResponseTooLarge(3_145_728)),
    ),
    #(
      refused(a("consent_needed")),
      HttpFailed(AuthorizationFailed(ConsentNeeded)),
    ),
    #(term(a("session_expired")), HttpFailed(SessionExpired)),
    #(term(#(a("bad_session_id"), 2000)), HttpFailed(BadSessionId(2000))),
    #(term(#(a("stream_lost"), a("ended"))), HttpFailed(StreamLost("ended"))),
    #(term(a("tools_not_declared")), HandshakeWithoutTools),
    #(
      term(#(a("version_unsupported"), "2025-06-18", "1999-01-01")),
      HandshakeVersionUnsupported("2025-06-18", "1999-01-01"),
    ),
    #(
      term(#(a("handshake_failed"), a("call_timed_out"))),
      HandshakeRequestFailed(CallTimedOut),
    ),
    #(
      term(#(
        a("handshake_failed"),
        #(a("unavailable"), #(a("write_failed"), a("closed"))),
      )),
      HandshakeRequestFailed(Unavailable(WriteFailed(WriteAfterClose))),
    ),
    #(
      term(#(a("reconnecting"), ended(#(a("exited"), #(a("signal"), 9))))),
      Reconnecting(TransportEnded(Proven(KilledBySignal(9)))),
    ),
    #(
      term(#(a("reconnecting"), #(a("reconnecting"), a("session_expired")))),
      Reconnecting(Reconnecting(HttpFailed(SessionExpired))),
    ),
    #(term(#(a("client_down"), a("noproc"))), ClientGone),
    #(
      term(#(a("client_down"), #(a("shutdown"), a("crashed")))),
      ClientDown("shutdown (crashed)"),
    ),
  ]
}

pub fn each_death_reason_becomes_its_constructor_test() {
  list.each(cases(), fn(case_) {
    let #(reason, expected) = case_
    assert death_reason(reason) == expected
  })
}

pub fn the_cases_cover_every_alternative_of_the_erlang_type_test() {
  assert uncovered(list.map(cases(), fn(case_) { case_.0 })) == []
}

/// The coverage check can fail: without its case, `not_connected` is
/// reported.
pub fn a_missing_alternative_is_reported_test() {
  let assert [_, ..rest] = cases()
  assert uncovered(list.map(rest, fn(case_) { case_.0 })) == ["not_connected"]
}

/// Every alternative met in the Erlang type (through the evidence, faults
/// and client errors it names) is translated, and described as the command
/// line describes the original.
pub fn every_alternative_is_translated_and_described_test() {
  assert example_count() > list.length(cases())
  assert disagreements() == []
}

fn refused(reason: a) -> Dynamic {
  term(#(a("authorization_failed"), reason))
}

/// Each `{authorization_failed, Reason}` the Erlang side reports and the
/// Gleam value it becomes: one case per constructor of
/// `AuthorizationFailure`, and the cases inside one the adapter tells
/// apart.
fn authorization_cases() -> List(#(Dynamic, client.AuthorizationFailure)) {
  [
    #(refused(a("consent_needed")), ConsentNeeded),
    #(refused(a("consent_timeout")), ConsentTimedOut),
    #(
      refused(#(a("browser_not_found"), "no-browser")),
      BrowserNotFound("no-browser"),
    ),
    #(refused(a("too_many_challenges")), TooManyChallenges),
    #(
      refused(#(a("resource_mismatch"), "https://elsewhere.example/mcp")),
      ResourceMismatch("https://elsewhere.example/mcp"),
    ),
    #(
      refused(#(a("resource_mismatch"), "a\u{1b}[31m")),
      ResourceMismatch("a\u{FFFD}[31m"),
    ),
    #(refused(a("no_resource_in_metadata")), NoResourceInMetadata),
    #(refused(a("no_authorization_server")), NoAuthorizationServer),
    #(refused(#(a("bad_issuer"), "(not a URL)")), BadIssuer("(not a URL)")),
    #(
      refused(#(a("no_authorization_server_metadata"), "https://as.example")),
      NoAuthorizationServerMetadata("https://as.example"),
    ),
    #(
      refused(#(a("issuer_mismatch"), "https://other.example")),
      IssuerMismatch(Some("https://other.example")),
    ),
    #(refused(#(a("issuer_mismatch"), a("none"))), IssuerMismatch(None)),
    #(
      refused(#(a("no_endpoint"), "token_endpoint")),
      NoEndpoint("token_endpoint"),
    ),
    #(
      refused(#(a("bad_endpoint"), "authorization_endpoint")),
      BadEndpoint("authorization_endpoint"),
    ),
    #(
      refused(#(a("plaintext_endpoint"), "http://as.example/token")),
      PlaintextEndpoint("http://as.example/token"),
    ),
    #(
      refused(#(a("local_endpoint"), "http://127.0.0.1:8080/admin")),
      LocalEndpoint("http://127.0.0.1:8080/admin"),
    ),
    #(refused(#(a("body_too_long"), 3_145_728)), AnswerTooLarge(3_145_728)),
    #(refused(a("no_client_registration")), NoClientRegistration),
    #(
      refused(#(a("registration_refused"), 400, "invalid_client_metadata")),
      RegistrationRefused(400, Some("invalid_client_metadata")),
    ),
    #(
      refused(#(a("registration_refused"), 400, a("none"))),
      RegistrationRefused(400, None),
    ),
    #(
      refused(#(a("registration_refused"), 201)),
      RegistrationWithoutClientId(201),
    ),
    #(refused(a("state_mismatch")), StateMismatch),
    #(refused(a("iss_mismatch")), IssMismatch),
    #(refused(a("iss_missing")), IssMissing),
    #(
      refused(#(a("authorization_denied"), "access_denied")),
      AuthorizationDenied("access_denied"),
    ),
    #(refused(a("no_authorization_code")), NoAuthorizationCode),
    #(
      refused(#(a("token_refused"), 401, "invalid_client")),
      TokenRefused(401, Some("invalid_client")),
    ),
    #(refused(#(a("token_refused"), 500, a("none"))), TokenRefused(500, None)),
    #(refused(#(a("token_refused"), 200, a("no_access_token"))), NoAccessToken),
    #(refused(a("bad_private_key")), BadPrivateKey),
    #(
      refused(#(a("token_store"), #(a("token_file_permissions"), "/tmp/tokens"))),
      TokenFilePermissions("/tmp/tokens"),
    ),
    #(
      refused(#(
        a("http_failed"),
        "https://as.example/token",
        a("failed_connect"),
      )),
      AuthorizationRequestFailed("https://as.example/token", "failed connect"),
    ),
    #(
      refused(#(a("session_down"), a("killed"))),
      OtherAuthorizationFailure("session down (killed)"),
    ),
    #(
      refused(#(a("token_refused"), a("not_a_status"), "x")),
      OtherAuthorizationFailure("token refused (not a status, x)"),
    ),
  ]
}

pub fn each_authorization_failure_becomes_its_constructor_test() {
  list.each(authorization_cases(), fn(case_) {
    let #(reason, expected) = case_
    assert death_reason(reason) == HttpFailed(AuthorizationFailed(expected))
  })
}

/// The token store refused at connect is a transport failure holding the
/// same type.
pub fn a_refused_token_store_is_a_transport_failure_test() {
  let oauth = fn(reason: Dynamic) {
    term(#(a("transport_failed"), #(a("oauth"), reason)))
  }
  assert start_error(
      oauth(term(#(a("token_file_permissions"), "/home/u/.config/mcp/oauth"))),
    )
    == client.TransportFailed(
      TokenStoreRefused(TokenFilePermissions("/home/u/.config/mcp/oauth")),
    )
  assert start_error(oauth(term(a("eacces"))))
    == client.TransportFailed(
      TokenStoreRefused(OtherAuthorizationFailure("eacces")),
    )
}

/// Every refusal reads as the command line's sentence for the original.
pub fn every_authorization_failure_is_described_as_the_command_line_does_test() {
  assert authorization_disagreements() == []
}
