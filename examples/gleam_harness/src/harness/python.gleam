//// A FastMCP (Python) server through `cap/mcp/python`; the failure path is
//// a tool that ends the server mid-call, which the call reports.

import cap/mcp.{Answer, CallFailed, Present}
import cap/mcp/python
import gleam/string
import harness

pub fn main() -> Nil {
  use <- harness.with_server("python", harness.python_server())
  let assert Ok(Answer(["hi"], _)) = python.echo_092c79e8(text: "hi")
  let assert Ok(Answer(["xxxx"], _)) = python.huge(size: Present(4))
  let assert Error(CallFailed(sentence)) = python.exit_now(status: Present(3))
  let assert True = string.contains(sentence, "exited")
  Nil
}
