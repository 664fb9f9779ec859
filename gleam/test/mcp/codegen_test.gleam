import gleam/int
import gleam/list
import gleam/option.{None, Some}
import gleam/string
import mcp/codegen.{
  Generated, SanitizerBreach, SurfaceTooLarge, TooManyTools, ToolNameCollision,
}
import mcp/internal/scheduling
import mcp/json.{Object, String}
import mcp/protocol.{ToolDescriptor}

fn tool(name: String) -> protocol.ToolDescriptor {
  let schema =
    Object([
      #("type", String("object")),
      #(
        "properties",
        Object([#("count", Object([#("type", String("integer"))]))]),
      ),
    ])
  ToolDescriptor(
    name,
    None,
    Some("Does " <> name <> "."),
    schema,
    None,
    None,
    None,
  )
}

pub fn requires_tasks_test() {
  let plain = tool("plain")
  let task_only =
    ToolDescriptor(
      ..plain,
      execution: Some(Object([#("taskSupport", String("required"))])),
    )
  let assert False = codegen.requires_tasks(plain)
  let assert True = codegen.requires_tasks(task_only)
}

pub fn generate_test() {
  let assert Ok(Generated(module_name, source, surface)) =
    codegen.generate("demo", [tool("add")])
  let assert "cap/mcp/demo" = module_name
  let assert True = string.contains(source, "pub fn add(")
  let assert True = string.contains(source, "internal.invoke(\"demo\", \"add\"")
  let assert True = string.contains(surface, "add: fn(")
  let assert Ok(Nil) = codegen.scan_for_at(source)
}

pub fn tool_count_cap_both_sides_test() {
  let max = codegen.max_tools()
  let assert 256 = max
  let tools =
    int.range(from: 0, to: max, with: [], run: fn(acc, i) {
      [tool("t" <> int.to_string(i)), ..acc]
    })
  let assert True = list.length(tools) == max
  let assert Ok(_) = codegen.generate("many", tools)
  let assert Error(TooManyTools(count, 256) as error) =
    codegen.generate("many", [tool("extra"), ..tools])
  let assert True = count == max + 1
  let assert True = string.contains(codegen.describe(error), "257")
}

pub fn collision_test() {
  let assert Error(ToolNameCollision("same", "same")) =
    codegen.generate("dup", [tool("same"), tool("same")])
}

pub fn describe_every_error_test() {
  let errors = [
    TooManyTools(300, 256),
    ToolNameCollision("a", "b"),
    SurfaceTooLarge(70_000, 65_536),
    SanitizerBreach(12),
  ]
  list.each(errors, fn(error) {
    let assert True = string.length(codegen.describe(error)) > 0
  })
}

pub fn text_helpers_test() {
  let assert Ok("a b @x") = codegen.sanitize("a\nb @x", codegen.note_chars())
  let assert Ok("ab…") = codegen.truncate("abcdef", 3)
  let assert Ok("abc") = codegen.truncate("abc", 3)
  let assert "\"a\\\"b\"" = codegen.escape("a\"b")
  let assert Error(2) = codegen.scan_for_at("ab@c")
  let assert True = codegen.description_chars() >= codegen.note_chars()
  let assert 65_536 = codegen.max_surface_bytes()
}

/// A negative character cap is refused (0 is the last cap accepted); one
/// past what the NIF takes answers what any cap longer than the text does.
pub fn text_helper_caps_test() {
  let assert Error(Nil) = codegen.sanitize("abc", -1)
  let assert Error(Nil) = codegen.truncate("abc", -1)
  let assert Ok("") = codegen.sanitize("abc", 0)
  let assert Ok("") = codegen.truncate("abc", 0)
  let huge = 1_000_000_000_000_000_000_000
  let assert Ok("abc") = codegen.truncate("abc", huge)
  let assert Ok("a b") = codegen.sanitize("a\nb", huge)
}

/// A tool that may only run as a task gets no function; the surface starts
/// with the import line and names the tool as unavailable.
pub fn task_only_tool_is_left_out_test() {
  let task_only =
    ToolDescriptor(
      ..tool("research"),
      execution: Some(Object([#("taskSupport", String("required"))])),
    )
  let optional =
    ToolDescriptor(
      ..tool("add"),
      execution: Some(Object([#("taskSupport", String("optional"))])),
    )
  let assert Ok(Generated(_, source, surface)) =
    codegen.generate("demo", [task_only, optional])
  let assert False = string.contains(source, "research")
  let assert True = string.contains(source, "pub fn add(")
  let assert True = string.starts_with(surface, "import cap/mcp/demo\n")
  let assert True =
    string.contains(surface, "// - research (tool \"research\")\n")
}

/// Texts of the dirty threshold's size go through the text helpers on a
/// dirty scheduler, with the answers a short text gets.
pub fn dirty_threshold_sized_text_test() {
  let long = string.repeat("a", scheduling.codegen_dirty_threshold())
  let assert Ok("aa…") = codegen.truncate(long, 3)
  let assert Ok("aa…") = codegen.sanitize(long, 3)
  let assert True = codegen.escape(long) == "\"" <> long <> "\""
  let assert Error(offset) = codegen.scan_for_at(long <> "@")
  let assert True = offset == scheduling.codegen_dirty_threshold()
}
