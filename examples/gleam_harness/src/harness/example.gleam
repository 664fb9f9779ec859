//// The bundled example server through `cap/mcp/example`: typed arguments
//// in, typed results out; the failure path is a tool error.

import cap/mcp.{Absent, Answer, Present, ToolError}
import cap/mcp/example
import gleam/option.{None, Some}
import harness
import mcp/json

pub fn main() -> Nil {
  use <- harness.with_server("example", harness.example_server())
  let assert Ok(Answer(["42"], Some(json.Object([#("sum", json.Int(42))])))) =
    example.add(a: 2, b: 40)
  let assert Ok(Answer(["HI, ADA!"], None)) =
    example.greet(
      name: "Ada",
      greeting: Present("Hi"),
      times: Absent,
      shout: Present(True),
    )
  let assert Ok(Answer(["4.0"], None)) =
    example.sum_list_9b720a48(numbers: [1.5, 2.5])
  let assert Error(ToolError("division by zero")) =
    example.divide(dividend: 1.0, divisor: 0.0)
  Nil
}
