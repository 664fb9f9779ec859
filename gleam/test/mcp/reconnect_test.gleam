//// Servers that come back, from Gleam: `Options`' `reconnect` reaches the
//// client actor (a killed server is started again), its fields are refused
//// on both sides of each limit before anything starts, and
//// `select_connection_events` receives what a subscription hears, against
//// real OS processes (`test/e2e/faulty_server.sh`).

import gleam/erlang/process
import gleam/list
import gleam/option.{type Option, None, Some}
import gleam/string
import mcp/client.{
  ConnectionGivenUp, ConnectionLost, ConnectionRestored, ExitCode, Exited,
  KilledBySignal, NoResource, NotParked, Proven, Reconnect, ReconnectOutOfRange,
  Reconnecting, TransportEnded, TransportFailed, Unavailable,
}
import mcp/test_support
import mcp/transport.{PortTransport}

@external(erlang, "mcp_test_ffi", "kill_os_process")
fn kill_os_process(os_pid: Int) -> Nil

@external(erlang, "mcp_test_ffi", "scratch_dir")
fn scratch_dir() -> String

@external(erlang, "mcp_test_ffi", "remove_scratch_dir")
fn remove_directory(dir: String) -> Nil

@external(erlang, "mcp_test_ffi", "read_text")
fn read_text(path: String) -> String

@external(erlang, "mcp_test_ffi", "erlang_accepts_reconnect")
fn erlang_accepts_reconnect(policy: client.Reconnect) -> Bool

/// A hang guard for each event, not a timed assertion.
const hang_guard_ms = 10_000

/// `test/e2e/faulty_server.sh` in `serve` mode at its first start and in
/// `later` mode at every other; each start appends a line to `dir/log`.
fn switching_server(dir: String, later: String) -> transport.Transport {
  let script =
    "echo start >> \"$2/log\"; if [ -e \"$2/started\" ]; then exec \"$1\" "
    <> later
    <> "; else : > \"$2/started\"; exec \"$1\" serve; fi"
  let faulty = test_support.checkout_dir() <> "/test/e2e/faulty_server.sh"
  PortTransport(transport.spawn("/bin/sh", ["-c", script, "sh", faulty, dir]))
}

fn starts(dir: String) -> Int {
  list.length(string.split(read_text(dir <> "/log"), "start")) - 1
}

fn with_reconnect(policy: Option(client.Reconnect)) -> client.Options {
  client.Options(..client.default_options(), reconnect: policy)
}

/// The client started, subscribed, and a selector for its connection
/// events.
fn started(
  server: transport.Transport,
  options: client.Options,
) -> #(client.Client, process.Selector(client.ConnectionEvent)) {
  let assert Ok(#(client, _)) = client.start(server, options)
  let assert Ok(Nil) = client.subscribe(client)
  let selector =
    process.new_selector()
    |> client.select_connection_events(fn(event) { event })
  #(client, selector)
}

fn kill_server(client: client.Client) -> Int {
  let assert Some(os_pid) = client.os_pid(client)
  kill_os_process(os_pid)
  os_pid
}

fn next_event(
  selector: process.Selector(client.ConnectionEvent),
) -> client.ConnectionEvent {
  let assert Ok(event) = process.selector_receive(selector, hang_guard_ms)
  event
}

pub fn no_policy_by_default_and_the_erlang_defaults_test() {
  assert client.default_options().reconnect == None
  assert client.reconnect(3)
    == Reconnect(
      attempts: 3,
      backoff_ms: 500,
      max_backoff_ms: 30_000,
      reset_after_ms: 60_000,
      unresponsive_ms: 10_000,
    )
  assert client.max_reconnect_attempts() == 1000
}

/// Each field on both sides of each limit: the values the Erlang client
/// takes make a client, the others are `ReconnectOutOfRange` naming the
/// field, from `prepare`, `prepare_owned` and `start` alike, before any
/// client exists.
pub fn reconnect_fields_on_both_sides_of_each_limit_test() {
  let day = client.max_timeout_ms()
  let base = client.reconnect(1)
  let cases = [
    #("attempts", 1, Reconnect(..base, attempts: 1), True),
    #("attempts", 0, Reconnect(..base, attempts: 0), False),
    #("attempts", 1000, Reconnect(..base, attempts: 1000), True),
    #("attempts", 1001, Reconnect(..base, attempts: 1001), False),
    #("backoff_ms", 0, Reconnect(..base, backoff_ms: 0), True),
    #("backoff_ms", -1, Reconnect(..base, backoff_ms: -1), False),
    #("backoff_ms", day, Reconnect(..base, backoff_ms: day), True),
    #("backoff_ms", day + 1, Reconnect(..base, backoff_ms: day + 1), False),
    #("max_backoff_ms", 0, Reconnect(..base, max_backoff_ms: 0), True),
    #("max_backoff_ms", -1, Reconnect(..base, max_backoff_ms: -1), False),
    #("max_backoff_ms", day, Reconnect(..base, max_backoff_ms: day), True),
    #(
      "max_backoff_ms",
      day + 1,
      Reconnect(..base, max_backoff_ms: day + 1),
      False,
    ),
    #("reset_after_ms", 1000, Reconnect(..base, reset_after_ms: 1000), True),
    #("reset_after_ms", 999, Reconnect(..base, reset_after_ms: 999), False),
    #("reset_after_ms", 0, Reconnect(..base, reset_after_ms: 0), False),
    #("reset_after_ms", day, Reconnect(..base, reset_after_ms: day), True),
    #(
      "reset_after_ms",
      day + 1,
      Reconnect(..base, reset_after_ms: day + 1),
      False,
    ),
    #("unresponsive_ms", 100, Reconnect(..base, unresponsive_ms: 100), True),
    #("unresponsive_ms", 99, Reconnect(..base, unresponsive_ms: 99), False),
    #("unresponsive_ms", day, Reconnect(..base, unresponsive_ms: day), True),
    #(
      "unresponsive_ms",
      day + 1,
      Reconnect(..base, unresponsive_ms: day + 1),
      False,
    ),
  ]
  let server = PortTransport(test_support.example_server())
  list.each(cases, fn(case_) {
    let #(field, value, policy, accepted) = case_
    // The limits are the Erlang client's own: it raises `badarg` for each
    // value refused here, which no Gleam caller sees.
    assert erlang_accepts_reconnect(policy) == accepted
    let options = with_reconnect(Some(policy))
    case accepted {
      True -> {
        let assert Ok(client) = client.prepare(server, options)
        let assert Ok(NoResource) = client.shutdown(client, 5000)
        Nil
      }
      False -> {
        let refused = Error(ReconnectOutOfRange(field, value))
        assert result_error(client.prepare(server, options)) == refused
        assert result_error(client.prepare_owned(
            server,
            options,
            process.self(),
          ))
          == refused
        assert result_error(client.start(server, options)) == refused
        Nil
      }
    }
  })
}

