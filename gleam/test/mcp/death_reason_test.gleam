//// `client.DeathReason` is the Erlang type `mcp_client:death_reason()`, one
//// constructor per alternative. The type is read from `mcp_client`'s debug
//// info (`mcp_type_examples`), so an alternative added there fails these
//// tests until the adapter and this table have it.

import gleam/dynamic.{type Dynamic}
import gleam/erlang/atom.{type Atom}
import gleam/list
import mcp/client.{
  BadSessionId, CallTimedOut, ClientDown, ClientGone, CustodianDown,
  EventTooLong, ExecutableNotFound, ExitCode, Flooded, HandshakeRequestFailed,
  HandshakeVersionUnsupported, HandshakeWithoutTools, HttpFailed, HttpStatus,
  InputBacklogFull, InvalidMessage, InvalidUtf8, KilledBySignal, LineTooLong,
  NotConnected, OpenFailed, OtherWriteFailure, PeerDown, Proven, RequestFailed,
  ResponseTooLarge, Retired, SessionExpired, StatusUnknown, Stopped, StreamLost,
  TransportEnded, Unavailable, Unconfirmed, UnexpectedContentType,
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
