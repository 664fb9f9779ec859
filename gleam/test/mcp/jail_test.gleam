//// The `jail` field of a `Spawn` reaches the port: the example server runs
//// jailed, and a jail that cannot run here fails the start before anything
//// is spawned.

import gleam/option.{Some}
import gleam/string
import mcp/client.{Exited, JailUnavailable, KilledBySignal, TransportFailed}
import mcp/test_support
import mcp/transport.{PortTransport}

pub fn jailed_example_server_test() {
  let jailed =
    PortTransport(
      transport.Spawn(
        ..test_support.example_server(),
        jail: Some(
          transport.Jail(..transport.default_jail(), read: [
            test_support.checkout_dir(),
          ]),
        ),
      ),
    )
  let assert Ok(#(client, _)) = client.start(jailed, client.default_options())
  let assert Ok([_, ..]) = client.list_tools(client)
  let assert Ok(Exited(KilledBySignal(9))) = client.shutdown(client, 20_000)
}

/// The strict profile (reads allowed by list) with the checkout granted:
/// the escript server runs on the system's Erlang and its granted files.
pub fn strict_profile_runs_the_example_server_test() {
  let jailed =
    PortTransport(
      transport.Spawn(
        ..test_support.example_server(),
        jail: Some(
          transport.Jail(
            ..transport.default_jail(),
            read: [test_support.checkout_dir()],
            profile: transport.StrictProfile,
          ),
        ),
      ),
    )
  let assert Ok(#(client, _)) = client.start(jailed, client.default_options())
  let assert Ok([_, ..]) = client.list_tools(client)
  let assert Ok(Exited(KilledBySignal(9))) = client.shutdown(client, 20_000)
}

pub fn unavailable_jail_fails_the_start_test() {
  let missing =
    PortTransport(
      transport.Spawn(
        ..test_support.example_server(),
        jail: Some(
          transport.Jail(
            ..transport.default_jail(),
            bwrap: Some("/nonexistent/bwrap"),
          ),
        ),
      ),
    )
  let assert Error(TransportFailed(JailUnavailable(reason))) =
    client.start(missing, client.default_options())
  let assert True = string.contains(reason, "/nonexistent/bwrap")
}
