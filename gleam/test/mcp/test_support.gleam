//// Helpers shared by the suites (not a test module: no `_test` functions).

import mcp/transport.{type Spawn, Spawn}

@external(erlang, "mcp_test_ffi", "rescue")
pub fn rescue(f: fn() -> a) -> Result(a, String)

/// `count` copies of the one-byte bit array `byte`.
@external(erlang, "mcp_test_ffi", "bytes_of")
pub fn bytes_of(byte: BitArray, count: Int) -> BitArray

/// Reasons whose Gleam description differs from the command line's (empty
/// when they all agree).
@external(erlang, "mcp_test_ffi", "describe_disagreements")
pub fn describe_disagreements() -> List(String)

@external(erlang, "mcp_test_ffi", "os_process_alive")
pub fn os_process_alive(os_pid: Int) -> Bool

/// The directory holding this build's applications, `mcp` among them.
@external(erlang, "mcp_test_ffi", "build_lib_dir")
pub fn build_lib_dir() -> String

/// The checkout these tests run in (a jail must be granted it when it sits
/// under `/tmp` or `/run`, which the jail hides).
@external(erlang, "mcp_test_ffi", "checkout_dir")
pub fn checkout_dir() -> String

/// The bundled example server (an escript), pointed at this build's `mcp`.
pub fn example_server() -> Spawn {
  Spawn(
    ..transport.spawn("escript", ["../examples/example_server.escript"]),
    env: [#("ERL_LIBS", transport.Set(build_lib_dir()))],
  )
}
