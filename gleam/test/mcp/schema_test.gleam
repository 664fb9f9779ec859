import mcp/json
import mcp/schema.{
  Bool, Float, Int, ListOf, Param, Simple, String, Structured, Typed, WholeValue,
}

fn plan_of(text: String) -> schema.Plan {
  let assert Ok(value) = json.parse(text)
  schema.plan(value)
}

pub fn typed_tier_test() {
  let assert Typed([
    Param("s", "s", Simple(String), False),
    Param("i", "i", Simple(Int), True),
    Param("f", "f", Simple(Float), True),
    Param("b", "b", Simple(Bool), True),
    Param("l", "l", ListOf(Int), True),
    Param("o", "o", Structured(_), True),
  ]) =
    plan_of(
      "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"},\"i\":{\"type\":\"integer\"},\"f\":{\"type\":\"number\"},\"b\":{\"type\":\"boolean\"},\"l\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},\"o\":{\"type\":\"object\"}},\"required\":[\"s\"]}",
    )
}

pub fn whole_value_tier_test() {
  let assert WholeValue("top-level anyOf") = plan_of("{\"anyOf\":[]}")
  let assert WholeValue("schema is not an object") = plan_of("[]")
}
