//// What every program shares: start a server, register it under the name
//// its module was generated with, run the program's calls, retire the
//// server (proving its exit) whatever the calls did.
////
//// Paths are relative to this project's root, where `gleam run` runs.

import cap/internal/mcp as internal
import gleam/io
import mcp/client
import mcp/transport.{type Spawn}

@external(erlang, "harness_ffi", "lib_dir")
pub fn lib_dir() -> String

/// The bundled example server (an escript), pointed at this build's `mcp`.
pub fn example_server() -> Spawn {
  transport.Spawn(
    ..transport.spawn("escript", ["../example_server.escript"]),
    env: [#("ERL_LIBS", transport.Set(lib_dir()))],
  )
}

/// npm `@modelcontextprotocol/server-everything`, installed by the test setup.
pub fn everything_server() -> Spawn {
  transport.spawn("node", [
    "../../test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    "stdio",
  ])
}

/// A FastMCP server (PyPI `mcp`) in the repository's virtualenv.
pub fn python_server() -> Spawn {
  transport.spawn("../../.venv/bin/python", [
    "../../test/e2e/fastmcp_fixture.py",
  ])
}

/// Runs `calls` with `server` registered as `name`, then shuts it down and
/// prints one line; a failed start or an unproven shutdown panics (a
/// non-zero exit for `gleam run`).
pub fn with_server(name: String, server: Spawn, calls: fn() -> Nil) -> Nil {
  let started =
    client.start(transport.PortTransport(server), client.default_options())
  let connection = case started {
    Ok(#(connection, _)) -> connection
    Error(error) -> panic as client.describe_start_error(error)
  }
  internal.register(name, connection)
  calls()
  internal.unregister(name)
  case client.shutdown(connection, 10_000) {
    Ok(_) ->
      io.println(name <> ": every call answered as expected; server retired")
    Error(error) -> panic as client.describe_retirement_error(error)
  }
}