fn result_error(result: Result(a, e)) -> Result(Nil, e) {
  case result {
    Ok(_) -> Ok(Nil)
    Error(error) -> Error(error)
  }
}

pub fn a_refused_policy_is_described_test() {
  assert client.describe_start_error(ReconnectOutOfRange("attempts", 0))
    == "the reconnect policy's attempts of 0 is outside 1 to 1000, so nothing was started"
  assert client.describe_start_error(ReconnectOutOfRange("backoff_ms", -1))
    == "the reconnect policy's backoff_ms of -1 ms is outside 0 to 86400000 ms, so nothing was started"
}

/// A server killed with a policy is started again: the subscriber hears
/// the loss with its cause, then the new connection, which answers.
pub fn a_killed_server_is_started_again_test() {
  let dir = scratch_dir()
  let #(client, events) =
    started(
      switching_server(dir, "serve"),
      with_reconnect(Some(Reconnect(..client.reconnect(2), backoff_ms: 0))),
    )
  let old = kill_server(client)
  let assert ConnectionLost(
    lost_by,
    1,
    TransportEnded(Proven(KilledBySignal(9))),
  ) = next_event(events)
  let assert ConnectionRestored(restored_by, 1) = next_event(events)
  assert lost_by == restored_by
  let assert Some(new) = client.os_pid(client)
  assert new != old
  assert !test_support.os_process_alive(old)
  assert starts(dir) == 2
  let assert Ok(Nil) = client.ping(client, 5000)
  let assert Ok(Exited(_)) = client.shutdown(client, 5000)
  assert !test_support.os_process_alive(new)
  remove_directory(dir)
}

/// While the policy waits, calls answer `Reconnecting` with the cause at
/// once, and `connect` is refused the same way; a shutdown then answers the
/// last server's evidence and starts nothing more.
pub fn calls_while_waiting_answer_reconnecting_test() {
  let dir = scratch_dir()
  let waiting_a_minute = Reconnect(..client.reconnect(1), backoff_ms: 60_000)
  let #(client, events) =
    started(
      switching_server(dir, "serve"),
      with_reconnect(Some(waiting_a_minute)),
    )
  let _ = kill_server(client)
  let killed = TransportEnded(Proven(KilledBySignal(9)))
  let assert ConnectionLost(_, 1, lost) = next_event(events)
  assert lost == killed
  let assert Error(Unavailable(Reconnecting(reason)) as waiting) =
    client.ping(client, 5000)
  assert reason == killed
  let assert True =
    string.contains(client.describe_client_error(waiting), "reconnect")
  let assert Error(TransportFailed(NotParked(Reconnecting(reason)))) =
    client.connect(client)
  assert reason == killed
  let assert Ok(Exited(KilledBySignal(9))) = client.shutdown(client, 5000)
  assert starts(dir) == 1
  remove_directory(dir)
}

/// Without a policy the subscriber hears the end once; calls answer it.
pub fn without_a_policy_the_end_is_heard_test() {
  let dir = scratch_dir()
  let #(client, events) =
    started(switching_server(dir, "serve"), with_reconnect(None))
  let _ = kill_server(client)
  let assert ConnectionGivenUp(_, TransportEnded(Proven(KilledBySignal(9)))) =
    next_event(events)
  let assert Error(Unavailable(TransportEnded(Proven(KilledBySignal(9))))) =
    client.ping(client, 5000)
  assert starts(dir) == 1
  let assert Ok(Exited(KilledBySignal(9))) = client.shutdown(client, 5000)
  remove_directory(dir)
}

/// A server that exits at every later start spends the attempts: one
/// start per attempt, then the end, heard with the last start's cause.
pub fn a_server_dying_at_every_start_is_given_up_test() {
  let dir = scratch_dir()
  let #(client, events) =
    started(
      switching_server(dir, "exit-before-read"),
      with_reconnect(Some(Reconnect(..client.reconnect(2), backoff_ms: 0))),
    )
  let _ = kill_server(client)
  let exited = TransportEnded(Proven(ExitCode(3)))
  let assert ConnectionLost(_, 1, TransportEnded(Proven(KilledBySignal(9)))) =
    next_event(events)
  let assert ConnectionLost(_, 2, second) = next_event(events)
  assert second == exited
  let assert ConnectionGivenUp(_, last) = next_event(events)
  assert last == exited
  assert starts(dir) == 3
  let assert Error(Unavailable(reason)) = client.ping(client, 5000)
  assert reason == exited
  let assert Ok(Exited(ExitCode(3))) = client.shutdown(client, 5000)
  remove_directory(dir)
}
