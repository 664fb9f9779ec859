//// npm server-everything through `cap/mcp/everything`; the failure path is
//// an argument the server's schema refuses.

import cap/mcp.{Absent, Answer}
import cap/mcp/everything
import gleam/string
import harness

pub fn main() -> Nil {
  use <- harness.with_server("everything", harness.everything_server())
  let assert Ok(Answer(["Echo: hi"], _)) =
    everything.echo_092c79e8(message: "hi")
  let assert Ok(Answer([sum], _)) = everything.get_sum_2fb224d8(a: 2.0, b: 3.5)
  let assert True = string.contains(sum, "5.5")
  let assert Error(_) =
    everything.get_annotated_message_b7411ca0(
      message_type: "not-a-message-type",
      include_image: Absent,
    )
  Nil
}
