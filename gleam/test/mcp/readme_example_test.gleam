//// The package README's Gleam example (test/readme_example.gleam) runs as
//// written, and the README quotes that file verbatim.

import gleam/string
import mcp/transport
import readme_example

@external(erlang, "mcp_test_ffi", "read_text")
fn read_text(path: String) -> String

pub fn readme_example_runs_test() {
  let server =
    transport.spawn("node", [
      "../test/e2e/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
      "stdio",
    ])
  let source = readme_example.tour(server)
  let assert True = string.contains(source, "pub fn echo")
}

pub fn readme_quotes_the_example_verbatim_test() {
  let example = read_text("test/readme_example.gleam")
  let assert True = string.contains(read_text("README.md"), example)
}
